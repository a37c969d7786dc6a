//! OLTP's run on the virtual-user runtime: each virtual user is one of sysbench's threads, its
//! unit one event (transaction) of the test, run statement by statement, one round trip each,
//! on statements prepared once per connection. An event that meets an error sysbench ignores
//! (a deadlock, a lock wait given up, a duplicate key) is rolled back and run again, counted
//! as an ignored error; a lost connection is reconnected and counted.
//!
//! The run is timed when `*_oltp_duration` is set: virtual user 1 then reads the server's
//! transaction counters around the measured window (after `*_oltp_rampup`), as TPROC-C's
//! monitor does, and only that window counts. `*_oltp_events` ends it sooner when the events
//! are done (sysbench's `--events`); without a duration the events alone end it.
//!
//! Besides the runtime's counts, each terminal keeps what sysbench reports (queries by class,
//! its events and their time for the threads' fairness, the latencies' exact sum) and hammer's
//! per-statement latencies, in the measured window, and hands them over when it ends.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use rand::rngs::SmallRng;
use rand::RngCore;

use super::arrivals::Schedule;
use super::db::{Arg, Call, OltpDb, Prepared};
use super::events::{plan, Class, Group, Shape, Statement};
use super::options::Options;
use super::rand::{Distribution, Rng};
use crate::db::counter::{CounterSource, Reading};
use crate::endpoint::Position;
use crate::error::{Error, Result};
use crate::fault::Peer;
use crate::interrupt::Interrupt;
use crate::vu::live::Interval;
use crate::vu::{Monitor, Place, RunOptions, Say, StateSink, Workload};

/// The one unit type: an event, as sysbench calls a transaction.
pub const TYPE_NAMES: [&str; 1] = ["transaction"];

/// Every statement kind a test may run, in the order hammer's per-statement table lists them.
pub const STATEMENTS: [Statement; 14] = [
    Statement::Begin,
    Statement::PointSelect,
    Statement::SimpleRange,
    Statement::SumRange,
    Statement::OrderRange,
    Statement::DistinctRange,
    Statement::IndexUpdate,
    Statement::NonIndexUpdate,
    Statement::Delete,
    Statement::Insert,
    Statement::NewRow,
    Statement::RandomPoints,
    Statement::RandomRanges,
    Statement::Commit,
];

fn statement_index(s: Statement) -> usize {
    STATEMENTS.iter().position(|x| *x == s).unwrap_or(0)
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("valid histogram bounds")
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Queries by sysbench's classes: read, write, other.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Queries {
    pub reads: u64,
    pub writes: u64,
    pub others: u64,
}

impl Queries {
    fn add(&mut self, class: Class, n: u64) {
        match class {
            Class::Read => self.reads += n,
            Class::Write => self.writes += n,
            Class::Other => self.others += n,
        }
    }

    fn plus(&mut self, o: &Queries) {
        self.reads += o.reads;
        self.writes += o.writes;
        self.others += o.others;
    }

    pub fn total(&self) -> u64 {
        self.reads + self.writes + self.others
    }
}

/// A terminal's queries so far, rampup included, for the live view's intervals.
#[derive(Default)]
struct LiveQueries {
    reads: AtomicU64,
    writes: AtomicU64,
    others: AtomicU64,
}

impl LiveQueries {
    /// Adds an event's queries. The terminal is the only writer, so a plain store after a
    /// load does (no locked add per event); the live view only reads.
    fn add(&self, q: &Queries) {
        for (to, n) in [
            (&self.reads, q.reads),
            (&self.writes, q.writes),
            (&self.others, q.others),
        ] {
            if n > 0 {
                to.store(to.load(Ordering::Relaxed) + n, Ordering::Relaxed);
            }
        }
    }
}

/// What one thread (virtual user) did in the measured window.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Thread {
    pub events: u64,
    /// The seconds its events took.
    pub seconds: f64,
}

