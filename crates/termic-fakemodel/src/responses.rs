//! The OpenAI Responses API as codex (every turn, and its title side
//! request) and grok (its title request) use it: `POST /v1/responses`,
//! answered with named events that each carry a `sequence_number`.

use serde_json::{json, Value};

use crate::sse::{named, Frame};
use crate::turn::{content_text, forced_tool, summarize, Answer, ToolSpec, Turn};

/// Reads the turn out of a Responses request.
pub fn analyze(body: &Value) -> Turn {
    let mut tools = Vec::new();
    collect_tools(&body["tools"], &mut tools);
    // Codex 0.171 in "code mode" sends no top-level tools: they arrive in an
    // `additional_tools` input item, nested in namespaces, and exec_command
    // is reachable only inside the `exec` JS tool. A plain function_call to
    // exec_command is still honoured (measured), so offer it.
    for item in body["input"].as_array().into_iter().flatten() {
        if item["type"] == "additional_tools" {
            collect_tools(&item["tools"], &mut tools);
            if item["tools"].to_string().contains("exec_command")
                && !tools.iter().any(|t| t.name == "exec_command")
            {
                tools.push(ToolSpec {
                    name: "exec_command".to_string(),
                    schema: Value::Null,
                });
            }
        }
    }
    let json_schema = (body["text"]["format"]["type"] == "json_schema")
        .then(|| body["text"]["format"]["schema"].clone());
    let (items, single_prompt) = match &body["input"] {
        Value::Array(items) => (items.as_slice(), None),
        Value::String(s) => (&[][..], Some(s.clone())),
        _ => (&[][..], None),
    };
    let prompt_at = items.iter().rposition(|i| i["role"] == "user");
    let after = prompt_at.map_or(items, |i| &items[i + 1..]);
    let tool_calls_made = after
        .iter()
        .filter(|i| i["type"] == "function_call")
        .count();
    let tool_results = after
        .iter()
        .filter(|i| i["type"] == "function_call_output")
        .map(|i| {
            summarize(
                i["output"]
                    .as_str()
                    .map_or_else(|| content_text(&i["output"]), str::to_string)
                    .as_str(),
            )
        })
        .collect();
    let last_user = single_prompt
        .or_else(|| prompt_at.map(|i| content_text(&items[i]["content"])))
        .map(|t| summarize(&t))
        .unwrap_or_default();
    let forced_tool = forced_tool(body);
    Turn {
        side: tools.is_empty() || json_schema.is_some() || forced_tool.is_some(),
        forced_tool,
        tools,
        tool_calls_made,
        last_user,
        tool_results,
        json_schema,
        compaction: Default::default(),
    }
}

/// Function tools in a tools list, namespaces flattened.
fn collect_tools(list: &Value, out: &mut Vec<ToolSpec>) {
    for tool in list.as_array().into_iter().flatten() {
        if tool["type"] == "namespace" {
            collect_tools(&tool["tools"], out);
        } else if let Some(name) = tool["name"].as_str() {
            out.push(ToolSpec {
                name: name.to_string(),
                schema: tool["parameters"].clone(),
            });
        }
    }
}

/// Numbers every event in order, as the API does.
struct Events {
    frames: Vec<Frame>,
    next: u64,
}

impl Events {
    fn push(&mut self, delay: std::time::Duration, mut event: Value) {
        event["sequence_number"] = json!(self.next);
        self.next += 1;
        let name = event["type"].as_str().unwrap_or_default().to_string();
        self.frames.push(Frame {
            delay,
            bytes: named(&name, &event),
        });
    }
}

