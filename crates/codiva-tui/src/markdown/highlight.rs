//! A small built-in syntax highlighter for code blocks: keywords, strings, comments and numbers
//! for a handful of languages, line by line with state carried across lines (block comments,
//! multi-line strings). Not a parser: good enough to make code readable, never fatal.

use ratatui::style::Style;

use super::inline::Piece;
use crate::theme;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Plain,
    Keyword,
    String,
    Comment,
    Number,
}

impl Class {
    fn style(self) -> Style {
        let base = theme::code();
        match self {
            Class::Plain => base,
            Class::Keyword => base.patch(theme::code_keyword()),
            Class::String => base.patch(theme::code_string()),
            Class::Comment => base.patch(theme::code_comment()),
            Class::Number => base.patch(theme::code_number()),
        }
    }
}

/// What the highlighter knows about one language.
struct Lang {
    keywords: &'static [&'static str],
    line_comments: &'static [&'static str],
    block_comment: Option<(&'static str, &'static str)>,
    /// Delimiters of strings that may span lines, tried before `quotes`.
    long_strings: &'static [&'static str],
    quotes: &'static [char],
    /// A `"` string left open continues on the next line (Rust, shell).
    strings_span_lines: bool,
    /// `#` starts a comment only at the start of a word (shell, YAML).
    comment_at_word_start: bool,
    /// `'a` is a lifetime, not a character literal.
    lifetimes: bool,
    /// `#include` and friends are keywords.
    preprocessor: bool,
    /// A line `[section]` is a keyword (TOML).
    sections: bool,
}

const NO_LANG: Lang = Lang {
    keywords: &[],
    line_comments: &[],
    block_comment: None,
    long_strings: &[],
    quotes: &[],
    strings_span_lines: false,
    comment_at_word_start: false,
    lifetimes: false,
    preprocessor: false,
    sections: false,
};

const RUST: Lang = Lang {
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
        "true", "type", "unsafe", "use", "where", "while", "yield",
    ],
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &['"', '\''],
    strings_span_lines: true,
    lifetimes: true,
    ..NO_LANG
};

const JS: Lang = Lang {
    keywords: &[
        "abstract",
        "as",
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "declare",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "from",
        "function",
        "get",
        "if",
        "implements",
        "import",
        "in",
        "instanceof",
        "interface",
        "keyof",
        "let",
        "namespace",
        "new",
        "null",
        "of",
        "private",
        "protected",
        "public",
        "readonly",
        "return",
        "set",
        "static",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "type",
        "typeof",
        "undefined",
        "var",
        "void",
        "while",
        "with",
        "yield",
    ],
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    long_strings: &["`"],
    quotes: &['"', '\''],
    ..NO_LANG
};

const PYTHON: Lang = Lang {
    keywords: &[
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "match", "nonlocal", "not", "or", "pass", "raise",
        "return", "self", "try", "while", "with", "yield",
    ],
    line_comments: &["#"],
    long_strings: &["\"\"\"", "'''"],
    quotes: &['"', '\''],
    ..NO_LANG
};

const SHELL: Lang = Lang {
    keywords: &[
        "case", "cd", "do", "done", "echo", "elif", "else", "esac", "exit", "export", "fi", "for",
        "function", "if", "in", "local", "read", "return", "set", "shift", "source", "then",
        "unset", "until", "while",
    ],
    line_comments: &["#"],
    quotes: &['"', '\''],
    strings_span_lines: true,
    comment_at_word_start: true,
    ..NO_LANG
};

const JSON: Lang = Lang {
    keywords: &["true", "false", "null"],
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &['"'],
    ..NO_LANG
};

const TOML: Lang = Lang {
    keywords: &["true", "false"],
    line_comments: &["#"],
    long_strings: &["\"\"\"", "'''"],
    quotes: &['"', '\''],
    sections: true,
    ..NO_LANG
};

const YAML: Lang = Lang {
    keywords: &["true", "false", "null", "yes", "no", "on", "off"],
    line_comments: &["#"],
    quotes: &['"', '\''],
    comment_at_word_start: true,
    ..NO_LANG
};

const GO: Lang = Lang {
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "fallthrough",
        "false",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "map",
        "nil",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "true",
        "type",
        "var",
    ],
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    long_strings: &["`"],
    quotes: &['"', '\''],
    ..NO_LANG
};

const C: Lang = Lang {
    keywords: &[
        "auto",
        "bool",
        "break",
        "case",
        "catch",
        "char",
        "class",
        "const",
        "constexpr",
        "continue",
        "default",
        "delete",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "false",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "namespace",
        "new",
        "nullptr",
        "private",
        "protected",
        "public",
        "register",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "template",
        "this",
        "throw",
        "true",
        "try",
        "typedef",
        "typename",
        "union",
        "unsigned",
        "using",
        "virtual",
        "void",
        "volatile",
        "while",
    ],
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &['"', '\''],
    preprocessor: true,
    ..NO_LANG
};

