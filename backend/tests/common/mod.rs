//! Helpers of the backend tests: building low-level graphs by hand, compiling
//! them and running the executables.
#![allow(dead_code)]

use rpy_backend::{compile_c, generate_c};
use rpy_ir::graph::{
    Arg, BlockId, Constant, FunctionGraph, GcExplicit, Link, LowLevel, Program, SpaceOperation, Var,
};
use rpy_ir::llops::GcKind;
use rpy_ir::lltype::{self, LowLevelType, TypeTable};
use rpy_ir::opcode::Opcode;
use std::path::PathBuf;
use std::process::Command;

pub type T = LowLevelType;

pub fn str_t() -> T {
    T::Ptr(lltype::STR.into())
}

pub fn list_t() -> T {
    T::Ptr(lltype::list_type_names(&str_t()).0)
}

pub fn int(n: i64) -> Arg {
    Arg::Const(Constant::Int(n))
}
pub fn float(x: f64) -> Arg {
    Arg::Const(Constant::Float(x))
}
pub fn boolean(b: bool) -> Arg {
    Arg::Const(Constant::Bool(b))
}
pub fn chr(c: u8) -> Arg {
    Arg::Const(Constant::Char(c))
}
pub fn s(text: &str) -> Arg {
    Arg::Const(Constant::Str(text.into()))
}
pub fn none() -> Arg {
    Arg::Const(Constant::None)
}
pub fn name(n: &str) -> Arg {
    Arg::Const(Constant::Name(n.into()))
}
pub fn builtin(n: &str) -> Arg {
    Arg::Const(Constant::Builtin(n.into()))
}
pub fn func(n: &str) -> Arg {
    Arg::Const(Constant::Func(n.into()))
}
pub fn v(x: Var) -> Arg {
    Arg::Var(x)
}

/// A graph under construction; `cur` is the block operations go to.
pub struct G {
    pub g: FunctionGraph<LowLevel>,
    pub cur: BlockId,
}

impl G {
    /// A graph with parameters of the given types returning `ret`.
    pub fn new(name: &str, params: &[T], ret: T) -> (G, Vec<Var>) {
        let names: Vec<String> = (0..params.len()).map(|i| format!("p{i}")).collect();
        let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let mut g = FunctionGraph::<LowLevel>::new(name, &names, T::Void);
        let ps = g.params().to_vec();
        for (p, t) in ps.iter().zip(params) {
            g.vars[p.0 as usize].info = t.clone();
        }
        let rv = g.block(g.returnblock).inputargs[0];
        g.vars[rv.0 as usize].info = ret;
        let cur = g.startblock;
        (G { g, cur }, ps)
    }

    pub fn start(&self) -> BlockId {
        self.g.startblock
    }
    pub fn ret(&self) -> BlockId {
        self.g.returnblock
    }
    pub fn except(&self) -> BlockId {
        self.g.exceptblock
    }

    /// A new block with input arguments of these types.
    pub fn block(&mut self, types: &[T]) -> (BlockId, Vec<Var>) {
        let vars: Vec<Var> = types
            .iter()
            .map(|t| self.g.new_var(None, t.clone()))
            .collect();
        (self.g.add_block(vars.clone()), vars)
    }

    /// Appends `result: ty = name(args)` to the current block.
    pub fn op(&mut self, name: Opcode, args: Vec<Arg>, ty: T) -> Var {
        let result = self.g.new_var(None, ty);
        let cur = self.cur;
        self.g.block_mut(cur).operations.push(SpaceOperation {
            opname: name,
            args,
            result,
            pos: None,
        });
        result
    }

    pub fn call(&mut self, f: &str, mut args: Vec<Arg>, ty: T) -> Var {
        args.insert(0, builtin(f));
        self.op(Opcode::DirectCall, args, ty)
    }

    /// `l[i]` of a list of strings (the argument list) for an `i` known to
    /// be in range: the item of its items array.
    pub fn str_list_item(&mut self, l: Arg, i: Arg) -> Var {
        let array = T::Ptr(lltype::list_type_names(&str_t()).1);
        let items = self.op(Opcode::Getfield, vec![l, name("items")], array);
        self.op(Opcode::Getarrayitem, vec![v(items), i], str_t())
    }

    /// print(s) of a string argument.
    pub fn print(&mut self, a: Arg) {
        self.call("rpy_print_str", vec![a], T::Void);
    }

    pub fn print_int(&mut self, a: Arg) {
        let s = self.call("rpy_str_from_int", vec![a], str_t());
        self.print(v(s));
        self.print(s_nl());
    }

