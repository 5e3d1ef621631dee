//! TODO: see lib.rs
