//! Malloc removal: a structure allocated in a graph that never escapes it
//! is replaced by its fields as variables (the original's
//! `backendopt/malloc.py`, and the escape analysis of seed 002 done ahead
//! of time).
//!
//! Variables are grouped into families: a pointer and what `same_as` or
//! `cast_pointer` make of it, and a link argument with the input argument
//! it feeds, so one family follows the values through links and loops. A
//! family is removed when every value in it comes from a `malloc` of one
//! fixed-size struct type (any number of them: a loop allocating a new box
//! each round is one family) and is only read by `getfield`, written by
//! `setfield` as the object (not as the stored value), compared with null,
//! cast, or passed along links to blocks of the graph: not stored in the
//! heap, not passed to a call, not returned or raised, not compared with
//! another pointer. A link may not pass one object twice (the two input
//! arguments would get separate copies of its fields).
//!
//! Then each input argument of the family becomes one argument per field
//! (Void fields have no value), a `malloc` starts its fields at zero as
//! the allocator does, a `setfield` replaces the field's value, a
//! `getfield` reads it, and null tests fold (the object exists). Removing a
//! family can free another (a structure that was only read through a
//! removed one), so the pass repeats until nothing changes.

use super::callgraph::CallGraph;
use super::load_folding::FieldWrites;
use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use rpy_ir::graph::{
    destructor_types, Arg, Block, BlockId, Constant, FunctionGraph, Link, LowLevel, Program,
    SpaceOperation, Var,
};
use rpy_ir::lltype::{zero_constant, ContainerType, LowLevelType, TypeTable};
use rpy_ir::opcode::Opcode;

type G = FunctionGraph<LowLevel>;

/// What [`remove_mallocs`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MallocStats {
    /// `malloc` operations removed.
    pub mallocs_removed: usize,
    /// Families of variables replaced by their fields.
    pub families: usize,
}

/// Removes the non-escaping structures of every graph.
pub fn remove_mallocs(program: &mut Program<LowLevel>) -> MallocStats {
    remove_mallocs_changed(program).0
}

/// [`remove_mallocs`], and for each graph whether it changed (a family
/// was replaced in it).
pub(super) fn remove_mallocs_changed(program: &mut Program<LowLevel>) -> (MallocStats, Vec<bool>) {
    let callgraph = CallGraph::new(program);
    let writes = FieldWrites::new(program, &callgraph);
    // An object with a `__del__` is never removed: its finalization is an
    // effect of its allocation (as the original keeps structs with a
    // destructor).
    let finalized: HashSet<String> = program
        .graphs
        .iter()
        .flat_map(|g| destructor_types(g).map(str::to_string))
        .collect();
    let kept = KeptTypes {
        types: &program.types,
        finalized: &finalized,
    };
    let mut stats = MallocStats::default();
    let changed = super::each_graph(
        &mut program.graphs,
        &mut stats,
        |g, stats| remove_mallocs_in_graph(g, &kept, &writes, stats),
        |s| s.families,
    );
    (stats, changed)
}

/// The program's types, and those whose objects are never removed.
struct KeptTypes<'p> {
    types: &'p TypeTable,
    finalized: &'p HashSet<String>,
}

/// Removes the non-escaping structures of one graph, until none is left.
fn remove_mallocs_in_graph(
    g: &mut G,
    types: &KeptTypes,
    writes: &FieldWrites,
    stats: &mut MallocStats,
) {
    // A family needs a malloc: a graph without one has nothing to remove.
    let any_malloc = g
        .blocks
        .iter()
        .any(|b| b.operations.iter().any(|op| op.opname == Opcode::Malloc));
    if !any_malloc {
        return;
    }
    // Each round removes every family found removable; a bound keeps a
    // pathological graph from going on (each round removes at least one
    // malloc, so the number of mallocs bounds it anyway).
    for _ in 0..16 {
        let families = removable_families(g, types, writes);
        if families.is_empty() {
            return;
        }
        for family in families {
            stats.mallocs_removed += replace_family(g, &family);
            stats.families += 1;
        }
    }
}

/// Union-find over variable numbers.
struct Families {
    parent: Vec<u32>,
}

impl Families {
    fn find(&mut self, v: Var) -> u32 {
        let mut x = v.0;
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }
    fn union(&mut self, a: Var, b: Var) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra as usize] = rb;
        }
    }
}

fn is_gc_ptr(g: &G, v: Var) -> bool {
    matches!(g.info(v), LowLevelType::Ptr(_))
}

fn is_alias_op(opname: Opcode) -> bool {
    matches!(opname, Opcode::SameAs | Opcode::CastPointer)
}

