//! The jobs database in one SQLite file (`jobs.db` in the data directory, by default) in WAL
//! mode, so that several hammer processes on one machine record at once and a killed one
//! leaves it whole.
//!
//! Every write is one transaction; the schema is versioned with `PRAGMA user_version` and
//! upgraded in place by [`MIGRATIONS`].

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension, Row};

use super::{End, Lookup, Origin, Result, StoreError, JOB_TABLES, VERSION};
use crate::jobs::id::IdArg;
use crate::jobs::runs::RunPart;
use crate::jobs::{
    Kind, Line, MetricPoint, Profile, QueryTime, RefreshTime, RunFigures, SetTimes, Spec, Status,
    Summary, SystemInfo, TcountPoint, Timing, TpchFigures, TpchRecord,
};

/// How long a write waits for another process's write to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The schema, one step per version: `MIGRATIONS[n]` takes a database from version n to n+1.
pub(super) const MIGRATIONS: &[&str] = super::SQLITE_STEPS;

fn is_full(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull)
}

fn is_busy(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode::*;
    matches!(e.sqlite_error_code(), Some(DatabaseBusy | DatabaseLocked))
}

/// Runs `f` again while another connection holds a lock, for up to [`BUSY_TIMEOUT`]. SQLite's
/// busy handler covers most waits, but not all: a process opening, recovering or closing the
/// last connection to a WAL database makes others fail at once with "database is locked".
pub(super) fn retry<T>(mut f: impl FnMut() -> Result<T>) -> Result<T> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        match f() {
            Err(e) if e.busy && start.elapsed() < BUSY_TIMEOUT => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            r => return r,
        }
    }
}

/// A connection to a SQLite jobs database.
pub struct SqliteStore {
    pub(super) conn: Connection,
    path: PathBuf,
}

