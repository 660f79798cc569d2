//! A run's chunks measured against a previous run's (`chunkwise chunk --previous`): which of the chunks written
//! were there before ("kept") and which are new ("added", to embed).

use std::sync::Mutex;

use rustc_hash::FxHashSet;

/// The previous run's chunk ids, the ids written by this run, and how many chunks were "added" and "kept".
#[derive(Debug)]
pub struct Changes {
    previous: Option<FxHashSet<u64>>,
    written: Mutex<Written>,
}

#[derive(Debug, Default)]
struct Written {
    ids: FxHashSet<u64>,
    added: usize,
    kept: usize,
}

/// A chunk id as the hash it renders (16 lowercase hex digits), or `None` for any other string (which no chunk of
/// this run can have).
pub fn parse_id(id: &str) -> Option<u64> {
    let ok = id.len() == 16
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    ok.then(|| u64::from_str_radix(id, 16).ok()).flatten()
}

impl Changes {
    /// Against `previous`, the ids of a previous run (strings that are no chunk id are left out: no chunk of this
    /// run can have them), or against nothing.
    pub fn new<'a>(previous: Option<impl IntoIterator<Item = &'a str>>) -> Self {
        Self {
            previous: previous.map(|ids| ids.into_iter().filter_map(parse_id).collect()),
            written: Mutex::new(Written::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Written> {
        // A panic while holding the lock cannot leave the counts half-updated in a way that matters here.
        self.written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether a previous run is compared with (else no ids need recording).
    pub fn compared(&self) -> bool {
        self.previous.is_some()
    }

    /// Whether the previous run had a chunk with this id.
    pub fn kept_id(&self, id: u64) -> bool {
        self.previous.as_ref().is_some_and(|p| p.contains(&id))
    }

    /// What a chunk's `change` column holds.
    pub fn change(&self, id: u64) -> &'static str {
        if self.kept_id(id) {
            "kept"
        } else {
            "added"
        }
    }

    /// Counts the chunks of a document once it is handed out (see `added`, `kept`, `written`).
    pub fn record(&self, ids: &[u64]) {
        let Some(previous) = &self.previous else {
            return;
        };
        let mut w = self.lock();
        for id in ids {
            if previous.contains(id) {
                w.kept += 1;
            } else {
                w.added += 1;
            }
            w.ids.insert(*id);
        }
    }

    /// [`Changes::record`] of `chunks`' ids.
    pub fn record_chunks(&self, chunks: &[chunkwise_core::Chunk]) {
        if self.compared() {
            self.record(&chunks.iter().map(|c| c.id).collect::<Vec<_>>());
        }
    }

    /// Chunks written so far that were not in the previous run.
    pub fn added(&self) -> usize {
        self.lock().added
    }

    /// Chunks written so far that were in the previous run.
    pub fn kept(&self) -> usize {
        self.lock().kept
    }

    /// Whether this run has written a chunk with this id (known only when comparing with a previous run).
    pub fn written(&self, id: &str) -> bool {
        parse_id(id).is_some_and(|h| self.lock().ids.contains(&h))
    }
}
