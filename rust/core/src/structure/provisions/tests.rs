//! Tests of the provision scan: markers, depths, titles, and the numbering rules on real shapes of text.

use super::*;

/// The provisions of `text` after checking the invariants every provision keeps.
fn checked(text: &str) -> Vec<Provision> {
    let found = provisions(text);
    let mut last = None;
    for p in &found {
        assert!(text.is_char_boundary(p.start), "{p:?}");
        assert!(
            p.start == 0 || text.as_bytes()[p.start - 1] == b'\n',
            "{p:?}"
        );
        assert!(last.is_none_or(|l| l < p.start), "{p:?} out of order");
        last = Some(p.start);
        assert!(p.marker >= p.start && p.title_end > p.marker, "{p:?}");
        let line_end =
            memchr(b'\n', &text.as_bytes()[p.start..]).map_or(text.len(), |o| p.start + o);
        assert!(p.title_end <= line_end, "{p:?}");
        assert_eq!(
            p.title,
            text[p.marker..p.title_end].replace("**", "").trim(),
            "{p:?}"
        );
        assert!((1..=6).contains(&p.depth), "{p:?}");
    }
    found
}

fn outline(text: &str) -> Vec<(u8, String)> {
    checked(text)
        .into_iter()
        .map(|p| (p.depth, p.title))
        .collect()
}

fn expect(text: &str, want: &[(u8, &str)]) {
    let want: Vec<(u8, String)> = want.iter().map(|&(d, t)| (d, t.to_string())).collect();
    assert_eq!(outline(text), want);
}

#[test]
fn chinese_law() {
    let text = "\
中华人民共和国环境保护法

第一章　总则
第一条　为保护和改善环境，防治污染和其他公害，制定本法。
第二条 本法所称环境，是指影响人类生存和发展的各种天然的和经过人工改造的自然因素的总体，包括：
（一）大气、水、海洋；
（二）土地、矿藏、森林。
第二章 监督管理
第一节 一般规定
第三条国家鼓励环境保护产业发展。
第四条 环境保护坚持保护优先、预防为主的原则。
一、总体要求
(一)目标
";
    expect(
        text,
        &[
            (1, "第一章　总则"),
            (3, "第一条"),
            (3, "第二条"),
            (4, "（一）"),
            (4, "（二）"),
            (1, "第二章 监督管理"),
            (2, "第一节 一般规定"),
            (3, "第三条"),
            (3, "第四条"),
            (4, "一、总体要求"),
            (5, "(一)目标"),
        ],
    );
    let found = checked(text);
    assert_eq!(found[0].start, text.find("第一章").unwrap());
    assert_eq!(found[0].marker, found[0].start);
}

#[test]
fn chinese_ranks_and_article_suffix() {
    let text = "第一编 总则\n第一分编 通则\n第一章 一般规定\n第一节 定义\n第1条 合同。\n第二百八十七条之一 补充规定\n";
    expect(
        text,
        &[
            (1, "第一编 总则"),
            (2, "第一分编 通则"),
            (3, "第一章 一般规定"),
            (4, "第一节 定义"),
            (5, "第1条"),
            (5, "第二百八十七条之一 补充规定"),
        ],
    );
    // A law with only 章 and 条: depths 1 and 2.
    expect(
        "第一章 总则\n第一条 内容。\n",
        &[(1, "第一章 总则"), (2, "第一条")],
    );
}

#[test]
fn chinese_enumerations_nest_by_first_appearance() {
    let text = "一、总体要求\n（一）指导思想\n1、坚持原则\n（1）细则\n2、加强管理\n二、主要任务\n";
    expect(
        text,
        &[
            (1, "一、总体要求"),
            (2, "（一）指导思想"),
            (3, "1、坚持原则"),
            (4, "（1）细则"),
            (3, "2、加强管理"),
            (1, "二、主要任务"),
        ],
    );
}

