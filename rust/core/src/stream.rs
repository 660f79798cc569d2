//! Streaming: the chunks of a text that arrives in pieces (a file larger than memory), equal to the chunks of the
//! whole text, with offsets in the whole stream, in memory bounded by a few blocks of text.
//!
//! The engine carries little from one chunk to the next (see [`Resume`]), so the text is chunked a block at a
//! time: each run goes up to a horizon short of the end of what has arrived, and stops before the first chunk whose
//! choice could read past it; the next run starts from there, over the rest and the next block. What a run read
//! past its last window (the context emitters look at: the start of the next line, a quote after a full stop) fits
//! in [`MARGIN`]. Before the resume point, [`CONTEXT`] bytes are kept for the emitters that look back (the word
//! before a full stop).
//!
//! Small chunks are merged as they come (a chunk is held until the next one is known), ids are counted over the
//! whole stream, and a chunk is handed out once its successor is known (its `next_id`).
//!
//! Structural strategies (Markdown, clauses, tables) read the whole document's structure, and do not stream.

use crate::assemble::Resume;
use crate::chunk::{Chunk, DocKey, Ids};
use crate::error::ChunkError;
use crate::offsets::{floor_char_boundary, CharCursor};
use crate::span::Span;
use crate::splitter::Splitter;

/// Bytes of text after the horizon, for the context the emitters read past the windows they scan.
const MARGIN: usize = 256 * 1024;

/// Bytes of text kept before the resume point, for the emitters that look back.
const CONTEXT: usize = 64 * 1024;

/// Bytes of new text a run takes at least (more when a chunk needs more to be decided).
const BLOCK: usize = 4 * 1024 * 1024;

/// The state of one streamed document. Feed it with [`ChunkStream::push`], end it with [`ChunkStream::finish`];
/// each hands out the chunks that are final, in order. A chunk's text is [`ChunkStream::text`] until the next call.
#[derive(Debug)]
pub struct ChunkStream {
    /// The text not yet dropped: from a little before the resume point to what arrived last.
    buffer: String,
    /// Stream offsets of `buffer[0]`: bytes and chars.
    base: usize,
    base_chars: usize,
    /// Where the next run starts, in `buffer`.
    resume: Resume,
    /// Bytes of new text that make the next run worth it (grows when a run could not decide any chunk).
    block: usize,
    /// The last span, held until the next one says whether the two merge (`min_size`), in `buffer`.
    merging: Option<Span>,
    /// The last chunk made, held until the next one gives it its `next_id`; offsets in the stream.
    held: Option<Chunk>,
    ids: Ids,
    /// Number pages (see [`crate::ChunkOptions::paged`]): form feeds before `buffer`.
    paged: bool,
    feeds_before: usize,
    finished: bool,
    /// The bytes of a character cut between two pieces of bytes (see [`ChunkStream::push_bytes`]).
    partial: Vec<u8>,
    /// [`BLOCK`], [`MARGIN`] and [`CONTEXT`] (smaller in tests, to make many runs of a small text).
    sizes: (usize, usize, usize),
}

impl ChunkStream {
    /// A stream of the document `doc_id` for `splitter`. A stream has no whole text to stand for the document, so
    /// the id is required; `paged` numbers pages (a text with form feeds must be paged, as [`Splitter::chunks`]
    /// numbers the pages of any text that holds one).
    pub fn new(splitter: &Splitter, doc_id: &str, paged: bool) -> Result<Self, ChunkError> {
        if splitter.config().strategy == crate::Strategy::Semantic {
            return Err(ChunkError::invalid(
                "strategy",
                "the semantic strategy's cuts depend on the whole text and cannot stream: chunk the whole text \
                 instead",
            ));
        }
        if splitter.config().balance {
            return Err(ChunkError::invalid(
                "balance",
                "balanced cuts are chosen over the whole text and cannot stream: chunk the whole text instead, \
                 or set balance=False",
            ));
        }
        if splitter.is_structural() {
            return Err(ChunkError::invalid(
                "strategy",
                format!(
                    "the {} strategy reads the structure of the whole document and cannot stream: chunk the \
                     whole text instead",
                    splitter.config().strategy.name()
                ),
            ));
        }
        Ok(Self {
            buffer: String::new(),
            base: 0,
            base_chars: 0,
            resume: Resume::default(),
            block: BLOCK,
            merging: None,
            held: None,
            ids: Ids::new(DocKey::Id(doc_id)),
            paged,
            feeds_before: 0,
            finished: false,
            partial: Vec::new(),
            sizes: (BLOCK, MARGIN, CONTEXT),
        })
    }

