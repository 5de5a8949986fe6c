//! The terminal backend with its size cached: ratatui asks the backend for the size before
//! every frame (to follow a resize), and crossterm answers by opening `/dev/tty` and asking the
//! kernel each time. The size changes only with a resize event, so it is asked once and again
//! after each [`Event::Resize`](crossterm::event::Event::Resize) ([`SizedBackend::forget_size`]).
//!
//! In full screen it also keeps what the terminal shows and presents frames itself
//! ([`SizedBackend::present`]): a frame whose rows moved up is written as a scroll of the
//! terminal's region and the cells that differ after it ([`super::scroll`]).

use std::cell::Cell;
use std::io;

use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::{Buffer, Cell as BufferCell};
use ratatui::layout::{Position, Rect, Size};

use super::scroll::{Screen, Scroll};

pub(super) struct SizedBackend<B> {
    inner: B,
    size: Cell<Option<Size>>,
    /// Whether frames may scroll (full screen only: an inline viewport is not the screen).
    scrolls: bool,
    /// Whether a frame was drawn or the screen cleared (before that it is blank).
    started: bool,
    /// What the terminal shows, while it is known.
    screen: Option<Screen>,
}

/// A backend that can move a band of rows up (the terminal's scroll region), and place the
/// cursor within the frame's one write.
pub(super) trait ScrollRows: Backend {
    fn scroll_rows(&mut self, scroll: Scroll) -> Result<(), Self::Error>;

    /// Shows or hides the cursor. crossterm's backend writes out at once (its own write to the
    /// terminal, after the frame's); one that buffers it until the frame is flushed overrides.
    fn queue_cursor_visible(&mut self, visible: bool) -> Result<(), Self::Error> {
        if visible {
            self.show_cursor()
        } else {
            self.hide_cursor()
        }
    }

    /// Moves the cursor (as [`ScrollRows::queue_cursor_visible`]).
    fn queue_cursor_position(&mut self, position: Position) -> Result<(), Self::Error> {
        self.set_cursor_position(position)
    }
}

impl<W: io::Write> ScrollRows for CrosstermBackend<W> {
    fn scroll_rows(&mut self, scroll: Scroll) -> io::Result<()> {
        io::Write::write_all(self, scroll.sequence().as_bytes())
    }

    fn queue_cursor_visible(&mut self, visible: bool) -> io::Result<()> {
        let sequence: &[u8] = if visible { b"\x1b[?25h" } else { b"\x1b[?25l" };
        io::Write::write_all(self, sequence)
    }

    fn queue_cursor_position(&mut self, position: Position) -> io::Result<()> {
        // CUP, 1-based (crossterm's `MoveTo`).
        let sequence = format!("\x1b[{};{}H", position.y + 1, position.x + 1);
        io::Write::write_all(self, sequence.as_bytes())
    }
}

impl<B> SizedBackend<B> {
    pub(super) fn new(inner: B) -> Self {
        SizedBackend {
            inner,
            size: Cell::new(None),
            scrolls: false,
            started: false,
            screen: None,
        }
    }

    /// Frames that move rows up scroll the terminal (full screen: the frame is the screen,
    /// blank before the first frame).
    pub(super) fn scroll_frames(&mut self) {
        self.scrolls = true;
    }

    /// The terminal was resized: ask for its size again.
    pub(super) fn forget_size(&self) {
        self.size.set(None);
    }

    /// Takes `size` as the terminal's (tests without a terminal).
    #[cfg(test)]
    pub(super) fn set_size(&self, size: Size) {
        self.size.set(Some(size));
    }
}

impl<B: ScrollRows> SizedBackend<B> {
    /// Whether frames are presented here ([`SizedBackend::present`]): in full screen.
    pub(super) fn presents(&self) -> bool {
        self.scrolls
    }

    /// Writes the frame `frame` (full screen: the terminal's size) as the difference from what
    /// the terminal shows, then keeps it as what it shows; `frame` gets a blank buffer back to
    /// draw the next frame in. The cursor is the caller's (after this, before the flush).
    pub(super) fn present(&mut self, frame: &mut Buffer) -> Result<(), B::Error> {
        let size = self.size()?;
        let known = self.started
            && self
                .screen
                .as_ref()
                .is_some_and(|screen| screen.area() == frame.area);
        if !known {
            // Before the first frame, or the screen is not known: start from a blank one.
            self.inner.clear_region(ClearType::All)?;
            self.started = true;
            self.screen = Some(super::scroll::Screen::blank(frame.area));
        }
        debug_assert_eq!(frame.area.as_size(), size, "a frame of the terminal's size");
        let Some(screen) = self.screen.as_mut() else {
            return Ok(());
        };
        let (scroll, cells) = screen.present(frame);
        if let Some(scroll) = scroll {
            self.inner.scroll_rows(scroll)?;
        }
        self.inner.draw(cells.into_iter())?;
        screen.settle(frame);
        Ok(())
    }

