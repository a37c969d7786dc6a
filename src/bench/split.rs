//! One schema built by several hammer processes ("drivers") at once, each loading its share
//! (TPROC-C's warehouses, TPROC-H's parts), and resumed share by share when a driver died.
//! hammer's own: HammerDB builds a schema from one process.
//!
//! Who loads what is kept in the database under test, in a small ledger table
//! ([`LEDGER`], `schemas/split/ledger.sql`): no other server, no protocol of hammer's own.
//! The driver of the first share is the *creator*: it creates the tables and the ledger, in
//! which it records the facts every driver must load with (TPROC-C's NURand load constants),
//! loads its share, waits until every share is loaded, then adds the keys, indexes and
//! statistics once. The others wait (bounded) for the ledger, claim their share, load it, mark
//! it loaded and end. A loading driver beats its heartbeat in the ledger every few seconds; one
//! whose heartbeat is older than [`STALE_AFTER`] is taken for dead: the creator stops waiting
//! for it, names what is missing and the commands that resume it, and leaves the schema
//! without keys. A driver that resumes such a share deletes the rows the dead one left, loads
//! it again, and, when that completes the schema and nobody is waiting to finish it, adds the
//! keys itself. Every decision that depends on the others' states is taken in a transaction
//! holding the ledger's rows, so two drivers never both finish, nor both claim a share.
//!
//! What a workload does in each step (create, load, delete a share's rows, finish) it says
//! through [`Split`]; this file knows no workload.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::sql::{Rows, ScriptConn};
use crate::sqlfile::{self, Named};
use crate::vu::Say;

/// The ledger table a split build keeps in the schema's database.
pub const LEDGER: &str = "hammer_build_parts";

/// A loading driver whose heartbeat is older than this is taken for dead.
pub const STALE_AFTER: Duration = Duration::from_secs(30);

/// How often a driver beats its heartbeat.
const BEAT_EVERY: Duration = Duration::from_secs(5);

/// How often a waiting driver reads the ledger.
const POLL_EVERY: Duration = Duration::from_secs(1);

/// How often a waiting driver says what it still waits for, when nothing changed.
const SAY_EVERY: Duration = Duration::from_secs(30);

/// The longest one ledger operation (a few short statements) may take.
const LEDGER_WITHIN: Duration = Duration::from_secs(60);

static SQL: std::sync::LazyLock<Named> =
    std::sync::LazyLock::new(|| Named::parse(include_str!("../../schemas/split/ledger.sql")));

/// A driver's share: units `first..=last` (warehouses, parts) of the schema, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    pub first: u32,
    pub last: u32,
}

impl Share {
    fn overlaps(&self, other: Share) -> bool {
        self.first <= other.last && other.first <= self.last
    }

    fn within(&self, other: Share) -> bool {
        other.first <= self.first && self.last <= other.last
    }
}

/// How a workload names its shares and the commands that make a driver of one.
pub struct Units {
    /// `warehouses 3-4 of 4`, `part 2 of 3`: a share of a schema of `total` units.
    pub name: Box<dyn Fn(Share, u32) -> String + Send + Sync>,
    /// The commands a driver of the share runs: `diset tpcc pg_first_ware 3; diset tpcc
    /// pg_owned_ware 2; buildschema`.
    pub resume: Box<dyn Fn(Share) -> String + Send + Sync>,
    /// Who creates and finishes the schema: `the driver of warehouse 1`.
    pub creator: &'static str,
    /// What the units are: `warehouses`, `parts`.
    pub plural: &'static str,
}

/// What a driver's load ended with when it did not load its whole share.
#[derive(Debug)]
pub struct Stopped {
    pub loaded: u64,
    pub expected: u64,
    pub why: Error,
}

/// A workload's part in a split build.
pub trait Split: Send + Sync + 'static {
    /// What every driver loads with, as the creator recorded it in the ledger.
    type Facts: Send + Sync;

    fn units(&self) -> &Units;
    /// This driver's share.
    fn share(&self) -> Share;
    /// The schema's units: `*_count_ware`, `*_tpch_build_parts`.
    fn total(&self) -> u32;
    /// The key that sets [`Split::total`], as `diset` names it: `tpcc:pg_count_ware`.
    fn total_key(&self) -> String;
    /// How long a driver waits for the creator, and the creator for shares nobody started;
    /// the key that sets it (`tpcc:pg_build_wait`).
    fn wait(&self) -> (Duration, String);
    /// The schema's database name.
    fn dbname(&self) -> String;
    /// `PostgreSQL`, `MariaDB`.
    fn engine(&self) -> &'static str;
    /// A plain connection as the schema's owner on its database.
    fn connect(&self) -> impl Future<Output = Result<ScriptConn>> + Send;
    /// Creates the role, database and tables, as a whole build does (refusing a database
    /// that holds tables).
    fn create(&self, say: &Say) -> impl Future<Output = Result<()>> + Send;
    /// The facts the creator records, as text of letters, digits and `._:=-` and spaces.
    fn new_facts(&self) -> String;
    /// The recorded facts, or why this driver's settings do not fit them.
    fn facts(&self, recorded: &str) -> Result<Self::Facts>;
    /// Deletes the rows a dead driver left of `share`.
    fn clear(
        &self,
        conn: &mut ScriptConn,
        share: Share,
        facts: &Self::Facts,
    ) -> impl Future<Output = Result<()>> + Send;
    /// Loads this driver's share; `stop` ends it between chunks.
    fn load(
        &self,
        facts: &Self::Facts,
        stop: Interrupt,
    ) -> impl Future<Output = std::result::Result<u64, Stopped>> + Send;
    /// Adds the keys, indexes, procedures and statistics, once every share is loaded.
    fn finish(&self, facts: &Self::Facts, say: &Say) -> impl Future<Output = Result<()>> + Send;
}

