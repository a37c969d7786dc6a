//! The PostgreSQL family's answers to [`Engine`]: one value per database of the family, which
//! the family's code reads its keys and SQL differences from.

use crate::config::{Database, Settings};
use crate::db::counter::CounterSource;
use crate::db::engine::ScriptConn;
use crate::db::engine::{Engine, Facts, Offer, Pending, ServerInfo};
use crate::db::postgres::counter::PgCounter;
use crate::db::postgres::dialect::{self, PgDialect, Routines};
use crate::db::postgres::driver::PgDriver;
use crate::db::postgres::schema::PgSchema;
use crate::db::postgres::script::PgScript;
use crate::db::postgres::{classify, connect, overdue, probe, PgTarget};
use crate::endpoint::{Destination, Position};
use crate::error::Result;
use crate::fault::DbError;
use crate::tpcc::support::Family;

/// The PostgreSQL settings a job records: what decides whether a commit waits for the disk
/// (durability), how much the server caches and sorts in memory, when it checkpoints, and the
/// isolation and housekeeping a run's transactions meet.
pub const PG_SETTINGS: &[&str] = &[
    // durability
    "fsync",
    "synchronous_commit",
    "full_page_writes",
    "wal_level",
    "wal_sync_method",
    "synchronous_standby_names",
    "commit_delay",
    // memory
    "shared_buffers",
    "effective_cache_size",
    "work_mem",
    "maintenance_work_mem",
    "wal_buffers",
    "huge_pages",
    // checkpoints and WAL size
    "max_wal_size",
    "min_wal_size",
    "checkpoint_timeout",
    "checkpoint_completion_target",
    "wal_compression",
    // transactions and housekeeping
    "default_transaction_isolation",
    "max_connections",
    "autovacuum",
    "jit",
];

/// Puts in the values a role's or database's own settings (`ALTER ROLE .. SET`, `ALTER
/// DATABASE .. SET`) give the run's sessions: `(rank, scope, "name=value")`, the more specific
/// rank winning (role and database 3, role 2, database 1). The value says where it comes
/// from: `off (set for role tpcc)`.
fn apply_overrides(settings: &mut [(String, String)], set: &[(i32, String, String)]) {
    for (name, value) in settings.iter_mut() {
        let best = set
            .iter()
            .filter_map(|(rank, scope, config)| {
                let (n, v) = config.split_once('=')?;
                (n == name).then_some((*rank, scope, v))
            })
            .max_by_key(|(rank, _, _)| *rank);
        if let Some((_, scope, v)) = best {
            *value = format!("{v} (set for {scope})");
        }
    }
}

/// The PostgreSQL family's code for one database: its dialect, and the dictionary it reads.
pub struct Postgres {
    db: Database,
    dialect: &'static PgDialect,
}

impl Postgres {
    /// The family's code for `dialect`'s database.
    pub const fn of(dialect: &'static PgDialect) -> Postgres {
        Postgres {
            db: dialect.database,
            dialect,
        }
    }

    /// What differs on this database.
    pub fn dialect(&self) -> &'static PgDialect {
        self.dialect
    }
}

/// PostgreSQL itself.
pub static POSTGRESQL: Postgres = Postgres::of(&dialect::POSTGRESQL);

/// CockroachDB.
pub static COCKROACHDB: Postgres = Postgres::of(&dialect::COCKROACHDB);

/// YugabyteDB's YSQL.
pub static YUGABYTEDB: Postgres = Postgres::of(&dialect::YUGABYTEDB);

impl Engine for Postgres {
    fn database(&self) -> Database {
        self.db
    }