/// What the terminals kept in the measured window, handed over as each ends.
pub struct Record {
    /// The events that succeeded: their latencies (from their start), in microseconds.
    pub events: Histogram<u64>,
    pub queries: Queries,
    /// The events' latencies' exact sum, least and greatest, in microseconds.
    pub sum_us: u128,
    pub min_us: u64,
    pub max_us: u64,
    pub threads: Vec<Thread>,
    /// Per statement kind ([`STATEMENTS`]' order): its latencies, in microseconds.
    pub statements: Vec<Histogram<u64>>,
    /// With a target rate: each event's latency from the instant it was due.
    pub intended: Option<Histogram<u64>>,
    /// Connections closed and opened again by `*_oltp_reconnect`.
    pub reconnects: u64,
}

impl Record {
    fn new(rate: bool) -> Self {
        Record {
            events: histogram(),
            queries: Queries::default(),
            sum_us: 0,
            min_us: u64::MAX,
            max_us: 0,
            threads: Vec::new(),
            statements: STATEMENTS.iter().map(|_| histogram()).collect(),
            intended: rate.then(histogram),
            reconnects: 0,
        }
    }
}

/// One thread of the run.
pub struct Terminal {
    rng: Rng,
    /// The thread's number from 0 (`select_random_*` draw from their own slice of the ids).
    thread: u32,
    at: Position,
    live: Arc<LiveQueries>,
    /// What it did in the window, its own until it ends.
    own: Record,
    own_thread: Thread,
    /// Events since its connection was opened, for `*_oltp_reconnect`.
    since_connect: u32,
    /// With a rate: the instant (from the run's start) its event was due.
    due: Option<Duration>,
    /// Whether the event running now counts (the window was open when it began).
    counts: bool,
    c: Vec<u8>,
    pad: Vec<u8>,
    record: Arc<Mutex<Record>>,
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let mut r = lock(&self.record);
        let own = &mut self.own;
        let _ = r.events.add(&own.events);
        r.queries.plus(&own.queries);
        r.sum_us += own.sum_us;
        r.min_us = r.min_us.min(own.min_us);
        r.max_us = r.max_us.max(own.max_us);
        r.threads.push(self.own_thread);
        for (a, b) in r.statements.iter_mut().zip(&own.statements) {
            let _ = a.add(b);
        }
        if let (Some(a), Some(b)) = (r.intended.as_mut(), own.intended.as_ref()) {
            let _ = a.add(b);
        }
        r.reconnects += own.reconnects;
    }
}

/// The server's transaction counter, read around the measured window.
pub struct ServerCount {
    source: tokio::sync::Mutex<CounterSource>,
    db: &'static str,
}

/// What the server's counter gave over the window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerFigures {
    pub transactions: u64,
    pub seconds: f64,
}

impl Monitor for ServerCount {
    type Reading = Reading;
    type Figures = ServerFigures;

    async fn read(&self) -> Result<Reading> {
        Ok(self.source.lock().await.read().await?)
    }

    fn figures(
        &self,
        start: &Reading,
        end: &Reading,
        measured: Duration,
        say: &Say,
    ) -> ServerFigures {
        let transactions = end
            .total()
            .saturating_sub(start.total())
            .saturating_sub(end.own);
        if end.uptime < start.uptime {
            say.line(format!(
                "The server's transaction counter went back during the run (a restart?): its {} TPS is not comparable",
                self.db
            ));
        }
        ServerFigures {
            transactions,
            seconds: measured.as_secs_f64(),
        }
    }

    fn rates(&self, start: &Reading, end: &Reading, over: Duration) -> Vec<(&'static str, f64)> {
        let s = over.as_secs_f64();
        if s <= 0.0 {
            return Vec::new();
        }
        let n = end.total().saturating_sub(start.total());
        vec![("server TPS", n as f64 / s)]
    }
}

