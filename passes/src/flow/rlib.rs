//! The rlib modules: what `rpython.rlib.jit`, `.rarithmetic`, `.objectmodel`
//! and `.debug` mean to the translation.
//!
//! rpy does not execute pylib/'s Python files (they are for running a program
//! untranslated under CPython). A program that imports an rlib module gets a
//! module object whose functions are builtin constants (`$intmask`,
//! `$promote`, ...) that the later stages know by name, and whose numeric
//! constants are the translated program's (`LONG_BIT` is 64). Decorators
//! (`@jit.elidable`, `@specialize.argtype(0)`, `@always_inline`) are not
//! called: the module-level `def` records them as hints on the function's
//! graph (see `module_level`).

use rpy_ir::ast::{Expr, ExprKind};
use rpy_ir::graph::Constant;
use std::collections::HashMap;

/// The rlib modules rpy knows, by their module name under `rpython.rlib`.
pub(crate) const MODULES: &[&str] = &["jit", "rarithmetic", "objectmodel", "debug"];

/// The module of low-level types and their primitives, which low-level
/// helpers (pylib/rpython/rtyper/) are written with; known as the rlib
/// modules are, by the short name `lltype`.
pub(crate) const LLTYPE_MODULE: &str = "rpython.rtyper.lltypesystem.lltype";

/// The packages above the modules rpy knows by name (not read from files).
const KNOWN_PACKAGES: &[&str] = &["rpython", "rpython.rlib", "rpython.rtyper.lltypesystem"];

/// The short name (`jit`, `lltype`) of a module rpy knows by name.
fn short_name(module: &str) -> Option<&str> {
    if module == LLTYPE_MODULE {
        return Some("lltype");
    }
    module
        .strip_prefix("rpython.rlib.")
        .filter(|m| MODULES.contains(m))
}

/// What a name of an rlib module is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum RlibName {
    /// A function the translated program calls (a builtin of that name).
    Function,
    /// A decorator, recorded as a hint on the decorated function.
    Decorator,
    /// A decorator factory (`look_inside_iff(pred)`, `specialize.argtype(0)`):
    /// its call with arguments is the decorator.
    DecoratorFactory,
    /// A machine-word constant.
    Int(i64),
}

/// The names each rlib module defines, with their meaning.
fn names(module: &str) -> &'static [(&'static str, RlibName)] {
    use RlibName::*;
    match module {
        "jit" => &[
            ("elidable", Decorator),
            ("dont_look_inside", Decorator),
            ("look_inside", Decorator),
            ("unroll_safe", Decorator),
            ("loop_invariant", Decorator),
            ("not_in_trace", Decorator),
            ("look_inside_iff", DecoratorFactory),
            ("elidable_promote", DecoratorFactory),
            ("oopspec", DecoratorFactory),
            ("promote", Function),
            ("promote_string", Function),
            ("hint", Function),
            ("isconstant", Function),
            ("isvirtual", Function),
            ("we_are_jitted", Function),
            ("assert_green", Function),
            ("loop_unrolling_heuristic", Function),
            ("JitDriver", Function),
            ("JitHintError", Function),
            ("set_param", Function),
            ("set_user_param", Function),
        ],
        "rarithmetic" => &[
            ("intmask", Function),
            ("widen", Function),
            ("is_valid_int", Function),
            ("ovfcheck", Function),
            ("highest_bit", Function),
            ("int_between", Function),
            ("int_force_ge_zero", Function),
            ("int_c_div", Function),
            ("int_c_mod", Function),
            ("r_uint", Function),
            ("r_int", Function),
            ("r_longlong", Function),
            ("r_ulonglong", Function),
            ("LONG_BIT", Int(64)),
            ("LONGLONG_BIT", Int(64)),
            ("maxint", Int(i64::MAX)),
            ("INT_MIN", Int(i32::MIN as i64)),
            ("INT_MAX", Int(i32::MAX as i64)),
        ],
        "objectmodel" => &[
            ("specialize", DecoratorFactory),
            ("always_inline", Decorator),
            ("dont_inline", Decorator),
            ("try_inline", Decorator),
            ("not_rpython", Decorator),
            ("enforceargs", DecoratorFactory),
            ("we_are_translated", Function),
            ("keepalive_until_here", Function),
            ("compute_hash", Function),
            ("compute_identity_hash", Function),
            ("compute_unique_id", Function),
            ("current_object_addr_as_int", Function),
            ("instantiate", Function),
            ("r_dict", Function),
            // Its calls in class bodies are the builder's (`module_level`).
            ("import_from_mixin", Function),
        ],
        // Helper code names types by constants the annotator folds:
        // `typeOf(p)`, `T.TO`, a field's type `T.items`, an array's item
        // type `T.OF`.
        "lltype" => &[
            ("malloc", Function),
            ("typeOf", Function),
            ("nullptr", Function),
        ],
        "debug" => &[
            ("debug_print", Function),
            ("debug_start", Function),
            ("debug_stop", Function),
            ("have_debug_prints", Function),
            ("debug_flush", Function),
            ("ll_assert", Function),
            ("fatalerror", Function),
            ("check_nonneg", Function),
            ("check_regular_int", Function),
            ("make_sure_not_resized", Function),
            ("check_annotation", Function),
        ],
        _ => &[],
    }
}

