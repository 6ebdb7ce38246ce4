//! Text-level splices at AST ranges, and rendering new values in the
//! style of the file around them.
//!
//! Why not the jsonc-parser CST: it re-lays out single-line arrays and
//! minified documents when you append (`[{"a":1}]` comes back as
//! `[{"a":1}\n]`), so install-then-remove would not give back the user's
//! bytes. Here every insertion has an exact inverse: appending puts
//! `, <whitespace of the previous element> <new>` after the last element,
//! and removing element i > 0 deletes from the end of element i-1 to the
//! end of element i, which is exactly that text.

use jsonc_parser::ast::{Array, Object};
use jsonc_parser::common::{Range, Ranged};
use serde_json::Value;

/// One replacement of `start..end` in the body by `text`.
#[derive(Debug)]
pub(crate) struct Splice {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl Splice {
    pub fn apply(self, body: &mut String) {
        body.replace_range(self.start..self.end, &self.text);
    }
}

/// An object or an array, seen as brackets around children.
pub(crate) struct Container {
    /// Byte offset of `{` or `[`.
    pub open: usize,
    /// Byte offset of `}` or `]`.
    pub close: usize,
    pub children: Vec<Range>,
}

impl Container {
    pub fn object(object: &Object<'_>) -> Self {
        Self::new(
            object.range,
            object.properties.iter().map(|p| p.range()).collect(),
        )
    }

    pub fn array(array: &Array<'_>) -> Self {
        Self::new(
            array.range,
            array.elements.iter().map(|e| e.range()).collect(),
        )
    }

    fn new(range: Range, children: Vec<Range>) -> Self {
        Self {
            open: range.start,
            close: range.end - 1,
            children,
        }
    }
}

/// The formatting conventions of one document.
pub(crate) struct Style {
    /// One level of indentation ("  ", "    ", "\t").
    pub unit: String,
    /// Line ending ("\n" or "\r\n").
    pub newline: &'static str,
    /// Between a key and its value (": ", " : ", ":").
    pub colon: String,
    /// Whether the whole document is one line (minified).
    pub one_line: bool,
}

impl Style {
    pub fn detect(body: &str, root: &Object<'_>) -> Self {
        let newline = match body.find('\n') {
            Some(i) if i > 0 && body.as_bytes()[i - 1] == b'\r' => "\r\n",
            _ => "\n",
        };
        let colon = root
            .properties
            .first()
            .map(|p| body[p.name.end()..p.value.start()].to_string())
            .filter(|c| !c.contains('\n'))
            .unwrap_or_else(|| ": ".to_string());
        let one_line = !root.text(body).contains('\n');
        Self {
            unit: detect_unit(body),
            newline,
            colon,
            one_line,
        }
    }

