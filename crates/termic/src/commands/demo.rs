//! `termic demo` (built with the simulators).

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;

#[derive(Debug, Args)]
pub struct DemoArgs {}

pub fn run(_args: DemoArgs) -> Result<ExitCode> {
    bail!("termic demo is not built yet")
}
