//! Pictures of a stage's graphs, for `rpy show --format dot|svg|html`: what
//! the original's graph viewer shows, so a user can look at what a stage did
//! rather than read its text.
//!
//! Every view names blocks and variables as the text form does
//! (`rpy_ir::text::CanonicalNames`), so the picture, the text and the
//! snapshots agree.
//!
//! - `dot`: Graphviz source, one cluster per function.
//! - `svg`: the same, laid out by Graphviz's `dot` when it is installed.
//! - `html`: one self-contained page (no network, no library): every
//!   function's blocks as boxes, its links drawn as arrows by a small script
//!   once the page has laid the boxes out, each variable's annotation or
//!   low-level type on hover, and each operation's source line beside it
//!   (the line's text on hover).

use crate::pipeline::{chosen_graphs, Source, StageOutput};
use rpy_ir::diag::{FileId, Pos};
use rpy_ir::graph::{Arg, Block, BlockId, FunctionGraph, Link, Program, Stage};
use rpy_ir::text::{constant_text, CanonicalNames};
use std::collections::HashMap;
use std::fmt::Write;

/// The formats of `rpy show --format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The IR's text form.
    Text,
    /// Graphviz source.
    Dot,
    /// An SVG picture (needs Graphviz's `dot`).
    Svg,
    /// One self-contained HTML page with every function's graph.
    Html,
}

/// One operation, in the text form's words, with its source line.
struct OpView {
    result: String,
    opname: String,
    args: Vec<String>,
    pos: Option<Pos>,
}

/// What every view shows of one block.
struct BlockView {
    id: BlockId,
    label: String,
    inputargs: Vec<String>,
    ops: Vec<OpView>,
    switch: Option<String>,
    /// (target label, text on the arrow: exit case and arguments)
    exits: Vec<(BlockId, String)>,
}

/// The blocks of `g` in printing order, named as the text form names them.
fn block_views<S: Stage>(g: &FunctionGraph<S>) -> (Vec<BlockView>, CanonicalNames) {
    let names = CanonicalNames::of(g);
    let arg = |a: &Arg| match a {
        Arg::Var(v) => names.vars[v.0 as usize].clone(),
        Arg::Const(c) => constant_text(c),
    };
    let link_text = |l: &Link| {
        let mut text = String::new();
        if let Some(c) = &l.exitcase {
            text += &constant_text(c);
            text.push(' ');
        }
        let args: Vec<String> = l.args.iter().map(arg).collect();
        let _ = write!(text, "({})", args.join(", "));
        text
    };
    let views = names
        .order
        .iter()
        .filter_map(|&id| {
            let b: &Block = g.blocks.get(id.0 as usize)?;
            Some(BlockView {
                id,
                label: names.blocks[id.0 as usize].clone(),
                inputargs: b
                    .inputargs
                    .iter()
                    .map(|v| names.vars[v.0 as usize].clone())
                    .collect(),
                ops: b
                    .operations
                    .iter()
                    .map(|op| OpView {
                        result: names.vars[op.result.0 as usize].clone(),
                        opname: op.opname.name().to_string(),
                        args: op.args.iter().map(arg).collect(),
                        // line 0: a position made up for an error path
                        pos: op.pos.filter(|p| p.line > 0),
                    })
                    .collect(),
                switch: b.exitswitch.as_ref().map(arg),
                exits: b.exits.iter().map(|l| (l.target, link_text(l))).collect(),
            })
        })
        .collect();
    (views, names)
}

