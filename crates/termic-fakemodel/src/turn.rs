//! What a request says about the conversation (which tools were offered,
//! how far the turn got, what the user and the tools said), in one shape for
//! all three APIs, and the mapping of an intended tool call onto the tools
//! the agent really offered.

use serde_json::{json, Map, Value};

use std::time::Duration;

use crate::scenario::{self, Action, Reply, Scenario};

/// A tool the agent offered: its name and its JSON schema.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub schema: Value,
}

/// The facts of one request that decide the answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Turn {
    pub tools: Vec<ToolSpec>,
    /// Tool calls the model made since the user's last prompt.
    pub tool_calls_made: usize,
    /// The user's last prompt, summarised.
    pub last_user: String,
    /// Tool results since that prompt, summarised.
    pub tool_results: Vec<String>,
    /// A side request (a session title, no tools): answered with a title.
    pub side: bool,
    /// The JSON schema the answer must follow, when the request set one.
    pub json_schema: Option<Value>,
    /// A tool the request forces the model to call (`tool_choice`); grok
    /// asks for its session title this way.
    pub forced_tool: Option<String>,
    /// Whether it asks for a compaction's summary, or carries one.
    pub compaction: scenario::Compaction,
}

/// A concrete tool call for the wire.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub name: String,
    pub args: Value,
}

/// The tools a request offered: for each entry of `tools`, the name and the
/// schema found at the JSON pointers the API uses (entries with no name are
/// skipped).
pub fn tool_specs(tools: &Value, name_at: &str, schema_at: &str) -> Vec<ToolSpec> {
    tools
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            Some(ToolSpec {
                name: t.pointer(name_at)?.as_str()?.to_string(),
                schema: t.pointer(schema_at).cloned().unwrap_or(Value::Null),
            })
        })
        .collect()
}

/// A request's `messages` split at the user's last prompt.
pub struct PromptSplit<'a> {
    /// The prompt, summarised (empty when there is none).
    pub prompt: String,
    /// The messages after the prompt (all of them when there is none).
    pub after: &'a [Value],
}

/// Splits `messages` at the last message `is_prompt` accepts.
pub fn split_at_prompt(body: &Value, is_prompt: impl Fn(&Value) -> bool) -> PromptSplit<'_> {
    let messages = body["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let prompt_at = messages.iter().rposition(is_prompt);
    PromptSplit {
        prompt: prompt_at
            .map(|i| summarize(&content_text(&messages[i]["content"])))
            .unwrap_or_default(),
        after: prompt_at.map_or(messages, |i| &messages[i + 1..]),
    }
}

const SUMMARY_CHARS: usize = 200;

/// Whitespace collapsed, cut to a readable length.
pub fn summarize(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= SUMMARY_CHARS {
        return flat;
    }
    let cut: String = flat.chars().take(SUMMARY_CHARS).collect();
    format!("{cut}...")
}

/// Text of a content value that is either a string or a list of parts with a
/// `text` field. Parts that are injected context (`<system-reminder>` and
/// similar) are left out when anything else is there.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            let own: Vec<&str> = texts
                .iter()
                .copied()
                .filter(|t| !t.trim_start().starts_with("<system-reminder>"))
                .collect();
            if own.is_empty() {
                texts.join(" ")
            } else {
                own.join(" ")
            }
        }
        _ => String::new(),
    }
}

fn find_tool<'a>(tools: &'a [ToolSpec], names: &[&str]) -> Option<&'a ToolSpec> {
    names
        .iter()
        .find_map(|n| tools.iter().find(|t| t.name == *n))
}

fn properties(schema: &Value) -> Vec<&str> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// The schema's property for a file path (`file_path`, `filePath`, ...).
fn path_key(schema: &Value) -> String {
    let props = properties(schema);
    ["file_path", "filePath", "path"]
        .iter()
        .find(|k| props.contains(k))
        .map(|k| k.to_string())
        .or_else(|| {
            props
                .iter()
                .find(|p| p.to_lowercase().contains("path"))
                .map(|p| p.to_string())
        })
        .unwrap_or_else(|| "file_path".to_string())
}

