//! A grammar's regexes cut to ASCII, for the lines of code that are ASCII.
//!
//! On the pure-Rust regex engine a grammar costs most the first time it is used: each regex
//! compiles when first tried, and Unicode classes (`\p{L}`, `\w`, `\s`, …) compile into large
//! UTF-8 automata, forward and reverse — Rust's identifier regex alone takes ~1.2 ms, the first
//! Rust block ~35 ms, the first TypeScript block ~380 ms. On a line that is all ASCII such a
//! class matches exactly its ASCII members, and a class of ASCII ranges compiles ~10× faster.
//!
//! So [`ascii_set`] makes, for one syntax, a copy of the syntax set in which that syntax's
//! regexes have every Unicode class replaced by its ASCII members, and the highlighter parses
//! ASCII lines with that copy and every other line with the original (a grammar's parse state
//! carries between them: both sets have the same contexts in the same places). What is drawn
//! is the same either way; the first Rust block costs ~10 ms, TypeScript's ~190 ms.
//!
//! A syntax set's contexts are private to syntect, so the copy goes through its serialised
//! form: [`SetDump`] mirrors the layout of `SyntaxSet` in syntect 5.3 (a test holds it to the
//! bytes syntect writes), each syntax's contexts being a zlib'd dump of its own. The copy
//! carries only the contexts of the syntaxes its syntax reaches (usually itself alone), so it
//! takes ~2 ms to make and little memory; the syntaxes out of reach keep their place, empty.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Write as _;

use regex_syntax::hir::{Class, HirKind};
use serde::{Deserialize, Serialize};
use syntect::parsing::syntax_definition::{Context, ContextId, Pattern};
use syntect::parsing::{Regex, Scope, SyntaxSet};

/// `SyntaxSet` as syntect 5.3 serialises it.
#[derive(Serialize, Deserialize)]
pub(super) struct SetDump<'a> {
    #[serde(borrow)]
    pub(super) syntaxes: Vec<SyntaxDump<'a>>,
    path_syntaxes: Vec<(String, usize)>,
}

/// `SyntaxReference` as syntect 5.3 serialises it (its variables sorted by name).
#[derive(Serialize, Deserialize)]
pub(super) struct SyntaxDump<'a> {
    pub(super) name: String,
    file_extensions: Vec<String>,
    scope: Scope,
    first_line_match: Option<String>,
    hidden: bool,
    variables: BTreeMap<String, String>,
    /// The syntax's contexts ([`ContextsDump`]), bincode in zlib: borrowed from the dump and
    /// written as bytes in one go (bincode writes a `Vec<u8>` as the same length and bytes,
    /// a byte at a time: most of a set's serialising).
    #[serde(serialize_with = "bytes")]
    contexts: &'a [u8],
}

