//! A TPROC-C run as the session shows, records and hands it to scripts ([`Tpcc`], a
//! `bench::Outcome`): the per-transaction table (and each virtual user's, with
//! `*_timeprofile`), the client's CPU line, the job record and the `lastrun()` map (with
//! each schema's figures when the run spanned several).

use rhai::Map;

use super::driver::{RunResult, TYPE_NAMES};
use super::inputs::Kind;
use crate::bench::outcome::{live_record, run_value, timings, type_map, Outcome};
use crate::jobs::recorder::RunRecord;
use crate::jobs::RunFigures;

/// A TPROC-C run's result, with what of its options decides its text.
pub struct Tpcc {
    pub result: RunResult,
    /// A timed run (with a monitor): its table is headed as measured after rampup.
    pub timed: bool,
    /// `vuset showoutput`: the table is headed for a test run too.
    pub show_output: bool,
    /// `*_timeprofile`: each virtual user's table too.
    pub time_profile: bool,
    /// One of several drivers: the run they shared, merged.
    pub merged: Option<super::merged::Merged>,
}

impl Tpcc {
    fn figures(&self) -> RunFigures {
        let r = &self.result;
        RunFigures {
            nopm: r.nopm,
            tpm: r.tpm,
            active_vus: r.active_vus,
            seconds: r.measured.as_secs_f64(),
            failed_vus: r.failed_vus,
            reconnects: r.stats.reconnects,
            transactions: r.transactions(),
            client_cpu_seconds: r.client_cpu.map(|c| c.as_secs_f64()),
            stopped_early: r.stopped_early.clone(),
        }
    }
}

impl Outcome for Tpcc {
    fn lines(&self) -> Vec<String> {
        let r = &self.result;
        let mut lines = Vec::new();
        if self.timed || self.show_output {
            lines.push("Transactions (hammer; after rampup for timed runs):".to_string());
        }
        lines.extend(super::result::table(&r.stats));
        if self.time_profile {
            for (vu, stats) in &r.per_vu {
                lines.push(format!("Vuser {vu} time profile:"));
                lines.extend(
                    super::result::table(stats)
                        .into_iter()
                        .map(|line| format!("  {line}")),
                );
            }
        }
        lines.extend(r.nodes.lines());
        match &r.failover {
            Some(Ok(lost)) => lines.push(lost.line()),
            Some(Err(why)) => lines.push(format!(
                "Acknowledged New-Orders after failover: not compared ({why})"
            )),
            None => {}
        }
        lines.extend(r.routing.lines());
        lines.extend(crate::vu::stats::closing_lines(
            r.client_cpu,
            r.measured,
            r.transactions(),
            "transaction",
            r.stats.reconnects,
            r.stopped_early.as_deref(),
        ));
        if let Some(m) = &self.merged {
            lines.extend(m.lines());
        }
        lines
    }

    fn record(&self) -> RunRecord {
        RunRecord {
            figures: self.figures(),
            timings: timings(&TYPE_NAMES, &self.result.stats, false),
            live: self.result.series.as_ref().map(live_record),
            tpch: None,
            run: self.merged.as_ref().map(|m| m.record()),
        }
    }

    /// The figures every run has, and each transaction type's counts and latencies under its
    /// name (`new_order`, `payment`, ...).
    fn value(&self, id: &str) -> Map {
        let mut m = run_value(id, &self.figures(), self.result.abandoned_calls);
        for k in Kind::ALL {
            let t = type_map(self.result.stats.kind(k));
            m.insert(k.name().replace(' ', "_").into(), t.into());
        }
        if let Some(tpm) = self.result.routing.client_tpm {
            let per_type: Map = crate::config::pool::TRANSACTIONS
                .iter()
                .zip(tpm)
                .map(|(t, v)| ((*t).into(), v.into()))
                .collect();
            m.insert("client_tpm".into(), per_type.into());
        }
        if let Some(merged) = &self.merged {
            m.insert("drivers".into(), merged.value().into());
        }
        // Several schemas (`*_schemas`): each one's figures, which the job keeps with the
        // value vurun returned.
        if !self.result.schemas.is_empty() {
            let schemas = super::schemas::values(&self.result.schemas);
            m.insert("schemas".into(), schemas.into());
        }
        m
    }
}
