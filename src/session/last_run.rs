//! What the session keeps of the last run: its result, whichever workload it ran, for
//! `lastrun()`, a failed run's `catch (e)` and the job record.

/// The last run's result, whichever workload it ran.
pub(super) enum LastRun {
    Tpcc(crate::tpcc::driver::RunResult),
    Custom(crate::custom::CustomResult),
    Tpch(crate::tpch::result::RunResult),
}
