//! The connection a custom script holds as `DB`, and the Rhai engine that knows it.
//!
//! A script runs synchronously on its virtual user's thread, inside that thread's own
//! runtime, which therefore cannot drive the connection's sockets while the script waits.
//! The connection lives on the session's multi-thread runtime instead: each statement is
//! handed to it as a task, bounded by the reply timeout and by the stopping run's cut, and
//! the script's thread waits for the task's answer.
//!
//! Rhai keeps the name `call` for function pointers: `DB.call(..)` and `call(DB, ..)` are
//! both read as calls of a function pointer before any registered function is looked at (see
//! the test `call_is_taken_by_rhai`), so procedures are called with `callproc` and functions
//! with `callfunc`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rhai::{Array, Dynamic, Engine, EvalAltResult, ImmutableString, Position};

use crate::fault::{DbError, Failure, Peer};
use crate::interrupt::Interrupt;
use crate::sql::{Rows, ScriptConn};
use crate::vu::Say;

/// What every connection of a run shares: the runtime its statements run on, their bound,
/// the cut and how many connections are open. Where each goes is its [`Handle`]'s.
pub(super) struct Ctx {
    pub rt: tokio::runtime::Handle,
    /// How long a statement may wait for its reply (`*_reply_timeout`).
    pub reply_timeout: Duration,
    /// Fired by the stopping run: statements still waiting are given up, scripts end.
    pub cut: Interrupt,
    pub open: AtomicUsize,
}

/// A connection that is gone, said as the databases' own failures are.
fn lost(peer: &Peer, why: impl Into<String>) -> DbError {
    peer.failed("gave up waiting for", Failure::Lost, why)
}

/// The connection as Rhai holds it (`DB`): shared so that Rhai can clone the handle. Between
/// two iterations its slot is empty; the workload puts the terminal's connection in for one.
#[derive(Clone)]
pub(super) struct Handle {
    slot: Arc<Mutex<Slot>>,
    ctx: Arc<Ctx>,
    /// The server and login of its virtual user's connection, for messages about it.
    peer: Arc<Peer>,
}

#[derive(Default)]
struct Slot {
    conn: Option<ScriptConn>,
    /// Why the connection went away during this iteration, if it did.
    gone: Option<DbError>,
}

type Fallible<T> = std::result::Result<T, Box<EvalAltResult>>;

fn fail(msg: impl ToString) -> Box<EvalAltResult> {
    EvalAltResult::ErrorRuntime(msg.to_string().into(), Position::NONE).into()
}

/// A statement for the connection's task.
enum Op {
    Query(String),
    Execute(String),
    Begin,
}

enum Reply {
    Rows(Rows),
    Count(u64),
}

async fn perform(conn: &mut ScriptConn, op: Op) -> Result<Reply, DbError> {
    match op {
        Op::Query(sql) => conn.query(&sql).await.map(Reply::Rows),
        Op::Execute(sql) => conn.execute(&sql).await.map(Reply::Count),
        Op::Begin => conn.begin().await.map(Reply::Count),
    }
}

impl Handle {
    /// The handle of a virtual user whose connection goes to `peer`.
    pub fn new(ctx: Arc<Ctx>, peer: Peer) -> Self {
        Handle {
            slot: Arc::default(),
            ctx,
            peer: Arc::new(peer),
        }
    }

    /// Its connection is gone, said as the databases' own failures are.
    pub fn lost(&self, why: impl Into<String>) -> DbError {
        lost(&self.peer, why)
    }

