//! Reading a `tools/call` result for its text and blocks without
//! materializing it.
//!
//! A result can be as large as the frame cap. Decoding it into a `Value`
//! and then joining its texts would hold the frame, serde's unescape scratch
//! buffer and the decoded string at once (3x the frame). Here the result is
//! read with borrowed raw members and each text is unescaped straight into
//! its final string, so the peak is the frame plus the text. Anything the
//! lenient reading does not cover falls back to the `Value` rules.

use std::marker::PhantomData;
use std::ops::Range;

use pi_gortex_schema::host::ModelContent;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::content::{self, BlockFields, Converted, ResourceFields};
use super::output_limit::{self, MCP_OUTPUT_MAX_BYTES};
use super::result_value;

/// A successful response's `result`, kept as the bytes it arrived in, and
/// what the router's pass already read of it as a tool call result.
/// A large frame is moved here without a copy; decoding is up to the caller.
#[derive(Debug, Clone)]
pub struct RawResponse {
    bytes: Vec<u8>,
    range: Range<usize>,
    read: Option<Box<PreRead>>,
}

impl RawResponse {
    /// The `result` at `range` of `bytes`, with the router's reading of it.
    pub(crate) fn new(bytes: Vec<u8>, range: Range<usize>, read: Option<PreRead>) -> Self {
        Self {
            bytes,
            range,
            read: read.map(Box::new),
        }
    }

    /// The `result` JSON text (`null` when the response had none).
    pub fn json(&self) -> &[u8] {
        &self.bytes[self.range.clone()]
    }

    /// Decodes `result` into `T`.
    pub fn decode<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_slice(self.json())
    }

    /// Wraps a complete JSON text (for tests and callers holding one).
    #[cfg(any(test, feature = "test-support"))]
    pub fn from_json(bytes: Vec<u8>) -> Self {
        let range = 0..bytes.len();
        Self {
            bytes,
            range,
            read: None,
        }
    }

    /// Decodes `result` leniently: `Value::Null` when it does not parse.
    pub fn to_value(&self) -> serde_json::Value {
        self.decode().unwrap_or(serde_json::Value::Null)
    }

    pub(super) fn pre_read(&self) -> Option<&PreRead> {
        self.read.as_deref()
    }

    pub(super) fn take_pre_read(&mut self) -> Option<PreRead> {
        self.read.take().map(|read| *read)
    }

    pub(super) fn null() -> Self {
        Self {
            bytes: b"null".to_vec(),
            range: 0..4,
            read: None,
        }
    }
}

impl PartialEq for RawResponse {
    fn eq(&self, other: &Self) -> bool {
        self.json() == other.json()
    }
}

/// What the tool call glue needs from a result.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResultText {
    /// The `text` of every text block, joined with `\n`.
    pub text: String,
    /// `result.isError === true`.
    pub is_error: bool,
    /// When `text` is empty and no other block converts: the compact JSON
    /// of `structuredContent`, else of the whole result.
    pub fallback: Option<String>,
    /// Every block the model reads, in order.
    pub blocks: Vec<ReadBlock>,
    /// `result.structuredContent` when present and not null, for the
    /// result's details as Pi's own MCP keeps it.
    pub structured: Option<Value>,
}

/// One block of a result as read.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadBlock {
    /// A `text` block, whose text is this range of [`CallResultText::text`]
    /// (kept there once, not copied per block).
    Text(Range<usize>),
    /// Any other block, converted.
    Other(Converted),
}

impl CallResultText {
    /// The text the model reads on success: the text blocks,
    /// else the fallback unless another block is shown.
    pub fn model_text(&self) -> &str {
        if self.text.is_empty() && !self.has_other_blocks() {
            self.fallback.as_deref().unwrap_or("{}")
        } else {
            &self.text
        }
    }

    fn has_other_blocks(&self) -> bool {
        self.blocks
            .iter()
            .any(|block| matches!(block, ReadBlock::Other(_)))
    }

    /// Whether [`Self::into_model_content`] may write a file: a binary
    /// resource, or text over the output limit.
    pub fn may_write_files(&self) -> bool {
        let mut text = self.text.len();
        for block in &self.blocks {
            match block {
                ReadBlock::Other(Converted::Binary { .. }) => return true,
                ReadBlock::Other(Converted::Model(ModelContent::Text { text: other })) => {
                    text += other.len() + 1;
                }
                _ => {}
            }
        }
        text > MCP_OUTPUT_MAX_BYTES
    }

