//! Issue 27: replies_flood (tests land with the fix).
