//! Every annotate and rtype rule fires when the test programs are translated:
//! a rule no program needs is either dead or untested. (Opt rules are held to
//! the same standard by passes/tests/backendopt.rs.)
//!
//! Annotate rules count over every program that reaches the annotate stage
//! (`# until: annotate` included); rtype rules over those that reach rtype.

mod support;

use rayon::prelude::*;
use rpy::pipeline::{run_until, StageName, Timings};
use rpy_ruleset::RuleKind;

#[test]
fn every_annotate_and_rtype_rule_fires_on_the_test_programs() {
    rpy_ruleset::reset_fire_counts();
    // The counts are atomic: the programs run on every core.
    support::programs()
        .into_par_iter()
        .filter(|p| p.reaches(StageName::Annotate))
        .for_each(|p| {
            let last = if p.reaches(StageName::Genc) {
                StageName::Genc
            } else if p.reaches(StageName::Rtype) {
                StageName::Rtype
            } else {
                StageName::Annotate
            };
            run_until(&p.source(), last, &mut Timings::default())
                .unwrap_or_else(|d| panic!("{}: {d}", p.name));
        });
    let silent: Vec<String> = rpy_ruleset::RULES
        .iter()
        .enumerate()
        .filter(|(i, r)| r.kind != RuleKind::Opt && rpy_ruleset::fire_count(*i) == 0)
        .map(|(_, r)| format!("{}:{} {}", r.file, r.line, r.name))
        .collect();
    assert!(
        silent.is_empty(),
        "{} rules never fired on tests/programs:\n{}",
        silent.len(),
        silent.join("\n")
    );
}
