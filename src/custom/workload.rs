//! The custom workload for the virtual-user runtime: a terminal is a virtual user's Rhai
//! engine and scope, its unit one iteration of the script on the terminal's connection.
//!
//! The runtime ([`crate::vu`]) owns the threads, the stop, reconnecting and the statistics,
//! as for TPROC-C. An uncaught error in the script fails its virtual user (HammerDB's custom
//! scripts do the same); a lost connection is reconnected and the next iteration runs.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rhai::{Engine, EvalAltResult, Scope};

use super::conn::{engine, Ctx, Handle};
use super::result::{CustomResult, TYPE_NAMES};
use super::CustomScript;
use crate::config::{Database, Settings};
use crate::endpoint::{Destination, Position};
use crate::error::{Error, Result};
use crate::fault::Peer;
use crate::interrupt::Interrupt;
use crate::sql::ScriptConn;
use crate::vu::{NoMonitor, Place, RunOptions, Say, StateSink, Workload};

/// How many virtual users run the script, how often and how far apart (`vuset`).
pub struct Plan {
    pub virtual_users: u32,
    pub iterations: u32,
    pub user_delay: Duration,
    pub repeat_delay: Duration,
}

/// A user's script on a database: the workload the runtime drives.
struct Custom {
    script: CustomScript,
    settings: Settings,
    db: Database,
    ctx: Arc<Ctx>,
    /// Virtual user 1's output, to speak as any virtual user.
    say: Say,
    iterations: u32,
    repeat_delay: Duration,
}

/// A terminal's connection: its statements run on the session's runtime (see `conn`).
struct Conn {
    conn: Option<ScriptConn>,
    ctx: Arc<Ctx>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        if self.conn.take().is_some() {
            self.ctx.open.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// One virtual user's script: its engine, its scope (kept between iterations, as a
/// HammerDB virtual user's interpreter is) and where it is in its iterations.
struct Terminal {
    engine: Engine,
    scope: Scope<'static>,
    handle: Handle,
    iteration: u32,
}

/// The one unit a custom script has.
#[derive(Clone, Copy)]
struct Iteration;

/// Where the custom run's connection at `at` goes and as whom, for the messages about it:
/// the host and port of that position's endpoint.
fn peer_of(settings: &Settings, db: Database, at: Position) -> Peer {
    let to = Destination::of(settings, db);
    let at = to.for_position(at);
    Peer {
        db,
        addr: format!("{}:{}", at.host, at.port),
        user: settings.db(db).get(&db.key("user")).to_string(),
    }
}

impl Workload for Custom {
    type Conn = Conn;
    type Terminal = Terminal;
    type Unit = Iteration;
    type Done = ();
    type Plan = ();
    type Monitor = NoMonitor;

    fn type_names(&self) -> &'static [&'static str] {
        &TYPE_NAMES
    }

    fn unit_word(&self) -> &'static str {
        "iteration"
    }

    fn index(_: Iteration) -> usize {
        0
    }

    async fn prepare(&self) -> Result<()> {
        Ok(())
    }

    fn monitor(&self) -> Option<&NoMonitor> {
        None
    }

    fn connect(&self, at: Position) -> impl std::future::Future<Output = Result<Conn>> + Send {
        let (ctx, settings, db) = (self.ctx.clone(), self.settings.clone(), self.db);
        async move {
            if ctx.cut.is_set() {
                return Err(Error::StoppedConnecting);
            }
            // Opened on the session's runtime, which drives the connection's sockets.
            let made = ctx
                .rt
                .spawn(async move { crate::db::engine(db).script_conn(&settings, at).await });
            let conn = made.await.map_err(|why| Error::TaskFailed {
                task: "connecting",
                why,
            })??;
            ctx.open.fetch_add(1, Ordering::Relaxed);
            Ok(Conn {
                conn: Some(conn),
                ctx,
            })
        }
    }

    fn close(mut conn: Conn) -> impl std::future::Future<Output = ()> + Send {
        let open = conn.conn.take();
        let ctx = conn.ctx.clone();
        async move {
            if let Some(c) = open {
                ctx.open.fetch_sub(1, Ordering::Relaxed);
                let closing = ctx.rt.spawn(c.close());
                // A server that does not answer the goodbye is not waited for.
                let _ = tokio::time::timeout(Duration::from_secs(5), closing).await;
            }
        }
    }

    fn reply_timeout(&self) -> Duration {
        self.ctx.reply_timeout
    }

    fn peer(&self, at: Position) -> Peer {
        peer_of(&self.settings, self.db, at)
    }

    fn cut(&self) -> usize {
        self.ctx.cut.fire();
        self.ctx.open.load(Ordering::Relaxed)
    }

    fn terminal(&self, _: &(), place: Place, _: SmallRng) -> Terminal {
        // No monitor: worker N is virtual user N.
        let vu = place.worker as usize;
        // A custom virtual user runs one terminal: its position is its place's.
        let handle = Handle::new(self.ctx.clone(), self.peer(place.position(1)));
        let mut scope = Scope::new();
        scope.push_constant("VUSER", vu as rhai::INT);
        scope.push_constant("DB", handle.clone());
        scope.push("ITERATION", 0 as rhai::INT);
        Terminal {
            engine: engine(Some(self.say.as_vuser(vu)), Some(self.ctx.cut.clone())),
            scope,
            handle,
            iteration: 0,
        }
    }

