//! Stages that turn each graph alone into the next stage's run on every
//! core. A graph is read and written by one thread; results come back in
//! program order, so the output does not depend on the number of cores
//! (ARCHITECTURE.md, "Invariants").

use rayon::prelude::*;
use rpy_ir::diag::SourceMap;
use rpy_ir::graph::{FunctionGraph, Program, Stage};

/// `Program::try_map_graphs` on every core: the same program with each
/// graph turned by `f` (given the program's path and sources, for
/// diagnostics); the error of the first graph, in program order, that
/// fails.
pub fn try_map_graphs<S, T, E>(
    program: Program<S>,
    f: impl Fn(&str, &SourceMap, FunctionGraph<S>) -> Result<FunctionGraph<T>, E> + Sync,
) -> Result<Program<T>, E>
where
    S: Stage,
    T: Stage,
    FunctionGraph<S>: Send,
    FunctionGraph<T>: Send,
    E: Send,
{
    program.try_with_graphs(|graphs, path, sources| {
        let graphs: Vec<Result<FunctionGraph<T>, E>> = graphs
            .into_par_iter()
            .map(|g| f(path, sources, g))
            .collect();
        graphs.into_iter().collect()
    })
}
