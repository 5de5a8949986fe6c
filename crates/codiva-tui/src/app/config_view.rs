//! `/config`: the configuration file as a list of every key `config/read` answers — what the
//! file says, or the default — drawn over the body. Enter edits the selected key in a one-line
//! editor; Enter there asks the loop to write that one key back (`config/set`: the core's
//! `config_edit` keeps the user's comments and layout). Saved values apply the next time codiva
//! starts.

use codiva_protocol::params::ConfigField;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::composer::{Composer, ComposerAction};
use crate::dialog::sanitize;
use crate::i18n::{ViewText, t, tf};
use crate::theme;
use crate::width::{fit, str_width, truncate};

/// The narrowest the values' column gets (when no key is set, or only short values).
const VALUE_MIN_WIDTH: usize = 10;

pub struct ConfigView {
    pub path: String,
    fields: Vec<ConfigField>,
    selected: usize,
    /// The key being edited and its editor.
    editing: Option<Composer>,
}

pub enum ConfigAction {
    None,
    Close,
    Save { key: String, value: String },
}

impl ConfigView {
    pub fn new(path: String, fields: Vec<ConfigField>) -> Self {
        ConfigView {
            path,
            fields,
            selected: 0,
            editing: None,
        }
    }

    /// New contents after a save; the selection stays on the same key.
    pub fn replace(&mut self, fields: Vec<ConfigField>) {
        self.fields = fields;
        self.selected = self.selected.min(self.fields.len().saturating_sub(1));
        self.editing = None;
    }

    pub fn key(&mut self, key: KeyEvent) -> ConfigAction {
        if let Some(editor) = &mut self.editing {
            if key.code == KeyCode::Esc {
                self.editing = None;
                return ConfigAction::None;
            }
            if key.code == KeyCode::Enter {
                let value = editor.text().to_owned();
                let Some(field) = self.fields.get(self.selected) else {
                    return ConfigAction::None;
                };
                return ConfigAction::Save {
                    key: field.key.to_owned(),
                    value,
                };
            }
            if let ComposerAction::Submit(value) = editor.handle_key(key)
                && let Some(field) = self.fields.get(self.selected)
            {
                return ConfigAction::Save {
                    key: field.key.to_owned(),
                    value,
                };
            }
            return ConfigAction::None;
        }
        if super::picker::move_selection(&mut self.selected, self.fields.len(), key.code) {
            return ConfigAction::None;
        }
        match key.code {
            KeyCode::Enter => {
                if let Some(field) = self.fields.get(self.selected) {
                    let mut editor = Composer::new();
                    editor.set_text(field.value.as_deref().unwrap_or(""));
                    self.editing = Some(editor);
                }
            }
            KeyCode::Esc | KeyCode::Char('q') => return ConfigAction::Close,
            _ => {}
        }
        ConfigAction::None
    }

    /// Draws the view; returns where the caret goes while a value is edited.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
        if area.height == 0 {
            return None;
        }
        let width = usize::from(area.width);
        crate::width::set_line(
            buf,
            area.x,
            area.y,
            &Line::styled(
                truncate(
                    &format!(" {}", tf(ViewText::ConfigTitle, &[&self.path])),
                    width,
                ),
                theme::bold(),
            ),
            area.width,
        );
        let editor_rows: u16 = if self.editing.is_some() { 2 } else { 0 };
        let rows = usize::from(area.height.saturating_sub(1 + editor_rows));
        let key_width = self.fields.iter().map(|f| f.key.len()).max().unwrap_or(0);
        // The values' column is as wide as the widest value and a space (half the room at
        // most); the defaults get the rest, cut with `…` where they do not fit.
        let widest_value = self
            .fields
            .iter()
            .filter_map(|field| field.value.as_deref())
            .map(|value| str_width(&sanitize(value)) + 1)
            .max()
            .unwrap_or(0);
        let value_width = widest_value
            .max(VALUE_MIN_WIDTH)
            .min(width.saturating_sub(key_width + 5) / 2);
        let default_width = width.saturating_sub(key_width + value_width + 4);
        let first = self.selected.saturating_sub(rows.saturating_sub(1));
        let shown =
            super::picker::visible_rows(&self.fields, self.selected, first, area.y + 1, rows);
        for (y, selected, field) in shown {
            let (style, marker) = theme::pick_row(selected);
            let mut spans = vec![
                marker,
                Span::styled(fit(&field.key, key_width), style),
                Span::raw("  "),
            ];
            match &field.value {
                Some(value) => spans.push(Span::styled(
                    fit(&sanitize(value), value_width),
                    theme::accent(),
                )),
                None => spans.push(Span::styled(fit("", value_width), theme::dim())),
            }
            let default = match field.default.as_str() {
                "searched" => t(ViewText::ConfigDefaultSearched),
                "the CLI's default" => t(ViewText::ConfigDefaultCli),
                "the first installed" => t(ViewText::ConfigDefaultFirstAgent),
                "no limit" => t(ViewText::ConfigDefaultNoLimit),
                other => other,
            };
            spans.push(Span::styled(
                truncate(
                    &format!(" {}", tf(ViewText::ConfigDefault, &[default])),
                    default_width,
                ),
                theme::dim(),
            ));
            crate::width::set_line(buf, area.x, y, &Line::from(spans), area.width);
        }
        let editor = self.editing.as_mut()?;
        let key = self
            .fields
            .get(self.selected)
            .map_or("", |field| field.key.as_str());
        let y = area.bottom().saturating_sub(2);
        crate::width::set_line(
            buf,
            area.x,
            y,
            &Line::styled(
                truncate(&format!(" {}", tf(ViewText::ConfigEditHint, &[key])), width),
                theme::warning(),
            ),
            area.width,
        );
        editor.render(Rect::new(area.x, y + 1, area.width, 1), buf)
    }
}
