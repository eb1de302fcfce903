//! Tests of the flow stage: source -> AST (the parser) -> flow graphs.
//!
//! Every graph built is checked with `check_program_well_formed`. Besides the
//! structure (block counts, which operations appear, variable names), the
//! graphs are run by the object-level interpreter (`rpy_passes::objinterp`), so that
//! control flow (loops, break/continue/else, short-circuits, chained
//! comparisons) is checked against the results CPython gives.

use rpy_ir::ast::Dialect;
use rpy_ir::graph::{Arg, Constant, Flow, FunctionGraph, Program};
use rpy_passes::flow::{build_flow, check_graph_well_formed, check_program_well_formed};
use rpy_passes::objinterp::{ObjInterpreter, ObjValue as Val};
use rpy_passes::parse::parse_module;

const TARGET: &str = "\ndef target(*args):\n    return entry_point, None\n";

fn try_flow(src: &str, dialect: Dialect) -> Result<Program<Flow>, Vec<String>> {
    let m = parse_module("t.py", src, dialect).unwrap_or_else(|e| panic!("parse error:\n{e}"));
    match build_flow(&m, src) {
        Ok(p) => {
            if let Err(errs) = check_program_well_formed(&p) {
                panic!("ill-formed program:\n{}", errs.join("\n"));
            }
            for g in &p.graphs {
                check_graph_well_formed(g).unwrap();
            }
            Ok(p)
        }
        Err(d) => Err(d
            .0
            .iter()
            .map(|d| format!("{}:{}:{}: {}", d.file, d.pos.line, d.pos.col, d.message))
            .collect()),
    }
}

fn flow2(src: &str) -> Program<Flow> {
    try_flow(src, Dialect::Py2).unwrap_or_else(|e| panic!("{}", e.join("\n")))
}

fn flow3(src: &str) -> Program<Flow> {
    try_flow(src, Dialect::Py3).unwrap_or_else(|e| panic!("{}", e.join("\n")))
}

fn errors2(src: &str) -> Vec<String> {
    match try_flow(src, Dialect::Py2) {
        Ok(_) => panic!("expected diagnostics"),
        Err(e) => e,
    }
}

fn errors3(src: &str) -> Vec<String> {
    match try_flow(src, Dialect::Py3) {
        Ok(_) => panic!("expected diagnostics"),
        Err(e) => e,
    }
}

fn ops(g: &FunctionGraph<Flow>) -> Vec<String> {
    g.blocks
        .iter()
        .flat_map(|b| b.operations.iter().map(|o| o.opname.clone()))
        .collect()
}

fn count_op(g: &FunctionGraph<Flow>, name: &str) -> usize {
    ops(g).iter().filter(|o| *o == name).count()
}

/// Blocks other than the return and except blocks (graphs are canonical, so
/// all are reachable).
fn nblocks(g: &FunctionGraph<Flow>) -> usize {
    g.blocks.len() - 2
}

// ---------------------------------------------------------------------------
// Running graphs: the object-level interpreter (rpy_passes::objinterp).

/// The dialect a program was built for: only Python 3 emits `truediv`.
fn dialect_of(p: &Program<Flow>) -> Dialect {
    let py3 = p.graphs.iter().any(|g| count_op(g, "truediv") > 0);
    if py3 {
        Dialect::Py3
    } else {
        Dialect::Py2
    }
}

/// Calls `func` of the program with int arguments; returns (result, output).
fn run(p: &Program<Flow>, func: &str, args: &[i64]) -> (Val, String) {
    let mut out = Vec::new();
    let r = ObjInterpreter::new(p, dialect_of(p))
        .with_step_limit(1_000_000)
        .call(func, args.iter().map(|a| Val::Int(*a)).collect(), &mut out)
        .unwrap_or_else(|e| panic!("{func}{args:?}: {e}"));
    (r, String::from_utf8(out).unwrap())
}

fn run_int(p: &Program<Flow>, func: &str, args: &[i64]) -> i64 {
    match run(p, func, args).0 {
        Val::Int(i) => i,
        Val::Bool(b) => b as i64,
        other => panic!("{func}{args:?} returned {other:?}"),
    }
}

// ---------------------------------------------------------------------------
// Programs

const FIB: &str = "
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def entry_point(argv):
    print fib(10)
    return 0
";

#[test]
fn fib_graph_and_result() {
    let p = flow2(&format!("{FIB}{TARGET}"));
    assert_eq!(p.entry, "entry_point");
    assert_eq!(p.path, "t.py");
    assert!(p.types.is_empty());
    let names: Vec<&str> = p.graphs.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["entry_point", "fib"]);
    let fib = p.graph("fib").unwrap();
    // start (lt, switch) and the recursive case; `return n` is a link.
    assert_eq!(nblocks(fib), 2);
    let start = fib.block(fib.startblock);
    assert_eq!(start.operations.len(), 1);
    assert_eq!(start.operations[0].opname, "lt");
    // The comparison is switched on directly, without a bool().
    assert_eq!(start.exitswitch, Some(Arg::Var(start.operations[0].result)));
    let cases: Vec<_> = start.exits.iter().map(|l| l.exitcase.clone()).collect();
    assert_eq!(
        cases,
        [Some(Constant::Bool(false)), Some(Constant::Bool(true))]
    );
    assert_eq!(count_op(fib, "bool"), 0);
    assert_eq!(count_op(fib, "simple_call"), 2);
    assert_eq!(count_op(fib, "sub"), 2);
    assert_eq!(count_op(fib, "add"), 1);
    for n in 0..15 {
        let want = [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377][n as usize];
        assert_eq!(run_int(&p, "fib", &[n]), want);
    }
    let (r, out) = run(&p, "entry_point", &[0]);
    assert_eq!(r, Val::Int(0));
    assert_eq!(out, "55\n");
    // Positions: the graph's def and each operation's expression.
    assert_eq!(fib.pos.map(|p| (p.line, p.col)), Some((2, 1)));
    assert_eq!(
        start.operations[0].pos.map(|p| (p.line, p.col)),
        Some((3, 8))
    );
}

const COLLATZ: &str = "
def chain_length(n):
    steps = 1
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps

def entry_point(argv):
    best = 1
    best_len = 1
    for i in xrange(1, 30):
        length = chain_length(i)
        if length > best_len:
            best = i
            best_len = length
    print best, best_len
    return 0
