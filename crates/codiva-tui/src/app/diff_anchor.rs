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
        // The side whose number the line carries, and whether it is a line of the old file and
        // of the new one (each such line moves that file's count on).
        let (side, in_old, in_new) = match line.as_bytes().first() {
            Some(b'+') => (DiffSide::New, false, true),
            Some(b'-') => (DiffSide::Old, true, false),
            // A context line (git writes an empty one as " ", an editor may have trimmed it).
            Some(b' ') | None => (DiffSide::New, true, true),
            // `\ No newline at end of file` and anything else: no line of either file.
            _ => {
                out.push(None);
                continue;
            }
        };
        out.push(Some(RowPlace {
            file: f,
            side,
            line: if in_new { *new } else { *old },
        }));
        *old += u32::from(in_old);
        *new += u32::from(in_new);
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

/// The rows of this diff a comment is on: where its quoted lines are now in its file (the
/// diff moved since it was written: the agent changed the file above it), the match nearest its
/// own line numbers first; else the rows its line numbers name; `None` when the diff has
/// neither. `files` are the diff's paths by index.
pub fn rows_of(
    comment: &ReviewComment,
    lines: &[String],
    places: &[Option<RowPlace>],
    files: &[&str],
) -> Option<(usize, usize)> {
    let file = files.iter().position(|path| *path == comment.anchor.path)?;
    // The file's rows that are lines of it, in order.
    let rows: Vec<usize> = places
        .iter()
        .enumerate()
        .filter(|(_, place)| place.is_some_and(|p| p.file == file))
        .map(|(row, _)| row)
        .collect();
    let by_number: Vec<usize> = rows
        .iter()
        .copied()
        .filter(|row| {
            places[*row].is_some_and(|place| covers(comment, &comment.anchor.path, place))
        })
        .collect();
    let numbered = by_number
        .first()
        .zip(by_number.last())
        .map(|(a, b)| (*a, *b));
    let quoted = &comment.lines;
    if quoted.is_empty() || quoted.len() > rows.len() {
        return numbered;
    }
    let at = |start: usize| {
        quoted
            .iter()
            .zip(&rows[start..])
            .all(|(text, row)| lines[*row] == *text)
    };
    // Where the quoted lines are, the nearest to where the comment's numbers say first.
    let wanted = comment.anchor.start_line;
    let found = (0..=rows.len() - quoted.len())
        .filter(|start| at(*start))
        .min_by_key(|start| {
            places[rows[*start]].map_or(u32::MAX, |place| place.line.abs_diff(wanted))
        });
    match found {
        Some(start) => Some((rows[start], rows[start + quoted.len() - 1])),
        None => numbered,
    }
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
    fn a_comment_follows_its_lines_when_the_diff_moved() {
        let comment = |start: u32, quoted: &[&str]| ReviewComment {
            id: "c1".into(),
            anchor: ReviewAnchor {
                path: "a.rs".into(),
                side: DiffSide::New,
                start_line: start,
                end_line: start + u32::try_from(quoted.len()).unwrap() - 1,
            },
            lines: quoted.iter().map(|l| (*l).to_owned()).collect(),
            more_lines: 0,
            body: "b".into(),
            created_at: 0,
        };
        let before = lines(DIFF);
        let places_before = places(&before);
        let files = ["a.rs", "n.md"];
        let written = comment(11, &["+new", "+more"]);
        assert_eq!(
            rows_of(&written, &before, &places_before, &files),
            Some((6, 7))
        );
        // Two lines added above it: its lines are two rows (and two numbers) further.
        let after = lines(&DIFF.replace(" keep\n-old", "+first\n+second\n keep\n-old"));
        let places_after = places(&after);
        assert_eq!(
            rows_of(&written, &after, &places_after, &files),
            Some((8, 9))
        );
        // Its lines are gone: where its numbers are.
        let gone = lines(&DIFF.replace("+new\n+more", "+other\n+lines"));
        let places_gone = places(&gone);
        assert_eq!(rows_of(&written, &gone, &places_gone, &files), Some((6, 7)));
        // Nothing of it in the diff.
        let elsewhere = ReviewComment {
            anchor: ReviewAnchor {
                path: "z.rs".into(),
                ..written.anchor.clone()
            },
            ..written.clone()
        };
        assert_eq!(rows_of(&elsewhere, &before, &places_before, &files), None);
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
