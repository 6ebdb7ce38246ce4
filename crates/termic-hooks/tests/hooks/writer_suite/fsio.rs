//! The I/O edge on real files in temp dirs: links, modes, owners,
//! concurrent writers, deletes, backups.

use std::cell::Cell;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use termic_hooks::edit::{install_grouped_hooks, remove_grouped_hooks, EditError, InstallRecord};
use termic_hooks::fsio::{
    backup_once, create_dirs, delete_if_unchanged, edit_file, read_config, remove_dir_if_empty,
    write_atomic, write_if_unchanged, BackupOutcome, Change, DeleteOutcome, EditFileError, FsError,
    WriteOptions, EDIT_ATTEMPTS,
};

use super::support::{is_ours, wanted};

const SETTINGS: &str = "{\n  \"model\": \"opus\",\n  \"env\": {\"A\": \"1\"}\n}\n";

fn write(path: &Path, text: &str, mode: u32) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().mode() & 0o7777
}

/// The install as a caller runs it: through `edit_file`.
fn install_at(
    path: &Path,
    options: &WriteOptions,
) -> Result<termic_hooks::fsio::EditOutcome, EditFileError<EditError>> {
    edit_file(path, options, |snapshot| {
        let edit = install_grouped_hooks(
            snapshot.text()?,
            &wanted(),
            &is_ours,
            &InstallRecord::default(),
        )?;
        Ok(if edit.changed {
            Change::Write(edit.text.into_bytes())
        } else {
            Change::Keep
        })
    })
}

/// Names in `dir` that look like our temp files.
fn temp_files(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path());
    entries
        .filter(|p| p.to_string_lossy().ends_with(".tmp"))
        .collect()
}

#[test]
fn a_symlinked_settings_file_stays_a_symlink_with_its_mode() {
    let home = tempfile::tempdir().unwrap();
    let real = home.path().join("dotfiles/claude/settings.json");
    write(&real, SETTINGS, 0o600);
    let link = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("../dotfiles/claude/settings.json", &link).unwrap();

    let outcome = install_at(&link, &WriteOptions::default()).unwrap();
    assert_eq!(
        outcome.before.target,
        home.path().join(".claude/../dotfiles/claude/settings.json")
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("../dotfiles/claude/settings.json")
    );
    let now = std::fs::read_to_string(&real).unwrap();
    assert!(now.contains("termic-hooks/stop.sh"));
    assert_eq!(mode(&real), 0o600, "0600 stays 0600");
    assert!(temp_files(real.parent().unwrap()).is_empty());
    assert!(outcome.report.unwrap().dir_synced);
}

#[test]
fn a_chain_of_links_is_followed_to_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    write(&real, SETTINGS, 0o640);
    std::os::unix::fs::symlink(&real, dir.path().join("one")).unwrap();
    std::os::unix::fs::symlink("one", dir.path().join("two")).unwrap();
    let snapshot = read_config(&dir.path().join("two")).unwrap();
    assert_eq!(snapshot.target, real);
    assert_eq!(snapshot.bytes.as_deref(), Some(SETTINGS.as_bytes()));
    assert_eq!(snapshot.meta.unwrap().mode, 0o640);
}

#[test]
fn a_dangling_link_is_refused_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("settings.json");
    std::os::unix::fs::symlink("missing/settings.json", &link).unwrap();
    let err = install_at(&link, &WriteOptions::default()).unwrap_err();
    assert!(
        matches!(err, EditFileError::Fs(FsError::DanglingLink { .. })),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("which does not exist; termic will not replace the link"),
        "{err}"
    );
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(!dir.path().join("missing").exists());
}

#[test]
fn a_link_loop_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("b", dir.path().join("a")).unwrap();
    std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
    assert!(matches!(
        read_config(&dir.path().join("a")),
        Err(FsError::LinkLoop { .. })
    ));
}

#[test]
fn owner_and_mode_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    write(&path, SETTINGS, 0o640);
    let running_as_root = std::fs::metadata(dir.path()).unwrap().uid() == 0;
    if running_as_root {
        // Another user's file is refused (issue 27): root keeps a foreign group.
        std::os::unix::fs::chown(&path, Some(0), Some(4322)).unwrap();
    }
    let before = std::fs::metadata(&path).unwrap();
    install_at(&path, &WriteOptions::default()).unwrap();
    let after = std::fs::metadata(&path).unwrap();
    assert_ne!(
        before.ino(),
        after.ino(),
        "replaced by rename, not written in place"
    );
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    assert_eq!(after.mode() & 0o7777, 0o640);
    if !running_as_root {
        eprintln!("NOTICE: not root, so owner preservation was checked only for our own uid");
    }
}

