//! Inbound NDJSON framing for the `gortex mcp` stdout stream.
//!
//! Bytes arrive in arbitrary chunks. Complete lines inside a chunk are handed
//! out as borrowed slices, so the common case copies nothing; only a line cut
//! by a chunk boundary is accumulated. The newline scan only ever looks at
//! bytes it has not seen (the accumulated remainder never holds a newline),
//! so a large frame is scanned once. The cap is counted in bytes, on complete
//! and unterminated frames alike, because a stream cannot be resynced
//! mid-frame and an unbounded remainder is an unbounded allocation.

/// Largest frame accepted, in bytes, excluding the newline.
pub const MAX_FRAME_BYTES: usize = 64 * 1024 * 1024;

/// An accumulated frame at least this large is handed out by value, so the
/// consumer can keep it without copying it again.
const HAND_OVER_BYTES: usize = 1024 * 1024;

/// Retained buffer capacity after a frame: a one-off giant frame must not pin
/// its allocation for the rest of the session.
const RETAINED_CAPACITY: usize = 256 * 1024;

/// The stream broke a framing rule; the connection cannot continue.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FramingError {
    /// A frame (terminated or not) grew past the cap.
    #[error("gortex mcp frame exceeded {limit} bytes")]
    FrameTooLarge {
        /// The cap in force, in bytes.
        limit: usize,
    },
}

/// One complete line, without its `\n`. Blank lines are never produced.
#[derive(Debug)]
pub enum Frame<'a> {
    /// A line that lay entirely inside one chunk, or a small reassembled one.
    Borrowed(&'a [u8]),
    /// A large reassembled line, handed over without a copy.
    Owned(Vec<u8>),
}

impl Frame<'_> {
    /// The frame's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Frame::Borrowed(bytes) => bytes,
            Frame::Owned(bytes) => bytes,
        }
    }

    /// The frame as an owned buffer, copying only when it was borrowed.
    pub fn into_owned(self) -> Vec<u8> {
        match self {
            Frame::Borrowed(bytes) => bytes.to_vec(),
            Frame::Owned(bytes) => bytes,
        }
    }
}

/// Splits a byte stream into newline-delimited frames.
#[derive(Debug)]
pub struct FrameDecoder {
    /// The unterminated remainder of the stream; never contains `\n`.
    remainder: Vec<u8>,
    max_frame_bytes: usize,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        Self::new(MAX_FRAME_BYTES)
    }
}

/// True when a line holds nothing but JSON whitespace (so also a lone `\r`).
fn is_blank(line: &[u8]) -> bool {
    line.iter()
        .all(|byte| matches!(byte, b' ' | b'\t' | b'\r' | b'\n'))
}

impl FrameDecoder {
    /// A decoder with the given cap in bytes.
    pub fn new(max_frame_bytes: usize) -> Self {
        Self {
            remainder: Vec::new(),
            max_frame_bytes,
        }
    }

    /// Bytes held for a frame whose newline has not arrived yet.
    #[cfg(any(test, feature = "test-support"))]
    pub fn buffered_bytes(&self) -> usize {
        self.remainder.len()
    }

