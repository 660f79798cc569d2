//! A SentencePiece Unigram's count of a text without the tokenizer's pipeline (XLM-R's and its kin).
//!
//! Through `tokenizers`, a piece new to the memo goes through the added-vocabulary split, the normalizer (a
//! precompiled table over grapheme clusters, then a regex collapsing runs of spaces), Metaspace (spaces to "▁", one
//! prepended, a split before each "▁"), each step building `NormalizedString`s with their alignments, then the
//! Unigram's Viterbi, which makes a `String` of every candidate token it looks up: about 10 us a piece. For a text
//! whose characters each have a known fate (see below), [`Unigram::count`] builds the normalizer's text itself (each
//! character as it is or replaced), then the text the model sees (the spaces collapsed, "▁" for each, one
//! prepended, cut before each "▁"), and runs a Viterbi of its own over a trie of the vocabulary that takes the same
//! path as `tokenizers`' `Unigram::encode_optimized`: the same f64 sums, the same tie-breaking (a later candidate
//! replaces a node's best only when strictly better), the unknown token's score and its handling of characters no
//! single-character token holds, runs of unknown tokens fused into one, and their bytes counted when the model falls
//! back to bytes. Other text is left to the tokenizer.
//!
//! A character's fate is what the tokenizer's own normalizer makes of it alone: kept as it is, or replaced by a
//! text (a line break or a no-break space by a space, "，" by ",", a control by nothing), asked one character at a
//! time, lazily by blocks of 256 code points. The normalizer's text is then the characters' texts one after the
//! other, before the collapse of spaces, which the model's text applies to the whole (the collapse comes after the
//! table, so it also joins the spaces that replacements made). That holds only where the normalizer treats each
//! character apart: the precompiled table replaces whole grapheme clusters, and NFKC and NFC compose a character with
//! the one before it, so a character has a fate only if it, and every character of its replacement but the space,
//! always forms a cluster of its own next to such characters (not combining marks, joiners, regional indicators,
//! Hangul jamo, prepended marks, a carriage return before a line feed), which also rules out what NFC composes or
//! reorders. A replacement holding "▁" (Metaspace would cut there) has no fate either. An added token found in the
//! text, or in the normalizer's text (as itself or normalized), leaves the text to the tokenizer.
//!
//! Exactness is tested against `tokenizers` on the corpus, on its words next to what the table replaces and on
//! generated words (`tests/hf_count.rs`), and by the token fuzz of the Python tests.

use std::cell::RefCell;
use std::sync::OnceLock;

use serde_json::Value;
use tokenizers::pre_tokenizers::metaspace::PrependScheme;
use tokenizers::{
    ModelWrapper, NormalizedString, Normalizer, NormalizerWrapper, PreTokenizerWrapper, Tokenizer,
};
use unicode_segmentation::UnicodeSegmentation;

/// What Metaspace puts for a space, and cuts before.
const MARK: char = '\u{2581}';
const MARK_UTF8: &[u8] = "\u{2581}".as_bytes();
/// `tokenizers`' penalty of the unknown token: its score is the vocabulary's lowest score minus this.
const UNK_PENALTY: f64 = 10.0;
/// No node, no token.
const NONE: u32 = u32::MAX;
/// Characters past this have no fate (the BMP, the SMP's emoji, CJK extensions B to F).
const LAST_LOOKED_AT: u32 = 0x2FFFF;

/// The vocabulary as a trie of bytes in a double array: the child of `node` by byte `b` is the slot
/// `base[node] + b` when `check` of that slot names `node`. A transition is two loads and a compare, where a hash
/// map of edges cost a hash and a probe: the walk from each character of a piece is most of a held-out count.
struct Trie {
    /// The three fields of a slot side by side: a transition reads one cache line.
    slots: Vec<Slot>,
}

#[derive(Clone, Copy)]
struct Slot {
    /// Where its children's slots start (the byte added), 0 if it has none.
    base: u32,
    /// Its parent's slot, or [`NONE`] for a free slot (the root, slot 0, has none).
    check: u32,
    /// The id of the token it ends, or [`NONE`].
    end: u32,
}

const FREE: Slot = Slot {
    base: 0,
    check: NONE,
    end: NONE,
};

