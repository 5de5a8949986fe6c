//! The composer's text buffer: the text, the caret (a byte offset on a grapheme boundary), edits
//! by grapheme and by word, and undo/redo. Nothing here knows about widths; visual-row motions
//! live in [`super::layout`].

use unicode_segmentation::UnicodeSegmentation;

/// How many undo steps are kept.
const UNDO_LIMIT: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Snapshot {
    text: String,
    caret: usize,
}

/// The kind of the last edit, for coalescing undo steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EditKind {
    /// Typing: one undo step per word (a step starts where whitespace follows a word).
    Typing {
        after_whitespace: bool,
    },
    Backspace,
    Delete,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Editor {
    text: String,
    caret: usize,
    /// At a soft-wrap boundary, the caret shows at the end of the upper row rather than at the
    /// start of the lower one (after End, or ↓/click past a row's end).
    upstream: bool,
    undo: Vec<Snapshot>,
    redo: Vec<Snapshot>,
    /// The last edit, while it may still be extended (any motion ends it).
    open_edit: Option<EditKind>,
    /// Bumped by every change of the text.
    revision: u64,
}

impl Editor {
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    pub(crate) fn caret(&self) -> usize {
        self.caret
    }

    pub(crate) fn revision(&self) -> u64 {
        self.revision
    }

    pub(crate) fn upstream(&self) -> bool {
        self.upstream
    }

    /// Places the caret (clamped and snapped to a grapheme boundary); ends the open edit.
    pub(crate) fn set_caret(&mut self, caret: usize, upstream: bool) {
        let caret = caret.min(self.text.len());
        self.caret = snap_to_grapheme(&self.text, caret);
        self.upstream = upstream;
        self.open_edit = None;
    }

    /// Replaces everything, forgetting the undo steps (a new document: an input history entry
    /// recalled, the app).
    pub(crate) fn reset(&mut self, text: &str) {
        self.text = text.to_owned();
        self.caret = self.text.len();
        self.upstream = false;
        self.undo.clear();
        self.redo.clear();
        self.open_edit = None;
        self.revision += 1;
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            text: self.text.clone(),
            caret: self.caret,
        }
    }

    /// Records the state before an edit of `kind` unless it extends the open edit.
    fn begin_edit(&mut self, kind: Option<EditKind>) {
        let extends = match (self.open_edit, kind) {
            // A new typing step starts where whitespace follows a word.
            (
                Some(EditKind::Typing {
                    after_whitespace: was_ws,
                }),
                Some(EditKind::Typing {
                    after_whitespace: is_ws,
                }),
            ) => was_ws || !is_ws,
            (Some(open), Some(kind)) => open == kind,
            _ => false,
        };
        if !extends {
            self.undo.push(self.snapshot());
            if self.undo.len() > UNDO_LIMIT {
                self.undo.remove(0);
            }
        }
        self.redo.clear();
        self.open_edit = kind;
        self.upstream = false;
        self.revision += 1;
    }

    /// Types one character (coalesced into word-sized undo steps).
    pub(crate) fn type_char(&mut self, c: char) {
        self.begin_edit(Some(EditKind::Typing {
            after_whitespace: c.is_whitespace(),
        }));
        self.text.insert(self.caret, c);
        self.caret += c.len_utf8();
    }

    /// Inserts text as one undo step (a newline, a paste).
    pub(crate) fn insert(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.begin_edit(None);
        self.text.insert_str(self.caret, text);
        self.caret += text.len();
    }

    /// Replaces `range` with `with` as one undo step, leaving the caret after it.
    pub(crate) fn replace(&mut self, range: std::ops::Range<usize>, with: &str) {
        self.begin_edit(None);
        self.text.replace_range(range.clone(), with);
        self.caret = range.start + with.len();
    }

    fn delete_range(&mut self, range: std::ops::Range<usize>, kind: Option<EditKind>) {
        if range.is_empty() {
            return;
        }
        self.begin_edit(kind);
        self.text.replace_range(range.clone(), "");
        self.caret = range.start;
    }

    pub(crate) fn backspace(&mut self) {
        let start = prev_grapheme(&self.text, self.caret);
        self.delete_range(start..self.caret, Some(EditKind::Backspace));
    }

    pub(crate) fn delete_forward(&mut self) {
        let end = next_grapheme(&self.text, self.caret);
        self.delete_range(self.caret..end, Some(EditKind::Delete));
    }

    pub(crate) fn delete_word_back(&mut self) {
        let start = word_start_before(&self.text, self.caret);
        self.delete_range(start..self.caret, None);
    }

    pub(crate) fn delete_word_forward(&mut self) {
        let end = word_end_after(&self.text, self.caret);
        self.delete_range(self.caret..end, None);
    }

    /// Deletes to the end of the logical line; at the end of a line, joins the next one.
    pub(crate) fn kill_to_line_end(&mut self) {
        let end = match self.text[self.caret..].find('\n') {
            Some(0) => self.caret + 1,
            Some(at) => self.caret + at,
            None => self.text.len(),
        };
        self.delete_range(self.caret..end, None);
    }

    /// Empties the buffer as one undo step.
    pub(crate) fn clear_all(&mut self) {
        self.delete_range(0..self.text.len(), None);
    }

    pub(crate) fn move_left(&mut self) {
        self.set_caret(prev_grapheme(&self.text, self.caret), false);
    }

    pub(crate) fn move_right(&mut self) {
        self.set_caret(next_grapheme(&self.text, self.caret), false);
    }

    pub(crate) fn word_left(&mut self) {
        self.set_caret(word_start_before(&self.text, self.caret), false);
    }

    pub(crate) fn word_right(&mut self) {
        self.set_caret(word_end_after(&self.text, self.caret), false);
    }

    pub(crate) fn undo(&mut self) -> bool {
        let Some(previous) = self.undo.pop() else {
            return false;
        };
        self.redo.push(self.snapshot());
        self.restore(previous);
        true
    }

    pub(crate) fn redo(&mut self) -> bool {
        let Some(next) = self.redo.pop() else {
            return false;
        };
        self.undo.push(self.snapshot());
        self.restore(next);
        true
    }

    fn restore(&mut self, snapshot: Snapshot) {
        self.text = snapshot.text;
        self.caret = snapshot.caret.min(self.text.len());
        self.upstream = false;
        self.open_edit = None;
        self.revision += 1;
    }
}

