//! Scenarios as data: a step list with time offsets.
//!
//! One step per line, `[+OFFSET] ACTION [ARGS...]`. The offset is how long
//! after the previous step ended this one starts, in virtual milliseconds
//! (`250`, `1.5s`, `8m`), scaled by `--speed`. Arguments are words or
//! double-quoted strings. `#` starts a comment.
//!
//! ```text
//! prompt "write out.txt"      # wait for Enter (or submit at once with --auto)
//! +300 work 1200 Thinking     # busy for 1.2 s
//! tool Read src/main.rs       # a tool call that needs no approval
//! permission Write out.txt    # blocked until approved with the agent's key
//! say "Created out.txt"
//! stop                        # end of turn
//! ```
//!
//! Escape and Ctrl-C are not steps: they are keys, handled by each agent the
//! way the real one reacts, at any point of a turn.

use thiserror::Error;

/// A scenario that failed to parse.
#[derive(Debug, Error, PartialEq)]
pub enum ScenarioError {
    #[error("scenario {name}, line {line}: {message}")]
    Line {
        name: String,
        line: usize,
        message: String,
    },
    #[error("no built-in scenario named {0:?} and no such file (built-ins: {list})", list = BUILTINS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "))]
    Unknown(String),
    #[error("cannot read scenario file {path}: {message}")]
    Read { path: String, message: String },
}

/// What a step does. Agent-neutral: each simulated agent paints and reports
/// it in its own way.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Wait for the user to type a prompt and press Enter. `text` is used
    /// when the user submits an empty line, or at once with `--auto`.
    Prompt { text: String },
    /// Busy for `ms` (streaming output, spinner title).
    Work { ms: u64, label: String },
    /// Print assistant text.
    Say { text: String },
    /// A tool call that needs no approval.
    Tool { name: String, arg: String },
    /// A permission prompt for a tool call, blocked until answered.
    Permission { tool: String, arg: String },
    /// A tool-mediated question (Claude's AskUserQuestion); `multi`: the
    /// user ticks any of the options, then submits (`question-multi`).
    Question {
        text: String,
        options: Vec<String>,
        multi: bool,
    },
    /// Plan approval (Claude's ExitPlanMode, grok's plan approval).
    Plan { text: String },
    /// `count` subagents running for `ms`: the foreground looks idle part of
    /// the time but the turn is not over.
    Subagents { count: u32, ms: u64 },
    /// The turn ends.
    Stop,
    /// `stop background`: the foreground turn ends while background tasks
    /// still run (Claude's Stop with a non-empty `background_tasks`); a
    /// later `stop` ends the work.
    StopBackground,
    /// The agent process exits.
    Exit,
    /// Start the scenario over (demo loops).
    Loop,
    /// The agent rewrites its own settings without termic's hooks (an agent
    /// that rewrites its settings file) and runs without them from then on.
    DropHooks,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub offset_ms: u64,
    pub action: Action,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub steps: Vec<Step>,
}

/// The scenarios shipped with the binary, by name.
pub const BUILTINS: &[(&str, &str)] = &[
    ("simple", include_str!("../scenarios/simple.scn")),
    ("permission", include_str!("../scenarios/permission.scn")),
    ("question", include_str!("../scenarios/question.scn")),
    (
        "question-multi",
        include_str!("../scenarios/question-multi.scn"),
    ),
    ("plan", include_str!("../scenarios/plan.scn")),
    ("subagents", include_str!("../scenarios/subagents.scn")),
    (
        "prose-question",
        include_str!("../scenarios/prose-question.scn"),
    ),
    ("interrupt", include_str!("../scenarios/interrupt.scn")),
    ("tool-calls", include_str!("../scenarios/tool-calls.scn")),
    (
        "hook-timeout",
        include_str!("../scenarios/hook-timeout.scn"),
    ),
    ("demo", include_str!("../scenarios/demo.scn")),
    ("bench", include_str!("../scenarios/bench.scn")),
    ("background", include_str!("../scenarios/background.scn")),
    (
        "hooks-dropped",
        include_str!("../scenarios/hooks-dropped.scn"),
    ),
    (
        "hooks-dropped-mid-turn",
        include_str!("../scenarios/hooks-dropped-mid-turn.scn"),
    ),
];

impl Scenario {
    /// A built-in scenario by name, or a scenario file by path.
    pub fn load(name_or_path: &str) -> Result<Scenario, ScenarioError> {
        if let Some((name, text)) = BUILTINS.iter().find(|(n, _)| *n == name_or_path) {
            return Scenario::parse(name, text);
        }
        let path = std::path::Path::new(name_or_path);
        if !path.exists() {
            return Err(ScenarioError::Unknown(name_or_path.to_string()));
        }
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Read {
            path: name_or_path.to_string(),
            message: e.to_string(),
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Scenario::parse(&name, &text)
    }

    pub fn parse(name: &str, text: &str) -> Result<Scenario, ScenarioError> {
        let mut steps = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let err = |message: String| ScenarioError::Line {
                name: name.to_string(),
                line,
                message,
            };
            let words = split_words(raw).map_err(err)?;
            if words.is_empty() {
                continue;
            }
            let (offset_ms, rest) = match words[0].strip_prefix('+') {
                Some(offset) => (parse_duration(offset).map_err(err)?, &words[1..]),
                None => (0, &words[..]),
            };
            let Some((verb, args)) = rest.split_first() else {
                return Err(err("an offset with no action".into()));
            };
            let action = parse_action(verb, args).map_err(err)?;
            steps.push(Step {
                offset_ms,
                action,
                line,
            });
        }
        Ok(Scenario {
            name: name.to_string(),
            steps,
        })
    }
}

