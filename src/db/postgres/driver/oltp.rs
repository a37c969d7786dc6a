//! OLTP's statements on PostgreSQL, over hammer's own wire client: each connection prepares
//! the test's statements on every table once (named statements, as sysbench's
//! prepared-statement mode does), then runs each as one Bind/Execute/Sync round trip.

use crate::config::Settings;
use crate::db::net::sock::KillSwitch;
use crate::db::postgres::dialect::PgDialect;
use crate::db::postgres::wire::{self as pgwire, Wire};
use crate::db::postgres::PgTarget;
use crate::endpoint::{Destination, Position};
use crate::error::Result;
use crate::fault::{Failure, Peer};
use crate::oltp::db::{slot, sql, Arg, Call, OltpDb, Placeholders, Prepared, SLOTS_PER_TABLE};
use crate::oltp::events::Statement;

/// SQLSTATE of a duplicate key, which sysbench's PostgreSQL driver ignores as it does
/// deadlocks and serialization failures.
const UNIQUE_VIOLATION: &str = "23505";

/// OLTP's database on PostgreSQL: the schema owner's login, the run's kill switch.
pub struct PgOltpDb {
    owner: PgTarget,
    kill: KillSwitch,
    to: Destination,
}

impl PgOltpDb {
    pub fn new(settings: &Settings, dialect: &'static PgDialect) -> Self {
        let kill = KillSwitch::default();
        let schema = crate::db::postgres::schema::oltp::PgOltp::new(settings, dialect);
        PgOltpDb {
            owner: schema.owner_target().with_kill_switch(&kill),
            kill,
            to: Destination::of(settings, dialect.database),
        }
    }
}

/// A terminal's connection: the wire and its statements' names by slot.
pub struct PgOltpConn {
    wire: Wire,
    peer: Peer,
    names: Vec<String>,
}

fn failed(peer: &Peer, action: &'static str, e: &pgwire::WireError) -> crate::error::Error {
    let (mut kind, detail) = pgwire::classify(e);
    if let pgwire::WireError::Server(s) = e {
        if s.code == UNIQUE_VIOLATION {
            kind = Failure::Retry;
        }
    }
    peer.failed(action, kind, detail).into()
}

impl OltpDb for PgOltpDb {
    type Conn = PgOltpConn;

    async fn connect(&self, at: Position, p: &Prepared) -> Result<PgOltpConn> {
        let owner = self.owner.clone().routed(&self.to.route(at));
        let mut wire = pgwire::open(&owner).await?;
        let peer = Peer {
            addr: wire.addr().to_string(),
            ..owner.peer()
        };
        let mut names = vec![String::new(); p.tables as usize * SLOTS_PER_TABLE];
        let mut texts: Vec<(String, String)> = Vec::new();
        for table in 1..=p.tables {
            for &s in &p.statements {
                if matches!(s, Statement::Begin | Statement::Commit) {
                    continue;
                }
                let name = format!("o{}", slot(s, table));
                texts.push((name.clone(), sql(s, table, p, Placeholders::Numbered)));
                names[slot(s, table)] = name;
            }
        }
        texts.push(("ob".into(), "BEGIN".into()));
        texts.push(("oc".into(), "COMMIT".into()));
        texts.push(("or".into(), "ROLLBACK".into()));
        let named: Vec<(&str, &str)> = texts
            .iter()
            .map(|(n, s)| (n.as_str(), s.as_str()))
            .collect();
        // Many tables make many statements: prepared a few hundred at a time.
        for chunk in named.chunks(256) {
            if let Err(e) = wire.prepare(chunk).await {
                wire.close().await;
                let (kind, detail) = pgwire::classify(&e);
                return Err(peer
                    .failed(
                        "cannot prepare",
                        kind,
                        format!("the OLTP statements: {detail}"),
                    )
                    .into());
            }
        }
        Ok(PgOltpConn { wire, peer, names })
    }

    async fn run(&self, conn: &mut PgOltpConn, call: Call<'_>) -> Result<u64> {
        let name = &conn.names[slot(call.statement, call.table)];
        let mut c = conn.wire.call(name, call.args.len() as i16);
        for a in call.args {
            c = match *a {
                Arg::Int(v) => c.int(v),
                Arg::Text(t) => c.bytes(t),
            };
        }
        match c.run().await {
            Ok(_) => Ok(conn.wire.affected()),
            Err(e) => Err(failed(&conn.peer, "cannot run", &e)),
        }
    }

    async fn begin(&self, conn: &mut PgOltpConn) -> Result<()> {
        match conn.wire.call("ob", 0).run().await {
            Ok(_) => Ok(()),
            Err(e) => Err(failed(&conn.peer, "cannot begin", &e)),
        }
    }

    async fn commit(&self, conn: &mut PgOltpConn) -> Result<()> {
        match conn.wire.call("oc", 0).run().await {
            Ok(_) => Ok(()),
            Err(e) => Err(failed(&conn.peer, "cannot commit", &e)),
        }
    }

    async fn rollback(&self, conn: &mut PgOltpConn) {
        if conn.wire.in_transaction() {
            let _ = conn.wire.call("or", 0).run().await;
        }
    }

    fn node(conn: &PgOltpConn) -> Option<String> {
        Some(conn.peer.addr.clone())
    }

    async fn close(conn: PgOltpConn) {
        conn.wire.close().await
    }

    fn is_blocking(conn: &PgOltpConn) -> bool {
        conn.wire.is_blocking()
    }

    fn into_blocking(conn: PgOltpConn) -> Result<PgOltpConn> {
        let PgOltpConn { wire, peer, names } = conn;
        let wire = wire.into_blocking().map_err(|e| {
            peer.failed(
                "cannot switch to a blocking socket on",
                Failure::Lost,
                e.to_string(),
            )
        })?;
        Ok(PgOltpConn { wire, peer, names })
    }

    fn reply_timeout(&self) -> std::time::Duration {
        self.owner.bounds.reply_timeout
    }

    fn peer(&self, at: Position) -> Peer {
        self.owner.clone().routed(&self.to.route(at)).peer()
    }

    fn cut(&self) -> usize {
        self.kill.cut()
    }
}
