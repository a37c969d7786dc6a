//! The jobs database on a PostgreSQL server (`commandline.jobs_store`): the same tables as
//! the SQLite file, in a database several machines reach, so that `jobs` on any of them shows
//! every machine's jobs.
//!
//! The schema is versioned in a one-row table (`jobs_schema_version`, SQLite's
//! `user_version`) and made or upgraded by [`MIGRATIONS`] (`schemas/jobs/pg/vN.sql`) in one
//! transaction under an advisory lock, so that processes opening a fresh store at once take
//! turns. Every write is one transaction; `jobs` reads a job in one snapshot.
//!
//! Whether a RUNNING job's process is alive is the server's to say, not the host's: the
//! connection that records a job holds a session advisory lock keyed by its id until the job
//! ends, and the server lets the lock go when that connection closes (its process killed, its
//! machine gone). A RUNNING job whose lock nobody holds reads as ABORTED, whatever machine ran
//! it, and two machines of the same name cannot mistake each other's jobs.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use tokio_postgres::error::SqlState;
use tokio_postgres::types::{FromSql, ToSql};
use tokio_postgres::Row;

use super::pglink::{Conn, Done, Fail, Link};
use super::{End, Lookup, Origin, Result, JOB_TABLES, VERSION};
use crate::conninfo::Conninfo;
use crate::jobs::id::IdArg;
use crate::jobs::runs::RunPart;
use crate::jobs::{
    Detail, HostCpu, JobResult, Kind, Line, MetricPoint, Profile, QueryTime, RefreshTime,
    RunFigures, SetTimes, Spec, Status, Summary, SystemInfo, TcountPoint, Timing, TpchFigures,
    TpchRecord,
};

/// The schema, one step per version: `MIGRATIONS[n]` takes a database from version n to n+1,
/// the same tables as SQLite's step n+1.
pub(super) const MIGRATIONS: &[&str] = super::PG_STEPS;

/// The advisory lock the schema's makers take turns on ("hammerjb").
const MIGRATION_LOCK: i64 = 0x6861_6d6d_6572_6a62;

/// A read that sees one moment of the database.
const SNAPSHOT: &str = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

/// The advisory lock a running job's recorder holds: the id's 64 bits after its seconds
/// (fraction and random part), which tell apart jobs that run at the same time.
pub(super) fn lock_key(id: &str) -> i64 {
    match id.get(8..24).and_then(|h| u64::from_str_radix(h, 16).ok()) {
        Some(k) => k as i64,
        // Not one of hammer's ids: any stable 64 bits (FNV-1a).
        None => id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        }) as i64,
    }
}

/// The key of an advisory lock as `pg_locks` shows a bigint key: its high and low halves.
fn key_of(classid: i64, objid: i64) -> i64 {
    (((classid as u64) << 32) | (objid as u64 & 0xFFFF_FFFF)) as i64
}

/// Text PostgreSQL can hold: a NUL byte (which a server's message may carry) becomes `␀`.
fn text(s: &str) -> Cow<'_, str> {
    if s.contains('\0') {
        Cow::Owned(s.replace('\0', "\u{2400}"))
    } else {
        Cow::Borrowed(s)
    }
}

fn owned(s: &str) -> String {
    text(s).into_owned()
}

/// A column of a row, or why it cannot be read (a table changed by hand).
pub(super) fn get<'a, T: FromSql<'a>>(r: &'a Row, i: usize) -> Done<T> {
    r.try_get(i).map_err(|e| Fail {
        what: format!("cannot read column {i} of a row: {e}"),
        lost: false,
        code: None,
    })
}