    /// The blocks the model reads, within the output limit: binary resources written to files and
    /// over-long text cut,
    /// with the files named, when `save`. A result with neither text nor any
    /// other block reads as its fallback, unless it is an error (the caller
    /// words that one).
    pub fn into_model_content(self, save: bool) -> Vec<ModelContent> {
        let has_other = self.has_other_blocks();
        let CallResultText {
            text,
            is_error,
            fallback,
            blocks,
            ..
        } = self;
        if text.is_empty() && !has_other {
            if is_error {
                return Vec::new();
            }
            let text = fallback.unwrap_or_else(|| "{}".to_string());
            return vec![ModelContent::Text {
                text: output_limit::limit_text(text, save),
            }];
        }
        let settled: Vec<Result<Range<usize>, ModelContent>> = blocks
            .into_iter()
            .map(|block| match block {
                ReadBlock::Text(range) => Ok(range),
                ReadBlock::Other(other) => Err(content::settle(other, save)),
            })
            .collect();
        let mut other_text = false;
        let mut total = 0;
        let mut texts = 0usize;
        for block in &settled {
            let len = match block {
                Ok(range) => range.len(),
                Err(ModelContent::Text { text }) => {
                    other_text = true;
                    text.len()
                }
                Err(ModelContent::Image { .. }) => continue,
            };
            total += len;
            texts += 1;
        }
        total += texts.saturating_sub(1);
        if total <= MCP_OUTPUT_MAX_BYTES {
            return materialize(text, settled);
        }
        // Over the limit: one text block with the cut text, then the images,
        // as Pi shows it. Only text blocks alone are already joined.
        let (combined, images) = if other_text {
            let blocks = materialize(text, settled);
            let combined = content::joined_text(&blocks);
            (combined, images_of(blocks))
        } else {
            let images = settled.into_iter().filter_map(Result::err).collect();
            (text, images_of(images))
        };
        let mut out = vec![ModelContent::Text {
            text: output_limit::limit_text(combined, save),
        }];
        out.extend(images);
        out
    }
}

fn images_of(blocks: Vec<ModelContent>) -> impl Iterator<Item = ModelContent> {
    blocks
        .into_iter()
        .filter(|block| matches!(block, ModelContent::Image { .. }))
}

/// The blocks in order, each text block's text sliced out of `text` (moved
/// whole when it is the only one).
fn materialize(
    text: String,
    settled: Vec<Result<Range<usize>, ModelContent>>,
) -> Vec<ModelContent> {
    let single = settled.iter().filter(|block| block.is_ok()).count() == 1;
    let mut whole = Some(text);
    settled
        .into_iter()
        .map(|block| match block {
            Err(model) => model,
            Ok(range) if single && range.len() == whole.as_ref().map_or(0, String::len) => {
                ModelContent::Text {
                    text: whole.take().unwrap_or_default(),
                }
            }
            Ok(range) => ModelContent::Text {
                text: whole
                    .as_deref()
                    .and_then(|text| text.get(range))
                    .unwrap_or_default()
                    .to_string(),
            },
        })
        .collect()
}

/// A result read in the same pass that routes its frame: the members of
/// its blocks borrowed, nothing unescaped yet. Reading it never fails on
/// valid JSON (the frame must still route); anything the borrowed reading
/// does not cover (a repeated member, `content` not an array, a result
/// that is not an object) marks it `slow`, read later by the `Value` rules.
#[derive(Debug, Default)]
pub(crate) struct LazyResult<'a> {
    content: Vec<LazyBlock<'a>>,
    is_error: Option<&'a RawValue>,
    structured: Option<&'a RawValue>,
    slow: bool,
}

/// The members of one object in `content` that conversion reads, in the
/// order of [`BLOCK_MEMBERS`].
#[derive(Debug, Default)]
struct LazyBlock<'a> {
    members: [Option<&'a RawValue>; BLOCK_MEMBERS.len()],
}

const BLOCK_MEMBERS: [&str; 10] = [
    "type",
    "text",
    "data",
    "mimeType",
    "uri",
    "name",
    "title",
    "description",
    "size",
    "resource",
];
const RESULT_MEMBERS: [&str; 3] = ["content", "isError", "structuredContent"];
const RESOURCE_MEMBERS: [&str; 4] = ["uri", "mimeType", "text", "blob"];

impl<'a> LazyBlock<'a> {
    fn member(&self, name: &str) -> Option<&'a RawValue> {
        let at = BLOCK_MEMBERS.iter().position(|known| *known == name)?;
        self.members[at]
    }
}

/// Which of `names` a member name is (escapes decoded, as the `Value`
/// rules read names).
struct NameIn(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for NameIn {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for NameIn {
    type Value = Option<usize>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a member name")
    }

    fn visit_str<E>(self, name: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().position(|known| *known == name))
    }
}

