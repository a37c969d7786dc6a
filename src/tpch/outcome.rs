//! A TPROC-H run as the session shows, records and hands it to scripts ([`Tpch`], a
//! `bench::Outcome`): the QphH@Size line a throughput test gets from the session's last power
//! test (which it remembers in the session's `bench::Memory`), the job record with TPROC-H's
//! own figures, sets and refresh functions ([`tpch_record`]), and the `lastrun()` map. The
//! run's summary lines are printed by the run itself, as its queries end.

use rhai::Map;

use super::result::RunResult;
use super::TYPE_NAMES;
use crate::bench::outcome::{live_record, run_value, timings, type_map, Memory, Outcome};
use crate::config::Database;
use crate::jobs::recorder::RunRecord;

/// A TPROC-H run's result on `db`, and its QphH@Size line once [`Outcome::remember`] has
/// read the session's last power test.
pub struct Tpch {
    pub result: RunResult,
    pub db: Database,
    qphh_line: Option<String>,
}

impl Tpch {
    pub fn new(result: RunResult, db: Database) -> Self {
        Tpch {
            result,
            db,
            qphh_line: None,
        }
    }
}

/// The session's last TPROC-H power test with its refresh functions: database, scale factor
/// and Power@Size, for the QphH@Size of a throughput test after it.
#[derive(Default)]
struct LastPower(Option<(Database, f64, f64)>);

impl Outcome for Tpch {
    /// A power test's Power@Size is kept; a throughput test on the same database and scale
    /// factor after it gets QphH@Size from the two.
    fn remember(&mut self, memory: &mut Memory) {
        let (r, db) = (&mut self.result, self.db);
        let last = memory.slot::<LastPower>();
        if let Some((power, true)) = r.power_at_size() {
            last.0 = Some((db, r.scale_factor, power));
        } else if let Some(throughput) = r.throughput_at_size() {
            self.qphh_line = Some(match last.0 {
                Some((d, sf, power)) if d == db && sf == r.scale_factor => {
                    let qphh = super::result::qphh(power, throughput);
                    r.qphh = Some(qphh);
                    format!(
                        "QphH@Size {qphh:.1} at scale factor {} from the last power test's Power@Size {power:.1} and this Throughput@Size {throughput:.1} (hammer's figure, not an official TPC-H result)",
                        super::shown(sf)
                    )
                }
                _ => format!(
                    "QphH@Size needs a power test with refresh on (vuset vu 1, diset tpch {}_refresh_on true) on this database and scale factor before the throughput test",
                    db.prefix()
                ),
            });
        }
    }

    fn lines(&self) -> Vec<String> {
        self.qphh_line.iter().cloned().collect()
    }

    fn record(&self) -> RunRecord {
        tpch_record(&self.result)
    }

    /// The keys every run has (`nopm` and `tpm` are `()`, `transactions` counts queries);
    /// what its job keeps, in the same shape `jobs ID result` and `jobs ID queries` give
    /// (`scale_factor`, `query_streams`, `geomean` (`()` when no query returned rows),
    /// `geomean_queries`, `querysets`, `queries`, `failed_queries`, `query_seconds`,
    /// `sets_seconds`, `sets` with each set's `queries`, `refreshes`); and each query's and
    /// refresh function's counts and latencies (`query_1` .. `query_22`,
    /// `new_sales_refresh`, `old_sales_refresh`).
    fn value(&self, id: &str) -> Map {
        let r = &self.result;
        let record = tpch_record(r);
        let mut m = run_value(id, &record.figures, r.abandoned_calls);
        // The job's record, as `jobs` gives it back: one shape for lastrun() and the history.
        let times = serde_json::to_value(tpch_times(r)).unwrap_or_default();
        if let Some(times) = crate::jobs::value::to_dynamic(&times).try_cast::<Map>() {
            m.extend(times);
        }
        for (name, s) in TYPE_NAMES.iter().zip(&r.stats.by_kind) {
            m.insert(name.replace(' ', "_").into(), type_map(s).into());
        }
        m
    }
}

/// A TPROC-H run as its job records it: the figures every run has (no NOPM or TPM,
/// `transactions` counts queries), each query's and refresh function's timing, and its own:
/// the geometric mean, the sets, every query of every set and every refresh function.
pub fn tpch_record(r: &RunResult) -> crate::jobs::recorder::RunRecord {
    let figures = crate::jobs::RunFigures {
        nopm: None,
        tpm: None,
        active_vus: r.active_vus,
        seconds: r.elapsed.as_secs_f64(),
        failed_vus: r.failed_vus,
        reconnects: r.stats.reconnects,
        transactions: r.queries(),
        client_cpu_seconds: r.client_cpu.map(|c| c.as_secs_f64()),
        stopped_early: r.stopped_early.clone(),
    };
    crate::jobs::recorder::RunRecord {
        figures,
        timings: timings(&TYPE_NAMES, &r.stats, true),
        live: r.series.as_ref().map(live_record),
        tpch: Some(tpch_times(r)),
        run: None,
    }
}

