//! What GenC adds to a program translated with `--jit`: the JIT's data
//! and the C side of its runtime (`RpyJitEmbedding`, read by
//! `rpy_jit::native::machine::Embedding`): the serialized
//! `NativeProgram`, the jitcodes' constants as words, a wrapper per C
//! function the jitcodes call residually (arguments and result as words),
//! the allocator, write barrier, shadow stack and exception state. The
//! portals' merge points and loop ends call the runtime (`function.rs`,
//! `jit_hook`).

use crate::function::{constant_expr, Context};
use crate::types::c_type;
use crate::StringPool;
use rpy_ir::graph::{LowLevel, Program};
use rpy_ir::lltype::LowLevelType;
use rpy_jit::codewriter::jitcode::JitCodes;
use rpy_jit::native::NativeProgram;
use std::fmt::Write;

/// What `--jit` gives GenC: the optimized low-level program the jitcodes
/// were written from, and the jitcodes.
pub struct JitInput<'a> {
    pub lowlevel: &'a Program<LowLevel>,
    pub codes: &'a JitCodes,
}

/// The conversions between words and C values, and the runtime's entry
/// points.
pub(crate) const PRELUDE: &str = "/* ---- the JIT's embedding ---- */

typedef unsigned long (*RpyJitWrapper)(const unsigned long *);
typedef struct {
    const unsigned char *program;
    size_t program_len;
    const void *constants;
    size_t constants_len;
    const RpyJitWrapper *runtime_calls;
    const RpyJitWrapper *graph_calls;
    const unsigned long *graph_addresses;
    void *(*malloc)(size_t, unsigned long);
    void *(*malloc_varsize)(size_t, size_t, size_t, long, size_t, unsigned long);
    void (*write_barrier)(void *);
    void *(*malloc_nocollect)(size_t, unsigned long);
    void *(*malloc_varsize_nocollect)(size_t, size_t, size_t, long, size_t, unsigned long);
    void ***root_top;
    void ***root_end;
    void **exc_type;
    void **exc_value;
    void (*gc_minor_collection)(void);
    int (*gc_may_move)(void *);
    void (*gc_keep)(void *);
    unsigned long young_flag;
    int *active;
} RpyJitEmbedding;
/* Non-zero while the JIT has a loop or a hot key: a merge point calls the
 * runtime only then (or as its call's first). */
extern int rpy_jit_active;
typedef union { unsigned long w; double f; const void *p; } RpyJitWord;
void rpy_jit_init(const RpyJitEmbedding *);
int rpy_jit_merge_point(unsigned long, unsigned long *, unsigned long, int, unsigned long *);
void rpy_jit_can_enter_jit(unsigned long, const unsigned long *, unsigned long);
RPY_INLINE unsigned long rpy_jit_f2w(double f) { RpyJitWord u; u.f = f; return u.w; }
RPY_INLINE double rpy_jit_w2f(unsigned long w) { RpyJitWord u; u.w = w; return u.f; }
/* The machine code's allocations leave the collector's callbacks to the
 * C code (see rpy_gc_callbacks_held). */
static void *rpy_jit_malloc(size_t size, unsigned long tid) {
    return rpy_gc_malloc_holding_callbacks(size, tid);
}
static void *rpy_jit_malloc_varsize(size_t fixed, size_t items, size_t item_size, long n,
                                    size_t length, unsigned long tid) {
    return rpy_gc_malloc_varsize_holding_callbacks(fixed, items, item_size, n, length, tid);
}
static void rpy_jit_write_barrier(void *obj) { RPY_GC_WRITE_BARRIER(obj); }
";

/// The C value of type `t` held in the word `w`.
pub(crate) fn from_word(t: &LowLevelType, w: &str, cx: &Context) -> String {
    match t {
        LowLevelType::Float => format!("rpy_jit_w2f({w})"),
        LowLevelType::Bool => format!("({w} != 0)"),
        LowLevelType::Void => String::new(),
        other => format!("({}){w}", c_type(other, cx.types)),
    }
}

/// The word holding the C value `x` of type `t`.
pub(crate) fn to_word(t: &LowLevelType, x: &str) -> String {
    match t {
        LowLevelType::Float => format!("rpy_jit_f2w({x})"),
        _ => format!("(unsigned long)({x})"),
    }
}

/// A wrapper `name` calling `callee` with the arguments of `params` (a
/// Void one keeps its slot in the words, and is not passed).
fn wrapper(
    name: &str,
    callee: &str,
    params: &[LowLevelType],
    result: &LowLevelType,
    cx: &Context,
) -> String {
    let args: Vec<String> = params
        .iter()
        .enumerate()
        .filter(|(_, t)| **t != LowLevelType::Void)
        .map(|(i, t)| from_word(t, &format!("a[{i}]"), cx))
        .collect();
    let call = format!("{callee}({})", args.join(", "));
    let body = if *result == LowLevelType::Void {
        format!("{call};\n    return 0;")
    } else {
        format!("return {};", to_word(result, &call))
    };
    format!(
        "static unsigned long {name}(const unsigned long *a) {{\n    (void)a;\n    {body}\n}}\n"
    )
}

