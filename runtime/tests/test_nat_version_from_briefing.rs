//! NAT-10 and NAT-11: the native path reads the daemon version from the
//! briefing's readiness line (every tier of the spec's table) and runs the
//! skew check with no protocol.

use pi_gortex_runtime::extension::session::texts::skew_from_briefing;
use pi_gortex_runtime::version::{version_from_briefing, SkewKind};

fn briefing(line: &str) -> String {
    format!("## Gortex Session Orientation\n\n{line}\n\n**cwd `/repo` is tracked** as repo `repo`.")
}

#[test]
fn every_readiness_tier_of_the_table() {
    let table = [
        ("✓ Gortex daemon ready (v0.64.5+33107203, uptime 1m).", "0.64.5+33107203"),
        ("✓ Gortex daemon ready — references queryable (v0.64.5, uptime 1m); semantic …", "0.64.5"),
        ("⏳ Gortex daemon warming up (v0.62.0, 3s elapsed).", "0.62.0"),
        ("✓ Gortex ready (v0.64.4): 1 repo(s), 1200 nodes.", "0.64.4"),
        ("✓ Gortex warming up — enforcement partial (v0.64.4): …", "0.64.4"),
        ("✓ Gortex daemon ready (vv0.63.2+ab12cd34, uptime 3m).", "0.63.2+ab12cd34"),
        ("✓ Gortex daemon ready (vunknown, uptime 5s).", ""),
        (
            "⚠️  **Gortex graph transport is unreachable.** Required native MCP tools and code-operation enforcement cannot be assumed healthy.",
            "",
        ),
    ];
    for (line, version) in table {
        assert_eq!(version_from_briefing(&briefing(line)), version, "{line}");
    }
    assert_eq!(version_from_briefing(""), "");
}

#[test]
fn old_daemon_in_the_briefing_gives_the_stale_warning() {
    let warning = skew_from_briefing(&briefing("✓ Gortex daemon ready (v0.60.0, uptime 5s)."))
        .expect("stale");
    assert_eq!(warning.kind, SkewKind::Stale);
    assert_eq!(
        warning.model_text,
        "[Gortex] the daemon is gortex 0.60.0, older than the 0.61.2 this extension targets. A graph tool may be missing or behave unexpectedly. If one does, tell the user to run `gortex upgrade`."
    );
}

#[test]
fn current_or_unknown_versions_give_nothing() {
    assert_eq!(
        skew_from_briefing(&briefing("✓ Gortex ready (v0.64.4): 1 repo(s).")),
        None
    );
    assert_eq!(
        skew_from_briefing(&briefing("✓ Gortex daemon ready (vunknown, uptime 5s).")),
        None
    );
    assert_eq!(
        skew_from_briefing(""),
        None,
        "no protocol check on native (NAT-11)"
    );
}
