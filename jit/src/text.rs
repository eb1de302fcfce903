//! The text form of traces: a header declaring types and descrs, then the
//! trace in PyPy's syntax. See `jit/README.md` for the grammar.

use std::collections::{HashMap, HashSet};
use std::fmt::{self, Write};
use std::sync::Arc;

use rpy_ir::lltype::LowLevelType;

use crate::trace::{
    opcode, BoxInfo, Decl, DescrData, DescrNeed, FieldSlot, Header, Kind, Op, Opcode, PendingStore,
    ResidualCall, Resume, ResumeValue, Trace, Value, VirtualObject, OPS,
};

/// A syntax or consistency error, at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub msg: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.msg)
    }
}

impl std::error::Error for ParseError {}

struct Cursor<'a> {
    line: usize,
    text: &'a str,
    pos: usize,
}

type PResult<T> = Result<T, ParseError>;

impl<'a> Cursor<'a> {
    fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        self.err_at(self.pos, msg)
    }

    fn err_at<T>(&self, pos: usize, msg: impl Into<String>) -> PResult<T> {
        Err(ParseError {
            line: self.line,
            col: self.text[..pos.min(self.text.len())].chars().count() + 1,
            msg: msg.into(),
        })
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> PResult<()> {
        if self.eat(c) {
            Ok(())
        } else {
            match self.peek() {
                Some(f) => self.err(format!("expected '{c}', found '{f}'")),
                None => self.err(format!("expected '{c}' before the end of the line")),
            }
        }
    }

    /// Eats `word` if the text goes on with it (after spaces).
    fn eat_word(&mut self, word: &str) -> bool {
        self.ws();
        let found = self.text[self.pos..].starts_with(word);
        if found {
            self.pos += word.len();
        }
        found
    }

    /// `descr=NAME`: where NAME is, and NAME.
    fn descr_name(&mut self, what: &str) -> PResult<(usize, &'a str)> {
        if !self.eat_word("descr=") {
            return self.err("expected descr=");
        }
        self.descr_ident(what)
    }

    /// A descr's name: an identifier, and `[]` after the name of a
    /// varsized struct for its items (`rpy_string[]`).
    fn descr_ident(&mut self, what: &str) -> PResult<(usize, &'a str)> {
        let (start, _) = self.ident(what)?;
        if self.text[self.pos..].starts_with("[]") {
            self.pos += 2;
        }
        Ok((start, &self.text[start..self.pos]))
    }

    fn at_end(&mut self) -> bool {
        self.ws();
        self.pos >= self.text.len()
    }

    /// An identifier (letters, digits, `_`, and `.` inside descr names).
    fn ident(&mut self, what: &str) -> PResult<(usize, &'a str)> {
        self.ws();
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            self.pos += 1;
        }
        if start == self.pos {
            return match self.peek() {
                Some(c) => self.err(format!("expected {what}, found '{c}'")),
                None => self.err(format!("expected {what} before the end of the line")),
            };
        }
        Ok((start, &self.text[start..self.pos]))
    }

    /// Everything up to (not including) one of `stops` at nesting depth 0.
    fn until(&mut self, stops: &[char]) -> (usize, &'a str) {
        self.ws();
        let start = self.pos;
        let mut depth = 0i32;
        while let Some(c) = self.peek() {
            if depth == 0 && stops.contains(&c) {
                break;
            }
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
            self.pos += c.len_utf8();
        }
        (start, self.text[start..self.pos].trim_end())
    }
}

/// Strips a `#` comment.
fn strip_comment(line: &str) -> &str {
    match line.find('#') {
        Some(i) => &line[..i],
        None => line,
    }
}

fn parse_lltype(c: &Cursor, pos: usize, text: &str) -> PResult<LowLevelType> {
    LowLevelType::parse(text).or_else(|e| c.err_at(pos, e))
}

