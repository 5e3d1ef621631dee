//! placeholder bench (filled in below)
fn main() {}
