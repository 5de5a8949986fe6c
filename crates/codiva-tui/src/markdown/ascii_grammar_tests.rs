//! The ASCII copy of a grammar: syntect's layout mirrored byte for byte, each class cut to
//! exactly its ASCII members, every cut regex compiling wherever the original does and
//! matching ASCII text the same, and a whole parse unchanged.

use std::io::Read;

use syntect::parsing::{ParseState, Region, SyntaxSet};

use super::*;

fn set() -> SyntaxSet {
    two_face::syntax::extra_newlines()
}

fn cut(pattern: &str) -> Option<String> {
    ascii_only(pattern, &mut HashMap::new())
}

/// Every syntax's patterns, by syntax name.
fn patterns(set: &SyntaxSet) -> Vec<(String, Vec<String>)> {
    let bytes = bincode::serialize(set).unwrap();
    let dump: SetDump = bincode::deserialize(&bytes).unwrap();
    dump.syntaxes
        .iter()
        .map(|syntax| {
            let contexts: ContextsDump = syntect::dumps::from_reader(syntax.contexts).unwrap();
            let patterns = contexts
                .contexts
                .iter()
                .flat_map(|context| &context.patterns)
                .filter_map(|pattern| match pattern {
                    Pattern::Match(pattern) => Some(pattern.regex.regex_str().to_owned()),
                    Pattern::Include(_) => None,
                })
                .collect();
            (syntax.name.clone(), patterns)
        })
        .collect()
}

#[test]
fn the_dumps_mirror_syntects_layout() {
    let set = set();
    let bytes = bincode::serialize(&set).unwrap();
    let dump: SetDump = bincode::deserialize(&bytes).unwrap();
    assert!(
        bincode::serialize(&dump).unwrap() == bytes,
        "SetDump no longer mirrors syntect's SyntaxSet"
    );
    for syntax in &dump.syntaxes {
        let mut plain = Vec::new();
        flate2::read::ZlibDecoder::new(syntax.contexts)
            .read_to_end(&mut plain)
            .unwrap();
        let contexts: ContextsDump = bincode::deserialize(&plain).unwrap();
        assert!(
            bincode::serialize(&contexts).unwrap() == plain,
            "ContextsDump no longer mirrors syntect's contexts ({})",
            syntax.name
        );
    }
}

#[test]
fn classes_become_their_ascii_members() {
    assert_eq!(
        cut(r"[\p{L}_]\d+").as_deref(),
        Some(r"[[\x{41}-\x{5A}\x{61}-\x{7A}]_][\x{30}-\x{39}]+")
    );
    // Negated classes as the negation of the positive members (the same inside brackets).
    assert_eq!(
        cut(r"\S[^\W]").as_deref(),
        Some(r"[^\x{09}-\x{0D}\x{20}][^[^\x{30}-\x{39}\x{41}-\x{5A}\x{5F}\x{61}-\x{7A}]]")
    );
    assert_eq!(
        cut(r"\P{L}").as_deref(),
        Some(r"[^\x{41}-\x{5A}\x{61}-\x{7A}]")
    );
    // No ASCII members: never matches; negated, matches anything.
    assert_eq!(
        cut(r"\p{Lt}\P{Lt}").as_deref(),
        Some(r"[^\x{00}-\x{10FFFF}][\x{00}-\x{10FFFF}]")
    );
    // Escaped backslashes, other escapes, unknown classes: unchanged.
    assert_eq!(cut(r"\\w\\p{L}\b\h\x{41}\p{NoSuchClass}"), None);
    assert_eq!(
        cut(r"a\\\sb").as_deref(),
        Some(r"a\\[\x{09}-\x{0D}\x{20}]b")
    );
    // Case-insensitive anywhere: the whole pattern stays.
    assert_eq!(cut(r"(?i)\w+"), None);
    assert_eq!(cut(r"x(?xi:\w)"), None);
    assert_eq!(cut(r"(?-i)\w"), None);
    assert!(cut(r"(?x)\w # (?=i)").is_some());
}