/// Reads the members `names` of an object as raw values, each at most once;
/// `None` when one is repeated (the rest of the object is still consumed).
fn raw_members<'de, A: MapAccess<'de>, const N: usize>(
    mut map: A,
    names: &'static [&'static str],
) -> Result<Option<[Option<&'de RawValue>; N]>, A::Error> {
    let mut members = [None; N];
    let mut seen = [false; N];
    let mut repeated = false;
    while let Some(slot) = map.next_key_seed(NameIn(names))? {
        match slot {
            Some(at) if at < N => {
                repeated |= std::mem::replace(&mut seen[at], true);
                members[at] = map.next_value()?;
            }
            _ => {
                map.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok((!repeated).then_some(members))
}

/// Drains a sequence, so any JSON value can be skipped from `visit_seq`.
fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Accepts any JSON value; `Some` for what `on_map`/`on_seq` read.
macro_rules! accept_scalars {
    ($value:ty, $other:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<$value, E> {
            Ok($other)
        }
        fn visit_i64<E>(self, _: i64) -> Result<$value, E> {
            Ok($other)
        }
        fn visit_u64<E>(self, _: u64) -> Result<$value, E> {
            Ok($other)
        }
        fn visit_f64<E>(self, _: f64) -> Result<$value, E> {
            Ok($other)
        }
        fn visit_str<E>(self, _: &str) -> Result<$value, E> {
            Ok($other)
        }
        fn visit_unit<E>(self) -> Result<$value, E> {
            Ok($other)
        }
    };
}

impl<'de: 'a, 'a> Deserialize<'de> for LazyResult<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Whole<'a>(PhantomData<&'a ()>);

        impl<'de: 'a, 'a> Visitor<'de> for Whole<'a> {
            type Value = LazyResult<'a>;

            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("a tool call result")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut read = LazyResult::default();
                let mut seen = [false; RESULT_MEMBERS.len()];
                while let Some(slot) = map.next_key_seed(NameIn(&RESULT_MEMBERS))? {
                    if let Some(at) = slot {
                        read.slow |= std::mem::replace(&mut seen[at], true);
                    }
                    match slot {
                        Some(0) => match map.next_value::<Content<'a>>()? {
                            Content::Blocks(blocks) => read.content = blocks,
                            Content::Null => read.content.clear(),
                            Content::Other => read.slow = true,
                        },
                        Some(1) => read.is_error = map.next_value()?,
                        Some(2) => read.structured = map.next_value()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(read)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                skip_seq(seq)?;
                Ok(LazyResult::slow())
            }

            accept_scalars!(LazyResult<'a>, LazyResult::slow());
        }

        deserializer.deserialize_any(Whole(PhantomData))
    }
}

impl LazyResult<'_> {
    fn slow() -> Self {
        Self {
            slow: true,
            ..Self::default()
        }
    }
}

/// `content`: its objects as blocks (anything else in it skipped, as the
/// `Value` rules skip it), null, or another value.
enum Content<'a> {
    Blocks(Vec<LazyBlock<'a>>),
    Null,
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Items<'a>(PhantomData<&'a ()>);

        impl<'de: 'a, 'a> Visitor<'de> for Items<'a> {
            type Value = Content<'a>;

            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("content")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                let mut repeated = false;
                while let Some(item) = seq.next_element::<Item<'a>>()? {
                    match item {
                        Item::Block(Some(block)) => blocks.push(block),
                        Item::Block(None) => repeated = true,
                        Item::NotAnObject => {}
                    }
                }
                Ok(if repeated {
                    Content::Other
                } else {
                    Content::Blocks(blocks)
                })
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }

            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Content::Null)
            }

            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Content::Other)
            }
        }

        deserializer.deserialize_any(Items(PhantomData))
    }
}

/// One item of `content`: an object as a block (`None` when a member of
/// it is repeated), anything else skipped. A derived struct would also read
/// an array (`["text","x"]`) as a block, which the `Value` rules rightly do
/// not.
enum Item<'a> {
    Block(Option<LazyBlock<'a>>),
    NotAnObject,
}

impl<'de: 'a, 'a> Deserialize<'de> for Item<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct One<'a>(PhantomData<&'a ()>);

        impl<'de: 'a, 'a> Visitor<'de> for One<'a> {
            type Value = Item<'a>;

            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("a content item")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let members = raw_members::<A, { BLOCK_MEMBERS.len() }>(map, &BLOCK_MEMBERS)?;
                Ok(Item::Block(members.map(|members| LazyBlock { members })))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                skip_seq(seq)?;
                Ok(Item::NotAnObject)
            }

            accept_scalars!(Item<'a>, Item::NotAnObject);
        }

        deserializer.deserialize_any(One(PhantomData))
    }
}

/// An embedded resource's members, read from its raw text.
fn lazy_resource(raw: &RawValue) -> Option<[Option<&RawValue>; RESOURCE_MEMBERS.len()]> {
    struct Resource;

    impl<'de> Visitor<'de> for Resource {
        type Value = Option<[Option<&'de RawValue>; RESOURCE_MEMBERS.len()]>;

        fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
            formatter.write_str("a resource")
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            raw_members::<A, { RESOURCE_MEMBERS.len() }>(map, &RESOURCE_MEMBERS)
        }
    }

    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
    deserializer.deserialize_map(Resource).ok().flatten()
}

/// What the router's pass read of a result, kept with it: every text
/// unescaped and joined once, the other blocks converted.
#[derive(Debug, Clone)]
pub(crate) struct PreRead {
    text: String,
    blocks: Vec<ReadBlock>,
    is_error: bool,
    /// Where `structuredContent` lies in the result's JSON text.
    structured: Option<Range<usize>>,
}

impl PreRead {
    /// A result read as text blocks alone; `structured` is relative to the
    /// result's JSON text.
    pub(crate) fn new(
        text: String,
        blocks: Vec<ReadBlock>,
        is_error: bool,
        structured: Option<Range<usize>>,
    ) -> Self {
        Self {
            text,
            blocks,
            is_error,
            structured,
        }
    }
}