#[test]
fn english_contract() {
    let text = "\
ARTICLE I DEFINITIONS
Section 1.01 Defined Terms. As used in this Agreement, the following terms have the meanings set out below:
(a) \"Affiliate\" means any person that controls, is controlled by or is under common control with a party, where
(i) control means the power to direct the management of that person; and
(ii) a person is deemed to control its subsidiaries.
(b) \"Business Day\" means a day on which banks in New York are open.
ARTICLE II
PURCHASE AND SALE
Section 2.01. Sale
(a) The Seller shall sell the Shares.
";
    expect(
        text,
        &[
            (1, "ARTICLE I DEFINITIONS"),
            (2, "Section 1.01"),
            (3, "(a)"),
            (4, "(i)"),
            (4, "(ii)"),
            (3, "(b)"),
            (1, "ARTICLE II"),
            (2, "Section 2.01. Sale"),
            (3, "(a)"),
        ],
    );
}

#[test]
fn letter_i_or_roman_numeral() {
    // After (h), "(i)" is the next letter...
    expect(
        "(g) one;\n(h) two;\n(i) three;\n(j) four.\n",
        &[(1, "(g)"), (1, "(h)"), (1, "(i)"), (1, "(j)")],
    );
    // ...unless "(ii)" follows it.
    expect(
        "(h) the following:\n(i) one;\n(ii) two;\n(j) four.\n",
        &[(1, "(h)"), (2, "(i)"), (2, "(ii)"), (1, "(j)")],
    );
    // Without a preceding (h) it is a numeral; so is (v) after (iv) even with a (u) above it (and (w) follows
    // (u): the letter v was read as a numeral).
    expect("(i) one;\n(ii) two.\n", &[(1, "(i)"), (1, "(ii)")]);
    expect(
        "(t) w;\n(u) x:\n(iv) four;\n(v) five;\n(w) y.\n",
        &[(1, "(t)"), (1, "(u)"), (2, "(iv)"), (2, "(v)"), (1, "(w)")],
    );
    // A keyword forgets the letters before it.
    expect(
        "Article 1\n(h) x.\nArticle 2\n(i) y.\n",
        &[(1, "Article 1"), (2, "(h)"), (1, "Article 2"), (2, "(i)")],
    );
    // The half-bracket forms are their own styles, with the same rule.
    expect(
        "a) one\nb) two\n   i) sub\n   ii) sub\nc) three\n",
        &[
            (1, "a) one"),
            (1, "b) two"),
            (2, "i) sub"),
            (2, "ii) sub"),
            (1, "c) three"),
        ],
    );
}

#[test]
fn decimal_numbering() {
    let text = "1. Definitions\n1.1 The Supplier shall deliver the goods within 30 days.\n1.1.1 Goods\n1.2. Services\n2. Payment\n";
    expect(
        text,
        &[
            (1, "1. Definitions"),
            (2, "1.1"),
            (3, "1.1.1 Goods"),
            (2, "1.2. Services"),
            (1, "2. Payment"),
        ],
    );
    // Components order the decimals among themselves, wherever they first appear.
    expect(
        "1.1 Scope\n(a) first\n1.2 Terms\n2. Price\n(a) second\n2.1 Tax\n",
        &[
            (1, "1.1 Scope"),
            (2, "(a) first"),
            (1, "1.2 Terms"),
            (1, "2. Price"),
            (2, "(a) second"),
            (2, "2.1 Tax"),
        ],
    );
    // Below a keyword, and full-width / CJK forms.
    expect(
        "Article 5\n5.1 Scope\n第一条 总则\n1．概述\n2.定义\n",
        &[
            (1, "Article 5"),
            (2, "5.1 Scope"),
            (1, "第一条 总则"),
            (2, "1．概述"),
            (2, "2.定义"),
        ],
    );
}

#[test]
fn us_code_sections() {
    let text = "§ 101. Definitions\nExcept as otherwise provided in this title, the following terms apply.\n§102 Subject matter\n§§ 103-104\n§ 106 of title 17 is cited here.\n";
    expect(
        text,
        &[
            (1, "§ 101. Definitions"),
            (1, "§102 Subject matter"),
            (1, "§§ 103-104"),
        ],
    );
    expect("§ 101.\n", &[(1, "§ 101")]);
}