impl SqliteStore {
    /// Opens (creating it if needed) and upgrades the database at `path`.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        let store = Self::connect(path)?;
        store.migrate()?;
        Ok(store)
    }

    /// Opens without touching the schema: a second connection of the same process.
    pub fn connect(path: &Path) -> Result<SqliteStore> {
        retry(|| Self::connect_once(path))
    }

    fn connect_once(path: &Path) -> Result<SqliteStore> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let err = |e: rusqlite::Error| StoreError {
            path: path.display().to_string(),
            what: explain(&e),
            busy: is_busy(&e),
            full: is_full(&e),
        };
        let conn = Connection::open_with_flags(path, flags).map_err(err)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
        // WAL: readers never block the writer, and a killed writer's transaction is rolled
        // back on the next open. NORMAL is durable across a killed process (not a power cut).
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(err)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError {
                path: path.display().to_string(),
                what: format!("cannot use write-ahead logging (journal mode stays {mode})"),
                busy: false,
                full: false,
            });
        }
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(err)?;
        Ok(SqliteStore {
            conn,
            path: path.to_path_buf(),
        })
    }

    pub(super) fn err(&self, e: rusqlite::Error) -> StoreError {
        StoreError {
            path: self.path.display().to_string(),
            what: explain(&e),
            busy: is_busy(&e),
            full: is_full(&e),
        }
    }

    pub(super) fn version(&self) -> Result<i64> {
        retry(|| self.version_once())
    }

    fn version_once(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Brings the schema to [`VERSION`], one step per transaction; two processes upgrading at
    /// once take turns (the second finds the work done).
    fn migrate(&self) -> Result<()> {
        loop {
            let v = self.version()?;
            if v > VERSION {
                return Err(StoreError {
                    path: self.path.display().to_string(),
                    what: format!(
                        "it was written by a newer hammer (schema version {v}, this hammer knows up to {VERSION}); upgrade hammer or use another data directory (HAMMER_HOME)"
                    ),
                    busy: false,
                full: false,
                });
            }
            if v == VERSION {
                return Ok(());
            }
            // The version is read again under the write lock: another process may have
            // taken this step meanwhile.
            self.write(|c| {
                let now: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
                if now == v {
                    c.execute_batch(MIGRATIONS[v as usize])?;
                    c.pragma_update(None, "user_version", v + 1)?;
                }
                Ok(())
            })?;
        }
    }

    /// Runs `f` in one write transaction, taking the write lock first (BEGIN IMMEDIATE), so
    /// that two processes writing at once queue up instead of failing.
    pub(super) fn write<T>(
        &self,
        mut f: impl FnMut(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T> {
        retry(|| {
            self.conn
                .execute_batch("BEGIN IMMEDIATE")
                .map_err(|e| self.err(e))?;
            let done = f(&self.conn).and_then(|v| self.conn.execute_batch("COMMIT").map(|()| v));
            if done.is_err() {
                let _ = self.conn.execute_batch("ROLLBACK");
            }
            done.map_err(|e| self.err(e))
        })
    }

    /// Records a job as RUNNING.
    pub fn insert_job(&self, id: &str, spec: &Spec, origin: &Origin, started: i64) -> Result<()> {
        let p = &spec.profile;
        self.write(|c| {
            c.execute(
                "INSERT INTO jobs (id, kind, db, workload, mode, vus, warehouses, status, started_ms, \
                 hostname, pid, pid_started, settings) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    id,
                    spec.kind.code(),
                    p.db,
                    p.workload,
                    p.mode,
                    p.vus,
                    p.warehouses,
                    Status::Running.label(),
                    started,
                    origin.hostname,
                    origin.pid,
                    origin.pid_started.map(|s| s as i64),
                    spec.settings.to_string(),
                ],
            )
        })?;
        Ok(())
    }

    /// Appends what a running job produced, in one transaction.
    pub fn append(
        &self,
        job: &str,
        lines: &[Line],
        tcount: &[TcountPoint],
        metrics: &[MetricPoint],
    ) -> Result<()> {
        self.write(|c| {
            let mut put = c.prepare_cached(
                "INSERT INTO job_output (job, at_ms, vu, line) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for l in lines {
                put.execute(params![job, l.at, l.vu, l.line])?;
            }
            let mut put = c.prepare_cached(
                "INSERT INTO job_tcount (job, at_ms, tpm, nopm, metric) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for t in tcount {
                put.execute(params![job, t.at, t.value, t.nopm, t.metric])?;
            }
            let mut put = c.prepare_cached(
                "INSERT INTO job_metric (job, at_ms, usr, sys, irq, idle) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for m in metrics {
                put.execute(params![job, m.at, m.usr, m.sys, m.irq, m.idle])?;
            }
            Ok(())
        })
    }

    /// Records a job's end and what it measured, in one transaction.
    pub fn finish(&self, job: &str, end: &End, ended: i64) -> Result<()> {
        self.write(|tx| {
        tx.execute(
            "UPDATE jobs SET status = ?2, note = ?3, ended_ms = ?4, returned = ?5 WHERE id = ?1",
            params![
                job,
                end.status.label(),
                end.note,
                ended,
                end.returned.as_ref().map(|v| v.to_string())
            ],
        )
        ?;
        if let Some(f) = &end.figures {
            tx.execute(
                "INSERT OR REPLACE INTO job_result (job, nopm, tpm, active_vus, seconds, failed_vus, \
                 reconnects, transactions, client_cpu_seconds, stopped_early) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    job,
                    f.nopm,
                    f.tpm,
                    f.active_vus,
                    f.seconds,
                    f.failed_vus,
                    f.reconnects as i64,
                    f.transactions as i64,
                    f.client_cpu_seconds,
                    f.stopped_early
                ],
            )
            ?;
        }
        for (seq, (t, histogram)) in end.timings.iter().enumerate() {
            tx.execute(
                "INSERT OR REPLACE INTO job_timing (job, seq, name, committed, rolled_back, retried, failed, \
                 mean_ms, p50_ms, p95_ms, p99_ms, max_ms, histogram) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    job,
                    seq as i64,
                    t.name,
                    t.committed as i64,
                    t.rolled_back as i64,
                    t.retried as i64,
                    t.failed as i64,
                    t.mean_ms,
                    t.p50_ms,
                    t.p95_ms,
                    t.p99_ms,
                    t.max_ms,
                    histogram
                ],
            )
            ?;
        }
        if let Some(t) = &end.tpch {
            insert_tpch(tx, job, t)?;
        }
        if let Some(c) = &end.cpu {
            tx.execute(
                "INSERT OR REPLACE INTO job_cpu (job, seconds, busy_pct, hammer_pct, server_pct, server) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![job, c.seconds, c.busy_pct, c.hammer_pct, c.server_pct, c.server],
            )?;
        }
        if let Some(live) = &end.live {
            let series = serde_json::to_string(live).unwrap_or_default();
            tx.execute(
                "INSERT OR REPLACE INTO job_live (job, series) VALUES (?1, ?2)",
                params![job, series],
            )?;
        }
        if let Some((profile, step)) = &end.profile {
            tx.execute(
                "INSERT OR REPLACE INTO job_profile (job, profile, step) VALUES (?1, ?2, ?3)",
                params![job, profile, step],
            )?;
        }
        if let Some(r) = &end.run {
            let merged = serde_json::to_string(&r.merged).unwrap_or_default();
            tx.execute(
                "INSERT OR REPLACE INTO job_run (job, run, driver, drivers, merged) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![job, r.run, r.driver, r.drivers, merged],
            )?;
        }
        if let Some(s) = &end.system {
            let settings: serde_json::Map<String, serde_json::Value> = s
                .server_settings
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect();
            tx.execute(
                "INSERT OR REPLACE INTO job_system (job, hostname, os, cpu_model, cpu_count, physical_cores, \
                 memory_bytes, server_version, server_settings, transport, hammer_version, hammer_build) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    job,
                    s.hostname,
                    s.os,
                    s.cpu_model,
                    s.cpu_count,
                    s.physical_cores,
                    s.memory_bytes as i64,
                    s.server_version,
                    serde_json::Value::Object(settings).to_string(),
                    s.transport,
                    s.hammer_version,
                    s.hammer_build
                ],
            )
            ?;
        }
        Ok(())
        })
    }

    /// Every job, newest first.
    pub fn list(&self) -> Result<Vec<Summary>> {
        self.summaries("", &[])
    }

    /// Every job with its run figures and TPROC-H figures where it has them, newest first:
    /// what `jobs result` shows.
    pub fn results(&self) -> Result<Vec<crate::jobs::JobResult>> {
        let jobs = self.list()?;
        retry(|| {
            let e = |e| self.err(e);
            let figures = self.all_rows(
                "SELECT job, nopm, tpm, active_vus, seconds, failed_vus, reconnects, transactions, \
                 client_cpu_seconds, stopped_early FROM job_result",
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        RunFigures {
                            nopm: r.get(1)?,
                            tpm: r.get(2)?,
                            active_vus: r.get(3)?,
                            seconds: r.get(4)?,
                            failed_vus: r.get(5)?,
                            reconnects: r.get::<_, i64>(6)? as u64,
                            transactions: r.get::<_, i64>(7)? as u64,
                            client_cpu_seconds: r.get(8)?,
                            stopped_early: r.get(9)?,
                        },
                    ))
                },
            )
            .map_err(e)?;
            let tpch = self
                .all_rows(
                    "SELECT job, scale_factor, query_streams, geomean, geomean_queries, querysets, \
                     queries, failed_queries, query_seconds, sets_seconds, power_at_size, \
                     throughput_at_size, answers_checked, answers_matched, qphh FROM job_tpch",
                    |r| {
                        Ok((
                            r.get::<_, String>(0)?,
                            tpch_figures(r, 1)?,
                        ))
                    },
                )
                .map_err(e)?;
            let mut figures: std::collections::HashMap<_, _> = figures.into_iter().collect();
            let mut tpch: std::collections::HashMap<_, _> = tpch.into_iter().collect();
            Ok(jobs
                .iter()
                .map(|s| (s.clone(), figures.remove(&s.id), tpch.remove(&s.id)))
                .collect())
        })
    }

    fn all_rows<T>(
        &self,
        sql: &str,
        map: impl FnMut(&Row) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<Vec<T>> {
        let mut stmt = self.conn.prepare(sql)?;
        let rows = stmt.query_map([], map)?;
        rows.collect()
    }

    /// Successful runs with the same profile, oldest first: the repeats that measure noise.
    pub fn repeats(&self, p: &Profile) -> Result<Vec<Summary>> {
        let mut v = self.summaries(
            "WHERE j.kind = 'run' AND j.status = 'SUCCESS' AND r.nopm IS NOT NULL \
             AND j.db = ?1 AND j.workload = ?2 AND j.mode = ?3 AND j.vus IS ?4 AND j.warehouses IS ?5",
            params![p.db, p.workload, p.mode, p.vus, p.warehouses],
        )?;
        v.reverse();
        Ok(v)
    }

    fn summaries(&self, filter: &str, args: &[&dyn rusqlite::ToSql]) -> Result<Vec<Summary>> {
        retry(|| self.summaries_once(filter, args))
    }

    fn summaries_once(&self, filter: &str, args: &[&dyn rusqlite::ToSql]) -> Result<Vec<Summary>> {
        let sql = format!(
            "SELECT j.id, j.kind, j.db, j.workload, j.mode, j.vus, j.warehouses, j.status, j.note, \
             j.started_ms, j.ended_ms, j.hostname, j.pid, j.pid_started, r.nopm, r.tpm, \
             h.geomean, h.querysets \
             FROM jobs j LEFT JOIN job_result r ON r.job = j.id LEFT JOIN job_tpch h ON h.job = j.id \
             {filter} ORDER BY j.id DESC"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = stmt.query_map(args, summary_row).map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for r in rows {
            out.push(r.map_err(|e| self.err(e))?);
        }
        Ok(out)
    }

    /// The full id a user's id or prefix names; a message saying why when none or several do.
    pub fn resolve(&self, arg: &IdArg) -> std::result::Result<String, Lookup> {
        let (pattern, shown) = match arg {
            IdArg::Full(id) => (id.clone(), id.clone()),
            IdArg::Prefix(p) => (format!("{p}%"), p.clone()),
        };
        // The newest candidates first: the jobs a user just ran are the ones meant.
        let (ids, total): (Vec<String>, usize) = retry(|| {
            let mut stmt = self
                .conn
                .prepare("SELECT id FROM jobs WHERE id LIKE ?1 ORDER BY id DESC LIMIT 6")
                .map_err(|e| self.err(e))?;
            let ids = stmt
                .query_map([&pattern], |r| r.get(0))
                .and_then(|rows| rows.collect::<rusqlite::Result<Vec<String>>>())
                .map_err(|e| self.err(e))?;
            let total: i64 = self
                .conn
                .query_row(
                    "SELECT count(*) FROM jobs WHERE id LIKE ?1",
                    [&pattern],
                    |r| r.get(0),
                )
                .map_err(|e| self.err(e))?;
            Ok((ids, total as usize))
        })
        .map_err(Lookup::Store)?;
        match ids.len() {
            0 => Err(Lookup::Missing(shown)),
            1 => Ok(ids.into_iter().next().unwrap_or_default()),
            _ => Err(Lookup::Ambiguous(shown, ids, total)),
        }
    }

    /// One job's summary.
    pub fn summary(&self, id: &str) -> Result<Option<Summary>> {
        Ok(self
            .summaries("WHERE j.id = ?1", &[&id])?
            .into_iter()
            .next())
    }

    /// Everything stored about a job but its output lines.
    pub fn detail(&self, id: &str) -> Result<Option<crate::jobs::Detail>> {
        retry(|| self.detail_once(id))
    }

    fn detail_once(&self, id: &str) -> Result<Option<crate::jobs::Detail>> {
        let Some(summary) = self.summary(id)? else {
            return Ok(None);
        };
        let e = |e| self.err(e);
        let (settings, returned): (String, Option<String>) = self
            .conn
            .query_row(
                "SELECT settings, returned FROM jobs WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(e)?;
        let figures = self
            .conn
            .query_row(
                "SELECT nopm, tpm, active_vus, seconds, failed_vus, reconnects, transactions, \
                 client_cpu_seconds, stopped_early FROM job_result WHERE job = ?1",
                [id],
                |r| {
                    Ok(RunFigures {
                        nopm: r.get(0)?,
                        tpm: r.get(1)?,
                        active_vus: r.get(2)?,
                        seconds: r.get(3)?,
                        failed_vus: r.get(4)?,
                        reconnects: r.get::<_, i64>(5)? as u64,
                        transactions: r.get::<_, i64>(6)? as u64,
                        client_cpu_seconds: r.get(7)?,
                        stopped_early: r.get(8)?,
                    })
                },
            )
            .optional()
            .map_err(e)?;
        let timings = self.rows(
            "SELECT name, committed, rolled_back, retried, failed, mean_ms, p50_ms, p95_ms, p99_ms, max_ms \
             FROM job_timing WHERE job = ?1 ORDER BY seq",
            id,
            |r| {
                Ok(Timing {
                    name: r.get(0)?,
                    committed: r.get::<_, i64>(1)? as u64,
                    rolled_back: r.get::<_, i64>(2)? as u64,
                    retried: r.get::<_, i64>(3)? as u64,
                    failed: r.get::<_, i64>(4)? as u64,
                    mean_ms: r.get(5)?,
                    p50_ms: r.get(6)?,
                    p95_ms: r.get(7)?,
                    p99_ms: r.get(8)?,
                    max_ms: r.get(9)?,
                })
            },
        )?;
        let tcount = self.rows(
            "SELECT at_ms, metric, tpm, nopm FROM job_tcount WHERE job = ?1 ORDER BY at_ms, rowid",
            id,
            |r| {
                Ok(TcountPoint {
                    at: r.get(0)?,
                    metric: r.get(1)?,
                    value: r.get(2)?,
                    nopm: r.get(3)?,
                })
            },
        )?;
        let metrics = self.rows(
            "SELECT at_ms, usr, sys, irq, idle FROM job_metric WHERE job = ?1 ORDER BY at_ms, rowid",
            id,
            |r| {
                Ok(MetricPoint {
                    at: r.get(0)?,
                    usr: r.get(1)?,
                    sys: r.get(2)?,
                    irq: r.get(3)?,
                    idle: r.get(4)?,
                })
            },
        )?;
        let system = self
            .conn
            .query_row(
                "SELECT hostname, os, cpu_model, cpu_count, physical_cores, memory_bytes, \
                 server_version, server_settings, transport, hammer_version, hammer_build \
                 FROM job_system WHERE job = ?1",
                [id],
                |r| {
                    let settings: String = r.get(7)?;
                    let settings = match serde_json::from_str(&settings) {
                        Ok(serde_json::Value::Object(m)) => m
                            .into_iter()
                            .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_string()))
                            .collect(),
                        _ => Vec::new(),
                    };
                    Ok(SystemInfo {
                        hostname: r.get(0)?,
                        os: r.get(1)?,
                        cpu_model: r.get(2)?,
                        cpu_count: r.get(3)?,
                        physical_cores: r.get(4)?,
                        memory_bytes: r.get::<_, i64>(5)? as u64,
                        server_version: r.get(6)?,
                        server_settings: settings,
                        transport: r.get(8)?,
                        hammer_version: r.get(9)?,
                        hammer_build: r.get(10)?,
                    })
                },
            )
            .optional()
            .map_err(e)?;
        let live: Option<String> = self
            .conn
            .query_row("SELECT series FROM job_live WHERE job = ?1", [id], |r| {
                r.get(0)
            })
            .optional()
            .map_err(e)?;
        let cpu = self
            .conn
            .query_row(
                "SELECT seconds, busy_pct, hammer_pct, server_pct, server FROM job_cpu WHERE job = ?1",
                [id],
                |r| {
                    Ok(crate::jobs::HostCpu::new(
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                    ))
                },
            )
            .optional()
            .map_err(e)?;
        Ok(Some(crate::jobs::Detail {
            summary,
            settings: serde_json::from_str(&settings).unwrap_or(serde_json::Value::Null),
            figures,
            returned: returned.and_then(|r| serde_json::from_str(&r).ok()),
            timings,
            tcount,
            metrics,
            system,
            live: live.and_then(|s| serde_json::from_str(&s).ok()),
            tpch: self.tpch(id)?,
            cpu,
            run: self.run_part(id)?,
        }))
    }

    /// A job's part of a shared run, when it was one.
    fn run_part(&self, id: &str) -> Result<Option<RunPart>> {
        let rows = self.rows(
            "SELECT run, driver, drivers, merged FROM job_run WHERE job = ?1",
            id,
            run_part,
        )?;
        Ok(rows.into_iter().flatten().next())
    }

    /// Every job recorded under a performance profile, oldest first.
    pub fn profiles(&self) -> Result<Vec<(String, i64, String)>> {
        retry(|| {
            self.all_rows(
                "SELECT p.job, p.profile, p.step FROM job_profile p JOIN jobs j ON j.id = p.job \
                 ORDER BY j.started_ms, p.job",
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(|e| self.err(e))
        })
    }

    /// Every job's part of a shared run, with the job's id.
    pub fn runs(&self) -> Result<Vec<(String, RunPart)>> {
        retry(|| {
            let rows = self
                .all_rows(
                    "SELECT run, driver, drivers, merged, job FROM job_run",
                    |r| {
                        let id: String = r.get(4)?;
                        Ok(run_part(r)?.map(|p| (id, p)))
                    },
                )
                .map_err(|e| self.err(e))?;
            Ok(rows.into_iter().flatten().collect())
        })
    }

    /// A TPROC-H run's record, when the job has one.
    fn tpch(&self, id: &str) -> Result<Option<TpchRecord>> {
        let e = |e| self.err(e);
        let figures = self
            .conn
            .query_row(
                "SELECT scale_factor, query_streams, geomean, geomean_queries, querysets, queries, \
                 failed_queries, query_seconds, sets_seconds, power_at_size, throughput_at_size, \
                 answers_checked, answers_matched, qphh FROM job_tpch WHERE job = ?1",
                [id],
                |r| tpch_figures(r, 0),
            )
            .optional()
            .map_err(e)?;
        let Some(figures) = figures else {
            return Ok(None);
        };
        let mut sets = self.rows(
            "SELECT seq, vu, stream, query_set, seconds FROM job_query_set WHERE job = ?1 ORDER BY seq",
            id,
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    SetTimes {
                        vu: r.get(1)?,
                        stream: r.get(2)?,
                        set: r.get(3)?,
                        seconds: r.get(4)?,
                        queries: Vec::new(),
                    },
                ))
            },
        )?;
        let queries = self.rows(
            "SELECT set_seq, position, query, seconds, rows, error FROM job_query WHERE job = ?1 \
             ORDER BY set_seq, seq",
            id,
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    QueryTime {
                        position: r.get(1)?,
                        query: r.get(2)?,
                        seconds: r.get(3)?,
                        rows: r.get::<_, i64>(4)? as u64,
                        error: r.get(5)?,
                    },
                ))
            },
        )?;
        for (seq, q) in queries {
            if let Some((_, set)) = sets.iter_mut().find(|(s, _)| *s == seq) {
                set.queries.push(q);
            }
        }
        let refreshes = self.rows(
            "SELECT vu, pair, function, name, seconds, rows, error FROM job_refresh WHERE job = ?1 \
             ORDER BY seq",
            id,
            |r| {
                Ok(RefreshTime {
                    vu: r.get(0)?,
                    pair: r.get(1)?,
                    function: r.get(2)?,
                    name: r.get(3)?,
                    seconds: r.get(4)?,
                    rows: r.get::<_, i64>(5)? as u64,
                    error: r.get(6)?,
                })
            },
        )?;
        Ok(Some(TpchRecord {
            figures,
            sets: sets.into_iter().map(|(_, s)| s).collect(),
            refreshes,
        }))
    }

    /// A job's output lines in the order printed; only virtual user `vu`'s when given.
    pub fn output(&self, id: &str, vu: Option<u32>) -> Result<Vec<Line>> {
        retry(|| self.output_once(id, vu))
    }

    fn output_once(&self, id: &str, vu: Option<u32>) -> Result<Vec<Line>> {
        let map = |r: &Row| {
            Ok(Line {
                at: r.get(0)?,
                vu: r.get(1)?,
                line: r.get(2)?,
            })
        };
        match vu {
            None => self.rows(
                "SELECT at_ms, vu, line FROM job_output WHERE job = ?1 ORDER BY rowid",
                id,
                map,
            ),
            Some(vu) => {
                let mut stmt = self
                    .conn
                    .prepare(
                        "SELECT at_ms, vu, line FROM job_output WHERE job = ?1 AND vu = ?2 ORDER BY rowid",
                    )
                    .map_err(|e| self.err(e))?;
                let rows = stmt
                    .query_map(params![id, vu], map)
                    .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
                    .map_err(|e| self.err(e))?;
                Ok(rows)
            }
        }
    }

    fn rows<T>(
        &self,
        sql: &str,
        id: &str,
        map: impl FnMut(&Row) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([id], map)
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    /// Deletes a job and everything recorded for it; false when there was no such job.
    pub fn delete(&self, id: &str) -> Result<bool> {
        self.write(|c| {
            for table in JOB_TABLES {
                c.execute(&format!("DELETE FROM {table} WHERE job = ?1"), [id])?;
            }
            Ok(c.execute("DELETE FROM jobs WHERE id = ?1", [id])? > 0)
        })
    }
}

