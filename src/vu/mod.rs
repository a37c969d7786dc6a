//! Virtual users: the workload-independent runtime that drives them, the loaded script, the
//! created virtual users and their states.
//!
//! HammerDB's words at the edge (`loadscript`, `vucreate`, `vurun`), plain state here: the
//! script is the frozen workload configuration, a virtual user is a slot with a state; tasks
//! exist only while `vurun` runs. The pieces: [`workload`] (the traits a workload offers the
//! runtime), [`runtime`] (workers, terminals, pool, stop, reconnect), `monitor` (the timed
//! run's virtual user 1), `shared` (what those two share), [`stats`] (per-type counts and
//! histograms), [`script`] (what `loadscript` froze), `say` (`Vuser N:` lines). No workload
//! is named here: every workload's driver runs on it (TPROC-C's, TPROC-H's and custom
//! scripts').

mod interval;
pub mod live;
mod monitor;
pub mod nodes;
pub mod runtime;
mod say;
pub mod script;
mod shared;
pub mod stats;
mod view;
pub mod workload;

use std::sync::{Arc, Mutex};

pub use runtime::{run, Outcome};
pub use say::Say;
pub use script::Script;
pub use shared::{FixedWindow, RunOptions, RECONNECT_FOR, STOP_GRACE};
pub use stats::{Stats, TypeStats};
pub use workload::{Monitor, NoMonitor, Place, Workload, WorkloadOptions};

/// A virtual user's state, as `vustatus` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VuState {
    WaitIdle,
    Running,
    FinishSuccess,
    FinishFailed,
    /// Stopped before its work was done: Ctrl-C, or a run given up.
    FinishStopped,
}

impl VuState {
    pub fn label(self) -> &'static str {
        match self {
            VuState::WaitIdle => "WAIT IDLE",
            VuState::Running => "RUNNING",
            VuState::FinishSuccess => "FINISH SUCCESS",
            VuState::FinishFailed => "FINISH FAILED",
            VuState::FinishStopped => "FINISH STOPPED",
        }
    }
}

/// Where a run reports a virtual user's state changes.
pub type StateSink = Arc<dyn Fn(usize, VuState) + Send + Sync>;

/// The created virtual users: one state per user, virtual user 1 first.
#[derive(Clone, Default)]
pub struct Board {
    states: Arc<Mutex<Vec<VuState>>>,
}

impl Board {
    pub fn new(count: usize) -> Self {
        Board {
            states: Arc::new(Mutex::new(vec![VuState::WaitIdle; count])),
        }
    }

    pub fn set(&self, vu: usize, state: VuState) {
        let mut s = self.states.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = vu.checked_sub(1).and_then(|i| s.get_mut(i)) {
            *slot = state;
        }
    }

    pub fn states(&self) -> Vec<VuState> {
        self.states
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn len(&self) -> usize {
        self.states().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every virtual user has finished (the state `vucomplete` reports).
    pub fn complete(&self) -> bool {
        let s = self.states();
        !s.is_empty()
            && s.iter().all(|v| {
                matches!(
                    v,
                    VuState::FinishSuccess | VuState::FinishFailed | VuState::FinishStopped
                )
            })
    }
}

/// The session's virtual-user state, whatever the workload: `C` is a user's own script
/// (`customscript`), `R` what a run gave back; the session picks both types (the workload
/// contract's), as this runtime names no workload.
pub struct VuManager<C, R> {
    pub script: Option<Script>,
    pub board: Option<Board>,
    /// Whether the script the virtual users were created for has a monitor.
    pub monitor: bool,
    /// A user's Rhai workload (`customscript`), instead of the loaded script.
    pub custom: Option<C>,
    /// The last run's id and result.
    pub last_run: Option<(String, R)>,
}

impl<C, R> Default for VuManager<C, R> {
    fn default() -> Self {
        VuManager {
            script: None,
            board: None,
            monitor: false,
            custom: None,
            last_run: None,
        }
    }
}

impl<C, R> VuManager<C, R> {
    pub fn exist(&self) -> bool {
        self.board.is_some()
    }
}

#[cfg(test)]
mod tests;
