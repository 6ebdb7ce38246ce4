//! Unit tests of the splice layer: every insertion has an exact inverse.

use jsonc_parser::ast::Value as Node;
use serde_json::json;

use super::doc::{self, line_column};
use super::layout::{self, Container, Style};

fn root_of(body: &str) -> jsonc_parser::ast::Object<'_> {
    doc::parse_root(body).expect("strict JSON")
}

/// Appends `value` to the array under `key`, then removes it again.
fn append_then_remove(body: &str, key: &str) -> (String, String) {
    let root = root_of(body);
    let style = Style::detect(body, &root);
    let Some(Node::Array(array)) = root
        .properties
        .iter()
        .find(|p| p.name.as_str() == key)
        .map(|p| &p.value)
    else {
        panic!("no array {key}");
    };
    let container = Container::array(array);
    let value = json!({"k": [1, {"x": "y"}]});
    let render = |indent: Option<&str>| layout::render(&value, &style, indent);
    let mut grown = body.to_string();
    layout::append(body, &container, &style, false, &render).apply(&mut grown);
    let root = root_of(&grown);
    let Node::Array(array) = &root
        .properties
        .iter()
        .find(|p| p.name.as_str() == key)
        .unwrap()
        .value
    else {
        unreachable!()
    };
    let container = Container::array(array);
    let mut shrunk = grown.clone();
    let inner = &body[body.find('[').unwrap() + 1..body.rfind(']').unwrap()];
    let inner = (array.elements.len() == 1).then_some(inner);
    layout::remove(&container, array.elements.len() - 1, inner).apply(&mut shrunk);
    (grown, shrunk)
}

#[test]
fn append_follows_the_container_and_remove_inverts_it() {
    let cases = [
        ("{\"a\": [1, 2]}", "{\"a\": [1, 2, {\"k\": [1, {\"x\": \"y\"}]}]}"),
        ("{\"a\":[1]}", "{\"a\":[1,{\"k\":[1,{\"x\":\"y\"}]}]}"),
        ("{\"a\": [ 1 ]}", "{\"a\": [ 1, {\"k\": [1, {\"x\": \"y\"}]} ]}"),
        ("{\n  \"a\": [\n    1\n  ]\n}", "{\n  \"a\": [\n    1,\n    {\n      \"k\": [\n        1,\n        {\n          \"x\": \"y\"\n        }\n      ]\n    }\n  ]\n}"),
        ("{\n\t\"a\": []\n}", "{\n\t\"a\": [\n\t\t{\n\t\t\t\"k\": [\n\t\t\t\t1,\n\t\t\t\t{\n\t\t\t\t\t\"x\": \"y\"\n\t\t\t\t}\n\t\t\t]\n\t\t}\n\t]\n}"),
        ("{\"a\": [ ]}", "{\"a\": [{\"k\": [1, {\"x\": \"y\"}]}]}"),
    ];
    for (body, expected) in cases {
        let (grown, shrunk) = append_then_remove(body, "a");
        assert_eq!(grown, expected, "append into {body:?}");
        assert_eq!(shrunk, body, "remove after append into {body:?}");
    }
}

#[test]
fn indentation_unit_is_detected() {
    let unit = |body: &str| Style::detect(body, &root_of(body)).unit;
    assert_eq!(unit("{\n    \"a\": 1\n}"), "    ");
    assert_eq!(unit("{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}"), "\t");
    assert_eq!(unit("{\"a\": 1}"), "  ");
    assert_eq!(unit("{\r\n   \"a\": 1\r\n}"), "   ");
}

#[test]
fn line_and_column_count_characters() {
    assert_eq!(line_column("{\n  \"é\": x", 10), (2, 8));
    assert_eq!(line_column("abc", 0), (1, 1));
}