/// Graphviz source of the graphs: a cluster per function, a box per block
/// listing its operations, an arrow per link labelled with its exit case
/// and arguments.
pub fn dot<S: Stage>(p: &Program<S>, func: Option<&str>) -> Result<String, String> {
    let mut out = String::from(
        "digraph program {\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n  edge [fontname=\"monospace\", fontsize=9];\n",
    );
    for (gi, g) in chosen_graphs(p, func)?.into_iter().enumerate() {
        let (blocks, _) = block_views(g);
        let _ = writeln!(
            out,
            "  subgraph cluster_{gi} {{\n    label={};",
            dot_string(&g.name)
        );
        for b in &blocks {
            let mut label = format!("{}({}):\\l", b.label, b.inputargs.join(", "));
            for op in &b.ops {
                label += &dot_escape(&format!(
                    "{} = {}({})",
                    op.result,
                    op.opname,
                    op.args.join(", ")
                ));
                label += "\\l";
            }
            if let Some(sw) = &b.switch {
                label += &dot_escape(&format!("switch {sw}"));
                label += "\\l";
            }
            let _ = writeln!(out, "    g{gi}_{} [label=\"{label}\"];", b.id.0);
            for (target, text) in &b.exits {
                let _ = writeln!(
                    out,
                    "    g{gi}_{} -> g{gi}_{} [label={}];",
                    b.id.0,
                    target.0,
                    dot_string(text)
                );
            }
        }
        out += "  }\n";
    }
    out += "}\n";
    Ok(out)
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn dot_string(s: &str) -> String {
    format!("\"{}\"", dot_escape(s))
}

/// The graphs as SVG, laid out by Graphviz's `dot`; `Err` says plainly when
/// it is not installed.
pub fn svg<S: Stage>(p: &Program<S>, func: Option<&str>) -> Result<String, String> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let source = dot(p, func)?;
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|_| {
            "--format svg needs Graphviz's `dot`, which is not installed (Debian: apt-get install graphviz); --format html needs nothing"
                .to_string()
        })?;
    // dot reads all its input before it writes, so writing first cannot block.
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(source.as_bytes())
            .map_err(|e| format!("cannot write to dot: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("dot failed: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "dot failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// One self-contained HTML page with the graphs of `stage` (its name in
/// the title) of the program whose main file is `src`. An operation's line
/// is shown from the file its graph was built from (a module's, a helper's
/// in `pylib`), named beside the graph's name when it is not the main file.
pub fn html<S: Stage>(
    p: &Program<S>,
    func: Option<&str>,
    stage: &str,
    src: &Source,
) -> Result<String, String> {
    let path = src.path.as_str();
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>{} after {}</title>\n<style>{STYLE}</style>\n</head><body>\n<h1>{} after the {} stage</h1>\n",
        escape(path),
        escape(stage),
        escape(path),
        escape(stage)
    );
    for (gi, g) in chosen_graphs(p, func)?.into_iter().enumerate() {
        let (blocks, names) = block_views(g);
        let infos: HashMap<&str, String> = names
            .vars
            .iter()
            .zip(&g.vars)
            .filter_map(|(name, data)| Some((name.as_str(), S::format_info(&data.info)?)))
            .collect();
        let var_html = |name: &str| match infos.get(name) {
            Some(i) => format!(
                "<span class=\"var\" title=\"{}\">{}</span>",
                escape(i),
                escape(name)
            ),
            None => format!("<span class=\"var\">{}</span>", escape(name)),
        };
        // The file the function was written in; an operation inlined
        // from another file names its own.
        let file = g.pos.map_or(FileId::MAIN, |pos| pos.file);
        let from = if file == FileId::MAIN {
            String::new()
        } else {
            format!(
                " <span class=\"file\">({})</span>",
                escape(p.sources.path(file))
            )
        };
        let _ = write!(
            out,
            "<section class=\"graph\" id=\"g{gi}\">\n<h2>{}{from}</h2>\n<div class=\"blocks\">\n",
            escape(&g.name)
        );
        for b in &blocks {
            let args: Vec<String> = b.inputargs.iter().map(|a| var_html(a)).collect();
            let _ = writeln!(
                out,
                "<div class=\"block\" id=\"g{gi}_{}\"><div class=\"head\">{}({}):</div>",
                b.id.0,
                escape(&b.label),
                args.join(", ")
            );
            for op in &b.ops {
                let args: Vec<String> = op
                    .args
                    .iter()
                    .map(|a| {
                        if infos.contains_key(a.as_str()) {
                            var_html(a)
                        } else {
                            escape(a)
                        }
                    })
                    .collect();
                let line = match op.pos {
                    Some(pos) => format!(
                        "<span class=\"line\" title=\"{}\">line {}{}</span>",
                        escape(p.sources.line(pos).map_or("", str::trim)),
                        pos.line,
                        if pos.file == file {
                            String::new()
                        } else {
                            format!(" of {}", escape(p.sources.path(pos.file)))
                        }
                    ),
                    None => String::new(),
                };
                let _ = writeln!(
                    out,
                    "<div class=\"op\">{} = <b>{}</b>({}){line}</div>",
                    var_html(&op.result),
                    escape(&op.opname),
                    args.join(", ")
                );
            }
            if let Some(sw) = &b.switch {
                let _ = writeln!(out, "<div class=\"switch\">switch {}</div>", var_html(sw));
            }
            for (target, text) in &b.exits {
                let _ = writeln!(
                    out,
                    "<div class=\"exit\" data-from=\"g{gi}_{}\" data-to=\"g{gi}_{}\">&rarr; {} {}</div>",
                    b.id.0,
                    target.0,
                    escape(&names.blocks[target.0 as usize]),
                    escape(text)
                );
            }
            out += "</div>\n";
        }
        out += "</div>\n<svg class=\"links\"></svg>\n</section>\n";
    }
    let _ = write!(out, "<script>{SCRIPT}</script>\n</body></html>\n");
    Ok(out)
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
body { font-family: sans-serif; margin: 1em; }
.graph { position: relative; border-top: 1px solid #ccc; padding: 0.5em 0 1em 0; }
.blocks { display: flex; flex-direction: column; align-items: flex-start; gap: 2.2em; margin-left: 3em; }
.block { font-family: monospace; font-size: 12px; border: 1px solid #333; border-radius: 4px; padding: 4px 8px; background: #f8f8ff; position: relative; z-index: 1; }
.head { font-weight: bold; margin-bottom: 2px; }
.var { color: #05a; cursor: help; border-bottom: 1px dotted #05a; }
.line { color: #888; margin-left: 1.5em; cursor: help; }
.file { color: #888; font-weight: normal; font-size: 70%; }
.exit { color: #555; }
.switch { color: #a50; }
svg.links { position: absolute; left: 0; top: 0; width: 100%; height: 100%; pointer-events: none; overflow: visible; }
svg.links path { fill: none; stroke: #c33; stroke-width: 1.5; }
";

/// Draws each link as an arrow from the exit's line to the target block,
/// once the browser has placed the boxes; arrows go down the left margin
/// (a link to an earlier block, a loop, curves further out).
const SCRIPT: &str = "
(function () {
  var ns = 'http://www.w3.org/2000/svg';
  document.querySelectorAll('section.graph').forEach(function (section) {
    var svg = section.querySelector('svg.links');
    var origin = section.getBoundingClientRect();
    var defs = document.createElementNS(ns, 'defs');
    defs.innerHTML = '<marker id=\"arrow-' + section.id + '\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#c33\"/></marker>';
    svg.appendChild(defs);
    section.querySelectorAll('.exit').forEach(function (exit, i) {
      var target = document.getElementById(exit.dataset.to);
      if (!target) { return; }
      var a = exit.getBoundingClientRect();
      var b = target.getBoundingClientRect();
      var x1 = a.left - origin.left, y1 = a.top + a.height / 2 - origin.top;
      var x2 = b.left - origin.left, y2 = b.top + 8 - origin.top;
      var bend = (y2 < y1 ? 40 : 20) + (i % 4) * 6;
      var path = document.createElementNS(ns, 'path');
      path.setAttribute('class', 'link');
      path.setAttribute('d', 'M' + x1 + ',' + y1 + ' C' + (x1 - bend) + ',' + y1 + ' ' + (x2 - bend) + ',' + y2 + ' ' + x2 + ',' + y2);
      path.setAttribute('marker-end', 'url(#arrow-' + section.id + ')');
      svg.appendChild(path);
    });
  });
})();
";

/// `rpy show --format FORMAT`: the picture of a graph stage's output.
pub fn render(
    output: &StageOutput,
    format: Format,
    func: Option<&str>,
    stage: &str,
    src: &Source,
) -> Result<String, String> {
    fn of<S: Stage>(
        p: &Program<S>,
        format: Format,
        func: Option<&str>,
        stage: &str,
        src: &Source,
    ) -> Result<String, String> {
        match format {
            Format::Text => unreachable!("the text form is StageOutput::to_text"),
            Format::Dot => dot(p, func),
            Format::Svg => svg(p, func),
            Format::Html => html(p, func, stage, src),
        }
    }
    match output {
        _ if format == Format::Text => output.to_text(func),
        StageOutput::Flow(p) => of(p, format, func, stage, src),
        StageOutput::Annotated(p) => of(p, format, func, stage, src),
        StageOutput::LowLevel(p) => of(p, format, func, stage, src),
        StageOutput::ExceptionsExplicit(p) => of(p, format, func, stage, src),
        StageOutput::GcExplicit(p) => of(p, format, func, stage, src),
        StageOutput::Ast(_) | StageOutput::C(..) | StageOutput::JitCodes(_) => Err(format!(
            "the {stage} stage has no graphs to draw; --format dot, svg and html show flow, annotate, rtype, backendopt and exceptiontransform"
        )),
    }
}
