//! Code blocks in the log, highlighted: a message with code in the languages people paste, at
//! 80×24 and 120×40, drawn plain first and painted by class once the highlighter thread is done
//! (the styled snapshots name each run's colour).

use ratatui::style::{Color, Modifier};

use super::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

const MESSAGE: &str = r#"Here is the change, in five languages:

```rust
/// Adds two numbers.
pub fn add(a: u32, b: u32) -> u32 {
    let s = "sum"; // a comment
    a + b + 0x1F
}
```

```python
def greet(name: str) -> str:
    """Say hello."""
    return f"hello {name}"  # greet
```

```json
{"name": "codiva", "version": 1, "tags": ["tui", null], "ok": true}
```

```diff
@@ -1,3 +1,3 @@ fn main
 unchanged
-let x = 1;
+let x = 2;
```

```toml
[package]
name = "codiva" # the binary
edition = 2024
```
"#;

/// Each row as runs of one style: `⟨text⟩{colour,modifiers}` (unstyled runs as they are).
fn styled_rows(buffer: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let mut runs: Vec<(String, String)> = Vec::new();
        for x in 0..buffer.area.width {
            let cell = &buffer[(x, y)];
            let mut style = Vec::new();
            if cell.fg != Color::Reset {
                style.push(format!("{:?}", cell.fg).to_lowercase());
            }
            for (modifier, name) in [(Modifier::BOLD, "bold"), (Modifier::ITALIC, "italic")] {
                if cell.modifier.contains(modifier) {
                    style.push(name.to_owned());
                }
            }
            let style = style.join(",");
            match runs.last_mut() {
                Some((text, last)) if *last == style => text.push_str(cell.symbol()),
                _ => runs.push((cell.symbol().to_owned(), style)),
            }
        }
        let line: String = runs
            .iter()
            .map(|(text, style)| match style.as_str() {
                "" => text.clone(),
                style => format!("⟨{text}⟩{{{style}}}"),
            })
            .collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[test]
fn highlighted_code_at_both_sizes() {
    for (index, (width, height)) in SIZES.into_iter().enumerate() {
        let mut view = LogView::new();
        view.set_entries(vec![user(0, "Show the change."), assistant(1, MESSAGE)]);
        let mut term = terminal(width, height);
        draw(&mut term, &mut view);
        view.to_top();
        let plain = draw(&mut term, &mut view);
        codiva_tui::markdown::wait_idle();
        let top = draw(&mut term, &mut view);
        assert_eq!(
            (0..height).map(|y| row(&plain, y)).collect::<Vec<_>>(),
            (0..height).map(|y| row(&top, y)).collect::<Vec<_>>(),
            "highlighting changes colours, never text"
        );
        if index == 0 {
            // (At the second size the blocks are highlighted already: the cache is shared.)
            assert_ne!(
                styled_rows(&plain),
                styled_rows(&top),
                "the code is painted"
            );
        }
        insta::assert_snapshot!(format!("code_top_{width}x{height}"), styled_rows(&top));
        view.scroll_down(1_000);
        draw(&mut term, &mut view);
        codiva_tui::markdown::wait_idle();
        let bottom = draw(&mut term, &mut view);
        insta::assert_snapshot!(
            format!("code_bottom_{width}x{height}"),
            styled_rows(&bottom)
        );
    }
}

#[test]
fn a_cut_code_line_keeps_its_ellipsis_and_colours() {
    let long = format!("```rust\nlet s = \"{}\"; // end\n```", "x".repeat(100));
    let mut view = LogView::new();
    view.set_entries(vec![assistant(1, &long)]);
    let mut term = terminal(40, 5);
    draw(&mut term, &mut view);
    codiva_tui::markdown::wait_idle();
    let screen = draw(&mut term, &mut view);
    insta::assert_snapshot!("code_cut_40x5", styled_rows(&screen));
}