/// OLTP on one database: the workload the runtime drives.
pub struct Oltp<D: OltpDb> {
    db: D,
    pub opts: Options,
    plan: Vec<Group>,
    prepared: Prepared,
    dist: Distribution,
    monitor: Option<ServerCount>,
    /// The run's start, for the rate's schedule.
    clock: Instant,
    /// Events handed out, for `*_oltp_events`.
    issued: AtomicU64,
    schedule: Option<Schedule>,
    /// The rate's queue overflowed: the virtual users stop.
    overflowed: AtomicBool,
    /// In the measured window (always, for a run without a monitor).
    measuring: AtomicBool,
    live: Mutex<Vec<Arc<LiveQueries>>>,
    /// The live view's last totals of queries.
    last_live: Mutex<Queries>,
    pub record: Arc<Mutex<Record>>,
    /// The database's name, the schema's database and the keys' prefix, for messages.
    names: (&'static str, String, &'static str),
    /// The event's one statement, when it has only one: its latency is then the event's,
    /// which the runtime times already, and is not timed twice.
    single: Option<Statement>,
}

impl<D: OltpDb> Oltp<D> {
    pub fn new(
        db: D,
        opts: Options,
        source: Option<CounterSource>,
        names: (&'static str, String, &'static str),
    ) -> Self {
        let db_name = names.0;
        let p = &opts.per_event;
        let shape = Shape {
            point_selects: p.point_selects,
            simple_ranges: p.simple_ranges,
            sum_ranges: p.sum_ranges,
            order_ranges: p.order_ranges,
            distinct_ranges: p.distinct_ranges,
            index_updates: p.index_updates,
            non_index_updates: p.non_index_updates,
            delete_inserts: p.delete_inserts,
            range_selects: p.range_selects,
            skip_trx: opts.skip_trx,
        };
        let plan = plan(opts.test, &shape);
        let mut statements: Vec<Statement> = Vec::new();
        for g in &plan {
            if !statements.contains(&g.statement) {
                statements.push(g.statement);
            }
            if g.paired && !statements.contains(&Statement::Insert) {
                statements.push(Statement::Insert);
            }
        }
        let prepared = Prepared {
            tables: if opts.test.one_table() {
                1
            } else {
                opts.layout.tables
            },
            statements,
            random_points: p.random_points,
            number_of_ranges: p.number_of_ranges,
            transactions: plan.iter().any(|g| g.statement == Statement::Begin),
            auto_inc: opts.layout.auto_inc,
        };
        let dist = Distribution::new(&opts.rand);
        let schedule = (opts.rate > 0).then(|| {
            let seed = if opts.rand.seed == 0 {
                rand::rng().next_u64()
            } else {
                u64::from(opts.rand.seed)
            };
            Schedule::new(f64::from(opts.rate), seed)
        });
        let timed = !opts.duration.is_zero();
        let monitor = source.filter(|_| timed).map(|s| ServerCount {
            source: tokio::sync::Mutex::new(s),
            db: db_name,
        });
        let rate = opts.rate > 0;
        let single = match plan.as_slice() {
            [g] if g.times == 1 && !g.paired => Some(g.statement),
            _ => None,
        };
        Oltp {
            single,
            db,
            measuring: AtomicBool::new(monitor.is_none()),
            opts,
            plan,
            prepared,
            dist,
            monitor,
            clock: Instant::now(),
            issued: AtomicU64::new(0),
            schedule,
            overflowed: AtomicBool::new(false),
            live: Mutex::new(Vec::new()),
            last_live: Mutex::new(Queries::default()),
            record: Arc::new(Mutex::new(Record::new(rate))),
            names,
        }
    }

    /// Reads, writes and others of one event of the plan, as sysbench counts them.
    pub fn per_event(&self) -> (u64, u64, u64) {
        super::events::per_event(&self.plan)
    }

    /// Whether the rate's queue overflowed.
    pub fn overflowed(&self) -> bool {
        self.overflowed.load(Ordering::Relaxed)
    }

    fn id(&self, rng: &mut Rng) -> i64 {
        i64::from(self.dist.draw(rng, 1, self.opts.layout.table_size.max(1)))
    }

