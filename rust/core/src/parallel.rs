//! Batches: every item of a call worked on in parallel on rayon's pool, the results handed back in order (all at
//! once with [`for_all`], or one by one with [`pipeline`], to be built into the caller's objects while the later
//! items are still being worked on). The calling thread never just blocks: it waits with a timeout, polling the
//! call's [`Interrupt`] (Ctrl-C), and a panic on any thread becomes the caller's error naming the first item it
//! happened on. What the caller does around that (the Python bindings release the GIL while they wait) is a
//! [`Caller`].

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::{self, RecvTimeoutError, TryRecvError};

use crate::interrupt::{Interrupt, INTERVAL};
use crate::panic::{guard, Panic};

/// How many items a pipeline worker takes at a time.
const STEP: usize = 8;

/// The caller's side of a batch: for the Python bindings, the GIL, Ctrl-C and Python's exceptions.
pub trait Caller {
    /// What the batch fails with.
    type Error: Send;

    /// The call's interruption state, polled by the calling thread while it waits (also inside
    /// [`Caller::detach`]).
    fn interrupt(&self) -> &Interrupt<Self::Error>;

    /// Runs `f` on this thread, a step that waits or works for a while: the Python bindings release the GIL for it.
    fn detach<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T;

    /// Whether the items must be worked on one after the other on this thread, without [`Caller::detach`] (the
    /// work calls back into Python, and would only wait for the GIL on the other threads).
    fn serial(&self) -> bool;

    /// The error that stops the batch, if any: what the work's callbacks raised, or what the interruption stopped
    /// with (see [`Interrupt::stopped`]).
    fn check(&self) -> Result<(), Self::Error>;

    /// The error for a panic while working on item `i`, or outside any item (`None`).
    fn panicked(&self, i: Option<usize>, panic: &Panic) -> Self::Error;
}

/// `f(i)` for every item `i` of `0..n`: in parallel on rayon's pool while this thread waits in
/// [`Caller::detach`], polling the interruption; or one after the other on this thread when the caller is
/// [`Caller::serial`].
pub fn for_all<C: Caller, T: Send>(
    caller: &C,
    n: usize,
    f: impl Fn(usize) -> T + Sync,
) -> Result<Vec<T>, C::Error> {
    // Guarded one item at a time, on the thread that works on it: the panic hook sees only that thread, and the
    // error can say which item it was.
    let each = |i: usize| guard(|| f(i));
    let out: Vec<Result<T, Panic>> = if caller.serial() {
        (0..n).map(each).collect()
    } else {
        let interrupt = caller.interrupt();
        let work = || {
            // The pool works; this thread waits, polling now and then, so that Ctrl-C stops the work (the workers
            // see the interruption at their next check).
            let (tx, rx) = mpsc::channel();
            rayon::in_place_scope(|scope| {
                scope.spawn(|_| {
                    use rayon::prelude::*;
                    let _ = tx.send((0..n).into_par_iter().map(each).collect::<Vec<_>>());
                });
                loop {
                    match rx.recv_timeout(INTERVAL) {
                        Ok(out) => break Some(out),
                        Err(RecvTimeoutError::Timeout) => {
                            interrupt.check();
                        }
                        Err(RecvTimeoutError::Disconnected) => break None,
                    }
                }
            })
        };
        caller
            .detach(|| guard(work))
            .map_err(|p| caller.panicked(None, &p))?
            .ok_or_else(|| lost(caller, 0))?
    };
    caller.check()?;
    out.into_iter()
        .enumerate()
        .map(|(i, r)| r.map_err(|p| caller.panicked(Some(i), &p)))
        .collect()
}

