//! rpy's intermediate representations: the AST, the flow graph model shared by
//! every graph stage, annotations, low-level types with their memory layout, the
//! low-level operation table, and the text format of each graph stage. Depends
//! on nothing else of rpy's.

pub mod annotation;
pub mod ast;
pub mod ast_print;
pub mod diag;
pub mod graph;
pub mod intbound;
pub mod llops;
pub mod lltype;
pub mod opcode;
pub mod rule_ops;
pub mod text;