/// The grapheme boundary at or before `at`.
fn snap_to_grapheme(text: &str, at: usize) -> usize {
    let mut boundary = 0;
    for (offset, _) in text.grapheme_indices(true) {
        if offset > at {
            break;
        }
        boundary = offset;
    }
    if at >= text.len() {
        text.len()
    } else {
        boundary
    }
}

pub(crate) fn prev_grapheme(text: &str, at: usize) -> usize {
    text[..at]
        .graphemes(true)
        .next_back()
        .map_or(0, |g| at - g.len())
}

pub(crate) fn next_grapheme(text: &str, at: usize) -> usize {
    text[at..]
        .graphemes(true)
        .next()
        .map_or(text.len(), |g| at + g.len())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Space,
    Word,
    Punct,
}

fn class(grapheme: &str) -> Class {
    let Some(c) = grapheme.chars().next() else {
        return Class::Space;
    };
    if c.is_whitespace() {
        Class::Space
    } else if c.is_alphanumeric() || c == '_' {
        Class::Word
    } else {
        Class::Punct
    }
}

/// Where a backward word motion from `at` lands: over whitespace, then over one run of the same
/// class (letters/digits or punctuation).
pub(crate) fn word_start_before(text: &str, at: usize) -> usize {
    let mut pos = at;
    let mut run: Option<Class> = None;
    for grapheme in text[..at].graphemes(true).rev() {
        let class = class(grapheme);
        match run {
            None if class == Class::Space => {}
            None => run = Some(class),
            Some(run) if run != class => break,
            Some(_) => {}
        }
        pos -= grapheme.len();
    }
    pos
}

/// Where a forward word motion from `at` lands: over whitespace, then to the end of one run.
pub(crate) fn word_end_after(text: &str, at: usize) -> usize {
    let mut pos = at;
    let mut run: Option<Class> = None;
    for grapheme in text[at..].graphemes(true) {
        let class = class(grapheme);
        match run {
            None if class == Class::Space => {}
            None => run = Some(class),
            Some(run) if run != class => break,
            Some(_) => {}
        }
        pos += grapheme.len();
    }
    pos
}
