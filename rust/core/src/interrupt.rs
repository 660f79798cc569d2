//! Stopping a long call when its caller asks. Python runs its signal handlers (the one that raises
//! KeyboardInterrupt) only when the main thread asks, between bytecodes or in `PyErr_CheckSignals`; a call that
//! releases the GIL for seconds asked never, so Ctrl-C waited for the end of a 100 MB split. Now the calling thread
//! polls every [`INTERVAL`] from the core's stop check (every few chunks) or while it waits for a batch (see
//! [`crate::parallel`]), and a poll that fails stops every split of the call at its next check.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

/// How often the calling thread polls: Ctrl-C feels immediate, and taking the GIL back 20 times a second costs
/// nothing measurable.
pub const INTERVAL: Duration = Duration::from_millis(50);

/// The interruption state of one call, shared by every thread that works for it; `E` is what a poll fails with.
#[derive(Debug)]
pub struct Interrupt<E> {
    /// Set once a poll failed: every split of the call stops at its next check.
    stopped: AtomicBool,
    /// The thread that made the call: the only one that polls (Python's signal handlers run only there, and taking
    /// the GIL on any other would only stall the worker).
    caller: ThreadId,
    since: Instant,
    /// When the last poll ran, in nanoseconds after `since`.
    last: AtomicU64,
    /// What the poll failed with (KeyboardInterrupt), for the call to return.
    error: Mutex<Option<E>>,
    /// Runs the caller's signal handlers: `Err` when one raised.
    poll: fn() -> Result<(), E>,
}

impl<E> Interrupt<E> {
    /// The state of a call made on this thread, which polls with `poll`.
    pub fn new(poll: fn() -> Result<(), E>) -> Self {
        Self {
            stopped: AtomicBool::new(false),
            caller: thread::current().id(),
            since: Instant::now(),
            last: AtomicU64::new(0),
            error: Mutex::new(None),
            poll,
        }
    }

    /// Whether the call should stop. On the calling thread, polls first when [`INTERVAL`] has passed since the last
    /// poll (the first poll comes [`INTERVAL`] after the call started).
    pub fn check(&self) -> bool {
        if self.stopped.load(Relaxed) {
            return true;
        }
        if thread::current().id() != self.caller {
            return false;
        }
        let now = self.since.elapsed().as_nanos() as u64;
        if now.saturating_sub(self.last.load(Relaxed)) < INTERVAL.as_nanos() as u64 {
            return false;
        }
        self.last.store(now, Relaxed);
        self.poll()
    }

    /// Polls now (on the calling thread); true if the poll failed.
    pub fn poll(&self) -> bool {
        match (self.poll)() {
            Ok(()) => false,
            Err(err) => {
                self.error
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert(err);
                self.stopped.store(true, Relaxed);
                true
            }
        }
    }

    /// Whether a poll failed during the call.
    pub fn stopped(&self) -> bool {
        self.stopped.load(Relaxed)
    }

    /// What the poll failed with, once (for a call that [`Interrupt::stopped`]).
    pub fn take_error(&self) -> Option<E> {
        self.error.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn a_failed_poll_stops_every_thread_and_is_returned_once() {
        let interrupt = Interrupt::new(|| Err("raised"));
        assert!(!interrupt.stopped());
        assert!(interrupt.poll());
        assert!(interrupt.stopped());
        thread::scope(|s| {
            s.spawn(|| assert!(interrupt.check()));
        });
        assert_eq!(interrupt.take_error(), Some("raised"));
        assert_eq!(interrupt.take_error(), None);
        assert!(interrupt.check());
    }

    #[test]
    fn only_the_calling_thread_polls_and_at_most_once_an_interval() {
        static POLLS: AtomicUsize = AtomicUsize::new(0);
        let interrupt = Interrupt::<()>::new(|| {
            POLLS.fetch_add(1, Relaxed);
            Ok(())
        });
        thread::sleep(INTERVAL);
        thread::scope(|s| {
            s.spawn(|| assert!(!interrupt.check()));
        });
        assert_eq!(POLLS.load(Relaxed), 0, "another thread never polls");
        let start = Instant::now();
        for _ in 0..10_000 {
            assert!(!interrupt.check());
        }
        let polls = POLLS.load(Relaxed);
        let intervals = start.elapsed().as_nanos() / INTERVAL.as_nanos();
        assert!(polls >= 1, "the first check after the interval polls");
        assert!(
            polls as u128 <= 1 + intervals,
            "{polls} polls in {intervals} intervals"
        );
        assert!(!interrupt.stopped());
    }
}
