//! What the fake model answers, per scenario and per step of a turn. Pure:
//! the step comes in as a value (how many tool calls the model already made
//! since the user's prompt), the answer goes out as a value.

use std::path::PathBuf;
use std::time::Duration;

/// The scripted behaviours an agent can be driven through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScenarioName {
    /// One short text answer.
    Plain,
    /// A file-write tool call (a permission prompt), then text.
    Write,
    /// Claude's AskUserQuestion tool call, then text.
    Ask,
    /// Claude's ExitPlanMode tool call (plan approval), then text.
    Plan,
    /// Text streamed over several seconds, so the busy state can be seen and
    /// Escape can interrupt it.
    Slow,
    /// Several read-only tool calls with pauses, then text.
    Multi,
    /// Every model request fails with this HTTP error (the model list
    /// still answers, so the agent starts).
    Fail(ApiFailure),
    /// A shell command started in the background (Claude's Bash with
    /// `run_in_background`), then text: the turn ends while the command
    /// still runs. The command touches `bg-done` next to `write_path` when
    /// it ends. Only a prompt with [`BACKGROUND_WORD`] starts it, so the
    /// agent's own follow-up after the command ended gets text.
    Background,
    /// Claude's `Agent` tool: a subagent that streams its answer slowly
    /// (`slow_for`) while the main agent waits silent, then text. Only a
    /// prompt with [`SUBAGENT_WORD`] calls it; the subagent's own prompt
    /// carries [`SUBAGENT_TASK_WORD`].
    Subagent,
    /// Claude's AskUserQuestion with two questions at once, then text.
    AskMany,
    /// Claude's AskUserQuestion with one question whose options can be
    /// picked together (`multiSelect: true`), then text.
    AskMultiSelect,
    /// A context compaction: a prompt with [`COMPACT_WORD`] gets one
    /// read-only tool call, then text, each reporting
    /// [`COMPACT_INPUT_TOKENS`] of context in use (past the compaction
    /// point of a 200k window), so Claude Code 2.1.332 compacts when the
    /// next prompt is submitted. Its compaction request
    /// ([`COMPACTION_PROMPT`]) gets a summary streamed over `slow_for`;
    /// every other request gets text.
    Compact,
    /// A context compaction inside one turn: a prompt with
    /// [`OVERFLOW_WORD`] gets one read-only tool call, and the turn's next
    /// request is refused as too long ([`ApiFailure::PromptTooLong`])
    /// until the conversation carries a compaction's summary
    /// ([`SUMMARY_MARK`]): Claude Code compacts in the middle of its turn
    /// and sends the request again. The compaction request gets a summary
    /// streamed over `slow_for`, the request after it text.
    CompactInTurn,
}

impl ScenarioName {
    pub const ALL: [ScenarioName; 17] = [
        ScenarioName::Plain,
        ScenarioName::Write,
        ScenarioName::Ask,
        ScenarioName::Plan,
        ScenarioName::Slow,
        ScenarioName::Multi,
        ScenarioName::Fail(ApiFailure::RateLimited),
        ScenarioName::Fail(ApiFailure::ServerError),
        ScenarioName::Fail(ApiFailure::Overloaded),
        ScenarioName::Fail(ApiFailure::AuthFailed),
        ScenarioName::Fail(ApiFailure::UsageLimit),
        ScenarioName::Background,
        ScenarioName::Subagent,
        ScenarioName::AskMany,
        ScenarioName::AskMultiSelect,
        ScenarioName::Compact,
        ScenarioName::CompactInTurn,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ScenarioName::Plain => "plain",
            ScenarioName::Write => "write",
            ScenarioName::Ask => "ask",
            ScenarioName::Plan => "plan",
            ScenarioName::Slow => "slow",
            ScenarioName::Multi => "multi",
            ScenarioName::Fail(failure) => failure.scenario_name(),
            ScenarioName::Background => "background",
            ScenarioName::Subagent => "subagent",
            ScenarioName::AskMany => "ask-many",
            ScenarioName::AskMultiSelect => "ask-multi-select",
            ScenarioName::Compact => "compact",
            ScenarioName::CompactInTurn => "compact-in-turn",
        }
    }

    pub fn parse(name: &str) -> Option<ScenarioName> {
        ScenarioName::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// The API errors the fail scenarios answer with: each provider's real
/// status and error body, so the agent takes its own error path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiFailure {
    /// 429 (`rate_limit_error`).
    RateLimited,
    /// 500 (`api_error`).
    ServerError,
    /// 529 (`overloaded_error`, Anthropic's own status).
    Overloaded,
    /// 401 (`authentication_error`: a bad key).
    AuthFailed,
    /// A usage limit: 429 with `retry-after` and Anthropic's unified
    /// rate-limit headers (`rejected`, the reset as Unix seconds), and a
    /// message naming the reset time ([`USAGE_LIMIT_RESET`]).
    UsageLimit,
    /// 400 (`invalid_request_error`): the conversation is longer than the
    /// model's window, in the words Claude Code matches. Not a fail
    /// scenario of its own: the compact-in-turn scenario answers it.
    PromptTooLong,
}