/// The SSE frames for an answer.
pub fn render(answer: &Answer, model: &str, id: u64) -> Vec<Frame> {
    let response_id = format!("resp_fake{id}");
    let response = |status: &str, output: Vec<Value>| json!({"id": response_id, "object": "response", "created_at": 0, "status": status, "model": model, "output": output});
    let mut ev = Events {
        frames: Vec::new(),
        next: 0,
    };
    let zero = std::time::Duration::ZERO;
    ev.push(
        zero,
        json!({"type": "response.created", "response": response("in_progress", vec![])}),
    );
    ev.push(
        zero,
        json!({"type": "response.in_progress", "response": response("in_progress", vec![])}),
    );
    let mut output = Vec::new();
    if !answer.chunks.is_empty() {
        let item_id = format!("msg_fake{id}");
        let index = output.len();
        ev.push(zero, json!({"type": "response.output_item.added", "output_index": index, "item": {
            "id": item_id, "type": "message", "role": "assistant", "status": "in_progress", "content": []}}));
        ev.push(
            zero,
            json!({"type": "response.content_part.added", "item_id": item_id, "output_index": index,
            "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
        );
        for (delay, text) in answer.timed_chunks() {
            ev.push(delay, json!({"type": "response.output_text.delta", "item_id": item_id, "output_index": index,
                "content_index": 0, "delta": text}));
        }
        let text = answer.chunks.concat();
        let part = json!({"type": "output_text", "text": text, "annotations": []});
        ev.push(
            zero,
            json!({"type": "response.output_text.done", "item_id": item_id, "output_index": index,
            "content_index": 0, "text": text}),
        );
        ev.push(
            zero,
            json!({"type": "response.content_part.done", "item_id": item_id, "output_index": index,
            "content_index": 0, "part": part}),
        );
        let item = json!({"id": item_id, "type": "message", "role": "assistant", "status": "completed", "content": [part]});
        ev.push(
            zero,
            json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        );
        output.push(item);
    }
    if let Some(call) = &answer.call {
        let item_id = format!("fc_fake{id}");
        let call_id = format!("call_fake{id}");
        let index = output.len();
        let args = call.args.to_string();
        ev.push(answer.tool_delay(), json!({"type": "response.output_item.added", "output_index": index, "item": {
            "id": item_id, "type": "function_call", "status": "in_progress", "call_id": call_id, "name": call.name, "arguments": ""}}));
        ev.push(zero, json!({"type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": index, "delta": args}));
        ev.push(zero, json!({"type": "response.function_call_arguments.done", "item_id": item_id, "output_index": index, "arguments": args}));
        let item = json!({"id": item_id, "type": "function_call", "status": "completed", "call_id": call_id, "name": call.name, "arguments": args});
        ev.push(
            zero,
            json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        );
        output.push(item);
    }
    let mut done = response("completed", output);
    done["usage"] = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 20});
    ev.push(
        zero,
        json!({"type": "response.completed", "response": done}),
    );
    ev.frames
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_call_output_after_the_prompt_advances_the_step() {
        let body = json!({"tools": [{"type": "function", "name": "exec_command", "parameters": {}}], "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "make a file"}]},
            {"type": "function_call", "call_id": "c", "name": "exec_command", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c", "output": "ok"},
        ]});
        let turn = analyze(&body);
        assert_eq!(
            (turn.tool_calls_made, turn.last_user.as_str(), turn.side),
            (1, "make a file", false)
        );
        assert_eq!(turn.tool_results, vec!["ok"]);
    }

    #[test]
    fn a_json_schema_request_is_a_side_request_answered_to_the_schema() {
        let body = json!({"tools": [{"type": "function", "name": "x"}], "input": "name this thread",
            "text": {"format": {"type": "json_schema", "name": "t", "schema": {"type": "object", "properties": {"title": {}}}}}});
        let turn = analyze(&body);
        assert!(turn.side);
        assert_eq!(turn.last_user, "name this thread");
        assert_eq!(crate::turn::side_answer(&turn), r#"{"title":"Fake task"}"#);
    }

    #[test]
    fn codex_code_mode_tools_in_an_input_item_count_and_offer_exec_command() {
        let body = json!({"input": [
            {"type": "additional_tools", "tools": [{"type": "namespace", "name": "functions", "tools": [
                {"type": "custom", "name": "exec", "description": "await tools.exec_command(...)"},
                {"type": "function", "name": "wait", "parameters": {}}]}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "make a file"}]},
        ]});
        let turn = analyze(&body);
        assert!(!turn.side);
        let names: Vec<&str> = turn.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["exec", "wait", "exec_command"]);
    }

    #[test]
    fn grok_title_request_forces_its_title_tool() {
        let body = json!({"tools": [{"type": "function", "name": "session_title", "parameters": {"properties": {"session_title": {}}}}],
            "tool_choice": {"type": "function", "name": "session_title"},
            "input": [{"type": "message", "role": "user", "content": "<user_query>\ncount\n</user_query>"}]});
        let turn = analyze(&body);
        assert!(turn.side);
        assert_eq!(turn.forced_tool.as_deref(), Some("session_title"));
    }

    #[test]
    fn every_event_has_an_increasing_sequence_number_and_a_matching_name() {
        let answer = Answer::scripted(0, &["Hi"], 0, Some(("exec_command", json!({"cmd": "ls"}))));
        let frames = render(&answer, "m", 2);
        let evs = crate::sse::named_event_data(&frames);
        for (i, (ev, frame)) in evs.iter().zip(&frames).enumerate() {
            assert_eq!(ev["sequence_number"], i as u64);
            let head = format!("event: {}\n", ev["type"].as_str().unwrap());
            assert!(frame.bytes.starts_with(head.as_bytes()));
        }
        let done = evs.last().unwrap();
        assert_eq!(done["type"], "response.completed");
        assert_eq!(done["response"]["output"][1]["name"], "exec_command");
        assert_eq!(done["response"]["output"][0]["content"][0]["text"], "Hi");
    }
}