";

#[test]
fn collatz() {
    let p = flow2(&format!("{COLLATZ}{TARGET}"));
    let g = p.graph("chain_length").unwrap();
    assert_eq!(run_int(&p, "chain_length", &[1]), 1);
    assert_eq!(run_int(&p, "chain_length", &[27]), 112);
    assert_eq!(run_int(&p, "chain_length", &[97]), 119);
    // start -> header (ne, switch) -> body (mod, eq, switch) -> two arms -> join
    // -> back to the header.
    assert_eq!(nblocks(g), 6);
    let header = g.block(g.block(g.startblock).exits[0].target);
    let names: Vec<_> = header
        .inputargs
        .iter()
        .map(|v| g.vars[v.0 as usize].name.clone())
        .collect();
    assert_eq!(names, [Some("n".to_string()), Some("steps".to_string())]);
    let (_, out) = run(&p, "entry_point", &[0]);
    assert_eq!(out, "27 112\n");
}

#[test]
fn constants_stay_constant_through_loops() {
    let src = format!(
        "
def f(n):
    step = 3
    total = 0
    while total < n:
        total += step
    return total

def entry_point(argv):
    return f(10)
{TARGET}"
    );
    let p = flow2(&src);
    let g = p.graph("f").unwrap();
    // `step` is never reassigned in the loop: the constant 3 is used directly.
    let adds: Vec<_> = g
        .blocks
        .iter()
        .flat_map(|b| &b.operations)
        .filter(|o| o.opname == "add")
        .collect();
    assert_eq!(adds.len(), 1);
    assert_eq!(adds[0].args[1], Arg::Const(Constant::Int(3)));
    assert_eq!(run_int(&p, "f", &[10]), 12);
    assert_eq!(run_int(&p, "f", &[0]), 0);
}

#[test]
fn while_with_break_continue_else() {
    let src = format!(
        "
def f(n, stop):
    i = 0
    total = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if i == stop:
            total += 1000
            break
        total += i
    else:
        total = -total
    return total

def entry_point(argv):
    return f(10, 4)
{TARGET}"
    );
    let p = flow2(&src);
    let py = |n: i64, stop: i64| {
        let (mut i, mut total) = (0, 0);
        let mut broke = false;
        while i < n {
            i += 1;
            if i % 3 == 0 {
                continue;
            }
            if i == stop {
                total += 1000;
                broke = true;
                break;
            }
            total += i;
        }
        if !broke {
            total = -total;
        }
        total
    };
    for n in 0..12 {
        for stop in 0..12 {
            assert_eq!(run_int(&p, "f", &[n, stop]), py(n, stop), "f({n}, {stop})");
        }
    }
}

#[test]
fn while_true_folds_the_condition() {
    let src = format!(
        "
def f(n):
    i = 0
    while True:
        i += 1
        if i > n:
            break
    return i

def entry_point(argv):
    return f(3)
{TARGET}"
    );
    let p = flow2(&src);
    let g = p.graph("f").unwrap();
    assert_eq!(count_op(g, "bool"), 0);
    // The start block and the loop (its header is its body); the break is a
    // link to the return block.
    assert_eq!(nblocks(g), 2);
    assert_eq!(run_int(&p, "f", &[3]), 4);
}

#[test]
fn for_range_loops() {
    let src = format!(
        "
def up(n):
    total = 0
    for i in range(n):
        total += i
    return total

def down(a, b):
    total = 0
    for i in range(a, b, -2):
        total = total * 10 + i
    return total

def skip(n):
    total = 0
    for i in xrange(1, n, 1):
        if i == 3:
            continue
        if i == 7:
            break
        total += i
    else:
        total += 100
    return total

def entry_point(argv):
    return up(5) + down(9, 0) + skip(5)
{TARGET}"
    );
    let p = flow2(&src);
    assert_eq!(run_int(&p, "up", &[5]), 10);
    assert_eq!(run_int(&p, "up", &[0]), 0);
    assert_eq!(run_int(&p, "down", &[9, 0]), 97531);
    assert_eq!(run_int(&p, "down", &[0, 9]), 0);
    assert_eq!(run_int(&p, "skip", &[5]), 1 + 2 + 4 + 100);
    assert_eq!(run_int(&p, "skip", &[20]), 1 + 2 + 4 + 5 + 6);
    let down = p.graph("down").unwrap();
    assert_eq!(count_op(down, "gt"), 1);
    assert_eq!(count_op(down, "lt"), 0);
    let up = p.graph("up").unwrap();
    // The loop variable's value comes from the counter; the counter steps by 1.
    let add_consts: Vec<_> = up
        .blocks
        .iter()
        .flat_map(|b| &b.operations)
        .filter(|o| o.opname == "add")
        .filter_map(|o| o.args[1].as_const().cloned())
        .collect();
    assert_eq!(add_consts, [Constant::Int(1)]);
}

#[test]
fn loop_variable_after_the_loop_might_be_unassigned() {
    let src = format!(
        "
def last(n):
    for i in range(n):
        pass
    return i

def entry_point(argv):
    return last(3)
{TARGET}"
    );
    let errs = errors2(&src);
    assert_eq!(
        errs,
        ["t.py:5:12: local variable 'i' might be used before assignment"]
    );
}

#[test]
fn and_or_values() {
    let src = format!(
        "
def f(a, b, c):
    return a and b or c

def g(a, b):
    x = a or b
    y = a and b
    return x * 100 + y

def entry_point(argv):
    return f(1, 2, 3) + g(0, 5)
{TARGET}"
    );
    let p = flow2(&src);
    for a in 0..3 {
        for b in 0..3 {
            for c in 0..3 {
                let want = if a != 0 && b != 0 { b } else { c };
                // `a and b or c`: `a and b` is a if a is false, else b.
                let ab = if a == 0 { a } else { b };
                let want2 = if ab != 0 { ab } else { c };
                assert_eq!(want, want2);
                assert_eq!(run_int(&p, "f", &[a, b, c]), want2, "f({a},{b},{c})");
            }
            let x = if a != 0 { a } else { b };
            let y = if a != 0 { b } else { a };
            assert_eq!(run_int(&p, "g", &[a, b]), x * 100 + y);
        }
    }
    let g = p.graph("g").unwrap();
    // Each and/or tests its left operand once.
    assert_eq!(count_op(g, "bool"), 2);
}

