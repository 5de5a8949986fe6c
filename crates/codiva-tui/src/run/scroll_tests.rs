//! Frames that scroll (`scroll.rs` through the backend): what a stream-only frame writes when
//! the log's tail moves up, and that the terminal then shows exactly the frame.

use std::io;

use codiva_protocol::manager::{ManagerEvent, SessionInfo};
use codiva_protocol::session::SessionEvent;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::{CrosstermBackend, TestBackend};
use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Size;
use ratatui::{Terminal, TerminalOptions, Viewport};

use super::backend::{ScrollRows, SizedBackend};
use super::scroll::Scroll;
use crate::app::{App, AppInfo, Done, UiEvent};

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;

/// Bytes written to the "terminal", shared with the test.
#[derive(Clone, Default)]
struct Output(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl io::Write for Output {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Output {
    fn len(&self) -> usize {
        self.0.borrow().len()
    }
}

fn terminal(scrolls: bool) -> (Terminal<SizedBackend<CrosstermBackend<Output>>>, Output) {
    let output = Output::default();
    let mut backend = SizedBackend::new(CrosstermBackend::new(output.clone()));
    backend.set_size(Size::new(WIDTH, HEIGHT));
    if scrolls {
        backend.scroll_frames();
    }
    let terminal = Terminal::with_options(
        backend,
        TerminalOptions {
            viewport: Viewport::Fullscreen,
        },
    )
    .unwrap();
    (terminal, output)
}

/// A running session, open, with its log and streamed text.
fn streaming_app() -> App {
    let mut app = App::new(AppInfo {
        version: "0.1.0".into(),
        cwd: "~/work/app".into(),
        base: "main".into(),
        agent: "claude".into(),
        model: None,
        warnings: Vec::new(),
        agents: Vec::new(),
        remote: None,
        detached: false,
    });
    let session: SessionInfo = serde_json::from_value(serde_json::json!({
        "id": "s1", "title": "Write the long answer", "prompt": "Write the long answer",
        "branch": "codiva/s1", "worktree": "/work/app/.codiva/worktrees/s1", "base": "main",
        "phase": "active", "status": "running", "detail": null, "agent": "claude",
        "agent_session_id": "0000", "model": null, "cost_usd": null, "active_ms": 0,
        "created_at": 1, "pending_prompts": 0,
        "todos": {"done": 0, "total": 0}
    }))
    .unwrap();
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::Session {
        session,
    })));
    for code in [KeyCode::Tab, KeyCode::Enter] {
        app.handle(UiEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }
    app.handle(UiEvent::Done(Done::LogRead {
        id: "s1".into(),
        entries: Vec::new(),
        subagents: Vec::new(),
        todos: Vec::new(),
    }));
    app
}

/// Lines of the reply, each unlike its neighbours (as prose is: a row moved up by one differs
/// from the row it lands on in most cells).
fn stream(app: &mut App, from: usize, to: usize) {
    const WORDS: [&str; 7] = ["parser", "hands", "each", "event", "to", "the", "reducer"];
    let text: String = (from..to)
        .map(|n| {
            let words: Vec<&str> = (0..10)
                .map(|i| WORDS[(n * 3 + i * (n % 5 + 1)) % 7])
                .collect();
            // A hard break: streaming text is Markdown, and each line is a row of its own.
            format!("Line {n} of the reply: {}.  \n", words.join(" "))
        })
        .collect();
    app.handle(UiEvent::Manager(Box::new(ManagerEvent::Event {
        id: "s1".into(),
        event: SessionEvent::Stream { text, reset: false },
    })));
}

/// The screen a terminal shows after `bytes`, row by row.
fn shown(bytes: &[u8]) -> Vec<String> {
    let mut parser = vt100::Parser::new(HEIGHT, WIDTH, 0);
    parser.process(bytes);
    parser.screen().rows(0, WIDTH).collect()
}

/// Draws a frame as the run loop does; returns the frame's rows (drawn again, on a test
/// backend, since the presented buffer goes to the screen).
fn draw(
    terminal: &mut Terminal<SizedBackend<CrosstermBackend<Output>>>,
    app: &mut App,
) -> Vec<String> {
    super::draw_frame(terminal, app).unwrap();
    let mut plain = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
    plain.draw(|frame| app.render(frame)).unwrap();
    rows(plain.backend().buffer())
}

fn rows(buffer: &Buffer) -> Vec<String> {
    (0..buffer.area.height)
        .map(|y| {
            let mut row = String::new();
            let mut x = 0;
            while x < buffer.area.width {
                let symbol = buffer[(x, y)].symbol();
                row.push_str(symbol);
                x += u16::try_from(crate::width::str_width(symbol).max(1)).unwrap_or(1);
            }
            row.trim_end().to_owned()
        })
        .collect()
}

