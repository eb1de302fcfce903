//! The hints the flow stage records on a function's graph for the stages
//! after it (and the object interpreter) to read.

/// The hint on the graph of a `@staticmethod` (what the object interpreter
/// and the later stages read, as the class attribute is the function).
pub const STATIC_METHOD_HINT: &str = "staticmethod";

/// The hint on the graph of a function with a `*args` parameter (its last):
/// the annotator specializes it per number of star-arguments.
pub const STAR_ARGS_HINT: &str = "*args";
