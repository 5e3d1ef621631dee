//! One line of the stats file decoded without copying: the writer's own shape
//! read by hand, anything else by serde, a record either way exactly when the
//! schema's [`StatsRecord`] would be one.

use std::borrow::Cow;
use std::num::NonZeroU32;

use pi_gortex_schema::stats::{StatsByKind, StatsRecord};
use serde::Deserialize;

/// One line's record: [`StatsRecord`]'s members in its order (serde also
/// reads a struct from an array in that order), each required, no other
/// allowed, with the strings borrowed from the file unless they hold escapes.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Debug, PartialEq))]
#[serde(deny_unknown_fields)]
pub(super) struct Line<'a> {
    pub allowed: i64,
    pub allowed_bytes: i64,
    pub ended_ms: i64,
    pub graph_answers: i64,
    pub graph_chars: i64,
    pub graph_tokens: i64,
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    pub kept_out_bytes: i64,
    pub kept_out_tokens: i64,
    pub net_tokens: i64,
    pub not_sized: i64,
    #[serde(borrow)]
    pub project: Cow<'a, str>,
    pub redirected: StatsByKind,
    pub started_ms: i64,
    pub v: NonZeroU32,
}

impl<'a> From<&'a StatsRecord> for Line<'a> {
    fn from(r: &'a StatsRecord) -> Self {
        // No `..`: a member the schema adds fails to compile here until the line decodes it too.
        let StatsRecord {
            allowed,
            allowed_bytes,
            ended_ms,
            graph_answers,
            graph_chars,
            graph_tokens,
            id,
            kept_out_bytes,
            kept_out_tokens,
            net_tokens,
            not_sized,
            project,
            redirected,
            started_ms,
            v,
        } = r;
        Line {
            allowed: *allowed,
            allowed_bytes: *allowed_bytes,
            ended_ms: *ended_ms,
            graph_answers: *graph_answers,
            graph_chars: *graph_chars,
            graph_tokens: *graph_tokens,
            id: Cow::Borrowed(id),
            kept_out_bytes: *kept_out_bytes,
            kept_out_tokens: *kept_out_tokens,
            net_tokens: *net_tokens,
            not_sized: *not_sized,
            project: Cow::Borrowed(project),
            redirected: redirected.clone(),
            started_ms: *started_ms,
            v: *v,
        }
    }
}

impl Line<'_> {
    /// A record as the schema allows it: format 1, no negative count.
    fn well_formed(&self) -> bool {
        let k = &self.redirected;
        self.v.get() == 1
            && [
                self.started_ms,
                self.ended_ms,
                k.read,
                k.grep,
                k.find,
                k.ls,
                k.bash,
                self.kept_out_bytes,
                self.kept_out_tokens,
                self.not_sized,
                self.graph_answers,
                self.graph_chars,
                self.graph_tokens,
                self.allowed,
                self.allowed_bytes,
            ]
            .iter()
            .all(|&v| v >= 0)
    }

    pub fn to_record(&self) -> StatsRecord {
        StatsRecord {
            allowed: self.allowed,
            allowed_bytes: self.allowed_bytes,
            ended_ms: self.ended_ms,
            graph_answers: self.graph_answers,
            graph_chars: self.graph_chars,
            graph_tokens: self.graph_tokens,
            id: self.id.clone().into_owned(),
            kept_out_bytes: self.kept_out_bytes,
            kept_out_tokens: self.kept_out_tokens,
            net_tokens: self.net_tokens,
            not_sized: self.not_sized,
            project: self.project.clone().into_owned(),
            redirected: self.redirected.clone(),
            started_ms: self.started_ms,
            v: self.v,
        }
    }
}

/// The record a non-blank line holds, or `None` when it holds none.
pub(super) fn decode(line: &[u8]) -> Option<Line<'_>> {
    quick(line)
        .or_else(|| serde_json::from_slice::<Line>(line).ok())
        .filter(Line::well_formed)
}

