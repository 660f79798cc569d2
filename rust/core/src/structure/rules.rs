//! The rules the engine asks of a structure, chunk by chunk: the cuts it reports at each level, the cuts of other
//! sources it drops, how far a chunk may reach, where a merge stops, the capacity its context leaves, and how a
//! chunk inside a table overlaps the one before.

use std::ops::Range;

use super::describe::{join, Context, ContextParts};
use super::{Block, BlockKind, Structure};
use crate::boundary::{Boundary, Emitter, Level};
use crate::levels::Source;
use crate::size::Sizer;

impl Structure {
    /// How far a chunk starting at `start` may reach: a chunk stays inside the section it starts in and its
    /// siblings (with `merge_sections`), or inside the section it starts with (without; a chunk that starts inside
    /// a section then ends at the next heading). A table chunk with `rows_per_chunk` stays inside its rows limit,
    /// and a chunk of a caller's cuts ends at the next cut.
    pub(crate) fn limit_at(&self, text_len: usize, start: usize) -> usize {
        self.section_limit(text_len, start)
            .min(self.rows_limit(start).unwrap_or(text_len))
            .min(self.next_cut(start).unwrap_or(text_len))
    }

    /// How far a chunk starting at `start` may reach as far as sections go (see [`Structure::limit_at`]).
    pub(crate) fn section_limit(&self, text_len: usize, start: usize) -> usize {
        let n = self.headings.partition_point(|h| h.start <= start);
        let next = match n.checked_sub(1) {
            // Before the first heading: the preamble may run into the first section only when merging.
            None if self.merge_sections => self.headings.len(),
            None => 0,
            Some(h) => {
                let at_heading = start <= self.headings[h].content;
                match (self.merge_sections, at_heading) {
                    (true, _) => self.next_shallower[h],
                    (false, true) => self.next_not_deeper[h],
                    (false, false) => h + 1,
                }
            }
        };
        self.headings.get(next).map_or(text_len, |h| h.start)
    }

    /// Whether a semantic unit may start at `pos` (a unit's first non-blank byte): outside verbatim text anywhere;
    /// inside it only at a line's start, and in a table only at a data row after the first (the header goes with
    /// the first row), in a code block only at a line after the first (the fence line goes with the first line).
    pub(crate) fn unit_may_start(&self, text: &str, pos: usize) -> bool {
        let Some(v) = self
            .verbatim
            .partition_point(|r| r.start < pos)
            .checked_sub(1)
        else {
            return true;
        };
        let r = &self.verbatim[v];
        if pos >= r.end {
            return true;
        }
        let line = text[..pos].rfind('\n').map_or(0, |i| i + 1);
        if !text[line..pos].trim().is_empty() {
            return false;
        }
        match self.block_of(r).map(|b| &b.kind) {
            Some(BlockKind::Table { rows, .. }) => rows.get(1..).is_some_and(|rows| {
                rows.binary_search(&line).is_ok() || rows.binary_search(&pos).is_ok()
            }),
            Some(BlockKind::Code { body, .. }) => line > *body,
            _ => true,
        }
    }

    /// Whether a cut may fall at `pos` (see [`Structure::seal`]): not inside a block that stays whole, nor
    /// between a heading and its content.
    pub(crate) fn may_cut(&self, pos: usize) -> bool {
        let i = self.no_cut.partition_point(|&(_, b)| b <= pos);
        self.no_cut.get(i).is_none_or(|&(a, _)| a >= pos)
    }

    /// With `rows_per_chunk`, where a chunk starting at `start` must end: before the `rows_per_chunk`-th row after
    /// the row holding `start` (a chunk that starts in the header starts with the first row). A limit that moves
    /// with the chunk, not a fixed cut every `rows_per_chunk` rows: a chunk that starts with overlap rows, or after
    /// a chunk that `size` cut short, still holds up to `rows_per_chunk` rows, never more.
    fn rows_limit(&self, start: usize) -> Option<usize> {
        if self.rows_per_chunk == 0 {
            return None;
        }
        let Some(Block {
            kind: BlockKind::Table { rows, .. },
            ..
        }) = self.blocks.first()
        else {
            return None;
        };
        let first = rows.partition_point(|&r| r <= start).saturating_sub(1);
        rows.get(first.saturating_add(self.rows_per_chunk)).copied()
    }

