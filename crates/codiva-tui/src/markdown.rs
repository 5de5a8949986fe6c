//! Markdown → terminal lines, for an agent's completed messages.
//!
//! One `Line` per terminal row at the given width: prose is wrapped with [`crate::width`]
//! (wide characters never split, nothing overflows), code blocks are cut with `…` rather than
//! wrapped. Model output is untrusted: every character reaches a `Span` through
//! [`inline::sanitize_into`], which drops control characters (ESC, BEL, C1, `\r`, …), so a
//! message can never move the cursor or change the terminal. HTML is shown as text.

mod ascii_grammar;
mod highlight;
mod inline;
mod paint;
mod table;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::theme;
use inline::{Piece, StyledText, cut, measure, sanitize, sanitize_code_line};
pub use paint::{CodeRow, IDLE_DROP, restyle, set_waker, wait_idle};
use table::Table;

/// Where a link sits in the rendered lines, for hit-testing: `row` indexes the lines,
/// `start_col..end_col` are cell columns (end exclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkSpan {
    pub row: usize,
    pub start_col: u16,
    pub end_col: u16,
    pub url: String,
}

/// Renders `markdown` for a column of `width` cells: one `Line` per terminal row.
pub fn render(markdown: &str, width: u16) -> Vec<Line<'static>> {
    render_with_links(markdown, width).0
}

/// [`render`], plus where each link landed.
pub fn render_with_links(markdown: &str, width: u16) -> (Vec<Line<'static>>, Vec<LinkSpan>) {
    let rendered = render_full(markdown, width);
    (rendered.lines, rendered.links)
}

/// Rendered Markdown: its rows, where its links landed and which rows show code (drawn plain
/// here; [`restyle`] paints them when they are on screen).
#[derive(Debug, Default)]
pub struct Rendered {
    pub lines: Vec<Line<'static>>,
    pub links: Vec<LinkSpan>,
    pub code: Vec<CodeRow>,
}

pub fn render_full(markdown: &str, width: u16) -> Rendered {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut parser = Parser::new_ext(markdown, options);
    let mut renderer = Renderer::new(usize::from(width.max(1)));
    // Events read ahead: an ordered list's items are counted before it is drawn (its numbers'
    // width), so its events are read to its end first; nothing else looks ahead, so a long
    // document is not held as events (~60 bytes each, a hundred thousand for 1 MB).
    let mut ahead: std::collections::VecDeque<Event<'_>> = std::collections::VecDeque::new();
    while let Some(event) = ahead.pop_front().or_else(|| parser.next()) {
        if matches!(event, Event::Start(Tag::List(Some(_)))) {
            read_to_list_end(&mut parser, &mut ahead);
        }
        renderer.event(&event, ahead.make_contiguous());
    }
    renderer.finish()
}

/// Reads `parser` into `ahead` until `ahead` holds the end of the list whose start was just
/// taken (or the document ends).
fn read_to_list_end<'a>(
    parser: &mut impl Iterator<Item = Event<'a>>,
    ahead: &mut std::collections::VecDeque<Event<'a>>,
) {
    let mut depth = 0usize;
    let mut at = 0;
    loop {
        if at == ahead.len() {
            match parser.next() {
                Some(event) => ahead.push_back(event),
                None => return,
            }
        }
        match &ahead[at] {
            Event::Start(Tag::List(_)) => depth += 1,
            Event::End(TagEnd::List(_)) if depth == 0 => return,
            Event::End(TagEnd::List(_)) => depth -= 1,
            _ => {}
        }
        at += 1;
    }
}

/// [`render`] with its code highlighted: waits for the highlighter (tests, the bench).
pub fn render_highlighted(markdown: &str, width: u16) -> Vec<Line<'static>> {
    let mut rendered = render_full(markdown, width);
    for row in &rendered.code {
        if let Some(line) = rendered.lines.get(row.row) {
            let _ = restyle(line, row);
        }
    }
    wait_idle();
    for row in &rendered.code {
        if let Some(line) = rendered.lines.get(row.row)
            && let Some(painted) = restyle(line, row)
        {
            rendered.lines[row.row] = painted;
        }
    }
    rendered.lines
}

