//! Structural checks of graphs, usable on the output of any graph stage.
//!
//! A well-formed graph is in the SSA form the graph model describes: every
//! variable is defined once (as an input argument of one block or the result of
//! one operation), every use of a variable in a block comes after its definition
//! in that block, links pass exactly as many values as their target takes, and
//! each block ends in the way its exitswitch says.
//!
//! A block that catches its last operation's exceptions (exitswitch
//! `last_exception`) has that operation, a normal first exit without exitcase,
//! then exception exits whose cases are distinct classes. Only an exception
//! exit may define variables (its `last_exception` and `last_exc_value`), and
//! only its own arguments may read them; it may not read the raising
//! operation's result, which an exception leaves unset.

use rpy_ir::graph::{Arg, Block, BlockId, Constant, FunctionGraph, Program, Stage, Var};
use std::collections::HashSet;

/// Checks one graph; on failure, returns one line per problem found.
pub fn check_graph_well_formed<S: Stage>(g: &FunctionGraph<S>) -> Result<(), Vec<String>> {
    let mut errs = Vec::new();
    let nblocks = g.blocks.len();
    let nvars = g.vars.len();
    let valid_block = |b: BlockId| (b.0 as usize) < nblocks;
    for (what, b) in [
        ("start", g.startblock),
        ("return", g.returnblock),
        ("except", g.exceptblock),
    ] {
        if !valid_block(b) {
            errs.push(format!("the {what} block b{} does not exist", b.0));
        }
    }
    if !errs.is_empty() {
        return Err(prefix(g, errs));
    }
    if g.returnblock == g.exceptblock || g.startblock == g.returnblock {
        errs.push("start, return and except blocks must be distinct".to_string());
    }
    let ret = g.block(g.returnblock);
    if ret.inputargs.len() != 1 {
        errs.push(format!(
            "the return block takes {} arguments instead of 1",
            ret.inputargs.len()
        ));
    }
    let exc = g.block(g.exceptblock);
    if exc.inputargs.len() != 2 {
        errs.push(format!(
            "the except block takes {} arguments instead of 2",
            exc.inputargs.len()
        ));
    }

    // Each variable is defined once in the whole graph.
    let mut defined = vec![false; nvars];
    for (bi, block) in g.blocks.iter().enumerate() {
        let defs = block
            .inputargs
            .iter()
            .copied()
            .chain(block.operations.iter().map(|op| op.result))
            .chain(block.exits.iter().flat_map(|l| l.defined_vars()));
        for v in defs {
            if v.0 as usize >= nvars {
                errs.push(format!("block b{bi}: variable v{} does not exist", v.0));
            } else if std::mem::replace(&mut defined[v.0 as usize], true) {
                errs.push(format!("block b{bi}: variable v{} is defined twice", v.0));
            }
        }
    }

    // The variables known at a point of block `bi` are those whose stamp is
    // `bi + 1` (one vector for the whole graph instead of a set per block and
    // per exit: the sets' allocations were much of the flow stage's time).
    let mut stamp = vec![0u32; nvars];
    let known_in =
        |stamp: &[u32], bi: usize, v: Var| stamp.get(v.0 as usize) == Some(&(bi as u32 + 1));
    for (bi, block) in g.blocks.iter().enumerate() {
        let b = BlockId(bi as u32);
        let mark = bi as u32 + 1;
        for v in &block.inputargs {
            if let Some(s) = stamp.get_mut(v.0 as usize) {
                *s = mark;
            }
        }
        // `ctx` names the use only when there is an error: formatting it for
        // every argument of every operation was a tenth of the flow stage.
        let check_use = |a: &Arg,
                         known: &dyn Fn(Var) -> bool,
                         errs: &mut Vec<String>,
                         ctx: &dyn Fn() -> String| {
            if let Arg::Var(v) = a {
                if !known(*v) {
                    errs.push(format!(
                        "block b{bi}: {} uses variable v{} not defined before it in the block",
                        ctx(),
                        v.0
                    ));
                }
            }
        };
        for (oi, op) in block.operations.iter().enumerate() {
            for a in &op.args {
                check_use(a, &|v| known_in(&stamp, bi, v), &mut errs, &|| {
                    format!("operation {oi} ({})", op.opname)
                });
            }
            if let Some(s) = stamp.get_mut(op.result.0 as usize) {
                *s = mark;
            }
        }
        if let Some(sw) = &block.exitswitch {
            check_use(sw, &|v| known_in(&stamp, bi, v), &mut errs, &|| {
                "the exitswitch".to_string()
            });
        }
        let is_final = b == g.returnblock || b == g.exceptblock;
        if is_final {
            if !block.operations.is_empty() || !block.exits.is_empty() || block.exitswitch.is_some()
            {
                errs.push(format!(
                    "block b{bi}: the return and except blocks must have no operations and no exits"
                ));
            }
            continue;
        }
        match &block.exitswitch {
            Some(Arg::Const(Constant::LastException)) => {
                check_exception_exits(bi, block, &mut errs);
            }
            None => {
                if block.exits.len() != 1 {
                    errs.push(format!(
                        "block b{bi}: a block without exitswitch must have exactly one exit, it has {}",
                        block.exits.len()
                    ));
                }
                if block.exits.iter().any(|l| l.exitcase.is_some()) {
                    errs.push(format!(
                        "block b{bi}: a block without exitswitch has an exit with an exitcase"
                    ));
                }
            }
            Some(_) => {
                if block.exits.is_empty() {
                    errs.push(format!("block b{bi}: a switching block has no exits"));
                }
                let mut seen: Vec<&Constant> = Vec::new();
                for (li, l) in block.exits.iter().enumerate() {
                    match &l.exitcase {
                        None => errs.push(format!(
                            "block b{bi}: exit {li} of a switching block has no exitcase"
                        )),
                        Some(c) => {
                            if seen.contains(&c) {
                                errs.push(format!(
                                    "block b{bi}: exit {li} repeats the exitcase {c:?}"
                                ));
                            }
                            seen.push(c);
                        }
                    }
                }
            }
        }
        let exception_exits = usize::from(block.catches_exceptions());
        for (li, l) in block.exits.iter().enumerate() {
            if (li < exception_exits || !block.catches_exceptions())
                && l.defined_vars().next().is_some()
            {
                errs.push(format!(
                    "block b{bi}: exit {li} defines variables but is not an exception exit"
                ));
            }
            let link_known = |v: Var| known_in(&stamp, bi, v) || l.defined_vars().any(|d| d == v);
            for a in &l.args {
                check_use(a, &link_known, &mut errs, &|| format!("exit {li}"));
            }
            if !valid_block(l.target) {
                errs.push(format!(
                    "block b{bi}: exit {li} goes to a block b{} that does not exist",
                    l.target.0
                ));
                continue;
            }
            let want = g.block(l.target).inputargs.len();
            if l.args.len() != want {
                errs.push(format!(
                    "block b{bi}: exit {li} passes {} values to b{}, which takes {want}",
                    l.args.len(),
                    l.target.0
                ));
            }
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(prefix(g, errs))
    }
}

/// The exits of a block switching on `last_exception` (see the module doc).
fn check_exception_exits(bi: usize, block: &Block, errs: &mut Vec<String>) {
    let Some(raising) = block.operations.last() else {
        errs.push(format!(
            "block b{bi}: catches exceptions but has no operation that could raise one"
        ));
        return;
    };
    match block.exits.first() {
        None => errs.push(format!("block b{bi}: a block catching exceptions has no exits")),
        Some(normal) if normal.exitcase.is_some() => errs.push(format!(
            "block b{bi}: the first exit of a block catching exceptions is the normal path and has no exitcase"
        )),
        Some(_) => {}
    }
    let mut seen: Vec<&str> = Vec::new();
    for (li, l) in block.exits.iter().enumerate().skip(1) {
        match &l.exitcase {
            Some(Constant::Class(c)) => {
                if seen.contains(&c.as_str()) {
                    errs.push(format!("block b{bi}: exit {li} repeats the class {c}"));
                }
                seen.push(c);
            }
            Some(other) => errs.push(format!(
                "block b{bi}: exception exit {li} has the exitcase {other:?} instead of a class"
            )),
            None => errs.push(format!(
                "block b{bi}: exception exit {li} has no exitcase; it needs the class it catches"
            )),
        }
        if l.args.contains(&Arg::Var(raising.result)) {
            errs.push(format!(
                "block b{bi}: exception exit {li} passes on the result of the operation that raised"
            ));
        }
    }
}

fn prefix<S: Stage>(g: &FunctionGraph<S>, errs: Vec<String>) -> Vec<String> {
    errs.into_iter()
        .map(|e| format!("graph {}: {e}", g.name))
        .collect()
}

/// Checks every graph of a program, that graph names are unique, that the entry
/// graph exists and that every function constant names a graph of the program.
pub fn check_program_well_formed<S: Stage>(p: &Program<S>) -> Result<(), Vec<String>> {
    let mut errs = Vec::new();
    let mut names = HashSet::new();
    for g in &p.graphs {
        if !names.insert(g.name.as_str()) {
            errs.push(format!("two graphs are named {}", g.name));
        }
    }
    if !names.contains(p.entry.as_str()) {
        errs.push(format!("the entry graph {} does not exist", p.entry));
    }
    for g in &p.graphs {
        if let Err(e) = check_graph_well_formed(g) {
            errs.extend(e);
        }
        for block in &g.blocks {
            let args = block
                .operations
                .iter()
                .flat_map(|op| op.args.iter())
                .chain(block.exits.iter().flat_map(|l| l.args.iter()));
            for a in args {
                if let Arg::Const(Constant::Func(f)) = a {
                    if !names.contains(f.as_str()) {
                        errs.push(format!(
                            "graph {}: refers to a function {f} that has no graph",
                            g.name
                        ));
                    }
                }
            }
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

#[cfg(test)]
mod tests {
    use super::check_graph_well_formed;
    use rpy_ir::graph::Flow;
    use rpy_ir::text::parse_graph;

    /// The problems found in a graph given as text (with the exception exits
    /// of `body`, which `f`'s first block runs after `v1 = simple_call(@g, a_0)`).
    fn problems(exits: &str) -> Vec<String> {
        let text = format!(
            "graph f(a_0) {{\n  block0(a_0):\n    v1 = simple_call(@g, a_0)\n{exits}\n  block1(x_9):\n    -> return(x_9)\n}}\n"
        );
        let g = parse_graph::<Flow>(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        match check_graph_well_formed(&g) {
            Ok(()) => Vec::new(),
            Err(e) => e,
        }
    }

    #[test]
    fn a_variable_of_another_block_or_a_later_operation_is_not_known() {
        let text = "graph f(a_0) {\n  block0(a_0):\n    v1 = add(a_0, v2)\n    v2 = add(a_0, 1)\n    -> block1(v1)\n  block1(x_3):\n    v4 = add(x_3, v2)\n    -> return(v1)\n}\n";
        let g = parse_graph::<Flow>(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let errs = check_graph_well_formed(&g).unwrap_err();
        let undefined = |what: &str| {
            errs.iter()
                .any(|e| e.contains(what) && e.contains("not defined before it"))
        };
        // (The text parser numbers variables in order of appearance.)
        assert!(undefined("block b0: operation 0 (add)"), "{errs:?}");
        assert!(undefined("block b1: operation 0 (add)"), "{errs:?}");
        assert!(undefined("block b1: exit 0"), "{errs:?}");
        assert_eq!(errs.len(), 3, "{errs:?}");
    }

    #[test]
    fn exception_exits_may_pass_their_own_variables() {
        let ok = problems(
            "    switch last_exception\n      -> block1(v1)\n      %ValueError catch(t_2, e_3) -> except(t_2, e_3)\n      %Exception catch(_, e_4) -> block1(e_4)",
        );
        assert_eq!(ok, Vec::<String>::new());
    }

    #[test]
    fn an_exception_exit_cannot_read_the_failed_result_or_another_exits_variables() {
        let errs = problems(
            "    switch last_exception\n      -> block1(v1)\n      %ValueError catch(t_2, e_3) -> block1(v1)\n      %KeyError catch(t_4, e_5) -> block1(e_3)",
        );
        assert!(
            errs.iter()
                .any(|e| e.contains("exception exit 1 passes on the result")),
            "{errs:?}"
        );
        assert!(
            errs.iter().any(|e| e.contains("exit 2 uses variable")),
            "{errs:?}"
        );
    }

    #[test]
    fn exception_exits_need_classes_and_a_normal_first_exit() {
        let errs = problems(
            "    switch last_exception\n      %ValueError catch(t_2, e_3) -> block1(e_3)\n      3 -> block1(a_0)",
        );
        assert!(
            errs.iter()
                .any(|e| e.contains("the first exit of a block catching exceptions")),
            "{errs:?}"
        );
        assert!(
            errs.iter()
                .any(|e| e.contains("has the exitcase Int(3) instead of a class")),
            "{errs:?}"
        );
    }

    #[test]
    fn only_exception_exits_define_variables() {
        let errs = problems(
            "    switch v1\n      True catch(t_2, e_3) -> block1(e_3)\n      False -> block1(a_0)",
        );
        assert!(
            errs.iter()
                .any(|e| e.contains("exit 0 defines variables but is not an exception exit")),
            "{errs:?}"
        );
    }
}
