//! A session's review: comments a user leaves on lines of the session's diff (`/diff`), kept
//! with the session by the manager (saved, the same for every client) until `review/send`
//! sends them to the agent as one message. The types of the comments and of the requests that
//! add, edit, remove and send them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The most comments a session holds.
pub const MAX_COMMENTS: usize = 50;
/// The longest comment body, in bytes (a longer one is refused).
pub const MAX_BODY_BYTES: usize = 8 * 1024;
/// The most diff lines a comment quotes (a longer range keeps its first lines and says how many
/// more it spans).
pub const MAX_QUOTED_LINES: usize = 40;
/// The longest quoted diff line, in bytes (cut at a character boundary).
pub const MAX_QUOTED_LINE_BYTES: usize = 400;

/// Which file of the diff a comment's line numbers count in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiffSide {
    /// The file as the session's branch has it now (added and unchanged lines).
    #[default]
    New,
    /// The file as the base has it (removed lines only).
    Old,
    /// A side of a later version.
    #[serde(other)]
    Unknown,
}

/// Where in the diff a comment is: a file and a range of its lines, as the diff drew them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct ReviewAnchor {
    /// The file's path in the repository (the diff's new path).
    pub path: String,
    pub side: DiffSide,
    /// First line, counted from 1 in the `side` file.
    pub start_line: u32,
    /// Last line (equal to `start_line` for a comment on one line).
    pub end_line: u32,
}

/// One comment of a session's review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewComment {
    /// Stable within the session (`c1`, `c2`, …; never reused while the session lives).
    pub id: String,
    pub anchor: ReviewAnchor,
    /// The diff lines it refers to, as drawn (each with its `+`, `-` or space), at most
    /// [`MAX_QUOTED_LINES`].
    pub lines: Vec<String>,
    /// Lines of the range beyond those quoted.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more_lines: u32,
    /// What the user wrote.
    pub body: String,
    /// Milliseconds since the Unix epoch.
    pub created_at: u64,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

/// Params of `review/add`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewAddParams {
    pub session_id: String,
    pub anchor: ReviewAnchor,
    /// The diff lines of the range, as drawn (cut to [`MAX_QUOTED_LINES`] lines of
    /// [`MAX_QUOTED_LINE_BYTES`] each by the manager).
    #[serde(default)]
    pub lines: Vec<String>,
    pub body: String,
}

/// Params of `review/edit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewEditParams {
    pub session_id: String,
    pub comment_id: String,
    pub body: String,
}

/// Params of `review/remove`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewRemoveParams {
    pub session_id: String,
    pub comment_id: String,
}

/// The answer to `review/add`, `review/edit` and `review/remove`: the session's comments now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewResult {
    pub comments: Vec<ReviewComment>,
}

/// The answer to `review/send`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewSendResult {
    /// How many comments the message carried (all the session held).
    pub sent: usize,
    /// Bytes of the message left out to keep it within its budget (0: none).
    #[serde(default)]
    pub cut_bytes: usize,
}
