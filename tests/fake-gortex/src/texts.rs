//! Model-visible texts of the hook (FAKE-6): the orientation briefing and the deny/advisory texts,
//! in the shape of Gortex's own hook handler (0.63.8): headlines, alternative lines, the compact
//! output tip and the mandatory footer. The rule preamble is shortened.

use crate::scenario::OrientationTier;

/// The line every deny and advisory text ends with.
pub const MANDATORY_FOOTER: &str = "  - Native Gortex MCP is mandatory for this profile. If a referenced Gortex tool is missing from the callable MCP tools despite the server being configured, surface a Gortex MCP integration failure to the user and stop. Do not start a daemon or use any CLI/shell fallback.\n";

pub const CONSULT_UNLOCK_SUFFIX: &str = "\n[Gortex] consult-unlock: query the Gortex graph once (any mcp__gortex__ tool) to unlock fallback file reads for the rest of this session.";

pub const NUDGE_PREFIX: &str = "[Gortex] You've made several raw file-search calls in a row. Call `explore` for the task, then use `search`, `read`, or `relations`; do not continue the raw search/read loop.\n";
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
            "⏳ Gortex daemon warming up (v{v}, 3s elapsed). Enforcement is partial until ready. {GRAPH_COUNTS}"
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
    "⚠️  **Gortex graph transport is unreachable.** Required native MCP tools and code-operation enforcement cannot be assumed healthy. Treat this as an MCP integration failure: stop indexed code operations and report it; do not start a daemon manually or switch to a CLI fallback.".to_string()
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

/// The compact-output line Gortex adds to every read, search and glob redirect.
pub const GCX_TIP: &str = "For compact output, pass `output:{format:\"gcx\"}`.";

fn with_footer(head: String, details: &[&str]) -> String {
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

pub fn read_denied(path: &str) -> String {
    with_footer(
        format!("[Gortex] BLOCKED: Read of {path} (12 symbols indexed). Call `explore` first, then use `read` instead:"),
        &[
            "`read(target:{symbol:\"<id>\"})` — one symbol",
            "`read(target:{symbols:[\"<id>\"]})` — several symbols",
            "`read(operation:\"editing_context\", target:{file:\"<path>\"})` — full editing context",
            GCX_TIP,
        ],
    )
}

pub fn grep_denied(pattern: &str) -> String {
    with_footer(
        format!("[Gortex] BLOCKED: Grep `{pattern}` targets indexed source. Use the indexed search surface instead:"),
        &[
            "`search(operation:\"text\", query:\"<literal>\")` — literal or regex-related source lookup",
            "`search(operation:\"symbols\", query:\"<name>\")` — symbol lookup",
            GCX_TIP,
        ],
    )
}

pub fn glob_denied(pattern: &str) -> String {
    with_footer(
        format!("[Gortex] BLOCKED: Glob `{pattern}` targets indexed source. Use:"),
        &[
            "`explore(operation:\"outline\")` — repository/file outline",
            "`search(operation:\"files\", query:\"<name>\")` — filename lookup",
            "`search(operation:\"symbols\", query:\"<name>\")` — symbols with file paths",
            "`read(operation:\"summary\", target:{file:\"<path>\"})` — a specific file overview",
            GCX_TIP,
        ],
    )
}

pub fn bash_read_denied(cmd: &str, path: &str) -> String {
    with_footer(
        format!("[Gortex] BLOCKED: Bash `{cmd} {path}` reads indexed source (12 symbols). Use graph tools instead:"),
        &[
            "one symbol: `read(target:{symbol:\"<id>\"})`",
            "file overview: `read(operation:\"summary\", target:{file:\"<path>\"})`",
            "before editing: `read(operation:\"editing_context\", target:{file:\"<path>\"})`",
            GCX_TIP,
        ],
    )
}

/// `verb` is `Edit` or `Write`; `blocked` adds the hard-deny prefix and the bypass line.
pub fn edit_advice(verb: &str, path: &str, blocked: bool) -> String {
    let (subject, alternatives): (String, &[&str]) = if verb == "Edit" {
        (
            format!("Edit of {path} (indexed source). Use Gortex MCP edit tools — they don't require a prior Read and update the graph atomically:"),
            &[
                "choose `edit` operation `symbol`, `file`, or `batch`; for example `edit(operation:\"file\", target:{file:\"<path>\"})`",
                "`refactor(operation:\"rename\")` for a coordinated rename",
            ],
        )
    } else {
        (
            format!(
                "Write of {path} (indexed source — would overwrite existing tracked file). Use:"
            ),
            &[
                "`edit(operation:\"write\")` for a whole-file write",
                "`edit(operation:\"file\")` for a guarded replacement",
            ],
        )
    };
    let mut body = subject;
    body.push('\n');
    for a in alternatives {
        body.push_str("  - ");
        body.push_str(a);
        body.push('\n');
    }
    body.push('\n');
    body.push_str(MANDATORY_FOOTER);
    if blocked {
        format!("[Gortex] BLOCKED: {body}To bypass this redirect: unset GORTEX_HOOK_BLOCK_EDIT, or target a path outside the tracked repos.\n")
    } else {
        format!("[Gortex] {body}")
    }
}

/// The nudge block: the fixed notice, then the flagged call's deny text, then the one-shot line.
pub fn nudge(reason: &str) -> String {
    let newline = if reason.ends_with('\n') { "" } else { "\n" };
    format!("{NUDGE_PREFIX}{MANDATORY_FOOTER}{reason}{newline}{NUDGE_SUFFIX}")
}

pub fn prompt_context(tokens: &[String]) -> String {
    let mut text = format!("{PROMPT_HEADER}\n\n");
    for t in tokens {
        text.push_str(&format!("- `{t}` (function) — src/{t}.go:12\n"));
    }
    text
}
