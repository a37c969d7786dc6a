//! The TPROC-H workload for the virtual-user runtime: a query stream runs its query sets,
//! the 22 queries in its stream's order with its own substitution parameters; the refresh
//! stream (virtual user 1 of a throughput test with refresh on) runs refresh pairs; the power
//! test brackets each query set with RF1 and RF2 when refresh is on.
//!
//! The runtime ([`crate::vu`]) owns the threads, the stop, reconnecting and the statistics;
//! this file says what one TPROC-H terminal does, keeps every query's and refresh's time in
//! the run's record as it ends (so a stopped run keeps what it did), and cancels running
//! queries on the server when the stopping run cuts its connections.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;

use super::options::Options;
use super::params::{self, Params};
use super::queries::Queries;
use super::result::{
    completed_line, geomean_line, AnswerCheck, QueryRun, QuerySet, Refresh, RefreshRun, RunResult,
};
use super::support::Support;
use super::{answers, refresh, shown, TYPE_NAMES};
use crate::config::{Database, Settings};
use crate::endpoint::Position;
use crate::error::{Error, Result};
use crate::fault::{DbError, Peer};
use crate::interrupt::Interrupt;
use crate::sql::{Canceller, Rows, ScriptConn};
use crate::vu::{NoMonitor, Place, RunOptions, Say, StateSink, Workload};

/// How long the pre-run check of the schema may take.
const PREPARE_WITHIN: Duration = Duration::from_secs(60);
/// How long the cancel requests sent at the stop may take before the run ends without them.
const CANCEL_WITHIN: Duration = Duration::from_secs(12);
/// Rows of a query's answer `*_verbose` shows.
const VERBOSE_ROWS: usize = 20;

/// A unit of TPROC-H work: one query (1 to 22) or one refresh function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Query(u8),
    Refresh(Refresh),
}

/// What a unit that succeeded reports.
pub struct Done {
    /// Rows the query returned, or the refresh inserted or deleted.
    rows: u64,
    seconds: f64,
    /// `*_verbose`: the query's text and its first rows.
    shown: Vec<String>,
}

/// The run's record, filled as queries and refreshes end.
#[derive(Default)]
struct Record {
    sets: Vec<QuerySet>,
    refreshes: Vec<RefreshRun>,
    checked: Vec<AnswerCheck>,
    /// When the first query or refresh function started, and the last one ended.
    first: Option<Instant>,
    last: Option<Instant>,
}

impl Record {
    /// Notes a unit that ran from `started` until now.
    fn span(&mut self, started: Instant) {
        self.first = Some(self.first.map_or(started, |f| f.min(started)));
        self.last = Some(Instant::now());
    }
}

/// The cancellers of the open connections, and the cancel requests the stop sent.
#[derive(Default)]
struct Cancels {
    open: HashMap<u64, Canceller>,
    sent: Vec<tokio::task::JoinHandle<()>>,
}

/// TPROC-H on a database: the workload the runtime drives.
struct Tpch {
    support: &'static dyn Support,
    settings: Settings,
    db: Database,
    queries: Queries,
    opts: Options,
    record: Mutex<Record>,
    cancels: Arc<Mutex<Cancels>>,
    next_conn: AtomicU64,
    /// Fired by the stopping run's cut: connections opened afterwards are refused.
    cut: Interrupt,
}

/// A terminal's connection, its canceller registered while it is open.
pub struct Conn {
    conn: Option<ScriptConn>,
    id: u64,
    cancels: Arc<Mutex<Cancels>>,
    /// A query or refresh is waiting for the server.
    busy: bool,
    /// The connection's position among the run's, for messages naming its server.
    at: Position,
}

impl Drop for Conn {
    fn drop(&mut self) {
        // A connection dropped in the middle of a call (the stopping run cut the call off)
        // leaves its canceller for the stop's cut, which may come a moment after the
        // terminal saw the run's cut: the query it left running is cancelled then.
        if !self.busy {
            lock(&self.cancels).open.remove(&self.id);
        }
    }
}

/// What a terminal does: run query sets, or the refresh stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Queries,
    Refreshes,
}

