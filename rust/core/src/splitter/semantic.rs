//! The semantic strategy: the units a caller embeds, and the chunks of a text given one vector per unit, cut
//! where [`crate::semantic`] finds the meaning to shift and assembled by the engine with the cuts as a structure.

use super::{line_view, scan, Splitter};
use crate::assemble::Assembler;
use crate::boundary::{is_cjk, is_grapheme_boundary, prev_grapheme_boundary, Emitter, Level};
use crate::chunk::{ChunkOptions, Chunks};
use crate::error::ChunkError;
use crate::levels::Levels;
use crate::semantic::{self, Extent, Frame, Params, Sums};
use crate::span::Span;
use crate::splitter::SemanticConfig;
use crate::structure::{BlockKind, Heading, Structure};

/// The level of a semantic cut: the strongest below the sections, so that `min_size` merges across it as it does
/// across paragraphs.
pub(crate) const CUT: Level = Level::THEMATIC;

/// The level of a soft semantic cut (inside a segment larger than the size): below the cuts, above paragraphs.
pub(crate) const SOFT_CUT: Level = Level::BLOCK;

/// Markdown: the level of a semantic cut, above the headings: a segment between two cuts that fits is one chunk,
/// however many sibling sections it holds (the sections still bound it, see [`Structure::limit_at`]).
pub(crate) const SECTION_CUT: Level = Level(Level::SECTION.0 + 6);

/// Markdown, optimal mode: the bonus of a cut before a heading, in units of the text's contrast (the size cost's
/// unit, see [`semantic::optimal`]): a section's end is where the author said the topic changes. The figures that
/// chose it are in benches/README.md ("Semantic chunking of Markdown").
const SECTION_BONUS: f64 = 10.0;

/// The heading whose lines hold `pos` (from its line's start to the end of its text).
fn heading_at(s: &Structure, pos: usize) -> Option<&Heading> {
    let i = s
        .headings
        .partition_point(|h| h.start <= pos)
        .checked_sub(1)?;
    let h = &s.headings[i];
    (pos <= h.end).then_some(h)
}