const BULLETS: [&str; 3] = ["•", "◦", "▪"];
const QUOTE_GUTTER: &str = "│ ";

/// A block that prefixes every row inside it.
#[derive(Debug)]
enum Container {
    Quote,
    /// A list item: its marker (taken by the item's first row) and hanging indent.
    Item {
        marker: Option<Piece>,
        indent: usize,
    },
}

#[derive(Debug)]
struct List {
    next: Option<u64>,
    /// Digits of the largest number, so markers line up.
    digits: usize,
}

#[derive(Debug)]
struct ActiveLink {
    id: usize,
    start: usize,
    url: String,
    always_same: bool,
}

#[derive(Debug)]
struct CodeBlock {
    language: String,
    text: String,
}

struct Renderer {
    width: usize,
    lines: Vec<Line<'static>>,
    links: Vec<LinkSpan>,
    code_rows: Vec<CodeRow>,
    urls: Vec<String>,
    containers: Vec<Container>,
    lists: Vec<List>,
    /// A blank row is owed before the next block: how many containers it shows.
    pending_blank: Option<usize>,
    styles: Vec<Style>,
    inline: StyledText,
    link: Option<ActiveLink>,
    heading: Option<u8>,
    code: Option<CodeBlock>,
    table: Option<Table>,
    row: Vec<StyledText>,
}

impl Renderer {
    fn new(width: usize) -> Self {
        Self {
            width,
            lines: Vec::new(),
            links: Vec::new(),
            code_rows: Vec::new(),
            urls: Vec::new(),
            containers: Vec::new(),
            lists: Vec::new(),
            pending_blank: None,
            styles: vec![theme::text()],
            inline: StyledText::default(),
            link: None,
            heading: None,
            code: None,
            table: None,
            row: Vec::new(),
        }
    }