/// One TPROC-H terminal (a virtual user: TPROC-H's have one each).
pub struct Terminal {
    vu: u32,
    role: Role,
    rng: SmallRng,
    /// The TPC-H stream whose query order and parameters it uses.
    stream: u32,
    order: [u8; 22],
    /// Its current query set (from 1), or refresh pair; 0 before the first.
    set: u32,
    /// The units left of the current set or pair.
    pending: VecDeque<Unit>,
    /// The position of the next query in the stream's order (from 1).
    position: u8,
    started: Instant,
    set_started: Instant,
    /// `*_verbose`: a failed query's text, said before the next unit.
    unsaid: Vec<String>,
    /// The next refresh function's statements, generated when it is dealt: outside its
    /// timing, as dbgen's refresh files are made before a run.
    staged: Option<refresh::RefreshSql>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A query's rows as `*_verbose` shows them: `a | b | c`, NULL as `NULL`.
fn row_text(row: &[Option<String>]) -> String {
    row.iter()
        .map(|v| v.as_deref().unwrap_or("NULL"))
        .collect::<Vec<_>>()
        .join(" | ")
}

impl Tpch {
    /// Runs one query's statements; the rows of the one that returns them. A statement that
    /// fails stops the query, but the ones after it that return nothing (query 15's view
    /// drop) still run, so that the next query 15 finds no view left behind.
    async fn query(
        &self,
        conn: &mut ScriptConn,
        query: u8,
        params: &Params,
        stream: u32,
    ) -> (std::result::Result<Rows, DbError>, Vec<String>) {
        let statements = self.queries.statements(query, params, stream);
        let mut rows = Ok(Vec::new());
        let mut texts = Vec::new();
        for s in statements {
            if self.opts.verbose {
                texts.push(s.sql.clone());
            }
            if rows.is_err() {
                if !s.returns_rows {
                    let _ = conn.execute(&s.sql).await;
                }
                continue;
            }
            if s.returns_rows {
                rows = conn.query(&s.sql).await;
            } else if let Err(e) = conn.execute(&s.sql).await {
                rows = Err(e);
            }
        }
        (rows, texts)
    }

    /// A refresh function's statements for refresh pair `pair`.
    fn refresh_sql(&self, f: Refresh, pair: u32) -> refresh::RefreshSql {
        match f {
            Refresh::NewSales => refresh::new_sales(self.opts.scale_factor, pair),
            Refresh::OldSales => refresh::old_sales(self.opts.scale_factor, pair),
        }
    }

    /// Runs a refresh function's statements; the rows they touched.
    async fn refresh(
        &self,
        conn: &mut ScriptConn,
        sql: &refresh::RefreshSql,
    ) -> std::result::Result<u64, DbError> {
        for s in &sql.statements {
            conn.execute(s).await?;
        }
        Ok(sql.rows)
    }

    /// Opens a new query set: its units and its place in the record.
    fn open_set(&self, t: &mut Terminal) {
        t.set += 1;
        t.position = 0;
        t.set_started = Instant::now();
        t.pending.clear();
        // The power test brackets its queries with the refresh functions; a throughput
        // test's query streams run queries only (virtual user 1 refreshes).
        let refresh = self.opts.refresh_on && self.opts.power_test();
        if refresh {
            t.pending.push_back(Unit::Refresh(Refresh::NewSales));
        }
        t.pending.extend(t.order.iter().map(|q| Unit::Query(*q)));
        if refresh {
            t.pending.push_back(Unit::Refresh(Refresh::OldSales));
        }
        lock(&self.record).sets.push(QuerySet {
            vu: t.vu,
            stream: t.stream,
            set: t.set,
            queries: Vec::new(),
            seconds: 0.0,
        });
    }

    /// HammerDB's lines at the end of a query set.
    fn close_set(&self, t: &Terminal, say: &Say) {
        let record = lock(&self.record);
        let Some(set) = record.sets.iter().find(|s| s.vu == t.vu && s.set == t.set) else {
            return;
        };
        say.line(completed_line(t.set, t.started.elapsed().as_secs_f64()));
        match set.geomean() {
            Some((n, g)) => say.line(geomean_line(n, g)),
            None => say.line("No query of the set returned rows: no geometric mean"),
        }
    }

    fn keep_query(&self, t: &Terminal, run: QueryRun, started: Instant) {
        let mut record = lock(&self.record);
        record.span(started);
        if let Some(set) = record
            .sets
            .iter_mut()
            .rev()
            .find(|s| s.vu == t.vu && s.set == t.set)
        {
            set.queries.push(run);
            set.seconds = t.set_started.elapsed().as_secs_f64();
        }
    }
}

impl Workload for Tpch {
    type Conn = Conn;
    type Terminal = Terminal;
    type Unit = Unit;
    type Done = Done;
    type Plan = ();
    type Monitor = NoMonitor;

    fn type_names(&self) -> &'static [&'static str] {
        &TYPE_NAMES
    }

