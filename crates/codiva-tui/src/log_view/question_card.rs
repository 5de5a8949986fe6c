//! The open card of a question call (Claude Code's `AskUserQuestion`): each question with
//! its header and the answer given, instead of the call's raw JSON input and the agent's
//! one-line echo of the answers. The answers come from the call's input when the agent put
//! them there, else from its result (`… "<question>"="<answer>", …`); a question without an
//! answer (declined, interrupted) lists its choices.

use ratatui::text::{Line, Span};
use serde_json::Value;

use codiva_protocol::log::ToolEntry;

use super::block::wrapped;
use crate::i18n::{AppText, t};
use crate::theme;
use crate::width::str_width;

/// Whether `tool` is the call through which the agent asks the user questions (its kind is
/// [`ToolKind::Question`](codiva_protocol::tool::ToolKind::Question)).
pub(crate) fn is_question(tool: &ToolEntry) -> bool {
    tool.view.tool_kind == codiva_protocol::tool::ToolKind::Question
}

/// One question as the card shows it.
struct Asked<'a> {
    header: Option<&'a str>,
    question: &'a str,
    choices: Vec<&'a str>,
    answer: Option<String>,
}

fn asked(tool: &ToolEntry) -> Vec<Asked<'_>> {
    let answers = tool.input.get("answers").and_then(Value::as_object);
    tool.input
        .get("questions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|item| {
            let question = item.get("question").and_then(Value::as_str)?;
            let answer = answers
                .and_then(|answers| answers.get(question))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| {
                    tool.result
                        .as_deref()
                        .and_then(|result| answer_in(result, question))
                });
            Some(Asked {
                header: item.get("header").and_then(Value::as_str),
                question,
                choices: item
                    .get("options")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|option| option.get("label").and_then(Value::as_str))
                    .collect(),
                answer,
            })
        })
        .collect()
}

/// The answer to `question` in the agent's echo: `"<question>"="<answer>"`, the answer ending
/// at the quote before `, "`, `. ` or the end.
fn answer_in(result: &str, question: &str) -> Option<String> {
    let start = result.find(&format!("\"{question}\"=\""))? + question.len() + 4;
    let rest = &result[start..];
    let end = [rest.find("\", \""), rest.find("\". "), rest.rfind('"')]
        .into_iter()
        .flatten()
        .min()?;
    Some(rest[..end].to_owned())
}

/// The rows of the open card (`None`: the input holds no questions; the card shows it as
/// any other call's).
pub(crate) fn rows(tool: &ToolEntry, room: usize) -> Option<Vec<Line<'static>>> {
    let asked = asked(tool);
    if asked.is_empty() {
        return None;
    }
    let mut rows = Vec::new();
    for item in &asked {
        let text = match item.header {
            Some(header) => format!("{header}: {}", item.question),
            None => item.question.to_owned(),
        };
        rows.extend(wrapped(&text, room, theme::bold()));
        let (lead, text, style) = match &item.answer {
            Some(answer) => ("→ ", answer.clone(), theme::success()),
            None if !item.choices.is_empty() => (
                "  ",
                format!("{} {}", t(AppText::CardChoices), item.choices.join(" · ")),
                theme::dim(),
            ),
            None => continue,
        };
        let inner = room.saturating_sub(str_width(lead) + 2).max(1);
        for (index, line) in wrapped(&text, inner, style).into_iter().enumerate() {
            let lead = if index == 0 { lead } else { "  " };
            let mut spans = vec![Span::raw("  "), Span::styled(lead, style)];
            spans.extend(line.spans);
            rows.push(Line::from(spans));
        }
    }
    Some(rows)
}

/// Whether the card's rows already say all the result does (every question answered).
pub(crate) fn answers_everything(tool: &ToolEntry) -> bool {
    let asked = asked(tool);
    !asked.is_empty() && asked.iter().all(|item| item.answer.is_some())
}