/// A part of a shared run from `run, driver, drivers, merged`; `None` when its merge does not
/// read (written by a hammer whose merge had other fields: the job still lists).
fn run_part(r: &rusqlite::Row) -> rusqlite::Result<Option<RunPart>> {
    let merged: String = r.get(3)?;
    let (run, driver, drivers) = (r.get(0)?, r.get(1)?, r.get(2)?);
    Ok(serde_json::from_str(&merged).ok().map(|merged| RunPart {
        run,
        driver,
        drivers,
        merged,
    }))
}

/// A TPROC-H run's figures from a row of `job_tpch`'s columns in their table order
/// (`scale_factor` .. `qphh`), the first at column `at`.
fn tpch_figures(r: &rusqlite::Row, at: usize) -> rusqlite::Result<TpchFigures> {
    Ok(TpchFigures {
        scale_factor: r.get(at)?,
        query_streams: r.get(at + 1)?,
        geomean: r.get(at + 2)?,
        geomean_queries: r.get::<_, i64>(at + 3)? as u64,
        querysets: r.get(at + 4)?,
        queries: r.get::<_, i64>(at + 5)? as u64,
        failed_queries: r.get::<_, i64>(at + 6)? as u64,
        query_seconds: r.get(at + 7)?,
        sets_seconds: r.get(at + 8)?,
        power_at_size: r.get(at + 9)?,
        throughput_at_size: r.get(at + 10)?,
        answers_checked: r.get(at + 11)?,
        answers_matched: r.get(at + 12)?,
        qphh: r.get(at + 13)?,
    })
}

