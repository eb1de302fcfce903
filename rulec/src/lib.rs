//! rpy's rule compiler.
//!
//! Reads the `.rules` files of `rules/annotate`, `rules/rtype` and `rules/opt`,
//! checks them (unknown operations, annotations and types, unbound variables,
//! wrong arity, duplicate names, results whose types do not fit, rules that
//! make code more expensive) and generates the Rust that `rpy_ruleset`
//! includes. Every error names the file and line of the rule and says what is
//! wrong in a plain sentence.
//!
//! The passes crate calls [`compile_dir`] from its build script; tests call
//! [`compile_sources`] on rule text directly.

mod annotate;
mod opt;
mod rtype;
mod syntax;
mod tables;

pub use syntax::{parse_file, Ast, BinOp, Node, RawRule, Step, TypeName, UnOp};
pub use tables::op_cost;

use std::fmt;
use std::path::Path;

/// What a rule file is for: the directory it lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Annotate,
    Rtype,
    Opt,
}

impl Kind {
    pub fn dir(self) -> &'static str {
        match self {
            Kind::Annotate => "annotate",
            Kind::Rtype => "rtype",
            Kind::Opt => "opt",
        }
    }
    fn variant(self) -> &'static str {
        match self {
            Kind::Annotate => "Annotate",
            Kind::Rtype => "Rtype",
            Kind::Opt => "Opt",
        }
    }
}

/// A bad rule: where it is and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    pub file: String,
    pub line: u32,
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for RuleError {}

/// One rule file's text, with the name errors should show for it.
#[derive(Clone, Debug)]
pub struct Source {
    pub kind: Kind,
    pub file: String,
    pub text: String,
}

/// The generated Rust, one piece per file `rpy_ruleset` includes.
#[derive(Clone, Debug, Default)]
pub struct Generated {
    /// `RULES` (every rule's name, kind, file, line, text) and `RULE_COUNT`.
    pub info: String,
    /// The annotator's union and op-result rules.
    pub annotate: String,
    /// The rtyper's lowering and conversion rules.
    pub rtype: String,
    /// The integer rewrites, as data.
    pub opt: String,
    /// How many rules of each kind (annotate, rtype, opt).
    pub counts: [usize; 3],
}

impl Generated {
    /// The file names the pieces are written to (in `OUT_DIR`) and their text.
    pub fn files(&self) -> [(&'static str, &str); 4] {
        [
            ("rules_info.rs", &self.info),
            ("rules_annotate.rs", &self.annotate),
            ("rules_rtype.rs", &self.rtype),
            ("rules_opt.rs", &self.opt),
        ]
    }
}

/// A rule after parsing, with its global index (its place in `RULES`).
pub(crate) struct Located {
    pub index: usize,
    pub kind: Kind,
    pub file: String,
    pub raw: RawRule,
}

impl Located {
    pub fn error(&self, line: u32, message: impl Into<String>) -> RuleError {
        RuleError {
            file: self.file.clone(),
            line,
            message: format!("rule '{}': {}", self.raw.name, message.into()),
        }
    }
}

/// Reads every `*.rules` file of `dir/annotate`, `dir/rtype` and `dir/opt`
/// (in file-name order) and compiles them. File names in messages and in
/// `RuleInfo::file` are `rules/<kind>/<file>`.
pub fn compile_dir(dir: &Path) -> Result<Generated, Vec<RuleError>> {
    let mut sources = Vec::new();
    for kind in [Kind::Annotate, Kind::Rtype, Kind::Opt] {
        let sub = dir.join(kind.dir());
        let mut names: Vec<String> = match std::fs::read_dir(&sub) {
            Ok(entries) => entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".rules"))
                .collect(),
            Err(_) => Vec::new(),
        };
        names.sort();
        for name in names {
            let file = format!("rules/{}/{}", kind.dir(), name);
            let text = std::fs::read_to_string(sub.join(&name)).map_err(|e| {
                vec![RuleError {
                    file: file.clone(),
                    line: 0,
                    message: format!("cannot read: {e}"),
                }]
            })?;
            sources.push(Source { kind, file, text });
        }
    }
    compile_sources(&sources)
}