/// What a split build's driver did.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Rows this driver loaded.
    pub rows: u64,
    /// Its share, named: `warehouses 3-4 of 4`.
    pub share: String,
    /// Whether this driver added the keys (the schema is then complete).
    pub finished: bool,
    /// Who loaded what, one line per share, when the schema is complete: `warehouses 1-2 of
    /// 4: loaded by host db1 pid 4242 from 2026-12-04 13:00:01 to 2026-12-04 13:00:40`.
    pub parts: Vec<String>,
}

// ---- the ledger -------------------------------------------------------------------------

/// A row's state: a share's (loading, loaded, failed) or the schema's (loading, finishing,
/// complete, incomplete, failed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Loading,
    Loaded,
    Failed,
    Finishing,
    Complete,
    Incomplete,
}

impl State {
    fn word(self) -> &'static str {
        match self {
            State::Loading => "loading",
            State::Loaded => "loaded",
            State::Failed => "failed",
            State::Finishing => "finishing",
            State::Complete => "complete",
            State::Incomplete => "incomplete",
        }
    }

    fn parse(word: &str) -> Option<State> {
        [
            State::Loading,
            State::Loaded,
            State::Failed,
            State::Finishing,
            State::Complete,
            State::Incomplete,
        ]
        .into_iter()
        .find(|s| s.word() == word)
    }
}

/// One row of the ledger.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The share; the schema's own row is `0..=total`.
    pub share: Share,
    pub state: State,
    pub host: String,
    pub pid: u64,
    pub token: i64,
    pub started: String,
    pub ended: Option<String>,
    /// Its heartbeat is older than [`STALE_AFTER`].
    pub stale: bool,
    pub facts: String,
}

impl Row {
    fn who(&self) -> String {
        format!("host {} pid {}", self.host, self.pid)
    }

    /// A share some driver is loading now.
    fn live(&self) -> bool {
        self.state == State::Loading && !self.stale
    }
}

/// The ledger as read: the schema's row and the shares claimed.
#[derive(Debug, Clone, PartialEq)]
pub struct Ledger {
    pub schema: Row,
    pub shares: Vec<Row>,
}

/// Units nobody has loaded, with the row on them when there is one.
#[derive(Debug, Clone, PartialEq)]
pub struct Gap {
    pub share: Share,
    pub row: Option<Row>,
}

impl Gap {
    /// `warehouses 3-4 of 4: loading by host h pid 1 since ...`.
    pub fn describe(&self, units: &Units, total: u32) -> String {
        let name = (units.name)(self.share, total);
        match &self.row {
            None => format!("{name}: not started by any driver"),
            Some(r) if r.live() => format!("{name}: loading by {} since {}", r.who(), r.started),
            Some(r) if r.state == State::Loading => format!(
                "{name}: left unfinished by {}, which has given no heartbeat for over {} s",
                r.who(),
                STALE_AFTER.as_secs()
            ),
            Some(r) => format!("{name}: left unfinished by {}, which stopped", r.who()),
        }
    }
}

impl Ledger {
    /// The ledger of `rows` as `read` selects them; `None` without the schema's row.
    fn of(rows: &Rows) -> Option<Ledger> {
        let mut all = Vec::new();
        for r in rows {
            let cell = |i: usize| r.get(i).cloned().flatten().unwrap_or_default();
            let num = |i: usize| cell(i).trim().parse::<i64>().ok();
            all.push(Row {
                share: Share {
                    first: u32::try_from(num(0)?).ok()?,
                    last: u32::try_from(num(1)?).ok()?,
                },
                state: State::parse(cell(2).trim())?,
                host: cell(3),
                pid: u64::try_from(num(4)?).ok()?,
                token: num(5)?,
                started: cell(6),
                ended: r.get(7).cloned().flatten(),
                stale: num(8) == Some(1),
                facts: cell(9),
            });
        }
        let at = all.iter().position(|r| r.share.first == 0)?;
        let schema = all.remove(at);
        Some(Ledger {
            schema,
            shares: all,
        })
    }

    /// The schema's units.
    pub fn total(&self) -> u32 {
        self.schema.share.last
    }

    /// The units not loaded, in runs that share the same row (or none).
    pub fn gaps(&self) -> Vec<Gap> {
        let mut gaps: Vec<Gap> = Vec::new();
        let mut u = 1;
        while u <= self.total() {
            let row = self
                .shares
                .iter()
                .find(|r| r.share.first <= u && u <= r.share.last);
            match row {
                Some(r) if r.state == State::Loaded => u = r.share.last + 1,
                Some(r) => {
                    let last = r.share.last.min(self.total());
                    gaps.push(Gap {
                        share: Share { first: u, last },
                        row: Some(r.clone()),
                    });
                    u = last + 1;
                }
                None => {
                    // Up to the next claimed share.
                    let next = self
                        .shares
                        .iter()
                        .map(|r| r.share.first)
                        .filter(|f| *f > u)
                        .min()
                        .unwrap_or(self.total() + 1);
                    let last = (next - 1).min(self.total());
                    match gaps.last_mut() {
                        Some(g) if g.row.is_none() && g.share.last + 1 == u => g.share.last = last,
                        _ => gaps.push(Gap {
                            share: Share { first: u, last },
                            row: None,
                        }),
                    }
                    u = last + 1;
                }
            }
        }
        gaps
    }

    /// Every unit is loaded.
    pub fn complete(&self) -> bool {
        self.gaps().is_empty()
    }