/// A TPROC-H run's figures, sets and refresh functions as plain job data.
pub fn tpch_times(r: &RunResult) -> crate::jobs::TpchRecord {
    use crate::jobs::{QueryTime, RefreshTime, SetTimes, TpchFigures, TpchRecord};
    let (geomean_queries, geomean) = r.geomean().map_or((0, None), |(n, g)| (n as u64, Some(g)));
    // `Completed n query set(s) in s seconds`: the virtual user longest in its query sets.
    let mut per_vu: Vec<(u32, f64)> = Vec::new();
    for s in &r.sets {
        match per_vu.iter_mut().find(|(vu, _)| *vu == s.vu) {
            Some((_, secs)) => *secs += s.seconds,
            None => per_vu.push((s.vu, s.seconds)),
        }
    }
    let figures = TpchFigures {
        scale_factor: r.scale_factor,
        query_streams: r.query_streams,
        geomean,
        geomean_queries,
        querysets: r.complete_sets(),
        queries: r.queries(),
        failed_queries: r
            .sets
            .iter()
            .flat_map(|s| &s.queries)
            .filter(|q| q.error.is_some())
            .count() as u64,
        query_seconds: r.query_seconds(),
        sets_seconds: per_vu.iter().map(|(_, s)| *s).fold(0.0, f64::max),
        power_at_size: r.power_at_size().map(|(p, _)| p),
        throughput_at_size: r.throughput_at_size(),
        qphh: r.qphh,
        answers_checked: r.checked.len() as u32,
        answers_matched: r.checked.iter().filter(|c| c.outcome.is_ok()).count() as u32,
    };
    let sets = r
        .sets
        .iter()
        .map(|s| SetTimes {
            vu: s.vu,
            stream: s.stream,
            set: s.set,
            seconds: s.seconds,
            queries: s
                .queries
                .iter()
                .map(|q| QueryTime {
                    position: u32::from(q.position),
                    query: u32::from(q.query),
                    seconds: q.seconds,
                    rows: q.rows,
                    error: q.error.clone(),
                })
                .collect(),
        })
        .collect();
    let refreshes = r
        .refreshes
        .iter()
        .map(|x| RefreshTime {
            vu: x.vu,
            pair: x.pair,
            function: x.function.short().to_string(),
            name: x.function.name().to_string(),
            seconds: x.seconds,
            rows: x.rows,
            error: x.error.clone(),
        })
        .collect();
    TpchRecord {
        figures,
        sets,
        refreshes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tpch::result::{AnswerCheck, QueryRun, QuerySet, Refresh, RefreshRun};
    use rhai::Map;

    /// A throughput test of two streams: virtual user 1 ran a whole set (query 13 returning no
    /// rows) and then refresh pair 1, virtual user 2 a set of which query 5 failed and which
    /// the run stopped after 10 queries.
    fn throughput() -> RunResult {
        let q = |position: u8, query: u8, seconds: f64, rows: u64| QueryRun {
            query,
            position,
            seconds,
            rows,
            error: None,
        };
        let whole = QuerySet {
            vu: 1,
            stream: 1,
            set: 1,
            queries: (1..=22u8)
                .map(|p| q(p, p, f64::from(p) / 10.0, if p == 13 { 0 } else { 5 }))
                .collect(),
            seconds: 26.0,
        };
        let mut part = QuerySet {
            vu: 2,
            stream: 2,
            set: 1,
            queries: (1..=10u8).map(|p| q(p, 23 - p, 2.0, 7)).collect(),
            seconds: 21.0,
        };
        part.queries[4].rows = 0;
        part.queries[4].error = Some("relation \"lineitem\" does not exist".into());
        let rf = |function, seconds| RefreshRun {
            vu: 1,
            pair: 1,
            function,
            seconds,
            rows: 1_200,
            error: None,
        };
        let mut stats = crate::vu::Stats::new(TYPE_NAMES.len());
        stats.by_kind[0].committed = 1;
        let _ = stats.by_kind[0].latency.record(100_000);
        RunResult {
            qphh: None,
            scale_factor: 0.1,
            power_test: false,
            checked: vec![
                AnswerCheck {
                    vu: 1,
                    set: 1,
                    query: 1,
                    outcome: Ok(()),
                },
                AnswerCheck {
                    vu: 1,
                    set: 1,
                    query: 2,
                    outcome: Err("row 1 differs".into()),
                },
            ],
            sets: vec![whole, part],
            refreshes: vec![rf(Refresh::NewSales, 1.5), rf(Refresh::OldSales, 0.5)],
            query_streams: 2,
            active_vus: 2,
            elapsed: std::time::Duration::from_secs(30),
            streams: std::time::Duration::from_secs(30),
            stats,
            stopped_early: Some("stopped by Ctrl-C".into()),
            failed_vus: 0,
            client_cpu: None,
            abandoned_calls: 0,
            series: None,
        }
    }

    fn outcome(r: RunResult) -> Tpch {
        Tpch::new(r, Database::Pg)
    }

    #[test]
    fn a_tpch_run_is_recorded_whole() {
        let r = throughput();
        let rec = tpch_record(&r);
        assert_eq!(rec.figures.transactions, 32);
        assert_eq!((rec.figures.nopm, rec.figures.tpm), (None, None));
        // Only the types that ran are timed.
        assert_eq!(rec.timings.len(), 1);
        assert_eq!(rec.timings[0].0.name, "query 1");
        let t = rec.tpch.expect("the TPROC-H record");
        let f = &t.figures;
        let (n, g) = r.geomean().unwrap();
        assert_eq!((f.geomean_queries, f.geomean), (n as u64, Some(g)));
        // The run stopped: its figure is of the complete set alone.
        assert_eq!(f.geomean_queries, 21);
        assert_eq!((f.querysets, f.queries, f.failed_queries), (1, 32, 1));
        assert_eq!(f.scale_factor, 0.1);
        assert_eq!(f.query_streams, 2);
        assert!((f.query_seconds - r.query_seconds()).abs() < 1e-9);
        // The virtual user longest in its sets: virtual user 1's 26 s.
        assert_eq!(f.sets_seconds, 26.0);
        assert_eq!(f.completed_line(), "Completed 1 query set(s) in 26 seconds");
        assert_eq!(f.power_at_size, None);
        // A stopped throughput test has no end to time its streams by.
        assert_eq!(f.throughput_at_size, None);
        assert_eq!((f.answers_checked, f.answers_matched), (2, 1));
        assert_eq!(t.sets.len(), 2);
        assert_eq!(t.sets[1].queries.len(), 10);
        assert_eq!(t.sets[1].queries[0].query, 22);
        assert_eq!(t.sets[1].queries[0].position, 1);
        assert!(t.sets[1].queries[4].error.is_some());
        assert_eq!(
            (
                t.refreshes[0].function.as_str(),
                t.refreshes[0].name.as_str()
            ),
            ("RF1", "New Sales refresh")
        );
        assert_eq!(t.refreshes[1].function, "RF2");
        // The end a job records carries it; the run stopped early says why.
        let end =
            crate::jobs::recorder::end_of(&Ok(rhai::Dynamic::UNIT), true, Some(&tpch_record(&r)));
        assert_eq!(end.status, crate::jobs::Status::Stopped);
        assert_eq!(end.tpch.as_ref(), Some(&t));
    }

    /// lastrun() of a TPROC-H run: the keys every run has, and the job's record in the shape
    /// `jobs ID result` and `jobs ID queries` give.
    #[test]
    fn lastrun_holds_the_tpch_record() {
        let r = throughput();
        let m = outcome(r).value("ID");
        assert!(m["nopm"].is_unit());
        assert_eq!(m["transactions"].as_int(), Ok(32));
        assert_eq!(m["querysets"].as_int(), Ok(1));
        assert_eq!(m["queries"].as_int(), Ok(32));
        assert_eq!(m["failed_queries"].as_int(), Ok(1));
        // Of the complete set alone: the run stopped.
        assert_eq!(m["geomean_queries"].as_int(), Ok(21));
        assert!(m["geomean"].as_float().is_ok());
        assert_eq!(m["scale_factor"].as_float(), Ok(0.1));
        let sets = m["sets"].clone().into_array().unwrap();
        let second = sets[1].clone().cast::<Map>();
        assert_eq!(second["vu"].as_int(), Ok(2));
        let queries = second["queries"].clone().into_array().unwrap();
        let fifth = queries[4].clone().cast::<Map>();
        assert_eq!(
            fifth["error"].clone().into_string().unwrap(),
            "relation \"lineitem\" does not exist"
        );
        assert_eq!(m["refreshes"].clone().into_array().unwrap().len(), 2);
        let q1 = m["query_1"].clone().cast::<Map>();
        assert_eq!(q1["committed"].as_int(), Ok(1));
    }
}
