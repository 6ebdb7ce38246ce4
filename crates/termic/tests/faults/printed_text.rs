//! Issue 27: printed_text (tests land with the fix).
