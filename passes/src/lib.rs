pub mod annotate;
pub mod backendopt;
pub mod flow;
pub mod llinterp;
pub mod parse;
pub mod rtype;
pub mod rules;
pub mod simplify;
