//! Files and directories termic owns: delete only what is ours, create and
//! remove our directories, keep one backup of the user's original.

use std::fs::{DirBuilder, File};
use std::io::ErrorKind;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use super::commit::TempFile;
use super::fault::{self, Op};
use super::snapshot::read_config;
use super::sweep::sweep_temps;
use super::FsError;

/// What [`delete_if_unchanged`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeleteOutcome {
    Deleted,
    /// Nothing there.
    Missing,
    /// Someone changed it since we wrote it: kept.
    Changed,
    /// It is a symlink now (a dotfiles manager's): kept.
    IsLink,
}

/// Deletes `path` only if it holds exactly `expected`.
pub fn delete_if_unchanged(path: &Path, expected: &[u8]) -> Result<DeleteOutcome, FsError> {
    match std::fs::symlink_metadata(path) {
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(DeleteOutcome::Missing),
        Err(err) => return Err(FsError::read(path, err)),
        Ok(meta) if meta.file_type().is_symlink() => return Ok(DeleteOutcome::IsLink),
        Ok(meta) if !meta.is_file() => {
            return Err(FsError::NotAFile {
                path: path.to_path_buf(),
            })
        }
        Ok(_) => {}
    }
    let bytes = std::fs::read(path).map_err(|e| FsError::read(path, e))?;
    if bytes != expected {
        return Ok(DeleteOutcome::Changed);
    }
    fault::check(Op::Unlink)
        .and_then(|()| std::fs::remove_file(path))
        .map_err(|e| FsError::write(path, e))?;
    if let Some(dir) = path.parent() {
        let _ = fault::check(Op::Fsync).and_then(|()| sync_dir(dir));
    }
    Ok(DeleteOutcome::Deleted)
}

/// Creates `dir` and its missing parents (0755); returns the ones created,
/// outermost first, for the caller to record.
pub fn create_dirs(dir: &Path) -> Result<Vec<PathBuf>, FsError> {
    let missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(Path::to_path_buf)
        .collect();
    for d in missing.iter().rev() {
        let made = fault::check(Op::Mkdir).and_then(|()| DirBuilder::new().mode(0o755).create(d));
        match made {
            Err(err) if err.kind() != ErrorKind::AlreadyExists => {
                return Err(FsError::write(d, err))
            }
            _ => {}
        }
    }
    Ok(missing.into_iter().rev().collect())
}

/// Removes `dir` if it exists and is empty; true if it was removed.
pub fn remove_dir_if_empty(dir: &Path) -> Result<bool, FsError> {
    match fault::check(Op::Rmdir).and_then(|()| std::fs::remove_dir(dir)) {
        Ok(()) => Ok(true),
        Err(err)
            if err.kind() == ErrorKind::NotFound || err.kind() == ErrorKind::DirectoryNotEmpty =>
        {
            Ok(false)
        }
        Err(err) => Err(FsError::write(dir, err)),
    }
}

/// What [`backup_once`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackupOutcome {
    Created,
    /// A backup was already there (an earlier install made it): untouched.
    AlreadyExists,
    /// No original file to back up.
    NoOriginal,
}

/// Copies `original` (through links) to `backup` unless `backup` exists.
/// The copy is 0600: settings files can hold tokens.
pub fn backup_once(original: &Path, backup: &Path) -> Result<BackupOutcome, FsError> {
    if std::fs::symlink_metadata(backup).is_ok() {
        return Ok(BackupOutcome::AlreadyExists);
    }
    let Some(bytes) = read_config(original)?.bytes else {
        return Ok(BackupOutcome::NoOriginal);
    };
    let dir = backup
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    create_dirs(dir)?;
    sweep_temps(dir, backup);
    // The temp file is 0600 from creation and removed when dropped.
    let temp = TempFile::create(dir, backup)?;
    // A hard link never replaces an existing backup (rename would).
    let written = temp
        .write_synced(&bytes)
        .and_then(|()| fault::check(Op::Link))
        .and_then(|()| std::fs::hard_link(temp.path(), backup));
    drop(temp);
    match written {
        Ok(()) => {
            let _ = fault::check(Op::Fsync).and_then(|()| sync_dir(dir));
            Ok(BackupOutcome::Created)
        }
        Err(err) if err.kind() == ErrorKind::AlreadyExists => Ok(BackupOutcome::AlreadyExists),
        Err(err) => Err(FsError::write(backup, err)),
    }
}

/// fsync of a directory, so a rename or unlink in it survives a crash.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Who runs termic, for [`foreign`]: the effective uid, and the gid of the
/// user's own private group when they have one (see [`private_gid`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Me {
    pub euid: u32,
    pub private_gid: Option<u32>,
}

