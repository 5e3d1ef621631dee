//! A tool result's content blocks as Pi's own MCP shows them to the model, so a call reads the same
//! through either client.
//!
//! Text stays text and an image stays an image whose base64 data is passed
//! on untouched. A resource link becomes one line naming it, an audio block
//! a placeholder, an embedded resource its text, its image, or (a binary)
//! a file in the temp directory named in one line. Only a binary resource's
//! base64 is ever decoded, because its bytes go to that file.

use std::path::PathBuf;

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;
use pi_gortex_schema::host::ModelContent;
use serde_json::Value;

use super::output_limit::FULL_OUTPUT_PREFIX;

/// The members of one content block that conversion reads, moved out of the
/// result (each `None` when absent or not of its JSON type).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct BlockFields {
    /// `type`.
    pub kind: String,
    /// `text` of a text block.
    pub text: Option<String>,
    /// `data` of an image or audio block.
    pub data: Option<String>,
    /// `mimeType`.
    pub mime_type: Option<String>,
    /// `uri` of a resource link.
    pub uri: Option<String>,
    /// `name` of a resource link.
    pub name: Option<String>,
    /// `title` of a resource link.
    pub title: Option<String>,
    /// `description` of a resource link.
    pub description: Option<String>,
    /// `size` of a resource link, in bytes.
    pub size: Option<f64>,
    /// `resource` of an embedded resource, when an object.
    pub resource: Option<ResourceFields>,
}

/// The members of an embedded resource that conversion reads.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ResourceFields {
    /// `uri`.
    pub uri: Option<String>,
    /// `mimeType`.
    pub mime_type: Option<String>,
    /// `text` of a text resource.
    pub text: Option<String>,
    /// `blob` (base64) of a binary resource.
    pub blob: Option<String>,
}

impl BlockFields {
    /// The fields of a decoded block; `None` unless it is an object with a
    /// string `type`.
    pub fn from_value(block: Value) -> Option<Self> {
        let Value::Object(mut block) = block else {
            return None;
        };
        let mut string = |key: &str| match block.remove(key) {
            Some(Value::String(text)) => Some(text),
            _ => None,
        };
        let kind = string("type")?;
        let text = string("text");
        let data = string("data");
        let mime_type = string("mimeType");
        let uri = string("uri");
        let name = string("name");
        let title = string("title");
        let description = string("description");
        let size = block.get("size").and_then(Value::as_f64);
        let resource = match block.remove("resource") {
            Some(Value::Object(mut resource)) => {
                let mut string = |key: &str| match resource.remove(key) {
                    Some(Value::String(text)) => Some(text),
                    _ => None,
                };
                Some(ResourceFields {
                    uri: string("uri"),
                    mime_type: string("mimeType"),
                    text: string("text"),
                    blob: string("blob"),
                })
            }
            _ => None,
        };
        Some(Self {
            kind,
            text,
            data,
            mime_type,
            uri,
            name,
            title,
            description,
            size,
            resource,
        })
    }
}

/// One block converted, before any file is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Converted {
    /// What the model reads.
    Model(ModelContent),
    /// A binary embedded resource, saved to a file by [`settle`].
    Binary {
        /// The resource's URI.
        uri: String,
        /// Its MIME type, when given.
        mime_type: Option<String>,
        /// Its bytes in base64, as sent.
        blob: String,
    },
}

fn text(text: String) -> Converted {
    Converted::Model(ModelContent::Text { text })
}