#[test]
fn conditions_jump_without_materializing() {
    let src = format!(
        "
def f(a, b):
    if a > 0 and not b > 0 or a == b:
        return 1
    return 0

def entry_point(argv):
    return f(1, 2)
{TARGET}"
    );
    let p = flow2(&src);
    let g = p.graph("f").unwrap();
    assert_eq!(count_op(g, "bool"), 0);
    assert_eq!(count_op(g, "not_"), 0);
    for a in -2..3 {
        for b in -2..3 {
            let want = ((a > 0 && b <= 0) || a == b) as i64;
            assert_eq!(run_int(&p, "f", &[a, b]), want, "f({a}, {b})");
        }
    }
}

#[test]
fn chained_comparisons() {
    let src = format!(
        "
def middle(a, b, c):
    return a < b <= c

def check(a, b, c):
    if a < b < c != 5:
        return 1
    return 0

def calls(a):
    return 0 < side(a) < 10

def side(a):
    print a
    return a

def entry_point(argv):
    return middle(1, 2, 3) + check(1, 2, 3) + calls(4)
{TARGET}"
    );
    let p = flow2(&src);
    for a in 0..4 {
        for b in 0..4 {
            for c in 3..7 {
                assert_eq!(run(&p, "middle", &[a, b, c]).0, Val::Bool(a < b && b <= c));
                assert_eq!(
                    run_int(&p, "check", &[a, b, c]),
                    (a < b && b < c && c != 5) as i64
                );
            }
        }
    }
    // The middle operand is evaluated once.
    assert_eq!(run(&p, "calls", &[4]), (Val::Bool(true), "4\n".to_string()));
    assert_eq!(
        run(&p, "calls", &[-4]),
        (Val::Bool(false), "-4\n".to_string())
    );
    let calls = p.graph("calls").unwrap();
    assert_eq!(count_op(calls, "simple_call"), 1);
}

#[test]
fn comparison_ops() {
    let src = format!(
        "
def f(a, b, s):
    x = a is None
    y = a is not b
    z = 'x' in s
    w = 'x' not in s
    return x

def entry_point(argv):
    return f(1, 2, 'abc')
{TARGET}"
    );
    let p = flow2(&src);
    let g = p.graph("f").unwrap();
    assert_eq!(
        ops(g),
        ["is_", "is_", "not_", "contains", "contains", "not_"]
    );
    let contains = &g.block(g.startblock).operations[3];
    // contains(container, item)
    assert_eq!(contains.args[0], Arg::Var(g.params()[2]));
    assert_eq!(contains.args[1], Arg::Const(Constant::Str("x".into())));
}

#[test]
fn if_expression() {
    let src = format!(
        "
def f(a):
    return 10 if a > 0 else -10

def entry_point(argv):
    return f(1)
{TARGET}"
    );
    let p = flow3(&src);
    assert_eq!(run_int(&p, "f", &[3]), 10);
    assert_eq!(run_int(&p, "f", &[-3]), -10);
}

#[test]
fn operation_vocabulary() {
    let src = format!(
        "
def f(a, b):
    x = a + b - a * b
    x = x / b + a // b + a % b + a ** 2
    x = (a << 1) + (a >> 1) + (a & b) + (a | b) + (a ^ b)
    x = -a + +a + ~a
    y = not a
    a += 1
    a -= 1
    a *= 2
    a //= 2
    a /= 2
    a %= 2
    return x

def entry_point(argv):
    return f(1, 2)
{TARGET}"
    );
    let p2 = flow2(&src);
    let g = p2.graph("f").unwrap();
    assert_eq!(
        ops(g),
        [
            "add", "mul", "sub", "div", "floordiv", "add", "mod", "add", "pow", "add", "lshift",
            "rshift", "add", "and_", "add", "or_", "add", "xor", "add", "neg", "pos", "add",
            "invert", "add", "not_", "add", "sub", "mul", "floordiv", "div", "mod"
        ]
    );
    let p3 = flow3(&src);
    let g3 = p3.graph("f").unwrap();
    assert_eq!(count_op(g3, "truediv"), 2);
    assert_eq!(count_op(g3, "div"), 0);
}

#[test]
fn constant_folding() {
    let src = format!(
        "
N = 10
NEG = -N
def f(a):
    x = 2 * 3 + N
    if 0:
        x = a
    if x > 15:
        x += 1
    y = -7 // 2
    z = 1 << 70
    w = 5 // 0
    return x + y + NEG

def entry_point(argv):
    return f(1)
{TARGET}"
    );
    let p = flow2(&src);
    let g = p.graph("f").unwrap();
    // Only the unfoldable operations remain: 1 << 70 overflows, 5 // 0 raises.
    assert_eq!(ops(g), ["lshift", "floordiv"]);
    assert_eq!(nblocks(g), 1);
    let ret = &g.block(g.startblock).exits[0];
    assert_eq!(ret.target, g.returnblock);
    assert_eq!(ret.args, [Arg::Const(Constant::Int(17 - 4 - 10))]);
}

#[test]
fn joins_keep_equal_constants() {
    let src = format!(
        "
def f(a):
    if a:
        x = 1
        y = 2
    else:
        x = 1
        y = 3
    return x + y

def entry_point(argv):
    return f(1)
{TARGET}"
    );
    let p = flow2(&src);
    let g = p.graph("f").unwrap();
    let add = g
        .blocks
        .iter()
        .flat_map(|b| &b.operations)
        .find(|o| o.opname == "add")
        .unwrap();
    assert_eq!(add.args[0], Arg::Const(Constant::Int(1)));
    assert_eq!(run_int(&p, "f", &[1]), 3);
    assert_eq!(run_int(&p, "f", &[0]), 4);
}

#[test]
fn prints_py2() {
    let src = format!(
        "
def f(a):
    print a, 'x', a + 1
    print
    print 'line\\n', a
    return 0

def entry_point(argv):
    return f(7)
{TARGET}"
    );
    let p = flow2(&src);
    let (_, out) = run(&p, "f", &[7]);
    // Python 2: no softspace after a string ending in a newline.
    assert_eq!(out, "7 x 8\n\nline\n7\n");
    let g = p.graph("f").unwrap();
    assert_eq!(count_op(g, "print_item"), 10);
}