    /// The style of a file termic creates.
    pub fn fresh() -> Self {
        Self {
            unit: "  ".to_string(),
            newline: "\n",
            colon: ": ".to_string(),
            one_line: false,
        }
    }
}

/// The indentation step: the first line that opens a container and is
/// followed by a deeper line gives it. Two spaces when nothing says.
fn detect_unit(body: &str) -> String {
    let lines: Vec<&str> = body.lines().collect();
    for pair in lines.windows(2) {
        let opener = pair[0].trim_end();
        if !(opener.ends_with('{') || opener.ends_with('[')) {
            continue;
        }
        let outer = leading_blanks(pair[0]);
        let inner = leading_blanks(pair[1]);
        if inner.len() > outer.len() && inner.starts_with(outer) {
            return inner[outer.len()..].to_string();
        }
    }
    "  ".to_string()
}

fn leading_blanks(line: &str) -> &str {
    let end = line.find(|c| c != ' ' && c != '\t').unwrap_or(line.len());
    &line[..end]
}

/// The indentation of the line holding byte `offset`.
pub(crate) fn line_indent(body: &str, offset: usize) -> &str {
    let start = body[..offset].rfind('\n').map_or(0, |i| i + 1);
    leading_blanks(&body[start..])
}

/// The whitespace run that ends at `offset`.
fn blanks_before(body: &str, offset: usize) -> &str {
    let prefix = &body[..offset];
    let start = prefix.trim_end_matches([' ', '\t', '\n', '\r']).len();
    &prefix[start..]
}

/// A new child for a container: `render(indent)` gets the indentation of
/// the child's line (None when the child goes on the container's line).
pub(crate) type RenderChild<'r> = &'r dyn Fn(Option<&str>) -> String;

/// Appends a child after the last one. For an empty container the inner
/// text (whitespace) is replaced; the caller records it for removal.
pub(crate) fn append(
    body: &str,
    container: &Container,
    style: &Style,
    is_root: bool,
    render: RenderChild<'_>,
) -> Splice {
    if let Some(last) = container.children.last() {
        let mut gap = blanks_before(body, last.start);
        if container.children.len() == 1 && !gap.contains('\n') {
            // Padding after a bracket says nothing about separators.
            gap = inline_separator(style).trim_start_matches(',');
        }
        let indent = gap.rfind('\n').map(|i| &gap[i + 1..]);
        let text = format!(",{gap}{}", render(indent));
        return Splice {
            start: last.end,
            end: last.end,
            text,
        };
    }
    let inner = &body[container.open + 1..container.close];
    let text = if inner.contains('\n')
        || is_root
        || (!style.one_line && starts_its_line(body, container.open))
    {
        let outer = line_indent(body, container.open);
        let indent = format!("{outer}{}", style.unit);
        let closing = if inner.contains('\n') {
            inner.to_string()
        } else {
            format!("{}{outer}", style.newline)
        };
        format!(
            "{}{indent}{}{closing}",
            style.newline,
            render(Some(&indent))
        )
    } else {
        render(None)
    };
    Splice {
        start: container.open + 1,
        end: container.close,
        text,
    }
}

/// Whether the bracket at `open` is the first value on its line (maybe
/// after its key): then a new child goes on its own line. An empty
/// container in the middle of a one-line structure stays one line.
fn starts_its_line(body: &str, open: usize) -> bool {
    let line_start = body[..open].rfind('\n').map_or(0, |i| i + 1);
    let prefix = body[line_start..open].trim();
    match prefix.strip_suffix(':') {
        Some(key) => serde_json::from_str::<String>(key.trim_end()).is_ok(),
        None => prefix.is_empty() || prefix == "[" || prefix == ",",
    }
}

/// Removes child `index`, the exact inverse of `append`. When it is the
/// only child, the inner text becomes `empty_inner` (what the container
/// held before termic's first insert, or nothing).
pub(crate) fn remove(container: &Container, index: usize, empty_inner: Option<&str>) -> Splice {
    let children = &container.children;
    let text = String::new();
    if children.len() == 1 {
        let text = empty_inner.unwrap_or("").to_string();
        return Splice {
            start: container.open + 1,
            end: container.close,
            text,
        };
    }
    if index > 0 {
        return Splice {
            start: children[index - 1].end,
            end: children[index].end,
            text,
        };
    }
    Splice {
        start: children[0].start,
        end: children[1].start,
        text,
    }
}

/// Replaces a value in place, multi-line if the old one was.
pub(crate) fn replace(body: &str, range: Range, style: &Style, value: &Value) -> Splice {
    let old = &body[range.start..range.end];
    let indent = old.contains('\n').then(|| line_indent(body, range.start));
    Splice {
        start: range.start,
        end: range.end,
        text: render(value, style, indent),
    }
}

/// A JSON value in the file's style: multi-line at `indent`, or on one
/// line (separators follow the file's) when `indent` is None.
pub(crate) fn render(value: &Value, style: &Style, indent: Option<&str>) -> String {
    let mut out = String::new();
    write_value(&mut out, value, style, indent);
    out
}

/// An object given as ordered entries (serde_json maps sort their keys).
pub(crate) fn render_entries(
    entries: &[(String, String)],
    style: &Style,
    indent: Option<&str>,
) -> String {
    let Some(indent) = indent else {
        let items: Vec<String> = entries
            .iter()
            .map(|(k, v)| format!("{}{}{v}", quote(k), style.colon))
            .collect();
        return format!("{{{}}}", items.join(inline_separator(style)));
    };
    let inner = format!("{indent}{}", style.unit);
    let items: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{inner}{}{}{v}", quote(k), style.colon))
        .collect();
    let nl = style.newline;
    format!("{{{nl}{}{nl}{indent}}}", items.join(&format!(",{nl}")))
}

/// serde_json maps sort their keys; a hook handler reads best with these
/// first, the way every vendor example writes it.
const LEADING_KEYS: [&str; 2] = ["type", "command"];

fn write_value(out: &mut String, value: &Value, style: &Style, indent: Option<&str>) {
    let child_indent = indent.map(|i| format!("{i}{}", style.unit));
    let child_indent = child_indent.as_deref();
    match value {
        Value::Object(map) if !map.is_empty() => {
            let leading = LEADING_KEYS.iter().filter_map(|k| map.get_key_value(*k));
            let rest = map
                .iter()
                .filter(|(k, _)| !LEADING_KEYS.contains(&k.as_str()));
            let entries: Vec<(String, String)> = leading
                .chain(rest)
                .map(|(k, v)| (k.clone(), render(v, style, child_indent)))
                .collect();
            out.push_str(&render_entries(&entries, style, indent));
        }
        Value::Array(items) if !items.is_empty() => {
            let rendered: Vec<String> = items
                .iter()
                .map(|v| render(v, style, child_indent))
                .collect();
            out.push_str(&render_items(&rendered, style, indent));
        }
        other => out.push_str(&other.to_string()),
    }
}

/// An array of already rendered items (each rendered at one level deeper
/// than `indent`).
pub(crate) fn render_items(items: &[String], style: &Style, indent: Option<&str>) -> String {
    let Some(indent) = indent else {
        return format!("[{}]", items.join(inline_separator(style)));
    };
    let inner = format!("{indent}{}", style.unit);
    let nl = style.newline;
    let lines: Vec<String> = items.iter().map(|v| format!("{inner}{v}")).collect();
    format!("[{nl}{}{nl}{indent}]", lines.join(&format!(",{nl}")))
}

/// Between items on one line: the file's own habit, judged by its colon.
fn inline_separator(style: &Style) -> &'static str {
    if style.colon.ends_with(' ') {
        ", "
    } else {
        ","
    }
}

pub(crate) fn quote(key: &str) -> String {
    Value::String(key.to_string()).to_string()
}