/// The fixed-size struct type a `malloc` allocates, with its fields.
fn malloc_type<'t>(
    types: &'t TypeTable,
    args: &[Arg],
) -> Option<(&'t str, &'t [(String, LowLevelType)])> {
    let [Arg::Const(Constant::Name(t))] = args else {
        return None;
    };
    let (name, container) = types.get_key_value(t)?;
    match container {
        ContainerType::GcStruct {
            fields,
            var_item: None,
        } => Some((name.as_str(), fields.as_slice())),
        _ => None,
    }
}

/// A family of variables that can be removed.
struct Removable {
    members: HashSet<Var>,
    /// The fields (name and type, Void ones left out) of the struct.
    fields: Vec<(String, LowLevelType)>,
    /// The struct the family's mallocs allocate.
    struct_type: String,
}

/// The families that can be removed.
fn removable_families(g: &G, types: &KeptTypes, writes: &FieldWrites) -> Vec<Removable> {
    let mut fam = Families {
        parent: (0..g.vars.len() as u32).collect(),
    };
    let blocks = g.reverse_postorder();
    let special = |b: BlockId| b == g.returnblock || b == g.exceptblock;
    for &b in &blocks {
        let block = g.block(b);
        for op in &block.operations {
            if is_alias_op(op.opname) && is_gc_ptr(g, op.result) {
                if let [Arg::Var(a)] = op.args.as_slice() {
                    fam.union(op.result, *a);
                }
            }
        }
        for l in &block.exits {
            if special(l.target) {
                continue;
            }
            let target = g.block(l.target);
            for (a, p) in l.args.iter().zip(&target.inputargs) {
                if let Arg::Var(a) = a {
                    if is_gc_ptr(g, *a) {
                        fam.union(*a, *p);
                    }
                }
            }
        }
    }
    // What each family's members are defined by and used for.
    #[derive(Default)]
    struct Facts<'t> {
        struct_type: Option<&'t str>,
        fields: &'t [(String, LowLevelType)],
        mallocs: usize,
        bad: bool,
        /// Parameters of the graph in the family: objects from outside.
        params: Vec<Var>,
        /// Whether a member is returned (then the object is built there).
        returned: bool,
        /// Whether a member is compared with null.
        null_tested: bool,
    }
    let mut facts: HashMap<u32, Facts> = HashMap::default();
    let poison = |fam: &mut Families, facts: &mut HashMap<u32, Facts>, v: Var| {
        if is_gc_ptr(g, v) {
            facts.entry(fam.find(v)).or_default().bad = true;
        }
    };
    for &b in &blocks {
        let block = g.block(b);
        if b == g.startblock {
            for v in &block.inputargs {
                if is_gc_ptr(g, *v) {
                    facts.entry(fam.find(*v)).or_default().params.push(*v);
                }
            }
        }
        for op in &block.operations {
            let result = op.result;
            match op.opname {
                Opcode::Malloc if is_gc_ptr(g, result) => {
                    let root = fam.find(result);
                    let f = facts.entry(root).or_default();
                    match malloc_type(types.types, &op.args) {
                        Some((t, fields))
                            if f.struct_type.is_none_or(|s| s == t)
                                && !types.finalized.contains(t) =>
                        {
                            f.struct_type = Some(t);
                            f.fields = fields;
                            f.mallocs += 1;
                        }
                        _ => f.bad = true,
                    }
                }
                name if is_alias_op(name) => {}
                Opcode::Getfield => {
                    // Reading the object is fine; the field's value is a
                    // new definition the family does not know.
                    poison(&mut fam, &mut facts, result);
                }
                Opcode::Setfield => {
                    if let Some(Arg::Var(v)) = op.args.get(2) {
                        poison(&mut fam, &mut facts, *v);
                    }
                }
                Opcode::PtrIszero | Opcode::PtrNonzero => {
                    if let Some(Arg::Var(v)) = op.args.first() {
                        if is_gc_ptr(g, *v) {
                            facts.entry(fam.find(*v)).or_default().null_tested = true;
                        }
                    }
                }
                _ => {
                    poison(&mut fam, &mut facts, result);
                    for a in &op.args {
                        if let Arg::Var(v) = a {
                            poison(&mut fam, &mut facts, *v);
                        }
                    }
                }
            }
            // A field read or written must be one of the struct's; and an
            // alias of something else than a variable is not followed.
            if is_alias_op(op.opname) && !matches!(op.args.as_slice(), [Arg::Var(_)]) {
                poison(&mut fam, &mut facts, result);
            }
        }
        if let Some(Arg::Var(v)) = &block.exitswitch {
            poison(&mut fam, &mut facts, *v);
        }
        for l in &block.exits {
            for v in l.defined_vars() {
                poison(&mut fam, &mut facts, v);
            }
            if l.target == g.returnblock {
                if let Some(Arg::Var(v)) = l.args.first() {
                    if is_gc_ptr(g, *v) {
                        facts.entry(fam.find(*v)).or_default().returned = true;
                    }
                }
                continue;
            }
            if special(l.target) {
                for a in &l.args {
                    if let Arg::Var(v) = a {
                        poison(&mut fam, &mut facts, *v);
                    }
                }
                continue;
            }
            // A constant (null, a static) flowing into a family's input
            // argument is a value the family cannot hold.
            let target = g.block(l.target);
            for (a, p) in l.args.iter().zip(&target.inputargs) {
                if matches!(a, Arg::Const(_)) {
                    poison(&mut fam, &mut facts, *p);
                }
            }
        }
    }
    // Field names must be the struct's, and a link must not pass one
    // object twice: checked per block with the objects' identities. For
    // the families with objects from outside: which field names may be
    // written to an object that is not new (a store through a pointer
    // other than a fresh malloc's, a call), and which members the start
    // block or its successor reads (so that reading their fields when the
    // graph starts reads nothing the graph would not have).
    let mut written_outside: HashSet<&str> = HashSet::default();
    let mut calls: Vec<&[Arg]> = Vec::new();
    let mut read_early: HashSet<u32> = HashSet::default();
    let early_blocks: Vec<BlockId> = {
        let start = g.block(g.startblock);
        let mut v = vec![g.startblock];
        if let [only] = start.exits.as_slice() {
            if !special(only.target) && start.exitswitch.is_none() {
                v.push(only.target);
            }
        }
        v
    };
    for &b in &blocks {
        let block = g.block(b);
        let mut mallocs_here: HashSet<Var> = HashSet::default();
        let mut object_of: HashMap<Var, Var> = HashMap::default();
        for v in &block.inputargs {
            object_of.insert(*v, *v);
        }
        for op in &block.operations {
            if is_alias_op(op.opname) {
                if let [Arg::Var(a)] = op.args.as_slice() {
                    let o = *object_of.get(a).unwrap_or(a);
                    object_of.insert(op.result, o);
                }
            } else {
                object_of.insert(op.result, op.result);
            }
            if op.opname == Opcode::Malloc {
                mallocs_here.insert(op.result);
            }
            if matches!(op.opname, Opcode::DirectCall | Opcode::IndirectCall) {
                calls.push(&op.args);
            }
            if matches!(op.opname, Opcode::Getfield | Opcode::Setfield) {
                if let (Some(Arg::Var(p)), Some(Arg::Const(Constant::Name(field)))) =
                    (op.args.first(), op.args.get(1))
                {
                    let fresh = object_of.get(p).is_some_and(|o| mallocs_here.contains(o));
                    if op.opname == Opcode::Setfield && !fresh {
                        written_outside.insert(field.as_str());
                    }
                    if op.opname == Opcode::Getfield && early_blocks.contains(&b) {
                        let o = *object_of.get(p).unwrap_or(p);
                        read_early.insert(o.0);
                    }
                    let root = fam.find(*p);
                    if let Some(f) = facts.get_mut(&root) {
                        if !f.fields.iter().any(|(n, _)| n == field) {
                            f.bad = true;
                        }
                    }
                }
            }
        }
        for l in &block.exits {
            let mut passed: HashSet<Var> = HashSet::default();
            for a in &l.args {
                if let Arg::Var(v) = a {
                    if is_gc_ptr(g, *v) {
                        let o = *object_of.get(v).unwrap_or(v);
                        if !passed.insert(o) {
                            poison(&mut fam, &mut facts, *v);
                        }
                    }
                }
            }
        }
    }
    // The families with objects from outside: never built anew (returned:
    // the caller would get another object), never tested for null (an
    // outside pointer may be null), of the very struct the family
    // allocates, read early, and with no field of theirs written but to
    // fresh objects, so that their fields read once when the graph starts
    // stay what the objects hold.
    let start = g.block(g.startblock);
    let start_link = early_blocks.get(1).map(|_| &start.exits[0]);
    let roots: Vec<u32> = facts.keys().copied().collect();
    let starts_unentered = blocks
        .iter()
        .all(|b| g.block(*b).exits.iter().all(|l| l.target != g.startblock));
    for root in roots {
        let f = &facts[&root];
        if f.params.is_empty() || f.bad {
            continue;
        }
        let own_type = f.struct_type.map(|t| LowLevelType::Ptr(t.to_string()));
        let read_when_starting = |param: &Var| {
            read_early.contains(&param.0)
                || start_link.is_some_and(|l| {
                    let target = g.block(l.target);
                    l.args
                        .iter()
                        .zip(&target.inputargs)
                        .any(|(a, p)| *a == Arg::Var(*param) && read_early.contains(&p.0))
                })
        };
        let ok = !f.returned
            && !f.null_tested
            && f.params
                .iter()
                .all(|p| Some(g.info(*p)) == own_type.as_ref())
            && f.params.iter().all(read_when_starting)
            && starts_unentered
            && !f.fields.iter().any(|(n, _)| {
                written_outside.contains(n.as_str())
                    || calls.iter().any(|args| writes.call_may_write(g, args, n))
            });
        if !ok {
            facts.get_mut(&root).unwrap().bad = true;
        }
    }
    let mut members: HashMap<u32, HashSet<Var>> = HashMap::default();
    for i in 0..g.vars.len() as u32 {
        let root = fam.find(Var(i));
        if facts.get(&root).is_some_and(|f| !f.bad && f.mallocs > 0) {
            members.entry(root).or_default().insert(Var(i));
        }
    }
    let mut out: Vec<_> = members
        .into_iter()
        .map(|(root, members)| {
            let f = &facts[&root];
            let fields = f
                .fields
                .iter()
                .filter(|(_, t)| *t != LowLevelType::Void)
                .cloned()
                .collect();
            (
                root,
                Removable {
                    members,
                    fields,
                    struct_type: f.struct_type.expect("a family with mallocs").to_string(),
                },
            )
        })
        .collect();
    out.sort_by_key(|(root, _)| *root);
    out.into_iter().map(|(_, r)| r).collect()
}

