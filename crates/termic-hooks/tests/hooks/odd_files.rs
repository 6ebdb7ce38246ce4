//! Odd files where a config should be: each refused at once by the one read
//! (`fsio::read_regular`), naming the path, and the writability rule.

use std::time::{Duration, Instant};

use termic_hooks::fsio::{read_regular, replace_permission, FileMeta, Foreign, Me, Permission};

fn refused_fast(path: &std::path::Path, fix: &str) {
    let start = Instant::now();
    let err = read_regular(path).expect_err("refused").to_string();
    let took = start.elapsed();
    assert!(took < Duration::from_secs(1), "{path:?} took {took:?}");
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains(fix), "{err}");
    eprintln!("{took:?} {err}");
}

#[test]
fn fifo_socket_device_link_directory_huge_and_dangling_are_refused_within_1s() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    let c = std::ffi::CString::new(p("fifo").to_str().unwrap()).unwrap();
    // SAFETY: valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    refused_fast(&p("fifo"), "Move it away");
    let _sock = std::os::unix::net::UnixListener::bind(p("sock")).unwrap();
    refused_fast(&p("sock"), "Move it away");
    std::os::unix::fs::symlink("/dev/zero", p("zero")).unwrap();
    refused_fast(&p("zero"), "Move it away");
    std::fs::create_dir(p("dir")).unwrap();
    refused_fast(&p("dir"), "is a directory, not a file: move it away");
    std::fs::write(p("huge"), vec![b' '; 20 * 1024 * 1024]).unwrap();
    refused_fast(&p("huge"), "16 MiB");
    std::os::unix::fs::symlink(p("nowhere"), p("dangling")).unwrap();
    refused_fast(&p("dangling"), "Create the target or remove the link");
    assert!(read_regular(&p("absent")).unwrap().is_none());
}

#[test]
fn writability_refuses_no_write_bit_denied_access_and_another_owner_even_for_root() {
    let meta = |uid, mode| FileMeta {
        mode,
        uid,
        gid: 0,
        dev: 0,
        ino: 0,
        len: 0,
        mtime_ns: 0,
    };
    let me = |euid| Me {
        euid,
        private_gid: None,
    };
    // Root (access always passes): a 0444 file and another user's file are refused.
    assert_eq!(
        replace_permission(me(0), &meta(0, 0o444), true),
        Permission::ReadOnly
    );
    assert_eq!(
        replace_permission(me(0), &meta(1000, 0o644), true),
        Permission::NotYours(Foreign::Owner { uid: 1000 })
    );
    assert_eq!(
        replace_permission(me(0), &meta(0, 0o644), true),
        Permission::Writable
    );
    // A user and a root-owned 0644 file in their own dir: access refuses.
    assert_eq!(
        replace_permission(me(1000), &meta(0, 0o644), false),
        Permission::ReadOnly
    );
    // Group-writable but another user's: still theirs.
    assert_eq!(
        replace_permission(me(1000), &meta(1001, 0o664), true),
        Permission::NotYours(Foreign::Owner { uid: 1001 })
    );
    assert_eq!(
        replace_permission(me(1000), &meta(1000, 0o600), true),
        Permission::Writable
    );
}

#[test]
fn a_real_file_owned_by_another_uid_is_not_ours_to_replace() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(&path, b"{}").unwrap();
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: valid path. Fails unless root: then the test has nothing to check.
    if unsafe { libc::chown(c.as_ptr(), 4242, 4242) } != 0 {
        eprintln!("not root: chown impossible, covered by the pure test");
        return;
    }
    let (_, meta) = read_regular(&path).unwrap().unwrap();
    assert_eq!(
        termic_hooks::fsio::may_replace(&path, &meta),
        Permission::NotYours(Foreign::Owner { uid: 4242 })
    );
}
