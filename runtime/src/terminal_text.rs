//! Untrusted text made safe to show (CFG-17).
//!
//! Key names, values and paths from a project sidecar reach `ui.notify` and
//! the doctor's terminal output. A cloned repository must not be able to
//! move the cursor, recolour or clear the user's terminal, or flood the
//! notification area, through them: control characters (C0, DEL, C1, which
//! covers ESC and so every ANSI sequence) and the bidirectional overrides
//! that reorder what a reader sees are shown escaped, and the text is cut to
//! a bounded length.

/// The most characters of one untrusted piece shown before it is cut.
pub const MAX_SHOWN_CHARS: usize = 200;

/// `text` with every control or bidi-control character escaped as `\u{..}`
/// (tab and newline included: one piece is one line).
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        push_escaped(&mut out, ch);
    }
    out
}

/// [`escape_controls`], then cut to [`MAX_SHOWN_CHARS`] characters with `…`.
pub fn shown(text: &str) -> String {
    let mut out = String::new();
    for (count, ch) in text.chars().enumerate() {
        if count == MAX_SHOWN_CHARS {
            out.push('…');
            break;
        }
        push_escaped(&mut out, ch);
    }
    out
}

/// A whole multi-line report: each line escaped, the newlines kept.
pub fn escape_lines(text: &str) -> String {
    text.split('\n')
        .map(escape_controls)
        .collect::<Vec<_>>()
        .join("\n")
}

fn push_escaped(out: &mut String, ch: char) {
    if needs_escape(ch) {
        out.push_str(&format!("\\u{{{:x}}}", ch as u32));
    } else {
        out.push(ch);
    }
}

/// Control characters, and the Unicode bidi embedding/override/isolate marks.
fn needs_escape(ch: char) -> bool {
    ch.is_control() || matches!(ch, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_escapes_and_newlines_are_shown_escaped() {
        assert_eq!(
            escape_controls("a\u{1b}[2Jb\nc\u{9b}d"),
            "a\\u{1b}[2Jb\\u{a}c\\u{9b}d"
        );
    }

    #[test]
    fn bidi_overrides_are_escaped() {
        assert_eq!(escape_controls("x\u{202e}y"), "x\\u{202e}y");
    }

    #[test]
    fn long_text_is_cut_with_an_ellipsis() {
        let long = "k".repeat(MAX_SHOWN_CHARS + 50);
        let cut = shown(&long);
        assert_eq!(cut.chars().count(), MAX_SHOWN_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(shown("short"), "short");
    }

    #[test]
    fn lines_keep_their_newlines() {
        assert_eq!(escape_lines("a\u{1b}\nb"), "a\\u{1b}\nb");
    }
}
