//! Ctrl-C while a command runs: a flag the signal sets and long operations and scripts watch.
//!
//! At the console prompt Ctrl-C is a key that clears the line (rustyline reads it); while a
//! command or script runs it arrives as SIGINT and ends up here, so the command stops cleanly
//! instead of the process dying. A second Ctrl-C before the first was noticed exits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// Shared between the signal listener, the session and the script engine.
#[derive(Clone, Default)]
pub struct Interrupt(Arc<Inner>);

#[derive(Default)]
struct Inner {
    set: AtomicBool,
    notify: Notify,
}

impl Interrupt {
    /// Records a Ctrl-C; returns false when one was already pending (the caller may then exit).
    pub fn fire(&self) -> bool {
        let fresh = !self.0.set.swap(true, Ordering::SeqCst);
        self.0.notify.notify_waiters();
        fresh
    }

    pub fn is_set(&self) -> bool {
        self.0.set.load(Ordering::SeqCst)
    }

    /// Forgets a pending Ctrl-C (before the next console input).
    pub fn clear(&self) {
        self.0.set.store(false, Ordering::SeqCst);
    }

    /// Resolves at the next Ctrl-C, or at once if one is pending.
    pub async fn wait(&self) {
        loop {
            let notified = self.0.notify.notified();
            if self.is_set() {
                return;
            }
            notified.await;
        }
    }

    /// Installs the SIGINT handler now and listens on `runtime` until it shuts down.
    ///
    /// The handler must be in place before the console's first prompt: rustyline swaps in a
    /// handler of its own while it reads a line and puts back, afterwards, whatever it found.
    /// A handler installed lazily by a task that polled late would be replaced by the default
    /// action, and the next Ctrl-C during a command would kill the process.
    pub fn listen(self, runtime: &tokio::runtime::Handle) -> std::io::Result<JoinHandle<()>> {
        let _entered = runtime.enter();
        let mut sigint = signal(SignalKind::interrupt())?;
        Ok(runtime.spawn(async move {
            while sigint.recv().await.is_some() {
                if !self.fire() {
                    eprintln!("\nInterrupted twice: exiting");
                    std::process::exit(130);
                }
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn wait_returns_for_a_pending_or_later_interrupt() {
        let i = Interrupt::default();
        assert!(i.fire());
        assert!(!i.fire());
        i.wait().await;
        i.clear();
        let j = i.clone();
        let waiter = tokio::spawn(async move { j.wait().await });
        tokio::task::yield_now().await;
        i.fire();
        waiter.await.unwrap();
    }
}
