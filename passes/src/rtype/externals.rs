//! The standard modules' functions (`$math.sqrt`, `$os.write`,
//! `$time.time`...; `language::stdmods`) lowered to C runtime leaves, as the
//! original's external functions (`extfunc`, `ll_math`, `rposix`) are.
//!
//! Each function is one leaf (`rpy_math_sqrt`, `rpy_os_write`,
//! `rpy_time_time`; `llops::RUNTIME_FUNCS`) that never raises. As in the
//! original, where these are functions whose low-level implementation
//! raises (not operations that are assumed not to fail outside a
//! handler), the result of every call that can fail is checked by a helper
//! of `pylib/rpython/rtyper/rmath.py` or `ros.py`, which raises
//! ValueError/OverflowError ("math domain error", "math range error") or
//! OSError ("[Errno 2] No such file or directory"), caught by a handler of
//! any caller; the check is a few float comparisons (or an int's sign).

use super::{GraphTyper, HelperArg};
use crate::language::stdmods;
use rpy_ir::graph::{Arg, Constant, SpaceOperation};
use rpy_ir::lltype::{self, LowLevelType};
use rpy_ir::opcode::Opcode;
use rpy_llinterp::libm;

type Value = (Arg, LowLevelType);

fn str_type() -> LowLevelType {
    LowLevelType::Ptr(lltype::STR.to_string())
}

