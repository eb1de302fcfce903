//! Every opt rule of `rules/opt/`, as a trace: its pattern is built from
//! inputs and constants that pass its checks, optimized with
//! `intbounds:rewrite`, and run before and after on many inputs. The rule
//! must fire (or, for rules that need facts, may not) and the results agree.

use rpy_ir::opcode::Opcode;
use rpy_jit::interp::{run_fresh, Outcome, RunValue};
use rpy_jit::optimize::optimize;
use rpy_jit::text::{parse, print};
use rpy_ruleset::fire_count;
use rpy_ruleset::opt::{edge_values, ConcreteFacts, Pat, Ty, OPT_RULES};

fn trace_op(name: &str) -> Option<&'static str> {
    Some(match name {
        "bool_not" => "int_is_zero",
        n => rpy_jit::trace::OPS.iter().find(|o| o.name == n)?.name,
    })
}

/// Emits the ops of a pattern; the text of its value.
fn emit(p: &Pat, consts: &[Option<i64>], lines: &mut Vec<String>, n: &mut usize) -> Option<String> {
    Some(match p {
        Pat::Var(i) => match consts.get(*i).copied().flatten() {
            Some(c) => c.to_string(),
            None => format!("iv{i}"),
        },
        Pat::Int(c) => c.to_string(),
        Pat::Bool(b) => (*b as i64).to_string(),
        // a trace's truth values are the integers 0 and 1: no cast
        Pat::Op(name, args) if *name == Opcode::CastBoolToInt => {
            emit(args.first()?, consts, lines, n)?
        }
        Pat::Op(name, args) => {
            let op = trace_op(name.name())?;
            let args: Option<Vec<String>> =
                args.iter().map(|a| emit(a, consts, lines, n)).collect();
            let r = format!("i{}", 100 + *n);
            *n += 1;
            lines.push(format!("{r} = {op}({})", args?.join(", ")));
            r
        }
    })
}

#[test]
fn every_opt_rule_in_the_trace_rewriter() {
    let edges = edge_values();
    let cands: Vec<i64> = [0, 1, -1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 63, 64, 255, -8]
        .into_iter()
        .chain(edges.iter().copied().step_by(17))
        .collect();
    let mut never = Vec::new();
    let mut state = 0x1234_5678_9abc_def1u64;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for rule in OPT_RULES {
        let before_count = fire_count(rule.rule);
        let mut fired_ok = false;
        'attempt: for attempt in 0..200 {
            // constants for the C names that pass the checks
            let mut consts: Vec<Option<i64>> = vec![None; rule.slots];
            for (i, v) in rule.vars.iter().enumerate() {
                if v.const_only {
                    consts[i] = Some(cands[(rnd() as usize + attempt) % cands.len()]);
                }
            }
            let mut slots = consts.clone();
            let known: Vec<Option<i64>> = slots.clone();
            let asks_facts = format!("{:?}", rule.steps).contains("Fact(");
            if !asks_facts && !rule.try_steps(&mut slots, &ConcreteFacts(&known)) {
                // checks on constants failed (facts of non-constants fail here too)
                if rule.vars.iter().all(|v| !v.const_only) {
                    break 'attempt;
                }
                continue;
            }
            let vars: Vec<usize> = (0..rule.vars.len())
                .filter(|i| consts[*i].is_none())
                .collect();
            let mut lines = vec![format!(
                "[{}]",
                vars.iter()
                    .map(|i| format!("ix{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )];
            for i in &vars {
                if rule.vars[*i].ty == Ty::Bool {
                    lines.push(format!("iv{i} = int_is_true(ix{i})"));
                } else {
                    // some attempts give the variable a bound, for rules
                    // that ask facts
                    lines.push(match attempt % 3 {
                        0 => format!("iv{i} = same_as_i(ix{i})"),
                        1 => format!("iv{i} = int_and(ix{i}, 7)"),
                        _ => format!("iv{i} = int_and(ix{i}, 65535)"),
                    });
                }
            }
            let mut n = 0;
            let Some(res) = emit(&rule.lhs, &consts, &mut lines, &mut n) else {
                break 'attempt;
            };
            lines.push(format!("finish({res})"));
            let src = lines.join("\n");
            let t = parse(&src).unwrap_or_else(|e| panic!("{}: {e}\n{src}", rule.name));
            // rewrite alone first (intbounds may fold the pattern before
            // rewrite sees it), then with the bounds rules may ask for
            let count = fire_count(rule.rule);
            let mut o = optimize(&t, "rewrite").unwrap();
            if fire_count(rule.rule) == count {
                o = optimize(&t, "intbounds:rewrite").unwrap();
            }
            if fire_count(rule.rule) == count {
                continue;
            }
            let printed = print(&o);
            for _ in 0..200 {
                let args: Vec<RunValue> = vars
                    .iter()
                    .map(|_| {
                        RunValue::Int(if rnd() % 2 == 0 {
                            edges[rnd() as usize % edges.len()]
                        } else {
                            (rnd() % 21) as i64 - 10
                        })
                    })
                    .collect();
                let b = run_fresh(&t, &args, 1);
                if matches!(b, Outcome::Error(_)) {
                    continue;
                }
                let a = run_fresh(&o, &args, 1);
                assert_eq!(
                    b, a,
                    "rule {} on {args:?}\n{src}\n--- optimized\n{printed}",
                    rule.name
                );
            }
            fired_ok = true;
            break;
        }
        if !fired_ok && fire_count(rule.rule) == before_count {
            never.push(rule.name);
        }
    }
    println!("rules that need facts or never fired from a bare pattern: {never:?}");
    // rules whose checks ask only of constants must fire
    let fact_free: Vec<&str> = never
        .iter()
        .copied()
        .filter(|n| {
            let r = OPT_RULES.iter().find(|r| r.name == *n).unwrap();
            !format!("{:?}", r.steps).contains("Fact(")
        })
        .collect();
    assert!(
        fact_free.is_empty(),
        "rules that never fired: {fact_free:?}"
    );
}