    /// Some driver is loading a share now.
    fn live(&self) -> bool {
        self.shares.iter().any(Row::live)
    }

    /// Who loaded what: one line per share.
    pub fn loaded_by(&self, units: &Units) -> Vec<String> {
        self.shares
            .iter()
            .map(|r| {
                let name = (units.name)(r.share, self.total());
                match (&r.state, &r.ended) {
                    (State::Loaded, Some(ended)) => format!(
                        "{name}: loaded by {} from {} to {ended}",
                        r.who(),
                        r.started
                    ),
                    (state, _) => format!("{name}: {} by {}", state.word(), r.who()),
                }
            })
            .collect()
    }

    /// What a driver of `share` would take over (shares whose driver died, wholly inside
    /// it), or why it may not load it.
    fn claim(&self, share: Share, units: &Units) -> std::result::Result<Vec<Row>, String> {
        let total = self.total();
        let name = |s: Share| (units.name)(s, total);
        match self.schema.state {
            State::Complete => {
                return Err(format!(
                    "the schema is complete ({LEDGER} says so); remove it with deleteschema to \
                     build it again"
                ))
            }
            State::Finishing if !self.schema.stale => {
                return Err(format!(
                    "every share is loaded and {} is adding the keys",
                    self.schema.who()
                ))
            }
            State::Finishing | State::Failed => {
                return Err(format!(
                    "every share is loaded, but adding the keys stopped ({}): remove the schema \
                     with deleteschema and build it again",
                    self.schema.who()
                ))
            }
            _ => {}
        }
        let mut taken = Vec::new();
        for r in self.shares.iter().filter(|r| r.share.overlaps(share)) {
            match r.state {
                State::Loaded => {
                    return Err(format!(
                        "{} are loaded already, by {}",
                        name(r.share),
                        r.who()
                    ))
                }
                _ if r.live() => {
                    return Err(format!(
                        "{} are being loaded by {} (its heartbeat is under {} s old)",
                        name(r.share),
                        r.who(),
                        STALE_AFTER.as_secs()
                    ))
                }
                _ if !r.share.within(share) => {
                    return Err(format!(
                        "{} were being loaded by {}, which stopped: resume them as one share, \
                         with {}",
                        name(r.share),
                        r.who(),
                        (units.resume)(r.share)
                    ))
                }
                _ => taken.push(r.clone()),
            }
        }
        Ok(taken)
    }
}

/// This driver, as the ledger records it: its host, its process, and a token of its own
/// that tells its rows from a later driver's of the same share.
#[derive(Debug, Clone)]
pub struct Me {
    pub host: String,
    pub pid: u64,
    token: i64,
}

impl Me {
    pub fn new() -> Me {
        Me {
            host: text_value(&crate::jobs::system::hostname(), 255),
            pid: u64::from(std::process::id()),
            // Positive and exact in any client's floating point.
            token: (rand::random::<u64>() >> 11) as i64 + 1,
        }
    }
}

impl Default for Me {
    fn default() -> Self {
        Me::new()
    }
}

/// `text` as a value the ledger's SQL may quote as it is: letters, digits, spaces and
/// `._:=-`, anything else `_`, at most `max` characters.
fn text_value(text: &str, max: usize) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || " ._:=-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(max)
        .collect()
}

/// A statement of `ledger.sql` with its values.
fn statement(name: &str, vars: &[(&str, &str)]) -> String {
    sqlfile::render(SQL.get(name), vars)
}

/// `fut`, bounded by [`LEDGER_WITHIN`].
async fn bounded<T>(fut: impl Future<Output = Result<T>>) -> Result<T> {
    tokio::time::timeout(LEDGER_WITHIN, fut)
        .await
        .unwrap_or(Err(Error::NoAnswer {
            what: "the split build's ledger",
            within: LEDGER_WITHIN,
        }))
}

/// The ledger of the schema's database on `conn`, or `None` when there is none (yet).
pub async fn read(conn: &mut ScriptConn, dbname: &str) -> Result<Option<Ledger>> {
    bounded(async {
        let sql = statement("exists", &[("dbname", &text_value(dbname, 255))]);
        let there = conn.query(&sql).await?;
        let n = there
            .first()
            .and_then(|r| r.first().cloned().flatten())
            .and_then(|v| v.trim().parse::<i64>().ok())
            .unwrap_or(0);
        if n == 0 {
            return Ok(None);
        }
        let stale = STALE_AFTER.as_secs().to_string();
        let rows = conn.query(&statement("read", &[("stale", &stale)])).await?;
        Ok(Ledger::of(&rows))
    })
    .await
}

/// Runs `f` on the ledger read with its rows held, in a transaction it commits when `f`
/// succeeds and rolls back otherwise.
async fn locked<T>(
    conn: &mut ScriptConn,
    f: impl AsyncFnOnce(&mut ScriptConn, Ledger) -> Result<T>,
) -> Result<T> {
    bounded(async {
        conn.begin().await?;
        let stale = STALE_AFTER.as_secs().to_string();
        let read = conn
            .query(&statement("read_locked", &[("stale", &stale)]))
            .await;
        let r = match read {
            Ok(rows) => match Ledger::of(&rows) {
                Some(ledger) => f(conn, ledger).await,
                None => Err(Error::SplitRefused {
                    why: format!("the ledger {LEDGER} has lost its schema row"),
                }),
            },
            Err(e) => Err(e.into()),
        };
        match r {
            Ok(v) => {
                conn.execute("COMMIT").await?;
                Ok(v)
            }
            Err(e) => {
                let _ = conn.execute("ROLLBACK").await;
                Err(e)
            }
        }
    })
    .await
}

