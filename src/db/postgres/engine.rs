//! The PostgreSQL family's answers to [`Engine`]: one value per database of the family, which
//! the family's code reads its keys and SQL differences from.

use crate::config::{Database, Settings};
use crate::db::counter::CounterSource;
use crate::db::engine::ScriptConn;
use crate::db::engine::{Engine, Facts, Pending, ServerInfo};
use crate::db::postgres::counter::PgCounter;
use crate::db::postgres::driver::PgDriver;
use crate::db::postgres::schema::PgSchema;
use crate::db::postgres::script::PgScript;
use crate::db::postgres::{classify, connect, probe, PgTarget};
use crate::error::Result;
use crate::fault::DbError;
use crate::tpcc::support::{Family, Support};

/// The PostgreSQL settings a job records.
const PG_SETTINGS: &[&str] = &[
    "shared_buffers",
    "effective_cache_size",
    "work_mem",
    "max_connections",
    "synchronous_commit",
    "max_wal_size",
];

/// The PostgreSQL family's code for one database.
pub struct Postgres {
    db: Database,
}

/// PostgreSQL itself.
pub static POSTGRESQL: Postgres = Postgres { db: Database::Pg };

impl Engine for Postgres {
    fn database(&self) -> Database {
        self.db
    }

    fn client(&self) -> &'static str {
        "tokio-postgres"
    }

    fn probe<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<ServerInfo, DbError>> {
        Box::pin(async move { probe(&PgTarget::admin_of(settings, self.db)).await })
    }

    fn server_facts<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<Facts, DbError>> {
        Box::pin(async move {
            let t = PgTarget::admin_of(settings, self.db);
            let conn = connect(&t).await?;
            let rows = conn
                .client
                .query(
                    "select name, current_setting(name) from pg_settings where name = any($1) \
                         union all select 'server_version', current_setting('server_version') \
                         order by 1",
                    &[&PG_SETTINGS],
                )
                .await;
            conn.close().await;
            let rows = rows.map_err(|e| {
                let (kind, detail) = classify(&e, false);
                t.peer().failed("cannot query", kind, detail)
            })?;
            let mut version = String::new();
            let mut values = Vec::new();
            for r in rows {
                let (name, value): (String, String) = (r.get(0), r.get(1));
                if name == "server_version" {
                    version = format!("PostgreSQL {value}");
                } else {
                    values.push((name, value));
                }
            }
            Ok((version, values))
        })
    }

    fn script_conn<'a>(
        &'a self,
        settings: &'a Settings,
    ) -> Pending<'a, Result<ScriptConn, DbError>> {
        Box::pin(async move {
            let t = PgTarget::owner_of(settings, self.db);
            let conn = connect(&t).await?;
            Ok(ScriptConn::new(PgScript {
                conn,
                peer: t.peer(),
            }))
        })
    }

    fn counter_source(&self, settings: &Settings) -> CounterSource {
        let admin = PgTarget::admin_of(settings, self.db);
        let owner = PgTarget::owner_of(settings, self.db);
        CounterSource::with(self.db, PgCounter::new(admin, owner))
    }

    fn unsupported_build_options(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("pg_oracompat", "EnterpriseDB Oracle compatibility"),
            ("pg_cituscompat", "Citus distribution"),
        ]
    }

    fn tpcc(&self) -> &dyn Support {
        self
    }
}

impl Family for Postgres {
    type Schema = PgSchema;
    type Driver = PgDriver;

    fn schema(&self, settings: &Settings) -> PgSchema {
        PgSchema::new(settings, self.db)
    }

    fn driver(&self, settings: &Settings, summaries: bool) -> PgDriver {
        PgDriver::new(settings, self.db).with_summaries(summaries)
    }

    fn routines(&self, settings: &Settings) -> &'static str {
        let d = settings.db(self.db);
        let p = self.db.prefix();
        if d.get_bool(&format!("{p}_no_stored_procs")) {
            "client-side SQL"
        } else if d.get_bool(&format!("{p}_storedprocs")) {
            "stored procedures (CALL)"
        } else {
            "stored functions (SELECT)"
        }
    }
}
