//! What the transaction counter reads from a server: the server-wide commit and rollback
//! counters (PostgreSQL `pg_stat_database`, MariaDB/MySQL `Com_commit` + `Com_rollback`), the
//! server's uptime, and TPROC-C's new orders (`sum(d_next_o_id)`) where the schema exists.

use std::time::{Instant, SystemTime};

use tokio_postgres::SimpleQueryMessage;

use super::{DbError, Failure};
use crate::config::{Database, Settings};
use crate::db::mysql::wire::{self as mywire, Arg, Wire};
use crate::db::mysql::{self as my, MyTarget};
use crate::db::postgres::{self as pg, PgConn, PgTarget};

/// One reading of a server's counters.
#[derive(Debug, Clone)]
pub struct Reading {
    /// Cumulative transaction counts by component: one per database oid on PostgreSQL (so a
    /// dropped database does not make the total go back), `Com_commit` and `Com_rollback` on
    /// MariaDB/MySQL.
    pub parts: Vec<(u64, u64)>,
    /// Seconds the server has been up: less than last time means it restarted.
    pub uptime: f64,
    /// `sum(d_next_o_id)` over the TPROC-C districts, where the schema database has them.
    pub new_orders: Option<u64>,
    /// Transactions this reading itself committed (PostgreSQL counts read-only ones).
    pub own: u64,
    /// Midway between sending the query and receiving its answer: when the server looked.
    pub at: Instant,
    pub wall: SystemTime,
}

impl Reading {
    pub fn total(&self) -> u64 {
        self.parts.iter().map(|p| p.1).sum()
    }
}

/// A connection (or two) that reads counters, reconnecting on demand.
pub struct CounterSource {
    db: Database,
    inner: Inner,
}

// One per counter, so the size of the PostgreSQL variant (its clients) does not matter.
#[allow(clippy::large_enum_variant)]
enum Inner {
    Pg {
        /// The superuser on its default database: `pg_stat_database` covers every database.
        admin: PgTarget,
        /// The schema owner on the schema database, for `district`.
        owner: PgTarget,
        stats: Option<PgConn>,
        schema: Option<PgConn>,
    },
    My {
        target: MyTarget,
        /// The schema database, for `district`.
        dbname: String,
        conn: Option<Box<Wire>>,
        district: bool,
    },
}

const PG_COUNTERS: &str =
    "SELECT datid::int8, (coalesce(xact_commit, 0) + coalesce(xact_rollback, 0))::int8, \
     extract(epoch FROM now() - pg_postmaster_start_time())::float8 FROM pg_stat_database";
const PG_NEW_ORDERS: &str = "SELECT coalesce(sum(d_next_o_id), 0)::int8 FROM district";
const MY_COUNTERS: &str =
    "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_rollback', 'Uptime')";

impl CounterSource {
    /// Reads the counters of `db` as its dictionary says: PostgreSQL as `pg_superuser` on
    /// `pg_defaultdbase` (NOPM as `pg_user` on `pg_dbase`), MariaDB/MySQL as `*_user`.
    pub fn new(settings: &Settings, db: Database) -> Self {
        let inner = match db {
            Database::Pg => Inner::Pg {
                admin: PgTarget::admin(settings),
                owner: PgTarget::owner(settings),
                stats: None,
                schema: None,
            },
            Database::Maria | Database::Mysql => Inner::My {
                target: MyTarget::server(settings, db),
                dbname: settings
                    .db(db)
                    .get(&format!("{}_dbase", db.prefix()))
                    .to_string(),
                conn: None,
                district: false,
            },
        };
        CounterSource { db, inner }
    }

    pub fn db(&self) -> Database {
        self.db
    }

    /// `PostgreSQL at 127.0.0.1:5432 as user postgres`, for messages.
    pub fn describe(&self) -> String {
        let peer = match &self.inner {
            Inner::Pg { admin, .. } => admin.peer(),
            Inner::My { target, .. } => target.peer(),
        };
        format!("{} at {} as user {}", self.db.name(), peer.addr, peer.user)
    }

    /// The database whose TPROC-C districts give NOPM.
    pub fn schema_db(&self) -> &str {
        match &self.inner {
            Inner::Pg { owner, .. } => &owner.dbname,
            Inner::My { dbname, .. } => dbname,
        }
    }

