//! The transaction counter's connections on PostgreSQL: the superuser on its default database
//! for `pg_stat_database` (which covers every database), the schema owner for TPROC-C's
//! districts. The queries are the family's one counter definition (`driver::counters`).
//!
//! Counting queries (TPROC-H's `qph`) reads the same commits and rollbacks, as HammerDB does:
//! each query of an analytic stream is its own transaction. It logs in with the benchmark's
//! keys (`pg_tpch_superuser`), and reads no districts.

use std::time::{Instant, SystemTime};

use crate::config::Settings;
use crate::db::counter::{Counted, CounterConn, Counting, Reading};
use crate::db::engine::Pending;
use crate::db::postgres::dialect::PgDialect;
use crate::db::postgres::driver::counters;
use crate::db::postgres::{classify, connect, PgConn, PgTarget};
use crate::endpoint::{Destination, Position, Route};
use crate::fault::{DbError, Failure, Peer};

/// The counter's logins and their connections, when open.
pub struct PgCounter {
    /// The superuser on its default database: `pg_stat_database` covers every database.
    pub admin: PgTarget,
    /// The schema owner on the schema database, for `district`; none when counting queries.
    pub owner: Option<PgTarget>,
    pub stats: Option<PgConn>,
    pub schema: Option<PgConn>,
    /// The dialect's statement for every database's transactions and the uptime.
    pub counter_sql: &'static str,
}

impl PgCounter {
    pub fn new(admin: PgTarget, owner: Option<PgTarget>, counter_sql: &'static str) -> Self {
        PgCounter {
            admin,
            owner,
            counter_sql,
            stats: None,
            schema: None,
        }
    }

    /// The counter `counting` asks for on `db`: the superuser `{prefix}_{keys}superuser` on
    /// `{prefix}_{keys}defaultdbase`, and for transactions the owner `{prefix}_{keys}user` of
    /// `{prefix}_{keys}dbase` for NOPM, both at the counter's endpoint.
    pub fn of(settings: &Settings, dialect: &'static PgDialect, counting: Counting) -> Self {
        let to = Destination::of(settings, dialect.database);
        Self::along(settings, dialect, counting, &to.route(Position::Counter))
    }

    /// As [`PgCounter::of`], along `route` (one server, for one of several counters).
    pub fn along(
        settings: &Settings,
        dialect: &'static PgDialect,
        counting: Counting,
        route: &Route,
    ) -> Self {
        let db = dialect.database;
        let k = counting.keys;
        let login = |user: &str, pass: &str, dbname: &str| {
            PgTarget::from_dict_at(
                settings,
                db,
                &route.tries[0],
                &format!("{k}{user}"),
                &format!("{k}{pass}"),
                &format!("{k}{dbname}"),
            )
            .routed(route)
        };
        let admin = login("superuser", "superuserpass", "defaultdbase");
        let owner =
            (counting.counted == Counted::Transactions).then(|| login("user", "pass", "dbase"));
        PgCounter::new(admin, owner, dialect.counter_sql)
    }
}

impl CounterConn for PgCounter {
    fn peer(&self) -> Peer {
        self.admin.peer()
    }

    fn schema_db(&self) -> &str {
        self.owner.as_ref().map_or("", |o| o.dbname.as_str())
    }

    fn is_connected(&self) -> bool {
        self.stats.is_some()
    }

    fn reply_timeout(&self) -> std::time::Duration {
        self.admin.bounds.reply_timeout
    }

    fn connect(&mut self) -> Pending<'_, Result<bool, DbError>> {
        Box::pin(async move {
            let stats = connect(&self.admin).await?;
            // The server's own counter statement, whichever dialect reached it.
            if let Ok(server) = PgDialect::of_client(&stats.client).await {
                self.counter_sql = server.counter_sql;
            }
            self.stats = Some(stats);
            // The owner's login may not exist (no schema built): then there is no NOPM.
            let Some(owner) = &self.owner else {
                return Ok(false);
            };
            if let Ok(conn) = connect(owner).await {
                let found = conn
                    .client
                    .simple_query("SELECT to_regclass('district') IS NOT NULL")
                    .await
                    .ok()
                    .and_then(|m| counters::first_cell(&m, 0))
                    .is_some_and(|v| v == "t");
                if found {
                    self.schema = Some(conn);
                } else {
                    conn.close().await;
                }
            }
            Ok(self.schema.is_some())
        })
    }

    fn read(&mut self) -> Pending<'_, Result<Reading, DbError>> {
        Box::pin(read_pg(
            &self.admin,
            self.counter_sql,
            &mut self.stats,
            &mut self.schema,
        ))
    }

    fn drop_connections(&mut self) {
        self.stats.take();
        self.schema.take();
    }

    fn close(&mut self) -> Pending<'_, ()> {
        Box::pin(async move {
            for slot in [&mut self.stats, &mut self.schema] {
                if let Some(conn) = slot.take() {
                    conn.close().await;
                }
            }
        })
    }
}

async fn read_pg(
    admin: &PgTarget,
    sql: &str,
    stats: &mut Option<PgConn>,
    schema: &mut Option<PgConn>,
) -> Result<Reading, DbError> {
    let peer = admin.peer();
    let Some(conn) = stats.as_ref() else {
        return Err(peer.failed("cannot read", Failure::Lost, "not connected"));
    };
    let sent = Instant::now();
    let server = counters::server(&conn.client, sql).await.map_err(|e| {
        let (kind, detail) = classify(&e, false);
        peer.failed("cannot read counters of", kind, detail)
    })?;
    let received = Instant::now();
    let parts = server
        .parts
        .iter()
        .map(|p| (p.datid, p.transactions))
        .collect();
    let uptime = server.uptime;
    let mut own = 1;
    let mut new_orders = None;
    if let Some(c) = schema.as_ref() {
        match counters::new_orders(&c.client).await {
            Ok(n) => {
                own += 1;
                new_orders = n;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// TPROC-H's counter logs in with the `pg_tpch_*` superuser keys and reads no districts.
    #[test]
    fn the_logins_follow_the_benchmark_s_keys() {
        use crate::config::{Database, Target};
        use crate::db::postgres::dialect::POSTGRESQL;
        let mut settings = Settings::defaults();
        let pg = Target::Db(Database::Pg);
        for (section, key, value) in [
            ("tpch", "pg_tpch_superuser", "tpch_admin"),
            ("tpch", "pg_tpch_defaultdbase", "tpch_home"),
            ("tpcc", "pg_superuser", "tpcc_admin"),
        ] {
            settings.set(pg, section, key, value).unwrap();
        }
        let c = PgCounter::of(&settings, &POSTGRESQL, Counting::TRANSACTIONS);
        assert_eq!(c.admin.user, "tpcc_admin");
        assert!(c.owner.is_some());
        let tpch = Counting {
            counted: Counted::Queries,
            keys: "tpch_",
        };
        let c = PgCounter::of(&settings, &POSTGRESQL, tpch);
        assert_eq!(
            (c.admin.user.as_str(), c.admin.dbname.as_str()),
            ("tpch_admin", "tpch_home")
        );
        assert!(c.owner.is_none());
        assert_eq!(c.schema_db(), "");
    }
}
