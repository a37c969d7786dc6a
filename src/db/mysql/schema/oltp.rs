//! The OLTP tables on MariaDB and MySQL: the database made as for TPROC-C (the same
//! [`MySchema`] steps, on the `*_oltp_*` keys, in the server's default character set as
//! sysbench users make theirs), `sbtest1..N` as sysbench's mysql driver makes them in
//! `*_oltp_storage_engine` (`schemas/mysql/oltp/tables.sql`), loading through [`MyLoader`]
//! (`LOAD DATA LOCAL`, or INSERTs where the server refuses it), each table's index on `k`
//! and statistics after its rows, the inventory `checkschema` reads, and removal.

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
use crate::oltp::schema::{Column, Index, Loader, Say, SchemaDb, TableFacts};
use crate::oltp::{Layout, Table, NAME};
use crate::sqlfile::{self, Named};
use crate::tpcc::schema::SchemaDb as _;

const TABLES_SQL: &str = include_str!("../../../../schemas/mysql/oltp/tables.sql");

/// The OLTP tables on a MariaDB or MySQL server, from the `oltp` dictionary.
pub struct MyOltp {
    base: MySchema,
}

impl MyOltp {
    /// The OLTP tables of `dialect`'s database, from its `oltp` dictionary.
    pub fn new(settings: &Settings, dialect: &'static MyDialect) -> Self {
        let db = dialect.database;
        let d = settings.db(db);
        let server = MyTarget::login(settings, dialect, "oltp_user", "oltp_pass");
        let dbname = d.get(&db.key("oltp_dbase")).to_string();
        MyOltp {
            base: MySchema {
                dialect,
                schema: MyTarget {
                    dbname: Some(dbname.clone()),
                    ..server.clone()
                },
                server,
                to: Destination::of(settings, db),
                dbname,
                engine: d.get(&db.key("oltp_storage_engine")).to_string(),
                history_pk: false,
                partition: false,
                force_insert: false,
                server_charset: true,
                shared: Arc::new(Shared {
                    method: AtomicU8::new(METHOD_UNKNOWN),
                    said: AtomicBool::new(false),
                    say: Mutex::new(None),
                }),
                workload: NAME,
                keys: "oltp_",
            }
            .with_dialects_bulk(),
        }
    }

    /// `*_oltp_dbase`.
    pub fn dbname(&self) -> &str {
        &self.base.dbname
    }

    /// The schema user's login on the schema's database: where the run's statements go.
    pub fn schema_target(&self) -> MyTarget {
        self.base.schema.clone()
    }

    async fn create_on(&self, conn: &mut Wire, layout: &Layout, say: &Say) -> Result<()> {
        let base = &self.base;
        check_engine_name(&base.engine, &base.key("storage_engine"))?;
        let db = &base.dbname;
        let created = base.make_database(conn, say).await?;
        conn.query_drop(format!("USE {}", ident(db)))
            .await
            .map_err(|e| base.failed("cannot use", &format!("database {db}"), &e))?;
        let sql = Named::parse(TABLES_SQL);
        for t in layout.all() {
            say.line(format!("Creating table '{}'...", t.name()));
            let statement = create_table(&sql, layout, t, &base.engine);
            if let Err(e) = conn.query_drop(&statement).await {
                // Leave nothing half-made behind.
                let undo = if created {
                    format!("DROP DATABASE {}", ident(db))
                } else {
                    let names: Vec<&str> = (1..t.0).map(|n| Table(n).name()).collect();
                    format!("DROP TABLE IF EXISTS {}", names.join(", "))
                };
                if created || t.0 > 1 {
                    let _ = conn.query_drop(undo).await;
                }
                return Err(base.denied_or_failed(
                    "CREATE",
                    &format!("GRANT ALL ON {db}.* to it"),
                    "cannot create tables on",
                    &format!("create {} in {db}", t.name()),
                    &e,
                ));
            }
        }
        base.choose_method(conn).await
    }

