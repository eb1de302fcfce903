//! Random sequences of dict operations (set, get, delete, contains, len,
//! iteration order, pop, setdefault, copy, update, clear) with int and
//! string keys, drawn from a small key range and with bulk insertions and
//! deletions so that tables resize and fill with holes: the program they
//! make runs in the LLInterpreter, through the rtyper's dict lowering and
//! rdict.py's helpers, and must print what python3 prints running it.
//! Many sequences go into one program, so python3 and the translation run
//! once per batch. (A test of the whole pipeline, so it lives with the
//! pipeline's crate rather than in passes/tests/.)

use rpy::pipeline::{self, Source};
use rpy_ir::ast::Dialect;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

/// A small deterministic generator (xorshift64*), so a failing batch is
/// reproduced by its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One random case: a function that builds a dict by `steps` operations
/// and prints what each observes.
fn case(rng: &mut Rng, index: usize, string_keys: bool, steps: usize) -> String {
    let key_range = [4, 12, 40][rng.below(3) as usize];
    let key = |rng: &mut Rng| {
        let k = rng.below(key_range) as i64 - 3;
        if string_keys {
            format!("\"k{k}\"")
        } else {
            format!("{}", k * 17)
        }
    };
    let show_key = if string_keys { "k" } else { "str(k)" };
    let mut body = String::new();
    let _ = writeln!(body, "def case{index}():\n    d = {{}}");
    for _ in 0..steps {
        let k = key(rng);
        let v = rng.below(1000) as i64 - 500;
        let line = match rng.below(16) {
            0..=3 => format!("d[{k}] = {v}"),
            4 => format!("if {k} in d:\n        del d[{k}]"),
            5 => format!("print(1 if {k} in d else 0)"),
            6 => "print(len(d))".to_string(),
            7 => format!("print(d.get({k}, -1))"),
            8 => format!("print(d.setdefault({k}, {v}))"),
            9 => format!("print(d.pop({k}, -7))"),
            10 => format!(
                "try:\n        print(d[{k}])\n    except KeyError:\n        print(\"KeyError\")"
            ),
            11 => format!(
                "line = \"\"\n    for k in d:\n        line += {show_key} + \":\" + str(d[k]) + \",\"\n    print(line)"
            ),
            12 => "total = 0\n    for k, v in d.items():\n        total += v\n    print(total)"
                .to_string(),
            // Bulk insertions and deletions: resizes and holes.
            13 => {
                let n = rng.below(60);
                let bulk_key = if string_keys {
                    "\"b\" + str(i)"
                } else {
                    "i * 31"
                };
                format!(
                    "for i in range({n}):\n        d[{bulk_key}] = i\n    for i in range(0, {n}, 2):\n        del d[{bulk_key}]"
                )
            }
            14 => format!(
                "e = d.copy()\n    e[{k}] = {v}\n    d.update(e)\n    print(len(e))"
            ),
            _ => match rng.below(4) {
                0 => "d.clear()".to_string(),
                _ => format!(
                    "try:\n        print(d.pop({k}))\n    except KeyError:\n        print(\"no\")"
                ),
            },
        };
        let _ = writeln!(body, "    {line}");
    }
    let _ = writeln!(
        body,
        "    line = \"\"\n    for k in d:\n        line += {show_key} + \",\"\n    print(line)\n"
    );
    body
}

fn batch(seed: u64, cases: usize) -> String {
    let mut rng = Rng(seed);
    let mut program = String::new();
    for i in 0..cases {
        program.push_str(&case(&mut rng, i, i % 2 == 1, 60));
    }
    program.push_str("def entry_point(argv):\n");
    for i in 0..cases {
        let _ = writeln!(program, "    print(\"case {i}\")\n    case{i}()");
    }
    program.push_str("    return 0\n\n\ndef target(*args):\n    return entry_point\n\n\n");
    program.push_str("if __name__ == \"__main__\":\n    import sys\n    entry_point(sys.argv)\n");
    program
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn random_dict_operations_agree_with_cpython() {
    let dir = std::env::temp_dir().join(format!("rpy-dict-ops-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    for seed in [0x5EED_0001u64, 0x5EED_0002, 0x5EED_0003] {
        let text = batch(seed, 40);
        let path = dir.join(format!("dicts_{seed:x}.py"));
        std::fs::write(&path, &text).expect("the program is written");
        let expected = Command::new("python3")
            .arg(&path)
            .env("PYTHONPATH", root().join("pylib"))
            .output()
            .expect("python3 runs");
        assert!(expected.status.success(), "python3 failed on seed {seed:x}");
        let src = Source {
            path: path.display().to_string(),
            text,
            dialect: Dialect::Py3,
            gc: rpy_ir::llops::GcKind::default(),
            jit: false,
        };
        let program = pipeline::lowlevel(&src)
            .unwrap_or_else(|d| panic!("seed {seed:x} does not translate: {d}"));
        let mut out = Vec::new();
        let status = rpy_llinterp::LlInterpreter::new(&program)
            .run_entry(std::slice::from_ref(&src.path), &mut out)
            .unwrap_or_else(|e| panic!("seed {seed:x} fails: {}", e.message));
        assert_eq!(status, 0);
        let got = String::from_utf8(out).expect("utf-8 output");
        let want = String::from_utf8(expected.stdout).expect("utf-8 output");
        if got != want {
            let first = got
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "seed {seed:x} ({}): the LLInterpreter and python3 differ from line {}:\n  rpy:    {:?}\n  python: {:?}",
                path.display(),
                first + 1,
                got.lines().nth(first),
                want.lines().nth(first)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
