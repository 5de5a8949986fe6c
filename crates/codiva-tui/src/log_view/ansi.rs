//! Tool output with terminal escapes, made safe to draw: SGR sequences (`ESC [ … m`: bold, dim,
//! italic, underline, reverse, strike-through, 16/256/true-colour foreground and background,
//! resets) become ratatui styles; every other escape (cursor movement, clears, OSC titles and
//! hyperlinks, DCS/APC strings, charset switches) and every other control character is dropped,
//! so nothing but text and colour reaches the terminal. A `\r` inside a line keeps only what
//! comes after it (a progress bar shows its last state); `\r\n` is a plain line end.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

use crate::width::wrap_line;

/// Parameter bytes kept for one CSI sequence; longer ones are consumed but ignored.
const MAX_PARAMS: usize = 64;

/// One line of output: its text (no control characters) and the style of each byte range.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct StyledLine {
    pub(crate) text: String,
    /// `(end byte, style)` runs covering `text` in order.
    runs: Vec<(usize, Style)>,
}

impl StyledLine {
    fn push(&mut self, c: char, style: Style) {
        self.text.push(c);
        self.extend(style);
    }

    fn push_str(&mut self, text: &str, style: Style) {
        self.text.push_str(text);
        self.extend(style);
    }

    /// The last run now ends at the end of the text.
    fn extend(&mut self, style: Style) {
        let end = self.text.len();
        match self.runs.last_mut() {
            Some((last, last_style)) if *last_style == style => *last = end,
            _ => self.runs.push((end, style)),
        }
    }

    fn clear(&mut self) {
        self.text.clear();
        self.runs.clear();
    }

    /// The spans of bytes `start..end` (a wrapped row), trailing spaces of the row dropped.
    pub(crate) fn spans(&self, start: usize, end: usize) -> Vec<Span<'static>> {
        let end = start + self.text[start..end].trim_end().len();
        let mut spans = Vec::new();
        let mut from = 0;
        for &(to, style) in &self.runs {
            let (a, b) = (from.max(start), to.min(end));
            if a < b {
                spans.push(Span::styled(self.text[a..b].to_owned(), style));
            }
            from = to;
            if from >= end {
                break;
            }
        }
        spans
    }

    /// The line wrapped at `width` cells: one span list per row.
    pub(crate) fn rows(&self, width: usize) -> Vec<Vec<Span<'static>>> {
        wrap_line(&self.text, width)
            .into_iter()
            .map(|row| self.spans(row.start, row.end))
            .collect()
    }
}

/// Characters that must never reach a cell: controls (C0, DEL, C1) and bidirectional
/// overrides, which could make text read differently from what it is.
pub(crate) fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Parses `text` into lines; `base` is the style of plain text and what a reset returns to.
/// Styles carry across line ends, as on a terminal. A final line end gives no empty last line.
pub(crate) fn parse(text: &str, base: Style) -> Vec<StyledLine> {
    let mut parser = Parser {
        lines: Vec::new(),
        line: StyledLine::default(),
        style: base,
        base,
        overwrite: false,
    };
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => parser.end_line(),
            '\r' => parser.overwrite = true,
            '\t' => parser.text_str("    "),
            '\u{1b}' => match chars.peek().copied() {
                Some('[') => {
                    chars.next();
                    parser.csi(&mut chars);
                }
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    chars.next();
                    skip_string(&mut chars);
                }
                Some(' '..='/') => {
                    // nF: intermediates, then one final byte (charset designations and the like).
                    while chars.next_if(|c| matches!(c, ' '..='/')).is_some() {}
                    chars.next_if(|c| matches!(c, '0'..='~'));
                }
                Some('0'..='~') => {
                    // A two-character escape (save cursor, reset, index…).
                    chars.next();
                }
                // A lone ESC: dropped; what follows is handled on its own.
                _ => {}
            },
            '\u{9b}' => parser.csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if is_unsafe(c) => {}
            c => parser.text(c),
        }
    }
    if !parser.line.text.is_empty() {
        parser.end_line();
    }
    parser.lines
}

struct Parser {
    lines: Vec<StyledLine>,
    line: StyledLine,
    style: Style,
    base: Style,
    /// A `\r` was seen: the next text replaces the line so far.
    overwrite: bool,
}

impl Parser {
    fn text(&mut self, c: char) {
        self.overwrite_now();
        self.line.push(c, self.style);
    }

    fn text_str(&mut self, text: &str) {
        self.overwrite_now();
        self.line.push_str(text, self.style);
    }

    fn overwrite_now(&mut self) {
        if self.overwrite {
            self.overwrite = false;
            self.line.clear();
        }
    }

    fn end_line(&mut self) {
        self.overwrite = false;
        self.lines.push(std::mem::take(&mut self.line));
    }

    /// After `ESC [`: parameter bytes, intermediate bytes, one final byte. Only an SGR (`m`
    /// without intermediates or private markers) has an effect; a sequence broken by any other
    /// character is dropped and that character is handled as usual.
    fn csi(&mut self, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
        let mut params = String::new();
        let mut intermediates = false;
        while let Some(&c) = chars.peek() {
            match c {
                '0'..='?' if !intermediates => {
                    if params.len() < MAX_PARAMS {
                        params.push(c);
                    }
                    chars.next();
                }
                ' '..='/' => {
                    intermediates = true;
                    chars.next();
                }
                '@'..='~' => {
                    chars.next();
                    if c == 'm' && !intermediates && params.len() < MAX_PARAMS {
                        self.style = sgr(&params, self.style, self.base);
                    }
                    return;
                }
                _ => return,
            }
        }
    }
}

