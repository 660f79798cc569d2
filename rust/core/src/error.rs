//! The public error type of the core. The bindings map it to `chunkwise.ChunkingError` in one place.

/// Everything that can go wrong when a splitter is built or run.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ChunkError {
    /// An argument is outside its allowed range; the message names the argument and the range.
    #[error("{message}")]
    InvalidArgument {
        /// The argument's name as the caller spelled it.
        arg: &'static str,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// The caller's stop check asked the split to stop (the Python bindings: Ctrl-C).
    #[error("interrupted")]
    Interrupted,
}

impl ChunkError {
    pub(crate) fn invalid(arg: &'static str, message: impl Into<String>) -> Self {
        Self::InvalidArgument {
            arg,
            message: message.into(),
        }
    }
}