/// A stream-only frame where the tail moved up by a line writes about one row and a scroll,
/// not the whole log; the terminal then shows the frame.
#[test]
fn a_stream_only_frame_that_scrolls_writes_the_new_rows_only() {
    let mut written = Vec::new();
    for scrolls in [false, true] {
        let mut app = streaming_app();
        let (mut terminal, output) = terminal(scrolls);
        stream(&mut app, 0, 60);
        draw(&mut terminal, &mut app);
        let before = output.len();
        stream(&mut app, 60, 61);
        let frame = draw(&mut terminal, &mut app);
        written.push(output.len() - before);
        assert!(
            frame.iter().any(|row| row.contains("Line 60 of the reply")),
            "the tail follows: {frame:#?}"
        );
        let screen: Vec<String> = shown(&output.0.borrow())
            .into_iter()
            .map(|row| row.trim_end().to_owned())
            .collect();
        assert_eq!(
            screen, frame,
            "the terminal shows the frame (scrolls: {scrolls})"
        );
    }
    let (plain, scrolled) = (written[0], written[1]);
    // The log is ~30 rows of ~70 characters: written whole, that is over 2 KB.
    assert!(
        plain > 1500,
        "without scrolling the log is rewritten: {plain} bytes"
    );
    assert!(
        scrolled < 400,
        "a frame that scrolls by a line writes about that line: {scrolled} bytes"
    );
}

/// Several frames in a row, scrolling by different amounts (and one line that changes in
/// place), leave the terminal showing each frame.
#[test]
fn frames_that_scroll_by_different_amounts_leave_the_screen_right() {
    let mut app = streaming_app();
    let (mut terminal, output) = terminal(true);
    let mut line = 0;
    for step in [50, 1, 3, 7, 1, 25, 2, 60, 1] {
        stream(&mut app, line, line + step);
        line += step;
        let frame = draw(&mut terminal, &mut app);
        let screen: Vec<String> = shown(&output.0.borrow())
            .into_iter()
            .map(|row| row.trim_end().to_owned())
            .collect();
        assert_eq!(screen, frame, "after {line} lines");
    }
}

/// The scroll as a terminal does it: rows move up inside the region, blank rows come in at
/// its bottom, and the rest of the screen stays.
#[test]
fn the_scroll_sequence_moves_the_region_only() {
    let mut parser = vt100::Parser::new(6, 10, 0);
    parser
        .process(b"\x1b[1;1Hrow0\x1b[2;1Hrow1\x1b[3;1Hrow2\x1b[4;1Hrow3\x1b[5;1Hrow4\x1b[6;1Hrow5");
    let scroll = Scroll {
        top: 1,
        bottom: 4,
        n: 2,
    };
    parser.process(scroll.sequence().as_bytes());
    let rows: Vec<String> = parser.screen().rows(0, 10).collect();
    assert_eq!(rows, ["row0", "row3", "row4", "", "", "row5"]);
}

/// The test backend moves its cells the same way (so tests drawing through it see scrolls).
impl ScrollRows for TestBackend {
    fn scroll_rows(&mut self, scroll: Scroll) -> Result<(), Self::Error> {
        let buffer = self.buffer().clone();
        let width = buffer.area.width;
        let blank = ratatui::buffer::Cell::EMPTY;
        let mut cells = Vec::new();
        for y in scroll.top..=scroll.bottom {
            let from = y + scroll.n;
            for x in 0..width {
                let cell = if from <= scroll.bottom {
                    buffer[(x, from)].clone()
                } else {
                    blank.clone()
                };
                cells.push((x, y, cell));
            }
        }
        ratatui::backend::Backend::draw(self, cells.iter().map(|(x, y, c)| (*x, *y, c)))
    }
}