/// ASCII lines that exercise identifiers, numbers, spaces, controls and every punctuation.
const PROBES: &[&str] = &[
    "fn main() -> Result<(), Box<dyn Error>> {\n",
    "    let x_1: Vec<u8> = vec![1, 2.5e3, 0xFF, 'c', b'\\n'];\n",
    "const f = async (a, b) => { return a?.b ?? `${c}`; }; // done\n",
    "def __init__(self, *args, **kw) -> None:  # note\n",
    "SELECT id, name FROM users WHERE x = 'y' AND n >= 10;\n",
    "#include <stdio.h>\n",
    "int main(void) { printf(\"%d\\n\", 42); return 0; }\n",
    "public static async Task<int> Main(string[] args) => 0;\n",
    "echo \"$HOME\" | grep -v foo > /dev/null 2>&1 && exit 1\n",
    "key: [value, 'q', \"d\"] # yaml\n",
    "[section.sub]\n",
    "name = \"x\" # toml\n",
    "@@ -1,3 +1,4 @@ fn context\n",
    "+added line\n",
    "# Heading with *emph* and `code` and [link](http://x.y/z)\n",
    "\tTabbed\x0bvertical\x0cform\rreturn \n",
    "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./\n",
    "ABC_def ghi123 _x __init__ CamelCase SCREAMING_CASE x9\n",
    "   \n",
    "\n",
];