fn bytes<S: serde::Serializer>(bytes: &&[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_bytes(bytes)
}

/// syntect's lazily loaded part of a syntax.
#[derive(Serialize, Deserialize)]
struct ContextsDump {
    context_ids: BTreeMap<String, ContextId>,
    contexts: Vec<Context>,
}

/// Syntaxes whose references [`ascii_set`] follows before it keeps every syntax instead.
const MOST_REACHED: usize = 8;

/// A `ContextId` as syntect 5.3 serialises it.
#[derive(Deserialize)]
struct IdDump {
    syntax_index: usize,
    #[allow(dead_code)]
    context_index: usize,
}

/// A copy of `set` whose syntax at `index` has its regexes cut to ASCII (see the module docs);
/// `None` when the set does not have the layout this module knows.
///
/// The copy has every syntax in its place (a parse state's contexts are found by index), but
/// only those the syntax can reach (itself, and what it includes, pushes or embeds, in turn)
/// keep their contexts: the copy is only ever used to parse that syntax's ASCII lines.
pub(crate) fn ascii_set(set: &SyntaxSet, index: usize) -> Option<SyntaxSet> {
    let syntaxes = set.syntaxes();
    // The serialised syntaxes the cut one reaches, by index.
    let mut reached: BTreeMap<usize, Vec<u8>> = BTreeMap::new();
    let mut cut: Option<ContextsDump> = None;
    let mut queue = vec![index];
    // Past a few (Markdown embeds dozens), finding what each reaches costs more than keeping
    // them all.
    let mut keep_all = false;
    while let Some(at) = queue.pop() {
        if reached.contains_key(&at) || (keep_all && at != index) {
            continue;
        }
        keep_all |= reached.len() >= MOST_REACHED;
        let bytes = bincode::serialize(syntaxes.get(at)?).ok()?;
        let dump: SyntaxDump = bincode::deserialize(&bytes).ok()?;
        if dump.name != syntaxes[at].name {
            return None;
        }
        let contexts: ContextsDump = syntect::dumps::from_reader(dump.contexts).ok()?;
        queue.extend(references(&contexts)?);
        if at == index {
            cut = Some(contexts);
        }
        reached.insert(at, bytes);
    }
    let mut contexts = cut?;
    let mut classes = HashMap::new();
    for context in &mut contexts.contexts {
        for pattern in &mut context.patterns {
            if let Pattern::Match(pattern) = pattern
                && let Some(ascii) = ascii_only(pattern.regex.regex_str(), &mut classes)
            {
                pattern.regex = Regex::new(ascii);
            }
        }
    }
    let plain = bincode::serialize(&contexts).ok()?;
    // Stored, not compressed: it is read once, and compressing costs more than it saves.
    let mut zlib = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(plain.len() + 64),
        flate2::Compression::none(),
    );
    zlib.write_all(&plain).ok()?;
    let cut = zlib.finish().ok()?;
    let mut dump = SetDump {
        syntaxes: Vec::with_capacity(syntaxes.len()),
        // Only for finding a syntax by its file's path, which the copy is never asked.
        path_syntaxes: Vec::new(),
    };
    if keep_all {
        for (at, syntax) in syntaxes.iter().enumerate() {
            if let std::collections::btree_map::Entry::Vacant(entry) = reached.entry(at) {
                entry.insert(bincode::serialize(syntax).ok()?);
            }
        }
    }
    for (at, syntax) in syntaxes.iter().enumerate() {
        let mut dumped = match reached.get(&at) {
            Some(bytes) => bincode::deserialize(bytes).ok()?,
            // Out of reach: its name and scope, no contexts.
            None => SyntaxDump {
                name: syntax.name.clone(),
                file_extensions: Vec::new(),
                scope: syntax.scope,
                first_line_match: None,
                hidden: syntax.hidden,
                variables: BTreeMap::new(),
                contexts: &[],
            },
        };
        if at == index {
            dumped.contexts = &cut;
        }
        dump.syntaxes.push(dumped);
    }
    bincode::deserialize(&bincode::serialize(&dump).ok()?).ok()
}