/// The reset time the usage-limit reply's message names.
pub const USAGE_LIMIT_RESET: &str = "15:00";

/// Seconds the usage-limit reply's `retry-after` asks for.
pub const USAGE_LIMIT_RETRY_AFTER_S: u64 = 3600;

/// The API family a request used, for the error body's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiFamily {
    Anthropic,
    OpenAi,
}

impl ApiFailure {
    pub fn scenario_name(self) -> &'static str {
        match self {
            ApiFailure::RateLimited => "error-429",
            ApiFailure::ServerError => "error-500",
            ApiFailure::Overloaded => "error-529",
            ApiFailure::AuthFailed => "error-401",
            ApiFailure::UsageLimit => "usage-limit",
            ApiFailure::PromptTooLong => "prompt-too-long",
        }
    }

    pub fn status(self) -> u16 {
        match self {
            ApiFailure::RateLimited => 429,
            ApiFailure::ServerError => 500,
            ApiFailure::Overloaded => 529,
            ApiFailure::AuthFailed => 401,
            ApiFailure::UsageLimit => 429,
            ApiFailure::PromptTooLong => 400,
        }
    }

    /// The JSON error body the real provider sends for this status.
    pub fn body(self, family: ApiFamily) -> String {
        let (anthropic_type, openai_type, openai_code, message) = match self {
            ApiFailure::RateLimited => (
                "rate_limit_error",
                "rate_limit_error",
                "rate_limit_exceeded",
                "The fake model is rate limiting this key.",
            ),
            ApiFailure::ServerError => (
                "api_error",
                "server_error",
                "server_error",
                "The fake model had an internal error.",
            ),
            ApiFailure::Overloaded => (
                "overloaded_error",
                "server_error",
                "overloaded",
                "The fake model is overloaded.",
            ),
            ApiFailure::AuthFailed => (
                "authentication_error",
                "invalid_request_error",
                "invalid_api_key",
                "invalid x-api-key",
            ),
            ApiFailure::UsageLimit => (
                "rate_limit_error",
                "rate_limit_error",
                "rate_limit_exceeded",
                "Usage limit reached for this key. Your limit resets at 15:00.",
            ),
            ApiFailure::PromptTooLong => (
                "invalid_request_error",
                "invalid_request_error",
                "context_length_exceeded",
                "prompt is too long: 210000 tokens > 200000 maximum",
            ),
        };
        let body = match family {
            ApiFamily::Anthropic => serde_json::json!({
                "type": "error",
                "error": {"type": anthropic_type, "message": message},
            }),
            ApiFamily::OpenAi => serde_json::json!({
                "error": {"message": message, "type": openai_type, "code": openai_code, "param": null},
            }),
        };
        body.to_string()
    }

    /// Headers beside the status (`now_s`: Unix seconds): the usage
    /// limit's `retry-after` and Anthropic's unified rate-limit headers.
    pub fn headers(self, now_s: u64) -> Vec<(&'static str, String)> {
        match self {
            ApiFailure::UsageLimit => vec![
                ("retry-after", USAGE_LIMIT_RETRY_AFTER_S.to_string()),
                ("anthropic-ratelimit-unified-status", "rejected".into()),
                (
                    "anthropic-ratelimit-unified-reset",
                    (now_s + USAGE_LIMIT_RETRY_AFTER_S).to_string(),
                ),
                (
                    "anthropic-ratelimit-unified-representative-claim",
                    "five_hour".into(),
                ),
            ],
            _ => Vec::new(),
        }
    }
}