    pub fn is_connected(&self) -> bool {
        match &self.inner {
            Inner::Pg { stats, .. } => stats.is_some(),
            Inner::My { conn, .. } => conn.is_some(),
        }
    }

    /// Connects; returns whether the schema database holds TPROC-C districts (then readings
    /// carry new orders). A missing schema is not an error: the counter counts any workload.
    pub async fn connect(&mut self) -> Result<bool, DbError> {
        self.close().await;
        match &mut self.inner {
            Inner::Pg {
                admin,
                owner,
                stats,
                schema,
            } => {
                *stats = Some(pg::connect(admin).await?);
                // The owner's login may not exist (no schema built): then there is no NOPM.
                if let Ok(conn) = pg::connect(owner).await {
                    let found = conn
                        .client
                        .simple_query("SELECT to_regclass('district') IS NOT NULL")
                        .await
                        .ok()
                        .and_then(|m| first_cell(&m, 0))
                        .is_some_and(|v| v == "t");
                    if found {
                        *schema = Some(conn);
                    } else {
                        conn.close().await;
                    }
                }
                Ok(schema.is_some())
            }
            Inner::My {
                target,
                dbname,
                conn,
                district,
            } => {
                let mut c = mywire::connect(target).await?;
                let found = c
                    .exec_rows(
                        "SELECT COUNT(*) FROM information_schema.tables \
                         WHERE table_schema = ? AND table_name = 'district'",
                        &[Arg::Text(dbname.as_bytes())],
                    )
                    .await;
                *district = matches!(&found, Ok(rows) if rows
                    .first()
                    .and_then(|r| r.first())
                    .and_then(my::int_of)
                    .is_some_and(|n| n > 0));
                *conn = Some(Box::new(c));
                Ok(*district)
            }
        }
    }

    /// How long a reading may wait for the server before it counts as lost.
    fn reply_timeout(&self) -> std::time::Duration {
        match &self.inner {
            Inner::Pg { admin, .. } => admin.bounds.reply_timeout,
            Inner::My { target, .. } => target.bounds.reply_timeout,
        }
    }

    /// Reads the counters, connecting first when not connected, within the reply timeout. A
    /// failure leaves the source disconnected; the next call connects again.
    pub async fn read(&mut self) -> Result<Reading, DbError> {
        let limit = self.reply_timeout();
        match tokio::time::timeout(limit, self.read_once()).await {
            Ok(r) => r,
            Err(_) => {
                // The connections are mid-reply: dropped, not closed politely.
                match &mut self.inner {
                    Inner::Pg { stats, schema, .. } => {
                        stats.take();
                        schema.take();
                    }
                    Inner::My { conn, .. } => drop(conn.take()),
                }
                let peer = match &self.inner {
                    Inner::Pg { admin, .. } => admin.peer(),
                    Inner::My { target, .. } => target.peer(),
                };
                Err(peer.failed(
                    "no reply from",
                    Failure::Lost,
                    format!(
                        "the counters' query got no answer within {} s (the reply timeout)",
                        limit.as_secs_f64()
                    ),
                ))
            }
        }
    }

    async fn read_once(&mut self) -> Result<Reading, DbError> {
        if !self.is_connected() {
            self.connect().await?;
        }
        let result = match &mut self.inner {
            Inner::Pg {
                admin,
                stats,
                schema,
                ..
            } => read_pg(admin, stats, schema).await,
            Inner::My {
                target,
                dbname,
                conn,
                district,
            } => read_my(target, dbname, conn, district).await,
        };
        if result.is_err() {
            self.close().await;
        }
        result
    }

    /// Closes the connections.
    pub async fn close(&mut self) {
        match &mut self.inner {
            Inner::Pg { stats, schema, .. } => {
                for slot in [stats, schema] {
                    if let Some(conn) = slot.take() {
                        conn.close().await;
                    }
                }
            }
            Inner::My { conn, .. } => {
                if let Some(c) = conn.take() {
                    c.close().await;
                }
            }
        }
    }
}