impl Trie {
    /// The trie of `tokens` (id = position). A token held twice ends at the id of its last copy, as the model's own
    /// token-to-id map has it.
    fn new<'a>(tokens: impl Iterator<Item = &'a str>) -> Self {
        // A trie of linked nodes first: per node its children (byte, node), and the token it ends.
        let mut children: Vec<Vec<(u8, u32)>> = vec![Vec::new()];
        let mut ends = vec![NONE];
        for (id, token) in tokens.enumerate() {
            if token.is_empty() {
                continue;
            }
            let mut node = 0;
            for &b in token.as_bytes() {
                node = match children[node].iter().find(|(c, _)| *c == b) {
                    Some(&(_, next)) => next as usize,
                    None => {
                        let next = children.len();
                        children[node].push((b, next as u32));
                        children.push(Vec::new());
                        ends.push(NONE);
                        next
                    }
                };
            }
            ends[node] = id as u32;
        }
        // Then each node's children placed at the first base where their slots are free, breadth first.
        let mut slots = vec![Slot {
            end: ends[0],
            ..FREE
        }];
        // The lowest slot that may be free: a node of one child always fits there, as the search starts past the
        // first 256 slots (below, a slot fits only the bytes less than it: left empty, they would be searched
        // past again for each node, quadratic in the vocabulary). A node
        // of more children is tried from `wide` on, moved up past slots where such a search failed many times, so
        // that a vocabulary of many such nodes (a CJK one) is not searched from the bottom for each: the holes left
        // below are filled by nodes of one child.
        let mut free = 256;
        let mut wide = 256;
        let mut queue = std::collections::VecDeque::from([(0usize, 0usize)]);
        while let Some((node, slot)) = queue.pop_front() {
            let kids = &mut children[node];
            if kids.is_empty() {
                continue;
            }
            kids.sort_unstable();
            while free < slots.len() && slots[free].check != NONE {
                free += 1;
            }
            let first = usize::from(kids[0].0);
            let from = if kids.len() == 1 {
                free
            } else {
                wide.max(free)
            };
            let mut base = from.saturating_sub(first).max(1);
            let tried = base;
            while kids.iter().any(|&(b, _)| {
                slots
                    .get(base + usize::from(b))
                    .is_some_and(|s| s.check != NONE)
            }) {
                base += 1;
            }
            if base - tried > 256 {
                wide = base + first - 256;
            }
            let last = base + usize::from(kids[kids.len() - 1].0);
            if last >= slots.len() {
                slots.resize(last + 1, FREE);
            }
            slots[slot].base = base as u32;
            for &(b, child) in kids.iter() {
                let at = base + usize::from(b);
                slots[at].check = slot as u32;
                slots[at].end = ends[child as usize];
                queue.push_back((child as usize, at));
            }
        }
        Self { slots }
    }

    /// Calls `f(length, id)` for each token that `bytes` starts with, shortest first.
    #[inline]
    fn prefixes(&self, bytes: &[u8], mut f: impl FnMut(usize, u32)) {
        let mut node = 0;
        let mut base = self.slots[0].base;
        for (i, &b) in bytes.iter().enumerate() {
            let next = base as usize + usize::from(b);
            // Only a node's own children name it in `check` (a node without children, base 0, is named by none).
            match self.slots.get(next) {
                Some(slot) if slot.check == node => {
                    if slot.end != NONE {
                        f(i + 1, slot.end);
                    }
                    node = next as u32;
                    base = slot.base;
                }
                _ => return,
            }
        }
    }

    /// Whether `bytes` is a token.
    fn holds(&self, bytes: &[u8]) -> bool {
        let mut found = false;
        self.prefixes(bytes, |len, _| found = len == bytes.len());
        found
    }
}

/// What the normalizer does to one character in a text counted here.
#[derive(Clone, Copy)]
enum Fate<'a> {
    /// It keeps it as it is.
    Kept,
    /// It puts this text in its place (possibly empty).
    Replaced(&'a str),
    /// The text is left to the tokenizer.
    Unknown,
}

/// The fates of 256 code points.
struct Block {
    /// A bit per code point kept as it is.
    kept: [u64; 4],
    /// A bit per code point replaced.
    replaced: [u64; 4],
    /// The replaced code points' low bytes and their replacements, sorted by the former.
    by: Box<[(u8, Box<str>)]>,
}

impl Block {
    fn fate(&self, low: u8) -> Fate<'_> {
        let bit = |set: &[u64; 4]| set[usize::from(low >> 6)] >> (low & 63) & 1 == 1;
        if bit(&self.kept) {
            Fate::Kept
        } else if bit(&self.replaced) {
            let i = self.by.binary_search_by_key(&low, |(l, _)| *l).ok();
            i.map_or(Fate::Unknown, |i| Fate::Replaced(&self.by[i].1))
        } else {
            Fate::Unknown
        }
    }
}

