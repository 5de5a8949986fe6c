//! Markdown rendering: snapshots of every construct at 80 and 40 columns (the drawn buffer),
//! style snapshots where colour is the point, and the safety and size properties.

use codiva_tui::markdown::{LinkSpan, render, render_highlighted, render_with_links};
use codiva_tui::width::str_width;
use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

/// The rows as a terminal shows them, checking none is wider than `width`.
fn draw(markdown: &str, width: u16) -> String {
    let lines = render(markdown, width);
    for line in &lines {
        let text: String = line
            .spans
            .iter()
            .map(|span| span.content.as_ref())
            .collect();
        assert!(
            str_width(&text) <= usize::from(width),
            "row wider than {width}: {text:?}"
        );
    }
    let height = u16::try_from(lines.len().max(1)).unwrap();
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| frame.render_widget(Paragraph::new(lines), frame.area()))
        .unwrap();
    terminal.backend().to_string()
}

/// Snapshots `markdown` drawn at 80 and 40 columns.
fn snap_widths(name: &str, markdown: &str) {
    for width in [80, 40] {
        assert_snapshot!(format!("{name}_{width}"), draw(markdown, width));
    }
}

fn describe(style: Style) -> String {
    let mut parts = Vec::new();
    if let Some(fg) = style.fg {
        parts.push(match fg {
            Color::Reset => "reset".to_owned(),
            other => format!("{other:?}").to_lowercase(),
        });
    }
    for (modifier, name) in [
        (Modifier::BOLD, "bold"),
        (Modifier::DIM, "dim"),
        (Modifier::ITALIC, "italic"),
        (Modifier::UNDERLINED, "underlined"),
        (Modifier::CROSSED_OUT, "crossed"),
    ] {
        if style.add_modifier.contains(modifier) {
            parts.push(name.to_owned());
        }
    }
    parts.join(",")
}