/// Replaces the members of one family by their fields; returns the number
/// of mallocs removed.
fn replace_family(g: &mut G, family: &Removable) -> usize {
    let members = &family.members;
    let fields = family.fields.as_slice();
    let field_index: HashMap<&str, usize> = fields
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.as_str(), i))
        .collect();
    let mut removed = 0;
    let member = |a: &Arg| matches!(a, Arg::Var(v) if members.contains(v));
    for b in g.reverse_postorder() {
        // A block that never mentions a member stays as it is.
        let blk = g.block(b);
        let touches = blk.inputargs.iter().any(|v| members.contains(v))
            || blk
                .operations
                .iter()
                .any(|op| members.contains(&op.result) || op.args.iter().any(member))
            || blk.exitswitch.as_ref().is_some_and(member)
            || blk.exits.iter().any(|l| l.args.iter().any(member));
        if !touches {
            continue;
        }
        let block = blk.clone();
        // The current field values of each object of the family in this
        // block, by the variable that introduced it.
        let mut values: HashMap<Var, Vec<Arg>> = HashMap::default();
        let mut object_of: HashMap<Var, Var> = HashMap::default();
        let mut subst: HashMap<Var, Arg> = HashMap::default();
        let mut inputargs = Vec::with_capacity(block.inputargs.len());
        let mut operations = Vec::with_capacity(block.operations.len());
        for v in &block.inputargs {
            if members.contains(v) && b == g.startblock {
                // An object from outside: its fields read once, here.
                let name = g.vars[v.0 as usize].name.clone();
                let mut vars = Vec::with_capacity(fields.len());
                for (f, t) in fields {
                    let n = name.as_ref().map(|n| format!("{n}_{f}"));
                    let r = g.new_var(n, t.clone());
                    operations.push(SpaceOperation {
                        opname: Opcode::Getfield,
                        args: vec![Arg::Var(*v), Arg::Const(Constant::Name(f.clone()))],
                        result: r,
                        pos: None,
                    });
                    vars.push(Arg::Var(r));
                }
                inputargs.push(*v);
                values.insert(*v, vars);
                object_of.insert(*v, *v);
            } else if members.contains(v) {
                let name = g.vars[v.0 as usize].name.clone();
                let vars: Vec<Arg> = fields
                    .iter()
                    .map(|(f, t)| {
                        let n = name.as_ref().map(|n| format!("{n}_{f}"));
                        Arg::Var(g.new_var(n, t.clone()))
                    })
                    .collect();
                inputargs.extend(vars.iter().map(|a| a.as_var().unwrap()));
                values.insert(*v, vars);
                object_of.insert(*v, *v);
            } else {
                inputargs.push(*v);
            }
        }
        let sub = |subst: &HashMap<Var, Arg>, a: &Arg| match a {
            Arg::Var(v) => subst.get(v).cloned().unwrap_or_else(|| a.clone()),
            c => c.clone(),
        };
        for op in &block.operations {
            let family_arg = match op.args.first() {
                Some(Arg::Var(p)) if members.contains(p) => Some(object_of[p]),
                _ => None,
            };
            if members.contains(&op.result) && op.opname == Opcode::Malloc {
                values.insert(
                    op.result,
                    fields
                        .iter()
                        .map(|(_, t)| Arg::Const(zero_constant(t)))
                        .collect(),
                );
                object_of.insert(op.result, op.result);
                removed += 1;
                continue;
            }
            if let Some(obj) = family_arg {
                match op.opname {
                    Opcode::SameAs | Opcode::CastPointer => {
                        object_of.insert(op.result, obj);
                    }
                    Opcode::Getfield => {
                        let value = match &op.args[1] {
                            Arg::Const(Constant::Name(f)) => match field_index.get(f.as_str()) {
                                Some(i) => values[&obj][*i].clone(),
                                None => Arg::Const(Constant::None), // a Void field
                            },
                            _ => unreachable!("removable_families checked the field"),
                        };
                        subst.insert(op.result, value);
                    }
                    Opcode::Setfield => {
                        if let Arg::Const(Constant::Name(f)) = &op.args[1] {
                            if let Some(i) = field_index.get(f.as_str()) {
                                let v = sub(&subst, &op.args[2]);
                                values.get_mut(&obj).unwrap()[*i] = v;
                            }
                        }
                    }
                    Opcode::PtrNonzero => {
                        subst.insert(op.result, Arg::Const(Constant::Bool(true)));
                    }
                    Opcode::PtrIszero => {
                        subst.insert(op.result, Arg::Const(Constant::Bool(false)));
                    }
                    other => unreachable!("{other} of a removable structure"),
                }
                continue;
            }
            let mut op = op.clone();
            for a in &mut op.args {
                *a = sub(&subst, a);
            }
            operations.push(op);
        }
        let exitswitch = block.exitswitch.as_ref().map(|s| sub(&subst, s));
        let mut exits: Vec<Link> = Vec::with_capacity(block.exits.len());
        for l in &block.exits {
            let mut args = Vec::with_capacity(l.args.len());
            for a in &l.args {
                match a {
                    Arg::Var(v) if members.contains(v) => {
                        args.extend(values[&object_of[v]].iter().cloned());
                    }
                    a => args.push(sub(&subst, a)),
                }
            }
            let mut link = Link { args, ..l.clone() };
            if l.target == g.returnblock
                && matches!(l.args.first(), Some(Arg::Var(v)) if members.contains(v))
            {
                link.target = build_on_return(g, family);
            }
            exits.push(link);
        }
        let blk = g.block_mut(b);
        blk.inputargs = inputargs;
        blk.operations = operations;
        blk.exitswitch = exitswitch;
        blk.exits = exits;
    }
    removed
}