/// What the normalizer makes of each character, in texts whose characters all have a known fate (see the module's
/// text).
struct Fates {
    /// Per ASCII byte: kept as it is (the space always is).
    ascii_kept: [bool; 128],
    /// Blocks of 256 code points each, up to [`LAST_LOOKED_AT`], each filled the first time it is asked.
    blocks: Box<[OnceLock<Block>]>,
    /// The normalizer works on grapheme clusters or composes characters (a precompiled table, NFKC, NFC).
    clusters: bool,
}

impl Fates {
    fn new(normalizer: Option<&NormalizerWrapper>, clusters: bool) -> Self {
        let mut ascii_kept = [false; 128];
        for (b, kept) in ascii_kept.iter_mut().enumerate() {
            *kept = b == usize::from(b' ')
                || matches!(fate(normalizer, clusters, char::from(b as u8)), Some(None));
        }
        Self {
            ascii_kept,
            blocks: (0..=LAST_LOOKED_AT >> 8).map(|_| OnceLock::new()).collect(),
            clusters,
        }
    }

    fn of(&self, c: char, normalizer: Option<&NormalizerWrapper>) -> Fate<'_> {
        if c == ' ' {
            return Fate::Kept;
        }
        let c = c as u32;
        let Some(block) = self.blocks.get(c as usize >> 8) else {
            return Fate::Unknown;
        };
        let block = block.get_or_init(|| {
            let mut block = Block {
                kept: [0; 4],
                replaced: [0; 4],
                by: Box::default(),
            };
            let mut by = Vec::new();
            for low in 0..=255u8 {
                let Some(k) = char::from_u32(c & !0xFF | u32::from(low)) else {
                    continue;
                };
                let set = match fate(normalizer, self.clusters, k) {
                    None => continue,
                    Some(None) => &mut block.kept,
                    Some(Some(into)) => {
                        by.push((low, into.into_boxed_str()));
                        &mut block.replaced
                    }
                };
                set[usize::from(low >> 6)] |= 1 << (low & 63);
            }
            block.by = by.into_boxed_slice();
            block
        });
        block.fate((c & 0xFF) as u8)
    }

    /// The normalizer's text of `text`, before its collapse of spaces: `Some(false)` if it is `text` itself,
    /// `Some(true)` if it differs and is now in `out`, `None` if a character's fate is unknown.
    fn apply(
        &self,
        text: &str,
        normalizer: Option<&NormalizerWrapper>,
        out: &mut String,
    ) -> Option<bool> {
        if text.is_ascii() && text.bytes().all(|b| self.ascii_kept[usize::from(b)]) {
            return Some(false);
        }
        // Copied into `out` lazily, from the first replaced character on; `copied`: how far `text` is copied.
        let mut copied = None;
        for (i, c) in text.char_indices() {
            match self.of(c, normalizer) {
                Fate::Kept => {}
                Fate::Unknown => return None,
                Fate::Replaced(into) => {
                    let from = copied.unwrap_or_else(|| {
                        out.clear();
                        0
                    });
                    out.push_str(&text[from..i]);
                    out.push_str(into);
                    copied = Some(i + c.len_utf8());
                }
            }
        }
        let Some(from) = copied else {
            return Some(false);
        };
        out.push_str(&text[from..]);
        Some(true)
    }
}

/// The fate of `c` as a cluster of its own: `Some(None)` if `normalizer` keeps it as it is, `Some(Some(text))` if it
/// replaces it by `text`, `None` if a text holding it is left to the tokenizer: when the normalizer fails on it,
/// when the text it gives holds "▁" (Metaspace would cut there), and, for a normalizer working on clusters or
/// composing characters, when `c` or a character of its text other than the space could join a neighbour (a cluster
/// of two, or a composition across them: see [`alone`]).
fn fate(normalizer: Option<&NormalizerWrapper>, clusters: bool, c: char) -> Option<Option<String>> {
    let mut s = [0u8; 4];
    let s = c.encode_utf8(&mut s);
    let into = normalize(normalizer, s)?;
    if into.contains(MARK) {
        return None;
    }
    if clusters && !(alone(c) && into.chars().all(|d| d == ' ' || alone(d))) {
        return None;
    }
    Some((into != *s).then_some(into))
}

