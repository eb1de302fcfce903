//! The C structs of the program's container types.
//!
//! Every container starts with the GC header word `long gc_hdr`; the fields
//! follow as `f_<name>` members in declaration order, so C's own alignment
//! rules give exactly the offsets of `ContainerType::layout()` (checked by
//! `_Static_assert`s in the generated file). A `GcArray` is `{ gc_hdr;
//! f_length; items[] }`; a varsized `GcStruct` ends in the flexible array
//! member `items[]`. Void fields and Void items take no space and have no member.
//!
//! A function pointer type is a typedef per signature, `rpy_fn_<N>`, numbered
//! in the order the program first mentions them (the type table, then the
//! graphs' variables); a parameter of type Void is left out, as graphs'
//! prototypes leave it out.

use crate::collector_calls::CollectorCalls;
use crate::names::{c_ident, comment_text, Namespace};
use rpy_ir::lltype::{self, ContainerType, FuncSig, LowLevelType, TypeTable};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The C type of a value of a low-level type (`void` for Void).
pub fn c_type<'t>(t: &LowLevelType, types: &'t Types) -> Cow<'t, str> {
    match t {
        LowLevelType::Void => "void".into(),
        LowLevelType::Signed => "long".into(),
        LowLevelType::Unsigned => "unsigned long".into(),
        LowLevelType::Float => "double".into(),
        LowLevelType::Bool => "bool".into(),
        LowLevelType::Char => "unsigned char".into(),
        LowLevelType::Ptr(name) => match types.pointer_types.get(name.as_str()) {
            Some(c) => c.as_str().into(),
            None => format!("struct {} *", types.struct_tag(name)).into(),
        },
        LowLevelType::FuncPtr(sig) => types.fn_typedef(sig).into(),
    }
}

/// A C declaration of `name` with the type of `t` ("long v1", "struct S_x *v2").
pub fn c_decl(t: &LowLevelType, name: &str, types: &Types) -> String {
    let mut out = String::new();
    write_c_decl(&mut out, t, name, types);
    out
}

/// [`c_decl`] written at the end of `out`: GenC declares every variable of
/// every function, and a string apiece was a tenth of its time.
pub fn write_c_decl(
    out: &mut String,
    t: &LowLevelType,
    name: impl std::fmt::Display,
    types: &Types,
) {
    let ct = c_type(t, types);
    out.push_str(&ct);
    if !ct.ends_with('*') {
        out.push(' ');
    }
    let _ = write!(out, "{name}");
}

/// The program's container types with their C names.
pub struct Types {
    /// The program's table plus the types the runtime needs.
    pub table: TypeTable,
    /// Type name -> C struct tag, for every type in the table and every other
    /// name a pointer refers to (those stay incomplete C types).
    tags: BTreeMap<String, String>,
    /// `tags` by hash, for the lookups of every declaration.
    tag_index: fxhash::FxHashMap<String, String>,
    /// Type name -> the C type of a pointer to it (`struct S_x *`), for
    /// every name `tags` has.
    pointer_types: fxhash::FxHashMap<String, String>,
    /// Type name -> field name -> C member name.
    members: fxhash::FxHashMap<String, fxhash::FxHashMap<String, String>>,
    /// Every function pointer type, inner ones before those whose
    /// parameters or result they are, with its typedef name.
    fn_types: Vec<(FuncSig, String)>,
    /// Index of each signature in `fn_types`.
    fn_index: fxhash::FxHashMap<FuncSig, usize>,
    /// Type name -> the collector's type id (its rank in `table`, from 1).
    ids: fxhash::FxHashMap<String, usize>,
    /// Type name -> field -> the struct the field is accessed through,
    /// where that is another type (`aliasing::field_owners`).
    owners: fxhash::FxHashMap<String, fxhash::FxHashMap<String, String>>,
}

