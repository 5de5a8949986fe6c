//! Plan usage of a subscription login, as the agent itself reports it (Claude Code's
//! `rate_limit_event`, only with an OAuth login; an agent that reports nothing leaves it
//! unknown). Provider-neutral: the windows are named as the agent names them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One reading of the login's usage limits. A reading may carry fewer windows than an earlier
/// one: a front end keeps the last known value of each window it does not carry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanUsage {
    /// The windows the reading carries (`five_hour`, `seven_day`, …).
    #[serde(default)]
    pub windows: Vec<UsageWindow>,
    /// The agent refused a request because a limit is reached: which window, and when it
    /// resets. `None`: no refusal in this reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited: Option<UsageLimit>,
}

/// One usage window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UsageWindow {
    /// The agent's name for it: `five_hour`, `seven_day`, or another.
    pub kind: String,
    /// How much of it is used, 0 to 1.
    pub utilization: f64,
    /// When it resets, in Unix seconds, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resets_at: Option<u64>,
    pub state: UsageState,
}

/// What the agent says of a window, from best to worst.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum UsageState {
    #[default]
    Allowed,
    /// Past the agent's warning threshold.
    Warning,
    /// Used up: requests are refused until it resets.
    Rejected,
}

/// A refusal for a reached limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UsageLimit {
    /// The window that is used up (`five_hour`, …), when the agent says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// When requests are accepted again, in Unix seconds, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resets_at: Option<u64>,
}
