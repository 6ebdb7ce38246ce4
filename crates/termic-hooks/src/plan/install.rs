//! The install plan: directories, one-time backup, generated files, the
//! manifest, then the config edit. The config never points at a script
//! that is not there yet, and the manifest is a journal: it records the
//! config bytes about to be written BEFORE they are, so a crash at any
//! instant leaves a config that a later removal recognises (either the
//! bytes before or the bytes after this write, both in the record).

use std::path::{Path, PathBuf};

use super::{
    config, refuse_read_only, refuse_untrusted, refuse_unwritable, sha256, Action, Change,
    FileState, InstallFacts, InstallPlan, PlanError, Snapshot,
};
use crate::agents::ConfigEntry;
use crate::edit::EditError;
use crate::manifest::{ConfigRecord, Manifest, OwnedFile, PreInstallText, SCHEMA_VERSION};
use crate::target::{InstallTarget, TargetKind};

/// Mode of the manifest and backup: they may copy a config holding secrets.
const PRIVATE_MODE: u32 = 0o600;

/// Plans installing `target`'s hooks over the files in `snap`.
pub fn plan_install(
    target: &InstallTarget,
    snap: &Snapshot,
    facts: &InstallFacts,
) -> Result<InstallPlan, PlanError> {
    let adapter = target.schema().adapter();
    let entry = adapter.config_entry();
    if let (TargetKind::Host, Some(gate)) = (target.kind(), adapter.version_gate()) {
        if let Some(found) = gate.too_old(facts.versions.of(adapter.id())) {
            return Err(PlanError::AgentTooOld { gate, found });
        }
    }
    // Claude would run scripts from a dir another user can change.
    refuse_untrusted(snap, "install hooks")?;
    let manifest_path = target.path(&target.schema().manifest_file());
    let previous = snap
        .file(&manifest_path)
        .and_then(|f| Manifest::parse(&f.bytes));

    let mut changes = Vec::new();
    let mut backup = previous.as_ref().and_then(|m| m.backup.clone());
    let mut config_record = None;
    let mut config_change = None;

    if let Some(file) = entry.file() {
        let path = target.path(file);
        let current = snap.file(&path);
        let text = utf8(&path, current)?;
        if let Some(t) = text {
            adapter.refuse_install(target, &path, t)?;
        }
        let holds_ours = config::has_ours(target, entry, text);
        // A previous record describes this file only while the file is
        // something termic wrote this cycle, or still holds entries of
        // ours. A file with none of ours that termic did not write (a
        // write that never landed, then the agent's own edit) starts a new
        // cycle: it is the user's original now.
        let prev_rec = previous
            .as_ref()
            .and_then(|m| m.config.as_ref())
            .filter(|c| c.file == file)
            .filter(|c| holds_ours || current.is_some_and(|cur| c.wrote(&cur.bytes)));
        let record = prev_rec.map(|c| c.record.clone()).unwrap_or_default();
        let edit = config::install_edit(target, entry, text, &record).map_err(|source| {
            PlanError::Config {
                path: path.clone(),
                source,
            }
        })?;
        let after = edit.text.into_bytes();
        let last_written_sha256 = sha256(&after);
        config_record = Some(ConfigRecord {
            file: file.to_string(),
            earlier_written_sha256: earlier_written(current, prev_rec, &last_written_sha256),
            last_written_sha256,
            pre_install: pre_install(current, prev_rec, holds_ours),
            written: match entry {
                ConfigEntry::NamedEntry { .. } => Vec::new(),
                _ => config::grouped_handlers(target),
            },
            record: edit.record,
        });
        // Back up a shared config once, the first time termic touches it.
        let shared = entry.shared();
        if let (Some(cur), true, None, None) = (current, shared, &backup, prev_rec) {
            let rel = format!(
                "{}/{}",
                target.schema().backup_dir(),
                file.rsplit('/').next().unwrap_or(file)
            );
            let bpath = target.path(&rel);
            if snap.file(&bpath).is_none() {
                changes.push(write_change(
                    &bpath,
                    None,
                    cur.bytes.clone(),
                    PRIVATE_MODE,
                    "one-time backup of your config",
                ));
            }
            backup = Some(rel);
        }
        if edit.changed {
            if let Some(c) = current {
                refuse_read_only(snap, &path, c)?;
            }
            let what = match entry {
                ConfigEntry::MergeGrouped { .. } | ConfigEntry::MergeFlat { .. } => {
                    "your settings: termic's hook entries added"
                }
                ConfigEntry::NamedEntry { .. } => "your hooks file: termic's named entry added",
                _ => "termic's hook config",
            };
            config_change = Some(write_change(
                &path,
                current,
                after,
                current.map_or(0o644, |c| c.mode),
                what,
            ));
        }
    }

    let mut files = Vec::new();
    for asset in adapter.assets() {
        let path = target.path(&asset.rel_path);
        let bytes = asset.contents.into_bytes();
        files.push(OwnedFile {
            path: asset.rel_path,
            sha256: sha256(&bytes),
            mode: asset.mode,
        });
        let current = snap.file(&path);
        if current.is_some_and(|c| c.bytes == bytes && c.mode == asset.mode) {
            continue;
        }
        let what = if asset.mode & 0o111 != 0 {
            "hook script"
        } else {
            "plugin"
        };
        changes.push(write_change(&path, current, bytes, asset.mode, what));
    }

    let mut created_dirs = previous
        .as_ref()
        .map(|m| m.created_dirs.clone())
        .unwrap_or_default();
    let mut manifest = Manifest {
        schema_version: SCHEMA_VERSION,
        termic_version: env!("CARGO_PKG_VERSION").to_string(),
        agent_id: target.agent_id().to_string(),
        target: target.label(),
        installed_at_unix: facts.now_unix,
        files,
        config: config_record,
        created_dirs: Vec::new(),
        backup,
    };
    // Nothing but the manifest would change: keep the old one as it is.
    if changes.is_empty() && config_change.is_none() {
        if let Some(prev) = &previous {
            manifest.installed_at_unix = prev.installed_at_unix;
            manifest.created_dirs = created_dirs.clone();
        }
    }
    let manifest_current = snap.file(&manifest_path);
    let mut all_paths: Vec<PathBuf> = changes
        .iter()
        .chain(config_change.iter())
        .map(|c| c.path.clone())
        .collect();
    all_paths.push(manifest_path.clone());
    let dirs = dirs_to_create(snap, &all_paths);
    for d in &dirs {
        let s = d.to_string_lossy().into_owned();
        if !created_dirs.contains(&s) {
            created_dirs.push(s);
        }
    }
    manifest.created_dirs = created_dirs;
    let manifest_bytes = manifest.to_bytes();
    if manifest_current.map(|m| &m.bytes) != Some(&manifest_bytes) {
        changes.push(write_change(
            &manifest_path,
            manifest_current,
            manifest_bytes,
            PRIVATE_MODE,
            "termic's install manifest",
        ));
    }

    let mut ordered: Vec<Change> = dirs
        .into_iter()
        .map(|d| Change {
            action: Action::CreateDir,
            path: d,
            before: None,
            after: None,
            mode: None,
            what: "directory",
            guard: None,
        })
        .collect();
    ordered.extend(changes);
    // Last: everything it points at exists, and the manifest already
    // knows the bytes it will hold.
    ordered.extend(config_change);
    refuse_unwritable(
        snap,
        InstallPlan {
            agent_id: target.agent_id().to_string(),
            target: target.label(),
            changes: ordered,
            left_alone: Vec::new(),
        },
    )
}

