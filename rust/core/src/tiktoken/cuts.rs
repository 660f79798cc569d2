//! Long pieces of letters other than ASCII counted in short parts that repeat.
//!
//! In Chinese and Japanese a piece of the pre-tokenizer is a whole clause between punctuation, 30 to 250 bytes, and
//! nearly always new to a memo: it is merged byte by byte. But where no token of the vocabulary spans a position
//! `p` of the piece (no token is `piece[a..b]` with `a < p < b`), the piece's encoding ends a token at `p`, since
//! each of its tokens is in the vocabulary. By fact 1 of the `long` module, the piece's count is then the counts of
//! the text on each side merged alone; and a position that no token spans in the piece spans none in a side, so
//! the piece counts as the sum of its parts cut at every such position. Under cl100k_base, nine char boundaries in
//! ten of a Chinese or Japanese clause are such positions: the parts are a character or two, the same thousand or
//! two over a whole text, and a memo counts each once.
//!
//! The positions spanned are found by an Aho-Corasick automaton (daachorse: a double array, for each end the longest
//! token that ends there) of the tokens that can span a char boundary next to a character other than ASCII: tokens
//! of two bytes or more with a byte other than ASCII and a byte past the first where a character can start. Only
//! such boundaries are cut (a token over one holds the last byte of the character before and the first byte of the
//! one after, one of which is not ASCII).

use daachorse::DoubleArrayAhoCorasick;

use super::unicode::Classes;
use super::{pieces, Encoding};

/// Pieces of the pre-tokenizer from this many bytes on (with a byte other than ASCII) are cut: a shorter one merges
/// in about the time its parts take to be found and looked up.
const CUT_FROM: usize = 12;

/// The tokens that can span a char boundary next to a character other than ASCII, as an automaton.
pub(super) struct Spanning(DoubleArrayAhoCorasick<u32>);

impl Spanning {
    /// The automaton of those of `tokens`.
    pub(super) fn new(tokens: impl Iterator<Item = Vec<u8>>) -> Self {
        let spanning = tokens.filter(|t| {
            t.len() >= 2 && !t.is_ascii() && t[1..].iter().any(|&b| !is_continuation(b))
        });
        Self(
            DoubleArrayAhoCorasick::new(spanning).expect("distinct tokens, fewer than 2^32 states"),
        )
    }
}

#[inline]
fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

impl Encoding {
    /// Whether [`Encoding::count_parts`] may cut a piece of `text`: it is long enough and not all ASCII.
    pub(crate) fn cuts(text: &str) -> bool {
        text.len() >= CUT_FROM && !text.is_ascii()
    }

    /// The number of tokens of `text` (what [`Encoding::count`] gives), its long pieces of letters other than ASCII
    /// cut where no token spans them (see the module docs). `part` counts each part that the pre-tokenizer keeps
    /// whole, a run of letters (see [`pieces::Pattern::keeps_whole`]), and must give what [`Encoding::count`] gives
    /// for it (a memo of counts of texts, say); the other parts are merged here.
    pub(crate) fn count_parts(&self, text: &str, mut part: impl FnMut(&str) -> usize) -> usize {
        let mut total = 0;
        pieces::for_each_piece(self.pattern, text, |piece| {
            total += if Self::cuts(piece) {
                self.count_cut(piece, &mut part)
            } else {
                self.piece_count(piece.as_bytes())
            };
        });
        total
    }

    /// The count of one piece of the pre-tokenizer, cut where no token spans it.
    fn count_cut(&self, piece: &str, part: &mut impl FnMut(&str) -> usize) -> usize {
        let b = piece.as_bytes();
        let n = b.len();
        if n <= self.longest && self.rank(b) != tiktoken_rs::Rank::MAX {
            return 1;
        }
        // `reach[a]`: the end of the longest token found that starts at `a`, 0 if none.
        let mut stack = [0u32; 256];
        let mut heap = Vec::new();
        let reach: &mut [u32] = if n <= stack.len() {
            &mut stack[..n]
        } else {
            heap.resize(n, 0);
            &mut heap
        };
        let spanning = &self.spanning.get_or_init(|| Spanning::new(self.tokens())).0;
        for m in spanning.find_overlapping_no_suffix_iter(b) {
            let r = &mut reach[m.start()];
            *r = (*r).max(m.end() as u32);
        }
        let classes = Classes::get();
        let count = |from: usize, to: usize, whole: bool, part: &mut dyn FnMut(&str) -> usize| {
            let sub = &piece[from..to];
            if to - from <= 3 && self.rank(sub.as_bytes()) != tiktoken_rs::Rank::MAX {
                1
            } else if whole {
                part(sub)
            } else {
                self.piece_count(sub.as_bytes())
            }
        };
        // `far`: the furthest end of a token found that starts before `p`; `whole`: the part from `from` is made of
        // characters the pre-tokenizer keeps whole.
        let (mut total, mut from, mut far, mut whole) = (0, 0, 0, true);
        let mut p = 0;
        for c in piece.chars() {
            let len = c.len_utf8();
            if p > 0 && far as usize <= p && (b[p] >= 0x80 || b[p - 1] >= 0x80) {
                total += count(from, p, whole, part);
                (from, whole) = (p, true);
            }
            far = reach[p..p + len].iter().fold(far, |f, &r| f.max(r));
            whole &= self.pattern.keeps_whole(classes.of(u32::from(c)));
            p += len;
        }
        total + count(from, n, whole, part)
    }