/// Whether `c` forms a cluster of its own next to any such character (tried against one of each kind of those: a
/// letter, a Hangul LV and LVT syllable, an emoji, an Indic consonant, a line feed, and itself). Such a character is
/// no combining mark, joiner, regional indicator, Hangul jamo, prepended mark or carriage return, which are also
/// the characters NFC and NFKC compose with the one before, or reorder.
fn alone(c: char) -> bool {
    // Each pair written on the stack: a block's first use asks this of 256 characters, 14 pairs each.
    let pair = |a: char, b: char| {
        let mut buf = [0u8; 8];
        let n = a.encode_utf8(&mut buf).len();
        let m = b.encode_utf8(&mut buf[n..]).len();
        std::str::from_utf8(&buf[..n + m]).is_ok_and(|s| s.graphemes(true).count() == 2)
    };
    ['a', '\u{AC00}', '\u{AC01}', '\u{1F642}', '\u{915}', '\n', c]
        .into_iter()
        .all(|p| pair(p, c) && pair(c, p))
}

/// `text` through the normalizer (as it is without one), `None` on its error.
fn normalize(normalizer: Option<&NormalizerWrapper>, text: &str) -> Option<String> {
    let mut normalized = NormalizedString::from(text);
    if let Some(n) = normalizer {
        n.normalize(&mut normalized).ok()?;
    }
    Some(normalized.get().to_owned())
}

/// A node of the Viterbi: the best score of a path to this position, where its last token starts ([`NONE`]: no path
/// yet) and whether that token is the unknown one.
#[derive(Clone, Copy)]
struct Node {
    score: f64,
    from: u32,
    unknown: bool,
}

/// Buffers of one thread's counts: the normalizer's text (when it is not the text counted), the model's text, where
/// its pre-tokens start, and the Viterbi's nodes.
#[derive(Default)]
struct Scratch {
    normalized: String,
    text: Vec<u8>,
    cuts: Vec<usize>,
    nodes: Vec<Node>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// A Unigram tokenizer counted without its pipeline (see the module's text).
pub(super) struct Unigram {
    trie: Trie,
    /// Per id.
    scores: Vec<f64>,
    unk_id: Option<u32>,
    unk_score: f64,
    /// Unknown runs not in the vocabulary are counted as their bytes when every byte has its `<0xXX>` token.
    byte_tokens: Option<[bool; 256]>,
    /// Metaspace prepends "▁" to a text that does not start with one.
    prepend: bool,
    /// Metaspace cuts before each "▁".
    split: bool,
    /// The normalizer makes a run of spaces one space.
    collapse: bool,
    fates: Fates,
    /// The added tokens' contents, and what the normalizer makes of them: a text holding one, before or after the
    /// normalizer, is left to the tokenizer.
    added: Vec<String>,
    /// The first bytes of `added`'s contents.
    added_starts: [bool; 256],
    /// An added token holds a space (it could match across a run of spaces that the normalizer collapses).
    added_spaces: bool,
}

impl Unigram {
    /// For a tokenizer whose pipeline is one this module builds the model's text for: a Unigram model, Metaspace
    /// with "▁" alone as the pre-tokenizer, and as the normalizer none, a precompiled table, or a precompiled table
    /// then a collapse of space runs (`" {2,}"` to `" "`), in a `Sequence` or not (NFKC or NFC in place of the table
    /// too); `None` for any other.
    pub(super) fn of(tok: &Tokenizer, config: &Value) -> Option<Self> {
        let ModelWrapper::Unigram(model) = tok.get_model() else {
            return None;
        };
        let Some(PreTokenizerWrapper::Metaspace(meta)) = tok.get_pre_tokenizer() else {
            return None;
        };
        // A sampling Unigram gives a path of its own each time.
        if meta.get_replacement() != MARK || model.alpha.is_some_and(|a| a != 0.0) {
            return None;
        }
        let (clusters, collapse) = known_steps(&config["normalizer"])?;
        let normalizer = tok.get_normalizer();
        // What the steps do to spaces, as the tokenizer does it.
        let spaced = " a  b   c ";
        let expected = if collapse { " a b c " } else { spaced };
        if normalize(normalizer, spaced).as_deref() != Some(expected) {
            return None;
        }
        let tokens: Vec<&(String, f64)> = model.iter().collect();
        let unk_id = match &config["model"]["unk_id"] {
            Value::Null => None,
            id => Some(u32::try_from(id.as_u64()?).ok()?),
        };
        if unk_id.is_some_and(|id| id as usize >= tokens.len()) || tokens.len() >= NONE as usize {
            return None;
        }
        let trie = Trie::new(tokens.iter().map(|(t, _)| t.as_str()));
        let byte_tokens = model.byte_fallback().then(|| {
            let mut bytes = [false; 256];
            for (b, has) in bytes.iter_mut().enumerate() {
                *has = trie.holds(format!("<0x{b:02X}>").as_bytes());
            }
            bytes
        });
        let mut added = Vec::new();
        for token in tok.get_added_tokens_decoder().values() {
            added.push(token.content.clone());
            added.push(normalize(normalizer, &token.content)?);
        }
        if added.iter().any(String::is_empty) {
            return None;
        }
        added.sort_unstable();
        added.dedup();
        let mut added_starts = [false; 256];
        for a in &added {
            added_starts[usize::from(a.as_bytes()[0])] = true;
        }
        Some(Self {
            trie,
            scores: tokens.iter().map(|(_, s)| *s).collect(),
            unk_id,
            unk_score: model.min_score - UNK_PENALTY,
            byte_tokens,
            prepend: meta.get_prepend_scheme() != PrependScheme::Never,
            split: meta.get_split(),
            collapse,
            fates: Fates::new(normalizer, clusters),
            added_spaces: added.iter().any(|a| a.contains(' ')),
            added,
            added_starts,
        })
    }

