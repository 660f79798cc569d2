//! The memo of piece -> count that a counter and its clones share across the threads of a batch, and in front of
//! it, on each thread, a table of short pieces that needs no lock.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use hashbrown::HashTable;

/// Pieces longer than this are not memoised. Long pieces (rules of dashes, runs of symbols) still repeat: a window
/// and then its chunks count the same piece several times.
pub(super) const MAX_KEY: usize = 4096;
/// The bytes of keys one shard keeps (16 shards: 64 MiB at most); past it, new pieces are counted but not kept.
pub(super) const MAX_BYTES_PER_SHARD: usize = 4 << 20;
pub(super) const SHARDS: usize = 16;
pub(super) const MAX_ENTRIES_PER_SHARD: usize = 1 << 16;

/// Buckets of one per-thread table: 2^13 of four 16-byte slots (one cache line each), 512 KiB, small enough to stay
/// in a core's cache. An English text of 2 MB has about 22,000 distinct pieces.
const FRONT_BITS: u32 = 13;
/// Slots of a bucket: a piece is looked for in one cache line. A new piece takes the bucket's first slot and moves
/// the others along, the oldest falling out, so a text of more distinct pieces than the table holds keeps most of
/// its frequent ones (a table emptied whenever it filled lost them all at once).
const BUCKET: usize = 4;
/// The longest piece a per-thread table holds: its bytes fit in a `u64` and a `u32`. 98% of English pieces do.
const FRONT_KEY: usize = 12;
/// The tables one thread keeps, one per memo, the least recently used given to a new memo (and cleared).
const FRONT_TABLES: usize = 2;

/// piece -> count, shared by the threads of a batch; sharded so that they rarely wait for each other.
pub(super) struct Memo {
    /// Tells this memo's per-thread table from those of other memos (never 0, never reused).
    id: u64,
    shards: Vec<Mutex<Shard>>,
    /// The counts of one-byte pieces, plus one (0: not counted yet), without hashing or locking: BERT makes every
    /// ASCII punctuation mark a piece of its own, and a run of them ("!!!...", "-----") is one lookup per byte.
    ascii: [AtomicU32; 128],
}

/// One shard of the shared memo: the keys end to end in one buffer, and a table of where each is, with its count.
/// No allocation per piece, and a key is hashed once (its hash also picks the shard).
#[derive(Default)]
pub(super) struct Shard {
    table: HashTable<Entry>,
    keys: Vec<u8>,
}

/// A piece of a [`Shard`]: its bytes `keys[at..at + len]` and its count.
#[derive(Clone, Copy)]
struct Entry {
    at: u32,
    len: u32,
    count: u32,
}

impl Shard {
    fn get(&self, hash: u64, key: &[u8]) -> Option<u32> {
        self.table
            .find(hash, |e| self.key(e) == key)
            .map(|e| e.count)
    }

    fn key(&self, e: &Entry) -> &[u8] {
        &self.keys[e.at as usize..(e.at + e.len) as usize]
    }

    /// Keeps `key`, unless the shard is full.
    fn insert(&mut self, hash: u64, key: &[u8], count: u32) {
        if self.table.len() >= MAX_ENTRIES_PER_SHARD
            || self.keys.len() + key.len() > MAX_BYTES_PER_SHARD
        {
            return;
        }
        let entry = Entry {
            at: self.keys.len() as u32,
            len: key.len() as u32,
            count,
        };
        if self.keys.capacity() < self.keys.len() + key.len() {
            // Doubling, but never past the shard's bound: the bound is the memory.
            let want = (2 * self.keys.capacity()).clamp(4096, MAX_BYTES_PER_SHARD);
            self.keys
                .reserve_exact(want.max(self.keys.len() + key.len()) - self.keys.len());
        }
        self.keys.extend_from_slice(key);
        let keys = &self.keys;
        self.table.insert_unique(hash, entry, |e| {
            hash_key(&keys[e.at as usize..(e.at + e.len) as usize])
        });
    }
}

impl Memo {
    pub(super) fn new() -> Self {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Self {
            id: NEXT_ID.fetch_add(1, Relaxed),
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            ascii: std::array::from_fn(|_| AtomicU32::new(0)),
        }
    }

