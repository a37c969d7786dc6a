//! The transaction counter's connection on MariaDB/MySQL: `*_user` with no database selected
//! for the server's status, and TPROC-C's districts in the schema database. The transaction
//! queries are the family's one counter definition (`driver::counters`).
//!
//! Counting queries (TPROC-H's `qph`) logs in as `*_tpch_user` and counts, as HammerDB does,
//! `Queries - Com_show_status`: every statement the server ran but the status reads, the
//! counter's own among them.

use std::time::{Instant, SystemTime};

use crate::config::Settings;
use crate::db::counter::{Counted, CounterConn, Counting, Reading};
use crate::db::engine::Pending;
use crate::db::mysql::dialect::MyDialect;
use crate::db::mysql::driver::counters;
use crate::db::mysql::wire::{self as mywire, Arg, Wire};
use crate::db::mysql::{int_of, text_of, MyTarget};
use crate::endpoint::{Destination, Position, Route};
use crate::fault::{DbError, Failure, Peer};

/// The counter's login and its connection, when open.
pub struct MyCounter {
    pub target: MyTarget,
    /// The schema database, for `district`.
    pub dbname: String,
    pub counted: Counted,
    pub conn: Option<Box<Wire>>,
    pub district: bool,
}

impl MyCounter {
    pub fn new(target: MyTarget, dbname: String, counted: Counted) -> Self {
        MyCounter {
            target,
            dbname,
            counted,
            conn: None,
            district: false,
        }
    }

    /// The counter `counting` asks for on `db`: logged in as `{prefix}_{keys}user` at the
    /// counter's endpoint, its schema `{prefix}_{keys}dbase`.
    pub fn of(settings: &Settings, dialect: &'static MyDialect, counting: Counting) -> Self {
        let to = Destination::of(settings, dialect.database);
        Self::along(settings, dialect, counting, &to.route(Position::Counter))
    }

    /// As [`MyCounter::of`], along `route` (one server, for one of several counters).
    pub fn along(
        settings: &Settings,
        dialect: &'static MyDialect,
        counting: Counting,
        route: &Route,
    ) -> Self {
        let db = dialect.database;
        let k = counting.keys;
        let target = MyTarget::login_at(
            settings,
            dialect,
            &route.tries[0],
            &format!("{k}user"),
            &format!("{k}pass"),
        )
        .routed(route);
        let dbname = settings
            .db(db)
            .get(&db.key(&format!("{k}dbase")))
            .to_string();
        MyCounter::new(target, dbname, counting.counted)
    }
}

/// `Queries - Com_show_status` and the uptime in seconds, read with the server's dialect's
/// status statement.
async fn queries(conn: &mut Wire) -> Result<(u64, f64), mywire::WireError> {
    let status = conn.query_rows(conn.dialect().status_sql).await?;
    let (mut queries, mut shows, mut uptime) = (0u64, 0u64, 0.0);
    for row in &status {
        let cell = |i: usize| row.get(i).and_then(text_of).unwrap_or_default();
        let v = cell(1).trim().parse::<u64>().unwrap_or(0);
        match cell(0).to_ascii_lowercase().as_str() {
            "queries" => queries = v,
            "com_show_status" => shows = v,
            "uptime" => uptime = v as f64,
            _ => {}
        }
    }
    Ok((queries.saturating_sub(shows), uptime))
}

impl CounterConn for MyCounter {
    fn peer(&self) -> Peer {
        self.target.peer()
    }

    fn schema_db(&self) -> &str {
        &self.dbname
    }

    fn is_connected(&self) -> bool {
        self.conn.is_some()
    }

    fn reply_timeout(&self) -> std::time::Duration {
        self.target.bounds.reply_timeout
    }

    fn connect(&mut self) -> Pending<'_, Result<bool, DbError>> {
        Box::pin(async move {
            let mut c = mywire::connect(&self.target).await?;
            if self.counted == Counted::Queries {
                self.district = false;
                self.conn = Some(Box::new(c));
                return Ok(false);
            }
            let found = c
                .exec_rows(
                    "SELECT COUNT(*) FROM information_schema.tables \
                     WHERE table_schema = ? AND table_name = 'district'",
                    &[Arg::Text(self.dbname.as_bytes())],
                )
                .await;
            self.district = matches!(&found, Ok(rows) if rows
                .first()
                .and_then(|r| r.first())
                .and_then(int_of)
                .is_some_and(|n| n > 0));
            self.conn = Some(Box::new(c));
            Ok(self.district)
        })
    }

    fn read(&mut self) -> Pending<'_, Result<Reading, DbError>> {
        Box::pin(read_my(
            &self.target,
            &self.dbname,
            self.counted,
            &mut self.conn,
            &mut self.district,
        ))
    }

    fn drop_connections(&mut self) {
        drop(self.conn.take());
    }

    fn close(&mut self) -> Pending<'_, ()> {
        Box::pin(async move {
            if let Some(c) = self.conn.take() {
                c.close().await;
            }
        })
    }
}

async fn read_my(
    target: &MyTarget,
    dbname: &str,
    counted: Counted,
    conn: &mut Option<Box<Wire>>,
    district: &mut bool,
) -> Result<Reading, DbError> {
    let peer = target.peer();
    let Some(c) = conn.as_mut() else {
        return Err(peer.failed("cannot read", Failure::Lost, "not connected"));
    };
    let failed = |e: mywire::WireError| peer.failed("cannot read counters of", e.kind, e.detail);
    let sent = Instant::now();
    if counted == Counted::Queries {
        let (n, uptime) = queries(c).await.map_err(failed)?;
        let received = Instant::now();
        return Ok(Reading {
            parts: vec![(0, n)],
            uptime,
            new_orders: None,
            // The counter's own reading is a SHOW STATUS: subtracted with the others.
            own: 0,
            at: sent + (received - sent) / 2,
            wall: SystemTime::now(),
        });
    }
    let server = counters::server(c).await.map_err(failed)?;
    let received = Instant::now();
    let parts = vec![(0, server.commits), (1, server.rollbacks)];
    let uptime = server.uptime;
    let mut new_orders = None;
    if *district {
        match counters::new_orders(c, dbname).await {
            Ok(n) => new_orders = n,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// TPROC-H's counter logs in as `*_tpch_user` and counts queries.
    #[test]
    fn the_login_follows_the_benchmark_s_keys() {
        use crate::config::{Database, Target};
        use crate::db::mysql::dialect::MARIADB;
        let mut settings = Settings::defaults();
        let maria = Target::Db(Database::Maria);
        settings
            .set(maria, "tpch", "maria_tpch_user", "analyst")
            .unwrap();
        settings
            .set(maria, "tpch", "maria_tpch_dbase", "tpch_db")
            .unwrap();
        let c = MyCounter::of(&settings, &MARIADB, Counting::TRANSACTIONS);
        assert_eq!(c.counted, Counted::Transactions);
        assert_ne!(c.target.user, "analyst");
        let tpch = Counting {
            counted: Counted::Queries,
            keys: "tpch_",
        };
        let c = MyCounter::of(&settings, &MARIADB, tpch);
        assert_eq!(
            (c.target.user.as_str(), c.dbname.as_str(), c.counted),
            ("analyst", "tpch_db", Counted::Queries)
        );
    }
}
