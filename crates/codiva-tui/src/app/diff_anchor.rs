//! Where each row of the diff view is in its file: the line numbers a unified diff's hunk
//! headers (`@@ -a,b +c,d @@`) give its lines — an added or unchanged line its number in the
//! branch's file, a removed one its number in the base's — so a comment's anchor is the file
//! and lines the user saw, and a saved comment is drawn again on the rows it names however the
//! diff moved around it (commits and uncommitted edits alike: the view draws one diff of both).

use codiva_protocol::review::{DiffSide, ReviewAnchor, ReviewComment};

/// A row's place: which file (index into the view's files) and which line of which side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowPlace {
    pub file: usize,
    pub side: DiffSide,
    pub line: u32,
}

/// The place of every line of a unified diff (`None`: a header, a hunk header, a note).
pub fn places(lines: &[String]) -> Vec<Option<RowPlace>> {
    let mut out = Vec::with_capacity(lines.len());
    let mut file: Option<usize> = None;
    // The next old and new line numbers inside a hunk; `None` outside one.
    let mut hunk: Option<(u32, u32)> = None;
    for line in lines {
        if line.starts_with("diff --git ") {
            file = Some(file.map_or(0, |f| f + 1));
            hunk = None;
            out.push(None);
            continue;
        }
        if let Some(rest) = line.strip_prefix("@@ ") {
            hunk = hunk_start(rest);
            out.push(None);
            continue;
        }
        let (Some(f), Some((old, new))) = (file, hunk.as_mut()) else {
            out.push(None);
            continue;
        };
        let place = match line.as_bytes().first() {
            Some(b'+') => {
                let place = RowPlace {
                    file: f,
                    side: DiffSide::New,
                    line: *new,
                };
                *new += 1;
                Some(place)
            }
            Some(b'-') => {
                let place = RowPlace {
                    file: f,
                    side: DiffSide::Old,
                    line: *old,
                };
                *old += 1;
                Some(place)
            }
            // A context line (git writes an empty one as " ", an editor may have trimmed it).
            Some(b' ') | None => {
                let place = RowPlace {
                    file: f,
                    side: DiffSide::New,
                    line: *new,
                };
                *old += 1;
                *new += 1;
                Some(place)
            }
            // `\ No newline at end of file` and anything else: no line of either file.
            _ => None,
        };
        out.push(place);
    }
    out
}

/// `-a[,b] +c[,d] @@…` → the first old and new line numbers.
fn hunk_start(rest: &str) -> Option<(u32, u32)> {
    let mut parts = rest.split_whitespace();
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let first = |range: &str| range.split(',').next()?.parse::<u32>().ok();
    // A range of no lines (`-0,0`, `+0,0`) starts before line 1.
    Some((first(old)?.max(1), first(new)?.max(1)))
}

/// The anchor of rows `from..=to` (one file's), and the lines it quotes: the branch's line
/// numbers when the range holds an added or unchanged line, else the base's. `None` when no
/// row of the range is a line of the file.
pub fn anchor_of(
    lines: &[String],
    places: &[Option<RowPlace>],
    path: &str,
    from: usize,
    to: usize,
) -> Option<(ReviewAnchor, Vec<String>)> {
    let rows = from..=to.min(places.len().saturating_sub(1));
    let placed: Vec<(usize, RowPlace)> = rows
        .filter_map(|row| places.get(row).copied().flatten().map(|place| (row, place)))
        .collect();
    let side = if placed.iter().any(|(_, p)| p.side == DiffSide::New) {
        DiffSide::New
    } else {
        DiffSide::Old
    };
    let numbers = placed
        .iter()
        .filter(|(_, p)| p.side == side)
        .map(|(_, p)| p.line);
    let start = numbers.clone().min()?;
    let end = numbers.max()?;
    let quoted = placed.iter().map(|(row, _)| lines[*row].clone()).collect();
    Some((
        ReviewAnchor {
            path: path.to_owned(),
            side,
            start_line: start,
            end_line: end,
        },
        quoted,
    ))
}

/// Whether `comment` is on the row at `place` of the file `path`.
pub fn covers(comment: &ReviewComment, path: &str, place: RowPlace) -> bool {
    comment.anchor.path == path
        && comment.anchor.side == place.side
        && (comment.anchor.start_line..=comment.anchor.end_line).contains(&place.line)
}

/// `path:40` or `path:40-42` (`path:-7` for a removed line, numbered as in the base).
pub fn anchor_label(anchor: &ReviewAnchor) -> String {
    let sign = if anchor.side == DiffSide::Old {
        "-"
    } else {
        ""
    };
    if anchor.start_line == anchor.end_line {
        format!("{}:{sign}{}", anchor.path, anchor.start_line)
    } else {
        format!(
            "{}:{sign}{}-{}",
            anchor.path, anchor.start_line, anchor.end_line
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    const DIFF: &str = "diff --git a/a.rs b/a.rs\n--- a/a.rs\n+++ b/a.rs\n@@ -10,4 +10,5 @@ fn f()\n keep\n-old\n+new\n+more\n keep2\n\\ No newline at end of file\n@@ -40 +41 @@\n-x\n+y\ndiff --git a/n.md b/n.md\nnew file mode 100644\n--- /dev/null\n+++ b/n.md\n@@ -0,0 +1,2 @@\n+one\n+two\n";

    #[test]
    fn rows_get_their_file_side_and_line() {
        let lines = lines(DIFF);
        let places = places(&lines);
        let at = |row: usize| places[row].map(|p| (p.file, p.side, p.line));
        assert_eq!(at(3), None, "hunk header");
        assert_eq!(at(4), Some((0, DiffSide::New, 10)));
        assert_eq!(at(5), Some((0, DiffSide::Old, 11)));
        assert_eq!(at(6), Some((0, DiffSide::New, 11)));
        assert_eq!(at(7), Some((0, DiffSide::New, 12)));
        assert_eq!(at(8), Some((0, DiffSide::New, 13)));
        assert_eq!(at(9), None, "no-newline note");
        assert_eq!(at(11), Some((0, DiffSide::Old, 40)));
        assert_eq!(at(12), Some((0, DiffSide::New, 41)));
        assert_eq!(at(16), None, "+++ header");
        assert_eq!(at(17), None, "hunk header of a new file");
        assert_eq!(at(18), Some((1, DiffSide::New, 1)));
        assert_eq!(at(19), Some((1, DiffSide::New, 2)));
    }

    #[test]
    fn a_range_is_anchored_on_the_branch_side_unless_it_only_removes() {
        let lines = lines(DIFF);
        let places = places(&lines);
        let (anchor, quoted) = anchor_of(&lines, &places, "a.rs", 3, 7).unwrap();
        assert_eq!(
            (anchor.side, anchor.start_line, anchor.end_line),
            (DiffSide::New, 10, 12)
        );
        assert_eq!(quoted, [" keep", "-old", "+new", "+more"]);
        assert_eq!(anchor_label(&anchor), "a.rs:10-12");
        let (anchor, quoted) = anchor_of(&lines, &places, "a.rs", 5, 5).unwrap();
        assert_eq!(
            (anchor.side, anchor.start_line, anchor.end_line),
            (DiffSide::Old, 11, 11)
        );
        assert_eq!(quoted, ["-old"]);
        assert_eq!(anchor_label(&anchor), "a.rs:-11");
        assert_eq!(anchor_of(&lines, &places, "a.rs", 0, 3), None);
    }
}
