//! Issue 27: disk_full (tests land with the fix).
