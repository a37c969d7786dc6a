//! Custom workloads (`customscript FILE.rhai`): every virtual user runs the user's Rhai script
//! with its own database connection, as HammerDB's custom scripts do.
//!
//! The script sees `VUSER` (its virtual user's number), `ITERATION` and `DB`, a connection
//! with `query(sql)` (rows as arrays of strings, `()` for NULL), `execute(sql)` (rows
//! affected), `call(name, [args])`, `begin()`, `commit()` and `rollback()`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rhai::{Array, Dynamic, Engine, EvalAltResult, ImmutableString, Position, Scope, AST};

use crate::config::{Database, Settings};
use crate::db::engine::ScriptConn;
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::vu::{Say, StateSink, VuState};

/// A compiled custom script.
#[derive(Clone)]
pub struct CustomScript {
    pub path: PathBuf,
    pub source: String,
    ast: AST,
}

impl CustomScript {
    /// Reads and compiles the script; a syntax error names `FILE:LINE:COL`.
    pub fn load(path: &Path) -> Result<Self> {
        let source = std::fs::read_to_string(path).map_err(|why| Error::ScriptUnreadable {
            path: path.display().to_string(),
            why,
        })?;
        let ast = engine(None, Interrupt::default())
            .compile(&source)
            .map_err(|e| {
                let p = e.position();
                Error::ScriptSyntax {
                    path: path.display().to_string(),
                    line: p.line().unwrap_or(0),
                    column: p.position().unwrap_or(0),
                    why: Box::new(e.err_type().clone()),
                }
            })?;
        Ok(CustomScript {
            path: path.to_path_buf(),
            source,
            ast,
        })
    }
}

/// The connection a script holds: shared so that Rhai can clone the handle.
#[derive(Clone)]
struct Handle {
    conn: Arc<Mutex<Option<ScriptConn>>>,
    rt: tokio::runtime::Handle,
    /// How long a statement may wait for its reply (`*_reply_timeout`).
    reply_timeout: std::time::Duration,
    /// Ctrl-C ends a statement that waits on the server, too.
    interrupt: Interrupt,
}

type Fallible<T> = std::result::Result<T, Box<EvalAltResult>>;

fn fail(msg: impl ToString) -> Box<EvalAltResult> {
    EvalAltResult::ErrorRuntime(msg.to_string().into(), Position::NONE).into()
}

impl Handle {
    fn conn(&self) -> std::sync::MutexGuard<'_, Option<ScriptConn>> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs a statement's future, bounded by the reply timeout and ended by Ctrl-C; either
    /// leaves the connection in an unknown state, and the caller closes it.
    fn bounded<F: std::future::Future>(&self, work: F) -> std::result::Result<F::Output, String> {
        let (limit, interrupt) = (self.reply_timeout, self.interrupt.clone());
        self.rt.block_on(async {
            tokio::select! {
                r = tokio::time::timeout(limit, work) => r.map_err(|_| format!(
                    "no reply from the server within {} s (the reply timeout); the connection is closed",
                    limit.as_secs_f64()
                )),
                _ = interrupt.wait() => Err("interrupted by Ctrl-C; the connection is closed".to_string()),
            }
        })
    }

    /// Runs `work` on the connection, bounded; a statement cut off closes the connection.
    fn on_conn<T>(
        &self,
        work: impl AsyncFnOnce(&mut ScriptConn) -> std::result::Result<T, crate::db::DbError>,
    ) -> Fallible<T> {
        let mut guard = self.conn();
        let c = guard
            .as_mut()
            .ok_or_else(|| fail("the connection is closed"))?;
        match self.bounded(work(c)) {
            Ok(r) => r.map_err(fail),
            Err(why) => {
                guard.take();
                Err(fail(why))
            }
        }
    }

    fn query(&mut self, sql: &str) -> Fallible<Array> {
        let rows = self.on_conn(async |c| c.query(sql).await)?;
        Ok(rows
            .into_iter()
            .map(|r| {
                Dynamic::from_array(
                    r.into_iter()
                        .map(|v| v.map_or(Dynamic::UNIT, Dynamic::from))
                        .collect(),
                )
            })
            .collect())
    }

    fn execute(&mut self, sql: &str) -> Fallible<rhai::INT> {
        self.on_conn(async |c| c.execute(sql).await)
            .map(|n| n as rhai::INT)
    }

    fn begin(&mut self) -> Fallible<()> {
        self.on_conn(async |c| c.begin().await).map(|_| ())
    }
}

