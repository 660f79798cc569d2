//! The semantic strategy: the units a caller embeds, and the chunks of a text given one vector per unit, cut
//! where [`crate::semantic`] finds the meaning to shift and assembled by the engine with the cuts as a structure.

use super::{line_view, scan, Splitter};
use crate::assemble::Assembler;
use crate::boundary::{is_cjk, is_grapheme_boundary, prev_grapheme_boundary, Emitter, Level};
use crate::chunk::{ChunkOptions, Chunks};
use crate::error::ChunkError;
use crate::levels::Levels;
use crate::semantic::{self, Extent, Params, Sums};
use crate::span::Span;
use crate::splitter::SemanticConfig;
use crate::structure::Structure;

/// The level of a semantic cut: the strongest below the sections, so that `min_size` merges across it as it does
/// across paragraphs.
pub(crate) const CUT: Level = Level::THEMATIC;

/// The level of a soft semantic cut (inside a segment larger than the size): below the cuts, above paragraphs.
pub(crate) const SOFT_CUT: Level = Level::BLOCK;

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
    pub fn semantic_units(&self, text: &str) -> Result<Vec<Span>, ChunkError> {
        let units = self.sentence_units(text)?;
        Ok(self.merge_short_units(text, units))
    }

    /// Joins each unit narrower than `min_unit` (see [`width`]) to the units after it until the run is that wide
    /// (or the next would not fit the size); a narrow last run joins the one before it when the two fit.
    fn merge_short_units(&self, text: &str, units: Vec<Span>) -> Vec<Span> {
        let min = self.config.semantic.min_unit;
        if min == 0 || units.len() < 2 {
            return units;
        }
        // The runs, and the width of each (the whitespace between its units counted).
        let mut out: Vec<Span> = Vec::with_capacity(units.len());
        let mut widths = Vec::with_capacity(units.len());
        let joined = |a: &Span, b: &Span| -> Option<(Span, usize)> {
            let piece = &text[a.start..b.end];
            let size = self.sizer.size(piece);
            (size <= self.capacity).then(|| {
                let span = Span {
                    start: a.start,
                    end: b.end,
                    level: a.level.max(b.level),
                    size,
                };
                (span, width(piece))
            })
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
    pub fn semantic_chunks(
        &self,
        text: &str,
        vectors: &[f32],
        dim: usize,
        options: ChunkOptions<'_>,
        stop: Option<&dyn Fn() -> bool>,
    ) -> Result<SemanticChunks, ChunkError> {
        let units = self.semantic_units(text)?;
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
        let cuts = semantic::cuts(&sums, &extent, &params);
        let at = |b: &[usize]| -> Vec<usize> { b.iter().map(|&b| units[b].start).collect() };
        let structure = Structure::from_cuts(
            text.len(),
            (&at(&cuts.boundaries), CUT),
            (&at(&cuts.soft), SOFT_CUT),
        );
        let view = self.view(text);
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
        Ok(SemanticChunks {
            chunks: self.chunks_of(text, &spans, None, options),
            scores,
        })
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
            let texts: Vec<&str> = got
                .chunks
                .chunks
                .iter()
                .map(|c| &text[c.start..c.end])
                .collect();
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
        let s = splitter(30, Mode::Percentile);
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
