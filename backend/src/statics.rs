//! The program's statics (`PrebuiltObject::Struct`/`Array`: vtables,
//! prebuilt instances, tuples, list and dict headers) as C static data.
//!
//! Each static `&i` is the C variable `rpy_pb_<i>`, with the GC header word
//! `RPY_PREBUILT_HDR_TID(type id)` like the prebuilt strings (an old object
//! that the collector never moves nor frees). A fixed-size struct has its
//! container type's own C struct; a varsized one (an array, a struct ending
//! in items) has a struct of its own, `struct rpy_pb_<i>_t`, with the same
//! members and an items array of its exact length, whose offset is
//! `_Static_assert`ed to be the layout's (so a pointer to it, cast, is a
//! pointer to the container type). Every static is declared first and
//! defined after, so statics may point to each other in any order, cycles
//! included. Fields are initialized by name (designated initializers);
//! a pointer to a static whose type is a subclass part of the field's is
//! cast to the field's type (instance structs are flattened, base first).

use crate::function::{constant_expr, Context};
use crate::types::c_decl;
use crate::StringPool;
use rpy_ir::graph::{Constant, PrebuiltObject};
use rpy_ir::lltype::{ContainerType, LowLevelType};
use std::fmt::Write;

/// The C variable and the container type name of each prebuilt object
/// that is a static (`None` for any other kind).
pub(crate) fn static_names(prebuilt: &[PrebuiltObject]) -> Vec<Option<(String, String)>> {
    prebuilt
        .iter()
        .enumerate()
        .map(|(i, obj)| match obj {
            PrebuiltObject::Struct { ty, .. } | PrebuiltObject::Array { ty, .. } => {
                Some((format!("rpy_pb_{i}"), ty.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The program's statics: per static, the C struct of a varsized one
/// (empty for others), its C type, its variable and its initializer.
pub(crate) struct Statics(Vec<Static>);

struct Static {
    struct_def: String,
    c_struct: String,
    var: String,
    init: String,
}

impl Statics {
    /// As one C file has them: every static declared, then defined, all
    /// `static` (empty for a program without statics).
    pub(crate) fn single_file(&self) -> String {
        if self.0.is_empty() {
            return String::new();
        }
        let mut decls = String::new();
        let mut defs = String::new();
        for s in &self.0 {
            decls.push_str(&s.struct_def);
            let _ = writeln!(decls, "static {} {};", s.c_struct, s.var);
            let _ = writeln!(defs, "static {} {} = {{{}}};", s.c_struct, s.var, s.init);
        }
        format!("/* ---- statics ---- */\n\n{decls}\n{defs}\n")
    }

    /// For the common header of several units: the varsized structs and
    /// every static declared `extern` (hidden).
    pub(crate) fn declarations(&self) -> String {
        let mut out = String::from("/* ---- statics ---- */\n\n");
        for s in &self.0 {
            out.push_str(&s.struct_def);
            let _ = writeln!(out, "extern RPY_HIDDEN {} {};", s.c_struct, s.var);
        }
        out.push('\n');
        out
    }

    /// For the one unit that defines them: the statics' definitions.
    pub(crate) fn definitions(&self) -> String {
        let mut out = String::new();
        for s in &self.0 {
            let _ = writeln!(out, "RPY_HIDDEN {} {} = {{{}}};", s.c_struct, s.var, s.init);
        }
        out.push('\n');
        out
    }

    /// About how much C the definitions are.
    pub(crate) fn size(&self) -> usize {
        self.0.iter().map(|s| s.init.len() + s.var.len() + 16).sum()
    }
}

/// The statics of `prebuilt`, their constants' strings added to `pool`.
pub(crate) fn emit_statics(
    cx: &Context,
    pool: &mut StringPool,
    prebuilt: &[PrebuiltObject],
) -> Result<Statics, String> {
    let mut statics = Vec::new();
    for (i, obj) in prebuilt.iter().enumerate() {
        let (ty, fields, items): (&str, &[(String, Constant)], &[Constant]) = match obj {
            PrebuiltObject::Struct { ty, fields, items } => (ty, fields, items),
            PrebuiltObject::Array { ty, items } => (ty, &[], items),
            _ => continue,
        };
        let fail = |m: String| format!("static &{i} of type '{ty}': {m}");
        let container = cx
            .types
            .container(ty)
            .ok_or_else(|| fail("no such type".into()))?;
        let var = format!("rpy_pb_{i}");
        let item_type = container.item_type();
        let (c_struct, struct_def) = match item_type {
            None => (format!("struct {}", cx.types.struct_tag(ty)), String::new()),
            Some(item) => {
                let tag = format!("{var}_t");
                let def = varsized_struct(cx, ty, container, item, &tag, items.len());
                (format!("struct {tag}"), def)
            }
        };

        let tid = cx.types.type_id(ty).unwrap_or(0);
        let mut inits = vec![format!(".gc_hdr = RPY_PREBUILT_HDR_TID({tid}UL)")];
        if item_type.is_some() {
            // A varsized object's length is its number of items.
            inits.push(format!(".f_length = {}", items.len()));
        }
        for (name, c) in fields {
            let ft = container
                .field_type(name)
                .ok_or_else(|| fail(format!("no field '{name}'")))?;
            if *ft == LowLevelType::Void || (item_type.is_some() && name == "length") {
                continue;
            }
            let member = cx.types.member(ty, name).unwrap_or("?");
            let value = constant_expr(cx, pool, c, Some(ft)).map_err(&fail)?;
            inits.push(format!(".{member} = {value}"));
        }
        if let Some(item) = item_type.filter(|t| **t != LowLevelType::Void) {
            if !items.is_empty() {
                let values = items
                    .iter()
                    .map(|c| constant_expr(cx, pool, c, Some(item)))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(&fail)?;
                inits.push(format!(".items = {{{}}}", values.join(", ")));
            }
        }
        statics.push(Static {
            struct_def,
            c_struct,
            var,
            init: inits.join(", "),
        });
    }
    Ok(Statics(statics))
}

/// The C struct of one varsized static: its container type's members,
/// then exactly `n` items.
fn varsized_struct(
    cx: &Context,
    ty: &str,
    container: &ContainerType,
    item: &LowLevelType,
    tag: &str,
    n: usize,
) -> String {
    let layout = container.layout();
    let fields: Vec<(String, LowLevelType)> = match container {
        ContainerType::GcStruct { fields, .. } => fields.clone(),
        ContainerType::GcArray { .. } => vec![("length".into(), LowLevelType::Signed)],
    };
    let mut out = format!("struct {tag} {{\n    long gc_hdr;\n");
    for (f, ft) in fields.iter().filter(|(_, t)| *t != LowLevelType::Void) {
        let member = cx.types.member(ty, f).unwrap_or("?");
        let _ = writeln!(out, "    {};", c_decl(ft, member, cx.types));
    }
    let has_items = n > 0 && *item != LowLevelType::Void;
    if has_items {
        let _ = writeln!(
            out,
            "    {};",
            c_decl(item, &format!("items[{n}]"), cx.types)
        );
    }
    out.push_str("};\n");
    if let (true, Some((offset, _))) = (has_items, layout.items) {
        let _ = writeln!(
            out,
            "_Static_assert(offsetof(struct {tag}, items) == {offset}, \"layout\");"
        );
    }
    out
}
