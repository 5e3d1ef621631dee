//! Version floor and skew warnings (MCP-20..MCP-24, NAT-10).
//!
//! Both channels end up here: the own client reads the handshake, the native
//! path reads the readiness line of the briefing. The texts are part of the
//! behaviour and are compared verbatim by tests, so they live in one place.

use std::cmp::Ordering;
use std::sync::OnceLock;

use regex::Regex;

/// The oldest daemon this extension targets.
pub const MIN_GORTEX_VERSION: &str = "0.61.2";
/// The MCP protocol the own client offers in `initialize`, the one
/// Pi's own MCP client offers.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// The protocols a server may answer with and still be spoken to without a
/// skew report: the offered one and the older ones Pi's own MCP
/// client accepts.
pub const ACCEPTED_PROTOCOL_VERSIONS: [&str; 4] =
    [PROTOCOL_VERSION, "2025-06-18", "2025-03-26", "2024-11-05"];

/// Whether a negotiated protocol is one the own client speaks.
pub fn is_accepted_protocol(protocol: &str) -> bool {
    ACCEPTED_PROTOCOL_VERSIONS.contains(&protocol)
}

/// Numeric segments of a version per MCP-20: every leading `v` stripped (so
/// `vv0.63.2` works), cut at the first `+` or `-`, each `.` segment read as
/// its leading digits (0 when there are none).
fn segments(version: &str) -> Vec<u64> {
    let bare = version.trim_start_matches('v');
    let core = bare.split(['+', '-']).next().unwrap_or("");
    core.split('.')
        .map(|segment| {
            let digits: String = segment.chars().take_while(char::is_ascii_digit).collect();
            // Saturate instead of failing: an absurd segment must not make a
            // newer daemon look older.
            digits
                .parse::<u64>()
                .unwrap_or(if digits.is_empty() { 0 } else { u64::MAX })
        })
        .collect()
}

/// Compares two versions element by element, a missing segment counting as 0.
pub fn compare_versions(left: &str, right: &str) -> Ordering {
    let (left, right) = (segments(left), segments(right));
    let width = left.len().max(right.len());
    (0..width)
        .map(|i| {
            let l = left.get(i).copied().unwrap_or(0);
            let r = right.get(i).copied().unwrap_or(0);
            l.cmp(&r)
        })
        .find(|ordering| ordering.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// True when `version` is strictly below the floor. An empty version is never below.
pub fn is_below_floor(version: &str) -> bool {
    !version.is_empty() && compare_versions(version, MIN_GORTEX_VERSION) == Ordering::Less
}

/// Which skew condition a report is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkewKind {
    /// The daemon is older than [`MIN_GORTEX_VERSION`].
    Stale,
    /// The daemon negotiated a protocol not in [`ACCEPTED_PROTOCOL_VERSIONS`].
    Protocol {
        /// The protocol the daemon answered with.
        negotiated: String,
    },
}

/// One skew report: exactly one user notification and one model line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkewWarning {
    /// The condition that fired (stale wins when both hold).
    pub kind: SkewKind,
    /// Text for `ctx.ui.notify(text, "warning")`.
    pub user_text: String,
    /// Text joined into the first-turn message.
    pub model_text: String,
}

/// The `<installed>` part of a skew text.
fn installed_label(server_version: &str) -> String {
    if server_version.is_empty() {
        "an unreported version".to_string()
    } else {
        format!("gortex {server_version}")
    }
}

