//! Facts of the Python language and of RPython's libraries that the flow
//! builder, the annotator, the rtyper and the object interpreter all rely
//! on: the builtin exception classes, the special names, the builtin types'
//! methods, what each operation raises, the hints graphs carry, the
//! builtins of import-time graphs, rlib's untranslated calls and
//! `JitDriver`'s parameters, the standard modules.
//!
//! They sit below both `flow` and `objinterp` and import neither. The
//! flow stage runs the object interpreter at import time, so `flow`
//! depends on `objinterp`; if the interpreter took its facts from `flow`
//! the two would import each other, and the oracle that checks the flow
//! builder would be reading the builder's code.

pub mod builtins;
pub mod exceptions;
pub mod hints;
pub mod import_time_builtins;
pub mod raises;
pub mod rlib;
pub mod special_names;
pub mod stdmods;