fn count(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn small(v: i64) -> u32 {
    u32::try_from(v).unwrap_or(0)
}

/// A connection to a PostgreSQL jobs database.
pub struct PgStore {
    pub(super) link: Link,
}

impl PgStore {
    /// Connects, and makes or upgrades the tables.
    pub fn open(c: &Conninfo) -> Result<PgStore> {
        let store = Self::connect(c)?;
        store.migrate()?;
        Ok(store)
    }

    /// Connects without touching the schema: a second connection of the same process.
    pub fn connect(c: &Conninfo) -> Result<PgStore> {
        let store = PgStore {
            link: Link::start(c)?,
        };
        store.link.call(|c| c.simple("SELECT 1"))?;
        Ok(store)
    }

    #[cfg(test)]
    pub(super) fn version(&self) -> Result<i64> {
        self.link.call(version)
    }

    /// Brings the schema to [`VERSION`] in one transaction, under the migration lock: two
    /// processes opening a fresh store at once take turns, and the second finds the work
    /// done. A store at the version already takes no lock and needs no right to create.
    fn migrate(&self) -> Result<()> {
        self.link.call(|c| {
            let v = version(c)?;
            if v == VERSION {
                return Ok(());
            }
            newer(v)?;
            c.transaction("BEGIN", |c| {
                c.query("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
                c.simple(
                    "CREATE TABLE IF NOT EXISTS jobs_schema_version (version BIGINT NOT NULL)",
                )?;
                let now = version(c)?;
                newer(now)?;
                for step in &MIGRATIONS[now as usize..] {
                    c.simple(step)?;
                }
                if now < VERSION {
                    c.simple("DELETE FROM jobs_schema_version")?;
                    c.execute(
                        "INSERT INTO jobs_schema_version (version) VALUES ($1)",
                        &[&VERSION],
                    )?;
                }
                Ok(())
            })
            .map_err(|e| cannot_create(c, e))
        })
    }

    /// Records a job as RUNNING, and takes its lock (held until the job's end, or until this
    /// connection closes).
    pub fn insert_job(&self, id: &str, spec: &Spec, origin: &Origin, started: i64) -> Result<()> {
        let id = id.to_string();
        let key = lock_key(&id);
        let p = spec.profile.clone();
        let kind = spec.kind.code();
        let settings = owned(&spec.settings.to_string());
        let origin = origin.clone();
        self.link.call(move |c| {
            let done = c.transaction("BEGIN", |c| {
                c.query("SELECT pg_try_advisory_lock($1)", &[&key])?;
                c.execute(
                    "INSERT INTO jobs (id, kind, db, workload, mode, vus, warehouses, status, \
                     started_ms, hostname, pid, pid_started, settings) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
                    &[
                        &id,
                        &kind,
                        &p.db,
                        &p.workload,
                        &p.mode,
                        &p.vus.map(i64::from),
                        &p.warehouses.map(i64::from),
                        &Status::Running.label(),
                        &started,
                        &origin.hostname,
                        &i64::from(origin.pid),
                        &origin.pid_started.map(|s| s as i64),
                        &settings,
                    ],
                )?;
                Ok(())
            });
            match done {
                Ok(()) => {
                    c.hold(key);
                    Ok(())
                }
                Err(e) => {
                    // The lock outlives a rolled-back transaction: let it go.
                    if !e.lost {
                        let _ = c.query("SELECT pg_advisory_unlock($1)", &[&key]);
                    }
                    Err(e)
                }
            }
        })
    }

    /// Appends what a running job produced, in one transaction (one statement per table).
    pub fn append(
        &self,
        job: &str,
        lines: &[Line],
        tcount: &[TcountPoint],
        metrics: &[MetricPoint],
    ) -> Result<()> {
        let job = job.to_string();
        let out_at: Vec<i64> = lines.iter().map(|l| l.at).collect();
        let out_vu: Vec<i64> = lines.iter().map(|l| i64::from(l.vu)).collect();
        let out_line: Vec<String> = lines.iter().map(|l| owned(&l.line)).collect();
        let tc_at: Vec<i64> = tcount.iter().map(|t| t.at).collect();
        let tc_value: Vec<f64> = tcount.iter().map(|t| t.value).collect();
        let tc_nopm: Vec<Option<f64>> = tcount.iter().map(|t| t.nopm).collect();
        let tc_metric: Vec<String> = tcount.iter().map(|t| owned(&t.metric)).collect();
        let m_at: Vec<i64> = metrics.iter().map(|m| m.at).collect();
        let m: [Vec<f64>; 4] = [
            metrics.iter().map(|m| m.usr).collect(),
            metrics.iter().map(|m| m.sys).collect(),
            metrics.iter().map(|m| m.irq).collect(),
            metrics.iter().map(|m| m.idle).collect(),
        ];
        self.link.call(move |c| {
            c.transaction("BEGIN", |c| {
                if !out_at.is_empty() {
                    c.execute(
                        "INSERT INTO job_output (job, at_ms, vu, line) SELECT $1::text, u.* \
                         FROM unnest($2::bigint[], $3::bigint[], $4::text[]) AS u",
                        &[&job, &out_at, &out_vu, &out_line],
                    )?;
                }
                if !tc_at.is_empty() {
                    c.execute(
                        "INSERT INTO job_tcount (job, at_ms, tpm, nopm, metric) \
                         SELECT $1::text, u.* FROM unnest($2::bigint[], $3::float8[], \
                         $4::float8[], $5::text[]) AS u",
                        &[&job, &tc_at, &tc_value, &tc_nopm, &tc_metric],
                    )?;
                }
                if !m_at.is_empty() {
                    c.execute(
                        "INSERT INTO job_metric (job, at_ms, usr, sys, irq, idle) \
                         SELECT $1::text, u.* FROM unnest($2::bigint[], $3::float8[], \
                         $4::float8[], $5::float8[], $6::float8[]) AS u",
                        &[&job, &m_at, &m[0], &m[1], &m[2], &m[3]],
                    )?;
                }
                Ok(())
            })
        })
    }

    /// Records a job's end and what it measured, in one transaction; then lets its lock go.
    pub fn finish(&self, job: &str, end: &End, ended: i64) -> Result<()> {
        let job = job.to_string();
        let end = end.clone();
        let key = lock_key(&job);
        self.link.call(move |c| {
            c.transaction("BEGIN", |c| write_end(c, &job, &end, ended))?;
            if c.holds(key) {
                c.query("SELECT pg_advisory_unlock($1)", &[&key])?;
                c.release(key);
            }
            Ok(())
        })
    }

    /// Every job, newest first.
    pub fn list(&self) -> Result<Vec<Summary>> {
        self.link
            .call(|c| c.transaction(SNAPSHOT, |c| summaries(c, "", &[])))
    }

    /// Every job with its run figures and TPROC-H figures where it has them, newest first.
    pub fn results(&self) -> Result<Vec<JobResult>> {
        self.link.call(|c| {
            c.transaction(SNAPSHOT, |c| {
                let jobs = summaries(c, "", &[])?;
                let mut figures: HashMap<String, RunFigures> = HashMap::new();
                for r in c.query(&format!("SELECT job, {FIGURES} FROM job_result"), &[])? {
                    figures.insert(get(&r, 0)?, run_figures(&r, 1)?);
                }
                let mut tpch: HashMap<String, TpchFigures> = HashMap::new();
                for r in c.query(&format!("SELECT job, {TPCH} FROM job_tpch"), &[])? {
                    tpch.insert(get(&r, 0)?, tpch_figures(&r, 1)?);
                }
                Ok(jobs
                    .into_iter()
                    .map(|s| {
                        let (f, t) = (figures.remove(&s.id), tpch.remove(&s.id));
                        (s, f, t)
                    })
                    .collect())
            })
        })
    }

    /// Successful runs with the same profile, oldest first.
    pub fn repeats(&self, p: &Profile) -> Result<Vec<Summary>> {
        let p = p.clone();
        self.link.call(move |c| {
            let vus = p.vus.map(i64::from);
            let warehouses = p.warehouses.map(i64::from);
            let mut v = c.transaction(SNAPSHOT, |c| {
                summaries(
                    c,
                    "WHERE j.kind = 'run' AND j.status = 'SUCCESS' AND r.nopm IS NOT NULL \
                     AND j.db = $1 AND j.workload = $2 AND j.mode = $3 \
                     AND j.vus IS NOT DISTINCT FROM $4 AND j.warehouses IS NOT DISTINCT FROM $5",
                    &[&p.db, &p.workload, &p.mode, &vus, &warehouses],
                )
            })?;
            v.reverse();
            Ok(v)
        })
    }

    /// The full id a user's id or prefix names.
    pub fn resolve(&self, arg: &IdArg) -> std::result::Result<String, Lookup> {
        let (pattern, shown) = match arg {
            IdArg::Full(id) => (id.clone(), id.clone()),
            IdArg::Prefix(p) => (format!("{p}%"), p.clone()),
        };
        // The newest candidates first: the jobs a user just ran are the ones meant.
        let (ids, total) = self
            .link
            .call(move |c| {
                c.transaction(SNAPSHOT, |c| {
                    let ids = c
                        .query(
                            "SELECT id FROM jobs WHERE id LIKE $1 ORDER BY id DESC LIMIT 6",
                            &[&pattern],
                        )?
                        .iter()
                        .map(|r| get::<String>(r, 0))
                        .collect::<Done<Vec<String>>>()?;
                    let total: i64 = get(
                        &c.query("SELECT count(*) FROM jobs WHERE id LIKE $1", &[&pattern])?[0],
                        0,
                    )?;
                    Ok((ids, count(total) as usize))
                })
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
        let id = id.to_string();
        self.link.call(move |c| {
            c.transaction(SNAPSHOT, |c| {
                Ok(summaries(c, "WHERE j.id = $1", &[&id])?.into_iter().next())
            })
        })
    }

    /// Everything stored about a job but its output lines, as of one moment.
    pub fn detail(&self, id: &str) -> Result<Option<Detail>> {
        let id = id.to_string();
        self.link
            .call(move |c| c.transaction(SNAPSHOT, |c| detail(c, &id)))
    }

    /// Every job recorded under a performance profile, oldest first.
    pub fn profiles(&self) -> Result<Vec<(String, i64, String)>> {
        self.link.call(|c| {
            c.transaction(SNAPSHOT, |c| {
                let rows = c.query(
                    "SELECT p.job, p.profile, p.step FROM job_profile p JOIN jobs j ON j.id = p.job \
                     ORDER BY j.started_ms, p.job",
                    &[],
                )?;
                let mut out = Vec::new();
                for r in &rows {
                    out.push((get(r, 0)?, get(r, 1)?, get(r, 2)?));
                }
                Ok(out)
            })
        })
    }

    /// Every job's part of a shared run, with the job's id.
    pub fn runs(&self) -> Result<Vec<(String, RunPart)>> {
        self.link
            .call(|c| c.transaction(SNAPSHOT, |c| runs(c, "", &[])))
    }

    /// A job's output lines in the order printed; only virtual user `vu`'s when given.
    pub fn output(&self, id: &str, vu: Option<u32>) -> Result<Vec<Line>> {
        let id = id.to_string();
        self.link.call(move |c| {
            let rows = match vu {
                None => c.query(
                    "SELECT at_ms, vu, line FROM job_output WHERE job = $1 ORDER BY rowid",
                    &[&id],
                )?,
                Some(vu) => c.query(
                    "SELECT at_ms, vu, line FROM job_output WHERE job = $1 AND vu = $2 \
                     ORDER BY rowid",
                    &[&id, &i64::from(vu)],
                )?,
            };
            rows.iter()
                .map(|r| {
                    Ok(Line {
                        at: get(r, 0)?,
                        vu: small(get(r, 1)?),
                        line: get(r, 2)?,
                    })
                })
                .collect()
        })
    }

    /// Deletes a job and everything recorded for it; false when there was no such job.
    pub fn delete(&self, id: &str) -> Result<bool> {
        let id = id.to_string();
        self.link.call(move |c| {
            c.transaction("BEGIN", |c| {
                for table in JOB_TABLES {
                    c.execute(&format!("DELETE FROM {table} WHERE job = $1"), &[&id])?;
                }
                Ok(c.execute("DELETE FROM jobs WHERE id = $1", &[&id])? > 0)
            })
        })
    }
}

/// The schema version of the database the connection is in (0: no tables yet).
fn version(c: &mut Conn) -> Done<i64> {
    let exists: bool = get(
        &c.query("SELECT to_regclass('jobs_schema_version') IS NOT NULL", &[])?[0],
        0,
    )?;
    if !exists {
        return Ok(0);
    }
    let v: Option<i64> = get(
        &c.query("SELECT max(version) FROM jobs_schema_version", &[])?[0],
        0,
    )?;
    Ok(v.unwrap_or(0))
}

/// A database a newer hammer wrote is not this one's to change.
fn newer(v: i64) -> Done<()> {
    if v > VERSION {
        return Err(Fail {
            what: format!(
                "it was written by a newer hammer (schema version {v}, this hammer knows up to \
                 {VERSION}); upgrade hammer or name another database in jobs_store"
            ),
            lost: false,
            code: None,
        });
    }
    Ok(())
}

/// A failed migration, with the way out when the user may not create tables there.
fn cannot_create(c: &Conn, e: Fail) -> Fail {
    let (user, db) = (c.user(), c.dbname());
    let why = match &e.code {
        Some(code) if *code == SqlState::INSUFFICIENT_PRIVILEGE => format!(
            "user {user} may not create hammer's jobs tables in database {db} ({}): hammer makes \
             them there on first use. Let it (GRANT CREATE ON SCHEMA public TO {user}; \
             PostgreSQL 15 and later grant that to the database's owner only), make it the \
             owner (ALTER DATABASE {db} OWNER TO {user}), or have a user who may open the \
             store once",
            e.what
        ),
        Some(code) if *code == SqlState::READ_ONLY_SQL_TRANSACTION => format!(
            "the server is read-only ({}): name the primary in jobs_store",
            e.what
        ),
        _ => format!("cannot make or upgrade the jobs tables: {}", e.what),
    };
    Fail { what: why, ..e }
}

/// The columns of `job_result` read into [`RunFigures`].
const FIGURES: &str = "nopm, tpm, active_vus, seconds, failed_vus, reconnects, transactions, \
     client_cpu_seconds, stopped_early";

/// The columns of `job_tpch` read into [`TpchFigures`], in its order.
const TPCH: &str = "scale_factor, query_streams, geomean, geomean_queries, querysets, queries, \
     failed_queries, query_seconds, sets_seconds, power_at_size, throughput_at_size, \
     answers_checked, answers_matched, qphh";

fn run_figures(r: &Row, at: usize) -> Done<RunFigures> {
    Ok(RunFigures {
        nopm: get(r, at)?,
        tpm: get(r, at + 1)?,
        active_vus: small(get(r, at + 2)?),
        seconds: get(r, at + 3)?,
        failed_vus: small(get(r, at + 4)?),
        reconnects: count(get(r, at + 5)?),
        transactions: count(get(r, at + 6)?),
        client_cpu_seconds: get(r, at + 7)?,
        stopped_early: get(r, at + 8)?,
    })
}

fn tpch_figures(r: &Row, at: usize) -> Done<TpchFigures> {
    Ok(TpchFigures {
        scale_factor: get(r, at)?,
        query_streams: small(get(r, at + 1)?),
        geomean: get(r, at + 2)?,
        geomean_queries: count(get(r, at + 3)?),
        querysets: small(get(r, at + 4)?),
        queries: count(get(r, at + 5)?),
        failed_queries: count(get(r, at + 6)?),
        query_seconds: get(r, at + 7)?,
        sets_seconds: get(r, at + 8)?,
        power_at_size: get(r, at + 9)?,
        throughput_at_size: get(r, at + 10)?,
        answers_checked: small(get(r, at + 11)?),
        answers_matched: small(get(r, at + 12)?),
        qphh: get(r, at + 13)?,
    })
}

/// The jobs `filter` keeps, newest first; a RUNNING one whose lock nobody holds is ABORTED.
fn summaries(c: &mut Conn, filter: &str, params: &[&(dyn ToSql + Sync)]) -> Done<Vec<Summary>> {
    let sql = format!(
        "SELECT j.id, j.kind, j.db, j.workload, j.mode, j.vus, j.warehouses, j.status, j.note, \
         j.started_ms, j.ended_ms, j.hostname, j.pid, r.nopm, r.tpm, h.geomean, h.querysets \
         FROM jobs j LEFT JOIN job_result r ON r.job = j.id LEFT JOIN job_tpch h ON h.job = j.id \
         {filter} ORDER BY j.id DESC"
    );
    let mut out = Vec::new();
    for r in c.query(&sql, params)? {
        let kind: String = get(&r, 1)?;
        let status: String = get(&r, 7)?;
        let started: i64 = get(&r, 9)?;
        let ended: Option<i64> = get(&r, 10)?;
        let kind = Kind::from_code(&kind).unwrap_or(Kind::Run);
        out.push(Summary {
            id: get(&r, 0)?,
            kind,
            label: kind.label(),
            profile: Profile {
                db: get(&r, 2)?,
                workload: get(&r, 3)?,
                mode: get(&r, 4)?,
                vus: get::<Option<i64>>(&r, 5)?.map(small),
                warehouses: get::<Option<i64>>(&r, 6)?.map(small),
            },
            status: Status::from_label(&status).unwrap_or(Status::Aborted),
            note: get(&r, 8)?,
            started,
            ended,
            seconds: ended.map(|e| (e - started) as f64 / 1000.0),
            nopm: get(&r, 13)?,
            tpm: get(&r, 14)?,
            geomean: get(&r, 15)?,
            querysets: get::<Option<i64>>(&r, 16)?.map(small),
            hostname: get(&r, 11)?,
            pid: small(get(&r, 12)?),
        });
    }
    if out.iter().any(|s| s.status == Status::Running) {
        let held = held_locks(c)?;
        for s in out.iter_mut().filter(|s| s.status == Status::Running) {
            if !held.contains(&lock_key(&s.id)) {
                s.status = Status::Aborted;
            }
        }
    }
    Ok(out)
}

/// The advisory locks with a bigint key held in this database, by any session.
fn held_locks(c: &mut Conn) -> Done<HashSet<i64>> {
    let rows = c.query(
        "SELECT classid::bigint, objid::bigint FROM pg_locks WHERE locktype = 'advisory' \
         AND objsubid = 1 AND granted \
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        &[],
    )?;
    rows.iter()
        .map(|r| Ok(key_of(get(r, 0)?, get(r, 1)?)))
        .collect()
}

/// Everything stored about a job but its output lines (inside a snapshot).
fn detail(c: &mut Conn, id: &str) -> Done<Option<Detail>> {
    let Some(summary) = summaries(c, "WHERE j.id = $1", &[&id])?.into_iter().next() else {
        return Ok(None);
    };
    let row = c.query("SELECT settings, returned FROM jobs WHERE id = $1", &[&id])?;
    let (settings, returned): (String, Option<String>) = match row.first() {
        Some(r) => (get(r, 0)?, get(r, 1)?),
        None => return Ok(None),
    };
    let figures = match c
        .query(
            &format!("SELECT {FIGURES} FROM job_result WHERE job = $1"),
            &[&id],
        )?
        .first()
    {
        Some(r) => Some(run_figures(r, 0)?),
        None => None,
    };
    let timings = c
        .query(
            "SELECT name, committed, rolled_back, retried, failed, mean_ms, p50_ms, p95_ms, \
             p99_ms, max_ms FROM job_timing WHERE job = $1 ORDER BY seq",
            &[&id],
        )?
        .iter()
        .map(|r| {
            Ok(Timing {
                name: get(r, 0)?,
                committed: count(get(r, 1)?),
                rolled_back: count(get(r, 2)?),
                retried: count(get(r, 3)?),
                failed: count(get(r, 4)?),
                mean_ms: get(r, 5)?,
                p50_ms: get(r, 6)?,
                p95_ms: get(r, 7)?,
                p99_ms: get(r, 8)?,
                max_ms: get(r, 9)?,
            })
        })
        .collect::<Done<Vec<_>>>()?;
    let tcount = c
        .query(
            "SELECT at_ms, metric, tpm, nopm FROM job_tcount WHERE job = $1 ORDER BY at_ms, rowid",
            &[&id],
        )?
        .iter()
        .map(|r| {
            Ok(TcountPoint {
                at: get(r, 0)?,
                metric: get(r, 1)?,
                value: get(r, 2)?,
                nopm: get(r, 3)?,
            })
        })
        .collect::<Done<Vec<_>>>()?;
    let metrics = c
        .query(
            "SELECT at_ms, usr, sys, irq, idle FROM job_metric WHERE job = $1 ORDER BY at_ms, rowid",
            &[&id],
        )?
        .iter()
        .map(|r| {
            Ok(MetricPoint {
                at: get(r, 0)?,
                usr: get(r, 1)?,
                sys: get(r, 2)?,
                irq: get(r, 3)?,
                idle: get(r, 4)?,
            })
        })
        .collect::<Done<Vec<_>>>()?;
    let system = match c
        .query(
            "SELECT hostname, os, cpu_model, cpu_count, physical_cores, memory_bytes, \
             server_version, server_settings, transport, hammer_version, hammer_build \
             FROM job_system WHERE job = $1",
            &[&id],
        )?
        .first()
    {
        None => None,
        Some(r) => {
            let settings: String = get(r, 7)?;
            let server_settings = match serde_json::from_str(&settings) {
                Ok(serde_json::Value::Object(m)) => m
                    .into_iter()
                    .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_string()))
                    .collect(),
                _ => Vec::new(),
            };
            Some(SystemInfo {
                hostname: get(r, 0)?,
                os: get(r, 1)?,
                cpu_model: get(r, 2)?,
                cpu_count: small(get(r, 3)?),
                physical_cores: get::<Option<i64>>(r, 4)?.map(small),
                memory_bytes: count(get(r, 5)?),
                server_version: get(r, 6)?,
                server_settings,
                transport: get(r, 8)?,
                hammer_version: get(r, 9)?,
                hammer_build: get(r, 10)?,
            })
        }
    };
    let live: Option<String> = match c
        .query("SELECT series FROM job_live WHERE job = $1", &[&id])?
        .first()
    {
        Some(r) => Some(get(r, 0)?),
        None => None,
    };
    let cpu = match c
        .query(
            "SELECT seconds, busy_pct, hammer_pct, server_pct, server FROM job_cpu WHERE job = $1",
            &[&id],
        )?
        .first()
    {
        Some(r) => Some(HostCpu::new(
            get(r, 0)?,
            get(r, 1)?,
            get(r, 2)?,
            get(r, 3)?,
            get(r, 4)?,
        )),
        None => None,
    };
    Ok(Some(Detail {
        summary,
        settings: serde_json::from_str(&settings).unwrap_or(serde_json::Value::Null),
        figures,
        returned: returned.and_then(|r| serde_json::from_str(&r).ok()),
        timings,
        tcount,
        metrics,
        system,
        live: live.and_then(|s| serde_json::from_str(&s).ok()),
        tpch: tpch(c, id)?,
        cpu,
        run: runs(c, "WHERE job = $1", &[&id])?
            .into_iter()
            .next()
            .map(|(_, p)| p),
    }))
}

/// The parts of shared runs `filter` keeps, with their jobs' ids; a merge that does not read
/// (a hammer's with other fields) is left out: its job still lists.
fn runs(
    c: &mut Conn,
    filter: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Done<Vec<(String, RunPart)>> {
    let rows = c.query(
        &format!("SELECT job, run, driver, drivers, merged FROM job_run {filter}"),
        params,
    )?;
    let mut out = Vec::new();
    for r in &rows {
        let merged: String = get(r, 4)?;
        if let Ok(merged) = serde_json::from_str(&merged) {
            out.push((
                get(r, 0)?,
                RunPart {
                    run: get(r, 1)?,
                    driver: small(get(r, 2)?),
                    drivers: small(get(r, 3)?),
                    merged,
                },
            ));
        }
    }
    Ok(out)
}

/// A TPROC-H run's record, when the job has one.
fn tpch(c: &mut Conn, id: &str) -> Done<Option<TpchRecord>> {
    let figures = match c
        .query(
            &format!("SELECT {TPCH} FROM job_tpch WHERE job = $1"),
            &[&id],
        )?
        .first()
    {
        Some(r) => tpch_figures(r, 0)?,
        None => return Ok(None),
    };
    let mut sets = c
        .query(
            "SELECT seq, vu, stream, query_set, seconds FROM job_query_set WHERE job = $1 \
             ORDER BY seq",
            &[&id],
        )?
        .iter()
        .map(|r| {
            Ok((
                get::<i64>(r, 0)?,
                SetTimes {
                    vu: small(get(r, 1)?),
                    stream: small(get(r, 2)?),
                    set: small(get(r, 3)?),
                    seconds: get(r, 4)?,
                    queries: Vec::new(),
                },
            ))
        })
        .collect::<Done<Vec<_>>>()?;
    let queries = c.query(
        "SELECT set_seq, position, query, seconds, rows, error FROM job_query WHERE job = $1 \
         ORDER BY set_seq, seq",
        &[&id],
    )?;
    for r in &queries {
        let seq: i64 = get(r, 0)?;
        let q = QueryTime {
            position: small(get(r, 1)?),
            query: small(get(r, 2)?),
            seconds: get(r, 3)?,
            rows: count(get(r, 4)?),
            error: get(r, 5)?,
        };
        if let Some((_, set)) = sets.iter_mut().find(|(s, _)| *s == seq) {
            set.queries.push(q);
        }
    }
    let refreshes = c
        .query(
            "SELECT vu, pair, function, name, seconds, rows, error FROM job_refresh WHERE job = $1 \
             ORDER BY seq",
            &[&id],
        )?
        .iter()
        .map(|r| {
            Ok(RefreshTime {
                vu: small(get(r, 0)?),
                pair: small(get(r, 1)?),
                function: get(r, 2)?,
                name: get(r, 3)?,
                seconds: get(r, 4)?,
                rows: count(get(r, 5)?),
                error: get(r, 6)?,
            })
        })
        .collect::<Done<Vec<_>>>()?;
    Ok(Some(TpchRecord {
        figures,
        sets: sets.into_iter().map(|(_, s)| s).collect(),
        refreshes,
    }))
}

/// A job's end, inside its transaction: its status, then each table's rows written afresh
/// (SQLite's INSERT OR REPLACE).
fn write_end(c: &mut Conn, job: &str, end: &End, ended: i64) -> Done<()> {
    let note = end.note.as_deref().map(owned);
    let returned = end.returned.as_ref().map(|v| owned(&v.to_string()));
    c.execute(
        "UPDATE jobs SET status = $2, note = $3, ended_ms = $4, returned = $5 WHERE id = $1",
        &[&job, &end.status.label(), &note, &ended, &returned],
    )?;
    if let Some(f) = &end.figures {
        c.execute("DELETE FROM job_result WHERE job = $1", &[&job])?;
        c.execute(
            &format!(
                "INSERT INTO job_result (job, {FIGURES}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
            ),
            &[
                &job,
                &f.nopm,
                &f.tpm,
                &i64::from(f.active_vus),
                &f.seconds,
                &i64::from(f.failed_vus),
                &(f.reconnects as i64),
                &(f.transactions as i64),
                &f.client_cpu_seconds,
                &f.stopped_early.as_deref().map(owned),
            ],
        )?;
    }
    if !end.timings.is_empty() {
        c.execute("DELETE FROM job_timing WHERE job = $1", &[&job])?;
    }
    for (seq, (t, histogram)) in end.timings.iter().enumerate() {
        c.execute(
            "INSERT INTO job_timing (job, seq, name, committed, rolled_back, retried, failed, \
             mean_ms, p50_ms, p95_ms, p99_ms, max_ms, histogram) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            &[
                &job,
                &(seq as i64),
                &owned(&t.name),
                &(t.committed as i64),
                &(t.rolled_back as i64),
                &(t.retried as i64),
                &(t.failed as i64),
                &t.mean_ms,
                &t.p50_ms,
                &t.p95_ms,
                &t.p99_ms,
                &t.max_ms,
                histogram,
            ],
        )?;
    }
    if let Some(t) = &end.tpch {
        write_tpch(c, job, t)?;
    }
    if let Some(cpu) = &end.cpu {
        c.execute("DELETE FROM job_cpu WHERE job = $1", &[&job])?;
        c.execute(
            "INSERT INTO job_cpu (job, seconds, busy_pct, hammer_pct, server_pct, server) \
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &job,
                &cpu.seconds,
                &cpu.busy_pct,
                &cpu.hammer_pct,
                &cpu.server_pct,
                &owned(&cpu.server),
            ],
        )?;
    }
    if let Some(live) = &end.live {
        let series = serde_json::to_string(live).unwrap_or_default();
        c.execute("DELETE FROM job_live WHERE job = $1", &[&job])?;
        c.execute(
            "INSERT INTO job_live (job, series) VALUES ($1, $2)",
            &[&job, &owned(&series)],
        )?;
    }
    if let Some((profile, step)) = &end.profile {
        c.execute("DELETE FROM job_profile WHERE job = $1", &[&job])?;
        c.execute(
            "INSERT INTO job_profile (job, profile, step) VALUES ($1, $2, $3)",
            &[&job, profile, &owned(step)],
        )?;
    }
    if let Some(r) = &end.run {
        let merged = serde_json::to_string(&r.merged).unwrap_or_default();
        c.execute("DELETE FROM job_run WHERE job = $1", &[&job])?;
        c.execute(
            "INSERT INTO job_run (job, run, driver, drivers, merged) VALUES ($1, $2, $3, $4, $5)",
            &[
                &job,
                &owned(&r.run),
                &i64::from(r.driver),
                &i64::from(r.drivers),
                &owned(&merged),
            ],
        )?;
    }
    if let Some(s) = &end.system {
        let settings: serde_json::Map<String, serde_json::Value> = s
            .server_settings
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        c.execute("DELETE FROM job_system WHERE job = $1", &[&job])?;
        c.execute(
            "INSERT INTO job_system (job, hostname, os, cpu_model, cpu_count, physical_cores, \
             memory_bytes, server_version, server_settings, transport, hammer_version, \
             hammer_build) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            &[
                &job,
                &owned(&s.hostname),
                &owned(&s.os),
                &owned(&s.cpu_model),
                &i64::from(s.cpu_count),
                &s.physical_cores.map(i64::from),
                &(s.memory_bytes as i64),
                &s.server_version.as_deref().map(owned),
                &owned(&serde_json::Value::Object(settings).to_string()),
                &s.transport.as_deref().map(owned),
                &s.hammer_version.as_deref().map(owned),
                &s.hammer_build.as_deref().map(owned),
            ],
        )?;
    }
    Ok(())
}