    /// Feeds one chunk and calls `on_frame` for every complete, non-blank line.
    ///
    /// On [`FramingError`] the buffered bytes are dropped and the frames after
    /// the offending one in this chunk are not delivered.
    pub fn push<F>(&mut self, chunk: &[u8], mut on_frame: F) -> Result<(), FramingError>
    where
        F: FnMut(Frame<'_>),
    {
        let mut rest = chunk;
        if !self.remainder.is_empty() {
            let Some(newline) = memchr::memchr(b'\n', rest) else {
                return self.accumulate(rest);
            };
            self.check_size(self.remainder.len() + newline)?;
            self.remainder.extend_from_slice(&rest[..newline]);
            rest = &rest[newline + 1..];
            self.deliver_remainder(&mut on_frame);
        }
        let mut start = 0;
        for newline in memchr::memchr_iter(b'\n', rest) {
            let line = &rest[start..newline];
            start = newline + 1;
            if line.len() > self.max_frame_bytes {
                return Err(self.overflow());
            }
            if !is_blank(line) {
                on_frame(Frame::Borrowed(line));
            }
        }
        self.accumulate(&rest[start..])
    }

    fn check_size(&mut self, frame_len: usize) -> Result<(), FramingError> {
        if frame_len > self.max_frame_bytes {
            Err(self.overflow())
        } else {
            Ok(())
        }
    }

    fn overflow(&mut self) -> FramingError {
        self.remainder = Vec::new();
        FramingError::FrameTooLarge {
            limit: self.max_frame_bytes,
        }
    }

    /// Appends an unterminated tail, growing by half rather than doubling so
    /// a huge frame's buffer stays close to the frame's size.
    fn accumulate(&mut self, tail: &[u8]) -> Result<(), FramingError> {
        if tail.is_empty() {
            return Ok(());
        }
        let needed = self.remainder.len() + tail.len();
        self.check_size(needed)?;
        if needed > self.remainder.capacity() {
            let grown = self.remainder.capacity() + self.remainder.capacity() / 2;
            let target = needed.max(grown).min(self.max_frame_bytes.max(needed));
            self.remainder.reserve_exact(target - self.remainder.len());
        }
        self.remainder.extend_from_slice(tail);
        Ok(())
    }

    fn deliver_remainder<F>(&mut self, on_frame: &mut F)
    where
        F: FnMut(Frame<'_>),
    {
        if self.remainder.len() >= HAND_OVER_BYTES {
            let mut frame = std::mem::take(&mut self.remainder);
            // The growth slack is useless to the consumer.
            frame.shrink_to_fit();
            if !is_blank(&frame) {
                on_frame(Frame::Owned(frame));
            }
            return;
        }
        if !is_blank(&self.remainder) {
            on_frame(Frame::Borrowed(&self.remainder));
        }
        self.remainder.clear();
        if self.remainder.capacity() > RETAINED_CAPACITY {
            self.remainder.shrink_to(RETAINED_CAPACITY);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(decoder: &mut FrameDecoder, chunks: &[&[u8]]) -> Vec<Vec<u8>> {
        let mut frames = Vec::new();
        for chunk in chunks {
            decoder
                .push(chunk, |frame| frames.push(frame.into_owned()))
                .expect("within cap");
        }
        frames
    }

    #[test]
    fn splits_lines_and_skips_blank_ones() {
        let mut decoder = FrameDecoder::default();
        let frames = decode_all(&mut decoder, &[b"{\"a\":1}\n\n \r\n{\"b\"", b":2}\r\n{"]);
        assert_eq!(frames, vec![b"{\"a\":1}".to_vec(), b"{\"b\":2}\r".to_vec()]);
        assert_eq!(decoder.buffered_bytes(), 1);
    }

    #[test]
    fn cap_counts_bytes_of_unterminated_remainder() {
        let mut decoder = FrameDecoder::new(8);
        decoder.push(b"12345678", |_| {}).expect("exactly the cap");
        let err = decoder.push(b"9", |_| {}).expect_err("over the cap");
        assert_eq!(err.to_string(), "gortex mcp frame exceeded 8 bytes");
        assert_eq!(decoder.buffered_bytes(), 0);
    }

    #[test]
    fn cap_counts_multibyte_characters_as_bytes() {
        // Four `é` are 4 UTF-16 units but 8 bytes.
        let mut decoder = FrameDecoder::new(7);
        let err = decoder
            .push("\"éééé\"\n".as_bytes(), |_| {})
            .expect_err("8 bytes > 7");
        assert!(matches!(err, FramingError::FrameTooLarge { limit: 7 }));
    }

    #[test]
    fn large_reassembled_frame_is_handed_over() {
        let mut decoder = FrameDecoder::default();
        let body = vec![b'x'; HAND_OVER_BYTES + 10];
        decoder.push(&body, |_| panic!("no newline yet")).unwrap();
        let mut owned = 0;
        decoder
            .push(b"\n", |frame| {
                assert!(matches!(frame, Frame::Owned(_)));
                owned = frame.bytes().len();
            })
            .unwrap();
        assert_eq!(owned, body.len());
    }

    #[test]
    fn cap_counts_a_frame_completed_across_chunks() {
        // One byte held, then eight more and the newline: nine bytes > 8.
        let mut decoder = FrameDecoder::new(8);
        decoder.push(b"a", |_| panic!("no newline yet")).unwrap();
        let err = decoder
            .push(b"12345678\n", |_| panic!("over the cap"))
            .expect_err("9 bytes > 8");
        assert!(matches!(err, FramingError::FrameTooLarge { limit: 8 }));
        // Exactly the cap is delivered.
        let mut decoder = FrameDecoder::new(8);
        decoder.push(b"a", |_| panic!("no newline yet")).unwrap();
        let mut frames = Vec::new();
        decoder
            .push(b"1234567\n", |frame| frames.push(frame.into_owned()))
            .unwrap();
        assert_eq!(frames, [b"a1234567".to_vec()]);
    }

    #[test]
    fn an_unterminated_frame_grows_its_buffer_by_half_not_by_doubling() {
        let mut decoder = FrameDecoder::default();
        for chunk in [1000, 1000] {
            decoder
                .push(&vec![b'x'; chunk], |_| panic!("no newline yet"))
                .unwrap();
        }
        assert_eq!(
            decoder.remainder.capacity(),
            2000,
            "exactly what was needed"
        );
        decoder.push(b"x", |_| panic!("no newline yet")).unwrap();
        assert_eq!(
            decoder.remainder.capacity(),
            3000,
            "one and a half times, not two"
        );
        // The buffer is kept for the next frame; filling it exactly needs no growth.
        decoder.push(b"\n", |_| {}).unwrap();
        decoder
            .push(&vec![b'x'; 3000], |_| panic!("no newline yet"))
            .unwrap();
        assert_eq!(decoder.remainder.capacity(), 3000, "full, not grown");
    }

    /// Feeds `len` bytes without a newline, then the newline; returns whether
    /// the frame came out borrowed.
    fn reassembled_is_borrowed(decoder: &mut FrameDecoder, len: usize) -> bool {
        decoder
            .push(&vec![b'x'; len], |_| panic!("no newline yet"))
            .unwrap();
        let mut borrowed = None;
        decoder
            .push(b"\n", |frame| {
                assert_eq!(frame.bytes().len(), len);
                borrowed = Some(matches!(frame, Frame::Borrowed(_)));
            })
            .unwrap();
        borrowed.expect("one frame")
    }

    #[test]
    fn reassembled_frame_below_the_hand_over_size_is_lent_not_moved() {
        // Moving the buffer out costs a fresh allocation for the next frame, so
        // only frames of at least HAND_OVER_BYTES (1 MiB) are handed over.
        let mut decoder = FrameDecoder::default();
        assert!(reassembled_is_borrowed(&mut decoder, 64 * 1024));
        assert!(reassembled_is_borrowed(&mut decoder, HAND_OVER_BYTES - 1));
        assert!(!reassembled_is_borrowed(&mut decoder, HAND_OVER_BYTES));
    }

    #[test]
    fn buffer_keeps_up_to_the_retained_capacity_after_a_frame() {
        let mut decoder = FrameDecoder::default();
        // A frame under RETAINED_CAPACITY (256 KiB) keeps its buffer for the next one…
        assert!(reassembled_is_borrowed(&mut decoder, 200 * 1024));
        assert!(decoder.remainder.capacity() >= 200 * 1024);
        // …a larger one gives the excess back.
        assert!(reassembled_is_borrowed(&mut decoder, 600 * 1024));
        assert!(decoder.remainder.capacity() <= RETAINED_CAPACITY);
        assert!(decoder.remainder.capacity() >= 200 * 1024);
    }
}
