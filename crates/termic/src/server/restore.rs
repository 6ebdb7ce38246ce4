//! `restore` (issue 31): the tasks that ended with a server (killed,
//! crashed, stopped, a reboot) started again from their records in the
//! data dir's `lost/` (see `termic_runtime::journal`), each in its
//! directory, with its name and number where free. An agent is started in
//! its own conversation with its resume option (the built-in's
//! [`crate::agents::builtin::Resume`]); one that cannot resume starts
//! fresh and the answer says so. A command task runs its command again, a
//! shell task a shell.
//!
//! A record leaves `lost/` when its task is started again or forgotten; a
//! task that cannot start (its directory is gone) keeps its record and the
//! answer says why.

use std::path::{Path, PathBuf};

use anyhow::Result;
use termic_runtime::journal::{self, Restorable, TaskRecord};

use super::protocol::{RestoreAction, RestoreRequest, Restored};
use super::{lock, os_env, task_size, Server};
use crate::agents::command::{COMMAND_PROFILE, SHELL_PROFILE};
use crate::app::overlays::unique_name;
use crate::app::services::Services;
use crate::workspace::services::WorkspaceServices;

impl Server {
    pub(super) fn restore(&self, req: RestoreRequest) -> Result<Vec<Restored>> {
        let mut found = journal::restorable(&self.paths.data_dir);
        if !req.tasks.is_empty() {
            found.retain(|r| {
                req.tasks.iter().any(|t| {
                    *t == r.record.name || r.record.number.is_some_and(|n| t == &n.to_string())
                })
            });
        }
        let mut answer = Vec::new();
        for r in found {
            let mut told = told(&r.record);
            match req.action {
                RestoreAction::List => {}
                RestoreAction::Forget => {
                    journal::take_restorable(&r);
                }
                RestoreAction::Start => self.start_again(&req, &r, &mut told),
            }
            answer.push(told);
        }
        Ok(answer)
    }

    /// Start one task again; a failure is said in `told.error` and its
    /// record stays.
    fn start_again(&self, req: &RestoreRequest, r: &Restorable, told: &mut Restored) {
        let record = &r.record;
        let cwd = PathBuf::from(&record.cwd);
        if record.argv_cut {
            told.error = Some("its command line was too long to keep whole".into());
            return;
        }
        if !cwd.is_dir() {
            told.error = Some(format!("its directory {} is gone", record.cwd));
            return;
        }
        // Taken now, so two clients never start it twice.
        if !journal::take_restorable(r) {
            told.error = Some("another client restored it".into());
            return;
        }
        match self.spawn_restored(req, record, told) {
            Ok(row) => told.row = Some(row),
            Err(e) => {
                told.error = Some(format!("{e:#}"));
                // Back in lost/, to restore later.
                if let Some(bytes) = record.to_bytes() {
                    let _ = journal::write_atomic(&r.path, &bytes);
                }
            }
        }
    }

    fn spawn_restored(
        &self,
        req: &RestoreRequest,
        record: &TaskRecord,
        told: &mut Restored,
    ) -> Result<super::protocol::TaskRow> {
        let cwd = PathBuf::from(&record.cwd);
        let mut services =
            WorkspaceServices::new(self.paths.clone(), cwd, req.path_var.clone().into())?;
        services.set_client_env(os_env(req.env.clone()));
        let size = task_size(req.cols, req.rows);
        let taken: Vec<String> = self
            .runtime
            .tasks()
            .into_iter()
            .map(|t| t.meta.name)
            .collect();
        let name = if taken.contains(&record.name) {
            unique_name(&record.name, taken.iter().map(String::as_str))
        } else {
            record.name.clone()
        };
        let profile = record.profile.as_deref();
        let (launch, args) = if is_plain(record) {
            // The command as the user gave it (a shell's integrated argv is
            // made again by the launch).
            let argv = match &record.args {
                Some(args) => args.clone(),
                None if profile == Some(SHELL_PROFILE) => {
                    record.argv[..1.min(record.argv.len())].to_vec()
                }
                None => record.argv.clone(),
            };
            (services.launch_command(&argv, &name, false, size)?, argv)
        } else {
            let user_args = record.args.clone().unwrap_or_default();
            let base = record.profile.as_deref().unwrap_or(&record.agent);
            let mut args = match crate::agents::builtin::resume_args(
                base,
                record.session.as_deref(),
                &saved_at_home,
            ) {
                Ok(resume) => {
                    told.resumed = true;
                    resume
                }
                Err(why) => {
                    told.note = Some(why);
                    Vec::new()
                }
            };
            args.extend(user_args.iter().cloned());
            let launch = services.launch(&record.agent, &name, false, size, &args)?;
            self.runtime
                .set_hooks_wired(&launch.spec.agent, launch.hooks_wired);
            (launch, user_args)
        };
        let spec = launch.spec.clone();
        // The journal keeps no review base: a restored task's changes are
        // counted from its restore (taken before it starts, as for `run`).
        let base = crate::review::take_base(
            &spec.cwd,
            record.worktree.as_deref().map(Path::new),
            &crate::review::snapshot_key(&spec.name),
        )
        .map_err(|e| e.to_string());
        let wanted = record.number.and_then(|n| u32::try_from(n).ok());
        let id = self
            .runtime
            .spawn_numbered(launch.spec, &req.outputs, wanted)?;
        lock(&self.specs).insert(
            id.0,
            crate::app::Launched {
                spec,
                worktree: record.worktree.as_ref().map(PathBuf::from),
                outputs: req.outputs.clone(),
                base,
            },
        );
        // The restored task's record: what it was started from (not the
        // resume arguments: the next restore asks again), its worktree,
        // and the conversation it continues until a hook says another.
        let (worktree, session) = (record.worktree.clone(), record.session.clone());
        let snapshot = lock(&self.specs)
            .get(&id.0)
            .and_then(|l| l.base.as_ref().ok().and_then(|b| b.reference.clone()));
        let _ = self.runtime.journal_update(id, |r| {
            r.args = Some(args);
            r.worktree = worktree;
            r.session = session;
            r.snapshot = snapshot;
        });
        self.changed();
        self.row(id)
            .ok_or_else(|| anyhow::anyhow!("the task vanished as it started"))
    }
}

/// Whether `record` is a command or shell task's.
fn is_plain(record: &TaskRecord) -> bool {
    matches!(
        record.profile.as_deref(),
        Some(COMMAND_PROFILE | SHELL_PROFILE)
    )
}

/// Whether `path` (relative to the user's home) exists: where an agent
/// keeps a conversation it saved.
fn saved_at_home(path: &str) -> bool {
    std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .is_some_and(|home| home.join(path).exists())
}

/// An agent's resume arguments, or why it starts fresh.
fn resume_of(record: &TaskRecord) -> Result<Vec<String>, String> {
    let base = record.profile.as_deref().unwrap_or(&record.agent);
    crate::agents::builtin::resume_args(base, record.session.as_deref(), &saved_at_home)
}

/// A record as the answer tells it, before anything is done: an agent
/// says whether it will continue its conversation, or why not.
fn told(record: &TaskRecord) -> Restored {
    let (resumed, note) = if is_plain(record) {
        (false, None)
    } else {
        match resume_of(record) {
            Ok(_) => (true, None),
            Err(why) => (false, Some(why)),
        }
    };
    Restored {
        name: record.name.clone(),
        number: record.number,
        agent: record.agent.clone(),
        cwd: record.cwd.clone(),
        command: record.command(),
        session: record.session.clone(),
        resumed,
        note,
        error: None,
        row: None,
    }
}
