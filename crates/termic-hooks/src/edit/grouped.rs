//! The Claude-compatible shape: `hooks.<Event>: [{["matcher",] "hooks": [handler]}]`,
//! and its flat variant `hooks.<event>: [handler]` (Copilot CLI), where the
//! handler's command may sit under another key (`bash`).

use jsonc_parser::ast::{Array, Object, Value as Node};
use jsonc_parser::common::{Range, Ranged};
use serde_json::{json, Value};

use super::doc::{self, Duplicates};
use super::layout::{self, Container, Splice, Style};
use super::steps;
use super::{Edit, EditError, EventHandler, InstallRecord};

const HOOKS: &str = "hooks";

/// Where handlers sit under an event and which key holds their command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HooksShape {
    /// Handlers directly in the event's array, no `{"hooks": [...]}` group.
    pub flat: bool,
    /// The handler key holding the shell command.
    pub command_key: &'static str,
}

impl HooksShape {
    /// Claude's shape: one `{"hooks": [handler]}` group per handler, `command`.
    pub const GROUPED: HooksShape = HooksShape {
        flat: false,
        command_key: "command",
    };

    /// Handlers directly under the event, the command under `command_key`.
    pub const fn flat(command_key: &'static str) -> HooksShape {
        HooksShape {
            flat: true,
            command_key,
        }
    }
}

/// Our handlers as the agent sees them, for status.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupedHooks {
    /// Every handler whose command is ours, per event, in file order.
    pub ours: Vec<EventHandler>,
    /// `disableAllHooks: true`: the agent runs no hook at all.
    pub disable_all_hooks: bool,
}

/// Ensures each wanted handler is present exactly once; see the module doc.
pub fn install_grouped_hooks(
    text: Option<&str>,
    wanted: &[EventHandler],
    is_ours: &dyn Fn(&str) -> bool,
    record: &InstallRecord,
) -> Result<Edit, EditError> {
    install_hooks(text, HooksShape::GROUPED, wanted, is_ours, record)
}

/// Removes the handlers termic wrote; see the module doc.
pub fn remove_grouped_hooks(
    text: &str,
    written: &[EventHandler],
    is_ours: &dyn Fn(&str) -> bool,
    record: &InstallRecord,
) -> Result<Edit, EditError> {
    remove_hooks(text, HooksShape::GROUPED, written, is_ours, record)
}

/// Our handlers per event, resolving duplicate keys like the agent does.
pub fn query_grouped_hooks(
    text: &str,
    is_ours: &dyn Fn(&str) -> bool,
) -> Result<GroupedHooks, EditError> {
    query_hooks(text, HooksShape::GROUPED, is_ours)
}

/// [`install_grouped_hooks`] in any [`HooksShape`].
pub fn install_hooks(
    text: Option<&str>,
    shape: HooksShape,
    wanted: &[EventHandler],
    is_ours: &dyn Fn(&str) -> bool,
    record: &InstallRecord,
) -> Result<Edit, EditError> {
    let result = steps::run(text, record, |body, style, record| {
        next_install_step(body, style, shape, wanted, is_ours, record)
    })?;
    let found = scan_ours(&result.body, shape, is_ours)?;
    if !same_handlers(&found, wanted) {
        return Err(EditError::Internal(
            "install did not converge on the wanted handlers".into(),
        ));
    }
    Ok(result.into_edit(Vec::new()))
}

/// [`remove_grouped_hooks`] in any [`HooksShape`].
pub fn remove_hooks(
    text: &str,
    shape: HooksShape,
    written: &[EventHandler],
    is_ours: &dyn Fn(&str) -> bool,
    record: &InstallRecord,
) -> Result<Edit, EditError> {
    let result = steps::run(Some(text), record, |body, _style, record| {
        next_remove_step(body, shape, written, is_ours, record)
    })?;
    let left_alone = scan_ours(&result.body, shape, is_ours)?;
    if left_alone.iter().any(|f| written.contains(f)) {
        return Err(EditError::Internal(
            "removal left a handler termic wrote".into(),
        ));
    }
    Ok(result.into_edit(left_alone))
}

