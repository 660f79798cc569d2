//! Balanced mode: the cuts of a greedy run chosen again together, so that chunk sizes are even under the cap.
//!
//! Greedy mode fills each chunk as far as the strongest level it can cut at allows, so a stretch of text ends with
//! whatever is left: a paragraph of 1,100 chars at a size of 512 gives 512, 512 and 76. Balanced mode keeps
//! greedy's choice of levels and moves its cuts (here 367, 367 and 366):
//! 1. The candidates: in each greedy chunk (with the whitespace after it), the boundaries of the level it ended on.
//!    Nothing inside a greedy chunk is stronger than its end (greedy would have ended there), so these are the cuts
//!    between the pieces greedy merged, its own cut among them. Candidates in one run of
//!    whitespace make the same chunks once trimmed: the strongest stands for them.
//! 2. Dynamic programming over the candidates: the best chunking of the text up to a candidate ends with a chunk
//!    that fits (its capacity less its context, within its section's reach, no heading left alone or cut from what
//!    follows it), after the best chunking up to where that chunk starts. A chunk costs 1 (fewer chunks first), plus
//!    the square of the share of its capacity it leaves empty (then even sizes), plus a small cost for each level
//!    its end is weaker than the strategy's strongest. Greedy's own chunks are always allowed, so there is always a way through.
//! 3. Sizes that do not add up (tokens) are estimated as the sum of the pieces' sizes; each chunk chosen is then
//!    measured, and a stretch (between two cuts both runs share) where one does not fit keeps greedy's chunks.
//!
//! A chunk starts at most [`LOOK_BACK`] candidates before its end, so the work is linear in the text.

use super::index::Entry;
use super::window::content_len;
use super::{bom_len, floor_grapheme, skip_whitespace, Assembler, Span};
use crate::boundary::{Boundary, Level};
use crate::offsets::ceil_char_boundary;
use crate::structure::LastCapacity;

/// The most candidates a chunk may span: far more than a chunk of sentences or lines holds; in a chunk of words,
/// the ends within this many words of its end.
const LOOK_BACK: usize = 128;

/// The cost, in chunks, of ending on a level one step weaker.
const STRONGER: f64 = 0.05;

/// Bytes an emitter scans past the end of a greedy chunk's region, so that a boundary at the region's end is not
/// an artefact of where the scan stopped.
const SCAN_PAST: usize = 64;

/// A cut the balanced run may make.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    /// The boundary (for the last candidate, the end of the text).
    pos: usize,
    level: Level,
    /// Where a chunk that starts at this cut starts (after whitespace when trimming).
    start: usize,
    /// Where a chunk that ends at this cut ends (before whitespace when trimming).
    end: usize,
    /// The size of the text from the first chunk's start to `start` and to `end` (estimated for tokens).
    at_start: usize,
    at_end: usize,
    /// The greedy chunk that ends at this cut, if one does.
    greedy: Option<usize>,
}

/// A boundary the candidates are made from: the greedy chunk it ends (if it is greedy's cut), and its sizes when
/// the run's paragraph index measured them.
#[derive(Debug, Clone, Copy)]
struct Bound {
    at: Boundary,
    greedy: Option<usize>,
    known: Option<Entry>,
}

