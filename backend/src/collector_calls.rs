//! The program's functions that the collector calls: each class's
//! `__del__` (its graph's `destructor` hints name the instance structs it
//! finalizes) and the GC hooks (`gc_hook` hints, see `flow::gc_hooks` in
//! passes).
//!
//! A destructor goes in the collector's type table, through a wrapper
//! taking the object as `void *`; the hooks are handed to the runtime by
//! `main()` before the entry point runs. Without the generational
//! collector neither is ever called.

use crate::function::FuncSig;
use crate::types::{c_type, Types};
use fxhash::FxHashMap as HashMap;
use rpy_ir::graph::{destructor_types, gc_hook_event, GcExplicit, Program};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What GenC emits for the collector's calls into the program.
#[derive(Default)]
pub struct CollectorCalls {
    /// The wrapper that finalizes objects of each struct type, by type.
    destructors: BTreeMap<String, String>,
    /// Each wrapper: its name, the destructor's C function, and the C type
    /// of its parameter.
    wrappers: Vec<(String, String, String)>,
    /// Each GC hook: its event and C function.
    hooks: Vec<(String, String)>,
}

impl CollectorCalls {
    pub fn of_program(
        program: &Program<GcExplicit>,
        sigs: &HashMap<String, FuncSig>,
        types: &Types,
    ) -> Result<CollectorCalls, String> {
        let mut calls = CollectorCalls::default();
        for g in &program.graphs {
            let sig = &sigs[&g.name];
            if let Some(event) = gc_hook_event(g) {
                calls.hooks.push((event.to_string(), sig.c_name.clone()));
            }
            let finalized: Vec<&str> = destructor_types(g).collect();
            if finalized.is_empty() {
                continue;
            }
            let [this] = sig.ty.params.as_slice() else {
                return Err(format!(
                    "{}: a __del__ takes only self, not {} arguments",
                    g.name,
                    sig.ty.params.len()
                ));
            };
            let wrapper = format!("rpy_destructor_{}", calls.wrappers.len());
            for t in finalized {
                calls.destructors.insert(t.to_string(), wrapper.clone());
            }
            calls.wrappers.push((
                wrapper,
                sig.c_name.clone(),
                c_type(this, types).into_owned(),
            ));
        }
        Ok(calls)
    }

    /// The wrapper that finalizes objects of type `name`, if any.
    pub fn destructor(&self, name: &str) -> Option<&str> {
        self.destructors.get(name).map(String::as_str)
    }

    /// The wrappers' prototypes, for the type table that names them.
    pub fn emit_declarations(&self, out: &mut String) {
        for (wrapper, _, _) in &self.wrappers {
            let _ = writeln!(out, "RPY_RT void {wrapper}(void *obj);");
        }
    }

    /// The wrappers, after the functions they call.
    pub fn emit_wrappers(&self, out: &mut String) {
        for (wrapper, function, this) in &self.wrappers {
            let _ = writeln!(
                out,
                "RPY_RT void {wrapper}(void *obj) {{ {function}(({this})obj); }}"
            );
        }
    }

    /// The statements of `main()` that hand the hooks to the runtime.
    pub fn hook_registrations(&self) -> String {
        self.hooks
            .iter()
            .map(|(event, function)| format!("rpy_gc_hook_{event} = {function};\n    "))
            .collect()
    }
}
