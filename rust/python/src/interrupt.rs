//! Ctrl-C during a long call. Python runs its signal handlers (the one that raises KeyboardInterrupt) only when the
//! main thread asks, between bytecodes or in `PyErr_CheckSignals`; a call that releases the GIL for seconds asked
//! never, so Ctrl-C waited for the end of a 100 MB split. Now the calling thread asks every [`INTERVAL`] from the
//! core's stop check (every few chunks) or while it waits for a batch, and a handler that raises stops every split
//! of the call at its next check.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

use chunkwise_core::ChunkError;
use pyo3::prelude::*;

use crate::errors::to_py;

/// How often the calling thread runs Python's signal handlers: Ctrl-C feels immediate, and taking the GIL back 20
/// times a second costs nothing measurable.
pub(crate) const INTERVAL: Duration = Duration::from_millis(50);

/// The interruption state of one call, shared by every thread that splits for it.
#[derive(Debug)]
pub(crate) struct Interrupt {
    /// Set once a signal handler raised: every split of the call stops at its next check.
    stopped: AtomicBool,
    /// The thread that made the call: the only one that runs the handlers (on any other, `PyErr_CheckSignals`
    /// does nothing, and taking the GIL there would only stall the worker).
    caller: ThreadId,
    since: Instant,
    /// When the handlers last ran, in nanoseconds after `since`.
    last: AtomicU64,
    /// What the handler raised (KeyboardInterrupt), raised again when the call returns.
    error: Mutex<Option<PyErr>>,
}

impl Interrupt {
    /// The state of a call made on this thread.
    pub(crate) fn new() -> Self {
        Self {
            stopped: AtomicBool::new(false),
            caller: thread::current().id(),
            since: Instant::now(),
            last: AtomicU64::new(0),
            error: Mutex::new(None),
        }
    }

    /// Whether the call should stop. On the calling thread, runs Python's signal handlers first when [`INTERVAL`]
    /// has passed since they last ran (taking the GIL for it when it is released).
    pub(crate) fn check(&self) -> bool {
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

    /// Runs Python's signal handlers now (on the calling thread); true if one raised.
    pub(crate) fn poll(&self) -> bool {
        match Python::attach(|py| py.check_signals()) {
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

    /// Whether a handler raised during the call.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped.load(Relaxed)
    }

    /// What the handler raised (for a call that [`Interrupt::stopped`]).
    pub(crate) fn take_error(&self) -> PyErr {
        self.error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or_else(|| to_py(ChunkError::Interrupted))
    }

    /// A core error as a Python exception: an interruption is what the handler raised.
    pub(crate) fn to_py(&self, err: ChunkError) -> PyErr {
        match err {
            ChunkError::Interrupted => self.take_error(),
            other => to_py(other),
        }
    }
}