/// Inserts a row for `share` (or the schema's, `first` 0) in `state`.
async fn insert(
    conn: &mut ScriptConn,
    me: &Me,
    share: Share,
    state: State,
    facts: &str,
) -> Result<()> {
    let (first, last) = (share.first.to_string(), share.last.to_string());
    let (pid, token) = (me.pid.to_string(), me.token.to_string());
    let sql = statement(
        "insert",
        &[
            ("first", &first),
            ("last", &last),
            ("state", state.word()),
            ("host", &me.host),
            ("pid", &pid),
            ("token", &token),
            ("facts", &text_value(facts, 1000)),
        ],
    );
    conn.execute(&sql).await?;
    Ok(())
}

/// Sets the state of this driver's row of `share`; false when the row is no longer its own.
async fn mark(conn: &mut ScriptConn, me: &Me, share: Share, state: State) -> Result<bool> {
    let (first, token) = (share.first.to_string(), me.token.to_string());
    let sql = statement(
        "mark",
        &[
            ("first", &first),
            ("token", &token),
            ("state", state.word()),
        ],
    );
    Ok(conn.execute(&sql).await? > 0)
}

/// Sets the schema's state.
async fn stage(conn: &mut ScriptConn, state: State) -> Result<()> {
    conn.execute(&statement("stage", &[("state", state.word())]))
        .await?;
    Ok(())
}

/// Makes this driver the one that finishes the schema.
async fn take_schema(conn: &mut ScriptConn, me: &Me) -> Result<()> {
    let (pid, token) = (me.pid.to_string(), me.token.to_string());
    let sql = statement(
        "take_schema",
        &[("host", &me.host), ("pid", &pid), ("token", &token)],
    );
    conn.execute(&sql).await?;
    Ok(())
}

// ---- the heartbeat ----------------------------------------------------------------------

/// This driver's heartbeat: a task that beats its rows every [`BEAT_EVERY`] on a connection
/// of its own, and fires `lost` when its share's row is no longer its own (another driver
/// took it for dead).
struct Heartbeat {
    stop: Interrupt,
    task: tokio::task::JoinHandle<()>,
}

impl Heartbeat {
    fn start<S: Split>(work: Arc<S>, me: Me, share: Share, lost: Interrupt) -> Heartbeat {
        let stop = Interrupt::default();
        let task = tokio::spawn(beat(work, me, share, lost, stop.clone()));
        Heartbeat { stop, task }
    }

    /// Stops the task and waits for it to close its connection.
    async fn end(self) {
        self.stop.fire();
        let mut task = self.task;
        if tokio::time::timeout(LEDGER_WITHIN, &mut task)
            .await
            .is_err()
        {
            task.abort();
        }
    }
}

async fn beat<S: Split>(work: Arc<S>, me: Me, share: Share, lost: Interrupt, stop: Interrupt) {
    let token = me.token.to_string();
    let first = share.first.to_string();
    let beat = statement("beat", &[("first", &first), ("token", &token)]);
    let held = statement("held", &[("first", &first), ("token", &token)]);
    let mut conn: Option<ScriptConn> = None;
    loop {
        tokio::select! {
            _ = tokio::time::sleep(BEAT_EVERY) => {}
            _ = stop.wait() => break,
        }
        if conn.is_none() {
            conn = bounded(work.connect()).await.ok();
        }
        let Some(c) = conn.as_mut() else { continue };
        let r = bounded(async {
            c.execute(&beat).await?;
            let rows = c.query(&held).await?;
            Ok(rows
                .first()
                .and_then(|r| r.first().cloned().flatten())
                .and_then(|v| v.trim().parse::<i64>().ok())
                .unwrap_or(0))
        })
        .await;
        match r {
            Ok(0) => {
                lost.fire();
                break;
            }
            Ok(_) => {}
            // The next beat tries a new connection.
            Err(_) => {
                if let Some(c) = conn.take() {
                    c.close().await;
                }
            }
        }
    }
    if let Some(c) = conn {
        c.close().await;
    }
}

// ---- a driver's build -------------------------------------------------------------------

/// What this driver does once its share is loaded.
enum Next {
    /// Add the keys: every share is loaded and this driver finishes the schema.
    Finish,
    /// Wait for the others' shares (the creator).
    Wait,
    /// End: the creator, or the driver of the last share, finishes.
    Leave(Ledger),
}

/// Builds this driver's share of a split schema (see the file's doc), saying what it does on
/// `say`; Ctrl-C (`interrupt`) stops the wait or the load.
pub async fn build<S: Split>(work: Arc<S>, say: &Say, interrupt: &Interrupt) -> Result<Outcome> {
    let me = Me::new();
    let share = work.share();
    let units = work.units();
    let total = work.total();
    let name = (units.name)(share, total);
    let dbname = work.dbname();
    let creator = share.first == 1;

    // The ledger: made by the creator, waited for by the others. A creator that finds one
    // resumes its share like any other driver.
    let found = if creator {
        find(&*work, &dbname).await
    } else {
        Some(await_ledger(&*work, &dbname, say, interrupt).await?)
    };
    let (mut conn, facts, taken, created) = match found {
        Some((mut conn, ledger)) => {
            let r = async {
                check_total(&*work, &ledger)?;
                let facts = work.facts(&ledger.schema.facts)?;
                let taken = claim(&mut conn, &me, share, units).await?;
                Ok::<_, Error>((facts, taken))
            }
            .await;
            match r {
                Ok((facts, taken)) => (conn, facts, taken, false),
                Err(e) => {
                    conn.close().await;
                    return Err(e);
                }
            }
        }
        None => {
            work.create(say).await?;
            let recorded = work.new_facts();
            let facts = work.facts(&recorded)?;
            let mut conn = work.connect().await?;
            if let Err(e) = create_ledger(&mut conn, &me, share, total, &recorded).await {
                conn.close().await;
                return Err(e);
            }
            say.line(format!(
                "Split build: this driver created the schema and loads {name} as {}; {LEDGER} \
                 records who loads what",
                me_said(&me)
            ));
            (conn, facts, Vec::new(), true)
        }
    };
    // The shares nobody has started are waited for from here.
    let since = Instant::now();
    if !created {
        say.line(format!(
            "Split build: this driver loads {name} as {}",
            me_said(&me)
        ));
    }
    let r = run(
        &work,
        (&mut conn, &me),
        (&facts, taken, created),
        since,
        say,
        interrupt,
    )
    .await;
    conn.close().await;
    r
}

