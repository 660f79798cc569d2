package org.example.inventory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A warehouse inventory: items by SKU, stock movements, and reports. Written for chunkwise's tests as realistic
 * Java: nested and anonymous classes, records, enums with bodies, interfaces with default methods, annotations,
 * generics and lambdas. Kommentar mit Umlauten: Größe, Menge; 中文注释：库存 📦.
 */
public class Inventory implements Iterable<Inventory.Item> {

    /** Marks a method that changes stock. */
    public @interface Mutating {
        String reason() default "";
    }

    /** How a movement changes stock. */
    public enum Kind {
        RECEIVE {
            @Override
            int sign() {
                return 1;
            }
        },
        SHIP {
            @Override
            int sign() {
                return -1;
            }
        },
        ADJUST {
            @Override
            int sign() {
                return 1;
            }
        };

        abstract int sign();
    }

    /** One stock movement. */
    public record Movement(String sku, Kind kind, int quantity, Instant at) {
        public Movement {
            Objects.requireNonNull(sku, "sku");
            if (quantity < 0) {
                throw new IllegalArgumentException("quantity must be >= 0, got " + quantity);
            }
        }

        int delta() {
            return kind.sign() * quantity;
        }
    }

    /** Something that can tell whether stock is low. */
    public interface Threshold {
        int minimum(Item item);

        default boolean isLow(Item item) {
            return item.onHand() < minimum(item);
        }
    }

    /** An item kept in the warehouse. */
    public static final class Item {
        private final String sku;
        private final String name;
        private int onHand;
        private final List<Movement> history = new ArrayList<>();

        Item(String sku, String name) {
            this.sku = sku;
            this.name = name;
        }

        public String sku() {
            return sku;
        }

        public String name() {
            return name;
        }

        public int onHand() {
            return onHand;
        }

        // Applies one movement; stock never goes below zero.
        void apply(Movement m) {
            int next = onHand + m.delta();
            if (next < 0) {
                throw new IllegalStateException(
                        "cannot ship " + m.quantity() + " of " + sku + ": only " + onHand + " on hand");
            }
            onHand = next;
            history.add(m);
        }

        List<Movement> history() {
            return Collections.unmodifiableList(history);
        }

        @Override
        public String toString() {
            return sku + " (" + name + "): " + onHand;
        }
    }

    private final Map<String, Item> items = new HashMap<>();
    private final List<Runnable> listeners = new ArrayList<>();

    public Item add(String sku, String name) {
        return items.computeIfAbsent(sku, s -> new Item(s, name));
    }

    public Optional<Item> find(String sku) {
        return Optional.ofNullable(items.get(sku));
    }

    @Mutating(reason = "stock movement")
    public void record(Movement m) {
        Item item = find(m.sku()).orElseThrow(() -> new IllegalArgumentException("unknown SKU " + m.sku()));
        item.apply(m);
        for (Runnable l : listeners) {
            l.run();
        }
    }

    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    /** The items matching a filter, by name. */
    public List<Item> select(Predicate<Item> filter) {
        List<Item> out = new ArrayList<>();
        for (Item item : items.values()) {
            if (filter.test(item)) {
                out.add(item);
            }
        }
        out.sort(Comparator.comparing(Item::name).thenComparing(Item::sku));
        return out;
    }

    /** The items below their threshold. */
    public List<Item> lowStock(Threshold threshold) {
        return select(threshold::isLow);
    }

    /** Items in SKU order; the iterator refuses removal. */
    @Override
    public Iterator<Item> iterator() {
        List<String> skus = new ArrayList<>(items.keySet());
        Collections.sort(skus);
        return new Iterator<Item>() {
            private int next = 0;

            @Override
            public boolean hasNext() {
                return next < skus.size();
            }

            @Override
            public Item next() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                return items.get(skus.get(next++));
            }

            @Override
            public void remove() {
                throw new UnsupportedOperationException("read-only view");
            }
        };
    }

    /** A plain-text report, one line per item, low stock marked. */
    public String report(Threshold threshold) {
        StringBuilder sb = new StringBuilder();
        for (Item item : this) {
            sb.append(threshold.isLow(item) ? "! " : "  ");
            sb.append(item).append('\n');
        }
        return sb.toString();
    }

    public static void main(String[] args) {
        Inventory inv = new Inventory();
        inv.add("A-1", "Bolts");
        inv.add("B-2", "Nuts");
        inv.record(new Movement("A-1", Kind.RECEIVE, 100, Instant.now()));
        inv.record(new Movement("A-1", Kind.SHIP, 30, Instant.now()));
        Threshold fixed = new Threshold() {
            @Override
            public int minimum(Item item) {
                return 50;
            }
        };
        System.out.print(inv.report(fixed));
    }
}