/// Where a run of short units must not be joined across, in a Markdown text: the start of each heading, and the
/// start and end of each top-level table, code block, list (with its lead-in), quote and heading. Sorted.
fn barriers(s: &Structure) -> Vec<usize> {
    let mut out: Vec<usize> = s.headings.iter().map(|h| h.start).collect();
    for b in s.blocks.iter().filter(|b| !b.nested) {
        if !matches!(b.kind, BlockKind::Text | BlockKind::Clause) {
            out.extend([b.range.start, b.range.end]);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The error of a call that would split by the semantic strategy without its vectors.
pub(crate) fn needs_vectors() -> ChunkError {
    ChunkError::invalid(
        "strategy",
        "the semantic strategy cuts where its units' vectors say: split with Splitter::semantic_chunks (in \
         Python, SemanticChunker's own calls)",
    )
}

/// The width of `text` for `min_unit`: its chars, a CJK one (Han, kana, Hangul, fullwidth forms) counting two, as
/// a terminal shows it: a Chinese or Japanese sentence holds as much as an English one about twice its chars long.
fn width(text: &str) -> usize {
    if text.is_ascii() {
        return text.len();
    }
    text.chars().map(|c| 1 + usize::from(is_cjk(c))).sum()
}

/// A text's semantic chunks, with the distance at the end of each.
#[derive(Debug, Clone)]
pub struct SemanticChunks {
    /// The chunks, as [`Splitter::chunks`] gives them.
    pub chunks: Chunks,
    /// For each chunk, the cosine distance between the windows of units either side of its end, when it ends
    /// between two units before the end of the text.
    pub scores: Vec<Option<f64>>,
}

impl Splitter {
    /// Checks the semantic settings against the size.
    pub(super) fn check_semantic(
        config: &SemanticConfig,
        capacity: usize,
    ) -> Result<(), ChunkError> {
        if config.window == 0 {
            return Err(ChunkError::invalid("window", "window must be >= 1, got 0"));
        }
        if let Some(t) = config.threshold {
            config.mode.check_threshold(t)?;
        }
        match config.target {
            Some(t) if t == 0 || t > capacity => Err(ChunkError::invalid(
                "target",
                format!("target must be from 1 to size ({capacity}), got {t}"),
            )),
            _ => Ok(()),
        }
    }

    /// The units of `text` a semantic chunker embeds, in order: its sentences (a line or paragraph end ends one
    /// too), whitespace trimmed, each no larger than the size; a longer sentence is cut as the sentence strategy
    /// cuts it, at clauses, soft wraps, words, graphemes. A run of units narrower than `min_unit` (see [`width`]:
    /// short lines, fragments) is one unit, as long as it fits the size: each unit starts and ends where one of
    /// those did. Each span's size is its size in the splitter's unit.
    ///
    /// In Markdown (see [`SemanticFormat`](crate::SemanticFormat)) a unit never straddles a heading, a table, a
    /// code block, a list or a quote: a table, code block or list (with its lead-in) that stays whole in a chunk is
    /// one unit, a heading is one unit with what follows it when the two fit, and inside a table or code block a
    /// unit ends only at a line end.
    pub fn semantic_units(&self, text: &str) -> Result<Vec<Span>, ChunkError> {
        // (Only the structure reads the line view here.)
        let view = self.is_structural().then(|| self.view(text)).flatten();
        let structure = self.semantic_structure(text, view.as_deref())?;
        self.units_in(text, structure.as_ref())
    }

    /// The Markdown structure of `text`, for the markdown format (read through its line `view`).
    fn semantic_structure(
        &self,
        text: &str,
        view: Option<&str>,
    ) -> Result<Option<Structure>, ChunkError> {
        if !self.is_structural() {
            return Ok(None);
        }
        self.structure(text, view)
    }

    /// The units of `text` with its `structure`, if any (see [`Splitter::semantic_units`]).
    fn units_in(&self, text: &str, structure: Option<&Structure>) -> Result<Vec<Span>, ChunkError> {
        let units = self.sentence_units(text)?;
        let Some(s) = structure else {
            return Ok(self.merge_short_units(text, units, |_, _| true));
        };
        let units = self.glue(text, s, units);
        let barriers = barriers(s);
        Ok(self.merge_short_units(text, units, |a, b| {
            // No barrier from the end of one to the start of the other.
            let i = barriers.partition_point(|&p| p < a.end);
            barriers.get(i).is_none_or(|&p| p > b.start)
        }))
    }

    /// `a` and `b` as one unit, when it fits the size.
    fn joined(&self, text: &str, a: &Span, b: &Span) -> Option<Span> {
        let size = self.sizer.size(&text[a.start..b.end]);
        (size <= self.capacity).then(|| Span {
            start: a.start,
            end: b.end,
            level: a.level.max(b.level),
            size,
        })
    }

    /// Joins the units that Markdown holds together (see [`Splitter::semantic_units`]), when they fit: those
    /// inside a block that stays whole, the lines of a heading, a heading and what follows it, and inside a table
    /// or code block the pieces of a line, a table's header and first row, a fence line and the first code line.
    fn glue(&self, text: &str, s: &Structure, units: Vec<Span>) -> Vec<Span> {
        let mut out: Vec<Span> = Vec::with_capacity(units.len());
        for unit in units {
            if let Some(last) = out.last_mut() {
                let inside_block = !s.may_cut(unit.start);
                let inside_heading =
                    heading_at(s, unit.start).is_some_and(|h| unit.start > h.content);
                let under_heading = heading_at(s, last.end).is_some_and(|h| last.end > h.start);
                let inside_verbatim = !s.unit_may_start(text, unit.start);
                if inside_block || inside_heading || under_heading || inside_verbatim {
                    if let Some(span) = self.joined(text, last, &unit) {
                        *last = span;
                        continue;
                    }
                }
            }
            out.push(unit);
        }
        out
    }

    /// Joins each unit narrower than `min_unit` (see [`width`]) to the units after it until the run is that wide
    /// (or the next would not fit the size, or `may_join` says no); a narrow last run joins the one before it when
    /// the two fit.
    fn merge_short_units(
        &self,
        text: &str,
        units: Vec<Span>,
        may_join: impl Fn(&Span, &Span) -> bool,
    ) -> Vec<Span> {
        let min = self.config.semantic.min_unit;
        if min == 0 || units.len() < 2 {
            return units;
        }
        // The runs, and the width of each (the whitespace between its units counted).
        let mut out: Vec<Span> = Vec::with_capacity(units.len());
        let mut widths = Vec::with_capacity(units.len());
        let joined = |a: &Span, b: &Span| -> Option<(Span, usize)> {
            if !may_join(a, b) {
                return None;
            }
            self.joined(text, a, b)
                .map(|span| (span, width(&text[a.start..b.end])))
        };
        for unit in units {
            if let (Some(last), Some(n)) = (out.last_mut(), widths.last_mut()) {
                if *n < min {
                    if let Some((span, w)) = joined(last, &unit) {
                        (*last, *n) = (span, w);
                        continue;
                    }
                }
            }
            widths.push(width(&text[unit.start..unit.end]));
            out.push(unit);
        }
        let n = out.len();
        if n >= 2 && widths[n - 1] < min {
            if let Some((span, _)) = joined(&out[n - 2], &out[n - 1]) {
                out.truncate(n - 1);
                out[n - 2] = span;
            }
        }
        out
    }

    /// The text's sentences, lines and paragraphs, trimmed, each no larger than the size.
    fn sentence_units(&self, text: &str) -> Result<Vec<Span>, ChunkError> {
        let ends = semantic::units::sentence_ends(text);
        let mut out = Vec::with_capacity(ends.len() + 1);
        // A byte order mark that starts the text is no content.
        let mut from = if text.starts_with('\u{feff}') { 3 } else { 0 };
        for end in ends.into_iter().chain([text.len()]) {
            let piece = &text[from..end];
            let mut start = from + (piece.len() - piece.trim_start().len());
            let stop = from + piece.trim_end().len();
            from = end;
            if start >= stop {
                continue;
            }
            if !is_grapheme_boundary(text, start) {
                // Whitespace that starts a cluster (" \u{301}") stays, as the engine keeps it.
                start = prev_grapheme_boundary(text, start);
            }
            let size = self.sizer.size(&text[start..stop]);
            if size <= self.capacity {
                out.push(Span {
                    start,
                    end: stop,
                    level: Level::SENTENCE,
                    size,
                });
            } else {
                self.sentence_pieces(text, start, stop, &mut out)?;
            }
        }
        Ok(out)
    }

    /// Appends the pieces of the sentence `text[start..stop]`, larger than the size, as the engine cuts it below
    /// sentences.
    fn sentence_pieces(
        &self,
        text: &str,
        start: usize,
        stop: usize,
        out: &mut Vec<Span>,
    ) -> Result<(), ChunkError> {
        use Emitter::*;
        let levels = Levels::new(vec![
            scan(Clause, Level::CLAUSE),
            scan(Wrap, Level::WRAP),
            scan(Word, Level::WORD),
            scan(Grapheme, Level::GRAPHEME),
        ]);
        let sentence = &text[start..stop];
        let view = line_view(sentence);
        let mut spans = Vec::new();
        Assembler::new(
            levels.rows(),
            levels.order(),
            self.sizer.as_ref(),
            self.capacity,
        )
        .view(view.as_deref())
        .run(sentence, &mut spans)?;
        out.extend(spans.into_iter().map(|s| Span {
            start: s.start + start,
            end: s.end + start,
            ..s
        }));
        Ok(())
    }

    /// The estimated size of every run of `units` (see [`Extent`]).
    fn extent(&self, text: &str, units: &[Span]) -> Extent {
        let fixed = self.sizer.size("");
        let sizes: Vec<usize> = units.iter().map(|u| u.size).collect();
        let gaps: Vec<usize> = units
            .windows(2)
            .map(|w| {
                self.sizer
                    .size(&text[w[0].end..w[1].start])
                    .saturating_sub(fixed)
            })
            .collect();
        Extent::new(&sizes, &gaps, fixed)
    }

    /// The semantic chunks of `text`, given `vectors`: one row of `dim` values for each of its
    /// [`Splitter::semantic_units`], row-major. The cuts fall between units, and the engine assembles the chunks:
    /// a segment between two cuts that fits is one chunk, a larger one is cut at the text levels (paragraphs,
    /// lines, sentences...), so no chunk is ever over the size. `stop` is asked every few chunks whether to give up.
    ///
    /// In Markdown the cuts join the document's structure: a chunk never runs past its section (as the markdown
    /// strategy's do, sibling sections merged when they fit), a block that stays whole is never cut, and every
    /// chunk has a description (title path, context, type). The optimal mode plans its chunks under the same rules
    /// (each chunk's reach and capacity, its context counted when it counts), with a bonus for a cut at a heading;
    /// the threshold modes leave a segment larger than the size to the structure.
    pub fn semantic_chunks(
        &self,
        text: &str,
        vectors: &[f32],
        dim: usize,
        options: ChunkOptions<'_>,
        stop: Option<&(dyn Fn() -> bool + Sync)>,
    ) -> Result<SemanticChunks, ChunkError> {
        let view = self.view(text);
        let structure = self.semantic_structure(text, view.as_deref())?;
        let units = self.units_in(text, structure.as_ref())?;
        if vectors.len() != units.len().saturating_mul(dim) || units.is_empty() != (dim == 0) {
            return Err(ChunkError::invalid(
                "vectors",
                format!(
                    "vectors must hold one row for each of the text's {} units, got {} values of dimension {dim}",
                    units.len(),
                    vectors.len()
                ),
            ));
        }
        let sums = Sums::new(vectors, dim)?;
        let extent = self.extent(text, &units);
        let config = self.config.semantic;
        let params = Params {
            mode: config.mode,
            threshold: config.threshold,
            window: config.window,
            capacity: self.capacity,
            target: config.target.unwrap_or(self.capacity * 3 / 4).max(1),
        };
        let frame = structure.as_ref().map(|s| self.frame(text, s, &units));
        let cuts = semantic::cuts(&sums, &extent, &params, frame.as_ref());
        let at = |b: &[usize]| -> Vec<usize> { b.iter().map(|&b| units[b].start).collect() };
        let structure = match structure {
            Some(mut s) => {
                // (A unit boundary is never inside a block that stays whole; a cut there would find no mark.)
                let hard: Vec<usize> = at(&cuts.boundaries)
                    .into_iter()
                    .filter(|&p| s.may_cut(p))
                    .collect();
                s.add_cuts(text.len(), &hard, SECTION_CUT);
                s
            }
            None => Structure::from_cuts(
                text.len(),
                (&at(&cuts.boundaries), CUT),
                (&at(&cuts.soft), SOFT_CUT),
            ),
        };
        let spans = self.run(text, Some(&structure), view.as_deref(), stop)?;
        let scores = spans
            .iter()
            .map(|s| {
                // The unit boundary the chunk ends at: after unit k - 1, before unit k.
                let k = units.partition_point(|u| u.end <= s.end);
                (k >= 1 && k < units.len() && s.end <= units[k].start)
                    .then(|| cuts.distances[k - 1])
            })
            .collect();
        let described = self.is_structural().then_some(structure);
        Ok(SemanticChunks {
            chunks: self.chunks_of(text, &spans, described, options),
            scores,
        })
    }

    /// What the Markdown `s` asks of the optimal mode's chunks of `units` (see [`Frame`]): each chunk keeps to its
    /// section (and the sibling sections after it), holds no more than the size less its context when the context
    /// counts, and a cut before a heading earns [`SECTION_BONUS`].
    fn frame(&self, text: &str, s: &Structure, units: &[Span]) -> Frame {
        let reach = units
            .iter()
            .map(|u| {
                let limit = s.section_limit(text.len(), u.start);
                units.partition_point(|v| v.end <= limit)
            })
            .collect();
        let capacity = units
            .iter()
            .map(|u| s.capacity_at(text, u.start, self.sizer.as_ref(), self.capacity))
            .collect();
        let bonus = units
            .iter()
            .map(|u| {
                if heading_at(s, u.start).is_some() {
                    SECTION_BONUS
                } else {
                    0.0
                }
            })
            .collect();
        Frame {
            reach,
            capacity,
            bonus,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantic::Mode;
    use crate::{SplitterConfig, Strategy};

    /// A splitter whose units are the sentences, unmerged (`min_unit` 0).
    fn splitter(size: usize, mode: Mode) -> Splitter {
        merging(size, mode, 0)
    }

    fn merging(size: usize, mode: Mode, min_unit: usize) -> Splitter {
        let mut c = SplitterConfig::new(Strategy::Semantic, size);
        c.semantic.mode = mode;
        c.semantic.min_unit = min_unit;
        Splitter::new(c).unwrap()
    }

    fn unit_texts<'t>(s: &Splitter, text: &'t str) -> Vec<&'t str> {
        s.semantic_units(text)
            .unwrap()
            .iter()
            .map(|u| &text[u.start..u.end])
            .collect()
    }

    #[test]
    fn short_lines_are_merged_into_one_unit_and_a_long_sentence_is_not() {
        let text = "| a | 1 |\n| b | 2 |\n| c | 3 |\n| d | 4 |\n\nA sentence long enough to stand on its own here. \
                    Ok. Fine. A second sentence, long enough to stand alone too. End.";
        assert_eq!(
            unit_texts(&merging(200, Mode::Percentile, 30), text),
            [
                "| a | 1 |\n| b | 2 |\n| c | 3 |\n| d | 4 |",
                "A sentence long enough to stand on its own here.",
                // A short last run joins the one before it.
                "Ok. Fine. A second sentence, long enough to stand alone too. End."
            ]
        );
        // A run never grows past the size: "Ok. Fine." stays short rather than make a unit of 60 chars.
        assert_eq!(
            unit_texts(&merging(55, Mode::Percentile, 30), text),
            [
                "| a | 1 |\n| b | 2 |\n| c | 3 |\n| d | 4 |",
                "A sentence long enough to stand on its own here.",
                "Ok. Fine.",
                "A second sentence, long enough to stand alone too. End."
            ]
        );
        // min_unit 0: every line and sentence is a unit.
        assert_eq!(
            unit_texts(&merging(200, Mode::Percentile, 0), text).len(),
            9
        );
        // Each merged unit's sizes are its own, and a lone short text stays one unit.
        let s = merging(200, Mode::Percentile, 30);
        for u in s.semantic_units(text).unwrap() {
            assert_eq!(u.size, text[u.start..u.end].chars().count());
        }
        assert_eq!(unit_texts(&s, "Hi."), ["Hi."]);
        // A CJK char counts two: 16 of them are as wide as 32 ASCII ones.
        let s = merging(200, Mode::Percentile, 32);
        assert_eq!(
            unit_texts(
                &s,
                "今天天气很好，我们一起去公园散步。好的。明天见，再会吧，朋友们，晚安。"
            ),
            [
                "今天天气很好，我们一起去公园散步。",
                "好的。明天见，再会吧，朋友们，晚安。"
            ]
        );
        assert_eq!(width("ab 今日"), 7);
    }

    /// One vector per unit: along axis 0 for units that mention "cat", else along axis 1.
    fn topic_vectors(text: &str, units: &[Span]) -> Vec<f32> {
        units
            .iter()
            .flat_map(|u| {
                if text[u.start..u.end].contains("cat") {
                    [1.0, 0.0]
                } else {
                    [0.0, 1.0]
                }
            })
            .collect()
    }

    /// The chunks of `text` with [`topic_vectors`], and their texts.
    fn by_topic<'t>(s: &Splitter, text: &'t str) -> (SemanticChunks, Vec<&'t str>) {
        let units = s.semantic_units(text).unwrap();
        let got = s
            .semantic_chunks(
                text,
                &topic_vectors(text, &units),
                2,
                ChunkOptions::default(),
                None,
            )
            .unwrap();
        let texts = got
            .chunks
            .chunks
            .iter()
            .map(|c| &text[c.start..c.end])
            .collect();
        (got, texts)
    }

    #[test]
    fn units_are_trimmed_sentences_and_pieces_that_fit() {
        let s = splitter(20, Mode::Percentile);
        let text =
            "\u{feff}One cat.  Two cats!\n\nA sentence far longer than twenty, cut at its clause.";
        let units: Vec<&str> = s
            .semantic_units(text)
            .unwrap()
            .iter()
            .map(|u| &text[u.start..u.end])
            .collect();
        assert_eq!(
            units,
            [
                "One cat.",
                "Two cats!",
                "A sentence far",
                "longer than twenty,",
                "cut at its clause."
            ]
        );
    }

    #[test]
    fn chunks_end_at_the_topic_switch_and_carry_its_distance() {
        let text = "A cat sat. The cat ate. My cat slept. Rain fell. Snow came. Wind blew.";
        for mode in [
            Mode::Percentile,
            Mode::Interquartile,
            Mode::Minima,
            Mode::Optimal,
        ] {
            let s = splitter(60, mode);
            let (got, texts) = by_topic(&s, text);
            assert_eq!(
                texts,
                [
                    "A cat sat. The cat ate. My cat slept.",
                    "Rain fell. Snow came. Wind blew."
                ],
                "{mode:?}"
            );
            assert_eq!(got.scores, [Some(1.0), None]);
            assert_eq!(s.level_name(got.chunks.chunks[0].level), "semantic");
        }
    }

    #[test]
    fn a_segment_over_the_size_is_cut_by_the_engine_and_no_chunk_is_over() {
        let text = "A cat sat on the mat all day long. Rain fell. Snow came down hard and long.";
        let (got, _) = by_topic(&splitter(30, Mode::Percentile), text);
        for c in &got.chunks.chunks {
            assert!(c.end - c.start <= 30, "{:?}", &text[c.start..c.end]);
        }
        assert_eq!(got.chunks.chunks.len(), got.scores.len());
        // Nothing lost: the chunks joined are the text's words.
        let joined: Vec<&str> = got
            .chunks
            .chunks
            .iter()
            .flat_map(|c| text[c.start..c.end].split_whitespace())
            .collect();
        assert_eq!(joined, text.split_whitespace().collect::<Vec<_>>());
    }

    fn markdown(size: usize, mode: Mode, min_unit: usize) -> Splitter {
        let mut c = SplitterConfig::new(Strategy::Semantic, size);
        c.semantic.mode = mode;
        c.semantic.min_unit = min_unit;
        c.semantic.format = crate::SemanticFormat::Markdown;
        c.size_includes_context = true;
        Splitter::new(c).unwrap()
    }

    // The paragraph before the table has two lines: not the table's lead-in (a one-line one would be its caption,
    // and one unit with it).
    const DOC: &str =
        "# Cats\n\nA cat sat.\nThe cat ate.\n\n| k | v |\n|---|---|\n| cat | 1 |\n| cat | 2 |\n\n\
                       ## Rain\n\nRain fell. Snow came.\n\n```sh\nrun. it\nnow\n```\n";

    #[test]
    fn markdown_units_keep_blocks_whole_and_headings_with_their_content() {
        const TABLE: &str = "| k | v |\n|---|---|\n| cat | 1 |\n| cat | 2 |";
        const CODE: &str = "```sh\nrun. it\nnow\n```";
        // (min_unit, units): each sentence alone, then short ones merged, never across a heading or a block.
        let cases: [(usize, &[&str]); 2] = [
            (
                0,
                &[
                    "# Cats\n\nA cat sat.",
                    "The cat ate.",
                    TABLE,
                    "## Rain\n\nRain fell.",
                    "Snow came.",
                    CODE,
                ],
            ),
            (
                100,
                &[
                    "# Cats\n\nA cat sat.\nThe cat ate.",
                    TABLE,
                    "## Rain\n\nRain fell. Snow came.",
                    CODE,
                ],
            ),
        ];
        for (min_unit, want) in cases {
            assert_eq!(
                unit_texts(&markdown(200, Mode::Optimal, min_unit), DOC),
                want
            );
        }
        // A table too large for one chunk: its rows are units, the header with the first row.
        let units = unit_texts(&markdown(40, Mode::Optimal, 0), DOC);
        assert!(
            units.contains(&"| k | v |\n|---|---|\n| cat | 1 |"),
            "{units:?}"
        );
        assert!(units.contains(&"| cat | 2 |"), "{units:?}");
    }

    #[test]
    fn markdown_chunks_keep_to_sections_and_carry_their_paths() {
        for mode in [Mode::Optimal, Mode::Percentile] {
            let (got, texts) = by_topic(&markdown(60, mode, 0), DOC);
            let d = got.chunks.description.expect("a description");
            for (c, info) in got.chunks.chunks.iter().zip(&d.chunks) {
                // The cap counts the context; a chunk never holds both sections.
                assert!(
                    c.end - c.start + info.context.chars().count() + 2 <= 60
                        || info.context.is_empty()
                );
                assert!(
                    !(c.start < DOC.find("## Rain").unwrap()
                        && c.end > DOC.find("## Rain").unwrap())
                );
            }
            assert!(
                texts.contains(&"| k | v |\n|---|---|\n| cat | 1 |\n| cat | 2 |"),
                "{mode:?} {texts:?}"
            );
            let paths: Vec<usize> = d.chunks.iter().map(|i| i.path.len()).collect();
            assert_eq!(paths.last(), Some(&2), "{mode:?}");
        }
    }

    #[test]
    fn bad_vectors_and_settings_are_refused() {
        assert!(splitter(60, Mode::Percentile).split("One.").is_err());
        let s = splitter(60, Mode::Percentile);
        let text = "One. Two.";
        let err = s
            .semantic_chunks(text, &[1.0, 0.0, 1.0], 2, ChunkOptions::default(), None)
            .unwrap_err();
        assert!(err
            .to_string()
            .starts_with("vectors must hold one row for each of the text's 2 units"));
        assert!(s
            .semantic_chunks("", &[], 0, ChunkOptions::default(), None)
            .unwrap()
            .chunks
            .chunks
            .is_empty());
        let config = |f: &dyn Fn(&mut SplitterConfig)| {
            let mut c = SplitterConfig::new(Strategy::Semantic, 100);
            f(&mut c);
            Splitter::new(c).map(|_| ()).map_err(|e| e.to_string())
        };
        assert_eq!(
            config(&|c| c.semantic.window = 0),
            Err("window must be >= 1, got 0".into())
        );
        assert_eq!(
            config(&|c| c.semantic.threshold = Some(120.0)),
            Err(
                "threshold of mode 'percentile' must be a percentile from 0 to 100, got 120".into()
            )
        );
        assert_eq!(
            config(&|c| c.semantic.target = Some(101)),
            Err("target must be from 1 to size (100), got 101".into())
        );
        assert_eq!("optimal".parse::<Mode>().unwrap().name(), "optimal");
    }
}