    fn unit_word(&self) -> &'static str {
        "query"
    }

    fn index(unit: Unit) -> usize {
        match unit {
            Unit::Query(q) => usize::from(q.clamp(1, 22)) - 1,
            Unit::Refresh(Refresh::NewSales) => 22,
            Unit::Refresh(Refresh::OldSales) => 23,
        }
    }

    async fn prepare(&self) -> Result<()> {
        let check = async {
            let mut conn = self
                .support
                .connect(&self.settings, Position::Session)
                .await?;
            let found = schema_scale(&mut conn).await;
            conn.close().await;
            Ok::<_, Error>(found)
        };
        if self.opts.refresh_on {
            // dbgen's text pool (a few hundred MB, about a second to make) is made once, now,
            // not inside the first refresh function's time.
            let warm = tokio::task::spawn_blocking(|| {
                tpchgen::text::TextPool::get_or_init_default();
            });
            let _ = warm.await;
        }
        let found = tokio::time::timeout(PREPARE_WITHIN, check)
            .await
            .map_err(|_| Error::NoAnswer {
                what: "the pre-run checks",
                within: PREPARE_WITHIN,
            })??;
        let p = self.db.prefix();
        let dbname = self
            .settings
            .db(self.db)
            .get(&self.db.key("tpch_dbase"))
            .to_string();
        match found {
            Found::Scale(suppliers) => {
                let sf = suppliers as f64 / 10_000.0;
                if (sf - self.opts.scale_factor).abs() > 1e-9 {
                    return Err(Error::TprochScaleMismatch {
                        dbname,
                        prefix: p,
                        found: shown(sf),
                        suppliers,
                        configured: shown(self.opts.scale_factor),
                    });
                }
                Ok(())
            }
            Found::Tpcc => Err(Error::TpccSchemaNotTproch {
                db: self.db.name(),
                dbname,
                prefix: p,
            }),
            Found::Nothing(why) => Err(Error::NoTprochSchema {
                db: self.db.name(),
                dbname,
                prefix: p,
                why,
            }),
        }
    }

    fn monitor(&self) -> Option<&NoMonitor> {
        None
    }

    fn started(&self, say: &Say) {
        say.line(format!(
            "Scale Factor {} TPROC-H {}",
            shown(self.opts.scale_factor),
            if self.opts.power_test() {
                "power test"
            } else {
                "throughput test"
            }
        ));
    }

    async fn connect(&self, at: Position) -> Result<Conn> {
        if self.cut.is_set() {
            return Err(Error::StoppedConnecting);
        }
        let conn = self.support.connect(&self.settings, at).await?;
        let id = self.next_conn.fetch_add(1, Ordering::Relaxed);
        if let Some(c) = conn.canceller() {
            lock(&self.cancels).open.insert(id, c);
        }
        Ok(Conn {
            conn: Some(conn),
            id,
            cancels: self.cancels.clone(),
            busy: false,
            at,
        })
    }

    async fn close(mut conn: Conn) {
        if let Some(c) = conn.conn.take() {
            // A server that does not answer the goodbye is not waited for.
            let _ = tokio::time::timeout(Duration::from_secs(5), c.close()).await;
        }
    }

    fn reply_timeout(&self) -> Duration {
        super::QUERY_REPLY_TIMEOUT
    }

    fn peer(&self, at: Position) -> Peer {
        self.support.peer(&self.settings, at)
    }

    /// Cancels every running query on the server; the runtime then drops the connections.
    fn cut(&self) -> usize {
        self.cut.fire();
        let mut cancels = lock(&self.cancels);
        let open: Vec<Canceller> = cancels.open.values().cloned().collect();
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            for c in &open {
                cancels.sent.push(rt.spawn(c()));
            }
        }
        open.len()
    }

    fn terminal(&self, _: &(), place: Place, rng: SmallRng) -> Terminal {
        // No monitor: worker N is virtual user N.
        let vu = place.worker;
        let (role, stream) = if self.opts.power_test() {
            (Role::Queries, 0)
        } else if self.opts.refresh_stream() {
            if vu == 1 {
                (Role::Refreshes, 0)
            } else {
                (Role::Queries, vu - 1)
            }
        } else {
            (Role::Queries, vu)
        };
        Terminal {
            vu,
            role,
            rng,
            stream,
            order: params::order(stream),
            set: 0,
            pending: VecDeque::new(),
            position: 0,
            started: Instant::now(),
            set_started: Instant::now(),
            unsaid: Vec::new(),
            staged: None,
        }
    }

    fn next(&self, t: &mut Terminal, say: &Say) -> Option<Unit> {
        for line in t.unsaid.drain(..) {
            say.line(line);
        }
        if t.pending.is_empty() {
            match t.role {
                Role::Queries => {
                    if t.set > 0 {
                        self.close_set(t, say);
                    }
                    if t.set >= self.opts.total_querysets {
                        return None;
                    }
                    self.open_set(t);
                }
                Role::Refreshes => {
                    if t.set >= self.opts.update_sets {
                        return None;
                    }
                    t.set += 1;
                    t.pending.extend([
                        Unit::Refresh(Refresh::NewSales),
                        Unit::Refresh(Refresh::OldSales),
                    ]);
                }
            }
        }
        let unit = t.pending.pop_front()?;
        match unit {
            Unit::Query(q) => {
                t.position += 1;
                say.line(format!("Executing Query {q} ({} of 22)", t.position));
            }
            Unit::Refresh(f) => {
                say.line(format!("{} {}", f.name(), f.short()));
                t.staged = Some(self.refresh_sql(f, t.set));
            }
        }
        Some(unit)
    }

    async fn execute(&self, conn: &mut Conn, unit: Unit, t: &mut Terminal) -> Result<Done> {
        let Some(c) = conn.conn.as_mut() else {
            return Err(Error::Db(self.peer(conn.at).failed(
                "cannot run",
                crate::fault::Failure::Lost,
                "closed",
            )));
        };
        let started = Instant::now();
        match unit {
            Unit::Query(q) => {
                let sf = self.opts.scale_factor;
                let params = if self.opts.validate {
                    params::validation(q, sf)
                } else {
                    params::random(q, sf, &mut t.rng)
                };
                conn.busy = true;
                let (rows, texts) = self.query(c, q, &params, t.stream).await;
                conn.busy = false;
                let seconds = started.elapsed().as_secs_f64();
                let run = |rows, error| QueryRun {
                    query: q,
                    position: t.position,
                    seconds,
                    rows,
                    error,
                };
                match rows {
                    Ok(rows) => {
                        self.keep_query(t, run(rows.len() as u64, None), started);
                        if self.opts.validate && answers::has_answers(sf) {
                            lock(&self.record).checked.push(AnswerCheck {
                                vu: t.vu,
                                set: t.set,
                                query: q,
                                outcome: answers::compare(q, sf, &rows),
                            });
                        }
                        let mut shown = texts;
                        if self.opts.verbose {
                            shown.extend(rows.iter().take(VERBOSE_ROWS).map(|r| row_text(r)));
                            if rows.len() > VERBOSE_ROWS {
                                shown.push(format!("... {} rows in all", rows.len()));
                            }
                        }
                        Ok(Done {
                            rows: rows.len() as u64,
                            seconds,
                            shown,
                        })
                    }
                    Err(e) => {
                        self.keep_query(t, run(0, Some(e.to_string())), started);
                        // Said before the next unit: the failing query's text.
                        t.unsaid = texts;
                        Err(Error::Db(e))
                    }
                }
            }
            Unit::Refresh(f) => {
                let sql = match t.staged.take() {
                    Some(sql) => sql,
                    None => self.refresh_sql(f, t.set),
                };
                let started = Instant::now();
                conn.busy = true;
                let outcome = self.refresh(c, &sql).await;
                conn.busy = false;
                let seconds = started.elapsed().as_secs_f64();
                let (rows, error) = match &outcome {
                    Ok(n) => (*n, None),
                    Err(e) => (0, Some(e.to_string())),
                };
                let mut record = lock(&self.record);
                record.span(started);
                record.refreshes.push(RefreshRun {
                    vu: t.vu,
                    pair: t.set,
                    function: f,
                    seconds,
                    rows,
                    error,
                });
                drop(record);
                let rows = outcome.map_err(Error::Db)?;
                Ok(Done {
                    rows,
                    seconds,
                    shown: Vec::new(),
                })
            }
        }
    }

    fn rolled_back(_: &Done) -> bool {
        false
    }

    fn done(&self, _t: &mut Terminal, say: &Say, unit: Unit, done: Done, _: Duration) {
        for line in &done.shown {
            say.line(line);
        }
        match unit {
            Unit::Query(q) => say.line(format!(
                "query {q} completed in {:.3} seconds",
                done.seconds
            )),
            Unit::Refresh(f) => {
                if self.opts.refresh_verbose {
                    say.line(format!(
                        "{} {} complete in {:.3} seconds, {} rows",
                        f.name(),
                        f.short(),
                        done.seconds,
                        done.rows
                    ));
                } else {
                    say.line(format!(
                        "{} {} complete in {:.3} seconds",
                        f.name(),
                        f.short(),
                        done.seconds
                    ));
                }
            }
        }
    }

    /// The refresh stream's pause between refresh functions (none after its last).
    fn think(&self, t: &mut Terminal, unit: Unit) -> Option<Duration> {
        let more = !t.pending.is_empty() || t.set < self.opts.update_sets;
        (t.role == Role::Refreshes
            && matches!(unit, Unit::Refresh(_))
            && more
            && !self.opts.trickle.is_zero())
        .then_some(self.opts.trickle)
    }

    fn end(&self, t: Terminal, say: &Say) {
        if t.role == Role::Refreshes {
            say.line(format!(
                "Completed {} update set(s) in {} seconds",
                t.set,
                t.started.elapsed().as_secs_f64().round() as u64
            ));
        }
    }
}