/// A scenario with its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    pub name: ScenarioName,
    /// Absolute path of the file the write scenario creates (and the
    /// directory the multi scenario reads from).
    pub write_path: PathBuf,
    /// How long the slow answer streams for.
    pub slow_for: Duration,
    /// Tool calls in the multi scenario.
    pub steps: usize,
    /// Pause before each multi-scenario tool call.
    pub step_pause: Duration,
    /// How long the background scenario's command runs.
    pub background_for: Duration,
}

impl Scenario {
    pub fn new(name: ScenarioName, write_path: impl Into<PathBuf>) -> Scenario {
        Scenario {
            name,
            write_path: write_path.into(),
            slow_for: Duration::from_secs(10),
            steps: 4,
            step_pause: Duration::from_millis(1500),
            background_for: Duration::from_secs(15),
        }
    }
}

/// A tool call, described by intent; each API module maps it onto the tools
/// the agent actually offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Write {
        path: PathBuf,
        content: String,
    },
    Read {
        path: PathBuf,
    },
    /// Ask for approval of a plan.
    Plan {
        plan: String,
    },
    Ask {
        question: String,
        header: String,
        options: Vec<String>,
        /// Several options can be picked (`multiSelect`).
        multi_select: bool,
    },
    /// A shell command, in the background when `background`.
    Shell {
        command: String,
        background: bool,
    },
    /// A subagent given `prompt` (Claude's `Agent` tool).
    Subagent {
        prompt: String,
    },
    /// Several questions in one call: (question, header, options) each.
    AskMany {
        questions: Vec<(String, String, Vec<String>)>,
    },
}

/// The model's answer to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Text in `chunks`, one every `interval`, after waiting `lead`.
    Text {
        lead: Duration,
        chunks: Vec<String>,
        interval: Duration,
    },
    /// An optional sentence, then one tool call, after waiting `lead`.
    Tool {
        lead: Duration,
        preface: Option<String>,
        action: Action,
    },
}

impl Reply {
    pub fn text(text: &str) -> Reply {
        Reply::Text {
            lead: Duration::ZERO,
            chunks: split_chunks(text, 3),
            interval: Duration::ZERO,
        }
    }
}

pub const PLAIN_ANSWER: &str = "Hello from the fake model.";
pub const WRITE_CONTENT: &str = "hello from the fake model\n";
pub const AFTER_TOOL_ANSWER: &str = "Done. The tool call finished.";
pub const SLOW_ANSWER_WORDS: usize = 40;
/// The background scenario starts its command only for a prompt with this
/// word (the agent's own message when the command ended has none).
pub const BACKGROUND_WORD: &str = "PELICAN-JOB";

/// The subagent scenario calls its subagent only for a prompt with this word.
pub const SUBAGENT_WORD: &str = "HERON-DELEGATE";
/// The word in the subagent's own prompt (it gets the slow answer).
pub const SUBAGENT_TASK_WORD: &str = "HERON-TASK";

