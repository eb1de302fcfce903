//! The parse stage: RPython source text (Python 2.7 or Python 3 syntax) to the
//! AST of `rpy_ir::ast`.
//!
//! `lexer` turns the text into tokens (indentation included), the lalrpop
//! grammar in `grammar.lalrpop` builds the tree with the help of `actions`, and
//! this module turns every failure into a `Diagnostic` with file, line, column
//! and a plain sentence.

pub mod actions;
pub mod lexer;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused)]
    grammar,
    "/parse/grammar.rs"
);

use lalrpop_util::ParseError;
use rpy_ir::ast::{Dialect, Module};
use rpy_ir::diag::{Diagnostic, Diagnostics, FileId, Pos};

use actions::Ctx;
use lexer::{LexError, Mode, Tok};

/// Decodes the bytes of a source file as Python does: by the coding cookie
/// (`# -*- coding: latin-1 -*-`) on the first or second line if there is
/// one (latin-1 / iso-8859-1 and iso-8859-15 are decoded, anything else is
/// read as UTF-8), else as UTF-8. Invalid UTF-8 becomes U+FFFD.
pub fn decode_source(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match declared_encoding(bytes).as_str() {
        e if LATIN_1.contains(&e) => {
            std::borrow::Cow::Owned(bytes.iter().map(|&b| b as char).collect())
        }
        e if LATIN_9.contains(&e) => std::borrow::Cow::Owned(
            bytes
                .iter()
                .map(|&b| match b {
                    0xa4 => '\u{20ac}',
                    0xa6 => '\u{160}',
                    0xa8 => '\u{161}',
                    0xb4 => '\u{17d}',
                    0xb8 => '\u{17e}',
                    0xbc => '\u{152}',
                    0xbd => '\u{153}',
                    0xbe => '\u{178}',
                    b => b as char,
                })
                .collect(),
        ),
        _ => String::from_utf8_lossy(bytes),
    }
}

/// The text of the source file `path`, as `decode_source` reads it; a file
/// read as UTF-8 that is not is an error at its first bad byte (rather
/// than a U+FFFD in a string constant or a confusing parse error later).
pub fn read_source(path: &str, bytes: &[u8]) -> Result<String, Diagnostic> {
    let text = decode_source(bytes);
    if let (std::borrow::Cow::Owned(_), Err(e)) = (&text, std::str::from_utf8(bytes)) {
        if !is_latin(&declared_encoding(bytes)) {
            let at = e.valid_up_to();
            let before = &bytes[..at];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let col = String::from_utf8_lossy(&bytes[line_start..at])
                .chars()
                .count()
                + 1;
            return Err(Diagnostic::new(
                path,
                Pos::new(line as u32, col as u32),
                format!(
                    "invalid UTF-8 at byte {at} (0x{:02x}); a file in another encoding \
                     needs a `# coding:` line",
                    bytes[at]
                ),
            ));
        }
    }
    Ok(text.into_owned())
}

/// The byte that stands for `ch` in a source file `decode_source` read
/// with a one-byte encoding (a coding cookie of latin-1 or latin-9): a
/// Python 2 str literal holds the file's bytes, as CPython 2 encodes the
/// literal back into the source encoding. None for a UTF-8 file (whose
/// str literals hold the char's UTF-8 bytes) and for a char the encoding
/// lacks.
fn single_byte_source(src: &str) -> Option<fn(char) -> Option<u8>> {
    let encoding = declared_encoding(src.as_bytes());
    if LATIN_1.contains(&encoding.as_str()) {
        Some(|ch| u8::try_from(u32::from(ch)).ok())
    } else if LATIN_9.contains(&encoding.as_str()) {
        Some(|ch| match ch {
            '\u{20ac}' => Some(0xa4),
            '\u{160}' => Some(0xa6),
            '\u{161}' => Some(0xa8),
            '\u{17d}' => Some(0xb4),
            '\u{17e}' => Some(0xb8),
            '\u{152}' => Some(0xbc),
            '\u{153}' => Some(0xbd),
            '\u{178}' => Some(0xbe),
            '\u{a4}' | '\u{a6}' | '\u{a8}' | '\u{b4}' | '\u{b8}' | '\u{bc}'..='\u{be}' => None,
            _ => u8::try_from(u32::from(ch)).ok(),
        })
    } else {
        None
    }
}

