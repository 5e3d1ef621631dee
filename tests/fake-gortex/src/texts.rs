//! Model-visible texts of the hook (FAKE-6): the orientation briefing and the deny/advisory texts.
//! The parts the spec quotes are exact; the elided parts are the fake's own wording.

use crate::scenario::OrientationTier;

/// The line every deny and advisory text ends with.
pub const MANDATORY_FOOTER: &str = "  - Native Gortex MCP is mandatory for this profile. If a referenced Gortex tool is missing from the callable MCP tools despite the server being configured, surface a Gortex MCP integration failure to the user and stop. Do not start a daemon or use any CLI/shell fallback.\n";

pub const CONSULT_UNLOCK_SUFFIX: &str = "[Gortex] consult-unlock: query the Gortex graph once (any mcp__gortex__ tool) to unlock fallback file reads for the rest of this session.";

pub const NUDGE_PREFIX: &str = "[Gortex] You've made several raw file-search calls in a row. ";
pub const NUDGE_SUFFIX: &str = "This reminder fires once — the next call will proceed.";

pub const PROMPT_HEADER: &str = "## Gortex — relevant indexed symbols for your request";

const GRAPH_COUNTS: &str = "1 tracked repo(s), 1200 nodes, 3400 edges across 1 workspace(s).";

/// The readiness line of a tier; `None` for the `none` tier (no briefing).
pub fn readiness_line(tier: OrientationTier, version: Option<&str>) -> Option<String> {
    let v = version.unwrap_or("unknown");
    let line = match tier {
        OrientationTier::StandardReady => {
            format!("✓ Gortex daemon ready (v{v}, uptime 5s). {GRAPH_COUNTS}")
        }
        OrientationTier::StandardPartial => format!(
            "✓ Gortex daemon ready — references queryable (v{v}, uptime 1m); semantic enrichment still running. {GRAPH_COUNTS}"
        ),
        OrientationTier::Warming => format!(
            "⏳ Gortex daemon warming up (v{v}, 3s elapsed). Enforcement is partial until ready. 1 tracked repo(s) indexing, 1200 nodes so far."
        ),
        OrientationTier::LeanReady => format!("✓ Gortex ready (v{v}): 1 repo(s), 1200 nodes."),
        OrientationTier::LeanWarming => {
            format!("✓ Gortex warming up — enforcement partial (v{v}): 1 repo(s), 1200 nodes.")
        }
        OrientationTier::Vv => format!("✓ Gortex daemon ready (vv{v}, uptime 5s). {GRAPH_COUNTS}"),
        OrientationTier::UnknownVersion => {
            format!("✓ Gortex daemon ready (vunknown, uptime 5s). {GRAPH_COUNTS}")
        }
        OrientationTier::Unreachable => unreachable_line(),
        OrientationTier::None => return None,
    };
    Some(line)
}

pub fn unreachable_line() -> String {
    "⚠️  **Gortex graph transport is unreachable.** Required native MCP tools and code-operation enforcement cannot be assumed healthy. Surface this to the user; do not fall back to raw reads of indexed source.".to_string()
}

pub fn cwd_paragraph(cwd: &str, repo: &str, tracked: bool) -> String {
    if tracked {
        format!("**cwd `{cwd}` is tracked** as repo `{repo}` (workspace: `{repo}`, 1200 nodes). Enforcement is active.")
    } else {
        format!("⚠️  **cwd `{cwd}` is not covered by any tracked repo.** Gortex tools answer only for tracked repos; enforcement is inactive here until it is tracked.")
    }
}

pub fn rule_preamble() -> String {
    "**Rule:** For an explicitly named file that the user asks you to read, review, or summarize, \
use Gortex `read` with operation `file`. For everything else start with `explore`, then `search` \
and `read`; raw Read, Grep, Glob and shell reads of indexed source are blocked.\n"
        .to_string()
}

pub fn orientation(readiness: &str, cwd: &str, repo: &str, tracked: bool) -> String {
    format!(
        "## Gortex Session Orientation\n\n{readiness}\n\n{}\n{}",
        cwd_paragraph(cwd, repo, tracked),
        rule_preamble()
    )
}

fn with_footer(head: String, details: &[String]) -> String {
    let mut text = head;
    text.push('\n');
    for d in details {
        text.push_str("  - ");
        text.push_str(d);
        text.push('\n');
    }
    text.push_str(MANDATORY_FOOTER);
    text
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

pub fn read_denied(path: &str) -> String {
    with_footer(
        format!("[Gortex] BLOCKED: Read of {path} (12 symbols indexed). Call `explore` first, then use `read` instead:"),
        &[
            format!("explore {{\"target\":{{\"file\":{}}}}}", json_str(path)),
            format!("read {{\"operation\":\"file\",\"target\":{{\"file\":{}}}}}", json_str(path)),
        ],
    )
}

pub fn grep_denied(pattern: &str) -> String {
    with_footer(
        format!("[Gortex] BLOCKED: Grep `{pattern}` targets indexed source. Use the indexed search surface instead:"),
        &[
            format!("search {{\"operation\":\"text\",\"query\":{}}}", json_str(pattern)),
            format!("search {{\"operation\":\"symbols\",\"query\":{}}}", json_str(pattern)),
        ],
    )
}

pub fn glob_denied(pattern: &str) -> String {
    with_footer(
        format!("[Gortex] BLOCKED: Glob `{pattern}` targets indexed source. Use:"),
        &[format!(
            "search {{\"operation\":\"files\",\"query\":{}}}",
            json_str(pattern)
        )],
    )
}

pub fn bash_read_denied(cmd: &str, path: &str) -> String {
    with_footer(
        format!("[Gortex] BLOCKED: Bash `{cmd} {path}` reads indexed source (12 symbols). Use `read` instead:"),
        &[format!("read {{\"operation\":\"file\",\"target\":{{\"file\":{}}}}}", json_str(path))],
    )
}

/// `verb` is `Edit` or `Write`; `blocked` adds the hard-deny prefix.
pub fn edit_advice(verb: &str, path: &str, blocked: bool) -> String {
    let prefix = if blocked {
        "[Gortex] BLOCKED: "
    } else {
        "[Gortex] "
    };
    with_footer(
        format!("{prefix}{verb} of {path} (indexed source). Use Gortex MCP edit tools so the graph stays in sync:"),
        &[
            format!("edit {{\"operation\":\"file\",\"target\":{{\"file\":{}}},\"match\":\"…\",\"replacement\":\"…\"}}", json_str(path)),
            format!("edit {{\"operation\":\"write\",\"target\":{{\"file\":{}}},\"content\":\"…\"}}", json_str(path)),
        ],
    )
}

/// The nudge block: the flagged call's headline between the fixed prefix and suffix.
pub fn nudge(reason: &str) -> String {
    let headline = reason
        .lines()
        .next()
        .unwrap_or("")
        .trim_start_matches("[Gortex] BLOCKED: ")
        .trim_start_matches("[Gortex] ");
    format!("{NUDGE_PREFIX}Latest: {headline}\n{NUDGE_SUFFIX}")
}

pub fn prompt_context(tokens: &[String]) -> String {
    let mut text = format!("{PROMPT_HEADER}\n");
    for t in tokens {
        text.push_str(&format!("- `{t}` (function) src/{t}.go:12\n"));
    }
    text
}