#[test]
fn english_keywords() {
    let text = "PART II\nCHAPTER 3: Remedies\nArticle 5. Definitions\nArticle 6.\nArt. 7 Scope\nSection 2(a). Notices\nSec. 3\nSchedule A\nArticle 8 The Supplier shall deliver the goods on time, in full and to the agreed place.\n";
    expect(
        text,
        &[
            (1, "PART II"),
            (2, "CHAPTER 3: Remedies"),
            (3, "Article 5. Definitions"),
            (3, "Article 6"),
            (3, "Art. 7 Scope"),
            (4, "Section 2(a). Notices"),
            (4, "Sec. 3"),
            (1, "Schedule A"),
            (3, "Article 8"),
        ],
    );
}

#[test]
fn titles_are_short_headings_only() {
    expect("第五条 国家鼓励环境保护产业发展……。\n", &[(1, "第五条")]);
    expect("第五条 国家鼓励发展，\n", &[(1, "第五条")]);
    expect("1.1 The Supplier shall deliver:\n", &[(1, "1.1")]);
    let long = format!("Article 1 The {}\n", "a".repeat(37));
    expect(&long, &[(1, "Article 1")]);
    let fits = format!("Article 1 {}\n", "A".repeat(40));
    expect(&fits, &[(1, fits.trim_end())]);
}

#[test]
fn markdown_markup() {
    let text = "## 第一章 总则 ##\n**第一条** 为了规范合同，制定本法。\n### **Article 5.** Definitions\n- (a) **Term**\n  * (b) next\n#### 1.1 Scope\n";
    let found = checked(text);
    let titles: Vec<&str> = found.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "第一章 总则",
            "第一条",
            "Article 5. Definitions",
            "(a) Term",
            "(b) next",
            "1.1 Scope"
        ]
    );
    assert_eq!(&text[found[0].marker..found[0].title_end], "第一章 总则");
    assert_eq!(&text[found[1].marker..found[1].title_end], "第一条");
    assert_eq!(found[3].start, text.find("- (a)").unwrap());
    assert_eq!(found[3].marker, found[3].start + 2);
}

#[test]
fn prose_is_not_a_provision() {
    let text = "\
2019 年，公司营业收入增长了三成。
2019年公司营业收入增长。
3.5 million people live in the region.
2.5 万元的补贴已经发放。
2023.10.1 release notes
10.1.2023 is a date
12 months later.
第三方机构负责评估。
第一次会议于五月召开。
第三条规定的情形除外。
第三条、第四条的规定同样适用。
e.g. the following
i.e. that one
(e.g. a note)
(s)he said so.
(2019) was a good year.
Article 5 of the Convention applies.
Section 3 shall survive termination.
Part of the problem is scale.
Chapter 11 bankruptcy is common.
Articles 5 and 6 apply.
#1. not a heading
####### 1. too many hashes
1.5kg of flour
1．5公斤面粉
";
    assert_eq!(checked(text), vec![]);
}

#[test]
fn fenced_code_is_skipped() {
    let text = "1. Intro\n```rust\n1. not this\n第一条 也不是\n```\n2. Next\n~~~~\n(a) no\n~~~\n(b) still inside\n~~~~\n3. Last\n```\n第二条 unclosed fence runs to the end\n";
    expect(text, &[(1, "1. Intro"), (1, "2. Next"), (1, "3. Last")]);
    // Inline backticks are no fence.
    expect("```x``` here\n1. Item\n", &[(1, "1. Item")]);
}

#[test]
fn crlf_line_endings() {
    let text = "第一章 总则\r\n第一条 为了规范。\r\n（一）一项\r\n\r\n1. Scope\r\n";
    let found = checked(text);
    let titles: Vec<&str> = found.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(titles, ["第一章 总则", "第一条", "（一）一项", "1. Scope"]);
    assert_eq!(found[1].start, text.find("第一条").unwrap());
    assert_eq!(found[3].title_end, text.len() - 2);
}

#[test]
fn empty_and_blank_text() {
    assert_eq!(checked(""), vec![]);
    assert_eq!(checked("\n\r\n  \n"), vec![]);
    assert_eq!(checked("第"), vec![]);
    assert_eq!(checked("("), vec![]);
    assert_eq!(checked("§"), vec![]);
    assert_eq!(checked("Article 5 **"), provisions("Article 5 **"));
    expect("\u{feff}第一条 总则", &[(1, "第一条 总则")]);
}