/// [`query_grouped_hooks`] in any [`HooksShape`].
pub fn query_hooks(
    text: &str,
    shape: HooksShape,
    is_ours: &dyn Fn(&str) -> bool,
) -> Result<GroupedHooks, EditError> {
    let body = doc::split_bom(text).body;
    let root = doc::parse_root(body)?;
    let tree = Tree::scan(body, &root, Duplicates::LastWins, shape, is_ours)?;
    let disable = doc::get(body, &root, "disableAllHooks", "", Duplicates::LastWins)?
        .is_some_and(|p| matches!(p.value, Node::BooleanLit(ref b) if b.value));
    Ok(GroupedHooks {
        ours: tree.ours(),
        disable_all_hooks: disable,
    })
}

fn scan_ours(
    body: &str,
    shape: HooksShape,
    is_ours: &dyn Fn(&str) -> bool,
) -> Result<Vec<EventHandler>, EditError> {
    let root = doc::parse_root(body)?;
    Ok(Tree::scan(body, &root, Duplicates::Refuse, shape, is_ours)?.ours())
}

/// Same handlers per event, ignoring order.
fn same_handlers(found: &[EventHandler], wanted: &[EventHandler]) -> bool {
    let mut rest: Vec<&EventHandler> = found.iter().collect();
    for w in wanted {
        match rest.iter().position(|f| *f == w) {
            Some(at) => {
                rest.remove(at);
            }
            None => return false,
        }
    }
    rest.is_empty()
}

/// One handler of ours found in the file.
struct Found {
    group: usize,
    handler: usize,
    value: Value,
    range: Range,
}

struct EventScan<'o, 'a> {
    /// Index of the event's property in the `hooks` object.
    index: usize,
    name: String,
    array: &'o Array<'a>,
    ours: Vec<Found>,
}

/// The `hooks` tree with our handlers located.
struct Tree<'o, 'a> {
    body: &'o str,
    root: &'o Object<'a>,
    /// Index of `hooks` in the top-level object, and the object itself.
    hooks: Option<(usize, &'o Object<'a>)>,
    events: Vec<EventScan<'o, 'a>>,
}

impl<'o, 'a> Tree<'o, 'a> {
    fn scan(
        body: &'o str,
        root: &'o Object<'a>,
        duplicates: Duplicates,
        shape: HooksShape,
        is_ours: &dyn Fn(&str) -> bool,
    ) -> Result<Self, EditError> {
        let mut tree = Tree {
            body,
            root,
            hooks: None,
            events: Vec::new(),
        };
        let Some(prop) = doc::get(body, root, HOOKS, "", duplicates)? else {
            return Ok(tree);
        };
        let hooks = doc::expect_object(body, prop, HOOKS)?;
        let index = root
            .properties
            .iter()
            .position(|p| std::ptr::eq(p, prop))
            .unwrap_or(0);
        tree.hooks = Some((index, hooks));
        if duplicates == Duplicates::Refuse {
            doc::refuse_any_duplicate(body, hooks, HOOKS)?;
        }
        for (index, event) in hooks.properties.iter().enumerate() {
            let name = event.name.as_str().to_string();
            let shadowed = hooks.properties[index + 1..]
                .iter()
                .any(|p| p.name.as_str() == name);
            if shadowed {
                continue; // LastWins: the agent never sees this one.
            }
            let path = doc::join_path(HOOKS, &name);
            let array = doc::expect_array(body, event, &path)?;
            let ours = find_ours(body, array, &path, duplicates, shape, is_ours)?;
            tree.events.push(EventScan {
                index,
                name,
                array,
                ours,
            });
        }
        Ok(tree)
    }

    fn ours(&self) -> Vec<EventHandler> {
        let each = |e: &EventScan| {
            e.ours
                .iter()
                .map(|f| EventHandler::new(&e.name, f.value.clone()))
                .collect::<Vec<_>>()
        };
        self.events.iter().flat_map(each).collect()
    }
}