    async fn finish_on(
        &self,
        conn: &mut Wire,
        layout: &Layout,
        table: Table,
        say: &Say,
    ) -> Result<()> {
        let sql = Named::parse(TABLES_SQL);
        let n = table.0.to_string();
        let vars = [("n", n.as_str())];
        let name = table.name();
        if layout.create_secondary {
            say.line(format!("Creating a secondary index on '{name}'..."));
            conn.query_drop(sqlfile::render(sql.get("secondary_index"), &vars))
                .await
                .map_err(|e| {
                    self.base
                        .failed("cannot create", &format!("index k_{n} on {name}"), &e)
                })?;
        }
        let results = conn
            .query_texts(&sqlfile::render(sql.get("analyze"), &vars))
            .await
            .map_err(|e| self.base.failed("cannot analyze", name, &e))?;
        if let Some(msg) = results
            .iter()
            .find(|r| cell(r, 2).eq_ignore_ascii_case("error"))
            .map(|r| cell(r, 3))
        {
            return Err(Error::AnalyzeFailed {
                table: name.to_string(),
                engine: self.base.dialect.database.name(),
                addr: self.base.peer().addr,
                said: msg,
            });
        }
        Ok(())
    }

    async fn inventory_on(&self, conn: &mut Wire, tables: u32) -> Result<Option<Vec<TableFacts>>> {
        let base = &self.base;
        let db = &base.dbname;
        let asked = |what: &str, e| base.failed("cannot query", what, &e);
        let exists = conn
            .exec_texts(
                "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
                db,
            )
            .await
            .map_err(|e| asked("the databases", e))?
            .first()
            .is_some_and(|r| cell(r, 0) == "1");
        if !exists {
            return Ok(None);
        }
        let ours = |name: &str| Table::parse(name).filter(|t| (1..=tables).contains(&t.0));
        let mut facts: Vec<TableFacts> = conn
            .exec_texts(
                "SELECT TABLE_NAME, LOWER(COALESCE(ENGINE, '')) FROM information_schema.TABLES
                  WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE 'sbtest%'",
                db,
            )
            .await
            .map_err(|e| asked("the tables", e))?
            .iter()
            .filter_map(|r| {
                Some(TableFacts {
                    table: ours(&cell(r, 0))?,
                    columns: Vec::new(),
                    primary_key: Vec::new(),
                    indexes: Vec::new(),
                    engine: Some(cell(r, 1)),
                })
            })
            .collect();
        facts.sort_by_key(|f| f.table);
        let columns = conn
            .exec_texts(
                "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, EXTRA
                   FROM information_schema.COLUMNS
                  WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE 'sbtest%'
                  ORDER BY TABLE_NAME, ORDINAL_POSITION",
                db,
            )
            .await
            .map_err(|e| asked("the columns", e))?;
        for r in &columns {
            let Some(f) = ours(&cell(r, 0)).and_then(|t| facts.iter_mut().find(|f| f.table == t))
            else {
                continue;
            };
            f.columns.push(Column {
                name: cell(r, 1),
                kind: shared_kind(&cell(r, 2)),
                not_null: cell(r, 3).eq_ignore_ascii_case("NO"),
                default: r.get(4).cloned().flatten(),
                auto_inc: cell(r, 5).to_ascii_lowercase().contains("auto_increment"),
            });
        }
        let indexes = conn
            .exec_texts(
                "SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, COLUMN_NAME
                   FROM information_schema.STATISTICS
                  WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE 'sbtest%'
                  ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX",
                db,
            )
            .await
            .map_err(|e| asked("the indexes", e))?;
        for r in &indexes {
            let Some(f) = ours(&cell(r, 0)).and_then(|t| facts.iter_mut().find(|f| f.table == t))
            else {
                continue;
            };
            let (name, column) = (cell(r, 1), cell(r, 3));
            if name.eq_ignore_ascii_case("PRIMARY") {
                f.primary_key.push(column);
                continue;
            }
            let name = name.to_ascii_lowercase();
            match f.indexes.iter_mut().find(|i| i.name == name) {
                Some(i) => i.columns.push(column),
                None => f.indexes.push(Index {
                    name,
                    columns: vec![column],
                    unique: cell(r, 2) == "0",
                }),
            }
        }
        Ok(Some(facts))
    }
}

