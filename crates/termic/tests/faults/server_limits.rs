//! Issue 27: server_limits (tests land with the fix).