/// A block as Pi's own MCP converts it; `None` for a block lacking what its
/// kind requires (Pi's client refuses such a result; here only the block
/// is dropped, as this client always dropped what it could not read).
pub fn convert(block: BlockFields) -> Option<Converted> {
    let BlockFields {
        kind,
        text: body,
        data,
        mime_type,
        uri,
        name,
        title,
        description,
        size,
        resource,
    } = block;
    match kind.as_str() {
        "text" => body.map(text),
        "image" => Some(Converted::Model(ModelContent::Image {
            data: data?,
            mime_type: mime_type?,
        })),
        "audio" => {
            data?;
            Some(text(format!("[audio {} omitted]", mime_type?)))
        }
        "resource_link" => {
            let (uri, name) = (uri?, name?);
            let mut details = Vec::new();
            details.extend(mime_type.filter(|mime| !mime.is_empty()));
            details.extend(size.map(format_size));
            let details = if details.is_empty() {
                String::new()
            } else {
                format!(" ({})", details.join(", "))
            };
            let description = description
                .filter(|description| !description.is_empty())
                .map(|description| format!(": {description}"))
                .unwrap_or_default();
            let label = title.unwrap_or(name);
            Some(text(format!(
                "[Resource {uri} \"{label}\"{details}{description}]"
            )))
        }
        "resource" => convert_resource(resource?),
        other => Some(text(format!("[unsupported MCP content {other}]"))),
    }
}

fn convert_resource(resource: ResourceFields) -> Option<Converted> {
    let ResourceFields {
        uri,
        mime_type,
        text: body,
        blob,
    } = resource;
    let uri = uri?;
    let is_image = mime_type
        .as_deref()
        .is_some_and(|mime| mime.starts_with("image/"));
    match (blob, body) {
        (Some(blob), _) if !is_image => Some(Converted::Binary {
            uri,
            mime_type,
            blob,
        }),
        (_, Some(body)) => Some(text(body)),
        (Some(blob), None) => Some(Converted::Model(ModelContent::Image {
            data: blob,
            mime_type: mime_type.unwrap_or_default(),
        })),
        (None, None) => None,
    }
}

/// What the model reads for a converted block: a binary resource is decoded
/// and, unless its type is textual, written to a new file only the user may
/// read (when `save`; else only described).
pub fn settle(block: Converted, save: bool) -> ModelContent {
    let Converted::Binary {
        uri,
        mime_type,
        blob,
    } = block
    else {
        let Converted::Model(model) = block else {
            unreachable!("matched above")
        };
        return model;
    };
    let bytes = decode_base64(&blob);
    drop(blob);
    if is_text_mime(mime_type.as_deref()) {
        return ModelContent::Text {
            text: String::from_utf8_lossy(&bytes).into_owned(),
        };
    }
    let kind = format!(
        "{}, {}",
        mime_type.as_deref().unwrap_or("unknown type"),
        format_size(bytes.len() as f64)
    );
    let text = if !save {
        format!("[Binary resource {uri} ({kind}) not saved]")
    } else {
        match save_binary(&bytes, &extension_of(&uri)) {
            Ok(path) => format!(
                "[Binary resource {uri} ({kind}) saved to {}]",
                path.display()
            ),
            Err(error) => format!("[Binary resource {uri} ({kind}) could not be saved: {error}]"),
        }
    };
    ModelContent::Text { text }
}

/// Writes `bytes` to a new file only the user may read, in the OS temp
/// directory, never following a link someone placed there.
fn save_binary(bytes: &[u8], extension: &str) -> std::io::Result<PathBuf> {
    let mut file = tempfile::Builder::new()
        .prefix(FULL_OUTPUT_PREFIX)
        .suffix(extension)
        .rand_bytes(16)
        .tempfile()?;
    std::io::Write::write_all(&mut file, bytes)?;
    file.keep()
        .map(|(_, path)| path)
        .map_err(|error| error.error)
}

/// The file extension of a saved resource: the one its URI's path ends in
/// (1 to 8 ASCII letters or digits), else `.bin`, as Pi picks it. Only such
/// characters ever reach the file name.
pub fn extension_of(uri: &str) -> String {
    let has_scheme = uri.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    let path = if has_scheme {
        uri.split(['?', '#']).next().unwrap_or(uri)
    } else {
        uri
    };
    let Some((_, extension)) = path.rsplit_once('.') else {
        return ".bin".to_string();
    };
    if (1..=8).contains(&extension.len()) && extension.bytes().all(|b| b.is_ascii_alphanumeric()) {
        format!(".{extension}")
    } else {
        ".bin".to_string()
    }
}

/// Whether a blob of this type is shown as text, as Pi decides it.
fn is_text_mime(mime_type: Option<&str>) -> bool {
    let Some(mime) = mime_type else {
        return false;
    };
    let kind = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    kind.starts_with("text/")
        || kind == "application/json"
        || kind.ends_with("+json")
        || kind.ends_with("+xml")
}