/// Skips an OSC/DCS/SOS/PM/APC string up to its terminator (BEL, `ESC \` or ST). A line end
/// also ends it, so that an unterminated string cannot swallow the rest of the output.
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(&c) = chars.peek() {
        match c {
            '\n' => return,
            '\u{7}' | '\u{9c}' => {
                chars.next();
                return;
            }
            '\u{1b}' => {
                chars.next();
                chars.next_if_eq(&'\\');
                return;
            }
            _ => {
                chars.next();
            }
        }
    }
}

/// Applies the SGR parameters `params` (`;`-separated, `:` sub-parameters) to `style`.
fn sgr(params: &str, mut style: Style, base: Style) -> Style {
    if params.starts_with(['<', '=', '>', '?']) {
        return style;
    }
    let mut groups = params.split(';');
    while let Some(group) = groups.next() {
        let mut subs = group.split(':');
        let Some(code) = number(subs.next().unwrap_or("")) else {
            continue;
        };
        style = match code {
            0 => base,
            1 => style.add_modifier(Modifier::BOLD),
            2 => style.add_modifier(Modifier::DIM),
            3 => style.add_modifier(Modifier::ITALIC),
            4 => match subs.next().and_then(number) {
                Some(0) => style.remove_modifier(Modifier::UNDERLINED),
                _ => style.add_modifier(Modifier::UNDERLINED),
            },
            7 => style.add_modifier(Modifier::REVERSED),
            9 => style.add_modifier(Modifier::CROSSED_OUT),
            21 => style.add_modifier(Modifier::UNDERLINED),
            22 => style.remove_modifier(Modifier::BOLD | Modifier::DIM),
            23 => style.remove_modifier(Modifier::ITALIC),
            24 => style.remove_modifier(Modifier::UNDERLINED),
            27 => style.remove_modifier(Modifier::REVERSED),
            29 => style.remove_modifier(Modifier::CROSSED_OUT),
            30..=37 => style.fg(basic(code - 30)),
            39 => fg_of(style, base),
            40..=47 => style.bg(basic(code - 40)),
            49 => bg_of(style, base),
            90..=97 => style.fg(bright(code - 90)),
            100..=107 => style.bg(bright(code - 100)),
            38 | 48 => {
                // `38:5:n` / `38:2:[cs:]r:g:b` or the `;` forms.
                let rest: Vec<&str> = subs.collect();
                let color = if rest.is_empty() {
                    extended(&mut groups, false)
                } else {
                    extended(&mut rest.into_iter(), true)
                };
                match (code, color) {
                    (38, Some(color)) => style.fg(color),
                    (48, Some(color)) => style.bg(color),
                    _ => style,
                }
            }
            // Blink, hidden text, fonts and the rest: ignored (hidden text would hide output).
            _ => style,
        };
    }
    style
}

/// The colour after `38`/`48`: `5;n` or `2;r;g;b` (with `:` an optional colour-space id may
/// come before r, g, b).
fn extended<'a>(parts: &mut impl Iterator<Item = &'a str>, colon: bool) -> Option<Color> {
    match number(parts.next()?)? {
        5 => u8::try_from(number(parts.next()?)?)
            .ok()
            .map(Color::Indexed),
        2 => {
            let values: Vec<u16> = if colon {
                let all: Vec<&str> = parts.collect();
                let skip = usize::from(all.len() >= 4);
                all[skip..]
                    .iter()
                    .take(3)
                    .map(|v| number(v).unwrap_or(0))
                    .collect()
            } else {
                parts.take(3).map(|v| number(v).unwrap_or(0)).collect()
            };
            let [r, g, b] = values.as_slice() else {
                return None;
            };
            Some(Color::Rgb(
                u8::try_from(*r).ok()?,
                u8::try_from(*g).ok()?,
                u8::try_from(*b).ok()?,
            ))
        }
        _ => None,
    }
}

/// A parameter: empty is 0; anything but digits (or a number too large) is no parameter.
fn number(text: &str) -> Option<u16> {
    if text.is_empty() {
        Some(0)
    } else {
        text.parse().ok()
    }
}

fn basic(n: u16) -> Color {
    match n {
        0 => Color::Black,
        1 => Color::Red,
        2 => Color::Green,
        3 => Color::Yellow,
        4 => Color::Blue,
        5 => Color::Magenta,
        6 => Color::Cyan,
        _ => Color::Gray,
    }
}

fn bright(n: u16) -> Color {
    match n {
        0 => Color::DarkGray,
        1 => Color::LightRed,
        2 => Color::LightGreen,
        3 => Color::LightYellow,
        4 => Color::LightBlue,
        5 => Color::LightMagenta,
        6 => Color::LightCyan,
        _ => Color::White,
    }
}

fn fg_of(style: Style, base: Style) -> Style {
    Style {
        fg: base.fg,
        ..style
    }
}

fn bg_of(style: Style, base: Style) -> Style {
    Style {
        bg: base.bg,
        ..style
    }
}

#[cfg(test)]
#[path = "ansi_tests.rs"]
mod tests;
