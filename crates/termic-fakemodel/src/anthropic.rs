//! The Anthropic Messages API as Claude Code uses it:
//! `POST /v1/messages?beta=true` with `stream: true`, answered with
//! message_start, ping, content blocks (text_delta / input_json_delta),
//! message_delta and message_stop.

use serde_json::{json, Value};

use crate::scenario::{Compaction, COMPACTION_PROMPT, SUMMARY_MARK};
use crate::sse::{named, Frame};
use crate::turn::{content_text, split_at_prompt, summarize, tool_specs, Answer, Turn};

fn has_block(message: &Value, kind: &str) -> bool {
    message["content"]
        .as_array()
        .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == kind))
}

/// Reads the turn out of a Messages request. The prompt is the last USER
/// message that is not a tool result: Claude may append `role: "system"`
/// entries after it, so the last message is not the one to read.
pub fn analyze(body: &Value) -> Turn {
    let tools = tool_specs(&body["tools"], "/name", "/input_schema");
    let split = split_at_prompt(body, |m| {
        m["role"] == "user" && !has_block(m, "tool_result")
    });
    let tool_calls_made = split
        .after
        .iter()
        .filter(|m| m["role"] == "assistant" && has_block(m, "tool_use"))
        .count();
    let tool_results = split
        .after
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            let text = summarize(&content_text(&b["content"]));
            if b["is_error"] == true {
                format!("error: {text}")
            } else {
                text
            }
        })
        .collect();
    Turn {
        side: tools.is_empty(),
        tools,
        tool_calls_made,
        last_user: split.prompt,
        tool_results,
        json_schema: None,
        forced_tool: None,
        compaction: compaction(body),
    }
}

/// Whether the request asks for a compaction's summary (its last user
/// message has a text starting with Claude Code's compaction prompt, beside
/// a tool result when the turn is not over) or carries one.
fn compaction(body: &Value) -> Compaction {
    let last_user = body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"));
    let asked = match last_user.map(|m| &m["content"]) {
        Some(Value::String(text)) => text.starts_with(COMPACTION_PROMPT),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .any(|t| t.starts_with(COMPACTION_PROMPT)),
        _ => false,
    };
    Compaction {
        asked,
        summarized: body["messages"].to_string().contains(SUMMARY_MARK),
    }
}

