//! Batches: every text of a call split in parallel on all cores with the GIL released, the results handed back in
//! order (all at once, or one by one to be built into Python objects while the later texts are still splitting).

use pyo3::prelude::*;

use crate::errors::{guard, internal, run, Panic};
use crate::interrupt::{Interrupt, INTERVAL};
use crate::splitter::PySplitter;

/// How many texts a batch worker takes at a time.
const PIPELINE_STEP: usize = 8;

impl PySplitter {
    /// `f(i, texts[i])` for every text: in parallel on all cores with the GIL released, or one after the other
    /// with the GIL held when sizes come from a Python callable. A panic becomes an error naming the first text
    /// it happened on.
    pub(crate) fn for_all<T: Send>(
        &self,
        py: Python<'_>,
        texts: &[&str],
        interrupt: &Interrupt,
        f: impl Fn(usize, &str) -> T + Sync,
    ) -> PyResult<Vec<T>> {
        // Guarded one text at a time, on the thread that splits it: the panic hook sees only that thread, and the
        // error can say which text it was.
        let each = |(i, t): (usize, &&str)| guard(|| f(i, t));
        let out: Vec<Result<T, Panic>> = if self.calls_python() {
            texts.iter().enumerate().map(each).collect()
        } else {
            let work = || {
                // The pool splits; this thread waits, running Python's signal handlers now and then, so that
                // Ctrl-C stops the splits (the workers see `interrupt` at their next check).
                let (tx, rx) = std::sync::mpsc::channel();
                rayon::in_place_scope(|scope| {
                    scope.spawn(|_| {
                        use rayon::prelude::*;
                        let _ = tx.send(texts.par_iter().enumerate().map(each).collect::<Vec<_>>());
                    });
                    loop {
                        match rx.recv_timeout(INTERVAL) {
                            Ok(out) => break Some(out),
                            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                                interrupt.check();
                            }
                            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break None,
                        }
                    }
                })
            };
            run(py, true, "splitting a batch", work)?.ok_or_else(|| lost(0))?
        };
        self.check()?;
        if interrupt.stopped() {
            return Err(interrupt.take_error());
        }
        let out = out
            .into_iter()
            .enumerate()
            .map(|(i, r)| r.map_err(|p| batch_panic(i, &p)))
            .collect::<PyResult<Vec<T>>>()?;
        Ok(out)
    }

    /// `f(i, texts[i])` for every text, in parallel with the GIL released, each result handed to `build(i, result)`
    /// on this thread, in order, as soon as it and every result before it are in. Building Python objects needs the
    /// GIL, so it cannot run in parallel; this way it overlaps with the splitting of the texts that come later,
    /// instead of waiting for all of them. Serial, with the GIL held, when sizes come from a Python callable.
    pub(crate) fn pipeline<T: Send>(
        &self,
        py: Python<'_>,
        texts: &[&str],
        interrupt: &Interrupt,
        f: impl Fn(usize, &str) -> T + Sync,
        mut build: impl FnMut(usize, T) -> PyResult<()>,
    ) -> PyResult<()> {
        if self.calls_python() {
            for (i, t) in texts.iter().enumerate() {
                let out = guard(|| f(i, t)).map_err(|p| batch_panic(i, &p))?;
                self.check()?;
                if interrupt.stopped() {
                    return Err(interrupt.take_error());
                }
                build(i, out)?;
            }
            return Ok(());
        }
        use std::sync::atomic::Ordering::Relaxed;
        let n = texts.len();
        // Splits text `i`, here or on a worker; a panic becomes an error where the result is built, in order, so
        // the error names the first text that failed.
        let split = |i: usize| guard(|| f(i, texts[i]));
        let split = &split;
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<T, Panic>)>();
        // Workers take the texts in order, a few at a time, so results arrive about in order and the building
        // never waits long for the next one. One worker fewer than the pool: this thread is busy building, and
        // splits texts itself whenever nothing is ready to build (a third busy thread on two cores slowed the
        // building, the serial part, by a third).
        let cursor = std::sync::atomic::AtomicUsize::new(0);
        let cursor = &cursor;
        // The pool's threads, not new ones: a new thread per call also started a new allocator heap, whose pages
        // were faulted in afresh each time.
        rayon::in_place_scope(|scope| {
            for _ in 0..rayon::current_num_threads().saturating_sub(1).max(1) {
                let tx = tx.clone();
                scope.spawn(move |_| loop {
                    let from = cursor.fetch_add(PIPELINE_STEP, Relaxed);
                    if from >= n {
                        break;
                    }
                    for i in from..n.min(from + PIPELINE_STEP) {
                        // Fails only after an error, when nothing waits for the result.
                        let _ = tx.send((i, split(i)));
                    }
                });
            }
            drop(tx);
            let build_all = move || -> PyResult<()> {
                let mut rx = rx;
                let mut slots: Vec<Option<Result<T, Panic>>> = (0..n).map(|_| None).collect();
                let mut next = 0;
                loop {
                    if interrupt.check() {
                        return Err(interrupt.take_error());
                    }
                    while let Some(out) = slots.get_mut(next).and_then(Option::take) {
                        build(next, out.map_err(|p| batch_panic(next, &p))?)?;
                        next += 1;
                    }
                    if next == n {
                        break;
                    }
                    match rx.try_recv() {
                        Ok((i, out)) => slots[i] = Some(out),
                        Err(std::sync::mpsc::TryRecvError::Empty) if cursor.load(Relaxed) < n => {
                            // Nothing ready to build: split the next few texts here, with the GIL released.
                            let from = cursor.fetch_add(PIPELINE_STEP, Relaxed);
                            let to = n.min(from + PIPELINE_STEP);
                            if from < to {
                                let done = py.detach(|| (from..to).map(split).collect::<Vec<_>>());
                                if interrupt.stopped() {
                                    return Err(interrupt.take_error());
                                }
                                for (i, out) in (from..).zip(done) {
                                    slots[i] = Some(out);
                                }
                            }
                        }
                        Err(std::sync::mpsc::TryRecvError::Empty) => {
                            // All texts are taken and the next one is still being split: wait, GIL released,
                            // running Python's signal handlers now and then (Ctrl-C).
                            let (back, item) = py.detach(move || loop {
                                match rx.recv_timeout(INTERVAL) {
                                    Ok(item) => break (rx, Some(item)),
                                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                                        if interrupt.check() {
                                            break (rx, None);
                                        }
                                    }
                                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                                        break (rx, None)
                                    }
                                }
                            });
                            rx = back;
                            if interrupt.stopped() {
                                return Err(interrupt.take_error());
                            }
                            match item {
                                Some((i, out)) => slots[i] = Some(out),
                                None => return Err(lost(next)),
                            }
                        }
                        Err(std::sync::mpsc::TryRecvError::Disconnected) => return Err(lost(next)),
                    }
                }
                Ok(())
            };
            let built = build_all();
            // After an error, the worker stops at its next step instead of splitting the rest for nothing.
            cursor.store(n, Relaxed);
            built
        })
    }
}

/// A panic while splitting one text of a batch, naming it.
fn batch_panic(i: usize, p: &Panic) -> PyErr {
    internal(&format!("splitting texts[{i}]"), p)
}

/// The workers stopped without sending text `i`'s result: only possible if one died outside its guard.
fn lost(i: usize) -> PyErr {
    batch_panic(i, &Panic("a worker stopped before splitting it".to_owned()))
}
