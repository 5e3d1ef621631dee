//! The `replay` scenario: an MCP "server" that is a fixed program of reads and writes, for exact
//! wire sequences the full server cannot produce on cue (a server request before the
//! initialize reply, canned pages, a reply only after a cancellation). It replaces the `/bin/sh`
//! scripts such tests used, so they run wherever fake-gortex runs, Windows included.
//!
//! Every line read is appended to `$CAPTURE` when that is set. Steps run in order; `serve`
//! is the last one that matters, as it reads until stdin ends.

use std::io::{BufRead, BufReader, Write};

use serde::Deserialize;
use serde_json::Value;

use crate::log;
use crate::stdio::{raw_file, Stream};

/// One step of a replay program.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Reads this many lines and answers none of them.
    Read(usize),
    /// Writes this line as it is.
    Send(String),
    /// Until stdin ends: each line read is answered by the first rule whose `on` it contains.
    Serve(Vec<Rule>),
}

/// An answer to the lines that contain `on`. Its nth use sends `replies[n-1]` (the last one
/// again once they run out), with `{id}` replaced by the line's JSON-RPC id and `{n}` by n.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub on: String,
    pub replies: Vec<String>,
}

pub fn run(steps: &[Step]) -> i32 {
    let stdin = raw_file(Stream::Stdin);
    let mut reader = BufReader::new(&*stdin);
    let stdout = raw_file(Stream::Stdout);
    let mut out = &*stdout;
    let capture = std::env::var_os("CAPTURE");
    let mut read_line = || -> Option<String> {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => {
                let line = line.trim_end_matches(['\r', '\n']).to_string();
                if let Some(path) = &capture {
                    append(path, &line);
                }
                Some(line)
            }
        }
    };
    for step in steps {
        match step {
            Step::Read(count) => {
                for _ in 0..*count {
                    if read_line().is_none() {
                        return finish("stdin_eof");
                    }
                }
            }
            Step::Send(line) => {
                if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                    return finish("stdout_closed");
                }
            }
            Step::Serve(rules) => {
                let mut used = vec![0usize; rules.len()];
                while let Some(line) = read_line() {
                    let Some(k) = rules.iter().position(|r| line.contains(&r.on)) else {
                        continue;
                    };
                    used[k] += 1;
                    let reply = answer(&rules[k], used[k], &line);
                    if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
                        return finish("stdout_closed");
                    }
                }
                return finish("stdin_eof");
            }
        }
    }
    // A program without `serve` still drains its stdin, as a server would.
    while read_line().is_some() {}
    finish("stdin_eof")
}

/// `rule`'s reply for its nth use on `line`.
fn answer(rule: &Rule, n: usize, line: &str) -> String {
    let template = rule
        .replies
        .get(n - 1)
        .or(rule.replies.last())
        .map(String::as_str)
        .unwrap_or("");
    let id = serde_json::from_str::<Value>(line)
        .ok()
        .and_then(|frame| frame.get("id").cloned())
        .unwrap_or(Value::Null);
    template
        .replace("{id}", &id.to_string())
        .replace("{n}", &n.to_string())
}

fn append(path: &std::ffi::OsStr, line: &str) {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    if let Ok(mut file) = file {
        let _ = writeln!(file, "{line}");
    }
}

fn finish(reason: &str) -> i32 {
    log::record("exit", serde_json::json!({"code": 0, "reason": reason}));
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(replies: &[&str]) -> Rule {
        Rule {
            on: "tools/list".into(),
            replies: replies.iter().map(|r| r.to_string()).collect(),
        }
    }

    #[test]
    fn the_nth_use_takes_the_nth_reply_then_the_last() {
        let r = rule(&["a{n}", "b{n}"]);
        let line = r#"{"id":7,"method":"tools/list"}"#;
        assert_eq!(answer(&r, 1, line), "a1");
        assert_eq!(answer(&r, 2, line), "b2");
        assert_eq!(answer(&r, 5, line), "b5");
    }

    #[test]
    fn the_id_is_the_lines_own_as_json() {
        let r = rule(&[r#"{"id":{id}}"#]);
        assert_eq!(answer(&r, 1, r#"{"id":12}"#), r#"{"id":12}"#);
        assert_eq!(answer(&r, 1, r#"{"id":"s-1"}"#), r#"{"id":"s-1"}"#);
        assert_eq!(answer(&r, 1, "not json"), r#"{"id":null}"#);
    }
}