/// `table`'s CREATE TABLE for `layout` in storage engine `engine`, from tables.sql.
fn create_table(sql: &Named, layout: &Layout, table: Table, engine: &str) -> String {
    let id = if layout.auto_inc {
        "INTEGER NOT NULL AUTO_INCREMENT"
    } else {
        "INTEGER NOT NULL"
    };
    let key = if layout.secondary {
        "KEY xid"
    } else {
        "PRIMARY KEY"
    };
    let n = table.0.to_string();
    sqlfile::render(
        sql.get("create_table"),
        &[("n", &n), ("id", id), ("id_key", key), ("engine", engine)],
    )
}

/// A type as `COLUMN_TYPE` writes it, in the words both families share: `int(11)` and
/// `int` are `integer`.
fn shared_kind(kind: &str) -> String {
    let kind = kind.to_ascii_lowercase();
    match kind.split('(').next() {
        Some("int") | Some("integer") if !kind.contains("unsigned") => "integer".to_string(),
        _ => kind,
    }
}

impl SchemaDb for MyOltp {
    type Loader = MyLoader;

    fn name(&self) -> &'static str {
        self.base.dialect.database.name()
    }

    fn describe(&self) -> String {
        crate::tpcc::schema::SchemaDb::describe(&self.base)
    }

    fn database(&self) -> String {
        self.dbname().to_string()
    }

    fn storage_engine(&self) -> Option<String> {
        Some(self.base.engine.clone())
    }

    async fn create(&self, layout: &Layout, say: &Say) -> Result<()> {
        self.base.shared.remember(say);
        self.base
            .with_conn(&self.base.server, async |conn| {
                if let Some(note) = conn.note() {
                    say.line(note);
                }
                self.create_on(conn, layout, say).await
            })
            .await
    }

    async fn loader(&self, at: Position) -> Result<MyLoader> {
        crate::tpcc::schema::SchemaDb::loader(&self.base, at).await
    }

    async fn finish_table(&self, layout: &Layout, table: Table, say: &Say) -> Result<()> {
        self.base
            .with_conn(&self.base.schema, async |conn| {
                self.finish_on(conn, layout, table, say).await
            })
            .await
    }

    async fn owner_conn(&self) -> Result<crate::sql::ScriptConn> {
        self.base.owner_conn().await
    }

    async fn size_on_disk(&self) -> Result<u64> {
        self.base.size_on_disk().await
    }

    async fn inventory(&self, tables: u32) -> Result<Option<Vec<TableFacts>>> {
        self.base
            .with_conn(&self.base.server, async |conn| {
                self.inventory_on(conn, tables).await
            })
            .await
    }

    async fn survey(&self) -> Result<crate::bench::Survey> {
        self.base.survey_db().await
    }

    async fn delete(&self, say: &Say) -> Result<Vec<String>> {
        self.base
            .with_conn(&self.base.server, async |conn| {
                self.base.delete_on(conn, say).await
            })
            .await
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_sysbenchs() {
        let sql = Named::parse(TABLES_SQL);
        let layout = Layout {
            tables: 1,
            table_size: 10,
            auto_inc: true,
            secondary: false,
            create_secondary: true,
            empty: false,
        };
        assert_eq!(
            create_table(&sql, &layout, Table(3), "innodb"),
            "CREATE TABLE sbtest3 (\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  \
             k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  \
             pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) ENGINE = innodb"
        );
        let plain = Layout {
            auto_inc: false,
            secondary: true,
            ..layout
        };
        let text = create_table(&sql, &plain, Table(1), "myisam");
        assert!(text.contains("id INTEGER NOT NULL,"), "{text}");
        assert!(text.contains("KEY xid (id)\n) ENGINE = myisam"), "{text}");
        assert_eq!(shared_kind("int(11)"), "integer");
        assert_eq!(shared_kind("INT"), "integer");
        assert_eq!(shared_kind("int(10) unsigned"), "int(10) unsigned");
        assert_eq!(shared_kind("char(120)"), "char(120)");
    }
}