/// `f(i)` for every item `i` of `0..n`, in parallel, each result handed to `build(i, result)` on this thread, in
/// order, as soon as it and every result before it are in. Building Python objects needs the GIL, so it cannot run
/// in parallel; this way it overlaps with the work on the items that come later, instead of waiting for all of
/// them. One after the other on this thread when the caller is [`Caller::serial`].
pub fn pipeline<C: Caller, T: Send>(
    caller: &C,
    n: usize,
    f: impl Fn(usize) -> T + Sync,
    mut build: impl FnMut(usize, T) -> Result<(), C::Error>,
) -> Result<(), C::Error> {
    if caller.serial() {
        for i in 0..n {
            let out = guard(|| f(i)).map_err(|p| caller.panicked(Some(i), &p))?;
            caller.check()?;
            build(i, out)?;
        }
        return Ok(());
    }
    let interrupt = caller.interrupt();
    // Works on item `i`, here or on a worker; a panic becomes an error where the result is built, in order, so the
    // error names the first item that failed.
    let work = |i: usize| guard(|| f(i));
    let work = &work;
    let (tx, rx) = mpsc::channel::<(usize, Result<T, Panic>)>();
    // Workers take the items in order, a few at a time, so results arrive about in order and the building never
    // waits long for the next one. One worker fewer than the pool: this thread is busy building, and works on items
    // itself whenever nothing is ready to build (a third busy thread on two cores slowed the building, the serial
    // part, by a third).
    let cursor = AtomicUsize::new(0);
    let cursor = &cursor;
    // The pool's threads, not new ones: a new thread per call also started a new allocator heap, whose pages were
    // faulted in afresh each time.
    rayon::in_place_scope(|scope| {
        for _ in 0..rayon::current_num_threads().saturating_sub(1).max(1) {
            let tx = tx.clone();
            scope.spawn(move |_| loop {
                let from = cursor.fetch_add(STEP, Relaxed);
                if from >= n {
                    break;
                }
                for i in from..n.min(from + STEP) {
                    // Fails only after an error, when nothing waits for the result.
                    let _ = tx.send((i, work(i)));
                }
            });
        }
        drop(tx);
        let build_all = move || -> Result<(), C::Error> {
            let mut rx = rx;
            let mut slots: Vec<Option<Result<T, Panic>>> = (0..n).map(|_| None).collect();
            let mut next = 0;
            loop {
                // Polls when it is time; stops if that, or anything else, stopped the batch.
                interrupt.check();
                caller.check()?;
                while let Some(out) = slots.get_mut(next).and_then(Option::take) {
                    build(next, out.map_err(|p| caller.panicked(Some(next), &p))?)?;
                    next += 1;
                }
                if next == n {
                    break;
                }
                match rx.try_recv() {
                    Ok((i, out)) => slots[i] = Some(out),
                    Err(TryRecvError::Empty) if cursor.load(Relaxed) < n => {
                        // Nothing ready to build: work on the next few items here, detached.
                        let from = cursor.fetch_add(STEP, Relaxed);
                        let to = n.min(from + STEP);
                        if from < to {
                            let done = caller.detach(|| (from..to).map(work).collect::<Vec<_>>());
                            caller.check()?;
                            for (i, out) in (from..).zip(done) {
                                slots[i] = Some(out);
                            }
                        }
                    }
                    Err(TryRecvError::Empty) => {
                        // Every item is taken and the next one is still being worked on: wait, detached, polling
                        // now and then (Ctrl-C).
                        let (back, item) = caller.detach(move || loop {
                            match rx.recv_timeout(INTERVAL) {
                                Ok(item) => break (rx, Some(item)),
                                Err(RecvTimeoutError::Timeout) => {
                                    if interrupt.check() {
                                        break (rx, None);
                                    }
                                }
                                Err(RecvTimeoutError::Disconnected) => break (rx, None),
                            }
                        });
                        rx = back;
                        caller.check()?;
                        match item {
                            Some((i, out)) => slots[i] = Some(out),
                            None => return Err(lost(caller, next)),
                        }
                    }
                    Err(TryRecvError::Disconnected) => return Err(lost(caller, next)),
                }
            }
            Ok(())
        };
        let built = build_all();
        // After an error, the workers stop at their next step instead of working on the rest for nothing.
        cursor.store(n, Relaxed);
        built
    })
}

