//! The program's classes as the annotator sees them: one ClassDef per
//! class, as in the original's `classdesc.py`. Each instance attribute has
//! one annotation, the union of every value stored into it (`self.x = ...`,
//! a prebuilt instance's value) and of the class attributes of that name;
//! generalizing it reflows every block that read it. An attribute lives in
//! the most general class it is used through: reading or writing it through
//! a base moves it up from the subclasses that had it ("attribute moves up").
//! Method lookups on an instance give bound methods (`Desc::Method`), one per
//! implementation the instance may run: its class's and every overriding
//! subclass's that has instances.

use super::Annotator;
use crate::language::special_names::special_method_name;
use fxhash::FxHashMap;
use rpy_ir::annotation::{user_class_name as short, ClassDef, Desc, Known, SomeValue};
use rpy_ir::diag::{Diagnostic, Pos};
use rpy_ir::graph::{BlockId, Constant, Flow, PrebuiltObject, Program};
use rpy_ir::opcode::Opcode;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// A class of the program: its base among the program's classes (the
/// first base that is one; builtin bases such as `object` are not classdefs)
/// and its class attributes.
#[derive(Debug)]
struct ClassInfo {
    /// Every base that is a program class, in order: the first is the
    /// classdef's base, the others mixins; class attributes are looked up
    /// through all of them.
    program_bases: Vec<String>,
    attrs: Vec<(String, Constant)>,
    /// What its `_immutable_fields_` or `_immutable_` declares (see
    /// [`ClassDef::immutable_fields`]).
    immutable_fields: Vec<String>,
}

