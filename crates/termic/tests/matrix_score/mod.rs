//! The state-truth matrix's scoring (issue 12 item 8), shared by the real
//! agents' runner (real_agents/matrix.rs) and the simulated agents' runner
//! (e2e_specs/matrix.rs): scenarios, channels, and how a cell's event-log
//! transitions are scored and printed as one markdown row of
//! docs/state-truth.md.

#![allow(dead_code)]

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scenario {
    Plain,
    Permission,
    /// A question (Claude's AskUserQuestion) or a plan approval: a person
    /// must answer, like a permission.
    Question,
    Escape,
    /// A long run: several tool calls with pauses, then text.
    ToolCalls,
    ApiError,
    /// A shell command started in the background (Claude's Bash with
    /// `run_in_background`) that still runs when the turn's answer ends:
    /// the task is working until it ends (a done before is false).
    Background,
    /// A subagent (Claude's `Agent` tool) that runs for a long time while
    /// the main agent is silent: a done before it finished is false.
    Subagent,
    /// Plan approval (Claude's ExitPlanMode in plan mode): a person must
    /// answer, like a permission.
    PlanApproval,
    /// Claude's AskUserQuestion with two questions at once.
    QuestionMany,
    /// A context compaction: a turn that fills the context, then a turn
    /// that Claude Code starts with a compaction (it compacts when the
    /// prompt is submitted): one done per turn, the second after its last
    /// model answer.
    Compaction,
    /// A context compaction inside one turn: a tool call, the turn's next
    /// request refused as too long (400), Claude Code's compaction (a
    /// summary streamed over 10 s, the main agent silent), then the turn's
    /// answer: one done, after that answer, and no error for the refusal.
    CompactionInTurn,
    /// Two turns with `/clear` between them (a new session id in the same
    /// task): one done per turn, none for the `/clear`.
    Clear,
    /// A resume picker on start (`claude --resume`), a pick, then a turn:
    /// a done before the turn's last answer is false (`work_ended`).
    Resume,
    /// A usage limit (429 with a reset time): rate limited is right, any
    /// done is false.
    UsageLimit,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Channel {
    Hooks,
    Native,
    Both,
    Neither,
}

impl Scenario {
    pub const ALL: [Scenario; 15] = [
        Scenario::Plain,
        Scenario::Permission,
        Scenario::Question,
        Scenario::Escape,
        Scenario::ToolCalls,
        Scenario::ApiError,
        Scenario::Background,
        Scenario::Subagent,
        Scenario::PlanApproval,
        Scenario::QuestionMany,
        Scenario::Compaction,
        Scenario::CompactionInTurn,
        Scenario::Clear,
        Scenario::Resume,
        Scenario::UsageLimit,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scenario::Plain => "plain",
            Scenario::Permission => "permission",
            Scenario::Question => "question",
            Scenario::Escape => "escape",
            Scenario::ToolCalls => "tool-calls",
            Scenario::ApiError => "error",
            Scenario::Background => "background",
            Scenario::Subagent => "subagent",
            Scenario::PlanApproval => "plan",
            Scenario::QuestionMany => "questions",
            Scenario::Compaction => "compaction",
            Scenario::CompactionInTurn => "compaction-in-turn",
            Scenario::Clear => "clear",
            Scenario::Resume => "resume",
            Scenario::UsageLimit => "usage-limit",
        }
    }

    /// A person must answer before the turn can end.
    pub fn asks(self) -> bool {
        matches!(
            self,
            Scenario::Permission
                | Scenario::Question
                | Scenario::PlanApproval
                | Scenario::QuestionMany
        )
    }
}

impl Channel {
    pub const ALL: [Channel; 4] = [
        Channel::Hooks,
        Channel::Native,
        Channel::Both,
        Channel::Neither,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Channel::Hooks => "hooks",
            Channel::Native => "native",
            Channel::Both => "both",
            Channel::Neither => "neither",
        }
    }
}

/// One transition of the cell's turn: unix ms, state entered, rule.
pub struct Step {
    pub ts: u64,
    pub to: String,
    pub rule: String,
}

pub struct Row {
    pub transitions: Vec<String>,
    pub false_dones: usize,
    pub missed_needs_you: usize,
    pub latency_ms: Option<f64>,
}

