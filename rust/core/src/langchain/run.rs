//! One split: LangChain's recursion over the separators and its merge of the pieces, on byte ranges of the text.

use super::*;

/// A split's failure, for a run measured by `M` and matched by `X`.
type RunFailure<M, X> = Failure<<M as Measure>::Error, <X as Matches>::Error>;

pub(super) struct Run<'a, M: Measure, X: Matches> {
    pub(super) splitter: &'a LangchainSplitter,
    pub(super) text: &'a str,
    pub(super) measure: &'a mut M,
    pub(super) matches: &'a mut X,
    pub(super) out: Output,
    /// The length of each separator's source (as a merge separator), once measured; the last slot is `""`.
    pub(super) sep_lens: Vec<Option<i64>>,
    /// Scratch for regex matches.
    pub(super) pieces: Vec<(usize, usize)>,
}

impl<M: Measure, X: Matches> Run<'_, M, X> {
    /// `_split_text(text[start..end], separators[first..])`.
    pub(super) fn split_rec(
        &mut self,
        start: usize,
        end: usize,
        first: usize,
    ) -> Result<(), RunFailure<M, X>> {
        let seps = &self.splitter.separators;
        let hay = &self.text[start..end];
        // The first separator found, or the last one; `next` is where the recursion goes on.
        let mut chosen = seps.len() - 1;
        let mut next = seps.len();
        for (i, sep) in seps.iter().enumerate().skip(first) {
            let found = match &sep.matcher {
                Matcher::Chars => {
                    chosen = i;
                    break;
                }
                Matcher::Literal(f) => f.find(hay.as_bytes()).is_some(),
                Matcher::Regex { regex, .. } => regex
                    .is_match(hay)
                    .map_err(|e| Fallback(format!("regex: {e}")))?,
                Matcher::External(_) => self.matches.search(i, hay).map_err(Failure::Match)?,
            };
            if found {
                chosen = i;
                next = i + 1;
                break;
            }
        }
        let pieces = self.pieces_of(start, end, chosen)?;
        let mut lens = Vec::with_capacity(pieces.len());
        self.measure
            .measure(self.text, &pieces, &mut lens)
            .map_err(Failure::Measure)?;
        let size = self.splitter.chunk_size;
        let mut good = 0; // the first piece of the run of small pieces not yet merged
        for i in 0..pieces.len() {
            if lens[i] < size {
                continue;
            }
            if good < i {
                self.merge_with(&pieces[good..i], &lens[good..i], chosen)?;
            }
            good = i + 1;
            let (a, b) = pieces[i];
            if next >= seps.len() {
                self.out.chunks.push(Chunk {
                    start: a,
                    end: b,
                    owned: None,
                });
            } else {
                self.split_rec(a, b, next)?;
            }
        }
        if good < pieces.len() {
            self.merge_with(&pieces[good..], &lens[good..], chosen)?;
        }
        Ok(())
    }

    /// Merges pieces split by separator `sep`: joined with nothing when separators are kept, else with its source.
    fn merge_with(
        &mut self,
        pieces: &[(usize, usize)],
        lens: &[i64],
        sep: usize,
    ) -> Result<(), RunFailure<M, X>> {
        let splitter = self.splitter;
        let (join, slot) = if splitter.keep == Keep::Drop {
            (splitter.separators[sep].source.as_str(), sep)
        } else {
            ("", splitter.separators.len())
        };
        let join_len = match self.sep_lens[slot] {
            Some(n) => n,
            None => {
                let n = self.measure.measure_str(join).map_err(Failure::Measure)?;
                self.sep_lens[slot] = Some(n);
                n
            }
        };
        self.merge(pieces, lens, join, join_len);
        Ok(())
    }

    /// The pieces of `text[start..end]` split by separator `sep`, without empty ones (`_split_text_with_regex`).
    pub(super) fn pieces_of(
        &mut self,
        start: usize,
        end: usize,
        sep: usize,
    ) -> Result<Vec<(usize, usize)>, RunFailure<M, X>> {
        let hay = &self.text[start..end];
        // The separators' matches, as ranges relative to `start`.
        self.pieces.clear();
        match &self.splitter.separators[sep].matcher {
            Matcher::Chars => {
                return Ok(hay
                    .char_indices()
                    .map(|(i, c)| (start + i, start + i + c.len_utf8()))
                    .collect());
            }
            Matcher::Literal(f) => {
                let n = f.needle().len();
                self.pieces
                    .extend(f.find_iter(hay.as_bytes()).map(|i| (i, i + n)));
            }
            Matcher::Regex { regex, zero_width } => {
                let mut pos = 0;
                while pos <= hay.len() {
                    let Some(m) = regex
                        .find_from_pos(hay, pos)
                        .map_err(|e| Fallback(format!("regex: {e}")))?
                    else {
                        break;
                    };
                    self.pieces.push((m.start(), m.end()));
                    pos = if *zero_width || m.start() == m.end() {
                        // The next match starts after this one's position, at the next char.
                        match hay[m.end()..].chars().next() {
                            Some(c) => m.end() + c.len_utf8(),
                            None => break,
                        }
                    } else {
                        m.end()
                    };
                }
            }
            Matcher::External(why) => {
                let mut spans = std::mem::take(&mut self.pieces);
                let cut = self.matches.find_all(sep, hay, &mut spans);
                self.pieces = spans;
                if !cut.map_err(Failure::Match)? {
                    let source = &self.splitter.separators[sep].source;
                    return Err(Fallback(format!(
                        "{source:?} ({why}) has capturing groups, so its pieces are not cut at its matches"
                    ))
                    .into());
                }
            }
        }
        let mut out = Vec::with_capacity(self.pieces.len() + 1);
        let mut push = |a: usize, b: usize| {
            if a < b {
                out.push((start + a, start + b));
            }
        };
        let mut prev = 0; // where the current piece starts
        match self.splitter.keep {
            Keep::Drop => {
                for &(a, b) in &self.pieces {
                    push(prev, a);
                    prev = b;
                }
            }
            Keep::Start => {
                for &(a, _) in &self.pieces {
                    push(prev, a);
                    prev = a;
                }
            }
            Keep::End => {
                for &(_, b) in &self.pieces {
                    push(prev, b);
                    prev = b;
                }
            }
        }
        push(prev, hay.len());
        Ok(out)
    }

    /// `_merge_splits(pieces, join)`.
    pub(super) fn merge(
        &mut self,
        pieces: &[(usize, usize)],
        lens: &[i64],
        join: &str,
        join_len: i64,
    ) {
        let size = self.splitter.chunk_size;
        let overlap = self.splitter.chunk_overlap;
        let (mut first, mut count, mut total) = (0usize, 0usize, 0i64);
        let sep_if = |cond: bool| if cond { join_len } else { 0 };
        for (i, &len) in lens.iter().enumerate() {
            if total + len + sep_if(count > 0) > size {
                if total > size {
                    self.out.warnings.push(total);
                }
                if count > 0 {
                    self.emit(&pieces[first..first + count], join);
                    while count > 0
                        && (total > overlap
                            || (total + len + sep_if(count > 0) > size && total > 0))
                    {
                        total -= lens[first] + sep_if(count > 1);
                        first += 1;
                        count -= 1;
                    }
                }
            }
            if count == 0 {
                first = i;
            }
            count += 1;
            total += len + sep_if(count > 1);
        }
        if count > 0 {
            self.emit(&pieces[first..first + count], join);
        }
    }

    /// `_join_docs`: the pieces joined with `join`, stripped, kept unless empty.
    fn emit(&mut self, pieces: &[(usize, usize)], join: &str) {
        let text = self.text;
        let (start, end) = (pieces[0].0, pieces[pieces.len() - 1].1);
        // The join is a slice of the text when the text between two pieces is exactly `join`.
        let is_slice = if join.is_empty() {
            pieces.windows(2).all(|w| w[0].1 == w[1].0)
        } else {
            pieces
                .windows(2)
                .all(|w| w[1].0 - w[0].1 == join.len() && &text[w[0].1..w[1].0] == join)
        };
        if is_slice {
            let (a, b) = if self.splitter.strip {
                py_strip(text, start, end)
            } else {
                (start, end)
            };
            if a < b {
                self.out.chunks.push(Chunk {
                    start: a,
                    end: b,
                    owned: None,
                });
            }
            return;
        }
        let mut joined = String::with_capacity(end - start);
        for (k, &(a, b)) in pieces.iter().enumerate() {
            if k > 0 {
                joined.push_str(join);
            }
            joined.push_str(&text[a..b]);
        }
        let (a, b) = if self.splitter.strip {
            py_strip(&joined, 0, joined.len())
        } else {
            (0, joined.len())
        };
        if a < b {
            joined.truncate(b);
            joined.drain(..a);
            let (s, e) = if self.splitter.strip {
                py_strip(text, start, end)
            } else {
                (start, end)
            };
            self.out.chunks.push(Chunk {
                start: s,
                end: e.max(s),
                owned: Some(joined),
            });
        }
    }
}