/// The rows with every styled span marked `⟨text⟩{style}`.
fn styled(lines: &[Line<'_>]) -> String {
    let mut out = String::new();
    for line in lines {
        for span in &line.spans {
            let style = describe(span.style);
            if style.is_empty() {
                out.push_str(&span.content);
            } else {
                out.push_str(&format!("⟨{}⟩{{{style}}}", span.content));
            }
        }
        out.push('\n');
    }
    out
}

#[test]
fn headings() {
    snap_widths(
        "headings",
        "# Title of the document\n\nIntro.\n\n## Section two has a rather long heading that wraps at forty\n\n### Third\n\n#### Fourth\n\nText.",
    );
    assert_snapshot!(
        "headings_styled",
        styled(&render("# One\n## Two\n### Three", 80))
    );
}

#[test]
fn paragraphs_and_emphasis() {
    let markdown = "First paragraph with *emphasis*, **strong**, ~~struck~~, `inline code` and ***both*** \
        in one sentence that is long enough to wrap.\n\nSecond paragraph,\nsoft break and a hard  \nbreak.";
    snap_widths("paragraphs", markdown);
    assert_snapshot!("paragraphs_styled", styled(&render(markdown, 80)));
}

#[test]
fn lists() {
    snap_widths(
        "lists",
        "- one\n- two with a long item text that wraps onto a second row with a hanging indent\n  - nested a\n  - nested b\n    - deeper still\n- three\n\n1. first\n2. second\n   1. sub one\n   2. sub two\n3. third\n\nThen:\n\n8. eight\n9. nine\n10. ten: the numbers line up on the dot and wrapped rows hang under the text\n\nAfter the list.",
    );
}

#[test]
fn loose_and_task_lists() {
    snap_widths(
        "task_lists",
        "- [x] done task\n- [ ] open task whose text is long enough to wrap at forty columns\n- plain item\n\nLoose:\n\n- para one\n\n  second para of item one\n\n- item two",
    );
}

#[test]
fn quotes() {
    snap_widths(
        "quotes",
        "> A quote that goes on for a while so that it wraps at the narrow width.\n>\n> Second paragraph in the quote.\n>\n> > Nested quote.\n\nAfter.\n\n- item\n  > quote in a list",
    );
}

#[test]
fn blocks_inside_containers() {
    snap_widths(
        "nested_blocks",
        "1. Step one:\n\n   ```rust\n   let x = 1;\n   ```\n\n2. Step two\n\n> | k | v |\n> |---|---|\n> | a | b |\n>\n> ```\n> quoted code\n> ```\n\n- > - deep item in a quote in a list",
    );
}

#[test]
fn horizontal_rule() {
    snap_widths("rule", "Above\n\n---\n\nBelow");
}

#[test]
fn code_blocks() {
    let markdown = "```rust\nfn main() {\n    // greet\n    let n = 42;\n    println!(\"hi {n}\");\n}\n```\n\n    indented code\n    block\n\n```\nno language\n```";
    snap_widths("code_blocks", markdown);
}

#[test]
fn long_code_line_is_cut() {
    snap_widths(
        "code_long_line",
        "```sh\necho \"a very long command line that certainly does not fit in forty columns or even in eighty columns of a terminal\"\nls\n```\n\n```\n日本語のコードコメントが長く続いて四十桁を超える行です、日本語のコードコメントが長く続いて八十桁を超える行\n```",
    );
}

#[test]
fn syntax_colour() {
    let markdown = r#"```rust
fn add(a: u32, b: u32) -> u32 { a + b } // sum
let s = "str"; /* block */ 0x1F
```

```ts
const x: number = 1; // c
export function f(s: string) { return `t ${s}`; }
```

```python
def f(x):
    """doc"""
    return None  # c
```

```bash
if [ -f x ]; then echo "yes"; fi # c
```

```json
{"a": 1, "b": true, "c": null}
```

```toml
[section]
key = "value" # c
n = 3
```

```yaml
key: "value" # c
flag: true
```

```go
func main() { fmt.Println("hi", 3) } // c
```

```c
#include <stdio.h>
int main(void) { return 0; /* c */ }
```

```diff
@@ -1,2 +1,2 @@
-old line
+new line
```

```sql
SELECT name, 42 FROM users WHERE id = 'x'; -- c
```

```csharp
public static int F(string s) { return s.Length; } // c
```

```markdown
# Title with **bold**
```

```unknown
fn 1 "plain"
```"#;
    // Drawn plain first; painted once the highlighter thread is done.
    assert_snapshot!(
        "syntax_colour_styled",
        styled(&render_highlighted(markdown, 80))
    );
    let plain = styled(&render(markdown, 80));
    assert!(plain.contains("⟨fn add(a: u32, b: u32) -> u32 { a + b } // sum⟩{yellow}"));
}

#[test]
fn tables() {
    snap_widths(
        "table",
        "| Name | Qty | Price |\n|:-----|:---:|------:|\n| apple | 3 | 1.50 |\n| **kiwi** | 12 | `0.25` |\n| 日本 | 1 | 100 |",
    );
    assert_snapshot!(
        "table_styled",
        styled(&render("| H1 | H2 |\n|---|--:|\n| a | b |", 80))
    );
}

#[test]
fn wide_table_shrinks() {
    snap_widths(
        "table_wide",
        "| id | description | status |\n|---|---|---|\n| 1 | A long description that cannot possibly fit in a narrow terminal | done |\n| 2 | short | in progress for a long time |",
    );
}

#[test]
fn links_and_images() {
    let markdown = "See [the docs](https://example.com/docs) and <https://example.com> and \
        [https://same.example](https://same.example).\n\n![a diagram](img.png)";
    snap_widths("links", markdown);
    assert_snapshot!("links_styled", styled(&render(markdown, 80)));
}

#[test]
fn link_spans_follow_rows_and_columns() {
    let (lines, links) = render_with_links("> See [docs](https://x.io) now", 80);
    assert_eq!(lines.len(), 1);
    // "│ See " takes 6 cells; "docs (https://x.io)" is one link.
    assert_eq!(
        links,
        [LinkSpan {
            row: 0,
            start_col: 6,
            end_col: 6 + 19,
            url: "https://x.io".to_owned(),
        }]
    );
    let (_, links) = render_with_links("para\n\n- [日本語](https://a.jp) <https://b.io>", 80);
    let found: Vec<_> = links
        .iter()
        .map(|l| (l.row, l.start_col, l.end_col, l.url.as_str()))
        .collect();
    assert_eq!(
        found,
        [(2, 2, 23, "https://a.jp"), (2, 24, 36, "https://b.io")]
    );
    // A link wrapped over two rows gives a span on each.
    let (_, links) = render_with_links("[a link text](https://example.com/long)", 20);
    let rows: Vec<_> = links.iter().map(|l| l.row).collect();
    assert_eq!(rows, [0, 1, 2]);
}

#[test]
fn html_is_text() {
    snap_widths(
        "html",
        "<div class=\"x\">\n<script>alert(1)</script>\n</div>\n\nInline <b>bold?</b> and <br> stay as text.",
    );
}

#[test]
fn japanese_and_emoji_wrap() {
    snap_widths(
        "japanese_emoji",
        "## 日本語の見出し 🎌\n\n日本語の段落です。全角文字は二桁を使うので、折り返しでも文字が分割されてはいけません。絵文字 👩‍💻 と 🎉 も同様です。\n\n- リスト項目も👍折り返しでぶら下げインデントを保ちます。これは長い項目です。",
    );
}

#[test]
fn escape_injection_is_stripped() {
    let markdown = "Clear\x1b[2J screen, copy \x1b]52;c;ZXZpbA==\x07 clip, csi\u{9b}31m red, \
        bell\x07, cr\r over, &#27;[1m entity, bidi \u{202e}olleh.\n\n```\ncode\x1b[31m red\tx\n```\n\n\
        [li\x1bnk](https://a.io/x \"t\x07\") `code\u{9b}0m`";
    let (lines, links) = render_with_links(markdown, 80);
    for line in &lines {
        for span in &line.spans {
            assert!(
                !span
                    .content
                    .chars()
                    .any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)),
                "control character in {:?}",
                span.content
            );
        }
    }
    for link in &links {
        assert!(!link.url.chars().any(char::is_control));
    }
    snap_widths("escape_injection", markdown);
}

#[test]
fn empty_and_tiny_widths() {
    assert!(render("", 80).is_empty());
    for width in 1..8 {
        let _ = draw(
            "# H\n\n> - [x] item `code` 日本\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn x() {}\n```",
            width,
        );
    }
}