/// Whether the rlib function `name` takes keyword arguments that are
/// hints to the JIT only (`hint(x, promote=True, access_directly=True)`),
/// which a call may drop.
pub(crate) fn takes_hint_keywords(name: &str) -> bool {
    name == "hint"
}

/// Is `name` (dotted) `rpython`, `rpython.rlib` or one of the rlib modules?
pub(crate) fn is_rlib_module(name: &str) -> bool {
    short_name(name).is_some() || KNOWN_PACKAGES.contains(&name)
}

/// The attributes of the rlib module `name` as values: the functions as
/// builtin constants, the numbers as ints. (The packages' submodules are
/// added by the import machinery, as for any package.)
pub(crate) fn module_attributes(name: &str) -> Vec<(String, Constant)> {
    names(short_name(name).unwrap_or(""))
        .iter()
        .map(|(n, kind)| {
            let value = match kind {
                RlibName::Int(i) => Constant::Int(*i),
                _ => Constant::Builtin(n.to_string()),
            };
            (n.to_string(), value)
        })
        .collect()
}

/// What each name a module's import statements bind refers to, as a dotted
/// path: `from rpython.rlib import jit` binds `jit` to `rpython.rlib.jit`,
/// `from rpython.rlib.jit import elidable as e` binds `e` to
/// `rpython.rlib.jit.elidable`, `import rpython.rlib.jit` binds `rpython`.
pub(crate) fn import_bindings(stmts: &[rpy_ir::ast::Stmt]) -> HashMap<String, String> {
    use rpy_ir::ast::StmtKind;
    let mut out = HashMap::new();
    for s in stmts {
        match &s.kind {
            StmtKind::Import(aliases) => {
                for a in aliases {
                    match &a.asname {
                        Some(n) => out.insert(n.clone(), a.name.clone()),
                        None => {
                            let top = a.name.split('.').next().unwrap_or(&a.name);
                            out.insert(top.to_string(), top.to_string())
                        }
                    };
                }
            }
            StmtKind::ImportFrom {
                module,
                names,
                level: 0,
            } => {
                for a in names {
                    let bound = a.asname.clone().unwrap_or_else(|| a.name.clone());
                    out.insert(bound, format!("{module}.{}", a.name));
                }
            }
            _ => {}
        }
    }
    out
}

/// The rlib function an expression names through the import bindings
/// (`jit.JitDriver`, `JitDriver` -> `JitDriver`), if it names one.
pub(crate) fn rlib_function(e: &Expr, bindings: &HashMap<String, String>) -> Option<String> {
    let (name, kind) = rlib_name(&dotted_path(e, bindings)?)?;
    (kind == RlibName::Function).then_some(name)
}

/// The dotted path an expression names through the import bindings
/// (`jit.elidable` -> `rpython.rlib.jit.elidable`), if it is a name or an
/// attribute of one.
fn dotted_path(e: &Expr, bindings: &HashMap<String, String>) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => bindings.get(n).cloned(),
        ExprKind::Attribute { value, attr } => {
            Some(format!("{}.{attr}", dotted_path(value, bindings)?))
        }
        _ => None,
    }
}

/// The meaning of the rlib name a dotted path names (`rpython.rlib.jit.elidable`),
/// with the name as hints show it (`elidable`, `specialize.argtype`).
fn rlib_name(path: &str) -> Option<(String, RlibName)> {
    let (module, name) = match path
        .strip_prefix(LLTYPE_MODULE)
        .and_then(|r| r.strip_prefix('.'))
    {
        Some(name) => ("lltype", name),
        None => path.strip_prefix("rpython.rlib.")?.split_once('.')?,
    };
    let head = name.split('.').next().unwrap_or(name);
    let kind = names(module).iter().find(|(n, _)| *n == head)?.1;
    Some((name.to_string(), kind))
}

/// The source text of a constant decorator argument, for the hint.
fn literal_text(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Int(i) => Some(i.to_string()),
        ExprKind::Str(s) => Some(format!("{s:?}")),
        ExprKind::Bool(b) => Some(if *b { "True" } else { "False" }.to_string()),
        ExprKind::None => Some("None".to_string()),
        ExprKind::Name(n) => Some(n.clone()),
        _ => None,
    }
}

/// If the decorator is an rlib one, the hint it records on the function:
/// `elidable`, `specialize.argtype(0)`, `look_inside_iff(pred)`.
pub(crate) fn decorator_hint(d: &Expr, bindings: &HashMap<String, String>) -> Option<String> {
    match &d.kind {
        ExprKind::Call {
            func,
            args,
            keywords,
            star_args: None,
            kwargs: None,
        } if keywords.is_empty() => {
            let (name, kind) = rlib_name(&dotted_path(func, bindings)?)?;
            if kind != RlibName::DecoratorFactory {
                return None;
            }
            let args: Option<Vec<String>> = args.iter().map(literal_text).collect();
            Some(format!("{name}({})", args?.join(", ")))
        }
        _ => {
            let (name, kind) = rlib_name(&dotted_path(d, bindings)?)?;
            (kind == RlibName::Decorator).then_some(name)
        }
    }
}