#[test]
fn a_new_file_gets_a_sane_mode_and_its_parent_dirs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a/b/settings.json");
    let outcome = install_at(&path, &WriteOptions::default()).unwrap();
    let report = outcome.report.unwrap();
    assert_eq!(
        report.created_dirs,
        vec![dir.path().join("a"), dir.path().join("a/b")]
    );
    assert!(report.dir_synced);
    assert_eq!(mode(&path), 0o644);
    assert_eq!(mode(&dir.path().join("a/b")), 0o755);

    let script = dir.path().join("a/b/stop.sh");
    let snapshot = read_config(&script).unwrap();
    assert!(snapshot.bytes.is_none());
    write_atomic(&snapshot, b"#!/bin/sh\nexit 0\n", &WriteOptions::script()).unwrap();
    assert_eq!(mode(&script), 0o755);
}

/// Installs once through `options` (whose seam lets another writer in):
/// the second attempt lands, with their "sonnet" and our entries.
fn install_keeps_theirs_and_ours(
    path: &Path,
    options: &WriteOptions<'_>,
) -> termic_hooks::fsio::EditOutcome {
    let outcome = install_at(path, options).unwrap();
    assert_eq!(outcome.attempts, 2, "the first attempt was undone");
    let now = std::fs::read_to_string(path).unwrap();
    assert!(
        now.contains("\"model\": \"sonnet\""),
        "their edit is kept: {now}"
    );
    assert!(
        now.contains("termic-hooks/stop.sh"),
        "ours landed too: {now}"
    );
    outcome
}

/// An in-place writer that had the file open writes into the old inode
/// right AFTER termic's swap: the compare after the exchange sees it, the
/// swap is undone and the edit re-merged, so both edits land.
#[test]
fn an_in_place_write_into_the_replaced_inode_after_the_swap_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    write(&path, SETTINGS, 0o644);
    let theirs = SETTINGS.replace("opus", "sonnet");
    let fired = Cell::new(false);
    let in_place = |held: &Path| {
        if !fired.replace(true) {
            // Same inode: truncate and write, as an editor that saves in place.
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(held)
                .unwrap();
            std::io::Write::write_all(&mut f, theirs.as_bytes()).unwrap();
        }
    };
    let options = WriteOptions {
        after_swap: Some(&in_place),
        ..WriteOptions::default()
    };
    install_keeps_theirs_and_ours(&path, &options);
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn a_concurrent_writer_is_detected_and_their_edit_kept() {
    concurrent_writer_is_detected_and_their_edit_kept();
}

/// The same where the file system has no `renameat2` flags (re-read, rename).
#[test]
fn without_the_exchange_a_concurrent_writer_is_still_detected() {
    termic_hooks::fsio::fault::force_no_exchange(true);
    concurrent_writer_is_detected_and_their_edit_kept();
    termic_hooks::fsio::fault::force_no_exchange(false);
}

fn concurrent_writer_is_detected_and_their_edit_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    write(&path, SETTINGS, 0o644);
    let theirs = SETTINGS.replace("opus", "sonnet");

    // One write: refused, their bytes stay, no temp file left.
    let snapshot = read_config(&path).unwrap();
    let interleave = |target: &Path| std::fs::write(target, &theirs).unwrap();
    let options = WriteOptions {
        before_commit: Some(&interleave),
        ..WriteOptions::default()
    };
    let err = write_atomic(&snapshot, b"{}", &options).unwrap_err();
    assert!(matches!(err, FsError::ConcurrentChange { .. }), "{err:?}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
    assert!(temp_files(dir.path()).is_empty());

    // edit_file: re-reads and re-applies, so both edits land.
    write(&path, SETTINGS, 0o644);
    let fired = Cell::new(false);
    let once = |target: &Path| {
        if !fired.replace(true) {
            std::fs::write(target, &theirs).unwrap();
        }
    };
    let options = WriteOptions {
        before_commit: Some(&once),
        ..WriteOptions::default()
    };
    let outcome = install_keeps_theirs_and_ours(&path, &options);
    assert_eq!(outcome.before.bytes.as_deref(), Some(theirs.as_bytes()));
}

