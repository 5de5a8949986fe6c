//! The terminal backend with its size cached: ratatui asks the backend for the size before
//! every frame (to follow a resize), and crossterm answers by opening `/dev/tty` and asking the
//! kernel each time. The size changes only with a resize event, so it is asked once and again
//! after each [`Event::Resize`](crossterm::event::Event::Resize) ([`SizedBackend::forget_size`]).

use std::cell::Cell;

use ratatui::backend::{Backend, ClearType, WindowSize};
use ratatui::buffer::Cell as BufferCell;
use ratatui::layout::{Position, Size};

pub(super) struct SizedBackend<B> {
    inner: B,
    size: Cell<Option<Size>>,
}

impl<B> SizedBackend<B> {
    pub(super) fn new(inner: B) -> Self {
        SizedBackend {
            inner,
            size: Cell::new(None),
        }
    }

    /// The terminal was resized: ask for its size again.
    pub(super) fn forget_size(&self) {
        self.size.set(None);
    }
}

impl<B: Backend> Backend for SizedBackend<B> {
    type Error = B::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a BufferCell)>,
    {
        self.inner.draw(content)
    }

    fn append_lines(&mut self, n: u16) -> Result<(), Self::Error> {
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
        self.inner.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.inner.clear_region(clear_type)
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
