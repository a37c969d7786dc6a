//! What the runtime's parts share: the run's options, the state the monitor and the
//! terminals share, the stop's graces, and the runtime's own naps and failures.

use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Duration;

use crate::error::Error;
use crate::fault::Failure;
use crate::interrupt::Interrupt;

/// How a run drives its virtual users, whatever the workload.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Worker virtual users (the monitor, when there is one, comes on top).
    pub virtual_users: u32,
    /// Between two workers' starts.
    pub user_delay: Duration,
    /// Terminals per virtual user: 1 gives it a thread of its own; more are its asynchronous
    /// clients, as tasks.
    pub terminals: u32,
    /// Between two asynchronous clients' logins.
    pub login_delay: Duration,
    /// Connections a virtual user's asynchronous clients share; 0 gives each its own.
    pub pool: u32,
    /// A unit that fails (other than a lost connection) fails its virtual user.
    pub raise_error: bool,
    /// How long terminals keep reconnecting to a server that went away.
    pub reconnect_for: Duration,
    /// Keep each virtual user's statistics apart too.
    pub time_profile: bool,
    /// The monitor's rampup and measured duration (a timed run).
    pub rampup: Duration,
    pub duration: Duration,
    /// Between two intervals of the live view (`vuset refreshrate`); zero for none.
    pub refresh: Duration,
    /// A window fixed from outside (one of several drivers measuring the same one): the
    /// monitor's rampup lasts until its start and the measurement until its end, whatever
    /// `rampup` and `duration` say.
    pub window: Option<FixedWindow>,
}

/// When a timed run's measurement begins and ends, on this process's clock.
#[derive(Debug, Clone, Copy)]
pub struct FixedWindow {
    pub start: std::time::Instant,
    pub end: std::time::Instant,
}

/// How long after the stop a terminal may still wait on the server before its connection is
/// cut: a healthy server answers in milliseconds, a lock wait is not worth more.
pub const STOP_GRACE: Duration = Duration::from_secs(3);
/// How long after the cut a virtual user may take to end before it is abandoned as it is.
pub(super) const CUT_GRACE: Duration = Duration::from_secs(5);

/// State the monitor and the terminals share.
pub(super) struct Shared {
    /// Terminals stop at their next unit boundary.
    pub stop: Interrupt,
    /// Fired a grace after the stop: calls still waiting are abandoned, connections cut.
    pub cut: Interrupt,
    /// Calls abandoned that way.
    pub abandoned: AtomicU64,
    /// Set between the monitor's two counter readings: terminals record latencies then.
    pub measuring: AtomicBool,
    /// Ctrl-C stopped the run (rather than its own end).
    pub interrupted: AtomicBool,
    /// Why the run was given up (a server that stayed away), once.
    pub gave_up: std::sync::OnceLock<String>,
    /// When the measured window began and ended, for the live view.
    pub window: std::sync::Mutex<Window>,
    /// Told when the window begins or ends, so that the live view ends an interval there.
    pub window_moved: tokio::sync::Notify,
    /// Where the terminals ran, their moves, and every second's commits.
    pub nodes: super::nodes::Nodes,
}

/// When a timed run's measured window began and ended, set by the monitor.
#[derive(Debug, Default)]
pub(super) struct Window {
    pub start: Option<std::time::Instant>,
    pub end: Option<std::time::Instant>,
}

/// One end of the measured window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Edge {
    Start,
    End,
}

impl Shared {
    /// Marks where the measured window begins or ends, and tells the live view
    /// (`notify_one` keeps the news for a live view that is not waiting just then).
    pub fn mark_window(&self, edge: Edge, at: std::time::Instant) {
        {
            let mut w = self.window.lock().unwrap_or_else(|e| e.into_inner());
            match edge {
                Edge::Start => w.start = Some(at),
                Edge::End => w.end = Some(at),
            }
        }
        self.window_moved.notify_one();
    }

    /// Whether the run was cut short, by Ctrl-C or given up, rather than ended as planned:
    /// what a virtual user the stop ended says then is that it stopped.
    pub fn cut_short(&self) -> bool {
        self.interrupted.load(std::sync::atomic::Ordering::SeqCst) || self.gave_up.get().is_some()
    }

    /// Stops the run because it cannot go on.
    pub fn give_up(&self, why: &str) {
        let _ = self.gave_up.set(why.to_string());
        self.stop.fire();
    }
}

/// How long a terminal keeps reconnecting to a server that went away before it gives up,
/// unless `HAMMER_RECONNECT_SECS` says otherwise.
pub const RECONNECT_FOR: Duration = Duration::from_secs(60);
/// Sleeps `d`, or less when the stop comes first; false then.
pub async fn nap(d: Duration, stop: &Interrupt) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(d) => true,
        _ = stop.wait() => false,
    }
}

/// A connection-level failure the runtime itself decides on (a reply overdue, a call
/// abandoned at the stop), said like the databases' own.
pub fn lost(peer: &crate::fault::Peer, why: String) -> Error {
    Error::Db(peer.failed("gave up waiting for", Failure::Lost, why))
}
