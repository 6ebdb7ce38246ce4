//! The server over real sockets: routing, streaming, stepping and the log.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{json, Value};
use termic_fakemodel::{FakeModel, Scenario, ScenarioName, ServerConfig};

fn server(name: ScenarioName, log: Option<std::path::PathBuf>) -> FakeModel {
    let mut config = ServerConfig::new(Scenario::new(name, "/proj/out.txt"));
    config.log_path = log;
    FakeModel::start(config).unwrap()
}

fn send(server: &FakeModel, method: &str, path: &str, body: &Value) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    let body = body.to_string();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

fn data_lines(response: &str) -> Vec<Value> {
    response
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|d| *d != "[DONE]")
        .map(|d| serde_json::from_str(d).unwrap())
        .collect()
}

#[test]
fn claude_write_scenario_asks_for_the_tool_then_ends_the_turn_after_the_result() {
    let dir = std::env::temp_dir().join(format!("fakemodel-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("requests.jsonl");
    let _ = std::fs::remove_file(&log);
    let server = server(ScenarioName::Write, Some(log.clone()));
    let tools = json!([{"name": "Write", "input_schema": {"properties": {"file_path": {}, "content": {}}}}]);
    let prompt = json!({"role": "user", "content": "make out.txt"});
    let first = send(
        &server,
        "POST",
        "/v1/messages?beta=true",
        &json!({"stream": true, "tools": tools, "messages": [prompt]}),
    );
    assert!(first.starts_with("HTTP/1.1 200 OK\r\n"));
    assert!(first.contains("Content-Type: text/event-stream"));
    let events = data_lines(&first);
    let tool = events
        .iter()
        .find(|e| e["content_block"]["type"] == "tool_use")
        .expect("a tool_use block");
    assert_eq!(tool["content_block"]["name"], "Write");
    let second = send(
        &server,
        "POST",
        "/v1/messages?beta=true",
        &json!({"stream": true, "tools": tools, "messages": [
            prompt,
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Write", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "File created successfully"}]},
        ]}),
    );
    let stop = data_lines(&second)
        .into_iter()
        .find(|e| e["type"] == "message_delta")
        .unwrap();
    assert_eq!(stop["delta"]["stop_reason"], "end_turn");

    let entries = server.requests();
    assert_eq!(entries.len(), 2);
    assert_eq!((entries[0].step, entries[1].step), (0, 1));
    assert!(entries[0].reply.starts_with("tool Write"));
    assert_eq!(entries[1].tool_results, vec!["File created successfully"]);
    assert_eq!(entries[1].last_user, "make out.txt");
    // The client has the whole answer before the server marks it finished:
    // wait for that, not for the socket.
    for step in [0, 1] {
        server
            .wait_for(Duration::from_secs(10), |e| {
                e.step == step && e.finished_ms.is_some()
            })
            .expect("every request finished");
    }
    drop(server);
    let lines: Vec<termic_fakemodel::LogEntry> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert!(lines
        .iter()
        .all(|e| e.finished_ms.is_some() && !e.client_closed));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn grok_gets_its_model_list_and_unknown_paths_get_404() {
    let server = server(ScenarioName::Plain, None);
    let models = send(&server, "GET", "/v1/models", &json!({}));
    let body: Value = serde_json::from_str(models.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert!(body["data"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["id"] == "grok-build"));
    assert!(send(&server, "GET", "/nope", &json!({})).starts_with("HTTP/1.1 404"));
}

#[test]
fn a_client_that_hangs_up_mid_answer_is_logged_as_closed() {
    let server = server(ScenarioName::Slow, None);
    server.set_scenario({
        let mut s = Scenario::new(ScenarioName::Slow, "/proj/out.txt");
        s.slow_for = Duration::from_secs(4);
        s
    });
    let mut stream = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    let body =
        json!({"stream": true, "tools": [{"type": "function", "function": {"name": "write"}}],
        "messages": [{"role": "user", "content": "count slowly"}]})
        .to_string();
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut first = [0u8; 64];
    stream.read_exact(&mut first).unwrap();
    drop(stream);
    let closed = server.wait_for(Duration::from_secs(10), |e| e.finished_ms.is_some());
    let entry = closed.expect("the request finishes once the client is gone");
    assert!(entry.client_closed);
    assert!(
        entry.finished_ms.unwrap() - entry.ts_ms < 3500,
        "stopped streaming well before the 4 s answer ended"
    );
}

#[test]
fn codex_title_side_request_gets_json_for_its_schema() {
    let server = server(ScenarioName::Write, None);
    let response = send(
        &server,
        "POST",
        "/v1/responses",
        &json!({"stream": true, "input": "name it",
        "text": {"format": {"type": "json_schema", "name": "title", "schema": {"properties": {"title": {"type": "string"}}}}}}),
    );
    let done = data_lines(&response)
        .into_iter()
        .find(|e| e["type"] == "response.output_text.done")
        .unwrap();
    let title: Value = serde_json::from_str(done["text"].as_str().unwrap()).unwrap();
    assert_eq!(title["title"], "Fake task");
    assert!(server.requests()[0].side);
}

#[test]
fn gemini_routes_stream_the_write_call_and_answer_the_router_with_json() {
    let server = server(ScenarioName::Write, None);
    let tools = json!([{"functionDeclarations": [{"name": "write_file",
        "parametersJsonSchema": {"properties": {"file_path": {}, "content": {}}}}]}]);
    let prompt = json!({"role": "user", "parts": [{"text": "make out.txt"}]});
    let router = send(
        &server,
        "POST",
        "/v1beta/models/gemini-flash-lite:generateContent",
        &json!({"contents": [prompt], "generationConfig": {
            "responseMimeType": "application/json",
            "responseJsonSchema": {"type": "object", "properties": {
                "complexity_reasoning": {"type": "string"},
                "complexity_score": {"type": "integer", "minimum": 1, "maximum": 100}}}}}),
    );
    assert!(
        router.contains("Content-Type: application/json"),
        "{router}"
    );
    let body: Value = serde_json::from_str(router.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    let text = body["candidates"][0]["content"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    let routed: Value = serde_json::from_str(text).unwrap();
    assert!(routed["complexity_score"].is_number(), "{routed}");

    let path = "/v1beta/models/gemini-pro:streamGenerateContent?alt=sse";
    let first = send(
        &server,
        "POST",
        path,
        &json!({"tools": tools, "contents": [prompt]}),
    );
    assert!(first.contains("Content-Type: text/event-stream"));
    let call = data_lines(&first)
        .into_iter()
        .find_map(|e| {
            e["candidates"][0]["content"]["parts"][0]
                .get("functionCall")
                .cloned()
        })
        .expect("a function call");
    assert_eq!(
        (call["name"].as_str(), call["args"]["file_path"].as_str()),
        (Some("write_file"), Some("/proj/out.txt"))
    );
    let second = send(
        &server,
        "POST",
        path,
        &json!({"tools": tools, "contents": [prompt,
            {"role": "model", "parts": [{"functionCall": call}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "write_file", "response": {"output": "ok"}}}]}]}),
    );
    let last = data_lines(&second).pop().unwrap();
    assert_eq!(last["candidates"][0]["finishReason"], "STOP");
    let apis: Vec<(String, usize)> = server
        .requests()
        .into_iter()
        .map(|e| (e.api, e.step))
        .collect();
    assert_eq!(
        apis,
        [
            ("gemini-json".to_string(), 0),
            ("gemini".to_string(), 0),
            ("gemini".to_string(), 1)
        ]
    );
    let count = send(&server, "POST", "/v1beta/models/x:countTokens", &json!({}));
    assert!(count.contains(r#"{"totalTokens":42}"#));
}
