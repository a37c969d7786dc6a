//! The MariaDB/MySQL family's answers to [`Engine`]: one value per database of the family
//! (MariaDB and MySQL are dialects of one family, each a [`MyDialect`]), which its code reads
//! its keys from.

use crate::config::{Database, Settings};
use crate::db::counter::CounterSource;
use crate::db::engine::ScriptConn;
use crate::db::engine::{Engine, Facts, Offer, Pending, ServerInfo};
use crate::db::mysql::counter::MyCounter;
use crate::db::mysql::dialect::{self, MyDialect};
use crate::db::mysql::driver::MyDriver;
use crate::db::mysql::schema::MySchema;
use crate::db::mysql::script::MyScript;
use crate::db::mysql::wire as mywire;
use crate::db::mysql::{probe, text_of, MyTarget};
use crate::endpoint::{Destination, Position};
use crate::error::Result;
use crate::fault::DbError;
use crate::tpcc::support::Family;

/// The MariaDB/MySQL variables a job records: what decides whether a commit waits for the
/// disk (durability), InnoDB's memory and redo log, its I/O budget, and the isolation and
/// threading a run's transactions meet. Names one version lacks (MySQL's
/// `innodb_redo_log_capacity`, MariaDB's `thread_handling`) are left out where unknown.
pub const MY_SETTINGS: &[&str] = &[
    // durability
    "innodb_flush_log_at_trx_commit",
    "sync_binlog",
    "innodb_doublewrite",
    "log_bin",
    "innodb_flush_method",
    // memory and redo log
    "innodb_buffer_pool_size",
    "innodb_buffer_pool_instances",
    "innodb_log_file_size",
    "innodb_log_files_in_group",
    "innodb_redo_log_capacity",
    "innodb_log_buffer_size",
    // I/O
    "innodb_io_capacity",
    "innodb_io_capacity_max",
    "innodb_adaptive_hash_index",
    // transactions and threads
    "transaction_isolation",
    "tx_isolation",
    "max_connections",
    "thread_handling",
];

/// The MariaDB/MySQL family's code for one database: its dialect, and the dictionary it reads.
pub struct Mysql {
    db: Database,
    dialect: &'static MyDialect,
}

impl Mysql {
    /// The family's code for `dialect`'s database.
    pub const fn of(dialect: &'static MyDialect) -> Mysql {
        Mysql {
            db: dialect.database,
            dialect,
        }
    }

    /// What differs on this database.
    pub fn dialect(&self) -> &'static MyDialect {
        self.dialect
    }
}

/// MariaDB.
pub static MARIADB: Mysql = Mysql::of(&dialect::MARIADB);

/// MySQL.
pub static MYSQL: Mysql = Mysql::of(&dialect::MYSQL);

/// TiDB.
pub static TIDB: Mysql = Mysql::of(&dialect::TIDB);

impl Engine for Mysql {
    fn database(&self) -> Database {
        self.db
    }