/// The config's text, or a refusal naming the file when it is not UTF-8.
fn utf8<'a>(path: &Path, current: Option<&'a FileState>) -> Result<Option<&'a str>, PlanError> {
    current
        .map(|c| {
            std::str::from_utf8(&c.bytes).map_err(|e| PlanError::Config {
                path: path.to_path_buf(),
                source: EditError::NotUtf8 {
                    offset: e.valid_up_to(),
                },
            })
        })
        .transpose()
}

/// How many earlier hashes a record keeps: each reinstall in one cycle
/// adds one, and a crash can only leave the one just before the last.
const EARLIER_KEPT: usize = 4;

/// The hashes of what termic wrote earlier this cycle (the previous
/// record's, when the file is still one of them), newest last.
fn earlier_written(
    current: Option<&FileState>,
    prev: Option<&ConfigRecord>,
    new_sha: &str,
) -> Vec<String> {
    let Some(rec) = current
        .zip(prev)
        .filter(|(c, r)| r.wrote(&c.bytes))
        .map(|(_, r)| r)
    else {
        return Vec::new();
    };
    let mut out: Vec<String> = rec
        .earlier_written_sha256
        .iter()
        .chain(std::iter::once(&rec.last_written_sha256))
        .filter(|h| h.as_str() != new_sha)
        .cloned()
        .collect();
    out.dedup();
    let skip = out.len().saturating_sub(EARLIER_KEPT);
    out.drain(..skip);
    out
}

/// The file before this install cycle touched it. A previous record stays
/// valid only while the file is still exactly what termic last wrote.
///
/// A file that already holds an entry of ours (an older termic, a lost
/// manifest) is never "the original": restoring it would bring back a
/// stale hook, so removal is structural then.
fn pre_install(
    current: Option<&FileState>,
    prev: Option<&ConfigRecord>,
    holds_ours: bool,
) -> PreInstallText {
    match (current, prev) {
        (Some(_), None) if holds_ours => PreInstallText::Unknown,
        (None, _) => PreInstallText::Absent,
        (Some(cur), Some(rec)) if rec.wrote(&cur.bytes) => rec.pre_install.clone(),
        (Some(_), Some(_)) => PreInstallText::Unknown,
        (Some(cur), None) => match String::from_utf8(cur.bytes.clone()) {
            Ok(text) => PreInstallText::Text(text),
            Err(_) => PreInstallText::Unknown,
        },
    }
}

fn write_change(
    path: &Path,
    current: Option<&FileState>,
    after: Vec<u8>,
    mode: u32,
    what: &'static str,
) -> Change {
    Change {
        action: if current.is_some() {
            Action::Modify
        } else {
            Action::Create
        },
        path: path.to_path_buf(),
        before: current.map(|c| c.bytes.clone()),
        after: Some(after),
        mode: Some(mode),
        what,
        guard: None,
    }
}

/// Missing ancestors of `paths`, outermost first.
fn dirs_to_create(snap: &Snapshot, paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for p in paths {
        for anc in p.ancestors().skip(1) {
            if snap.dir_missing(anc) && !dirs.iter().any(|d| d == anc) {
                dirs.push(anc.to_path_buf());
            }
        }
    }
    dirs.sort_by_key(|d| d.components().count());
    dirs
}