    /// The table whose inside (past its first byte, before its end) holds `pos`: its range and its row starts.
    fn table_around(&self, pos: usize) -> Option<(&Range<usize>, &[usize])> {
        let v = self
            .verbatim
            .partition_point(|r| r.start < pos)
            .checked_sub(1)?;
        match self.block_of(&self.verbatim[v]) {
            Some(Block {
                range,
                kind: BlockKind::Table { rows, .. },
                ..
            }) if pos < range.end => Some((range, rows)),
            _ => None,
        }
    }

    /// Whether an overlap may start at `pos` as far as tables go: outside a table anywhere, inside one only where a
    /// data row starts (never inside the header or a row).
    pub(crate) fn may_start_overlap(&self, pos: usize) -> bool {
        self.table_around(pos)
            .is_none_or(|(_, rows)| rows.binary_search(&pos).is_ok())
    }

    /// For a chunk from `start` cut at `cut` inside a table, the row starts its overlap may start at, earliest
    /// first; None when the cut is not inside a table. The overlap of a chunk that ends between rows is made of
    /// its last whole data rows: never the header (the next chunk's context repeats it), never every row of a
    /// chunk that starts with the header (nothing would be new but the header left out), and with
    /// `rows_per_chunk` at most `rows_per_chunk - 1` rows, so that the next chunk brings a row of its own. A chunk
    /// cut inside the header or inside a row (a row over `size`) gets no overlap.
    pub(crate) fn table_overlap(&self, start: usize, cut: usize) -> Option<&[usize]> {
        let (range, rows) = self.table_around(cut)?;
        let Ok(end) = rows.binary_search(&cut) else {
            return Some(&[]);
        };
        let mut first = rows.partition_point(|&r| r <= start);
        if start >= range.start {
            first = first.max(1);
        }
        if self.rows_per_chunk > 0 {
            first = first.max((end + 1).saturating_sub(self.rows_per_chunk));
        }
        Some(rows.get(first..end).unwrap_or_default())
    }

