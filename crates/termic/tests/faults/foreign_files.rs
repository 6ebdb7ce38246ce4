//! Issue 27: foreign_files (tests land with the fix).