/// Adds the function signatures in `t` to `out`, inner ones first, and the
/// names of the container types it points to to `names`.
fn collect_type(t: &LowLevelType, out: &mut Vec<FuncSig>, names: &mut Vec<String>) {
    match t {
        LowLevelType::FuncPtr(sig) => {
            for p in sig.params.iter().chain([&sig.result]) {
                collect_type(p, out, names);
            }
            if !out.contains(sig) {
                out.push((**sig).clone());
            }
        }
        LowLevelType::Ptr(name) => names.push(name.clone()),
        _ => {}
    }
}

impl Types {
    /// Adds the runtime's types to `table` (failing when the program defines
    /// one of their names differently) and names everything; `mentioned`
    /// are the other types the program uses (its variables'), whose pointer
    /// targets stay incomplete C types when the table lacks them.
    pub fn new<'t>(
        table: &TypeTable,
        mentioned: impl IntoIterator<Item = &'t LowLevelType>,
    ) -> Result<Types, String> {
        let mut table = table.clone();
        let mut sigs = Vec::new();
        let mut other_names = Vec::new();
        for t in table.values() {
            let fields = match t {
                ContainerType::GcStruct { fields, .. } => fields.clone(),
                ContainerType::GcArray { .. } => Vec::new(),
            };
            for (_, ft) in &fields {
                collect_type(ft, &mut sigs, &mut other_names);
            }
            if let Some(item) = t.item_type() {
                collect_type(item, &mut sigs, &mut other_names);
            }
        }
        for t in mentioned {
            collect_type(t, &mut sigs, &mut other_names);
        }
        let fn_types: Vec<(FuncSig, String)> = sigs
            .into_iter()
            .enumerate()
            .map(|(i, sig)| (sig, format!("rpy_fn_{i}")))
            .collect();
        let mut builtin = TypeTable::new();
        builtin.insert(lltype::STR.into(), lltype::str_type());
        lltype::add_list_type(&mut builtin, &LowLevelType::Ptr(lltype::STR.into()));
        for (name, t) in builtin {
            match table.get(&name) {
                Some(existing) if *existing != t => {
                    return Err(format!(
                        "the type '{name}' is {existing}, but the runtime needs it to be {t}"
                    ))
                }
                _ => {
                    table.insert(name, t);
                }
            }
        }
        let mut ns = Namespace::default();
        let mut tags = BTreeMap::new();
        // The runtime's types first, so that they get their plain names.
        let (list, array) = lltype::list_type_names(&LowLevelType::Ptr(lltype::STR.into()));
        for name in [lltype::STR.to_string(), list, array]
            .into_iter()
            .chain(table.keys().cloned())
            .chain(other_names.iter().cloned())
        {
            if let std::collections::btree_map::Entry::Vacant(e) = tags.entry(name) {
                let tag = ns.fresh("S_", e.key());
                e.insert(tag);
            }
        }
        let mut members = fxhash::FxHashMap::default();
        for (name, t) in &table {
            let mut fns = Namespace::default();
            let mut m = fxhash::FxHashMap::default();
            match t {
                ContainerType::GcStruct { fields, var_item } => {
                    for (f, _) in fields {
                        if m.contains_key(f) {
                            return Err(format!("the type '{name}' has two fields named '{f}'"));
                        }
                        m.insert(f.clone(), fns.fresh("f_", f));
                    }
                    if var_item.is_some() && t.field_type("length") != Some(&LowLevelType::Signed) {
                        return Err(format!(
                            "the varsized type '{name}' needs a Signed field 'length'"
                        ));
                    }
                }
                ContainerType::GcArray { .. } => {
                    m.insert("length".into(), "f_length".into());
                }
            }
            members.insert(name.clone(), m);
        }
        let fn_index = fn_types
            .iter()
            .enumerate()
            .map(|(i, (sig, _))| (sig.clone(), i))
            .collect();
        let ids = table
            .keys()
            .enumerate()
            .map(|(i, k)| (k.clone(), i + 1))
            .collect();
        let tag_index = tags.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let pointer_types = tags
            .iter()
            .map(|(k, v)| (k.clone(), format!("struct {v} *")))
            .collect();
        let owners = crate::aliasing::field_owners(&table);
        Ok(Types {
            table,
            tags,
            tag_index,
            pointer_types,
            members,
            fn_types,
            fn_index,
            ids,
            owners,
        })
    }

    /// The typedef name of a function pointer type.
    pub fn fn_typedef(&self, sig: &FuncSig) -> &str {
        self.fn_index
            .get(sig)
            .map(|&i| self.fn_types[i].1.as_str())
            .expect("every function pointer type of the program is collected by Types::new")
    }

    pub fn struct_tag(&self, name: &str) -> String {
        match self.tag_index.get(name) {
            Some(t) => t.clone(),
            None => format!("S_{}", c_ident(name)),
        }
    }

    pub fn container(&self, name: &str) -> Option<&ContainerType> {
        self.table.get(name)
    }

    /// The C member of field `field` of type `name`.
    pub fn member(&self, name: &str, field: &str) -> Option<&str> {
        self.members.get(name)?.get(field).map(|s| s.as_str())
    }

    /// The C lvalue of field `field` of the struct `p` points to, a
    /// `name`: through the field's owner's struct where that is another
    /// (see `aliasing`), so every access to the field has one C type.
    pub fn field_lvalue(&self, p: &str, name: &str, field: &str) -> Option<String> {
        match self.owners.get(name).and_then(|o| o.get(field)) {
            Some(owner) => Some(format!(
                "((struct {} *){p})->{}",
                self.struct_tag(owner),
                self.member(owner, field)?
            )),
            None => Some(format!("{p}->{}", self.member(name, field)?)),
        }
    }

    /// Forward declarations of every struct, then the definitions of the
    /// table's types with their layout checks, then the runtime's typedefs.
    pub fn emit(&self, out: &mut String) {
        out.push_str("/* ---- types ---- */\n\n");
        for tag in self.tags.values() {
            let _ = writeln!(out, "struct {tag};");
        }
        out.push('\n');
        for (sig, name) in &self.fn_types {
            let params: Vec<Cow<str>> = sig
                .params
                .iter()
                .filter(|p| **p != LowLevelType::Void)
                .map(|p| c_type(p, self))
                .collect();
            let params = if params.is_empty() {
                "void".to_string()
            } else {
                params.join(", ")
            };
            let _ = writeln!(
                out,
                "typedef {} (*{name})({params});",
                c_type(&sig.result, self)
            );
        }
        if !self.fn_types.is_empty() {
            out.push('\n');
        }
        for (name, t) in &self.table {
            self.emit_struct(out, name, t);
        }
        let (list, array) = lltype::list_type_names(&LowLevelType::Ptr(lltype::STR.into()));
        let _ = writeln!(
            out,
            "typedef struct {} RPyString;\ntypedef struct {} RPyStrArray;\ntypedef struct {} RPyStrList;\n",
            self.struct_tag(lltype::STR),
            self.struct_tag(&array),
            self.struct_tag(&list)
        );
    }

    /// The GC's type id of the container type `name`: its position in the
    /// table, from 1 (0 is no type: the collector never reads it).
    pub fn type_id(&self, name: &str) -> Option<usize> {
        self.ids.get(name).copied()
    }

    /// The collector's type table, `rpy_gc_types[type id]`, from the
    /// layouts of `ir` (what GenC's `_Static_assert`s pin the structs to):
    /// each type's size, its items, and the offsets of its GC pointers;
    /// and `RPY_TID_STRING`/`_STRARRAY`/`_STRLIST`, the type ids of the
    /// runtime's own objects.
    pub fn emit_gc_types(&self, out: &mut String, calls: &CollectorCalls) {
        out.push_str("/* ---- the collector's type table ---- */\n\n");
        let mut entries = vec!["    {0, 0, 0, 0, 0, 0, NULL, NULL}, /* 0: no type */".to_string()];
        for (i, (name, t)) in self.table.iter().enumerate() {
            let layout = t.layout();
            let fields: Vec<(String, LowLevelType)> = match t {
                ContainerType::GcStruct { fields, .. } => fields.clone(),
                ContainerType::GcArray { .. } => vec![],
            };
            let pointers: Vec<String> = fields
                .iter()
                .filter(|(_, ft)| matches!(ft, LowLevelType::Ptr(_)))
                .filter_map(|(f, _)| layout.offset_of(f))
                .map(|o| o.to_string())
                .collect();
            let offsets = if pointers.is_empty() {
                "NULL".to_string()
            } else {
                let _ = writeln!(
                    out,
                    "static const long rpy_gc_pointers_{}[] = {{{}}};",
                    i + 1,
                    pointers.join(", ")
                );
                format!("rpy_gc_pointers_{}", i + 1)
            };
            let item = t.item_type().filter(|it| **it != LowLevelType::Void);
            let (items_offset, item_size) = match (item, layout.items) {
                (Some(_), Some(items)) => items,
                _ => (0, 0),
            };
            let length_offset = if item.is_some() {
                layout.offset_of("length").unwrap_or(0)
            } else {
                0
            };
            let destructor = calls.destructor(name).unwrap_or("NULL");
            entries.push(format!(
                "    {{{}, {item_size}, {items_offset}, {length_offset}, {}, {}, {offsets}, {destructor}}}, /* {}: {} */",
                layout.fixed_size,
                i32::from(matches!(item, Some(LowLevelType::Ptr(_)))),
                pointers.len(),
                i + 1,
                comment_text(name),
            ));
        }
        let _ = writeln!(
            out,
            "static const RPyGcType rpy_gc_types[] __attribute__((unused)) = {{\n{}\n}};\n",
            entries.join("\n")
        );
        let (list, array) = lltype::list_type_names(&LowLevelType::Ptr(lltype::STR.into()));
        for (macro_name, ty) in [
            ("RPY_TID_STRING", lltype::STR.to_string()),
            ("RPY_TID_STRARRAY", array),
            ("RPY_TID_STRLIST", list),
        ] {
            let _ = writeln!(
                out,
                "#define {macro_name} {}UL",
                self.type_id(&ty).unwrap_or(0)
            );
        }
        out.push('\n');
    }

    fn emit_struct(&self, out: &mut String, name: &str, t: &ContainerType) {
        let tag = self.struct_tag(name);
        let layout = t.layout();
        let _ = writeln!(
            out,
            "/* {}: {} */",
            comment_text(name),
            comment_text(&t.to_string())
        );
        let _ = writeln!(out, "struct {tag} {{\n    long gc_hdr;");
        let fields: Vec<(String, LowLevelType)> = match t {
            ContainerType::GcStruct { fields, .. } => fields.clone(),
            ContainerType::GcArray { .. } => vec![("length".into(), LowLevelType::Signed)],
        };
        for (f, ft) in &fields {
            if *ft != LowLevelType::Void {
                let member = self.member(name, f).unwrap_or("?");
                let _ = writeln!(out, "    {};", c_decl(ft, member, self));
            }
        }
        if let Some(item) = t.item_type() {
            if *item != LowLevelType::Void {
                let _ = writeln!(out, "    {};", c_decl(item, "items[]", self));
            }
        }
        out.push_str("};\n");
        let _ = writeln!(
            out,
            "_Static_assert(offsetof(struct {tag}, gc_hdr) == 0, \"layout\");"
        );
        for (f, ft) in &fields {
            if *ft == LowLevelType::Void {
                continue;
            }
            if let (Some(member), Some(off)) = (self.member(name, f), layout.offset_of(f)) {
                let _ = writeln!(
                    out,
                    "_Static_assert(offsetof(struct {tag}, {member}) == {off}, \"layout\");"
                );
            }
        }
        if let (Some((off, size)), Some(item)) = (layout.items, t.item_type()) {
            if *item != LowLevelType::Void {
                let _ = writeln!(
                    out,
                    "_Static_assert(offsetof(struct {tag}, items) == {off}, \"layout\");\n\
                     _Static_assert(sizeof(((struct {tag} *)0)->items[0]) == {size}, \"layout\");"
                );
            }
        }
        let _ = writeln!(
            out,
            "_Static_assert(sizeof(struct {tag}) == {}, \"layout\");\n",
            layout.fixed_size
        );
    }
}