    /// Computes where no cut may fall for chunks of `capacity` units: inside a block that stays whole and fits,
    /// and between a heading and the content under it (a heading never ends a chunk when content follows it).
    pub fn seal(&mut self, text: &str, sizer: &dyn Sizer, capacity: usize) {
        self.top = (0..self.blocks.len())
            .filter(|&i| !self.blocks[i].nested)
            .collect();
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        // Where the content of each heading starts, and where the heading's own content starts (sorted).
        let mut under_heading: Vec<(usize, usize)> = Vec::new();
        for (i, h) in self.headings.iter().enumerate() {
            // The content under the heading: up to the next heading, or the end.
            let next = self.headings.get(i + 1).map_or(text.len(), |n| n.start);
            let Some(under) = text.get(h.end..next) else {
                continue;
            };
            let after = h.end + (under.len() - under.trim_start().len());
            if after >= next {
                continue;
            }
            // The cut between a heading and its content is a weak one, taken only when the heading and the first
            // piece of the content do not fit together: better than a cut inside the heading's words, worse than
            // any other. A table, code block or list under the heading then stays whole, and its pieces carry the
            // path.
            self.weak.push(after);
            let b = self.bounds.partition_point(|b| b.pos < after);
            match self.bounds.get_mut(b) {
                Some(x) if x.pos == after => x.level = Level::WRAP,
                _ => self.bounds.insert(
                    b,
                    Boundary {
                        pos: after,
                        level: Level::WRAP,
                    },
                ),
            }
            // No cut in the blank lines between them.
            ranges.push((h.end, after));
            under_heading.push((after, h.content));
        }
        // The cut between a table's caption and its header is the structure's own (as the rows' cuts): a blank-line
        // cut there would part them before the rows are tried.
        for b in &self.blocks {
            if let BlockKind::Table {
                caption: Some(_),
                header,
                ..
            } = &b.kind
            {
                self.weak.push(header.start);
            }
        }
        self.weak.sort_unstable();
        self.weak.dedup();
        let mut tight = Vec::new();
        for b in self.blocks.iter().filter(|b| b.keep_whole) {
            if b.range.end - b.range.start < 2 {
                continue;
            }
            // The rules in their order, where they conflict: the cap is never exceeded > a block that fits is never
            // split > a heading never ends a chunk > a heading is not a chunk of its own. A block that fits stays
            // whole, with the heading above it when the two fit together; else the heading is a chunk of its own
            // (the block's chunk carries it in its context). Only a block over the cap is cut, and its first piece
            // then takes the heading along.
            // A block indented under its heading (" * item") starts at its content, where a chunk of it starts and
            // where the cut under the heading falls.
            let Some(body) = text.get(b.range.clone()) else {
                continue;
            };
            let start = b.range.end - body.trim_start().len();
            let fits = |from: usize| {
                sizer.size(&text[from..b.range.end])
                    <= self.capacity_at(text, from, sizer, capacity)
            };
            let heading = under_heading
                .binary_search_by_key(&start, |&(a, _)| a)
                .ok()
                .map(|k| under_heading[k].1);
            if heading.is_some_and(fits) || fits(start) {
                ranges.push((start, b.range.end));
            } else if let Some((items, budget)) = self.list_apart(text, b, sizer, capacity) {
                // A list whose lead-in cannot go with it: the list alone fits with its title path, and stays whole;
                // the lead-in in its context is shortened to the room the list leaves.
                ranges.push((items, b.range.end));
                tight.push((items, budget));
            } else if let Some(first) = self.lead_in_and_first_item(text, b, sizer, capacity) {
                // A list that does not fit even alone: its lead-in goes with its first item when the two fit.
                ranges.push((b.range.start, first));
            }
        }
        tight.sort_unstable();
        self.tight = tight;
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                // Open intervals: (a, b) and (b, c) leave b free; an overlap joins them.
                Some(last) if a < last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        self.no_cut = merged;
    }

    /// Drops the cuts of `bounds` (from `source`) that fall strictly inside a verbatim range (for prose emitters),
    /// where no cut may fall (except between graphemes, the last resort), or where only the structure's weak cut
    /// may fall.
    pub(crate) fn filter(&self, bounds: &mut Vec<Boundary>, source: &Source) {
        let floor = matches!(source, Source::Emitter(Emitter::Grapheme));
        if source.is_prose() && !self.verbatim.is_empty() {
            retain_outside(bounds, &self.verbatim, |r| (r.start, r.end));
        }
        if !self.weak.is_empty() && !floor && !matches!(source, Source::Structure) {
            bounds.retain(|b| self.weak.binary_search(&b.pos).is_err());
        }
        if !floor && !self.no_cut.is_empty() {
            retain_outside(bounds, &self.no_cut, |r| *r);
        }
    }

    /// The cuts at `level` in `(from, to]`.
    pub(crate) fn emit(&self, from: usize, to: usize, level: Level, out: &mut Vec<Boundary>) {
        let first = self.bounds.partition_point(|b| b.pos <= from);
        out.extend(
            self.bounds[first..]
                .iter()
                .take_while(|b| b.pos <= to)
                .filter(|b| b.level == level),
        );
    }

    /// Whether a merge of pieces at `level` stops after a cut at `at`: a heading boundary stronger than the pieces,
    /// or (without `merge_sections`) as strong.
    pub(crate) fn stops(&self, at: Level, level: Level) -> bool {
        at >= Level::SECTION
            && at != Level::END
            && (at > level || (at == level && !self.merge_sections))
    }

