//! Commands as jobs: the recording around buildschema, checkschema, deleteschema, datagenrun
//! and vurun (begin, end, system facts, the verdict a failed job raises), and the jobs command.

use rhai::{Dynamic, Map};

use super::last_run::LastRun;
use super::{values, Session};
use crate::config::{Database, Settings};
use crate::error::{Error, Result};
use crate::jobs::Kind as JobKind;

impl Session {
    // ---- jobs --------------------------------------------------------------------------

    /// Runs a command as a job. The command calls `begin_job` where its work starts, after
    /// its checks, so that a refused command is no job; its end is recorded here.
    pub(super) fn as_job(
        &mut self,
        args: &[String],
        body: fn(&mut Session, &[String]) -> Result<Dynamic>,
    ) -> Result<Dynamic> {
        let outcome = body(self, args);
        let Some(job) = self.jobs.running() else {
            return outcome;
        };
        let (id, kind, db, settings) = (job.id.clone(), job.kind, job.db, job.settings.clone());
        let run = self.vu.last_run.as_ref().filter(|(r, _)| *r == id);
        let record = run.map(|(_, r)| match r {
            LastRun::Tpcc(r) => run_record(r),
            LastRun::Custom(r) => custom_record(r),
            LastRun::Tpch(r) => tpch_record(r),
        });
        let mut end =
            crate::jobs::recorder::end_of(&outcome, self.interrupt.is_set(), record.as_ref());
        let figures = run.map(|(rid, r)| values::run_map(rid, r));
        // A failed job's server may be gone, and data generation needs none: no waiting.
        let facts = end.status != crate::jobs::Status::Failed && kind != JobKind::Datagen;
        end.system = Some(self.job_system(&settings, db, facts));
        // A stopped job's id is in its verdict, which a script cannot catch: said once there.
        if end.status != crate::jobs::Status::Stopped {
            self.out.line(format!("{} jobid={id}", kind.label()));
        }
        // Recorded before the verdict reaches the script: a script that stops here, or a
        // `hammer auto` that exits, leaves the job saved.
        self.jobs.finish(&self.out, &end);
        let outcome = crate::jobs::recorder::with_jobid(outcome, &id);
        match end.status {
            crate::jobs::Status::Failed | crate::jobs::Status::Stopped => {
                Err(job_verdict(&id, kind, &end, outcome, figures))
            }
            _ => outcome,
        }
    }

    /// Starts recording the current command as a job; returns its id.
    pub(super) fn begin_job(&mut self, spec: crate::jobs::Spec) -> String {
        let settings = match &self.vu.script {
            Some(script) if spec.kind == JobKind::Run => script.settings.clone(),
            _ => self.settings.clone(),
        };
        let db = Database::from_name(&spec.profile.db).unwrap_or_else(|| self.current());
        self.jobs.begin(spec, db, &settings, &self.out)
    }

    /// The machine, and the server's version and key settings when `server` is true.
    fn job_system(
        &self,
        settings: &Settings,
        db: Database,
        server: bool,
    ) -> crate::jobs::SystemInfo {
        let mut sys = crate::jobs::system::host_info();
        if server {
            let facts = self.rt.block_on(async {
                tokio::time::timeout(
                    std::time::Duration::from_secs(5),
                    crate::db::server_facts(settings, db),
                )
                .await
            });
            if let Ok(Ok(facts)) = facts {
                sys.server_version = Some(facts.version);
                sys.server_settings = facts.settings;
                sys.transport = Some(facts.transport);
            }
        }
        sys
    }

    pub fn jobs(&mut self, args: &[String]) -> Result<Dynamic> {
        use crate::jobs::command::{self, Request};
        use crate::jobs::Format;
        let request = command::parse(args)?;
        if let Request::Format(value) = &request {
            let (value, changed) =
                command::format(&mut self.settings, value.as_deref(), &self.out)?;
            if changed {
                self.persist();
            }
            return Ok(value);
        }
        let format = self
            .jobs
            .format_override
            .unwrap_or_else(|| Format::of(&self.settings));
        // `hammer jobs --json` asks for JSON even of the table that is otherwise text.
        let request = match (request, self.jobs.format_override) {
            (Request::Table, Some(Format::Json)) => Request::List,
            (r, _) => r,
        };
        command::run(&mut self.jobs, request, format, &self.out)
    }
}

/// The error a FAILED or STOPPED job raises: one line naming the job, its status and why
/// (`Schema Check jobid=... FAILED: 1 of 24 checks failed: ...`), and for `catch (e)` a map
/// with the same `message`, the `jobid`, `status`, `type`, `kind` and `note`, the command's
/// own map when it returned one (`checkschema`'s `ok`, `failed` and `checks`), and a run's
/// figures as `result` (what `lastrun()` returns; `()` when nothing ran).
fn job_verdict(
    id: &str,
    kind: JobKind,
    end: &crate::jobs::store::End,
    outcome: Result<Dynamic>,
    figures: Option<Map>,
) -> Error {
    let note = end.note.clone().unwrap_or_else(|| match &outcome {
        Err(e) => e.to_string(),
        Ok(_) => "no reason was recorded".to_string(),
    });
    let status = end.status.label();
    let message = format!("{} jobid={id} {status}: {note}", kind.label());
    let caught = values::verdict_map(
        outcome.ok().and_then(|v| v.try_cast::<Map>()),
        &message,
        id,
        kind,
        status,
        &note,
        figures,
    );
    Error::Job {
        message,
        stopped: end.status == crate::jobs::Status::Stopped,
        caught: Box::new(caught.into()),
    }
}