/// The syntaxes that `contexts` refer to (their indices); `None` if a reference is not linked
/// to a context (then what it reaches is not known).
fn references(contexts: &ContextsDump) -> Option<Vec<usize>> {
    use syntect::parsing::syntax_definition::{ContextReference, MatchOperation};
    fn syntax_of(id: &ContextId) -> Option<usize> {
        let id: IdDump = bincode::deserialize(&bincode::serialize(id).ok()?).ok()?;
        Some(id.syntax_index)
    }
    fn of_reference(reference: &ContextReference) -> Option<usize> {
        // Linked: a direct reference (any other kind is an error here).
        syntax_of(&reference.id().ok()?)
    }
    let mut found = Vec::new();
    for context in &contexts.contexts {
        if let Some(prototype) = &context.prototype {
            found.push(syntax_of(prototype)?);
        }
        for pattern in &context.patterns {
            match pattern {
                Pattern::Include(reference) => found.push(of_reference(reference)?),
                Pattern::Match(pattern) => {
                    if let MatchOperation::Push(targets) | MatchOperation::Set(targets) =
                        &pattern.operation
                    {
                        for target in targets {
                            found.push(of_reference(target)?);
                        }
                    }
                    if let Some(reference) = &pattern.with_prototype {
                        found.push(of_reference(reference)?);
                    }
                }
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    Some(found)
}

/// `pattern` with each Unicode class (`\p{…}`, `\P{…}`, `\w`, `\W`, `\d`, `\D`, `\s`, `\S`)
/// replaced by a class of its ASCII members: the same matches on an ASCII haystack. `None` when
/// nothing changed, or the pattern matches case-insensitively somewhere (case folding a class
/// of ASCII members need not give the ASCII members of the folded class; such patterns stay).
pub(crate) fn ascii_only(
    pattern: &str,
    classes: &mut HashMap<String, Option<String>>,
) -> Option<String> {
    if folds_case(pattern) {
        return None;
    }
    let bytes = pattern.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = pattern[at..].find('\\') {
        let start = at + found;
        let Some(&letter) = bytes.get(start + 1) else {
            break;
        };
        let end = match letter {
            b'p' | b'P' if bytes.get(start + 2) == Some(&b'{') => {
                match pattern[start..].find('}') {
                    Some(close) => start + close + 1,
                    None => break,
                }
            }
            b'w' | b'W' | b'd' | b'D' | b's' | b'S' => start + 2,
            // Any other escape, `\\` included: skip both characters.
            _ => {
                at = start + 2;
                continue;
            }
        };
        let expression = &pattern[start..end];
        let class = classes
            .entry(expression.to_owned())
            .or_insert_with(|| ascii_class(expression))
            .as_deref();
        if let Some(class) = class {
            out.push_str(&pattern[copied..start]);
            out.push_str(class);
            copied = end;
        }
        at = end;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&pattern[copied..]);
    Some(out)
}

/// The bracket class of the ASCII members of a Unicode class expression; a negated one
/// (`\P{…}`, `\W`, …) as the negation of its positive form's members, so that it behaves the
/// same wherever it stands.
fn ascii_class(expression: &str) -> Option<String> {
    let letter = expression.as_bytes().get(1)?;
    let negated = letter.is_ascii_uppercase();
    let positive = if negated {
        format!(
            "\\{}{}",
            letter.to_ascii_lowercase() as char,
            &expression[2..]
        )
    } else {
        expression.to_owned()
    };
    let hir = regex_syntax::Parser::new().parse(&positive).ok()?;
    let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
        return None;
    };
    let mut members = String::new();
    for range in class.ranges() {
        let (first, last) = (u32::from(range.start()), u32::from(range.end()).min(0x7f));
        if first > last {
            break;
        }
        let _ = write!(members, "\\x{{{first:02X}}}");
        if last > first {
            let _ = write!(members, "-\\x{{{last:02X}}}");
        }
    }
    Some(match (negated, members.is_empty()) {
        // No ASCII members: a class that matches no character (or, negated, any).
        (false, true) => "[^\\x{00}-\\x{10FFFF}]".to_owned(),
        (true, true) => "[\\x{00}-\\x{10FFFF}]".to_owned(),
        (false, false) => format!("[{members}]"),
        (true, false) => format!("[^{members}]"),
    })
}

/// Whether a group's flags turn on (or touch) case-insensitive matching: `(?i)`, `(?xi:`, ….
fn folds_case(pattern: &str) -> bool {
    pattern.match_indices("(?").any(|(at, _)| {
        pattern[at + 2..]
            .bytes()
            .take_while(|b| b.is_ascii_alphabetic() || *b == b'-')
            .any(|b| b == b'i')
    })
}

#[cfg(test)]
#[path = "ascii_grammar_tests.rs"]
mod tests;
