//! The allocator of the bindings' Rust memory, and how it gives memory back.

use libmimalloc_sys::{mi_option_get, mi_option_set, mi_option_t};
use pyo3::prelude::*;

/// mimalloc (as pydantic-core uses): batches allocate in worker threads and free on the main thread, which the
/// system allocator serialises.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Makes tree-sitter's C library (CodeChunker's parser) allocate from mimalloc too. A parse allocates and frees
/// one node at a time, and the system allocator's consolidation of the walk's freed memory slowed the next parse.
/// Once per process, at module init: before any tree-sitter call, as `set_allocator` requires (this library's
/// copy of tree-sitter is private to it, so no other module's trees are affected).
#[allow(unsafe_code)]
pub(crate) fn tree_sitter_on_mimalloc() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let allocator = tree_sitter::Allocator {
            malloc: libmimalloc_sys::mi_malloc,
            calloc: libmimalloc_sys::mi_calloc,
            realloc: libmimalloc_sys::mi_realloc,
            free: libmimalloc_sys::mi_free,
        };
        // SAFETY: one allocator family, never null for a non-zero size, malloc's alignment; installed once, before
        // any tree-sitter object exists (the module's init runs before any of its functions).
        unsafe { tree_sitter::set_allocator(Some(allocator)) };
    });
}

/// `mi_option_arena_eager_commit` in mimalloc 3 (the `mi_option_e` enum of the `libmimalloc-sys` in Cargo.lock).
/// The crate names no constant for it; [`configure`] checks the option's default before changing it, so that an
/// upgrade that moved the enum changes nothing rather than another option.
const ARENA_EAGER_COMMIT: mi_option_t = 4;
/// Its default on Linux: commit the arena's memory eagerly where the OS overcommits.
const EAGER_ON_OVERCOMMIT: std::os::raw::c_long = 2;

/// Commits arena memory as pages are used instead of eagerly. With eager commit, memory freed by a batch stays
/// resident (transparent huge pages make it whole 2 MiB pages): chunking a folder then held about twice the peak
/// RSS of lazy commit, at no measured speed difference. A user's own `MIMALLOC_ARENA_EAGER_COMMIT` is kept.
#[allow(unsafe_code)]
pub(crate) fn configure() {
    if std::env::var_os("MIMALLOC_ARENA_EAGER_COMMIT").is_some() {
        return;
    }
    // SAFETY: reading and setting a mimalloc option is thread-safe, and the index is checked against the default
    // it must hold.
    unsafe {
        if mi_option_get(ARENA_EAGER_COMMIT) == EAGER_ON_OVERCOMMIT {
            mi_option_set(ARENA_EAGER_COMMIT, 0);
        }
    }
}

/// `mi_option_purge_delay` in mimalloc 3 (see [`ARENA_EAGER_COMMIT`]): how long freed memory stays committed, in
/// milliseconds (0: given back at once; -1: never).
const PURGE_DELAY: mi_option_t = 15;

/// Sets how long (in milliseconds) mimalloc keeps the memory freed by the bindings before it gives it back to the
/// OS (0: at once), and returns the setting before. Ingestion sets 0 for its run: its threads each free what
/// another allocated (a document's cut, a slice's rows), and with the default delay the freed pages of one step
/// stayed resident under the next. Other callers keep the default, which costs fewer system calls.
#[pyfunction]
#[allow(unsafe_code)]
pub(crate) fn _purge_delay(milliseconds: std::os::raw::c_long) -> std::os::raw::c_long {
    // SAFETY: reading and setting a mimalloc option is thread-safe; mimalloc reads this one at each purge.
    unsafe {
        let before = mi_option_get(PURGE_DELAY);
        mi_option_set(PURGE_DELAY, milliseconds);
        before
    }
}

/// Gives the memory that mimalloc holds freed back to the OS now, instead of after its purge delay (a second). For
/// a caller that has just let go of a big batch and is about to read the next one (the command line does this
/// after each batch): without it, the freed pages of batch after batch stay resident. Costs a pass over the
/// allocator's free pages, nothing per chunk.
#[pyfunction]
#[allow(unsafe_code)]
pub(crate) fn _release_memory(py: Python<'_>) {
    // SAFETY: mi_collect is thread-safe; it frees nothing still in use.
    py.detach(|| unsafe { libmimalloc_sys::mi_collect(true) });
}

/// [`_release_memory`] without the GIL, for a thread of the bindings' own (the Parquet encoder, after each row
/// group).
#[allow(unsafe_code)]
pub(crate) fn collect() {
    // SAFETY: mi_collect is thread-safe; it frees nothing still in use.
    unsafe { libmimalloc_sys::mi_collect(true) }
}