/// `host h pid p`.
fn me_said(me: &Me) -> String {
    format!("host {} pid {}", me.host, me.pid)
}

/// The rest of a driver's build once it holds its share: clear, load, mark, then finish, wait
/// or leave.
async fn run<S: Split>(
    work: &Arc<S>,
    (conn, me): (&mut ScriptConn, &Me),
    (facts, taken, created): (&S::Facts, Vec<Row>, bool),
    since: Instant,
    say: &Say,
    interrupt: &Interrupt,
) -> Result<Outcome> {
    let share = work.share();
    let units = work.units();
    let total = work.total();
    let name = (units.name)(share, total);
    let lost = Interrupt::default();
    let heartbeat = Heartbeat::start(work.clone(), me.clone(), share, lost.clone());
    let r = async {
        for r in &taken {
            say.line(format!(
                "Deleting the rows {} left of {}",
                r.who(),
                (units.name)(r.share, total)
            ));
            // Not bounded: a large share's deletes take their time; Ctrl-C ends them (the
            // share's row then goes stale, to be taken over again).
            tokio::select! {
                r = work.clear(conn, r.share, facts) => r?,
                _ = interrupt.wait() => return Err(Error::Interrupted),
            }
        }
        // Stopped by Ctrl-C, or by the loss of the share to another driver.
        let stop = Interrupt::default();
        let rows = {
            let forward = |from: Interrupt, to: Interrupt| async move {
                from.wait().await;
                to.fire();
            };
            let load = work.load(facts, stop.clone());
            tokio::pin!(load);
            tokio::select! {
                r = &mut load => r,
                _ = forward(interrupt.clone(), stop.clone()) => load.await,
                _ = forward(lost.clone(), stop.clone()) => load.await,
            }
        };
        let rows = match rows {
            Ok(rows) => rows,
            Err(stopped) => {
                let why = if lost.is_set() {
                    Error::SplitRefused {
                        why: format!(
                            "another driver took {name} over, this driver's heartbeat having \
                             stopped for over {} s",
                            STALE_AFTER.as_secs()
                        ),
                    }
                } else {
                    stopped.why
                };
                let _ = bounded(mark(conn, me, share, State::Failed)).await;
                return Err(Error::SplitStopped {
                    share: name.clone(),
                    loaded: stopped.loaded,
                    expected: stopped.expected,
                    why: Box::new(why),
                    db: work.engine(),
                    resume: (units.resume)(share),
                });
            }
        };
        let next = locked(conn, async |conn, _| {
            if !mark(conn, me, share, State::Loaded).await? {
                return Err(Error::SplitRefused {
                    why: format!(
                        "{name} was taken over by another driver while this one loaded it"
                    ),
                });
            }
            decide(conn, me, created).await
        })
        .await?;
        let next = match next {
            Next::Wait => wait_for_all(&**work, (conn, me), since, say, interrupt).await?,
            next => next,
        };
        match next {
            Next::Finish => {
                finish(&**work, conn, facts, say, interrupt).await?;
                let ledger = read(conn, &work.dbname()).await?;
                Ok(Outcome {
                    rows,
                    share: name.clone(),
                    finished: true,
                    parts: ledger.map(|l| l.loaded_by(units)).unwrap_or_default(),
                })
            }
            Next::Leave(ledger) => {
                say_leaving(&**work, &ledger, say);
                Ok(Outcome {
                    rows,
                    share: name.clone(),
                    finished: false,
                    parts: Vec::new(),
                })
            }
            Next::Wait => unreachable!("the wait ends in Finish or an error"),
        }
    }
    .await;
    heartbeat.end().await;
    r
}

/// What to do once this driver's share is marked loaded, decided with the ledger held.
async fn decide(conn: &mut ScriptConn, me: &Me, created: bool) -> Result<Next> {
    let stale = STALE_AFTER.as_secs().to_string();
    let rows = conn
        .query(&statement("read_locked", &[("stale", &stale)]))
        .await?;
    let ledger = Ledger::of(&rows).ok_or_else(|| Error::SplitRefused {
        why: format!("the ledger {LEDGER} has lost its schema row"),
    })?;
    let nobody_waits = ledger.schema.state == State::Incomplete
        || (ledger.schema.state == State::Loading && ledger.schema.stale);
    if ledger.complete() && (created || nobody_waits) {
        take_schema(conn, me).await?;
        return Ok(Next::Finish);
    }
    if created {
        return Ok(Next::Wait);
    }
    Ok(Next::Leave(ledger))
}

