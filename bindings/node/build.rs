//! Emits the linker flags a Node addon needs (undefined napi symbols are
//! resolved by the host process at load time).
fn main() {
    napi_build::setup();
}