#[test]
fn prints_py3() {
    let src = format!(
        "
def f(a):
    print(a, 'x', a + 1)
    print()
    print(a, a, sep='-', end='!')
    print('line\\n', a, sep=None)
    return 0

def entry_point(argv):
    return f(7)
{TARGET}"
    );
    let p = flow3(&src);
    let (_, out) = run(&p, "f", &[7]);
    assert_eq!(out, "7 x 8\n\n7-7!line\n 7\n");
}

#[test]
fn print_function_from_future_in_py2() {
    let src = format!(
        "from __future__ import print_function
def f(a):
    print(a, a, sep='')
    return 0

def entry_point(argv):
    return f(4)
{TARGET}"
    );
    let p = flow2(&src);
    assert_eq!(run(&p, "f", &[4]).1, "44\n");
}

#[test]
fn calls_and_discovery_order() {
    let src = format!(
        "
import sys

def unused():
    return 1

def c():
    return 3

def b():
    return c() + a()

def a():
    return c()

def entry_point(argv):
    x = len(argv)
    return b() + a() + abs(-x)

if __name__ == '__main__':
    entry_point(sys.argv)
{TARGET}"
    );
    let p = flow2(&src);
    let names: Vec<&str> = p.graphs.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["entry_point", "b", "a", "c"]);
    let e = p.graph("entry_point").unwrap();
    let calls: Vec<_> = e
        .blocks
        .iter()
        .flat_map(|b| &b.operations)
        .filter(|o| o.opname == "simple_call")
        .map(|o| o.args[0].clone())
        .collect();
    assert_eq!(
        calls,
        [
            Arg::Const(Constant::Builtin("len".into())),
            Arg::Const(Constant::Func("b".into())),
            Arg::Const(Constant::Func("a".into())),
            Arg::Const(Constant::Builtin("abs".into())),
        ]
    );
}

#[test]
fn subscripts_and_attributes() {
    let src = format!(
        "
def f(l, o):
    l[0] = l[1]
    l[2] += 1
    o.x = o.y
    return l[0]

def entry_point(argv):
    return f(argv, argv)
{TARGET}"
    );
    let p = flow2(&src);
    let g = p.graph("f").unwrap();
    assert_eq!(
        ops(g),
        ["getitem", "setitem", "getitem", "add", "setitem", "getattr", "setattr", "getitem"]
    );
    let getattr = &g.block(g.startblock).operations[5];
    assert_eq!(getattr.args[1], Arg::Const(Constant::Name("y".into())));
}

#[test]
fn variables_carry_local_names() {
    let src = format!(
        "
def f(n):
    total = n * 2
    if total > 3:
        total = total - 1
    return total

def entry_point(argv):
    return f(1)
{TARGET}"
    );
    let p = flow2(&src);
    let g = p.graph("f").unwrap();
    let start = g.block(g.startblock);
    assert_eq!(
        g.vars[start.inputargs[0].0 as usize].name.as_deref(),
        Some("n")
    );
    assert_eq!(
        g.vars[start.operations[0].result.0 as usize]
            .name
            .as_deref(),
        Some("total")
    );
    let join = g
        .blocks
        .iter()
        .find(|b| b.exits.len() == 1 && b.exits[0].target == g.returnblock)
        .unwrap();
    assert_eq!(
        g.vars[join.inputargs[1].0 as usize].name.as_deref(),
        Some("total")
    );
}

#[test]
fn module_constants_and_globals() {
    let src = format!(
        "
'''docstring'''
LIMIT = 100
NAME = 'rpy'
RATE = -0.5
FLAG = True
NOTHING = None

def f(a):
    global LIMIT
    if FLAG and a < LIMIT:
        return NAME
    return NOTHING

def entry_point(argv):
    f(1)
    return 0
{TARGET}"
    );
    let p = flow2(&src);
    let g = p.graph("f").unwrap();
    let start = g.block(g.startblock);
    assert_eq!(start.operations[0].opname, "lt");
    assert_eq!(start.operations[0].args[1], Arg::Const(Constant::Int(100)));
    assert_eq!(run(&p, "f", &[1]).0, Val::str("rpy"));
    assert_eq!(run(&p, "f", &[100]).0, Val::None);
}

#[test]
fn dead_code_after_return_and_constant_branches_is_not_built() {
    let src = format!(
        "
def f(a):
    if 1:
        return a
    print a
    return 0

def g(a):
    while 0:
        a += 1
    else:
        a = 5
    return a

def entry_point(argv):
    return f(1) + g(2)
{TARGET}"
    );
    let p = flow2(&src);
    let f = p.graph("f").unwrap();
    assert_eq!(nblocks(f), 1);
    assert!(ops(f).is_empty());
    let g = p.graph("g").unwrap();
    assert!(ops(g).is_empty());
    assert_eq!(run_int(&p, "g", &[2]), 5);
}

#[test]
fn nested_loops() {
    let src = format!(
        "
def f(n):
    count = 0
    for i in range(n):
        j = 0
        while True:
            j += 1
            if j > i:
                break
            if (i + j) % 2:
                continue
            for k in range(j, 0, -1):
                if k == 3:
                    break
                count += k
            else:
                count += 100
    return count

def entry_point(argv):
    return f(6)
{TARGET}"
    );
    let p = flow2(&src);
    let py = |n: i64| {
        let mut count = 0;
        for i in 0..n {
            let mut j = 0;
            loop {
                j += 1;
                if j > i {
                    break;
                }
                if (i + j) % 2 != 0 {
                    continue;
                }
                let mut broke = false;
                let mut k = j;
                while k > 0 {
                    if k == 3 {
                        broke = true;
                        break;
                    }
                    count += k;
                    k -= 1;
                }
                if !broke {
                    count += 100;
                }
            }
        }
        count
    };
    for n in 0..8 {
        assert_eq!(run_int(&p, "f", &[n]), py(n), "f({n})");
    }
}