/// The lines of a driver that ends without finishing: who will, or what is missing.
fn say_leaving<S: Split>(work: &S, ledger: &Ledger, say: &Say) {
    let units = work.units();
    let name = (units.name)(work.share(), work.total());
    let gaps = ledger.gaps();
    if ledger.schema.state == State::Loading && !ledger.schema.stale {
        say.line(format!(
            "{name} loaded: {} ({}) adds the keys, indexes and statistics once every share is \
             loaded",
            units.creator,
            ledger.schema.who()
        ));
        return;
    }
    if gaps.is_empty() {
        say.line(format!("{name} loaded: the schema is being finished"));
        return;
    }
    say.line(format!(
        "{name} loaded; the schema is still missing shares, and the driver that loads the last \
         of them adds the keys, indexes and statistics:"
    ));
    for g in &gaps {
        say.line(format!("  {}", g.describe(units, ledger.total())));
        if g.row.as_ref().is_none_or(|r| !r.live()) {
            say.line(format!("    resume: {}", (units.resume)(g.share)));
        }
    }
}

/// The creator's wait for every share: until all are loaded (then it finishes), or until
/// nobody is loading and the shares nobody started have had their time since the ledger was
/// made (`started`; then the schema is left incomplete, saying what is missing and how to
/// resume it).
async fn wait_for_all<S: Split>(
    work: &S,
    (conn, me): (&mut ScriptConn, &Me),
    started: Instant,
    say: &Say,
    interrupt: &Interrupt,
) -> Result<Next> {
    let units = work.units();
    let (wait, key) = work.wait();
    let dbname = work.dbname();
    let mut said: Option<(Vec<Gap>, Instant)> = None;
    loop {
        let ledger = read(conn, &dbname)
            .await?
            .ok_or_else(|| Error::SplitRefused {
                why: format!("the ledger {LEDGER} has gone"),
            })?;
        let gaps = ledger.gaps();
        let unstarted = gaps.iter().any(|g| g.row.is_none());
        let over =
            ledger.complete() || (!ledger.live() && (!unstarted || started.elapsed() >= wait));
        if over || interrupt.is_set() {
            return end_wait(work, conn, me, say, interrupt.is_set()).await;
        }
        let changed = said.as_ref().is_none_or(|(g, at)| {
            g.iter().map(|g| g.share).ne(gaps.iter().map(|g| g.share))
                || g.iter()
                    .map(|g| g.row.as_ref().map(|r| r.live()))
                    .ne(gaps.iter().map(|g| g.row.as_ref().map(|r| r.live())))
                || at.elapsed() >= SAY_EVERY
        });
        if changed {
            let mut line = String::from("Waiting for every share to be loaded: ");
            let parts: Vec<String> = gaps
                .iter()
                .map(|g| g.describe(units, ledger.total()))
                .collect();
            line.push_str(&parts.join("; "));
            if unstarted {
                let left = wait.saturating_sub(started.elapsed()).as_secs();
                line.push_str(&format!(
                    " (a share nobody has started is waited for {left} s more: {key})"
                ));
            }
            say.line(line);
            said = Some((gaps, Instant::now()));
        }
        tokio::select! {
            _ = tokio::time::sleep(POLL_EVERY) => {}
            _ = interrupt.wait() => {}
        }
    }
}

/// The end of the creator's wait, decided with the ledger held: finish when every share is
/// loaded after all, else mark the schema incomplete and say what is missing.
async fn end_wait<S: Split>(
    work: &S,
    conn: &mut ScriptConn,
    me: &Me,
    say: &Say,
    interrupted: bool,
) -> Result<Next> {
    let units = work.units();
    let ledger = locked(conn, async |conn, ledger| {
        if ledger.complete() {
            take_schema(conn, me).await?;
        } else {
            stage(conn, State::Incomplete).await?;
        }
        Ok(ledger)
    })
    .await?;
    if ledger.complete() {
        return Ok(Next::Finish);
    }
    let gaps = ledger.gaps();
    let missing: Vec<String> = gaps
        .iter()
        .map(|g| g.describe(units, ledger.total()))
        .collect();
    let resume: Vec<String> = gaps.iter().map(|g| (units.resume)(g.share)).collect();
    if interrupted {
        say.line(format!(
            "Ctrl-C: the wait for the other shares stopped; the schema has no keys yet. \
             Missing: {}. The driver that loads the last missing share finishes the schema; \
             load each missing share with: {}",
            missing.join("; "),
            resume.join(" | ")
        ));
        return Err(Error::Interrupted);
    }
    Err(Error::SplitIncomplete {
        db: work.engine(),
        missing: missing.join("\n  "),
        resume: resume.join("\n  "),
    })
}

/// Adds the keys (this driver holds the schema's row as `finishing`), then marks the schema
/// complete; a failure marks it failed.
async fn finish<S: Split>(
    work: &S,
    conn: &mut ScriptConn,
    facts: &S::Facts,
    say: &Say,
    interrupt: &Interrupt,
) -> Result<()> {
    say.line("Every share is loaded: this driver adds the keys, indexes and statistics");
    let r = crate::bench::loading::finish_whole(work.finish(facts, say), interrupt, say).await;
    let state = if r.is_ok() {
        State::Complete
    } else {
        State::Failed
    };
    let marked = bounded(stage(conn, state)).await;
    r?;
    marked
}

/// The creator's look for a ledger it would resume: the connection and the ledger, or
/// `None` when there is none (or no database yet).
async fn find<S: Split>(work: &S, dbname: &str) -> Option<(ScriptConn, Ledger)> {
    let mut conn = bounded(work.connect()).await.ok()?;
    match read(&mut conn, dbname).await {
        Ok(Some(ledger)) => Some((conn, ledger)),
        _ => {
            conn.close().await;
            None
        }
    }
}

