//! Fault points for the crash-safety tests: every write, rename, unlink,
//! fsync, mkdir and rmdir termic makes to a user's disk passes through
//! [`point`], which counts it and, when a test armed that number, fails it
//! (EIO or ENOSPC) or aborts the process there (a real crash: no
//! destructor runs, the temp file stays, as after `kill -9`).
//!
//! Unarmed (always, outside tests) a point is one thread-local increment
//! and two flag reads; nothing is logged.
//! The state is per thread so tests in one binary do not see each other.

use std::cell::Cell;

/// What an armed fault point does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// `abort()` before the operation (a crash at that instant).
    Crash,
    /// A write writes half its bytes, then the process aborts.
    TornCrash,
    /// The operation fails with EIO.
    Eio,
    /// The operation fails with ENOSPC (a full disk).
    Enospc,
}

/// Which kind of operation a point is, for the test's report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Creating a file (a temp file).
    Create,
    Write,
    Fsync,
    Rename,
    Unlink,
    Mkdir,
    Rmdir,
    Link,
    Chmod,
}

thread_local! {
    static NO_EXCHANGE: Cell<bool> = const { Cell::new(false) };
    /// Set once a test called `arm` or `reset`: only then are ops logged.
    static RECORDING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
    static ARMED: Cell<Option<(u64, Fault)>> = const { Cell::new(None) };
    static LOG: std::cell::RefCell<Vec<Op>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Arms the `n`th point from now (1-based) with `fault`, and resets the count.
#[doc(hidden)]
pub fn arm(n: u64, fault: Fault) {
    RECORDING.with(|r| r.set(true));
    COUNT.with(|c| c.set(0));
    LOG.with(|l| l.borrow_mut().clear());
    ARMED.with(|a| a.set(Some((n, fault))));
}

/// Disarms, resets the count and returns the operations seen since the
/// last `arm`/`reset` (a test's enumeration of every point).
#[doc(hidden)]
pub fn reset() -> Vec<Op> {
    RECORDING.with(|r| r.set(true));
    ARMED.with(|a| a.set(None));
    COUNT.with(|c| c.set(0));
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

/// Counts one operation about to happen; `Err` when the test armed a
/// failure here. A torn write is reported to the caller as `Some(torn)`.
pub(crate) fn point(op: Op) -> std::io::Result<Option<Fault>> {
    let n = COUNT.with(|c| {
        let n = c.get() + 1;
        c.set(n);
        n
    });
    if RECORDING.with(Cell::get) {
        LOG.with(|l| l.borrow_mut().push(op));
    }
    match ARMED.with(Cell::get) {
        Some((at, fault)) if at == n => match fault {
            Fault::Crash => std::process::abort(),
            Fault::TornCrash if op == Op::Write => Ok(Some(Fault::TornCrash)),
            Fault::TornCrash => std::process::abort(),
            Fault::Eio => Err(std::io::Error::from_raw_os_error(libc::EIO)),
            Fault::Enospc => Err(std::io::Error::from_raw_os_error(libc::ENOSPC)),
        },
        _ => Ok(None),
    }
}

/// `point` for an operation with no torn variant.
pub(crate) fn check(op: Op) -> std::io::Result<()> {
    match point(op)? {
        Some(_) => std::process::abort(),
        None => Ok(()),
    }
}

/// Writes all of `bytes` through a fault point (a torn write writes half,
/// syncs it so it is really on disk, then aborts).
pub(crate) fn write_all(mut file: &std::fs::File, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    if point(Op::Write)?.is_some() {
        let _ = file.write_all(&bytes[..bytes.len() / 2]);
        let _ = file.sync_all();
        std::process::abort();
    }
    file.write_all(bytes)
}

/// `fsync` through a fault point.
pub(crate) fn sync(file: &std::fs::File) -> std::io::Result<()> {
    check(Op::Fsync)?;
    file.sync_all()
}

/// Makes this thread's writes take the fallback a file system without
/// `renameat2` flags gets (re-read, then rename), so tests cover it.
#[doc(hidden)]
pub fn force_no_exchange(on: bool) {
    NO_EXCHANGE.with(|n| n.set(on));
}

pub(crate) fn no_exchange() -> bool {
    NO_EXCHANGE.with(Cell::get)
}