/// Reads a borrowed result whose JSON text starts at `base`. `None` when
/// only the `Value` rules can read it.
pub(crate) fn pre_read(lazy: &LazyResult<'_>, base: *const u8) -> Option<PreRead> {
    if lazy.slow {
        return None;
    }
    let (text, blocks) = read_blocks(lazy)?;
    let structured = lazy.structured.map(|raw| {
        let start = (raw.get().as_ptr() as usize).wrapping_sub(base as usize);
        start..start + raw.get().len()
    });
    Some(PreRead {
        text,
        blocks,
        is_error: lazy.is_error.is_some_and(|flag| flag.get() == "true"),
        structured,
    })
}

/// The places of the result's text literals, relative to `base`, in order:
/// serde checked these are UTF-8, so the caller need check only the rest.
pub(crate) fn text_literals(lazy: &LazyResult<'_>, base: *const u8) -> Vec<Range<usize>> {
    lazy.content
        .iter()
        .filter_map(|block| {
            let text = block.member("text")?.get();
            let start = (text.as_ptr() as usize).wrapping_sub(base as usize);
            Some(start..start + text.len())
        })
        .collect()
}

/// Reads a result's text, error flag and fallback.
pub fn read_call_result(result: &RawResponse) -> CallResultText {
    let bytes = result.json();
    match result.pre_read() {
        Some(pre) => finish(pre.clone(), bytes),
        None => read_bytes(bytes),
    }
}

/// [`read_call_result`], taking what the router read rather than copying it.
pub fn take_call_result(result: &mut RawResponse) -> CallResultText {
    match result.take_pre_read() {
        Some(pre) => finish(pre, result.json()),
        None => read_bytes(result.json()),
    }
}

fn read_bytes(bytes: &[u8]) -> CallResultText {
    let first = bytes.iter().find(|byte| !byte.is_ascii_whitespace());
    // Bytes that are not UTF-8 in a member it ignores pass this reading
    // (serde_json validates only what it returns), and then agree with the
    // slow way only because `decode_lenient` reads them lossily too (found
    // by fuzzing, see there).
    if first == Some(&b'{') {
        if let Ok(lazy) = serde_json::from_slice::<LazyResult<'_>>(bytes) {
            if let Some(pre) = pre_read(&lazy, bytes.as_ptr()) {
                return finish(pre, bytes);
            }
        }
    }
    read_value(decode_lenient(bytes))
}

/// The fallback and `structuredContent` of a pre-read result, from its JSON
/// text `whole` (kept as it arrived).
fn finish(pre: PreRead, whole: &[u8]) -> CallResultText {
    let PreRead {
        text,
        blocks,
        is_error,
        structured,
    } = pre;
    let structured = structured
        .and_then(|range| whole.get(range))
        .filter(|raw| *raw != b"null");
    let has_other = blocks.iter().any(|b| matches!(b, ReadBlock::Other(_)));
    let fallback = if text.is_empty() && !has_other {
        let source = structured.unwrap_or(whole);
        let compact = serde_json::from_slice::<Value>(source)
            .ok()
            .and_then(|value| serde_json::to_string(&value).ok());
        match compact {
            Some(compact) => Some(compact),
            None => return read_value(decode_lenient(whole)),
        }
    } else {
        None
    };
    CallResultText {
        text,
        is_error,
        fallback,
        blocks,
        structured: structured.map(decode_lenient),
    }
}

/// [`read_call_result`] on a decoded result: the `Value` rules.
pub fn read_value(value: Value) -> CallResultText {
    let text = result_value::result_text(&value);
    let mut blocks = Vec::new();
    let mut at = 0;
    let items = value.get("content").and_then(Value::as_array);
    for item in items.into_iter().flatten() {
        if item.get("type").and_then(Value::as_str) == Some("text") {
            if let Some(body) = item.get("text").and_then(Value::as_str) {
                let start = if blocks.iter().any(|b| matches!(b, ReadBlock::Text(_))) {
                    at + 1
                } else {
                    at
                };
                at = start + body.len();
                blocks.push(ReadBlock::Text(start..at));
            }
            continue;
        }
        // Only the slow way copies a block; it is taken for odd bytes alone.
        let converted = BlockFields::from_value(item.clone()).and_then(content::convert);
        blocks.extend(converted.map(ReadBlock::Other));
    }
    let mut read = CallResultText {
        text,
        is_error: result_value::is_error(&value),
        fallback: None,
        blocks,
        structured: value
            .get("structuredContent")
            .filter(|structured| !structured.is_null())
            .cloned(),
    };
    if read.text.is_empty() && !read.has_other_blocks() {
        read.fallback = Some(result_value::model_text(&value));
    }
    read
}

/// Decodes a result into a `Value`, reading a lone UTF-16 surrogate escape
/// as U+FFFD (as a JavaScript string carrying one becomes when Pi encodes
/// it), where serde_json would refuse the whole result. Bytes that are not
/// UTF-8 read as U+FFFD too, as Node's UTF-8 decoding of Pi's own client's
/// pipe reads them. A daemon reply is valid JSON for Pi's own client, so it
/// must not turn into `{}` here. `Value::Null` when the bytes are not JSON
/// even so.
pub fn decode_lenient(bytes: &[u8]) -> Value {
    let lossy: String;
    let bytes = match std::str::from_utf8(bytes) {
        Ok(_) => bytes,
        Err(_) => {
            lossy = String::from_utf8_lossy(bytes).into_owned();
            lossy.as_bytes()
        }
    };
    match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(_) => repair_lone_surrogates(bytes)
            .and_then(|repaired| serde_json::from_slice(&repaired).ok())
            .unwrap_or(Value::Null),
    }
}

