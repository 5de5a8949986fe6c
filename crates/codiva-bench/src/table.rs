//! A markdown table whose columns line up in a terminal too.

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Debug, Clone)]
pub struct Table {
    headers: Vec<String>,
    align: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(columns: &[(&str, Align)]) -> Self {
        Table {
            headers: columns.iter().map(|(name, _)| (*name).to_owned()).collect(),
            align: columns.iter().map(|(_, align)| *align).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; missing cells are empty, extra cells are dropped.
    pub fn row<I, S>(&mut self, cells: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut row: Vec<String> = cells.into_iter().map(Into::into).collect();
        row.resize(self.headers.len(), String::new());
        self.rows.push(row);
    }

    pub fn render(&self) -> String {
        let width = |cell: &str| cell.chars().count();
        let widths: Vec<usize> = (0..self.headers.len())
            .map(|col| {
                self.rows
                    .iter()
                    .map(|row| width(&row[col]))
                    .chain([width(&self.headers[col]), 3])
                    .max()
                    .unwrap_or(3)
            })
            .collect();
        let line = |cells: &[String], align: &[Align]| {
            let mut out = String::from("|");
            for ((cell, w), a) in cells.iter().zip(&widths).zip(align) {
                let pad = " ".repeat(w - width(cell));
                match a {
                    Align::Left => out.push_str(&format!(" {cell}{pad} |")),
                    Align::Right => out.push_str(&format!(" {pad}{cell} |")),
                }
            }
            out.push('\n');
            out
        };
        let mut out = line(&self.headers, &self.align);
        out.push('|');
        for (w, a) in widths.iter().zip(&self.align) {
            match a {
                Align::Left => out.push_str(&format!(" {} |", "-".repeat(*w))),
                Align::Right => out.push_str(&format!(" {}: |", "-".repeat(w - 1))),
            }
        }
        out.push('\n');
        for row in &self.rows {
            out.push_str(&line(row, &self.align));
        }
        out
    }
}

const MIB: usize = 1024 * 1024;

/// `12.3 MiB`, `456 KiB`, `789 B`.
pub(crate) fn size(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= MIB as f64 {
        format!("{:.1} MiB", b / MIB as f64)
    } else if b >= 1024.0 {
        format!("{:.0} KiB", b / 1024.0)
    } else {
        format!("{bytes} B")
    }
}

pub(crate) fn signed_size(bytes: i64) -> String {
    if bytes < 0 {
        format!("−{}", size(bytes.unsigned_abs()))
    } else {
        format!("+{}", size(bytes as u64))
    }
}

/// `1234567.8` → `1 234 568`.
pub(crate) fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats() {
        assert_eq!(thousands(1_234_567.8), "1 234 568");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(size(3 * MIB as u64 / 2), "1.5 MiB");
        assert_eq!(size(2048), "2 KiB");
        assert_eq!(signed_size(-(MIB as i64)), "−1.0 MiB");
    }

    #[test]
    fn columns_line_up() {
        let mut table = Table::new(&[("name", Align::Left), ("MiB/s", Align::Right)]);
        table.row(["parse", "123.4"]);
        table.row(vec!["parse + reduce ≥".to_owned(), "7".to_owned()]);
        let text = table.render();
        assert_eq!(
            text,
            "| name             | MiB/s |\n\
             | ---------------- | ----: |\n\
             | parse            | 123.4 |\n\
             | parse + reduce ≥ |     7 |\n"
        );
        let widths: Vec<usize> = text.lines().map(|l| l.chars().count()).collect();
        assert!(widths.windows(2).all(|w| w[0] == w[1]), "{widths:?}");
    }

    #[test]
    fn short_rows_are_padded() {
        let mut table = Table::new(&[("a", Align::Left), ("b", Align::Right)]);
        table.row(["x"]);
        assert_eq!(
            table.render(),
            "| a   |   b |\n| --- | --: |\n| x   |     |\n"
        );
    }
}