impl Assembler<'_> {
    /// Chooses the cuts of the greedy spans `spans[first..]` of `text` again, for even sizes (see the module).
    pub(super) fn balance_spans(&self, text: &str, spans: &mut Vec<Span>, first: usize) {
        let greedy = spans.split_off(first);
        if greedy.len() < 2 {
            spans.extend(greedy);
            return;
        }
        let cands = self.candidates(text, &greedy);
        let chosen = self.best_cuts(text, &cands, &greedy);
        self.emit_balanced(text, &cands, &chosen, &greedy, spans);
    }

    /// The candidates of the greedy run `greedy` (see the module), the text's start first.
    fn candidates(&self, text: &str, greedy: &[Span]) -> Vec<Candidate> {
        let measured = self.measured.borrow();
        let mut bounds: Vec<Bound> = Vec::with_capacity(measured.entries.len() + 2 * greedy.len());
        let mut found = Vec::new();
        let mut known = Vec::new();
        let mut fresh = Vec::new();
        let region_end = |i: usize| greedy.get(i + 1).map_or(text.len(), |n| n.start);
        // Where the index's marks after the current run start: the runs come in order, so these only move on
        // (a search of the whole log per chunk was a tenth of the balanced run's time).
        let (mut entry, mut mark) = (0, 0);
        let mut i = 0;
        while i < greedy.len() {
            // A run of greedy chunks ending on one level: its boundaries are emitted together.
            let floor = greedy[i].level;
            let run = greedy[i..].iter().take_while(|g| g.level == floor).count();
            let (from, to) = (greedy[i].start, region_end(i + run - 1));
            found.clear();
            known.clear();
            if floor == Level::END {
                found.push(Boundary {
                    pos: text.len(),
                    level: Level::END,
                });
            } else if measured.level == Some(floor) && to <= measured.to {
                // The paragraphs the run's index measured: the same boundaries, sizes known.
                let entries = &measured.entries;
                entry += skip_to(&entries[entry..], |e| e.pos <= from);
                for e in entries[entry..].iter().take_while(|e| e.pos <= to) {
                    if e.pos < text.len() {
                        found.push(Boundary {
                            pos: e.pos,
                            level: floor,
                        });
                        known.push(*e);
                    }
                }
            } else if floor >= Level::WORD
                // Chunks the index chose inside paragraphs: the boundaries of their level it measured; else emitted.
                && !logged(&measured.inner, &mut mark, &greedy[i..i + run], floor, &mut found, &mut known)
            {
                self.emit_from(text, from, to, floor, &mut fresh, &mut found);
            }
            let mut rest = &found[..];
            let mut rest_known = &known[..];
            for (k, g) in greedy[i..i + run].iter().enumerate() {
                let to = region_end(i + k);
                let n = rest.partition_point(|b| b.pos <= to);
                let (region, after) = rest.split_at(n);
                rest = after;
                let region_known = if rest_known.is_empty() {
                    &[][..]
                } else {
                    let (region_known, after) = rest_known.split_at(n);
                    rest_known = after;
                    region_known
                };
                // Greedy's own cut: the last candidate between the chunk's end and the next one's start (one is
                // made at the next start if the scan did not report it).
                let own = region.iter().rposition(|b| b.pos >= g.end);
                bounds.extend(region.iter().enumerate().map(|(j, b)| Bound {
                    at: *b,
                    greedy: (Some(j) == own).then_some(i + k),
                    known: region_known.get(j).copied(),
                }));
                if own.is_none() {
                    bounds.push(Bound {
                        at: Boundary {
                            pos: to,
                            level: floor,
                        },
                        greedy: Some(i + k),
                        known: None,
                    });
                }
            }
            i += run;
        }
        drop(measured);
        self.measure_candidates(text, &bounds)
    }

    /// The boundaries of the level `floor` in `(from, to]`, in order, one per position,
    /// as the window emits them (structure filters, grapheme boundaries), into `out`.
    fn emit_from(
        &self,
        text: &str,
        from: usize,
        to: usize,
        floor: Level,
        fresh: &mut Vec<Boundary>,
        out: &mut Vec<Boundary>,
    ) {
        let scan_to = ceil_char_boundary(text, to.saturating_add(SCAN_PAST).min(text.len()));
        for (source, level, _) in self.emitters {
            // Only the floor's own level: a stronger boundary inside a greedy chunk, or in the whitespace after it,
            // would have been greedy's cut (the structure's exceptions, a chain of headings, are no loss: fewer
            // candidates still hold greedy's cuts).
            if *level != floor {
                continue;
            }
            let keep = |pos: usize| pos > from && pos <= to && pos < text.len();
            self.emit_source(text, source, *level, (from, scan_to), fresh, keep);
            out.extend_from_slice(fresh);
        }
        out.sort_by_key(|b| b.pos);
        out.dedup_by(|next, kept| {
            let same = next.pos == kept.pos;
            if same {
                kept.level = kept.level.max(next.level);
            }
            same
        });
    }

    /// The candidates at `bounds` (in order), with where the chunks they start and end start and end, and their
    /// running sizes. Candidates in one run of whitespace merge into the strongest (the last, for a greedy cut).
    fn measure_candidates(&self, text: &str, bounds: &[Bound]) -> Vec<Candidate> {
        let first = if self.trim {
            floor_grapheme(text, skip_whitespace(text, bom_len(text)))
        } else {
            0
        };
        let additive = self.sizer.is_exact_sum();
        // A piece measured alone counts the special tokens every chunk has (tokens): they are counted once per
        // chunk, not per piece.
        let fixed = if additive { 0 } else { self.sizer.size("") };
        // Most pieces between cuts that sizes add up over are short and ASCII: their size is their length then.
        let bytes = additive && self.sizer.ascii_is_bytes();
        let piece = |from: usize, to: usize| {
            if to <= from {
                0
            } else if bytes && text.as_bytes()[from..to].is_ascii() {
                to - from
            } else {
                self.sizer.size(&text[from..to]).saturating_sub(fixed)
            }
        };
        // Cuts closer than this to the one before (and no stronger) are left out: among cuts of one level, the
        // choice of one of them moves a chunk's size by less than a thirty-second of the cap.
        let gap = (self.capacity / 32).max(1);
        let mut out: Vec<Candidate> = Vec::with_capacity(bounds.len() + 1);
        out.push(Candidate {
            pos: 0,
            level: Level::END,
            start: first,
            end: 0,
            at_start: 0,
            at_end: 0,
            greedy: None,
        });
        for &Bound {
            at: b,
            greedy,
            known,
        } in bounds
        {
            let prev = *out.last().expect("the text's start");
            let (start, end) = if self.trim {
                let end = match known {
                    Some(e) => e.trimmed_end,
                    None => match content_len(&text[prev.pos..b.pos]) {
                        0 => prev.end,
                        content => prev.pos + content,
                    },
                };
                (content_start(text, b.pos), end.max(prev.start))
            } else {
                (b.pos, b.pos)
            };
            if self.trim && out.len() > 1 && start == prev.start && end <= prev.start {
                // Only whitespace since the previous candidate: the two cuts make the same chunks.
                let last = out.last_mut().expect("a candidate");
                if b.level >= last.level || greedy.is_some() {
                    last.pos = b.pos;
                    last.level = b.level.max(last.level);
                }
                last.greedy = last.greedy.or(greedy);
                continue;
            }
            let at_end = match known {
                Some(e) if self.trim && e.trimmed_end >= prev.start => e.trimmed_size,
                Some(e) if !self.trim => e.size,
                _ => prev.at_start + piece(prev.start, end),
            };
            if greedy.is_none() && b.level <= prev.level && at_end < prev.at_end + gap {
                // Too close to the cut before it to make a difference.
                continue;
            }
            let at_start = match known {
                Some(e) => e.size + piece(b.pos, start),
                None => at_end + piece(end, start),
            };
            out.push(Candidate {
                pos: b.pos,
                level: b.level,
                start,
                end,
                at_start,
                at_end,
                greedy,
            });
        }
        out
    }

    /// The candidates the balanced run cuts at (indices into `cands`, the last one's included), by the dynamic
    /// programming of the module.
    fn best_cuts(&self, text: &str, cands: &[Candidate], greedy: &[Span]) -> Vec<usize> {
        // Compiled twice: without a structure, the loop has no rule of one to check (a fifth faster).
        if self.structure.is_some() {
            self.best_cuts_in::<true>(text, cands, greedy)
        } else {
            self.best_cuts_in::<false>(text, cands, greedy)
        }
    }

    /// [`Self::best_cuts`], for a strategy with a structure (`STRUCTURED`) or without one.
    fn best_cuts_in<const STRUCTURED: bool>(
        &self,
        text: &str,
        cands: &[Candidate],
        greedy: &[Span],
    ) -> Vec<usize> {
        let structure = if STRUCTURED { self.structure } else { None };
        let n = cands.len();
        let fixed = if self.sizer.is_exact_sum() {
            0
        } else {
            self.sizer.size("")
        };
        // What a chunk starting at each candidate may hold and how far it may reach.
        // What a chunk starting at each candidate may hold, how far it may reach, and the inverse of what it may hold
        // (a multiplication in the loop, not a division).
        let whole = (self.capacity, usize::MAX, 1.0 / self.capacity.max(1) as f64);
        let budgets: Vec<(usize, usize, f64)> = match structure {
            Some(s) => {
                let mut last = LastCapacity::default();
                cands
                    .iter()
                    .map(|c| {
                        if c.start < text.len() {
                            let cap = s.capacity_after(
                                text,
                                c.start,
                                self.sizer,
                                self.capacity,
                                &mut last,
                            );
                            (
                                cap,
                                s.limit_at(text.len(), c.start),
                                1.0 / cap.max(1) as f64,
                            )
                        } else {
                            whole
                        }
                    })
                    .collect()
            }
            None => Vec::new(),
        };
        let budget = |a: usize| if STRUCTURED { budgets[a] } else { whole };
        // The cost of ending on each level: a step for each level of the strategy above it (none for the text's end).
        let mut penalty = [0.0f64; 256];
        for (l, p) in penalty.iter_mut().enumerate().take(255) {
            *p = STRONGER * self.levels.iter().filter(|&&x| x.0 > l as u8).count() as f64;
        }
        // The greedy cut before each greedy cut: greedy's chunks are always allowed.
        let mut greedy_prev = vec![usize::MAX; n];
        let mut last_greedy = 0;
        for (b, c) in cands.iter().enumerate().skip(1) {
            if c.greedy.is_some() {
                greedy_prev[b] = last_greedy;
                last_greedy = b;
            }
        }
        let mut best = vec![f64::INFINITY; n];
        let mut from = vec![0usize; n];
        best[0] = 0.0;
        let mut headings: Vec<usize> = Vec::new();
        for b in 1..n {
            let end = cands[b];
            let penalty = penalty[end.level.0 as usize];
            headings.clear();
            // Far enough back for greedy's own chunk, whatever its number of candidates.
            let lo = b.saturating_sub(LOOK_BACK).min(greedy_prev[b]);
            for a in (lo..b).rev() {
                if STRUCTURED
                    && a + 1 < b
                    && cands[a + 1].level >= Level::SECTION
                    && cands[a + 1].level != Level::END
                {
                    headings.push(a + 1);
                }
                let start = cands[a];
                let is_greedy = greedy_prev[b] == a;
                let size = end.at_end.saturating_sub(start.at_start) + fixed;
                if size > self.capacity && !is_greedy && a < greedy_prev[b].min(b) {
                    break;
                }
                // Every chunk costs at least 1: a start that cannot beat the best end found so far is passed over
                // (unreachable ones too).
                if best[a] + 1.0 >= best[b] {
                    continue;
                }
                let (cap, limit, inverse) = budget(a);
                let allowed = is_greedy
                    || (size <= cap
                        && end.pos <= limit
                        && end.end > start.start
                        && structure.is_none_or(|s| {
                            !s.headings_only(start.start, end.pos)
                                && headings.iter().all(|&h| {
                                    !s.stops(cands[h].level, end.level)
                                        || s.headings_only(start.start, cands[h].pos)
                                })
                        }));
                if !allowed {
                    continue;
                }
                let size = if is_greedy {
                    greedy[end.greedy.expect("a greedy cut")].size
                } else {
                    size
                };
                let empty = cap.saturating_sub(size) as f64 * inverse;
                let score = best[a] + 1.0 + empty * empty + penalty;
                if score < best[b] {
                    best[b] = score;
                    from[b] = a;
                }
            }
        }
        let mut cuts = Vec::new();
        let mut b = n - 1;
        while b > 0 {
            cuts.push(b);
            b = from[b];
        }
        cuts.reverse();
        cuts
    }

    /// Appends the chunks between the cuts `chosen` to `out`; for sizes that do not add up, a stretch between two
    /// cuts greedy made too where a chunk does not fit keeps greedy's chunks.
    fn emit_balanced(
        &self,
        text: &str,
        cands: &[Candidate],
        chosen: &[usize],
        greedy: &[Span],
        out: &mut Vec<Span>,
    ) {
        let exact = self.sizer.is_exact_sum();
        let fixed = if exact { 0 } else { self.sizer.size("") };
        let mut stretch: Vec<Span> = Vec::new();
        let mut fits = true;
        // The greedy chunks before the stretch's start are out already.
        let mut greedy_done = 0;
        let mut a = 0;
        for &b in chosen {
            let (start, end) = (cands[a], cands[b]);
            let span = match end.greedy {
                Some(g) if (a == 0 && g == 0) || start.greedy.is_some_and(|p| p + 1 == g) => {
                    greedy[g]
                }
                _ => {
                    let estimate = end.at_end.saturating_sub(start.at_start) + fixed;
                    let size = if exact {
                        estimate
                    } else {
                        self.sizer.size(&text[start.start..end.end])
                    };
                    let cap = match self.structure {
                        Some(s) => s.capacity_at(text, start.start, self.sizer, self.capacity),
                        None => self.capacity,
                    };
                    fits &= size <= cap;
                    Span {
                        start: start.start,
                        end: end.end,
                        level: end.level,
                        size,
                    }
                }
            };
            stretch.push(span);
            if let Some(g) = end.greedy {
                // A cut both runs make: the stretch before it is done.
                if fits {
                    out.append(&mut stretch);
                } else {
                    out.extend_from_slice(&greedy[greedy_done..=g]);
                    stretch.clear();
                }
                greedy_done = g + 1;
                fits = true;
            }
            a = b;
        }
        debug_assert!(stretch.is_empty(), "the last cut is greedy's");
        out.append(&mut stretch);
    }
}