/// A 2,000-line document of every construct renders (timing measured by hand in release).
#[test]
fn large_document_renders() {
    let block = "## Section\n\nSome *text* with `code` and a [link](https://example.com) that goes on for a while to wrap.\n\n- item one\n- item two\n  - nested\n\n```rust\nfn main() { let x = \"s\"; } // c\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quote\n";
    let lines_per_block = block.lines().count();
    let markdown = block.repeat(2000 / lines_per_block + 1);
    assert!(markdown.lines().count() >= 2000);
    let lines = render(&markdown, 100);
    assert!(lines.len() >= 2000);
}

#[test]
fn bare_urls_in_prose_are_links() {
    let (lines, links) = codiva_tui::markdown::render_with_links(
        "Open https://example.invalid/docs, then reply.",
        80,
    );
    assert_eq!(lines.len(), 1);
    assert_eq!(links.len(), 1, "{links:?}");
    assert_eq!(links[0].url, "https://example.invalid/docs");
    let text: String = lines[0].spans.iter().map(|s| s.content.as_ref()).collect();
    let start = codiva_tui::width::str_width(&text[..text.find("https").unwrap()]);
    assert_eq!(usize::from(links[0].start_col), start);
    assert_eq!(
        usize::from(links[0].end_col - links[0].start_col),
        "https://example.invalid/docs".len()
    );
}