    fn finish(mut self) -> Rendered {
        self.flush();
        Rendered {
            lines: self.lines,
            links: self.links,
            code: self.code_rows,
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, patch: Style) {
        let style = self.style().patch(patch);
        self.styles.push(style);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn link_id(&self) -> Option<usize> {
        self.link.as_ref().map(|link| link.id)
    }

    fn push_text(&mut self, text: &str) {
        if let Some(code) = &mut self.code {
            code.text.push_str(text);
            return;
        }
        let (style, link) = (self.style(), self.link_id());
        if link.is_some() {
            self.inline.push(text, style, link);
            return;
        }
        // Bare URLs in prose are links too (underlined, clickable, OSC 8).
        let mut rest = text;
        while let Some((before, url, after)) = split_url(rest) {
            if !before.is_empty() {
                self.inline.push(before, style, None);
            }
            let id = self.urls.len();
            self.urls.push(sanitize(url));
            self.inline.push(url, style.patch(theme::link()), Some(id));
            rest = after;
        }
        if !rest.is_empty() {
            self.inline.push(rest, style, None);
        }
    }

    fn block_end(&mut self) {
        self.pending_blank = Some(self.containers.len());
    }

    fn event(&mut self, event: &Event<'_>, rest: &[Event<'_>]) {
        match event {
            Event::Start(tag) => self.start(tag, rest),
            Event::End(tag) => self.end(*tag),
            Event::Text(text) => self.push_text(text),
            Event::Code(text) => {
                let style = self.style().patch(theme::code());
                let link = self.link_id();
                self.inline.push(text, style, link);
            }
            Event::InlineMath(text) | Event::DisplayMath(text) => self.push_text(text),
            Event::Html(text) | Event::InlineHtml(text) => {
                // Shown as written, never interpreted; block HTML keeps its line breaks.
                let text = text.strip_suffix('\n').unwrap_or(text);
                for (index, line) in text.split('\n').enumerate() {
                    if index > 0 {
                        self.inline.push_break();
                    }
                    self.push_text(line);
                }
                if matches!(event, Event::Html(_)) {
                    self.inline.push_break();
                }
            }
            Event::FootnoteReference(label) => self.push_text(&format!("[^{label}]")),
            Event::SoftBreak => self.push_text(" "),
            Event::HardBreak => self.inline.push_break(),
            Event::Rule => {
                self.flush();
                let rule = "─".repeat(self.content_width());
                self.emit(vec![Piece::new(rule, theme::border())]);
                self.block_end();
            }
            Event::TaskListMarker(checked) => {
                let (glyph, style) = if *checked {
                    (theme::glyph::CHECKED, theme::success())
                } else {
                    (theme::glyph::UNCHECKED, theme::text())
                };
                if let Some(Container::Item { marker, indent }) = self.containers.last_mut() {
                    *marker = Some(Piece::new(format!("{glyph} "), style));
                    *indent = measure(glyph) + 1;
                }
            }
        }
    }

    fn start(&mut self, tag: &Tag<'_>, rest: &[Event<'_>]) {
        match tag {
            Tag::Paragraph => self.flush(),
            Tag::Heading { level, .. } => {
                self.flush();
                let level = heading_level(*level);
                self.heading = Some(level);
                self.push_style(theme::heading_level(level));
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.containers.push(Container::Quote);
                self.push_style(theme::quote());
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let language = match kind {
                    CodeBlockKind::Fenced(info) => {
                        sanitize(info.split_whitespace().next().unwrap_or_default())
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some(CodeBlock {
                    language,
                    text: String::new(),
                });
            }
            Tag::HtmlBlock => self.flush(),
            Tag::List(first) => {
                self.flush();
                let digits = first.map_or(0, |first| {
                    let last = first.saturating_add(count_items(rest).saturating_sub(1));
                    last.to_string().len()
                });
                self.lists.push(List {
                    next: *first,
                    digits,
                });
            }
            Tag::Item => {
                self.flush();
                let depth = self.lists.len().saturating_sub(1);
                let (text, style) = match self.lists.last_mut() {
                    Some(List {
                        next: Some(number),
                        digits,
                    }) => {
                        let text = format!("{number:>digits$}. ", digits = *digits);
                        *number = number.saturating_add(1);
                        (text, theme::list_marker())
                    }
                    _ => (
                        format!("{} ", BULLETS[depth % BULLETS.len()]),
                        theme::list_marker(),
                    ),
                };
                let indent = measure(&text);
                self.containers.push(Container::Item {
                    marker: Some(Piece::new(text, style)),
                    indent,
                });
            }
            Tag::Table(aligns) => {
                self.flush();
                self.table = Some(Table {
                    aligns: aligns.clone(),
                    ..Table::default()
                });
            }
            Tag::TableHead => {
                self.push_style(theme::bold());
            }
            Tag::TableRow => self.row.clear(),
            Tag::TableCell => self.inline = StyledText::default(),
            Tag::Emphasis => self.push_style(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(theme::bold()),
            Tag::Strikethrough => self.push_style(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Superscript | Tag::Subscript => self.push_style(Style::new()),
            Tag::Link {
                link_type,
                dest_url,
                ..
            } => {
                let id = self.urls.len();
                let url = sanitize(dest_url);
                self.urls.push(url.clone());
                self.link = Some(ActiveLink {
                    id,
                    start: self.inline.len(),
                    url,
                    always_same: matches!(link_type, LinkType::Autolink | LinkType::Email),
                });
                self.push_style(theme::link());
            }
            Tag::Image { .. } => {
                let (style, link) = (self.style().patch(theme::dim()), self.link_id());
                self.inline.push("[image: ", style, link);
                self.push_style(theme::dim());
            }
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => self.flush(),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => {
                self.flush();
                self.block_end();
            }
            TagEnd::Heading(_) => {
                self.flush();
                self.heading = None;
                self.pop_style();
                self.block_end();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.containers.pop();
                self.pop_style();
                self.block_end();
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    self.emit_code(&code);
                }
                self.block_end();
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                if !matches!(self.containers.last(), Some(Container::Item { .. })) {
                    self.block_end();
                }
            }
            TagEnd::Item => {
                self.flush();
                self.containers.pop();
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    let rows = table::layout(&table, self.content_width());
                    for row in rows {
                        self.emit(row);
                    }
                }
                self.block_end();
            }
            TagEnd::TableHead => {
                self.pop_style();
                self.end_table_row(true);
            }
            TagEnd::TableRow => self.end_table_row(false),
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                self.row.push(cell);
            }
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript => self.pop_style(),
            TagEnd::Link => {
                self.pop_style();
                if let Some(link) = self.link.take() {
                    let text = self.inline.as_str().get(link.start..).unwrap_or_default();
                    let same = link.always_same
                        || text == link.url
                        || link.url.strip_prefix("mailto:") == Some(text);
                    if !same && !link.url.is_empty() {
                        let style = self.style().patch(theme::dim());
                        let url = format!(" ({})", link.url);
                        self.inline.push(&url, style, Some(link.id));
                    }
                }
            }
            TagEnd::Image => {
                self.pop_style();
                let (style, link) = (self.style().patch(theme::dim()), self.link_id());
                self.inline.push("]", style, link);
            }
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_) => {
                self.flush();
                self.block_end();
            }
        }
    }