/// The compact scenario calls its tool only for a prompt with this word.
pub const COMPACT_WORD: &str = "OSPREY-COMPACT";
/// Context in use the compact scenario's tool call reports (Anthropic's
/// `usage.input_tokens`): past Claude Code 2.1.332's auto-compact point
/// for a 200k window, below the window itself.
pub const COMPACT_INPUT_TOKENS: u64 = 190_000;
/// How Claude Code 2.1.332's compaction request (its summary of the
/// conversation) starts its last user message (measured 2026-12-06).
pub const COMPACTION_PROMPT: &str = "CRITICAL: Respond with TEXT ONLY.";
/// The compact-in-turn scenario calls its tool only for a prompt with this
/// word.
pub const OVERFLOW_WORD: &str = "OSPREY-OVERFLOW";
/// In every compaction summary the fake model writes: a request that
/// carries it comes after a compaction.
pub const SUMMARY_MARK: &str = "OSPREY-SUMMARY";
/// Context in use every other reply reports.
pub const INPUT_TOKENS: u64 = 10;
/// The text the compact scenario ends its turn with.
pub const AFTER_COMPACT_ANSWER: &str = "The turn went on after the compaction.";

/// The context in use a reply reports (`usage.input_tokens`) to a request
/// whose user prompt is `prompt`.
pub fn input_tokens(scenario: &Scenario, prompt: &str) -> u64 {
    if scenario.name == ScenarioName::Compact && prompt.contains(COMPACT_WORD) {
        COMPACT_INPUT_TOKENS
    } else {
        INPUT_TOKENS
    }
}

/// The file the background scenario's command creates when it ends.
pub fn background_marker(scenario: &Scenario) -> PathBuf {
    scenario.write_path.with_file_name("bg-done")
}

/// What a request says of a compaction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Compaction {
    /// The request asks for a summary: its last user message has a text
    /// that starts with [`COMPACTION_PROMPT`] (in the middle of a turn,
    /// beside the last tool result).
    pub asked: bool,
    /// The conversation carries a summary the fake model wrote
    /// ([`SUMMARY_MARK`]).
    pub summarized: bool,
}

/// The HTTP error this request gets instead of an answer: in the
/// compact-in-turn scenario, a request after its tool call and before a
/// compaction's summary is too long. (The fail scenarios refuse every
/// request before this is asked.)
pub fn refusal(
    scenario: &Scenario,
    tool_calls_made: usize,
    compaction: Compaction,
) -> Option<ApiFailure> {
    (scenario.name == ScenarioName::CompactInTurn
        && tool_calls_made > 0
        && !compaction.asked
        && !compaction.summarized)
        .then_some(ApiFailure::PromptTooLong)
}

/// The answer for a request whose user prompt is `prompt` (see [`reply`]).
pub fn reply_to(
    scenario: &Scenario,
    tool_calls_made: usize,
    prompt: &str,
    compaction: Compaction,
) -> Reply {
    if scenario.name == ScenarioName::Background && !prompt.contains(BACKGROUND_WORD) {
        return Reply::text("The background job finished.");
    }
    if scenario.name == ScenarioName::Subagent {
        if prompt.contains(SUBAGENT_TASK_WORD) {
            // The subagent: a slow answer, as the slow scenario streams it.
            let slow = Scenario {
                name: ScenarioName::Slow,
                ..scenario.clone()
            };
            return reply(&slow, 0);
        }
        if !prompt.contains(SUBAGENT_WORD) {
            return Reply::text(PLAIN_ANSWER);
        }
    }
    let compacts = matches!(
        scenario.name,
        ScenarioName::Compact | ScenarioName::CompactInTurn
    );
    if compacts && (compaction.asked || prompt.starts_with(COMPACTION_PROMPT)) {
        let words: Vec<String> = format!(
            "<summary> {SUMMARY_MARK} The user asked to read the readme; it was read. </summary>"
        )
        .split_inclusive(' ')
        .map(str::to_owned)
        .collect();
        return Reply::Text {
            lead: Duration::ZERO,
            interval: scenario.slow_for / words.len() as u32,
            chunks: words,
        };
    }
    if scenario.name == ScenarioName::Compact && !prompt.contains(COMPACT_WORD) {
        return Reply::text(AFTER_COMPACT_ANSWER);
    }
    if scenario.name == ScenarioName::CompactInTurn {
        if compaction.summarized {
            return Reply::text(AFTER_COMPACT_ANSWER);
        }
        if !prompt.contains(OVERFLOW_WORD) {
            return Reply::text(PLAIN_ANSWER);
        }
    }
    reply(scenario, tool_calls_made)
}