/// The names of the encodings `decode_source` reads other than UTF-8.
const LATIN_1: &[&str] = &[
    "latin-1",
    "iso-8859-1",
    "iso8859-1",
    "latin1",
    "l1",
    "iso-latin-1",
    "cp819",
];
const LATIN_9: &[&str] = &["iso-8859-15", "iso8859-15", "latin-9", "latin9"];

fn is_latin(encoding: &str) -> bool {
    LATIN_1.contains(&encoding) || LATIN_9.contains(&encoding)
}

/// The encoding a `# coding:` comment on the first two lines declares,
/// lower case with `-` for `_`; empty when none does.
fn declared_encoding(bytes: &[u8]) -> String {
    let mut enc = String::new();
    for line in bytes.split(|&b| b == b'\n').take(2) {
        let line = String::from_utf8_lossy(line);
        let t = line.trim_start();
        if !t.starts_with('#') {
            if t.is_empty() {
                continue;
            }
            break;
        }
        if let Some(i) = t.find("coding") {
            let rest = &t[i + 6..];
            if let Some(rest) = rest.strip_prefix(':').or_else(|| rest.strip_prefix('=')) {
                enc = rest
                    .trim_start()
                    .chars()
                    .take_while(|c| {
                        c.is_ascii_alphanumeric() || *c == '-' || *c == '_' || *c == '.'
                    })
                    .collect::<String>()
                    .to_ascii_lowercase()
                    .replace('_', "-");
                break;
            }
        }
    }
    enc
}

/// Parses one source file, the program's main file (`FileId::MAIN`).
/// `path` is only used in diagnostics and `Module::path`.
pub fn parse_module(path: &str, source: &str, dialect: Dialect) -> Result<Module, Diagnostics> {
    parse_module_in(FileId::MAIN, path, source, dialect)
}

/// Parses one source file, whose positions are in file `file` (its id in
/// the program's `SourceMap`).
pub fn parse_module_in(
    file: FileId,
    path: &str,
    source: &str,
    dialect: Dialect,
) -> Result<Module, Diagnostics> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let mode = match dialect {
        Dialect::Py2 => Mode::Py2,
        Dialect::Py3 => Mode::Py3,
    };
    let lexed = lexer::lex(source, mode, file);
    let parts = (lexed.tokens.len() / TOKENS_PER_PART).min(rayon::current_num_threads());
    let (result, mut ctx_errors) = parse_tokens(dialect, lexed.tokens, parts);
    let mut errors: Vec<(Pos, String)> = lexed
        .errors
        .into_iter()
        .map(|e| (e.pos, e.message))
        .collect();
    errors.append(&mut ctx_errors);
    let mut notes: Vec<(Pos, String)> = Vec::new();
    let body = match result {
        Ok(body) => Some(body),
        Err(e) => {
            let (pos, msg) = syntax_error(e);
            if let Some(note) = unclosed_bracket_note(source, mode, pos) {
                notes.push((pos, note));
            }
            errors.push((pos, msg));
            None
        }
    };
    match body {
        Some(body) if errors.is_empty() => Ok(Module {
            path: path.to_string(),
            dialect,
            body,
        }),
        _ => {
            errors.sort_by_key(|e| e.0);
            errors.dedup();
            Err(Diagnostics(
                errors
                    .into_iter()
                    .map(|(pos, msg)| {
                        let mut d = make_diag(path, source, dialect, pos, msg);
                        for (p, n) in &notes {
                            if *p == pos {
                                d = d.with_note(n.clone());
                            }
                        }
                        d
                    })
                    .collect(),
            ))
        }
    }
}

/// A module of at least this many tokens per core is parsed in parts, one
/// per core; below it a part's parse is too short to pay for the thread.
const TOKENS_PER_PART: usize = 20_000;

/// A module's statements, or the syntax error that stopped its parse.
type ParsedBody<'a> = Result<Vec<rpy_ir::ast::Stmt>, LalrError<'a>>;