/// A TPROC-H run's record, inside the job's end transaction: its figures, then every set,
/// query and refresh function (one statement each table).
fn write_tpch(c: &mut Conn, job: &str, t: &TpchRecord) -> Done<()> {
    for table in ["job_tpch", "job_query_set", "job_query", "job_refresh"] {
        c.execute(&format!("DELETE FROM {table} WHERE job = $1"), &[&job])?;
    }
    let f = &t.figures;
    c.execute(
        &format!(
            "INSERT INTO job_tpch (job, {TPCH}) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
        ),
        &[
            &job,
            &f.scale_factor,
            &i64::from(f.query_streams),
            &f.geomean,
            &(f.geomean_queries as i64),
            &i64::from(f.querysets),
            &(f.queries as i64),
            &(f.failed_queries as i64),
            &f.query_seconds,
            &f.sets_seconds,
            &f.power_at_size,
            &f.throughput_at_size,
            &i64::from(f.answers_checked),
            &i64::from(f.answers_matched),
            &f.qphh,
        ],
    )?;
    let n = |v: u32| i64::from(v);
    let seq: Vec<i64> = (0..t.sets.len() as i64).collect();
    let vu: Vec<i64> = t.sets.iter().map(|s| n(s.vu)).collect();
    let stream: Vec<i64> = t.sets.iter().map(|s| n(s.stream)).collect();
    let set: Vec<i64> = t.sets.iter().map(|s| n(s.set)).collect();
    let seconds: Vec<f64> = t.sets.iter().map(|s| s.seconds).collect();
    if !seq.is_empty() {
        c.execute(
            "INSERT INTO job_query_set (job, seq, vu, stream, query_set, seconds) \
             SELECT $1::text, u.* FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], \
             $5::bigint[], $6::float8[]) AS u",
            &[&job, &seq, &vu, &stream, &set, &seconds],
        )?;
    }
    let all: Vec<(i64, i64, &QueryTime)> = t
        .sets
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            s.queries
                .iter()
                .enumerate()
                .map(move |(k, q)| (i as i64, k as i64, q))
        })
        .collect();
    if !all.is_empty() {
        let set_seq: Vec<i64> = all.iter().map(|a| a.0).collect();
        let seq: Vec<i64> = all.iter().map(|a| a.1).collect();
        let position: Vec<i64> = all.iter().map(|a| n(a.2.position)).collect();
        let query: Vec<i64> = all.iter().map(|a| n(a.2.query)).collect();
        let seconds: Vec<f64> = all.iter().map(|a| a.2.seconds).collect();
        let rows: Vec<i64> = all.iter().map(|a| a.2.rows as i64).collect();
        let error: Vec<Option<String>> = all
            .iter()
            .map(|a| a.2.error.as_deref().map(owned))
            .collect();
        c.execute(
            "INSERT INTO job_query (job, set_seq, seq, position, query, seconds, rows, error) \
             SELECT $1::text, u.* FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], \
             $5::bigint[], $6::float8[], $7::bigint[], $8::text[]) AS u",
            &[
                &job, &set_seq, &seq, &position, &query, &seconds, &rows, &error,
            ],
        )?;
    }
    if !t.refreshes.is_empty() {
        let r = &t.refreshes;
        let seq: Vec<i64> = (0..r.len() as i64).collect();
        let vu: Vec<i64> = r.iter().map(|x| n(x.vu)).collect();
        let pair: Vec<i64> = r.iter().map(|x| n(x.pair)).collect();
        let function: Vec<String> = r.iter().map(|x| owned(&x.function)).collect();
        let name: Vec<String> = r.iter().map(|x| owned(&x.name)).collect();
        let seconds: Vec<f64> = r.iter().map(|x| x.seconds).collect();
        let rows: Vec<i64> = r.iter().map(|x| x.rows as i64).collect();
        let error: Vec<Option<String>> = r.iter().map(|x| x.error.as_deref().map(owned)).collect();
        c.execute(
            "INSERT INTO job_refresh (job, seq, vu, pair, function, name, seconds, rows, error) \
             SELECT $1::text, u.* FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], \
             $5::text[], $6::text[], $7::float8[], $8::bigint[], $9::text[]) AS u",
            &[
                &job, &seq, &vu, &pair, &function, &name, &seconds, &rows, &error,
            ],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_s_lock_key_is_its_id_after_the_seconds() {
        assert_eq!(
            lock_key("67FD24A6FDB403E25343839Z"),
            lock_key("67FD24A6FDB403E25343839Z")
        );
        assert_eq!(
            lock_key("00000001AAAA000000000001"),
            0xAAAA_0000_0000_0001_u64 as i64
        );
        // pg_locks shows a bigint key as its two halves.
        let k = lock_key("67FD24A6FDB403E253438390");
        assert_eq!(
            key_of((k as u64 >> 32) as i64, (k as u64 & 0xFFFF_FFFF) as i64),
            k
        );
        assert_ne!(lock_key("OLD"), lock_key("NEW"));
        assert_eq!(text("a\0b"), "a\u{2400}b");
    }
}