/// Rows diffed one by one give the cells ratatui's diff of the whole buffers gives: wide
/// characters, emoji with VS16, a narrow cell replacing a wide one on a coloured background,
/// skipped cells, styles.
#[test]
fn a_row_diff_gives_what_ratatuis_diff_gives() {
    use ratatui::layout::Rect;
    use ratatui::style::{Color, Style};
    const PIECES: [&str; 12] = [
        "a",
        "b",
        " ",
        "日",
        "本",
        "❤\u{fe0f}",
        "👍",
        "e\u{301}",
        "x",
        "·",
        "漢字",
        "ab",
    ];
    let styles = [
        Style::default(),
        Style::default().bg(Color::Blue),
        Style::default().fg(Color::Red).reversed(),
    ];
    // A small deterministic generator (no dependency for it).
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        usize::try_from(seed % n as u64).unwrap()
    };
    let area = Rect::new(0, 0, 12, 4);
    let fill = |buffer: &mut Buffer, next: &mut dyn FnMut(usize) -> usize| {
        for y in 0..area.height {
            let mut x = 0;
            while x < area.width {
                let text = PIECES[next(PIECES.len())];
                let style = styles[next(styles.len())];
                let (end, _) = buffer.set_stringn(x, y, text, usize::from(area.width - x), style);
                x = end.max(x + 1);
            }
            match next(10) {
                0 => {
                    buffer[(next(12) as u16, y)]
                        .set_diff_option(ratatui::buffer::CellDiffOption::Skip);
                }
                1 => {
                    // The older way to say the same (still honoured).
                    #[allow(deprecated)]
                    {
                        buffer[(next(12) as u16, y)].skip = true;
                    }
                }
                _ => {}
            }
        }
    };
    for round in 0..2000 {
        let mut before = Buffer::empty(area);
        let mut after = Buffer::empty(area);
        fill(&mut before, &mut next);
        fill(&mut after, &mut next);
        if round % 3 == 0 {
            // Mostly alike, as consecutive frames are.
            after = before.clone();
            let y = next(4) as u16;
            after.set_stringn(
                next(10) as u16,
                y,
                PIECES[next(PIECES.len())],
                4,
                styles[next(3)],
            );
        }
        for (a, b) in before.content.iter().zip(&after.content) {
            assert_eq!(super::scroll::same_cell(a, b), a == b, "{a:?} vs {b:?}");
        }
        let theirs: Vec<(u16, u16, Cell)> = before
            .diff(&after)
            .into_iter()
            .map(|(x, y, cell)| (x, y, cell.clone()))
            .collect();
        let mut ours = Vec::new();
        let width = usize::from(area.width);
        for y in 0..usize::from(area.height) {
            let row = y * width..(y + 1) * width;
            super::scroll::diff_row(
                &before.content[row.clone()],
                &after.content[row],
                0,
                y as u16,
                &mut ours,
            );
        }
        let ours: Vec<(u16, u16, Cell)> = ours
            .into_iter()
            .map(|(x, y, cell)| (x, y, cell.clone()))
            .collect();
        assert_eq!(ours, theirs, "round {round}");
    }
}

/// Rows whose text moved up but whose style changed too: the hashes (text only) choose the
/// scroll, and the terminal still ends up showing the frame, colours included.
#[test]
fn a_scroll_over_rows_that_differ_in_style_only_leaves_the_screen_right() {
    use ratatui::backend::Backend as _;
    use ratatui::layout::Rect;
    use ratatui::style::{Color, Style};

    use super::scroll::Screen;
    let area = Rect::new(0, 0, 12, 8);
    let frame = |rows: &[(&str, Style)]| {
        let mut buffer = Buffer::empty(area);
        for (y, (text, style)) in rows.iter().enumerate() {
            buffer.set_string(0, y as u16, text, *style);
        }
        buffer
    };
    let plain = Style::default();
    let red = Style::default().fg(Color::Red);
    let first = frame(&[
        ("row 0", plain),
        ("row 1", plain),
        ("row 2", plain),
        ("row 3", plain),
        ("row 4", plain),
        ("row 5", plain),
        ("row 6", plain),
        ("footer", plain),
    ]);
    // Up by two; "row 4" is red now.
    let second = frame(&[
        ("row 2", plain),
        ("row 3", plain),
        ("row 4", red),
        ("row 5", plain),
        ("row 6", plain),
        ("row 7", plain),
        ("row 8", plain),
        ("footer", plain),
    ]);
    let mut screen = Screen::blank(area);
    let mut bytes = Vec::new();
    let mut scrolled = false;
    for frame in [&first, &second] {
        let (scroll, cells) = screen.present(frame);
        if let Some(scroll) = scroll {
            scrolled = true;
            bytes.extend_from_slice(scroll.sequence().as_bytes());
        }
        let output = Output::default();
        let mut backend = CrosstermBackend::new(output.clone());
        backend.draw(cells.into_iter()).unwrap();
        ratatui::backend::Backend::flush(&mut backend).unwrap();
        bytes.extend_from_slice(&output.0.borrow());
        let mut spare = Buffer::empty(area);
        screen.settle(&mut spare);
    }
    assert!(scrolled, "the moved rows were scrolled");
    let mut parser = vt100::Parser::new(area.height, area.width, 0);
    parser.process(&bytes);
    let terminal = parser.screen();
    for y in 0..area.height {
        let row: String = terminal.rows(0, area.width).nth(usize::from(y)).unwrap();
        let want: String = (0..area.width).map(|x| second[(x, y)].symbol()).collect();
        assert_eq!(row.trim_end(), want.trim_end(), "row {y}");
        let colour = terminal.cell(y, 0).unwrap().fgcolor();
        let want = if y == 2 {
            vt100::Color::Idx(1)
        } else {
            vt100::Color::Default
        };
        assert_eq!(colour, want, "row {y}'s colour");
    }
}
