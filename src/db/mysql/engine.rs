//! The MariaDB/MySQL family's answers to [`Engine`]: one value per database of the family
//! (MariaDB and MySQL are dialects of one family), which its code reads its keys from.

use crate::config::{Database, Settings};
use crate::db::counter::CounterSource;
use crate::db::engine::ScriptConn;
use crate::db::engine::{Engine, Facts, Pending, ServerInfo};
use crate::db::mysql::counter::MyCounter;
use crate::db::mysql::driver::MyDriver;
use crate::db::mysql::schema::MySchema;
use crate::db::mysql::script::MyScript;
use crate::db::mysql::wire as mywire;
use crate::db::mysql::{probe, text_of, MyTarget};
use crate::error::Result;
use crate::fault::DbError;
use crate::tpcc::support::{Family, Support};

/// The MariaDB/MySQL variables a job records.
const MY_SETTINGS: &[&str] = &[
    "innodb_buffer_pool_size",
    "innodb_log_file_size",
    "innodb_flush_log_at_trx_commit",
    "max_connections",
];

/// The MariaDB/MySQL family's code for one database.
pub struct Mysql {
    db: Database,
}

/// MariaDB.
pub static MARIADB: Mysql = Mysql {
    db: Database::Maria,
};

/// MySQL.
pub static MYSQL: Mysql = Mysql {
    db: Database::Mysql,
};

impl Engine for Mysql {
    fn database(&self) -> Database {
        self.db
    }

    fn client(&self) -> &'static str {
        "mywire"
    }

    fn probe<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<ServerInfo, DbError>> {
        Box::pin(async move { probe(&MyTarget::server(settings, self.db)).await })
    }

    fn server_facts<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<Facts, DbError>> {
        Box::pin(async move {
            let t = MyTarget::server(settings, self.db);
            let mut conn = mywire::connect(&t).await?;
            let sql = format!(
                "select version(), {}",
                MY_SETTINGS
                    .iter()
                    .map(|v| format!("cast(@@{v} as char)"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let row = conn.query_first(&sql).await;
            conn.close().await;
            let row = row.map_err(|e| t.peer().failed("cannot query", e.kind, e.detail))?;
            let Some(row) = row else {
                return Ok((self.db.name().to_string(), Vec::new()));
            };
            let text = |i: usize| -> String { row.get(i).and_then(text_of).unwrap_or_default() };
            let values = MY_SETTINGS
                .iter()
                .enumerate()
                .map(|(i, name)| (name.to_string(), text(i + 1)))
                .collect();
            Ok((super::server_version(&text(0)), values))
        })
    }

    fn script_conn<'a>(
        &'a self,
        settings: &'a Settings,
    ) -> Pending<'a, Result<ScriptConn, DbError>> {
        Box::pin(async move {
            let t = MyTarget::schema(settings, self.db);
            let wire = mywire::connect(&t).await?;
            Ok(ScriptConn::new(MyScript {
                wire: Box::new(wire),
                peer: t.peer(),
            }))
        })
    }

    fn counter_source(&self, settings: &Settings) -> CounterSource {
        let dbname = settings
            .db(self.db)
            .get(&format!("{}_dbase", self.db.prefix()));
        let target = MyTarget::server(settings, self.db);
        CounterSource::with(self.db, MyCounter::new(target, dbname.to_string()))
    }

    fn tpcc(&self) -> &dyn Support {
        self
    }
}

impl Family for Mysql {
    type Schema = MySchema;
    type Driver = MyDriver;

    fn schema(&self, settings: &Settings) -> MySchema {
        MySchema::new(settings, self.db)
    }

    fn driver(&self, settings: &Settings, summaries: bool) -> MyDriver {
        MyDriver::new(settings, self.db).with_summaries(summaries)
    }

    fn routines(&self, settings: &Settings) -> &'static str {
        let p = self.db.prefix();
        if settings
            .db(self.db)
            .get_bool(&format!("{p}_no_stored_procs"))
        {
            "client-side SQL"
        } else {
            "stored procedures (CALL)"
        }
    }
}
