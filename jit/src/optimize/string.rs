//! `string`: the string operations (`newstr`, `strlen`, `strgetitem`,
//! `strsetitem`, `copystrcontent` and their unicode twins), as PyPy's
//! vstring does them.
//!
//! A `newstr` of a constant length (up to [`MAX_VIRTUAL_STRING`]) is
//! *virtual*: not emitted, its characters kept by the optimizer, as
//! `virtualize` keeps an array's items (the objects live in the same table,
//! shared with `virtualize` and `earlyforce` when they are in the chain, so
//! that a virtual string escaping through any operation is forced, and one
//! in a guard's fail args becomes resume data, by the same code). On a
//! virtual string, `strlen` is its length, `strgetitem` at a constant index
//! the character stored there, `strsetitem` at a constant index stores in
//! the optimizer, and `copystrcontent` between virtual strings copies in
//! the optimizer: a string built by concatenating or slicing virtual
//! strings is never copied at run time. A short copy from a virtual string
//! into a real one is the stores of its characters (PyPy's copystrcontent
//! of constants); a short copy from a real string into a virtual one is
//! the reads of its characters. A call of `str_equal` (`unicode_equal`)
//! is decided when the strings are one, have known different lengths, or
//! have all their characters known, and is a comparison of characters when
//! they differ in one unknown character (PyPy's string equality
//! shortcuts).
//!
//! Of real strings, the length (which never changes) and the characters
//! read or stored at an index are remembered until something may change
//! them.
//!
//! A `str` character is a byte: a virtual string keeps a stored value only
//! when storing it does not truncate it (a constant, kept as its low byte,
//! or a value known to be in 0..=255); otherwise the string is forced and
//! the store emitted.

use crate::trace::{DescrNeed, Kind, Op, Opcode, Value};

use super::virtualize::{
    escape_op, force_all, force_value, virtual_of, virtual_shape, zero_of, Virtual, Virtuals,
    MAX_VIRTUAL_ARRAY,
};
use super::{IntBound, Next, Optimization, Shared, VirtualShape, WordMap};

/// The longest `newstr` kept virtual.
pub const MAX_VIRTUAL_STRING: i64 = MAX_VIRTUAL_ARRAY;

/// The longest copy into or out of a virtual string done as separate
/// character reads or stores.
const MAX_UNROLLED_COPY: i64 = 16;

/// Whether `op` calls `str_equal` or `unicode_equal` (the registry's
/// string comparisons, PyPy's `ll_streq`).
pub(crate) fn is_string_equality(op: &Op, sh: &Shared) -> bool {
    let descr = op.descr.map(|d| &sh.trace.header.descrs[d].data);
    matches!(descr, Some(crate::trace::DescrData::Call { func })
        if matches!(func.name, "str_equal" | "unicode_equal"))
        && op.opcode.is_call()
        && op.args.len() == 2
}

/// The `string` optimization.
pub struct OptString {
    virtuals: Virtuals,
    /// No `virtualize` before it in the chain: this pass forces its
    /// virtual strings where other operations make them escape, and
    /// describes them to `unroll`.
    owns_escapes: bool,
    /// string -> its length
    lengths: WordMap<Value, Value>,
    /// (string, index) -> the character there
    chars: WordMap<(Value, Value), Value>,
}

/// The two flavours of string operations, by the array they imply.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavour {
    Str,
    Unicode,
}

impl Flavour {
    fn of(op: &Op) -> Flavour {
        match op.info().descr {
            DescrNeed::Unicode => Flavour::Unicode,
            _ => Flavour::Str,
        }
    }

    fn op(self, str_op: Opcode, unicode_op: Opcode) -> Opcode {
        match self {
            Flavour::Str => str_op,
            Flavour::Unicode => unicode_op,
        }
    }

    /// What a store of `v` leaves in a string, as a read gives it back:
    /// `None` when that cannot be said without the store (a box that may
    /// not fit a byte).
    fn stored(self, v: Value, bound: IntBound) -> Option<Value> {
        match (self, v) {
            (Flavour::Unicode, v) => Some(v),
            (Flavour::Str, Value::Int(c)) => Some(Value::Int(c & 0xff)),
            (Flavour::Str, v) if bound.lo >= 0 && bound.hi <= 255 => Some(v),
            _ => None,
        }
    }
}