/// Compiles rule files given as text. All errors found are returned, each
/// with its file and line.
pub fn compile_sources(sources: &[Source]) -> Result<Generated, Vec<RuleError>> {
    let mut errors = Vec::new();
    let mut rules: Vec<Located> = Vec::new();
    // Kinds in a fixed order so that rule indices do not depend on the order
    // the caller lists files in (beyond the order within one kind).
    for kind in [Kind::Annotate, Kind::Rtype, Kind::Opt] {
        for src in sources.iter().filter(|s| s.kind == kind) {
            match syntax::parse_file(&src.file, &src.text) {
                Ok(raws) => {
                    for raw in raws {
                        rules.push(Located {
                            index: rules.len(),
                            kind,
                            file: src.file.clone(),
                            raw,
                        });
                    }
                }
                Err(e) => errors.push(e),
            }
        }
    }
    let mut seen: std::collections::HashMap<&str, &Located> = Default::default();
    for r in &rules {
        if let Some(first) = seen.get(r.raw.name.as_str()) {
            errors.push(r.error(
                r.raw.line,
                format!(
                    "duplicate rule name (first defined at {}:{})",
                    first.file, first.raw.line
                ),
            ));
        } else {
            seen.insert(&r.raw.name, r);
        }
        if r.raw.doc.is_none() {
            errors.push(r.error(
                r.raw.line,
                "needs a one-line '# comment' right above it saying what it does",
            ));
        }
    }
    let of = |k: Kind| {
        rules
            .iter()
            .filter(move |r| r.kind == k)
            .collect::<Vec<_>>()
    };
    let ann = of(Kind::Annotate);
    let rty = of(Kind::Rtype);
    let opt = of(Kind::Opt);
    let annotate = annotate::compile(&ann).map_err(|e| errors.extend(e)).ok();
    let rtype = rtype::compile(&rty).map_err(|e| errors.extend(e)).ok();
    let optc = opt::compile(&opt).map_err(|e| errors.extend(e)).ok();
    if !errors.is_empty() {
        errors.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        errors.dedup();
        return Err(errors);
    }
    Ok(Generated {
        info: info(&rules),
        annotate: annotate.unwrap_or_default(),
        rtype: rtype.unwrap_or_default(),
        opt: optc.unwrap_or_default(),
        counts: [ann.len(), rty.len(), opt.len()],
    })
}

/// Compiles one file's text as a rule file of `kind`: the entry point for
/// tests of error messages.
pub fn compile_one(kind: Kind, file: &str, text: &str) -> Result<Generated, Vec<RuleError>> {
    compile_sources(&[Source {
        kind,
        file: file.to_string(),
        text: text.to_string(),
    }])
}

fn info(rules: &[Located]) -> String {
    let mut s = String::new();
    s.push_str("// Generated by rpy-rulec from rules/**/*.rules. Do not edit.\n");
    s.push_str(&format!(
        "/// How many rules there are.\npub const RULE_COUNT: usize = {};\n",
        rules.len()
    ));
    s.push_str("/// Every rule, in index order: annotate, rtype, then opt rules.\n");
    s.push_str("pub static RULES: &[RuleInfo] = &[\n");
    for r in rules {
        s.push_str(&format!(
            "    RuleInfo {{ name: {:?}, kind: RuleKind::{}, file: {:?}, line: {}, text: {:?}, doc: {:?} }},\n",
            r.raw.name,
            r.kind.variant(),
            r.file,
            r.raw.line,
            r.raw.text,
            r.raw.doc.clone().unwrap_or_default()
        ));
    }
    s.push_str("];\n");
    s
}

/// Formats an i64 as a Rust literal that parses in every position.
/// Compiles every rule with `f`, reporting the errors of all of them rather
/// than stopping at the first.
pub(crate) fn compile_each<T>(
    rules: &[&Located],
    f: impl Fn(&Located) -> Result<T, RuleError>,
) -> Result<Vec<T>, Vec<RuleError>> {
    let mut errors = Vec::new();
    let mut done = Vec::new();
    for r in rules {
        match f(r) {
            Ok(c) => done.push(c),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(done)
    } else {
        Err(errors)
    }
}

pub(crate) fn int_lit(v: i64) -> String {
    if v == i64::MIN {
        "i64::MIN".into()
    } else {
        format!("{v}i64")
    }
}
