//! The TPROC-H schema on MariaDB and MySQL: the database made as for TPROC-C (the same
//! [`MySchema`] steps, on the `*_tpch_*` keys), the eight tables in `*_tpch_storage_engine`,
//! loading through [`MyLoader`] (`LOAD DATA LOCAL`, or INSERTs where the server refuses it),
//! keys and foreign keys after the load, statistics, the inventory `checkschema` reads, and
//! removal.

use std::sync::atomic::{AtomicBool, AtomicU8};
use std::sync::{Arc, Mutex};

use super::load::{Shared, METHOD_UNKNOWN};
use super::queries::{cell, ident, Queries};
use super::{check_engine_name, MyLoader, MySchema};
use crate::config::Settings;
use crate::db::mysql::dialect::MyDialect;
use crate::db::mysql::wire::Wire;
use crate::db::mysql::MyTarget;
use crate::endpoint::{Destination, Position};
use crate::error::{Error, Result};
use crate::sqlfile;
use crate::tpcc::schema::SchemaDb as _;
use crate::tpch::schema::{Loader, Say, SchemaDb, TableFacts};
use crate::tpch::{Table, NAME};

const TABLES_SQL: &str = include_str!("../../../../schemas/mysql/tproch/tables.sql");
const KEYS_SQL: &str = include_str!("../../../../schemas/mysql/tproch/keys.sql");
const FOREIGN_SQL: &str = include_str!("../../../../schemas/mysql/tproch/foreign.sql");

/// The TPROC-H schema on a MariaDB or MySQL server, from the `tpch` dictionary.
pub struct MyTpch {
    base: MySchema,
}

impl MyTpch {
    /// The schema user's login on the schema's database: where the queries run.
    pub fn schema_target(&self) -> MyTarget {
        self.base.schema.clone()
    }

    /// The TPROC-H schema of `dialect`'s database, from its `tpch` dictionary.
    pub fn new(settings: &Settings, dialect: &'static MyDialect) -> Self {
        let db = dialect.database;
        let d = settings.db(db);
        let server = MyTarget::login(settings, dialect, "tpch_user", "tpch_pass");
        let dbname = d.get(&db.key("tpch_dbase")).to_string();
        MyTpch {
            base: MySchema {
                dialect,
                schema: MyTarget {
                    dbname: Some(dbname.clone()),
                    ..server.clone()
                },
                server,
                to: Destination::of(settings, db),
                dbname,
                engine: d.get(&db.key("tpch_storage_engine")).to_string(),
                history_pk: false,
                partition: false,
                force_insert: false,
                server_charset: false,
                shared: Arc::new(Shared {
                    method: AtomicU8::new(METHOD_UNKNOWN),
                    said: AtomicBool::new(false),
                    say: Mutex::new(None),
                }),
                workload: NAME,
                keys: "tpch_",
            }
            .with_dialects_bulk(),
        }
    }

    /// `*_tpch_dbase`.
    pub fn dbname(&self) -> &str {
        &self.base.dbname
    }

    /// Runs each statement of `sql` on `conn`; an error names what it was doing.
    async fn run_all(&self, conn: &mut Wire, sql: &str, doing: &str) -> Result<()> {
        let db = &self.base.dbname;
        let vars = [("engine", self.base.engine.as_str())];
        for statement in sqlfile::split(sql) {
            let statement = sqlfile::render(&statement, &vars);
            conn.query_drop(&statement).await.map_err(|e| {
                self.base.denied_or_failed(
                    "ALTER",
                    &format!("GRANT ALL ON {db}.* to it"),
                    "cannot alter",
                    &format!("{doing} in {db}"),
                    &e,
                )
            })?;
        }
        Ok(())
    }

    async fn create_on(&self, conn: &mut Wire, say: &Say) -> Result<()> {
        let base = &self.base;
        check_engine_name(&base.engine, &base.key("storage_engine"))?;
        let db = &base.dbname;
        say.line("CREATING TPCH SCHEMA");
        let created = base.make_database(conn, say).await?;
        conn.query_drop(format!("USE {}", ident(db)))
            .await
            .map_err(|e| base.failed("cannot use", &format!("database {db}"), &e))?;
        say.line("CREATING TPCH TABLES");
        if let Err(e) = self.run_all(conn, TABLES_SQL, "create the tables").await {
            // Leave nothing half-made behind.
            let undo = if created {
                format!("DROP DATABASE {}", ident(db))
            } else {
                let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
                format!("DROP TABLE IF EXISTS {}", names.join(", "))
            };
            let _ = conn.query_drop(undo).await;
            return Err(e);
        }
        base.choose_method(conn).await
    }