    /// The screen is blank now (if scrolling is on).
    fn cleared(&mut self) -> Result<(), B::Error> {
        self.started = true;
        self.screen = None;
        if self.scrolls {
            let size = self.size()?;
            self.screen = Some(Screen::blank(Rect::new(0, 0, size.width, size.height)));
        }
        Ok(())
    }
}

impl<B: ScrollRows> Backend for SizedBackend<B> {
    type Error = B::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a BufferCell)>,
    {
        if self.scrolls && !self.started {
            // The first frame: ratatui takes the screen as blank, and so does this.
            self.cleared()?;
        }
        let size = self.size()?;
        let Some(screen) = self
            .screen
            .as_mut()
            .filter(|screen| screen.area().as_size() == size)
        else {
            self.screen = None;
            return self.inner.draw(content);
        };
        // A frame drawn by ratatui's own diff (not presented): the screen takes its cells.
        let updates: Vec<_> = content.collect();
        screen.take(&updates);
        self.inner.draw(updates.into_iter())
    }

    fn append_lines(&mut self, n: u16) -> Result<(), Self::Error> {
        self.screen = None;
        self.inner.append_lines(n)
    }

    // The cursor goes out with the frame (ratatui places it after the cells and then flushes).
    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.queue_cursor_visible(false)
    }

    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.queue_cursor_visible(true)
    }

    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.inner.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.inner.queue_cursor_position(position.into())
    }

    fn clear(&mut self) -> Result<(), Self::Error> {
        self.inner.clear()?;
        self.cleared()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.inner.clear_region(clear_type)?;
        match clear_type {
            ClearType::All => self.cleared(),
            // Part of the screen: what it shows is no longer known.
            _ => {
                self.screen = None;
                Ok(())
            }
        }
    }

    fn size(&self) -> Result<Size, Self::Error> {
        if let Some(size) = self.size.get() {
            return Ok(size);
        }
        let size = self.inner.size()?;
        self.size.set(Some(size));
        Ok(size)
    }

    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.inner.window_size()
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::backend::TestBackend;

    #[test]
    fn a_frame_and_its_cursor_go_out_in_one_write() {
        use ratatui::{Terminal, TerminalOptions, Viewport};

        /// Counts the writes that reach the terminal.
        #[derive(Default, Clone)]
        struct Writes(std::rc::Rc<std::cell::RefCell<Vec<Vec<u8>>>>);
        impl io::Write for Writes {
            fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
                self.0.borrow_mut().push(bytes.to_vec());
                Ok(bytes.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let writes = Writes::default();
        let backend = SizedBackend::new(CrosstermBackend::new(io::BufWriter::new(writes.clone())));
        backend.set_size(Size::new(20, 3));
        let mut terminal = Terminal::with_options(
            backend,
            TerminalOptions {
                viewport: Viewport::Fixed(Rect::new(0, 0, 20, 3)),
            },
        )
        .unwrap();
        for (text, cursor) in [("hello", Some((5, 0))), ("hello world", None)] {
            writes.0.borrow_mut().clear();
            terminal
                .draw(|frame| {
                    frame.render_widget(text, frame.area());
                    if let Some(position) = cursor {
                        frame.set_cursor_position(position);
                    }
                })
                .unwrap();
            let written = writes.0.borrow();
            assert_eq!(written.len(), 1, "one write per frame: {written:?}");
            let text_at = String::from_utf8_lossy(&written[0]).to_string();
            match cursor {
                Some(_) => assert!(text_at.ends_with("\x1b[?25h\x1b[1;6H"), "{text_at:?}"),
                None => assert!(text_at.ends_with("\x1b[?25l"), "{text_at:?}"),
            }
        }
    }

    #[test]
    fn the_size_is_asked_again_only_after_a_resize() {
        let mut backend = SizedBackend::new(TestBackend::new(80, 24));
        assert_eq!(backend.size().unwrap(), Size::new(80, 24));
        backend.inner.resize(100, 30);
        assert_eq!(backend.size().unwrap(), Size::new(80, 24), "cached");
        backend.forget_size();
        assert_eq!(backend.size().unwrap(), Size::new(100, 30));
    }
}