    /// Adds `piece` to the stream and appends the chunks that are now final to `out`.
    pub fn push(
        &mut self,
        splitter: &Splitter,
        piece: &str,
        out: &mut Vec<Chunk>,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<(), ChunkError> {
        if self.finished {
            return Err(ChunkError::invalid("piece", "the stream is finished"));
        }
        if !self.paged && memchr::memchr(b'\x0c', piece.as_bytes()).is_some() {
            return Err(ChunkError::invalid(
                "paged",
                "the stream holds a form feed (a page break): chunking the whole text would number its pages, so \
                 a stream with page breaks must be paged",
            ));
        }
        self.buffer.push_str(piece);
        if self.buffer.len() - self.resume.pos >= self.block + self.sizes.1 {
            self.run(splitter, false, out, stop)?;
        }
        Ok(())
    }

    /// [`ChunkStream::push`] for a piece of UTF-8 bytes, which may end inside a character (the rest of it starts the
    /// next piece). Bytes that are not UTF-8 are an error that gives their offset in the stream.
    pub fn push_bytes(
        &mut self,
        splitter: &Splitter,
        piece: &[u8],
        out: &mut Vec<Chunk>,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<(), ChunkError> {
        let joined;
        let bytes = if self.partial.is_empty() {
            piece
        } else {
            joined = [std::mem::take(&mut self.partial).as_slice(), piece].concat();
            joined.as_slice()
        };
        let valid = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) if e.error_len().is_none() => {
                // The piece ends inside a character: keep its first bytes for the next piece.
                self.partial = bytes[e.valid_up_to()..].to_vec();
                std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
            }
            Err(e) => {
                return Err(ChunkError::invalid(
                    "piece",
                    format!(
                        "the stream is not UTF-8: invalid byte at offset {} of the stream",
                        self.base + self.buffer.len() + e.valid_up_to()
                    ),
                ))
            }
        };
        self.push(splitter, valid, out, stop)
    }