    fn client(&self) -> &'static str {
        "tokio-postgres"
    }

    fn probe<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<ServerInfo, DbError>> {
        Box::pin(async move { probe(&PgTarget::admin_of(settings, self.db), self.dialect).await })
    }

    fn server_facts<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<Facts, DbError>> {
        Box::pin(async move {
            let t = PgTarget::admin_of(settings, self.db);
            let conn = connect(&t).await?;
            // The names the server does not know (an older version's) are left out.
            let sql = "select name, current_setting(name) from pg_settings where name = any($1) \
                       union all select 'server_version', current_setting('server_version') \
                       union all select ' tls', coalesce((select version from pg_stat_ssl \
                       where pid = pg_backend_pid() and ssl), '') \
                       union all select ' version', version() \
                       order by 1";
            // What ALTER ROLE / ALTER DATABASE ... SET give the run's login on the schema's
            // database: its sessions see those values, not the server's.
            let owner = PgTarget::owner_of(settings, self.db);
            let overrides = "select case when s.setdatabase <> 0 and s.setrole <> 0 then 3 \
                             when s.setrole <> 0 then 2 else 1 end, \
                             concat_ws(' ', 'role ' || r.rolname, 'database ' || d.datname), \
                             unnest(s.setconfig) from pg_db_role_setting s \
                             left join pg_database d on d.oid = s.setdatabase \
                             left join pg_roles r on r.oid = s.setrole \
                             where (s.setdatabase = 0 or d.datname = $1) \
                             and (s.setrole = 0 or r.rolname = $2) \
                             and (s.setdatabase <> 0 or s.setrole <> 0)";
            let read = async {
                let rows = conn.client.query(sql, &[&PG_SETTINGS]).await?;
                let set = conn
                    .client
                    .query(overrides, &[&owner.dbname, &owner.user])
                    .await?;
                Ok::<_, tokio_postgres::Error>((rows, set))
            };
            let answer = tokio::time::timeout(t.bounds.reply_timeout, read).await;
            conn.close().await;
            let peer = t.peer();
            let (rows, set) = match answer {
                Err(_) => return Err(overdue(&peer, t.bounds.reply_timeout)),
                Ok(rows) => rows.map_err(|e| {
                    let (kind, detail) = classify(&e, false);
                    peer.failed("cannot query", kind, detail)
                })?,
            };
            let mut facts = Facts::default();
            let (mut tls, mut version, mut text) = (String::new(), String::new(), String::new());
            for r in rows {
                let (name, value): (String, String) = (r.get(0), r.get(1));
                match name.as_str() {
                    "server_version" => version = value,
                    " tls" => tls = value,
                    " version" => text = value,
                    _ => facts.settings.push((name, value)),
                }
            }
            // Named as what the server is, whichever dialect reached it.
            facts.version = format!("{} {version}", PgDialect::of_server(&text).server);
            // In the order of the list: durability first.
            facts
                .settings
                .sort_by_key(|(n, _)| PG_SETTINGS.iter().position(|s| s == n));
            let set: Vec<(i32, String, String)> =
                set.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
            apply_overrides(&mut facts.settings, &set);
            facts.transport =
                crate::db::net::transport(t.socket_path().as_deref(), &peer.addr, Some(&tls));
            Ok(facts)
        })
    }

    fn script_conn<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>> {
        Box::pin(async move {
            let to = Destination::of(settings, self.db);
            let t = PgTarget::owner_of(settings, self.db).routed(&to.route(at));
            let conn = connect(&t).await?;
            Ok(ScriptConn::new(PgScript {
                conn,
                peer: t.peer(),
            }))
        })
    }

    fn counter_source(
        &self,
        settings: &Settings,
        counting: crate::db::counter::Counting,
    ) -> CounterSource {
        let to = crate::endpoint::Destination::of(settings, self.db);
        CounterSource::over(self.db, counting.counted, &to, |route| {
            PgCounter::along(settings, self.dialect, counting, route)
        })
    }

    fn unsupported_build_options(&self) -> &'static [(&'static str, &'static str)] {
        self.dialect.unsupported
    }

    fn untested(&self) -> Option<String> {
        self.dialect
            .tested_on
            .map(|on| crate::db::untested(self.dialect.server, on))
    }

    fn offers(&'static self) -> Vec<Offer> {
        vec![
            Offer::of(self as &'static dyn crate::tpcc::support::Support),
            Offer::of(self as &'static dyn crate::tpch::support::Support),
            Offer::of(self as &'static dyn crate::oltp::support::Support),
        ]
    }
}

impl crate::oltp::support::Family for Postgres {
    type Schema = crate::db::postgres::schema::oltp::PgOltp;
    type Driver = crate::db::postgres::driver::oltp::PgOltpDb;

    fn oltp_driver(&self, settings: &Settings) -> Self::Driver {
        crate::db::postgres::driver::oltp::PgOltpDb::new(settings, self.dialect)
    }

    fn oltp_schema(&self, settings: &Settings) -> Self::Schema {
        crate::db::postgres::schema::oltp::PgOltp::new(settings, self.dialect)
    }

    fn oltp_connect<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>> {
        Box::pin(async move {
            let t = self.oltp_target(settings, at);
            let conn = connect(&t).await?;
            let peer = t.peer();
            let token = conn.client.cancel_token();
            let cancel: crate::db::engine::Canceller = std::sync::Arc::new(move || {
                let (t, token) = (t.clone(), token.clone());
                Box::pin(async move { crate::db::postgres::cancel(&t, token).await })
            });
            Ok(ScriptConn::new(PgScript { conn, peer }).with_canceller(cancel))
        })
    }

    fn oltp_peer(&self, settings: &Settings, at: Position) -> crate::fault::Peer {
        self.oltp_target(settings, at).peer()
    }
}

impl Postgres {
    /// The OLTP schema owner's login for the connection at `at`.
    fn oltp_target(&self, settings: &Settings, at: Position) -> PgTarget {
        let to = Destination::of(settings, self.db);
        crate::oltp::support::Family::oltp_schema(self, settings)
            .owner_target()
            .routed(&to.route(at))
    }
}

impl crate::tpch::support::Family for Postgres {
    type Schema = crate::db::postgres::schema::tpch::PgTpch;

    fn tpch_schema(&self, settings: &Settings) -> Self::Schema {
        crate::db::postgres::schema::tpch::PgTpch::new(settings, self.dialect)
    }

    fn tpch_dbname(&self, settings: &Settings) -> String {
        self.tpch_schema(settings).dbname().to_string()
    }

    fn tpch_connect<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>> {
        Box::pin(async move {
            let to = Destination::of(settings, self.db);
            let mut t = self
                .tpch_schema(settings)
                .owner_target()
                .routed(&to.route(at));
            t.bounds.reply_timeout = crate::tpch::QUERY_REPLY_TIMEOUT;
            let conn = connect(&t).await?;
            let peer = t.peer();
            // `pg_degree_of_parallel`: parallel workers per query, as HammerDB sets them.
            let key = self.db.key("degree_of_parallel");
            let d = settings.db(self.db);
            if d.spec(&key).is_some() {
                let sql = format!(
                    "SET max_parallel_workers_per_gather = {}",
                    d.get_i64(&key).max(0)
                );
                if let Err(e) = conn.client.batch_execute(&sql).await {
                    let (kind, detail) = crate::db::postgres::classify(&e, false);
                    conn.close().await;
                    return Err(peer.failed("cannot run", kind, detail));
                }
            }
            let token = conn.client.cancel_token();
            let cancel: crate::db::engine::Canceller = std::sync::Arc::new(move || {
                let (t, token) = (t.clone(), token.clone());
                Box::pin(async move { crate::db::postgres::cancel(&t, token).await })
            });
            Ok(ScriptConn::new(PgScript { conn, peer }).with_canceller(cancel))
        })
    }

    fn tpch_peer(&self, settings: &Settings, at: Position) -> crate::fault::Peer {
        let to = Destination::of(settings, self.db);
        let t = self.tpch_schema(settings).owner_target();
        t.routed(&to.route(at)).peer()
    }

    fn tpch_queries_sql(&self) -> &'static str {
        include_str!("../../../schemas/pg/tproch/queries.sql")
    }
}

impl Family for Postgres {
    type Schema = PgSchema;
    type Driver = PgDriver;

    fn schema(&self, settings: &Settings) -> PgSchema {
        PgSchema::of(settings, self.dialect)
    }

    fn driver(&self, settings: &Settings, summaries: bool) -> PgDriver {
        PgDriver::of(settings, self.dialect).with_summaries(summaries)
    }

    fn routines(&self, settings: &Settings) -> &'static str {
        match self.dialect.routines(settings) {
            Routines::ClientSql => "client-side SQL",
            Routines::Procedures => "stored procedures (CALL)",
            Routines::Functions => "stored functions (SELECT)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::apply_overrides;

    #[test]
    fn a_role_or_database_setting_wins_over_the_server_and_says_so() {
        let mut settings = vec![
            ("synchronous_commit".to_string(), "on".to_string()),
            ("work_mem".to_string(), "4MB".to_string()),
            ("fsync".to_string(), "on".to_string()),
        ];
        apply_overrides(
            &mut settings,
            &[
                (1, "database tpcc".into(), "synchronous_commit=local".into()),
                (
                    3,
                    "role tpcc database tpcc".into(),
                    "synchronous_commit=off".into(),
                ),
                (2, "role tpcc".into(), "work_mem=64MB".into()),
                (2, "role tpcc".into(), "search_path=x".into()),
            ],
        );
        assert_eq!(
            settings,
            [
                (
                    "synchronous_commit".to_string(),
                    "off (set for role tpcc database tpcc)".to_string()
                ),
                (
                    "work_mem".to_string(),
                    "64MB (set for role tpcc)".to_string()
                ),
                ("fsync".to_string(), "on".to_string()),
            ]
        );
    }
}