/// The answer for a turn in which the model already made `tool_calls_made`
/// tool calls since the user's prompt.
pub fn reply(scenario: &Scenario, tool_calls_made: usize) -> Reply {
    let first = tool_calls_made == 0;
    match scenario.name {
        ScenarioName::Plain => Reply::text(PLAIN_ANSWER),
        ScenarioName::Write if first => Reply::Tool {
            lead: Duration::ZERO,
            preface: None,
            action: Action::Write {
                path: scenario.write_path.clone(),
                content: WRITE_CONTENT.to_string(),
            },
        },
        ScenarioName::Ask if first => Reply::Tool {
            lead: Duration::ZERO,
            preface: None,
            action: Action::Ask {
                question: "Which color do you like?".to_string(),
                header: "Color".to_string(),
                options: vec!["Red".to_string(), "Blue".to_string()],
                multi_select: false,
            },
        },
        ScenarioName::AskMultiSelect if first => Reply::Tool {
            lead: Duration::ZERO,
            preface: None,
            action: Action::Ask {
                question: "Which toppings do you want?".to_string(),
                header: "Toppings".to_string(),
                options: vec![
                    "Cheese".to_string(),
                    "Olives".to_string(),
                    "Basil".to_string(),
                ],
                multi_select: true,
            },
        },
        ScenarioName::Plan if first => Reply::Tool {
            lead: Duration::ZERO,
            preface: None,
            action: Action::Plan {
                plan: "1. Create out.txt\n2. Say done".to_string(),
            },
        },
        ScenarioName::Write | ScenarioName::Ask | ScenarioName::Plan => {
            Reply::text(AFTER_TOOL_ANSWER)
        }
        ScenarioName::Slow => {
            let words: Vec<String> = (1..=SLOW_ANSWER_WORDS)
                .map(|i| format!("word{i} "))
                .collect();
            Reply::Text {
                lead: Duration::ZERO,
                interval: scenario.slow_for / SLOW_ANSWER_WORDS as u32,
                chunks: words,
            }
        }
        ScenarioName::Multi if tool_calls_made < scenario.steps => Reply::Tool {
            lead: scenario.step_pause,
            preface: Some(format!(
                "Step {} of {}.",
                tool_calls_made + 1,
                scenario.steps
            )),
            action: Action::Read {
                path: scenario.write_path.with_file_name("README.md"),
            },
        },
        ScenarioName::Multi => Reply::text(&format!("All {} steps done.", scenario.steps)),
        ScenarioName::Background if first => Reply::Tool {
            lead: Duration::ZERO,
            preface: Some("Starting the job in the background.".to_string()),
            action: Action::Shell {
                command: format!(
                    "sleep {} && touch {}",
                    scenario.background_for.as_secs(),
                    background_marker(scenario).display()
                ),
                background: true,
            },
        },
        ScenarioName::Background => {
            Reply::text("The job runs in the background; I will report when it ends.")
        }
        ScenarioName::Subagent if first => Reply::Tool {
            lead: Duration::ZERO,
            preface: None,
            action: Action::Subagent {
                prompt: format!("{SUBAGENT_TASK_WORD} count slowly to forty"),
            },
        },
        ScenarioName::Subagent => Reply::text("The subagent finished counting."),
        ScenarioName::AskMany if first => Reply::Tool {
            lead: Duration::ZERO,
            preface: None,
            action: Action::AskMany {
                questions: vec![
                    (
                        "Which color do you like?".to_string(),
                        "Color".to_string(),
                        vec!["Red".to_string(), "Blue".to_string()],
                    ),
                    (
                        "Which size do you need?".to_string(),
                        "Size".to_string(),
                        vec!["Small".to_string(), "Large".to_string()],
                    ),
                ],
            },
        },
        ScenarioName::AskMany | ScenarioName::AskMultiSelect => Reply::text(AFTER_TOOL_ANSWER),
        ScenarioName::Compact | ScenarioName::CompactInTurn if first => Reply::Tool {
            lead: Duration::ZERO,
            preface: Some("Reading the readme first.".to_string()),
            action: Action::Read {
                path: scenario.write_path.with_file_name("README.md"),
            },
        },
        ScenarioName::Compact | ScenarioName::CompactInTurn => Reply::text(AFTER_TOOL_ANSWER),
        // The server answers these with an HTTP error before planning a
        // reply; text here only if a caller plans one anyway.
        ScenarioName::Fail(failure) => Reply::text(failure.scenario_name()),
    }
}