/// Handlers (objects in a group's `hooks` array, or in the event's array
/// when flat) whose string command is ours. Anything of another shape is
/// the user's and is skipped.
fn find_ours(
    body: &str,
    array: &Array<'_>,
    path: &str,
    duplicates: Duplicates,
    shape: HooksShape,
    is_ours: &dyn Fn(&str) -> bool,
) -> Result<Vec<Found>, EditError> {
    let mut found = Vec::new();
    if shape.flat {
        for (index, handler) in array.elements.iter().enumerate() {
            let Node::Object(object) = handler else {
                continue;
            };
            let Some(command) = doc::get(body, object, shape.command_key, path, duplicates)? else {
                continue;
            };
            let Node::StringLit(command) = &command.value else {
                continue;
            };
            if is_ours(&command.value) {
                found.push(Found {
                    group: index,
                    handler: index,
                    value: doc::to_value(body, handler)?,
                    range: handler.range(),
                });
            }
        }
        return Ok(found);
    }
    for (group_index, group) in array.elements.iter().enumerate() {
        let Node::Object(group) = group else { continue };
        let Some(handlers) = doc::get(body, group, HOOKS, path, duplicates)? else {
            continue;
        };
        let Node::Array(handlers) = &handlers.value else {
            continue;
        };
        for (handler_index, handler) in handlers.elements.iter().enumerate() {
            let Node::Object(object) = handler else {
                continue;
            };
            let Some(command) = doc::get(body, object, "command", path, duplicates)? else {
                continue;
            };
            let Node::StringLit(command) = &command.value else {
                continue;
            };
            if is_ours(&command.value) {
                let value = doc::to_value(body, handler)?;
                found.push(Found {
                    group: group_index,
                    handler: handler_index,
                    value,
                    range: handler.range(),
                });
            }
        }
    }
    Ok(found)
}

fn next_install_step(
    body: &str,
    style: &Style,
    shape: HooksShape,
    wanted: &[EventHandler],
    is_ours: &dyn Fn(&str) -> bool,
    record: &mut InstallRecord,
) -> Result<Option<Splice>, EditError> {
    let root = doc::parse_root(body)?;
    let tree = Tree::scan(body, &root, Duplicates::Refuse, shape, is_ours)?;
    let Some((_, hooks)) = tree.hooks else {
        return Ok(Some(insert_hooks_object(
            &tree, style, shape, wanted, record,
        )));
    };
    for event in &tree.events {
        let mut missing: Vec<&Value> = wanted_for(wanted, &event.name);
        let mut stale: Vec<&Found> = Vec::new();
        for found in &event.ours {
            match missing.iter().position(|w| **w == found.value) {
                Some(at) => {
                    missing.remove(at);
                }
                None => stale.push(found),
            }
        }
        match (stale.first(), missing.first()) {
            (Some(old), Some(new)) => {
                return Ok(Some(layout::replace(body, old.range, style, new)))
            }
            (Some(old), None) => return Ok(Some(remove_found(&tree, event, shape, old, record))),
            (None, Some(new)) => {
                let container = Container::array(event.array);
                if container.children.is_empty() {
                    record.note_was_empty(
                        &[HOOKS, &event.name],
                        &body[container.open + 1..container.close],
                    );
                }
                let render = |indent: Option<&str>| render_group(new, style, shape, indent);
                return Ok(Some(layout::append(
                    body, &container, style, false, &render,
                )));
            }
            (None, None) => {}
        }
    }
    let absent: Vec<&str> = event_names(wanted)
        .into_iter()
        .filter(|e| !tree.events.iter().any(|s| s.name == *e))
        .collect();
    let Some(event) = absent.first() else {
        return Ok(None);
    };
    let container = Container::object(hooks);
    if container.children.is_empty() {
        record.note_was_empty(&[HOOKS], &body[container.open + 1..container.close]);
    }
    record.note_created(&[HOOKS, event]);
    let handlers = wanted_for(wanted, event);
    let render = |indent: Option<&str>| {
        property(
            event,
            &render_event_array(&handlers, style, shape, indent),
            style,
        )
    };
    Ok(Some(layout::append(
        body, &container, style, false, &render,
    )))
}

/// `"hooks": {<every wanted event>}` into the top-level object.
fn insert_hooks_object(
    tree: &Tree,
    style: &Style,
    shape: HooksShape,
    wanted: &[EventHandler],
    record: &mut InstallRecord,
) -> Splice {
    let container = Container::object(tree.root);
    if container.children.is_empty() && !record.created_file {
        record.note_was_empty(&[], &tree.body[container.open + 1..container.close]);
    }
    record.note_created(&[HOOKS]);
    for event in event_names(wanted) {
        record.note_created(&[HOOKS, event]);
    }
    let render = |indent: Option<&str>| {
        let inner = indent.map(|i| format!("{i}{}", style.unit));
        let entries: Vec<(String, String)> = event_names(wanted)
            .into_iter()
            .map(|e| {
                (
                    e.to_string(),
                    render_event_array(&wanted_for(wanted, e), style, shape, inner.as_deref()),
                )
            })
            .collect();
        property(
            HOOKS,
            &layout::render_entries(&entries, style, indent),
            style,
        )
    };
    layout::append(tree.body, &container, style, true, &render)
}

