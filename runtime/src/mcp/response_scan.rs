//! A hand-written reader for the most common frame: a response whose
//! `result` holds text blocks, read in one scan that delimits, validates and
//! unescapes each text as it goes.
//!
//! Through serde_json a text literal is scanned twice: once when serde
//! delimits and checks it to lend it, again when it is unescaped into the
//! string the model reads (letting serde unescape it would need its scratch
//! buffer as well, over MCP-7's memory bound). Here it is scanned once.
//!
//! The reader accepts only what it understands completely and declines
//! everything else (`None`): a `method` or `error` member, a name written
//! with escapes, a repeated member, a block that is not a text block, a
//! lone surrogate, bytes that are not UTF-8, nesting deeper than
//! [`MAX_DEPTH`]. A declined frame goes to the serde reader, which decides
//! as before. So where it accepts, the frame is valid JSON and its reading
//! is the one the serde reader gives (checked against it by the tests and
//! the `mcp_frame` fuzz target).

use std::ops::Range;

use super::call_result::{simple_escape, PreRead, ReadBlock};

/// Nesting this reader follows; serde_json's own limit is 128.
const MAX_DEPTH: usize = 64;

/// A response read whole by this reader.
#[derive(Debug)]
pub(crate) struct Scanned {
    /// The numeric id.
    pub id: u64,
    /// Where `result` lies in the frame.
    pub result: Range<usize>,
    /// The result read as a tool call result.
    pub read: PreRead,
}

/// Reads `frame` when it is a response with a numeric id and an object
/// `result` whose blocks are all text blocks; `None` for anything else.
pub(crate) fn scan_response(frame: &[u8]) -> Option<Scanned> {
    let mut cursor = Cursor::new(frame);
    let (mut id, mut result, mut params) = (None, None, false);
    cursor.object(|cursor, name| {
        match name {
            b"id" if id.is_none() => id = Some(cursor.id()?),
            b"result" if result.is_none() => {
                let start = cursor.at;
                let read = cursor.result()?;
                result = Some((start..cursor.at, read));
            }
            b"params" if !params => {
                params = true;
                cursor.skip_value(1)?;
            }
            b"id" | b"result" | b"params" | b"method" | b"error" => return None,
            _ => cursor.skip_value(1)?,
        }
        Some(())
    })?;
    cursor.space();
    if cursor.at != frame.len() {
        return None;
    }
    let (result, read) = result?;
    Some(Scanned {
        id: id?,
        result,
        read,
    })
}

/// The members of a result this reader takes, each at most once.
const RESULT_MEMBERS: [&[u8]; 3] = [b"content", b"isError", b"structuredContent"];

/// The members of a block the serde reader takes (a repeated one sends the
/// result to the `Value` rules, so it is declined here).
const BLOCK_MEMBERS: [&[u8]; 10] = [
    b"type",
    b"text",
    b"data",
    b"mimeType",
    b"uri",
    b"name",
    b"title",
    b"description",
    b"size",
    b"resource",
];

/// Where unescaped string bytes go: the text being read, or nowhere.
trait Sink {
    /// Takes the first `plain` bytes of `word`.
    fn word(&mut self, word: &[u8; 8], plain: usize);
    fn bytes(&mut self, bytes: &[u8]);
    fn byte(&mut self, byte: u8);
}

/// Skipped strings keep nothing.
struct Discard;

impl Sink for Discard {
    #[inline]
    fn word(&mut self, _: &[u8; 8], _: usize) {}
    #[inline]
    fn bytes(&mut self, _: &[u8]) {}
    #[inline]
    fn byte(&mut self, _: u8) {}
}

impl Sink for Vec<u8> {
    #[inline]
    fn word(&mut self, word: &[u8; 8], plain: usize) {
        if self.len() + 8 <= self.capacity() {
            // The whole word, then the bytes from the first special one taken
            // back: a fixed-size copy costs less than a sized one.
            self.extend_from_slice(word);
            self.truncate(self.len() - 8 + plain);
        } else {
            self.extend_from_slice(&word[..plain]);
        }
    }

    #[inline]
    fn bytes(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    #[inline]
    fn byte(&mut self, byte: u8) {
        self.push(byte);
    }
}

/// What a result reads as: the joined text and its blocks.
struct Texts {
    text: Vec<u8>,
    blocks: Vec<ReadBlock>,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Consumes `byte` if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        let next = self.peek() == Some(byte);
        self.at += usize::from(next);
        next
    }

