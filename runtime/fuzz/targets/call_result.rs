//! The `tools/call` result fast path (MCP-27, TOOL-6 steps 6 and 7).
//!
//! `read_call_result` reads a result's texts from borrowed raw members and
//! unescapes them itself; the slow way decodes the same bytes into a
//! `Value` (lone surrogates read as U+FFFD, as `decode_lenient` does) and
//! applies the `Value` rules. On every input the two must agree on the
//! text, the error flag and the text the model reads, and neither may
//! panic. Found in review: `"\ud800abcde\\"` made the fast path's size
//! hint slice past the end.
//!
//! One divergence is allowed, on purpose: serde_json's `Value` refuses a
//! whole document holding a number beyond `f64` (`1e99999`), so the slow way
//! reads it as nothing at all (`{}`), while the fast way skips such a number
//! in a member it does not read, as Pi's own client does (`JSON.parse`
//! makes it `Infinity`). Where the slow decode fails for that reason alone,
//! only "no panic" is checked (found by fuzzing, docs/reliability.md).

use pi_gortex_runtime::mcp::call_result::{decode_lenient, read_call_result};
use pi_gortex_runtime::mcp::tools::{is_error, model_text, result_text};
use pi_gortex_runtime::mcp::RawResponse;

/// Reads one result body both ways (see the module doc).
pub fn run(data: &[u8]) {
    let fast = read_call_result(&RawResponse::from_json(data.to_vec()));
    let slow = decode_lenient(data);
    if slow.is_null() && number_out_of_range(data) {
        return;
    }
    assert_eq!(fast.text, result_text(&slow), "text");
    assert_eq!(fast.is_error, is_error(&slow), "isError");
    assert_eq!(fast.model_text(), model_text(&slow), "model text");
}

/// Whether serde_json refuses `data` (read lossily, as `decode_lenient`
/// does) because of a number beyond `f64`.
fn number_out_of_range(data: &[u8]) -> bool {
    serde_json::from_str::<serde_json::Value>(&String::from_utf8_lossy(data))
        .is_err_and(|error| error.to_string().contains("number out of range"))
}