#[test]
fn a_writer_that_never_stops_makes_edit_file_give_up_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    write(&path, SETTINGS, 0o644);
    let count = Cell::new(0u32);
    let always = |target: &Path| {
        count.set(count.get() + 1);
        std::fs::write(
            target,
            SETTINGS.replace("opus", &format!("model-{}", count.get())),
        )
        .unwrap();
    };
    let options = WriteOptions {
        before_commit: Some(&always),
        ..WriteOptions::default()
    };
    let err = install_at(&path, &options).unwrap_err();
    assert!(
        matches!(err, EditFileError::Fs(FsError::ConcurrentChange { .. })),
        "{err:?}"
    );
    assert_eq!(count.get(), EDIT_ATTEMPTS);
    let last = SETTINGS.replace("opus", &format!("model-{EDIT_ATTEMPTS}"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), last);
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn a_malformed_file_is_refused_without_writing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let bad = "{\n  \"model\": \"opus\",\n  // a comment\n}\n";
    write(&path, bad, 0o600);
    let before = std::fs::metadata(&path).unwrap();
    let err = install_at(&path, &WriteOptions::default()).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with(&format!(
            "{}: the file is not strict JSON (line 3",
            path.display()
        )),
        "{message}"
    );
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), bad);
    assert_eq!(
        (before.ino(), before.mtime_nsec(), before.mode()),
        (after.ino(), after.mtime_nsec(), after.mode())
    );
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn non_strict_corpus_files_are_refused_with_nothing_changed() {
    let Some(corpus) = super::corpus::corpus_files("claude") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut refused = 0;
    for (name, text) in corpus.iter().filter(|(_, t)| !super::corpus::is_strict(t)) {
        let path = dir.path().join("settings.json");
        write(&path, text, 0o644);
        let err = install_at(&path, &WriteOptions::default()).unwrap_err();
        assert!(
            matches!(
                err,
                EditFileError::Edit {
                    source: EditError::NotStrictJson { .. },
                    ..
                }
            ),
            "{name}: {err:?}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), *text, "{name}");
        refused += 1;
    }
    assert!(temp_files(dir.path()).is_empty());
    eprintln!("corpus claude on disk: {refused} non-strict files refused, bytes unchanged");
}

#[test]
fn install_then_remove_on_disk_deletes_a_file_termic_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".claude/settings.json");
    let installed =
        install_grouped_hooks(None, &wanted(), &is_ours, &InstallRecord::default()).unwrap();
    let snapshot = read_config(&path).unwrap();
    write_atomic(
        &snapshot,
        installed.text.as_bytes(),
        &WriteOptions::default(),
    )
    .unwrap();
    let outcome = edit_file(&path, &WriteOptions::default(), |snapshot| {
        let text = snapshot.text()?.unwrap_or_default();
        let edit = remove_grouped_hooks(text, &wanted(), &is_ours, &installed.record)?;
        Ok::<_, EditError>(if edit.delete_file {
            Change::Delete
        } else {
            Change::Write(edit.text.into_bytes())
        })
    })
    .unwrap();
    assert_eq!(outcome.applied, Change::Delete);
    assert!(!path.exists());
    assert!(remove_dir_if_empty(path.parent().unwrap()).unwrap());
}

#[test]
fn delete_if_unchanged_deletes_only_our_exact_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("termic.json");
    write(&path, "ours", 0o644);
    assert_eq!(
        delete_if_unchanged(&path, b"other").unwrap(),
        DeleteOutcome::Changed
    );
    assert!(path.exists());
    std::os::unix::fs::symlink(&path, dir.path().join("link")).unwrap();
    assert_eq!(
        delete_if_unchanged(&dir.path().join("link"), b"ours").unwrap(),
        DeleteOutcome::IsLink
    );
    assert_eq!(
        delete_if_unchanged(&path, b"ours").unwrap(),
        DeleteOutcome::Deleted
    );
    assert!(!path.exists());
    assert_eq!(
        delete_if_unchanged(&path, b"ours").unwrap(),
        DeleteOutcome::Missing
    );
}

#[test]
fn dirs_we_create_are_reported_and_removed_only_when_empty() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("x/y/z");
    assert_eq!(
        create_dirs(&deep).unwrap(),
        vec![dir.path().join("x"), dir.path().join("x/y"), deep.clone()]
    );
    assert!(create_dirs(&deep).unwrap().is_empty());
    std::fs::write(deep.join("user-file"), "x").unwrap();
    assert!(
        !remove_dir_if_empty(&deep).unwrap(),
        "a dir with the user's file stays"
    );
    std::fs::remove_file(deep.join("user-file")).unwrap();
    assert!(remove_dir_if_empty(&deep).unwrap());
    assert!(!remove_dir_if_empty(&deep).unwrap(), "already gone");
}

#[test]
fn backup_is_taken_once_and_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("settings.json");
    let backup = dir.path().join("termic-hooks/backup/settings.json");
    assert_eq!(
        backup_once(&original, &backup).unwrap(),
        BackupOutcome::NoOriginal
    );
    write(&original, SETTINGS, 0o644);
    assert_eq!(
        backup_once(&original, &backup).unwrap(),
        BackupOutcome::Created
    );
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), SETTINGS);
    assert_eq!(mode(&backup), 0o600);
    std::fs::write(&original, "changed").unwrap();
    assert_eq!(
        backup_once(&original, &backup).unwrap(),
        BackupOutcome::AlreadyExists
    );
    assert_eq!(
        std::fs::read_to_string(&backup).unwrap(),
        SETTINGS,
        "the first original wins"
    );
    assert!(temp_files(backup.parent().unwrap()).is_empty());
}