#[test]
fn depth_is_capped() {
    let text =
        "1. A\n1.1 B\n1.1.1 C\n1.1.1.1 D\n1.1.1.1.1 E\n1.1.1.1.1.1 F\n(a) G\n1.1.1.1.1.1.1 H\n";
    expect(
        text,
        &[
            (1, "1. A"),
            (2, "1.1 B"),
            (3, "1.1.1 C"),
            (4, "1.1.1.1 D"),
            (5, "1.1.1.1.1 E"),
            (6, "1.1.1.1.1.1 F"),
            (6, "(a) G"),
        ],
    );
}

#[test]
fn fragments_in_any_order_keep_invariants() {
    // Lines glued from marker pieces by a fixed pseudo-random sequence: no panic, every invariant holds.
    const PIECES: [&str; 30] = [
        "第", "一", "十", "章", "条", "之", "分编", "（", "）", "(", ")", "、", "．", "1", "9",
        ".", "i", "v", "h", "A", "§", "Article ", "Sec. ", "**", "## ", "`", "\u{3000}", " ", "\r",
        "é",
    ];
    let mut state = 0x2545_f491_u32;
    let mut text = String::new();
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        text.push_str(PIECES[state as usize % PIECES.len()]);
        if state.is_multiple_of(7) {
            text.push('\n');
        }
    }
    let found = checked(&text);
    assert!(!found.is_empty());
}

#[test]
fn roman_numerals() {
    assert_eq!(roman_value(b"iv"), Some(4));
    assert_eq!(roman_value(b"XII"), Some(12));
    assert_eq!(roman_value(b"mcmxcix"), Some(1999));
    assert_eq!(roman_value(b"iiii"), None);
    assert_eq!(roman_value(b"ic"), None);
    assert_eq!(roman_value(b"Iv"), None);
    assert_eq!(roman_value(b"ab"), None);
}

#[test]
fn many_lines_run() {
    let mut text = String::new();
    for k in 0..50_000 {
        text.push_str(&format!(
            "第{k}条 内容。\n(a) item\n(b) item\n{}.1 Heading\nplain prose line\n",
            k % 999 + 1
        ));
    }
    let found = checked(&text);
    assert_eq!(found.len(), 200_000);
    // One very long line of nested brackets and digits.
    let long = "((((1.1.1.".repeat(20_000);
    assert_eq!(checked(&long), vec![]);
}

// The numbering rules, on the shapes of real licences (GPL-3, GPL-2, MPL-1.1) and their Chinese counterparts.

#[test]
fn inline_enumeration_is_no_provision() {
    // "(1) ... and (2) ..." run into one sentence, as in GPL-3's preamble: nothing below becomes its child.
    let text = "  Developers protect your rights with two steps:
(1) assert copyright on the software, and (2) offer you this License
giving you legal permission to copy it.

                       TERMS AND CONDITIONS

  0. Definitions

  \"This License\" refers to version 3.

  1. Source Code
";
    expect(text, &[(1, "0. Definitions"), (1, "1. Source Code")]);
    expect(
        "（一）加强领导；（二）完善制度。\n一、坚持原则，二、加强管理。\n",
        &[],
    );
    expect("a) one thing, b) another.\n", &[]);
    // The successor after any other word is a cross-reference, not a run of items.
    expect(
        "(a) subject to paragraph (b), the Seller delivers.\n(b) The Buyer pays.\n",
        &[(1, "(a)"), (1, "(b)")],
    );
}

#[test]
fn soft_wrapped_number_is_no_provision() {
    // GPL-3 section 5: "section\n7.  This requirement" is a number a wrap put at a line start.
    let text = "  5. Conveying Modified Source Versions

  You may convey a work based on the Program, provided that you also meet
all of these conditions:

    a) The work must carry prominent notices stating that you modified
    it, and giving a relevant date.

    b) The work must carry prominent notices stating that it is
    released under this License and any conditions added under section
    7.  This requirement modifies the requirement in section 4 to
    \"keep intact all notices\".

    c) You must license the entire work, as a whole, under this License.

  6. Conveying Non-Source Forms