fn lang(name: &str) -> Option<&'static Lang> {
    let lang = match name.to_ascii_lowercase().as_str() {
        "rust" | "rs" => &RUST,
        "ts" | "typescript" | "tsx" | "js" | "javascript" | "jsx" | "mjs" | "cjs" => &JS,
        "python" | "py" | "python3" => &PYTHON,
        "sh" | "bash" | "shell" | "zsh" | "console" => &SHELL,
        "json" | "jsonc" | "json5" => &JSON,
        "toml" => &TOML,
        "yaml" | "yml" => &YAML,
        "go" | "golang" => &GO,
        "c" | "h" | "cpp" | "c++" | "cc" | "cxx" | "hpp" => &C,
        _ => return None,
    };
    Some(lang)
}

#[derive(Debug, Clone, Copy)]
enum State {
    Normal,
    /// Inside a block comment ending with the delimiter.
    Comment(&'static str),
    /// Inside a string ending with the delimiter.
    Str(&'static str),
}

/// Highlights the lines of one code block in order.
pub(crate) struct Highlighter {
    lang: Option<&'static Lang>,
    state: State,
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl Highlighter {
    /// A highlighter for the fence's language; an unknown one gives plain code.
    pub fn new(language: &str) -> Self {
        Self {
            lang: lang(language),
            state: State::Normal,
        }
    }

    /// The pieces of one (sanitised) line.
    pub fn line(&mut self, line: &str) -> Vec<Piece> {
        let Some(lang) = self.lang else {
            return vec![Piece::new(line, Class::Plain.style())];
        };
        let mut out = Pieces::default();
        let mut i = 0;
        match self.state {
            State::Normal => {}
            State::Comment(end) => match find_end(line, 0, end, false) {
                Some(stop) => {
                    out.push(line, 0, stop, Class::Comment);
                    i = stop;
                    self.state = State::Normal;
                }
                None => {
                    out.push(line, 0, line.len(), Class::Comment);
                    return out.finish();
                }
            },
            State::Str(end) => match find_end(line, 0, end, true) {
                Some(stop) => {
                    out.push(line, 0, stop, Class::String);
                    i = stop;
                    self.state = State::Normal;
                }
                None => {
                    out.push(line, 0, line.len(), Class::String);
                    return out.finish();
                }
            },
        }
        if lang.sections && line.trim_start().starts_with('[') {
            out.push(line, i, line.len(), Class::Keyword);
            return out.finish();
        }
        while i < line.len() {
            let rest = &line[i..];
            let Some(c) = rest.chars().next() else { break };
            let prev = line[..i].chars().next_back();
            let word_start = prev.is_none_or(char::is_whitespace);
            if lang
                .line_comments
                .iter()
                .any(|start| rest.starts_with(start))
                && (!lang.comment_at_word_start || word_start)
                && !(lang.preprocessor && c == '#')
            {
                out.push(line, i, line.len(), Class::Comment);
                break;
            }
            if let Some((start, end)) = lang
                .block_comment
                .filter(|(start, _)| rest.starts_with(start))
            {
                let stop = find_end(line, i + start.len(), end, false).unwrap_or_else(|| {
                    self.state = State::Comment(end);
                    line.len()
                });
                out.push(line, i, stop, Class::Comment);
                i = stop;
                continue;
            }
            if let Some(&delim) = lang.long_strings.iter().find(|d| rest.starts_with(**d)) {
                let stop = find_end(line, i + delim.len(), delim, true).unwrap_or_else(|| {
                    self.state = State::Str(delim);
                    line.len()
                });
                out.push(line, i, stop, Class::String);
                i = stop;
                continue;
            }
            if lang.quotes.contains(&c) && !(lang.lifetimes && c == '\'' && is_lifetime(rest)) {
                let delim = if c == '"' { "\"" } else { "'" };
                let stop = find_end(line, i + 1, delim, true).unwrap_or_else(|| {
                    if lang.strings_span_lines && c == '"' {
                        self.state = State::Str("\"");
                    }
                    line.len()
                });
                out.push(line, i, stop, Class::String);
                i = stop;
                continue;
            }
            if c.is_ascii_digit() && !prev.is_some_and(is_ident) {
                let stop = number_end(line, i);
                out.push(line, i, stop, Class::Number);
                i = stop;
                continue;
            }
            if lang.preprocessor && c == '#' && line[..i].trim().is_empty() {
                let stop = ident_end(line, i + 1);
                out.push(line, i, stop, Class::Keyword);
                i = stop;
                continue;
            }
            if is_ident(c) {
                let stop = ident_end(line, i);
                let word = &line[i..stop];
                let class = if lang.keywords.contains(&word) {
                    Class::Keyword
                } else {
                    Class::Plain
                };
                out.push(line, i, stop, class);
                i = stop;
                continue;
            }
            out.push(line, i, i + c.len_utf8(), Class::Plain);
            i += c.len_utf8();
        }
        out.finish()
    }
}

/// `'a` (a lifetime or label) rather than `'a'` or `'\n'`.
fn is_lifetime(rest: &str) -> bool {
    let mut chars = rest.chars().skip(1);
    match (chars.next(), chars.next()) {
        (Some('\\'), _) => false,
        (Some(c), Some('\'')) if c != '\'' => false,
        (Some(c), _) => is_ident(c),
        _ => false,
    }
}

/// The byte after the first `end` at or after `from` (escapes skipped when `escapes`).
fn find_end(line: &str, from: usize, end: &str, escapes: bool) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut i = from;
    while i < line.len() {
        if escapes && bytes[i] == b'\\' {
            i += 1 + line[i + 1..].chars().next().map_or(0, char::len_utf8);
            continue;
        }
        if line[i..].starts_with(end) {
            return Some(i + end.len());
        }
        i += line[i..].chars().next().map_or(1, char::len_utf8);
    }
    None
}

fn ident_end(line: &str, from: usize) -> usize {
    line[from..]
        .char_indices()
        .find(|&(_, c)| !is_ident(c))
        .map_or(line.len(), |(offset, _)| from + offset)
}

fn number_end(line: &str, from: usize) -> usize {
    let bytes = line.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        let b = bytes[i];
        let continues = b.is_ascii_alphanumeric()
            || b == b'_'
            || (b == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit));
        if !continues {
            break;
        }
        i += 1;
    }
    i
}