#[test]
fn short_circuits_inside_expressions_keep_pending_values() {
    let src = format!(
        "
def f(a, b):
    return a * 10 + (b or 7) + (a and 100)

def g(a, b):
    return add3(a, b > 0 and b, 1 if a else 2)

def add3(x, y, z):
    return x * 100 + y * 10 + z

def entry_point(argv):
    return f(1, 0) + g(1, 2)
{TARGET}"
    );
    let p = flow2(&src);
    for a in 0..3 {
        for b in -1..3 {
            let f = a * 10 + (if b != 0 { b } else { 7 }) + (if a != 0 { 100 } else { a });
            assert_eq!(run_int(&p, "f", &[a, b]), f, "f({a}, {b})");
            let y = if b > 0 { b } else { 0 };
            let z = if a != 0 { 1 } else { 2 };
            assert_eq!(
                run_int(&p, "g", &[a, b]),
                a * 100 + y * 10 + z,
                "g({a}, {b})"
            );
        }
    }
}

#[test]
fn print_graph_text() {
    let src = format!(
        "
def sign(n):
    if n < 0:
        return -1
    elif n == 0:
        return 0
    return 1

def entry_point(argv):
    return sign(len(argv))
{TARGET}"
    );
    let p = flow2(&src);
    let text = rpy_ir::text::print_program(&p);
    let want = "entry entry_point

graph entry_point(argv_0) {
  block0(argv_0):
    v1 = simple_call($len, argv_0)
    v2 = simple_call(@sign, v1)
    -> return(v2)
  returns v3
  raises v4, v5
}

graph sign(n_0) {
  block0(n_0):
    v1 = lt(n_0, 0)
    switch v1
      False -> block1(n_0)
      True -> return(-1)
  block1(n_2):
    v3 = eq(n_2, 0)
    switch v3
      False -> return(1)
      True -> return(0)
  returns v4
  raises v5, v6
}
";
    assert_eq!(text, want);
    // The text parses back to the same program.
    let back: Program<Flow> = rpy_ir::text::parse_program(&text).unwrap();
    assert_eq!(rpy_ir::text::print_program(&back), text);
}

#[test]
fn print_loop_graph_text() {
    let src = format!(
        "
def total(n):
    s = 0
    for i in range(1, n):
        if i % 2:
            continue
        s += i
    return s

def entry_point(argv):
    return total(10)
{TARGET}"
    );
    let p = flow3(&src);
    let text = rpy_ir::text::print_graph(p.graph("total").unwrap());
    // The loop's bound (here the parameter n) and counter travel with the
    // locals; the counter steps before the body runs.
    let want = "graph total(n_0) {
  block0(n_0):
    -> block1(n_0, 0, n_0, 1)
  block1(n_1, s_2, v3, v4):
    v5 = lt(v4, v3)
    switch v5
      False -> return(s_2)
      True -> block2(n_1, s_2, v3, v4)
  block2(n_6, s_7, v8, i_9):
    v10 = add(i_9, 1)
    v11 = mod(i_9, 2)
    v12 = bool(v11)
    switch v12
      False -> block3(n_6, s_7, i_9, v8, v10)
      True -> block1(n_6, s_7, v8, v10)
  block3(n_13, s_14, i_15, v16, v17):
    s_18 = add(s_14, i_15)
    -> block1(n_13, s_18, v16, v17)
  returns v19
  raises v20, v21
}
";
    assert_eq!(text, want);
}

// ---------------------------------------------------------------------------
// Diagnostics

#[test]
fn diagnostic_undefined_and_unassigned_names() {
    let src = format!(
        "
def f(a):
    if a:
        x = 1
    y = x + z
    return w
    w = 1

def entry_point(argv):
    return f(1)
{TARGET}"
    );
    assert_eq!(
        errors2(&src),
        [
            "t.py:5:9: local variable 'x' might be used before assignment",
            "t.py:5:13: name 'z' is not defined",
            "t.py:6:12: local variable 'w' is referenced before assignment",
        ]
    );
}

#[test]
fn diagnostics_for_constructs_outside_the_subset_are_all_reported() {
    let src = format!(
        "
def f(a, b=1, *rest):
    class A(object):
        pass
    def g():
        return 1
    try:
        a = a + 1
    except ValueError:
        pass
    l = [1, 2]
    t = (a, b)
    d = {{1: 2}}
    s = a[1:2]
    c = [x for x in l]
    h = lambda q: q
    del l
    assert a
    raise ValueError
    return a

def entry_point(argv):
    return f(1)
{TARGET}"
    );
    let errs = errors2(&src);
    let want = [
        "t.py:2:12: the default value of parameter 'b': default argument values are not supported yet (walking skeleton)",
        "t.py:2:1: the *rest parameter of 'f': *args parameters are not supported yet (walking skeleton)",
        "t.py:3:5: class definitions are not supported yet (walking skeleton)",
        "t.py:5:5: nested function definitions are not supported yet (walking skeleton)",
        "t.py:7:5: try statements are not supported yet (walking skeleton)",
        "t.py:11:9: list literals are not supported yet (walking skeleton)",
        "t.py:12:9: tuples are not supported yet (walking skeleton)",
        "t.py:13:9: dict literals are not supported yet (walking skeleton)",
        "t.py:14:9: slicing is not supported yet (walking skeleton)",
        "t.py:15:9: list comprehensions are not supported yet (walking skeleton)",
        "t.py:16:9: lambda expressions are not supported yet (walking skeleton)",
        "t.py:17:5: del statements are not supported yet (walking skeleton)",
        "t.py:18:5: assert statements are not supported yet (walking skeleton)",
        "t.py:19:5: raise statements are not supported yet (walking skeleton)",
    ];
    let mut sorted_want: Vec<&str> = want.to_vec();
    sorted_want.sort_by_key(|s| {
        let mut parts = s.split(':').skip(1);
        let line: u32 = parts.next().unwrap().parse().unwrap();
        let col: u32 = parts.next().unwrap().parse().unwrap();
        (line, col)
    });
    assert_eq!(errs, sorted_want);
}

#[test]
fn diagnostics_for_for_loops() {
    let src = format!(
        "
def f(a, s):
    for i in range(0, 10, a):
        pass
    for i in range(0, 10, 0):
        pass
    for c in s:
        pass
    for i, j in range(3):
        pass
    for i in range():
        pass
    return 0

def entry_point(argv):
    return f(1, 'x')
{TARGET}"
    );
    assert_eq!(
        errors3(&src),
        [
            "t.py:3:27: range() step must be a constant integer in RPython",
            "t.py:5:27: range() step must not be zero",
            "t.py:7:14: for loops over anything but range() or xrange() are not supported yet (walking skeleton)",
            "t.py:9:9: for loop targets other than a single name are not supported yet (walking skeleton)",
            "t.py:11:14: range() takes from 1 to 3 arguments but 0 were given",
        ]
    );
}

