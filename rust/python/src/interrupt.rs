//! Ctrl-C during a long call (see `chunkwise_core::interrupt`): what a call polls is Python's signal handlers, and
//! what stops it is what a handler raised (KeyboardInterrupt).

use chunkwise_core::ChunkError;
use pyo3::prelude::*;

use crate::errors::to_py;

/// The interruption state of one call, shared by every thread that splits for it.
pub(crate) type Interrupt = chunkwise_core::interrupt::Interrupt<PyErr>;

/// The state of a call made on this thread: a poll runs Python's signal handlers (taking the GIL for it when it is
/// released).
pub(crate) fn new() -> Interrupt {
    Interrupt::new(|| Python::attach(|py| py.check_signals()))
}

/// What a handler raised (for a call that stopped).
pub(crate) fn raised(interrupt: &Interrupt) -> PyErr {
    interrupt
        .take_error()
        .unwrap_or_else(|| to_py(ChunkError::Interrupted))
}

/// A core error as a Python exception: an interruption is what the handler raised.
pub(crate) fn error(interrupt: &Interrupt, err: ChunkError) -> PyErr {
    match err {
        ChunkError::Interrupted => raised(interrupt),
        other => to_py(other),
    }
}
