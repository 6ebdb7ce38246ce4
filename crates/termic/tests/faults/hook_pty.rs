//! Issue 27: hook_pty (tests land with the fix).