fn content_key(schema: &Value) -> String {
    let props = properties(schema);
    props
        .iter()
        .find(|p| {
            let p = p.to_lowercase();
            p.contains("content") || p == "file_text"
        })
        .map(|p| p.to_string())
        .unwrap_or_else(|| "content".to_string())
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Maps an intended action onto one of the offered tools. `None` when the
/// agent offered nothing that fits (the caller answers with text instead).
pub fn resolve(action: &Action, tools: &[ToolSpec]) -> Option<ToolCall> {
    let call = |tool: &ToolSpec, args: Map<String, Value>| ToolCall {
        name: tool.name.clone(),
        args: Value::Object(args),
    };
    let exec = find_tool(tools, &["exec_command"]);
    match action {
        Action::Write { path, content } => {
            // `create` is Copilot's (`path`, `file_text`).
            if let Some(tool) = find_tool(tools, &["Write", "write", "write_file", "create"]) {
                let mut args = Map::new();
                args.insert(path_key(&tool.schema), json!(path));
                args.insert(content_key(&tool.schema), json!(content));
                return Some(call(tool, args));
            }
            // Codex: an escalated command is what raises its approval prompt.
            let tool = exec?;
            let cmd = format!(
                "printf %s {} > {}",
                shell_quote(content),
                shell_quote(&path.to_string_lossy())
            );
            let args = json!({
                "cmd": cmd,
                "sandbox_permissions": "require_escalated",
                "justification": "The fake model wants to create a file.",
            });
            Some(ToolCall {
                name: tool.name.clone(),
                args,
            })
        }
        Action::Read { path } => {
            if let Some(tool) = find_tool(tools, &["Read", "read", "read_file", "view"]) {
                let mut args = Map::new();
                args.insert(path_key(&tool.schema), json!(path));
                return Some(call(tool, args));
            }
            let tool = exec?;
            let cmd = format!("cat {}", shell_quote(&path.to_string_lossy()));
            Some(ToolCall {
                name: tool.name.clone(),
                args: json!({ "cmd": cmd }),
            })
        }
        Action::Plan { plan } => {
            // Claude 2.1.332 defers ExitPlanMode behind ToolSearch: it is not
            // in the tools list, but a call by name still works.
            let deferred = tools.iter().any(|t| t.name == "ToolSearch");
            if find_tool(tools, &["ExitPlanMode"]).is_none() && !deferred {
                return None;
            }
            Some(ToolCall {
                name: "ExitPlanMode".to_string(),
                args: json!({ "plan": plan }),
            })
        }
        Action::AskMany { questions } => {
            let tool = find_tool(tools, &["AskUserQuestion"])?;
            let questions: Vec<Value> = questions
                .iter()
                .map(|(question, header, options)| {
                    let options: Vec<Value> = options
                        .iter()
                        .map(|o| json!({"label": o, "description": format!("Pick {o}.")}))
                        .collect();
                    json!({"question": question, "header": header, "options": options,
                           "multiSelect": false})
                })
                .collect();
            Some(ToolCall {
                name: tool.name.clone(),
                args: json!({ "questions": questions }),
            })
        }
        Action::Subagent { prompt } => {
            let tool = find_tool(tools, &["Agent", "Task"])?;
            let args = json!({
                "description": "Count slowly",
                "prompt": prompt,
                "subagent_type": "general-purpose",
            });
            Some(call(tool, args.as_object().cloned().unwrap_or_default()))
        }
        Action::Shell {
            command,
            background,
        } => {
            let tool = find_tool(tools, &["Bash"])?;
            let mut args = json!({
                "command": command,
                "description": "Run the job",
            });
            if *background {
                args["run_in_background"] = json!(true);
            }
            Some(call(tool, args.as_object().cloned().unwrap_or_default()))
        }
        Action::Ask {
            question,
            header,
            options,
            multi_select,
        } => {
            let tool = find_tool(tools, &["AskUserQuestion"])?;
            let options: Vec<Value> = options
                .iter()
                .map(|o| json!({"label": o, "description": format!("Pick {o}.")}))
                .collect();
            let args = json!({"questions": [{
                "question": question, "header": header, "options": options,
                "multiSelect": multi_select,
            }]});
            Some(ToolCall {
                name: tool.name.clone(),
                args,
            })
        }
    }
}

/// An answer that satisfies a JSON schema (the title requests agents make,
/// Gemini CLI's router call), as JSON text.
pub fn answer_for_schema(schema: &Value) -> String {
    fill_schema(schema).to_string()
}

/// A value that satisfies `schema`'s types: objects get every property,
/// numbers the minimum (or 10), enums their first value, strings a title.
/// Gemini CLI's router reads its `complexity_score` as a number.
pub fn fill_schema(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    let kind = match &schema["type"] {
        Value::Array(kinds) => kinds.first().and_then(Value::as_str).unwrap_or(""),
        other => other.as_str().unwrap_or(""),
    }
    .to_ascii_lowercase();
    if kind == "object" || schema.get("properties").is_some() {
        let mut obj = Map::new();
        for (key, sub) in schema["properties"].as_object().into_iter().flatten() {
            obj.insert(key.clone(), fill_schema(sub));
        }
        return Value::Object(obj);
    }
    match kind.as_str() {
        "array" => json!([]),
        "integer" | "number" => schema.get("minimum").cloned().unwrap_or(json!(10)),
        "boolean" => json!(false),
        _ => json!("Fake task"),
    }
}

/// The tool a `tool_choice` forces: `{"type": "function", "name": X}`
/// (Responses) or `{"type": "function", "function": {"name": X}}` (chat).
pub fn forced_tool(body: &Value) -> Option<String> {
    let choice = &body["tool_choice"];
    if choice["type"] != "function" {
        return None;
    }
    choice["name"]
        .as_str()
        .or_else(|| choice["function"]["name"].as_str())
        .map(str::to_string)
}

/// The text a side request (a title) gets.
pub fn side_answer(turn: &Turn) -> String {
    match &turn.json_schema {
        Some(schema) => answer_for_schema(schema),
        None => "Fake task".to_string(),
    }
}

/// What to stream back: text, or text then one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Wait before the first content byte.
    pub lead: Duration,
    pub chunks: Vec<String>,
    /// Wait before each text chunk after the first.
    pub interval: Duration,
    pub call: Option<ToolCall>,
    /// Context in use the reply reports (`usage.input_tokens`).
    pub input_tokens: u64,
}