    /// Ends the current block with an unconditional link.
    pub fn goto(&mut self, to: BlockId, args: Vec<Arg>) {
        let cur = self.cur;
        self.g.block_mut(cur).exits = vec![Link::new(args, to, None)];
    }

    /// Ends the current block with a switch on `sw`.
    pub fn switch(&mut self, sw: Arg, links: Vec<(Option<Constant>, BlockId, Vec<Arg>)>) {
        let cur = self.cur;
        let b = self.g.block_mut(cur);
        b.exitswitch = Some(sw);
        b.exits = links
            .into_iter()
            .map(|(exitcase, target, args)| Link::new(args, target, exitcase))
            .collect();
    }

    /// `if sw: then(args) else: otherwise(args)`.
    pub fn branch(&mut self, sw: Arg, then: (BlockId, Vec<Arg>), otherwise: (BlockId, Vec<Arg>)) {
        self.switch(
            sw,
            vec![
                (Some(Constant::Bool(false)), otherwise.0, otherwise.1),
                (Some(Constant::Bool(true)), then.0, then.1),
            ],
        );
    }
}

pub fn s_nl() -> Arg {
    s("\n")
}

/// A program of these graphs, entry point first.
pub fn program(graphs: Vec<G>, types: TypeTable) -> Program<LowLevel> {
    let entry = graphs[0].g.name.clone();
    Program {
        path: "test.py".into(),
        sources: Default::default(),
        graphs: graphs.into_iter().map(|g| g.g).collect(),
        entry,
        types,
        facts: Default::default(),
        prebuilt: Vec::new(),
    }
}

/// The runtime's types every program has.
pub fn base_types() -> TypeTable {
    let mut t = TypeTable::new();
    t.insert(lltype::STR.into(), lltype::str_type());
    lltype::add_list_type(&mut t, &str_t());
    t
}

/// A compiled test program; its directory goes away with it (unless
/// RPY_KEEP_TEST_C is set, to read the generated C).
pub struct Exe {
    pub path: PathBuf,
    dir: PathBuf,
}

impl Drop for Exe {
    fn drop(&mut self) {
        if std::env::var_os("RPY_KEEP_TEST_C").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The program after the exception transform and the GC transform (for
/// the generational collector), as GenC takes it.
pub fn explicit(p: &Program<LowLevel>) -> Program<GcExplicit> {
    let explicit = rpy_passes::exceptiontransform::transform(p.clone())
        .unwrap_or_else(|d| panic!("exceptiontransform failed: {d}"));
    rpy_passes::gctransform::transform(explicit, GcKind::Generational)
}

/// The C source of a low-level program, with the generational collector.
pub fn c_source(p: &Program<LowLevel>) -> Result<String, rpy_ir::diag::Diagnostic> {
    generate_c(&explicit(p), GcKind::Generational)
}

/// Generates, compiles (-O2) and returns the executable.
pub fn build(p: &Program<LowLevel>, tag: &str) -> Exe {
    let c = c_source(p).unwrap_or_else(|d| panic!("generate_c failed: {d}"));
    let dir = std::env::temp_dir().join(format!("rpy-backend-test-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{tag}.c")), &c).unwrap();
    let path = dir.join(tag);
    let exe = Exe { path, dir };
    compile_c(&c, &exe.path, "-O2").unwrap_or_else(|e| panic!("compile failed: {e}"));
    exe
}

pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
    /// Standard output as written: a string constant's bytes above 0x7f
    /// are single bytes, which `stdout` shows as U+FFFD.
    pub stdout_bytes: Vec<u8>,
}

pub fn run<S: AsRef<std::ffi::OsStr>>(exe: &Exe, args: &[S]) -> Run {
    let out = Command::new(&exe.path)
        .args(args)
        .output()
        .expect("run the executable");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        stdout_bytes: out.stdout,
    }
}

/// A small deterministic PRNG (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// An interesting i64: edge values, small ones, and random widths.
    pub fn int(&mut self) -> i64 {
        const EDGES: &[i64] = &[
            0,
            1,
            -1,
            2,
            -2,
            3,
            -3,
            7,
            -7,
            10,
            -10,
            63,
            64,
            i64::MIN,
            i64::MAX,
            i64::MIN + 1,
            i64::MAX - 1,
            1 << 32,
            -(1 << 32),
            0x5555_5555_5555_5555,
            -0x5555_5555_5555_5556,
        ];
        match self.below(4) {
            0 => EDGES[self.below(EDGES.len() as u64) as usize],
            1 => self.below(200) as i64 - 100,
            _ => {
                let bits = self.below(64) as u32;
                let x = self.next() as i64;
                if bits == 0 {
                    x
                } else {
                    x >> bits
                }
            }
        }
    }
}