/// For every syntax in the set (not only the ones people paste: any fence may name one):
/// a regex whose original compiles compiles cut too, and on ASCII text it finds the same
/// matches with the same groups.
#[test]
fn every_cut_regex_compiles_and_matches_ascii_text_as_the_original() {
    let set = set();
    let mut classes = HashMap::new();
    let mut seen = std::collections::HashSet::new();
    let mut compared = 0;
    for (syntax, patterns) in patterns(&set) {
        for original in patterns {
            if !seen.insert(original.clone()) {
                continue;
            }
            let Some(ascii) = ascii_only(&original, &mut classes) else {
                continue;
            };
            if Regex::try_compile(&original).is_some() {
                continue;
            }
            if let Some(err) = Regex::try_compile(&ascii) {
                panic!("{syntax}: {original:?} cut to {ascii:?} fails: {err}");
            }
            let (original, ascii) = (Regex::new(original), Regex::new(ascii));
            for probe in PROBES {
                let starts = [0, probe.len() / 2];
                for begin in starts.into_iter().filter(|at| probe.is_char_boundary(*at)) {
                    let (mut want, mut got) = (Region::new(), Region::new());
                    let found = original.search(probe, begin, probe.len(), Some(&mut want));
                    assert_eq!(
                        ascii.search(probe, begin, probe.len(), Some(&mut got)),
                        found,
                        "{syntax}: {:?} on {probe:?} from {begin}",
                        original.regex_str()
                    );
                    if found {
                        for group in 0..32 {
                            assert_eq!(
                                got.pos(group),
                                want.pos(group),
                                "{syntax}: {:?} on {probe:?}",
                                original.regex_str()
                            );
                        }
                    }
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 10_000, "only {compared} comparisons");
}

/// Code in each language people paste, parsed with the original set only and with the ASCII
/// copy for its ASCII lines: the same scope operations, line by line (a Japanese comment in
/// the middle switches sets and back).
#[test]
fn a_parse_switching_sets_by_line_is_the_parse_of_the_original() {
    let set = set();
    let samples: &[(&str, &str)] = &[
        (
            "rs",
            "/// Docs\n#[derive(Debug)]\npub struct S<'a> { x: &'a str }\n// 日本語のコメント\nfn f(v: Vec<u8>) -> usize { v.iter().map(|b| *b as usize).sum() }\nlet s = r#\"raw\"#; 0x1F_u8\n",
        ),
        (
            "ts",
            "import { a } from './a';\ninterface I<T> { x?: T }\n// 説明\nexport const f = async <T,>(v: T): Promise<T> => { return v; };\n",
        ),
        (
            "js",
            "class A extends B { #p = 1; get x() { return `t${this.#p}`; } }\n/* コメント */ const re = /a+b/g;\n",
        ),
        (
            "py",
            "@decorator\nclass A(B):\n    \"\"\"文書\"\"\"\n    def f(self, x: int = 0) -> str:\n        return f\"{x!r}\"\n",
        ),
        (
            "go",
            "package main\nimport \"fmt\"\n// 説明\nfunc main() { ch := make(chan int); go func() { ch <- 1 }(); fmt.Println(<-ch) }\n",
        ),
        (
            "cpp",
            "#include <vector>\ntemplate <typename T> class V : public std::vector<T> {};\n// 日本\nint main() { auto x = 1'000; return x; }\n",
        ),
        (
            "c",
            "#define N 10\nstatic int f(const char *s) { return s[0]; } // ノート\n",
        ),
        (
            "cs",
            "using System;\nnamespace N { public record R(int X); class A { static void Main() => Console.WriteLine($\"{1}日\"); } }\n",
        ),
        (
            "sh",
            "#!/bin/sh\nfor f in *.rs; do\n  echo \"${f%.rs} 完了\"\ndone\ncat <<EOF\nx\nEOF\n",
        ),
        ("json", "{\"a\": [1, -2.5e3, true, null], \"b\": \"値\"}\n"),
        (
            "yaml",
            "key: value\nlist:\n  - 'a'\n  - 項目 # コメント\nn: 1.5\n",
        ),
        (
            "toml",
            "[package]\nname = \"codiva\" # 名前\nversion = \"0.1.0\"\n",
        ),
        ("diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-古い\n+new\n"),
        (
            "sql",
            "SELECT a.id, COUNT(*) FROM t AS a WHERE a.name LIKE '名%' GROUP BY 1;\n",
        ),
        (
            "md",
            "# Title\n\nSome *text*, `code` and [a link](http://x).\n\n- 項目\n\n```rust\nfn f() {}\n```\n",
        ),
    ];
    for (language, code) in samples {
        let syntax = set.find_syntax_by_token(language).unwrap();
        let index = set
            .syntaxes()
            .iter()
            .position(|s| std::ptr::eq(s, syntax))
            .unwrap();
        let ascii = ascii_set(&set, index).expect("an ASCII copy");
        let mut original = ParseState::new(syntax);
        let mut switching = ParseState::new(syntax);
        for line in code.split_inclusive('\n') {
            let by_line = if line.is_ascii() { &ascii } else { &set };
            assert_eq!(
                switching.parse_line(line, by_line).unwrap(),
                original.parse_line(line, &set).unwrap(),
                "{language}: {line:?}"
            );
        }
    }
}

/// For every syntax: its copy keeps the contexts of every syntax it reaches, transitively (a
/// parse never comes to a syntax without them), and ASCII lines parse with it.
#[test]
fn every_syntax_copy_keeps_what_it_reaches_and_parses_the_same() {
    let set = set();
    let mut made = 0;
    for (index, syntax) in set.syntaxes().iter().enumerate() {
        let Some(ascii) = ascii_set(&set, index) else {
            continue;
        };
        made += 1;
        assert_eq!(ascii.syntaxes().len(), set.syntaxes().len());
        let mut seen = std::collections::HashSet::new();
        let mut queue = vec![index];
        while let Some(at) = queue.pop() {
            if !seen.insert(at) {
                continue;
            }
            let bytes = bincode::serialize(&ascii.syntaxes()[at]).unwrap();
            let reached: SyntaxDump = bincode::deserialize(&bytes).unwrap();
            assert_eq!(reached.name, set.syntaxes()[at].name);
            assert!(
                !reached.contexts.is_empty(),
                "{}: reaches {} without its contexts",
                syntax.name,
                reached.name
            );
            let contexts: ContextsDump = syntect::dumps::from_reader(reached.contexts).unwrap();
            queue.extend(references(&contexts).unwrap());
        }
        // It parses (the same as the original: the tests above, per regex and per language).
        let mut copy = ParseState::new(&ascii.syntaxes()[index]);
        copy.parse_line(PROBES[0], &ascii).unwrap();
    }
    assert!(
        made * 10 >= set.syntaxes().len() * 9,
        "copies for only {made} syntaxes"
    );
}
