//! Diagnostics: every error rpy reports about a user's program.
//!
//! A diagnostic names the file, line and column, says in one plain sentence what
//! is wrong, and shows the source line with a caret under the column.

use std::fmt;

/// Which source file a position is in: an index into the program's
/// `SourceMap`. The passes see only these; only the driver and the module
/// loader turn paths into files (rust-analyzer's `FileId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

impl FileId {
    /// The main file of the program being translated.
    pub const MAIN: FileId = FileId(0);
    /// Where the files of rpy's own low-level helper library are numbered
    /// from: that library is read once per process and its graphs join
    /// every program, so its files must not take the program's numbers.
    pub const LIBRARY_BASE: FileId = FileId(1 << 30);
}

/// A position in a source file; line and column count from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Pos {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
}

impl Pos {
    /// A position in the main file.
    pub fn new(line: u32, col: u32) -> Pos {
        Pos {
            file: FileId::MAIN,
            line,
            col,
        }
    }

    /// A position in file `file`.
    pub fn in_file(file: FileId, line: u32, col: u32) -> Pos {
        Pos { file, line, col }
    }
}

/// One source file the program read: the path diagnostics show and its text.
#[derive(Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
    /// The byte offset each line starts at, and the text's length last.
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .chain(std::iter::once(text.len()))
            .collect();
        SourceFile {
            path: path.into(),
            text,
            line_starts,
        }
    }

    /// The text of line `line` (from 1) without its line end; `None` past
    /// the end of the file.
    pub fn line(&self, line: u32) -> Option<&str> {
        let line = line as usize;
        if line == 0 || line >= self.line_starts.len() {
            return None;
        }
        let (start, end) = (self.line_starts[line - 1], self.line_starts[line]);
        if start >= self.text.len() {
            return None;
        }
        Some(self.text[start..end].trim_end_matches(['\n', '\r']))
    }
}

/// Every source file a program was read from, by `FileId`: what turns a
/// position into a file name and a source line. The whole pipeline shares
/// one (a `Program` carries it), so a graph inlined into another, or made
/// from an imported module, still names its own file. Files are shared
/// (`Arc`), so a copy is cheap, and a map may link another (the helper
/// library's, numbered from `FileId::LIBRARY_BASE`).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// The id of `files[0]`.
    base: u32,
    files: Vec<std::sync::Arc<SourceFile>>,
    linked: Vec<SourceMap>,
}

impl fmt::Debug for SourceMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.files().map(|(id, file)| (id.0, &file.path)))
            .finish()
    }
}

impl SourceMap {
    /// An empty map whose first file is the main file (`FileId::MAIN`).
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// An empty map whose files are numbered from `first`.
    pub fn starting_at(first: FileId) -> SourceMap {
        SourceMap {
            base: first.0,
            ..SourceMap::default()
        }
    }

    /// A map holding only the main file.
    pub fn with_main(path: impl Into<String>, text: impl Into<String>) -> SourceMap {
        let mut map = SourceMap::new();
        map.add(path, text);
        map
    }

    /// Adds a file; its id.
    pub fn add(&mut self, path: impl Into<String>, text: impl Into<String>) -> FileId {
        let id = FileId(self.base + self.files.len() as u32);
        self.files
            .push(std::sync::Arc::new(SourceFile::new(path, text)));
        id
    }

    /// The id the next file added gets.
    pub fn next_id(&self) -> FileId {
        FileId(self.base + self.files.len() as u32)
    }

    /// Makes `other`'s files (numbered apart from this map's) known here too.
    pub fn link(&mut self, other: &SourceMap) {
        if other.files.is_empty() && other.linked.is_empty() {
            return;
        }
        if !self.linked.iter().any(|l| l.base == other.base) && other.base != self.base {
            self.linked.push(other.clone());
        }
    }

    /// The file `id`, if this map (or one it links) has it.
    pub fn file(&self, id: FileId) -> Option<&SourceFile> {
        if let Some(i) = id.0.checked_sub(self.base) {
            if let Some(f) = self.files.get(i as usize) {
                return Some(f);
            }
        }
        self.linked.iter().find_map(|m| m.file(id))
    }

    /// Every file of this map and the maps it links, with its id.
    pub fn files(&self) -> Box<dyn Iterator<Item = (FileId, &SourceFile)> + '_> {
        Box::new(
            self.files
                .iter()
                .enumerate()
                .map(|(i, f)| (FileId(self.base + i as u32), &**f))
                .chain(self.linked.iter().flat_map(|m| m.files())),
        )
    }

    /// The path diagnostics show for file `id` (`?` for a file not here).
    pub fn path(&self, id: FileId) -> &str {
        self.file(id).map_or("?", |f| f.path.as_str())
    }

    /// The text of file `id` (empty for a file not here).
    pub fn text(&self, id: FileId) -> &str {
        self.file(id).map_or("", |f| f.text.as_str())
    }

    /// The source line `pos` is on, when known.
    pub fn line(&self, pos: Pos) -> Option<&str> {
        self.file(pos.file)?.line(pos.line)
    }

    /// A diagnostic at `pos`, naming its file and showing its line.
    pub fn diagnostic(&self, pos: Pos, message: impl Into<String>) -> Diagnostic {
        let mut d = Diagnostic::new(self.path(pos.file), pos, message);
        d.source_line = self.line(pos).map(str::to_string);
        d
    }

    /// `diagnostic`, or one naming `fallback` when the map does not have
    /// `pos`'s file (a program made from the text form has no sources).
    pub fn diagnostic_or(
        &self,
        fallback: &str,
        pos: Pos,
        message: impl Into<String>,
    ) -> Diagnostic {
        match self.file(pos.file) {
            Some(_) => self.diagnostic(pos, message),
            None => Diagnostic::new(fallback, pos, message),
        }
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
    fn a_source_map_names_each_positions_file_and_line() {
        let mut map = SourceMap::with_main("main.py", "import lib\nx = 1\n");
        let lib = map.add("lib.py", "def f():\r\n    return 1");
        let mut helpers = SourceMap::starting_at(FileId::LIBRARY_BASE);
        let h = helpers.add("rstr.py", "def ll():\n    pass\n");
        map.link(&helpers);
        assert_eq!(lib, FileId(1));
        assert_eq!(h, FileId::LIBRARY_BASE);
        let d = map.diagnostic(Pos::in_file(lib, 2, 5), "bad");
        assert_eq!(
            d.to_string(),
            "lib.py:2:5: error: bad\n 2 |     return 1\n   |     ^"
        );
        assert_eq!(map.line(Pos::in_file(lib, 1, 1)), Some("def f():"));
        assert_eq!(map.line(Pos::in_file(lib, 3, 1)), None);
        assert_eq!(map.line(Pos::new(2, 1)), Some("x = 1"));
        assert_eq!(map.line(Pos::new(3, 1)), None);
        assert_eq!(map.line(Pos::new(0, 1)), None);
        assert_eq!(map.path(h), "rstr.py");
        assert_eq!(map.line(Pos::in_file(h, 2, 1)), Some("    pass"));
        assert_eq!(map.path(FileId(7)), "?");
        let d = map.diagnostic_or("prog.py", Pos::in_file(FileId(7), 1, 1), "bad");
        assert_eq!(d.file, "prog.py");
        assert_eq!(map.files().count(), 3);
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