/// An engine for custom scripts: print goes to the virtual user's output, Ctrl-C stops it.
fn engine(say: Option<Say>, interrupt: Interrupt) -> Engine {
    let mut e = Engine::new();
    if let Some(say) = say {
        e.on_print(move |t| say.line(t));
    }
    e.on_progress(move |_| {
        interrupt
            .is_set()
            .then(|| Dynamic::from(ImmutableString::from("interrupted")))
    });
    e.register_type_with_name::<Handle>("Connection")
        .register_fn("query", |h: &mut Handle, sql: &str| h.query(sql))
        .register_fn("execute", |h: &mut Handle, sql: &str| h.execute(sql))
        .register_fn("begin", |h: &mut Handle| h.begin())
        .register_fn("commit", |h: &mut Handle| h.execute("COMMIT").map(|_| ()))
        .register_fn("rollback", |h: &mut Handle| {
            h.execute("ROLLBACK").map(|_| ())
        })
        .register_fn("call", |h: &mut Handle, name: &str, args: Array| {
            let args: Vec<String> = args.iter().map(sql_literal).collect();
            let sql = format!("CALL {name}({})", args.join(", "));
            h.query(&sql)
        });
    e
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

/// How many and how each virtual user runs the script.
pub struct Plan {
    pub virtual_users: u32,
    pub iterations: u32,
    pub user_delay: Duration,
    pub repeat_delay: Duration,
}

/// Runs the script in every virtual user; returns how many finished FAILED.
#[allow(clippy::too_many_arguments)]
pub fn run(
    script: &CustomScript,
    settings: &Settings,
    db: Database,
    plan: &Plan,
    say: &Say,
    states: &StateSink,
    interrupt: &Interrupt,
    rt: &tokio::runtime::Handle,
) -> u32 {
    let failed = std::sync::atomic::AtomicU32::new(0);
    std::thread::scope(|scope| {
        for i in 0..plan.virtual_users {
            let vu = i as usize + 1;
            let vsay = say.as_vuser(vu);
            let failed = &failed;
            scope.spawn(move || {
                let wait = plan.user_delay * i;
                let waited = rt.block_on(async {
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => true,
                        _ = interrupt.wait() => false,
                    }
                });
                if !waited {
                    states(vu, VuState::FinishSuccess);
                    return;
                }
                states(vu, VuState::Running);
                vsay.line("RUNNING");
                match run_one(script, settings, db, plan, &vsay, vu, interrupt, rt) {
                    Ok(()) => {
                        states(vu, VuState::FinishSuccess);
                        vsay.line("FINISHED SUCCESS");
                    }
                    Err(msg) => {
                        failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        states(vu, VuState::FinishFailed);
                        say.line(format!("Error in Virtual User {vu}: {msg}"));
                        vsay.line("FINISHED FAILED");
                    }
                }
            });
        }
    });
    failed.into_inner()
}

#[allow(clippy::too_many_arguments)]
fn run_one(
    script: &CustomScript,
    settings: &Settings,
    db: Database,
    plan: &Plan,
    say: &Say,
    vu: usize,
    interrupt: &Interrupt,
    rt: &tokio::runtime::Handle,
) -> std::result::Result<(), String> {
    let conn = rt.block_on(async {
        tokio::select! {
            c = crate::db::engine(db).script_conn(settings) => c.map_err(|e| e.to_string()),
            _ = interrupt.wait() => Err("interrupted by Ctrl-C while connecting".to_string()),
        }
    })?;
    let reply_secs = settings
        .db(db)
        .get_i64(&format!("{}_reply_timeout", db.prefix()))
        .max(1) as u64;
    let handle = Handle {
        conn: Arc::new(Mutex::new(Some(conn))),
        rt: rt.clone(),
        reply_timeout: std::time::Duration::from_secs(reply_secs),
        interrupt: interrupt.clone(),
    };
    let engine = engine(Some(say.clone()), interrupt.clone());
    let mut scope = Scope::new();
    scope.push_constant("VUSER", vu as rhai::INT);
    scope.push_constant("DB", handle.clone());
    scope.push("ITERATION", 1 as rhai::INT);
    let mut outcome = Ok(());
    for iteration in 1..=plan.iterations {
        if interrupt.is_set() {
            break;
        }
        scope.set_value("ITERATION", iteration as rhai::INT);
        if let Err(e) = engine.run_ast_with_scope(&mut scope, &script.ast) {
            if matches!(*e, EvalAltResult::ErrorTerminated(..)) {
                break;
            }
            let p = e.position();
            let msg = match *e {
                EvalAltResult::ErrorRuntime(ref v, _) => v.to_string(),
                ref other => other.to_string(),
            };
            outcome = Err(format!(
                "{}:{}:{}: {msg}",
                script.path.display(),
                p.line().unwrap_or(0),
                p.position().unwrap_or(0)
            ));
            break;
        }
        if iteration < plan.iterations && !plan.repeat_delay.is_zero() {
            std::thread::sleep(plan.repeat_delay);
        }
    }
    let conn = handle.conn.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(c) = conn {
        rt.block_on(c.close());
    }
    outcome
}
