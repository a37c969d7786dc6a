//! The PostgreSQL jobs store's connection: a thread of its own running a private
//! current-thread tokio runtime, which owns the connection; callers hand it calls through a
//! channel and wait for the answer with a bound.
//!
//! Why a thread: the store's API is synchronous, and it is called from the console's thread,
//! the recorder's writer thread and tests, some of which may be inside the session's runtime,
//! where neither `block_on` nor the `postgres` crate may be called. The thread's runtime is
//! nobody else's, so blocking on it is always sound.
//!
//! Every wait is bounded: connecting by [`CONNECT_BOUND`] (or the string's
//! `connect_timeout`), each call by [`CALL_BOUND`] (its statements share one deadline, which
//! the server also enforces as `statement_timeout`). A connection that timed out or broke is
//! dropped and made again at the next call; a transaction that lost its connection before its
//! COMMIT was sent is run once more on a new one.

use std::collections::HashMap;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Row, Statement};

use super::StoreError;
use crate::conninfo::Conninfo;
use crate::db::net::sock::Bounds;
use crate::db::postgres::{PgConn, PgTarget};
use crate::fault::Failure;

/// How long connecting may take unless the connection string's `connect_timeout` says.
pub const CONNECT_BOUND: Duration = Duration::from_secs(5);
/// How long one call (a transaction, or a read) may take, all its statements together.
pub const CALL_BOUND: Duration = Duration::from_secs(10);
/// What the caller waits beyond the worker's own bounds before giving up on it.
const SLACK: Duration = Duration::from_secs(2);

/// Why a call failed.
#[derive(Debug, Clone)]
pub struct Fail {
    pub what: String,
    /// The connection broke (or never was): nothing of the call reached the server after it.
    pub lost: bool,
    /// The server's SQLSTATE, when it answered with an error.
    pub code: Option<SqlState>,
}

impl Fail {
    fn new(what: impl Into<String>, lost: bool) -> Fail {
        Fail {
            what: what.into(),
            lost,
            code: None,
        }
    }
}

pub type Done<T> = Result<T, Fail>;

type Call = Box<dyn FnOnce(&mut Conn) + Send>;

/// The store's handle on its connection thread.
pub struct Link {
    calls: Option<mpsc::Sender<Call>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The connection string without its password, for messages.
    shown: String,
    /// The longest a call may take on the thread, connecting included.
    bound: Duration,
}

impl Link {
    /// Starts the thread (it connects at the first call).
    pub fn start(c: &Conninfo) -> Result<Link, StoreError> {
        let connect_bound = c.connect_timeout.map_or(CONNECT_BOUND, Duration::from_secs);
        let target = target_of(c);
        let shown = c.shown();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| error(&shown, format!("cannot start its runtime: {e}")))?;
        let (tx, rx) = mpsc::channel::<Call>();
        let thread = std::thread::Builder::new()
            .name("hammer-jobs-pg".into())
            .spawn(move || {
                let mut conn = Conn {
                    rt,
                    target,
                    connect_bound,
                    live: None,
                    deadline: Instant::now(),
                    held: Vec::new(),
                    in_tx: false,
                };
                while let Ok(call) = rx.recv() {
                    conn.deadline = Instant::now() + CALL_BOUND;
                    call(&mut conn);
                }
                conn.close();
            })
            .map_err(|e| error(&shown, format!("cannot start its thread: {e}")))?;
        Ok(Link {
            calls: Some(tx),
            thread: Some(thread),
            shown,
            bound: connect_bound + CALL_BOUND + SLACK,
        })
    }

    /// Runs `f` on the connection's thread and waits for its answer, at most the bound.
    pub fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Conn) -> Done<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let (tx, rx) = mpsc::sync_channel(1);
        let sent = self.calls.as_ref().map(|calls| {
            calls.send(Box::new(move |conn: &mut Conn| {
                let _ = tx.send(f(conn));
            }))
        });
        if !matches!(sent, Some(Ok(()))) {
            return Err(error(&self.shown, "its connection thread has ended"));
        }
        match rx.recv_timeout(self.bound) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(fail)) => Err(error(&self.shown, fail.what)),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(error(
                &self.shown,
                format!("no answer within {} s", self.bound.as_secs()),
            )),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Err(error(&self.shown, "its connection thread has ended"))
            }
        }
    }
}