#[test]
fn diagnostics_for_calls() {
    let src = format!(
        "
N = 3

def two(a, b):
    return a + b

def f(a):
    x = two(a)
    y = len(a, a)
    z = isinstance(a, int)
    w = two(a, b=2)
    v = N(1)
    r = range(3)
    return x

def entry_point(argv):
    return f(1)
{TARGET}"
    );
    assert_eq!(
        errors2(&src),
        [
            "t.py:8:9: two() takes exactly 2 arguments (1 given)",
            "t.py:9:9: len() takes exactly 1 argument (2 given)",
            "t.py:10:9: the builtin 'isinstance' is not supported yet (walking skeleton)",
            "t.py:11:9: two() takes exactly 2 arguments (1 given)",
            "t.py:11:18: keyword arguments in calls are not supported yet (walking skeleton)",
            "t.py:12:9: this value is not callable",
            "t.py:13:9: range() is only supported as the iterable of a for loop in this stage (walking skeleton)",
        ]
    );
}

#[test]
fn diagnostics_for_globals_and_prints() {
    let src = format!(
        "
COUNT = 0

def f(a):
    global COUNT
    COUNT = a
    print a,
    return COUNT

def entry_point(argv):
    return f(1)
{TARGET}"
    );
    assert_eq!(
        errors2(&src),
        [
            "t.py:6:5: cannot assign to the global 'COUNT': module globals are constants in RPython",
            "t.py:7:5: print with a trailing comma is not supported yet (walking skeleton): Python 2's softspace behaviour is not modelled",
        ]
    );
}

#[test]
fn diagnostics_at_module_level() {
    let src = "
import math
from rpython.rlib.jit import JitDriver
TABLE = [1, 2]
for i in range(3):
    pass
class A(object):
    pass
print 'hello'

def entry_point(argv):
    return 0

def target(*args):
    return entry_point
";
    assert_eq!(
        errors2(src),
        [
            "t.py:2:1: importing 'math' is not supported yet (walking skeleton); only 'sys' and 'os' may be imported",
            "t.py:3:1: importing from 'rpython.rlib.jit' is not supported yet (walking skeleton); only 'sys', 'os' and '__future__' may be imported",
            "t.py:4:9: module-level assignments must assign a constant (an int, float, str, bool or None) in this stage; other module-level values are not supported yet (walking skeleton)",
            "t.py:5:1: module-level loops are not supported yet (walking skeleton)",
            "t.py:7:1: class definitions are not supported yet (walking skeleton)",
            "t.py:9:1: module-level print statements are not supported yet (walking skeleton)",
        ]
    );
}

#[test]
fn diagnostics_for_the_target_function() {
    let none = "def entry_point(argv):\n    return 0\n";
    assert_eq!(
        errors2(none),
        ["t.py:1:1: the module defines no function 'target'; a program must define `target(driver, args)` returning its entry point function"]
    );
    let bad = "X = 1\ndef entry_point(argv):\n    return 0\ndef target(*args):\n    return X\n";
    assert_eq!(
        errors2(bad),
        ["t.py:5:12: 'target' returns 'X', which is not a function defined at module level"]
    );
    let expr = "def target(*args):\n    return 1 + 2\n";
    assert_eq!(
        errors3(expr),
        ["t.py:2:12: 'target' must return the entry point function by its module-level name (`return entry_point` or `return entry_point, None`)"]
    );
}

#[test]
fn diagnostic_display_has_file_line_and_caret() {
    let src = format!("def entry_point(argv):\n    return argv + undefined_name\n{TARGET}");
    let m = parse_module("prog.py", &src, Dialect::Py3).unwrap();
    let d = build_flow(&m, &src).unwrap_err();
    assert_eq!(
        d.to_string(),
        "prog.py:2:19: error: name 'undefined_name' is not defined\n 2 |     return argv + undefined_name\n   |                   ^"
    );
}

#[test]
fn unreachable_functions_are_not_checked() {
    let src = format!(
        "
def broken():
    return [1, 2, 3]

def entry_point(argv):
    return 0
{TARGET}"
    );
    let p = flow2(&src);
    assert_eq!(p.graphs.len(), 1);
}

// ---------------------------------------------------------------------------
// The project's test programs all build and are well formed.

#[test]
fn project_test_programs_build() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs");
    let mut n = 0;
    for (dir, dialect) in [("py2", Dialect::Py2), ("py3", Dialect::Py3)] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("py") {
                continue;
            }
            let src = std::fs::read_to_string(&path).unwrap();
            let name = path.display().to_string();
            let m = parse_module(&name, &src, dialect).unwrap_or_else(|e| panic!("{e}"));
            let p = build_flow(&m, &src).unwrap_or_else(|e| panic!("{e}"));
            check_program_well_formed(&p).unwrap_or_else(|e| panic!("{name}: {e:?}"));
            n += 1;
        }
    }
    assert!(n > 0 || !root.exists());
}

// ---------------------------------------------------------------------------
// Random ASTs: the builder never panics, never reports an internal error, and
// every program it accepts is well formed.

mod random_ast {
    use rpy_ir::ast::*;
    use rpy_ir::diag::Pos;

    pub struct Rng(u64);