/// The skew report for a handshake, or `None` when neither condition holds.
/// The native path passes `""` as the protocol (never checked there).
pub fn skew_warning(server_version: &str, negotiated_protocol: &str) -> Option<SkewWarning> {
    let installed = installed_label(server_version);
    if is_below_floor(server_version) {
        return Some(SkewWarning {
            kind: SkewKind::Stale,
            user_text: format!(
                "{installed} is older than {MIN_GORTEX_VERSION}, which this extension needs. Graph tools and read discipline may be missing or wrong. Run `gortex upgrade`."
            ),
            model_text: format!(
                "[Gortex] the daemon is {installed}, older than the {MIN_GORTEX_VERSION} this extension targets. A graph tool may be missing or behave unexpectedly. If one does, tell the user to run `gortex upgrade`."
            ),
        });
    }
    if !negotiated_protocol.is_empty() && !is_accepted_protocol(negotiated_protocol) {
        let p = negotiated_protocol;
        return Some(SkewWarning {
            kind: SkewKind::Protocol {
                negotiated: p.to_string(),
            },
            user_text: format!(
                "{installed} answered the handshake with MCP protocol {p}, not the {PROTOCOL_VERSION} this extension speaks. Tool calls may fail. Run `gortex upgrade`."
            ),
            model_text: format!(
                "[Gortex] the daemon negotiated MCP protocol {p} instead of {PROTOCOL_VERSION}. A graph tool call may fail. If one does, tell the user to run `gortex upgrade`."
            ),
        });
    }
    None
}

/// The daemon version named by the readiness line of a briefing, or
/// `""`. Covers the standard line, the lean tier (no word `daemon`) and the
/// pre-0.63.3 `(vv…)` form.
pub fn version_from_briefing(orientation: &str) -> String {
    static READINESS: OnceLock<Regex> = OnceLock::new();
    let readiness = READINESS.get_or_init(|| {
        Regex::new(r"Gortex(?: daemon)? [^(\n]*\(vv?(\d[^,\s)]*)").expect("static regex")
    });
    readiness
        .captures(orientation)
        .and_then(|captures| captures.get(1))
        .map(|m| m.as_str().to_string())
        .unwrap_or_default()
}

/// What the readiness line of a briefing says about the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    /// Ready, enrichment complete (or a lean briefing that does not tell).
    Ready,
    /// References are queryable, semantic enrichment still runs.
    EnrichmentRunning,
    /// The daemon is still indexing: answers and enforcement are partial.
    Warming,
    /// The hook could not reach the daemon.
    Unreachable,
}

impl Readiness {
    /// True while the daemon reports indexing work still under way.
    pub fn is_indexing(self) -> bool {
        matches!(self, Readiness::Warming | Readiness::EnrichmentRunning)
    }
}

