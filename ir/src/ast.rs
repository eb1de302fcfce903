//! The abstract syntax tree: what the parser produces and the flow builder reads.
//!
//! One tree serves both dialects; where Python 2 and 3 differ in meaning (`/` on
//! ints, `print`), the node records the source form and `Module::dialect` says how
//! to read it. Every node carries the position of its first character.

use crate::diag::Pos;

/// Which Python syntax a source file is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    Py2,
    Py3,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The path the source was read from, as given on the command line.
    pub path: String,
    pub dialect: Dialect,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub pos: Pos,
    pub kind: StmtKind,
}

impl Stmt {
    /// Calls `f` on each statement block of this statement that runs in the
    /// same scope: the bodies of `if`, `while`, `for`, `try` (with its
    /// handlers, `else` and `finally`) and `with`, but not those of `def` and
    /// `class`, which are scopes of their own. The one definition of which
    /// blocks a scope-level walk over statements visits.
    pub fn for_each_nested_body<'a>(&'a self, mut f: impl FnMut(&'a [Stmt])) {
        match &self.kind {
            StmtKind::If { body, orelse, .. }
            | StmtKind::While { body, orelse, .. }
            | StmtKind::For { body, orelse, .. } => {
                f(body);
                f(orelse);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finalbody,
            } => {
                f(body);
                for h in handlers {
                    f(&h.body);
                }
                f(orelse);
                f(finalbody);
            }
            StmtKind::With { body, .. } => f(body),
            _ => {}
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    FunctionDef {
        name: String,
        params: Vec<Param>,
        /// The name of a `*args` parameter, if any.
        star_args: Option<String>,
        /// Python 3 keyword-only parameters (after `*` or `*args`).
        kwonly: Vec<Param>,
        /// The name of a `**kwargs` parameter, if any.
        kwargs: Option<String>,
        decorators: Vec<Expr>,
        body: Vec<Stmt>,
    },
    ClassDef {
        name: String,
        bases: Vec<Expr>,
        decorators: Vec<Expr>,
        body: Vec<Stmt>,
    },
    Return(Option<Expr>),
    /// `a = b = value`: every target receives the same value, left to right.
    Assign {
        targets: Vec<Expr>,
        value: Expr,
    },
    AugAssign {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    If {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    For {
        target: Expr,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    Break,
    Continue,
    Pass,
    /// The Python 2 `print` statement. `print(x)` in Python 3 is an ordinary call.
    /// `newline` is false when the statement ends with a trailing comma.
    Print {
        values: Vec<Expr>,
        newline: bool,
    },
    Expr(Expr),
    Global(Vec<String>),
    /// `import a.b.c [as d]`, one entry per imported name.
    Import(Vec<Alias>),
    /// `from module import a [as b], ...`; `level` counts leading dots.
    ImportFrom {
        module: String,
        names: Vec<Alias>,
        level: u32,
    },
    Assert {
        test: Expr,
        msg: Option<Expr>,
    },
    /// `raise`, `raise E`, `raise E(x)`, `raise E, x` (the second part in `arg`),
    /// `raise E, x, tb` (Python 2, the third part in `tb`) and
    /// `raise E from C` (Python 3, `C` in `cause`).
    Raise {
        exc: Option<Expr>,
        arg: Option<Expr>,
        tb: Option<Expr>,
        cause: Option<Expr>,
    },
    Try {
        body: Vec<Stmt>,
        handlers: Vec<ExceptHandler>,
        orelse: Vec<Stmt>,
        finalbody: Vec<Stmt>,
    },
    Del(Vec<Expr>),
    /// `with a as x, b: body` (items in order, each with an optional target).
    With {
        items: Vec<WithItem>,
        body: Vec<Stmt>,
    },
    /// The Python 2 statement `exec code [in globals [, locals]]`.
    Exec {
        code: Expr,
        globals: Option<Expr>,
        locals: Option<Expr>,
    },
    /// The Python 2 statement `print >>dest, values...`.
    PrintTo {
        dest: Expr,
        values: Vec<Expr>,
        newline: bool,
    },
    /// Python 3 `nonlocal a, b`.
    Nonlocal(Vec<String>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct WithItem {
    pub context: Expr,
    /// The target after `as`, if any.
    pub target: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Alias {
    pub name: String,
    pub asname: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExceptHandler {
    pub pos: Pos,
    /// The exception class (or tuple of classes) matched; `None` for a bare `except:`.
    pub typ: Option<Expr>,
    /// The name bound to the exception value (`except E, e` / `except E as e`).
    pub name: Option<String>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub pos: Pos,
    /// The parameter's name; for a Python 2 tuple parameter a synthetic name
    /// (`.0`, `.1`, ... by position), with the pattern in `unpack`.
    pub name: String,
    pub default: Option<Expr>,
    /// A Python 2 tuple parameter `def f((a, b), c)`: the tuple of names the
    /// argument is unpacked into.
    pub unpack: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub pos: Pos,
    pub kind: ExprKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Name(String),
    /// An integer literal that fits a machine word. Larger literals are a parse error.
    Int(i64),
    Float(f64),
    /// A byte string (Python 2 `str`, or a Python 3 `str` whose chars are below 256).
    Str(String),
    Bool(bool),
    None,
    BinOp {
        op: BinOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    /// `a and b and c` / `a or b`: short-circuit, yields the deciding operand.
    BoolOp {
        op: BoolOp,
        values: Vec<Expr>,
    },
    /// `a < b <= c`: chained comparison, each middle operand evaluated once.
    Compare {
        left: Box<Expr>,
        ops: Vec<(CmpOp, Expr)>,
    },
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        keywords: Vec<Keyword>,
        /// `f(*args)`
        star_args: Option<Box<Expr>>,
        /// `f(**kwargs)`
        kwargs: Option<Box<Expr>>,
    },
    Attribute {
        value: Box<Expr>,
        attr: String,
    },
    Subscript {
        value: Box<Expr>,
        index: Box<Expr>,
    },
    /// `x[lower:upper]` (a step is not RPython).
    Slice {
        value: Box<Expr>,
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
    },
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Dict(Vec<(Expr, Expr)>),
    /// `body if test else orelse`
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    /// `[elt for target in iter if cond ...]`
    ListComp {
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    Lambda {
        params: Vec<Param>,
        star_args: Option<String>,
        kwonly: Vec<Param>,
        kwargs: Option<String>,
        body: Box<Expr>,
    },
    /// An integer literal too large for a machine word, as written (digits
    /// and base prefix; no underscores, no `L` suffix).
    BigInt(String),
    /// A string literal holding characters at or above U+0100 (a unicode
    /// string that is not a byte string).
    WideStr(String),
    /// `yield` / `yield value` (statement or expression).
    Yield(Option<Box<Expr>>),
    /// Python 3 `yield from value`.
    YieldFrom(Box<Expr>),
    /// `{a, b}`
    Set(Vec<Expr>),
    /// `{elt for ...}`
    SetComp {
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    /// `{key: value for ...}`
    DictComp {
        key: Box<Expr>,
        value: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    /// `(elt for ...)`
    GeneratorExp {
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    /// Python 2 backquotes `` `x` ``.
    Repr(Box<Expr>),
    /// `...`
    Ellipsis,
    /// A slice inside a subscript that is not a plain `x[lower:upper]`: one
    /// with a step (`x[::2]`) or one item of an extended slice
    /// (`x[i:j, k]`, whose index is a tuple holding this node). Only appears
    /// as (an item of) the index of a `Subscript`.
    SliceItem {
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    /// `*x` in an assignment target or display (Python 3).
    Starred(Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Keyword {
    pub name: String,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    pub target: Expr,
    pub iter: Expr,
    pub ifs: Vec<Expr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// `/`: floor division on ints in Python 2, true division in Python 3.
    Div,
    FloorDiv,
    Mod,
    Pow,
    LShift,
    RShift,
    BitAnd,
    BitOr,
    BitXor,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Pos,
    Not,
    Invert,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Lt,
    Le,
    Eq,
    Ne,
    Gt,
    Ge,
    Is,
    IsNot,
    In,
    NotIn,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}
