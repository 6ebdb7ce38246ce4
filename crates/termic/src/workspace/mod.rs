//! What every workspace shares, the in-process one (`termic demo`) and an
//! attached client's app in the server: the real services behind the app
//! and the app's options from config.toml. Below the server and the
//! commands, which both use it (it used to live in `commands/workspace/`,
//! which made the server import the CLI's module).
//!
//! - [`services`]: the real agents, worktrees, hooks and settings behind the app.
//! - [`hooks_rows`]: hooks status to Settings rows and engine facts (pure).

pub mod hooks_rows;
pub mod services;

use anyhow::{Context, Result};

use crate::app::copy_mode::CopyKeys;
use crate::app::services::Services;
use crate::app::AppOptions;
use crate::input::PrefixKey;
use crate::notify::NotifySettings;

use self::services::WorkspaceServices;

/// The app's prefix key, notification settings, copy-mode keys and (when `may_show_wizard`
/// and it was never shown) the first-run wizard, from config.toml: the
/// in-process workspace's and an attached client's.
pub(crate) fn app_options(
    services: &mut WorkspaceServices,
    may_show_wizard: bool,
) -> Result<AppOptions> {
    let settings = &services.config.settings;
    let notify = NotifySettings {
        bell: settings.notifications.bell,
        desktop: settings.notifications.desktop,
        osc_fallback: settings.notifications.osc_fallback,
    };
    let prefix = match &settings.prefix_key {
        Some(spec) => PrefixKey::parse(spec).with_context(|| {
            format!("prefix_key = {spec:?} in {} is not a key termic knows; use ctrl-<letter> or ctrl-]", services.config.path.display())
        })?,
        None => PrefixKey::default_key(),
    };
    // tmux's `mode-keys`: the setting, else the editor of the terminal
    // that attaches (the server's own environment is whoever started it).
    let copy_keys = match settings.copy_keys.as_deref() {
        Some("vi") => CopyKeys::Vi,
        Some(_) => CopyKeys::Emacs,
        None => CopyKeys::from_editor(
            services.client_var("VISUAL").as_deref(),
            services.client_var("EDITOR").as_deref(),
        ),
    };
    let diff_syntax = settings.diff_syntax;
    let wizard = (may_show_wizard && !settings.wizard_shown).then(|| services.wizard(notify));
    Ok(AppOptions {
        prefix,
        notify,
        wizard,
        copy_keys,
        diff_syntax,
    })
}
