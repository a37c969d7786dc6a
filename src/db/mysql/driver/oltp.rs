//! OLTP's statements on MariaDB/MySQL, over hammer's own wire client: each connection
//! prepares the test's statements on every table once (server-side prepared statements, as
//! sysbench's default `--db-ps-mode=auto` does), then runs each as one `COM_STMT_EXECUTE`;
//! BEGIN and COMMIT go as plain queries.

use crate::config::Settings;
use crate::db::mysql::dialect::MyDialect;
use crate::db::mysql::wire::{self as mywire, Arg as WireArg, Stmt, Wire};
use crate::db::mysql::MyTarget;
use crate::db::net::sock::KillSwitch;
use crate::endpoint::{Destination, Position};
use crate::error::Result;
use crate::fault::{Failure, Peer};
use crate::oltp::db::{slot, sql, Arg, Call, OltpDb, Placeholders, Prepared, SLOTS_PER_TABLE};
use crate::oltp::events::Statement;

/// A duplicate key (ER_DUP_ENTRY), ignored and the event run again as deadlocks are.
const DUP_ENTRY: u16 = 1062;
/// Record changed since last read (ER_CHECKREAD), in sysbench's default ignore list.
const CHECKREAD: u16 = 1020;

/// OLTP's database on MariaDB/MySQL: the schema user's login, the run's kill switch.
pub struct MyOltpDb {
    schema: MyTarget,
    kill: KillSwitch,
    to: Destination,
}

impl MyOltpDb {
    pub fn new(settings: &Settings, dialect: &'static MyDialect) -> Self {
        let kill = KillSwitch::default();
        let mut schema =
            crate::db::mysql::schema::oltp::MyOltp::new(settings, dialect).schema_target();
        schema.bounds.kill = kill.clone();
        MyOltpDb {
            schema,
            kill,
            to: Destination::of(settings, dialect.database),
        }
    }
}

/// A terminal's connection: the wire and its prepared statements by slot.
pub struct MyOltpConn {
    wire: Wire,
    peer: Peer,
    stmts: Vec<Option<Stmt>>,
}

fn arg<'a>(a: &Arg<'a>) -> WireArg<'a> {
    match *a {
        Arg::Int(v) => WireArg::Int(v),
        Arg::Text(t) => WireArg::Text(t),
    }
}

fn failed(peer: &Peer, action: &'static str, e: mywire::WireError) -> crate::error::Error {
    let kind = if e.code == DUP_ENTRY || e.code == CHECKREAD {
        Failure::Retry
    } else {
        e.kind
    };
    peer.failed(action, kind, e.detail).into()
}

impl OltpDb for MyOltpDb {
    type Conn = MyOltpConn;

    async fn connect(&self, at: Position, p: &Prepared) -> Result<MyOltpConn> {
        let target = self.schema.clone().routed(&self.to.route(at));
        let mut wire = mywire::connect(&target).await?;
        let peer = Peer {
            addr: wire.addr().to_string(),
            ..target.peer()
        };
        let mut stmts = vec![None; p.tables as usize * SLOTS_PER_TABLE];
        for table in 1..=p.tables {
            for &s in &p.statements {
                if matches!(s, Statement::Begin | Statement::Commit) {
                    continue;
                }
                match wire
                    .prepare(&sql(s, table, p, Placeholders::Question))
                    .await
                {
                    Ok(stmt) => stmts[slot(s, table)] = Some(stmt),
                    Err(e) => {
                        wire.close().await;
                        return Err(peer
                            .failed(
                                "cannot prepare",
                                e.kind,
                                format!("the OLTP statements: {}", e.detail),
                            )
                            .into());
                    }
                }
            }
        }
        Ok(MyOltpConn { wire, peer, stmts })
    }

    async fn run(&self, conn: &mut MyOltpConn, call: Call<'_>) -> Result<u64> {
        let Some(stmt) = conn.stmts[slot(call.statement, call.table)] else {
            return Err(conn
                .peer
                .failed("cannot run", Failure::Other, "a statement not prepared")
                .into());
        };
        // Up to four values on the stack (every statement but select_random_*'s).
        let mut few = [WireArg::Null, WireArg::Null, WireArg::Null, WireArg::Null];
        let many: Vec<WireArg<'_>>;
        let args: &[WireArg<'_>] = if call.args.len() <= few.len() {
            for (slot, a) in few.iter_mut().zip(call.args) {
                *slot = arg(a);
            }
            &few[..call.args.len()]
        } else {
            many = call.args.iter().map(arg).collect();
            &many
        };
        match conn.wire.execute_discard(stmt, args).await {
            Ok(affected) => Ok(affected),
            Err(e) => Err(failed(&conn.peer, "cannot run", e)),
        }
    }

    async fn begin(&self, conn: &mut MyOltpConn) -> Result<()> {
        match conn.wire.query("BEGIN").await {
            Ok(_) => Ok(()),
            Err(e) => Err(failed(&conn.peer, "cannot begin", e)),
        }
    }

    async fn commit(&self, conn: &mut MyOltpConn) -> Result<()> {
        match conn.wire.query("COMMIT").await {
            Ok(_) => Ok(()),
            Err(e) => Err(failed(&conn.peer, "cannot commit", e)),
        }
    }

    async fn rollback(&self, conn: &mut MyOltpConn) {
        let _ = conn.wire.query("ROLLBACK").await;
    }

    fn node(conn: &MyOltpConn) -> Option<String> {
        Some(conn.peer.addr.clone())
    }

    async fn close(conn: MyOltpConn) {
        conn.wire.close().await
    }

    fn is_blocking(conn: &MyOltpConn) -> bool {
        conn.wire.is_blocking()
    }

    fn into_blocking(conn: MyOltpConn) -> Result<MyOltpConn> {
        let MyOltpConn { wire, peer, stmts } = conn;
        let wire = wire.into_blocking().map_err(|e| {
            peer.failed(
                "cannot switch to a blocking socket on",
                Failure::Lost,
                e.to_string(),
            )
        })?;
        Ok(MyOltpConn { wire, peer, stmts })
    }

    fn reply_timeout(&self) -> std::time::Duration {
        self.schema.bounds.reply_timeout
    }

    fn peer(&self, at: Position) -> Peer {
        self.schema.clone().routed(&self.to.route(at)).peer()
    }

    fn cut(&self) -> usize {
        self.kill.cut()
    }
}
