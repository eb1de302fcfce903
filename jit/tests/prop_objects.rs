//! Random traces on objects (allocations, field reads and writes, class
//! guards, pointer comparisons, escapes) give the same outcome unoptimized
//! and optimized.

use proptest::prelude::*;
use rpy_jit::interp::{run, Heap, Outcome};
use rpy_jit::optimize::optimize;
use rpy_jit::parse_run_value;
use rpy_jit::text::{parse, print};
use rpy_jit::trace::Kind;

const HEADER: &str = "struct obj { intval: Signed, next: Ptr(obj), c: Char }
class A(obj)
class B(obj)
call isnull = ptr_is_null
";

fn build(steps: &[(u8, u8, u8)]) -> String {
    let mut ints = vec!["i1".to_string(), "i2".to_string()];
    let mut ptrs = vec!["p0".to_string()];
    let mut n = 3;
    let mut guards = 0;
    let mut lines = vec!["[p0, i1, i2]".to_string()];
    for &(k, a, b) in steps {
        let p = |s: u8| ptrs[s as usize % ptrs.len()].clone();
        let i = |s: u8| {
            if s.is_multiple_of(5) {
                (s as i64 / 5 * 17 - 300).to_string()
            } else {
                ints[s as usize % ints.len()].clone()
            }
        };
        let fail = format!("[{guards}, {}]", ints.join(", "));
        match k % 11 {
            0 => {
                let d = ["descr=obj", "descr=A", "descr=B"][a as usize % 3];
                let op = if d == "descr=obj" {
                    "new"
                } else {
                    "new_with_vtable"
                };
                lines.push(format!("p{n} = {op}({d})"));
                ptrs.push(format!("p{n}"));
                n += 1;
            }
            1 | 2 => {
                let f = if b % 3 == 0 { "obj.c" } else { "obj.intval" };
                lines.push(format!("setfield_gc({}, {}, descr={f})", p(a), i(b)))
            }
            3 => lines.push(format!("setfield_gc({}, {}, descr=obj.next)", p(a), p(b))),
            4 | 5 => {
                let f = if b % 3 == 0 { "obj.c" } else { "obj.intval" };
                lines.push(format!("i{n} = getfield_gc_i({}, descr={f})", p(a)));
                ints.push(format!("i{n}"));
                n += 1;
            }
            6 => {
                lines.push(format!("p{n} = getfield_gc_r({}, descr=obj.next)", p(a)));
                lines.push(format!("guard_nonnull(p{n}) {fail}"));
                guards += 1;
                ptrs.push(format!("p{n}"));
                n += 1;
            }
            7 => {
                let c = ["A", "B"][b as usize % 2];
                lines.push(format!("guard_class({}, ConstClass({c})) {fail}", p(a)));
                guards += 1;
            }
            8 => {
                lines.push(format!("i{n} = ptr_eq({}, {})", p(a), p(b)));
                ints.push(format!("i{n}"));
                n += 1;
            }
            9 => {
                lines.push(format!("i{n} = call_i({}, descr=isnull)", p(a)));
                ints.push(format!("i{n}"));
                n += 1;
            }
            _ => {
                lines.push(format!("i{n} = int_add({}, {})", i(a), i(b)));
                ints.push(format!("i{n}"));
                n += 1;
            }
        }
    }
    // read back what escaped into p0
    lines.push(format!("i{n} = getfield_gc_i(p0, descr=obj.intval)"));
    ints.push(format!("i{n}"));
    lines.push(format!("finish({})", ints.join(", ")));
    format!("{HEADER}{}\n", lines.join("\n"))
}

fn normalize(o: Outcome) -> Outcome {
    match o {
        Outcome::GuardFailed { values, .. } => Outcome::GuardFailed { guard: 0, values },
        o => o,
    }
}

fn run_with(t: &rpy_jit::trace::Trace, cls: &str, v: i64, i1: i64, i2: i64) -> Outcome {
    let mut heap = Heap::default();
    let p0 = parse_run_value(t, &mut heap, &format!("{cls}(intval={v})"), Kind::Ref).unwrap();
    normalize(run(
        t,
        &[
            p0,
            rpy_jit::interp::RunValue::Int(i1),
            rpy_jit::interp::RunValue::Int(i2),
        ],
        &mut heap,
        10,
    ))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn object_traces_agree(
        steps in prop::collection::vec(any::<(u8, u8, u8)>(), 1..40),
        cls in prop::sample::select(vec!["A", "B", "obj"]),
        v in -5i64..5, i1 in -5i64..5, i2 in -5i64..5,
        passes in prop::sample::select(vec!["virtualize", "heap", "intbounds:rewrite:virtualize:pure", "intbounds:rewrite:virtualize:pure:heap"]),
    ) {
        let src = build(&steps);
        let t = parse(&src).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        let o = optimize(&t, passes).map_err(TestCaseError::fail)?;
        let printed = print(&o);
        let o = parse(&printed).map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
        let before = run_with(&t, cls, v, i1, i2);
        prop_assume!(!matches!(before, Outcome::Error(_)));
        let after = run_with(&o, cls, v, i1, i2);
        prop_assert_eq!(before, after, "\n--- trace\n{}--- optimized\n{}", src, printed);
    }
}