/// Decodes base64 as Node's `Buffer.from(text, "base64")` does: the URL-safe
/// alphabet too, anything else skipped, padding optional, the rest after `=`
/// ignored.
pub fn decode_base64(text: &str) -> Vec<u8> {
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    let body = text.split('=').next().unwrap_or("");
    let clean = body
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/');
    let mut symbols: Vec<u8> = if clean {
        body.as_bytes().to_vec()
    } else {
        body.bytes()
            .filter_map(|b| match b {
                b'-' => Some(b'+'),
                b'_' => Some(b'/'),
                b if b.is_ascii_alphanumeric() || b == b'+' || b == b'/' => Some(b),
                _ => None,
            })
            .collect()
    };
    // A lone trailing symbol carries no whole byte.
    if symbols.len() % 4 == 1 {
        symbols.pop();
    }
    LENIENT.decode(&symbols).unwrap_or_default()
}

/// A size as Pi's `formatSize` writes it: `512B`, `1.5KB`, `2.0MB`.
pub fn format_size(bytes: f64) -> String {
    const KIB: f64 = 1024.0;
    if bytes < KIB {
        return format!("{}B", js_number(bytes));
    }
    let (unit, divisor) = if bytes < KIB * KIB {
        ("KB", KIB)
    } else {
        ("MB", KIB * KIB)
    };
    format!("{}{unit}", to_fixed_1(bytes / divisor))
}

/// JavaScript's `toFixed(1)`: a tie rounds away from zero, where Rust's
/// formatting rounds it to even (`1.25` is `1.3` in Pi).
fn to_fixed_1(value: f64) -> String {
    if value.abs() >= 1e17 || !value.is_finite() {
        return format!("{value:.1}");
    }
    // `f64::round` takes a tie away from zero, as `toFixed` does.
    let tenths = (value * 10.0).round() as i64;
    let sign = if tenths < 0 { "-" } else { "" };
    let tenths = tenths.unsigned_abs();
    format!("{sign}{}.{}", tenths / 10, tenths % 10)
}

/// A number as JavaScript prints it, for the sizes a server can send.
fn js_number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e21 {
        format!("{}", value as i128)
    } else {
        format!("{value}")
    }
}