/// A non-creator's wait for the creator's ledger, bounded by the wait key; Ctrl-C stops it.
async fn await_ledger<S: Split>(
    work: &S,
    dbname: &str,
    say: &Say,
    interrupt: &Interrupt,
) -> Result<(ScriptConn, Ledger)> {
    let (wait, key) = work.wait();
    let deadline = Instant::now() + wait;
    let mut said = false;
    let mut last: Option<String> = None;
    loop {
        match bounded(work.connect()).await {
            Ok(mut conn) => match read(&mut conn, dbname).await {
                Ok(Some(ledger)) => return Ok((conn, ledger)),
                Ok(None) => conn.close().await,
                Err(e) => {
                    last = Some(e.to_string());
                    conn.close().await;
                }
            },
            Err(e) => last = Some(e.to_string()),
        }
        if Instant::now() >= deadline {
            return Err(Error::SplitWaited {
                waited: wait.as_secs(),
                what: format!(
                    "{} to create the schema in database {dbname} and its ledger {LEDGER}",
                    work.units().creator
                ),
                key,
                last,
            });
        }
        if !said {
            say.line(format!(
                "Waiting up to {} s ({key}) for {} to create the schema in database {dbname} \
                 and record in {LEDGER} what every driver loads with",
                wait.as_secs(),
                work.units().creator
            ));
            said = true;
        }
        tokio::select! {
            _ = tokio::time::sleep(POLL_EVERY) => {}
            _ = interrupt.wait() => return Err(Error::Interrupted),
        }
    }
}

/// The schema's total must be this driver's.
fn check_total<S: Split>(work: &S, ledger: &Ledger) -> Result<()> {
    if ledger.total() == work.total() {
        return Ok(());
    }
    Err(Error::SplitRefused {
        why: format!(
            "the schema being built in database {} has {} {} ({LEDGER}), but {} is {}: set \
             it to {}",
            work.dbname(),
            ledger.total(),
            work.units().plural,
            work.total_key(),
            work.total(),
            ledger.total()
        ),
    })
}

/// Claims `share` with the ledger held: the rows of dead drivers it takes over, or the
/// refusal.
async fn claim(conn: &mut ScriptConn, me: &Me, share: Share, units: &Units) -> Result<Vec<Row>> {
    locked(conn, async |conn, ledger| {
        let taken = ledger
            .claim(share, units)
            .map_err(|why| Error::SplitRefused { why })?;
        for r in &taken {
            let (first, token) = (r.share.first.to_string(), r.token.to_string());
            let sql = statement("drop_share", &[("first", &first), ("token", &token)]);
            conn.execute(&sql).await?;
        }
        insert(conn, me, share, State::Loading, "").await?;
        Ok(taken)
    })
    .await
}

/// The creator's ledger: the table, the schema's row with the facts, and its own share's.
async fn create_ledger(
    conn: &mut ScriptConn,
    me: &Me,
    share: Share,
    total: u32,
    facts: &str,
) -> Result<()> {
    bounded(async {
        // PostgreSQL makes the table and its rows in one transaction; MariaDB/MySQL commits
        // the CREATE TABLE by itself, and a driver that finds the table without its schema
        // row waits on.
        conn.begin().await?;
        let r = async {
            conn.execute(&statement("create", &[])).await?;
            let schema = Share {
                first: 0,
                last: total,
            };
            insert(conn, me, schema, State::Loading, facts).await?;
            insert(conn, me, share, State::Loading, "").await
        }
        .await;
        match r {
            Ok(()) => {
                conn.execute("COMMIT").await?;
                Ok(())
            }
            Err(e) => {
                let _ = conn.execute("ROLLBACK").await;
                Err(e)
            }
        }
    })
    .await
}

