//! The real [`Services`]: agents and detection from config.toml and PATH,
//! worktrees, hooks status and changes through `termic_hooks`, and settings
//! saved back into config.toml.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, Context, Result};
use termic_hooks::agents::{AgentSchema, Support};
use termic_hooks::plan::{plan_install, plan_remove, InstallFacts, InstallPlan};
use termic_hooks::status::{status_report, StatusReport};
use termic_hooks::target::{
    targets_for, AgentRef, ForbiddenRoots, InstallTarget, Paths, TargetKind,
};

use super::hooks_rows;
use crate::agents::detect::{find_on_path, is_executable_file};
use crate::agents::launch::{task_spec, LaunchRequest};
use crate::agents::AgentDef;
use crate::app::services::{Launch, Services, SettingsAction};
use crate::app::wiring::{FileStamp, WiringStamp};
use crate::config::edit::{save, SettingEdit};
use crate::config::{Config, Notifications};
use crate::notify::NotifySettings;
use crate::paths::TermicPaths;
use crate::ui::dialog::AgentChoice;
use crate::ui::settings::{HooksRow, PendingChange, RowAction};
use crate::ui::wizard::{HookChoice, WizardView};
use termic_runtime::TermSize;

pub struct WorkspaceServices {
    paths: TermicPaths,
    /// The directory termic was started in.
    cwd: PathBuf,
    /// `$PATH` at start-up: what "detected" means.
    path_var: OsString,
    pub config: Config,
    facts: InstallFacts,
    /// Per agent id: the files its wired status reads (resolving them runs
    /// git, so once; cleared when config.toml is re-read).
    status_files: HashMap<String, Vec<PathBuf>>,
    /// The environment of the client a task is started for (in the server),
    /// laid over the server's own: empty in-process.
    client_env: Vec<(OsString, OsString)>,
}

impl WorkspaceServices {
    /// termic's data dir (config.toml's sibling state: worktrees, logs).
    pub fn data_dir(&self) -> &std::path::Path {
        &self.paths.data_dir
    }

    pub fn new(paths: TermicPaths, cwd: PathBuf, path_var: OsString) -> Result<Self> {
        // A wrong value keeps its default and is a warning: a typo in
        // config.toml must not lock the user out of running tasks.
        let config = Config::load_lenient(&paths.config_dir);
        let mut services = WorkspaceServices {
            paths,
            cwd,
            path_var,
            config,
            facts: InstallFacts::default(),
            status_files: HashMap::new(),
            client_env: Vec::new(),
        };
        services.facts.versions =
            crate::agents::version::probe(&AgentSchema::all(), &services.path_var);
        // Containers an earlier termic left behind (it was killed, or
        // predates the watchdog): only a termic with Docker agents asks.
        if services
            .config
            .agents
            .all()
            .iter()
            .any(|a| a.docker.is_some())
        {
            crate::docker::sweep::start_once();
        }
        Ok(services)
    }

    /// Tasks started through these services get `env` (a client's) over
    /// the server's environment; an agent definition's own env still wins.
    /// A terminal multiplexer's variables (`TMUX`, ...) of the client are
    /// dropped, as the runtime drops its own.
    /// A variable of the client's environment (in the server), or of ours
    /// when there is no client (in-process).
    pub fn client_var(&self, name: &str) -> Option<String> {
        if self.client_env.is_empty() {
            return std::env::var(name).ok();
        }
        self.client_env
            .iter()
            .rfind(|(k, _)| k == name)
            .map(|(_, v)| v.to_string_lossy().into_owned())
    }

    pub fn set_client_env(&mut self, env: Vec<(OsString, OsString)>) {
        self.client_env = env
            .into_iter()
            .filter(|(k, _)| !termic_runtime::env::is_multiplexer_var(k))
            .collect();
    }

    /// `spec`'s env with the client's under it.
    fn with_client_env(&self, mut spec: termic_runtime::TaskSpec) -> termic_runtime::TaskSpec {
        if !self.client_env.is_empty() {
            let own = std::mem::take(&mut spec.env);
            spec.env = self.client_env.iter().cloned().chain(own).collect();
        }
        spec
    }

    /// The agent definition for `id`, or an error listing the known ones.
    pub fn check_agent(&self, id: &str) -> Result<&AgentDef> {
        self.config.agents.get(id).ok_or_else(|| {
            anyhow!(
                "unknown agent {id}: use one of {}, or define [agents.{id}] in {}, or run it as a command: termic run -- {id}",
                self.config.agents.ids().join(", "),
                self.config.path.display()
            )
        })
    }