/// The `stat` values [`foreign`] looks at (symlinks already followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub uid: u32,
    pub gid: u32,
    /// Permission bits with setuid, setgid and sticky (`0o1777`).
    pub mode: u32,
    pub dir: bool,
}

/// Why a file or directory is another user's to change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Foreign {
    /// Owned by another user (never root: see [`foreign`]).
    Owner { uid: u32 },
    /// Writable by a group that is not the user's own private group.
    GroupWritable { gid: u32 },
    /// Writable by every user.
    WorldWritable,
}

/// THE ownership rule, for every file termic writes in a user's config dirs
/// and every directory it writes into or places scripts in (config.toml and
/// its dir, an agent's config dir, termic's hooks folder there, opencode's
/// plugins dir). Pure: the stat values in, the reason out.
///
/// - Owned by a uid other than ours and not root: another user's. Root is
///   trusted (it can change anything anyway), and Docker leaves root-owned
///   dirs in a mounted config dir.
/// - Writable by every user: refused, unless a directory with the sticky
///   bit (as /tmp: nobody may rename or delete another's entry in it).
/// - Writable by its group: refused unless the group is the user's own
///   private group (Debian's user private groups with umask 002 make every
///   dir 0775 in the user's own group, which nobody else is in), or a
///   directory with the sticky bit.
///
/// A file nobody else owns or can write, in a dir nobody else can, is
/// termic's to write. ACLs are not looked at (docs/decisions.md).
pub fn foreign(me: Me, st: Stat) -> Option<Foreign> {
    if st.uid != me.euid && st.uid != 0 {
        return Some(Foreign::Owner { uid: st.uid });
    }
    if st.dir && st.mode & 0o1000 != 0 {
        return None;
    }
    if st.mode & 0o002 != 0 {
        return Some(Foreign::WorldWritable);
    }
    if st.mode & 0o020 != 0 && Some(st.gid) != me.private_gid {
        return Some(Foreign::GroupWritable { gid: st.gid });
    }
    None
}

/// The private-group test as a pure function: the group is the user's own
/// when it is their primary group, carries their user name, and lists no
/// member but them (the user private group convention of Debian, Fedora,
/// Arch and others).
pub fn private_gid(
    user: &str,
    primary_gid: u32,
    group: Option<(u32, &str, &[String])>,
) -> Option<u32> {
    let (gid, name, members) = group?;
    (gid == primary_gid && name == user && members.iter().all(|m| m == user)).then_some(gid)
}

/// A file or directory that [`foreign`] refused, with the names a person
/// reads (resolved at the edge; `None` when the id has no name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Untrusted {
    /// The path as termic found it (symlinks followed).
    pub path: PathBuf,
    pub dir: bool,
    /// Permission bits (`0o775`).
    pub mode: u32,
    pub why: Foreign,
    /// The owner's user name, or the group's name.
    pub name: Option<String>,
}

impl Untrusted {
    /// One sentence for a person: the path, the owner or who can write it,
    /// and the fix. `doing` is what termic would have done there, for a
    /// directory ("install hooks", "write its config").
    pub fn describe(&self, doing: &str) -> String {
        let path = self.path.display();
        let refusal = if self.dir {
            format!("termic will not {doing} there")
        } else {
            "termic will not replace it".to_string()
        };
        let it = if self.dir { "directory" } else { "file" };
        match self.why {
            Foreign::Owner { uid } => {
                let who = match &self.name {
                    Some(name) => format!("user {name}"),
                    None if uid == 0 => "user root".to_string(),
                    None => format!("uid {uid}"),
                };
                format!(
                    "{path} is owned by {who}, not by you; {refusal}. Fix: chown the {it} to you, or remove it"
                )
            }
            Foreign::GroupWritable { gid } => {
                let group = match &self.name {
                    Some(name) => format!("group {name}"),
                    None => format!("group {gid}"),
                };
                format!(
                    "{path} is writable by {group} (mode {:o}), so another user could change it; \
                     {refusal}. Fix: chmod g-w {path}",
                    self.mode
                )
            }
            Foreign::WorldWritable => format!(
                "{path} is writable by every user (mode {:o}); {refusal}. Fix: chmod go-w {path}",
                self.mode
            ),
        }
    }
}

/// The user running termic, looked up once per call (`/etc/passwd` and
/// `/etc/group` through libc).
pub fn me() -> Me {
    // SAFETY: geteuid and getegid cannot fail.
    let (euid, egid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let private = user_name(euid).and_then(|user| {
        let group = group_entry(egid);
        private_gid(
            &user,
            egid,
            group
                .as_ref()
                .map(|(name, members)| (egid, name.as_str(), members.as_slice())),
        )
    });
    Me {
        euid,
        private_gid: private,
    }
}

/// The [`foreign`] verdict on `path` (symlinks followed), with names; `None`
/// when it is fine or does not exist.
pub fn untrusted(me: Me, path: &Path) -> Option<Untrusted> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    let st = Stat {
        uid: meta.uid(),
        gid: meta.gid(),
        mode: meta.mode() & 0o7777,
        dir: meta.is_dir(),
    };
    let why = foreign(me, st)?;
    Some(named(path, st, why))
}