/// What the pre-run check found in the schema's database.
enum Found {
    /// The TPROC-H tables, with this many suppliers (10,000 per scale factor).
    Scale(u64),
    /// TPROC-C's tables instead.
    Tpcc,
    /// Neither; why (the server's words).
    Nothing(String),
}

/// Reads the schema's scale factor from SUPPLIER, whose rows are exactly 10,000 per scale
/// factor; without it, tells a TPROC-C schema from none. Plain SQL every dialect runs.
async fn schema_scale(conn: &mut ScriptConn) -> Found {
    let count = |rows: Rows| {
        rows.first()
            .and_then(|r| r.first().cloned().flatten())
            .and_then(|v| v.parse::<u64>().ok())
    };
    match conn.query("SELECT count(*) FROM supplier").await {
        Ok(rows) => match count(rows) {
            Some(n) if n > 0 => Found::Scale(n),
            _ => Found::Nothing("its supplier table is empty".into()),
        },
        Err(e) => {
            let why = e.to_string();
            match conn.query("SELECT count(*) FROM warehouse").await {
                Ok(_) => Found::Tpcc,
                Err(_) => Found::Nothing(why),
            }
        }
    }
}

/// Runs TPROC-H: checks the schema, starts the virtual users one `user_delay` apart, each
/// running its query sets (or the refresh stream), and gives the run's record.
pub async fn run(
    support: &'static dyn Support,
    settings: Settings,
    db: Database,
    opts: Options,
    say: Say,
    states: StateSink,
    interrupt: Interrupt,
) -> Result<RunResult> {
    let queries = Queries::parse(support.queries_sql())
        .map_err(|why| Error::TprochQueries { db: db.name(), why })?;
    let run_opts = RunOptions {
        virtual_users: opts.virtual_users,
        user_delay: opts.user_delay,
        terminals: 1,
        login_delay: Duration::ZERO,
        pool: 0,
        raise_error: opts.raise_error,
        reconnect_for: opts.reconnect_for,
        time_profile: false,
        rampup: Duration::ZERO,
        duration: Duration::ZERO,
        refresh: opts.refresh,
        window: None,
    };
    let w = Arc::new(Tpch {
        support,
        settings,
        db,
        queries,
        opts: opts.clone(),
        record: Mutex::new(Record::default()),
        cancels: Arc::new(Mutex::new(Cancels::default())),
        next_conn: AtomicU64::new(0),
        cut: Interrupt::default(),
    });
    let cpu_before = crate::vu::stats::process_cpu();
    let started = Instant::now();
    let o = crate::vu::run(w.clone(), run_opts, say, states, interrupt).await?;
    let elapsed = started.elapsed();
    let client_cpu = crate::vu::stats::process_cpu()
        .zip(cpu_before)
        .map(|(after, before)| after.saturating_sub(before));
    // The cancel requests the stop sent end before the run does.
    let sent = std::mem::take(&mut lock(&w.cancels).sent);
    let _ = tokio::time::timeout(CANCEL_WITHIN, futures_util::future::join_all(sent)).await;
    let record = std::mem::take(&mut *lock(&w.record));
    let streams = record
        .first
        .zip(record.last)
        .map_or(Duration::ZERO, |(f, l)| l.saturating_duration_since(f));
    Ok(RunResult {
        streams,
        scale_factor: opts.scale_factor,
        power_test: opts.power_test(),
        checked: record.checked,
        qphh: None,
        sets: record.sets,
        refreshes: record.refreshes,
        query_streams: opts.query_streams(),
        active_vus: o.active_vus,
        elapsed,
        stats: o.stats,
        stopped_early: o.stopped_early,
        failed_vus: o.failed_vus,
        client_cpu,
        abandoned_calls: o.abandoned_calls,
        series: o.series,
    })
}