impl Drop for Link {
    /// The thread ends after the call it runs (each bounded), closing its connection.
    fn drop(&mut self) {
        drop(self.calls.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn error(shown: &str, what: impl Into<String>) -> StoreError {
    StoreError {
        path: shown.to_string(),
        what: what.into(),
        busy: false,
        full: false,
    }
}

/// The login a connection string names, through the same connection code as the benchmark's
/// own PostgreSQL logins (TLS per `sslmode`, `require_auth`, the password file).
fn target_of(c: &Conninfo) -> PgTarget {
    PgTarget {
        db: crate::config::Database::Pg,
        host: c.host.clone(),
        port: c.port,
        also: Vec::new(),
        attrs: crate::endpoint::SessionAttrs::Any,
        user: c.user.clone(),
        password: c.password.clone().unwrap_or_default(),
        dbname: c.dbname.clone(),
        sslmode: c.sslmode.clone(),
        sslrootcert: c.sslrootcert.clone(),
        require_auth: c.require_auth.clone(),
        bounds: Bounds {
            reply_timeout: CALL_BOUND,
            ..Bounds::default()
        },
    }
}

/// The messages of the shared connection code name the `pg` dictionary's keys; for the jobs
/// store the same settings are parts of `jobs_store`.
fn in_store_words(detail: &str) -> String {
    let mut d = detail.to_string();
    for key in [
        "sslmode",
        "sslrootcert",
        "require_auth",
        "host",
        "reply_timeout",
    ] {
        d = d.replace(&format!("pg_{key}"), &format!("{key} (in jobs_store)"));
    }
    d
}

/// Runs `work` on the thread's runtime until `until` (the timer made inside the runtime,
/// whose clock it needs).
fn within<F: std::future::Future>(
    rt: &tokio::runtime::Runtime,
    until: Instant,
    work: F,
) -> Result<F::Output, tokio::time::error::Elapsed> {
    rt.block_on(async move {
        tokio::time::timeout_at(tokio::time::Instant::from_std(until), work).await
    })
}

/// A connection made, with its prepared statements.
struct Live {
    conn: PgConn,
    statements: HashMap<String, Statement>,
}

/// The connection as a call sees it, on the connection's thread.
pub struct Conn {
    rt: tokio::runtime::Runtime,
    target: PgTarget,
    connect_bound: Duration,
    live: Option<Live>,
    /// When the current call must be done.
    deadline: Instant,
    /// Session locks this connection holds (the running jobs it recorded), taken again on a
    /// new connection.
    held: Vec<i64>,
    /// Inside a transaction: a lost connection is not made again until it ends.
    in_tx: bool,
}

impl Conn {
    pub fn user(&self) -> &str {
        &self.target.user
    }

    pub fn dbname(&self) -> &str {
        &self.target.dbname
    }

    /// The connection, made when there is none.
    fn ensure(&mut self) -> Done<()> {
        if self.live.is_some() {
            return Ok(());
        }
        if self.in_tx {
            // The rest of a transaction on a new connection would be committed alone.
            return Err(Fail::new(
                "the connection was lost in the middle of a transaction (rolled back)",
                true,
            ));
        }
        let made = within(
            &self.rt,
            Instant::now() + self.connect_bound,
            crate::db::postgres::connect(&self.target),
        );
        let conn = match made {
            Err(_) => {
                return Err(Fail::new(
                    format!(
                        "cannot connect: no answer within {} s",
                        self.connect_bound.as_secs()
                    ),
                    true,
                ))
            }
            Ok(Err(e)) => {
                let way_out = match e.kind {
                    Failure::UnknownDatabase => format!(
                        "; create it (CREATE DATABASE {}): hammer makes its tables in it",
                        self.target.dbname
                    ),
                    Failure::Auth => "; the password comes from the connection string, \
                                      PGPASSWORD or the password file"
                        .to_string(),
                    _ => String::new(),
                };
                return Err(Fail::new(
                    format!("{}{way_out}", in_store_words(&e.to_string())),
                    true,
                ));
            }
            Ok(Ok(conn)) => conn,
        };
        self.live = Some(Live {
            conn,
            statements: HashMap::new(),
        });
        // The server bounds each statement too, and ends a transaction a vanished client left
        // open; a new connection takes back the locks of the jobs still running.
        let setup = format!(
            "SET statement_timeout = {}; SET idle_in_transaction_session_timeout = {}",
            CALL_BOUND.as_millis(),
            (CALL_BOUND * 3).as_millis()
        );
        self.deadline = Instant::now() + CALL_BOUND;
        self.simple(&setup)?;
        for key in self.held.clone() {
            self.query("SELECT pg_try_advisory_lock($1)", &[&key])?;
        }
        Ok(())
    }

    fn drop_live(&mut self) {
        // The socket's task ends with its client; it is not waited for (the server may be
        // the one not answering).
        self.live = None;
    }

    fn close(&mut self) {
        if let Some(live) = self.live.take() {
            let _ = within(
                &self.rt,
                Instant::now() + Duration::from_secs(2),
                live.conn.close(),
            );
        }
    }

    /// A future's outcome within the call's deadline; a connection that timed out or broke is
    /// dropped.
    fn settle<T>(
        &mut self,
        r: Result<Result<T, tokio_postgres::Error>, tokio::time::error::Elapsed>,
    ) -> Done<T> {
        match r {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => {
                // A server shutting down or terminating the session says so first (SQLSTATE
                // class 57, operator intervention), then closes it.
                let lost = e.is_closed()
                    || crate::db::net::io_source(&e).is_some()
                    || e.code().is_some_and(|c| c.code().starts_with("57P"));
                if lost {
                    self.drop_live();
                }
                let (_, detail) = crate::db::postgres::classify(&e, false);
                let what = match e.as_db_error() {
                    Some(db) => format!("{detail} (SQLSTATE {})", db.code().code()),
                    None if lost => format!("the connection was lost: {detail}"),
                    None => detail,
                };
                Err(Fail {
                    what,
                    lost,
                    code: e.code().cloned(),
                })
            }
            Err(_) => {
                self.drop_live();
                Err(Fail::new(
                    format!(
                        "the server did not answer within {} s",
                        CALL_BOUND.as_secs()
                    ),
                    false,
                ))
            }
        }
    }

    fn until(&self) -> Instant {
        self.deadline
    }

    /// Statements without parameters, in one round trip.
    pub fn simple(&mut self, sql: &str) -> Done<()> {
        self.ensure()?;
        let until = self.until();
        let Some(live) = &self.live else {
            return Err(Fail::new("not connected", true));
        };
        let r = within(&self.rt, until, live.conn.client.batch_execute(sql));
        self.settle(r)
    }

    fn prepared(&mut self, sql: &str) -> Done<Statement> {
        self.ensure()?;
        if let Some(s) = self.live.as_ref().and_then(|l| l.statements.get(sql)) {
            return Ok(s.clone());
        }
        let until = self.until();
        let Some(live) = &self.live else {
            return Err(Fail::new("not connected", true));
        };
        let r = within(&self.rt, until, live.conn.client.prepare(sql));
        let stmt = self.settle(r)?;
        if let Some(live) = &mut self.live {
            live.statements.insert(sql.to_string(), stmt.clone());
        }
        Ok(stmt)
    }

    /// The rows of a statement.
    pub fn query(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Done<Vec<Row>> {
        let stmt = self.prepared(sql)?;
        let until = self.until();
        let Some(live) = &self.live else {
            return Err(Fail::new("not connected", true));
        };
        let r = within(&self.rt, until, live.conn.client.query(&stmt, params));
        self.settle(r)
    }

    /// The rows a statement changed.
    pub fn execute(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Done<u64> {
        let stmt = self.prepared(sql)?;
        let until = self.until();
        let Some(live) = &self.live else {
            return Err(Fail::new("not connected", true));
        };
        let r = within(&self.rt, until, live.conn.client.execute(&stmt, params));
        self.settle(r)
    }

    /// Runs `f` in one transaction (`begin` opens it). A connection made before this call
    /// that turns out to be broken before COMMIT is sent is made again and `f` run once more:
    /// nothing of the first try was committed.
    pub fn transaction<T>(
        &mut self,
        begin: &str,
        mut f: impl FnMut(&mut Conn) -> Done<T>,
    ) -> Done<T> {
        let mut again = self.live.is_some();
        loop {
            let tried = self.simple(begin).and_then(|()| {
                self.in_tx = true;
                f(self)
            });
            let v = match tried {
                Ok(v) => v,
                Err(e) => {
                    if self.live.is_some() && self.simple("ROLLBACK").is_err() {
                        self.drop_live();
                    }
                    self.in_tx = false;
                    if e.lost && again {
                        again = false;
                        continue;
                    }
                    return Err(e);
                }
            };
            // A COMMIT whose answer is lost may have happened: not run again.
            let committed = self.simple("COMMIT");
            self.in_tx = false;
            committed?;
            return Ok(v);
        }
    }

    /// Notes a session lock this connection took, to take it again after a reconnect.
    pub fn hold(&mut self, key: i64) {
        if !self.held.contains(&key) {
            self.held.push(key);
        }
    }

    pub fn holds(&self, key: i64) -> bool {
        self.held.contains(&key)
    }

    pub fn release(&mut self, key: i64) {
        self.held.retain(|k| *k != key);
    }
}