/// Splits `text` into at most `n` non-empty pieces on char boundaries.
pub fn split_chunks(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    let size = chars.len().div_ceil(n.max(1));
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(name: ScenarioName) -> Scenario {
        Scenario::new(name, "/p/out.txt")
    }

    #[test]
    fn names_round_trip() {
        for name in ScenarioName::ALL {
            assert_eq!(ScenarioName::parse(name.as_str()), Some(name));
        }
        assert_eq!(ScenarioName::parse("nope"), None);
    }

    #[test]
    fn write_asks_for_the_tool_then_ends_the_turn_with_text() {
        let s = scenario(ScenarioName::Write);
        let Reply::Tool {
            action: Action::Write { path, content },
            ..
        } = reply(&s, 0)
        else {
            panic!("first step must be the write tool call");
        };
        assert_eq!(path, PathBuf::from("/p/out.txt"));
        assert_eq!(content, WRITE_CONTENT);
        assert_eq!(reply(&s, 1), Reply::text(AFTER_TOOL_ANSWER));
    }

    #[test]
    fn ask_offers_two_options_then_ends_the_turn() {
        let s = scenario(ScenarioName::Ask);
        assert!(
            matches!(reply(&s, 0), Reply::Tool { action: Action::Ask { ref options, .. }, .. } if options.len() == 2)
        );
        assert!(matches!(reply(&s, 1), Reply::Text { .. }));
    }

    #[test]
    fn slow_spreads_its_words_over_the_configured_time() {
        let mut s = scenario(ScenarioName::Slow);
        s.slow_for = Duration::from_secs(8);
        let Reply::Text {
            chunks, interval, ..
        } = reply(&s, 0)
        else {
            panic!()
        };
        assert_eq!(chunks.len(), SLOW_ANSWER_WORDS);
        assert_eq!(interval * chunks.len() as u32, Duration::from_secs(8));
    }

    #[test]
    fn multi_makes_the_configured_number_of_tool_calls() {
        let mut s = scenario(ScenarioName::Multi);
        s.steps = 3;
        for step in 0..3 {
            let Reply::Tool {
                preface,
                action: Action::Read { path },
                lead,
            } = reply(&s, step)
            else {
                panic!("step {step} must be a tool call");
            };
            assert_eq!(preface.unwrap(), format!("Step {} of 3.", step + 1));
            assert_eq!(path, PathBuf::from("/p/README.md"));
            assert_eq!(lead, s.step_pause);
        }
        assert_eq!(reply(&s, 3), Reply::text("All 3 steps done."));
    }

    #[test]
    fn each_failure_has_its_status_and_a_provider_shaped_body() {
        let cases = [
            (ApiFailure::RateLimited, 429, "rate_limit_error"),
            (ApiFailure::ServerError, 500, "api_error"),
            (ApiFailure::Overloaded, 529, "overloaded_error"),
            (ApiFailure::AuthFailed, 401, "authentication_error"),
            (ApiFailure::UsageLimit, 429, "rate_limit_error"),
        ];
        for (failure, status, anthropic_type) in cases {
            assert_eq!(failure.status(), status);
            assert_eq!(
                ScenarioName::parse(failure.scenario_name()),
                Some(ScenarioName::Fail(failure))
            );
            let a: serde_json::Value =
                serde_json::from_str(&failure.body(ApiFamily::Anthropic)).unwrap();
            assert_eq!(a["type"], "error");
            assert_eq!(a["error"]["type"], anthropic_type);
            let o: serde_json::Value =
                serde_json::from_str(&failure.body(ApiFamily::OpenAi)).unwrap();
            assert!(o["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()));
        }
    }

    #[test]
    fn compact_reports_a_full_context_then_summarizes_slowly() {
        let s = scenario(ScenarioName::Compact);
        let prompt = format!("{COMPACT_WORD} read it");
        assert!(matches!(
            reply_to(&s, 0, &prompt, Compaction::default()),
            Reply::Tool {
                action: Action::Read { .. },
                ..
            }
        ));
        assert_eq!(
            reply_to(&s, 1, &prompt, Compaction::default()),
            Reply::text(AFTER_TOOL_ANSWER)
        );
        assert_eq!(input_tokens(&s, &prompt), COMPACT_INPUT_TOKENS);
        // The compaction's own request: a summary over `slow_for`, small.
        let summary = format!("{COMPACTION_PROMPT} Do NOT call any tools.");
        let Reply::Text {
            chunks, interval, ..
        } = reply_to(&s, 0, &summary, Compaction::default())
        else {
            panic!("the summary is text");
        };
        assert!(chunks.concat().contains("<summary>"));
        let streamed = interval * chunks.len() as u32;
        assert!(
            s.slow_for - streamed < Duration::from_millis(1),
            "{streamed:?}"
        );
        assert_eq!(input_tokens(&s, &summary), INPUT_TOKENS);
        // The turn after it: text, small.
        assert_eq!(
            reply_to(&s, 0, "go on", Compaction::default()),
            Reply::text(AFTER_COMPACT_ANSWER)
        );
        assert_eq!(input_tokens(&s, "go on"), INPUT_TOKENS);
        let plain = scenario(ScenarioName::Plain);
        assert_eq!(input_tokens(&plain, &prompt), INPUT_TOKENS);
    }

    #[test]
    fn compact_in_turn_refuses_the_turns_next_request_until_a_summary_comes() {
        let s = scenario(ScenarioName::CompactInTurn);
        let prompt = format!("{OVERFLOW_WORD} read it");
        assert_eq!(refusal(&s, 0, Compaction::default()), None);
        assert!(matches!(
            reply_to(&s, 0, &prompt, Compaction::default()),
            Reply::Tool {
                action: Action::Read { .. },
                ..
            }
        ));
        // After the tool call: too long, in the words Claude Code matches.
        let refused = refusal(&s, 1, Compaction::default()).expect("refused");
        assert_eq!(refused.status(), 400);
        let body: serde_json::Value =
            serde_json::from_str(&refused.body(ApiFamily::Anthropic)).unwrap();
        assert_eq!(body["error"]["type"], "invalid_request_error");
        assert!(body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("prompt is too long: "));
        // The compaction's own request (its text beside the tool result,
        // so the prompt is still the user's) is answered with a summary
        // that carries the mark; the request sent again after it, with text.
        let asked = Compaction {
            asked: true,
            summarized: false,
        };
        assert_eq!(refusal(&s, 1, asked), None);
        let Reply::Text { chunks, .. } = reply_to(&s, 1, &prompt, asked) else {
            panic!("the summary is text");
        };
        assert!(chunks.concat().contains(SUMMARY_MARK));
        let summarized = Compaction {
            asked: false,
            summarized: true,
        };
        assert_eq!(refusal(&s, 1, summarized), None);
        assert_eq!(
            reply_to(&s, 0, "This session is being continued", summarized),
            Reply::text(AFTER_COMPACT_ANSWER)
        );
        // Another agent's side request or a later prompt: plain text.
        assert_eq!(
            reply_to(&s, 0, "say hello", Compaction::default()),
            Reply::text(PLAIN_ANSWER)
        );
        assert_eq!(ScenarioName::parse("compact-in-turn"), Some(s.name));
    }

    #[test]
    fn chunks_rejoin_to_the_text() {
        for text in ["", "a", "héllo wörld", "abcdefghij"] {
            for n in 1..5 {
                let chunks = split_chunks(text, n);
                assert!(chunks.len() <= n.max(1));
                assert_eq!(chunks.concat(), text);
            }
        }
    }
}
