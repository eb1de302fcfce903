//! The builtins of import-time graphs: the flow builder writes calls of
//! them, the object interpreter runs them.

/// The builtin of `from M import *` at import time that copies what M
/// exports when the statement runs (its `__all__`, else its public names)
/// into the importing module. (Not a closure's, but a module's names seen
/// through their object, as cells are.)
pub const IMPORT_STAR: &str = "<import star>";

/// The builtin that makes an empty cells object, at import time only.
pub const NEW_CELLS: &str = "<new cells>";

/// The builtin that binds a nested function's graph to a cells object,
/// at import time only.
pub const MAKE_CLOSURE: &str = "<make closure>";
