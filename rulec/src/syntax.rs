//! The syntax of .rules files: the pest grammar and the tree it parses into.
//!
//! Every kind of rule shares this syntax; what a form means (a pattern, a
//! check, a result) is decided by the kind's checker.

use crate::RuleError;
use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;
use std::sync::LazyLock;

#[derive(pest_derive::Parser)]
#[grammar = "rules.pest"]
struct RulesParser;

pub use rpy_ir::rule_ops::{BinOp, UnOp};

/// A low-level type as written in a rule: `Signed`, `Ptr(rpy_string)`.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeName {
    Plain(String),
    Ptr(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Ast {
    /// An integer literal (kept wide so that `-9223372036854775808` parses).
    Int(i128),
    Float(f64),
    Str(String),
    Char(u8),
    Bool(bool),
    /// A name (`x`, `C1`, `SomeString`, `py2`); `_` is `Wild`.
    Ident(String),
    Wild,
    /// `$len`: a constant argument that is the named builtin.
    Dollar(String),
    /// `f(args)`; `runtime` for `call f(args)`.
    Call {
        name: String,
        args: Vec<Node>,
        runtime: bool,
    },
    /// `recv.name(args)`.
    Method {
        recv: Box<Node>,
        name: String,
        args: Vec<Node>,
    },
    Bin(BinOp, Box<Node>, Box<Node>),
    Un(UnOp, Box<Node>),
    /// `x: Signed` (an argument pattern with a type).
    Typed {
        name: String,
        ty: TypeName,
    },
    /// `nonneg = a` (a keyword argument).
    Kw {
        name: String,
        value: Box<Node>,
    },
}

/// An expression with the line it starts on.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub ast: Ast,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Check(Node),
    Let {
        name: String,
        value: Node,
        line: u32,
    },
}

/// One rule as written, before checking.
#[derive(Clone, Debug, PartialEq)]
pub struct RawRule {
    pub name: String,
    pub line: u32,
    /// The comment line right above the rule (without `#`).
    pub doc: Option<String>,
    pub head: Node,
    /// `-> Type` after the pattern (conversion rules).
    pub target: Option<(TypeName, u32)>,
    pub steps: Vec<Step>,
    pub result: Node,
    /// The rule's source lines.
    pub text: String,
}

static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    PrattParser::new()
        .op(Op::infix(Rule::op_or, Assoc::Left))
        .op(Op::infix(Rule::op_and, Assoc::Left))
        .op(Op::prefix(Rule::op_not))
        .op(Op::infix(Rule::op_eq, Assoc::Left)
            | Op::infix(Rule::op_ne, Assoc::Left)
            | Op::infix(Rule::op_lt, Assoc::Left)
            | Op::infix(Rule::op_le, Assoc::Left)
            | Op::infix(Rule::op_gt, Assoc::Left)
            | Op::infix(Rule::op_ge, Assoc::Left))
        .op(Op::infix(Rule::op_bor, Assoc::Left))
        .op(Op::infix(Rule::op_bxor, Assoc::Left))
        .op(Op::infix(Rule::op_band, Assoc::Left))
        .op(Op::infix(Rule::op_shl, Assoc::Left) | Op::infix(Rule::op_shr, Assoc::Left))
        .op(Op::infix(Rule::op_add, Assoc::Left) | Op::infix(Rule::op_sub, Assoc::Left))
        .op(Op::infix(Rule::op_mul, Assoc::Left))
        .op(Op::prefix(Rule::op_neg) | Op::prefix(Rule::op_inv))
        .op(Op::postfix(Rule::method))
});

fn line_of(pair: &Pair<Rule>) -> u32 {
    pair.as_span().start_pos().line_col().0 as u32
}

/// Parses one file into its rules.
pub fn parse_file(file: &str, text: &str) -> Result<Vec<RawRule>, RuleError> {
    let mut pairs = RulesParser::parse(Rule::file, text).map_err(|e| {
        let (line, col) = match e.line_col {
            pest::error::LineColLocation::Pos(p) => p,
            pest::error::LineColLocation::Span(p, _) => p,
        };
        RuleError {
            file: file.to_string(),
            line: line as u32,
            message: format!("syntax error at column {col}: {}", syntax_message(&e)),
        }
    })?;
    let lines: Vec<&str> = text.lines().collect();
    let file_pair = pairs.next().expect("a file");
    let mut rules = Vec::new();
    for pair in file_pair.into_inner() {
        if pair.as_rule() == Rule::rule {
            rules.push(build_rule(pair, &lines)?);
        }
    }
    Ok(rules)
}

