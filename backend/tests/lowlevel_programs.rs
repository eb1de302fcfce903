//! Hand-written low-level programs (`tests/lowlevel/*.ll`, the text format of
//! `Program<LowLevel>`, with `#` comment lines) with instances, vtables,
//! function pointers, statics and exceptions. Each runs three ways: in the
//! LLInterpreter before the exception transform, in the LLInterpreter after
//! it, and as an executable; the output, the stderr line of an uncaught
//! exception and the exit status must agree, and equal what is expected.
//! The transformed programs are snapshotted.

mod common;

use common::{build, run, Exe};
use rpy_ir::graph::{LowLevel, LowLevelStage, Program};
use rpy_ir::opcode::Opcode;
use rpy_ir::text::{parse_program, print_program};
use rpy_llinterp::LlInterpreter;
use rpy_passes::exceptiontransform;

/// What a run gives: standard output, standard error, exit status.
#[derive(Debug, PartialEq)]
struct Outcome {
    stdout: String,
    stderr: String,
    status: i32,
}

fn outcome(stdout: &str, stderr: &str, status: i32) -> Outcome {
    Outcome {
        stdout: stdout.into(),
        stderr: stderr.into(),
        status,
    }
}

fn load(name: &str) -> Program<LowLevel> {
    let path = format!("{}/tests/lowlevel/{name}.ll", env!("CARGO_MANIFEST_DIR"));
    let text: String = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    parse_program::<LowLevel>(&text).unwrap_or_else(|e| panic!("{path}:{e}"))
}

fn interp<S: LowLevelStage>(p: &Program<S>, args: &[&str]) -> Outcome {
    let mut argv = vec!["prog".to_string()];
    argv.extend(args.iter().map(|a| a.to_string()));
    let mut out = Vec::new();
    let result = LlInterpreter::new(p).run_entry(&argv, &mut out);
    let stdout = String::from_utf8(out).unwrap();
    match result {
        Ok(status) => Outcome {
            stdout,
            stderr: String::new(),
            status: status as i32,
        },
        Err(e) if e.is_fatal() => Outcome {
            stdout,
            stderr: format!("{}\n", e.message),
            status: 1,
        },
        Err(e) => panic!("internal error: {e} ({:?})", e.traceback),
    }
}

/// A program, ready to run three ways.
struct ThreeWay {
    before: Program<LowLevel>,
    after: Program<rpy_ir::graph::ExceptionsExplicit>,
    exe: Exe,
}

impl ThreeWay {
    fn new(name: &str) -> ThreeWay {
        let before = load(name);
        let after = exceptiontransform::transform(before.clone()).unwrap();
        let exe = build(&before, name);
        ThreeWay { before, after, exe }
    }

    /// Runs with `args` every way; each must give `expected`.
    fn check(&self, args: &[&str], expected: &Outcome) {
        assert_eq!(
            &interp(&self.before, args),
            expected,
            "before the transform, {args:?}"
        );
        assert_eq!(
            &interp(&self.after, args),
            expected,
            "after the transform, {args:?}"
        );
        let r = run(&self.exe, args);
        let got = outcome(&r.stdout, &r.stderr, r.status);
        assert_eq!(&got, expected, "the executable, {args:?}");
    }

    fn snapshot(&self, name: &str) {
        insta::assert_snapshot!(name, print_program(&self.after));
    }
}

#[test]
fn virtual_calls_isinstance_and_statics() {
    let t = ThreeWay::new("virtual_calls");
    t.check(
        &[],
        &outcome("42\n49\n1\n0\n43\n1\n21\nabc\n1\n1\n0\nNum\n", "", 0),
    );
    // Nothing raises: the transform adds no test after any call.
    t.snapshot("virtual_calls");
}

#[test]
fn exceptions_caught_up_the_stack_by_class_range() {
    let t = ThreeWay::new("exceptions");
    let common = "1\ncaught __main__.MyError\n42\ncaught ValueError\n-1\n-4\n\
                  caught __main__.MyError\n-2\n51\n2\n-7\n";
    t.check(&[], &outcome(common, "", 0));
    t.check(&["4"], &outcome(&format!("{common}41\n"), "", 3));
    t.check(
        &["2"],
        &outcome(&format!("{common}re-raising\n"), "KeyError\n", 1),
    );
    t.check(&["1"], &outcome(common, "MyError\n", 1));
    t.check(&["3"], &outcome(common, "ValueError\n", 1));
    t.snapshot("exceptions");
}