impl GraphTyper<'_, '_, '_> {
    /// Lowers a call of a standard-module function; `false` when `op` is
    /// not one.
    pub(super) fn lower_external(&mut self, op: &SpaceOperation) -> Result<bool, String> {
        if op.opname != Opcode::SimpleCall {
            return Ok(false);
        }
        let Some(Arg::Const(Constant::Builtin(name))) = op.args.first() else {
            return Ok(false);
        };
        let Some((module, func)) = name.rsplit_once('.') else {
            return Ok(false);
        };
        if !stdmods::MODULES.contains(&module) {
            return Ok(false);
        }
        let args = &op.args[1..];
        let value = match module {
            "math" => self.lower_math(func, args)?,
            "time" => self.lower_time(func, args)?,
            "os" => self.lower_os(func, args)?,
            "os.path" => self.lower_os_path(func, args)?,
            "gc" => self.lower_gc(func, args)?,
            _ => None,
        };
        let Some(value) = value else {
            return Err(format!("{name}() cannot be translated yet"));
        };
        let want = self.graph.info(op.result).clone();
        self.finish(value, Some((op.result, want)))?;
        Ok(true)
    }

    /// A call of runtime leaf `leaf` on `args`, converted to its parameter
    /// types.
    fn leaf(&mut self, leaf: &str, args: Vec<Arg>) -> Result<Value, String> {
        let f = rpy_ir::llops::runtime_func(leaf)
            .ok_or_else(|| format!("unknown runtime function {leaf}"))?;
        let mut all = vec![Arg::Const(Constant::Builtin(leaf.to_string()))];
        for (a, t) in args.iter().zip(f.args) {
            all.push(self.arg_as(a, &t.lltype())?);
        }
        let ty = f.result.lltype();
        let v = self.emit(Opcode::DirectCall, all, ty.clone(), None);
        Ok((Arg::Var(v), ty))
    }

    fn op(&mut self, opname: Opcode, args: Vec<Arg>, ty: LowLevelType) -> Value {
        let v = self.emit(opname, args, ty.clone(), None);
        (Arg::Var(v), ty)
    }

    fn float_arg(&mut self, a: &Arg) -> Result<Arg, String> {
        self.arg_as(a, &LowLevelType::Float)
    }

    /// A checking helper of `module` called on run-time `values` and then
    /// constant flags.
    fn check(
        &mut self,
        module: &str,
        func: &str,
        values: Vec<Value>,
        flags: &[bool],
    ) -> Result<Value, String> {
        let mut args: Vec<(HelperArg, Arg)> = values
            .into_iter()
            .map(|(a, t)| (HelperArg::Value(t), a))
            .collect();
        for &f in flags {
            args.push(HelperArg::Const(Constant::Bool(f)).fixed());
        }
        let v = self.call_helper(module, func, args)?;
        let ty = self.type_of(&v);
        Ok((v, ty))
    }

    fn lower_math(&mut self, func: &str, args: &[Arg]) -> Result<Option<Value>, String> {
        let float = LowLevelType::Float;
        Ok(Some(match (func, args) {
            ("degrees" | "radians", [x]) => {
                let x = self.float_arg(x)?;
                let k = if func == "degrees" {
                    libm::RAD_TO_DEG
                } else {
                    libm::DEG_TO_RAD
                };
                self.op(
                    Opcode::FloatMul,
                    vec![x, Arg::Const(Constant::Float(k))],
                    float,
                )
            }
            ("isnan", [x]) => {
                let x = self.float_arg(x)?;
                self.op(Opcode::FloatNe, vec![x.clone(), x], LowLevelType::Bool)
            }
            ("isinf", [x]) => {
                let x = self.float_arg(x)?;
                let (a, _) = self.op(Opcode::FloatAbs, vec![x], float);
                let inf = Arg::Const(Constant::Float(f64::INFINITY));
                self.op(Opcode::FloatEq, vec![a, inf], LowLevelType::Bool)
            }
            ("isfinite", [x]) => {
                let x = self.float_arg(x)?;
                let (d, _) = self.op(Opcode::FloatSub, vec![x.clone(), x], float);
                let zero = Arg::Const(Constant::Float(0.0));
                self.op(Opcode::FloatEq, vec![d, zero], LowLevelType::Bool)
            }
            ("log", [x, base]) => {
                let num = self.lower_math("log", std::slice::from_ref(x))?;
                let den = self.lower_math("log", std::slice::from_ref(base))?;
                let (Some(num), Some(den)) = (num, den) else {
                    return Ok(None);
                };
                self.op(Opcode::FloatTruediv, vec![num.0, den.0], float)
            }
            ("ldexp", [x, e]) => {
                let x = self.float_arg(x)?;
                let r = self.leaf("rpy_math_ldexp", vec![x.clone(), e.clone()])?;
                self.check("rmath", "ll_math_check_1", vec![(x, float), r], &[true])?
            }
            (f, [x]) => {
                let Some((_, can_overflow)) = libm::unary(f) else {
                    return Ok(None);
                };
                let x = self.float_arg(x)?;
                let r = self.leaf(&format!("rpy_math_{f}"), vec![x.clone()])?;
                // fabs() and the roundings cannot fail (as floats).
                let r = if !matches!(f, "fabs" | "floor" | "ceil" | "trunc") {
                    self.check(
                        "rmath",
                        "ll_math_check_1",
                        vec![(x, float.clone()), r],
                        &[can_overflow],
                    )?
                } else {
                    r
                };
                if matches!(f, "floor" | "ceil" | "trunc") && !self.rt.py2 {
                    // Python 3 gives an int, which infinities and NaN are not.
                    self.check("rmath", "ll_math_to_int", vec![r], &[])?
                } else {
                    r
                }
            }
            (f, [x, y]) => {
                let Some((_, can_overflow)) = libm::binary(f) else {
                    return Ok(None);
                };
                let x = self.float_arg(x)?;
                let y = self.float_arg(y)?;
                let r = self.leaf(&format!("rpy_math_{f}"), vec![x.clone(), y.clone()])?;
                if !matches!(f, "atan2" | "copysign") {
                    self.check(
                        "rmath",
                        "ll_math_check_2",
                        vec![(x, float.clone()), (y, float), r],
                        &[can_overflow],
                    )?
                } else {
                    r
                }
            }
            _ => return Ok(None),
        }))
    }

    /// `gc.collect([generation])` (generation 0: a minor collection; else
    /// a minor and a major one), `gc.enable()`/`disable()` (of the major
    /// collections the collector starts by itself, as the original's
    /// incminimark) and `gc.isenabled()`.
    fn lower_gc(&mut self, func: &str, args: &[Arg]) -> Result<Option<Value>, String> {
        Ok(Some(match (func, args) {
            ("collect", []) => self.leaf(
                rpy_ir::llops::GC_COLLECT_NOW,
                vec![Arg::Const(Constant::Int(1))],
            )?,
            ("collect", [generation]) => {
                self.leaf(rpy_ir::llops::GC_COLLECT_NOW, vec![generation.clone()])?
            }
            ("enable" | "disable", []) => self.leaf(
                "rpy_gc_set_enabled",
                vec![Arg::Const(Constant::Bool(func == "enable"))],
            )?,
            ("isenabled", []) => self.leaf("rpy_gc_isenabled", vec![])?,
            _ => return Ok(None),
        }))
    }

    /// `jit.set_param(driver, name, value)`: a runtime leaf that hands
    /// the parameter to the JIT's runtime as text (the driver is not
    /// passed: an executable's JIT has one set of parameters). The name
    /// must be a constant one of the original's parameters, as there.
    pub(super) fn lower_jit_set_param(&mut self, args: &[Arg]) -> Result<Value, String> {
        let [_driver, name, value] = args else {
            return Err(format!(
                "jit.set_param() takes a driver, a name and a value, not {} arguments",
                args.len()
            ));
        };
        let Arg::Const(Constant::Str(param)) = name else {
            return Err("jit.set_param(): the parameter's name must be a constant str".into());
        };
        if !rpy_ir::llops::JIT_PARAMETERS.contains(&param.as_str()) {
            return Err(format!(
                "jit.set_param(): no JIT parameter '{param}' ({})",
                rpy_ir::llops::JIT_PARAMETERS.join(", ")
            ));
        }
        let leaf = match self.type_of(value) {
            LowLevelType::Ptr(p) if p == lltype::STR => "rpy_jit_set_param_str",
            LowLevelType::Signed | LowLevelType::Bool => "rpy_jit_set_param_int",
            other => {
                return Err(format!(
                    "jit.set_param(): the value of '{param}' must be an int or a str, not {other}"
                ))
            }
        };
        self.leaf(leaf, vec![name.clone(), value.clone()])
    }

    fn lower_time(&mut self, func: &str, args: &[Arg]) -> Result<Option<Value>, String> {
        let leaf = match func {
            "time" => "rpy_time_time",
            "clock" | "process_time" => "rpy_time_clock",
            "perf_counter" | "monotonic" => "rpy_time_monotonic",
            "sleep" => "rpy_time_sleep",
            _ => return Ok(None),
        };
        Ok(Some(self.leaf(leaf, args.to_vec())?))
    }

    /// An os leaf's result, checked by `ros.<checker>`, which raises
    /// OSError (of the errno read from `rpy_os_errno`) when it failed.
    fn os_leaf(
        &mut self,
        leaf: &str,
        args: Vec<Arg>,
        checker: &str,
        path: Option<&Arg>,
    ) -> Result<Value, String> {
        let r = self.leaf(leaf, args)?;
        let e = self.leaf("rpy_os_errno", vec![])?;
        let mut values = vec![r, e];
        if let Some(p) = path {
            let p = self.arg_as(p, &str_type())?;
            values.push((p, str_type()));
        }
        self.check("ros", checker, values, &[])
    }

    fn lower_os(&mut self, func: &str, args: &[Arg]) -> Result<Option<Value>, String> {
        let int = |n: i64| Arg::Const(Constant::Int(n));
        Ok(Some(match (func, args) {
            ("write", [_, _]) => {
                self.os_leaf("rpy_os_write", args.to_vec(), "ll_os_check", None)?
            }
            ("read", [_, _]) => {
                self.os_leaf("rpy_os_read", args.to_vec(), "ll_os_check_str", None)?
            }
            ("open", [path, flags]) => self.os_leaf(
                "rpy_os_open",
                vec![path.clone(), flags.clone(), int(0o777)],
                "ll_os_check_path",
                Some(path),
            )?,
            ("open", [path, _, _]) => {
                self.os_leaf("rpy_os_open", args.to_vec(), "ll_os_check_path", Some(path))?
            }
            ("close", [_]) => self.os_leaf("rpy_os_close", args.to_vec(), "ll_os_check", None)?,
            ("lseek", [_, _, _]) => {
                self.os_leaf("rpy_os_lseek", args.to_vec(), "ll_os_check", None)?
            }
            ("unlink", [path]) => self.os_leaf(
                "rpy_os_unlink",
                args.to_vec(),
                "ll_os_check_path",
                Some(path),
            )?,
            ("getenv", [_]) => self.leaf("rpy_os_getenv", args.to_vec())?,
            ("getpid", []) => self.leaf("rpy_os_getpid", vec![])?,
            ("isatty", [_]) => self.leaf("rpy_os_isatty", args.to_vec())?,
            ("strerror", [_]) => self.leaf("rpy_os_strerror", args.to_vec())?,
            _ => return Ok(None),
        }))
    }

    fn lower_os_path(&mut self, func: &str, args: &[Arg]) -> Result<Option<Value>, String> {
        Ok(Some(match (func, args) {
            ("join", [first, rest @ ..]) => {
                let mut acc = (self.arg_as(first, &str_type())?, str_type());
                for a in rest {
                    acc = self.leaf("rpy_os_path_join", vec![acc.0, a.clone()])?;
                }
                acc
            }
            ("dirname", [_]) => self.leaf("rpy_os_path_dirname", args.to_vec())?,
            ("basename", [_]) => self.leaf("rpy_os_path_basename", args.to_vec())?,
            ("exists" | "isfile" | "isdir", [_]) => {
                let (kind, _) = self.leaf("rpy_os_path_kind", args.to_vec())?;
                let (opname, n) = match func {
                    "exists" => (Opcode::IntNe, 0),
                    "isfile" => (Opcode::IntEq, 1),
                    _ => (Opcode::IntEq, 2),
                };
                self.op(
                    opname,
                    vec![kind, Arg::Const(Constant::Int(n))],
                    LowLevelType::Bool,
                )
            }
            _ => return Ok(None),
        }))
    }
}