/// The fields a class body declares immutable: the strings of its
/// `_immutable_fields_` (a list or tuple; a quasi-immutable `"x?"`, which
/// may change, is left out), or `"*"` for `_immutable_ = True`.
fn declared_immutable(attrs: &[(String, Constant)], prebuilt: &[PrebuiltObject]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, value) in attrs {
        match (name.as_str(), value) {
            ("_immutable_", Constant::Bool(true)) => out.push("*".to_string()),
            ("_immutable_fields_", Constant::Prebuilt(i)) => {
                if let Some(PrebuiltObject::List(items) | PrebuiltObject::Tuple(items)) =
                    prebuilt.get(*i as usize)
                {
                    for item in items {
                        if let Constant::Str(f) = item {
                            if !f.ends_with('?') {
                                out.push(f.clone());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// One instance attribute of a class.
#[derive(Debug)]
pub(super) struct Attribute {
    pub value: SomeValue,
    /// The blocks that read it, flowed again when it generalizes.
    readers: BTreeSet<(usize, BlockId)>,
    /// The first store of each kind of value, with its graph and position.
    sources: Vec<(SomeValue, usize, Option<Pos>)>,
}

#[derive(Debug, Default)]
pub(super) struct ClassDefs {
    classes: FxHashMap<String, ClassInfo>,
    /// Instance attributes by the class that holds them, then by name
    /// (looked up by `&str`s: a probe makes no key strings).
    attrs: FxHashMap<String, BTreeMap<String, Attribute>>,
    /// Classes with instances (built, or prebuilt).
    instantiated: BTreeSet<String>,
    /// Blocks that looked a method up: a new class with instances may add
    /// an implementation to what they call.
    method_readers: BTreeSet<(usize, BlockId)>,
    /// Prebuilt instances whose attributes were fed to their classdef.
    prebuilt_seen: BTreeSet<u32>,
    /// Conflicts between a prebuilt instance's attributes and what the
    /// program stores, found while annotating a constant (no block to
    /// blame).
    pub prebuilt_errors: Vec<Diagnostic>,
    /// Each class with all its program bases, transitively (itself included).
    all_bases: FxHashMap<String, BTreeSet<String>>,
    /// Each class's chain of bases (`ancestors`), computed once.
    ancestry: FxHashMap<String, Vec<String>>,
    /// Classes got instances since the method readers were last flowed.
    lookups_stale: bool,
    /// The classes derived from each class (not itself), sorted: the
    /// hierarchy is fixed after import, and method lookups ask often.
    derived: FxHashMap<String, Vec<String>>,
    /// The class attributes instances of each class see, by name: the
    /// class defining each and its value (`class_attr`). Found once, as the
    /// classes do not change after import and lookups are many.
    visible: FxHashMap<String, FxHashMap<String, (String, Constant)>>,
    /// What the class attributes of each name are in a class and below
    /// it (`below`), by class and name: found at the first read, as the
    /// classes do not change after import.
    below: FxHashMap<String, FxHashMap<String, Rc<Below>>>,
    /// The bound methods each read of a method gives (`bound_methods`),
    /// by class and name, with the number of classes with instances then:
    /// they change only when a class gets instances.
    methods: FxHashMap<String, FxHashMap<String, (usize, SomeValue)>>,
}

/// The class attributes of one name in a class and its subclasses.
#[derive(Debug, Default)]
pub(super) struct Below {
    /// The function of the first subclass (in `subclasses` order) whose
    /// instances see a function by that name.
    pub subclass_method: Option<String>,
    /// The class's and its subclasses' values that are not functions, each
    /// once, the class's first.
    pub constants: Vec<Constant>,
}

impl ClassDefs {
    pub fn new(program: &Program<Flow>) -> ClassDefs {
        let names: BTreeSet<&str> = program
            .prebuilt
            .iter()
            .filter_map(|p| match p {
                PrebuiltObject::Class { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        let classes = program
            .prebuilt
            .iter()
            .filter_map(|p| match p {
                PrebuiltObject::Class { name, bases, attrs } => Some((
                    name.clone(),
                    ClassInfo {
                        program_bases: bases
                            .iter()
                            .filter(|b| names.contains(b.as_str()))
                            .cloned()
                            .collect(),
                        attrs: attrs.clone(),
                        immutable_fields: declared_immutable(attrs, &program.prebuilt),
                    },
                )),
                _ => None,
            })
            .collect();
        let mut defs = ClassDefs {
            classes,
            ..ClassDefs::default()
        };
        defs.ancestry = defs
            .classes
            .keys()
            .map(|c| (c.clone(), defs.walk_bases(c)))
            .collect();
        defs.all_bases = defs
            .classes
            .keys()
            .map(|c| {
                let mut seen = BTreeSet::new();
                let mut stack = vec![c.clone()];
                while let Some(k) = stack.pop() {
                    if seen.insert(k.clone()) {
                        if let Some(info) = defs.classes.get(&k) {
                            stack.extend(info.program_bases.iter().cloned());
                        }
                    }
                }
                (c.clone(), seen)
            })
            .collect();
        let mut derived: FxHashMap<String, Vec<String>> = FxHashMap::default();
        for (class, bases) in &defs.all_bases {
            for ancestor in bases.iter().filter(|b| *b != class) {
                derived
                    .entry(ancestor.clone())
                    .or_default()
                    .push(class.clone());
            }
        }
        derived.values_mut().for_each(|v| v.sort());
        defs.derived = derived;
        defs.visible = defs
            .classes
            .keys()
            .map(|class| {
                let names: BTreeSet<&str> = defs.all_bases[class]
                    .iter()
                    .filter_map(|b| defs.classes.get(b))
                    .flat_map(|info| info.attrs.iter().map(|(n, _)| n.as_str()))
                    .collect();
                let seen = names
                    .into_iter()
                    .filter_map(|name| {
                        let found = defs.find_class_attr(class, name, &mut BTreeSet::new())?;
                        Some((name.to_string(), found))
                    })
                    .collect();
                (class.clone(), seen)
            })
            .collect();
        defs
    }

    /// What the rtyper needs of each class, bases first: its layout base
    /// (a program class, or else the builtin exception class it derives
    /// from), the instance attributes it holds and whether it has
    /// instances.
    pub(super) fn export(&self, hierarchy: &super::exceptions::Hierarchy) -> Vec<ClassDef> {
        let mut names: Vec<&String> = self.classes.keys().collect();
        names.sort();
        let mut out: Vec<ClassDef> = Vec::new();
        let mut placed = BTreeSet::new();
        // Depth-first so that each base precedes its subclasses; the
        // names are sorted so the order is deterministic.
        for name in names {
            let mut chain: Vec<String> = self
                .ancestors(name)
                .iter()
                .filter(|c| !placed.contains(*c))
                .cloned()
                .collect();
            chain.reverse();
            for class in chain {
                let info = &self.classes[&class];
                let base = info.program_bases.first().cloned().or_else(|| {
                    hierarchy
                        .builtin_base(&class)
                        .filter(|b| *b != "object")
                        .map(str::to_string)
                });
                let attrs = self
                    .attrs
                    .get(&class)
                    .into_iter()
                    .flatten()
                    .map(|(n, a)| (n.clone(), a.value.clone()))
                    .collect();
                out.push(ClassDef {
                    name: class.clone(),
                    base,
                    attrs,
                    instantiated: self.instantiated.contains(&class),
                    immutable_fields: info.immutable_fields.clone(),
                });
                placed.insert(class);
            }
        }
        out
    }

    pub fn is_program_class(&self, class: &str) -> bool {
        self.classes.contains_key(class)
    }

    /// `class`, its base, its base's base, ...
    pub fn ancestors(&self, class: &str) -> Cow<'_, [String]> {
        match self.ancestry.get(class) {
            Some(chain) => Cow::Borrowed(chain),
            None => Cow::Owned(self.walk_bases(class)),
        }
    }

    /// The annotation of instance attribute `name` of `class`, as held by
    /// the class (or the ancestor) it lives in.
    pub fn attr_value(&self, class: &str, name: &str) -> Option<&SomeValue> {
        self.ancestors(class)
            .iter()
            .find_map(|c| self.attr(c, name))
            .map(|a| &a.value)
    }

    /// Instance attribute `name` as held by `class` itself.
    fn attr(&self, class: &str, name: &str) -> Option<&Attribute> {
        self.attrs.get(class)?.get(name)
    }

    fn attr_mut(&mut self, class: &str, name: &str) -> Option<&mut Attribute> {
        self.attrs.get_mut(class)?.get_mut(name)
    }

    /// The class attributes named `name` of `class` and of its subclasses.
    pub(super) fn below(&mut self, class: &str, name: &str) -> Rc<Below> {
        if let Some(found) = self.below.get(class).and_then(|m| m.get(name)) {
            return found.clone();
        }
        let mut below = Below::default();
        for c in std::iter::once(class).chain(self.subclasses(class).iter().map(String::as_str)) {
            match self.class_attr(c, name) {
                Some((_, Constant::Func(f))) if c != class && below.subclass_method.is_none() => {
                    below.subclass_method = Some(f.clone());
                }
                Some((_, Constant::Func(_))) => {}
                Some((_, k)) if !below.constants.contains(k) => below.constants.push(k.clone()),
                _ => {}
            }
        }
        let below = Rc::new(below);
        self.below
            .entry(class.to_string())
            .or_default()
            .insert(name.to_string(), below.clone());
        below
    }

    /// The prebuilt objects that are class attributes some instance's
    /// reader saw (`below`), sorted: no graph names them, the rtyper reads
    /// them from the class.
    pub(super) fn prebuilt_class_attrs_read(&self) -> Vec<u32> {
        let mut found: Vec<u32> = self
            .below
            .values()
            .flat_map(|by_name| by_name.values())
            .flat_map(|below| below.constants.iter())
            .filter_map(|c| match c {
                Constant::Prebuilt(i) => Some(*i),
                _ => None,
            })
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }

    /// The chain `ancestors` gives, found by walking the bases.
    fn walk_bases(&self, class: &str) -> Vec<String> {
        let mut out = vec![class.to_string()];
        while let Some(base) = self
            .classes
            .get(out.last().map(String::as_str).unwrap_or_default())
            .and_then(|c| c.program_bases.first().cloned())
        {
            if out.contains(&base) {
                break;
            }
            out.push(base);
        }
        out
    }

    /// Through every program base, mixins included (`isinstance`).
    pub fn is_subclass(&self, class: &str, ancestor: &str) -> bool {
        match self.all_bases.get(class) {
            Some(bases) => bases.contains(ancestor),
            None => class == ancestor,
        }
    }

    /// The most derived class both derive from, if any.
    pub fn common_base(&self, a: &str, b: &str) -> Option<String> {
        let of_b = self.ancestors(b);
        self.ancestors(a).iter().find(|c| of_b.contains(c)).cloned()
    }

    /// The program's classes derived from `class` (not itself) through any
    /// of their bases, by name.
    fn subclasses(&self, class: &str) -> &[String] {
        self.derived.get(class).map_or(&[], Vec::as_slice)
    }

    /// The subclasses whose chain of first bases reaches `class`: the ones
    /// whose attributes `class`'s classdef holds.
    fn classdef_subclasses(&self, class: &str) -> Vec<String> {
        self.subclasses(class)
            .iter()
            .filter(|c| self.ancestors(c).iter().any(|a| a == class))
            .cloned()
            .collect()
    }

    /// Class attribute `name` as instances of `class` see it: the class that
    /// defines it and its value.
    pub fn class_attr(&self, class: &str, name: &str) -> Option<(&str, &Constant)> {
        let (owner, value) = self.visible.get(class)?.get(name)?;
        Some((owner, value))
    }

    /// What `class_attr` gives, found by searching the bases depth first,
    /// left to right (Python's order for a hierarchy without diamonds), so
    /// a mixin's methods are found.
    fn find_class_attr(
        &self,
        class: &str,
        name: &str,
        visited: &mut BTreeSet<String>,
    ) -> Option<(String, Constant)> {
        if !visited.insert(class.to_string()) {
            return None;
        }
        let info = self.classes.get(class)?;
        if let Some((_, value)) = info.attrs.iter().find(|(n, _)| n == name) {
            return Some((class.to_string(), value.clone()));
        }
        info.program_bases
            .iter()
            .find_map(|b| self.find_class_attr(b, name, visited))
    }
}

/// The class an attribute value of `class` lives in, once found or made.
struct Home {
    class: String,
    /// Readers of attributes merged into it, to flow again.
    moved_readers: Vec<(usize, BlockId)>,
}

impl<'p> Annotator<'p> {
    /// Marks `class` as having instances; method lookups are redone.
    /// They are flowed again once the worklist is empty (`redo_class_lookups`),
    /// not at each new class: a program building instances of many classes
    /// would otherwise reflow every method call once per class.
    pub(super) fn instantiate(&mut self, class: &str) {
        // Every build of an instance asks: the name is copied only once.
        if !self.classdefs.instantiated.contains(class) {
            self.classdefs.instantiated.insert(class.to_string());
            self.classdefs.lookups_stale = true;
        }
    }

    /// Schedules the blocks that looked methods or classes up, when classes
    /// got instances since they were flowed; false when there is nothing to
    /// redo.
    pub(super) fn redo_class_lookups(&mut self) -> bool {
        if !std::mem::take(&mut self.classdefs.lookups_stale) {
            return false;
        }
        let readers: Vec<_> = self.classdefs.method_readers.iter().copied().collect();
        self.schedule_all(readers);
        !self.pending.is_empty()
    }

    /// The annotation of prebuilt instance `i` of `class`: its attributes'
    /// values feed the classdef, once.
    pub(super) fn prebuilt_instance(
        &mut self,
        i: u32,
        class: &str,
        attrs: &[(String, Constant)],
    ) -> SomeValue {
        self.instantiate(class);
        if self.classdefs.prebuilt_seen.insert(i) {
            for (name, c) in attrs {
                let value = self.constant(c);
                // A value that does not fit what the program stores is
                // reported where the program stores it (or, when the
                // program stored first, here, with the store's position).
                if let Err(d) = self.store_attr(class, name, &value, usize::MAX, None) {
                    self.classdefs.prebuilt_errors.push(d);
                }
            }
        }
        SomeValue::Instance {
            class: class.to_string(),
            can_be_none: false,
        }
    }

    /// Finds the class holding attribute `name` for instances of `class`:
    /// an ancestor that has it, else `class` itself, taking it over from
    /// the subclasses that had it (their values joined).
    fn attr_home(&mut self, class: &str, name: &str) -> Result<Home, (SomeValue, SomeValue)> {
        for c in self.classdefs.ancestors(class).iter() {
            if self.classdefs.attr(c, name).is_some() {
                return Ok(Home {
                    class: c.clone(),
                    moved_readers: Vec::new(),
                });
            }
        }
        let mut home = Attribute {
            value: SomeValue::Impossible,
            readers: BTreeSet::new(),
            sources: Vec::new(),
        };
        for sub in self.classdefs.classdef_subclasses(class) {
            let Some(moved) = self
                .classdefs
                .attrs
                .get_mut(&sub)
                .and_then(|m| m.remove(name))
            else {
                continue;
            };
            home.value = self
                .join(&home.value, &moved.value)
                .ok_or_else(|| (home.value.clone(), moved.value.clone()))?;
            home.readers.extend(moved.readers);
            home.sources.extend(moved.sources);
        }
        let moved_readers = home.readers.iter().copied().collect();
        self.classdefs
            .attrs
            .entry(class.to_string())
            .or_default()
            .insert(name.to_string(), home);
        Ok(Home {
            class: class.to_string(),
            moved_readers,
        })
    }

    /// `self.name = value` on an instance of `class` in graph `g` (`usize::MAX`:
    /// a prebuilt instance): the attribute generalizes, its readers reflow.
    pub(super) fn store_attr(
        &mut self,
        class: &str,
        name: &str,
        value: &SomeValue,
        g: usize,
        pos: Option<Pos>,
    ) -> Result<(), Diagnostic> {
        let value = value.general();
        let home = self
            .attr_home(class, name)
            .map_err(|(a, b)| self.attr_conflict(class, name, &a, &b, g, pos))?;
        self.schedule_all(home.moved_readers);
        let old = self
            .classdefs
            .attr(&home.class, name)
            .expect("home exists")
            .value
            .clone();
        let Some(new) = self.join(&old, &value) else {
            return Err(self.attr_conflict(&home.class, name, &old, &value, g, pos));
        };
        let new = self.containers.resolve(&new);
        let attr = self
            .classdefs
            .attr_mut(&home.class, name)
            .expect("home exists");
        if !attr.sources.iter().any(|(v, _, _)| *v == value) {
            attr.sources.push((value.clone(), g, pos));
        }
        if new != old {
            attr.value = new;
            let readers: Vec<_> = attr.readers.iter().copied().collect();
            self.schedule_all(readers);
        }
        Ok(())
    }

    /// "attribute 'x' of instances of C is an int here (...) and a str here (...)".
    fn attr_conflict(
        &self,
        class: &str,
        name: &str,
        old: &SomeValue,
        new: &SomeValue,
        g: usize,
        pos: Option<Pos>,
    ) -> Diagnostic {
        let old_source = self
            .classdefs
            .attr(class, name)
            .and_then(|a| {
                a.sources
                    .iter()
                    .find(|(v, _, _)| super::union(v, new).is_none())
            })
            .map(|(_, sg, spos)| (*sg, *spos));
        let old_where = old_source
            .map(|(sg, spos)| self.attr_source(sg, spos))
            .unwrap_or_else(|| "before".into());
        let message = format!(
            "attribute '{name}' of {} instances is {} here ({old_where}) and {} here ({}); \
             RPython needs one type for each attribute",
            short(class),
            old.describe(),
            new.describe(),
            self.attr_source(g, pos),
        );
        // A prebuilt instance has no position: the program's store does.
        let (g, pos) = match (g, old_source) {
            (usize::MAX, Some((sg, spos))) if sg != usize::MAX => (sg, spos),
            (usize::MAX, _) => (0, None),
            _ => (g, pos),
        };
        let d = self.error(g, pos, message);
        match unrelated_classes_note(old, new) {
            Some(note) => d.with_note(note),
            None => d,
        }
    }

    fn attr_source(&self, g: usize, pos: Option<Pos>) -> String {
        if g == usize::MAX {
            return "in an instance built at import time".into();
        }
        match pos {
            Some(_) => super::provenance::describe_pos(pos, &self.program.sources),
            None => format!("in {}()", self.graph(g).name),
        }
    }

    /// Attribute `name` of instances of `class` as its readers see it:
    /// `value` (what is stored) joined with the class attributes of that
    /// name of `class` and of its subclasses (not methods: an attribute
    /// with a method of that name is the method). `value` when they do not
    /// join (the readers reported that).
    pub(super) fn attr_as_read(&mut self, class: &str, name: &str, value: &SomeValue) -> SomeValue {
        let below = self.classdefs.below(class, name);
        let mut joined = value.clone();
        for k in &below.constants {
            let v = self.constant(k).general();
            match self.join(&joined, &v) {
                Some(j) => joined = j,
                None => return value.clone(),
            }
        }
        joined
    }

    /// `obj.name` on an instance of `class`, read in block `b` of `g`.
    pub(super) fn read_attr(
        &mut self,
        g: usize,
        b: BlockId,
        class: &str,
        name: &str,
        pos: Option<Pos>,
    ) -> Result<SomeValue, Diagnostic> {
        if let Some((_, Constant::Func(f))) = self.classdefs.class_attr(class, name) {
            let f = f.clone();
            return Ok(self.bound_methods(g, b, class, name, &f));
        }
        // A method only subclasses define (the base leaves it abstract):
        // the implementations of the subclasses with instances.
        let below = self.classdefs.below(class, name);
        if let Some(f) = &below.subclass_method {
            let methods = self.bound_methods(g, b, class, name, f);
            if !matches!(&methods, SomeValue::Pbc { descs, .. } if descs.is_empty()) {
                return Ok(methods);
            }
            return Err(self.error(
                g,
                pos,
                format!(
                    "'{name}' is a method of subclasses of {} only, and none of them has \
                     instances yet",
                    short(class)
                ),
            ));
        }
        let home = self
            .attr_home(class, name)
            .map_err(|(a, c)| self.attr_conflict(class, name, &a, &c, g, pos))?;
        self.schedule_all(home.moved_readers);
        let attr = self
            .classdefs
            .attr_mut(&home.class, name)
            .expect("home exists");
        attr.readers.insert((g, b));
        let mut value = attr.value.clone();
        // Class attributes of that name, the instance's class's and every
        // subclass's that overrides it (none is a method here: the
        // class's would have bound, a subclass's is `subclass_method`).
        for k in &below.constants {
            let v = self.constant(k).general();
            value = self
                .join(&value, &v)
                .ok_or_else(|| self.attr_conflict(&home.class, name, &value, &v, g, pos))?;
        }
        if value == SomeValue::Impossible && self.is_exception_class(class) {
            if let "args" | "message" = name {
                return Err(self.error(
                    g,
                    pos,
                    format!(
                        "RPython exceptions have no '{name}': give {} an attribute for what \
                         the handler needs ('self.detail = detail' in its __init__) and read that",
                        short(class)
                    ),
                ));
            }
        }
        if value == SomeValue::Impossible {
            return Err(self.error(
                g,
                pos,
                format!(
                    "{} instances have no attribute '{name}': no method has that name and \
                     no code sets it (write 'self.{name} = ...' in __init__, or give the class \
                     a default)",
                    short(class)
                ),
            ));
        }
        Ok(value)
    }

    /// The bound methods `obj.name` may be for an instance of `class` whose
    /// class defines it as function `found`: that implementation and every
    /// override in a subclass with instances, each bound to the class it is
    /// defined in when that is below `class`. A static method is its function.
    fn bound_methods(
        &mut self,
        g: usize,
        b: BlockId,
        class: &str,
        name: &str,
        found: &str,
    ) -> SomeValue {
        let is_static = self
            .graph_index
            .get(found)
            .is_some_and(|&i| self.graph(i).hints.iter().any(|h| h == "staticmethod"));
        if is_static {
            return SomeValue::function(found.to_string());
        }
        self.classdefs.method_readers.insert((g, b));
        let instantiated = self.classdefs.instantiated.len();
        if let Some((when, methods)) = self.classdefs.methods.get(class).and_then(|m| m.get(name)) {
            // The same classes have instances as when it was found.
            if *when == instantiated {
                return methods.clone();
            }
        }
        let defs = &self.classdefs;
        let with_instances = defs
            .subclasses(class)
            .iter()
            .map(String::as_str)
            .filter(|c| defs.instantiated.contains(*c));
        let mut descs: Vec<Desc> = std::iter::once(class)
            .chain(with_instances)
            .filter_map(|c| match defs.class_attr(c, name) {
                Some((owner, Constant::Func(func))) => Some(Desc::Method {
                    class: if defs.is_subclass(owner, class) {
                        owner
                    } else {
                        class
                    }
                    .to_string(),
                    func: func.clone(),
                }),
                _ => None,
            })
            .collect();
        descs.sort();
        descs.dedup();
        let methods = SomeValue::Pbc {
            descs: descs.into(),
            can_be_none: false,
        };
        self.classdefs
            .methods
            .entry(class.to_string())
            .or_default()
            .insert(name.to_string(), (instantiated, methods.clone()));
        methods
    }

    /// `type(x)` of an instance of `class`: its class or any subclass with
    /// instances.
    pub(super) fn classes_of(&mut self, g: usize, b: BlockId, class: &str) -> SomeValue {
        self.classdefs.method_readers.insert((g, b));
        let mut descs = vec![Desc::Class(class.to_string())];
        descs.extend(
            self.classdefs
                .subclasses(class)
                .iter()
                .filter(|c| self.classdefs.instantiated.contains(*c))
                .cloned()
                .map(Desc::Class),
        );
        descs.sort();
        SomeValue::Pbc {
            descs: descs.into(),
            can_be_none: false,
        }
    }

    /// `isinstance(x, C)`: known when x's class decides it, or when no
    /// instance of C (or of a subclass) is ever built; a tuple of classes
    /// is a bool.
    pub(super) fn isinstance(
        &mut self,
        g: usize,
        b: BlockId,
        value: &SomeValue,
        class: &SomeValue,
    ) -> Option<SomeValue> {
        if let SomeValue::Builtin(ty) = class {
            return isinstance_of_builtin_type(value, ty);
        }
        if let SomeValue::Tuple(classes) = class {
            return classes
                .iter()
                .all(|c| matches!(c, SomeValue::Pbc { .. }))
                .then_some(SomeValue::Bool);
        }
        let SomeValue::Pbc { descs, .. } = class else {
            return None;
        };
        let [Desc::Class(c)] = &descs[..] else {
            return None;
        };
        // A class with instances later makes this call flowed again.
        self.classdefs.method_readers.insert((g, b));
        let has_instances = |defs: &ClassDefs| {
            std::iter::once(c)
                .chain(defs.subclasses(c))
                .any(|k| defs.instantiated.contains(k))
        };
        Some(match value {
            SomeValue::Instance { .. } if !has_instances(&self.classdefs) => {
                SomeValue::Const(Known::Bool(false))
            }
            SomeValue::Instance {
                class: k,
                can_be_none,
            } => {
                if !can_be_none && self.classdefs.is_subclass(k, c) {
                    SomeValue::Const(Known::Bool(true))
                } else if self.classdefs.is_subclass(c, k) || self.classdefs.is_subclass(k, c) {
                    SomeValue::Bool
                } else {
                    SomeValue::Const(Known::Bool(false))
                }
            }
            SomeValue::None => SomeValue::Const(Known::Bool(false)),
            _ => SomeValue::Bool,
        })
    }

    /// The join of instances of two different classes: their common base.
    pub(super) fn join_instances(&self, a: &SomeValue, b: &SomeValue) -> Option<SomeValue> {
        match (a, b) {
            (
                SomeValue::Instance {
                    class: c1,
                    can_be_none: n1,
                },
                SomeValue::Instance {
                    class: c2,
                    can_be_none: n2,
                },
            ) if c1 != c2 => Some(SomeValue::Instance {
                class: self.classdefs.common_base(c1, c2)?,
                can_be_none: *n1 || *n2,
            }),
            _ => None,
        }
    }

    /// Building an instance of program class `class` with `args`: its
    /// `__init__` (the nearest one) is called with the instance first.
    pub(super) fn instantiate_call(
        &mut self,
        g: usize,
        b: BlockId,
        op: &rpy_ir::graph::SpaceOperation,
        class: &str,
        args: &[SomeValue],
    ) -> Result<SomeValue, Diagnostic> {
        let instance = SomeValue::Instance {
            class: class.to_string(),
            can_be_none: false,
        };
        let has_init = self.run_init(g, b, op, class, &instance, args)?;
        if !has_init && !args.is_empty() {
            return Err(self.error(
                g,
                op.pos,
                format!(
                    "{}() takes no arguments (the class has no __init__) but is called with {}",
                    short(class),
                    args.len()
                ),
            ));
        }
        Ok(instance)
    }

    /// Marks `class` as having instances and calls its nearest `__init__`
    /// with `instance` first; false when it has none.
    fn run_init(
        &mut self,
        g: usize,
        b: BlockId,
        op: &rpy_ir::graph::SpaceOperation,
        class: &str,
        instance: &SomeValue,
        args: &[SomeValue],
    ) -> Result<bool, Diagnostic> {
        self.instantiate(class);
        // The GC calls __del__ on every instance, so it is reached as if
        // called here (the original's emulated call).
        if let Some((_, Constant::Func(del))) = self.classdefs.class_attr(class, "__del__") {
            let del = del.clone();
            self.call(g, b, op, &del, std::slice::from_ref(instance), 1)?;
        }
        let Some((_, Constant::Func(init))) = self.classdefs.class_attr(class, "__init__") else {
            return Ok(false);
        };
        let init = init.clone();
        let mut all = vec![instance.clone()];
        all.extend(args.iter().cloned());
        self.call(g, b, op, &init, &all, 1)?;
        Ok(true)
    }
}

/// `isinstance(value, ty)` of a builtin type (`int`, `str`, ...): known
/// from the kind of `value`, as the original folds it, so code written
/// for several argument types (a `specialize.argtype` function) keeps only
/// the branch of each copy's type.
fn isinstance_of_builtin_type(value: &SomeValue, ty: &str) -> Option<SomeValue> {
    use SomeValue as S;
    let general = value.general();
    let holds = match (ty, &general) {
        // An r_uint is no int in Python 2 and one in Python 3's stand-in;
        // a bool of the int lattice may be either.
        ("int", S::Integer { unsigned: true, .. }) | ("bool", S::Integer { .. }) => {
            return Some(S::Bool)
        }
        ("int", S::Integer { .. } | S::Bool)
        | ("bool", S::Bool)
        | ("float", S::Float)
        | ("str", S::String { .. } | S::Char)
        | ("unicode", S::Unicode { .. })
        | ("list", S::List(_))
        | ("dict", S::Dict(_))
        | ("tuple", S::Tuple(_)) => true,
        ("int" | "bool" | "float" | "str" | "unicode" | "list" | "dict" | "tuple", _) => false,
        _ => return None,
    };
    // isinstance(None, str) is False.
    if holds && general.can_be_none() {
        return Some(S::Bool);
    }
    Some(S::Const(Known::Bool(holds)))
}

impl<'p> Annotator<'p> {
    /// `value` where `isinstance(value, class)` holds: an instance of
    /// `class` when that is below its class, never None. An exception of
    /// several classes keeps those of `class` (a handler's test of a
    /// re-raised exception), and is of `class` itself where that is below
    /// one of them; of none, no value passes.
    pub(super) fn narrow_to_instance(&self, value: SomeValue, class: &str) -> SomeValue {
        match &value {
            SomeValue::Instance { class: k, .. } if self.classdefs.is_subclass(class, k) => {
                SomeValue::Instance {
                    class: class.to_string(),
                    can_be_none: false,
                }
            }
            SomeValue::Exception { classes, .. } => {
                let mut kept: Vec<String> = classes
                    .iter()
                    .filter(|k| self.hierarchy.is_subclass(k, class))
                    .cloned()
                    .collect();
                if classes.iter().any(|k| self.hierarchy.is_subclass(class, k))
                    && !kept.iter().any(|k| k == class)
                {
                    kept.push(class.to_string());
                    kept.sort();
                }
                if kept.is_empty() {
                    SomeValue::Impossible
                } else {
                    SomeValue::exception(kept)
                }
            }
            _ => value.without_none(),
        }
    }
}

/// The builtin a program exception class's `__init__` is when the program
/// does not define one (`EvalError.__init__(self, msg)` in a subclass).
pub(super) const BASE_EXCEPTION_INIT: &str = "BaseException.__init__";

impl<'p> Annotator<'p> {
    fn is_exception_class(&self, class: &str) -> bool {
        self.hierarchy.is_subclass(class, "BaseException")
    }

    /// What `self` is in a method of `class`: an exception of that class
    /// for an exception class, else an instance.
    pub(super) fn instance_of(&self, class: &str) -> SomeValue {
        if self.is_exception_class(class) {
            SomeValue::exception(vec![class.to_string()])
        } else {
            SomeValue::Instance {
                class: class.to_string(),
                can_be_none: false,
            }
        }
    }

    /// The program class whose instance attributes `object` has: an
    /// instance's class, an exception's `exception_class`.
    pub(super) fn attribute_class(&self, object: &SomeValue) -> Option<String> {
        match object {
            SomeValue::Instance { class, .. } => Some(class.clone()),
            exception @ SomeValue::Exception { .. } => self.exception_class(exception),
            _ => None,
        }
    }

    /// The program class whose attributes an exception of these classes
    /// has: their common base, when every one is the program's.
    fn exception_class(&self, exception: &SomeValue) -> Option<String> {
        let SomeValue::Exception { classes, .. } = exception else {
            return None;
        };
        let (first, rest) = classes.split_first()?;
        if !classes.iter().all(|c| self.classdefs.is_program_class(c)) {
            return None;
        }
        rest.iter()
            .try_fold(first.clone(), |acc, c| self.classdefs.common_base(&acc, c))
    }

    /// `C.name` of program class `class`: a method is its function, a class
    /// attribute its value; `__init__` of an exception class the program
    /// gives none is the builtin one.
    pub(super) fn class_getattr(&mut self, class: &str, name: &str) -> Option<SomeValue> {
        match self
            .classdefs
            .class_attr(class, name)
            .map(|(_, v)| v.clone())
        {
            Some(Constant::Func(f)) => Some(SomeValue::function(f)),
            Some(value) => Some(self.constant(&value)),
            None if name == "__init__" && self.is_exception_class(class) => {
                Some(SomeValue::Builtin(BASE_EXCEPTION_INIT.into()))
            }
            None => None,
        }
    }

    /// Class attribute `name` read through a variable holding one of
    /// several classes: the join of what each class has. A class without
    /// it adds nothing, as the original's `s_read_attribute` gives it the
    /// impossible value (its vtable slot keeps the zero of the slot's
    /// type, which is what the read gives there); `None` when none has it,
    /// or when one is a method (a function read off a class is not a
    /// value rpy's class slots hold).
    pub(super) fn classes_getattr(&mut self, classes: &[&str], name: &str) -> Option<SomeValue> {
        let mut result = SomeValue::Impossible;
        for class in classes {
            let value = match self.classdefs.class_attr(class, name) {
                Some((_, Constant::Func(_))) => return None,
                Some((_, value)) => value.clone(),
                None => continue,
            };
            let value = self.constant(&value);
            result = self.join(&result, &value)?;
        }
        (result != SomeValue::Impossible).then_some(result)
    }

    /// `E(args)` of an exception class: the program's `__init__` runs with
    /// the new exception as self.
    pub(super) fn build_exception(
        &mut self,
        g: usize,
        b: BlockId,
        op: &rpy_ir::graph::SpaceOperation,
        class: &str,
        args: &[SomeValue],
    ) -> Result<SomeValue, Diagnostic> {
        let exception = SomeValue::exception(vec![class.to_string()]);
        if !self.classdefs.is_program_class(class) {
            return Ok(exception);
        }
        self.run_init(g, b, op, class, &exception, args)?;
        Ok(exception)
    }
}

impl<'p> Annotator<'p> {
    /// The special method operation `opname` calls on an instance of
    /// `class`, when the class (or a subclass) defines one.
    pub(super) fn special_method(&self, class: &str, opname: Opcode) -> Option<&'static str> {
        let m = special_method_name(opname, self.dialect)?;
        std::iter::once(class)
            .chain(self.classdefs.subclasses(class).iter().map(String::as_str))
            .any(|c| {
                matches!(
                    self.classdefs.class_attr(c, m),
                    Some((_, Constant::Func(_)))
                )
            })
            .then_some(m)
    }

    /// `len(x)`, `x[i]`, `for v in x`, ... on an instance: its special
    /// method called with `rest`.
    pub(super) fn call_special(
        &mut self,
        g: usize,
        b: BlockId,
        op: &rpy_ir::graph::SpaceOperation,
        class: &str,
        method: &str,
        rest: &[SomeValue],
    ) -> Result<SomeValue, Diagnostic> {
        let methods = self.read_attr(g, b, class, method, op.pos)?;
        let SomeValue::Pbc { descs, .. } = methods else {
            return Err(self.error(
                g,
                op.pos,
                format!("{method} of {} is not a method", short(class)),
            ));
        };
        let mut result = SomeValue::Impossible;
        for desc in descs.iter() {
            let r = self.call_desc(g, b, op, desc, rest)?;
            result = self.join(&result, &r).ok_or_else(|| {
                self.error(
                    g,
                    op.pos,
                    format!(
                        "the {method} methods called here return {} and {}; RPython needs one type",
                        result.describe(),
                        r.describe()
                    ),
                )
            })?;
        }
        Ok(result)
    }

    /// What the special method `method` of an instance of `class` (or of a
    /// subclass) may raise.
    pub(super) fn special_raised(&self, class: &str, method: &str) -> super::Raised {
        let mut raised = super::Raised::default();
        let subclasses = self.classdefs.subclasses(class).iter().map(String::as_str);
        for c in std::iter::once(class).chain(subclasses) {
            if let Some((_, Constant::Func(f))) = self.classdefs.class_attr(c, method) {
                raised.extend(&self.raised_by_function(f));
            }
        }
        raised
    }
}

/// The note for two instances that cannot meet: their classes have no
/// common base.
pub(super) fn unrelated_classes_note(a: &SomeValue, b: &SomeValue) -> Option<String> {
    match (a, b) {
        (SomeValue::Instance { class: a, .. }, SomeValue::Instance { class: b, .. }) => {
            Some(format!(
                "{} and {} have no common base class; to keep both in one place, derive \
                 them from one base class and use its methods",
                short(a),
                short(b)
            ))
        }
        _ => None,
    }
}

impl<'p> Annotator<'p> {
    /// For `--explain`: the attribute `name` of instances `object` holds,
    /// its annotation and every kind of value stored into it, with where.
    pub(super) fn describe_attribute(&self, object: &SomeValue, name: &str) -> Option<String> {
        let class = self.attribute_class(object)?;
        let ancestors = self.classdefs.ancestors(&class);
        let (home, attr) = ancestors.iter().find_map(|c| {
            let attr = self.classdefs.attr(c, name)?;
            Some((c, attr))
        })?;
        let mut out = format!(
            "  attribute '{name}' of {} instances: {}\n",
            short(home),
            attr.value
        );
        for (value, g, pos) in &attr.sources {
            out.push_str(&format!("    {value}, {}\n", self.attr_source(*g, *pos)));
        }
        Some(out)
    }
}

impl<'p> Annotator<'p> {
    /// What iterating over an instance of `class` gives (`list(x)`): the
    /// result of `__next__` (or `next`) of what its `__iter__` returns;
    /// `None` when the class is not iterable.
    pub(super) fn items_of_instance(
        &mut self,
        g: usize,
        b: BlockId,
        op: &rpy_ir::graph::SpaceOperation,
        class: &str,
    ) -> Option<Result<SomeValue, Diagnostic>> {
        let iter = self.special_method(class, Opcode::Iter)?;
        let iterator = match self.call_special(g, b, op, class, iter, &[]) {
            Ok(SomeValue::Instance { class, .. }) => class,
            Ok(_) => return None,
            Err(e) => return Some(Err(e)),
        };
        let next = self.special_method(&iterator, Opcode::Next)?;
        Some(self.call_special(g, b, op, &iterator, next, &[]))
    }
}