#[cfg(test)]
impl Answer {
    /// Test helper: `chunks` streamed `interval_ms` apart after `lead_ms`,
    /// then the tool call (name, arguments) when there is one.
    pub(crate) fn scripted(
        lead_ms: u64,
        chunks: &[&str],
        interval_ms: u64,
        call: Option<(&str, Value)>,
    ) -> Answer {
        Answer {
            lead: Duration::from_millis(lead_ms),
            chunks: chunks.iter().map(|c| c.to_string()).collect(),
            interval: Duration::from_millis(interval_ms),
            call: call.map(|(name, args)| ToolCall {
                name: name.to_string(),
                args,
            }),
            input_tokens: scenario::INPUT_TOKENS,
        }
    }
}

impl Answer {
    fn text(text: &str) -> Answer {
        Answer {
            lead: Duration::ZERO,
            chunks: scenario::split_chunks(text, 3),
            interval: Duration::ZERO,
            call: None,
            input_tokens: scenario::INPUT_TOKENS,
        }
    }

    /// Each text chunk with the wait before it.
    pub fn timed_chunks(&self) -> impl Iterator<Item = (Duration, &str)> {
        self.chunks
            .iter()
            .enumerate()
            .map(|(i, c)| (if i == 0 { self.lead } else { self.interval }, c.as_str()))
    }

    /// The wait before the tool call: the lead, unless text came first.
    pub fn tool_delay(&self) -> Duration {
        if self.chunks.is_empty() {
            self.lead
        } else {
            Duration::ZERO
        }
    }

    /// One line for the request log.
    pub fn summary(&self) -> String {
        match &self.call {
            Some(call) => format!("tool {} {}", call.name, summarize(&call.args.to_string())),
            None => format!("text {}", summarize(&self.chunks.concat())),
        }
    }
}