fn parse_decl(c: &mut Cursor, keyword: &str) -> PResult<Decl> {
    let (_, name) = c.ident("a name")?;
    let name = name.to_string();
    Ok(match keyword {
        "struct" => {
            c.expect('{')?;
            let mut fields = Vec::new();
            if !c.eat('}') {
                loop {
                    let (_, f) = c.ident("a field name")?;
                    c.expect(':')?;
                    let (p, t) = c.until(&[',', '}']);
                    fields.push((f.to_string(), parse_lltype(c, p, t)?));
                    if c.eat('}') {
                        break;
                    }
                    c.expect(',')?;
                }
            }
            Decl::Struct { name, fields }
        }
        "array" => {
            c.expect('=')?;
            let (p, t) = c.until(&[]);
            Decl::Array {
                name,
                item: parse_lltype(c, p, t)?,
            }
        }
        "class" => {
            c.expect('(')?;
            let (_, s) = c.ident("a struct name")?;
            c.expect(')')?;
            Decl::Class {
                name,
                strukt: s.to_string(),
            }
        }
        "type" => {
            c.expect('=')?;
            let (p, t) = c.until(&[]);
            Decl::ProgramType {
                name,
                ty: rpy_ir::lltype::parse_container(t).or_else(|e| c.err_at(p, e))?,
            }
        }
        "residual" => {
            c.expect('=')?;
            let (p, t) = c.until(&[]);
            Decl::Residual {
                name,
                call: parse_residual(t).or_else(|e| c.err_at(p, e))?,
            }
        }
        "field" => {
            c.expect('=')?;
            let (p, sf) = c.ident("struct.field")?;
            let Some((s, f)) = sf.split_once('.') else {
                return c.err_at(p, "expected struct.field");
            };
            Decl::Field {
                name,
                strukt: s.to_string(),
                field: f.to_string(),
            }
        }
        _ => {
            c.expect('=')?;
            let (_, f) = c.ident("a native function name")?;
            Decl::Call {
                name,
                func: f.to_string(),
            }
        }
    })
}

/// A residual call's declaration after its `=`: `INDEX(KINDS) -> KIND`,
/// then `raises` when it may raise (kinds by their box letters, `v` for
/// no result).
fn parse_residual(text: &str) -> Result<ResidualCall, String> {
    let bad = || format!("'{text}' is not INDEX(KINDS) -> KIND [raises]");
    let (index, rest) = text.split_once('(').ok_or_else(bad)?;
    let (args, rest) = rest.split_once(')').ok_or_else(bad)?;
    let rest = rest.trim().strip_prefix("->").ok_or_else(bad)?.trim();
    let (result, raises) = match rest.split_once(char::is_whitespace) {
        Some((k, "raises")) => (k, true),
        Some(_) => return Err(bad()),
        None => (rest, false),
    };
    let kind = |k: &str| match k.trim() {
        "v" => Ok(Kind::Void),
        k if k.len() == 1 => Kind::from_prefix(k.chars().next().unwrap_or(' ')).ok_or_else(bad),
        _ => Err(bad()),
    };
    Ok(ResidualCall {
        index: index.trim().parse().map_err(|_| bad())?,
        args: args
            .split(',')
            .filter(|a| !a.trim().is_empty())
            .map(kind)
            .collect::<Result<_, _>>()?,
        result: kind(result)?,
        can_raise: raises,
    })
}

/// The declaration text of residual call `call` named `name`.
fn residual_text(name: &str, call: &ResidualCall) -> String {
    let args: Vec<String> = call.args.iter().map(|k| k.prefix().to_string()).collect();
    format!(
        "residual {name} = {}({}) -> {}{}",
        call.index,
        args.join(", "),
        call.result.prefix(),
        if call.can_raise { " raises" } else { "" }
    )
}

struct TraceParser {
    trace: Trace,
    header: Header,
    names: HashMap<String, usize>,
    /// Boxes named so far only as virtual objects of guards' resume data:
    /// they have no value in the trace (an operation may still define one
    /// later, where the object is allocated for real).
    virtual_only: HashSet<usize>,
    /// Where each object a `ConstPtr(0x...)` names is now (see
    /// [`parse_with_objects`]).
    objects: HashMap<u64, u64>,
}

