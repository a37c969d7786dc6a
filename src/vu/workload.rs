//! The seam between the runtime and a workload: what a workload must offer for the
//! virtual-user runtime to drive it ([`Workload`], and [`Monitor`] for a timed run), and what
//! a loaded script knows of its workload ([`WorkloadOptions`]).
//!
//! The runtime owns threads, connections, the stop, reconnecting and the statistics; a
//! workload owns its unit of work (a transaction, a query), its inputs and its result text.
//! Everything here is generic, so the per-unit path is monomorphised: no dynamic call per
//! unit. The runtime puts each unit's future on the heap (one allocation per unit), so that
//! a terminal that keys, thinks or waits never holds a connection's futures.

use std::any::Any;
use std::future::Future;
use std::time::Duration;

use rand::rngs::SmallRng;

use super::say::Say;
use crate::config::{Database, Settings};
use crate::endpoint::Position;
use crate::error::Result;

/// Where a terminal sits in the run, for the workload to give it its inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The worker's number among the workers, from 1 (virtual user 1 is the monitor when
    /// there is one, so this is not the `Vuser N` number).
    pub worker: u32,
    /// How many workers the run has.
    pub workers: u32,
    /// The terminal's number among its virtual user's asynchronous clients, from 0; `None`
    /// for a virtual user with one terminal.
    pub client: Option<u32>,
}

impl Place {
    /// The terminal's position among the run's connections when each virtual user runs
    /// `terminals` terminals: terminal n of N, numbered from 1 across the workers in order.
    pub fn position(self, terminals: u32) -> Position {
        let terminals = terminals.max(1);
        Position::Terminal {
            n: (self.worker.max(1) - 1) * terminals + self.client.unwrap_or(0) + 1,
            of: self.workers * terminals,
        }
    }
}

/// A workload the runtime drives: each virtual user runs one or more terminals, each of which
/// runs units of work on a connection until its work is done or the run stops.
pub trait Workload: Send + Sync + 'static {
    /// A terminal's connection to the database.
    type Conn: Send + 'static;
    /// One terminal's own state: its random source, its inputs, where it is in its mix.
    type Terminal: Send + 'static;
    /// A unit of work's type (a transaction type, a query); [`Self::index`] places it in the
    /// statistics.
    type Unit: Copy + Send + 'static;
    /// What a unit that succeeded reports.
    type Done: Send + 'static;
    /// What the run checks before any virtual user starts, and what terminals are made from
    /// (TPROC-C: the warehouses and the NURand constants).
    type Plan: Send + Sync + 'static;
    /// The timed run's monitor; [`NoMonitor`] for a workload without one.
    type Monitor: Monitor;

    // ---- the run ---------------------------------------------------------------------

    /// The names of the unit types in the order results are reported; a unit's
    /// [`Self::index`] is its position here.
    fn type_names(&self) -> &'static [&'static str];

    /// What one unit is called in the live view's `us per transaction`.
    fn unit_word(&self) -> &'static str {
        "unit"
    }

    /// A unit's position in [`Self::type_names`].
    fn index(unit: Self::Unit) -> usize;

    /// Checks, before any virtual user starts, that the database holds what the run needs.
    /// An error says what is missing and what to run.
    fn prepare(&self) -> impl Future<Output = Result<Self::Plan>> + Send;

    /// The monitor of a timed run (virtual user 1), or `None`: every unit is measured then.
    fn monitor(&self) -> Option<&Self::Monitor>;

    /// A worker's first line after `RUNNING`, if the workload says one.
    fn started(&self, _say: &Say) {}

    /// The monitor opened (`true`) or closed the measured window: a workload that keeps
    /// figures of its own keeps them for the same window.
    fn window(&self, _open: bool) {}

    /// The workload's own lines for an interval of the live view, in place of the progress
    /// line (OLTP's sysbench-shaped `[ 10s ] thds: ...`); `None` keeps the progress line.
    fn interval_lines(&self, _interval: &super::interval::Interval) -> Option<Vec<String>> {
        None
    }

    // ---- the database ----------------------------------------------------------------

    /// Opens the connection of the terminal at `at` (where it goes is the database's
    /// [`crate::endpoint::Destination::for_position`]).
    fn connect(&self, at: Position) -> impl Future<Output = Result<Self::Conn>> + Send;

    /// The server a terminal's connection reached (`host:port`), for where terminals ran and
    /// moved; `None` when the workload does not say.
    fn node(_conn: &Self::Conn) -> Option<String> {
        None
    }

    /// Closes a terminal's connection.
    fn close(conn: Self::Conn) -> impl Future<Output = ()> + Send;

    /// The connection for a terminal alone on its thread, whose calls may block that thread.
    fn into_blocking(conn: Self::Conn) -> Result<Self::Conn> {
        Ok(conn)
    }

    /// How long a call may wait for its reply before its connection counts as lost.
    fn reply_timeout(&self) -> Duration;

    /// Whether every reply the workload's connections wait for is bounded by the reply
    /// timeout and woken by [`Self::cut`] in the connection itself (hammer's own wire
    /// sockets are), so that the runtime need not arm a timer and a watch around each unit.
    fn bounds_own_replies(&self) -> bool {
        false
    }

    /// The server and login of the connection at `at` (a terminal's, or the monitor's), for
    /// messages about it: where [`Self::connect`] sends that position.
    fn peer(&self, at: Position) -> crate::fault::Peer;

    /// Shuts down every connection the workload's database has opened and any it opens from
    /// now on (the stopping run's cut); returns how many were open.
    fn cut(&self) -> usize;

    // ---- one terminal ----------------------------------------------------------------

    /// A terminal's state, with a random source of its own.
    fn terminal(&self, plan: &Self::Plan, place: Place, rng: SmallRng) -> Self::Terminal;

    /// The terminal's next unit, or `None` when its work is done.
    fn next(&self, t: &mut Self::Terminal, say: &Say) -> Option<Self::Unit>;

    /// The pause before a unit (TPC-C's keying time), if any.
    fn keying(&self, _t: &mut Self::Terminal, _unit: Self::Unit) -> Option<Duration> {
        None
    }

    /// Runs one unit. A failed call has rolled back; its error is `Error::Db` with
    /// `Failure::Retry` when worth running again, `Failure::Lost` when the connection is gone.
    fn execute(
        &self,
        conn: &mut Self::Conn,
        unit: Self::Unit,
        t: &mut Self::Terminal,
    ) -> impl Future<Output = Result<Self::Done>> + Send;

    /// Whether a unit that succeeded rolled back as its inputs asked (counted apart).
    fn rolled_back(done: &Self::Done) -> bool;

    /// What a terminal does with a unit that succeeded, after it is counted: show it, keep
    /// its time. `elapsed` is its response time.
    fn done(
        &self,
        _t: &mut Self::Terminal,
        _say: &Say,
        _unit: Self::Unit,
        _done: Self::Done,
        _elapsed: Duration,
    ) {
    }

    /// The pause after a unit (TPC-C's think time), if any.
    fn think(&self, _t: &mut Self::Terminal, _unit: Self::Unit) -> Option<Duration> {
        None
    }

    /// A terminal whose work is done (not one stopped by an error), for its last lines.
    fn end(&self, _t: Self::Terminal, _say: &Say) {}
}

