//! Reading a `tools/call` result for its text without materializing it
//! (MCP-27, TOOL-6 steps 6 and 7).
//!
//! A result can be as large as the frame cap. Decoding it into a `Value`
//! and then joining its texts would hold the frame, serde's unescape scratch
//! buffer and the decoded string at once (3x the frame). Here the result is
//! read with borrowed raw members and each text is unescaped straight into
//! its final string, so the peak is the frame plus the text. Anything the
//! lenient reading does not cover falls back to the `Value` rules.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::routing::RawResponse;
use super::tools;

/// What the tool call glue needs from a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallResultText {
    /// MCP-27: the `text` of every text block, joined with `\n`.
    pub text: String,
    /// `result.isError === true`.
    pub is_error: bool,
    /// When `text` is empty: the compact JSON of `structuredContent`, else of
    /// the whole result (TOOL-6 step 6).
    pub fallback: Option<String>,
}

impl CallResultText {
    /// The text the model reads on success (TOOL-6 step 6).
    pub fn model_text(&self) -> &str {
        if self.text.is_empty() {
            self.fallback.as_deref().unwrap_or("{}")
        } else {
            &self.text
        }
    }
}

#[derive(Deserialize)]
struct LazyResult<'a> {
    #[serde(borrow, default)]
    content: Option<Vec<LazyBlock<'a>>>,
    #[serde(borrow, default, rename = "isError")]
    is_error: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "structuredContent")]
    structured: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct LazyBlock<'a> {
    #[serde(borrow, default, rename = "type")]
    kind: Option<&'a RawValue>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
}

/// Reads a result's text, error flag and fallback.
pub fn read_call_result(result: &RawResponse) -> CallResultText {
    let bytes = result.json();
    let first = bytes.iter().find(|byte| !byte.is_ascii_whitespace());
    if first == Some(&b'{') {
        if let Ok(lazy) = serde_json::from_slice::<LazyResult<'_>>(bytes) {
            if let Some(read) = read_lazy(&lazy, bytes) {
                return read;
            }
        }
    }
    let value: Value = result.decode().unwrap_or(Value::Null);
    let text = tools::result_text(&value);
    let fallback = text.is_empty().then(|| tools::model_text(&value));
    CallResultText {
        text,
        is_error: tools::is_error(&value),
        fallback,
    }
}

fn read_lazy(lazy: &LazyResult<'_>, whole: &[u8]) -> Option<CallResultText> {
    let mut texts: Vec<String> = Vec::new();
    for block in lazy.content.iter().flatten() {
        let is_text = block.kind.is_some_and(|kind| kind.get() == "\"text\"");
        let Some(text) = block.text.filter(|_| is_text) else {
            continue;
        };
        if text.get().starts_with('"') {
            texts.push(unescape_string(text.get())?);
        }
    }
    let text = if texts.len() == 1 {
        texts.pop().unwrap_or_default()
    } else {
        texts.join("\n")
    };
    let fallback = if text.is_empty() {
        let source = match lazy.structured {
            Some(structured) if structured.get() != "null" => structured.get().as_bytes(),
            _ => whole,
        };
        let value: Value = serde_json::from_slice(source).ok()?;
        Some(serde_json::to_string(&value).ok()?)
    } else {
        None
    };
    Some(CallResultText {
        text,
        is_error: lazy.is_error.is_some_and(|flag| flag.get() == "true"),
        fallback,
    })
}

/// Unescapes one JSON string literal (quotes included) into an exactly
/// sized `String`. `None` for anything unusual (a lone surrogate), which the
/// caller then reads the slow way.
fn unescape_string(literal: &str) -> Option<String> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    let bytes = inner.as_bytes();
    let mut out = String::with_capacity(unescaped_len(inner));
    let mut rest = 0;
    while let Some(offset) = memchr::memchr(b'\\', &bytes[rest..]) {
        let escape = rest + offset;
        out.push_str(&inner[rest..escape]);
        let code = *bytes.get(escape + 1)?;
        rest = escape + 2;
        match code {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let high = hex4(inner.get(rest..rest + 4)?)?;
                rest += 4;
                let scalar = if (0xD800..0xDC00).contains(&high) {
                    let low = inner.get(rest..rest + 6)?.strip_prefix("\\u")?;
                    let low = hex4(low)?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return None;
                    }
                    rest += 6;
                    0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    high
                };
                out.push(char::from_u32(scalar)?);
            }
            _ => return None,
        }
    }
    out.push_str(&inner[rest..]);
    Some(out)
}

/// The byte length `inner` will have once unescaped, so the output is
/// allocated once at its final size (only a capacity hint: any mistake here
/// costs a reallocation, never correctness).
fn unescaped_len(inner: &str) -> usize {
    let bytes = inner.as_bytes();
    let mut length = bytes.len();
    let mut rest = 0;
    while let Some(offset) = memchr::memchr(b'\\', &bytes[rest..]) {
        let escape = rest + offset;
        if bytes.get(escape + 1) != Some(&b'u') {
            length -= 1;
            rest = escape + 2;
            continue;
        }
        let scalar = inner
            .get(escape + 2..escape + 6)
            .and_then(hex4)
            .unwrap_or(0);
        if (0xD800..0xDC00).contains(&scalar) {
            // A surrogate pair: 12 escaped bytes, 4 UTF-8 bytes.
            length = length.saturating_sub(8);
            rest = escape + 12;
        } else {
            let utf8 = char::from_u32(scalar).map_or(3, char::len_utf8);
            length = length.saturating_sub(6 - utf8);
            rest = escape + 6;
        }
        if rest >= bytes.len() {
            break;
        }
    }
    length
}

fn hex4(digits: &str) -> Option<u32> {
    if digits.len() != 4 {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(value: &Value) -> RawResponse {
        RawResponse::from_json(serde_json::to_vec(value).unwrap())
    }

    fn both_ways(value: Value) {
        let fast = read_call_result(&raw(&value));
        let text = tools::result_text(&value);
        assert_eq!(fast.text, text, "{value}");
        assert_eq!(fast.is_error, tools::is_error(&value), "{value}");
        assert_eq!(fast.model_text(), tools::model_text(&value), "{value}");
    }

    #[test]
    fn agrees_with_the_value_rules() {
        both_ways(
            json!({"content":[{"type":"text","text":"a \"q\" \\ / \u{8}\u{c}\n\r\t é ✓ 😀 \u{1}"}]}),
        );
        both_ways(
            json!({"content":[{"type":"text","text":"a"},{"type":"image","data":"x"},{"type":"text","text":5},{"type":"text","text":"b"}],"isError":true}),
        );
        both_ways(json!({"content":[],"structuredContent":{"k":[1,2]}}));
        both_ways(json!({"content":[],"structuredContent":null,"isError":false}));
        both_ways(json!({"content":"not an array"}));
        both_ways(json!({"content":["odd"]}));
        both_ways(json!([1]));
        both_ways(json!(null));
    }

    #[test]
    fn output_is_allocated_at_its_final_size() {
        for literal in [r#""plain""#, r#""a\n\"b\u00e9\ud83d\ude00✓""#, r#""\\\/""#] {
            let out = unescape_string(literal).unwrap();
            assert_eq!(out.capacity(), out.len(), "{literal}");
        }
    }

    #[test]
    fn unescapes_surrogate_pairs_and_rejects_lone_ones() {
        assert_eq!(
            unescape_string(r#""\ud83d\ude00 \u00e9""#).as_deref(),
            Some("😀 é")
        );
        assert_eq!(unescape_string(r#""\ud83d x""#), None);
    }
}
