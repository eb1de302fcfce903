//! The operators of the rules' expression language (`rules/*.rules`):
//! shared by the rules compiler, which parses them, and the compiled rules,
//! which evaluate them at run time in the translator and the JIT.

/// A binary operator of the expression language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitOr,
    BitXor,
    BitAnd,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "or",
            BinOp::And => "and",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
        }
    }
    /// The Rust variant name in the generated code.
    pub fn variant(self) -> &'static str {
        match self {
            BinOp::Or => "Or",
            BinOp::And => "And",
            BinOp::Eq => "Eq",
            BinOp::Ne => "Ne",
            BinOp::Lt => "Lt",
            BinOp::Le => "Le",
            BinOp::Gt => "Gt",
            BinOp::Ge => "Ge",
            BinOp::BitOr => "BitOr",
            BinOp::BitXor => "BitXor",
            BinOp::BitAnd => "BitAnd",
            BinOp::Shl => "Shl",
            BinOp::Shr => "Shr",
            BinOp::Add => "Add",
            BinOp::Sub => "Sub",
            BinOp::Mul => "Mul",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Not,
    Neg,
    Invert,
}

impl UnOp {
    /// The operator on a 64-bit value (bools are 0 and 1).
    pub fn apply(self, a: i64) -> i64 {
        match self {
            UnOp::Not => (a == 0) as i64,
            UnOp::Neg => a.wrapping_neg(),
            UnOp::Invert => !a,
        }
    }
}

impl BinOp {
    /// The operator on 64-bit values, wrapping; bools are 0 and 1. `None`
    /// for a shift count outside 0..64. (`and`/`or` here see both operands:
    /// a caller that short-circuits decides before evaluating the second.)
    pub fn apply(self, a: i64, b: i64) -> Option<i64> {
        Some(match self {
            BinOp::Or => (a != 0 || b != 0) as i64,
            BinOp::And => (a != 0 && b != 0) as i64,
            BinOp::Eq => (a == b) as i64,
            BinOp::Ne => (a != b) as i64,
            BinOp::Lt => (a < b) as i64,
            BinOp::Le => (a <= b) as i64,
            BinOp::Gt => (a > b) as i64,
            BinOp::Ge => (a >= b) as i64,
            BinOp::BitOr => a | b,
            BinOp::BitXor => a ^ b,
            BinOp::BitAnd => a & b,
            BinOp::Shl if (0..64).contains(&b) => a.wrapping_shl(b as u32),
            BinOp::Shr if (0..64).contains(&b) => a >> b,
            BinOp::Shl | BinOp::Shr => return None,
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
        })
    }
}
