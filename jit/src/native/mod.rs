//! The JIT in translated executables: the jitcodes, with each low-level
//! operation resolved at translation time to what it does on the
//! program's memory ([`NativeOp`]: offsets, sizes and type ids of `ir`'s
//! layouts, which GenC's structs are pinned to), serialized into the
//! executable by GenC, and run there by the blackhole on machine words
//! (`machine`), with the program's C functions called through the
//! wrappers GenC emits (`Embedding`).
//!
//! What is not known at translation time comes from the C side at start-up:
//! the addresses of constants (prebuilt objects, strings, functions), of
//! the functions residual calls reach, and of the runtime's allocator,
//! write barrier, shadow stack and exception state.

pub mod loops;
pub mod machine;

use crate::codewriter::jitcode::{Callee, Insn, JitCodes};
use crate::trace::Kind;
use rpy_ir::graph::{Arg, Constant, LowLevel, Program};
use rpy_ir::lltype::{self, LowLevelType, TypeTable};
use rpy_ir::opcode::Opcode;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};

/// How a value of a field or an array item sits in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scalar {
    /// One byte: a Bool or a Char.
    Byte,
    /// A 64-bit word: Signed, Unsigned, a pointer, a function pointer, or a
    /// Float's bits.
    Word,
}

impl Scalar {
    fn of(t: &LowLevelType) -> Result<Scalar, String> {
        match t.size_align().0 {
            1 => Ok(Scalar::Byte),
            8 => Ok(Scalar::Word),
            n => Err(format!("a {n}-byte {t} value")),
        }
    }
}

/// A low-level operation as the blackhole runs it on words.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum NativeOp {
    /// An operation of `llops::eval_int` (Signed, Unsigned, Bool and Char
    /// values are words).
    Int(Opcode),
    /// A float operation (`llops::eval_float`).
    Float(Opcode),
    /// The argument itself (`same_as`, `cast_pointer`, `jit_promote`, and
    /// the casts that keep the word).
    Same,
    /// `cast_int_to_char`: the low byte.
    LowByte,
    /// A word compared with null (`ptr_iszero`: `true` when null).
    IsNull(bool),
    /// Two pointers compared (`ptr_eq`: `true` when equal).
    PtrEq(bool),
    Load {
        offset: u32,
        scalar: Scalar,
    },
    /// A store; `barrier` when the value is a GC pointer (the object may be
    /// old: the write barrier runs first).
    Store {
        offset: u32,
        scalar: Scalar,
        barrier: bool,
    },
    LoadItem {
        items: u32,
        size: u32,
        scalar: Scalar,
    },
    StoreItem {
        items: u32,
        size: u32,
        scalar: Scalar,
        barrier: bool,
    },
    Length {
        offset: u32,
    },
    New {
        tid: u32,
        size: u32,
    },
    NewArray {
        tid: u32,
        fixed: u32,
        items: u32,
        item_size: u32,
        length: u32,
    },
    /// A function of the C runtime: its index in [`NativeProgram::runtime`].
    Runtime(u32),
    /// An operation with no effect when run (a debug hint).
    Nothing,
}

/// Everything the executable's JIT needs of the translated program, built
/// at translation time and serialized into it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct NativeProgram {
    /// The jitcodes, without their constants (which come from the C side
    /// as words: `first_constant`).
    pub codes: JitCodes,
    /// Per jitcode, per instruction: the operation it runs (`Insn::Op` and
    /// calls of runtime functions).
    pub ops: Vec<Vec<Option<NativeOp>>>,
    /// Per jitcode: the index of its constant 0 in the embedding's table.
    pub first_constant: Vec<u32>,
    /// The runtime functions the jitcodes call, by name, in the order of
    /// the embedding's wrappers.
    pub runtime: Vec<String>,
    /// The graphs the jitcodes call residually (a wrapper each).
    pub residual_graphs: Vec<u32>,
    /// Their names, for the JIT's log.
    pub graph_names: HashMap<u32, String>,
    /// The portals, by jitcode index.
    pub portals: Vec<u32>,
    /// Where a vtable holds its class id (`subclassrange_min`).
    pub class_id_offset: u32,
    /// The container types GenC lays out, in the order of their type ids
    /// (from 1): what the tracer's header declares.
    pub types: TypeTable,
    /// Per jitcode: the kind of each constant.
    pub constant_kinds: Vec<Vec<Kind>>,
    /// The array type operand 0 of an array operation points to, by
    /// jitcode and instruction.
    pub array_types: HashMap<(u32, u32), String>,
}