impl OptString {
    pub(crate) fn new(virtuals: Virtuals, owns_escapes: bool) -> OptString {
        OptString {
            virtuals,
            owns_escapes,
            lengths: WordMap::default(),
            chars: WordMap::default(),
        }
    }

    fn virtual_of(&self, sh: &Shared, v: Value) -> Option<usize> {
        virtual_of(&self.virtuals, sh, v)
    }

    /// The characters of virtual string `b` (None: not stored, zero).
    fn items(&self, b: usize) -> Option<Vec<Option<Value>>> {
        self.with_items(b, |items| items.to_vec())
    }

    /// `f` of the characters of virtual string `b`, not copied.
    fn with_items<T>(&self, b: usize, f: impl FnOnce(&[Option<Value>]) -> T) -> Option<T> {
        match self.virtuals.borrow().get(&b)? {
            Virtual::Array { items, .. } => Some(f(items)),
            Virtual::Struct { .. } => None,
        }
    }

    /// The length of virtual string `b`.
    fn length(&self, b: usize) -> Option<usize> {
        self.with_items(b, |items| items.len())
    }

    fn set_item(&mut self, b: usize, i: usize, v: Value) {
        if let Some(Virtual::Array { items, .. }) = self.virtuals.borrow_mut().get_mut(&b) {
            items[i] = Some(v);
        }
    }

    /// Forgets the characters a store into `s` at `index` may change: of
    /// every string that may be `s`, at every index that may be `index`
    /// (`None`: any index).
    fn forget_chars(&mut self, s: Value, index: Option<Value>, sh: &Shared) {
        let lengths = &self.lengths;
        self.chars.retain(|(q, j), _| {
            sh.never_same_array(lengths, *q, s) || index.is_some_and(|i| sh.never_equal(*j, i))
        });
    }

    fn newstr(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let Some(r) = op.result else {
            return next.emit(op, sh);
        };
        let length = sh.resolve(op.args[0]);
        if let Value::Int(n) = length {
            if (0..=MAX_VIRTUAL_STRING).contains(&n) {
                let items = vec![None; n as usize];
                let alloc = op;
                self.virtuals
                    .borrow_mut()
                    .insert(r, Virtual::Array { alloc, items });
                return;
            }
        }
        next.emit(op, sh);
        self.lengths.insert(Value::Box(r), length);
    }

    fn strlen(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let s = sh.resolve(op.args[0]);
        let Some(r) = op.result else {
            return next.emit(op, sh);
        };
        if let Some(n) = self.virtual_of(sh, s).and_then(|b| self.length(b)) {
            return sh.make_equal(r, Value::Int(n as i64));
        }
        if let Some(n) = self.lengths.get(&s) {
            return sh.make_equal(r, *n);
        }
        next.emit(op, sh);
        self.lengths.insert(s, Value::Box(r));
    }

    fn strgetitem(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let (s, i) = (sh.resolve(op.args[0]), sh.resolve(op.args[1]));
        let Some(r) = op.result else {
            return next.emit(op, sh);
        };
        if let (Some(b), Value::Int(k)) = (self.virtual_of(sh, s), i) {
            let item = |items: &[Option<Value>]| {
                usize::try_from(k).ok().and_then(|k| items.get(k).copied())
            };
            if let Some(c) = self.with_items(b, item).flatten() {
                return sh.make_equal(r, c.unwrap_or_else(|| zero_of(Kind::Int)));
            }
        }
        if let Some(c) = self.chars.get(&(s, i)) {
            return sh.make_equal(r, *c);
        }
        let flavour = Flavour::of(&op);
        force_value(&self.virtuals, s, sh, next);
        next.emit(op, sh);
        if flavour == Flavour::Str {
            // a str character is a byte, whatever computed bounds say
            sh.narrow(Value::Box(r), IntBound::range(0, 255));
        }
        self.chars.insert((s, i), Value::Box(r));
    }

