//! The terminal backend with its size cached: ratatui asks the backend for the size before
//! every frame (to follow a resize), and crossterm answers by opening `/dev/tty` and asking the
//! kernel each time. The size changes only with a resize event, so it is asked once and again
//! after each [`Event::Resize`](crossterm::event::Event::Resize) ([`SizedBackend::forget_size`]).
//!
//! In full screen it also scrolls: a frame whose rows moved up is written as a scroll of the
//! terminal's region and the cells that differ after it ([`super::scroll`]).

use std::cell::Cell;
use std::io;

use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell as BufferCell;
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

/// A backend that can move a band of rows up (the terminal's scroll region).
pub(super) trait ScrollRows: Backend {
    fn scroll_rows(&mut self, scroll: Scroll) -> Result<(), Self::Error>;
}

impl<W: io::Write> ScrollRows for CrosstermBackend<W> {
    fn scroll_rows(&mut self, scroll: Scroll) -> io::Result<()> {
        io::Write::write_all(self, scroll.sequence().as_bytes())
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
        let updates: Vec<_> = content.collect();
        if updates.is_empty() {
            return self.inner.draw(updates.into_iter());
        }
        match screen.frame(&updates) {
            Some((scroll, cells)) => {
                self.inner.scroll_rows(scroll)?;
                self.inner.draw(cells.into_iter())?;
                screen.settle();
                Ok(())
            }
            None => self.inner.draw(updates.into_iter()),
        }
    }

    fn append_lines(&mut self, n: u16) -> Result<(), Self::Error> {
        self.screen = None;
        self.inner.append_lines(n)
    }

    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.hide_cursor()
    }

    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.show_cursor()
    }

    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.inner.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.inner.set_cursor_position(position)
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
    fn the_size_is_asked_again_only_after_a_resize() {
        let mut backend = SizedBackend::new(TestBackend::new(80, 24));
        assert_eq!(backend.size().unwrap(), Size::new(80, 24));
        backend.inner.resize(100, 30);
        assert_eq!(backend.size().unwrap(), Size::new(80, 24), "cached");
        backend.forget_size();
        assert_eq!(backend.size().unwrap(), Size::new(100, 30));
    }
}