    /// Reads an object whose member names have no escapes, calling `member`
    /// with the cursor at each value.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.space();
        if !self.eat(b'{') {
            return None;
        }
        self.members(b'}', |cursor| {
            let name = cursor.name()?;
            cursor.space();
            cursor.eat(b':').then_some(())?;
            cursor.space();
            member(cursor, name)
        })
    }

    /// A member name without escapes.
    fn name(&mut self) -> Option<&'a [u8]> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.at;
        loop {
            match self.peek()? {
                b'"' => break,
                b'\\' | 0..=0x1F => return None,
                0x80.. => self.at += utf8_width(self.bytes, self.at)?,
                _ => self.at += 1,
            }
        }
        let name = &self.bytes[start..self.at];
        self.at += 1;
        Some(name)
    }

    /// A non-negative integer id, as the serde reader parses it.
    fn id(&mut self) -> Option<u64> {
        let start = self.at;
        self.number()?;
        std::str::from_utf8(&self.bytes[start..self.at])
            .ok()?
            .parse()
            .ok()
    }

    /// A tool call result: an object of text blocks.
    fn result(&mut self) -> Option<PreRead> {
        let base = self.at;
        let mut seen = [false; RESULT_MEMBERS.len()];
        let mut texts = Texts {
            text: Vec::new(),
            blocks: Vec::new(),
        };
        let (mut is_error, mut structured) = (false, None);
        self.object(|cursor, name| {
            let Some(slot) = RESULT_MEMBERS.iter().position(|known| *known == name) else {
                return cursor.skip_value(2);
            };
            if std::mem::replace(&mut seen[slot], true) {
                return None;
            }
            let start = cursor.at;
            match slot {
                0 => return cursor.content(&mut texts),
                1 => {
                    cursor.skip_value(2)?;
                    is_error = &cursor.bytes[start..cursor.at] == b"true";
                }
                _ => {
                    cursor.skip_value(2)?;
                    structured = Some(start - base..cursor.at - base);
                }
            }
            Some(())
        })?;
        let mut text = texts.text;
        // Exact at last, in place (a shrinking reallocation does not move).
        text.shrink_to_fit();
        Some(PreRead::new(
            String::from_utf8(text).ok()?,
            texts.blocks,
            is_error,
            structured,
        ))
    }

    /// `content`: an array of text blocks, each text appended to the joined
    /// text after a newline.
    fn content(&mut self, texts: &mut Texts) -> Option<()> {
        if !self.eat(b'[') {
            return None;
        }
        self.members(b']', |cursor| cursor.text_block(texts))
    }

    /// One `{"type":"text","text":…}` block, any other members skipped.
    fn text_block(&mut self, texts: &mut Texts) -> Option<()> {
        let mut seen = [false; BLOCK_MEMBERS.len()];
        let (mut kind, mut range) = (false, None);
        self.object(|cursor, name| {
            let slot = BLOCK_MEMBERS.iter().position(|known| *known == name);
            if let Some(slot) = slot {
                if std::mem::replace(&mut seen[slot], true) {
                    return None;
                }
            }
            match slot {
                Some(0) => kind = cursor.name()? == b"text",
                Some(1) => {
                    if cursor.peek() != Some(b'"') {
                        return None;
                    }
                    if texts.text.capacity() == 0 {
                        texts.text.reserve_exact(cursor.text_bound());
                    }
                    if !texts.blocks.is_empty() {
                        texts.text.push(b'\n');
                    }
                    let start = texts.text.len();
                    cursor.string(&mut texts.text)?;
                    range = Some(start..texts.text.len());
                }
                _ => cursor.skip_value(4)?,
            }
            Some(())
        })?;
        match range {
            Some(range) if kind => {
                texts.blocks.push(ReadBlock::Text(range));
                Some(())
            }
            _ => None,
        }
    }

    /// A bound on the unescaped length of everything from the cursor on, so
    /// the joined text is allocated once: each escape removes at least one
    /// byte per two backslashes, and the texts are a part of the rest of
    /// the frame. Only a capacity: too small costs a reallocation.
    fn text_bound(&self) -> usize {
        let rest = &self.bytes[self.at..];
        rest.len() - memchr::memchr_iter(b'\\', rest).count() / 2
    }

    /// A string literal at the cursor, its unescaped bytes given to `sink`.
    #[inline]
    fn string(&mut self, sink: &mut impl Sink) -> Option<()> {
        if !self.eat(b'"') {
            return None;
        }
        let bytes = self.bytes;
        let mut at = self.at;
        loop {
            if let Some(word) = bytes.get(at..at + 8) {
                let word: &[u8; 8] = word.try_into().ok()?;
                let plain = plain_prefix(u64::from_le_bytes(*word));
                sink.word(word, plain);
                at += plain;
                if plain == 8 {
                    continue;
                }
            }
            match *bytes.get(at)? {
                b'"' => break,
                b'\\' => at = escape(bytes, at + 1, sink)?,
                0..=0x1F => return None,
                0x80.. => {
                    let width = utf8_width(bytes, at)?;
                    sink.bytes(&bytes[at..at + width]);
                    at += width;
                }
                byte => {
                    sink.byte(byte);
                    at += 1;
                }
            }
        }
        self.at = at + 1;
        Some(())
    }

    /// Skips one JSON value, checking it as serde_json would.
    fn skip_value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.string(&mut Discard),
            b'{' => {
                self.at += 1;
                self.members(b'}', |cursor| {
                    cursor.string(&mut Discard)?;
                    cursor.space();
                    cursor.eat(b':').then_some(())?;
                    cursor.space();
                    cursor.skip_value(depth + 1)
                })
            }
            b'[' => {
                self.at += 1;
                self.members(b']', |cursor| cursor.skip_value(depth + 1))
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number(),
        }
    }

    /// The members of an object or the items of an array, up to `close`.
    fn members(&mut self, close: u8, mut one: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.space();
        if self.eat(close) {
            return Some(());
        }
        loop {
            one(self)?;
            self.space();
            if self.eat(close) {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
            self.space();
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let found = self.bytes.get(self.at..self.at + word.len())? == word;
        self.at += word.len();
        found.then_some(())
    }

    /// A number as JSON writes one: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> Option<()> {
        self.eat(b'-');
        if !self.eat(b'0') {
            if !matches!(self.peek(), Some(b'1'..=b'9')) {
                return None;
            }
            self.digits();
        }
        if self.eat(b'.') && self.digits() == 0 {
            return None;
        }
        if self.eat(b'e') || self.eat(b'E') {
            if !self.eat(b'+') {
                self.eat(b'-');
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some(())
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        self.at - start
    }
}

/// How many of the eight bytes (little-endian in `word`) come before the
/// first `"`, `\`, control or non-ASCII byte (8 when none is one). Each test
/// is the classic one on the whole word; its lowest flagged byte is always a
/// true one, so the lowest flag of all of them is too.
fn plain_prefix(word: u64) -> usize {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    let zero_at = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let quote = zero_at(word ^ u64::from_le_bytes([b'"'; 8]));
    let backslash = zero_at(word ^ u64::from_le_bytes([b'\\'; 8]));
    let control = word.wrapping_sub(u64::from_le_bytes([0x20; 8])) & !word & HIGHS;
    let flags = quote | backslash | control | (word & HIGHS);
    flags.trailing_zeros() as usize / 8
}

/// Reads the escape whose code is at `at` (after the backslash) into `sink`;
/// the offset after it. A lone surrogate is declined: the serde reader
/// decides what it becomes.
fn escape(bytes: &[u8], at: usize, sink: &mut impl Sink) -> Option<usize> {
    let code = *bytes.get(at)?;
    if let Some(simple) = simple_escape(code) {
        sink.byte(simple);
        return Some(at + 1);
    }
    if code != b'u' {
        return None;
    }
    let unit = hex4(bytes.get(at + 1..at + 5)?)?;
    let (scalar, next) = match unit {
        0xD800..=0xDBFF => {
            if bytes.get(at + 5..at + 7)? != b"\\u" {
                return None;
            }
            let low = hex4(bytes.get(at + 7..at + 11)?)?;
            if !(0xDC00..0xE000).contains(&low) {
                return None;
            }
            (0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), at + 11)
        }
        0xDC00..=0xDFFF => return None,
        _ => (unit, at + 5),
    };
    let mut utf8 = [0; 4];
    sink.bytes(char::from_u32(scalar)?.encode_utf8(&mut utf8).as_bytes());
    Some(next)
}

/// Four hex digits, and nothing else (no sign, as `from_str_radix` takes).
fn hex4(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0, |value, digit| {
        Some(value << 4 | char::from(*digit).to_digit(16)?)
    })
}

/// The length of the valid UTF-8 character starting with the non-ASCII byte
/// at `at`.
fn utf8_width(bytes: &[u8], at: usize) -> Option<usize> {
    let width = match *bytes.get(at)? {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    std::str::from_utf8(bytes.get(at..at + width)?).ok()?;
    Some(width)
}

#[cfg(test)]
mod tests;