    fn strsetitem(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let flavour = Flavour::of(&op);
        let (s, i, c) = (
            sh.resolve(op.args[0]),
            sh.resolve(op.args[1]),
            sh.resolve(op.args[2]),
        );
        let stored = flavour.stored(c, sh.bound(c));
        if let (Some(b), Value::Int(k), Some(v)) = (self.virtual_of(sh, s), i, stored) {
            if self.length(b).is_some_and(|n| (0..n as i64).contains(&k)) {
                return self.set_item(b, k as usize, v);
            }
        }
        if stored.is_some() && self.chars.get(&(s, i)) == stored.as_ref() {
            return; // the string holds it already
        }
        force_value(&self.virtuals, s, sh, next);
        self.forget_chars(s, Some(i), sh);
        next.emit(op, sh);
        if let Some(v) = stored {
            self.chars.insert((s, i), v);
        }
    }

    /// `copystrcontent(source, dest, source_start, dest_start, length)`.
    fn copy(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let flavour = Flavour::of(&op);
        let [src, dst, from, to, n] = [0, 1, 2, 3, 4].map(|k| sh.resolve(op.args[k]));
        if n == Value::Int(0) {
            return; // copies nothing
        }
        let (Value::Int(from), Value::Int(to), Value::Int(n)) = (from, to, n) else {
            return self.copy_at_run_time(op, sh, next);
        };
        let in_range = |len: usize, start: i64| {
            start >= 0 && n >= 0 && start.checked_add(n).is_some_and(|e| e <= len as i64)
        };
        let source = self.virtual_of(sh, src).and_then(|b| self.items(b));
        let dest = self.virtual_of(sh, dst);
        let dest_len = dest.and_then(|b| self.length(b));
        match (source, dest, dest_len) {
            // between virtual strings: in the optimizer
            (Some(items), Some(d), Some(len))
                if in_range(items.len(), from) && in_range(len, to) =>
            {
                for k in 0..n {
                    let c = items[(from + k) as usize].unwrap_or(Value::Int(0));
                    self.set_item(d, (to + k) as usize, c);
                }
            }
            // from a virtual string: its characters stored one by one
            (Some(items), None, _) if in_range(items.len(), from) && n <= MAX_UNROLLED_COPY => {
                for k in 0..n {
                    let c = items[(from + k) as usize].unwrap_or(Value::Int(0));
                    let store = flavour.op(Opcode::Strsetitem, Opcode::Unicodesetitem);
                    sh.send_extra(Op {
                        descr: op.descr,
                        ..Op::new(store, vec![dst, Value::Int(to + k), c], None)
                    });
                }
            }
            // into a virtual string: the source's characters read one by one
            (None, Some(_), Some(len)) if in_range(len, to) && n <= MAX_UNROLLED_COPY => {
                for k in 0..n {
                    let c = sh.new_box(Kind::Int);
                    let read = flavour.op(Opcode::Strgetitem, Opcode::Unicodegetitem);
                    let store = flavour.op(Opcode::Strsetitem, Opcode::Unicodesetitem);
                    sh.send_extra(Op {
                        descr: op.descr,
                        ..Op::new(read, vec![src, Value::Int(from + k)], Some(c))
                    });
                    sh.send_extra(Op {
                        descr: op.descr,
                        ..Op::new(store, vec![dst, Value::Int(to + k), Value::Box(c)], None)
                    });
                }
            }
            _ => self.copy_at_run_time(op, sh, next),
        }
    }