    fn client(&self) -> &'static str {
        "mywire"
    }

    fn probe<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<ServerInfo, DbError>> {
        Box::pin(async move { probe(&MyTarget::server(settings, self.dialect)).await })
    }

    fn server_facts<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<Facts, DbError>> {
        Box::pin(async move {
            let t = MyTarget::server(settings, self.dialect);
            let mut conn = mywire::connect(&t).await?;
            let names = MY_SETTINGS
                .iter()
                .map(|v| format!("'{v}'"))
                .collect::<Vec<_>>()
                .join(", ");
            // SHOW, not `@@name`: a name this server does not know is left out, not an error.
            let vars = format!("SHOW GLOBAL VARIABLES WHERE Variable_name IN ({names})");
            let answer = async {
                let version = conn.query_first("SELECT version()").await?;
                let vars = conn.query_rows(&vars).await?;
                let tls = conn
                    .query_rows("SHOW SESSION STATUS LIKE 'Ssl_version'")
                    .await?;
                Ok::<_, mywire::WireError>((version, vars, tls))
            }
            .await;
            let socket = conn.is_socket();
            let addr = conn.addr().to_string();
            conn.close().await;
            let peer = crate::fault::Peer {
                addr: addr.clone(),
                ..t.peer()
            };
            let (version, vars, tls) =
                answer.map_err(|e| peer.failed("cannot query", e.kind, e.detail))?;
            let text = |row: &[mysql_common::Value], i: usize| -> String {
                row.get(i).and_then(text_of).unwrap_or_default()
            };
            let version = version.map(|r| text(&r, 0)).unwrap_or_default();
            let mut settings: Vec<(String, String)> = vars
                .iter()
                .map(|r| (text(r, 0).to_ascii_lowercase(), text(r, 1)))
                .collect();
            settings.sort_by_key(|(n, _)| MY_SETTINGS.iter().position(|s| s == n));
            let tls = tls.first().map(|r| text(r, 1));
            Ok(Facts {
                version: super::server_version(&version),
                settings,
                transport: crate::db::net::transport(
                    socket.then_some(addr.as_str()),
                    &addr,
                    tls.as_deref(),
                ),
            })
        })
    }

    fn script_conn<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>> {
        Box::pin(async move {
            let to = Destination::of(settings, self.db);
            let t = MyTarget::schema(settings, self.dialect).routed(&to.route(at));
            let wire = mywire::connect(&t).await?;
            Ok(ScriptConn::new(MyScript {
                wire: Box::new(wire),
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
            MyCounter::along(settings, self.dialect, counting, route)
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

impl crate::oltp::support::Family for Mysql {
    type Schema = crate::db::mysql::schema::oltp::MyOltp;
    type Driver = crate::db::mysql::driver::oltp::MyOltpDb;

    fn oltp_driver(&self, settings: &Settings) -> Self::Driver {
        crate::db::mysql::driver::oltp::MyOltpDb::new(settings, self.dialect)
    }

    fn oltp_schema(&self, settings: &Settings) -> Self::Schema {
        crate::db::mysql::schema::oltp::MyOltp::new(settings, self.dialect)
    }

    fn oltp_connect<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>> {
        Box::pin(async move { cancellable(&self.oltp_target(settings, at)).await })
    }

    fn oltp_peer(&self, settings: &Settings, at: Position) -> crate::fault::Peer {
        self.oltp_target(settings, at).peer()
    }
}

impl Mysql {
    /// The OLTP schema user's login for the connection at `at`.
    fn oltp_target(&self, settings: &Settings, at: Position) -> MyTarget {
        let to = Destination::of(settings, self.db);
        crate::oltp::support::Family::oltp_schema(self, settings)
            .schema_target()
            .routed(&to.route(at))
    }
}

/// A connection to `t` whose running statement `KILL QUERY` cancels, from a login of the
/// same user, as the server allows.
async fn cancellable(t: &MyTarget) -> Result<ScriptConn, DbError> {
    let mut wire = mywire::connect(t).await?;
    let peer = t.peer();
    let id = match wire.query_rows("SELECT CONNECTION_ID()").await {
        Ok(rows) => rows
            .first()
            .and_then(|r| r.first())
            .and_then(crate::db::mysql::int_of),
        Err(e) => {
            wire.close().await;
            return Err(peer.failed("cannot run", e.kind, e.detail));
        }
    };
    let conn = ScriptConn::new(MyScript {
        wire: Box::new(wire),
        peer,
    });
    let Some(id) = id else { return Ok(conn) };
    let mut admin = t.clone();
    admin.bounds.reply_timeout = std::time::Duration::from_secs(10);
    let cancel: crate::db::engine::Canceller = std::sync::Arc::new(move || {
        let t = admin.clone();
        Box::pin(async move {
            let kill = async {
                if let Ok(mut w) = mywire::connect(&t).await {
                    let _ = w.query_done(&format!("KILL QUERY {id}")).await;
                    w.close().await;
                }
            };
            let _ = tokio::time::timeout(std::time::Duration::from_secs(10), kill).await;
        })
    });
    Ok(conn.with_canceller(cancel))
}

impl crate::tpch::support::Family for Mysql {
    type Schema = crate::db::mysql::schema::tpch::MyTpch;

    fn tpch_schema(&self, settings: &Settings) -> Self::Schema {
        crate::db::mysql::schema::tpch::MyTpch::new(settings, self.dialect)
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
                .schema_target()
                .routed(&to.route(at));
            t.bounds.reply_timeout = crate::tpch::QUERY_REPLY_TIMEOUT;
            let mut wire = mywire::connect(&t).await?;
            let peer = t.peer();
            let id = match wire.query_rows("SELECT CONNECTION_ID()").await {
                Ok(rows) => rows
                    .first()
                    .and_then(|r| r.first())
                    .and_then(crate::db::mysql::int_of),
                Err(e) => {
                    wire.close().await;
                    return Err(peer.failed("cannot run", e.kind, e.detail));
                }
            };
            let conn = ScriptConn::new(MyScript {
                wire: Box::new(wire),
                peer,
            });
            let Some(id) = id else { return Ok(conn) };
            // KILL QUERY from a login of the same user, as the server allows.
            let mut admin = t.clone();
            admin.bounds.reply_timeout = std::time::Duration::from_secs(10);
            let cancel: crate::db::engine::Canceller = std::sync::Arc::new(move || {
                let t = admin.clone();
                Box::pin(async move {
                    let kill = async {
                        if let Ok(mut w) = mywire::connect(&t).await {
                            let _ = w.query_done(&format!("KILL QUERY {id}")).await;
                            w.close().await;
                        }
                    };
                    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), kill).await;
                })
            });
            Ok(conn.with_canceller(cancel))
        })
    }

    fn tpch_peer(&self, settings: &Settings, at: Position) -> crate::fault::Peer {
        let to = Destination::of(settings, self.db);
        let t = self.tpch_schema(settings).schema_target();
        t.routed(&to.route(at)).peer()
    }

    fn tpch_queries_sql(&self) -> &'static str {
        include_str!("../../../schemas/mysql/tproch/queries.sql")
    }
}

impl Family for Mysql {
    type Schema = MySchema;
    type Driver = MyDriver;

    fn schema(&self, settings: &Settings) -> MySchema {
        MySchema::of(settings, self.dialect)
    }

    fn driver(&self, settings: &Settings, summaries: bool) -> MyDriver {
        MyDriver::of(settings, self.dialect).with_summaries(summaries)
    }

    fn routines(&self, settings: &Settings) -> &'static str {
        if self.dialect.client_sql(settings) {
            "client-side SQL"
        } else {
            "stored procedures (CALL)"
        }
    }
}