    fn reload(&mut self) -> Result<()> {
        self.config = Config::load_lenient(&self.paths.config_dir);
        self.status_files.clear();
        Ok(())
    }

    /// The files `agent`'s wired status reads: its status target's snapshot.
    fn resolve_status_files(&self, agent: &str) -> Vec<PathBuf> {
        let Ok(def) = self.check_agent(agent) else {
            return Vec::new();
        };
        let (Some(schema), Ok(forbidden)) = (def.schema(), self.forbidden()) else {
            return Vec::new();
        };
        let label = hooks_rows::status_target(def);
        targets_for(schema, &self.agent_refs(), &self.hooks_paths(), &forbidden)
            .unwrap_or_default()
            .iter()
            .filter(|t| t.label() == label)
            .flat_map(termic_hooks::apply::snapshot_paths)
            .collect()
    }

    fn detected(&self, agent: &AgentDef) -> bool {
        find_on_path(agent.program(), &self.path_var, is_executable_file).is_some()
    }

    fn hooks_paths(&self) -> Paths {
        Paths {
            home: self.paths.home.clone(),
            data_dir: self.paths.data_dir.clone(),
        }
    }

    /// No install may land in the project termic runs in (the one rule,
    /// shared with `termic hooks`).
    fn forbidden(&self) -> Result<ForbiddenRoots> {
        Ok(crate::project::forbidden_roots(
            &self.paths.home,
            &self.cwd,
            &self.paths.data_dir,
        )?)
    }

    fn agent_refs(&self) -> Vec<AgentRef> {
        self.config
            .agents
            .all()
            .iter()
            .map(|a| AgentRef {
                id: a.id.clone(),
                base: Some(a.base.clone()),
            })
            .collect()
    }

    pub fn status(&self) -> Result<StatusReport> {
        let facts = InstallFacts {
            now_unix: now_unix(),
            ..self.facts.clone()
        };
        Ok(status_report(
            &self.agent_refs(),
            &self.hooks_paths(),
            &self.forbidden()?,
            &facts,
        ))
    }

    /// The targets one agent's toggle covers that exist (host always,
    /// Docker when its dir does).
    fn targets(&self, agent: &str) -> Result<Vec<InstallTarget>> {
        let schema = AgentSchema::from_id(agent)
            .ok_or_else(|| anyhow!("termic cannot install hooks for {agent}"))?;
        let all = targets_for(
            schema,
            &self.agent_refs(),
            &self.hooks_paths(),
            &self.forbidden()?,
        )?;
        Ok(all
            .into_iter()
            .filter(|t| *t.kind() == TargetKind::Host || t.dir().is_dir())
            .collect())
    }

    fn plans(&self, action: &SettingsAction) -> Result<Vec<InstallPlan>> {
        let facts = InstallFacts {
            now_unix: now_unix(),
            ..self.facts.clone()
        };
        self.targets(&action.agent)?
            .iter()
            .map(|t| {
                let snap = termic_hooks::apply::read_snapshot(t)?;
                let plan = match action.action {
                    RowAction::Remove => plan_remove(t, &snap)?,
                    RowAction::Install | RowAction::Reinstall => plan_install(t, &snap, &facts)?,
                };
                Ok(plan)
            })
            .collect()
    }

    fn save(&mut self, edits: &[SettingEdit]) -> Result<()> {
        self.config = save(&self.config.path, edits)?;
        Ok(())
    }
}