/// The embedding of `native`, and its data; `codes` are the jitcodes with
/// their constants (which `native`'s have not).
pub(crate) fn emit(
    cx: &Context,
    pool: &mut StringPool,
    input: &JitInput,
    native: &NativeProgram,
) -> Result<String, String> {
    let mut out = String::from("/* ---- the JIT's data ---- */\n\n");
    let bytes = native.to_bytes();
    let _ = write!(
        out,
        "static const unsigned char rpy_jit_program[{}] = {{",
        bytes.len().max(1)
    );
    for (i, b) in bytes.iter().enumerate() {
        if i % 24 == 0 {
            out.push_str("\n    ");
        }
        let _ = write!(out, "{b},");
    }
    out.push_str("\n};\n");
    out.push_str("static const RpyJitWord rpy_jit_constants[] = {\n");
    let mut count = 0;
    for jc in &input.codes.codes {
        for (c, t) in &jc.constants {
            let init = match t {
                LowLevelType::Void => "{.w = 0}".to_string(),
                LowLevelType::Float => format!("{{.f = {}}}", constant_expr(cx, pool, c, Some(t))?),
                LowLevelType::Ptr(_) | LowLevelType::FuncPtr(_) => {
                    format!(
                        "{{.p = (const void *){}}}",
                        constant_expr(cx, pool, c, Some(t))?
                    )
                }
                _ => format!(
                    "{{.w = (unsigned long){}}}",
                    constant_expr(cx, pool, c, Some(t))?
                ),
            };
            let _ = writeln!(out, "    {init},");
            count += 1;
        }
    }
    if count == 0 {
        out.push_str("    {.w = 0},\n");
    }
    out.push_str("};\n");
    let mut runtime_names = Vec::new();
    for (i, name) in native.runtime.iter().enumerate() {
        let f = rpy_ir::llops::runtime_func(name)
            .ok_or_else(|| format!("the jitcodes call '{name}', which is no runtime function"))?;
        let params: Vec<LowLevelType> = f.args.iter().map(|a| a.lltype()).collect();
        let w = format!("rpy_jit_rt_{i}");
        out.push_str(&wrapper(&w, name, &params, &f.result.lltype(), cx));
        runtime_names.push(w);
    }
    let mut graph_wrappers = Vec::new();
    let mut addresses = Vec::new();
    for g in &native.residual_graphs {
        let name = &input.lowlevel.graphs[*g as usize].name;
        let sig = cx
            .sigs
            .get(name)
            .ok_or_else(|| format!("the jitcodes call '{name}', which GenC has no function for"))?;
        let w = format!("rpy_jit_g_{g}");
        out.push_str(&wrapper(
            &w,
            &sig.c_name,
            &sig.ty.params,
            &sig.ty.result,
            cx,
        ));
        graph_wrappers.push(w);
        addresses.push(format!("(unsigned long){}", sig.c_name));
    }
    let table = |name: &str, ty: &str, items: &[String]| {
        if items.is_empty() {
            format!("static const {ty} {name}[1] = {{0}};\n")
        } else {
            format!("static const {ty} {name}[] = {{{}}};\n", items.join(", "))
        }
    };
    out.push_str(&table(
        "rpy_jit_runtime_calls",
        "RpyJitWrapper",
        &runtime_names,
    ));
    out.push_str(&table(
        "rpy_jit_graph_calls",
        "RpyJitWrapper",
        &graph_wrappers,
    ));
    out.push_str(&table(
        "rpy_jit_graph_addresses",
        "unsigned long",
        &addresses,
    ));
    out.push_str("int rpy_jit_active = 0;\n");
    let _ = writeln!(
        out,
        "static const RpyJitEmbedding rpy_jit_embedding = {{\n    \
         rpy_jit_program, {}, rpy_jit_constants, {count}, rpy_jit_runtime_calls,\n    \
         rpy_jit_graph_calls, rpy_jit_graph_addresses, rpy_jit_malloc, rpy_jit_malloc_varsize,\n    \
         rpy_jit_write_barrier, rpy_malloc, rpy_malloc_varsize, &rpy_gc_root_top, &rpy_gc_root_end, &rpy_exc_type, &rpy_exc_value,\n         rpy_gc_jit_minor_collection, rpy_gc_jit_may_move, rpy_gc_jit_keep,\n         RPY_GCFLAG_TRACK_YOUNG, &rpy_jit_active}};\n",
        bytes.len()
    );
    Ok(out)
}