#[test]
fn uncaught_exceptions_print_their_message() {
    let t = ThreeWay::new("exception_messages");
    t.check(&[], &outcome("start\n", "ValueError: bad value\n", 1));
    t.check(&["a"], &outcome("start\n", "ValueError\n", 1));
    t.check(&["a", "b"], &outcome("start\n", "MyError\n", 1));
    t.check(
        &["a", "b", "c"],
        &outcome("start\n", "MyError: code 4\n", 1),
    );
}

// ------------------------------------------------ random call trees

use common::{func, int, v, Rng, G, T};
use rpy_ir::graph::{Arg, Constant, Link, PrebuiltObject};
use rpy_ir::lltype::{self, ContainerType};

/// The exception classes of the random programs: (name, id range), a tree
/// under `Exception`; class `k` is the vtable static `&k`, and `&(k +
/// CLASSES.len())` a prebuilt instance of it.
const CLASSES: &[(&str, i64, i64)] = &[
    ("Exception", 1, 8),
    ("A", 2, 5),
    ("A1", 3, 4),
    ("A2", 4, 5),
    ("B", 5, 8),
    ("B1", 6, 7),
    ("__main__.B2", 7, 8),
];

fn vtable_static(k: usize) -> Constant {
    Constant::Prebuilt(k as u32)
}

fn vtable(k: usize) -> Arg {
    Arg::Const(vtable_static(k))
}

fn instance(k: usize) -> Arg {
    Arg::Const(Constant::Prebuilt((k + CLASSES.len()) as u32))
}

fn signed_fn() -> T {
    T::parse("Func(Signed -> Signed)").unwrap()
}

/// Builds random programs: scenarios of functions `f<s>_<i>(n) -> Signed`
/// that print, raise on some inputs, and call the later functions of their
/// scenario (directly, or through the static table of every function),
/// with random handlers that add the class id to the result, return, or
/// re-raise.
struct CallTrees {
    rng: Rng,
    graphs: Vec<G>,
    /// Every function, in the order of the static table.
    table: Vec<String>,
}

impl CallTrees {
    /// A graph `name(Signed) -> Signed` (or the entry point) whose except
    /// block takes a class and an instance.
    fn graph(name: &str, param: T) -> (G, rpy_ir::graph::Var) {
        let (mut g, ps) = G::new(name, &[param], T::Signed);
        let except = g.except();
        let raised = g.g.block(except).inputargs.clone();
        for (var, t) in raised.iter().zip([lltype::OBJECT_VTABLE, lltype::OBJECT]) {
            g.g.vars[var.0 as usize].info = T::Ptr(t.into());
        }
        (g, ps[0])
    }

    /// A new block taking (n, acc); returns it and its two variables.
    fn state_block(g: &mut G) -> (rpy_ir::graph::BlockId, Arg, Arg) {
        let (b, vs) = g.block(&[T::Signed, T::Signed]);
        (b, v(vs[0]), v(vs[1]))
    }

    fn call(&mut self, g: &mut G, callee: &str, arg: Arg) -> rpy_ir::graph::Var {
        if self.rng.below(3) == 0 {
            let index = self.table.iter().position(|f| f == callee).unwrap() as i64;
            let table = Arg::Const(Constant::Prebuilt((2 * CLASSES.len()) as u32));
            let f = g.op(Opcode::Getarrayitem, vec![table, int(index)], signed_fn());
            g.op(Opcode::IndirectCall, vec![v(f), arg], T::Signed)
        } else {
            g.op(Opcode::DirectCall, vec![func(callee), arg], T::Signed)
        }
    }