fn first_cell(messages: &[SimpleQueryMessage], col: usize) -> Option<String> {
    messages.iter().find_map(|m| match m {
        SimpleQueryMessage::Row(r) => r.get(col).map(str::to_string),
        _ => None,
    })
}

async fn read_pg(
    admin: &PgTarget,
    stats: &mut Option<PgConn>,
    schema: &mut Option<PgConn>,
) -> Result<Reading, DbError> {
    let peer = admin.peer();
    let Some(conn) = stats.as_ref() else {
        return Err(peer.failed("cannot read", Failure::Lost, "not connected"));
    };
    let sent = Instant::now();
    // The simple protocol: one implicit transaction per reading (a prepared statement
    // would add a second), which the counter then subtracts as its own.
    let messages = conn.client.simple_query(PG_COUNTERS).await.map_err(|e| {
        let (kind, detail) = pg::classify(&e, false);
        peer.failed("cannot read counters of", kind, detail)
    })?;
    let received = Instant::now();
    let mut parts = Vec::new();
    let mut uptime = 0.0;
    for m in &messages {
        if let SimpleQueryMessage::Row(r) = m {
            let num = |i: usize| r.get(i).and_then(|v| v.parse::<u64>().ok());
            if let (Some(id), Some(n)) = (num(0), num(1)) {
                parts.push((id, n));
            }
            uptime = r.get(2).and_then(|v| v.parse().ok()).unwrap_or(uptime);
        }
    }
    let mut own = 1;
    let mut new_orders = None;
    if let Some(c) = schema.as_ref() {
        match c.client.simple_query(PG_NEW_ORDERS).await {
            Ok(m) => {
                own += 1;
                new_orders = first_cell(&m, 0).and_then(|v| v.parse().ok());
            }
            // The schema went away (deleted, or its database dropped): no more NOPM, and
            // the transaction count goes on.
            Err(_) => {
                if let Some(c) = schema.take() {
                    c.close().await;
                }
            }
        }
    }
    Ok(Reading {
        parts,
        uptime,
        new_orders,
        own,
        at: sent + (received - sent) / 2,
        wall: SystemTime::now(),
    })
}

async fn read_my(
    target: &MyTarget,
    dbname: &str,
    conn: &mut Option<Box<Wire>>,
    district: &mut bool,
) -> Result<Reading, DbError> {
    let peer = target.peer();
    let Some(c) = conn.as_mut() else {
        return Err(peer.failed("cannot read", Failure::Lost, "not connected"));
    };
    let failed = |e: mywire::WireError| peer.failed("cannot read counters of", e.kind, e.detail);
    let sent = Instant::now();
    let status = c.query_rows(MY_COUNTERS).await.map_err(failed)?;
    let received = Instant::now();
    let mut parts = Vec::new();
    let mut uptime = 0.0;
    for row in &status {
        let cell = |i: usize| row.get(i).and_then(my::text_of).unwrap_or_default();
        let (name, value) = (cell(0), cell(1));
        let v = value.trim().parse::<u64>().unwrap_or(0);
        match name.to_ascii_lowercase().as_str() {
            "com_commit" => parts.push((0, v)),
            "com_rollback" => parts.push((1, v)),
            "uptime" => uptime = v as f64,
            _ => {}
        }
    }
    let mut new_orders = None;
    if *district {
        let sql = format!(
            "SELECT COALESCE(SUM(d_next_o_id), 0) FROM `{}`.district",
            dbname.replace('`', "``")
        );
        match c.query_first(&sql).await {
            Ok(row) => {
                new_orders = row
                    .as_deref()
                    .and_then(|r| r.first())
                    .and_then(my::int_of)
                    .map(|v| v.max(0) as u64)
            }
            // The connection is gone: the reading failed.
            Err(e) if e.kind == Failure::Lost || e.kind == Failure::Tls => return Err(failed(e)),
            // The schema went away (or the user may not read it): no new orders from now on.
            Err(_) => *district = false,
        }
    }
    Ok(Reading {
        parts,
        uptime,
        new_orders,
        // Com_commit and Com_rollback count COMMIT and ROLLBACK statements; reading
        // status and districts issues neither.
        own: 0,
        at: sent + (received - sent) / 2,
        wall: SystemTime::now(),
    })
}
