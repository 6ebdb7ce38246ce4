//! Issue 27: orphans (tests land with the fix).