/// `checkschema`'s verdict on a split build that is not complete: what is missing, who is
/// loading, and how to resume; `None` for a schema built whole or a split one completed.
pub fn verdict(ledger: &Ledger, units: &Units) -> Option<String> {
    if ledger.schema.state == State::Complete {
        return None;
    }
    let gaps = ledger.gaps();
    if gaps.is_empty() {
        return Some(format!(
            "every share is loaded but the keys are not added yet ({} by {})",
            ledger.schema.state.word(),
            ledger.schema.who()
        ));
    }
    let mut parts = Vec::new();
    for g in &gaps {
        let mut text = g.describe(units, ledger.total());
        if g.row.as_ref().is_none_or(|r| !r.live()) {
            text.push_str(&format!(" (resume: {})", (units.resume)(g.share)));
        }
        parts.push(text);
    }
    Some(format!(
        "incomplete, without keys yet: {}",
        parts.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units() -> Units {
        Units {
            name: Box::new(|s: Share, total| {
                if s.first == s.last {
                    format!("warehouse {} of {total}", s.first)
                } else {
                    format!("warehouses {}-{} of {total}", s.first, s.last)
                }
            }),
            resume: Box::new(|s: Share| {
                format!(
                    "diset tpcc pg_first_ware {}; diset tpcc pg_owned_ware {}; buildschema",
                    s.first,
                    s.last - s.first + 1
                )
            }),
            creator: "the driver of warehouse 1",
            plural: "warehouses",
        }
    }

    fn row(first: u32, last: u32, state: State, stale: bool) -> Row {
        Row {
            share: Share { first, last },
            state,
            host: "db1".into(),
            pid: u64::from(first) + 100,
            token: i64::from(first) + 1,
            started: "2026-12-04 13:00:01".into(),
            ended: (state == State::Loaded).then(|| "2026-12-04 13:00:40".to_string()),
            stale,
            facts: String::new(),
        }
    }

    fn ledger(total: u32, shares: Vec<Row>) -> Ledger {
        Ledger {
            schema: row(0, total, State::Loading, false),
            shares,
        }
    }

    #[test]
    fn gaps_are_the_units_not_loaded_with_who_is_on_them() {
        let l = ledger(
            10,
            vec![
                row(1, 2, State::Loaded, false),
                row(3, 4, State::Loading, true),
                row(7, 8, State::Loading, false),
            ],
        );
        let gaps: Vec<(u32, u32, Option<State>)> = l
            .gaps()
            .iter()
            .map(|g| (g.share.first, g.share.last, g.row.as_ref().map(|r| r.state)))
            .collect();
        assert_eq!(
            gaps,
            [
                (3, 4, Some(State::Loading)),
                (5, 6, None),
                (7, 8, Some(State::Loading)),
                (9, 10, None)
            ]
        );
        assert!(!l.complete() && l.live());
        let u = units();
        let said: Vec<String> = l.gaps().iter().map(|g| g.describe(&u, 10)).collect();
        assert_eq!(
            said[0],
            "warehouses 3-4 of 10: left unfinished by host db1 pid 103, which has given no \
             heartbeat for over 30 s"
        );
        assert_eq!(said[1], "warehouses 5-6 of 10: not started by any driver");
        assert!(said[2].starts_with("warehouses 7-8 of 10: loading by host db1 pid 107 since"));
        let whole = ledger(
            4,
            vec![
                row(1, 2, State::Loaded, false),
                row(3, 4, State::Loaded, true),
            ],
        );
        assert!(whole.complete() && !whole.live());
        assert_eq!(
            whole.loaded_by(&u),
            [
                "warehouses 1-2 of 4: loaded by host db1 pid 101 from 2026-12-04 13:00:01 to \
                 2026-12-04 13:00:40",
                "warehouses 3-4 of 4: loaded by host db1 pid 103 from 2026-12-04 13:00:01 to \
                 2026-12-04 13:00:40"
            ]
        );
    }

    #[test]
    fn a_claim_takes_over_dead_shares_inside_it_and_refuses_the_rest() {
        let u = units();
        let l = ledger(
            8,
            vec![
                row(1, 2, State::Loaded, false),
                row(3, 4, State::Loading, true),
                row(5, 6, State::Failed, false),
                row(7, 8, State::Loading, false),
            ],
        );
        let taken = l.claim(Share { first: 3, last: 6 }, &u).unwrap();
        assert_eq!(
            taken.iter().map(|r| r.share.first).collect::<Vec<_>>(),
            [3, 5]
        );
        let e = l.claim(Share { first: 2, last: 2 }, &u).unwrap_err();
        assert_eq!(
            e,
            "warehouses 1-2 of 8 are loaded already, by host db1 pid 101"
        );
        let e = l.claim(Share { first: 8, last: 8 }, &u).unwrap_err();
        assert!(
            e.starts_with("warehouses 7-8 of 8 are being loaded by host db1 pid 107"),
            "{e}"
        );
        let e = l.claim(Share { first: 4, last: 4 }, &u).unwrap_err();
        assert!(
            e.ends_with(
                "resume them as one share, with diset tpcc pg_first_ware 3; diset tpcc \
                 pg_owned_ware 2; buildschema"
            ),
            "{e}"
        );
        let mut done = l.clone();
        done.schema.state = State::Complete;
        assert!(done
            .claim(Share { first: 3, last: 4 }, &u)
            .unwrap_err()
            .contains("the schema is complete"));
    }

    #[test]
    fn the_ledger_is_read_from_its_rows_as_text() {
        let cells = |v: &[Option<&str>]| v.iter().map(|c| c.map(str::to_string)).collect();
        let rows: Rows = vec![
            cells(&[
                Some("0"),
                Some("4"),
                Some("loading"),
                Some("db1"),
                Some("7"),
                Some("99"),
                Some("2026-12-04 13:00:01"),
                None,
                Some("0"),
                Some("c_last=1"),
            ]),
            cells(&[
                Some("3"),
                Some("4"),
                Some("failed"),
                Some("db2"),
                Some("8"),
                Some("98"),
                Some("2026-12-04 13:00:02"),
                Some("2026-12-04 13:00:09"),
                Some("1"),
                Some(""),
            ]),
        ];
        let l = Ledger::of(&rows).unwrap();
        assert_eq!(l.total(), 4);
        assert_eq!(l.schema.facts, "c_last=1");
        assert_eq!(l.shares[0].state, State::Failed);
        assert!(l.shares[0].stale);
        // Without the schema's row there is no ledger yet.
        assert!(Ledger::of(&rows[1..].to_vec()).is_none());
        let u = units();
        let v = verdict(&l, &u).unwrap();
        assert!(
            v.contains("warehouses 1-2 of 4: not started by any driver (resume: diset")
                && v.contains(
                    "warehouses 3-4 of 4: left unfinished by host db2 pid 8, which stopped"
                ),
            "{v}"
        );
    }

    #[test]
    fn values_in_the_ledgers_sql_are_plain() {
        assert_eq!(text_value("db-1.example.com", 255), "db-1.example.com");
        assert_eq!(text_value("it's; DROP", 255), "it_s_ DROP");
        assert_eq!(text_value("abcdef", 3), "abc");
        let me = Me::new();
        assert!(me.token > 0 && me.token < (1 << 53) + 1);
        for name in SQL.names() {
            assert!(!statement(name, &[]).is_empty());
        }
        assert_eq!(SQL.names().count(), 11);
    }
}
