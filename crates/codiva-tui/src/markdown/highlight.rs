//! Code blocks highlighted by syntect over the Sublime syntaxes that bat maintains (the
//! `two-face` crate: syntect's own set plus TypeScript, TOML and many more), parsed with the
//! pure-Rust regex engine. The highlighter's scopes map to a handful of named classes that
//! `theme.rs` styles in terminal palette colours; no TextMate theme paints RGB.
//!
//! This file is the grammar side: fence names to syntaxes, scopes to classes, one block's
//! lines in order. It runs on the highlighter thread only ([`super::paint`]), which owns the
//! loaded set.

use std::collections::HashMap;

use ratatui::style::Style;
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

use crate::theme;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Plain,
    Keyword,
    String,
    Comment,
    Number,
    Type,
    Function,
    Added,
    Removed,
    Heading,
}

impl Class {
    pub(crate) fn style(self) -> Style {
        let base = theme::code();
        match self {
            Class::Plain => base,
            Class::Keyword => base.patch(theme::code_keyword()),
            Class::String => base.patch(theme::code_string()),
            Class::Comment => base.patch(theme::code_comment()),
            Class::Number => base.patch(theme::code_number()),
            Class::Type => base.patch(theme::code_type()),
            Class::Function => base.patch(theme::code_function()),
            Class::Added => base.patch(theme::diff_added()),
            Class::Removed => base.patch(theme::diff_removed()),
            Class::Heading => base.patch(theme::code_heading()),
        }
    }
}

/// Scope prefixes to classes, the most specific first; a token takes the class of its innermost
/// scope that has one.
const CLASSES: &[(&str, Class)] = &[
    ("comment", Class::Comment),
    ("punctuation.definition.comment", Class::Comment),
    ("string", Class::String),
    ("constant.character", Class::String),
    ("constant.numeric", Class::Number),
    ("constant.language", Class::Number),
    ("keyword.operator", Class::Plain),
    ("keyword", Class::Keyword),
    ("storage.modifier", Class::Keyword),
    ("storage.type", Class::Keyword),
    ("variable.language", Class::Keyword),
    ("entity.name.type", Class::Type),
    ("entity.name.class", Class::Type),
    ("entity.name.struct", Class::Type),
    ("entity.name.enum", Class::Type),
    ("support.type", Class::Type),
    ("support.class", Class::Type),
    ("entity.name.tag", Class::Type),
    ("entity.name.function", Class::Function),
    ("support.function", Class::Function),
    ("variable.function", Class::Function),
    ("markup.inserted", Class::Added),
    ("markup.deleted", Class::Removed),
    ("meta.diff.range", Class::Heading),
    ("meta.diff.header", Class::Heading),
    ("markup.heading", Class::Heading),
    ("meta.tag.table", Class::Heading),
    ("entity.name.table", Class::Heading),
    ("entity.name.section", Class::Heading),
];

/// The loaded syntax set and the class table (built on the highlighter thread).
pub(crate) struct Syntaxes {
    set: SyntaxSet,
    /// Per syntax (its index in `set`), the set with that syntax's regexes cut to ASCII, for
    /// ASCII lines ([`super::ascii_grammar`]); `None` when making it failed (`set` serves).
    ascii: HashMap<usize, Option<SyntaxSet>>,
    classes: Vec<(Scope, Class)>,
}

impl Syntaxes {
    /// Deserialises the packed set (a few ms; each grammar's regexes compile on first use).
    pub(crate) fn load() -> Self {
        Syntaxes {
            set: two_face::syntax::extra_newlines(),
            ascii: HashMap::new(),
            classes: CLASSES
                .iter()
                .filter_map(|(prefix, class)| Some((Scope::new(prefix).ok()?, *class)))
                .collect(),
        }
    }

    /// Makes the ASCII copy of the highlighter's syntax if there is none yet (once per
    /// syntax; a few ms, paid back by the first few lines it compiles regexes for).
    pub(crate) fn prepare(&mut self, highlighter: &Highlighter) {
        if highlighter.state.is_some() {
            let set = &self.set;
            self.ascii
                .entry(highlighter.syntax)
                .or_insert_with(|| super::ascii_grammar::ascii_set(set, highlighter.syntax));
        }
    }

