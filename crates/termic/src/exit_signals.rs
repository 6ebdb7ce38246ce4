//! SIGHUP, SIGTERM, SIGINT and SIGQUIT end a process that owns tasks the
//! way quitting does: the user's terminal is put back first (a client), then
//! every task's whole process tree is ended (SIGKILL after the grace period
//! for what ignores SIGHUP and SIGTERM), then the process exits with
//! 128 + the signal number, as a shell reports a death by that signal.
//!
//! The handler only writes the signal number to a pipe (the one thing a
//! signal handler may safely do); a thread reads it and does the work.
//! Nothing here ends the process: the main thread is woken and returns
//! through `main` with the status (the server through `serve`, a client
//! through [`caught`]).

use std::io::{self, Read};
use std::os::fd::FromRawFd;
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};

use termic_runtime::{lock, session};

/// The signals that end termic. SIGINT only arrives from `kill`: in raw
/// mode Ctrl-C is a key for the focused task.
const FATAL: [libc::c_int; 4] = [libc::SIGHUP, libc::SIGTERM, libc::SIGINT, libc::SIGQUIT];

/// The pipe's write end, for the handler (-1: not installed).
static PIPE_WRITE: AtomicI32 = AtomicI32::new(-1);

/// How the process ends on a fatal signal, when it ends itself.
static ON_FATAL: OnceLock<Box<dyn Fn(libc::c_int) + Send + Sync>> = OnceLock::new();

/// A client's fatal signal: which, and whether its ending (the terminal
/// put back, its tasks ended) is done.
struct Caught {
    signal: Option<libc::c_int>,
    done: bool,
}

static CAUGHT: Mutex<Caught> = Mutex::new(Caught {
    signal: None,
    done: false,
});
static CAUGHT_DONE: Condvar = Condvar::new();

/// What wakes a client's main thread once its ending is done.
type WakeFn = Box<dyn Fn() + Send>;
static WAKE: Mutex<Option<WakeFn>> = Mutex::new(None);

/// While held, a fatal signal wakes the client's main thread with `wake`
/// (shut its server socket, tell its app loop to stop) once the terminal
/// is put back and its tasks are ended; the main thread then asks
/// [`caught`] and returns the status. Called at once when the signal came
/// before the registration. One at a time; dropping it unregisters.
#[must_use = "the wake is unregistered when this is dropped"]
pub struct Wake(());

/// Registers `wake` (see [`Wake`]).
pub fn wake_on_fatal(wake: impl Fn() + Send + 'static) -> Wake {
    let mut slot = lock(&WAKE);
    if lock(&CAUGHT).done {
        wake();
    }
    *slot = Some(Box::new(wake));
    Wake(())
}

impl Drop for Wake {
    fn drop(&mut self) {
        *lock(&WAKE) = None;
    }
}

/// The fatal signal a client caught, once its ending is done (it waits
/// for that): the main thread returns [`exit_code`] of it. `None`: no
/// signal came.
pub fn caught() -> Option<libc::c_int> {
    let mut caught = lock(&CAUGHT);
    caught.signal?;
    while !caught.done {
        caught = CAUGHT_DONE
            .wait(caught)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
    }
    caught.signal
}

/// What `show` (a client's life on the terminal) returns, or, when a fatal
/// signal ended it, 128 + the signal: the terminal is back and nothing
/// more is said.
pub fn returning(show: impl FnOnce() -> anyhow::Result<ExitCode>) -> anyhow::Result<ExitCode> {
    let result = show();
    match caught() {
        Some(signal) => Ok(exit_code(signal)),
        None => result,
    }
}

/// 128 + the signal, as a shell reports a death by that signal.
pub fn exit_code(signal: libc::c_int) -> ExitCode {
    ExitCode::from(u8::try_from(128 + signal).unwrap_or(u8::MAX))
}

/// Register the process's own ending for a fatal signal: `work` (given the
/// signal) ends the tasks and makes the main thread return with 128 + the
/// signal; the signal thread then does nothing more. The server's: it
/// flushes each task's recording and held event-log record, removes its
/// socket and ends every task, as `termic server stop` does, and `serve`
/// returns. The first registration wins.
pub fn on_fatal_signal(work: impl Fn(libc::c_int) + Send + Sync + 'static) {
    let _ = ON_FATAL.set(Box::new(work));
}

extern "C" fn on_signal(signal: libc::c_int) {
    let fd = PIPE_WRITE.load(Ordering::Relaxed);
    if fd >= 0 {
        let byte = signal as u8;
        // SAFETY: write(2) is async-signal-safe; the fd stays open for the
        // life of the process. A full pipe (signals piling up) drops the byte.
        unsafe {
            libc::write(fd, (&byte as *const u8).cast(), 1);
        }
    }
}

/// What to do before ending the tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnExit {
    /// A process drawing on the user's terminal: leave raw mode and the
    /// alternate screen for good, so no later frame is drawn.
    RestoreTerminal,
    /// A process with no terminal (the server).
    Quiet,
}

/// Install the handlers (once per process; a second call is a no-op).
pub fn install(on_exit: OnExit) -> io::Result<()> {
    if PIPE_WRITE.load(Ordering::Relaxed) >= 0 {
        return Ok(());
    }
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: fds has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // The read end blocks; only the handler's write must never block.
    // SAFETY: fds[0] is ours and open.
    unsafe {
        let flags = libc::fcntl(fds[0], libc::F_GETFL);
        libc::fcntl(fds[0], libc::F_SETFL, flags & !libc::O_NONBLOCK);
    }
    // SAFETY: fds[0] was just created and is owned by nothing else.
    let mut read_end = unsafe { std::fs::File::from_raw_fd(fds[0]) };
    PIPE_WRITE.store(fds[1], Ordering::Relaxed);
    std::thread::Builder::new()
        .name("termic-signals".into())
        .spawn(move || {
            let mut byte = [0u8; 1];
            loop {
                match read_end.read(&mut byte) {
                    Ok(1) => exit_on(libc::c_int::from(byte[0]), on_exit),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    _ => return,
                }
            }
        })?;
    for signal in FATAL {
        // SAFETY: a zeroed sigaction with a plain handler and an empty mask.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

fn exit_on(signal: libc::c_int, on_exit: OnExit) {
    if let Some(work) = ON_FATAL.get() {
        work(signal);
        return;
    }
    {
        let mut caught = lock(&CAUGHT);
        if caught.signal.is_some() {
            // A second signal while the first is handled.
            return;
        }
        caught.signal = Some(signal);
    }
    // A client: its main thread may be about to draw a frame; from here on
    // whatever it draws is dropped (app::terminal's writer checks under
    // the stdout lock this takes).
    if on_exit == OnExit::RestoreTerminal {
        crate::app::terminal::restore_for_good();
    }
    session::end_every_task();
    {
        let mut caught = lock(&CAUGHT);
        caught.done = true;
        CAUGHT_DONE.notify_all();
    }
    if let Some(wake) = lock(&WAKE).as_ref() {
        wake();
    }
}
