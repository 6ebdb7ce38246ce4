//! Byte-exact uninstall: restore the pre-install bytes when the file is
//! still exactly what termic wrote, else fall back to the structural removal.

use termic_hooks::edit::{
    install_grouped_hooks, remove_grouped_hooks, sha256_hex, uninstall, EditError, InstallRecord,
    PreInstall, Uninstall,
};

use super::support::{is_ours, wanted};

/// A file whose structural removal could not give the original back on
/// its own: a user `[ ]` with inner blanks and no record passed.
const ORIGINAL: &str = "{\n  \"hooks\": {\"Stop\": [ ]}\n}\n";

fn installed() -> termic_hooks::edit::Edit {
    install_grouped_hooks(
        Some(ORIGINAL),
        &wanted(),
        &is_ours,
        &InstallRecord::default(),
    )
    .unwrap()
}

#[test]
fn untouched_file_gets_its_pre_install_bytes_back() {
    let edit = installed();
    let written = sha256_hex(edit.text.as_bytes());
    let structural =
        |_: &str| -> Result<termic_hooks::edit::Edit, EditError> { panic!("not needed") };
    let outcome = uninstall(
        edit.text.as_bytes(),
        &written,
        PreInstall::Bytes(ORIGINAL.as_bytes()),
        structural,
    )
    .unwrap();
    assert_eq!(
        outcome,
        Uninstall::RestoreOriginal(ORIGINAL.as_bytes().to_vec())
    );
    let upper = written.to_uppercase();
    let outcome = uninstall(
        edit.text.as_bytes(),
        &upper,
        PreInstall::Absent,
        |_| unreachable!(),
    )
    .unwrap();
    assert_eq!(outcome, Uninstall::DeleteFile, "termic created it");
}

#[test]
fn a_file_changed_since_install_takes_the_structural_path() {
    let edit = installed();
    let written = sha256_hex(edit.text.as_bytes());
    let changed = edit
        .text
        .replace("{\n  \"hooks\"", "{\n  \"model\": \"opus\",\n  \"hooks\"");
    let structural = |text: &str| remove_grouped_hooks(text, &wanted(), &is_ours, &edit.record);
    let outcome = uninstall(
        changed.as_bytes(),
        &written,
        PreInstall::Bytes(ORIGINAL.as_bytes()),
        structural,
    )
    .unwrap();
    let Uninstall::Edited(removed) = outcome else {
        panic!("expected the structural path, got {outcome:?}")
    };
    assert_eq!(
        removed.text,
        ORIGINAL.replace("{\n  \"hooks\"", "{\n  \"model\": \"opus\",\n  \"hooks\"")
    );
}

#[test]
fn without_a_backup_the_structural_path_is_taken_even_when_untouched() {
    let edit = installed();
    let written = sha256_hex(edit.text.as_bytes());
    let structural = |text: &str| remove_grouped_hooks(text, &wanted(), &is_ours, &edit.record);
    let outcome = uninstall(
        edit.text.as_bytes(),
        &written,
        PreInstall::Unknown,
        structural,
    )
    .unwrap();
    assert_eq!(
        outcome,
        Uninstall::Edited(
            remove_grouped_hooks(&edit.text, &wanted(), &is_ours, &edit.record).unwrap()
        )
    );
    let Uninstall::Edited(removed) = outcome else {
        unreachable!()
    };
    assert_eq!(removed.text, ORIGINAL, "the record restores `[ ]` too");
}

#[test]
fn a_changed_file_that_is_not_utf8_is_refused() {
    let outcome = uninstall(
        b"{\"a\": \"\xff\"}",
        "00",
        PreInstall::Bytes(b"{}"),
        |_| unreachable!(),
    );
    assert_eq!(outcome, Err(EditError::NotUtf8 { offset: 7 }));
}

#[test]
fn sha256_hex_is_the_standard_digest() {
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}