impl NativeProgram {
    pub fn to_bytes(&self) -> Vec<u8> {
        postcard::to_stdvec(self).expect("a native program serializes")
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<NativeProgram, String> {
        postcard::from_bytes(bytes).map_err(|e| format!("the JIT's program data is corrupt: {e}"))
    }
}

/// The jitcodes of `program` lowered for an executable: `types` is the
/// table GenC lays out (the program's with the runtime's) and `type_id`
/// GenC's number of a type. An error names an operation the executable's
/// blackhole cannot run.
pub fn lower(
    program: &Program<LowLevel>,
    codes: &JitCodes,
    types: &TypeTable,
    type_id: &dyn Fn(&str) -> Option<usize>,
) -> Result<NativeProgram, String> {
    let mut native = NativeProgram {
        codes: codes.clone(),
        ops: Vec::new(),
        first_constant: Vec::new(),
        runtime: Vec::new(),
        residual_graphs: Vec::new(),
        graph_names: HashMap::new(),
        portals: Vec::new(),
        class_id_offset: 0,
        types: types.clone(),
        constant_kinds: Vec::new(),
        array_types: HashMap::new(),
    };
    let vtable = types
        .get(lltype::OBJECT_VTABLE)
        .and_then(|t| t.layout().offset_of(lltype::SUBCLASSRANGE_MIN));
    native.class_id_offset = vtable.unwrap_or(0) as u32;
    let mut residual = BTreeSet::new();
    let mut first = 0u32;
    for (i, jc) in codes.codes.iter().enumerate() {
        native.first_constant.push(first);
        first += jc.constants.len() as u32;
        native.constant_kinds.push(
            jc.constants
                .iter()
                .map(|(_, t)| Kind::of_lltype(t))
                .collect(),
        );
        if codes.portals.contains(&jc.name) {
            native.portals.push(i as u32);
        }
        let graph = &program.graphs[jc.graph as usize];
        let mut ops = Vec::with_capacity(jc.code.len());
        for (at, insn) in jc.code.iter().enumerate() {
            ops.push(match insn {
                Insn::Op { opname, origin, .. } => {
                    let op = &graph.blocks[origin.block as usize].operations[origin.op as usize];
                    if matches!(
                        opname,
                        Opcode::Getarrayitem | Opcode::Setarrayitem | Opcode::Getarraysize
                    ) {
                        if let Some(t) =
                            crate::codewriter::policy::pointee(graph, &op.args[0], program)
                        {
                            native.array_types.insert((i as u32, at as u32), t);
                        }
                    }
                    let lowered = lower_op(program, graph, op, types, type_id)
                        .map_err(|e| format!("{}: '{opname}': {e}", jc.name))?;
                    Some(lowered)
                }
                Insn::Call { callee, descr, .. } => match callee {
                    Callee::Runtime { name, .. } => {
                        let i = match native.runtime.iter().position(|n| n == name) {
                            Some(i) => i,
                            None => {
                                native.runtime.push(name.clone());
                                native.runtime.len() - 1
                            }
                        };
                        Some(NativeOp::Runtime(i as u32))
                    }
                    Callee::Graph { graph, .. } => {
                        if descr.kind != crate::codewriter::jitcode::CallKind::Regular
                            || codes.by_graph(*graph).is_none()
                        {
                            residual.insert(*graph);
                        }
                        None
                    }
                    Callee::Pointer { targets, .. } => {
                        for t in targets {
                            if let Some(g) = program.graphs.iter().position(|g| &g.name == t) {
                                residual.insert(g as u32);
                            }
                        }
                        None
                    }
                },
                _ => None,
            });
        }
        native.ops.push(ops);
    }
    native.residual_graphs = residual.into_iter().collect();
    for g in &native.residual_graphs {
        native
            .graph_names
            .insert(*g, program.graphs[*g as usize].name.clone());
    }
    // The constants travel as words from the C side.
    for jc in &mut native.codes.codes {
        jc.constants.clear();
    }
    Ok(native)
}

fn lower_op(
    program: &Program<LowLevel>,
    graph: &rpy_ir::graph::FunctionGraph<LowLevel>,
    op: &rpy_ir::graph::SpaceOperation,
    types: &TypeTable,
    type_id: &dyn Fn(&str) -> Option<usize>,
) -> Result<NativeOp, String> {
    let container = |i: usize| -> Result<(&lltype::ContainerType, String), String> {
        let name = crate::codewriter::policy::pointee(graph, &op.args[i], program)
            .ok_or("an operand that is not a pointer to a known type")?;
        let t = types
            .get(&name)
            .ok_or_else(|| format!("the type '{name}' is not in the type table"))?;
        Ok((t, name))
    };
    let named = |i: usize| -> Result<&str, String> {
        match op.args.get(i) {
            Some(Arg::Const(Constant::Name(n))) => Ok(n),
            _ => Err(format!("operand {i} is not a name")),
        }
    };
    let tid = |name: &str| -> Result<u32, String> {
        type_id(name)
            .map(|t| t as u32)
            .ok_or_else(|| format!("the type '{name}' has no type id"))
    };
    let name = op.opname;
    Ok(match name {
        // (The blackhole runs `jit_promote` as the value itself.)
        _ if crate::codewriter::jitcode::keeps_the_word(name) || name == Opcode::JitPromote => {
            NativeOp::Same
        }
        Opcode::CastIntToChar => NativeOp::LowByte,
        Opcode::PtrIszero => NativeOp::IsNull(true),
        Opcode::PtrNonzero => NativeOp::IsNull(false),
        Opcode::PtrEq => NativeOp::PtrEq(true),
        Opcode::PtrNe => NativeOp::PtrEq(false),
        _ if name.char_compare_as_int().is_some() => {
            NativeOp::Int(name.char_compare_as_int().unwrap_or(Opcode::IntEq))
        }
        Opcode::JitMarker => NativeOp::Nothing,
        Opcode::Getfield | Opcode::Setfield => {
            let (t, tname) = container(0)?;
            let field = named(1)?;
            let offset = t
                .layout()
                .offset_of(field)
                .ok_or_else(|| format!("'{tname}' has no field '{field}'"))?;
            let ft = t
                .field_type(field)
                .ok_or_else(|| format!("'{tname}' has no field '{field}'"))?;
            // A Void field holds nothing: reading or writing it does nothing.
            if *ft == LowLevelType::Void {
                return Ok(NativeOp::Nothing);
            }
            let scalar = Scalar::of(ft)?;
            if name == Opcode::Getfield {
                NativeOp::Load {
                    offset: offset as u32,
                    scalar,
                }
            } else {
                NativeOp::Store {
                    offset: offset as u32,
                    scalar,
                    barrier: matches!(ft, LowLevelType::Ptr(_)),
                }
            }
        }
        Opcode::Getarrayitem | Opcode::Setarrayitem => {
            let (t, tname) = container(0)?;
            let (items, size) = t
                .layout()
                .items
                .ok_or_else(|| format!("'{tname}' has no items"))?;
            let it = t
                .item_type()
                .ok_or_else(|| format!("'{tname}' has no items"))?;
            if *it == LowLevelType::Void {
                return Ok(NativeOp::Nothing);
            }
            let scalar = Scalar::of(it)?;
            if name == Opcode::Getarrayitem {
                NativeOp::LoadItem {
                    items: items as u32,
                    size: size as u32,
                    scalar,
                }
            } else {
                NativeOp::StoreItem {
                    items: items as u32,
                    size: size as u32,
                    scalar,
                    barrier: matches!(it, LowLevelType::Ptr(_)),
                }
            }
        }
        Opcode::Getarraysize => {
            let (t, tname) = container(0)?;
            let offset = t
                .layout()
                .offset_of("length")
                .ok_or_else(|| format!("'{tname}' has no length"))?;
            NativeOp::Length {
                offset: offset as u32,
            }
        }
        Opcode::Malloc | Opcode::MallocVarsize => {
            let tname = named(0)?;
            let t = types
                .get(tname)
                .ok_or_else(|| format!("the type '{tname}' is not in the type table"))?;
            let layout = t.layout();
            if name == Opcode::Malloc {
                NativeOp::New {
                    tid: tid(tname)?,
                    size: layout.fixed_size as u32,
                }
            } else {
                let (items, item_size) = layout
                    .items
                    .ok_or_else(|| format!("'{tname}' has no items"))?;
                NativeOp::NewArray {
                    tid: tid(tname)?,
                    fixed: layout.fixed_size as u32,
                    items: items as u32,
                    item_size: item_size as u32,
                    length: layout.offset_of("length").unwrap_or(0) as u32,
                }
            }
        }
        _ if rpy_ir::llops::eval_float(name, &[0, 0]).is_some()
            || rpy_ir::llops::eval_float(name, &[0]).is_some() =>
        {
            NativeOp::Float(name)
        }
        _ => {
            let arity = op.args.len();
            if rpy_ir::llops::eval_int(name, &vec![1; arity]).is_none() {
                return Err("not an operation the executable's JIT runs".into());
            }
            NativeOp::Int(name)
        }
    })
}
