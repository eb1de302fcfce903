//! `from rpython.annotator.policy import AnnotatorPolicy`, as the
//! original's jit/tl/targettiny1.py and targettiny2.py do (they never use
//! it): pylib's stand-in lets the import through, where rpy rejected the
//! original's annotator module. rpy takes no policy: a target may return
//! one as the third item of its result, as the original's driver reads
//! it, and rpy ignores it.

const PROGRAM: &str = "from rpython.annotator.policy import AnnotatorPolicy


class MyPolicy(AnnotatorPolicy):
    def event(pol, bookkeeper, what, *args):
        pass


policy = MyPolicy()


def entry_point(argv):
    print('%d arguments' % len(argv))
    return 0
";

#[test]
fn annotator_policy_agrees_with_cpython() {
    crate::support::source_matches_cpython("annotator_policy", PROGRAM);
}

#[test]
fn a_policy_target_returns_is_ignored() {
    let text =
        format!("{PROGRAM}\n\ndef target(driver, args):\n    return entry_point, None, policy\n");
    let dir = crate::support::ScratchDir::new("annotator_policy_target");
    let path = dir.join("policy_target.py");
    std::fs::write(&path, &text).unwrap();
    let src = rpy::pipeline::Source {
        path: path.display().to_string(),
        text,
        dialect: rpy_ir::ast::Dialect::Py3,
        gc: rpy_ir::llops::GcKind::default(),
        jit: false,
    };
    let program = rpy::pipeline::lowlevel(&src).unwrap_or_else(|d| panic!("{d}"));
    let mut out = Vec::new();
    let status = rpy_llinterp::LlInterpreter::new(&program)
        .run_entry(std::slice::from_ref(&src.path), &mut out)
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(
        (String::from_utf8(out).unwrap().as_str(), status),
        ("1 arguments\n", 0)
    );
}
