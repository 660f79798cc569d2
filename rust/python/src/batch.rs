//! Batches (see `chunkwise_core::parallel`): every text of a call split in parallel on all cores with the GIL
//! released, the results handed back in order; one after the other with the GIL held when sizes come from a Python
//! callable.

use chunkwise_core::panic::Panic;
use chunkwise_core::parallel::{self, Caller};
use chunkwise_core::ChunkError;
use pyo3::prelude::*;

use crate::errors::{batch_error, internal};
use crate::interrupt::{self, Interrupt};
use crate::splitter::{PySplitter, Stop};

/// A batch of a splitter's call from Python.
struct Batch<'a, 'py> {
    py: Python<'py>,
    splitter: &'a PySplitter,
    interrupt: &'a Interrupt,
}

impl Caller for Batch<'_, '_> {
    type Error = PyErr;

    fn interrupt(&self) -> &Interrupt {
        self.interrupt
    }

    fn detach<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T {
        self.py.detach(f)
    }

    fn serial(&self) -> bool {
        self.splitter.calls_python()
    }

    /// What a Python tokenizer callable raised, else what a signal handler raised.
    fn check(&self) -> PyResult<()> {
        self.splitter.check()?;
        if self.interrupt.stopped() {
            return Err(interrupt::raised(self.interrupt));
        }
        Ok(())
    }

    fn panicked(&self, i: Option<usize>, panic: &Panic) -> PyErr {
        match i {
            Some(i) => internal(&format!("splitting texts[{i}]"), panic),
            None => internal("splitting a batch", panic),
        }
    }
}

impl PySplitter {
    /// `f(i, texts[i], stop)` for every text (see `parallel::for_all`); a core error names its text.
    pub(crate) fn for_all<T: Send>(
        &self,
        py: Python<'_>,
        texts: &[&str],
        f: impl Fn(usize, &str, Stop<'_>) -> Result<T, ChunkError> + Sync,
    ) -> PyResult<Vec<T>> {
        let out = self.batch(py, |batch, stop| {
            parallel::for_all(batch, texts.len(), |i| f(i, texts[i], stop))
        })?;
        out.into_iter()
            .enumerate()
            .map(|(i, r)| r.map_err(|e| batch_error(i, e)))
            .collect()
    }

    /// `f(i, texts[i], stop)` for every text, each result handed to `build(i, result)` on this thread, in order
    /// (see `parallel::pipeline`): Python objects are built while the later texts are still splitting.
    pub(crate) fn pipeline<T: Send>(
        &self,
        py: Python<'_>,
        texts: &[&str],
        f: impl Fn(usize, &str, Stop<'_>) -> T + Sync,
        build: impl FnMut(usize, T) -> PyResult<()>,
    ) -> PyResult<()> {
        self.batch(py, |batch, stop| {
            parallel::pipeline(batch, texts.len(), |i| f(i, texts[i], stop), build)
        })
    }

    /// `run(batch, stop)` for a batch of a call of this splitter, with the call's stop check.
    fn batch<R>(&self, py: Python<'_>, run: impl FnOnce(&Batch<'_, '_>, Stop<'_>) -> R) -> R {
        let interrupt = interrupt::new();
        let stop = self.stop(&interrupt);
        let batch = Batch {
            py,
            splitter: self,
            interrupt: &interrupt,
        };
        run(&batch, &stop)
    }
}
