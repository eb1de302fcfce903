//! Diagnostics: every error rpy reports about a user's program.
//!
//! A diagnostic names the file, line and column, says in one plain sentence what
//! is wrong, and shows the source line with a caret under the column.

use std::fmt;

/// A position in a source file; line and column count from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl Pos {
    pub fn new(line: u32, col: u32) -> Pos {
        Pos { line, col }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    pub pos: Pos,
    pub message: String,
    /// The text of the offending source line, when known.
    pub source_line: Option<String>,
    /// Further lines of explanation ("note: ...").
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(file: impl Into<String>, pos: Pos, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.into(),
            pos,
            message: message.into(),
            source_line: None,
            notes: Vec::new(),
        }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Fills in the source line from the file's text, for the caret display.
    pub fn with_source(mut self, source: &str) -> Diagnostic {
        if self.pos.line >= 1 {
            self.source_line = source
                .lines()
                .nth(self.pos.line as usize - 1)
                .map(|l| l.to_string());
        }
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.pos.line, self.pos.col, self.message
        )?;
        if let Some(line) = &self.source_line {
            let gutter = format!("{}", self.pos.line);
            let (shown, pad) = shown_line(line, (self.pos.col.max(1) - 1) as usize);
            write!(f, "\n {} | {}", gutter, shown)?;
            write!(f, "\n {} | {}^", " ".repeat(gutter.len()), pad)?;
        }
        for note in &self.notes {
            write!(f, "\n  note: {}", note)?;
        }
        Ok(())
    }
}

/// How many characters of a source line a diagnostic shows at most: a long
/// line (generated code, a minified table) is shown as a window around the
/// column, not echoed whole.
pub const SHOWN_LINE_CHARS: usize = 120;

/// The part of `line` a diagnostic shows, and the padding that puts a caret
/// under character `col` (counted from 0) of it. At most
/// `SHOWN_LINE_CHARS` characters around the column are shown, with `...`
/// where the line goes on; control characters and other invisible ones are
/// shown escaped (`\x1b`), so a binary file's bytes cannot drive the
/// terminal. Tabs stay tabs, in the padding too, so the caret lines up.
fn shown_line(line: &str, col: usize) -> (String, String) {
    let chars: Vec<char> = line.chars().collect();
    let col = col.min(chars.len());
    let half = SHOWN_LINE_CHARS / 2;
    let (start, end) = if chars.len() <= SHOWN_LINE_CHARS {
        (0, chars.len())
    } else {
        let start = col.saturating_sub(half).min(chars.len() - SHOWN_LINE_CHARS);
        (start, start + SHOWN_LINE_CHARS)
    };
    let mut shown = String::new();
    let mut pad = String::new();
    if start > 0 {
        shown.push_str("...");
        pad.push_str("   ");
    }
    for (i, &c) in chars[start..end].iter().enumerate() {
        let text = match c {
            '\t' => "\t".to_string(),
            c if c.is_control() || is_invisible(c) => escaped(c),
            c => c.to_string(),
        };
        if start + i < col {
            if c == '\t' {
                pad.push('\t');
            } else {
                pad.extend(std::iter::repeat_n(' ', text.chars().count()));
            }
        }
        shown.push_str(&text);
    }
    if end < chars.len() {
        shown.push_str("...");
    }
    (shown, pad)
}

/// Characters that print as nothing or rearrange the line (bidirectional
/// controls, zero-width ones, the BOM): shown escaped like control bytes.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

fn escaped(c: char) -> String {
    match u32::from(c) {
        n @ 0..=0xff => format!("\\x{n:02x}"),
        n => format!("\\u{{{n:04x}}}"),
    }
}

/// All the errors found in one run of a pass; a pass reports every error it can
/// find rather than stopping at the first.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn one(d: Diagnostic) -> Diagnostics {
        Diagnostics(vec![d])
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Diagnostics {
        Diagnostics(vec![d])
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}", d)?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(line: &str, col: u32) -> String {
        let d = Diagnostic {
            source_line: Some(line.to_string()),
            ..Diagnostic::new("f.py", Pos::new(1, col), "bad")
        };
        d.to_string()
    }

    #[test]
    fn a_long_line_is_shown_as_a_window_around_the_column() {
        let line = format!("{}X{}", "a".repeat(100_000), "b".repeat(100_000));
        let text = shown(&line, 100_001);
        assert!(text.len() < 2 * SHOWN_LINE_CHARS + 100, "{}", text.len());
        let lines: Vec<&str> = text.lines().collect();
        let caret = lines[2].find('^').unwrap();
        assert_eq!(&lines[1][caret..caret + 1], "X", "{text}");
        assert!(lines[1].ends_with("..."), "{text}");
    }

    #[test]
    fn control_characters_are_escaped_and_the_caret_stays_under_its_column() {
        let text = shown("x = \u{1b}[2J\u{7}y", 10);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], " 1 | x = \\x1b[2J\\x07y");
        let caret = lines[2].find('^').unwrap();
        assert_eq!(&lines[1][caret..caret + 1], "y", "{text}");
    }
}
