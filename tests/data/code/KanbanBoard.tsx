// A kanban board: columns of cards that can be moved, filtered and edited. Written for chunkwise's tests as
// realistic TSX: function components, hooks, props interfaces, a reducer, generic helpers and JSX.
// Überschrift, 看板 🗂️

import React, { createContext, useCallback, useContext, useMemo, useReducer, useState } from "react";

export type ColumnId = "todo" | "doing" | "done";

export interface Card {
  id: string;
  title: string;
  column: ColumnId;
  tags: string[];
  estimate?: number;
}

interface BoardState {
  cards: Card[];
  filter: string;
}

type Action =
  | { kind: "add"; card: Card }
  | { kind: "move"; id: string; to: ColumnId }
  | { kind: "rename"; id: string; title: string }
  | { kind: "filter"; text: string };

const COLUMNS: Array<{ id: ColumnId; label: string }> = [
  { id: "todo", label: "To do" },
  { id: "doing", label: "Doing" },
  { id: "done", label: "Done ✅" },
];

function reducer(state: BoardState, action: Action): BoardState {
  switch (action.kind) {
    case "add":
      return { ...state, cards: [...state.cards, action.card] };
    case "move":
      return {
        ...state,
        cards: state.cards.map((c) => (c.id === action.id ? { ...c, column: action.to } : c)),
      };
    case "rename":
      return {
        ...state,
        cards: state.cards.map((c) => (c.id === action.id ? { ...c, title: action.title } : c)),
      };
    case "filter":
      return { ...state, filter: action.text };
  }
}

const BoardContext = createContext<{ state: BoardState; dispatch: React.Dispatch<Action> } | null>(null);

export function useBoard() {
  const value = useContext(BoardContext);
  if (!value) {
    throw new Error("useBoard must be used inside <Board>");
  }
  return value;
}

/** Groups items by a key, keeping their order. */
export function groupBy<T, K extends string>(items: T[], key: (item: T) => K): Record<K, T[]> {
  const out = {} as Record<K, T[]>;
  for (const item of items) {
    const k = key(item);
    (out[k] ??= []).push(item);
  }
  return out;
}

interface CardViewProps {
  card: Card;
  onMove: (to: ColumnId) => void;
}

export const CardView = ({ card, onMove }: CardViewProps) => {
  const [editing, setEditing] = useState(false);
  const { dispatch } = useBoard();
  const rename = useCallback(
    (title: string) => {
      dispatch({ kind: "rename", id: card.id, title });
      setEditing(false);
    },
    [card.id, dispatch],
  );
  return (
    <li className="card" data-column={card.column}>
      {editing ? (
        <input defaultValue={card.title} onBlur={(e) => rename(e.currentTarget.value)} autoFocus />
      ) : (
        <span onDoubleClick={() => setEditing(true)}>{card.title}</span>
      )}
      <ul className="tags">
        {card.tags.map((t) => (
          <li key={t}>{t}</li>
        ))}
      </ul>
      {COLUMNS.filter((c) => c.id !== card.column).map((c) => (
        <button key={c.id} onClick={() => onMove(c.id)}>
          → {c.label}
        </button>
      ))}
    </li>
  );
};

function Column({ id, label, cards }: { id: ColumnId; label: string; cards: Card[] }) {
  const { dispatch } = useBoard();
  const total = cards.reduce((sum, c) => sum + (c.estimate ?? 0), 0);
  return (
    <section className={`column column-${id}`}>
      <h2>
        {label} <small>({total} pts)</small>
      </h2>
      <ul>
        {cards.map((card) => (
          <CardView key={card.id} card={card} onMove={(to) => dispatch({ kind: "move", id: card.id, to })} />
        ))}
      </ul>
    </section>
  );
}

export default function Board({ initial }: { initial: Card[] }) {
  const [state, dispatch] = useReducer(reducer, { cards: initial, filter: "" });
  const visible = useMemo(() => {
    const text = state.filter.trim().toLowerCase();
    if (!text) {
      return state.cards;
    }
    return state.cards.filter(
      (c) => c.title.toLowerCase().includes(text) || c.tags.some((t) => t.toLowerCase() === text),
    );
  }, [state.cards, state.filter]);
  const columns = groupBy(visible, (c) => c.column);
  return (
    <BoardContext.Provider value={{ state, dispatch }}>
      <input
        placeholder="Filter…"
        value={state.filter}
        onChange={(e) => dispatch({ kind: "filter", text: e.currentTarget.value })}
      />
      <div className="board">
        {COLUMNS.map((c) => (
          <Column key={c.id} id={c.id} label={c.label} cards={columns[c.id] ?? []} />
        ))}
      </div>
    </BoardContext.Provider>
  );
}