/// The same JSON text with every lone surrogate escape inside a string
/// replaced by `\ufffd`; `None` when there is none. Only escapes are
/// rewritten, so the structure (and any syntax error) is unchanged.
fn repair_lone_surrogates(json: &[u8]) -> Option<Vec<u8>> {
    let mut repaired: Option<Vec<u8>> = None;
    let mut copied = 0;
    let mut in_string = false;
    let mut at = 0;
    while let Some(&byte) = json.get(at) {
        match (in_string, byte) {
            (false, b'"') => in_string = true,
            (true, b'"') => in_string = false,
            (true, b'\\') if json.get(at + 1) == Some(&b'u') => {
                let unit = escaped_unit_bytes(json, at);
                let paired = unit.is_some_and(|high| (0xD800..0xDC00).contains(&high))
                    && escaped_unit_bytes(json, at + 6)
                        .is_some_and(|low| (0xDC00..0xE000).contains(&low));
                match unit {
                    _ if paired => at += 12,
                    Some(0xD800..=0xDFFF) => {
                        let out = repaired.get_or_insert_with(|| Vec::with_capacity(json.len()));
                        out.extend_from_slice(json.get(copied..at)?);
                        out.extend_from_slice(b"\\ufffd");
                        at += 6;
                        copied = at;
                    }
                    Some(_) => at += 6,
                    None => at += 2,
                }
                continue;
            }
            (true, b'\\') => {
                at += 2;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    let mut out = repaired?;
    out.extend_from_slice(json.get(copied..)?);
    Some(out)
}

/// The code unit of the `\uXXXX` escape starting at byte `at`, if any.
fn escaped_unit_bytes(json: &[u8], at: usize) -> Option<u32> {
    if json.get(at..at + 2)? != b"\\u" {
        return None;
    }
    hex4(std::str::from_utf8(json.get(at + 2..at + 6)?).ok()?)
}

/// Every text unescaped and joined, and the other blocks converted.
fn read_blocks(lazy: &LazyResult<'_>) -> Option<(String, Vec<ReadBlock>)> {
    let mut texts: Vec<String> = Vec::new();
    let mut blocks = Vec::new();
    let mut at = 0;
    for block in &lazy.content {
        if is_text_kind(block.member("type")) {
            let Some(text) = block
                .member("text")
                .filter(|text| text.get().starts_with('"'))
            else {
                continue;
            };
            let text = unescape_string(text.get())?;
            let start = if texts.is_empty() { at } else { at + 1 };
            at = start + text.len();
            blocks.push(ReadBlock::Text(start..at));
            texts.push(text);
            continue;
        }
        let Some(fields) = lazy_fields(block)? else {
            continue;
        };
        blocks.extend(content::convert(fields).map(ReadBlock::Other));
    }
    let text = if texts.len() == 1 {
        texts.pop().unwrap_or_default()
    } else {
        texts.join("\n")
    };
    Some((text, blocks))
}

/// A raw string member: `Some(None)` when absent or not a string, `None`
/// when its escapes need the slow way.
fn raw_string(raw: Option<&RawValue>) -> Option<Option<String>> {
    match raw {
        Some(raw) if raw.get().starts_with('"') => unescape_string(raw.get()).map(Some),
        _ => Some(None),
    }
}

/// The fields of a block that is not a text block: `Some(None)` when its
/// `type` is not a string, `None` when the slow way must read it.
fn lazy_fields(block: &LazyBlock<'_>) -> Option<Option<BlockFields>> {
    let Some(kind) = raw_string(block.member("type"))? else {
        return Some(None);
    };
    let resource = match block.member("resource") {
        Some(raw) if raw.get().starts_with('{') => {
            let [uri, mime_type, text, blob] = lazy_resource(raw)?;
            Some(ResourceFields {
                uri: raw_string(uri)?,
                mime_type: raw_string(mime_type)?,
                text: raw_string(text)?,
                blob: raw_string(blob)?,
            })
        }
        _ => None,
    };
    let string = |name| raw_string(block.member(name));
    Some(Some(BlockFields {
        kind,
        text: string("text")?,
        data: string("data")?,
        mime_type: string("mimeType")?,
        uri: string("uri")?,
        name: string("name")?,
        title: string("title")?,
        description: string("description")?,
        size: block
            .member("size")
            .and_then(|raw| serde_json::from_str::<f64>(raw.get()).ok()),
        resource,
    }))
}

/// Whether a block's raw `type` is the string `text`. The common spelling
/// is compared as bytes; one with an escape (`"te\u0078t"`) is decoded, as
/// the `Value` rules would.
fn is_text_kind(kind: Option<&RawValue>) -> bool {
    let Some(kind) = kind else {
        return false;
    };
    let literal = kind.get();
    if !literal.contains('\\') {
        return literal == "\"text\"";
    }
    serde_json::from_str::<String>(literal).is_ok_and(|kind| kind == "text")
}

/// Unescapes one JSON string literal (quotes included) into an exactly
/// sized `String`. A lone surrogate escape becomes U+FFFD, as in
/// [`decode_lenient`]. `None` for anything unusual (a bad escape), which the
/// caller then reads the slow way.
fn unescape_string(literal: &str) -> Option<String> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    let bytes = inner.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(unescaped_len_bound(inner));
    let mut at = 0;
    while at < bytes.len() {
        // Eight bytes at a time up to the next backslash: in escaped text it
        // is a few bytes away, where a call per run costs more than the copy.
        // The word is copied whole and the bytes from the backslash on taken
        // back, within the capacity so the buffer never grows for them.
        if out.len() + 8 <= out.capacity() {
            if let Some(word) = bytes.get(at..at + 8) {
                let plain = plain_prefix(word);
                out.extend_from_slice(word);
                out.truncate(out.len() - 8 + plain);
                at += plain;
                if plain == 8 {
                    continue;
                }
            }
        }
        let byte = *bytes.get(at)?;
        at += 1;
        if byte != b'\\' {
            out.push(byte);
            continue;
        }
        let code = *bytes.get(at)?;
        at += 1;
        if let Some(simple) = simple_escape(code) {
            out.push(simple);
            continue;
        }
        if code != b'u' {
            return None;
        }
        let high = hex4(inner.get(at..at + 4)?)?;
        at += 4;
        let low = escaped_unit(inner, at).filter(|low| (0xDC00..0xE000).contains(low));
        let scalar = match (high, low) {
            (0xD800..=0xDBFF, Some(low)) => {
                at += 6;
                0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            }
            // A lone surrogate: the character after it is read next.
            (0xD800..=0xDFFF, _) => 0xFFFD,
            _ => high,
        };
        let mut utf8 = [0; 4];
        out.extend_from_slice(char::from_u32(scalar)?.encode_utf8(&mut utf8).as_bytes());
    }
    // Exact at last, in place (a shrinking reallocation does not move).
    out.shrink_to_fit();
    // Always UTF-8 (the input's characters are copied whole, escapes encode
    // whole ones); checked all the same rather than assumed.
    String::from_utf8(out).ok()
}

/// The byte a one-letter escape (`\n`, `\"`, …) stands for.
pub(super) fn simple_escape(code: u8) -> Option<u8> {
    Some(match code {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 0x08,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        _ => return None,
    })
}

/// How many of the eight bytes come before the first backslash (8 when
/// none is one): the classic zero-byte test on the word XOR `\\` in every
/// byte, whose lowest flagged byte is always a true one.
fn plain_prefix(word: &[u8]) -> usize {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    const BACKSLASHES: u64 = u64::from_le_bytes([b'\\'; 8]);
    let Ok(word) = <[u8; 8]>::try_from(word) else {
        return 0;
    };
    let x = u64::from_le_bytes(word) ^ BACKSLASHES;
    let flags = x.wrapping_sub(ONES) & !x & HIGHS;
    flags.trailing_zeros() as usize / 8
}

/// A bound on the byte length `inner` will have once unescaped, so the
/// output is allocated once: every escape removes at least one byte per two
/// backslashes (`\\` two bytes to one, `\n` two to one, `\u00e9` six to
/// two), and counting backslashes is one vectorized pass where sizing the
/// output exactly meant a step per escape. Only a capacity: a mistake here
/// costs a reallocation, never correctness.
fn unescaped_len_bound(inner: &str) -> usize {
    inner.len() - memchr::memchr_iter(b'\\', inner.as_bytes()).count() / 2
}

/// [`escaped_unit_bytes`] on a string.
fn escaped_unit(inner: &str, at: usize) -> Option<u32> {
    escaped_unit_bytes(inner.as_bytes(), at)
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

    /// The result as the router reads it in its one pass over a frame.
    fn routed(result: &[u8]) -> RawResponse {
        let mut frame = br#"{"jsonrpc":"2.0","id":1,"result":"#.to_vec();
        frame.extend_from_slice(result);
        frame.push(b'}');
        match super::super::routing::route(super::super::framing::Frame::Owned(frame)) {
            super::super::routing::Routed::Response {
                outcome: Ok(raw), ..
            } => raw,
            other => panic!("a response: {other:?}"),
        }
    }

    fn both_ways(value: Value) {
        let fast = read_call_result(&raw(&value));
        let text = result_value::result_text(&value);
        assert_eq!(fast.text, text, "{value}");
        assert_eq!(fast.is_error, result_value::is_error(&value), "{value}");
        assert_eq!(
            fast.model_text(),
            result_value::model_text(&value),
            "{value}"
        );
        // Read in the router's pass, the same.
        let mut routed = routed(&serde_json::to_vec(&value).unwrap());
        assert_eq!(read_call_result(&routed), fast, "{value}");
        assert_eq!(take_call_result(&mut routed), fast, "{value}");
    }

    #[test]
    fn the_routers_reading_agrees_on_odd_results() {
        // Repeated members, odd escapes and non-UTF-8-free oddities, as bytes:
        // read in the router's pass or from the result alone, the same.
        let odd: [&[u8]; 8] = [
            br#"{"content":[{"type":"text","text":"a","text":"b"}]}"#,
            br#"{"content":[{"type":"text","text":"a"}],"content":[{"type":"text","text":"b"}]}"#,
            br#"{"content":[{"type":"text","text":"\ud800x"}],"isError":true}"#,
            br#"{"content":{"type":"text","text":"not in an array"}}"#,
            br#"{"content":[1,[2],{"type":"te\u0078t","t\u0065xt":"escaped names"}]}"#,
            br#"{"content":[{"type":"resource","resource":{"uri":"u:a","text":"r","uri":"u:b"}}]}"#,
            br#"{"content":null,"structuredContent":{"k":[1,"\u00e9"]}}"#,
            br#"[{"type":"text","text":"an array result"}]"#,
        ];
        for result in odd {
            let alone = read_call_result(&RawResponse::from_json(result.to_vec()));
            let slow = read_value(decode_lenient(result));
            assert_eq!(alone.model_text(), slow.model_text());
            let mut routed = routed(result);
            assert_eq!(
                take_call_result(&mut routed),
                alone,
                "{}",
                String::from_utf8_lossy(result)
            );
        }
    }

    #[test]
    fn mcp_36_structured_content_is_kept_on_both_readings() {
        let with =
            json!({"content":[{"type":"text","text":"t"}],"structuredContent":{"hits":[1,"é"]}});
        assert_eq!(
            read_call_result(&raw(&with)).structured,
            Some(json!({"hits":[1,"é"]}))
        );
        let null = json!({"content":[],"structuredContent":null});
        assert_eq!(read_call_result(&raw(&null)).structured, None);
        assert_eq!(
            read_call_result(&raw(&json!({"content":[]}))).structured,
            None
        );
        // A lone surrogate in it reads as U+FFFD, as in the text.
        let slow =
            br#"{"content":[{"type":"text","text":"\ud800"}],"structuredContent":{"k":"\ud800"}}"#;
        let read = read_call_result(&RawResponse::from_json(slow.to_vec()));
        assert_eq!(read.structured, Some(json!({"k": "\u{fffd}"})));
    }

    fn text_block(text: &str) -> ModelContent {
        ModelContent::Text { text: text.into() }
    }

    fn image_block(data: &str) -> ModelContent {
        ModelContent::Image {
            data: data.into(),
            mime_type: "image/png".into(),
        }
    }

    #[test]
    fn mcp_37_blocks_keep_their_order_on_both_readings() {
        let result = json!({"content":[
            {"type":"text","text":"first"},
            {"type":"image","data":"iVBO","mimeType":"image/png"},
            {"type":"resource_link","uri":"file:///a.go","name":"a.go"},
            {"type":"image","data":"bad"},
            {"type":"text","text":"last"}
        ]});
        let fast = read_call_result(&raw(&result));
        let slow = read_value(result);
        assert_eq!(fast, slow);
        assert_eq!(
            fast.into_model_content(false),
            [
                text_block("first"),
                image_block("iVBO"),
                text_block("[Resource file:///a.go \"a.go\"]"),
                text_block("last"),
            ]
        );
        // The slow way (a lone surrogate) reads the same blocks.
        let frame = br#"{"content":[{"type":"text","text":"\ud800"},{"type":"image","data":"iVBO","mimeType":"image/png"}]}"#;
        assert_eq!(
            read_call_result(&RawResponse::from_json(frame.to_vec())).into_model_content(false),
            [text_block("\u{fffd}"), image_block("iVBO")]
        );
    }

    #[test]
    fn mcp_37_an_image_alone_is_shown_not_its_json() {
        let result = json!({"content":[{"type":"image","data":"iVBO","mimeType":"image/png"}],"structuredContent":{"k":1}});
        let read = read_call_result(&raw(&result));
        assert_eq!(read.fallback, None);
        assert_eq!(read.model_text(), "");
        assert_eq!(read.model_text(), result_value::model_text(&result));
        assert_eq!(read.into_model_content(false), [image_block("iVBO")]);
        // Nothing shown at all: the fallback, as before.
        let empty =
            json!({"content":[{"type":"image","data":"no mime"}],"structuredContent":{"k":1}});
        assert_eq!(
            read_call_result(&raw(&empty)).into_model_content(false),
            [text_block(r#"{"k":1}"#)]
        );
        let error = json!({"content":[],"isError":true});
        assert!(read_call_result(&raw(&error))
            .into_model_content(false)
            .is_empty());
    }

    #[test]
    fn mcp_37_text_over_the_limit_is_one_cut_block_then_the_images() {
        let long = "x".repeat(30_000);
        let result = json!({"content":[
            {"type":"image","data":"one","mimeType":"image/png"},
            {"type":"text","text":long},
            {"type":"resource","resource":{"uri":"u:t","text":"tail"}},
            {"type":"image","data":"two","mimeType":"image/png"}
        ]});
        let blocks = read_call_result(&raw(&result)).into_model_content(false);
        let [ModelContent::Text { text }, one, two] = blocks.as_slice() else {
            panic!("{blocks:?}");
        };
        assert_eq!([one, two], [&image_block("one"), &image_block("two")]);
        assert!(text.starts_with("Warning: truncated output (original token count: 7502)\n"));
        assert!(text.ends_with("x\ntail"), "the joined texts are cut as one");
        assert_eq!(text.len(), 20_480 + "Warning: truncated output (original token count: 7502)\nTotal output lines: 2\n\n".len() + "…9525 chars truncated…".len());
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
    fn a_lone_surrogate_before_an_escaped_backslash_reads_the_slow_way() {
        // Found in review, when the output was sized by a step per escape: it skipped 12 bytes for
        // any high surrogate and then sliced past the end of the literal.
        both_ways(json!({"content":[{"type":"text","text":"ok"}]}));
        let frame = br#"{"content":[{"type":"text","text":"\ud800abcde\\"}]}"#;
        let fast = read_call_result(&RawResponse::from_json(frame.to_vec()));
        assert_eq!(fast.text, "\u{fffd}abcde\\");
        assert_eq!(fast.text, result_value::result_text(&decode_lenient(frame)));
        assert!(unescaped_len_bound(r#"\ud800abcde\\"#) >= 9);
    }

    #[test]
    fn bytes_that_are_not_utf8_read_as_replacement_characters_both_ways() {
        // Found by fuzzing (`call_result`, docs/testing.md): invalid UTF-8
        // in an unknown member passed the borrowed reading, which then
        // showed `structuredContent`, while the slow way refused the whole
        // reply and showed `{}`.
        let unknown = b"{\"x\":\"a\x9b\x98\",\"structuredContent\":{\"k\":1}}";
        let fast = read_call_result(&RawResponse::from_json(unknown.to_vec()));
        assert_eq!(fast.model_text(), r#"{"k":1}"#);
        assert_eq!(
            fast.model_text(),
            result_value::model_text(&decode_lenient(unknown))
        );
        let text = b"{\"content\":[{\"type\":\"text\",\"text\":\"caf\xe9\"}]}";
        let fast = read_call_result(&RawResponse::from_json(text.to_vec()));
        assert_eq!(fast.text, "caf\u{fffd}");
        assert_eq!(fast.text, result_value::result_text(&decode_lenient(text)));
    }

    #[test]
    fn a_number_beyond_f64_in_a_member_not_read_costs_nothing() {
        // Found by fuzzing: serde_json's `Value` refuses the whole reply, as
        // it would read `{}`; the borrowed reading skips the member, as Pi's
        // own client (`JSON.parse`: `Infinity`) reads the rest.
        let frame = br#"{"x":1e99999,"structuredContent":{"k":1}}"#;
        let fast = read_call_result(&RawResponse::from_json(frame.to_vec()));
        assert_eq!(fast.model_text(), r#"{"k":1}"#);
        assert!(decode_lenient(frame).is_null());
    }

    #[test]
    fn only_lone_surrogate_escapes_inside_strings_are_repaired() {
        let repair = |json: &str| {
            repair_lone_surrogates(json.as_bytes()).map(|out| String::from_utf8(out).unwrap())
        };
        assert_eq!(repair(r#"{"a":"\ud83d\ude00 \\ud800"}"#), None);
        assert_eq!(
            repair(r#"{"\udc00":"x\ud800\ud800\udc00"}"#).as_deref(),
            Some(r#"{"\ufffd":"x\ufffd\ud800\udc00"}"#)
        );
        assert_eq!(decode_lenient(br#"{"a":"\ud800"#), Value::Null);
    }

    #[test]
    fn array_blocks_and_escaped_kinds_follow_the_value_rules() {
        both_ways(json!({"content":[["text","not a block"]]}));
        let frame = br#"{"content":[{"type":"te\u0078t","text":"escaped kind"}]}"#;
        let fast = read_call_result(&RawResponse::from_json(frame.to_vec()));
        assert_eq!(fast.text, "escaped kind");
    }

    #[test]
    fn escapes_near_and_far_from_the_last_are_all_read() {
        // Plain bytes are copied eight at a time: escapes at every offset
        // of a word, and runs longer than one.
        for run in [0, 1, 6, 7, 8, 9, 15, 16, 17, 1000] {
            let plain = "a".repeat(run);
            let text = format!("{plain}\n{plain}\"{plain}é\\{plain}");
            both_ways(json!({"content":[{"type":"text","text":text}]}));
            let literal = serde_json::to_string(&text).unwrap();
            assert_eq!(unescape_string(&literal).as_deref(), Some(text.as_str()));
        }
    }

    #[test]
    fn unescapes_surrogate_pairs_and_rejects_lone_ones() {
        assert_eq!(
            unescape_string(r#""\ud83d\ude00 \u00e9""#).as_deref(),
            Some("😀 é")
        );
        assert_eq!(
            unescape_string(r#""\ud83d x""#).as_deref(),
            Some("\u{fffd} x")
        );
        assert_eq!(
            unescape_string(r#""\udc00\ud800\ud83d\ude00""#).as_deref(),
            Some("\u{fffd}\u{fffd}😀")
        );
    }
}