#[test]
fn write_if_unchanged_writes_only_over_the_bytes_the_plan_saw() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    write(&real, SETTINGS, 0o600);
    let link = dir.path().join("settings.json");
    std::os::unix::fs::symlink("real.json", &link).unwrap();
    let stale = write_if_unchanged(&link, Some(b"{}"), b"{\"x\": 1}", &WriteOptions::default());
    assert!(
        matches!(stale, Err(FsError::ConcurrentChange { .. })),
        "{stale:?}"
    );
    assert_eq!(std::fs::read_to_string(&real).unwrap(), SETTINGS);
    let report = write_if_unchanged(
        &link,
        Some(SETTINGS.as_bytes()),
        b"{\"x\": 1}",
        &WriteOptions::default(),
    )
    .unwrap();
    assert_eq!(report.target, real);
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "{\"x\": 1}");
    assert_eq!(mode(&real), 0o600);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let absent = dir.path().join("new.json");
    assert!(write_if_unchanged(&absent, Some(b"{}"), b"{}", &WriteOptions::default()).is_err());
    write_if_unchanged(&absent, None, b"{}", &WriteOptions::default()).unwrap();
    assert_eq!(mode(&absent), 0o644);
    let dangling = dir.path().join("dangling.json");
    std::os::unix::fs::symlink("gone/x.json", &dangling).unwrap();
    let err = write_if_unchanged(&dangling, None, b"{}", &WriteOptions::default()).unwrap_err();
    assert!(matches!(err, FsError::DanglingLink { .. }), "{err:?}");
}

#[test]
fn a_directory_or_non_utf8_file_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let as_dir = dir.path().join("settings.json");
    std::fs::create_dir(&as_dir).unwrap();
    let err = install_at(&as_dir, &WriteOptions::default()).unwrap_err();
    assert!(
        matches!(err, EditFileError::Fs(FsError::Directory { .. })),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("settings.json is a directory, not a file: move it away"),
        "{err}"
    );
    assert!(as_dir.is_dir());

    let latin1 = dir.path().join("latin1.json");
    std::fs::write(&latin1, b"{\"name\": \"caf\xe9\"}").unwrap();
    let err = install_at(&latin1, &WriteOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            EditFileError::Edit {
                source: EditError::NotUtf8 { offset: 13 },
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(std::fs::read(&latin1).unwrap(), b"{\"name\": \"caf\xe9\"}");
}

/// The whole flow a caller runs: back up once, install, the user touches
/// nothing, uninstall restores the original bytes exactly (mode too).
#[test]
fn backup_install_uninstall_on_disk_restores_the_original_bytes() {
    use termic_hooks::edit::{sha256_hex, uninstall, PreInstall, Uninstall};

    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    let original = "{\"hooks\": {\"Stop\": [ ]},\n \"model\" : \"opus\"}";
    write(&settings, original, 0o600);
    let backup = home
        .path()
        .join(".claude/termic-hooks/backup/settings.json");
    assert_eq!(
        backup_once(&settings, &backup).unwrap(),
        BackupOutcome::Created
    );
    let outcome = install_at(&settings, &WriteOptions::default()).unwrap();
    let Change::Write(written) = outcome.applied else {
        panic!("installed")
    };
    let last_written = sha256_hex(&written);

    let saved = std::fs::read(&backup).unwrap();
    let outcome = edit_file(&settings, &WriteOptions::default(), |snapshot| {
        let current = snapshot.bytes.as_deref().unwrap_or_default();
        let structural =
            |_: &str| -> Result<termic_hooks::edit::Edit, EditError> { unreachable!("untouched") };
        Ok::<_, EditError>(
            match uninstall(
                current,
                &last_written,
                PreInstall::Bytes(&saved),
                structural,
            )? {
                Uninstall::RestoreOriginal(bytes) => Change::Write(bytes),
                other => panic!("expected a restore, got {other:?}"),
            },
        )
    })
    .unwrap();
    assert!(matches!(outcome.applied, Change::Write(_)));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    assert_eq!(mode(&settings), 0o600);
}

#[test]
fn concurrent_backups_make_exactly_one_copy() {
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("settings.json");
    write(&original, SETTINGS, 0o644);
    let backup = dir.path().join("backup/settings.json");
    let outcomes: Vec<BackupOutcome> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..8)
            .map(|_| s.spawn(|| backup_once(&original, &backup).unwrap()))
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    assert_eq!(
        outcomes
            .iter()
            .filter(|o| **o == BackupOutcome::Created)
            .count(),
        1,
        "{outcomes:?}"
    );
    assert!(outcomes
        .iter()
        .all(|o| matches!(o, BackupOutcome::Created | BackupOutcome::AlreadyExists)));
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), SETTINGS);
    assert!(temp_files(backup.parent().unwrap()).is_empty());
}