/// An [`Untrusted`] for `why`, with the owner's or group's name looked up.
pub fn named(path: &Path, st: Stat, why: Foreign) -> Untrusted {
    let name = match why {
        Foreign::Owner { uid } => user_name(uid),
        Foreign::GroupWritable { gid } => group_entry(gid).map(|(name, _)| name),
        Foreign::WorldWritable => None,
    };
    Untrusted {
        path: path.to_path_buf(),
        dir: st.dir,
        mode: st.mode & 0o7777,
        why,
        name,
    }
}

/// The directory a write of `path` lands in: its parent when it exists,
/// else the nearest existing ancestor (where termic would create the rest).
pub fn write_dir(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .filter(|d| !d.as_os_str().is_empty())
        .find(|d| std::fs::metadata(d).is_ok())
        .map(Path::to_path_buf)
}

/// Refuses a write of `path` (symlinks followed) when the file, or the
/// directory the write lands in, is another user's by [`foreign`].
/// Nothing is written.
pub fn refuse_untrusted(path: &Path) -> Result<(), FsError> {
    let target = super::resolve_target(path)?;
    refuse_untrusted_target(&target)
}

/// [`refuse_untrusted`] for a path with no symlink left to follow.
pub(crate) fn refuse_untrusted_target(target: &Path) -> Result<(), FsError> {
    let me = me();
    let dir = write_dir(target).unwrap_or_else(|| PathBuf::from("."));
    // The directory first: it is the wider problem and the one to fix.
    if let Some(u) = untrusted(me, &dir).or_else(|| untrusted(me, target)) {
        return Err(FsError::Untrusted(Box::new(u)));
    }
    Ok(())
}

fn user_name(uid: u32) -> Option<String> {
    let mut buf = vec![0u8; 4096];
    // SAFETY: zeroed passwd is a valid out-parameter for getpwuid_r.
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut out: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call; buf outlives the reads.
    let rc =
        unsafe { libc::getpwuid_r(uid, &mut pwd, buf.as_mut_ptr().cast(), buf.len(), &mut out) };
    if rc != 0 || out.is_null() || pwd.pw_name.is_null() {
        return None;
    }
    // SAFETY: pw_name points into buf, NUL-terminated by libc.
    let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
    Some(name.to_string_lossy().into_owned())
}