    /// The bytes of every ordinary token.
    fn tokens(&self) -> impl Iterator<Item = Vec<u8>> + '_ {
        let pairs = (self.pairs.iter().enumerate())
            .filter(|&(_, &r)| r != tiktoken_rs::Rank::MAX)
            .map(|(i, _)| (i as u16).to_le_bytes().to_vec());
        let tris = (self.tris.iter().enumerate())
            .filter(|&(_, &r)| r != tiktoken_rs::Rank::MAX)
            .map(|(i, _)| {
                vec![
                    0xE0 | (i >> 12) as u8,
                    0x80 | ((i >> 6) & 0x3F) as u8,
                    0x80 | (i & 0x3F) as u8,
                ]
            });
        let short = self.short.keys().map(|&word| {
            let len = (word >> 56) as usize;
            word.to_le_bytes()[..len].to_vec()
        });
        let long = self.long.keys().map(|k| k.to_vec());
        pairs.chain(tris).chain(short).chain(long)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiktoken::testdata;

    const NAMES: [&str; 3] = ["cl100k_base", "o200k_base", "r50k_base"];

    fn encoding(name: &str) -> &'static Encoding {
        Encoding::named(name).expect("built in")
    }

    fn reference(name: &str, text: &str) -> usize {
        super::super::registry::ENCODINGS
            .iter()
            .find(|e| e.name == name)
            .expect("built in")
            .ranks()
            .encode_ordinary(text)
            .len()
    }

    /// Counts `text` in parts, each part counted afresh the first time, kept in `memo`, and checked to be one piece
    /// of the pre-tokenizer; returns the count and the number of parts counted by `part`.
    fn count_parts(
        enc: &Encoding,
        text: &str,
        memo: &mut rustc_hash::FxHashMap<String, usize>,
    ) -> (usize, usize) {
        let mut parts = 0;
        let n = enc.count_parts(text, |part| {
            parts += 1;
            *memo.entry(part.to_owned()).or_insert_with(|| {
                let mut pieces = 0;
                pieces::for_each_piece(enc.pattern, part, |_| pieces += 1);
                assert_eq!(pieces, 1, "{part:?} is one piece");
                enc.count(part)
            })
        });
        (n, parts)
    }

    /// Words of scripts written without spaces, and what may lie around and inside their runs: spaces, CJK and
    /// ASCII punctuation, Latin letters of both cases (o200k cuts at a change of case), contractions, marks,
    /// digits.
    const WORDS: &[&str] = &[
        "中国",
        "我们",
        "人民",
        "经济",
        "发展",
        "社会",
        "政府",
        "北京",
        "大学",
        "研究",
        "时间",
        "问题",
        "工作",
        "没有",
        "可以",
        "因为",
        "所以",
        "这个",
        "什么",
        "已经",
        "的",
        "是",
        "了",
        "在",
        "和",
        "有",
        "人",
        "不",
        "です",
        "ます",
        "ありがとう",
        "こんにちは",
        "テスト",
        "コンピュータ",
        "プログラム",
        "データ",
        "しかし",
        "について",
        "ことが",
        "ている",
        "東京",
        "日本語",
        "の",
        "に",
        "は",
        "を",
        "が",
        "ー",
        "々",
        "ヶ",
        "한국어",
        "사람",
        "대한민국",
        "감사합니다",
        "그리고",
        "하지만",
        "이",
        "가",
        "ภาษาไทย",
        "สวัสดี",
        "ประเทศ",
        "ขอบคุณ",
        "ที่",
        "และ",
        "การ",
        "ก",
        "\u{e34}",
        "\u{3099}",
        "\u{301}",
        " ",
        "，",
        "。",
        "、",
        "「",
        "」",
        "！",
        ",",
        ".",
        "'s",
        "'",
        "A",
        "Tokyo",
        "é",
        "É",
        "1",
        "２",
        "\n",
        "🙂",
    ];

    fn generated(n: usize, max_words: usize) -> Vec<String> {
        testdata::generated_from(WORDS, n, max_words, 0x9E37_79B9_7F4A_7C15)
    }

    #[test]
    fn the_tokens_are_the_ranks() {
        for name in NAMES {
            let enc = encoding(name);
            let tokens: Vec<Vec<u8>> = enc.tokens().collect();
            assert!(tokens.iter().all(|t| enc.rank(t) != tiktoken_rs::Rank::MAX));
            let distinct: rustc_hash::FxHashSet<_> = tokens.iter().collect();
            assert_eq!(distinct.len(), tokens.len());
            // Every rank below the first special token decodes but a few gaps.
            assert!(tokens.len() > 50_000, "{name}: {}", tokens.len());
        }
    }

    #[test]
    fn counts_in_parts_equal_encode_ordinary_on_generated_texts() {
        for name in NAMES {
            let enc = encoding(name);
            let mut memo = rustc_hash::FxHashMap::default();
            let mut parts = 0;
            for text in generated(3000, 40) {
                let (n, p) = count_parts(enc, &text, &mut memo);
                parts += p;
                assert_eq!(n, reference(name, &text), "{name}: {text:?}");
            }
            assert!(parts > 10_000, "{name}: {parts} parts");
        }
    }

    #[test]
    fn counts_in_parts_equal_encode_ordinary_on_the_corpus() {
        for name in NAMES {
            let enc = encoding(name);
            let mut memo = rustc_hash::FxHashMap::default();
            for (file, text) in testdata::corpus(200_000) {
                let mut parts = 0;
                for line in text.split_inclusive(['\n', '。', '，', '、']) {
                    let (n, p) = count_parts(enc, line, &mut memo);
                    parts += p;
                    assert_eq!(n, reference(name, line), "{name} {file}: {line:?}");
                }
                if matches!(file, "zh.txt" | "ja.txt") {
                    assert!(parts > 1000, "{name} {file}: {parts} parts");
                }
            }
        }
    }
}