fn syntax_message(e: &pest::error::Error<Rule>) -> String {
    match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => {
            let mut names: Vec<String> = positives.iter().map(|r| describe(*r)).collect();
            names.sort();
            names.dedup();
            if names.is_empty() {
                "unexpected input".into()
            } else {
                format!("expected {}", names.join(" or "))
            }
        }
        pest::error::ErrorVariant::CustomError { message } => message.clone(),
    }
}

fn describe(r: Rule) -> String {
    match r {
        Rule::ident => "a name".into(),
        Rule::expr | Rule::int | Rule::hex | Rule::float => "an expression".into(),
        Rule::rule => "a rule ('name: pattern')".into(),
        Rule::EOI => "end of file".into(),
        Rule::lltype | Rule::ptr_type => "a low-level type".into(),
        Rule::kw_check => "'check'".into(),
        Rule::let_ => "'name = expression'".into(),
        Rule::target => "'-> Type'".into(),
        other => format!("{other:?}").trim_start_matches("op_").to_string(),
    }
}

fn build_rule(pair: Pair<Rule>, lines: &[&str]) -> Result<RawRule, RuleError> {
    let line = line_of(&pair);
    let span = pair.as_span();
    let end_line = span.end_pos().line_col().0 as u32;
    let text = lines[(line - 1) as usize..end_line as usize]
        .iter()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n");
    let doc = (line >= 2)
        .then(|| lines[(line - 2) as usize].trim())
        .and_then(|l| l.strip_prefix('#'))
        .map(|l| l.trim().to_string());
    let mut inner = pair.into_inner();
    let name = inner.next().unwrap().as_str().to_string();
    let head = build_expr(inner.next().unwrap());
    let mut target = None;
    let mut steps = Vec::new();
    let mut result = None;
    for p in inner {
        match p.as_rule() {
            Rule::target => {
                let l = line_of(&p);
                target = Some((build_type(p.into_inner().next().unwrap()), l));
            }
            Rule::check => {
                let e = p.into_inner().nth(1).unwrap();
                steps.push(Step::Check(build_expr(e)));
            }
            Rule::let_ => {
                let l = line_of(&p);
                let mut it = p.into_inner();
                let name = it.next().unwrap().as_str().to_string();
                let value = build_expr(it.next().unwrap());
                steps.push(Step::Let {
                    name,
                    value,
                    line: l,
                });
            }
            Rule::expr => result = Some(build_expr(p)),
            _ => {}
        }
    }
    Ok(RawRule {
        name,
        line,
        doc,
        head,
        target,
        steps,
        result: result.expect("grammar: a rule has a result"),
        text,
    })
}

fn build_type(pair: Pair<Rule>) -> TypeName {
    let inner = pair.into_inner().next().unwrap();
    match inner.as_rule() {
        Rule::ptr_type => TypeName::Ptr(inner.into_inner().next().unwrap().as_str().to_string()),
        _ => TypeName::Plain(inner.as_str().to_string()),
    }
}

fn build_expr(pair: Pair<Rule>) -> Node {
    debug_assert_eq!(pair.as_rule(), Rule::expr);
    parse_pratt(pair.into_inner())
}