fn arg(args: &[String], i: usize) -> String {
    args.get(i).cloned().unwrap_or_default()
}

fn parse_action(verb: &str, args: &[String]) -> Result<Action, String> {
    let need = |n: usize| -> Result<(), String> {
        if args.len() < n {
            Err(format!("{verb} needs {n} argument(s)"))
        } else {
            Ok(())
        }
    };
    Ok(match verb {
        "prompt" => Action::Prompt {
            text: args.join(" "),
        },
        "work" => {
            need(1)?;
            Action::Work {
                ms: parse_duration(&args[0])?,
                label: args[1..].join(" "),
            }
        }
        "say" => Action::Say {
            text: args.join(" "),
        },
        "tool" => {
            need(1)?;
            Action::Tool {
                name: arg(args, 0),
                arg: args[1..].join(" "),
            }
        }
        "permission" => {
            need(1)?;
            Action::Permission {
                tool: arg(args, 0),
                arg: args[1..].join(" "),
            }
        }
        "question" | "question-multi" => {
            need(1)?;
            Action::Question {
                text: arg(args, 0),
                options: args[1..].to_vec(),
                multi: verb == "question-multi",
            }
        }
        "plan" => Action::Plan {
            text: args.join(" "),
        },
        "subagents" => {
            need(2)?;
            let count = args[0]
                .parse()
                .map_err(|_| format!("subagents: bad count {:?}", args[0]))?;
            Action::Subagents {
                count,
                ms: parse_duration(&args[1])?,
            }
        }
        "stop" if args.first().map(String::as_str) == Some("background") => Action::StopBackground,
        "stop" => Action::Stop,
        "exit" => Action::Exit,
        "loop" => Action::Loop,
        "drop-hooks" => Action::DropHooks,
        other => return Err(format!("unknown action {other:?}")),
    })
}

/// `250` or `250ms` (milliseconds), `1.5s`, `8m`.
pub fn parse_duration(s: &str) -> Result<u64, String> {
    let (num, factor) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60_000.0)
    } else {
        (s, 1.0)
    };
    match num.parse::<f64>() {
        Ok(v) if v >= 0.0 && v.is_finite() => Ok((v * factor).round() as u64),
        _ => Err(format!("bad duration {s:?}")),
    }
}

/// Words and double-quoted strings (with `\"` and `\\`), up to a `#`.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '#' {
            break;
        } else if c == '"' {
            chars.next();
            let mut word = String::new();
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some('\\') => match chars.next() {
                        Some(e) => word.push(e),
                        None => return Err("unfinished escape".into()),
                    },
                    Some(ch) => word.push(ch),
                    None => return Err("unterminated string".into()),
                }
            }
            words.push(word);
        } else {
            let mut word = String::new();
            while let Some(&ch) = chars.peek() {
                if ch.is_whitespace() {
                    break;
                }
                word.push(ch);
                chars.next();
            }
            words.push(word);
        }
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_offsets_actions_and_quoted_args() {
        let s = Scenario::parse(
            "t",
            "# a comment\nprompt \"say pong\"\n+1.5s work 800 Thinking hard\n\
             +20 permission Write /tmp/out.txt # trailing\nquestion \"Which color?\" Red Blue\nstop\n",
        )
        .unwrap();
        let actions: Vec<_> = s.steps.iter().map(|s| (s.offset_ms, &s.action)).collect();
        assert_eq!(
            actions,
            vec![
                (
                    0,
                    &Action::Prompt {
                        text: "say pong".into()
                    }
                ),
                (
                    1500,
                    &Action::Work {
                        ms: 800,
                        label: "Thinking hard".into()
                    }
                ),
                (
                    20,
                    &Action::Permission {
                        tool: "Write".into(),
                        arg: "/tmp/out.txt".into()
                    }
                ),
                (
                    0,
                    &Action::Question {
                        text: "Which color?".into(),
                        options: vec!["Red".into(), "Blue".into()],
                        multi: false,
                    }
                ),
                (0, &Action::Stop),
            ]
        );
        assert_eq!(s.steps[2].line, 4);
    }

    #[test]
    fn errors_name_the_line() {
        let err = Scenario::parse("bad", "prompt\n+10 dance\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "scenario bad, line 2: unknown action \"dance\""
        );
        assert!(Scenario::parse("bad", "work\n").is_err());
        assert!(Scenario::parse("bad", "say \"open\n").is_err());
        assert!(Scenario::parse("bad", "+x stop\n").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("250"), Ok(250));
        assert_eq!(parse_duration("250ms"), Ok(250));
        assert_eq!(parse_duration("1.5s"), Ok(1500));
        assert_eq!(parse_duration("8.5m"), Ok(510_000));
        assert!(parse_duration("-1").is_err());
    }

    #[test]
    fn every_builtin_parses_and_ends_its_turns() {
        for (name, text) in BUILTINS {
            let s = Scenario::parse(name, text).unwrap();
            assert!(!s.steps.is_empty(), "{name} is empty");
            let first = s.steps.iter().find(|s| s.action != Action::DropHooks);
            assert!(
                matches!(first.map(|s| &s.action), Some(Action::Prompt { .. })),
                "{name} must start with a prompt"
            );
        }
    }

    #[test]
    fn unknown_name_lists_the_builtins() {
        let err = Scenario::load("no-such-scenario").unwrap_err();
        assert!(err.to_string().contains("permission"), "{err}");
    }
}