";
    expect(
        text,
        &[
            (1, "5. Conveying Modified Source Versions"),
            (2, "a)"),
            (2, "b)"),
            (2, "c)"),
            (1, "6. Conveying Non-Source Forms"),
        ],
    );
    // A first number after a full line that ends mid-sentence, which no second item confirms.
    expect(
        "The licensee may distribute the covered work under the terms of version\n1. Other versions do not apply.\n",
        &[],
    );
    // A keyword reference wrapped to a line start (MPL-1.1 section 3.1).
    expect(
        "     The Modifications are governed by the terms of this License, including\n     Section 2.2. The Source Code version may be distributed.\n",
        &[],
    );
    // GPL-2's preamble: "(2)" opens no list after "... and".
    expect(
        "  We protect your rights with two steps: (1) copyright the software, and\n(2) offer you this license which gives you legal permission.\n",
        &[],
    );
}

#[test]
fn list_after_a_wrapped_line_stays() {
    // A list a sentence leads into without a colon: the second item confirms the first.
    expect(
        "The licensee shall, before it distributes the work, do each of these things\n(a) keep the notices intact;\n(b) add a notice of its own.\n",
        &[(1, "(a)"), (1, "(b)")],
    );
    // An item after "; and" continues its list.
    expect(
        "(a) the first condition, which runs over a full line of text; and\n(b) the second.\n",
        &[(1, "(a)"), (1, "(b)")],
    );
    // A short line ending in a word is a heading or a paragraph's last line, never a wrap.
    expect("Summary\n1. Only item\n", &[(1, "1. Only item")]);
    expect("plain prose line\n第二条 内容。\n", &[(1, "第二条")]);
}

#[test]
fn numbering_jump_is_no_provision() {
    // MPL-1.1 2.2(d): a list that would open at "3)" is an inline item a wrap put at a line start.
    let text = "(a) Notwithstanding the above, no patent license is granted: 1) for any code
    deleted from the Contributor Version; 2)  separate from the Contributor Version;
    3)  for infringements caused by third party modifications; or 4) under Patent Claims.
";
    expect(text, &[(1, "(a)")]);
    expect(
        "1. Scope\n2. Terms\n7. This line is a wrapped reference\n",
        &[(1, "1. Scope"), (1, "2. Terms")],
    );
    expect(
        "(a) one;\n(b) two;\n(d) four;\n(i) one;\n(ii) two;\n(iv) four.\n",
        &[(1, "(a)"), (1, "(b)"), (2, "(i)"), (2, "(ii)")],
    );
    expect(
        "一、总体要求\n（一）指导思想\n（三）基本原则\n二、主要任务\n四、保障措施\n",
        &[
            (1, "一、总体要求"),
            (2, "（一）指导思想"),
            (1, "二、主要任务"),
        ],
    );
}

#[test]
fn numbering_jump_kept_when_the_numbering_confirms_it() {
    // A gap the next item continues, an excerpt that starts late, a heading paragraph of its own.
    expect(
        "1. Scope\n2. Terms\n4. Price\n5. Tax\n",
        &[
            (1, "1. Scope"),
            (1, "2. Terms"),
            (1, "4. Price"),
            (1, "5. Tax"),
        ],
    );
    expect("(g) one;\n(h) two.\n", &[(1, "(g)"), (1, "(h)")]);
    expect(
        "1. Scope\n\nText.\n\n9. Annex\n\nText.\n",
        &[(1, "1. Scope"), (1, "9. Annex")],
    );
    // Items the scan does not take ("5.  `dpkg` ...") still count: "6." follows them.
    expect(
        "4. Scope\n5.  `dpkg` updates its data\n6. Next step\n",
        &[(1, "4. Scope"), (1, "6. Next step")],
    );
    // A decimal states its place: "2.3.2." follows "2.3.1." across a list that closed it.
    expect(
        "2.3. Examples\n\n2.3.1. Browse\n\n1. Start\n2. Stop\n\n2.3.2. Purge\n",
        &[
            (1, "2.3. Examples"),
            (2, "2.3.1. Browse"),
            (1, "1. Start"),
            (1, "2. Stop"),
            (2, "2.3.2. Purge"),
        ],
    );
    // A markdown heading is a heading by its markup.
    expect("## 4. One\n\n## 7. Two\n", &[(1, "4. One"), (1, "7. Two")]);
}