    fn function(&mut self, name: &str, callees: &[String]) -> G {
        let (mut g, param) = Self::graph(name, T::Signed);
        let (first, mut n, mut acc) = Self::state_block(&mut g);
        g.goto(first, vec![v(param), int(1)]);
        g.cur = first;
        for _ in 0..self.rng.below(5) + 1 {
            let (next, nn, nacc) = Self::state_block(&mut g);
            match self.rng.below(4) {
                0 => {
                    g.print_int(acc.clone());
                    g.goto(next, vec![n.clone(), acc.clone()]);
                }
                1 => {
                    let k = self.rng.below(CLASSES.len() as u64) as usize;
                    let m = self.rng.below(4) as i64 + 2;
                    let r = g.op(Opcode::IntPyMod, vec![n.clone(), int(m)], T::Signed);
                    let hit = g.op(Opcode::IntEq, vec![v(r), int(0)], T::Bool);
                    let except = g.except();
                    g.branch(
                        v(hit),
                        (except, vec![vtable(k), instance(k)]),
                        (next, vec![n.clone(), acc.clone()]),
                    );
                }
                _ if !callees.is_empty() => {
                    let callee = &callees[self.rng.below(callees.len() as u64) as usize];
                    let arg = g.op(
                        Opcode::IntAdd,
                        vec![n.clone(), int(self.rng.below(3) as i64)],
                        T::Signed,
                    );
                    let r = self.call(&mut g, callee, v(arg));
                    if self.rng.below(2) == 0 {
                        let acc3 = g.op(Opcode::IntMul, vec![acc.clone(), int(3)], T::Signed);
                        let sum = g.op(Opcode::IntAdd, vec![v(acc3), v(r)], T::Signed);
                        g.goto(next, vec![n.clone(), v(sum)]);
                    } else {
                        self.handlers(&mut g, r, (&n, &acc), next);
                    }
                }
                _ => g.goto(next, vec![n.clone(), acc.clone()]),
            }
            g.cur = next;
            (n, acc) = (nn, nacc);
        }
        let ret = g.ret();
        g.goto(ret, vec![acc]);
        g
    }

    /// Ends the current block, whose last operation is the call giving
    /// `r`, with random handlers; every way on goes to `next(n, acc)`.
    fn handlers(
        &mut self,
        g: &mut G,
        r: rpy_ir::graph::Var,
        (n, acc): (&Arg, &Arg),
        next: rpy_ir::graph::BlockId,
    ) {
        let mut exits = vec![Link::new(
            vec![n.clone(), acc.clone(), v(r)],
            {
                let (normal, vs) = g.block(&[T::Signed, T::Signed, T::Signed]);
                let saved = g.cur;
                g.cur = normal;
                let acc3 = g.op(Opcode::IntMul, vec![v(vs[1]), int(3)], T::Signed);
                let sum = g.op(Opcode::IntAdd, vec![v(acc3), v(vs[2])], T::Signed);
                g.goto(next, vec![v(vs[0]), v(sum)]);
                g.cur = saved;
                normal
            },
            None,
        )];
        for _ in 0..self.rng.below(3) + 1 {
            let k = self.rng.below(CLASSES.len() as u64) as usize;
            let et = g.g.new_var(None, T::Ptr(lltype::OBJECT_VTABLE.into()));
            let ev = g.g.new_var(None, T::Ptr(lltype::OBJECT.into()));
            let mut link = match self.rng.below(3) {
                0 => Link::new(vec![v(et), v(ev)], g.except(), None),
                1 => Link::new(vec![int(-(k as i64) - 100)], g.ret(), None),
                _ => {
                    let (h, hv) =
                        g.block(&[T::Signed, T::Signed, T::Ptr(lltype::OBJECT_VTABLE.into())]);
                    let saved = g.cur;
                    g.cur = h;
                    let id = g.op(
                        Opcode::Getfield,
                        vec![v(hv[2]), common::name(lltype::SUBCLASSRANGE_MIN)],
                        T::Signed,
                    );
                    let scaled = g.op(Opcode::IntMul, vec![v(id), int(1000)], T::Signed);
                    let sum = g.op(Opcode::IntAdd, vec![v(hv[1]), v(scaled)], T::Signed);
                    g.print_int(v(id));
                    g.goto(next, vec![v(hv[0]), v(sum)]);
                    g.cur = saved;
                    Link::new(vec![n.clone(), acc.clone(), v(et)], h, None)
                }
            };
            link.exitcase = Some(vtable_static(k));
            link.last_exception = Some(et);
            link.last_exc_value = Some(ev);
            exits.push(link);
        }
        let cur = g.cur;
        let block = g.g.block_mut(cur);
        block.exitswitch = Some(Arg::Const(Constant::LastException));
        block.exits = exits;
    }