    /// The tokenizer's count of `text` (no special tokens) if the fate of every character of it is known and it
    /// holds no added token, before or after the normalizer; `None` for any other text, and where the tokenizer
    /// would fail (an unknown character without an unknown token). `normalizer` is the tokenizer's.
    pub(super) fn count(
        &self,
        text: &str,
        normalizer: Option<&NormalizerWrapper>,
    ) -> Option<usize> {
        if text.is_empty() || self.holds_added(text) {
            return None;
        }
        SCRATCH.with(|scratch| {
            let scratch = &mut *scratch.try_borrow_mut().ok()?;
            let Scratch {
                normalized,
                text: model,
                cuts,
                nodes,
            } = scratch;
            let normalized = match self.fates.apply(text, normalizer, normalized)? {
                false => text,
                true if self.holds_added(normalized) => return None,
                true => normalized.as_str(),
            };
            // The tokenizer drops a text the normalizer empties: no pre-token, no token.
            if normalized.is_empty() {
                return Some(0);
            }
            self.model_text(normalized, model, cuts);
            if model.len() >= NONE as usize {
                return None;
            }
            let (text, nodes) = (&*model, nodes);
            let mut total = 0;
            for (k, &a) in cuts.iter().enumerate() {
                let b = cuts.get(k + 1).copied().unwrap_or(text.len());
                total += self.viterbi(&text[a..b], nodes)?;
            }
            Some(total)
        })
    }

    fn holds_added(&self, text: &str) -> bool {
        if self.added_spaces && text.contains("  ") {
            return true;
        }
        text.bytes().any(|b| self.added_starts[usize::from(b)])
            && self.added.iter().any(|a| text.contains(a.as_str()))
    }

    /// The text the model sees, as Metaspace gives it from the normalizer's text before its collapse of spaces
    /// (spaces collapsed if the normalizer does, "▁" for each, one prepended), and where its pre-tokens start.
    fn model_text(&self, text: &str, out: &mut Vec<u8>, cuts: &mut Vec<usize>) {
        out.clear();
        cuts.clear();
        cuts.push(0);
        if self.prepend && !text.starts_with(' ') {
            out.extend_from_slice(MARK_UTF8);
        }
        let mut after_space = false;
        for &b in text.as_bytes() {
            if b != b' ' {
                out.push(b);
                after_space = false;
                continue;
            }
            if !(after_space && self.collapse) {
                if self.split && !out.is_empty() {
                    cuts.push(out.len());
                }
                out.extend_from_slice(MARK_UTF8);
            }
            after_space = true;
        }
    }