    /// Runs one statement, timed into the terminal's record while measuring.
    async fn one(
        &self,
        conn: &mut D::Conn,
        t: &mut Terminal,
        call: Call<'_>,
        measuring: bool,
        done: &mut Queries,
    ) -> Result<()> {
        let timed = measuring && self.single.is_none();
        let started = timed.then(Instant::now);
        let affected = match call.statement {
            Statement::Begin => self.db.begin(conn).await.map(|_| 0u64)?,
            Statement::Commit => self.db.commit(conn).await.map(|_| 0)?,
            _ => self.db.run(conn, call).await?,
        };
        if let Some(started) = started {
            let us = (started.elapsed().as_micros() as u64).max(1);
            let _ = t.own.statements[statement_index(call.statement)].record(us);
        }
        // sysbench's classes: a statement that returns rows is a read; one that changed rows
        // a write; anything else (BEGIN, COMMIT, a write that changed nothing) other.
        let class = match call.statement.class() {
            Class::Write if affected == 0 => Class::Other,
            c => c,
        };
        done.add(class, 1);
        Ok(())
    }

    /// One event: the plan's statements in order.
    async fn event(
        &self,
        conn: &mut D::Conn,
        t: &mut Terminal,
        measuring: bool,
        done: &mut Queries,
    ) -> Result<()> {
        let tables = self.prepared.tables.max(1);
        let range = i64::from(self.opts.per_event.range_size.max(1));
        for g in &self.plan {
            let table = match g.statement {
                Statement::Begin | Statement::Commit => 1,
                _ => t.rng.uniform(1, tables),
            };
            for _ in 0..g.times {
                let s = g.statement;
                let call = |args| Call {
                    statement: s,
                    table,
                    args,
                };
                match s {
                    Statement::Begin | Statement::Commit => {
                        self.one(conn, t, call(&[]), measuring, done).await?
                    }
                    Statement::PointSelect | Statement::IndexUpdate => {
                        let id = self.id(&mut t.rng);
                        self.one(conn, t, call(&[Arg::Int(id)]), measuring, done)
                            .await?
                    }
                    Statement::SimpleRange
                    | Statement::SumRange
                    | Statement::OrderRange
                    | Statement::DistinctRange => {
                        let id = self.id(&mut t.rng);
                        let args = [Arg::Int(id), Arg::Int(id + range - 1)];
                        self.one(conn, t, call(&args), measuring, done).await?
                    }
                    Statement::NonIndexUpdate => {
                        let id = self.id(&mut t.rng);
                        let mut c = std::mem::take(&mut t.c);
                        c.clear();
                        super::value::c(&mut t.rng, &mut c);
                        let args = [Arg::Text(&c), Arg::Int(id)];
                        let r = self.one(conn, t, call(&args), measuring, done).await;
                        t.c = c;
                        r?
                    }
                    Statement::Delete => {
                        let id = self.id(&mut t.rng);
                        self.one(conn, t, call(&[Arg::Int(id)]), measuring, done)
                            .await?;
                        if g.paired {
                            let k = self.id(&mut t.rng);
                            self.insert(conn, t, table, Some(id), k, measuring, done)
                                .await?;
                        }
                    }
                    Statement::Insert => {
                        let id = self.id(&mut t.rng);
                        let k = self.id(&mut t.rng);
                        self.insert(conn, t, table, Some(id), k, measuring, done)
                            .await?;
                    }
                    Statement::NewRow => {
                        let k = self.id(&mut t.rng);
                        // sysbench's unique ids as a signed INT, where the server makes none.
                        let id = (!self.prepared.auto_inc)
                            .then(|| i64::from(t.rng.next_u64() as u32) - 2_147_483_648);
                        self.insert_as(conn, t, table, Statement::NewRow, id, k, measuring, done)
                            .await?;
                    }
                    Statement::RandomPoints | Statement::RandomRanges => {
                        let threads = self.opts.virtual_users.max(1);
                        let rlen = self.opts.layout.table_size / threads;
                        let rmin = rlen * (t.thread % threads);
                        let (n, delta) = if s == Statement::RandomPoints {
                            (self.prepared.random_points.max(1), None)
                        } else {
                            (
                                self.prepared.number_of_ranges.max(1),
                                Some(i64::from(self.opts.per_event.delta)),
                            )
                        };
                        let mut args = Vec::with_capacity(n as usize * 2);
                        for _ in 0..n {
                            let v = i64::from(self.dist.draw(&mut t.rng, rmin, rmin + rlen));
                            args.push(Arg::Int(v));
                            if let Some(d) = delta {
                                args.push(Arg::Int(v + d));
                            }
                        }
                        self.one(conn, t, call(&args), measuring, done).await?
                    }
                }
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    async fn insert(
        &self,
        conn: &mut D::Conn,
        t: &mut Terminal,
        table: u32,
        id: Option<i64>,
        k: i64,
        measuring: bool,
        done: &mut Queries,
    ) -> Result<()> {
        self.insert_as(conn, t, table, Statement::Insert, id, k, measuring, done)
            .await
    }

    #[allow(clippy::too_many_arguments)]
    async fn insert_as(
        &self,
        conn: &mut D::Conn,
        t: &mut Terminal,
        table: u32,
        statement: Statement,
        id: Option<i64>,
        k: i64,
        measuring: bool,
        done: &mut Queries,
    ) -> Result<()> {
        let (mut c, mut pad) = (std::mem::take(&mut t.c), std::mem::take(&mut t.pad));
        c.clear();
        pad.clear();
        super::value::c(&mut t.rng, &mut c);
        super::value::pad(&mut t.rng, &mut pad);
        let with_id;
        let without_id;
        let args: &[Arg] = match id {
            Some(id) => {
                with_id = [Arg::Int(id), Arg::Int(k), Arg::Text(&c), Arg::Text(&pad)];
                &with_id
            }
            None => {
                without_id = [Arg::Int(k), Arg::Text(&c), Arg::Text(&pad)];
                &without_id
            }
        };
        let call = Call {
            statement,
            table,
            args,
        };
        let r = self.one(conn, t, call, measuring, done).await;
        (t.c, t.pad) = (c, pad);
        r
    }

    /// sysbench's interval line for the live view's interval `i`.
    fn sysbench_line(&self, i: &Interval) -> Vec<String> {
        let now = {
            let mut q = Queries::default();
            for l in lock(&self.live).iter() {
                q.reads += l.reads.load(Ordering::Relaxed);
                q.writes += l.writes.load(Ordering::Relaxed);
                q.others += l.others.load(Ordering::Relaxed);
            }
            q
        };
        let delta = {
            let mut last = lock(&self.last_live);
            let d = Queries {
                reads: now.reads.saturating_sub(last.reads),
                writes: now.writes.saturating_sub(last.writes),
                others: now.others.saturating_sub(last.others),
            };
            *last = now;
            d
        };
        let t = i.types.first().cloned().unwrap_or_default();
        let queue = self.schedule.as_ref().map(|s| {
            let q = s
                .queue_length(self.clock.elapsed())
                .unwrap_or(super::arrivals::MAX_QUEUE);
            (q as u64, u64::from(self.opts.virtual_users))
        });
        super::report::Interval {
            at: i.elapsed.as_secs_f64(),
            seconds: i.seconds,
            threads: self.opts.virtual_users,
            events: t.finished.saturating_sub(t.failed),
            reads: delta.reads,
            writes: delta.writes,
            others: delta.others,
            percentile: 95,
            latency_ms: t.p95_us.unwrap_or(0) as f64 / 1000.0,
            errors: t.retried + t.failed,
            reconnects: i.reconnects,
            queue,
        }
        .lines()
    }
}

impl<D: OltpDb> Workload for Oltp<D> {
    type Conn = D::Conn;
    type Terminal = Terminal;
    type Unit = ();
    type Done = ();
    type Plan = ();
    type Monitor = ServerCount;

    fn type_names(&self) -> &'static [&'static str] {
        &TYPE_NAMES
    }

    fn unit_word(&self) -> &'static str {
        "transaction"
    }

    fn index(_: ()) -> usize {
        0
    }

    /// One connection prepares the test's statements: tables that are not there fail it,
    /// before any virtual user starts.
    async fn prepare(&self) -> Result<()> {
        match self.db.connect(Position::Session, &self.prepared).await {
            Ok(conn) => {
                D::close(conn).await;
                Ok(())
            }
            Err(Error::Db(e)) if e.action == "cannot prepare" => Err(Error::NoOltpTables {
                db: self.names.0,
                dbname: self.names.1.clone(),
                prefix: self.names.2,
                test: self.opts.test.name(),
                why: e.detail,
            }),
            Err(e) => Err(e),
        }
    }

    fn monitor(&self) -> Option<&ServerCount> {
        self.monitor.as_ref()
    }

    fn window(&self, open: bool) {
        self.measuring.store(open, Ordering::Relaxed);
    }

    /// sysbench's `--report-interval` line; none for the sliver before a window's edge or
    /// for the stopping terminals' last moments (sysbench reports neither).
    fn interval_lines(&self, i: &Interval) -> Option<Vec<String>> {
        let lines = self.sysbench_line(i);
        let sliver = i.seconds < 0.1 && i.finished() == 0;
        if sliver || i.phase == crate::vu::live::Phase::Ending {
            return Some(Vec::new());
        }
        Some(lines)
    }

    async fn connect(&self, at: Position) -> Result<D::Conn> {
        self.db.connect(at, &self.prepared).await
    }

    fn node(conn: &D::Conn) -> Option<String> {
        D::node(conn)
    }

    async fn close(conn: D::Conn) {
        let _ = tokio::time::timeout(Duration::from_secs(5), D::close(conn)).await;
    }

    fn into_blocking(conn: D::Conn) -> Result<D::Conn> {
        D::into_blocking(conn)
    }

    fn reply_timeout(&self) -> Duration {
        self.db.reply_timeout()
    }

    /// Every reply is bounded by the wire's own deadline, and the cut closes the sockets
    /// under any wait, blocking or not (connecting again is bounded by the drivers).
    fn bounds_own_replies(&self) -> bool {
        true
    }

    fn peer(&self, at: Position) -> Peer {
        self.db.peer(at)
    }

    fn cut(&self) -> usize {
        self.db.cut()
    }

    fn terminal(&self, _: &(), place: Place, rng: SmallRng) -> Terminal {
        let mut rng = rng;
        let rng = if self.opts.rand.seed == 0 {
            Rng::seeded(rng.next_u64())
        } else {
            // Repeatable draws: the seed and the thread's number, as sysbench seeds its
            // threads from `--rand-seed`.
            Rng::seeded(u64::from(self.opts.rand.seed) * 1_000_003 + u64::from(place.worker))
        };
        let live = Arc::new(LiveQueries::default());
        lock(&self.live).push(live.clone());
        Terminal {
            rng,
            thread: place.worker.saturating_sub(1),
            at: place.position(1),
            live,
            own: Record::new(self.schedule.is_some()),
            own_thread: Thread::default(),
            since_connect: 0,
            due: None,
            counts: false,
            c: Vec::with_capacity(120),
            pad: Vec::with_capacity(60),
            record: self.record.clone(),
        }
    }

    fn next(&self, _t: &mut Terminal, _say: &Say) -> Option<()> {
        if self.overflowed() {
            return None;
        }
        let limit = self.opts.events;
        if limit > 0 && self.issued.fetch_add(1, Ordering::Relaxed) >= limit {
            return None;
        }
        Some(())
    }

    /// With a rate, the wait until the event is due (none when it is overdue).
    fn keying(&self, t: &mut Terminal, _: ()) -> Option<Duration> {
        let schedule = self.schedule.as_ref()?;
        let now = self.clock.elapsed();
        match schedule.take(now) {
            Ok(due) => {
                t.due = Some(due);
                due.checked_sub(now).filter(|d| !d.is_zero())
            }
            Err(_) => {
                self.overflowed.store(true, Ordering::Relaxed);
                t.due = None;
                None
            }
        }
    }

    async fn execute(&self, conn: &mut D::Conn, _: (), t: &mut Terminal) -> Result<()> {
        if self.opts.reconnect > 0 && t.since_connect >= self.opts.reconnect {
            // sysbench's --reconnect: a fresh connection (and statements) every N events,
            // blocking where the old one was.
            let mut fresh = self.db.connect(t.at, &self.prepared).await?;
            if D::is_blocking(conn) {
                fresh = D::into_blocking(fresh)?;
            }
            let old = std::mem::replace(conn, fresh);
            let _ = tokio::time::timeout(Duration::from_secs(5), D::close(old)).await;
            t.since_connect = 0;
            if self.measuring.load(Ordering::Relaxed) {
                t.own.reconnects += 1;
            }
        }
        let measuring = self.measuring.load(Ordering::Relaxed);
        t.counts = measuring;
        let mut done = Queries::default();
        let result = self.event(conn, t, measuring, &mut done).await;
        let lost = matches!(&result, Err(e) if e.is_connection_loss());
        if result.is_err() && self.prepared.transactions && !lost {
            self.db.rollback(conn).await;
        }
        if lost && self.opts.events > 0 {
            // The runtime reconnects and goes on with the next event: this one is run again
            // in its place, as sysbench restarts an event after a reconnect.
            self.issued.fetch_sub(1, Ordering::Relaxed);
        }
        t.live.add(&done);
        if measuring {
            t.own.queries.plus(&done);
        }
        t.since_connect += 1;
        result
    }

    fn rolled_back(_: &()) -> bool {
        false
    }

    fn done(&self, t: &mut Terminal, _say: &Say, _: (), _: (), elapsed: Duration) {
        if !t.counts {
            return;
        }
        let us = (elapsed.as_micros() as u64).max(1);
        let _ = t.own.events.record(us);
        if let Some(s) = self.single {
            let _ = t.own.statements[statement_index(s)].record(us);
        }
        t.own.sum_us += u128::from(us);
        t.own.min_us = t.own.min_us.min(us);
        t.own.max_us = t.own.max_us.max(us);
        t.own_thread.events += 1;
        t.own_thread.seconds += elapsed.as_secs_f64();
        if let (Some(h), Some(due)) = (t.own.intended.as_mut(), t.due) {
            let since = self.clock.elapsed().saturating_sub(due);
            let _ = h.record((since.as_micros() as u64).max(1));
        }
    }
}

/// The runtime's options for an OLTP run.
pub fn run_options(o: &Options) -> RunOptions {
    RunOptions {
        virtual_users: o.virtual_users,
        user_delay: o.user_delay,
        terminals: 1,
        login_delay: Duration::ZERO,
        pool: 0,
        raise_error: false,
        reconnect_for: o.reconnect_for,
        time_profile: false,
        rampup: o.rampup,
        duration: o.duration,
        refresh: o.refresh,
        window: None,
    }
}

/// What a run gave: the runtime's outcome and the terminals' record.
pub struct Ran {
    pub outcome: crate::vu::Outcome<ServerFigures>,
    pub record: Record,
    pub per_event: (u64, u64, u64),
    pub overflowed: bool,
    pub wall: Duration,
    /// The client's CPU time over the whole run (a run without a measured window).
    pub cpu: Option<Duration>,
}

/// Runs the test on `db` with `opts`.
pub async fn run<D: OltpDb>(
    db: D,
    opts: Options,
    source: Option<CounterSource>,
    names: (&'static str, String, &'static str),
    say: Say,
    states: StateSink,
    interrupt: Interrupt,
) -> Result<Ran> {
    let run_opts = run_options(&opts);
    let w = Arc::new(Oltp::new(db, opts, source, names));
    let started = Instant::now();
    let cpu0 = crate::vu::stats::process_cpu();
    let outcome = crate::vu::run(w.clone(), run_opts, say, states, interrupt).await?;
    let wall = started.elapsed();
    let cpu = crate::vu::stats::process_cpu()
        .zip(cpu0)
        .map(|(b, a)| b.saturating_sub(a));
    let record = std::mem::replace(&mut *lock(&w.record), Record::new(false));
    if let Some(m) = &w.monitor {
        m.source.lock().await.close().await;
    }
    Ok(Ran {
        outcome,
        record,
        per_event: w.per_event(),
        overflowed: w.overflowed(),
        wall,
        cpu,
    })
}