    async fn finish_on(&self, conn: &mut Wire, say: &Say) -> Result<()> {
        say.line("CREATING TPCH INDEXES");
        self.run_all(conn, KEYS_SQL, "add the keys").await?;
        say.line("CREATING TPCH FOREIGN KEYS");
        // The generator's rows are consistent and checkschema counts them: not checked again
        // row by row (InnoDB would copy each table to do so).
        conn.query_drop("SET foreign_key_checks = 0")
            .await
            .map_err(|e| self.base.failed("cannot set", "foreign_key_checks", &e))?;
        self.run_all(conn, FOREIGN_SQL, "add the foreign keys")
            .await?;
        say.line("GATHERING SCHEMA STATISTICS");
        let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
        let results = conn
            .query_texts(&format!("ANALYZE TABLE {}", names.join(", ")))
            .await
            .map_err(|e| self.base.failed("cannot analyze", "the tables", &e))?;
        if let Some((table, msg)) = results
            .iter()
            .find(|r| cell(r, 2).eq_ignore_ascii_case("error"))
            .map(|r| (cell(r, 0), cell(r, 3)))
        {
            return Err(Error::AnalyzeFailed {
                table,
                engine: self.base.dialect.database.name(),
                addr: self.base.peer().addr,
                said: msg,
            });
        }
        say.line("TPCH SCHEMA COMPLETE");
        Ok(())
    }

    async fn inventory_on(&self, conn: &mut Wire) -> Result<Option<Vec<TableFacts>>> {
        let base = &self.base;
        let db = &base.dbname;
        let exists = conn
            .exec_texts(
                "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
                db,
            )
            .await
            .map_err(|e| base.failed("cannot query", "the databases", &e))?
            .first()
            .is_some_and(|r| cell(r, 0) == "1");
        if !exists {
            return Ok(None);
        }
        let found = conn
            .exec_texts(
                "SELECT t.TABLE_NAME, EXISTS (SELECT 1 FROM information_schema.TABLE_CONSTRAINTS k
                         WHERE k.TABLE_SCHEMA = t.TABLE_SCHEMA AND k.TABLE_NAME = t.TABLE_NAME
                           AND k.CONSTRAINT_TYPE = 'PRIMARY KEY')
                   FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = ?",
                db,
            )
            .await
            .map_err(|e| base.failed("cannot query", "the tables", &e))?;
        let mut facts = Vec::new();
        for row in found {
            let name = cell(&row, 0);
            let Some(table) = Table::ALL
                .into_iter()
                .find(|t| t.name().eq_ignore_ascii_case(&name))
            else {
                continue;
            };
            let indexes = conn
                .exec_texts(
                    &format!(
                        "SELECT DISTINCT LOWER(INDEX_NAME) FROM information_schema.STATISTICS
                          WHERE TABLE_SCHEMA = ? AND TABLE_NAME = '{}' AND INDEX_NAME <> 'PRIMARY'",
                        table.name()
                    ),
                    db,
                )
                .await
                .map_err(|e| base.failed("cannot query", &format!("the indexes of {name}"), &e))?
                .iter()
                .map(|r| cell(r, 0))
                .collect();
            facts.push(TableFacts {
                table,
                primary_key: cell(&row, 1) == "1",
                indexes,
            });
        }
        Ok(Some(facts))
    }
}

impl SchemaDb for MyTpch {
    type Loader = MyLoader;

    fn name(&self) -> &'static str {
        self.base.dialect.database.name()
    }

    fn describe(&self) -> String {
        self.base.describe()
    }

    async fn create(&self, say: &Say) -> Result<()> {
        self.base.shared.remember(say);
        self.base
            .with_conn(&self.base.server, async |conn| {
                if let Some(note) = conn.note() {
                    say.line(note);
                }
                self.create_on(conn, say).await
            })
            .await
    }

    async fn loader(&self, at: Position) -> Result<MyLoader> {
        self.base.loader(at).await
    }

    async fn finish(&self, say: &Say) -> Result<()> {
        self.base
            .with_conn(&self.base.schema, async |conn| {
                self.finish_on(conn, say).await
            })
            .await
    }

    fn database(&self) -> String {
        self.dbname().to_string()
    }

    async fn owner_conn(&self) -> Result<crate::sql::ScriptConn> {
        crate::tpcc::schema::SchemaDb::owner_conn(&self.base).await
    }

    async fn size_on_disk(&self) -> Result<u64> {
        self.base.size_on_disk().await
    }

    async fn inventory(&self) -> Result<Option<Vec<TableFacts>>> {
        self.base
            .with_conn(&self.base.server, async |conn| {
                self.inventory_on(conn).await
            })
            .await
    }

    async fn survey(&self) -> Result<crate::bench::Survey> {
        self.base.survey_db().await
    }

    async fn delete(&self, say: &Say) -> Result<Vec<String>> {
        self.base.delete(say).await
    }
}

impl Loader for MyLoader {
    async fn load(&mut self, table: Table, rows: &[u8]) -> Result<()> {
        self.load_rows(table.table_ref(), rows).await
    }

    async fn close(self) {
        self.close_conn().await;
    }
}
