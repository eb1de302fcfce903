pub mod parse;
pub mod llinterp;
pub mod flow;
pub mod rules;
pub mod backendopt;
pub mod annotate;
pub mod rtype;