/// Parses a module's tokens in up to `parts` parts: the statements, or the
/// first syntax error, and the errors the grammar's actions found on the
/// way.
///
/// A long module is cut before top-level `def`, `class` or decorator
/// lines into parts of about equal length, parsed on every core: each part
/// is a module of its own, as the grammar reads a statement from the tokens
/// of its own lines only (the future imports that change how lines lex
/// were applied by the lexer). The result is the whole parse's: the
/// statements in order, or the first part's syntax error with the action
/// errors of the parts up to it, as a parse that stops at that error
/// reports.
fn parse_tokens(
    dialect: Dialect,
    mut tokens: Vec<lexer::Spanned<'_>>,
    parts: usize,
) -> (ParsedBody<'_>, Vec<(Pos, String)>) {
    use rayon::prelude::*;
    let cuts = top_level_cuts(&tokens, parts);
    let mut chunks = Vec::with_capacity(cuts.len() + 1);
    for &cut in cuts.iter().rev() {
        chunks.push(tokens.split_off(cut));
    }
    chunks.push(tokens);
    chunks.reverse();
    let parsed: Vec<_> = chunks
        .into_par_iter()
        .map(|chunk| {
            let mut ctx = Ctx::new(dialect);
            let result = grammar::ModuleParser::new().parse(&mut ctx, chunk);
            ctx.finish();
            (result, ctx.errors)
        })
        .collect();
    let mut body = Vec::new();
    let mut errors = Vec::new();
    for (result, mut ctx_errors) in parsed {
        errors.append(&mut ctx_errors);
        match result {
            Ok(mut stmts) => body.append(&mut stmts),
            Err(e) => return (Err(e), errors),
        }
    }
    (Ok(body), errors)
}

