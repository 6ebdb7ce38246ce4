//! Programs some tests need beyond what the README's set-up installs (zsh,
//! fish, dbus-daemon, vttest). `.ci/run` installs them and sets `CI`, and there a
//! missing one fails the test. On a machine with only the README's set-up
//! the test prints what it did not check and why, and returns: the README's
//! test command passes there, and says so in the output, instead of failing
//! on a tool the README never asked for.

#![allow(dead_code)]

/// Whether `program` is on PATH. When it is not: with `CI` set, panics
/// naming the package; otherwise prints that the calling test checked
/// nothing and returns false, so the test returns at once.
pub fn program(program: &str, package: &str) -> bool {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|d| d.join(program).is_file());
    if found {
        return true;
    }
    let why = format!("{program} is not installed (Debian: apt-get install -y {package})");
    if std::env::var_os("CI").is_some() {
        panic!("{why}; CI must run this test");
    }
    eprintln!("NOT CHECKED: {why}; .ci/run installs it and runs this test");
    false
}