    /// Whether `text[start..pos]` holds nothing but headings (a chain of headings, each right under the one
    /// before): such a piece is no section of its own, and goes with what follows even without `merge_sections`.
    pub(crate) fn headings_only(&self, start: usize, pos: usize) -> bool {
        let i = self.headings.partition_point(|h| h.start <= start);
        let Some(first) = i.checked_sub(1) else {
            return false;
        };
        if start > self.headings[first].content {
            return false;
        }
        let j = self.headings.partition_point(|h| h.start < pos);
        j > first && j <= self.chain[first] && self.headings[j].start == pos
    }

    /// The capacity left to a chunk starting at `start` when its context counts toward its size.
    pub(crate) fn capacity_at(
        &self,
        text: &str,
        start: usize,
        sizer: &dyn Sizer,
        capacity: usize,
    ) -> usize {
        self.capacity_after(text, start, sizer, capacity, &mut LastCapacity::default())
    }

    /// [`Structure::capacity_at`] for starts one after another: `last` keeps what the previous start's context was
    /// made of and its capacity, for a start whose context is made of the same (most starts a balanced run tries
    /// lie in one section, outside blocks: measuring each one's context was a third of its time).
    pub(crate) fn capacity_after<'s>(
        &'s self,
        text: &str,
        start: usize,
        sizer: &dyn Sizer,
        capacity: usize,
        last: &mut LastCapacity<'s>,
    ) -> usize {
        if !self.size_includes_context {
            return capacity;
        }
        let budget = Some((sizer, self.context_budget(start, capacity)));
        let left = |context: Context| {
            if context.text.is_empty() {
                capacity
            } else {
                capacity
                    - (sizer.size(&context.text) + sizer.size(join(context.inline)))
                        .min(capacity - 1)
            }
        };
        if let Some(code) = &self.code {
            return left(code.context(text, start, &code.path_at(start), budget));
        }
        let path = self.path_at(start);
        let key = (
            self.context_parts(start, &path),
            budget.map_or(0, |(_, b)| b),
        );
        if let Some((_, capacity)) = last.0.as_ref().filter(|(k, _)| *k == key) {
            return *capacity;
        }
        let capacity = left(self.context_of(text, &path, &key.0, budget));
        last.0 = Some((key, capacity));
        capacity
    }

    /// How much of `capacity` the context of a chunk starting at `start` may take: half, or less at the start of a
    /// list kept whole apart from its lead-in (see [`Structure::seal`]).
    pub(crate) fn context_budget(&self, start: usize, capacity: usize) -> usize {
        match self.tight.binary_search_by_key(&start, |&(s, _)| s) {
            Ok(k) => self.tight[k].1,
            Err(_) => capacity / 2,
        }
    }

    /// For a list with a lead-in: where its items start and the budget of the context of a chunk starting there,
    /// when the items fit in `capacity` with the context's title path (the lead-in left out) and the lead-in in
    /// full would not.
    fn list_apart(
        &self,
        text: &str,
        list: &Block,
        sizer: &dyn Sizer,
        capacity: usize,
    ) -> Option<(usize, usize)> {
        let items = items_after_lead_in(text, list)?;
        let size = sizer.size(text.get(items..list.range.end)?);
        let room = capacity.checked_sub(size)?;
        let budget = room.min(capacity / 2);
        let path = self.path_at(items);
        let titles = self.path_context(text, items, &path);
        let fits = titles.is_empty() || sizer.size(&titles) + sizer.size(join(false)) <= budget;
        let crowded = self.capacity_at(text, items, sizer, capacity) < size;
        (fits && crowded).then_some((items, budget))
    }

    /// For a list with a lead-in that is over `capacity` even alone: where its first item ends, when the lead-in
    /// and that item fit together (with the context of a chunk starting at the lead-in).
    fn lead_in_and_first_item(
        &self,
        text: &str,
        list: &Block,
        sizer: &dyn Sizer,
        capacity: usize,
    ) -> Option<usize> {
        let items = items_after_lead_in(text, list)?;
        if sizer.size(text.get(items..list.range.end)?) <= capacity {
            // The list alone fits (with its context or with its title path): it stays whole.
            return None;
        }
        let first = self.bounds.partition_point(|b| b.pos <= items);
        let end = self.bounds[first..]
            .iter()
            .take_while(|b| b.pos < list.range.end)
            .find(|b| b.level == Level::ITEM)?
            .pos;
        let end = end - text.get(items..end)?.len() + text.get(items..end)?.trim_end().len();
        (sizer.size(text.get(list.range.start..end)?)
            <= self.capacity_at(text, list.range.start, sizer, capacity))
        .then_some(end)
    }
}