/// The monitor of a timed run: two readings of the server's counters around the measured
/// window, and the figures they give.
pub trait Monitor: Send + Sync + 'static {
    /// One reading of the counters.
    type Reading: Send + 'static;
    /// What two readings give (TPROC-C: NOPM and TPM).
    type Figures: Send + 'static;

    /// Reads the counters.
    fn read(&self) -> impl Future<Output = Result<Self::Reading>> + Send;

    /// The figures of the window between two readings, `measured` long; says the result
    /// lines.
    fn figures(
        &self,
        start: &Self::Reading,
        end: &Self::Reading,
        measured: Duration,
        say: &Say,
    ) -> Self::Figures;

    /// The database's rates between two readings `over` apart, for the live view, named as
    /// the result names them (`[("NOPM", ..), ("TPM", ..)]`); says nothing.
    fn rates(
        &self,
        _start: &Self::Reading,
        _end: &Self::Reading,
        _over: Duration,
    ) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

/// The monitor of a workload without one (never called).
pub enum NoMonitor {}

impl Monitor for NoMonitor {
    type Reading = ();
    type Figures = ();

    async fn read(&self) -> Result<()> {
        match *self {}
    }

    fn figures(&self, _: &(), _: &(), _: Duration, _: &Say) {
        match *self {}
    }
}

/// A workload's options as `loadscript` froze them, held by the loaded [`super::Script`].
/// The session asks [`super::Script::options`] for the concrete type to run it.
pub trait WorkloadOptions: Send + Sync + 'static {
    /// The workload's name as jobs record it and `print script` shows it: `TPROC-C`.
    fn workload(&self) -> &'static str;

    /// Whether a run has a monitor (virtual user 1) that times it.
    fn timed(&self) -> bool;

    /// How many worker virtual users a run starts.
    fn virtual_users(&self) -> u32;

    /// Takes the virtual-user options (`vuset`, HammerDB's globals read at run time) from
    /// the current settings.
    fn use_vu_options(&mut self, settings: &Settings) -> Result<()>;

    /// `print script`'s rows, in order; `schema` says where the schema is.
    fn rows(&self, db: Database, schema: &str) -> Vec<(&'static str, String)>;

    /// How a run drives its database, for the job's profile: `timed, stored functions`.
    fn mode(&self) -> String;

    /// The schema size the job's profile compares runs by (TPROC-C's warehouses), if any.
    fn warehouses(&self) -> Option<u32> {
        None
    }

    /// A copy, for a script that is cloned.
    fn boxed(&self) -> Box<dyn WorkloadOptions>;

    fn as_any(&self) -> &dyn Any;
}