/// The SSE frames for an answer. `id` makes message and tool ids unique.
pub fn render(answer: &Answer, model: &str, id: u64) -> Vec<Frame> {
    let mut frames = vec![
        Frame::now(named(
            "message_start",
            &json!({"type": "message_start", "message": {
                "id": format!("msg_fake{id}"), "type": "message", "role": "assistant", "model": model,
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": answer.input_tokens, "output_tokens": 1}}}),
        )),
        Frame::now(named("ping", &json!({"type": "ping"}))),
    ];
    let mut index = 0;
    let mut timed = answer.timed_chunks().peekable();
    if timed.peek().is_some() {
        let start = json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}});
        frames.push(Frame::now(named("content_block_start", &start)));
        for (delay, chunk) in timed {
            let delta = json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": chunk}});
            frames.push(Frame {
                delay,
                bytes: named("content_block_delta", &delta),
            });
        }
        frames.push(Frame::now(named(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        )));
        index += 1;
    }
    if let Some(call) = &answer.call {
        let start = json!({"type": "content_block_start", "index": index, "content_block": {
            "type": "tool_use", "id": format!("toolu_fake{id}"), "name": call.name, "input": {}}});
        frames.push(Frame {
            delay: answer.tool_delay(),
            bytes: named("content_block_start", &start),
        });
        let args = call.args.to_string();
        let (a, b) = args.split_at(args.len() / 2);
        for part in [a, b] {
            let delta = json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": part}});
            frames.push(Frame::now(named("content_block_delta", &delta)));
        }
        frames.push(Frame::now(named(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        )));
    }
    let stop_reason = if answer.call.is_some() {
        "tool_use"
    } else {
        "end_turn"
    };
    frames.push(Frame::now(named(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null}, "usage": {"input_tokens": answer.input_tokens, "output_tokens": 10}}),
    )));
    frames.push(Frame::now(named(
        "message_stop",
        &json!({"type": "message_stop"}),
    )));
    frames
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Claude Code 2.1.332's compaction inside a turn, as measured
    /// 2026-12-07: its prompt beside the last tool result; then the turn
    /// sent on from the summary.
    #[test]
    fn a_compaction_is_seen_beside_a_tool_result_and_its_summary_after_it() {
        let asking = json!({"tools": [{"name": "Read", "input_schema": {}}], "messages": [
            {"role": "user", "content": "[earlier conversation truncated for compaction retry]"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "1 A file"},
                {"type": "text", "text": format!("{COMPACTION_PROMPT} Do NOT call any tools.")},
            ]},
        ]});
        let turn = analyze(&asking);
        assert_eq!(turn.tool_calls_made, 1);
        assert_eq!(
            turn.compaction,
            Compaction {
                asked: true,
                summarized: false
            }
        );
        let after = json!({"tools": [{"name": "Read", "input_schema": {}}], "messages": [
            {"role": "user", "content": [{"type": "text", "text": format!(
                "This session is being continued. <summary> {SUMMARY_MARK} it was read. </summary>"
            )}]},
        ]});
        assert_eq!(
            analyze(&after).compaction,
            Compaction {
                asked: false,
                summarized: true
            }
        );
        let plain = json!({"messages": [{"role": "user", "content": "say hello"}]});
        assert_eq!(analyze(&plain).compaction, Compaction::default());
    }

    #[test]
    fn the_prompt_is_the_last_user_message_even_when_system_entries_follow() {
        let body = json!({"tools": [{"name": "Write", "input_schema": {}}], "messages": [
            {"role": "user", "content": "old"},
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            {"role": "user", "content": [{"type": "text", "text": "make out.txt"}]},
            {"role": "system", "content": "reminder"},
        ]});
        let turn = analyze(&body);
        assert_eq!(turn.last_user, "make out.txt");
        assert_eq!(turn.tool_calls_made, 0);
        assert!(!turn.side);
    }

    #[test]
    fn a_tool_result_advances_the_step_and_is_summarised() {
        let body = json!({"tools": [{"name": "Write"}], "messages": [
            {"role": "user", "content": "make out.txt"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "Write", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "File created"}]},
        ]});
        let turn = analyze(&body);
        assert_eq!(
            (turn.tool_calls_made, turn.last_user.as_str()),
            (1, "make out.txt")
        );
        assert_eq!(turn.tool_results, vec!["File created"]);
    }

    #[test]
    fn text_then_tool_use_is_well_formed() {
        let answer = Answer::scripted(
            5,
            &["Hel", "lo"],
            7,
            Some(("Write", json!({"file_path": "/p", "content": "x"}))),
        );
        let frames = render(&answer, "m", 3);
        let evs = crate::sse::named_event_data(&frames);
        let types: Vec<&str> = evs.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(
            types,
            [
                "message_start",
                "ping",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop",
            ]
        );
        assert_eq!(frames[3].delay, Duration::from_millis(5));
        assert_eq!(frames[4].delay, Duration::from_millis(7));
        assert_eq!(evs[6]["content_block"]["name"], "Write");
        assert_eq!(evs[6]["index"], 1);
        let json_text: String = evs[7..9]
            .iter()
            .map(|e| e["delta"]["partial_json"].as_str().unwrap())
            .collect();
        assert_eq!(
            serde_json::from_str::<Value>(&json_text).unwrap()["file_path"],
            "/p"
        );
        assert_eq!(evs[10]["delta"]["stop_reason"], "tool_use");
    }

    #[test]
    fn plain_text_ends_the_turn() {
        let answer = Answer::scripted(0, &["Hi"], 0, None);
        let evs = crate::sse::named_event_data(&render(&answer, "m", 1));
        assert_eq!(evs[evs.len() - 2]["delta"]["stop_reason"], "end_turn");
    }
}