    /// The model's count of the pre-token `text` (UTF-8), or `None` where it would fail.
    fn viterbi(&self, text: &[u8], nodes: &mut Vec<Node>) -> Option<usize> {
        let unset = Node {
            score: 0.0,
            from: NONE,
            unknown: false,
        };
        nodes.clear();
        nodes.resize(text.len() + 1, unset);
        // A candidate replaces a node's path only if the node has none or the candidate is strictly better: among
        // equal paths, the first found stays (tokens from earlier starts, then shorter ones).
        let offer = |nodes: &mut Vec<Node>, end: usize, score: f64, from: usize, unknown: bool| {
            let node = &mut nodes[end];
            if node.from == NONE || score > node.score {
                *node = Node {
                    score,
                    from: from as u32,
                    unknown,
                };
            }
        };
        let mut at = 0;
        while at < text.len() {
            let here = nodes[at].score;
            let width = utf8_width(text[at]);
            let mut single = false;
            self.trie.prefixes(&text[at..], |len, id| {
                let score = self.scores[id as usize] + here;
                offer(nodes, at + len, score, at, Some(id) == self.unk_id);
                single |= len == width;
            });
            if !single {
                // A character no token of its own holds: the unknown token, which the model must have.
                self.unk_id?;
                offer(nodes, at + width, self.unk_score + here, at, true);
            }
            at += width;
        }
        // Back from the end: tokens one each, runs of unknown ones fused into one.
        let mut count = 0;
        let mut end = text.len();
        let mut unknown_end = None;
        while end > 0 {
            let node = nodes[end];
            let from = node.from as usize;
            if node.unknown {
                unknown_end.get_or_insert(end);
            } else {
                if let Some(e) = unknown_end.take() {
                    count += self.unknown_run(&text[end..e]);
                }
                count += 1;
            }
            end = from;
        }
        if let Some(e) = unknown_end {
            count += self.unknown_run(&text[..e]);
        }
        Some(count)
    }