/// Where a chunk that starts at a cut at `pos` starts: after whitespace, at a grapheme cluster's start (an ASCII
/// char after ASCII whitespace starts one).
fn content_start(text: &str, pos: usize) -> usize {
    if pos >= text.len() {
        return text.len();
    }
    let at = skip_whitespace(text, pos);
    if at > pos && text.as_bytes().get(at).is_some_and(|c| c.is_ascii()) {
        at
    } else {
        floor_grapheme(text, at)
    }
}

/// How many of `items` (in order) `before` holds for, counting from the start: a search that reads only what it
/// passes over, for a cursor that moves on a little at a time.
fn skip_to<T>(items: &[T], before: impl Fn(&T) -> bool) -> usize {
    items.iter().take_while(|x| before(x)).count()
}

/// The boundaries the index measured for every chunk of `run` (chunks that end on `floor`, a level below its
/// paragraphs), into `found` and `known`: true when each was chosen inside a paragraph, from its start, at that
/// level; false (and nothing added) otherwise. `cursor`: where in `inner` the marks after the run's start begin
/// (moved on to the last chunk's).
fn logged(
    inner: &[(usize, Level, Entry)],
    cursor: &mut usize,
    run: &[Span],
    floor: Level,
    found: &mut Vec<Boundary>,
    known: &mut Vec<Entry>,
) -> bool {
    for g in run {
        *cursor += skip_to(&inner[*cursor..], |(_, _, e)| e.pos <= g.start);
        let log = inner[*cursor..]
            .iter()
            .take_while(|(from, _, _)| *from == g.start);
        let mut reached = false;
        for &(_, level, e) in log {
            if level != floor {
                break;
            }
            found.push(Boundary { pos: e.pos, level });
            known.push(e);
            reached |= e.pos >= g.end;
        }
        if !reached {
            found.clear();
            known.clear();
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::tokens::TokenCounter;
    use crate::{Span, Splitter, SplitterConfig, Strategy, Unit};
    use std::sync::Arc;

    fn split(strategy: Strategy, size: usize, balance: bool, text: &str) -> Vec<Span> {
        let mut c = SplitterConfig::new(strategy, size);
        c.balance = balance;
        Splitter::new(c).unwrap().split(text).unwrap()
    }

    /// What every run keeps, balanced or not: spans in order, the size the chars give, within `size`, and every
    /// non-blank char of the text in one of them.
    fn check(text: &str, spans: &[Span], size: usize) {
        let mut at = 0;
        let mut kept = String::new();
        for s in spans {
            assert!(s.start >= at && s.start < s.end, "{s:?}");
            assert!(text[at..s.start].trim().is_empty(), "{s:?} drops text");
            assert_eq!(s.size, text[s.start..s.end].chars().count());
            assert!(s.size <= size, "{s:?} over {size}");
            kept.push_str(&text[s.start..s.end]);
            at = s.end;
        }
        assert!(text[at..].trim().is_empty());
        let letters = |t: &str| t.split_whitespace().collect::<String>();
        assert_eq!(letters(&kept), letters(text));
    }

    #[test]
    fn a_long_paragraph_is_cut_into_even_chunks() {
        // 22 sentences of 50 chars: greedy fills 500, 500 and leaves 100; balanced cuts 350, 400, 350 or so.
        let text = "This sentence is exactly fifty characters long ok. ".repeat(22);
        let greedy = split(Strategy::Recursive, 512, false, &text);
        let balanced = split(Strategy::Recursive, 512, true, &text);
        check(&text, &greedy, 512);
        check(&text, &balanced, 512);
        let sizes = |s: &[Span]| s.iter().map(|s| s.size).collect::<Vec<_>>();
        assert_eq!(sizes(&greedy), [509, 509, 101]);
        assert_eq!(balanced.len(), 3);
        let (lo, hi) = (
            sizes(&balanced).into_iter().min().unwrap(),
            sizes(&balanced).into_iter().max().unwrap(),
        );
        assert!(hi - lo <= 51, "{:?}", sizes(&balanced));
        // Cuts at sentence ends, as greedy's.
        for s in &balanced {
            assert!(text[..s.end].ends_with('.'), "{s:?}");
        }
    }

    #[test]
    fn paragraphs_are_packed_evenly_and_stay_whole() {
        // Ten paragraphs of 90 chars at 400: greedy packs 4, 4 and 2; balanced 4, 3, 3 (or 3, 4, 3), each whole.
        let para = "A paragraph of words that runs on for a while and then stops at the end of its line here.";
        let text = [para; 10].join("\n\n");
        let greedy = split(Strategy::Recursive, 400, false, &text);
        let balanced = split(Strategy::Recursive, 400, true, &text);
        check(&text, &balanced, 400);
        assert_eq!(greedy.len(), 3);
        assert_eq!(balanced.len(), 3);
        for s in &balanced {
            assert!(text[s.start..].starts_with("A paragraph") && text[..s.end].ends_with("here."));
            let n = text[s.start..s.end].matches("A paragraph").count();
            assert!(n == 3 || n == 4, "{s:?}");
        }
    }

    #[test]
    fn every_strategy_keeps_its_chunks_whole_and_in_size() {
        let text = [
            "# Title\n\nIntro paragraph that leads in.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n",
            "## Part\n\n第一条 这是一个很长的中文句子，用于测试。第二句在这里！第三句？\n\n",
            "Short.\n\nA longer paragraph, with clauses; and more text. Then another sentence follows it here.\n",
        ]
        .concat()
        .repeat(30);
        for strategy in [
            Strategy::Recursive,
            Strategy::Sentence,
            Strategy::Paragraph,
            Strategy::Markdown,
            Strategy::Clause,
        ] {
            for size in [16, 40, 64, 128, 300, 1000] {
                let spans = split(strategy, size, true, &text);
                check(&text, &spans, size);
                // Never more chunks than greedy.
                assert!(spans.len() <= split(strategy, size, false, &text).len());
            }
        }
    }

    #[test]
    fn chunks_measured_in_tokens_fit_exactly() {
        let tokens = Arc::new(TokenCounter::tiktoken("cl100k_base").unwrap());
        let text = "Tokens do not add up over cuts: each chunk is measured whole. Ünïcödé words, 中文句子。"
            .repeat(200);
        for size in [8, 20, 64] {
            let mut c = SplitterConfig::new(Strategy::Recursive, size);
            c.unit = Unit::Tokens;
            c.tokenizer = Some(tokens.clone());
            c.balance = true;
            let spans = Splitter::new(c).unwrap().split(&text).unwrap();
            for s in &spans {
                assert!(tokens.count(&text[s.start..s.end]) <= size, "{s:?}");
            }
        }
    }

    #[test]
    fn balance_is_refused_where_cuts_are_not_greedy() {
        for (strategy, overlap) in [(Strategy::Fixed, 0), (Strategy::Recursive, 10)] {
            let mut c = SplitterConfig::new(strategy, 100);
            c.balance = true;
            c.overlap = overlap;
            let err = Splitter::new(c).unwrap_err().to_string();
            assert!(err.contains("balance"), "{err}");
        }
        let mut c = SplitterConfig::new(Strategy::Recursive, 100);
        c.balance = true;
        let splitter = Splitter::new(c).unwrap();
        let Err(err) = crate::stream::ChunkStream::new(&splitter, "doc", false) else {
            panic!("a balanced stream is refused");
        };
        let err = err.to_string();
        assert!(err.contains("balance"), "{err}");
    }
}