/// Pieces with neighbouring runs of one class merged.
#[derive(Default)]
struct Pieces {
    out: Vec<(String, Class)>,
}

impl Pieces {
    fn push(&mut self, line: &str, start: usize, end: usize, class: Class) {
        if start >= end {
            return;
        }
        let text = &line[start..end];
        match self.out.last_mut() {
            Some((last, last_class)) if *last_class == class => last.push_str(text),
            _ => self.out.push((text.to_owned(), class)),
        }
    }

    fn finish(self) -> Vec<Piece> {
        self.out
            .into_iter()
            .map(|(text, class)| Piece::new(text, class.style()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(lang: &str, lines: &[&str]) -> Vec<Vec<(String, Class)>> {
        let mut highlighter = Highlighter::new(lang);
        lines
            .iter()
            .map(|line| {
                highlighter
                    .line(line)
                    .into_iter()
                    .map(|piece| {
                        let class = [Class::Keyword, Class::String, Class::Comment, Class::Number]
                            .into_iter()
                            .find(|class| class.style() == piece.style)
                            .unwrap_or(Class::Plain);
                        (piece.text, class)
                    })
                    .collect()
            })
            .collect()
    }

    fn of(rows: &[Vec<(String, Class)>], class: Class) -> Vec<String> {
        rows.iter()
            .flatten()
            .filter(|(_, c)| *c == class)
            .map(|(text, _)| text.clone())
            .collect()
    }

    #[test]
    fn rust_classes() {
        let rows = classes(
            "rust",
            &[
                "fn main<'a>(x: &'a str) -> u32 { // note",
                "    let c = 'x'; let s = \"a \\\" b\"; 0x1F + 1_000 /* multi",
                "still comment */ return 2.5;",
            ],
        );
        assert_eq!(of(&rows, Class::Keyword), ["fn", "let", "let", "return"]);
        assert_eq!(of(&rows, Class::String), ["'x'", "\"a \\\" b\""]);
        assert_eq!(
            of(&rows, Class::Comment),
            ["// note", "/* multi", "still comment */"]
        );
        assert_eq!(of(&rows, Class::Number), ["0x1F", "1_000", "2.5"]);
    }

    #[test]
    fn python_long_string_and_shell_hash() {
        let rows = classes("py", &["x = \"\"\"doc", "more\"\"\" # c", "def f(): pass"]);
        assert_eq!(of(&rows, Class::String), ["\"\"\"doc", "more\"\"\""]);
        assert_eq!(of(&rows, Class::Comment), ["# c"]);
        let rows = classes("bash", &["echo a#b # real"]);
        assert_eq!(of(&rows, Class::Comment), ["# real"]);
    }

    #[test]
    fn unknown_language_is_plain() {
        let rows = classes("brainfuck", &["fn 1 \"x\""]);
        assert_eq!(rows, [vec![("fn 1 \"x\"".to_owned(), Class::Plain)]]);
    }
}
