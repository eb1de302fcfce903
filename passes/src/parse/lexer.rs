//! The tokenizer: source text to a flat list of tokens for the grammar.
//!
//! A single forward scan over the bytes. Indentation becomes `Indent`/`Dedent`
//! tokens, each logical line ends with `Newline`; inside brackets and after a
//! backslash-newline lines are joined. Comments and blank lines vanish. Adjacent
//! string literals are concatenated here, so the grammar sees one `Str`.
//!
//! Errors come in two kinds: fatal ones (an unterminated string, bad indentation)
//! end the token list with an `Err` item, which the parser reports when it gets
//! there; non-fatal ones (an integer literal too large) are collected in
//! `Lexed::errors` and scanning goes on with a placeholder value.

use rpy_ir::diag::{FileId, Pos};

/// How to read dialect-dependent syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Py2,
    Py3,
    /// Accept the syntax of both dialects and record which dialect-only forms
    /// were seen (`Lexed::py2_marker` / `py3_marker`); used by dialect detection.
    Detect,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Tok<'a> {
    Name(&'a str),
    /// A non-negative integer literal; the grammar checks it fits a machine word.
    Int(u64),
    /// An integer literal that does not fit 64 bits, as written (prefix and
    /// digits, underscores and `L` suffix removed).
    BigInt(String),
    Float(f64),
    Str(String),
    Newline,
    Indent,
    Dedent,
    // Keywords.
    And,
    As,
    Assert,
    Break,
    Class,
    Continue,
    Def,
    Del,
    Elif,
    Else,
    Except,
    Finally,
    For,
    From,
    Global,
    If,
    Import,
    In,
    Is,
    Lambda,
    Not,
    Or,
    Pass,
    Print,
    Raise,
    Return,
    Try,
    While,
    With,
    Yield,
    /// `exec` (a keyword in Python 2 only).
    Exec,
    /// `nonlocal` (a keyword in Python 3 only).
    Nonlocal,
    KwTrue,
    KwFalse,
    KwNone,
    // Punctuation.
    LPar,
    RPar,
    LSqb,
    RSqb,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Dot,
    Ellipsis,
    Semi,
    At,
    Assign,
    Arrow,
    Plus,
    Minus,
    Star,
    Slash,
    DoubleSlash,
    Percent,
    DoubleStar,
    LShift,
    RShift,
    Amper,
    Vbar,
    Circumflex,
    Tilde,
    Less,
    Greater,
    LessEq,
    GreaterEq,
    EqEq,
    NotEq,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    DoubleSlashEq,
    PercentEq,
    DoubleStarEq,
    LShiftEq,
    RShiftEq,
    AmperEq,
    VbarEq,
    CircumflexEq,
    /// A Python 2 backquote.
    Backquote,
}

impl Tok<'_> {
    /// How the token reads in "unexpected ..." messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Name(n) => format!("name '{}'", n),
            Tok::Int(_) | Tok::BigInt(_) | Tok::Float(_) => "number".to_string(),
            Tok::Str(_) => "string literal".to_string(),
            Tok::Newline => "end of line".to_string(),
            Tok::Indent => "indentation".to_string(),
            Tok::Dedent => "end of the indented block".to_string(),
            other => format!("'{}'", other.text()),
        }
    }

    /// The source text of a keyword or punctuation token.
    pub fn text(&self) -> &'static str {
        match self {
            Tok::Name(_) => "name",
            Tok::Int(_) | Tok::BigInt(_) | Tok::Float(_) => "number",
            Tok::Str(_) => "string",
            Tok::Newline => "newline",
            Tok::Indent => "indent",
            Tok::Dedent => "dedent",
            Tok::And => "and",
            Tok::As => "as",
            Tok::Assert => "assert",
            Tok::Break => "break",
            Tok::Class => "class",
            Tok::Continue => "continue",
            Tok::Def => "def",
            Tok::Del => "del",
            Tok::Elif => "elif",
            Tok::Else => "else",
            Tok::Except => "except",
            Tok::Finally => "finally",
            Tok::For => "for",
            Tok::From => "from",
            Tok::Global => "global",
            Tok::If => "if",
            Tok::Import => "import",
            Tok::In => "in",
            Tok::Is => "is",
            Tok::Lambda => "lambda",
            Tok::Not => "not",
            Tok::Or => "or",
            Tok::Pass => "pass",
            Tok::Print => "print",
            Tok::Raise => "raise",
            Tok::Return => "return",
            Tok::Try => "try",
            Tok::While => "while",
            Tok::With => "with",
            Tok::Yield => "yield",
            Tok::Exec => "exec",
            Tok::Nonlocal => "nonlocal",
            Tok::Backquote => "`",
            Tok::KwTrue => "True",
            Tok::KwFalse => "False",
            Tok::KwNone => "None",
            Tok::LPar => "(",
            Tok::RPar => ")",
            Tok::LSqb => "[",
            Tok::RSqb => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::Dot => ".",
            Tok::Ellipsis => "...",
            Tok::Semi => ";",
            Tok::At => "@",
            Tok::Assign => "=",
            Tok::Arrow => "->",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::DoubleSlash => "//",
            Tok::Percent => "%",
            Tok::DoubleStar => "**",
            Tok::LShift => "<<",
            Tok::RShift => ">>",
            Tok::Amper => "&",
            Tok::Vbar => "|",
            Tok::Circumflex => "^",
            Tok::Tilde => "~",
            Tok::Less => "<",
            Tok::Greater => ">",
            Tok::LessEq => "<=",
            Tok::GreaterEq => ">=",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::PlusEq => "+=",
            Tok::MinusEq => "-=",
            Tok::StarEq => "*=",
            Tok::SlashEq => "/=",
            Tok::DoubleSlashEq => "//=",
            Tok::PercentEq => "%=",
            Tok::DoubleStarEq => "**=",
            Tok::LShiftEq => "<<=",
            Tok::RShiftEq => ">>=",
            Tok::AmperEq => "&=",
            Tok::VbarEq => "|=",
            Tok::CircumflexEq => "^=",
        }
    }
}

