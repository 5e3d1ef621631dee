//! The operating-system mechanisms, one module per concern, each with a Unix
//! and a Windows side behind `cfg` and one API, so nothing else in the crate
//! names an OS call.

pub mod home;
pub mod local_dir;
pub mod no_follow;
pub mod node_path;
pub mod pipe_writer;
pub mod process_tree;