    impl Rng {
        pub fn new(seed: u64) -> Rng {
            Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
        }
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        pub fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
            xs[self.below(xs.len())]
        }
    }

    const NAMES: &[&str] = &[
        "a",
        "b",
        "x",
        "y",
        "i",
        "helper",
        "entry_point",
        "K",
        "len",
        "range",
        "print",
        "sys",
        "abs",
        "undefined",
    ];

    fn pos(r: &mut Rng) -> Pos {
        Pos::new(1 + r.below(20) as u32, 1 + r.below(30) as u32)
    }

    fn e(r: &mut Rng, kind: ExprKind) -> Expr {
        Expr { pos: pos(r), kind }
    }

    pub fn expr(r: &mut Rng, depth: u32) -> Expr {
        let leaf = depth == 0 || r.below(3) == 0;
        if leaf {
            let kind = match r.below(7) {
                0 => ExprKind::Int(r.next() as i64 % 7 - 2),
                1 => ExprKind::Int([i64::MIN, i64::MAX, 0, -1, 64][r.below(5)]),
                2 => ExprKind::Bool(r.below(2) == 0),
                3 => ExprKind::None,
                4 => ExprKind::Str(["", "s", "\n"][r.below(3)].to_string()),
                5 => ExprKind::Float(0.5),
                _ => ExprKind::Name(r.pick(NAMES).to_string()),
            };
            return e(r, kind);
        }
        let d = depth - 1;
        let bin = [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Div,
            BinOp::FloorDiv,
            BinOp::Mod,
            BinOp::Pow,
            BinOp::LShift,
            BinOp::RShift,
            BinOp::BitAnd,
            BinOp::BitOr,
            BinOp::BitXor,
        ];
        let cmp = [
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Gt,
            CmpOp::Ge,
            CmpOp::Is,
            CmpOp::IsNot,
            CmpOp::In,
            CmpOp::NotIn,
        ];
        let un = [UnaryOp::Neg, UnaryOp::Pos, UnaryOp::Not, UnaryOp::Invert];
        let kind = match r.below(16) {
            0 | 1 => ExprKind::BinOp {
                op: bin[r.below(bin.len())],
                left: Box::new(expr(r, d)),
                right: Box::new(expr(r, d)),
            },
            2 => ExprKind::UnaryOp {
                op: un[r.below(un.len())],
                operand: Box::new(expr(r, d)),
            },
            3 | 4 => ExprKind::BoolOp {
                op: if r.below(2) == 0 {
                    BoolOp::And
                } else {
                    BoolOp::Or
                },
                values: (0..2 + r.below(2)).map(|_| expr(r, d)).collect(),
            },
            5 | 6 => ExprKind::Compare {
                left: Box::new(expr(r, d)),
                ops: (0..1 + r.below(3))
                    .map(|_| (cmp[r.below(cmp.len())], expr(r, d)))
                    .collect(),
            },
            7 | 8 => ExprKind::Call {
                func: Box::new(name_expr(r, NAMES)),
                args: (0..r.below(3)).map(|_| expr(r, d)).collect(),
                keywords: if r.below(6) == 0 {
                    vec![Keyword {
                        name: ["sep", "end", "k"][r.below(3)].to_string(),
                        value: expr(r, 0),
                    }]
                } else {
                    Vec::new()
                },
                star_args: if r.below(10) == 0 {
                    Some(Box::new(expr(r, 0)))
                } else {
                    None
                },
                kwargs: None,
            },
            9 => ExprKind::Attribute {
                value: Box::new(expr(r, d)),
                attr: "f".into(),
            },
            10 => ExprKind::Subscript {
                value: Box::new(expr(r, d)),
                index: Box::new(expr(r, d)),
            },
            11 => ExprKind::IfExp {
                test: Box::new(expr(r, d)),
                body: Box::new(expr(r, d)),
                orelse: Box::new(expr(r, d)),
            },
            12 => ExprKind::Tuple(vec![expr(r, d), expr(r, d)]),
            13 => ExprKind::List(vec![expr(r, d)]),
            14 => ExprKind::Slice {
                value: Box::new(expr(r, d)),
                lower: None,
                upper: Some(Box::new(expr(r, d))),
            },
            _ => ExprKind::Lambda {
                params: Vec::new(),
                star_args: None,
                kwonly: Vec::new(),
                kwargs: None,
                body: Box::new(expr(r, d)),
            },
        };
        e(r, kind)
    }

    fn target(r: &mut Rng) -> Expr {
        match r.below(8) {
            0 => {
                let value = Box::new(expr(r, 1));
                let index = Box::new(expr(r, 1));
                e(r, ExprKind::Subscript { value, index })
            }
            1 => {
                let value = Box::new(expr(r, 1));
                e(
                    r,
                    ExprKind::Attribute {
                        value,
                        attr: "f".into(),
                    },
                )
            }
            2 => {
                let items = vec![expr(r, 0), expr(r, 0)];
                e(r, ExprKind::Tuple(items))
            }
            _ => name_expr(r, &["a", "b", "x", "y", "i", "K"]),
        }
    }

    fn s(r: &mut Rng, kind: StmtKind) -> Stmt {
        Stmt { pos: pos(r), kind }
    }

    fn name_expr(r: &mut Rng, pool: &[&str]) -> Expr {
        let n = r.pick(pool).to_string();
        e(r, ExprKind::Name(n))
    }

    fn stmts_r(r: &mut Rng, depth: u32, min: usize, extra: usize) -> Vec<Stmt> {
        let n = min + r.below(extra);
        stmts(r, depth, n)
    }

    pub fn stmts(r: &mut Rng, depth: u32, n: usize) -> Vec<Stmt> {
        (0..n).map(|_| stmt(r, depth)).collect()
    }

    fn stmt(r: &mut Rng, depth: u32) -> Stmt {
        let d = depth.saturating_sub(1);
        let choice = if depth == 0 { r.below(8) } else { r.below(17) };
        let kind = match choice {
            0 | 1 => StmtKind::Assign {
                targets: (0..1 + r.below(2)).map(|_| target(r)).collect(),
                value: expr(r, 2),
            },
            2 => StmtKind::AugAssign {
                target: target(r),
                op: BinOp::Add,
                value: expr(r, 2),
            },
            3 => StmtKind::Return(if r.below(2) == 0 {
                Some(expr(r, 2))
            } else {
                None
            }),
            4 => StmtKind::Print {
                values: (0..r.below(3)).map(|_| expr(r, 1)).collect(),
                newline: r.below(5) != 0,
            },
            5 => [StmtKind::Break, StmtKind::Continue, StmtKind::Pass][r.below(3)].clone(),
            6 => StmtKind::Expr(expr(r, 2)),
            7 => StmtKind::Global(vec!["K".into()]),
            8 | 9 => StmtKind::If {
                test: expr(r, 2),
                body: stmts_r(r, d, 1, 3),
                orelse: stmts_r(r, d, 0, 3),
            },
            10 | 11 => StmtKind::While {
                test: expr(r, 2),
                body: stmts_r(r, d, 1, 3),
                orelse: stmts_r(r, d, 0, 2),
            },
            12 | 13 => {
                let nargs = 1 + r.below(3);
                let args = (0..nargs).map(|_| expr(r, 1)).collect();
                let func = name_expr(r, &["range", "xrange", "len"]);
                let iter = e(
                    r,
                    ExprKind::Call {
                        func: Box::new(func),
                        args,
                        keywords: Vec::new(),
                        star_args: None,
                        kwargs: None,
                    },
                );
                StmtKind::For {
                    target: target(r),
                    iter,
                    body: stmts_r(r, d, 1, 3),
                    orelse: stmts_r(r, d, 0, 2),
                }
            }
            14 => StmtKind::Try {
                body: stmts(r, d, 1),
                handlers: Vec::new(),
                orelse: Vec::new(),
                finalbody: stmts(r, d, 1),
            },
            15 => StmtKind::FunctionDef {
                name: "inner".into(),
                params: Vec::new(),
                star_args: None,
                kwonly: Vec::new(),
                kwargs: None,
                decorators: Vec::new(),
                body: stmts(r, d, 1),
            },
            _ => StmtKind::Assert {
                test: expr(r, 1),
                msg: None,
            },
        };
        s(r, kind)
    }

    fn def(r: &mut Rng, name: &str, params: &[&str]) -> Stmt {
        let body = stmts_r(r, 3, 2, 5);
        s(
            r,
            StmtKind::FunctionDef {
                name: name.into(),
                params: params
                    .iter()
                    .map(|p| Param {
                        pos: Pos::new(1, 1),
                        name: p.to_string(),
                        default: None,
                        unpack: None,
                    })
                    .collect(),
                star_args: None,
                kwonly: Vec::new(),
                kwargs: None,
                decorators: Vec::new(),
                body,
            },
        )
    }

    pub fn module(r: &mut Rng) -> Module {
        let k = e(r, ExprKind::Name("K".into()));
        let three = e(r, ExprKind::Int(3));
        let mut body = vec![s(
            r,
            StmtKind::Assign {
                targets: vec![k],
                value: three,
            },
        )];
        body.push(def(r, "helper", &["a", "b"]));
        body.push(def(r, "entry_point", &["a"]));
        let ret = e(r, ExprKind::Name("entry_point".into()));
        let tbody = vec![s(r, StmtKind::Return(Some(ret)))];
        body.push(s(
            r,
            StmtKind::FunctionDef {
                name: "target".into(),
                params: Vec::new(),
                star_args: Some("args".into()),
                kwonly: Vec::new(),
                kwargs: None,
                decorators: Vec::new(),
                body: tbody,
            },
        ));
        Module {
            path: "random.py".into(),
            dialect: if r.below(2) == 0 {
                Dialect::Py2
            } else {
                Dialect::Py3
            },
            body,
        }
    }
}