    /// Runs `f` with this memo's table on this thread: every lookup of `f` goes through it. (A memo used again
    /// from inside `f`, which the counters never do, gets no table and is only slower.)
    pub(super) fn with_front<R>(&self, f: impl FnOnce(&mut Lookup<'_>) -> R) -> R {
        FRONT.with(|cell| match cell.try_borrow_mut() {
            Ok(mut fronts) => f(&mut Lookup {
                memo: self,
                table: Some(fronts.table(self.id)),
            }),
            Err(_) => f(&mut Lookup {
                memo: self,
                table: None,
            }),
        })
    }

    /// The count of `key` from the memo, or from `count` (kept when it succeeds).
    #[cfg(test)]
    pub(super) fn get_or<E>(
        &self,
        key: &str,
        count: impl FnOnce() -> Result<usize, E>,
    ) -> Result<usize, E> {
        self.with_front(|lookup| lookup.get_or(key, count))
    }

    /// The count of `key` from the shared memo, or from `count`.
    fn shared<E>(&self, key: &str, count: impl FnOnce() -> Result<usize, E>) -> Result<usize, E> {
        if let &[b] = key.as_bytes() {
            let slot = &self.ascii[usize::from(b & 0x7F)];
            return match slot.load(Relaxed) {
                0 => {
                    let n = count()?;
                    slot.store(u32::try_from(n).unwrap_or(u32::MAX - 1) + 1, Relaxed);
                    Ok(n)
                }
                known => Ok(known as usize - 1),
            };
        }
        if key.len() > MAX_KEY {
            return count();
        }
        let key = key.as_bytes();
        let hash = hash_key(key);
        let shard = &self.shards[shard_of(hash)];
        if let Some(n) = lock(shard).get(hash, key) {
            return Ok(n as usize);
        }
        let n = count()?;
        let mut shard = lock(shard);
        // Another thread may have kept it meanwhile.
        if shard.get(hash, key).is_none() {
            shard.insert(hash, key, u32::try_from(n).unwrap_or(u32::MAX));
        }
        Ok(n)
    }
}

/// Lookups in one memo through its table on this thread (see [`Memo::with_front`]).
pub(super) struct Lookup<'a> {
    memo: &'a Memo,
    table: Option<&'a mut Table>,
}

impl Lookup<'_> {
    /// The count of `key` from the thread's table, the shared memo, or `count` (kept in both when it succeeds).
    #[inline]
    pub(super) fn get_or<E>(
        &mut self,
        key: &str,
        count: impl FnOnce() -> Result<usize, E>,
    ) -> Result<usize, E> {
        let bytes = key.as_bytes();
        let Some(table) = self
            .table
            .as_deref_mut()
            .filter(|_| (2..=FRONT_KEY).contains(&bytes.len()))
        else {
            return self.memo.shared(key, count);
        };
        let slot = Slot::new(bytes);
        let bucket = &mut table.buckets[slot.index()];
        if let Some(s) = bucket.0.iter().find(|s| s.same_key(&slot)) {
            return Ok((s.meta >> LEN_BITS) as usize);
        }
        let n = self.memo.shared(key, count)?;
        if n < 1 << (32 - LEN_BITS) {
            bucket.0.copy_within(..BUCKET - 1, 1);
            bucket.0[0] = Slot {
                meta: slot.meta | (n as u32) << LEN_BITS,
                ..slot
            };
        }
        Ok(n)
    }
}

thread_local! {
    /// The per-thread tables in front of the memos, allocated on first use.
    static FRONT: RefCell<Fronts> = const { RefCell::new(Fronts { tables: Vec::new() }) };
}

/// A thread's tables, the most recently used first.
struct Fronts {
    tables: Vec<Table>,
}

impl Fronts {
    /// The table of memo `id`: its own, or the least recently used one cleared for it.
    fn table(&mut self, id: u64) -> &mut Table {
        let at = match self.tables.iter().position(|t| t.owner == id) {
            Some(at) => at,
            None if self.tables.len() < FRONT_TABLES => {
                self.tables.push(Table {
                    owner: id,
                    buckets: vec![Bucket::default(); 1 << FRONT_BITS].into_boxed_slice(),
                });
                self.tables.len() - 1
            }
            None => {
                let last = self.tables.len() - 1;
                let t = &mut self.tables[last];
                t.buckets.fill(Bucket::default());
                t.owner = id;
                last
            }
        };
        self.tables[..=at].rotate_right(1);
        &mut self.tables[0]
    }
}

/// A set-associative cache of pieces: a piece's hash picks its bucket; pieces leave only by being pushed out of it.
struct Table {
    owner: u64,
    buckets: Box<[Bucket]>,
}

/// The slots of one bucket, the newest first (an empty slot has `meta == 0`, which no key matches).
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct Bucket([Slot; BUCKET]);

const LEN_BITS: u32 = 4;
const LEN_MASK: u32 = (1 << LEN_BITS) - 1;

