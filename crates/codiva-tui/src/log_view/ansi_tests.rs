use ratatui::style::{Color, Modifier, Style};

use super::*;

fn texts(text: &str) -> Vec<String> {
    parse(text, Style::default())
        .into_iter()
        .map(|line| line.text)
        .collect()
}

/// `(text, style)` of each run of the one line `text` gives.
fn runs(text: &str) -> Vec<(String, Style)> {
    let lines = parse(text, Style::default());
    assert_eq!(lines.len(), 1, "{lines:?}");
    lines[0]
        .spans(0, lines[0].text.len())
        .into_iter()
        .map(|span| (span.content.into_owned(), span.style))
        .collect()
}

#[test]
fn sgr_colours_and_attributes() {
    let red = Style::default().fg(Color::Red);
    assert_eq!(
        runs("a\x1b[31mred\x1b[0m b"),
        [
            ("a".into(), Style::default()),
            ("red".into(), red),
            (" b".into(), Style::default())
        ]
    );
    let bold_green = Style::default()
        .fg(Color::Green)
        .add_modifier(Modifier::BOLD);
    assert_eq!(runs("\x1b[1;32mok\x1b[m"), [("ok".into(), bold_green)]);
    let styled = Style::default()
        .fg(Color::Indexed(208))
        .bg(Color::Rgb(1, 2, 3))
        .add_modifier(Modifier::ITALIC | Modifier::UNDERLINED | Modifier::DIM);
    assert_eq!(
        runs("\x1b[2;3;4;38;5;208;48;2;1;2;3mx"),
        [("x".into(), styled)]
    );
    // Colon forms, with and without a colour-space id.
    let colon = Style::default()
        .fg(Color::Rgb(10, 20, 30))
        .bg(Color::Indexed(4));
    assert_eq!(runs("\x1b[38:2::10:20:30;48:5:4mx"), [("x".into(), colon)]);
    assert_eq!(runs("\x1b[38:2:10:20:30;48:5:4mx"), [("x".into(), colon)]);
    // Bright colours, default colours, attribute resets.
    let bright = Style::default().fg(Color::LightRed).bg(Color::White);
    assert_eq!(runs("\x1b[91;107mx"), [("x".into(), bright)]);
    let reset = Style::default()
        .remove_modifier(Modifier::BOLD | Modifier::DIM)
        .remove_modifier(Modifier::ITALIC);
    assert_eq!(runs("\x1b[1;3;31m\x1b[22;23;39mx"), [("x".into(), reset)]);
}

#[test]
fn reset_returns_to_the_base_style_and_styles_carry_over_lines() {
    let base = Style::default().fg(Color::Red);
    let lines = parse("\x1b[32mgreen\nstill\x1b[0m base", base);
    let spans = lines[1].spans(0, lines[1].text.len());
    assert_eq!(spans[0].style, Style::default().fg(Color::Green));
    assert_eq!(spans[1].style, base);
}

#[test]
fn cursor_movement_clears_and_other_escapes_are_dropped() {
    let hostile = concat!(
        "a\x1b[2J\x1b[H\x1b[10;20Hb\x1b[?25l\x1b[?1049h",
        "\x1b]0;evil title\x07c\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",
        "\x1bPdcs\x1b\\d\x1b(Be\x1b7\x1b8\x1bcf",
        "\u{9b}31mg\u{9d}osc\u{9c}h\u{7}\u{8}\u{7f}i\u{202e}j",
    );
    assert_eq!(texts(hostile), ["abclinkdefghij"]);
    for line in parse(hostile, Style::default()) {
        assert!(!line.text.chars().any(is_unsafe));
    }
}

#[test]
fn carriage_returns_keep_the_last_overwrite() {
    assert_eq!(
        texts("10%\r50%\r100%\ndone\r\nnext\r"),
        ["100%", "done", "next"]
    );
    // The style set before the `\r` still applies after it.
    assert_eq!(
        runs("\x1b[32m1/3\r3/3"),
        [("3/3".into(), Style::default().fg(Color::Green))]
    );
}

#[test]
fn broken_and_unterminated_sequences_do_not_swallow_output() {
    // A CSI broken by a line end; an OSC that never ends before the line does.
    assert_eq!(texts("a\x1b[31\nb\x1b]0;title\nc"), ["a", "b", "c"]);
    // A lone ESC at the end, a CSI with a non-ASCII byte, huge and invalid parameters.
    assert_eq!(texts("x\x1b"), ["x"]);
    assert_eq!(texts("\x1b[3é1mz"), ["é1mz"]);
    let long = format!("\x1b[{}mz", "1;".repeat(500));
    assert_eq!(runs(&long), [("z".into(), Style::default())]);
    assert_eq!(
        runs("\x1b[38;5;999;38;2;300;1;1;99999mz"),
        [("z".into(), Style::default())]
    );
    assert_eq!(texts("\x1b[38;5m\x1b[48;2;1mz"), ["z"]);
}

#[test]
fn tabs_expand_and_a_final_newline_adds_no_line() {
    assert_eq!(texts("a\tb\n\nc\n"), ["a    b", "", "c"]);
    assert!(parse("", Style::default()).is_empty());
}

#[test]
fn rows_wrap_and_keep_styles() {
    let lines = parse("ab\x1b[31mcdef\x1b[0mgh", Style::default());
    let rows = lines[0].rows(3);
    let text: Vec<String> = rows
        .iter()
        .map(|row| row.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    assert_eq!(text, ["abc", "def", "gh"]);
    assert_eq!(rows[1][0].style, Style::default().fg(Color::Red));
    assert_eq!(rows[2][0].style, Style::default());
}