/// An error found while tokenizing (or reported by a grammar action).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub pos: Pos,
    pub message: String,
}

impl LexError {
    pub fn new(pos: Pos, message: impl Into<String>) -> LexError {
        LexError {
            pos,
            message: message.into(),
        }
    }
}

pub type Spanned<'a> = Result<(Pos, Tok<'a>, Pos), LexError>;

pub struct Lexed<'a> {
    /// The tokens; a fatal error, if any, is the last item.
    pub tokens: Vec<Spanned<'a>>,
    /// Non-fatal errors, in source order.
    pub errors: Vec<LexError>,
    /// Python-2-only syntax was seen (only tracked in `Mode::Detect`, but also
    /// set in the other modes where cheap).
    pub py2_marker: bool,
    /// Python-3-only syntax was seen.
    pub py3_marker: bool,
}

/// Tokenizes `src`. Never panics.
pub fn lex(src: &str, mode: Mode, file: FileId) -> Lexed<'_> {
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let (print_function, unicode_literals) = future_imports(src);
    let mut lx = Lexer {
        file,
        src,
        b: src.as_bytes(),
        i: 0,
        line: 1,
        line_start: 0,
        memo_off: 0,
        memo_col: 1,
        mode,
        print_is_name: mode != Mode::Py2 || print_function,
        unicode_literals,
        source_byte: super::single_byte_source(src),
        indents: vec![0],
        brackets: Vec::new(),
        // About one token per three bytes of source in typical code: reserving
        // one per two bytes means no copy of the list as it grows (untouched
        // capacity costs nothing).
        toks: Vec::with_capacity(src.len() / 2 + 16),
        errors: Vec::new(),
        line_has_tokens: false,
        last_str_bytes: false,
        py2: false,
        py3: false,
        nest: Vec::new(),
        lambdas: 0,
        fatal: None,
    };
    if let Err(e) = lx.run() {
        lx.toks.push(Err(e));
    }
    Lexed {
        tokens: lx.toks,
        errors: lx.errors,
        py2_marker: lx.py2,
        py3_marker: lx.py3,
    }
}

