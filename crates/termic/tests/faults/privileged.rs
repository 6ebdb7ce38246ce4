//! What the `#[ignore]`d fault tests need from `.ci/run`: root, and a second
//! local user named in `TERMIC_OTHER_USER`. Asked for by name, so a missing
//! precondition fails the test with the reason instead of skipping it.

#![allow(dead_code)]

/// The second local user's name, uid and gid. Panics with the reason when
/// the test is not run as root or `TERMIC_OTHER_USER` is not set.
pub fn other_user() -> (String, u32, u32) {
    assert_eq!(
        effective_uid(),
        0,
        "this fault test needs root: run it through .ci/run's fault step"
    );
    let name = std::env::var("TERMIC_OTHER_USER")
        .expect("TERMIC_OTHER_USER is not set: .ci/run's fault step creates the user and sets it");
    let out = std::process::Command::new("id")
        .args(["-u", &name])
        .output()
        .expect("id");
    let uid: u32 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("uid of TERMIC_OTHER_USER");
    let out = std::process::Command::new("id")
        .args(["-g", &name])
        .output()
        .expect("id");
    let gid: u32 = String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("gid of TERMIC_OTHER_USER");
    (name, uid, gid)
}

fn effective_uid() -> u32 {
    // SAFETY: geteuid cannot fail and touches no memory.
    unsafe { libc::geteuid() }
}