    fn next(&self, t: &mut Terminal, _: &Say) -> Option<Iteration> {
        (t.iteration < self.iterations).then(|| {
            t.iteration += 1;
            Iteration
        })
    }

    async fn execute(&self, conn: &mut Conn, _: Iteration, t: &mut Terminal) -> Result<()> {
        let Some(c) = conn.conn.take() else {
            return Err(Error::Db(t.handle.lost("the connection was closed")));
        };
        t.handle.put(c);
        t.scope.set_value("ITERATION", t.iteration as rhai::INT);
        let Terminal { engine, scope, .. } = t;
        let ast = &*self.script.ast;
        let mut run = || engine.run_ast_with_scope(scope, ast);
        // The script blocks its thread while it runs: on a thread of its own that is its
        // own runtime's only thread; on the shared runtime the others are told first.
        let ran = match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
            Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(run),
            _ => run(),
        };
        keep_latest(&mut t.scope);
        match t.handle.take() {
            Ok(c) => conn.conn = Some(c),
            // The runtime reconnects, whatever the script made of the lost statement.
            Err(gone) => return Err(Error::Db(gone)),
        }
        ran.map_err(|e| {
            if matches!(*e, EvalAltResult::ErrorTerminated(..)) {
                // The stopping run's cut ended the script: the runtime counts it abandoned.
                return Error::Db(t.handle.lost("the run stopped while the script ran"));
            }
            let p = e.position();
            let line = p.line().unwrap_or(0);
            let mut message = match *e {
                EvalAltResult::ErrorRuntime(ref v, _) => v.to_string(),
                ref other => other.to_string(),
            };
            if self.script.called_a_pointer(&e, line) {
                message.push_str(
                    "; Rhai keeps `call` for function pointers: call a procedure with \
                     DB.callproc(name, [args]), a function with DB.callfunc(name, [args])",
                );
            }
            Error::ScriptFailed {
                path: self.script.path.display().to_string(),
                line,
                column: p.position().unwrap_or(0),
                message,
            }
        })
    }

    fn rolled_back(_: &()) -> bool {
        false
    }

    fn think(&self, t: &mut Terminal, _: Iteration) -> Option<Duration> {
        (t.iteration < self.iterations && !self.repeat_delay.is_zero()).then_some(self.repeat_delay)
    }
}

/// Keeps one entry per name in a scope, the latest. Each run of a script adds its top-level
/// `let`s to the scope again, shadowing the last iteration's; without this a virtual user's
/// scope (and each variable lookup) would grow with every iteration.
pub(super) fn keep_latest(scope: &mut Scope<'static>) {
    let mut seen = std::collections::HashSet::new();
    if scope.iter_raw().all(|(name, ..)| seen.insert(name)) {
        return;
    }
    // The values move, not copy: a variable may hold a large result.
    let mut seen = std::collections::HashSet::new();
    let mut latest: Vec<(String, rhai::Dynamic)> = std::mem::take(scope)
        .into_iter()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .filter(|(name, ..)| seen.insert(name.clone()))
        .map(|(name, value, _)| (name, value))
        .collect();
    latest.reverse();
    for (name, value) in latest {
        if value.is_read_only() {
            scope.push_constant_dynamic(name, value);
        } else {
            scope.push_dynamic(name, value);
        }
    }
}

/// Runs the script in every virtual user, `plan.iterations` times each, on the runtime that
/// also runs TPROC-C; `rt` is the session's multi-thread runtime, where the connections live.
#[allow(clippy::too_many_arguments)]
pub async fn run(
    script: &CustomScript,
    settings: &Settings,
    db: Database,
    plan: Plan,
    say: Say,
    states: StateSink,
    interrupt: Interrupt,
    rt: tokio::runtime::Handle,
) -> Result<CustomResult> {
    let reply_secs = settings.db(db).get_i64(&db.key("reply_timeout")).max(1) as u64;
    let ctx = Arc::new(Ctx {
        rt,
        reply_timeout: Duration::from_secs(reply_secs),
        cut: Interrupt::default(),
        open: Default::default(),
    });
    let opts = RunOptions {
        virtual_users: plan.virtual_users,
        user_delay: plan.user_delay,
        terminals: 1,
        login_delay: Duration::ZERO,
        pool: 0,
        // An uncaught error in the script ends its virtual user.
        raise_error: true,
        reconnect_for: crate::vu::script::reconnect_for()?,
        time_profile: false,
        rampup: Duration::ZERO,
        duration: Duration::ZERO,
        refresh: crate::vu::script::VuGlobals::read(settings).refresh,
        window: None,
    };
    let w = Arc::new(Custom {
        script: script.clone(),
        settings: settings.clone(),
        db,
        ctx,
        say: say.clone(),
        iterations: plan.iterations,
        repeat_delay: plan.repeat_delay,
    });
    let cpu_before = crate::vu::stats::process_cpu();
    let started = Instant::now();
    let o = crate::vu::run(w, opts, say, states, interrupt).await?;
    let elapsed = started.elapsed();
    let client_cpu = crate::vu::stats::process_cpu()
        .zip(cpu_before)
        .map(|(after, before)| after.saturating_sub(before));
    Ok(CustomResult {
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
