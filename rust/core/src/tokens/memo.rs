//! The memo of piece -> count that a counter and its clones share across the threads of a batch.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Mutex;

use rustc_hash::FxHashMap;

/// Pieces longer than this are not memoised. Long pieces (rules of dashes, runs of symbols) still repeat: a window
/// and then its chunks count the same piece several times.
pub(super) const MAX_KEY: usize = 4096;
/// The bytes of keys one shard keeps (16 shards: 64 MiB at most); past it, new pieces are counted but not kept.
pub(super) const MAX_BYTES_PER_SHARD: usize = 4 << 20;
pub(super) const SHARDS: usize = 16;
pub(super) const MAX_ENTRIES_PER_SHARD: usize = 1 << 16;

/// piece -> count, shared by the threads of a batch; sharded so that they rarely wait for each other.
pub(super) struct Memo {
    shards: Vec<Mutex<Shard>>,
    /// The counts of one-byte pieces, plus one (0: not counted yet), without hashing or locking: BERT makes every
    /// ASCII punctuation mark a piece of its own, and a run of them ("!!!...", "-----") is one lookup per byte.
    ascii: [AtomicU32; 128],
}

#[derive(Default)]
pub(super) struct Shard {
    map: FxHashMap<Box<str>, u32>,
    bytes: usize,
}

impl Memo {
    pub(super) fn new() -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            ascii: std::array::from_fn(|_| AtomicU32::new(0)),
        }
    }

    /// The count of `key` from the memo, or from `count` (kept when it succeeds).
    pub(super) fn get_or<E>(
        &self,
        key: &str,
        count: impl FnOnce() -> Result<usize, E>,
    ) -> Result<usize, E> {
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
        let shard = &self.shards[shard_of(key)];
        if let Some(&n) = lock(shard).map.get(key) {
            return Ok(n as usize);
        }
        let n = count()?;
        let mut shard = lock(shard);
        if shard.map.len() < MAX_ENTRIES_PER_SHARD && shard.bytes + key.len() <= MAX_BYTES_PER_SHARD
        {
            shard.bytes += key.len();
            shard
                .map
                .insert(key.into(), u32::try_from(n).unwrap_or(u32::MAX));
        }
        Ok(n)
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while the lock was held cannot leave a half-written entry: the map is still valid.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(super) fn shard_of(key: &str) -> usize {
    use std::hash::BuildHasher;
    (rustc_hash::FxBuildHasher.hash_one(key) >> 59) as usize % SHARDS
}
