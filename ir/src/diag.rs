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
            write!(f, "\n {} | {}", gutter, line)?;
            let caret_col = (self.pos.col.max(1) - 1) as usize;
            let pad: String = line
                .chars()
                .take(caret_col)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            write!(f, "\n {} | {}^", " ".repeat(gutter.len()), pad)?;
        }
        for note in &self.notes {
            write!(f, "\n  note: {}", note)?;
        }
        Ok(())
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
