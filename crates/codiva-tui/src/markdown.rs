//! Markdown → terminal lines. (Placeholder: plain wrapped text until the renderer lands.)

use ratatui::text::Line;

use crate::width::wrap_text;

/// Renders `markdown` for a column of `width` cells: one `Line` per terminal row.
pub fn render(markdown: &str, width: u16) -> Vec<Line<'static>> {
    wrap_text(markdown, usize::from(width.max(1)))
        .into_iter()
        .map(|row| Line::raw(markdown[row.start..row.end].to_owned()))
        .collect()
}
