//! Issue 27: notify_markup (tests land with the fix).
