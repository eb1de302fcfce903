//! Every annotate and rtype rule fires when the test programs are translated:
//! a rule no program needs is either dead or untested. (Opt rules are held to
//! the same standard by passes/tests/backendopt.rs.)

mod support;

use rpy::pipeline::{c_source, StageName, Timings};
use rpy_passes::rules::{self, RuleKind};

#[test]
fn every_annotate_and_rtype_rule_fires_on_the_test_programs() {
    rules::reset_fire_counts();
    for p in support::programs().into_iter().filter(|p| p.reaches(StageName::Genc)) {
        c_source(&p.source(), &mut Timings::default()).unwrap_or_else(|d| panic!("{d}"));
    }
    let silent: Vec<String> = rules::RULES
        .iter()
        .enumerate()
        .filter(|(i, r)| r.kind != RuleKind::Opt && rules::fire_count(*i) == 0)
        .map(|(_, r)| format!("{}:{} {}", r.file, r.line, r.name))
        .collect();
    assert!(
        silent.is_empty(),
        "{} rules never fired on tests/programs:\n{}",
        silent.len(),
        silent.join("\n")
    );
}