    fn slot(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Gives the handle a connection for one iteration.
    pub fn put(&self, conn: ScriptConn) {
        let mut s = self.slot();
        s.conn = Some(conn);
        s.gone = None;
    }

    /// Takes the connection back after an iteration: `Err` with why when it went away.
    pub fn take(&self) -> Result<ScriptConn, DbError> {
        let mut s = self.slot();
        match (s.conn.take(), s.gone.take()) {
            (Some(c), _) => Ok(c),
            (None, Some(why)) => Err(why),
            (None, None) => Err(self.lost("the connection was closed")),
        }
    }

    /// Runs one statement on the session's runtime and waits for its answer. A statement
    /// that loses its connection, waits past the reply timeout or is cut off by the stopping
    /// run leaves the connection closed.
    fn send(&self, op: Op) -> Fallible<Reply> {
        let conn = self.slot().conn.take();
        let Some(mut conn) = conn else {
            return Err(fail("the connection is closed"));
        };
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let (ctx, peer) = (self.ctx.clone(), self.peer.clone());
        self.ctx.rt.spawn(async move {
            let limit = ctx.reply_timeout;
            let answer = tokio::select! {
                biased;
                _ = ctx.cut.wait() => Err(lost(&peer, "the run stopped while the statement waited")),
                r = tokio::time::timeout(limit, perform(&mut conn, op)) => r.unwrap_or_else(|_| {
                    Err(lost(&peer, format!(
                        "no reply within {} s (the reply timeout)",
                        limit.as_secs_f64()
                    )))
                }),
            };
            let _ = tx.send((conn, answer));
        });
        // The task is bounded by the reply timeout and the cut, so this wait is too; a task
        // that ended without answering drops the sender.
        let Ok((conn, answer)) = rx.recv() else {
            let why = self.lost("the statement's task ended without an answer");
            self.gone(why.clone());
            return Err(fail(why));
        };
        match answer {
            Ok(reply) => {
                self.slot().conn = Some(conn);
                Ok(reply)
            }
            Err(e)
                if matches!(
                    e.kind,
                    Failure::Lost | Failure::Refused | Failure::Unreachable
                ) =>
            {
                drop(conn);
                self.gone(e.clone());
                Err(fail(format!("{e}; the connection is closed")))
            }
            Err(e) => {
                self.slot().conn = Some(conn);
                Err(fail(e))
            }
        }
    }

    fn gone(&self, why: DbError) {
        self.ctx.open.fetch_sub(1, Ordering::Relaxed);
        self.slot().gone = Some(why);
    }

    fn query(&mut self, sql: &str) -> Fallible<Array> {
        match self.send(Op::Query(sql.to_string()))? {
            Reply::Rows(rows) => Ok(rows_of(rows)),
            Reply::Count(_) => Ok(Array::new()),
        }
    }

    fn execute(&mut self, sql: &str) -> Fallible<rhai::INT> {
        match self.send(Op::Execute(sql.to_string()))? {
            Reply::Count(n) => Ok(n as rhai::INT),
            Reply::Rows(_) => Ok(0),
        }
    }

    fn begin(&mut self) -> Fallible<()> {
        self.send(Op::Begin).map(|_| ())
    }

    /// `CALL name(args)`: the procedure's rows (PostgreSQL: its INOUT and OUT parameters;
    /// MariaDB/MySQL: the last result its statements return).
    fn callproc(&mut self, name: &str, args: &Array) -> Fallible<Array> {
        self.query(&routine_call("CALL", name, args)?)
    }

    /// `SELECT name(args)`: the function's value, `()` for NULL.
    fn callfunc(&mut self, name: &str, args: &Array) -> Fallible<Dynamic> {
        let rows = self.query(&routine_call("SELECT", name, args)?)?;
        Ok(rows
            .into_iter()
            .next()
            .and_then(|r| r.into_array().ok()?.into_iter().next())
            .unwrap_or(Dynamic::UNIT))
    }
}

fn rows_of(rows: Rows) -> Array {
    rows.into_iter()
        .map(|r| {
            Dynamic::from_array(
                r.into_iter()
                    .map(|v| v.map_or(Dynamic::UNIT, Dynamic::from))
                    .collect(),
            )
        })
        .collect()
}

/// `VERB name(literal, ...)`; a name that is not a plain (optionally schema-qualified)
/// identifier is refused rather than pasted into SQL.
fn routine_call(verb: &str, name: &str, args: &Array) -> Fallible<String> {
    let plain = |part: &str| {
        let mut chars = part.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    };
    if name.split('.').count() > 2 || !name.split('.').all(plain) {
        return Err(fail(format!(
            "{name:?} is not a routine name: give a name of letters, digits and _ \
             (optionally schema.name)"
        )));
    }
    let args: Vec<String> = args.iter().map(sql_literal).collect();
    Ok(format!("{verb} {name}({})", args.join(", ")))
}

/// A Rhai value as an SQL literal: numbers as they are, strings quoted, `()` as NULL.
fn sql_literal(v: &Dynamic) -> String {
    if v.is_unit() {
        "NULL".into()
    } else if v.is_int() || v.is_float() || v.is_bool() {
        v.to_string()
    } else {
        format!("'{}'", v.to_string().replace('\'', "''"))
    }
}

/// An engine for custom scripts: print goes to the virtual user's output, the stopping
/// run's cut ends a script that is still running.
pub(super) fn engine(say: Option<Say>, cut: Option<Interrupt>) -> Engine {
    let mut e = Engine::new();
    if let Some(say) = say {
        e.on_print(move |t| say.line(t));
    }
    if let Some(cut) = cut {
        e.on_progress(move |_| {
            cut.is_set()
                .then(|| Dynamic::from(ImmutableString::from("the run stopped")))
        });
    }
    e.register_type_with_name::<Handle>("Connection")
        .register_fn("query", |h: &mut Handle, sql: &str| h.query(sql))
        .register_fn("execute", |h: &mut Handle, sql: &str| h.execute(sql))
        .register_fn("begin", |h: &mut Handle| h.begin())
        .register_fn("commit", |h: &mut Handle| h.execute("COMMIT").map(|_| ()))
        .register_fn("rollback", |h: &mut Handle| {
            h.execute("ROLLBACK").map(|_| ())
        })
        .register_fn("callproc", |h: &mut Handle, name: &str, args: Array| {
            h.callproc(name, &args)
        })
        .register_fn("callproc", |h: &mut Handle, name: &str| {
            h.callproc(name, &Array::new())
        })
        .register_fn("callfunc", |h: &mut Handle, name: &str, args: Array| {
            h.callfunc(name, &args)
        })
        .register_fn("callfunc", |h: &mut Handle, name: &str| {
            h.callfunc(name, &Array::new())
        });
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routine_calls_quote_their_arguments_and_refuse_odd_names() {
        let args: Array = vec![
            Dynamic::from(3_i64),
            Dynamic::from("O'Brien"),
            Dynamic::UNIT,
            Dynamic::from(1.5_f64),
        ];
        assert_eq!(
            routine_call("CALL", "audit.p1", &args).unwrap(),
            "CALL audit.p1(3, 'O''Brien', NULL, 1.5)"
        );
        assert_eq!(
            routine_call("SELECT", "f", &Array::new()).unwrap(),
            "SELECT f()"
        );
        for bad in ["p1; drop table t", "", "a.b.c", "1p", "p(1)"] {
            let e = routine_call("CALL", bad, &Array::new()).unwrap_err();
            assert!(
                e.to_string().contains("is not a routine name"),
                "{bad}: {e}"
            );
        }
    }
}
