//! The corpus the integration tests run on: `tests/data` at the repository root, slices of the shared corpus that
//! ship with the repository (so a fresh clone tests the same texts). A missing file is a failure, not a skip.

include!("corpus.rs");