    fn end_table_row(&mut self, header: bool) {
        let row = std::mem::take(&mut self.row);
        if let Some(table) = &mut self.table {
            table.rows.push(row);
            if header {
                table.header_rows = table.rows.len();
            }
        }
    }

    /// Cells left for content after the containers' prefixes.
    fn content_width(&self) -> usize {
        let prefix: usize = self
            .containers
            .iter()
            .map(|container| match container {
                Container::Quote => measure(QUOTE_GUTTER),
                Container::Item { indent, .. } => *indent,
            })
            .sum();
        self.width.saturating_sub(prefix).max(1)
    }

    /// Emits the pending inline text (a paragraph, heading, tight list item or HTML block).
    fn flush(&mut self) {
        if self.inline.is_empty() || self.table.is_some() {
            return;
        }
        let text = std::mem::take(&mut self.inline);
        let lead = self.heading.map(|level| {
            let marker = format!("{} ", "#".repeat(usize::from(level)));
            Piece::new(marker, theme::dim())
        });
        let lead_width = lead.as_ref().map_or(0, |lead| measure(&lead.text));
        let width = self.content_width().saturating_sub(lead_width).max(1);
        let mut lead = lead;
        for row in text.wrap(width) {
            let mut pieces = Vec::with_capacity(row.len() + 1);
            match lead.take() {
                Some(lead) => pieces.push(lead),
                None if lead_width > 0 => {
                    pieces.push(Piece::new(" ".repeat(lead_width), theme::text()))
                }
                None => {}
            }
            pieces.extend(row);
            self.emit(pieces);
        }
    }

    fn emit_code(&mut self, code: &CodeBlock) {
        let frame = theme::border();
        let mut top = vec![Piece::new("╭─", frame)];
        if !code.language.is_empty() {
            top.push(Piece::new(" ", frame));
            top.push(Piece::new(code.language.clone(), theme::dim()));
        }
        self.emit(top);
        let width = self.content_width().saturating_sub(2).max(1);
        let text = code.text.strip_suffix('\n').unwrap_or(&code.text);
        let lines: Vec<String> = text.split('\n').map(sanitize_code_line).collect();
        let block = std::sync::Arc::new(paint::Code::new(&code.language, lines));
        for (index, line) in text.split('\n').enumerate() {
            let line = block.line(index).unwrap_or(line).to_owned();
            let (pieces, _) = cut(vec![Piece::new(line, theme::code())], width, theme::dim());
            // The code piece (before a `…`), if any of it is shown.
            let shown = pieces
                .first()
                .is_some_and(|piece| !piece.text.is_empty() && piece.text != "…");
            let from_end = pieces.len();
            let mut row = vec![Piece::new("│ ", frame)];
            row.extend(pieces);
            self.emit(row);
            if shown {
                self.code_rows.push(CodeRow {
                    row: self.lines.len() - 1,
                    from_end,
                    code: block.clone(),
                    line: index,
                });
            }
        }
        self.emit(vec![Piece::new("╰─", frame)]);
    }

    /// The containers' prefix for the next row; `first` takes list markers.
    fn prefix(&mut self, count: usize, take_markers: bool) -> Vec<Piece> {
        let mut pieces = Vec::new();
        for container in self.containers.iter_mut().take(count) {
            match container {
                Container::Quote => pieces.push(Piece::new(QUOTE_GUTTER, theme::border())),
                Container::Item { marker, indent } => match marker.take() {
                    Some(marker) if take_markers => pieces.push(marker),
                    kept => {
                        *marker = kept;
                        pieces.push(Piece::new(" ".repeat(*indent), theme::text()));
                    }
                },
            }
        }
        pieces
    }

