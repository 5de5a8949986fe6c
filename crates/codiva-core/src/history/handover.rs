//! The text that hands a session over to another agent, built from codiva's own record.
//!
//! The next agent cannot read the previous one's transcript, so it gets this instead: where
//! the work is (the branch), what was asked first and last, and the most recent turns, within
//! a byte budget. Newer turns are preferred over older ones; the text is cut only on character
//! boundaries (CJK text included), and never exceeds the budget.

use super::{Capped, History, TurnRecord, cut_at_char};

/// Appends `text` to `out` without letting `out` grow past `budget` bytes; returns whether all
/// of it fit.
fn push_within(out: &mut String, text: &str, budget: usize) -> bool {
    let room = budget.saturating_sub(out.len());
    let kept = cut_at_char(text, room);
    out.push_str(kept);
    kept.len() == text.len()
}

/// One turn, as the next agent reads it.
fn render_turn(number: u64, turn: &TurnRecord) -> String {
    let mut text = format!(
        "### Turn {number} ({}, {})\n",
        turn.agent.label(),
        turn.outcome
            .map_or("still running", |outcome| outcome.as_str())
    );
    for message in &turn.user {
        text.push_str("User: ");
        text.push_str(&message.display());
        text.push('\n');
    }
    if turn.user_omitted > 0 {
        text.push_str(&format!("({} more user messages)\n", turn.user_omitted));
    }
    if !turn.tools.is_empty() {
        text.push_str("Tools:\n");
        for tool in &turn.tools {
            text.push_str(&format!(
                "- {} {} ({})\n",
                tool.name,
                tool.summary,
                tool.outcome.as_str()
            ));
        }
    }
    if turn.tools_omitted > 0 {
        text.push_str(&format!("({} more tool calls)\n", turn.tools_omitted));
    }
    if let Some(detail) = &turn.detail {
        text.push_str(&format!("Outcome: {}\n", detail.text));
    }
    if let Some(final_text) = &turn.final_text {
        text.push_str("Agent: ");
        text.push_str(&final_text.display());
        text.push('\n');
    }
    text.push('\n');
    text
}

fn instruction(out: &mut String, label: &str, text: &Capped, budget: usize) {
    // Each instruction gets at most a quarter of the budget: the turns matter more.
    let share = budget.min(out.len() + budget / 4);
    push_within(out, &format!("## {label}\n"), share);
    push_within(out, &text.display(), share);
    push_within(out, "\n\n", budget);
}

/// The handover text: at most `budget` bytes of valid UTF-8.
pub fn render(history: &History, branch: &str, budget: usize) -> String {
    let mut out = String::new();
    let header = format!(
        "You are taking over a coding session from another agent ({}). Its work is on the git \
         branch `{branch}`, checked out in your working directory. Below is codiva's summary of \
         the conversation so far; the earlier agent's own transcript is not available to you.\n\n",
        history.agent.label()
    );
    if !push_within(&mut out, &header, budget) {
        return out;
    }
    let first = history.first_instruction.as_ref();
    let last = history.turns().rev().find_map(|turn| turn.user.last());
    if let Some(first) = first {
        instruction(&mut out, "First instruction", first, budget);
    }
    if let Some(last) = last.filter(|last| Some(*last) != first) {
        instruction(&mut out, "Latest instruction", last, budget);
    }
    let turns: Vec<&TurnRecord> = history.turns().collect();
    if turns.is_empty() {
        return out;
    }
    let heading = "## Recent turns (oldest first)\n";
    if !push_within(&mut out, heading, budget) {
        return out;
    }
    // Newest first until the budget is spent, then printed oldest first.
    let first_number = history.dropped_turns + 1;
    let mut room = budget.saturating_sub(out.len());
    let mut chosen = Vec::new();
    for (index, turn) in turns.iter().enumerate().rev() {
        let text = render_turn(first_number + index as u64, turn);
        if text.len() <= room {
            room -= text.len();
            chosen.push(text);
        } else {
            if chosen.is_empty() {
                // The newest turn alone is larger than what is left: its beginning, at least.
                chosen.push(cut_at_char(&text, room).to_owned());
            }
            break;
        }
    }
    let omitted = history.dropped_turns + (turns.len() - chosen.len()) as u64;
    if omitted > 0 {
        let note = format!("({omitted} earlier turns omitted)\n\n");
        if note.len() <= room {
            out.push_str(&note);
        }
    }
    for text in chosen.iter().rev() {
        push_within(&mut out, text, budget);
    }
    out
}