/// A run as its job records it: the figures and the per-type timings, filled from the
/// workload's result.
fn run_record(r: &crate::tpcc::driver::RunResult) -> crate::jobs::recorder::RunRecord {
    let figures = crate::jobs::RunFigures {
        nopm: r.nopm,
        tpm: r.tpm,
        active_vus: r.active_vus,
        seconds: r.measured.as_secs_f64(),
        failed_vus: r.failed_vus,
        reconnects: r.stats.reconnects,
        transactions: r.transactions(),
        client_cpu_seconds: r.client_cpu.map(|c| c.as_secs_f64()),
        stopped_early: r.stopped_early.clone(),
    };
    crate::jobs::recorder::RunRecord {
        figures,
        timings: timings(&crate::tpcc::driver::TYPE_NAMES, &r.stats, false),
        live: r.series.as_ref().map(live_record),
        tpch: None,
    }
}

/// Each unit type's counts and latencies as a job keeps them, `names` in the statistics'
/// order; `ran_only` leaves out the types that never ran.
fn timings(
    names: &[&str],
    stats: &crate::vu::Stats,
    ran_only: bool,
) -> Vec<(crate::jobs::Timing, Vec<u8>)> {
    use crate::jobs::recorder::{timing, Counts};
    names
        .iter()
        .zip(&stats.by_kind)
        .filter(|(_, s)| !ran_only || s.committed + s.rolled_back + s.failed > 0)
        .map(|(name, s)| {
            let counts = Counts {
                committed: s.committed,
                rolled_back: s.rolled_back,
                retried: s.retried,
                failed: s.failed,
            };
            timing(name, counts, &s.latency)
        })
        .collect()
}

/// A run's live series as its job keeps it.
pub(super) fn live_record(s: &crate::vu::live::Series) -> crate::jobs::live::Live {
    use crate::jobs::live::{Live, Point, TypePoint};
    let at_ms = |t: std::time::SystemTime| {
        t.duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
    };
    Live {
        names: s.names.clone(),
        window: s
            .window
            .map(|(a, b)| (a.as_secs_f64(), b.map(|b| b.as_secs_f64()))),
        points: s
            .intervals
            .iter()
            .map(|i| Point {
                at_ms: at_ms(i.at),
                elapsed_s: i.elapsed.as_secs_f64(),
                seconds: i.seconds,
                phase: i.phase.label().to_string(),
                rates: i.rates.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
                types: i
                    .types
                    .iter()
                    .map(|t| TypePoint {
                        finished: t.finished,
                        failed: t.failed,
                        retried: t.retried,
                        p95_ms: t.p95_us.map(|us| us as f64 / 1000.0),
                    })
                    .collect(),
                reconnects: i.reconnects,
                client_cpu_s: i.client_cpu.map(|c| c.as_secs_f64()),
            })
            .collect(),
    }
}

/// A custom run as its job records it: the same figures as a TPROC-C run's (no NOPM or TPM),
/// and the iterations' timing.
fn custom_record(r: &crate::custom::CustomResult) -> crate::jobs::recorder::RunRecord {
    let figures = crate::jobs::RunFigures {
        nopm: None,
        tpm: None,
        active_vus: r.active_vus,
        seconds: r.elapsed.as_secs_f64(),
        failed_vus: r.failed_vus,
        reconnects: r.stats.reconnects,
        transactions: r.iterations(),
        client_cpu_seconds: r.client_cpu.map(|c| c.as_secs_f64()),
        stopped_early: r.stopped_early.clone(),
    };
    crate::jobs::recorder::RunRecord {
        figures,
        timings: timings(&crate::custom::TYPE_NAMES, &r.stats, false),
        live: r.series.as_ref().map(live_record),
        tpch: None,
    }
}

/// A TPROC-H run as its job records it: the figures every run has (no NOPM or TPM,
/// `transactions` counts queries), each query's and refresh function's timing, and its own:
/// the geometric mean, the sets, every query of every set and every refresh function.
pub fn tpch_record(r: &crate::tpch::result::RunResult) -> crate::jobs::recorder::RunRecord {
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
        timings: timings(&crate::tpch::TYPE_NAMES, &r.stats, true),
        live: r.series.as_ref().map(live_record),
        tpch: Some(tpch_times(r)),
    }
}

/// A TPROC-H run's figures, sets and refresh functions as plain job data.
pub fn tpch_times(r: &crate::tpch::result::RunResult) -> crate::jobs::TpchRecord {
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
    use crate::tpch::result::{AnswerCheck, QueryRun, QuerySet, Refresh, RefreshRun, RunResult};

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
        let mut stats = crate::vu::Stats::new(crate::tpch::TYPE_NAMES.len());
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
        let m = values::run_map("ID", &LastRun::Tpch(r));
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
