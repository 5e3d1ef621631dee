//! Small helpers that turn fuzzer bytes into structured choices. Kept
//! deliberately simple (a control byte, then payloads split on a separator)
//! so a seed file stays readable text and mutations stay meaningful.

/// Separates payloads inside one input; never part of valid UTF-8.
pub const SEPARATOR: u8 = 0xFF;

/// Splits off the first byte as a control byte.
pub fn control(data: &[u8]) -> Option<(u8, &[u8])> {
    data.split_first().map(|(first, rest)| (*first, rest))
}

/// The `index`th payload of `data` split on [`SEPARATOR`] (empty when absent).
pub fn payload(data: &[u8], index: usize) -> &[u8] {
    data.split(|byte| *byte == SEPARATOR)
        .nth(index)
        .unwrap_or_default()
}

/// A deterministic xorshift stream, so one seed byte pair picks a whole
/// sequence of chunk sizes.
pub struct Chooser(u32);

impl Chooser {
    /// A stream seeded from two bytes (never the all-zero state).
    pub fn new(seed: u16) -> Self {
        Chooser(u32::from(seed) << 8 | 0x9E37_0001)
    }

    /// The next value in `0..bound` (`bound` > 0).
    pub fn below(&mut self, bound: usize) -> usize {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x as usize % bound
    }
}
