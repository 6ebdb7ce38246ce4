//! OpenAI chat completions as opencode and grok use them:
//! `POST /v1/chat/completions` with `stream: true`, answered with
//! `chat.completion.chunk` data lines and `data: [DONE]`; plus the model list
//! grok asks for.

use serde_json::{json, Value};

use crate::sse::{data, done_marker, Frame};
use crate::turn::{
    content_text, forced_tool, split_at_prompt, summarize, tool_specs, Answer, Turn,
};

/// Reads the turn out of a chat-completions request.
pub fn analyze(body: &Value) -> Turn {
    let tools = tool_specs(&body["tools"], "/function/name", "/function/parameters");
    let split = split_at_prompt(body, |m| m["role"] == "user");
    let tool_calls_made = split
        .after
        .iter()
        .filter(|m| {
            m["role"] == "assistant" && m["tool_calls"].as_array().is_some_and(|c| !c.is_empty())
        })
        .count();
    let tool_results = split
        .after
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| summarize(&content_text(&m["content"])))
        .collect();
    let json_schema = (body["response_format"]["type"] == "json_schema")
        .then(|| body["response_format"]["json_schema"]["schema"].clone());
    let forced_tool = forced_tool(body);
    Turn {
        side: tools.is_empty() || forced_tool.is_some(),
        forced_tool,
        tools,
        tool_calls_made,
        last_user: split.prompt,
        tool_results,
        json_schema,
        compaction: Default::default(),
    }
}

fn chunk(id: u64, model: &str, delta: Value, finish: Option<&str>) -> Vec<u8> {
    data(&json!({
        "id": format!("chatcmpl-fake{id}"), "object": "chat.completion.chunk", "created": 0, "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }))
}

/// The SSE frames for an answer.
pub fn render(answer: &Answer, model: &str, id: u64) -> Vec<Frame> {
    let mut frames = vec![Frame::now(chunk(
        id,
        model,
        json!({"role": "assistant", "content": ""}),
        None,
    ))];
    for (delay, text) in answer.timed_chunks() {
        frames.push(Frame {
            delay,
            bytes: chunk(id, model, json!({"content": text}), None),
        });
    }
    if let Some(call) = &answer.call {
        let start = json!({"tool_calls": [{"index": 0, "id": format!("call_fake{id}"), "type": "function",
            "function": {"name": call.name, "arguments": ""}}]});
        frames.push(Frame {
            delay: answer.tool_delay(),
            bytes: chunk(id, model, start, None),
        });
        let args = call.args.to_string();
        let (a, b) = args.split_at(args.len() / 2);
        for part in [a, b] {
            let delta = json!({"tool_calls": [{"index": 0, "function": {"arguments": part}}]});
            frames.push(Frame::now(chunk(id, model, delta, None)));
        }
    }
    let finish = if answer.call.is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    frames.push(Frame::now(chunk(id, model, json!({}), Some(finish))));
    frames.push(Frame::now(data(&json!({
        "id": format!("chatcmpl-fake{id}"), "object": "chat.completion.chunk", "created": 0, "model": model,
        "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }))));
    frames.push(Frame::now(done_marker()));
    frames
}

/// `GET /v1/models`: an OpenAI model list (grok needs `grok-build` in it).
pub fn model_list(ids: &[String]) -> Value {
    let data: Vec<Value> = ids
        .iter()
        .map(
            |id| json!({"id": id, "object": "model", "created": 0, "owned_by": "termic-fakemodel"}),
        )
        .collect();
    json!({"object": "list", "data": data})
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn payloads(frames: &[Frame]) -> Vec<String> {
        frames
            .iter()
            .map(|f| {
                String::from_utf8(f.bytes.clone())
                    .unwrap()
                    .strip_prefix("data: ")
                    .unwrap()
                    .trim_end()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn tool_messages_after_the_prompt_advance_the_step() {
        let body = json!({"tools": [{"type": "function", "function": {"name": "write", "parameters": {}}}], "messages": [
            {"role": "system", "content": "s"},
            {"role": "user", "content": [{"type": "text", "text": "<user_query>make it</user_query>"}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "write", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "Wrote file"},
        ]});
        let turn = analyze(&body);
        assert_eq!(turn.tool_calls_made, 1);
        assert_eq!(turn.tool_results, vec!["Wrote file"]);
        assert_eq!(turn.last_user, "<user_query>make it</user_query>");
        assert_eq!(turn.tools[0].name, "write");
    }

    #[test]
    fn a_tool_call_streams_its_arguments_and_finishes_with_tool_calls() {
        let answer = Answer::scripted(
            3,
            &[],
            0,
            Some(("write", json!({"filePath": "/p/o", "content": "x"}))),
        );
        let frames = render(&answer, "m", 9);
        assert_eq!(frames[1].delay, Duration::from_millis(3));
        let texts = payloads(&frames);
        assert_eq!(texts.last().unwrap(), "[DONE]");
        let values: Vec<Value> = texts[..texts.len() - 1]
            .iter()
            .map(|t| serde_json::from_str(t).unwrap())
            .collect();
        assert_eq!(
            values[1]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"],
            "write"
        );
        let args: String = values[2..4]
            .iter()
            .map(|v| {
                v["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
                    .as_str()
                    .unwrap()
            })
            .collect();
        assert_eq!(
            serde_json::from_str::<Value>(&args).unwrap()["filePath"],
            "/p/o"
        );
        assert_eq!(values[4]["choices"][0]["finish_reason"], "tool_calls");
    }

    #[test]
    fn text_finishes_with_stop() {
        let answer = Answer::scripted(0, &["a", "b"], 0, None);
        let texts = payloads(&render(&answer, "m", 1));
        let finish: Value = serde_json::from_str(&texts[3]).unwrap();
        assert_eq!(finish["choices"][0]["finish_reason"], "stop");
    }

    #[test]
    fn the_model_list_names_every_id() {
        let list = model_list(&["grok-build".to_string(), "fake".to_string()]);
        assert_eq!(list["data"][0]["id"], "grok-build");
        assert_eq!(list["data"].as_array().unwrap().len(), 2);
    }
}