/// Text blocks' texts joined with `\n`, as Pi joins them for its limit.
pub fn joined_text(blocks: &[ModelContent]) -> String {
    let mut texts = blocks.iter().filter_map(|block| match block {
        ModelContent::Text { text } => Some(text.as_str()),
        ModelContent::Image { .. } => None,
    });
    let Some(first) = texts.next() else {
        return String::new();
    };
    let mut out = first.to_string();
    for text in texts {
        out.push('\n');
        out.push_str(text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn converted(block: Value) -> Option<ModelContent> {
        convert(BlockFields::from_value(block)?).map(|block| settle(block, true))
    }

    fn text_of(block: Option<ModelContent>) -> String {
        match block {
            Some(ModelContent::Text { text }) => text,
            other => panic!("not text: {other:?}"),
        }
    }

    #[test]
    fn mcp_37_images_pass_through_undecoded() {
        let image =
            converted(json!({"type":"image","data":"not base64 at all","mimeType":"image/png"}));
        assert_eq!(
            image,
            Some(ModelContent::Image {
                data: "not base64 at all".into(),
                mime_type: "image/png".into()
            })
        );
        assert_eq!(converted(json!({"type":"image","data":"x"})), None);
    }

    #[test]
    fn mcp_37_resource_links_read_as_pi_writes_them() {
        let full = json!({"type":"resource_link","uri":"file:///r/a.go","name":"a.go","title":"A",
            "mimeType":"text/x-go","size":1536,"description":"the main file"});
        assert_eq!(
            text_of(converted(full)),
            "[Resource file:///r/a.go \"A\" (text/x-go, 1.5KB): the main file]"
        );
        let bare = json!({"type":"resource_link","uri":"u:x","name":"x","mimeType":""});
        assert_eq!(text_of(converted(bare)), "[Resource u:x \"x\"]");
        let sized = json!({"type":"resource_link","uri":"u:x","name":"x","size":100});
        assert_eq!(text_of(converted(sized)), "[Resource u:x \"x\" (100B)]");
        assert_eq!(converted(json!({"type":"resource_link","uri":"u:x"})), None);
    }

    #[test]
    fn mcp_37_embedded_resources_text_image_and_binary() {
        let text = json!({"type":"resource","resource":{"uri":"u:a","text":"package a\n"}});
        assert_eq!(text_of(converted(text)), "package a\n");
        let image = json!({"type":"resource","resource":{"uri":"u:l","mimeType":"image/gif","blob":"R0lG"}});
        assert_eq!(
            converted(image),
            Some(ModelContent::Image {
                data: "R0lG".into(),
                mime_type: "image/gif".into()
            })
        );
        let json_blob = json!({"type":"resource","resource":{"uri":"u:j","mimeType":"application/json; charset=utf-8","blob":"eyJrIjoxfQ=="}});
        assert_eq!(text_of(converted(json_blob)), "{\"k\":1}");
        let binary = json!({"type":"resource","resource":{"uri":"file:///r/data.bin?x=1","mimeType":"application/octet-stream","blob":"AAEC/w=="}});
        let line = text_of(converted(binary));
        let path = line
            .strip_prefix(
                "[Binary resource file:///r/data.bin?x=1 (application/octet-stream, 4B) saved to ",
            )
            .and_then(|rest| rest.strip_suffix(']'))
            .unwrap_or_else(|| panic!("{line}"));
        let name = std::path::Path::new(path)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        assert!(
            name.starts_with("pi-mcp-") && name.ends_with(".bin"),
            "{name}"
        );
        assert_eq!(std::fs::read(path).unwrap(), [0, 1, 2, 255]);
        std::fs::remove_file(path).unwrap();
        let untyped = json!({"type":"resource","resource":{"uri":"u:z","blob":""}});
        assert_eq!(
            convert(BlockFields::from_value(untyped).unwrap()).map(|b| settle(b, false)),
            Some(ModelContent::Text {
                text: "[Binary resource u:z (unknown type, 0B) not saved]".into()
            })
        );
    }

    #[test]
    fn mcp_37_audio_and_unknown_kinds_become_placeholders() {
        assert_eq!(
            text_of(converted(
                json!({"type":"audio","data":"UklG","mimeType":"audio/wav"})
            )),
            "[audio audio/wav omitted]"
        );
        assert_eq!(
            text_of(converted(json!({"type":"widget","x":1}))),
            "[unsupported MCP content widget]"
        );
        assert_eq!(converted(json!({"type":5})), None);
        assert_eq!(converted(json!(["text", "x"])), None);
    }

    #[test]
    fn sizes_round_as_javascript_does() {
        assert_eq!(format_size(0.0), "0B");
        assert_eq!(format_size(1023.0), "1023B");
        assert_eq!(format_size(1024.0), "1.0KB");
        // 1.25 KiB: a tie, which JavaScript rounds up.
        assert_eq!(format_size(1280.0), "1.3KB");
        assert_eq!(format_size(1.5), "1.5B");
        assert_eq!(format_size(5.0 * 1024.0 * 1024.0), "5.0MB");
    }

    #[test]
    fn extensions_come_from_the_uri_path_only() {
        assert_eq!(extension_of("file:///a/b.tar.gz"), ".gz");
        assert_eq!(extension_of("https://h/x.png?size=2.large"), ".png");
        assert_eq!(extension_of("mem://blob"), ".bin");
        assert_eq!(extension_of("x.toolongext"), ".bin");
        assert_eq!(extension_of("x./../../etc"), ".bin");
    }

    #[test]
    fn base64_is_read_as_node_reads_it() {
        assert_eq!(decode_base64("aGk="), b"hi");
        assert_eq!(decode_base64("aGk"), b"hi");
        assert_eq!(decode_base64("a G\nk=ignored"), b"hi");
        assert_eq!(decode_base64("-_8"), [0xfb, 0xff]);
        assert_eq!(decode_base64("a"), b"");
    }
}