/// A cursor over one line for [`quick`]; every reader answers `None` where
/// the line leaves the writer's shape, never a guess.
struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    fn byte(&mut self, want: u8) -> Option<()> {
        (self.bytes.get(self.at) == Some(&want)).then(|| self.at += 1)
    }

    /// A string without escapes or control characters, as serde borrows it.
    fn string(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.raw_string()?).ok()
    }

    /// The bytes of a string without escapes or control characters.
    fn raw_string(&mut self) -> Option<&'a [u8]> {
        self.byte(b'"')?;
        let from = self.at;
        loop {
            match *self.bytes.get(self.at)? {
                b'"' => break,
                b'\\' | 0..=0x1f => return None,
                _ => self.at += 1,
            }
        }
        let text = &self.bytes[from..self.at];
        self.at += 1;
        Some(text)
    }

    /// An integer as JSON writes it that serde reads as an `i64`: no leading
    /// zero, no `-0`, within range (a fraction or exponent after it is no
    /// `,` or `}`, so its member is refused).
    fn int(&mut self) -> Option<i64> {
        let negative = self.byte(b'-').is_some();
        let from = self.at;
        let mut magnitude: u64 = 0;
        while let Some(&digit @ b'0'..=b'9') = self.bytes.get(self.at) {
            magnitude = magnitude
                .checked_mul(10)?
                .checked_add(u64::from(digit - b'0'))?;
            self.at += 1;
        }
        let digits = self.at - from;
        if digits == 0 || (self.bytes[from] == b'0' && (digits > 1 || negative)) {
            return None;
        }
        match negative {
            false => i64::try_from(magnitude).ok(),
            true => 0i64.checked_sub_unsigned(magnitude),
        }
    }

    /// `,` before another member (`true`) or `}` after the last (`false`).
    fn next(&mut self) -> Option<bool> {
        match *self.bytes.get(self.at)? {
            b',' => {
                self.at += 1;
                Some(true)
            }
            b'}' => {
                self.at += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// A `{"key":value,...}` whose every member `member` reads, marking each
    /// bit it returns once; `None` for a repeated or unknown member.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &[u8]) -> Option<u32>) -> Option<u32> {
        self.byte(b'{')?;
        let mut seen = 0u32;
        loop {
            // A key is matched by its bytes: a known one is ASCII, any other is refused.
            let key = self.raw_string()?;
            self.byte(b':')?;
            let bit = member(self, key)?;
            if seen & bit != 0 {
                return None;
            }
            seen |= bit;
            if !self.next()? {
                return Some(seen);
            }
        }
    }
}

/// The record of a line the writer wrote (serde's compact JSON) or that
/// matches its shape in any member order; `None` for anything else, which
/// serde then reads, so a line decodes the same either way.
fn quick(line: &[u8]) -> Option<Line<'_>> {
    let mut scan = Scan { bytes: line, at: 0 };
    let mut n = [0i64; 11];
    let mut id = "";
    let mut project = "";
    let mut k = [0i64; 5];
    let seen = scan.object(|scan, key| {
        let slot = match key {
            b"allowed" => 0,
            b"allowed_bytes" => 1,
            b"ended_ms" => 2,
            b"graph_answers" => 3,
            b"graph_chars" => 4,
            b"graph_tokens" => 5,
            b"kept_out_bytes" => 6,
            b"kept_out_tokens" => 7,
            b"net_tokens" => 8,
            b"not_sized" => 9,
            b"started_ms" => 10,
            b"id" => {
                id = scan.string()?;
                return Some(1 << 11);
            }
            b"project" => {
                project = scan.string()?;
                return Some(1 << 12);
            }
            b"v" => {
                // Any other format is serde's to read (and the schema's to refuse).
                return (scan.int()? == 1).then_some(1 << 13);
            }
            b"redirected" => {
                let kinds = scan.object(|scan, kind| {
                    let slot = match kind {
                        b"read" => 0,
                        b"grep" => 1,
                        b"find" => 2,
                        b"ls" => 3,
                        b"bash" => 4,
                        _ => return None,
                    };
                    k[slot] = scan.int()?;
                    Some(1 << slot)
                })?;
                return (kinds == 0b1_1111).then_some(1 << 14);
            }
            _ => return None,
        };
        n[slot] = scan.int()?;
        Some(1 << slot)
    })?;
    if seen != (1 << 15) - 1 || scan.at != line.len() {
        return None;
    }
    let [read, grep, find, ls, bash] = k;
    Some(Line {
        allowed: n[0],
        allowed_bytes: n[1],
        ended_ms: n[2],
        graph_answers: n[3],
        graph_chars: n[4],
        graph_tokens: n[5],
        id: Cow::Borrowed(id),
        kept_out_bytes: n[6],
        kept_out_tokens: n[7],
        net_tokens: n[8],
        not_sized: n[9],
        project: Cow::Borrowed(project),
        redirected: StatsByKind {
            bash,
            find,
            grep,
            ls,
            read,
        },
        started_ms: n[10],
        v: NonZeroU32::MIN,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the schema's own type makes of a line: the definition of a record.
    fn by_schema(line: &[u8]) -> Option<StatsRecord> {
        serde_json::from_slice::<StatsRecord>(line)
            .ok()
            .filter(|r| Line::from(r).well_formed())
    }

    fn writers_line(net_tokens: i64) -> String {
        let record = StatsRecord {
            allowed: 0,
            allowed_bytes: 0,
            ended_ms: 1_765_000_000_000,
            graph_answers: 4,
            graph_chars: 1_234,
            graph_tokens: 309,
            id: "session-7:4242:0:1765000000000".into(),
            kept_out_bytes: 12_345,
            kept_out_tokens: 3_087,
            net_tokens,
            not_sized: 2,
            project: "/home/user/work/project-7".into(),
            redirected: StatsByKind {
                bash: 1,
                find: 0,
                grep: 1,
                ls: 0,
                read: 3,
            },
            started_ms: 1_764_996_400_000,
            v: NonZeroU32::MIN,
        };
        serde_json::to_string(&record).unwrap()
    }

    /// The members in another order, as a hand-written or older writer's line has them.
    const REORDERED: &str = r#"{"v":1,"id":"s","project":"/p","started_ms":0,"ended_ms":9223372036854775807,"redirected":{"read":3,"grep":1,"find":0,"ls":0,"bash":1},"kept_out_bytes":10,"kept_out_tokens":3,"not_sized":2,"graph_answers":4,"graph_chars":9,"graph_tokens":3,"allowed":0,"allowed_bytes":0,"net_tokens":-9223372036854775808}"#;

    #[test]
    fn stats_line_the_quick_reader_takes_the_writers_lines() {
        for line in [writers_line(2_778), writers_line(-5), REORDERED.into()] {
            let quick = quick(line.as_bytes()).expect("the writer's shape");
            assert_eq!(Some(quick.to_record()), by_schema(line.as_bytes()));
        }
    }

    // Every line one byte away from a record: wherever the quick reader answers it answers as
    // serde does, and a line decodes to a record exactly when the schema's type reads one.
    #[test]
    fn stats_line_decodes_as_the_schema_type_one_byte_from_a_record() {
        let bytes = b"09-\"\\,}{: .ex\x00\x1f\x7f\x80\xff";
        for base in [writers_line(2_778), writers_line(-5), REORDERED.into()] {
            let base = base.into_bytes();
            let mut variants: Vec<Vec<u8>> = Vec::new();
            for at in 0..=base.len() {
                if at < base.len() {
                    let mut cut = base.clone();
                    cut.remove(at);
                    variants.push(cut);
                }
                for &b in bytes {
                    if at < base.len() {
                        let mut swapped = base.clone();
                        swapped[at] = b;
                        variants.push(swapped);
                    }
                    let mut grown = base.clone();
                    grown.insert(at, b);
                    variants.push(grown);
                }
            }
            for line in &variants {
                if let Some(quick) = quick(line) {
                    let serde = serde_json::from_slice::<Line>(line).ok();
                    assert_eq!(Some(quick), serde, "{}", String::from_utf8_lossy(line));
                }
                assert_eq!(
                    decode(line).map(|l| l.to_record()),
                    by_schema(line),
                    "{}",
                    String::from_utf8_lossy(line)
                );
            }
        }
    }

    #[test]
    fn stats_line_escapes_unknown_members_wrong_types_and_non_records() {
        let good = writers_line(1);
        let escaped = good
            .replace("session-7", r#"s\"\u00e9\n7"#)
            .replace("/home/user", r"\/home\/user");
        let record = decode(escaped.as_bytes()).expect("an escaped record");
        assert!(quick(escaped.as_bytes()).is_none(), "escapes are serde's");
        assert_eq!(record.id, "s\"é\n7:4242:0:1765000000000");
        assert_eq!(record.project, "/home/user/work/project-7");
        let refused = [
            good.replace("{\"allowed\"", "{\"extra\":1,\"allowed\""),
            good.replace("\"not_sized\":2", "\"not_sized\":\"2\""),
            good.replace("\"not_sized\":2", "\"not_sized\":2.0"),
            good.replace("\"not_sized\":2", "\"not_sized\":2e0"),
            good.replace("\"not_sized\":2", "\"not_sized\":-0"),
            good.replace("\"not_sized\":2", "\"not_sized\":-2"),
            good.replace("\"not_sized\":2", "\"not_sized\":9223372036854775808"),
            good.replace("\"not_sized\":2", "\"not_sized\":2,\"not_sized\":2"),
            good.replace("\"v\":1", "\"v\":2"),
            good.replace("\"ls\":0,", ""),
            "{}".into(),
            "[1,2,3]".into(),
            "null".into(),
            "\"a record\"".into(),
        ];
        for line in &refused {
            assert_eq!(by_schema(line.as_bytes()), None, "{line}");
            assert!(decode(line.as_bytes()).is_none(), "{line}");
        }
        for spaced in [format!(" {good}\r"), good.replace(",", ", ")] {
            assert!(quick(spaced.as_bytes()).is_none(), "whitespace is serde's");
            assert_eq!(
                decode(spaced.as_bytes()).map(|l| l.to_record()),
                by_schema(good.as_bytes())
            );
        }
    }
}