/// Up to `parts - 1` token indices, increasing, where a module can be cut
/// into parts that parse alone: each is a top-level `def`, `class` or `@`
/// that starts a logical line not preceded by a decorator line (so that a
/// decorator stays with its definition, and no `else`, `elif`, `except`
/// or `finally` is cut from its statement). None when the tokens hold a
/// lexing error, which the whole parse reports where it is.
fn top_level_cuts(tokens: &[lexer::Spanned<'_>], parts: usize) -> Vec<usize> {
    let mut cuts = Vec::new();
    if parts < 2 || tokens.iter().any(Result::is_err) {
        return cuts;
    }
    let mut next_target = tokens.len() / parts;
    let mut depth = 0usize;
    let mut line_start = true;
    let mut after_decorator = false;
    for (i, t) in tokens.iter().enumerate() {
        let Ok((_, tok, _)) = t else { break };
        match tok {
            Tok::Indent => depth += 1,
            Tok::Dedent => depth = depth.saturating_sub(1),
            Tok::Newline => {}
            _ if line_start && depth == 0 => {
                let starts_definition = matches!(tok, Tok::Def | Tok::Class | Tok::At);
                if starts_definition && !after_decorator && i >= next_target && i > 0 {
                    cuts.push(i);
                    if cuts.len() + 1 == parts {
                        break;
                    }
                    next_target = tokens.len() * (cuts.len() + 1) / parts;
                }
                after_decorator = matches!(tok, Tok::At);
            }
            _ => {}
        }
        line_start = matches!(tok, Tok::Newline | Tok::Indent | Tok::Dedent);
    }
    cuts
}

/// When a syntax error is inside brackets opened on an earlier line, the
/// likely cause is a missing closing bracket: say where it was opened.
fn unclosed_bracket_note(source: &str, mode: Mode, at: Pos) -> Option<String> {
    let lexed = lexer::lex(source, mode, at.file);
    let mut stack: Vec<(Pos, &'static str)> = Vec::new();
    for t in lexed.tokens.iter() {
        let Ok((start, tok, _)) = t else { break };
        if *start >= at {
            break;
        }
        match tok {
            Tok::LPar | Tok::LSqb | Tok::LBrace => stack.push((*start, tok.text())),
            Tok::RPar | Tok::RSqb | Tok::RBrace => {
                stack.pop();
            }
            _ => {}
        }
    }
    let (p, text) = stack.last()?;
    if p.line < at.line {
        Some(format!(
            "the '{}' at line {}, column {} is not closed",
            text, p.line, p.col
        ))
    } else {
        None
    }
}

fn make_diag(path: &str, source: &str, dialect: Dialect, pos: Pos, msg: String) -> Diagnostic {
    let pos = clamp_to_source(source, pos);
    let mut d = Diagnostic::new(path, pos, msg).with_source(source);
    let line = d.source_line.as_deref().unwrap_or("").trim_start();
    let note = match dialect {
        Dialect::Py2 if line.starts_with("print(") && d.message.contains("'='") => Some(
            "in Python 2 'print' is a statement; parse the file as Python 3 \
             or add 'from __future__ import print_function'",
        ),
        Dialect::Py3
            if (line.starts_with("print ") || line.starts_with("print\t"))
                && d.message.starts_with("unexpected") =>
        {
            Some("in Python 3 'print' is a function: print(...); or parse the file as Python 2")
        }
        _ => None,
    };
    if let Some(note) = note {
        d = d.with_note(note);
    }
    d
}

/// Errors at the very end of the file point at the end of its last line
/// rather than at a line that does not exist.
fn clamp_to_source(source: &str, pos: Pos) -> Pos {
    let nlines = source.lines().count() as u32;
    if nlines > 0 && pos.line > nlines {
        let last = source.lines().last().unwrap_or("");
        Pos::in_file(pos.file, nlines, last.chars().count() as u32 + 1)
    } else {
        pos
    }
}

type LalrError<'a> = ParseError<Pos, Tok<'a>, LexError>;

fn syntax_error(e: LalrError<'_>) -> (Pos, String) {
    match e {
        ParseError::User { error } => (error.pos, error.message),
        ParseError::InvalidToken { location } => (location, "invalid token".to_string()),
        ParseError::UnrecognizedEof { location, expected } => {
            let exp = describe_expected(&expected);
            let msg = if exp.is_empty() {
                "unexpected end of file".to_string()
            } else {
                format!("unexpected end of file; expected {}", exp)
            };
            (location, msg)
        }
        ParseError::UnrecognizedToken {
            token: (start, tok, _),
            expected,
        } => {
            let exp = describe_expected(&expected);
            let statement_expected = exp == "a statement";
            let msg = match tok {
                Tok::Indent => "unexpected indentation".to_string(),
                Tok::Else if statement_expected => {
                    "unexpected 'else': it does not follow an 'if', 'for', 'while' or 'try' block"
                        .to_string()
                }
                Tok::Elif if statement_expected => {
                    "unexpected 'elif': it does not follow an 'if' block".to_string()
                }
                Tok::Except | Tok::Finally if statement_expected => format!(
                    "unexpected '{}': it does not follow a 'try' block",
                    tok.text()
                ),
                // `first, *rest = x` (Python 3's extended unpacking).
                Tok::Star if exp.contains("an expression") => {
                    "starred items ('*x') are not supported by RPython; index or slice the sequence instead"
                        .to_string()
                }
                _ if exp == "an indented block" => "expected an indented block here".to_string(),
                _ if exp.is_empty() => format!("unexpected {} here", tok.describe()),
                _ => format!("unexpected {} here; expected {}", tok.describe(), exp),
            };
            (start, msg)
        }
        ParseError::ExtraToken {
            token: (start, tok, _),
        } => (start, format!("unexpected {} here", tok.describe())),
    }
}

/// Tokens that can start an expression.
const EXPR_START: &[&str] = &[
    "Name", "Int", "Float", "Str", "(", "[", "{", "-", "+", "~", "not", "lambda", "True", "False",
    "None", "...", "BigInt", "`", "yield",
];

/// Tokens that could continue what came before; listed only when nothing else fits.
const CONTINUATION: &[&str] = &[
    "+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==",
    "!=", "is", "in", "not", "and", "or", "if", "(", "[", ".", "for", "=", "+=", "-=", "*=", "/=",
    "//=", "%=", "**=", "<<=", ">>=", "&=", "|=", "^=", ";", "@", "->",
];

/// Turns lalrpop's list of expected terminals into a short phrase such as
/// "an expression", "':'" or "',' or ')'".
fn describe_expected(expected: &[String]) -> String {
    let names: Vec<&str> = expected
        .iter()
        .map(|s| {
            let s = s.as_str();
            s.strip_prefix('"')
                .and_then(|s| s.strip_suffix('"'))
                .unwrap_or(s)
        })
        .collect();
    let has = |n: &str| names.contains(&n);
    let mut items: Vec<String> = Vec::new();
    let expr_like = has("Name") && has("Int");
    if names.len() == 1 && has("Indent") {
        return "an indented block".to_string();
    }
    if has("pass") && has("def") && has("Name") {
        return "a statement".to_string();
    }
    let mut rest: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !(expr_like && EXPR_START.contains(n)))
        .collect();
    let essential: Vec<&str> = rest
        .iter()
        .copied()
        .filter(|n| !CONTINUATION.contains(n))
        .collect();
    if !essential.is_empty() || expr_like {
        rest = essential;
    }
    if rest.contains(&"Newline") && rest.len() > 1 {
        rest.retain(|n| *n != "," && *n != ":");
    }
    if expr_like {
        items.push("an expression".to_string());
    }
    // Closing brackets and ':' first: they are the likeliest fix.
    let rank = |n: &str| match n {
        ")" | "]" | "}" => 0,
        ":" => 1,
        "Newline" => 2,
        "," => 3,
        _ => 4,
    };
    rest.sort_by_key(|n| rank(n));
    for n in rest {
        items.push(match n {
            "Name" => "a name".to_string(),
            "Int" | "Float" => "a number".to_string(),
            "Str" => "a string".to_string(),
            "Newline" => "end of line".to_string(),
            "Indent" => "an indented block".to_string(),
            "Dedent" => "end of the block".to_string(),
            other => format!("'{}'", other),
        });
    }
    items.dedup();
    if items.len() > 4 {
        items.truncate(4);
    }
    match items.len() {
        0 => String::new(),
        1 => items.remove(0),
        _ => {
            let last = items.pop().unwrap_or_default();
            format!("{} or {}", items.join(", "), last)
        }
    }
}

/// Guesses the dialect of a source file: Python 2 if it uses Python-2-only
/// syntax (the print statement, `except E, e`, backquotes, `0777`, `10L`,
/// `ur""`, `<>`, `raise E, x`, `exec code`), else Python 3 if it uses
/// Python-3-only syntax (print with keyword arguments, `nonlocal`, annotations,
/// `raise ... from ...`, underscores in numbers, `rb""`), else Python 2.
pub fn detect_dialect(source: &str) -> Dialect {
    let lexed = lexer::lex(source, Mode::Detect, FileId::MAIN);
    if lexed.py2_marker {
        return Dialect::Py2;
    }
    let toks: Vec<&Tok<'_>> = lexed
        .tokens
        .iter()
        .filter_map(|t| t.as_ref().ok().map(|(_, t, _)| t))
        .collect();
    let mut py3 = lexed.py3_marker;
    // With print_function, Python 2 code calls print(..., end=...) too.
    let print_function = lexer::future_imports(source).0;
    let mut stmt_start = true;
    let mut depth: i32 = 0;
    // `print(...)` as a statement is valid in both dialects; written
    // throughout a file without print_function, it says the author meant
    // Python 3.
    let mut print_calls = 0;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        let next = toks.get(i + 1).copied();
        match t {
            Tok::Name("print") if stmt_start => match next {
                Some(Tok::LPar) if !print_function && print_has_py3_keywords(&toks[i + 1..]) => {
                    py3 = true
                }
                Some(Tok::LPar) => print_calls += 1,
                Some(
                    Tok::Name(_)
                    | Tok::Str(_)
                    | Tok::Int(_)
                    | Tok::Float(_)
                    | Tok::Newline
                    | Tok::RShift
                    | Tok::Minus
                    | Tok::Tilde
                    | Tok::Not
                    | Tok::Lambda
                    | Tok::KwTrue
                    | Tok::KwFalse
                    | Tok::KwNone
                    | Tok::LSqb
                    | Tok::LBrace
                    | Tok::Semi,
                ) => return Dialect::Py2,
                _ => {}
            },
            Tok::Name("exec") if stmt_start => {
                if matches!(next, Some(Tok::Name(_) | Tok::Str(_))) {
                    return Dialect::Py2;
                }
            }
            Tok::Name("nonlocal") if stmt_start => {
                if matches!(next, Some(Tok::Name(_))) {
                    py3 = true;
                }
            }
            Tok::Except | Tok::Raise if depth == 0 => {
                // A comma at bracket depth 0 before the end of the clause.
                let mut d = 0;
                for u in &toks[i + 1..] {
                    match u {
                        Tok::LPar | Tok::LSqb | Tok::LBrace => d += 1,
                        Tok::RPar | Tok::RSqb | Tok::RBrace => d -= 1,
                        Tok::Comma if d == 0 => return Dialect::Py2,
                        Tok::From if d == 0 && matches!(t, Tok::Raise) => {
                            py3 = true;
                            break;
                        }
                        Tok::Colon | Tok::Newline | Tok::Semi if d == 0 => break,
                        _ => {}
                    }
                }
            }
            Tok::Arrow => py3 = true,
            Tok::Ellipsis
                if !matches!(
                    toks.get(i.wrapping_sub(1)),
                    Some(Tok::From | Tok::Dot | Tok::Ellipsis)
                ) =>
            {
                py3 = true
            }
            Tok::Def if def_has_annotations(&toks[i + 1..]) => py3 = true,
            _ => {}
        }
        match t {
            Tok::LPar | Tok::LSqb | Tok::LBrace => depth += 1,
            Tok::RPar | Tok::RSqb | Tok::RBrace => depth -= 1,
            _ => {}
        }
        stmt_start = matches!(t, Tok::Newline | Tok::Indent | Tok::Dedent | Tok::Semi)
            || (depth == 0 && matches!(t, Tok::Colon));
        i += 1;
    }
    if py3 || (print_calls > 0 && !print_function) {
        Dialect::Py3
    } else {
        Dialect::Py2
    }
}

