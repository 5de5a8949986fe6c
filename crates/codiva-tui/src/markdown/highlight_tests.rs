//! The highlighter's classes per language: every language people paste is known (by its
//! fence names), and the tokens that matter get their class.

use super::*;

fn syntaxes() -> &'static Syntaxes {
    static SYNTAXES: std::sync::OnceLock<Syntaxes> = std::sync::OnceLock::new();
    SYNTAXES.get_or_init(Syntaxes::load)
}

/// The classes of `lines` as the highlighter thread gets them (ASCII lines parsed with the
/// grammar's ASCII copy).
fn classes(lang: &str, lines: &[&str]) -> Vec<(String, Class)> {
    let syntaxes = &mut Syntaxes::load();
    let mut highlighter = Highlighter::new(lang, syntaxes);
    syntaxes.prepare(&highlighter);
    lines
        .iter()
        .flat_map(|line| {
            let runs = highlighter
                .classes(line, syntaxes)
                .unwrap_or_else(|| vec![(0, offset(line.len()), Class::Plain)]);
            runs.into_iter()
                .map(|(start, end, class)| (line[start as usize..end as usize].to_owned(), class))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn of(runs: &[(String, Class)], class: Class) -> Vec<String> {
    runs.iter()
        .filter(|(_, c)| *c == class)
        .map(|(text, _)| text.trim().to_owned())
        .collect()
}

#[test]
fn every_language_people_paste_is_known_by_its_fence_names() {
    let fences = [
        "rust",
        "rs",
        "ts",
        "typescript",
        "tsx",
        "js",
        "javascript",
        "jsx",
        "mjs",
        "python",
        "py",
        "python3",
        "go",
        "golang",
        "c",
        "h",
        "cpp",
        "c++",
        "hpp",
        "cs",
        "csharp",
        "c#",
        "sh",
        "bash",
        "shell",
        "zsh",
        "console",
        "json",
        "jsonc",
        "yaml",
        "yml",
        "toml",
        "diff",
        "patch",
        "sql",
        "md",
        "markdown",
        "rust,ignore",
        "{.python}",
    ];
    for fence in fences {
        assert!(
            syntaxes().syntax(fence).is_some(),
            "no syntax for ```{fence}"
        );
    }
    assert!(syntaxes().syntax("").is_none());
    assert!(syntaxes().syntax("brainfuck-but-not-really").is_none());
}

#[test]
fn rust() {
    let runs = classes(
        "rust",
        &[
            "fn main() -> u32 { // note",
            "    let s = \"a \\\" b\"; 0x1F + 1_000 /* multi",
            "still comment */ return 2;",
        ],
    );
    assert!(of(&runs, Class::Keyword).contains(&"fn".to_owned()));
    assert!(of(&runs, Class::Keyword).contains(&"let".to_owned()));
    assert!(of(&runs, Class::Keyword).contains(&"return".to_owned()));
    assert_eq!(of(&runs, Class::String), ["\"a \\\" b\""]);
    assert_eq!(
        of(&runs, Class::Comment),
        ["// note", "/* multi", "still comment */"]
    );
    assert!(of(&runs, Class::Number).contains(&"0x1F".to_owned()));
    assert_eq!(of(&runs, Class::Function), ["main"]);
}

#[test]
fn python_long_string_spans_lines() {
    let runs = classes("py", &["x = \"\"\"doc", "more\"\"\" # c", "def f(): pass"]);
    assert_eq!(of(&runs, Class::String), ["\"\"\"doc", "more\"\"\""]);
    assert_eq!(of(&runs, Class::Comment), ["# c"]);
    assert!(of(&runs, Class::Keyword).contains(&"def".to_owned()));
}

#[test]
fn typescript_toml_json_and_diff() {
    let runs = classes("ts", &["const n: number = 42; // x"]);
    assert!(of(&runs, Class::Keyword).contains(&"const".to_owned()));
    assert!(of(&runs, Class::Number).contains(&"42".to_owned()));
    assert_eq!(of(&runs, Class::Comment), ["// x"]);

    let runs = classes("toml", &["[package]", "name = \"codiva\" # the name"]);
    assert!(of(&runs, Class::String).contains(&"\"codiva\"".to_owned()));
    assert_eq!(of(&runs, Class::Comment), ["# the name"]);

    let runs = classes("json", &["{\"a\": [1, true, null]}"]);
    assert!(of(&runs, Class::String).contains(&"\"a\"".to_owned()));
    assert!(of(&runs, Class::Number).contains(&"1".to_owned()));

    let runs = classes("diff", &["@@ -1,2 +1,2 @@", "-old", "+new", " same"]);
    assert_eq!(of(&runs, Class::Removed), ["-old"]);
    assert_eq!(of(&runs, Class::Added), ["+new"]);
}

#[test]
fn shell_hash_inside_a_word_is_no_comment() {
    let runs = classes("bash", &["echo a#b # real"]);
    assert_eq!(of(&runs, Class::Comment), ["# real"]);
}

#[test]
fn unknown_language_is_plain() {
    let runs = classes("brainfuck-but-not-really", &["fn 1 \"x\""]);
    assert_eq!(runs, [("fn 1 \"x\"".to_owned(), Class::Plain)]);
}