/// The workers stopped without sending item `i`'s result: only possible if one died outside its guard.
fn lost<C: Caller>(caller: &C, i: usize) -> C::Error {
    caller.panicked(
        Some(i),
        &Panic("a worker stopped before splitting it".to_owned()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A caller as the bindings make one, without Python: errors are strings, nothing to release.
    struct Test {
        interrupt: Interrupt<String>,
        serial: bool,
        /// The error `check` returns once this many items were worked on (a callback that raised).
        fail_after: Option<usize>,
        worked: AtomicUsize,
    }

    impl Test {
        fn new(serial: bool) -> Self {
            Self::polling(serial, || Ok(()))
        }

        fn polling(serial: bool, poll: fn() -> Result<(), String>) -> Self {
            Self {
                interrupt: Interrupt::new(poll),
                serial,
                fail_after: None,
                worked: AtomicUsize::new(0),
            }
        }

        /// Work on item `i` that takes longer for some items than for others, as texts of uneven length do.
        fn work(&self, i: usize) -> usize {
            self.worked.fetch_add(1, Relaxed);
            std::thread::sleep(Duration::from_micros(((i * 7919) % 13) as u64 * 50));
            i * 2
        }
    }

    impl Caller for Test {
        type Error = String;

        fn interrupt(&self) -> &Interrupt<String> {
            &self.interrupt
        }

        fn detach<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T {
            assert!(!self.serial, "a serial batch runs on this thread as it is");
            f()
        }

        fn serial(&self) -> bool {
            self.serial
        }

        fn check(&self) -> Result<(), String> {
            if self
                .fail_after
                .is_some_and(|k| self.worked.load(Relaxed) >= k)
            {
                return Err("the callback raised".to_owned());
            }
            if self.interrupt.stopped() {
                return Err(self.interrupt.take_error().unwrap_or_default());
            }
            Ok(())
        }

        fn panicked(&self, i: Option<usize>, panic: &Panic) -> String {
            match i {
                Some(i) => format!("texts[{i}]: {}", panic.0),
                None => format!("the batch: {}", panic.0),
            }
        }
    }

    /// The indexes `pipeline` built, in the order it built them, and what it returned.
    fn built(
        caller: &Test,
        n: usize,
        f: impl Fn(usize) -> usize + Sync,
    ) -> (Vec<usize>, Result<(), String>) {
        let mut order = Vec::new();
        let result = pipeline(caller, n, f, |i, out| {
            assert_eq!(out, i * 2);
            order.push(i);
            Ok(())
        });
        (order, result)
    }

    #[test]
    fn results_come_in_order_whatever_the_work_takes() {
        for serial in [false, true] {
            for n in [0, 1, 2, STEP, STEP + 1, 300] {
                let caller = Test::new(serial);
                let all = for_all(&caller, n, |i| caller.work(i)).unwrap();
                assert_eq!(
                    all,
                    (0..n).map(|i| i * 2).collect::<Vec<_>>(),
                    "{n} {serial}"
                );
                let (order, result) = built(&caller, n, |i| caller.work(i));
                assert_eq!(result, Ok(()));
                assert_eq!(order, (0..n).collect::<Vec<_>>(), "{n} {serial}");
                assert_eq!(
                    caller.worked.load(Relaxed),
                    2 * n,
                    "each item once per call"
                );
            }
        }
    }

    #[test]
    fn a_panic_names_the_first_item_that_panicked() {
        crate::panic::install_hook();
        for serial in [false, true] {
            let caller = Test::new(serial);
            // Item 90 panics at once, item 37 only after a while: the error is still item 37's.
            let f = |i: usize| match i {
                37 => {
                    std::thread::sleep(Duration::from_millis(20));
                    panic!("bad input {i}")
                }
                90 => panic!("bad input {i}"),
                _ => caller.work(i),
            };
            let err = for_all(&caller, 120, f).unwrap_err();
            assert!(err.starts_with("texts[37]: bad input 37 (at "), "{err}");
            let (order, result) = built(&caller, 120, f);
            assert!(result.unwrap_err().starts_with("texts[37]: bad input 37"));
            assert_eq!(
                order,
                (0..37).collect::<Vec<_>>(),
                "built up to the panic, no further"
            );
        }
    }

    #[test]
    fn a_poll_that_fails_stops_the_batch() {
        // Seconds of work if nothing stopped it (then the assertions fail), stopped at the first poll.
        let n = 20_000;
        let caller = Test::polling(false, || Err("interrupted".to_owned()));
        // Each item stops early once the call is interrupted, as the core's splits do at their stop check: the
        // workers see the interruption only that way.
        let f = |i: usize| {
            if caller.interrupt().check() {
                return usize::MAX;
            }
            std::thread::sleep(Duration::from_millis(1));
            caller.work(i)
        };
        assert_eq!(for_all(&caller, n, f), Err("interrupted".to_owned()));
        assert!(caller.worked.load(Relaxed) < n);
        // The pipeline stops its workers itself (they take no item after the error), whatever the work does.
        let caller = Test::polling(false, || Err("interrupted".to_owned()));
        let mut built = 0;
        let result = pipeline(
            &caller,
            n,
            |i| {
                std::thread::sleep(Duration::from_millis(1));
                caller.work(i)
            },
            |_, _| {
                built += 1;
                Ok(())
            },
        );
        assert_eq!(result, Err("interrupted".to_owned()));
        assert!(built < n);
        assert!(caller.worked.load(Relaxed) < n);
    }

    #[test]
    fn a_serial_batch_stops_after_the_item_whose_callback_raised() {
        let mut caller = Test::new(true);
        caller.fail_after = Some(3);
        let (order, result) = built(&caller, 10, |i| caller.work(i));
        assert_eq!(result, Err("the callback raised".to_owned()));
        assert_eq!(order, [0, 1]);
        assert_eq!(caller.worked.load(Relaxed), 3);
    }
}