/// `print(..., end=...)` and friends: toks starts at the `(`.
fn print_has_py3_keywords(toks: &[&Tok<'_>]) -> bool {
    let mut d = 0;
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::LPar | Tok::LSqb | Tok::LBrace => d += 1,
            Tok::RPar | Tok::RSqb | Tok::RBrace => {
                d -= 1;
                if d == 0 {
                    return false;
                }
            }
            Tok::Name("end" | "sep" | "file" | "flush") if d == 1 => {
                if matches!(toks.get(k + 1), Some(Tok::Assign)) {
                    return true;
                }
            }
            Tok::Newline => return false,
            _ => {}
        }
    }
    false
}

/// `def f(x: int, *, k)`: toks starts after `def`.
fn def_has_annotations(toks: &[&Tok<'_>]) -> bool {
    let mut d = 0;
    let mut saw_lambda = false;
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::LPar | Tok::LSqb | Tok::LBrace => d += 1,
            Tok::RPar | Tok::RSqb | Tok::RBrace => {
                d -= 1;
                if d == 0 {
                    return false;
                }
            }
            Tok::Lambda => saw_lambda = true,
            Tok::Colon if d == 1 && !saw_lambda => return true,
            Tok::Star if d == 1 && matches!(toks.get(k + 1), Some(Tok::Comma)) => return true,
            Tok::Newline => return false,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module with what must not be cut apart: decorators and their
    /// definitions, `else`/`except` after a top-level block, methods.
    fn long_module(n: usize) -> String {
        let mut text = String::from("import os\n");
        for i in 0..n {
            text.push_str(&format!(
                "@dec\n@dec2(1)\ndef f{i}(x):\n    return x + {i}\n\
                 if f{i}(1):\n    y = 1\nelse:\n    y = 2\n\
                 try:\n    y = 3\nexcept ValueError:\n    pass\nfinally:\n    pass\n\
                 class C{i}(object):\n    @staticmethod\n    def m(a):\n        return [a,\n  {i}]\n"
            ));
        }
        text
    }

    fn parse_in(text: &str, parts: usize) -> (Vec<rpy_ir::ast::Stmt>, usize) {
        let lexed = lexer::lex(text, Mode::Py2, FileId::MAIN);
        let cuts = top_level_cuts(&lexed.tokens, parts).len();
        let (result, errors) = parse_tokens(Dialect::Py2, lexed.tokens, parts);
        assert!(errors.is_empty());
        (result.map_err(|e| syntax_error(e).1).unwrap(), cuts)
    }

    #[test]
    fn a_module_parsed_in_parts_is_the_module_parsed_whole() {
        let text = long_module(300);
        let (whole, _) = parse_in(&text, 1);
        for parts in [2, 3, 7] {
            let (cut, cuts) = parse_in(&text, parts);
            assert_eq!(cuts, parts - 1);
            assert!(cut == whole, "{parts} parts");
        }
    }

    #[test]
    fn a_syntax_error_in_a_later_part_is_the_whole_parse_error() {
        let mut text = long_module(200);
        text.push_str("def broken(:\n    pass\n");
        text.push_str(&long_module(200));
        let error = |parts| {
            let lexed = lexer::lex(&text, Mode::Py2, FileId::MAIN);
            let (result, _) = parse_tokens(Dialect::Py2, lexed.tokens, parts);
            syntax_error(result.expect_err("the module has a syntax error"))
        };
        assert_eq!(error(4), error(1));
    }
}