/// A TPROC-H run's record, inside the job's end transaction.
fn insert_tpch(tx: &Connection, job: &str, t: &TpchRecord) -> rusqlite::Result<()> {
    let f = &t.figures;
    tx.execute(
        "INSERT OR REPLACE INTO job_tpch (job, scale_factor, query_streams, geomean, geomean_queries, \
         querysets, queries, failed_queries, query_seconds, sets_seconds, power_at_size, \
         throughput_at_size, answers_checked, answers_matched, qphh) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        params![
            job,
            f.scale_factor,
            f.query_streams,
            f.geomean,
            f.geomean_queries as i64,
            f.querysets,
            f.queries as i64,
            f.failed_queries as i64,
            f.query_seconds,
            f.sets_seconds,
            f.power_at_size,
            f.throughput_at_size,
            f.answers_checked,
            f.answers_matched,
            f.qphh
        ],
    )?;
    let mut put_set = tx.prepare_cached(
        "INSERT OR REPLACE INTO job_query_set (job, seq, vu, stream, query_set, seconds) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut put_query = tx.prepare_cached(
        "INSERT OR REPLACE INTO job_query (job, set_seq, seq, position, query, seconds, rows, error) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for (i, s) in t.sets.iter().enumerate() {
        put_set.execute(params![job, i as i64, s.vu, s.stream, s.set, s.seconds])?;
        for (k, q) in s.queries.iter().enumerate() {
            put_query.execute(params![
                job,
                i as i64,
                k as i64,
                q.position,
                q.query,
                q.seconds,
                q.rows as i64,
                q.error
            ])?;
        }
    }
    let mut put = tx.prepare_cached(
        "INSERT OR REPLACE INTO job_refresh (job, seq, vu, pair, function, name, seconds, rows, error) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for (i, r) in t.refreshes.iter().enumerate() {
        put.execute(params![
            job,
            i as i64,
            r.vu,
            r.pair,
            r.function,
            r.name,
            r.seconds,
            r.rows as i64,
            r.error
        ])?;
    }
    Ok(())
}

