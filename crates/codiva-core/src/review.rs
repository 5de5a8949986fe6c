//! A review sent back to the agent as one message: comments on lines of a session's diff
//! (`review/add` … `review/send`, kept by the manager until sent), and the helpers any message
//! that carries outside text uses — text made safe ([`clean`]), put in a fence no line inside
//! can close ([`fenced`]), and a whole message kept within a byte budget cut only between
//! characters ([`Budget`]). The pull request's review threads (`/address-review`) build their
//! message with the same helpers.

use codiva_protocol::review::{
    DiffSide, MAX_BODY_BYTES, MAX_COMMENTS, MAX_QUOTED_LINE_BYTES, MAX_QUOTED_LINES,
    ReviewAddParams, ReviewAnchor, ReviewComment,
};
use codiva_protocol::text::{floor_boundary, head};

/// The largest review message, in bytes.
pub const MESSAGE_BUDGET: usize = 48 * 1024;

/// Why a comment cannot be added or changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommentError {
    #[error("a comment needs text")]
    EmptyBody,
    #[error("a comment is at most {MAX_BODY_BYTES} bytes (this one is {0})")]
    BodyTooLong(usize),
    #[error("a comment needs a file")]
    NoPath,
    #[error("a comment's lines count from 1, its last line not before its first")]
    BadRange,
    #[error("a session holds at most {MAX_COMMENTS} comments")]
    Full,
}

/// Text from outside (a diff line, a comment someone wrote) made safe for a terminal and for the
/// agent's input: escape sequences, control characters but newlines and tabs, and bidi
/// overrides removed; at most `max_chars` characters (then `…`). Spaces are kept as they are (a
/// diff line's indentation is part of it).
pub fn clean(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars.saturating_mul(4)));
    let mut chars = text.chars().peekable();
    let mut count = 0;
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI `ESC [ … final` dropped whole; other escapes with their next character.
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        break;
                    }
                }
            } else {
                chars.next();
            }
            continue;
        }
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if bidi || (c.is_control() && c != '\n' && c != '\t') {
            continue;
        }
        if count == max_chars {
            out.push('…');
            break;
        }
        out.push(c);
        count += 1;
    }
    out
}

/// `text` in a fenced block of `info` (`diff`, `text`) whose fence is longer than any backtick
/// run inside it, so nothing in the text can end the block early.
pub fn fenced(info: &str, text: &str) -> String {
    let fence = "`".repeat(longest_backtick_run(text).max(2) + 1);
    format!("{fence}{info}\n{text}\n{fence}\n")
}

fn longest_backtick_run(text: &str) -> usize {
    let (mut longest, mut run) = (0, 0);
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// A byte budget shared out over the parts of one message, in order: each part may take an
/// equal share of what is left, plus what earlier parts did not use.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    left: usize,
    parts_left: usize,
    /// Bytes left out so far.
    pub cut: usize,
}

impl Budget {
    pub fn new(bytes: usize, parts: usize) -> Self {
        Budget {
            left: bytes,
            parts_left: parts.max(1),
            cut: 0,
        }
    }

    /// The bytes the next part may take.
    pub fn share(&self) -> usize {
        self.left / self.parts_left.max(1)
    }

    /// Takes a part of `used` bytes (of `wanted`: the rest was left out).
    pub fn take(&mut self, used: usize, wanted: usize) {
        self.left = self.left.saturating_sub(used);
        self.parts_left = self.parts_left.saturating_sub(1).max(1);
        self.cut += wanted.saturating_sub(used);
    }
}

/// A new comment from `review/add`'s params: its body checked, its quoted lines cleaned and
/// cut to [`MAX_QUOTED_LINES`] lines of [`MAX_QUOTED_LINE_BYTES`] bytes.
pub fn new_comment(
    id: String,
    params: ReviewAddParams,
    created_at: u64,
) -> Result<ReviewComment, CommentError> {
    let body = checked_body(&params.body)?;
    let ReviewAnchor {
        path,
        side,
        start_line,
        end_line,
    } = params.anchor;
    let path = crate::github::draft::clean_line(&path, 500);
    if path.is_empty() {
        return Err(CommentError::NoPath);
    }
    if start_line == 0 || end_line < start_line {
        return Err(CommentError::BadRange);
    }
    let all = params.lines.len();
    let lines: Vec<String> = params
        .lines
        .iter()
        .take(MAX_QUOTED_LINES)
        .map(|line| {
            let line = clean(line, MAX_QUOTED_LINE_BYTES).replace('\n', " ");
            head(&line, MAX_QUOTED_LINE_BYTES).to_owned()
        })
        .collect();
    Ok(ReviewComment {
        id,
        anchor: ReviewAnchor {
            path,
            side,
            start_line,
            end_line,
        },
        more_lines: u32::try_from(all - lines.len()).unwrap_or(u32::MAX),
        lines,
        body,
        created_at,
    })
}