/// A group's name and listed members.
fn group_entry(gid: u32) -> Option<(String, Vec<String>)> {
    let mut buf = vec![0u8; 64 * 1024];
    // SAFETY: zeroed group is a valid out-parameter for getgrgid_r.
    let mut grp: libc::group = unsafe { std::mem::zeroed() };
    let mut out: *mut libc::group = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the call; buf outlives the reads.
    let rc =
        unsafe { libc::getgrgid_r(gid, &mut grp, buf.as_mut_ptr().cast(), buf.len(), &mut out) };
    if rc != 0 || out.is_null() || grp.gr_name.is_null() {
        return None;
    }
    // SAFETY: gr_name and gr_mem point into buf, NUL-terminated (gr_mem by
    // a null pointer) by libc.
    unsafe {
        let name = std::ffi::CStr::from_ptr(grp.gr_name)
            .to_string_lossy()
            .into_owned();
        let mut members = Vec::new();
        let mut p = grp.gr_mem;
        while !p.is_null() && !(*p).is_null() {
            members.push(std::ffi::CStr::from_ptr(*p).to_string_lossy().into_owned());
            p = p.add(1);
        }
        Some((name, members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ME: Me = Me {
        euid: 1000,
        private_gid: Some(1000),
    };

    fn st(uid: u32, gid: u32, mode: u32, dir: bool) -> Stat {
        Stat {
            uid,
            gid,
            mode,
            dir,
        }
    }

    #[test]
    fn another_users_dir_or_file_is_foreign_but_roots_is_not() {
        assert_eq!(
            foreign(ME, st(1001, 1001, 0o755, true)),
            Some(Foreign::Owner { uid: 1001 })
        );
        assert_eq!(
            foreign(ME, st(1001, 1000, 0o644, false)),
            Some(Foreign::Owner { uid: 1001 })
        );
        // Even a sticky 1777 dir is refused when another user owns it.
        assert_eq!(
            foreign(ME, st(1001, 1001, 0o1777, true)),
            Some(Foreign::Owner { uid: 1001 })
        );
        assert_eq!(foreign(ME, st(0, 0, 0o755, true)), None);
        assert_eq!(foreign(ME, st(1000, 1000, 0o700, true)), None);
        assert_eq!(foreign(ME, st(1000, 1000, 0o644, false)), None);
        // Root running termic: another user's dir is theirs, its own fine.
        let root = Me {
            euid: 0,
            private_gid: Some(0),
        };
        assert_eq!(
            foreign(root, st(1000, 1000, 0o755, true)),
            Some(Foreign::Owner { uid: 1000 })
        );
        assert_eq!(foreign(root, st(0, 0, 0o755, true)), None);
    }

    #[test]
    fn world_writable_is_foreign_unless_a_sticky_dir() {
        assert_eq!(
            foreign(ME, st(1000, 1000, 0o777, true)),
            Some(Foreign::WorldWritable)
        );
        assert_eq!(
            foreign(ME, st(1000, 1000, 0o666, false)),
            Some(Foreign::WorldWritable)
        );
        assert_eq!(
            foreign(ME, st(0, 0, 0o777, true)),
            Some(Foreign::WorldWritable),
            "root's dir, but anyone can write it"
        );
        assert_eq!(foreign(ME, st(0, 0, 0o1777, true)), None, "/tmp");
        assert_eq!(foreign(ME, st(1000, 1000, 0o1777, true)), None);
        // The sticky bit means nothing on a file.
        assert_eq!(
            foreign(ME, st(1000, 1000, 0o1666, false)),
            Some(Foreign::WorldWritable)
        );
    }

    #[test]
    fn group_writable_is_foreign_unless_the_users_private_group() {
        assert_eq!(
            foreign(ME, st(1000, 1000, 0o775, true)),
            None,
            "Debian umask 002"
        );
        assert_eq!(foreign(ME, st(1000, 1000, 0o664, false)), None);
        assert_eq!(
            foreign(ME, st(1000, 50, 0o775, true)),
            Some(Foreign::GroupWritable { gid: 50 })
        );
        assert_eq!(
            foreign(ME, st(1000, 50, 0o664, false)),
            Some(Foreign::GroupWritable { gid: 50 })
        );
        assert_eq!(
            foreign(ME, st(1000, 50, 0o755, true)),
            None,
            "readable only"
        );
        assert_eq!(foreign(ME, st(1000, 50, 0o1775, true)), None, "sticky");
        // No private group (a shared primary group): any g+w is refused.
        let shared = Me {
            euid: 1000,
            private_gid: None,
        };
        assert_eq!(
            foreign(shared, st(1000, 1000, 0o775, true)),
            Some(Foreign::GroupWritable { gid: 1000 })
        );
    }

    #[test]
    fn a_private_group_is_the_primary_one_named_after_the_user_with_no_one_else() {
        let none: &[String] = &[];
        let alone = ["alice".to_string()];
        let shared = ["alice".to_string(), "bob".to_string()];
        assert_eq!(
            private_gid("alice", 1000, Some((1000, "alice", none))),
            Some(1000)
        );
        assert_eq!(
            private_gid("alice", 1000, Some((1000, "alice", &alone))),
            Some(1000)
        );
        assert_eq!(
            private_gid("alice", 1000, Some((1000, "alice", &shared))),
            None
        );
        assert_eq!(private_gid("alice", 100, Some((100, "users", none))), None);
        assert_eq!(
            private_gid("alice", 1000, Some((1001, "alice", none))),
            None
        );
        assert_eq!(private_gid("alice", 1000, None), None);
    }

    #[test]
    fn the_message_names_the_path_the_owner_and_the_fix() {
        let u = Untrusted {
            path: PathBuf::from("/home/a/.claude"),
            dir: true,
            mode: 0o755,
            why: Foreign::Owner { uid: 1001 },
            name: Some("bob".into()),
        };
        assert_eq!(
            u.describe("install hooks"),
            "/home/a/.claude is owned by user bob, not by you; termic will not install hooks \
             there. Fix: chown the directory to you, or remove it"
        );
        let g = Untrusted {
            why: Foreign::GroupWritable { gid: 50 },
            name: None,
            mode: 0o775,
            ..u.clone()
        };
        assert_eq!(
            g.describe("write"),
            "/home/a/.claude is writable by group 50 (mode 775), so another user could change \
             it; termic will not write there. Fix: chmod g-w /home/a/.claude"
        );
        let w = Untrusted {
            why: Foreign::WorldWritable,
            dir: false,
            mode: 0o666,
            ..u
        };
        assert_eq!(
            w.describe("write"),
            "/home/a/.claude is writable by every user (mode 666); termic will not replace it. \
             Fix: chmod go-w /home/a/.claude"
        );
    }
}
