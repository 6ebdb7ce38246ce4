//! Shared by the engine test binaries: the scripted-timeline format.
#![allow(dead_code)]

pub mod script;
