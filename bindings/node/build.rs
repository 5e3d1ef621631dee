//! Emits the linker flags a Node addon needs (undefined napi symbols are
//! resolved by the host process at load time).
fn main() {
    // napi-build reads LIBNODE_PATH (a Windows link against node.exe's import library)
    // without asking to be rerun when it changes.
    println!("cargo:rerun-if-env-changed=LIBNODE_PATH");
    napi_build::setup();
}