impl Row {
    /// Scores the turn's `steps` (from the prompt on). `work_ended`: for a
    /// long run or background work, when the agent's last piece of work ended (a done before it
    /// is false); `None` when unknown.
    pub fn score(scenario: Scenario, steps: &[Step], work_ended: Option<u64>) -> (usize, usize) {
        let first_needs = steps.iter().position(|l| l.to == "needs_you");
        // A done followed by a needs you later in the turn was not the end
        // either (a form's next step the screen did not show as a dialog).
        let last_needs = steps.iter().rposition(|l| l.to == "needs_you");
        let dones = |upto: usize| steps[..upto].iter().filter(|l| l.to == "done").count();
        match scenario {
            Scenario::Plain => (0, 0),
            Scenario::Permission
            | Scenario::Question
            | Scenario::PlanApproval
            | Scenario::QuestionMany => match (first_needs, last_needs) {
                (Some(_), Some(last)) => (dones(last), 0),
                _ => (dones(steps.len()), 1),
            },
            Scenario::Escape | Scenario::ApiError | Scenario::UsageLimit => (dones(steps.len()), 0),
            // One done per turn: the first turn's, and the second's after
            // its last answer; a third (`/clear`'s) is false.
            Scenario::Clear | Scenario::Compaction => {
                let all: Vec<&Step> = steps.iter().filter(|l| l.to == "done").collect();
                let end = work_ended.unwrap_or(u64::MAX);
                let early = all.iter().skip(1).filter(|l| l.ts < end).count();
                (early.max(all.len().saturating_sub(2)), 0)
            }
            Scenario::ToolCalls
            | Scenario::Background
            | Scenario::Subagent
            | Scenario::Resume
            | Scenario::CompactionInTurn => {
                let all: Vec<&Step> = steps.iter().filter(|l| l.to == "done").collect();
                let end = work_ended.unwrap_or(u64::MAX);
                let early = all.iter().filter(|l| l.ts < end).count();
                (early.max(all.len().saturating_sub(1)), 0)
            }
        }
    }

    pub fn new(
        scenario: Scenario,
        steps: &[Step],
        work_ended: Option<u64>,
        latency_ms: Option<f64>,
    ) -> Row {
        let (false_dones, missed_needs_you) = Row::score(scenario, steps, work_ended);
        Row {
            transitions: steps
                .iter()
                .map(|l| format!("{} ({})", l.to, l.rule))
                .collect(),
            false_dones,
            missed_needs_you,
            latency_ms,
        }
    }

    pub fn print(&self, agent: &str, scenario: Scenario, channel: Channel) {
        eprintln!(
            "| {agent} | {} | {} | {} | {} | {} | {} |",
            scenario.name(),
            channel.name(),
            self.transitions.join(" > "),
            self.false_dones,
            self.missed_needs_you,
            self.latency_ms
                .map_or("-".to_string(), |l| format!("{l:.0}")),
        );
    }
}

pub fn print_header() {
    eprintln!("| agent | scenario | channel | transitions | false dones | missed needs-you | signal to badge (ms) |");
    eprintln!("|---|---|---|---|---|---|---|");
}

/// Inspector timeline: ms from the last signal line before the first
/// transition to `to`, to that transition.
pub fn signal_to_badge(timeline: &[String], to: &str) -> Option<f64> {
    let time = |e: &String| e.split(' ').next()?.parse::<f64>().ok();
    let at = timeline
        .iter()
        .position(|e| e.contains(" transition ") && e.contains(&format!("-> {to}")))?;
    let t_transition = time(&timeline[at])?;
    let t_signal = timeline[..=at]
        .iter()
        .rev()
        .filter(|e| e.contains(" signal "))
        .find_map(time)?;
    Some(t_transition - t_signal)
}

/// The cells `TERMIC_MATRIX_CELLS` (`agent:scenario:channel,...`) picks
/// from `all` (default: all of them).
pub fn selected<T: Copy>(all: Vec<(String, T)>) -> Vec<T> {
    let filter = std::env::var("TERMIC_MATRIX_CELLS").ok();
    all.into_iter()
        .filter(|(id, _)| {
            filter
                .as_ref()
                .is_none_or(|f| f.split(',').any(|c| c == id))
        })
        .map(|(_, cell)| cell)
        .collect()
}
