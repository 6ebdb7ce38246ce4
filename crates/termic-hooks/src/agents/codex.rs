//! Codex: its terminal already reports its state (titles and OSC 7501), so
//! termic installs nothing for it. A Docker task still mounts its config dir.

use super::status_only::StatusOnly;

pub static CODEX: StatusOnly =
    StatusOnly::not_needed("codex", "not needed (its terminal already reports this)")
        .with_config_dir(".codex");
