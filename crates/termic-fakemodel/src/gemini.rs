//! The Gemini API as Gemini CLI 0.61.0 uses it:
//! `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` for the turn
//! (SSE `data:` lines, each a whole `GenerateContentResponse`), and every
//! turn a flash-lite `:generateContent` router call whose JSON schema asks
//! for a `complexity_score` from 1 to 100 (a side request, answered with a
//! schema-typed object by `turn::fill_schema`).

use serde_json::{json, Value};

use crate::sse::{data, Frame};
use crate::turn::{summarize, tool_specs, Answer, Turn};

/// What a Gemini request asks for: a stream or one JSON answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeminiCall {
    Stream,
    Json,
}

impl GeminiCall {
    /// The call a request path names (`...:streamGenerateContent`,
    /// `...:generateContent`), if any.
    pub fn of(path: &str) -> Option<GeminiCall> {
        let method = path.rsplit_once(':')?.1;
        match method {
            "streamGenerateContent" => Some(GeminiCall::Stream),
            "generateContent" => Some(GeminiCall::Json),
            _ => None,
        }
    }
}

fn parts(content: &Value) -> &[Value] {
    content["parts"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn has_part(content: &Value, kind: &str) -> bool {
    parts(content).iter().any(|p| p.get(kind).is_some())
}

fn text_of(content: &Value) -> String {
    parts(content)
        .iter()
        .filter_map(|p| p["text"].as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The schema a request wants its answer to follow, if any.
pub fn response_schema(body: &Value) -> Option<&Value> {
    let config = &body["generationConfig"];
    ["responseJsonSchema", "responseSchema"]
        .iter()
        .map(|k| &config[*k])
        .find(|v| v.is_object())
}

/// Reads the turn out of a Gemini request. The prompt is the last `user`
/// content that carries text and no `functionResponse` (tool results come
/// back as user contents too).
pub fn analyze(body: &Value) -> Turn {
    let declarations: Vec<Value> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["functionDeclarations"].as_array())
        .flatten()
        .map(|d| {
            // 0.61.0 sends `parametersJsonSchema`; older builds `parameters`.
            let schema = d
                .get("parametersJsonSchema")
                .or_else(|| d.get("parameters"))
                .cloned()
                .unwrap_or(Value::Null);
            json!({"name": d["name"], "schema": schema})
        })
        .collect();
    let tools = tool_specs(&Value::Array(declarations), "/name", "/schema");
    let contents = body["contents"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let prompt_at = contents.iter().rposition(|c| {
        c["role"] == "user" && has_part(c, "text") && !has_part(c, "functionResponse")
    });
    let after = prompt_at.map_or(contents, |i| &contents[i + 1..]);
    let tool_calls_made = after
        .iter()
        .filter(|c| c["role"] == "model" && has_part(c, "functionCall"))
        .count();
    let tool_results = after
        .iter()
        .flat_map(parts)
        .filter_map(|p| p.get("functionResponse"))
        .map(|r| summarize(&r["response"].to_string()))
        .collect();
    let json_schema = response_schema(body).cloned().or_else(|| {
        (body["generationConfig"]["responseMimeType"] == "application/json").then(|| json!({}))
    });
    Turn {
        side: tools.is_empty() || json_schema.is_some(),
        forced_tool: None,
        tools,
        tool_calls_made,
        last_user: prompt_at
            .map(|i| summarize(&text_of(&contents[i])))
            .unwrap_or_default(),
        tool_results,
        json_schema,
        compaction: Default::default(),
    }
}

fn usage() -> Value {
    json!({"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15})
}

fn response(parts: Vec<Value>, finish: bool) -> Value {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    let mut out = json!({"modelVersion": "gemini-2.5-flash"});
    if finish {
        candidate["finishReason"] = json!("STOP");
        out["usageMetadata"] = usage();
    }
    out["candidates"] = json!([candidate]);
    out
}

fn call_part(answer: &Answer) -> Option<Value> {
    let call = answer.call.as_ref()?;
    Some(json!({"functionCall": {"name": call.name, "args": call.args}}))
}

/// The SSE frames of a streamed answer: one response per text chunk, the
/// function call, the last one finished with usage.
pub fn render_stream(answer: &Answer) -> Vec<Frame> {
    let mut frames: Vec<Frame> = answer
        .timed_chunks()
        .map(|(delay, text)| Frame {
            delay,
            bytes: data(&response(vec![json!({ "text": text })], false)),
        })
        .collect();
    let last = response(call_part(answer).into_iter().collect(), true);
    frames.push(Frame {
        delay: answer.tool_delay(),
        bytes: data(&last),
    });
    frames
}

/// One JSON answer (`:generateContent`): the whole text and the call.
pub fn render_json(answer: &Answer) -> Value {
    let mut parts = Vec::new();
    let text = answer.chunks.concat();
    if !text.is_empty() {
        parts.push(json!({ "text": text }));
    }
    parts.extend(call_part(answer));
    response(parts, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_names_the_call() {
        assert_eq!(
            GeminiCall::of("/v1beta/models/gemini-2.5-pro:streamGenerateContent"),
            Some(GeminiCall::Stream)
        );
        assert_eq!(
            GeminiCall::of("/v1beta/models/gemini-2.5-flash-lite:generateContent"),
            Some(GeminiCall::Json)
        );
        assert_eq!(GeminiCall::of("/v1beta/models/x:countTokens"), None);
        assert_eq!(GeminiCall::of("/v1/chat/completions"), None);
    }

    #[test]
    fn a_function_response_advances_the_step_and_the_prompt_stays() {
        let body = json!({
        "tools": [{"functionDeclarations": [{"name": "write_file",
            "parametersJsonSchema": {"properties": {"file_path": {}, "content": {}}}}]}],
        "contents": [
            {"role": "user", "parts": [{"text": "please write"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "write_file", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "write_file", "response": {"output": "ok"}}}]},
        ]});
        let turn = analyze(&body);
        assert_eq!(
            (turn.tool_calls_made, turn.last_user.as_str()),
            (1, "please write")
        );
        assert_eq!(turn.tools[0].name, "write_file");
        assert_eq!(turn.tool_results, vec![r#"{"output":"ok"}"#]);
        assert!(!turn.side);
    }

    #[test]
    fn the_router_call_is_a_side_request_answered_with_a_number() {
        let schema = json!({"type": "object", "properties": {
            "complexity_reasoning": {"type": "string"},
            "complexity_score": {"type": "integer", "minimum": 1, "maximum": 100}},
            "required": ["complexity_reasoning", "complexity_score"]});
        let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": schema}});
        let turn = analyze(&body);
        assert!(turn.side);
        let planned = crate::turn::plan(
            &crate::Scenario::new(crate::ScenarioName::Plain, "/p"),
            &turn,
        );
        let answer: Value = serde_json::from_str(&planned.chunks.concat()).unwrap();
        assert_eq!(answer["complexity_score"], 1);
        assert_eq!(answer["complexity_reasoning"], "Fake task");
    }

    #[test]
    fn a_call_is_streamed_last_with_finish_and_usage() {
        let answer = Answer::scripted(
            4,
            &["Sure"],
            0,
            Some(("write_file", json!({"file_path": "/p/o", "content": "x"}))),
        );
        let frames = render_stream(&answer);
        let values: Vec<Value> = frames
            .iter()
            .map(|f| {
                let text = String::from_utf8(f.bytes.clone()).unwrap();
                serde_json::from_str(text.strip_prefix("data: ").unwrap().trim_end()).unwrap()
            })
            .collect();
        assert_eq!(frames[0].delay, std::time::Duration::from_millis(4));
        assert_eq!(
            values[0]["candidates"][0]["content"]["parts"][0]["text"],
            "Sure"
        );
        let last = &values[1]["candidates"][0];
        assert_eq!(
            last["content"]["parts"][0]["functionCall"]["args"]["file_path"],
            "/p/o"
        );
        assert_eq!(last["finishReason"], "STOP");
        assert!(values[1]["usageMetadata"].is_object());
    }

    #[test]
    fn json_answers_hold_the_whole_text() {
        let answer = Answer::scripted(0, &["Hel", "lo"], 0, None);
        let value = render_json(&answer);
        assert_eq!(
            value["candidates"][0]["content"]["parts"],
            json!([{"text": "Hello"}])
        );
    }
}