    /// A call of `str_equal`/`unicode_equal` (PyPy's `streq` shortcuts):
    /// the same string twice is equal; strings of known different lengths,
    /// or a string and null, are not; two strings whose characters are all
    /// known compare in the optimizer.
    fn equality(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let (a, b) = (sh.resolve(op.args[0]), sh.resolve(op.args[1]));
        // the characters of each virtual string (unset ones are 0) and the
        // length of each string, read once
        let chars = |v: Value| {
            let s = self.virtual_of(sh, v)?;
            self.with_items(s, |items| {
                items
                    .iter()
                    .map(|c| c.unwrap_or(Value::Int(0)))
                    .collect::<Vec<_>>()
            })
        };
        let (chars_a, chars_b) = (chars(a), chars(b));
        let length = |v: Value, chars: &Option<Vec<Value>>| match chars {
            Some(c) => Some(Value::Int(c.len() as i64)),
            None => self.lengths.get(&v).copied(),
        };
        let (length_a, length_b) = (length(a, &chars_a), length(b, &chars_b));
        let decided = if a == b {
            Some(true)
        } else if (a == Value::NullPtr && length_b.is_some())
            || (b == Value::NullPtr && length_a.is_some())
        {
            Some(false)
        } else {
            match (length_a, length_b) {
                (Some(m), Some(n)) if sh.never_equal(m, n) => Some(false),
                _ => match (chars_a, chars_b) {
                    (Some(x), Some(y)) => {
                        let differing: Vec<(Value, Value)> = x
                            .iter()
                            .zip(&y)
                            .filter(|(c, d)| c != d)
                            .map(|(c, d)| (*c, *d))
                            .collect();
                        let known_unequal = differing
                            .iter()
                            .any(|p| matches!(p, (Value::Int(_), Value::Int(_))));
                        match (known_unequal, &differing[..], op.result) {
                            (true, _, _) => Some(false),
                            (false, [], _) => Some(true),
                            // one character unknown: the comparison is that
                            // of the character (PyPy's streq of one char)
                            (false, [(c, d)], Some(r)) => {
                                let same = Op::new(Opcode::IntEq, vec![*c, *d], Some(r));
                                return sh.send_extra(same);
                            }
                            _ => None,
                        }
                    }
                    _ => None,
                },
            }
        };
        match (decided, op.result) {
            (Some(eq), Some(r)) => sh.make_equal(r, Value::Int(eq as i64)),
            _ => {
                for v in [a, b] {
                    force_value(&self.virtuals, v, sh, next);
                }
                next.emit(op, sh);
            }
        }
    }

    fn copy_at_run_time(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let dst = sh.resolve(op.args[1]);
        for v in &op.args[..2] {
            force_value(&self.virtuals, *v, sh, next);
        }
        self.forget_chars(dst, None, sh);
        next.emit(op, sh);
    }
}

impl Optimization for OptString {
    fn name(&self) -> &'static str {
        "string"
    }

    fn fork(&self, copies: &mut super::Forks) -> Box<dyn Optimization> {
        Box::new(OptString {
            virtuals: copies.virtuals(&self.virtuals),
            owns_escapes: self.owns_escapes,
            lengths: self.lengths.clone(),
            chars: self.chars.clone(),
        })
    }

    /// At `unroll`'s label: the characters known of real strings are not
    /// carried into the loop (the body may store others, and `unroll`
    /// checks at the jump only the facts it is told of); lengths, which
    /// never change, are.
    fn retain_reads(&mut self, _keep: &dyn Fn(&super::RememberedRead) -> bool) {
        self.chars.clear();
    }

    fn virtual_shape(&self, b: usize) -> Option<VirtualShape> {
        if !self.owns_escapes {
            return None; // `virtualize` describes the shared objects
        }
        // its own table holds only strings
        virtual_shape(&self.virtuals, b)
    }

    fn propagate(&mut self, op: Op, sh: &mut Shared, next: &mut Next) {
        let name = op.opcode;
        if op.is_string_op() {
            return match name {
                Opcode::Newstr | Opcode::Newunicode => self.newstr(op, sh, next),
                Opcode::Strlen | Opcode::Unicodelen => self.strlen(op, sh, next),
                Opcode::Strgetitem | Opcode::Unicodegetitem => self.strgetitem(op, sh, next),
                Opcode::Strsetitem | Opcode::Unicodesetitem => self.strsetitem(op, sh, next),
                _ => self.copy(op, sh, next), // copystrcontent, copyunicodecontent
            };
        }
        match name {
            _ if is_string_equality(&op, sh) => self.equality(op, sh, next),
            Opcode::Label => {
                if self.owns_escapes {
                    // the loop's strings are other ones each iteration
                    force_all(&self.virtuals, sh, next);
                }
                self.lengths.clear();
                self.chars.clear();
                next.emit(op, sh);
            }
            _ => {
                if super::writes_unknown_memory(name) {
                    self.chars.clear();
                }
                let op = match self.owns_escapes {
                    true => escape_op(&self.virtuals, op, sh, next),
                    false => op,
                };
                next.emit(op, sh);
            }
        }
    }
}