fn property(key: &str, value: &str, style: &Style) -> String {
    format!("{}{}{value}", layout::quote(key), style.colon)
}

/// `[{"hooks": [h1]}, {"hooks": [h2]}]`: one group per handler (flat: `[h1, h2]`).
fn render_event_array(
    handlers: &[&Value],
    style: &Style,
    shape: HooksShape,
    indent: Option<&str>,
) -> String {
    let inner = indent.map(|i| format!("{i}{}", style.unit));
    let groups: Vec<String> = handlers
        .iter()
        .map(|h| render_group(h, style, shape, inner.as_deref()))
        .collect();
    layout::render_items(&groups, style, indent)
}

/// One array element: the handler in its group (flat: the handler).
fn render_group(handler: &Value, style: &Style, shape: HooksShape, indent: Option<&str>) -> String {
    if shape.flat {
        return layout::render(handler, style, indent);
    }
    let inner = indent.map(|i| format!("{i}{}", style.unit));
    let handlers = layout::render(&json!([handler]), style, inner.as_deref());
    layout::render_entries(&[(HOOKS.to_string(), handlers)], style, indent)
}

fn wanted_for<'w>(wanted: &'w [EventHandler], event: &str) -> Vec<&'w Value> {
    wanted
        .iter()
        .filter(|w| w.event == event)
        .map(|w| &w.handler)
        .collect()
}

/// Distinct event names in first-appearance order.
fn event_names(wanted: &[EventHandler]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for w in wanted {
        if !names.contains(&w.event.as_str()) {
            names.push(&w.event);
        }
    }
    names
}

fn next_remove_step(
    body: &str,
    shape: HooksShape,
    written: &[EventHandler],
    is_ours: &dyn Fn(&str) -> bool,
    record: &mut InstallRecord,
) -> Result<Option<Splice>, EditError> {
    let root = doc::parse_root(body)?;
    let tree = Tree::scan(body, &root, Duplicates::Refuse, shape, is_ours)?;
    for event in &tree.events {
        let ours_written = |f: &&Found| wanted_for(written, &event.name).contains(&&f.value);
        if let Some(found) = event.ours.iter().find(ours_written) {
            return Ok(Some(remove_found(&tree, event, shape, found, record)));
        }
    }
    Ok(None)
}

/// Removes one handler, and with it its group when the group held nothing
/// else (flat: the handler is the element), then containers termic created
/// that this leaves empty.
fn remove_found(
    tree: &Tree,
    event: &EventScan,
    shape: HooksShape,
    found: &Found,
    record: &mut InstallRecord,
) -> Splice {
    if !shape.flat {
        let group = match &event.array.elements[found.group] {
            Node::Object(group) => group,
            _ => unreachable!("find_ours only returns handlers inside object groups"),
        };
        let handlers = group.properties.iter().rev().find_map(|p| match &p.value {
            Node::Array(a) if p.name.as_str() == HOOKS => Some(a),
            _ => None,
        });
        let handlers = handlers.expect("find_ours only returns handlers inside a hooks array");
        if handlers.elements.len() > 1 || group.properties.len() > 1 {
            return layout::remove(&Container::array(handlers), found.handler, None);
        }
    }
    let path = [HOOKS, event.name.as_str()];
    let groups = &event.array.elements;
    if groups.len() > 1 {
        return layout::remove(&Container::array(event.array), found.group, None);
    }
    if !record.created(&path) {
        let inner = record.take_was_empty(&path);
        return layout::remove(
            &Container::array(event.array),
            found.group,
            inner.as_deref(),
        );
    }
    record.forget_created(&path);
    let (hooks_index, hooks) = tree.hooks.expect("an event was scanned, so hooks exists");
    if hooks.properties.len() > 1 {
        return layout::remove(&Container::object(hooks), event.index, None);
    }
    if !record.created(&[HOOKS]) {
        let inner = record.take_was_empty(&[HOOKS]);
        return layout::remove(&Container::object(hooks), event.index, inner.as_deref());
    }
    record.forget_created(&[HOOKS]);
    let inner = if tree.root.properties.len() == 1 {
        record.take_was_empty(&[])
    } else {
        None
    };
    layout::remove(&Container::object(tree.root), hooks_index, inner.as_deref())
}