/// A `pending setfield_gc(target, value, descr=D)` clause, its values as
/// written.
struct PendingClause<'a> {
    target: (usize, &'a str),
    value: (usize, &'a str),
    descr: usize,
}

/// One `virtual NAME = new...(...) {...}` clause of a guard, its values
/// still unread.
struct VirtualClause<'a> {
    id: usize,
    opcode: Opcode,
    descr: usize,
    length: usize,
    fields: Vec<(FieldSlot, usize, &'a str)>,
}

impl TraceParser {
    fn define(&mut self, c: &Cursor, pos: usize, name: &str) -> PResult<usize> {
        let Some(kind) = name.chars().next().and_then(Kind::from_prefix) else {
            return c.err_at(
                pos,
                format!("box '{name}' must start with i, f or p (its kind)"),
            );
        };
        if let Some(&id) = self.names.get(name) {
            if self.virtual_only.remove(&id) && self.trace.boxes[id].kind == kind {
                return Ok(id);
            }
            return c.err_at(pos, format!("box '{name}' is defined twice"));
        }
        self.trace.boxes.push(BoxInfo::named(name, kind));
        let id = self.trace.boxes.len() - 1;
        self.names.insert(name.to_string(), id);
        Ok(id)
    }

    fn value(&mut self, c: &mut Cursor) -> PResult<(usize, Value)> {
        let (p, text) = c.until(&[',', ')', ']']);
        Ok((p, self.value_text(c, p, text)?))
    }

    fn value_text(&mut self, c: &Cursor, p: usize, text: &str) -> PResult<Value> {
        if text.is_empty() {
            return c.err_at(p, "expected a value");
        }
        let v = if let Some(&b) = self.names.get(text) {
            if self.virtual_only.contains(&b) {
                return c.err_at(
                    p,
                    format!("box '{text}' is a virtual object of a guard's resume data: it has no value here"),
                );
            }
            Value::Box(b)
        } else if text == "NULL" || text == "ConstPtr(null)" {
            Value::NullPtr
        } else if let Some(&p) = text
            .strip_prefix("ConstPtr(0x")
            .and_then(|t| t.strip_suffix(')'))
            .and_then(|t| u64::from_str_radix(t, 16).ok())
            .and_then(|a| self.objects.get(&a))
        {
            Value::ConstPtr(p)
        } else if text.starts_with("ConstPtr(") {
            return c.err_at(
                p,
                format!("{text} names an object of the run that recorded the trace; a text trace makes its objects when it runs"),
            );
        } else if let Some(cls) = text
            .strip_prefix("ConstClass(")
            .and_then(|t| t.strip_suffix(')'))
        {
            match self.header.descr(cls.trim()) {
                Some(d) if self.header.class_id(d).is_some() => Value::Class(d),
                _ => return c.err_at(p, format!("no class '{}' in the header", cls.trim())),
            }
        } else if let Some(v) = parse_int(text) {
            Value::Int(v)
        } else if let Some(f) = parse_float(text) {
            Value::float(f)
        } else if text.starts_with(|ch: char| ch.is_ascii_alphabetic()) {
            return c.err_at(p, format!("box '{text}' is not defined"));
        } else {
            return c.err_at(p, format!("cannot read '{text}' as a value"));
        };
        Ok(v)
    }

    /// The field descr `name`, written at `pos`, names.
    fn field_descr(&mut self, c: &Cursor, pos: usize, name: &str) -> PResult<usize> {
        let f = self
            .header
            .resolve_descr(name)
            .or_else(|e| c.err_at(pos, e))?;
        match self.header.descrs[f].data {
            DescrData::Field { .. } => Ok(f),
            _ => c.err_at(pos, format!("'{name}' is not a field")),
        }
    }

    /// The `virtual` clauses after a guard's fail args.
    fn virtual_clauses<'a>(&mut self, c: &mut Cursor<'a>) -> PResult<Vec<VirtualClause<'a>>> {
        let mut clauses = Vec::new();
        loop {
            if !c.eat_word("virtual ") {
                return Ok(clauses);
            }
            let (np, name) = c.ident("the name of a virtual object")?;
            if !name.starts_with('p') {
                return c.err_at(np, format!("virtual object '{name}' must be a 'p' box"));
            }
            let id = match self.names.get(name) {
                Some(&id) if self.virtual_only.contains(&id) => {
                    if clauses.iter().any(|v: &VirtualClause| v.id == id) {
                        return c.err_at(np, format!("virtual object '{name}' is described twice"));
                    }
                    id
                }
                Some(_) => {
                    return c.err_at(
                        np,
                        format!("'{name}' is a box of the trace, not a virtual object"),
                    )
                }
                None => {
                    let id = self.define(c, np, name)?;
                    self.virtual_only.insert(id);
                    id
                }
            };
            c.expect('=')?;
            let (op_at, op_name) = c.ident("new, new_with_vtable or new_array")?;
            // the allocations, with the descr each needs (from the table)
            let Some(code) = opcode(op_name).filter(|c| c.is_allocation()) else {
                return c.err_at(
                    op_at,
                    format!("a virtual object is made by new, new_with_vtable or new_array, not '{op_name}'"),
                );
            };
            let need = OPS[code as usize].descr;
            c.expect('(')?;
            let mut length = 0;
            // an array or a string: a length, and items by index
            let indexed = need == DescrNeed::Array || need.is_implied();
            if indexed {
                let (lp, text) = c.until(&[',', ')']);
                length = match parse_int(text) {
                    Some(n) if (0..1 << 28).contains(&n) => n as usize,
                    _ => return c.err_at(lp, "expected the array's length"),
                };
            }
            let descr = if need.is_implied() {
                self.header
                    .string_descr(need)
                    .or_else(|e| c.err_at(op_at, e))?
            } else {
                if need == DescrNeed::Array {
                    c.expect(',')?;
                }
                let (dp, d) = c.descr_name("a descr name")?;
                let descr = self.header.resolve_descr(d).or_else(|e| c.err_at(dp, e))?;
                if !need.admits(&self.header.descrs[descr].data) {
                    return c.err_at(dp, format!("'{op_name}' cannot allocate '{d}'"));
                }
                descr
            };
            c.expect(')')?;
            c.expect('{')?;
            let mut fields = Vec::new();
            if !c.eat('}') {
                loop {
                    let (kp, key) = c.until(&[':']);
                    let slot = if indexed {
                        match parse_int(key) {
                            Some(i) if (0..length as i64).contains(&i) => {
                                FieldSlot::Item(i as usize)
                            }
                            _ => return c.err_at(kp, format!("expected an index below {length}")),
                        }
                    } else {
                        FieldSlot::Field(self.field_descr(c, kp, key)?)
                    };
                    c.expect(':')?;
                    let (vp, v) = c.until(&[',', '}']);
                    fields.push((slot, vp, v));
                    if c.eat('}') {
                        break;
                    }
                    c.expect(',')?;
                }
            }
            clauses.push(VirtualClause {
                id,
                opcode: code,
                descr,
                length,
                fields,
            });
        }
    }

    /// The `pending setfield_gc(...)` clauses after the `virtual` ones.
    fn pending_clauses<'a>(&mut self, c: &mut Cursor<'a>) -> PResult<Vec<PendingClause<'a>>> {
        let mut clauses = Vec::new();
        loop {
            if !c.eat_word("pending ") {
                return Ok(clauses);
            }
            let (op_at, op_name) = c.ident("setfield_gc")?;
            if op_name != "setfield_gc" {
                return c.err_at(op_at, "a pending store is a setfield_gc");
            }
            c.expect('(')?;
            let target = c.until(&[',']);
            c.expect(',')?;
            let value = c.until(&[',']);
            c.expect(',')?;
            let (dp, d) = c.descr_name("a field descr")?;
            let descr = self.field_descr(c, dp, d)?;
            c.expect(')')?;
            clauses.push(PendingClause {
                target,
                value,
                descr,
            });
        }
    }

    /// A guard's fail args and resume data from the bracket's values and
    /// the `virtual` and `pending` clauses: the fail args are the plain
    /// values, in the order they appear.
    fn resume(
        &mut self,
        c: &Cursor,
        listed: &[(usize, &str)],
        clauses: &[VirtualClause],
        pending_clauses: &[PendingClause],
    ) -> PResult<(Vec<Value>, Option<Box<Resume>>)> {
        let mut saved = Vec::new();
        let mut resume_value =
            |p: &mut Self, at: usize, text: &str| -> PResult<(ResumeValue, Kind)> {
                if let Some(k) = p
                    .names
                    .get(text)
                    .and_then(|id| clauses.iter().position(|v| v.id == *id))
                {
                    return Ok((ResumeValue::Object(k), Kind::Ref));
                }
                let v = p.value_text(c, at, text)?;
                saved.push(v);
                Ok((ResumeValue::Saved(saved.len() - 1), p.trace.kind(v)))
            };
        let mut values = Vec::new();
        for (at, text) in listed {
            values.push(resume_value(self, *at, text)?.0);
        }
        let mut objects = Vec::new();
        for v in clauses {
            let mut fields = Vec::new();
            for (slot, at, text) in &v.fields {
                let (rv, kind) = resume_value(self, *at, text)?;
                let ty = match (slot, &self.header.descrs[v.descr].data) {
                    (FieldSlot::Field(f), _) => match &self.header.descrs[*f].data {
                        DescrData::Field { ty, .. } => ty.clone(),
                        _ => LowLevelType::Signed,
                    },
                    (FieldSlot::Item(_), DescrData::Array { item, .. }) => item.clone(),
                    _ => LowLevelType::Signed,
                };
                if Kind::of_lltype(&ty) != kind {
                    return c.err_at(
                        *at,
                        format!("this slot holds {}", kind_word(Kind::of_lltype(&ty))),
                    );
                }
                fields.push((*slot, rv));
            }
            objects.push(VirtualObject {
                name: v.id,
                opcode: v.opcode,
                descr: v.descr,
                length: v.length,
                fields,
            });
        }
        let mut pending = Vec::new();
        for p in pending_clauses {
            let (target, tk) = resume_value(self, p.target.0, p.target.1)?;
            let (value, vk) = resume_value(self, p.value.0, p.value.1)?;
            if tk != Kind::Ref {
                return c.err_at(p.target.0, "a pending store's target is an object");
            }
            if let DescrData::Field { ty, .. } = &self.header.descrs[p.descr].data {
                if Kind::of_lltype(ty) != vk {
                    return c.err_at(
                        p.value.0,
                        format!("this field holds {}", kind_word(Kind::of_lltype(ty))),
                    );
                }
            }
            pending.push(PendingStore {
                target,
                descr: p.descr,
                value,
            });
        }
        if clauses.is_empty() && pending.is_empty() {
            return Ok((saved, None));
        }
        Ok((
            saved,
            Some(Box::new(Resume {
                values,
                objects,
                pending,
            })),
        ))
    }

    fn op_line(&mut self, c: &mut Cursor) -> PResult<()> {
        let (p0, first) = c.ident("an operation")?;
        let (result, (pn, name)) = if c.eat('=') {
            (Some((p0, first)), c.ident("an operation")?)
        } else {
            (None, (p0, first))
        };
        let Some(code) = opcode(name) else {
            return c.err_at(pn, format!("unknown operation '{name}'"));
        };
        let info = &OPS[code as usize];
        c.expect('(')?;
        let mut args = Vec::new();
        let mut descr = None;
        if !c.eat(')') {
            loop {
                if c.eat_word("descr=") {
                    let (dp, d) = c.descr_ident("a descr name")?;
                    descr = Some((dp, d.to_string()));
                } else {
                    args.push(self.value(c)?);
                }
                if c.eat(')') {
                    break;
                }
                if !c.eat(',') {
                    return c.err(match c.peek() {
                        Some(f) => format!("expected ',' or ')', found '{f}'"),
                        None => "expected ',' or ')' before the end of the line".to_string(),
                    });
                }
            }
        }
        let (fail_args, resume) = if c.eat('[') {
            let mut listed = Vec::new();
            if !c.eat(']') {
                loop {
                    listed.push(c.until(&[',', ']']));
                    if c.eat(']') {
                        break;
                    }
                    c.expect(',')?;
                }
            }
            if !info.guard {
                return c.err_at(
                    pn,
                    format!("'{name}' is not a guard: it takes no fail args"),
                );
            }
            let clauses = self.virtual_clauses(c)?;
            let pending = self.pending_clauses(c)?;
            let (saved, resume) = self.resume(c, &listed, &clauses, &pending)?;
            (Some(saved), resume)
        } else {
            (None, None)
        };
        if !c.at_end() {
            return c.err("unexpected text after the operation");
        }
        // arguments
        if let Some(n) = info.arity() {
            if args.len() != n {
                return c.err_at(
                    pn,
                    format!("'{name}' takes {n} argument(s), not {}", args.len()),
                );
            }
            for ((p, v), k) in args.iter().zip(info.args.chars()) {
                let want = match k {
                    'i' => Kind::Int,
                    'f' => Kind::Float,
                    'r' => Kind::Ref,
                    _ => continue,
                };
                if self.trace.kind(*v) != want {
                    return c.err_at(*p, format!("'{name}' wants {} here", kind_word(want)));
                }
            }
        }
        // descr
        let descr_id = match (info.descr, descr) {
            (DescrNeed::None, None) => None,
            (DescrNeed::None, Some((dp, _))) => {
                if matches!(code, Opcode::Label | Opcode::Jump | Opcode::Finish) {
                    None // loop tokens are implicit
                } else {
                    return c.err_at(dp, format!("'{name}' takes no descr"));
                }
            }
            (need, None) if need.is_implied() => Some(
                self.header
                    .string_descr(need)
                    .or_else(|e| c.err_at(pn, e))?,
            ),
            (need, Some((dp, _))) if need.is_implied() => {
                return c.err_at(
                    dp,
                    format!("'{name}' takes no descr (its array is implied)"),
                )
            }
            (_, None) => return c.err_at(pn, format!("'{name}' needs a descr=")),
            (need, Some((dp, d))) => {
                let id = self.header.resolve_descr(&d).or_else(|e| c.err_at(dp, e))?;
                if !need.admits(&self.header.descrs[id].data) {
                    let what = match need {
                        DescrNeed::Field => "a field",
                        DescrNeed::Array => "an array",
                        DescrNeed::Size => "a struct",
                        DescrNeed::Class => "a class",
                        _ => "a call",
                    };
                    return c.err_at(dp, format!("'{name}' needs {what} descr; '{d}' is not one"));
                }
                self.check_descr_kinds(c, pn, name, id, &args)?;
                Some(id)
            }
        };
        let result = match (result, info.result) {
            (None, Kind::Void) => None,
            (Some((p, r)), Kind::Void) => {
                return c.err_at(p, format!("'{name}' yields no value; drop '{r} ='"))
            }
            (None, k) => {
                return c.err_at(
                    pn,
                    format!(
                        "'{name}' yields {}: write '{}N = {name}(...)'",
                        kind_word(k),
                        k.prefix()
                    ),
                )
            }
            (Some((p, r)), k) => {
                if r.chars().next().and_then(Kind::from_prefix) != Some(k) {
                    return c.err_at(
                        p,
                        format!(
                            "'{name}' yields {}: its box must start with '{}'",
                            kind_word(k),
                            k.prefix()
                        ),
                    );
                }
                Some(self.define(c, p, r)?)
            }
        };
        self.trace.ops.push(Op {
            opcode: code,
            args: args.into_iter().map(|(_, v)| v).collect(),
            result,
            descr: descr_id,
            fail_args,
            resume,
        });
        Ok(())
    }

    fn check_descr_kinds(
        &self,
        c: &Cursor,
        pn: usize,
        name: &str,
        id: usize,
        args: &[(usize, Value)],
    ) -> PResult<()> {
        let info = opcode(name).unwrap_or(Opcode::IntAdd).info();
        match &self.header.descrs[id].data {
            DescrData::Field { ty, .. } => {
                let k = Kind::of_lltype(ty);
                if info.result != Kind::Void && info.result != k {
                    return c.err_at(
                        pn,
                        format!(
                            "the field holds {}; use the '_{}' form",
                            kind_word(k),
                            suffix(k)
                        ),
                    );
                }
                if let Some((p, v)) = args.get(1) {
                    if self.trace.kind(*v) != k {
                        return c.err_at(*p, format!("the field holds {}", kind_word(k)));
                    }
                }
            }
            DescrData::Array { item, .. } => {
                let k = Kind::of_lltype(item);
                let reads = name.starts_with("getarrayitem");
                if reads && info.result != k {
                    return c.err_at(
                        pn,
                        format!(
                            "the array holds {}; use the '_{}' form",
                            kind_word(k),
                            suffix(k)
                        ),
                    );
                }
                if let Some((p, v)) = args.get(2) {
                    if self.trace.kind(*v) != k {
                        return c.err_at(*p, format!("the array holds {}", kind_word(k)));
                    }
                }
            }
            DescrData::Call { func } => {
                if args.len() != func.args.len() {
                    return c.err_at(
                        pn,
                        format!(
                            "'{}' takes {} argument(s), not {}",
                            func.name,
                            func.args.len(),
                            args.len()
                        ),
                    );
                }
                for ((p, v), k) in args.iter().zip(func.args) {
                    if self.trace.kind(*v) != *k {
                        return c
                            .err_at(*p, format!("'{}' wants {} here", func.name, kind_word(*k)));
                    }
                }
                if func.result != info.result {
                    return c.err_at(
                        pn,
                        format!(
                            "'{}' returns {}; use the '_{}' form",
                            func.name,
                            kind_word(func.result),
                            suffix(func.result)
                        ),
                    );
                }
            }
            _ => {}
        }
        Ok(())
    }
}

