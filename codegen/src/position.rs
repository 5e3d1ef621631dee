//! From a JSON pointer into a document to the line and column where that value starts in the
//! document's text, so a CI annotation can point at the offending value.

use jsonc_parser::ast::Value as Node;
use jsonc_parser::common::Ranged;
use jsonc_parser::{parse_to_ast, CollectOptions, ParseOptions};

/// 1-based (line, column in characters) of the value at `pointer` in `text`, or `None` when the
/// text does not parse or the pointer names no value in it.
pub fn locate(text: &str, pointer: &str) -> Option<(usize, usize)> {
    // Strict JSON only: the text has already been accepted by serde_json, and a looser parse
    // must not find a different value.
    let options = ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let parsed = parse_to_ast(text, &CollectOptions::default(), &options).ok()?;
    let mut node = parsed.value.as_ref()?;
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        node = child(node, &token)?;
    }
    Some(line_and_column(text, node.start()))
}

/// The member or element `token` of `node`. With duplicate member names the last one counts, as
/// in serde_json's map.
fn child<'n, 'a>(node: &'n Node<'a>, token: &str) -> Option<&'n Node<'a>> {
    match node {
        Node::Object(object) => object
            .properties
            .iter()
            .rev()
            .find(|p| p.name.as_str() == token)
            .map(|p| &p.value),
        Node::Array(array) => array.elements.get(token.parse::<usize>().ok()?),
        _ => None,
    }
}

fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    // A parser range is always on a character boundary; `get` keeps a surprise from panicking.
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::locate;

    #[test]
    fn finds_nested_members_and_elements() {
        let text = "{\n  \"a\": [1,\n    {\"b/c\": true}]\n}";
        assert_eq!(locate(text, ""), Some((1, 1)));
        assert_eq!(locate(text, "/a"), Some((2, 8)));
        assert_eq!(locate(text, "/a/1/b~1c"), Some((3, 13)));
        assert_eq!(locate(text, "/a/7"), None);
    }

    #[test]
    fn counts_columns_in_characters() {
        assert_eq!(locate("{\"é\": \"ü\", \"x\": 1}", "/x"), Some((1, 17)));
    }
}
