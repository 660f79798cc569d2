//! The encoder on a thread of its own ([`Encoder`]): the caller fills a piece of rows while the encoder encodes the
//! piece before (also across batches: the last rows of a batch are encoded while the next batch is read and split),
//! and what writing the rows fails with ([`Error`]). Also the reading back of a streamed document's spool
//! ([`Unspool`]), whose rows are written once the whole document is chunked.

use std::io::Write;
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use chunkwise_core::panic::{guard, Panic};
use parquet::errors::ParquetError;

use super::rows::RowBuilder;
use super::{Encoding, Layout, Rows};
use crate::spool::Record;

/// What writing Parquet rows fails with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file's own error (a full disk): the bindings raise it as the `OSError` it is.
    #[error(transparent)]
    Io(std::io::Error),
    /// The encoder thread could not be started.
    #[error("cannot start the Parquet encoder: {0}")]
    Start(std::io::Error),
    #[error("writing the Parquet rows: {0}")]
    Encoding(ParquetError),
    #[error("building the Parquet rows: {0}")]
    Building(arrow_schema::ArrowError),
    #[error("the Parquet rows are closed")]
    Closed,
    #[error("the Parquet encoder stopped")]
    Stopped,
    #[error("the spooled rows of a streamed document are cut short or damaged")]
    Spool,
    /// The encoder panicked (what its guard caught), or its thread died.
    #[error("{0}")]
    Panic(String),
}

impl From<ParquetError> for Error {
    /// The file's own error as itself, any other as the encoder's.
    fn from(e: ParquetError) -> Self {
        match e {
            ParquetError::External(e) if e.is::<std::io::Error>() => {
                match e.downcast::<std::io::Error>() {
                    Ok(io) => Self::Io(*io),
                    Err(e) => Self::Encoding(ParquetError::External(e)),
                }
            }
            e => Self::Encoding(e),
        }
    }
}

/// Pieces waiting for the encoder at most: none, the calling thread hands each piece over (waiting while the
/// encoder is busy with the one before), so that one piece is filled while one is encoded.
const QUEUED_PIECES: usize = 0;

/// The encoder thread and the queue of its pieces.
struct Thread {
    pieces: SyncSender<Rows>,
    thread: JoinHandle<Result<parquet::errors::Result<()>, Panic>>,
}

/// A Parquet output's rows handed, a piece at a time, to the encoder thread, which writes the file; shared by the
/// threads of the caller (the handle is locked while a piece is handed over) until [`Encoder::close`].
pub struct Encoder {
    layout: Layout,
    thread: Mutex<Option<Thread>>,
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder")
            .field("columns", &self.layout.columns())
            .finish_non_exhaustive()
    }
}

impl Encoder {
    /// Starts the file of `layout`'s rows in `out`, its pages compressed with `codec`, encoded on a thread of its
    /// own, its panics caught (see `chunkwise_core::panic`); `release` is called after each row group is written (see
    /// [`Encoding::new`]).
    pub fn start<W: Write + Send + 'static>(
        out: W,
        layout: Layout,
        codec: parquet::basic::Compression,
        release: fn(),
    ) -> Result<Self, Error> {
        let encoding = Encoding::new(out, &layout, codec, release)?;
        let (pieces, queue) = std::sync::mpsc::sync_channel::<Rows>(QUEUED_PIECES);
        let thread = std::thread::Builder::new()
            .name("chunkwise-parquet".into())
            .spawn(move || guard(move || run(encoding, queue)))
            .map_err(Error::Start)?;
        Ok(Self {
            layout,
            thread: Mutex::new(Some(Thread { pieces, thread })),
        })
    }

    /// The columns, in order, and the schema.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// An empty piece of rows (see [`RowBuilder::new`]).
    pub fn piece<'a>(
        &'a self,
        shape: crate::Shape<'a>,
        changes: &'a crate::Changes,
        described: bool,
    ) -> RowBuilder<'a> {
        RowBuilder::new(&self.layout, shape, changes, described)
    }

    /// Hands the rows of `piece` (if any) to the encoder thread, waiting while it is a piece behind, and empties it.
    /// An encoder that has stopped is waited for: its error.
    pub fn send(&self, piece: &mut RowBuilder<'_>) -> Result<(), Error> {
        if piece.rows() == 0 {
            return Ok(());
        }
        let rows = piece.finish().map_err(Error::Building)?;
        let mut thread = self.lock();
        let sent = thread.as_ref().ok_or(Error::Closed)?.pieces.send(rows);
        if sent.is_err() {
            if let Some(thread) = thread.take() {
                finish(thread)?;
            }
            return Err(Error::Stopped);
        }
        Ok(())
    }

    /// Writes the last row group and the file's footer, waiting for the encoder to end; the rows can no longer be
    /// added to. Closing again does nothing.
    pub fn close(&self) -> Result<(), Error> {
        let thread = self.lock().take();
        thread.map_or(Ok(()), finish)
    }

    fn lock(&self) -> MutexGuard<'_, Option<Thread>> {
        self.thread.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Waits for the encoder to end (it ends once its queue is closed, or on an error): what it failed with.
fn finish(thread: Thread) -> Result<(), Error> {
    let Thread { pieces, thread } = thread;
    drop(pieces);
    match thread.join() {
        Ok(Ok(done)) => done.map_err(Error::from),
        Ok(Err(panic)) => Err(Error::Panic(panic.0)),
        Err(_) => Err(Error::Panic("the encoder thread died".into())),
    }
}

/// The encoder's loop, for a thread of its own: encodes the pieces of rows `queue` hands over, in order, then
/// writes the last row group and the footer once the queue is closed.
pub fn run<W: Write + Send>(
    mut encoding: Encoding<W>,
    queue: Receiver<Rows>,
) -> parquet::errors::Result<()> {
    for rows in queue {
        encoding.write(&rows)?;
    }
    encoding.close()
}

/// A spool read back, in blocks of bytes as they come (see [`crate::spool`]): the records each block completes.
#[derive(Debug, Default)]
pub struct Unspool {
    held: Vec<u8>,
    /// Where the records not yet read start in `held`.
    at: usize,
}

impl Unspool {
    /// Adds the next `block` of the spool (its records are read by [`Unspool::next`]).
    pub fn feed(&mut self, block: &[u8]) {
        self.held.drain(..self.at);
        self.at = 0;
        self.held.extend_from_slice(block);
    }

    /// The next whole record held, with its text; `None` until the next block.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<Result<(&str, Record<'_>), Error>> {
        let (record, len) = Record::read(&self.held[self.at..])?;
        self.at += len;
        Some(match std::str::from_utf8(record.text) {
            Ok(text) => Ok((text, record)),
            Err(_) => Err(Error::Spool),
        })
    }

    /// Once the whole spool is fed and read: an error when it ends inside a record.
    pub fn finish(&self) -> Result<(), Error> {
        if self.at < self.held.len() {
            return Err(Error::Spool);
        }
        Ok(())
    }
}