/// A block that builds the object of `family` from its fields (its input
/// arguments) and returns it: where a removed structure leaves the graph.
fn build_on_return(g: &mut G, family: &Removable) -> BlockId {
    let inputargs: Vec<Var> = family
        .fields
        .iter()
        .map(|(_, t)| g.new_var(None, t.clone()))
        .collect();
    let object_type = LowLevelType::Ptr(family.struct_type.clone());
    let object = g.new_var(None, object_type.clone());
    let mut operations = vec![SpaceOperation {
        opname: Opcode::Malloc,
        args: vec![Arg::Const(Constant::Name(family.struct_type.clone()))],
        result: object,
        pos: None,
    }];
    for ((f, _), v) in family.fields.iter().zip(&inputargs) {
        let r = g.new_var(None, LowLevelType::Void);
        operations.push(SpaceOperation {
            opname: Opcode::Setfield,
            args: vec![
                Arg::Var(object),
                Arg::Const(Constant::Name(f.clone())),
                Arg::Var(*v),
            ],
            result: r,
            pos: None,
        });
    }
    let return_type = g.info(g.block(g.returnblock).inputargs[0]).clone();
    let mut returned = object;
    if return_type != object_type {
        returned = g.new_var(None, return_type);
        operations.push(SpaceOperation {
            opname: Opcode::CastPointer,
            args: vec![Arg::Var(object)],
            result: returned,
            pos: None,
        });
    }
    let returnblock = g.returnblock;
    g.blocks.push(Block {
        inputargs,
        operations,
        exitswitch: None,
        exits: vec![Link::new(vec![Arg::Var(returned)], returnblock, None)],
    });
    BlockId(g.blocks.len() as u32 - 1)
}