/// A comment's body as kept: cleaned ([`clean`]), trimmed, not empty, within
/// [`MAX_BODY_BYTES`].
pub fn checked_body(body: &str) -> Result<String, CommentError> {
    let body = clean(body, usize::MAX);
    let body = body.trim();
    if body.is_empty() {
        return Err(CommentError::EmptyBody);
    }
    if body.len() > MAX_BODY_BYTES {
        return Err(CommentError::BodyTooLong(body.len()));
    }
    Ok(body.to_owned())
}

/// `path:40` or `path:40-42`, and `(removed lines)` for the old side.
pub fn anchor_text(anchor: &ReviewAnchor) -> String {
    let lines = if anchor.start_line == anchor.end_line {
        anchor.start_line.to_string()
    } else {
        format!("{}-{}", anchor.start_line, anchor.end_line)
    };
    match anchor.side {
        DiffSide::Old => format!(
            "{}:{lines} (removed lines, numbered as in the base)",
            anchor.path
        ),
        DiffSide::New | DiffSide::Unknown => format!("{}:{lines}", anchor.path),
    }
}

/// The one message a review sends: every comment with its anchor, the diff lines it refers to
/// (fenced) and its text, within `budget` bytes; and how many bytes were left out.
pub fn message(comments: &[ReviewComment], base: &str, budget: usize) -> (String, usize) {
    let intro = format!(
        "Review of your changes (the diff of this branch against {}): {} comment{} from the \
         user. Address each one; the quoted lines are from that diff.\n",
        clean(base, 200),
        comments.len(),
        if comments.len() == 1 { "" } else { "s" },
    );
    let mut text = intro;
    let mut budget = Budget::new(budget.saturating_sub(text.len()), comments.len());
    for (index, comment) in comments.iter().enumerate() {
        let block = comment_block(index + 1, comment, budget.share());
        budget.take(block.text.len(), block.wanted);
        text.push_str(&block.text);
    }
    (text, budget.cut)
}

struct Block {
    text: String,
    /// Its size with nothing left out.
    wanted: usize,
}

/// One comment within `room` bytes: quoted lines are dropped from the end first (saying how
/// many), then the body is cut between characters.
fn comment_block(number: usize, comment: &ReviewComment, room: usize) -> Block {
    let heading = format!("\n{number}. {}\n", anchor_text(&comment.anchor));
    let render = |quoted: usize, body: &str| {
        let mut block = heading.clone();
        if quoted > 0 {
            let mut lines = comment.lines[..quoted].join("\n");
            let more = comment.lines.len() - quoted + comment.more_lines as usize;
            if more > 0 {
                lines.push_str(&format!("\n… {more} more line{}", plural(more)));
            }
            block.push_str(&fenced("diff", &lines));
        } else if !comment.lines.is_empty() {
            let count = comment.lines.len() + comment.more_lines as usize;
            block.push_str(&format!("({count} line{} not quoted)\n", plural(count)));
        }
        block.push_str(body);
        block.push('\n');
        block
    };
    let whole = render(comment.lines.len(), &comment.body);
    let wanted = whole.len();
    if wanted <= room {
        return Block {
            text: whole,
            wanted,
        };
    }
    for quoted in (0..comment.lines.len()).rev() {
        let text = render(quoted, &comment.body);
        if text.len() <= room {
            return Block { text, wanted };
        }
    }
    // Not even the body fits whole: its start, cut between characters, with the size left out.
    let frame = render(0, "").len();
    let marker = format!("… [{} more bytes]", comment.body.len());
    let keep = room.saturating_sub(frame + marker.len() + 8);
    let kept = &comment.body[..floor_boundary(&comment.body, keep)];
    let marker = format!("… [{} more bytes]", comment.body.len() - kept.len());
    let text = render(0, &format!("{kept}{marker}"));
    // A room too small for even the anchor: the heading alone, cut.
    let text = if text.len() > room {
        head(&heading, room).to_owned()
    } else {
        text
    };
    Block { text, wanted }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

#[cfg(test)]
#[path = "review_tests.rs"]
mod tests;