    /// Adds one row: the containers' prefix, then `content`; owed blank rows go first.
    fn emit(&mut self, content: Vec<Piece>) {
        let owed = self.pending_blank.take().filter(|_| !self.lines.is_empty());
        if let Some(depth) = owed {
            let count = depth.min(self.containers.len());
            let mut blank = self.prefix(count, false);
            // A blank row shows only the quote gutters, without trailing spaces.
            while let Some(last) = blank.last_mut() {
                let trimmed = last.text.trim_end().len();
                if trimmed > 0 {
                    last.text.truncate(trimmed);
                    break;
                }
                blank.pop();
            }
            self.push_line(blank);
        }
        let mut pieces = self.prefix(self.containers.len(), true);
        pieces.extend(content);
        self.push_line(pieces);
    }

    fn push_line(&mut self, pieces: Vec<Piece>) {
        let (pieces, _) = cut(pieces, self.width, theme::dim());
        let row = self.lines.len();
        let mut column = 0;
        let mut spans = Vec::with_capacity(pieces.len());
        for piece in pieces {
            let width = measure(&piece.text);
            if let Some(id) = piece.link {
                let (start_col, end_col) = (to_col(column), to_col(column + width));
                match self.links.last_mut() {
                    Some(last)
                        if last.row == row
                            && last.end_col == start_col
                            && self.urls.get(id) == Some(&last.url) =>
                    {
                        last.end_col = end_col;
                    }
                    _ => self.links.push(LinkSpan {
                        row,
                        start_col,
                        end_col,
                        url: self.urls.get(id).cloned().unwrap_or_default(),
                    }),
                }
            }
            column += width;
            spans.push(Span::styled(piece.text, piece.style));
        }
        self.lines.push(Line::from(spans));
    }
}

fn to_col(column: usize) -> u16 {
    u16::try_from(column).unwrap_or(u16::MAX)
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Items of the list whose `Start(List)` precedes `rest`.
fn count_items(rest: &[Event<'_>]) -> u64 {
    let mut depth = 0usize;
    let mut items = 0;
    for event in rest {
        match event {
            Event::Start(Tag::List(_)) => depth += 1,
            Event::End(TagEnd::List(_)) if depth == 0 => break,
            Event::End(TagEnd::List(_)) => depth -= 1,
            Event::Start(Tag::Item) if depth == 0 => items += 1,
            _ => {}
        }
    }
    items
}

/// The first `http(s)://` URL in `text`: (before, url, after). A URL ends at whitespace or a
/// character that cannot be in one; trailing punctuation (`.`, `,`, `)` without its `(` …) is
/// left outside.
fn split_url(text: &str) -> Option<(&str, &str, &str)> {
    let start = ["https://", "http://"]
        .iter()
        .filter_map(|scheme| text.find(scheme))
        .min()?;
    let tail = &text[start..];
    let mut end = tail
        .find(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '`'))
        .unwrap_or(tail.len());
    loop {
        let url = &tail[..end];
        let Some(last) = url.chars().last() else {
            break;
        };
        let unbalanced = last == ')' && url.matches('(').count() < url.matches(')').count();
        if matches!(last, '.' | ',' | ';' | ':' | '!' | '?' | '\'' | ']' | '}') || unbalanced {
            end -= last.len_utf8();
        } else {
            break;
        }
    }
    let url = &tail[..end];
    if url.len() <= "https://".len() {
        return None;
    }
    Some((&text[..start], url, &tail[end..]))
}

#[cfg(test)]
mod url_tests {
    use super::split_url;

    #[test]
    fn bare_urls_are_found_without_trailing_punctuation() {
        assert_eq!(
            split_url("see https://example.invalid/a. Then"),
            Some(("see ", "https://example.invalid/a", ". Then"))
        );
        assert_eq!(
            split_url("(docs: https://example.invalid/x_(y))"),
            Some(("(docs: ", "https://example.invalid/x_(y)", ")"))
        );
        assert_eq!(split_url("no links here"), None);
        assert_eq!(split_url("just https:// alone"), None);
    }
}