/// The readiness a briefing reports, or `None` when it has no
/// readiness line this extension knows. Covers the standard tiers (ready,
/// references queryable with enrichment running, warming up), the lean tier
/// (ready, warming up) and the unreachable-transport briefing.
pub fn readiness_from_briefing(orientation: &str) -> Option<Readiness> {
    static LINE: OnceLock<Regex> = OnceLock::new();
    let line = LINE.get_or_init(|| {
        Regex::new(r"Gortex(?: daemon)? (warming up|ready)( — references queryable)?")
            .expect("static regex")
    });
    if orientation.contains("Gortex graph transport is unreachable") {
        return Some(Readiness::Unreachable);
    }
    let captures = line.captures(orientation)?;
    Some(match (&captures[1], captures.get(2).is_some()) {
        ("warming up", _) => Readiness::Warming,
        (_, true) => Readiness::EnrichmentRunning,
        _ => Readiness::Ready,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_per_spec_examples() {
        assert!(is_below_floor("0.60.0"));
        assert!(!is_below_floor("0.61.2"));
        assert!(!is_below_floor("0.64.5+33107203"));
        assert_eq!(compare_versions("v0.61.2-rc1", "0.61.2"), Ordering::Equal);
        assert_eq!(compare_versions("vv0.63.2", "0.63.2"), Ordering::Equal);
        assert!(!is_below_floor(""));
        assert_eq!(compare_versions("1", "1.0.0"), Ordering::Equal);
        assert_eq!(compare_versions("0.61.10", "0.61.2"), Ordering::Greater);
    }

    #[test]
    fn stale_wins_over_protocol() {
        let warning = skew_warning("0.60.0", "2024-11-05").expect("stale");
        assert_eq!(warning.kind, SkewKind::Stale);
        assert!(warning
            .user_text
            .contains("gortex 0.60.0 is older than 0.61.2"));
        assert!(warning
            .model_text
            .starts_with("[Gortex] the daemon is gortex 0.60.0"));
    }

    #[test]
    fn protocol_skew_names_unreported_version() {
        let warning = skew_warning("", "2023-01-01").expect("protocol");
        assert_eq!(
            warning.user_text,
            "an unreported version answered the handshake with MCP protocol 2023-01-01, not the 2025-11-25 this extension speaks. Tool calls may fail. Run `gortex upgrade`."
        );
        assert!(skew_warning("", "2026-07-28").is_some());
        for accepted in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] {
            assert!(skew_warning("0.64.4", accepted).is_none(), "{accepted}");
        }
        assert!(skew_warning("", "").is_none());
    }

    #[test]
    fn reads_version_from_every_readiness_tier() {
        let cases = [
            (
                "✓ Gortex daemon ready (v0.64.5+33107203, uptime 1m).",
                "0.64.5+33107203",
            ),
            (
                "✓ Gortex daemon ready — references queryable (v0.64.5, uptime 1m); semantic …",
                "0.64.5",
            ),
            (
                "⏳ Gortex daemon warming up (v0.62.0, 3s elapsed).",
                "0.62.0",
            ),
            ("✓ Gortex ready (v0.64.4): 1 repo(s), 1200 nodes.", "0.64.4"),
            (
                "✓ Gortex warming up — enforcement partial (v0.64.4): …",
                "0.64.4",
            ),
            (
                "✓ Gortex daemon ready (vv0.63.2+ab12cd34, uptime 3m).",
                "0.63.2+ab12cd34",
            ),
            ("✓ Gortex daemon ready (vunknown, uptime 5s).", ""),
            (
                "⚠️  **Gortex graph transport is unreachable.** Required native MCP tools",
                "",
            ),
            ("", ""),
        ];
        for (line, expected) in cases {
            let briefing = format!("## Gortex Session Orientation\n\n{line}\n\nmore");
            assert_eq!(version_from_briefing(&briefing), expected, "{line}");
        }
    }

    #[test]
    fn stat_4_reads_readiness_from_every_tier() {
        let cases = [
            ("✓ Gortex daemon ready (v0.64.5, uptime 1m). 1 tracked repo(s)", Some(Readiness::Ready)),
            (
                "✓ Gortex daemon ready — references queryable (v0.64.5, uptime 1m); semantic enrichment still running.",
                Some(Readiness::EnrichmentRunning),
            ),
            (
                "⏳ Gortex daemon warming up (v0.62.0, 3s elapsed). Enforcement is partial until ready.",
                Some(Readiness::Warming),
            ),
            ("✓ Gortex ready (v0.64.4): 1 repo(s), 1200 nodes.", Some(Readiness::Ready)),
            (
                "✓ Gortex warming up — enforcement partial (v0.64.4): 1 repo(s).",
                Some(Readiness::Warming),
            ),
            (
                "⚠️  **Gortex graph transport is unreachable.** Required native MCP tools",
                Some(Readiness::Unreachable),
            ),
            ("no readiness line at all", None),
            ("", None),
        ];
        for (line, expected) in cases {
            let briefing = format!("## Gortex Session Orientation\n\n{line}\n\nmore");
            assert_eq!(readiness_from_briefing(&briefing), expected, "{line}");
        }
        assert!(Readiness::Warming.is_indexing());
        assert!(Readiness::EnrichmentRunning.is_indexing());
        assert!(!Readiness::Ready.is_indexing());
        assert!(!Readiness::Unreachable.is_indexing());
    }
}