/// `stat` of `path` (following symlinks, as status reads it); `None` when
/// it is absent or cannot be stat'ed.
fn file_stamp(path: &Path) -> Option<FileStamp> {
    let m = std::fs::metadata(path).ok()?;
    let ns = |secs: i64, nsec: i64| i128::from(secs) * 1_000_000_000 + i128::from(nsec);
    Some(FileStamp {
        dev: m.dev(),
        ino: m.ino(),
        size: m.size(),
        mtime_ns: ns(m.mtime(), m.mtime_nsec()),
        ctime_ns: ns(m.ctime(), m.ctime_nsec()),
    })
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl WorkspaceServices {
    /// Where a new task runs: this directory, or a new worktree of it.
    fn place(&self, name: &str, worktree: bool) -> Result<(PathBuf, Option<PathBuf>)> {
        if worktree {
            let wt = crate::worktree::create(&self.paths.data_dir, &self.cwd, name)?;
            Ok((wt.path.clone(), Some(wt.path)))
        } else {
            Ok((self.cwd.clone(), None))
        }
    }
}

impl Services for WorkspaceServices {
    fn merge_how(&self) -> termic_review::merge::How {
        self.config.settings.review_merge
    }
    fn agent_choices(&self) -> Vec<AgentChoice> {
        self.config
            .agents
            .all()
            .iter()
            .map(|a| AgentChoice {
                id: a.id.clone(),
                detected: self.detected(a),
            })
            .collect()
    }

    fn in_repo(&self) -> bool {
        crate::worktree::repo_root(&self.cwd).is_ok()
    }

    fn launch(
        &mut self,
        agent: &str,
        name: &str,
        worktree: bool,
        size: TermSize,
        extra_args: &[String],
    ) -> Result<Launch> {
        let def = self.check_agent(agent)?.clone();
        // Before any worktree exists: a missing program leaves nothing behind.
        if !self.detected(&def) {
            return Err(anyhow!(def.not_found_message()));
        }
        if let Some(docker) = &def.docker {
            // The engine and the image first, so a stopped engine or a
            // missing image is one sentence, not docker's output in a task.
            crate::docker::engine::preflight(&def.id, &docker.image, &self.client_env)?;
            crate::docker::engine::start_watchdog();
            crate::docker::prepare_host_dir(&def, &self.paths.data_dir).with_context(|| {
                format!(
                    "cannot create {}, the config dir of Docker agent {}",
                    crate::docker::agent_config_dir(&self.paths.data_dir, &def.id).display(),
                    def.id
                )
            })?;
        }
        let (cwd, worktree) = self.place(name, worktree)?;
        let spec = task_spec(
            &def,
            &LaunchRequest {
                name,
                cwd,
                size,
                data_dir: &self.paths.data_dir,
                extra_args,
            },
        );
        let hooks_wired = self
            .wired()
            .into_iter()
            .any(|(id, wired)| id == def.id && wired);
        Ok(Launch {
            spec: self.with_client_env(spec),
            worktree,
            hooks_wired,
        })
    }

    fn user_shell(&self) -> String {
        self.client_var("SHELL")
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "/bin/sh".to_string())
    }

    fn launch_command(
        &mut self,
        argv: &[String],
        name: &str,
        worktree: bool,
        size: TermSize,
    ) -> Result<Launch> {
        let integration = if self.config.settings.shell_integration {
            let dir = termic_runtime::shell::integration_dir(&self.paths.data_dir);
            termic_runtime::shell::files::install(&dir)?;
            Some(dir)
        } else {
            None
        };
        let (cwd, worktree) = self.place(name, worktree)?;
        let req = LaunchRequest {
            name,
            cwd,
            size,
            data_dir: &self.paths.data_dir,
            extra_args: &[],
        };
        let client_env = &self.client_env;
        let spec = crate::agents::command::command_spec(argv, &req, integration.as_deref(), |k| {
            match client_env.iter().find(|(name, _)| name == k) {
                Some((_, value)) => Some(value.clone()),
                None if client_env.is_empty() => std::env::var_os(k),
                None => None,
            }
        });
        Ok(Launch {
            spec: self.with_client_env(spec),
            worktree,
            hooks_wired: false,
        })
    }

    fn remove_worktree(&mut self, path: &Path, force: bool) -> Result<()> {
        let repo = crate::worktree::repo_root(&self.cwd)?;
        // The error says the worktree was kept, git's reason and the fix.
        Ok(crate::worktree::remove(&repo, path, force)?)
    }

    fn discard_worktree(&mut self, path: &Path) -> Result<()> {
        let repo = crate::worktree::repo_root(&self.cwd)?;
        crate::worktree::discard(&repo, path)
            .with_context(|| format!("the worktree {} was left behind", path.display()))
    }

    fn hooks_rows(&mut self, native_seen: &[String]) -> Vec<HooksRow> {
        match self.status() {
            Ok(report) => hooks_rows::rows(&report, native_seen),
            Err(err) => vec![HooksRow {
                agent: "hooks".into(),
                state: crate::ui::settings::HooksState::Error {
                    message: crate::printed::error_text(&err),
                },
                ours_on_disk: false,
                native_seen: false,
                help: None,
            }],
        }
    }

    fn wired(&mut self) -> Vec<(String, bool)> {
        match self.status() {
            Ok(report) => hooks_rows::wired_per_agent(&report, &self.config.agents),
            Err(_) => Vec::new(),
        }
    }

    fn wiring_stamp(&mut self, agent: &str) -> WiringStamp {
        if !self.status_files.contains_key(agent) {
            let files = self.resolve_status_files(agent);
            self.status_files.insert(agent.to_owned(), files);
        }
        self.status_files[agent]
            .iter()
            .map(|path| (path.clone(), file_stamp(path)))
            .collect()
    }

    fn plan(&mut self, action: &SettingsAction) -> Result<PendingChange> {
        let plans = self.plans(action)?;
        let files = hooks_rows::plan_lines(&plans);
        if files.is_empty() {
            return Err(anyhow!("Nothing to change for {}.", action.agent));
        }
        Ok(PendingChange {
            agent: action.agent.clone(),
            action: action.action,
            files,
            warning: None,
        })
    }

    fn apply(&mut self, action: &SettingsAction) -> Result<String> {
        // The toggle is saved after the hooks: a config.toml that is not
        // ours to write stops an install before any hook is written.
        if action.action != RowAction::Remove {
            termic_hooks::fsio::refuse_untrusted(&self.config.path)?;
        }
        let mut changed = 0;
        for target in self.targets(&action.agent)? {
            let plan = match action.action {
                RowAction::Remove => termic_hooks::apply::remove(&target)?,
                RowAction::Install | RowAction::Reinstall => termic_hooks::apply::install(
                    &target,
                    &InstallFacts {
                        now_unix: now_unix(),
                        ..self.facts.clone()
                    },
                )?,
            };
            changed += plan.changes.len();
        }
        let on = action.action != RowAction::Remove;
        self.save(&[SettingEdit::HooksConsent {
            agent: action.agent.clone(),
            on,
        }])?;
        let verb = if on { "Installed" } else { "Removed" };
        Ok(format!(
            "{verb} {} hooks ({changed} changes).",
            action.agent
        ))
    }

    fn save_notify(&mut self, notify: NotifySettings) -> Result<()> {
        self.save(&[SettingEdit::Notifications(Notifications {
            bell: notify.bell,
            desktop: notify.desktop,
            osc_fallback: notify.osc_fallback,
        })])
    }

    fn wizard(&mut self, notify: NotifySettings) -> WizardView {
        let _ = self.reload();
        let detected: Vec<&AgentDef> = self
            .config
            .agents
            .all()
            .iter()
            .filter(|a| self.detected(a))
            .collect();
        let mut hooks: Vec<HookChoice> = Vec::new();
        let mut without_toggle = Vec::new();
        for agent in &detected {
            let Some(schema) = agent.schema() else {
                // An agent that needs no hooks says why, from its adapter.
                if let Some(Support::NotNeeded(why)) =
                    termic_hooks::agents::adapter(&agent.base).map(|a| a.support())
                {
                    without_toggle.push((agent.id.clone(), why.to_string()));
                }
                continue;
            };
            let id = schema.id().to_string();
            if hooks.iter().any(|h| h.agent == id) {
                continue;
            }
            let action = SettingsAction {
                agent: id.clone(),
                action: RowAction::Install,
            };
            // An install that would fail (an old Claude Code) gets no toggle.
            let files = match self.plans(&action) {
                Ok(plans) => hooks_rows::plan_lines(&plans),
                Err(err) => {
                    without_toggle.push((
                        id,
                        format!("cannot be wired: {}", crate::printed::error_text(&err)),
                    ));
                    continue;
                }
            };
            hooks.push(HookChoice {
                agent: id,
                install: self.config.settings.hooks_consent(schema.id()),
                files,
            });
        }
        WizardView::new(
            detected.iter().map(|a| a.id.clone()).collect(),
            without_toggle,
            hooks,
            notify,
        )
    }

    fn finish_wizard(&mut self, view: &WizardView) -> Result<Option<String>> {
        // One failing install neither stops the others nor loses the
        // notification choices and the "shown" mark.
        let mut said = Vec::new();
        for choice in view.hooks.iter().filter(|c| c.install) {
            let action = SettingsAction {
                agent: choice.agent.clone(),
                action: RowAction::Install,
            };
            said.push(match self.apply(&action) {
                Ok(msg) => msg,
                Err(err) => format!(
                    "{} hooks not installed: {}",
                    choice.agent,
                    crate::printed::error_text(&err)
                ),
            });
        }
        self.save_notify(view.notify)?;
        self.save(&[SettingEdit::WizardShown(true)])?;
        Ok((!said.is_empty()).then(|| said.join(" ")))
    }

    fn skip_wizard(&mut self) -> Result<()> {
        self.save(&[SettingEdit::WizardShown(true)])
    }
}