/// Told to the agent when it offered no tool that fits the scenario's step.
pub const NO_TOOL_ANSWER: &str = "The fake model found no tool for this step.";

/// The answer to one request under `scenario`.
pub fn plan(scenario: &Scenario, turn: &Turn) -> Answer {
    if let Some(forced) = &turn.forced_tool {
        if let Some(tool) = turn.tools.iter().find(|t| &t.name == forced) {
            let args: Value = serde_json::from_str(&answer_for_schema(&tool.schema))
                .unwrap_or_else(|_| json!({}));
            let call = ToolCall {
                name: tool.name.clone(),
                args,
            };
            return Answer {
                lead: Duration::ZERO,
                chunks: Vec::new(),
                interval: Duration::ZERO,
                call: Some(call),
                input_tokens: scenario::INPUT_TOKENS,
            };
        }
    }
    if turn.side {
        return Answer::text(&side_answer(turn));
    }
    let input_tokens = scenario::input_tokens(scenario, &turn.last_user);
    match scenario::reply_to(
        scenario,
        turn.tool_calls_made,
        &turn.last_user,
        turn.compaction,
    ) {
        Reply::Text {
            lead,
            chunks,
            interval,
        } => Answer {
            lead,
            chunks,
            interval,
            call: None,
            input_tokens,
        },
        Reply::Tool {
            lead,
            preface,
            action,
        } => match resolve(&action, &turn.tools) {
            Some(call) => Answer {
                lead,
                chunks: preface.into_iter().collect(),
                interval: Duration::ZERO,
                call: Some(call),
                input_tokens,
            },
            None => Answer::text(NO_TOOL_ANSWER),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn tool(name: &str, props: &[&str]) -> ToolSpec {
        let properties: Map<String, Value> = props
            .iter()
            .map(|p| (p.to_string(), json!({"type": "string"})))
            .collect();
        ToolSpec {
            name: name.to_string(),
            schema: json!({"type": "object", "properties": properties}),
        }
    }

    fn write() -> Action {
        Action::Write {
            path: PathBuf::from("/p/out.txt"),
            content: "hi".to_string(),
        }
    }

    /// Both APIs that send `messages` (Anthropic and chat completions) read
    /// a request without tools (a title or summary) as a side request.
    #[test]
    fn a_messages_request_without_tools_is_a_side_request() {
        let body = json!({"messages": [{"role": "user", "content": "title?"}]});
        assert!(crate::anthropic::analyze(&body).side);
        assert!(crate::chat::analyze(&body).side);
    }

    #[test]
    fn write_uses_the_agents_own_argument_names() {
        let claude = resolve(&write(), &[tool("Write", &["file_path", "content"])]).unwrap();
        assert_eq!(
            claude.args,
            json!({"file_path": "/p/out.txt", "content": "hi"})
        );
        let opencode = resolve(
            &write(),
            &[
                tool("read", &["filePath"]),
                tool("write", &["content", "filePath"]),
            ],
        )
        .unwrap();
        assert_eq!(opencode.name, "write");
        assert_eq!(
            opencode.args,
            json!({"filePath": "/p/out.txt", "content": "hi"})
        );
    }

    #[test]
    fn write_falls_back_to_an_escalated_command_for_codex() {
        let call = resolve(
            &write(),
            &[tool("exec_command", &["cmd", "sandbox_permissions"])],
        )
        .unwrap();
        assert_eq!(call.name, "exec_command");
        assert_eq!(call.args["sandbox_permissions"], "require_escalated");
        assert_eq!(call.args["cmd"], "printf %s 'hi' > '/p/out.txt'");
    }

    #[test]
    fn an_action_without_a_fitting_tool_resolves_to_nothing() {
        let ask = Action::Ask {
            question: "q".into(),
            header: "h".into(),
            options: vec!["a".into()],
            multi_select: false,
        };
        assert_eq!(resolve(&ask, &[tool("write", &["filePath"])]), None);
        assert_eq!(resolve(&write(), &[]), None);
    }

    #[test]
    fn plan_approval_is_called_by_name_when_claude_defers_it() {
        let plan = Action::Plan {
            plan: "1. x".into(),
        };
        let call = resolve(&plan, &[tool("ToolSearch", &["query"])]).unwrap();
        assert_eq!(
            (call.name.as_str(), &call.args),
            ("ExitPlanMode", &json!({"plan": "1. x"}))
        );
        assert_eq!(resolve(&plan, &[tool("write", &["filePath"])]), None);
    }

    #[test]
    fn ask_builds_claudes_question_shape() {
        let ask = Action::Ask {
            question: "Which?".into(),
            header: "H".into(),
            options: vec!["Red".into(), "Blue".into()],
            multi_select: false,
        };
        let call = resolve(&ask, &[tool("AskUserQuestion", &["questions"])]).unwrap();
        assert_eq!(call.args["questions"][0]["options"][1]["label"], "Blue");
        assert_eq!(call.args["questions"][0]["multiSelect"], false);
    }

    #[test]
    fn content_text_skips_injected_reminders() {
        let content = json!([{"type": "text", "text": "<system-reminder>x</system-reminder>"}, {"type": "text", "text": "make a file"}]);
        assert_eq!(content_text(&content), "make a file");
        assert_eq!(content_text(&json!("plain")), "plain");
    }

    #[test]
    fn summaries_are_flat_and_bounded() {
        assert_eq!(summarize("a\n  b"), "a b");
        let long = "x".repeat(500);
        assert_eq!(summarize(&long).chars().count(), SUMMARY_CHARS + 3);
    }

    #[test]
    fn plan_steps_through_the_scenario_and_answers_side_requests_with_a_title() {
        let s = Scenario::new(crate::ScenarioName::Write, "/p/out.txt");
        let tools = vec![tool("Write", &["file_path", "content"])];
        let first = plan(
            &s,
            &Turn {
                tools: tools.clone(),
                ..Turn::default()
            },
        );
        assert_eq!(first.call.unwrap().name, "Write");
        let after = plan(
            &s,
            &Turn {
                tools: tools.clone(),
                tool_calls_made: 1,
                ..Turn::default()
            },
        );
        assert_eq!(
            (after.call, after.chunks.concat()),
            (None, scenario::AFTER_TOOL_ANSWER.to_string())
        );
        let side = plan(
            &s,
            &Turn {
                side: true,
                ..Turn::default()
            },
        );
        assert_eq!(side.chunks.concat(), "Fake task");
        let title_tool = ToolSpec {
            name: "session_title".into(),
            schema: json!({"properties": {"session_title": {"type": "string"}}}),
        };
        let forced = plan(
            &s,
            &Turn {
                side: true,
                tools: vec![title_tool],
                forced_tool: Some("session_title".into()),
                ..Turn::default()
            },
        );
        assert_eq!(
            forced.call.unwrap().args,
            json!({"session_title": "Fake task"})
        );
        let no_tool = plan(&s, &Turn::default());
        assert_eq!(no_tool.chunks.concat(), NO_TOOL_ANSWER);
    }

    #[test]
    fn schema_answers_fill_every_property() {
        let schema = json!({"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]});
        assert_eq!(answer_for_schema(&schema), r#"{"title":"Fake task"}"#);
    }

    #[test]
    fn schema_answers_follow_the_types() {
        let schema = json!({"type": "OBJECT", "properties": {
            "next_speaker": {"type": "string", "enum": ["user", "model"]},
            "score": {"type": "integer", "minimum": 1},
            "n": {"type": ["number", "null"]}, "ok": {"type": "boolean"}, "xs": {"type": "array"}}});
        assert_eq!(
            fill_schema(&schema),
            json!({"next_speaker": "user", "score": 1, "n": 10, "ok": false, "xs": []})
        );
    }

    #[test]
    fn write_uses_copilots_create_tool() {
        let call = resolve(
            &write(),
            &[
                tool("view", &["path"]),
                tool("create", &["path", "file_text"]),
            ],
        )
        .unwrap();
        assert_eq!(call.name, "create");
        assert_eq!(call.args, json!({"path": "/p/out.txt", "file_text": "hi"}));
    }
}