fn summary_row(r: &Row) -> rusqlite::Result<Summary> {
    let kind: String = r.get(1)?;
    let status: String = r.get(7)?;
    let started: i64 = r.get(9)?;
    let ended: Option<i64> = r.get(10)?;
    let hostname: String = r.get(11)?;
    let pid: u32 = r.get(12)?;
    let pid_started: Option<i64> = r.get(13)?;
    let kind = Kind::from_code(&kind).unwrap_or(Kind::Run);
    let mut status = Status::from_label(&status).unwrap_or(Status::Aborted);
    if status == Status::Running
        && crate::jobs::system::process_gone(&hostname, pid, pid_started.map(|s| s as u64))
    {
        status = Status::Aborted;
    }
    Ok(Summary {
        id: r.get(0)?,
        kind,
        label: kind.label(),
        profile: Profile {
            db: r.get(2)?,
            workload: r.get(3)?,
            mode: r.get(4)?,
            vus: r.get(5)?,
            warehouses: r.get(6)?,
        },
        status,
        note: r.get(8)?,
        started,
        ended,
        seconds: ended.map(|e| (e - started) as f64 / 1000.0),
        nopm: r.get(14)?,
        tpm: r.get(15)?,
        geomean: r.get(16)?,
        querysets: r.get(17)?,
        hostname,
        pid,
    })
}

/// SQLite's message, with the way out for the failures a user can fix.
fn explain(e: &rusqlite::Error) -> String {
    use rusqlite::ErrorCode::*;
    let base = e.to_string();
    match e.sqlite_error_code() {
        Some(NotADatabase) | Some(DatabaseCorrupt) => format!(
            "{base}: the file is damaged or not a jobs database; move it aside (hammer then starts a new one)"
        ),
        Some(ReadOnly) | Some(CannotOpen) | Some(PermissionDenied) => format!(
            "{base}: hammer needs to create and write it and its -wal and -shm files there"
        ),
        Some(DatabaseBusy) | Some(DatabaseLocked) => format!(
            "{base}: another process held it for more than {} s",
            BUSY_TIMEOUT.as_secs()
        ),
        Some(DiskFull) => format!("{base}: free some disk space"),
        _ => base,
    }
}
