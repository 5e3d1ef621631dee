//! The size limit of the text a tool call gives the model, the
//! limit and marker of Pi's own MCP client so both paths show the same text.
//!
//! Longer text keeps its first and last 10 KiB with the middle replaced by a
//! `…N chars truncated…` marker, under a warning header. The limited text is
//! built from borrowed slices of the full text, so the full text is never
//! copied; the caller may save it where the model can read it.

use std::path::PathBuf;

/// Model-facing text of a result beyond this many UTF-8 bytes is cut in the
/// middle.
pub const MCP_OUTPUT_MAX_BYTES: usize = 20 * 1024;

/// Prefix of the file that keeps the full text of a cut result, in the OS
/// temp directory, as Pi names its own.
pub const FULL_OUTPUT_PREFIX: &str = "pi-mcp-";

/// A text cut in the middle: the parts kept and what the header reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncation<'a> {
    /// The start of the text, at most half the limit.
    pub head: &'a str,
    /// The end of the text, at most the other half.
    pub tail: &'a str,
    /// Characters (Unicode scalar values) left out.
    pub removed_chars: usize,
    /// UTF-8 length of the whole text.
    pub total_bytes: usize,
    /// Lines of the whole text; a final newline ends the last line.
    pub total_lines: usize,
}

/// Where the full text of a cut result went, for the line after the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FullOutput {
    /// Not saved (the caller did not ask).
    NotSaved,
    /// Saved at this path.
    Saved(PathBuf),
    /// Saving failed with this message.
    Failed(String),
}

/// The head and tail of `text` within `max_bytes`, cut at character
/// boundaries; `None` when `text` fits.
pub fn truncate_middle(text: &str, max_bytes: usize) -> Option<Truncation<'_>> {
    let total_bytes = text.len();
    if total_bytes <= max_bytes {
        return None;
    }
    let mut head_end = max_bytes / 2;
    while head_end > 0 && !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = total_bytes - (max_bytes - max_bytes / 2);
    while tail_start < total_bytes && !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    let bytes = text.as_bytes();
    let newlines = memchr::memchr_iter(b'\n', bytes).count();
    Some(Truncation {
        head: text.get(..head_end)?,
        tail: text.get(tail_start..)?,
        removed_chars: text.get(head_end..tail_start)?.chars().count(),
        total_bytes,
        total_lines: newlines + 1 - usize::from(bytes.last() == Some(&b'\n')),
    })
}

/// The text the model reads for a cut result: Pi's warning header, the head,
/// the marker, the tail, and where the full text is.
pub fn limited_text(cut: &Truncation<'_>, full: &FullOutput) -> String {
    let tokens = cut.total_bytes.div_ceil(4);
    let header = format!(
        "Warning: truncated output (original token count: {tokens})\nTotal output lines: {}\n\n",
        cut.total_lines
    );
    let marker = format!("…{} chars truncated…", cut.removed_chars);
    let place = match full {
        FullOutput::NotSaved => String::new(),
        FullOutput::Saved(path) => format!(
            "\n\n[Full output: {} (read it with offset/limit)]",
            path.display()
        ),
        FullOutput::Failed(reason) => format!("\n\n[Could not save the full output: {reason}]"),
    };
    let mut out = String::with_capacity(
        header.len() + cut.head.len() + marker.len() + cut.tail.len() + place.len(),
    );
    for part in [&header, cut.head, &marker, cut.tail, &place] {
        out.push_str(part);
    }
    out
}

/// Writes `text` to a new file only the user may read, in the OS temp
/// directory, never following a link someone placed there.
pub fn save_full_output(text: &str) -> FullOutput {
    let saved = tempfile::Builder::new()
        .prefix(FULL_OUTPUT_PREFIX)
        .suffix(".txt")
        .rand_bytes(16)
        .tempfile()
        .and_then(|mut file| {
            std::io::Write::write_all(&mut file, text.as_bytes())?;
            file.keep().map_err(|error| error.error)
        });
    match saved {
        Ok((_, path)) => FullOutput::Saved(path),
        Err(error) => FullOutput::Failed(error.to_string()),
    }
}

/// `text` within the limit: itself when it fits, else its limited form, the
/// full text saved first when `save` is set.
pub fn limit_text(text: String, save: bool) -> String {
    let Some(cut) = truncate_middle(&text, MCP_OUTPUT_MAX_BYTES) else {
        return text;
    };
    let full = if save {
        save_full_output(&text)
    } else {
        FullOutput::NotSaved
    };
    limited_text(&cut, &full)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_33_text_within_the_limit_is_kept_whole() {
        let fits = "x".repeat(MCP_OUTPUT_MAX_BYTES);
        assert!(truncate_middle(&fits, MCP_OUTPUT_MAX_BYTES).is_none());
        assert_eq!(limit_text(fits.clone(), false), fits);
    }

    #[test]
    fn mcp_33_keeps_half_the_limit_each_side_and_counts_what_it_cut() {
        let text = format!("{}\n{}\n", "a".repeat(15_000), "b".repeat(15_000));
        let cut = truncate_middle(&text, MCP_OUTPUT_MAX_BYTES).unwrap();
        assert_eq!(cut.head.len(), 10_240);
        assert_eq!(cut.tail.len(), 10_240);
        assert_eq!(cut.removed_chars, text.len() - 20_480);
        assert_eq!(cut.total_lines, 2);
        let limited = limited_text(&cut, &FullOutput::NotSaved);
        assert!(limited.starts_with(
            "Warning: truncated output (original token count: 7501)\nTotal output lines: 2\n\naaa"
        ));
        assert!(limited.contains(&format!("a…{} chars truncated…b", 30_002 - 20_480)));
        assert!(limited.ends_with("bbb\n"));
    }

    #[test]
    fn mcp_33_cuts_only_at_character_boundaries() {
        // 3-byte characters: 10240 is not a boundary on either side.
        let text = "✓".repeat(10_000);
        let cut = truncate_middle(&text, MCP_OUTPUT_MAX_BYTES).unwrap();
        assert_eq!(cut.head.len(), 10_239);
        assert_eq!(cut.tail.len(), 10_239);
        assert_eq!(cut.removed_chars, 10_000 - 2 * 3413);
        assert_eq!(cut.total_lines, 1);
    }

    #[test]
    fn mcp_33_names_the_saved_full_output() {
        let text = "line\n".repeat(10_000);
        let limited = limit_text(text.clone(), true);
        let path = limited
            .rsplit_once("[Full output: ")
            .and_then(|(_, rest)| rest.strip_suffix(" (read it with offset/limit)]"))
            .expect("the full output line");
        assert!(std::path::Path::new(path)
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with(FULL_OUTPUT_PREFIX) && name.ends_with(".txt")));
        assert_eq!(std::fs::read_to_string(path).unwrap(), text);
        std::fs::remove_file(path).unwrap();
        let failed = limited_text(
            &truncate_middle(&text, MCP_OUTPUT_MAX_BYTES).unwrap(),
            &FullOutput::Failed("disk full".into()),
        );
        assert!(failed.ends_with("\n\n[Could not save the full output: disk full]"));
    }
}