    /// The tokens of a fused run of unknown tokens: one (the run's own token if the vocabulary holds it, else the
    /// unknown one), or one per byte when the model falls back to bytes and has all of them.
    fn unknown_run(&self, run: &[u8]) -> usize {
        match &self.byte_tokens {
            Some(bytes) if !self.trie.holds(run) && run.iter().all(|&b| bytes[usize::from(b)]) => {
                run.len()
            }
            _ => 1,
        }
    }
}

/// The length of the UTF-8 character whose first byte is `b`.
fn utf8_width(b: u8) -> usize {
    match b {
        0..=0x7F => 1,
        0x80..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// For a normalizer of the steps this module knows, in order (all optional: a precompiled table, NFKC or NFC, then a
/// collapse of space runs into one space): whether it has the first, and the collapse; `None` for any other.
fn known_steps(normalizer: &Value) -> Option<(bool, bool)> {
    let steps: Vec<&Value> = match normalizer["type"].as_str() {
        None if normalizer.is_null() => Vec::new(),
        Some("Sequence") => normalizer["normalizers"].as_array()?.iter().collect(),
        Some(_) => vec![normalizer],
        None => return None,
    };
    let mut steps = steps.into_iter().peekable();
    // SentencePiece's table, or a Unicode normalization: on characters that are clusters of their own and no
    // combining marks, both act on each character alone.
    let table = steps
        .next_if(|s| matches!(s["type"].as_str(), Some("Precompiled" | "NFKC" | "NFC")))
        .is_some();
    let collapse = steps
        .next_if(|s| {
            s["type"] == "Replace" && s["pattern"]["Regex"] == " {2,}" && s["content"] == " "
        })
        .is_some();
    steps.next().is_none().then_some((table, collapse))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_normalizers() {
        let json = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        let table = r#"{"type":"Precompiled","precompiled_charsmap":""}"#;
        let collapse = r#"{"type":"Replace","pattern":{"Regex":" {2,}"},"content":" "}"#;
        assert_eq!(known_steps(&Value::Null), Some((false, false)));
        assert_eq!(known_steps(&json(table)), Some((true, false)));
        assert_eq!(
            known_steps(&json(&format!(
                r#"{{"type":"Sequence","normalizers":[{table},{collapse}]}}"#
            ))),
            Some((true, true))
        );
        assert_eq!(
            known_steps(&json(&format!(
                r#"{{"type":"Sequence","normalizers":[{collapse},{table}]}}"#
            ))),
            None
        );
        assert_eq!(
            known_steps(&json(r#"{"type":"NFKC"}"#)),
            Some((true, false))
        );
        assert_eq!(known_steps(&json(r#"{"type":"NFKD"}"#)), None);
        assert_eq!(known_steps(&json(r#"{"type":"Lowercase"}"#)), None);
        let to_mark = r#"{"type":"Replace","pattern":{"Regex":" {2,}"},"content":"_"}"#;
        assert_eq!(known_steps(&json(to_mark)), None);
    }

    #[test]
    fn the_trie_finds_every_prefix_token() {
        let trie = Trie::new(["a", "ab", "abc", "b", "", "ab"].into_iter());
        let mut found = Vec::new();
        trie.prefixes(b"abcd", |len, id| found.push((len, id)));
        assert_eq!(found, [(1, 0), (2, 5), (3, 2)]);
        assert!(trie.holds(b"abc") && !trie.holds(b"abcd") && !trie.holds(b""));
    }

    /// The double array against a plain search, on a vocabulary of many nodes of many children (CJK characters,
    /// "▁" words) and bytes below 0x20, whose slots are placed first.
    #[test]
    fn the_double_array_holds_exactly_the_vocabulary() {
        let mut tokens: Vec<String> = (0..3000u32)
            .map(|i| {
                let c = char::from_u32(0x4E00 + i * 7 % 0x5000).unwrap();
                let d = char::from_u32(0x3041 + i % 80).unwrap();
                match i % 4 {
                    0 => c.to_string(),
                    1 => format!("{c}{d}"),
                    2 => format!("\u{2581}{}{}", char::from(b'a' + (i % 26) as u8), i % 97),
                    _ => format!("{}{c}", char::from((i % 32) as u8)),
                }
            })
            .collect();
        tokens.push(String::new());
        let trie = Trie::new(tokens.iter().map(String::as_str));
        let last_id = |t: &str| tokens.iter().rposition(|u| u == t).unwrap() as u32;
        for token in tokens.iter().filter(|t| !t.is_empty()) {
            let text = format!("{token}x\u{4E01}");
            let mut found = Vec::new();
            trie.prefixes(text.as_bytes(), |len, id| found.push((len, id)));
            let expected: Vec<(usize, u32)> = (1..=text.len())
                .filter(|&n| text.is_char_boundary(n) && tokens.iter().any(|u| u == &text[..n]))
                .map(|n| (n, last_id(&text[..n])))
                .collect();
            assert_eq!(found, expected, "{text:?}");
            assert!(trie.holds(token.as_bytes()));
        }
        assert!(!trie.holds("\u{2581}".as_bytes()) && !trie.holds(b"x"));
    }

    /// A Metaspace Unigram over `vocab` (pieces and scores, JSON), with no normalizer.
    fn tokenizer(
        vocab: &str,
        byte_fallback: bool,
        prepend: &str,
        split: bool,
    ) -> (Tokenizer, Value) {
        let json = format!(
            r#"{{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,
            "pre_tokenizer":{{"type":"Metaspace","replacement":"\u2581","prepend_scheme":"{prepend}",
            "split":{split}}},"post_processor":null,"decoder":null,
            "model":{{"type":"Unigram","unk_id":0,"vocab":{vocab},"byte_fallback":{byte_fallback}}}}}"#
        );
        (json.parse().unwrap(), serde_json::from_str(&json).unwrap())
    }

    /// "▁ab" scores as "▁a" + "b" (a tie, where the first path found stays) and as "▁" + "a" + "b" less; "<unk>"
    /// is held twice.
    const TIES: &str = r#"[["<unk>",0.0],["\u2581a",-1.0],["b",-1.0],["\u2581ab",-2.0],["a",-1.0],
        ["\u2581",-1.0],["c",-1.5],["cc",-3.0],["ccc",-4.0],["bc",-2.5],["\u2581b",-0.5],["<unk>",-0.25]]"#;

    fn bytes_vocab(bytes: impl Iterator<Item = u8>) -> String {
        let mut vocab = TIES.strip_suffix(']').unwrap().to_owned();
        for b in bytes {
            vocab.push_str(&format!(r#",["<0x{b:02X}>",-9.0]"#));
        }
        vocab + "]"
    }

    #[test]
    fn counts_what_the_unigram_counts() {
        let texts = [
            "ab", " ab", "abab", "a b", "a  b", "  a", "a ", "ababc", "ccc", "cccc", "bcc", "x",
            "xyz", "axbx", "a🙂b", "🙂🙂", "x y", "<unk>", "a<unk>x", "a\u{301}", "\u{301}",
            "中文", "ab cc ab", "a\nb", "\n", " \t ", "a\u{a0}b", "\r\n",
        ];
        let all_bytes = bytes_vocab(0..=255);
        let some_bytes = bytes_vocab(b'x'..=b'z');
        let mut fast = 0;
        for (vocab, byte_fallback) in [
            (TIES, false),
            (TIES, true),
            (&*all_bytes, true),
            (&*some_bytes, true),
        ] {
            for prepend in ["always", "first", "never"] {
                for split in [true, false] {
                    let (tok, config) = tokenizer(vocab, byte_fallback, prepend, split);
                    let unigram =
                        Unigram::of(&tok, &config).expect("a pipeline counted without it");
                    for text in texts {
                        let expected = tok.encode_fast(text, false).unwrap().len();
                        let what = format!(
                            "{text:?}, {prepend}, split {split}, byte fallback {byte_fallback}"
                        );
                        let n = unigram
                            .count(text, None)
                            .unwrap_or_else(|| panic!("{what}: not counted"));
                        assert_eq!(n, expected, "{what} ({vocab})");
                        fast += 1;
                    }
                }
            }
        }
        assert!(fast > 400);
    }

    #[test]
    fn counts_text_the_normalizer_replaces() {
        let (_, mut config) = tokenizer(TIES, false, "always", true);
        config["normalizer"] = serde_json::json!({"type": "Sequence", "normalizers": [{"type": "NFKC"},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]});
        let tok: Tokenizer = config.to_string().parse().unwrap();
        let unigram = Unigram::of(&tok, &config).unwrap();
        let normalizer = tok.get_normalizer();
        // Full-width letters and punctuation, an ideographic space next to spaces, a ligature, line breaks (kept).
        for text in [
            "ａｂ",
            "a，b",
            "ａ\u{3000} b",
            "\u{3000}ab",
            "ab\u{3000}",
            "\u{3000}",
            "ﬁ\n\nab",
            "ab\n",
        ] {
            let expected = tok.encode_fast(text, false).unwrap().len();
            assert_eq!(unigram.count(text, normalizer), Some(expected), "{text:?}");
        }
        // What NFKC could join across characters is left to the tokenizer.
        for text in ["\u{3131}\u{314F}", "a\u{309B}", "e\u{301}"] {
            assert_eq!(unigram.count(text, normalizer), None, "{text:?}");
        }
    }

    #[test]
    fn only_metaspace_unigrams() {
        let (tok, mut config) = tokenizer(TIES, false, "always", true);
        assert!(Unigram::of(&tok, &config).is_some());
        config["normalizer"] = serde_json::json!({"type": "Lowercase"});
        let tok: Tokenizer = config.to_string().parse().unwrap();
        assert!(Unigram::of(&tok, &config).is_none());
        config["normalizer"] = Value::Null;
        config["pre_tokenizer"] = serde_json::json!({"type": "Whitespace"});
        let tok: Tokenizer = config.to_string().parse().unwrap();
        assert!(Unigram::of(&tok, &config).is_none());
    }

    #[test]
    fn clusters_of_their_own() {
        for c in ['x', '中', '\u{AC00}', '\u{1F642}', '\n', '\t', '\u{a0}'] {
            assert!(alone(c), "{c:?}");
            assert!(matches!(fate(None, true, c), Some(None)), "{c:?}");
        }
        for c in [
            '\u{301}',
            '\u{200D}',
            '\u{1F1EB}',
            '\u{1100}',
            '\u{1161}',
            '\u{903}',
            '\r',
        ] {
            assert!(!alone(c), "{c:?}");
            assert!(fate(None, true, c).is_none(), "{c:?}");
        }
        assert!(matches!(fate(None, false, '\u{301}'), Some(None)));
        assert!(fate(None, false, MARK).is_none());
    }

    #[test]
    fn what_nfkc_makes_of_a_character() {
        let nfkc: NormalizerWrapper = tokenizers::normalizers::unicode::NFKC.into();
        let nfkc = Some(&nfkc);
        assert!(matches!(fate(nfkc, true, 'a'), Some(None)));
        assert_eq!(fate(nfkc, true, '\u{FF0C}'), Some(Some(",".to_owned())));
        assert_eq!(fate(nfkc, true, '\u{3000}'), Some(Some(" ".to_owned())));
        assert_eq!(fate(nfkc, true, '\u{FB01}'), Some(Some("fi".to_owned())));
        // A compatibility jamo becomes a conjoining one, which NFKC composes with the vowel after it.
        assert!(fate(nfkc, true, '\u{3131}').is_none());
        // A spacing voiced mark becomes a space and a combining one.
        assert!(fate(nfkc, true, '\u{309B}').is_none());
    }
}