/// Finds `from __future__ import print_function / unicode_literals`: only
/// real `from __future__ import` statements at the top of the module count
/// (after comments, blank lines and the docstring, before any other
/// statement), as in Python.
pub(crate) fn future_imports(src: &str) -> (bool, bool) {
    if !src.contains("__future__") {
        return (false, false);
    }
    let mut print_function = false;
    let mut unicode_literals = false;
    let b = src.as_bytes();
    let mut i = 0;
    let mut seen_docstring = false;
    loop {
        // Skip whitespace, blank lines, comments and semicolons.
        while i < b.len() {
            match b[i] {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0c | b';' => i += 1,
                b'\\' if matches!(b.get(i + 1), Some(b'\n' | b'\r')) => i += 2,
                b'#' => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        if i >= b.len() {
            break;
        }
        let rest = &src[i..];
        // The docstring: a string literal statement, once, first.
        let prefix_len = rest
            .bytes()
            .take_while(|c| matches!(c | 0x20, b'r' | b'u' | b'b'))
            .count();
        if !seen_docstring && prefix_len <= 2 && matches!(b.get(i + prefix_len), Some(b'"' | b'\''))
        {
            seen_docstring = true;
            let q = b[i + prefix_len];
            let mut j = i + prefix_len;
            let triple = b.get(j + 1) == Some(&q) && b.get(j + 2) == Some(&q);
            j += if triple { 3 } else { 1 };
            let raw = rest[..prefix_len].bytes().any(|c| c | 0x20 == b'r');
            loop {
                match b.get(j) {
                    None => return (print_function, unicode_literals),
                    Some(b'\\') if !raw || b.get(j + 1) == Some(&q) => j += 2,
                    Some(&c) if c == q => {
                        if !triple {
                            j += 1;
                            break;
                        }
                        if b.get(j + 1) == Some(&q) && b.get(j + 2) == Some(&q) {
                            j += 3;
                            break;
                        }
                        j += 1;
                    }
                    Some(b'\n') if !triple => return (print_function, unicode_literals),
                    Some(_) => j += 1,
                }
            }
            i = j;
            continue;
        }
        let Some(after_from) = rest.strip_prefix("from") else {
            break;
        };
        let after = after_from.trim_start_matches([' ', '\t', '\\', '\n', '\r']);
        let Some(after) = after.strip_prefix("__future__") else {
            break;
        };
        let Some(names) = after.trim_start().strip_prefix("import") else {
            break;
        };
        // The statement's text: to the closing parenthesis, or to the end of
        // the (backslash-continued) line.
        let nb = names.as_bytes();
        let mut j = 0;
        let mut depth = 0;
        while j < nb.len() {
            match nb[j] {
                b'(' => depth += 1,
                b')' => depth -= 1,
                b'\\' => j += 1,
                b'\n' | b';' if depth <= 0 => break,
                _ => {}
            }
            j += 1;
        }
        let code: String = names[..j.min(names.len())]
            .lines()
            .map(|l| l.split('#').next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join(" ");
        for name in code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            match name {
                "print_function" => print_function = true,
                "unicode_literals" => unicode_literals = true,
                _ => {}
            }
        }
        seen_docstring = true;
        i = src.len() - names.len() + j.min(names.len());
    }
    (print_function, unicode_literals)
}

struct Lexer<'a> {
    /// The file the positions are in.
    file: FileId,
    src: &'a str,
    b: &'a [u8],
    i: usize,
    line: u32,
    line_start: usize,
    /// Column cache: `memo_col` is the column of byte offset `memo_off` on the
    /// current line, so columns (in characters) are computed incrementally.
    memo_off: usize,
    memo_col: u32,
    mode: Mode,
    print_is_name: bool,
    unicode_literals: bool,
    /// How a non-ASCII char of the (decoded) text goes back to the byte
    /// of the source file in a str literal, when the file declares a
    /// one-byte encoding (`parse::single_byte_source`).
    source_byte: Option<fn(char) -> Option<u8>>,
    indents: Vec<u32>,
    brackets: Vec<(u8, Pos)>,
    toks: Vec<Spanned<'a>>,
    errors: Vec<LexError>,
    line_has_tokens: bool,
    last_str_bytes: bool,
    py2: bool,
    py3: bool,
    /// Nesting bound of the current logical line, one frame per open bracket.
    nest: Vec<NestFrame>,
    lambdas: u32,
    /// A fatal error found while pushing a token, returned by the main loop.
    fatal: Option<LexError>,
}

/// The most deeply an expression may nest (an upper bound, see
/// `Lexer::track_nesting`), and the most open brackets and indented blocks.
const MAX_NESTING: u32 = 2000;
const MAX_BRACKETS: usize = 200;
const MAX_INDENTS: usize = 100;

#[derive(Clone, Copy, Default)]
struct NestFrame {
    /// The largest bound of a finished comma-separated segment.
    best: u32,
    /// Nesting tokens in the current segment.
    seg_ops: u32,
    /// One more than the deepest bracket group closed in the current segment.
    seg_child: u32,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn digit_value(c: u8) -> Option<u32> {
    match c {
        b'0'..=b'9' => Some((c - b'0') as u32),
        b'a'..=b'z' => Some((c - b'a') as u32 + 10),
        b'A'..=b'Z' => Some((c - b'A') as u32 + 10),
        _ => None,
    }
}

impl<'a> Lexer<'a> {
    fn peek(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    /// The position of byte offset `off`, which must lie on the current line at
    /// or after any offset asked before on this line.
    fn pos_at(&mut self, off: usize) -> Pos {
        let off = off.min(self.b.len());
        if off < self.memo_off {
            self.memo_off = self.line_start;
            self.memo_col = 1;
        }
        if off < self.memo_off {
            return Pos::in_file(self.file, self.line, 1);
        }
        let mut col = self.memo_col;
        for &c in &self.b[self.memo_off..off] {
            if c & 0xC0 != 0x80 {
                col += 1;
            }
        }
        self.memo_off = off;
        self.memo_col = col;
        Pos::in_file(self.file, self.line, col)
    }

    fn pos(&mut self) -> Pos {
        self.pos_at(self.i)
    }

    /// Records that a new physical line starts at byte offset `start`.
    fn new_line(&mut self, start: usize) {
        self.line += 1;
        self.line_start = start;
        self.memo_off = start;
        self.memo_col = 1;
    }

    fn push(&mut self, start: Pos, tok: Tok<'a>, end: Pos) {
        if !matches!(tok, Tok::Newline | Tok::Indent | Tok::Dedent) {
            self.line_has_tokens = true;
        }
        self.track_nesting(start, &tok);
        self.toks.push(Ok((start, tok, end)));
    }

    /// Keeps an upper bound on how deeply the expression tree of the current
    /// logical line can nest, so that no input builds a tree deep enough to
    /// overflow the stack of the passes that walk it (or of its destructor).
    ///
    /// Every composite node owns at least one token that is not a name, a
    /// literal, a comma or a closing bracket; items between commas are siblings.
    /// So within one bracket level, a comma-separated segment nests at most as
    /// deep as it has such tokens, plus the deepest bracket group inside it.
    fn track_nesting(&mut self, start: Pos, tok: &Tok<'a>) {
        if self.nest.is_empty() {
            self.nest.push(NestFrame::default());
        }
        let last = self.nest.len() - 1;
        match tok {
            Tok::Name(_)
            | Tok::Int(_)
            | Tok::BigInt(_)
            | Tok::Float(_)
            | Tok::Str(_)
            | Tok::Indent
            | Tok::Dedent => return,
            Tok::Newline => {
                self.nest.clear();
                self.lambdas = 0;
                return;
            }
            Tok::Comma => {
                let f = &mut self.nest[last];
                f.best = f.best.max(f.seg_ops + f.seg_child);
                f.seg_ops = 0;
                f.seg_child = 0;
                return;
            }
            Tok::LPar | Tok::LSqb | Tok::LBrace => {
                self.nest[last].seg_ops += 1;
                self.nest.push(NestFrame::default());
            }
            Tok::RPar | Tok::RSqb | Tok::RBrace => {
                if last > 0 {
                    if let Some(f) = self.nest.pop() {
                        let bound = f.best.max(f.seg_ops + f.seg_child);
                        let parent = &mut self.nest[last - 1];
                        parent.seg_child = parent.seg_child.max(bound + 1);
                    }
                }
            }
            Tok::Lambda => {
                self.lambdas += 1;
                self.nest[last].seg_ops += 1;
            }
            _ => self.nest[last].seg_ops += 1,
        }
        if let Some(f) = self.nest.last() {
            if (f.seg_ops + f.seg_child > MAX_NESTING || self.lambdas > MAX_NESTING)
                && self.fatal.is_none()
            {
                self.fatal = Some(LexError::new(
                    start,
                    format!(
                        "expression too complex: it may nest more than {} levels deep",
                        MAX_NESTING
                    ),
                ));
            }
        }
    }

    fn error(&mut self, pos: Pos, msg: impl Into<String>) {
        if self.mode != Mode::Detect {
            self.errors.push(LexError::new(pos, msg));
        }
    }

    fn run(&mut self) -> Result<(), LexError> {
        let mut at_line_start = true;
        loop {
            if let Some(e) = self.fatal.take() {
                return Err(e);
            }
            if at_line_start {
                at_line_start = false;
                let mut width = 0u32;
                while let Some(&c) = self.b.get(self.i) {
                    match c {
                        b' ' => width += 1,
                        b'\t' => width = (width / 8 + 1) * 8,
                        0x0c => width = 0,
                        _ => break,
                    }
                    self.i += 1;
                }
                match self.b.get(self.i) {
                    None | Some(b'#') | Some(b'\n') | Some(b'\r') => {}
                    Some(_) => self.indent_to(width)?,
                }
            }
            while let Some(&c) = self.b.get(self.i) {
                if c == b' ' || c == b'\t' || c == 0x0c {
                    self.i += 1;
                } else {
                    break;
                }
            }
            let Some(&c) = self.b.get(self.i) else {
                break;
            };
            match c {
                b'#' => {
                    while let Some(&c) = self.b.get(self.i) {
                        if c == b'\n' || c == b'\r' {
                            break;
                        }
                        self.i += 1;
                    }
                }
                b'\n' | b'\r' => {
                    let start = self.i;
                    self.i += 1;
                    if c == b'\r' && self.peek(0) == b'\n' {
                        self.i += 1;
                    }
                    if self.brackets.is_empty() && self.line_has_tokens {
                        let p = self.pos_at(start);
                        self.push(p, Tok::Newline, p);
                        self.line_has_tokens = false;
                    }
                    self.new_line(self.i);
                    at_line_start = self.brackets.is_empty();
                }
                b'\\' => {
                    let p = self.pos();
                    match self.peek(1) {
                        b'\n' => {
                            self.i += 2;
                            self.new_line(self.i);
                        }
                        b'\r' => {
                            self.i += 2;
                            if self.peek(0) == b'\n' {
                                self.i += 1;
                            }
                            self.new_line(self.i);
                        }
                        0 if self.i + 1 >= self.b.len() => {
                            return Err(LexError::new(
                                p,
                                "unexpected end of file after a line continuation backslash",
                            ));
                        }
                        _ => {
                            return Err(LexError::new(
                                p,
                                "unexpected character after a line continuation backslash",
                            ));
                        }
                    }
                }
                c if is_ident_start(c) => self.lex_word()?,
                b'0'..=b'9' => self.lex_number()?,
                b'.' if self.peek(1).is_ascii_digit() => self.lex_number()?,
                b'"' | b'\'' => {
                    let start = self.i;
                    self.lex_string(start, "")?;
                }
                c if c >= 0x80 => {
                    let p = self.pos();
                    let ch = self.src.get(self.i..).and_then(|s| s.chars().next());
                    let msg = match ch {
                        Some(ch) if ch.is_alphabetic() => {
                            "non-ASCII characters in names are not supported".to_string()
                        }
                        Some(ch) => format!("unexpected character '{}' (U+{:04X})", ch, ch as u32),
                        None => "unexpected byte in source".to_string(),
                    };
                    return Err(LexError::new(p, msg));
                }
                _ => self.lex_punct()?,
            }
        }
        // End of file.
        if let Some(e) = self.fatal.take() {
            return Err(e);
        }
        if let Some(&(open, p)) = self.brackets.first() {
            return Err(LexError::new(
                p,
                format!("'{}' was never closed", open as char),
            ));
        }
        let p = self.pos();
        if self.line_has_tokens {
            self.push(p, Tok::Newline, p);
        }
        while self.indents.len() > 1 {
            self.indents.pop();
            self.push(p, Tok::Dedent, p);
        }
        Ok(())
    }

    fn indent_to(&mut self, width: u32) -> Result<(), LexError> {
        let p = self.pos();
        let top = self.indents.last().copied().unwrap_or(0);
        if width > top {
            if self.indents.len() > MAX_INDENTS {
                return Err(LexError::new(
                    p,
                    format!("too many levels of indentation (more than {})", MAX_INDENTS),
                ));
            }
            self.indents.push(width);
            self.push(p, Tok::Indent, p);
        } else if width < top {
            while let Some(&t) = self.indents.last() {
                if t > width {
                    self.indents.pop();
                    self.push(p, Tok::Dedent, p);
                } else {
                    break;
                }
            }
            if self.indents.last().copied().unwrap_or(0) != width {
                return Err(LexError::new(
                    p,
                    "inconsistent indentation: this line's indentation matches no enclosing block",
                ));
            }
        }
        Ok(())
    }

    fn lex_word(&mut self) -> Result<(), LexError> {
        let start = self.i;
        while self.i < self.b.len() && is_ident_char(self.b[self.i]) {
            self.i += 1;
        }
        let word = &self.src[start..self.i];
        let next = self.peek(0);
        if next >= 0x80 {
            let p = self.pos_at(start);
            return Err(LexError::new(
                p,
                "non-ASCII characters in names are not supported",
            ));
        }
        if (next == b'"' || next == b'\'') && word.len() <= 2 {
            let lower = word.to_ascii_lowercase();
            if matches!(
                lower.as_str(),
                "r" | "u" | "b" | "br" | "rb" | "ur" | "f" | "fr" | "rf"
            ) {
                return self.lex_string(start, word);
            }
        }
        let p = self.pos_at(start);
        let kw = match word {
            "and" => Tok::And,
            "as" => Tok::As,
            "assert" => Tok::Assert,
            "break" => Tok::Break,
            "class" => Tok::Class,
            "continue" => Tok::Continue,
            "def" => Tok::Def,
            "del" => Tok::Del,
            "elif" => Tok::Elif,
            "else" => Tok::Else,
            "except" => Tok::Except,
            "finally" => Tok::Finally,
            "for" => Tok::For,
            "from" => Tok::From,
            "global" => Tok::Global,
            "if" => Tok::If,
            "import" => Tok::Import,
            "in" => Tok::In,
            "is" => Tok::Is,
            "lambda" => Tok::Lambda,
            "not" => Tok::Not,
            "or" => Tok::Or,
            "pass" => Tok::Pass,
            "raise" => Tok::Raise,
            "return" => Tok::Return,
            "try" => Tok::Try,
            "while" => Tok::While,
            "True" => Tok::KwTrue,
            "False" => Tok::KwFalse,
            "None" => Tok::KwNone,
            "print" if !self.print_is_name => Tok::Print,
            "exec" if self.mode == Mode::Py2 => Tok::Exec,
            "nonlocal" if self.mode == Mode::Py3 => Tok::Nonlocal,
            "with" => Tok::With,
            "yield" => Tok::Yield,
            _ => Tok::Name(word),
        };
        let e = self.pos();
        self.push(p, kw, e);
        Ok(())
    }

    fn lex_number(&mut self) -> Result<(), LexError> {
        let start = self.i;
        let p = self.pos_at(start);
        let bad = |p: Pos| LexError::new(p, "invalid number literal");
        let c1 = self.peek(1) | 0x20;
        if self.peek(0) == b'0' && (c1 == b'x' || c1 == b'o' || c1 == b'b') {
            let radix = match c1 {
                b'x' => 16,
                b'o' => 8,
                _ => 2,
            };
            self.i += 2;
            let (value, ndigits, underscores, overflow) = self.scan_digits(radix, true);
            if ndigits == 0 {
                let name = match radix {
                    16 => "hexadecimal",
                    8 => "octal",
                    _ => "binary",
                };
                return Err(LexError::new(
                    p,
                    format!("invalid {} literal: no digits after the prefix", name),
                ));
            }
            if underscores {
                self.note_py3_only(p, "underscores in number literals are Python 3 syntax")?;
            }
            self.finish_int(start, p, value, overflow)
        } else {
            let (_, ndigits, mut underscores, _) = self.scan_digits(10, false);
            let mut is_float = false;
            if self.peek(0) == b'.' && (ndigits > 0 || self.peek(1).is_ascii_digit()) {
                is_float = true;
                self.i += 1;
                let (_, _, u, _) = self.scan_digits(10, false);
                underscores |= u;
            }
            let e = self.peek(0) | 0x20;
            if e == b'e' {
                let (d1, d2) = (self.peek(1), self.peek(2));
                if d1.is_ascii_digit() || ((d1 == b'+' || d1 == b'-') && d2.is_ascii_digit()) {
                    is_float = true;
                    self.i += if d1.is_ascii_digit() { 1 } else { 2 };
                    let (_, _, u, _) = self.scan_digits(10, false);
                    underscores |= u;
                }
            }
            if self.peek(0) | 0x20 == b'j' {
                return Err(LexError::new(p, "complex numbers are not supported"));
            }
            if underscores {
                self.note_py3_only(p, "underscores in number literals are Python 3 syntax")?;
            }
            if is_float {
                if is_ident_char(self.peek(0)) && !self.keyword_follows() {
                    return Err(bad(p));
                }
                let text: String = self.src[start..self.i]
                    .chars()
                    .filter(|&c| c != '_')
                    .collect();
                let v = text.parse::<f64>().map_err(|_| bad(p))?;
                let e = self.pos();
                self.push(p, Tok::Float(v), e);
                return Ok(());
            }
            let text = &self.src[start..self.i];
            let b = text.as_bytes();
            if b.len() > 1 && b[0] == b'0' && b.iter().any(|&c| c != b'0' && c != b'_') {
                // `0777`: an octal literal in Python 2, an error in Python 3.
                match self.mode {
                    Mode::Py3 => {
                        return Err(LexError::new(
                            p,
                            "leading zeros in decimal integer literals are not permitted; \
                             use an 0o prefix for octal integers",
                        ));
                    }
                    Mode::Py2 | Mode::Detect => self.py2 = true,
                }
                let mut value: u64 = 0;
                let mut overflow = false;
                for &c in b {
                    if c == b'_' {
                        continue;
                    }
                    if c > b'7' {
                        return Err(LexError::new(
                            p,
                            format!("invalid digit '{}' in octal literal", c as char),
                        ));
                    }
                    match value
                        .checked_mul(8)
                        .and_then(|v| v.checked_add((c - b'0') as u64))
                    {
                        Some(v) => value = v,
                        None => overflow = true,
                    }
                }
                return self.finish_int(start, p, value, overflow);
            }
            let mut value: u64 = 0;
            let mut overflow = false;
            for &c in b {
                if c == b'_' {
                    continue;
                }
                match value
                    .checked_mul(10)
                    .and_then(|v| v.checked_add((c - b'0') as u64))
                {
                    Some(v) => value = v,
                    None => overflow = true,
                }
            }
            self.finish_int(start, p, value, overflow)
        }
    }

    /// Scans digits of `radix` with single underscores between digits allowed
    /// (checked later against the dialect). Returns the value, the number of
    /// digits, whether an underscore was seen and whether the value overflowed.
    fn scan_digits(
        &mut self,
        radix: u32,
        allow_leading_underscore: bool,
    ) -> (u64, usize, bool, bool) {
        let mut value: u64 = 0;
        let mut n = 0;
        let mut underscores = false;
        let mut overflow = false;
        loop {
            let c = self.peek(0);
            if c == b'_' {
                let next_ok = digit_value(self.peek(1)).is_some_and(|d| d < radix);
                if next_ok && (n > 0 || allow_leading_underscore) {
                    underscores = true;
                    self.i += 1;
                    continue;
                }
                break;
            }
            match digit_value(c) {
                Some(d) if d < radix => {
                    match value
                        .checked_mul(radix as u64)
                        .and_then(|v| v.checked_add(d as u64))
                    {
                        Some(v) => value = v,
                        None => overflow = true,
                    }
                    n += 1;
                    self.i += 1;
                }
                _ => break,
            }
        }
        (value, n, underscores, overflow)
    }

    fn note_py3_only(&mut self, p: Pos, msg: &str) -> Result<(), LexError> {
        self.py3 = true;
        if self.mode == Mode::Py2 {
            return Err(LexError::new(p, msg));
        }
        Ok(())
    }

    fn finish_int(
        &mut self,
        start: usize,
        p: Pos,
        value: u64,
        overflow: bool,
    ) -> Result<(), LexError> {
        if self.peek(0) | 0x20 == b'l' && !is_ident_char(self.peek(1)) {
            // `10L`: a long literal in Python 2.
            if self.mode == Mode::Py3 {
                return Err(LexError::new(
                    p,
                    "the 'L' suffix on integer literals is Python 2 syntax",
                ));
            }
            self.py2 = true;
            self.i += 1;
        }
        if is_ident_char(self.peek(0)) && !self.keyword_follows() {
            return Err(LexError::new(p, "invalid number literal"));
        }
        let e = self.pos();
        if overflow {
            let text: String = self.src[start..self.i]
                .chars()
                .filter(|&c| c != '_' && c != 'l' && c != 'L')
                .collect();
            self.push(p, Tok::BigInt(text), e);
        } else {
            self.push(p, Tok::Int(value), e);
        }
        Ok(())
    }

    /// `1if x else 2`: a keyword right after a number literal ends it.
    fn keyword_follows(&self) -> bool {
        let rest = &self.b[self.i..];
        let n = rest.iter().take_while(|&&c| is_ident_char(c)).count();
        matches!(
            &rest[..n],
            b"if" | b"else" | b"and" | b"or" | b"in" | b"is" | b"not" | b"for"
        )
    }

    /// Lexes a string literal starting at `start` (the prefix, if any), whose
    /// prefix is `prefix`; `self.i` points at the opening quote.
    fn lex_string(&mut self, start: usize, prefix: &str) -> Result<(), LexError> {
        let p = self.pos_at(start);
        let lower = prefix.to_ascii_lowercase();
        let raw = lower.contains('r');
        let has_b = lower.contains('b');
        let has_u = lower.contains('u');
        if lower.contains('f') {
            self.py3 = true;
            return Err(LexError::new(p, "f-strings are not supported"));
        }
        match lower.as_str() {
            "ur" => {
                if self.mode == Mode::Py3 {
                    return Err(LexError::new(
                        p,
                        "the 'ur' string prefix is Python 2 syntax",
                    ));
                }
                self.py2 = true;
            }
            "rb" => {
                if self.mode == Mode::Py2 {
                    return Err(LexError::new(
                        p,
                        "the 'rb' string prefix is Python 3 syntax; use 'br'",
                    ));
                }
                self.py3 = true;
            }
            _ => {}
        }
        // `bytes_mode`: every source byte is one char (Python 2 str, bytes).
        let py2 = self.mode == Mode::Py2;
        let bytes_mode = if py2 {
            !has_u && (has_b || !self.unicode_literals)
        } else {
            has_b
        };
        // Only Python 3 bytes literals are restricted to ASCII source text.
        let ascii_only = !py2 && has_b;
        let unicode_escapes = !bytes_mode;

        let q = self.peek(0);
        let triple = self.peek(1) == q && self.peek(2) == q;
        self.i += if triple { 3 } else { 1 };
        let mut out = String::new();
        let mut reported_wide = false;
        let unterminated = |p: Pos| {
            LexError::new(
                p,
                if triple {
                    "unterminated triple-quoted string literal"
                } else {
                    "unterminated string literal"
                },
            )
        };
        loop {
            let Some(&c) = self.b.get(self.i) else {
                return Err(unterminated(p));
            };
            if c == q {
                if !triple {
                    self.i += 1;
                    break;
                }
                if self.peek(1) == q && self.peek(2) == q {
                    self.i += 3;
                    break;
                }
                out.push(q as char);
                self.i += 1;
                continue;
            }
            match c {
                b'\n' | b'\r' => {
                    if !triple {
                        return Err(unterminated(p));
                    }
                    self.i += 1;
                    if c == b'\r' && self.peek(0) == b'\n' {
                        self.i += 1;
                    }
                    out.push('\n');
                    self.new_line(self.i);
                }
                b'\\' => {
                    let d = self.peek(1);
                    if self.i + 1 >= self.b.len() {
                        return Err(unterminated(p));
                    }
                    if d == b'\n' || d == b'\r' {
                        self.i += 2;
                        if d == b'\r' && self.peek(0) == b'\n' {
                            self.i += 1;
                        }
                        if raw {
                            out.push('\\');
                            out.push('\n');
                        }
                        self.new_line(self.i);
                        continue;
                    }
                    if raw {
                        out.push('\\');
                        self.i += 1;
                        if d == q || d == b'\\' {
                            out.push(d as char);
                            self.i += 1;
                        }
                        continue;
                    }
                    let esc_pos = self.pos();
                    match d {
                        b'\\' | b'\'' | b'"' => {
                            out.push(d as char);
                            self.i += 2;
                        }
                        b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' => {
                            out.push(match d {
                                b'a' => '\x07',
                                b'b' => '\x08',
                                b'f' => '\x0c',
                                b'n' => '\n',
                                b'r' => '\r',
                                b't' => '\t',
                                _ => '\x0b',
                            });
                            self.i += 2;
                        }
                        b'0'..=b'7' => {
                            self.i += 1;
                            let mut v: u32 = 0;
                            let mut k = 0;
                            while k < 3 && matches!(self.peek(0), b'0'..=b'7') {
                                v = v * 8 + (self.peek(0) - b'0') as u32;
                                self.i += 1;
                                k += 1;
                            }
                            if bytes_mode {
                                v &= 0xff;
                            }
                            self.push_code(&mut out, v, esc_pos, &mut reported_wide);
                        }
                        b'x' => {
                            let v = self.hex_escape(2, esc_pos, "\\x")?;
                            self.push_code(&mut out, v, esc_pos, &mut reported_wide);
                        }
                        b'u' if unicode_escapes => {
                            let v = self.hex_escape(4, esc_pos, "\\u")?;
                            self.push_code(&mut out, v, esc_pos, &mut reported_wide);
                        }
                        b'U' if unicode_escapes => {
                            let v = self.hex_escape(8, esc_pos, "\\U")?;
                            if char::from_u32(v).is_none() {
                                return Err(LexError::new(
                                    esc_pos,
                                    "invalid \\U escape: not a Unicode code point",
                                ));
                            }
                            self.push_code(&mut out, v, esc_pos, &mut reported_wide);
                        }
                        b'N' if unicode_escapes => {
                            return Err(LexError::new(
                                esc_pos,
                                "\\N{...} escapes are not supported",
                            ));
                        }
                        _ => {
                            // Unknown escape: kept as written.
                            out.push('\\');
                            self.i += 1;
                        }
                    }
                }
                c if c < 0x80 => {
                    out.push(c as char);
                    self.i += 1;
                }
                c => {
                    if bytes_mode {
                        if ascii_only {
                            let ep = self.pos();
                            self.error(ep, "bytes literals may only contain ASCII characters");
                            // Skip the whole character.
                            self.i += 1;
                            while self.peek(0) & 0xC0 == 0x80 {
                                self.i += 1;
                            }
                        } else if let Some(byte_of) = self.source_byte {
                            // The text was decoded from a one-byte encoding:
                            // the literal holds the file's byte for the char.
                            let ch = self
                                .src
                                .get(self.i..)
                                .and_then(|s| s.chars().next())
                                .unwrap_or('\u{fffd}');
                            self.i += ch.len_utf8().max(1);
                            out.push(byte_of(ch).map_or('?', char::from));
                        } else {
                            // A UTF-8 file: each of the char's bytes.
                            out.push(c as char);
                            self.i += 1;
                        }
                    } else {
                        let ep = self.pos();
                        let ch = self
                            .src
                            .get(self.i..)
                            .and_then(|s| s.chars().next())
                            .unwrap_or('\u{fffd}');
                        self.i += ch.len_utf8().max(1);
                        self.push_code(&mut out, ch as u32, ep, &mut reported_wide);
                    }
                }
            }
        }
        let e = self.pos();
        // Implicit concatenation of adjacent literals.
        let is_bytes = has_b;
        if let Some(Ok((_, Tok::Str(prev), end))) = self.toks.last_mut() {
            prev.push_str(&out);
            *end = e;
            if self.mode == Mode::Py3 && self.last_str_bytes != is_bytes {
                self.errors.push(LexError::new(
                    p,
                    "cannot concatenate a bytes literal and a str literal",
                ));
            }
            return Ok(());
        }
        self.last_str_bytes = is_bytes;
        self.push(p, Tok::Str(out), e);
        Ok(())
    }

    fn hex_escape(&mut self, n: usize, p: Pos, what: &str) -> Result<u32, LexError> {
        let mut v: u32 = 0;
        for k in 0..n {
            match digit_value(self.peek(2 + k)) {
                Some(d) if d < 16 => v = v.wrapping_mul(16).wrapping_add(d),
                _ => {
                    return Err(LexError::new(
                        p,
                        format!("invalid {} escape: expected {} hex digits", what, n),
                    ));
                }
            }
        }
        self.i += 2 + n;
        Ok(v)
    }

    /// Appends the character of code point `v`. Characters at or above
    /// U+0100 make the literal a wide (unicode) string; lone surrogates,
    /// which a Rust string cannot hold, become U+FFFD.
    fn push_code(&mut self, out: &mut String, v: u32, _p: Pos, _reported: &mut bool) {
        out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
    }

    fn lex_punct(&mut self) -> Result<(), LexError> {
        let start = self.i;
        let p = self.pos_at(start);
        let (c0, c1, c2) = (self.peek(0), self.peek(1), self.peek(2));
        let (tok, len) = match (c0, c1, c2) {
            (b'*', b'*', b'=') => (Tok::DoubleStarEq, 3),
            (b'/', b'/', b'=') => (Tok::DoubleSlashEq, 3),
            (b'<', b'<', b'=') => (Tok::LShiftEq, 3),
            (b'>', b'>', b'=') => (Tok::RShiftEq, 3),
            (b'.', b'.', b'.') => (Tok::Ellipsis, 3),
            (b'*', b'*', _) => (Tok::DoubleStar, 2),
            (b'/', b'/', _) => (Tok::DoubleSlash, 2),
            (b'<', b'<', _) => (Tok::LShift, 2),
            (b'>', b'>', _) => (Tok::RShift, 2),
            (b'<', b'=', _) => (Tok::LessEq, 2),
            (b'>', b'=', _) => (Tok::GreaterEq, 2),
            (b'=', b'=', _) => (Tok::EqEq, 2),
            (b'!', b'=', _) => (Tok::NotEq, 2),
            (b'<', b'>', _) => {
                if self.mode == Mode::Py3 {
                    return Err(LexError::new(p, "'<>' is Python 2 syntax; use '!='"));
                }
                self.py2 = true;
                (Tok::NotEq, 2)
            }
            (b'-', b'>', _) => (Tok::Arrow, 2),
            (b'+', b'=', _) => (Tok::PlusEq, 2),
            (b'-', b'=', _) => (Tok::MinusEq, 2),
            (b'*', b'=', _) => (Tok::StarEq, 2),
            (b'/', b'=', _) => (Tok::SlashEq, 2),
            (b'%', b'=', _) => (Tok::PercentEq, 2),
            (b'&', b'=', _) => (Tok::AmperEq, 2),
            (b'|', b'=', _) => (Tok::VbarEq, 2),
            (b'^', b'=', _) => (Tok::CircumflexEq, 2),
            (b'@', b'=', _) => {
                return Err(LexError::new(
                    p,
                    "the matrix multiplication operator '@=' is not supported",
                ));
            }
            (b'(', _, _) => (Tok::LPar, 1),
            (b')', _, _) => (Tok::RPar, 1),
            (b'[', _, _) => (Tok::LSqb, 1),
            (b']', _, _) => (Tok::RSqb, 1),
            (b'{', _, _) => (Tok::LBrace, 1),
            (b'}', _, _) => (Tok::RBrace, 1),
            (b',', _, _) => (Tok::Comma, 1),
            (b':', _, _) => (Tok::Colon, 1),
            (b'.', _, _) => (Tok::Dot, 1),
            (b';', _, _) => (Tok::Semi, 1),
            (b'@', _, _) => (Tok::At, 1),
            (b'=', _, _) => (Tok::Assign, 1),
            (b'+', _, _) => (Tok::Plus, 1),
            (b'-', _, _) => (Tok::Minus, 1),
            (b'*', _, _) => (Tok::Star, 1),
            (b'/', _, _) => (Tok::Slash, 1),
            (b'%', _, _) => (Tok::Percent, 1),
            (b'&', _, _) => (Tok::Amper, 1),
            (b'|', _, _) => (Tok::Vbar, 1),
            (b'^', _, _) => (Tok::Circumflex, 1),
            (b'~', _, _) => (Tok::Tilde, 1),
            (b'<', _, _) => (Tok::Less, 1),
            (b'>', _, _) => (Tok::Greater, 1),
            (b'`', _, _) => {
                self.py2 = true;
                match self.mode {
                    Mode::Detect => {
                        self.i += 1;
                        return Ok(());
                    }
                    Mode::Py3 => {
                        return Err(LexError::new(
                            p,
                            "backquotes are Python 2 syntax; use repr(...)",
                        ));
                    }
                    Mode::Py2 => (Tok::Backquote, 1),
                }
            }
            (c, _, _) => {
                let msg = if c.is_ascii_graphic() {
                    format!("unexpected character '{}'", c as char)
                } else {
                    format!("unexpected character U+{:04X}", c)
                };
                return Err(LexError::new(p, msg));
            }
        };
        match tok {
            Tok::LPar | Tok::LSqb | Tok::LBrace => {
                if self.brackets.len() >= MAX_BRACKETS {
                    return Err(LexError::new(
                        p,
                        format!("too many nested brackets (more than {})", MAX_BRACKETS),
                    ));
                }
                self.brackets.push((c0, p))
            }
            Tok::RPar | Tok::RSqb | Tok::RBrace => {
                let want = match c0 {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                match self.brackets.pop() {
                    Some((open, _)) if open == want => {}
                    Some((open, op)) => {
                        return Err(LexError::new(
                            p,
                            format!(
                                "closing '{}' does not match the opening '{}' at line {}, column {}",
                                c0 as char, open as char, op.line, op.col
                            ),
                        ));
                    }
                    None => {
                        return Err(LexError::new(
                            p,
                            format!("unmatched closing '{}'", c0 as char),
                        ));
                    }
                }
            }
            _ => {}
        }
        self.i += len;
        let e = self.pos();
        self.push(p, tok, e);
        Ok(())
    }
}
