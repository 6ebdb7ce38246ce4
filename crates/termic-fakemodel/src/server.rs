//! The listener: binds 127.0.0.1 on a free port, answers each connection on
//! its own thread, routes by path to the API modules and logs every request.

use std::fs::{self, File, OpenOptions};
use std::io::{BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::Value;

use crate::gemini::{self, GeminiCall};
use crate::http::{read_request, write_head_with, Request};
use crate::log::{unix_ms, LogEntry, RequestLog};
use crate::scenario::{self, ApiFailure, ApiFamily, Scenario, ScenarioName};
use crate::sse::Frame;
use crate::turn::{plan, Turn};
use crate::{anthropic, chat, responses};

/// What the server needs to start.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub scenario: Scenario,
    /// JSON lines, one per finished request.
    pub log_path: Option<PathBuf>,
    /// When set, every request body is saved here as `NNNN-<api>.json`.
    pub dump_dir: Option<PathBuf>,
    /// Ids for `GET /v1/models`.
    pub models: Vec<String>,
}

impl ServerConfig {
    pub fn new(scenario: Scenario) -> ServerConfig {
        ServerConfig {
            scenario,
            log_path: None,
            dump_dir: None,
            models: vec!["grok-build".to_string(), "fake-model".to_string()],
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FakeModelError {
    #[error("could not listen on 127.0.0.1: {0}")]
    Bind(#[source] std::io::Error),
    #[error("could not open the request log {path}: {source}")]
    LogFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not create the body dump directory {path}: {source}")]
    DumpDir {
        path: PathBuf,
        source: std::io::Error,
    },
}

struct Shared {
    scenario: Mutex<Scenario>,
    log: RequestLog,
    stop: AtomicBool,
    next_id: AtomicU64,
    dump_dir: Option<PathBuf>,
    models: Vec<String>,
}

/// A running fake model server. Dropping it stops the listener.
pub struct FakeModel {
    port: u16,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl FakeModel {
    pub fn start(config: ServerConfig) -> Result<FakeModel, FakeModelError> {
        let file = match &config.log_path {
            Some(path) => Some(open_log(path)?),
            None => None,
        };
        if let Some(dir) = &config.dump_dir {
            fs::create_dir_all(dir).map_err(|source| FakeModelError::DumpDir {
                path: dir.clone(),
                source,
            })?;
        }
        let listener = TcpListener::bind("127.0.0.1:0").map_err(FakeModelError::Bind)?;
        let port = listener.local_addr().map_err(FakeModelError::Bind)?.port();
        let shared = Arc::new(Shared {
            scenario: Mutex::new(config.scenario),
            log: RequestLog::new(file),
            stop: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
            dump_dir: config.dump_dir,
            models: config.models,
        });
        let accept_shared = Arc::clone(&shared);
        let accept = thread::spawn(move || accept_loop(listener, accept_shared));
        Ok(FakeModel {
            port,
            shared,
            accept: Some(accept),
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT` (agents append `/v1/...` or need it added).
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Switches the scenario for requests that arrive from now on.
    pub fn set_scenario(&self, scenario: Scenario) {
        *self
            .shared
            .scenario
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = scenario;
    }

    pub fn requests(&self) -> Vec<LogEntry> {
        self.shared.log.entries()
    }

    /// Waits for a request matching `matches`, up to `timeout`.
    pub fn wait_for(
        &self,
        timeout: Duration,
        matches: impl Fn(&LogEntry) -> bool,
    ) -> Option<LogEntry> {
        self.shared.log.wait_for(timeout, matches)
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept so the thread sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn open_log(path: &PathBuf) -> Result<File, FakeModelError> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|source| FakeModelError::LogFile {
            path: path.clone(),
            source,
        })
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let shared = Arc::clone(&shared);
        thread::spawn(move || serve(stream, &shared));
    }
}

fn serve(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let Ok(Some(request)) = read_request(&mut reader) else {
        return;
    };
    let mut out = stream;
    let id = shared.next_id.fetch_add(1, Ordering::SeqCst);
    let route = Route::of(&request);
    if let Some(dir) = &shared.dump_dir {
        let _ = fs::write(
            dir.join(format!("{id:04}-{}.json", route.name())),
            &request.body,
        );
    }
    let mut entry = LogEntry {
        ts_ms: unix_ms(),
        method: request.method.clone(),
        path: request.target.clone(),
        api: route.name().to_string(),
        side: false,
        step: 0,
        last_user: String::new(),
        tool_results: Vec::new(),
        tools: Vec::new(),
        reply: String::new(),
        finished_ms: None,
        client_closed: false,
        body: String::from_utf8_lossy(&request.body).into_owned(),
    };
    let (status, content_type, frames) = answer(&request, route, shared, id, &mut entry);
    let extra = match shared
        .scenario
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .name
    {
        ScenarioName::Fail(failure) if status == failure.status() => {
            let now_s = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            failure.headers(now_s)
        }
        _ => Vec::new(),
    };
    let index = shared.log.begin(entry);
    let closed = write_head_with(&mut out, status, content_type, &extra).is_err()
        || stream_frames(&mut out, &frames).is_err();
    let _ = out.shutdown(Shutdown::Both);
    shared.log.finish(index, closed);
}

fn stream_frames(out: &mut TcpStream, frames: &[Frame]) -> std::io::Result<()> {
    for frame in frames {
        if !frame.delay.is_zero() {
            thread::sleep(frame.delay);
        }
        out.write_all(&frame.bytes)?;
        out.flush()?;
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Anthropic,
    Chat,
    Responses,
    /// Gemini API `:streamGenerateContent` / `:generateContent`.
    Gemini(GeminiCall),
    /// Gemini API `:countTokens`.
    GeminiCount,
    Models,
    Other,
}

impl Route {
    fn of(request: &Request) -> Route {
        let path = request.path();
        match (request.method.as_str(), path) {
            ("POST", p) if p.contains("/models/") && GeminiCall::of(p).is_some() => {
                GeminiCall::of(p).map_or(Route::Other, Route::Gemini)
            }
            ("POST", p) if p.contains("/models/") && p.ends_with(":countTokens") => {
                Route::GeminiCount
            }
            ("POST", p) if p.ends_with("/messages") => Route::Anthropic,
            ("POST", p) if p.ends_with("/chat/completions") => Route::Chat,
            ("POST", p) if p.ends_with("/responses") => Route::Responses,
            ("GET", p) if p.ends_with("/models") => Route::Models,
            _ => Route::Other,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Route::Anthropic => "anthropic",
            Route::Chat => "chat",
            Route::Responses => "responses",
            Route::Gemini(GeminiCall::Stream) => "gemini",
            Route::Gemini(GeminiCall::Json) => "gemini-json",
            Route::GeminiCount => "gemini-count",
            Route::Models => "models",
            Route::Other => "other",
        }
    }
}

/// Status, content type and frames for a request; fills in the log entry.
fn answer(
    request: &Request,
    route: Route,
    shared: &Shared,
    id: u64,
    entry: &mut LogEntry,
) -> (u16, &'static str, Vec<Frame>) {
    let json_reply = |status: u16, body: String| {
        (
            status,
            "application/json",
            vec![Frame::now(body.into_bytes())],
        )
    };
    if route == Route::Models {
        entry.reply = format!("models {}", shared.models.join(","));
        return json_reply(200, chat::model_list(&shared.models).to_string());
    }
    if route == Route::GeminiCount {
        entry.reply = "totalTokens 42".to_string();
        return json_reply(200, r#"{"totalTokens":42}"#.to_string());
    }
    if route == Route::Other {
        entry.reply = "404".to_string();
        return json_reply(
            404,
            r#"{"error":{"message":"not found","type":"not_found"}}"#.to_string(),
        );
    }
    let scenario = shared
        .scenario
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let family = match route {
        Route::Anthropic => ApiFamily::Anthropic,
        _ => ApiFamily::OpenAi,
    };
    let refuse = |failure: ApiFailure, entry: &mut LogEntry| {
        entry.reply = format!("{} {}", failure.status(), failure.scenario_name());
        json_reply(failure.status(), failure.body(family))
    };
    if let ScenarioName::Fail(failure) = scenario.name {
        return refuse(failure, entry);
    }
    let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
        let encoding = request.header("content-encoding").unwrap_or("none");
        entry.reply = format!("400: body is not JSON (content-encoding {encoding})");
        return json_reply(
            400,
            r#"{"error":{"message":"body is not JSON","type":"invalid_request_error"}}"#
                .to_string(),
        );
    };
    let turn: Turn = match route {
        Route::Anthropic => anthropic::analyze(&body),
        Route::Chat => chat::analyze(&body),
        Route::Gemini(_) => gemini::analyze(&body),
        _ => responses::analyze(&body),
    };
    entry.side = turn.side;
    entry.step = turn.tool_calls_made;
    entry.last_user = turn.last_user.clone();
    entry.tool_results = turn.tool_results.clone();
    entry.tools = turn.tools.iter().map(|t| t.name.clone()).collect();
    if let Some(failure) = scenario::refusal(&scenario, turn.tool_calls_made, turn.compaction) {
        return refuse(failure, entry);
    }
    let planned = plan(&scenario, &turn);
    entry.reply = planned.summary();
    let model = body["model"].as_str().unwrap_or("fake-model");
    let frames = match route {
        Route::Gemini(GeminiCall::Json) => {
            return json_reply(200, gemini::render_json(&planned).to_string());
        }
        Route::Gemini(GeminiCall::Stream) => gemini::render_stream(&planned),
        Route::Anthropic => anthropic::render(&planned, model, id),
        Route::Chat => chat::render(&planned, model, id),
        _ => responses::render(&planned, model, id),
    };
    (200, "text/event-stream", frames)
}