    /// A program of `scenarios` call trees; the entry point runs each
    /// scenario's first function on 0..5 under a handler of every
    /// exception, then the last scenario's unguarded, so that an
    /// exception may end the run (otherwise its result's low bits are
    /// the exit status).
    fn program(seed: u64, scenarios: usize) -> Program<LowLevel> {
        let mut t = CallTrees {
            rng: Rng(seed),
            graphs: Vec::new(),
            table: Vec::new(),
        };
        let names: Vec<Vec<String>> = (0..scenarios)
            .map(|s| {
                let depth = t.rng.below(4) as usize + 2;
                (0..depth).map(|i| format!("f{s}_{i}")).collect()
            })
            .collect();
        t.table = names.iter().flatten().cloned().collect();
        for scenario in &names {
            for (i, name) in scenario.iter().enumerate() {
                let g = t.function(name, &scenario[i + 1..]);
                t.graphs.push(g);
            }
        }
        let (mut entry, _) = Self::graph("entry_point", common::list_t());
        for scenario in &names {
            for x in 0..5 {
                let r = entry.op(
                    Opcode::DirectCall,
                    vec![func(&scenario[0]), int(x)],
                    T::Signed,
                );
                let (normal, nv) = entry.block(&[T::Signed]);
                let (caught, cv) = entry.block(&[T::Ptr(lltype::OBJECT_VTABLE.into())]);
                let (after, _) = entry.block(&[]);
                let et = entry.g.new_var(None, T::Ptr(lltype::OBJECT_VTABLE.into()));
                let cur = entry.cur;
                let block = entry.g.block_mut(cur);
                block.exitswitch = Some(Arg::Const(Constant::LastException));
                let mut handler = Link::new(vec![v(et)], caught, Some(vtable_static(0)));
                handler.last_exception = Some(et);
                block.exits = vec![Link::new(vec![v(r)], normal, None), handler];
                entry.cur = normal;
                entry.print_int(v(nv[0]));
                entry.goto(after, vec![]);
                entry.cur = caught;
                let name = entry.op(
                    Opcode::Getfield,
                    vec![v(cv[0]), common::name(lltype::CLASS_NAME)],
                    common::str_t(),
                );
                entry.print(v(name));
                entry.print(common::s_nl());
                entry.goto(after, vec![]);
                entry.cur = after;
            }
        }
        let last = &names[scenarios - 1][0];
        let r = entry.op(Opcode::DirectCall, vec![func(last), int(6)], T::Signed);
        entry.print_int(v(r));
        // An exit status is a byte.
        let status = entry.op(Opcode::IntAnd, vec![v(r), int(0x7f)], T::Signed);
        let ret = entry.ret();
        entry.goto(ret, vec![v(status)]);
        let mut graphs = vec![entry];
        graphs.append(&mut t.graphs);
        let mut types = common::base_types();
        lltype::add_object_types(&mut types);
        types.insert(
            "array_fn".into(),
            ContainerType::GcArray { item: signed_fn() },
        );
        let mut p = common::program(graphs, types);
        for (name, lo, hi) in CLASSES {
            p.prebuilt.push(PrebuiltObject::Struct {
                ty: lltype::OBJECT_VTABLE.into(),
                fields: vec![
                    (lltype::SUBCLASSRANGE_MIN.into(), Constant::Int(*lo)),
                    (lltype::SUBCLASSRANGE_MAX.into(), Constant::Int(*hi)),
                    (lltype::CLASS_NAME.into(), Constant::Str(name.to_string())),
                ],
                items: vec![],
            });
        }
        for k in 0..CLASSES.len() {
            p.prebuilt.push(PrebuiltObject::Struct {
                ty: lltype::OBJECT.into(),
                fields: vec![(lltype::TYPEPTR.into(), Constant::Prebuilt(k as u32))],
                items: vec![],
            });
        }
        p.prebuilt.push(PrebuiltObject::Array {
            ty: "array_fn".into(),
            items: t.table.iter().map(|f| Constant::Func(f.clone())).collect(),
        });
        p
    }
}

/// Random call trees with raises and handlers give the same output,
/// uncaught exception and status in the three ways. Each seed is one
/// executable of many scenarios (the C compiler runs once per seed).
#[test]
fn random_call_trees_agree() {
    let seeds: u64 = std::env::var("RPY_CALL_TREE_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    let mut uncaught = 0;
    for seed in 1..=seeds {
        let before = CallTrees::program(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15), 40);
        let after = exceptiontransform::transform(before.clone()).unwrap();
        let expected = interp(&before, &[]);
        assert_eq!(
            interp(&after, &[]),
            expected,
            "seed {seed}: after the transform"
        );
        let exe = build(&before, &format!("call_trees_{seed}"));
        let r = run(&exe, &[] as &[&str]);
        assert_eq!(
            outcome(&r.stdout, &r.stderr, r.status),
            expected,
            "seed {seed}: the executable"
        );
        uncaught += usize::from(expected.status == 1);
    }
    println!("{seeds} seeds, {uncaught} ended by an uncaught exception");
}