/// One piece of 2 to [`FRONT_KEY`] bytes with its count. The two integers and the length determine the bytes (they
/// are read in overlapping windows), so no string is compared.
#[derive(Clone, Copy, Default)]
struct Slot {
    a: u64,
    b: u32,
    /// The length in the low [`LEN_BITS`], the count above (0: an empty slot, as no key is empty).
    meta: u32,
}

impl Slot {
    #[inline]
    fn new(key: &[u8]) -> Self {
        let n = key.len();
        debug_assert!((2..=FRONT_KEY).contains(&n));
        let half = |at: usize| u32::from_le_bytes(key[at..at + 4].try_into().expect("4 bytes"));
        let (a, b) = match n {
            8.. => (
                u64::from_le_bytes(key[..8].try_into().expect("8 bytes")),
                half(n - 4),
            ),
            4.. => (u64::from(half(0)) | u64::from(half(n - 4)) << 32, 0),
            _ => (
                u64::from(key[0]) | u64::from(key[n / 2]) << 8 | u64::from(key[n - 1]) << 16,
                0,
            ),
        };
        Slot {
            a,
            b,
            meta: n as u32,
        }
    }

    /// Whether `self` holds the key of `other` (whose count bits are zero).
    #[inline]
    fn same_key(&self, other: &Slot) -> bool {
        self.a == other.a && self.b == other.b && self.meta & LEN_MASK == other.meta
    }

    #[inline]
    fn index(&self) -> usize {
        let h = (self.a ^ u64::from(self.b) << 24 ^ u64::from(self.meta) << 59)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> (64 - FRONT_BITS)) as usize
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while the lock was held cannot leave a half-written entry: the map is still valid.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn hash_key(key: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(key)
}

/// The shard of a key's hash: its top bits (the table's probes use the low ones).
fn shard_of(hash: u64) -> usize {
    (hash >> 60) as usize % SHARDS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_every_length_are_told_apart() {
        // Keys that differ in one byte at each position, and keys that are prefixes of each other.
        let memo = Memo::new();
        let base = "abcdefghijkl";
        let mut keys: Vec<String> = (2..=FRONT_KEY).map(|n| base[..n].to_owned()).collect();
        for n in 2..=FRONT_KEY {
            for at in 0..n {
                let mut k = base.as_bytes()[..n].to_vec();
                k[at] = b'Z';
                keys.push(String::from_utf8(k).unwrap());
            }
        }
        keys.push("ab\0".into());
        keys.push("ab\0\0".into());
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(memo.get_or(k, || Ok::<_, ()>(i)), Ok(i), "{k:?}");
        }
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(memo.get_or(k, || Err(())), Ok(i), "{k:?} again");
        }
    }

    #[test]
    fn memos_on_one_thread_keep_their_own_counts() {
        let memos: Vec<Memo> = (0..FRONT_TABLES + 2).map(|_| Memo::new()).collect();
        for round in 0..3 {
            for (i, m) in memos.iter().enumerate() {
                let n = m.get_or("piece", || Ok::<_, ()>(i)).unwrap();
                assert_eq!(n, i, "memo {i}, round {round}");
            }
        }
    }

    #[test]
    fn pieces_pushed_out_of_the_table_are_answered_by_the_shared_memo() {
        // More pieces than the table has slots: buckets overflow.
        let memo = Memo::new();
        let keys: Vec<String> = (0..(BUCKET << FRONT_BITS) + 1000)
            .map(|i| format!("k{i}"))
            .collect();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(memo.get_or(k, || Ok::<_, ()>(i % 7)), Ok(i % 7));
        }
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(memo.get_or(k, || Err(())), Ok(i % 7), "{k}");
        }
    }

    #[test]
    fn the_shared_memo_stays_within_its_bounds_and_still_counts() {
        let memo = Memo::new();
        let key = |i: usize| format!("{i:0>120}");
        let total = MAX_BYTES_PER_SHARD * SHARDS / 120 + 100_000;
        for i in 0..total {
            assert_eq!(memo.shared(&key(i), || Ok::<_, ()>(i % 5)), Ok(i % 5));
        }
        let mut kept = 0;
        for shard in &memo.shards {
            let shard = lock(shard);
            assert!(shard.keys.capacity() <= MAX_BYTES_PER_SHARD);
            assert!(shard.table.len() <= MAX_ENTRIES_PER_SHARD);
            kept += shard.table.len();
        }
        assert!(kept < total && kept > total / 2, "{kept} of {total}");
        // Kept or not, every piece has its own count.
        for i in (0..total).step_by(97) {
            assert_eq!(memo.shared(&key(i), || Ok::<_, ()>(i % 5)), Ok(i % 5));
        }
    }
}