    /// Ends the stream: appends the remaining chunks to `out`.
    pub fn finish(
        &mut self,
        splitter: &Splitter,
        out: &mut Vec<Chunk>,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<(), ChunkError> {
        if self.finished {
            return Ok(());
        }
        if !self.partial.is_empty() {
            return Err(ChunkError::invalid(
                "piece",
                format!(
                    "the stream is not UTF-8: it ends inside a character, at offset {} of the stream",
                    self.base + self.buffer.len()
                ),
            ));
        }
        self.run(splitter, true, out, stop)?;
        if let Some(last) = self.merging.take() {
            self.make(splitter, &[last], out);
        }
        out.extend(self.held.take());
        self.finished = true;
        Ok(())
    }

    /// The text of a chunk handed out by the last call.
    pub fn text(&self, chunk: &Chunk) -> &str {
        &self.buffer[chunk.start - self.base..chunk.end - self.base]
    }

    /// Chunks the buffer from the resume point, up to the horizon or (`last`) to the end, and drops what no later
    /// run needs.
    fn run(
        &mut self,
        splitter: &Splitter,
        last: bool,
        out: &mut Vec<Chunk>,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<(), ChunkError> {
        self.compact();
        let margin = self.sizes.1;
        let horizon =
            (!last).then(|| floor_char_boundary(&self.buffer, self.buffer.len() - margin));
        let (spans, resume) = splitter.split_part(&self.buffer, self.resume, horizon, stop)?;
        let mut done = Vec::with_capacity(spans.len());
        for span in spans {
            if let Some(prev) = self.merging.take() {
                match splitter
                    .merges_small()
                    .then(|| splitter.merged(&self.buffer, &prev, &span))
                {
                    Some(Some(merged)) => {
                        self.merging = Some(merged);
                        continue;
                    }
                    _ => done.push(prev),
                }
            }
            self.merging = Some(span);
        }
        if !splitter.merges_small() {
            done.extend(self.merging.take());
        }
        self.make(splitter, &done, out);
        match resume {
            Some(r) if r.pos == self.resume.pos && done.is_empty() => {
                // Not one chunk could be decided in this much text: take more next time.
                self.block = self.block.saturating_mul(2);
            }
            _ => self.block = self.sizes.0,
        }
        self.resume = resume.unwrap_or(Resume {
            pos: self.buffer.len(),
            ..self.resume
        });
        Ok(())
    }

    /// Turns final spans (offsets in `buffer`) into chunks with stream offsets, ids and pages.
    fn make(&mut self, splitter: &Splitter, spans: &[Span], out: &mut Vec<Chunk>) {
        if spans.is_empty() {
            return;
        }
        let mut spans = spans.to_vec();
        splitter.report_sizes(&self.buffer, &mut spans);
        let mut chars = CharCursor::new(&self.buffer, false);
        let feeds: Vec<usize> = if self.paged {
            memchr::memchr_iter(b'\x0c', self.buffer.as_bytes()).collect()
        } else {
            Vec::new()
        };
        let page = |pos: usize| self.feeds_before + feeds.partition_point(|&b| b < pos) + 1;
        for s in &spans {
            let id = self.ids.next(&self.buffer.as_bytes()[s.start..s.end]);
            let mut chunk = Chunk {
                start: self.base + s.start,
                end: self.base + s.end,
                char_start: self.base_chars + chars.to_char(s.start),
                char_end: self.base_chars + chars.to_char(s.end),
                size: s.size,
                level: s.level,
                id,
                prev_id: None,
                next_id: None,
                pages: self
                    .paged
                    .then(|| (page(s.start), page(s.end.saturating_sub(1).max(s.start)))),
            };
            if let Some(mut prev) = self.held.take() {
                prev.next_id = Some(id);
                chunk.prev_id = Some(prev.id);
                out.push(prev);
            }
            self.held = Some(chunk);
        }
    }

    /// Drops the text before what the next run needs: the held chunks and the context before the resume point.
    fn compact(&mut self) {
        let mut keep = self.resume.pos.saturating_sub(self.sizes.2);
        if let Some(m) = &self.merging {
            keep = keep.min(m.start);
        }
        if let Some(h) = &self.held {
            keep = keep.min(h.start - self.base);
        }
        let keep = floor_char_boundary(&self.buffer, keep);
        if keep == 0 {
            return;
        }
        let dropped = &self.buffer[..keep];
        self.base_chars += crate::size::count_chars(dropped);
        self.feeds_before += memchr::memchr_iter(b'\x0c', dropped.as_bytes()).count();
        self.base += keep;
        self.buffer.drain(..keep);
        self.resume = self.resume.shifted(keep);
        if let Some(m) = &mut self.merging {
            m.start -= keep;
            m.end -= keep;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ChunkOptions, SplitterConfig, Strategy};

    fn corpus(name: &str) -> String {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        std::fs::read_to_string(dir.join(name)).expect("tests/data")
    }

    /// The chunks of `text` streamed in pieces of `piece` bytes (at char boundaries), with small blocks.
    fn streamed(
        splitter: &Splitter,
        text: &str,
        piece: usize,
        sizes: (usize, usize, usize),
    ) -> Vec<(Chunk, String)> {
        let mut stream = ChunkStream::new(splitter, "doc", text.contains('\x0c')).unwrap();
        stream.sizes = sizes;
        stream.block = sizes.0;
        let mut got = Vec::new();
        let mut out = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let mut end = (at + piece).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            stream
                .push(splitter, &text[at..end], &mut out, None)
                .unwrap();
            got.extend(out.drain(..).map(|c| {
                let t = stream.text(&c).to_string();
                (c, t)
            }));
            at = end;
        }
        stream.finish(splitter, &mut out, None).unwrap();
        got.extend(out.drain(..).map(|c| {
            let t = stream.text(&c).to_string();
            (c, t)
        }));
        got
    }

    fn check(config: SplitterConfig, text: &str, sizes: (usize, usize, usize)) {
        let splitter = Splitter::new(config).unwrap();
        let options = ChunkOptions {
            doc_id: Some("doc"),
            paged: false,
        };
        let whole = splitter.chunks(text, options).unwrap().chunks;
        for piece in [7777] {
            let got = streamed(&splitter, text, piece, sizes);
            let spans = |cs: &mut dyn Iterator<Item = &Chunk>| {
                cs.map(|c| (c.start, c.end)).collect::<Vec<_>>()
            };
            let (a, b) = (
                spans(&mut got.iter().map(|(c, _)| c)),
                spans(&mut whole.iter()),
            );
            if let Some(i) = a.iter().zip(&b).position(|(x, y)| x != y) {
                panic!(
                    "piece {piece} {:?}: chunk {i}: streamed {:?} whole {:?}",
                    splitter.config(),
                    &a[i.saturating_sub(1)..(i + 2).min(a.len())],
                    &b[i.saturating_sub(1)..(i + 2).min(b.len())]
                );
            }
            assert_eq!(a.len(), b.len(), "{:?}", splitter.config());
            for ((c, t), w) in got.iter().zip(&whole) {
                assert_eq!(c, w, "{:?}", splitter.config());
                assert_eq!(t, &text[w.start..w.end]);
            }
        }
    }

    const SMALL: (usize, usize, usize) = (4096, 8192, 2048);

    #[test]
    fn a_stream_chunks_as_the_whole_text() {
        for name in ["en.txt", "zh.txt", "code.py"] {
            let text = corpus(name);
            for size in [16, 300] {
                for strategy in [
                    Strategy::Recursive,
                    Strategy::Sentence,
                    Strategy::Paragraph,
                    Strategy::Fixed,
                ] {
                    check(SplitterConfig::new(strategy, size), &text, SMALL);
                }
                let mut config = SplitterConfig::new(Strategy::Recursive, size);
                config.overlap = size / 4;
                config.min_size = size / 3;
                check(config, &text, SMALL);
                let mut config = SplitterConfig::new(Strategy::Recursive, size);
                config.trim = false;
                config.overlap = size / 8;
                check(config, &text, SMALL);
                let mut config = SplitterConfig::new(Strategy::Fixed, size);
                config.overlap = size / 5;
                config.snap = size / 4;
                check(config, &text, SMALL);
            }
        }
    }

    #[test]
    fn odd_texts_and_units_stream_too() {
        let en: String = corpus("ja.txt")
            .chars()
            .take(10_000)
            .chain(corpus("en.txt").chars().take(30_000))
            .collect();
        let texts = [
            en.replace('\n', "\r\n"),
            en.replace('\n', "\r"),
            en.replace("\n\n", &format!("\n{}\n", " ".repeat(20_000))),
            format!("\u{feff}{}", en.replace("\n\n", "\n\x0c")),
            "word ".repeat(12_000),
        ];
        for text in &texts {
            let mut config = SplitterConfig::new(Strategy::Recursive, 200);
            config.overlap = 30;
            check(config, text, SMALL);
            let mut config = SplitterConfig::new(Strategy::Recursive, 64);
            config.separators = Some(vec!["\n\n".into(), "\\.\\s".into(), " ".into()]);
            config.separators_regex = true;
            check(config, text, SMALL);
        }
        let mut config = SplitterConfig::new(Strategy::Recursive, 100);
        config.unit = crate::Unit::Tokens;
        config.tokenizer = Some(std::sync::Arc::new(
            crate::tokens::TokenCounter::tiktoken("cl100k_base").unwrap(),
        ));
        check(config, &texts[0], SMALL);
    }

    #[test]
    fn bytes_cut_inside_characters_stream_as_the_text() {
        let text = corpus("zh.txt");
        let splitter = Splitter::new(SplitterConfig::new(Strategy::Recursive, 100)).unwrap();
        let mut stream = ChunkStream::new(&splitter, "doc", false).unwrap();
        (stream.sizes, stream.block) = (SMALL, SMALL.0);
        let (mut got, mut out) = (Vec::new(), Vec::new());
        for piece in text.as_bytes().chunks(1001) {
            stream.push_bytes(&splitter, piece, &mut out, None).unwrap();
            got.append(&mut out);
        }
        stream.finish(&splitter, &mut out, None).unwrap();
        got.append(&mut out);
        let options = ChunkOptions {
            doc_id: Some("doc"),
            paged: false,
        };
        assert_eq!(got, splitter.chunks(&text, options).unwrap().chunks);

        let mut stream = ChunkStream::new(&splitter, "doc", false).unwrap();
        let err = stream
            .push_bytes(&splitter, b"ab\xffc", &mut out, None)
            .unwrap_err();
        assert!(err.to_string().contains("offset 2"), "{err}");
        let mut stream = ChunkStream::new(&splitter, "doc", false).unwrap();
        stream
            .push_bytes(&splitter, &"a\u{e9}".as_bytes()[..2], &mut out, None)
            .unwrap();
        let err = stream.finish(&splitter, &mut out, None).unwrap_err();
        assert!(err.to_string().contains("ends inside a character"), "{err}");
    }

    #[test]
    fn structural_strategies_do_not_stream() {
        let s = Splitter::new(SplitterConfig::new(Strategy::Markdown, 100)).unwrap();
        let err = ChunkStream::new(&s, "doc", false).unwrap_err();
        assert!(err.to_string().contains("cannot stream"), "{err}");
    }

    #[test]
    fn a_page_break_in_a_stream_that_is_not_paged_is_an_error() {
        let s = Splitter::new(SplitterConfig::new(Strategy::Recursive, 100)).unwrap();
        let mut stream = ChunkStream::new(&s, "doc", false).unwrap();
        let err = stream
            .push(&s, "one\x0ctwo", &mut Vec::new(), None)
            .unwrap_err();
        assert!(
            matches!(err, ChunkError::InvalidArgument { arg: "paged", .. }),
            "{err}"
        );
    }
}
