//! Panics caught where a caller hands work to the core: [`guard`] turns a panic into an error carrying its message
//! (and where it happened), and [`install_hook`] keeps the process's panic hook quiet for the panics it catches.
//! The Python bindings run every piece of core work through here, so that a bug in the core becomes an exception
//! rather than an abort of the interpreter; [`tripwire`] makes such a panic on demand, for the tests of what it
//! becomes.

use std::cell::{Cell, RefCell};

/// What a caught panic said, and where it happened when the hook saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Panic(
    /// The panic's message, with its location (` (at file:line)`) when [`install_hook`]'s hook saw it.
    pub String,
);

thread_local! {
    /// Whether this thread is inside [`guard`]: its panics are caught there and reported as errors, so the hook
    /// must not print them.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
    /// The message of the panic the hook silenced on this thread, for [`guard`] to report.
    static CAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The longest panic message a [`Panic`] repeats, in bytes.
const MAX_PANIC_MESSAGE: usize = 1000;

/// Installs, once for the process, a panic hook that is silent for panics inside [`guard`] (they become an error
/// carrying the message: printing them to stderr as well told the user twice, once in a form they cannot catch)
/// and hands every other panic to the hook that was there before, so other Rust code in the process keeps its own
/// reporting.
pub fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // `try_with`: a panic while the thread's locals are being destroyed must not panic again here.
            if GUARDED.try_with(Cell::get).unwrap_or(false) {
                let message = payload_message(info.payload());
                let message = match info.location() {
                    Some(at) => format!("{message} (at {}:{})", at.file(), at.line()),
                    None => message,
                };
                let _ = CAUGHT.try_with(|c| *c.borrow_mut() = Some(message));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `f` on this thread; a panic becomes `Err` with its message instead of unwinding further, and prints
/// nothing once [`install_hook`] has run. Work must go through here on the thread that runs it (a rayon worker
/// included), because the hook can only know about the thread it is called on.
pub fn guard<T>(f: impl FnOnce() -> T) -> Result<T, Panic> {
    let outer = GUARDED.with(|g| g.replace(true));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(outer));
    out.map_err(|payload| {
        // The hook's message has the location; without it (another hook replaced ours), the payload's.
        let seen = CAUGHT.with(|c| c.borrow_mut().take());
        let mut message = seen.unwrap_or_else(|| payload_message(payload.as_ref()));
        // A panic message may quote its input: an error message is no place for a whole document.
        if message.len() > MAX_PANIC_MESSAGE {
            let mut end = MAX_PANIC_MESSAGE;
            while !message.is_char_boundary(end) {
                end -= 1;
            }
            message.truncate(end);
            message.push_str("...");
        }
        Panic(message)
    })
}

/// What a panic's payload says: its message when it is a string (what `panic!` gives).
fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// A test hook (the bindings' `chunkwise._core._panic_on`): while armed, splitting a text that holds the marker
/// panics where a bug in the core would, so that the tests can check what a panic becomes without depending on a
/// real bug (those get fixed). Disarmed, it costs one relaxed load per text.
pub mod tripwire {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    use std::sync::RwLock;

    static ARMED: AtomicBool = AtomicBool::new(false);
    static MARKER: RwLock<String> = RwLock::new(String::new());

    /// Arms the hook with `marker`, or disarms it with `None`.
    pub fn set(marker: Option<String>) {
        let mut m = MARKER.write().unwrap_or_else(|e| e.into_inner());
        ARMED.store(marker.is_some(), Relaxed);
        *m = marker.unwrap_or_default();
    }

    /// Panics if the hook is armed and `text` holds the marker.
    pub fn check(text: &str) {
        if ARMED.load(Relaxed) {
            let m = MARKER.read().unwrap_or_else(|e| e.into_inner());
            if !m.is_empty() && text.contains(m.as_str()) {
                panic!("test panic: the text holds the marker {:?}", *m);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_passes_through() {
        assert_eq!(guard(|| 7), Ok(7));
    }

    #[test]
    fn a_panic_becomes_its_message_and_where_it_happened() {
        install_hook();
        let caught = guard::<()>(|| panic!("the input was {}", "bad")).unwrap_err();
        assert!(caught.0.starts_with("the input was bad (at "), "{caught:?}");
        assert!(caught.0.contains("panic.rs:"), "{caught:?}");
        // Nothing is left over for the next panic of the thread.
        let caught = guard(|| std::panic::panic_any(3_u8)).unwrap_err();
        assert!(
            caught.0.starts_with("a panic without a message (at "),
            "{caught:?}"
        );
    }

    #[test]
    fn a_long_message_is_cut_on_a_char_boundary() {
        install_hook();
        let long = "é".repeat(MAX_PANIC_MESSAGE);
        let caught = guard::<()>(|| panic!("{long}")).unwrap_err();
        assert!(caught.0.ends_with("..."));
        assert_eq!(caught.0.len(), MAX_PANIC_MESSAGE + 3);
        assert!(caught.0.starts_with("ééé"));
    }

    #[test]
    fn a_nested_guard_leaves_the_outer_one_guarding() {
        install_hook();
        let outer = guard::<()>(|| {
            let inner = guard::<()>(|| panic!("inner"));
            assert!(inner.unwrap_err().0.starts_with("inner"));
            assert!(GUARDED.with(Cell::get));
            panic!("outer")
        });
        assert!(outer.unwrap_err().0.starts_with("outer"));
        assert!(!GUARDED.with(Cell::get));
    }

    #[test]
    fn the_tripwire_panics_only_armed_and_on_the_marker() {
        install_hook();
        let marker = "\u{1}tripwire test marker";
        let text = format!("a text with {marker} in it");
        tripwire::check(&text);
        tripwire::set(Some(marker.to_owned()));
        tripwire::check("a text without it");
        let caught = guard(|| tripwire::check(&text)).unwrap_err();
        assert!(
            caught
                .0
                .starts_with("test panic: the text holds the marker"),
            "{caught:?}"
        );
        tripwire::set(None);
        tripwire::check(&text);
    }
}
