pub mod annotate;
pub mod backendopt;
pub mod exceptiontransform;
pub mod flow;
pub mod gctransform;
/// Language facts the flow stage and the object interpreter share; below both.
pub mod language;
pub mod objinterp;
pub mod parallel_graphs;
pub mod parse;
pub mod rtype;
pub mod rule_proofs;
pub mod simplify;