/// Where the items of a list with a lead-in start (after the whitespace that follows the lead-in); None for a list
/// without one.
fn items_after_lead_in(text: &str, list: &Block) -> Option<usize> {
    let BlockKind::List {
        lead_in: Some(lead_in),
    } = &list.kind
    else {
        return None;
    };
    Some(list.range.end - text.get(lead_in.end..list.range.end)?.trim_start().len())
}

/// The context parts and capacity of the last start [`Structure::capacity_after`] measured.
#[derive(Debug, Default)]
pub(crate) struct LastCapacity<'s>(Option<((ContextParts<'s>, usize), usize)>);

/// Keeps the boundaries that are not strictly inside any of `ranges` (sorted, disjoint open intervals).
fn retain_outside<R>(
    bounds: &mut Vec<Boundary>,
    ranges: &[R],
    ends: impl Fn(&R) -> (usize, usize),
) {
    let Some(first) = bounds.first() else { return };
    let mut r = ranges.partition_point(|x| ends(x).1 <= first.pos);
    bounds.retain(|b| {
        while r < ranges.len() && ends(&ranges[r]).1 <= b.pos {
            r += 1;
        }
        !(r < ranges.len() && ends(&ranges[r]).0 < b.pos)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::structure::table::TableFormat;
    use crate::{Splitter, SplitterConfig, Strategy};
    const TABLE: &str = "|a|b|\n|-|-|\n|1|2|\n|3|4|\n|5|6|\n|7|8|";

    fn table(text: &str, rows_per_chunk: usize) -> Structure {
        super::super::table::parse(text, TableFormat::Markdown, rows_per_chunk).expect("a table")
    }

    /// The chunks of `text` as (text, first row, past the last row).
    fn chunks(config: SplitterConfig, text: &str) -> Vec<(String, usize, usize)> {
        let splitter = Splitter::new(config).expect("valid config");
        let (spans, structure) = splitter.split_structured(text).expect("a table");
        let structure = structure.expect("structural");
        let info = splitter.describe(text, &spans, &structure).chunks;
        spans
            .iter()
            .zip(info)
            .map(|(s, i)| {
                let rows = i.rows.expect("table rows");
                (text[s.start..s.end].to_owned(), rows.first, rows.past)
            })
            .collect()
    }

    fn config(format: &str, size: usize, overlap: usize, rows_per_chunk: usize) -> SplitterConfig {
        let mut c = SplitterConfig::new(Strategy::Table, size);
        c.overlap = overlap;
        c.rows_per_chunk = (rows_per_chunk > 0).then_some(rows_per_chunk);
        c.table_format = format.parse().unwrap();
        c
    }

    #[test]
    fn rows_limit_moves_with_the_chunk_start() {
        let s = table(TABLE, 2);
        let row =
            |i: usize| TABLE.match_indices('|').map(|(p, _)| p).collect::<Vec<_>>()[6 + 3 * i];
        // From the header: the first two rows; from a row, or inside one: that row and the next.
        assert_eq!(s.limit_at(TABLE.len(), 0), row(2));
        assert_eq!(s.limit_at(TABLE.len(), row(1)), row(3));
        assert_eq!(s.limit_at(TABLE.len(), row(1) + 2), row(3));
        assert_eq!(s.limit_at(TABLE.len(), row(2)), TABLE.len());
        assert_eq!(table(TABLE, 0).limit_at(TABLE.len(), 0), TABLE.len());
        // No fixed barriers: every cut between rows is a row cut.
        assert!(s.bounds.iter().all(|b| b.level <= Level::LINE));
    }

    #[test]
    fn table_overlap_is_whole_data_rows() {
        let rows: Vec<usize> = match &table(TABLE, 0).blocks[0].kind {
            BlockKind::Table { rows, .. } => rows.clone(),
            _ => unreachable!("a table"),
        };
        let s = table(TABLE, 0);
        // A chunk from the header: never all of its rows (the header alone would be left out), never the header.
        assert_eq!(s.table_overlap(0, rows[3]), Some(&rows[1..3]));
        assert_eq!(s.table_overlap(0, rows[0]), Some(&[][..]));
        // From a row: the rows after it.
        assert_eq!(s.table_overlap(rows[1], rows[3]), Some(&rows[2..3]));
        // Cut inside a row or inside the header: none. Outside the table: not the table's say.
        assert_eq!(s.table_overlap(rows[0], rows[2] + 1), Some(&[][..]));
        assert_eq!(s.table_overlap(0, 6), Some(&[][..]));
        assert_eq!(s.table_overlap(0, TABLE.len()), None);
        // With rows_per_chunk, at most rows_per_chunk - 1 rows.
        let three = table(TABLE, 3);
        assert_eq!(three.table_overlap(0, rows[3]), Some(&rows[1..3]));
        let two = table(TABLE, 2);
        assert_eq!(two.table_overlap(0, rows[2]), Some(&rows[1..2]));
        assert_eq!(two.table_overlap(rows[1], rows[3]), Some(&rows[2..3]));
        assert_eq!(table(TABLE, 1).table_overlap(0, rows[1]), Some(&[][..]));
        // Row starts may start an overlap; the header, the delimiter row and the inside of a row may not.
        assert!(rows.iter().all(|&r| s.may_start_overlap(r)));
        assert!(!s.may_start_overlap(6) && !s.may_start_overlap(rows[1] + 1));
        assert!(s.may_start_overlap(0) && s.may_start_overlap(TABLE.len()));
    }

    #[test]
    fn rows_per_chunk_overlaps_by_whole_rows() {
        let t = |s: &str, a, b| (s.to_owned(), a, b);
        assert_eq!(
            chunks(config("markdown", 1 << 40, 5, 2), TABLE),
            [
                t("|a|b|\n|-|-|\n|1|2|\n|3|4|", 0, 2),
                t("|3|4|\n|5|6|", 1, 3),
                t("|5|6|\n|7|8|", 2, 4)
            ]
        );
        // An overlap of 4 characters holds no row of 5.
        assert_eq!(
            chunks(config("markdown", 1 << 40, 4, 2), TABLE),
            [
                t("|a|b|\n|-|-|\n|1|2|\n|3|4|", 0, 2),
                t("|5|6|\n|7|8|", 2, 4)
            ]
        );
        let csv = "a,b\n1,2\n3,4\n5,6\n7,8\n";
        assert_eq!(
            chunks(config("csv", 1 << 40, 100, 3), csv),
            [t("a,b\n1,2\n3,4\n5,6", 0, 3), t("3,4\n5,6\n7,8", 1, 4)]
        );
    }

    #[test]
    fn a_table_too_big_takes_its_caption_into_its_first_piece() {
        let rows: String = (0..12).map(|i| format!("| r{i} | {i} |\n")).collect();
        let table = format!("| k | v |\n|---|---|\n{rows}");
        let text = format!("Intro words here.\n\nTable 3: values by key.\n\n{table}\nAfter.\n");
        let split = |size: usize| {
            let mut c = SplitterConfig::new(Strategy::Markdown, size);
            c.size_includes_context = false;
            let splitter = Splitter::new(c).expect("valid config");
            let spans = splitter.split(&text).expect("splits");
            spans
                .iter()
                .map(|s| text[s.start..s.end].to_owned())
                .collect::<Vec<_>>()
        };
        // Too big for one chunk: the caption, the header and the first rows together; never the caption alone.
        let small = split(60);
        assert!(
            small.iter().all(|c| c != "Table 3: values by key."),
            "{small:?}"
        );
        assert!(small
            .iter()
            .any(|c| c.starts_with("Table 3: values by key.\n\n| k | v |\n|---|---|\n| r0 |")));
        // The table alone fits, not with its caption: the table whole, the caption before it.
        let fits = split(table.len() + 2);
        assert!(fits.contains(&table.trim_end().to_owned()), "{fits:?}");
    }

    #[test]
    fn size_overlap_never_takes_the_header_or_part_of_a_row() {
        let t = |s: &str, a, b| (s.to_owned(), a, b);
        assert_eq!(
            chunks(config("markdown", 14, 6, 0), TABLE),
            [
                t("|a|b|\n|-|-|", 0, 0),
                t("|1|2|\n|3|4|", 0, 2),
                t("|3|4|\n|5|6|", 1, 3),
                t("|5|6|\n|7|8|", 2, 4)
            ]
        );
        // Rows with words in them: an overlap smaller than a row is no overlap, not the row's last words.
        let spaced = "| k | v |\n|---|---|\n| one | two words |\n| three | four words |\n| five | six words |";
        let got = chunks(config("markdown", 40, 12, 0), spaced);
        assert!(got.windows(2).all(|w| w[0].2 == w[1].1), "{got:?}");
    }

    #[test]
    fn markdown_table_overlap_starts_at_a_row() {
        let mut doc =
            String::from("# T\n\nSome words before the table.\n\n| key | value |\n|---|---|\n");
        for i in 0..20 {
            doc.push_str(&format!("| key {i} | some value {i} |\n"));
        }
        let table_start = doc.find("| key |").expect("header");
        let mut config = SplitterConfig::new(Strategy::Markdown, 80);
        for overlap in [5, 15, 30, 60] {
            config.overlap = overlap;
            let splitter = Splitter::new(config.clone()).expect("valid config");
            let spans = splitter.split(&doc).unwrap();
            for w in spans.windows(2) {
                let (prev, next) = (w[0], w[1]);
                if next.start < prev.end && next.start > table_start {
                    assert!(
                        doc[..next.start].ends_with('\n')
                            && doc[next.start..].starts_with("| key "),
                        "overlap {overlap}: {:?}",
                        &doc[next.start..next.end]
                    );
                }
            }
        }
    }

    #[test]
    fn capacities_measured_one_start_after_another_are_those_measured_alone() {
        // Headings at three depths, a chain of headings, a captioned table, a fence of a known language with
        // nested definitions, a list with its lead-in, a quote: every kind of context part.
        let text = "# Guide\n\nIntro text.\n\n## Tables\n### Sizes\n\nTable 1: sizes by key.\n\n| k | v |\n|---|---|\n\
                    | a | 1 |\n| b | 2 |\n| c | 3 |\n\n## Code\n\n```python\nclass A:\n    def f(self):\n        x = 1\n\
                    \n        return x\n\n    def g(self):\n        return 2\n```\n\nThe steps are:\n\n- one\n- two\n\
                    - three\n\n> a quote\n> more\n\n# Next 注意\n\n文字。\n";
        for size in [40, 90, 400] {
            let mut c = SplitterConfig::new(Strategy::Markdown, size);
            c.size_includes_context = true;
            let splitter = Splitter::new(c).expect("valid config");
            let (_, structure) = splitter.split_structured(text).expect("splits");
            let s = structure.expect("a structure");
            assert!(!s.fences.is_empty(), "the fence is parsed as code");
            let mut last = LastCapacity::default();
            let mut kinds = std::collections::HashSet::new();
            for (start, _) in text.char_indices() {
                let alone = s.capacity_at(text, start, &crate::size::Chars, size);
                let after = s.capacity_after(text, start, &crate::size::Chars, size, &mut last);
                assert_eq!(after, alone, "size {size}, start {start}");
                kinds.insert(alone);
            }
            assert!(kinds.len() > 4, "contexts of several sizes: {kinds:?}");
        }
    }
}