    /// The set to parse `line` with for the syntax at `index`.
    fn for_line(&self, index: usize, line: &str) -> &SyntaxSet {
        match self.ascii.get(&index) {
            Some(Some(ascii)) if line.is_ascii() => ascii,
            _ => &self.set,
        }
    }

    fn syntax(&self, language: &str) -> Option<&SyntaxReference> {
        let language = language.trim().to_ascii_lowercase();
        // `rust,ignore`, `{.python}`: the first word names the language.
        let word = language
            .trim_start_matches(['{', '.'])
            .split([',', ' ', '}'])
            .next()
            .unwrap_or_default();
        if word.is_empty() {
            return None;
        }
        self.set.find_syntax_by_token(token(word))
    }
}

/// Fence names people write that are not a syntax's name or extension.
fn token(language: &str) -> &str {
    match language {
        "shell" | "console" | "shellsession" | "zsh" | "sh" => "bash",
        "golang" => "go",
        "c++" | "hpp" | "cxx" | "cc" => "cpp",
        "csharp" | "c#" => "cs",
        "jsonc" | "json5" => "json",
        "patch" => "diff",
        "py3" | "python3" => "py",
        "yml" => "yaml",
        "mjs" | "cjs" | "jsx" => "js",
        "typescript" => "ts",
        "javascript" => "js",
        other => other,
    }
}

/// Highlights the lines of one code block in order (a grammar's state carries across lines).
#[derive(Debug, Clone)]
pub(crate) struct Highlighter {
    /// `None`: plain code (an unknown language, or the grammar failed on a line).
    state: Option<(ParseState, ScopeStack)>,
    /// The syntax's index in the set.
    syntax: usize,
    /// Reused for the line plus its newline.
    buffer: String,
}

impl Highlighter {
    /// A highlighter for the fence's language; an unknown one gives plain code.
    pub(crate) fn new(language: &str, syntaxes: &Syntaxes) -> Self {
        let syntax = syntaxes.syntax(language);
        Self {
            state: syntax.map(|s| (ParseState::new(s), ScopeStack::new())),
            syntax: syntax
                .and_then(|found| {
                    let all = syntaxes.set.syntaxes();
                    all.iter().position(|s| std::ptr::eq(s, found))
                })
                .unwrap_or_default(),
            buffer: String::new(),
        }
    }

    pub(crate) fn is_plain(&self) -> bool {
        self.state.is_none()
    }

    /// Byte ranges of `line` with their classes (adjacent runs of one class merged); `None`
    /// when the block is plain from here on.
    pub(crate) fn classes(&mut self, line: &str, syntaxes: &Syntaxes) -> Option<Runs> {
        let (parse, stack) = self.state.as_mut()?;
        self.buffer.clear();
        self.buffer.push_str(line);
        self.buffer.push('\n');
        let set = syntaxes.for_line(self.syntax, line);
        let Ok(ops) = parse.parse_line(&self.buffer, set) else {
            self.state = None;
            return None;
        };
        let classes = &syntaxes.classes;
        let mut runs: Runs = Vec::new();
        let mut push = |start: usize, end: usize, class: Class| {
            let end = end.min(line.len());
            if start >= end {
                return;
            }
            let (start, end) = (offset(start), offset(end));
            match runs.last_mut() {
                Some(last) if last.2 == class && last.1 == start => last.1 = end,
                _ => runs.push((start, end, class)),
            }
        };
        let mut class = class_of(stack, classes);
        let mut at = 0;
        for (offset, op) in ops {
            push(at, offset, class);
            at = at.max(offset);
            if stack.apply(&op).is_err() {
                self.state = None;
                return None;
            }
            class = class_of(stack, classes);
        }
        push(at, line.len(), class);
        Some(runs)
    }
}

/// Classes of one line: byte ranges of the (sanitised) line.
pub(crate) type Runs = Vec<(u32, u32, Class)>;

fn offset(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

fn class_of(stack: &ScopeStack, classes: &[(Scope, Class)]) -> Class {
    stack
        .as_slice()
        .iter()
        .rev()
        .find_map(|scope| {
            classes
                .iter()
                .find(|(prefix, _)| prefix.is_prefix_of(*scope))
                .map(|(_, class)| *class)
        })
        .unwrap_or(Class::Plain)
}

#[cfg(test)]
#[path = "highlight_tests.rs"]
mod tests;