fn suffix(k: Kind) -> char {
    match k {
        Kind::Int => 'i',
        Kind::Float => 'f',
        Kind::Ref => 'r',
        Kind::Void => 'n',
    }
}

fn kind_word(k: Kind) -> &'static str {
    match k {
        Kind::Int => "an integer",
        Kind::Float => "a float",
        Kind::Ref => "a pointer",
        Kind::Void => "nothing",
    }
}

fn parse_int(t: &str) -> Option<i64> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let v = if let Some(h) = body.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()? as i64
    } else if body.chars().all(|c| c.is_ascii_digit()) && !body.is_empty() {
        // i64::MIN has no positive counterpart
        let u: u64 = body.parse().ok()?;
        if neg {
            if u > 1u64 << 63 {
                return None;
            }
            return Some((u as i64).wrapping_neg());
        }
        i64::try_from(u).ok()?
    } else {
        return None;
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

fn parse_float(t: &str) -> Option<f64> {
    if t.chars().any(|c| matches!(c, '.' | 'e' | 'E'))
        || t.contains("inf")
        || t.contains("NaN")
        || t.contains("nan")
    {
        t.parse().ok()
    } else {
        None
    }
}

/// Parses a header and a trace.
pub fn parse(src: &str) -> Result<Trace, ParseError> {
    parse_with_objects(src, &HashMap::new())
}

/// Parses a header and a trace whose `ConstPtr(0xA)` constants name
/// objects of a run that are now at `objects[A]` (a trace of the JIT log,
/// replayed: [`crate::replay`]); any other `ConstPtr` is an error.
pub fn parse_with_objects(src: &str, objects: &HashMap<u64, u64>) -> Result<Trace, ParseError> {
    let mut p = TraceParser {
        trace: Trace::new(Arc::new(Header::default())),
        header: Header::default(),
        names: HashMap::new(),
        virtual_only: HashSet::new(),
        objects: objects.clone(),
    };
    let mut seen_trace = false;
    // The line of the last operation, where an unterminated trace is reported.
    let mut last_line = 0;
    for (i, raw) in src.lines().enumerate() {
        let line = strip_comment(raw);
        let mut c = Cursor {
            line: i + 1,
            text: line,
            pos: 0,
        };
        if c.at_end() {
            continue;
        }
        let word_end = line
            .trim_start()
            .find(|ch: char| !ch.is_ascii_alphanumeric() && ch != '_')
            .unwrap_or(line.trim_start().len());
        let word = &line.trim_start()[..word_end];
        let is_decl = matches!(
            word,
            "struct" | "array" | "class" | "field" | "call" | "type" | "residual"
        ) && line.trim_start()[word_end..].starts_with([' ', '\t']);
        if is_decl {
            if seen_trace {
                return c.err("declarations come before the trace");
            }
            c.ws();
            c.pos += word.len();
            c.ws();
            let start = c.pos;
            let decl = parse_decl(&mut c, word)?;
            if !c.at_end() {
                return c.err("unexpected text after the declaration");
            }
            p.header.declare(decl).or_else(|e| c.err_at(start, e))?;
        } else if c.eat('[') {
            if seen_trace {
                return c.err("the inputs line '[...]' comes once, before the operations");
            }
            if !seen_trace {
                p.header.check_program_types().or_else(|e| c.err_at(0, e))?;
            }
            seen_trace = true;
            if !c.eat(']') {
                loop {
                    let (pos, name) = c.ident("a box name")?;
                    let b = p.define(&c, pos, name)?;
                    p.trace.inputs.push(b);
                    if c.eat(']') {
                        break;
                    }
                    c.expect(',')?;
                }
            }
            if !c.at_end() {
                return c.err("unexpected text after the inputs");
            }
        } else {
            if !seen_trace {
                p.header.check_program_types().or_else(|e| c.err_at(0, e))?;
            }
            seen_trace = true;
            if let Some(last) = p.trace.ops.last().filter(|op| ends_trace(op)) {
                return c.err(format!(
                    "an operation after '{}': a trace ends at its finish or jump",
                    last.name()
                ));
            }
            p.op_line(&mut c)?;
            last_line = i + 1;
        }
    }
    match p.trace.ops.last() {
        None => {
            return Err(ParseError {
                line: last_line.max(1),
                col: 1,
                msg: "the trace has no operations (it ends with a finish or a jump)".into(),
            })
        }
        Some(op) if !ends_trace(op) => {
            return Err(ParseError {
                line: last_line,
                col: 1,
                msg: format!(
                    "the trace ends with '{}'; its last operation must be a finish or a jump",
                    op.name()
                ),
            })
        }
        Some(_) => {}
    }
    p.trace.header = Arc::new(p.header);
    Ok(p.trace)
}

/// Whether `op` is where a trace ends: nothing runs after it.
fn ends_trace(op: &Op) -> bool {
    matches!(op.name(), "finish" | "jump")
}

fn write_lltype(out: &mut String, t: &LowLevelType) {
    let _ = write!(out, "{t}");
}

/// Prints the header (its declarations, in source order).
pub fn print_header(h: &Header) -> String {
    let mut out = String::new();
    if h.is_program() {
        // A program's types, whose ids are their places in the table; the
        // descrs the traces named are made again as the traces name them.
        for (name, ty) in &h.types {
            let _ = writeln!(out, "type {name} = {ty}");
        }
        // The residual calls its traces make, which a replay plays back.
        for d in &h.descrs {
            if let DescrData::Residual(call) = &d.data {
                let _ = writeln!(out, "{}", residual_text(&d.name, call));
            }
        }
        return out;
    }
    for d in &h.decls {
        match d {
            Decl::ProgramType { name, ty } => {
                let _ = writeln!(out, "type {name} = {ty}");
            }
            Decl::Struct { name, fields } => {
                let _ = write!(out, "struct {name} {{");
                for (i, (f, t)) in fields.iter().enumerate() {
                    let _ = write!(out, "{}{f}: ", if i == 0 { " " } else { ", " });
                    write_lltype(&mut out, t);
                }
                out.push_str(if fields.is_empty() { "}\n" } else { " }\n" });
            }
            Decl::Array { name, item } => {
                let _ = write!(out, "array {name} = ");
                write_lltype(&mut out, item);
                out.push('\n');
            }
            Decl::Class { name, strukt } => {
                let _ = writeln!(out, "class {name}({strukt})");
            }
            Decl::Field {
                name,
                strukt,
                field,
            } => {
                let _ = writeln!(out, "field {name} = {strukt}.{field}");
            }
            Decl::Call { name, func } => {
                let _ = writeln!(out, "call {name} = {func}");
            }
            Decl::Residual { name, call } => {
                let _ = writeln!(out, "{}", residual_text(name, call));
            }
        }
    }
    out
}

/// Prints one value as the trace text writes it.
pub fn value_text(t: &Trace, v: Value) -> String {
    match v {
        Value::Box(b) => t.boxes[b].name().into_owned(),
        Value::Int(i) => i.to_string(),
        Value::Float(bits) => format!("{:?}", f64::from_bits(bits)),
        Value::NullPtr => "ConstPtr(null)".into(),
        Value::ConstPtr(p) => format!("ConstPtr(0x{p:x})"),
        Value::Class(d) => format!("ConstClass({})", t.header.descrs[d].name),
    }
}

/// Prints one operation.
pub fn op_text(t: &Trace, op: &Op) -> String {
    let mut s = String::new();
    if let Some(r) = op.result {
        let _ = write!(s, "{} = ", t.boxes[r].name());
    }
    s.push_str(op.name());
    s.push('(');
    let mut parts: Vec<String> = op.args.iter().map(|v| value_text(t, *v)).collect();
    if let (Some(d), false) = (op.descr, op.info().descr.is_implied()) {
        parts.push(format!("descr={}", t.header.descrs[d].name));
    }
    s.push_str(&parts.join(", "));
    s.push(')');
    if let Some(fa) = &op.fail_args {
        match &op.resume {
            None => {
                let fa: Vec<String> = fa.iter().map(|v| value_text(t, *v)).collect();
                let _ = write!(s, " [{}]", fa.join(", "));
            }
            Some(r) => write_resume(&mut s, t, fa, r),
        }
    }
    s
}

/// A guard's fail args as traced, then a `virtual` clause per object its
/// resume data allocates.
fn write_resume(s: &mut String, t: &Trace, saved: &[Value], r: &Resume) {
    let text = |v: &ResumeValue| match *v {
        ResumeValue::Saved(i) => saved
            .get(i)
            .map_or_else(|| format!("<fail arg {i}?>"), |v| value_text(t, *v)),
        ResumeValue::Object(k) => r.objects.get(k).map_or_else(
            || format!("<object {k}?>"),
            |o| t.boxes[o.name].name().into_owned(),
        ),
    };
    let values: Vec<String> = r.values.iter().map(text).collect();
    let _ = write!(s, " [{}]", values.join(", "));
    let descrs = &t.header.descrs;
    for o in &r.objects {
        let op_name = OPS[o.opcode as usize].name;
        let name = t.boxes[o.name].name();
        let d = &descrs[o.descr].name;
        let _ = match op_name {
            "new_array" | "new_array_clear" => {
                write!(s, " virtual {name} = {op_name}({}, descr={d}) {{", o.length)
            }
            "newstr" | "newunicode" => write!(s, " virtual {name} = {op_name}({}) {{", o.length),
            _ => write!(s, " virtual {name} = {op_name}(descr={d}) {{"),
        };
        let fields: Vec<String> = o
            .fields
            .iter()
            .map(|(slot, v)| match slot {
                FieldSlot::Field(f) => format!("{}: {}", descrs[*f].name, text(v)),
                FieldSlot::Item(i) => format!("{i}: {}", text(v)),
            })
            .collect();
        let _ = write!(s, "{}}}", fields.join(", "));
    }
    for p in &r.pending {
        let _ = write!(
            s,
            " pending setfield_gc({}, {}, descr={})",
            text(&p.target),
            text(&p.value),
            descrs[p.descr].name
        );
    }
}

/// Prints the trace body: the inputs line and one line per operation.
pub fn print_body(t: &Trace) -> String {
    let mut out = String::new();
    let inputs: Vec<String> = t
        .inputs
        .iter()
        .map(|b| t.boxes[*b].name().into_owned())
        .collect();
    let _ = writeln!(out, "[{}]", inputs.join(", "));
    for op in &t.ops {
        out.push_str(&op_text(t, op));
        out.push('\n');
    }
    out
}

/// Prints header and trace; `parse(print(t))` gives `t` back.
pub fn print(t: &Trace) -> String {
    let h = print_header(&t.header);
    if h.is_empty() {
        print_body(t)
    } else {
        format!("{h}\n{}", print_body(t))
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn rejection(src: &str) -> String {
        match parse(src) {
            Ok(t) => panic!("accepted:\n{}", super::print(&t)),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn an_empty_trace_is_rejected() {
        assert!(rejection("").contains("no operations"));
        assert!(rejection("# only a comment\n[i0]\n").contains("no operations"));
    }

    #[test]
    fn a_trace_must_end_in_finish_or_jump() {
        let e = rejection("[i0]\ni1 = int_add(i0, 1)\n");
        assert!(e.starts_with("2:1: the trace ends with 'int_add'"), "{e}");
    }

    #[test]
    fn nothing_may_follow_finish() {
        let e = rejection("[i0]\nfinish(i0)\ni1 = int_add(i0, 1)\n");
        assert!(e.starts_with("3:1: an operation after 'finish'"), "{e}");
        assert!(parse("[i0]\ni1 = int_add(i0, 1)\nfinish(i1)\n").is_ok());
    }
}