#[test]
fn random_asts_never_break_the_builder() {
    let mut accepted = 0;
    for seed in 0..10000u64 {
        let mut r = random_ast::Rng::new(seed + 1);
        let m = random_ast::module(&mut r);
        let result = std::panic::catch_unwind(|| build_flow(&m, ""));
        let result = result.unwrap_or_else(|_| panic!("seed {seed} panicked:\n{m:#?}"));
        match result {
            Ok(p) => {
                accepted += 1;
                if let Err(e) = check_program_well_formed(&p) {
                    panic!("seed {seed}: {e:?}\n{m:#?}");
                }
            }
            Err(d) => {
                assert!(!d.0.is_empty());
                for x in &d.0 {
                    assert!(
                        !x.message.contains("internal error"),
                        "seed {seed}: {}\n{m:#?}",
                        x.message
                    );
                }
            }
        }
    }
    // Some programs are accepted, so the check of well-formedness means something.
    assert!(accepted > 50, "only {accepted} random programs accepted");
}

#[test]
fn division_follows_the_dialect() {
    let src = format!(
        "
HALF = 7 / 2
def f(a):
    return HALF + a / 2

def entry_point(argv):
    return f(1)
{TARGET}"
    );
    let p2 = flow2(&src);
    let g2 = p2.graph("f").unwrap();
    let op2 = &g2.block(g2.startblock).operations;
    assert_eq!(op2[0].opname, "div");
    assert_eq!(op2[1].args[0], Arg::Const(Constant::Int(3)));
    let p3 = flow3(&src);
    let g3 = p3.graph("f").unwrap();
    let op3 = &g3.block(g3.startblock).operations;
    assert_eq!(op3[0].opname, "truediv");
    assert_eq!(op3[1].args[0], Arg::Const(Constant::Float(3.5)));
}

#[test]
fn print_shadowed_by_a_module_function_is_an_ordinary_call() {
    let src = format!(
        "
def print(x):
    return x

def entry_point(argv):
    print(1)
    return 0
{TARGET}"
    );
    let p = flow3(&src);
    let e = p.graph("entry_point").unwrap();
    assert_eq!(ops(e), ["simple_call"]);
    assert_eq!(p.graphs.len(), 2);
}

/// Full-Python constructs parse, and the flow builder rejects them inside
/// RPython functions at their own position.
#[test]
fn full_python_constructs_are_rejected_inside_functions() {
    let cases: &[(&str, &str)] = &[
        ("def f():\n    yield 1\n", "t.py:2:5: generators ('yield') are not supported yet"),
        (
            "def f(x):\n    with x:\n        pass\n",
            "t.py:2:5: 'with' statements are not supported in RPython functions yet",
        ),
        (
            "def f():\n    exec 'x = 1'\n",
            "t.py:2:5: 'exec' cannot be translated: RPython has no run-time code evaluation",
        ),
        ("def f(x):\n    return {x}\n", "t.py:2:12: sets are not supported by RPython; use a dict"),
        (
            "def f(x):\n    return x[::2]\n",
            "t.py:2:14: slices with a step are not supported by RPython",
        ),
        (
            "def f():\n    return 99999999999999999999\n",
            "t.py:2:12: integer literal too large for a machine word",
        ),
        ("def f(**kw):\n    return 1\n", "t.py:1:1: the **kw parameter of 'f': '**kwargs' parameters are not supported by RPython"),
        (
            "def f((a, b)):\n    return a\n",
            "t.py:1:7: tuple parameters are not supported by RPython; unpack the tuple in the body",
        ),
    ];
    for (src, want) in cases {
        let src = format!("{src}\ndef entry_point(argv):\n    f(1)\n    return 0\n{TARGET}");
        let errs = errors2(&src);
        assert!(errs.iter().any(|e| e == want), "{:?}: {:?}", src, errs);
    }
}