#[test]
fn numbering_restarts_under_a_new_parent() {
    expect(
        "Article 1\n1. A\n2. B\nArticle 2\n1. C\n2. D\n",
        &[
            (1, "Article 1"),
            (2, "1. A"),
            (2, "2. B"),
            (1, "Article 2"),
            (2, "1. C"),
            (2, "2. D"),
        ],
    );
    expect(
        "1. Intro\n   a) x\n   b) y\n2. Body\n   a) z\n   b) w\n",
        &[
            (1, "1. Intro"),
            (2, "a) x"),
            (2, "b) y"),
            (1, "2. Body"),
            (2, "a) z"),
            (2, "b) w"),
        ],
    );
    expect(
        "1. A\n2. B\n\nSome prose in between.\n\n1. C\n2. D\n",
        &[(1, "1. A"), (1, "2. B"), (1, "1. C"), (1, "2. D")],
    );
    expect(
        "一、总则\n（一）目标\n（二）原则\n二、任务\n（一）重点\n（二）难点\n",
        &[
            (1, "一、总则"),
            (2, "（一）目标"),
            (2, "（二）原则"),
            (1, "二、任务"),
            (2, "（一）重点"),
            (2, "（二）难点"),
        ],
    );
}

#[test]
fn preamble_enumeration_is_no_parent() {
    let text = "Developers protect your rights in two steps:
(1) they assert copyright on the software;
(2) they offer you this License.

The precise terms and conditions follow.

0. Definitions

Text of the definitions.

1. Source Code

  a) first item
";
    expect(
        text,
        &[
            (1, "(1)"),
            (1, "(2)"),
            (1, "0. Definitions"),
            (1, "1. Source Code"),
            (2, "a) first item"),
        ],
    );
    // A heading right under an item, no prose between, is its child.
    expect(
        "(a) the following:\n\n1. Apples\n2. Pears\n(b) more\n",
        &[
            (1, "(a)"),
            (2, "1. Apples"),
            (2, "2. Pears"),
            (1, "(b) more"),
        ],
    );
}

#[test]
fn huge_numbers_do_not_overflow() {
    // Six positional Chinese numerals are 999999, past u16: the value saturates, its successor too.
    let text = "九九九九九九、一\n九九九九九九、二\n（九九九九九九）三\n999. A\n(mmmcmxcix) x\n";
    let found = checked(text);
    assert!(found.len() <= 5);
}

#[test]
fn titles_in_title_case() {
    expect(
        "  5. Conveying Modified Source Versions.\n\n  You may convey a work.\n",
        &[(1, "5. Conveying Modified Source Versions.")],
    );
    expect(
        "4. Inability to Comply Due to Statute or Regulation\n---------------\n",
        &[(1, "4. Inability to Comply Due to Statute or Regulation")],
    );
    expect(
        "     2.1. The Initial Developer Grant.\n     Subject to third party claims, the Developer grants:\n",
        &[(1, "2.1. The Initial Developer Grant.")],
    );
    expect(
        "*  6. Disclaimer of Warranty                         *\n*  -------------------------                         *\n",
        &[(1, "6. Disclaimer of Warranty")],
    );
    // Sentences are no titles, nor is the first line of a wrapped sentence in capitals.
    expect("(a) The Seller shall sell the Shares.\n", &[(1, "(a)")]);
    expect(
        "1. IN NO EVENT UNLESS REQUIRED BY APPLICABLE LAW OR AGREED TO IN WRITING\nWILL ANY COPYRIGHT HOLDER BE LIABLE.\n",
        &[(1, "1.")],
    );
    expect(
        "1. Grant of Copyright License. Subject to the terms of this License.\n\n",
        &[(1, "1.")],
    );
}