fn parse_pratt(pairs: Pairs<Rule>) -> Node {
    PRATT
        .map_primary(build_primary)
        .map_prefix(|op, rhs| {
            let line = line_of(&op);
            let u = match op.as_rule() {
                Rule::op_not => UnOp::Not,
                Rule::op_neg => UnOp::Neg,
                _ => UnOp::Invert,
            };
            Node {
                ast: Ast::Un(u, Box::new(rhs)),
                line,
            }
        })
        .map_postfix(|lhs, op| {
            let line = lhs.line;
            let mut it = op.into_inner();
            let name = it.next().unwrap().as_str().to_string();
            let args = it.map(build_expr).collect();
            Node {
                ast: Ast::Method {
                    recv: Box::new(lhs),
                    name,
                    args,
                },
                line,
            }
        })
        .map_infix(|lhs, op, rhs| {
            let b = match op.as_rule() {
                Rule::op_or => BinOp::Or,
                Rule::op_and => BinOp::And,
                Rule::op_eq => BinOp::Eq,
                Rule::op_ne => BinOp::Ne,
                Rule::op_lt => BinOp::Lt,
                Rule::op_le => BinOp::Le,
                Rule::op_gt => BinOp::Gt,
                Rule::op_ge => BinOp::Ge,
                Rule::op_bor => BinOp::BitOr,
                Rule::op_bxor => BinOp::BitXor,
                Rule::op_band => BinOp::BitAnd,
                Rule::op_shl => BinOp::Shl,
                Rule::op_shr => BinOp::Shr,
                Rule::op_add => BinOp::Add,
                Rule::op_sub => BinOp::Sub,
                _ => BinOp::Mul,
            };
            let line = lhs.line;
            Node {
                ast: Ast::Bin(b, Box::new(lhs), Box::new(rhs)),
                line,
            }
        })
        .parse(pairs)
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('0') => out.push('\0'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn build_primary(pair: Pair<Rule>) -> Node {
    let line = line_of(&pair);
    let ast = match pair.as_rule() {
        Rule::expr => return build_expr(pair),
        Rule::int => Ast::Int(pair.as_str().parse::<i128>().unwrap_or(i128::MAX)),
        Rule::hex => Ast::Int(
            u64::from_str_radix(&pair.as_str()[2..], 16)
                .map(|v| v as i64 as i128)
                .unwrap_or(i128::MAX),
        ),
        Rule::float => Ast::Float(pair.as_str().parse().unwrap()),
        Rule::string => Ast::Str(unescape(pair.into_inner().next().unwrap().as_str())),
        Rule::char_lit => {
            let s = unescape(pair.into_inner().next().unwrap().as_str());
            if s.len() == 1 {
                Ast::Char(s.as_bytes()[0])
            } else {
                Ast::Str(s)
            }
        }
        Rule::dollar => Ast::Dollar(pair.into_inner().next().unwrap().as_str().to_string()),
        Rule::boolean => Ast::Bool(pair.into_inner().next().unwrap().as_rule() == Rule::kw_true),
        Rule::ident => match pair.as_str() {
            "_" => Ast::Wild,
            s => Ast::Ident(s.to_string()),
        },
        Rule::call | Rule::rtcall => {
            let runtime = pair.as_rule() == Rule::rtcall;
            let mut it = pair.into_inner();
            if runtime {
                it.next(); // the `call` keyword
            }
            let name = it.next().unwrap().as_str().to_string();
            let args = it.map(build_arg).collect();
            Ast::Call {
                name,
                args,
                runtime,
            }
        }
        other => unreachable!("primary {other:?}"),
    };
    Node { ast, line }
}

fn build_arg(pair: Pair<Rule>) -> Node {
    let line = line_of(&pair);
    match pair.as_rule() {
        Rule::typed => {
            let mut it = pair.into_inner();
            let name = it.next().unwrap().as_str().to_string();
            let ty = build_type(it.next().unwrap());
            Node {
                ast: Ast::Typed { name, ty },
                line,
            }
        }
        Rule::kwarg => {
            let mut it = pair.into_inner();
            let name = it.next().unwrap().as_str().to_string();
            let value = build_expr(it.next().unwrap());
            Node {
                ast: Ast::Kw {
                    name,
                    value: Box::new(value),
                },
                line,
            }
        }
        _ => build_expr(pair),
    }
}

impl std::fmt::Display for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.ast {
            Ast::Int(v) => write!(f, "{v}"),
            Ast::Float(v) => write!(f, "{v:?}"),
            Ast::Str(s) => write!(f, "{s:?}"),
            Ast::Char(c) => write!(f, "'{}'", *c as char),
            Ast::Bool(b) => write!(f, "{b}"),
            Ast::Ident(n) => f.write_str(n),
            Ast::Wild => f.write_str("_"),
            Ast::Dollar(n) => write!(f, "${n}"),
            Ast::Call {
                name,
                args,
                runtime,
            } => {
                if *runtime {
                    f.write_str("call ")?;
                }
                write!(f, "{name}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
            Ast::Method { recv, name, args } => {
                write!(f, "{recv}.{name}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
            Ast::Bin(op, a, b) => write!(f, "({a} {} {b})", op.symbol()),
            Ast::Un(UnOp::Not, a) => write!(f, "not {a}"),
            Ast::Un(UnOp::Neg, a) => write!(f, "-{a}"),
            Ast::Un(UnOp::Invert, a) => write!(f, "~{a}"),
            Ast::Typed { name, ty } => match ty {
                TypeName::Plain(t) => write!(f, "{name}: {t}"),
                TypeName::Ptr(t) => write!(f, "{name}: Ptr({t})"),
            },
            Ast::Kw { name, value } => write!(f, "{name}={value}"),
        }
    }
}
