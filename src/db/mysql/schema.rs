//! The TPROC-C schema on MariaDB and MySQL: creation, procedures, removal; the loading
//! (`load`) and `checkschema` (`check`) in their own files.
//!
//! One [`MySchema`] serves both dictionaries (`maria_*` and `mysql_*` keys). Rows arrive as
//! [`Format::COPY`](crate::tpcc::Format::COPY) text, which is exactly `LOAD DATA`'s default
//! format (fields ended by a tab, lines by a newline, `\` escapes, `\N` for NULL), so they are
//! streamed to the server untouched as the data of a `LOAD DATA LOCAL INFILE` (the lean
//! connection of `db::mysql::wire` sends the rows it is given, never a file). Where the server
//! refuses `LOAD DATA LOCAL` the same text is parsed into multi-row INSERTs.

mod check;
mod load;
pub mod oltp;
mod queries;
pub mod tpch;

use std::sync::atomic::{AtomicBool, AtomicU8};
use std::sync::{Arc, Mutex};

use self::check::{check_on, Names};
pub use self::load::{LoadMethod, MyLoader};
use self::load::{Shared, CHARSET, COLLATION, METHOD_UNKNOWN};
use self::queries::{cell, ident, Queries};

use crate::config::{Database, Settings};
use crate::db::mysql::dialect::{Bulk, MyDialect};
use crate::db::mysql::script::MyScript;
use crate::db::mysql::wire::{self as mywire, Arg, Wire, WireError};
use crate::db::mysql::MyTarget;
use crate::endpoint::{Destination, Position};
use crate::error::{Error, Result};
use crate::fault::Peer;
use crate::sql::ScriptConn;
use crate::sqlfile;
use crate::tpcc::schema::{Check, Say, SchemaDb};
use crate::tpcc::{Constants, Table};

const TABLES_SQL: &str = include_str!("../../../schemas/mysql/tprocc/tables.sql");
const PROCEDURES_SQL: &str = include_str!("../../../schemas/mysql/tprocc/procedures.sql");
const NURAND_SQL: &str = include_str!("../../../schemas/mysql/tprocc/nurand.sql");

/// The TPROC-C schema on a MariaDB or MySQL server, from the `maria_*` or `mysql_*` keys.
pub struct MySchema {
    /// What the dictionary's database is, whose prefix names the keys (`maria_dbase`); what
    /// the server is decides where it differs.
    dialect: &'static MyDialect,
    /// The user with no database selected: creates, checks and drops the database.
    server: MyTarget,
    /// The same user on `*_dbase`: creates tables and procedures, loads.
    schema: MyTarget,
    /// Where the loaders' connections go.
    to: Destination,
    dbname: String,
    engine: String,
    history_pk: bool,
    partition: bool,
    /// Loads with INSERTs even where `LOAD DATA LOCAL` works (tests, measurements).
    force_insert: bool,
    /// A database it creates takes the server's default character set, as sysbench users
    /// create theirs (OLTP); otherwise the tables' latin1, which TPROC-C's procedures need.
    server_charset: bool,
    shared: Arc<Shared>,
    /// The workload whose schema this is, in messages: `TPROC-C`.
    workload: &'static str,
    /// What the workload's keys have after the prefix: `tpch_` for `maria_tpch_dbase`.
    keys: &'static str,
}

impl MySchema {
    /// The schema of `db`, a database of the family, with its dialect ([`MyDialect::of`]);
    /// the engine makes it with [`MySchema::of`].
    pub fn new(settings: &Settings, db: Database) -> Self {
        Self::of(settings, MyDialect::of(db))
    }

    /// The TPROC-C schema of `dialect`'s database, from its dictionary.
    pub fn of(settings: &Settings, dialect: &'static MyDialect) -> Self {
        let db = dialect.database;
        let d = settings.db(db);
        let schema = MyTarget::schema(settings, dialect);
        MySchema {
            dialect,
            server: MyTarget::server(settings, dialect),
            to: Destination::of(settings, db),
            dbname: schema.dbname.clone().unwrap_or_default(),
            schema,
            engine: d.get(&db.key("storage_engine")).to_string(),
            history_pk: d.get_bool(&db.key("history_pk")),
            partition: d.get_bool(&db.key("partition")),
            force_insert: false,
            server_charset: false,
            shared: Arc::new(Shared {
                method: AtomicU8::new(METHOD_UNKNOWN),
                said: AtomicBool::new(false),
                say: Mutex::new(None),
            }),
            workload: crate::tpcc::options::NAME,
            keys: "",
        }
        .with_dialects_bulk()
    }

    /// Loads with INSERTs from the start where the dialect has no bulk path.
    fn with_dialects_bulk(self) -> Self {
        match self.dialect.bulk {
            Bulk::LoadDataLocal => self,
            Bulk::Insert => self.with_inserts(),
        }
    }

    /// Loads with multi-row INSERTs even where `LOAD DATA LOCAL` works: for tests of the
    /// fallback and for comparing the two methods.
    pub fn with_inserts(mut self) -> Self {
        self.force_insert = true;
        self.shared.set_method(LoadMethod::Insert);
        self
    }

    /// The method loaders use now; `None` until `create` or a first load has found out.
    pub fn load_method(&self) -> Option<LoadMethod> {
        self.shared.method()
    }

    fn peer(&self) -> Peer {
        self.server.peer()
    }

    fn key(&self, name: &str) -> String {
        self.dialect.key(&format!("{}{name}", self.keys))
    }

    /// A failed statement as an error naming the server and user (never the password).
    fn failed(&self, action: &'static str, what: &str, e: &WireError) -> Error {
        Error::Db(
            self.peer()
                .failed(action, e.kind, format!("{what}: {}", e.detail)),
        )
    }

    /// A statement refused for lack of a privilege, as one line saying which; other errors
    /// as [`MySchema::failed`].
    /// `what` is what the user tried ("create database tpcc"), `right` the privilege it needs
    /// and `fix` how to give it.
    fn denied_or_failed(
        &self,
        right: &'static str,
        fix: &str,
        action: &'static str,
        what: &str,
        e: &WireError,
    ) -> Error {
        match e {
            // ER_DBACCESS_DENIED_ERROR, ER_TABLEACCESS_DENIED_ERROR, ER_SPECIFIC_ACCESS_DENIED,
            // ER_PROCACCESS_DENIED_ERROR
            s if matches!(s.code, 1044 | 1142 | 1227 | 1370) => Error::LacksPrivilege {
                peer: Box::new(self.peer()),
                what: what.to_string(),
                right,
                fix: fix.to_string(),
                said: s.detail.clone(),
            },
            other => self.failed(action, what, other),
        }
    }

    /// Runs `f` on a new connection to `target` and always disconnects it.
    async fn with_conn<T>(
        &self,
        target: &MyTarget,
        f: impl AsyncFnOnce(&mut Wire) -> Result<T>,
    ) -> Result<T> {
        let mut conn = mywire::connect(target).await?;
        let result = f(&mut conn).await;
        conn.close().await;
        result
    }

    async fn create_on(&self, conn: &mut Wire, warehouses: u32, say: &Say) -> Result<()> {
        check_engine_name(&self.engine, &self.key("storage_engine"))?;
        let db = &self.dbname;
        say.line(format!("CREATING {} SCHEMA", db.to_uppercase()));
        let created = self.make_database(conn, say).await?;
        conn.query_drop(format!("USE {}", ident(db)))
            .await
            .map_err(|e| self.failed("cannot use", &format!("database {db}"), &e))?;
        if let Err(e) = self.make_tables(conn, warehouses, say).await {
            // Leave nothing half-made behind: the database if this build made it, else the
            // tables (the database held none before).
            let undo = if created {
                format!("DROP DATABASE {}", ident(db))
            } else {
                let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
                format!("DROP TABLE IF EXISTS {}", names.join(", "))
            };
            let _ = conn.query_drop(undo).await;
            return Err(e);
        }

        self.choose_method(conn).await
    }

    /// Says now, before loading starts, how the rows will travel: `LOAD DATA LOCAL` where
    /// the server allows it, else INSERTs.
    async fn choose_method(&self, conn: &mut Wire) -> Result<()> {
        let method = if self.force_insert {
            LoadMethod::Insert
        } else {
            let on = conn
                .first_int("SELECT @@GLOBAL.local_infile")
                .await
                .map_err(|e| self.failed("cannot query", "local_infile", &e))?;
            if on.unwrap_or(0) != 0 {
                LoadMethod::LoadData
            } else {
                LoadMethod::Insert
            }
        };
        self.shared.set_method(method);
        self.shared.say_once(match method {
            LoadMethod::LoadData => format!("Loading rows with {}", method.describe()),
            LoadMethod::Insert if self.force_insert => {
                format!("Loading rows with {}", method.describe())
            }
            LoadMethod::Insert => format!(
                "The server has local_infile OFF: loading rows with {} (SET GLOBAL local_infile=ON \
                 loads faster)",
                method.describe()
            ),
        });
        Ok(())
    }

    /// Creates the database, or re-uses an empty one; true when it was created.
    async fn make_database(&self, conn: &mut Wire, say: &Say) -> Result<bool> {
        let db = &self.dbname;
        say.line(format!("CHECKING IF DATABASE {db} EXISTS"));
        let found = conn
            .exec_texts(
                "SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME \
                 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
                db,
            )
            .await
            .map_err(|e| self.failed("cannot query", "looking for the database", &e))?
            .into_iter()
            .next()
            .map(|r| (cell(&r, 0), cell(&r, 1)));
        match found {
            Some((charset, collation)) => {
                let tables = conn
                    .exec_texts(
                        "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
                        db,
                    )
                    .await
                    .map_err(|e| self.failed("cannot query", "counting its tables", &e))?
                    .first()
                    .and_then(|r| cell(r, 0).parse::<u64>().ok())
                    .unwrap_or(0);
                if tables > 0 {
                    return Err(Error::DatabaseNotEmpty { db: db.clone() });
                }
                say.line(format!(
                    "Using existing empty Database {db} for Schema build"
                ));
                if !self.server_charset
                    && (!charset.eq_ignore_ascii_case(CHARSET)
                        || !collation.eq_ignore_ascii_case(COLLATION))
                {
                    say.line(format!(
                        "Setting the default collation of Database {db} to {COLLATION} (was \
                         {collation}), so the stored procedures compare text as the tables do"
                    ));
                    conn.query_drop(format!(
                        "ALTER DATABASE {} CHARACTER SET {CHARSET} COLLATE {COLLATION}",
                        ident(db)
                    ))
                    .await
                    .map_err(|e| {
                        self.denied_or_failed(
                            "ALTER",
                            &format!("GRANT ALTER ON {db}.* to it, or use a new database name"),
                            "cannot alter",
                            &format!("alter database {db}"),
                            &e,
                        )
                    })?;
                }
                Ok(false)
            }
            None => {
                say.line(format!("CREATING DATABASE {db}"));
                let charset = if self.server_charset {
                    String::new()
                } else {
                    format!(" CHARACTER SET {CHARSET} COLLATE {COLLATION}")
                };
                conn.query_drop(format!("CREATE DATABASE {}{charset}", ident(db)))
                    .await
                    .map_err(|e| {
                        self.denied_or_failed(
                            "CREATE",
                            &format!(
                                "GRANT CREATE ON *.* to it, or create {db} as another user and \
                             GRANT ALL ON {db}.* to it"
                            ),
                            "cannot create",
                            &format!("create database {db}"),
                            &e,
                        )
                    })?;
                Ok(true)
            }
        }
    }

    /// Creates the nine tables with their keys, in the database the connection uses.
    async fn make_tables(&self, conn: &mut Wire, warehouses: u32, say: &Say) -> Result<()> {
        let db = &self.dbname;
        let server = server_kind(conn)
            .await
            .map_err(|e| self.failed("cannot query", "the server version", &e))?;
        let history_pk = if self.history_pk {
            match history_pk_refusal(&self.engine, &server) {
                None => HISTORY_PK,
                Some(why) => {
                    say.line(format!(
                        "{why}: {} ignored, HISTORY created without a primary key",
                        self.key("history_pk")
                    ));
                    ""
                }
            }
        } else {
            ""
        };
        if self.partition && !self.dialect.partitioning {
            say.line(format!(
                "{} has no partitioning: {} ignored, ORDER_LINE not partitioned",
                self.dialect.server,
                self.key("partition")
            ));
        }
        let asked = self.partition && self.dialect.partitioning;
        let partition = match partitions(asked, warehouses) {
            Some(n) => format!("PARTITION BY HASH (ol_w_id) PARTITIONS {n}"),
            None => {
                if asked {
                    say.line(format!(
                        "Partitioning needs at least 200 warehouses, {warehouses} requested: \
                         ORDER_LINE not partitioned"
                    ));
                }
                String::new()
            }
        };
        say.line("CREATING TPCC TABLES");
        let vars = [
            ("engine", self.engine.as_str()),
            ("history_pk", history_pk),
            ("partition", partition.as_str()),
        ];
        // Split first: the header's comments name the placeholders too.
        for statement in sqlfile::split(TABLES_SQL) {
            let statement = sqlfile::render(&statement, &vars);
            conn.query_drop(&statement).await.map_err(|e| {
                self.denied_or_failed(
                    "CREATE",
                    &format!("GRANT ALL ON {db}.* to it"),
                    "cannot create tables on",
                    &format!("create the tables in {db}"),
                    &e,
                )
            })?;
        }

        Ok(())
    }

    async fn finish_on(&self, conn: &mut Wire, constants: &Constants, say: &Say) -> Result<()> {
        let db = &self.dbname;
        let procedures = if self.dialect.routines {
            say.line("CREATING TPCC STORED PROCEDURES");
            sqlfile::split(PROCEDURES_SQL)
        } else {
            Vec::new()
        };
        for statement in procedures {
            conn.query_drop(&statement).await.map_err(|e| {
                self.denied_or_failed(
                    "CREATE ROUTINE",
                    &format!("GRANT ALL ON {db}.* to it"),
                    "cannot create procedures on",
                    &format!("create the stored procedures in {db}"),
                    &e,
                )
            })?;
        }
        for statement in sqlfile::split(NURAND_SQL) {
            let statement = sqlfile::render(&statement, &[("engine", &self.engine)]);
            match conn.query_drop(&statement).await {
                // ER_TABLE_EXISTS_ERROR: finish is run again; the row is replaced below.
                Err(e) if e.code == 1050 => {}
                other => {
                    other.map_err(|e| self.failed("cannot create", "table tpcc_nurand", &e))?
                }
            }
        }
        conn.query_drop("DELETE FROM tpcc_nurand")
            .await
            .map_err(|e| self.failed("cannot write", "tpcc_nurand", &e))?;
        conn.exec_rows(
            "INSERT INTO tpcc_nurand (c_last, c_id, ol_i_id) VALUES (?, ?, ?)",
            &[constants.c_last, constants.c_id, constants.ol_i_id].map(|v| Arg::Int(i64::from(v))),
        )
        .await
        .map_err(|e| self.failed("cannot write", "tpcc_nurand", &e))?;

        say.line("GATHERING SCHEMA STATISTICS");
        let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
        let results = conn
            .query_texts(&format!("ANALYZE TABLE {}", names.join(", ")))
            .await
            .map_err(|e| self.failed("cannot analyze", "the tables", &e))?;
        if let Some((table, msg)) = results
            .iter()
            .find(|r| cell(r, 2).eq_ignore_ascii_case("error"))
            .map(|r| (cell(r, 0), cell(r, 3)))
        {
            return Err(Error::AnalyzeFailed {
                table,
                engine: self.dialect.database.name(),
                addr: self.peer().addr,
                said: msg,
            });
        }
        say.line(format!("{} SCHEMA COMPLETE", db.to_uppercase()));
        Ok(())
    }

    /// A system schema (`mysql`, `information_schema`, ...) is never surveyed or dropped.
    fn refuse_system_db(&self) -> Result<()> {
        if SYSTEM_SCHEMAS
            .iter()
            .any(|s| s.eq_ignore_ascii_case(&self.dbname))
        {
            return Err(Error::SystemDatabase {
                key: self.key("dbase"),
                db: self.dbname.clone(),
                engine: self.dialect.database.name(),
            });
        }
        Ok(())
    }

    /// What `delete` would drop: the database, every table and view in it, and their size
    /// (the login stays: hammer never creates MariaDB or MySQL users).
    pub(super) async fn survey_db(&self) -> Result<crate::bench::Survey> {
        let db = &self.dbname;
        self.refuse_system_db()?;
        let peer = self.peer();
        self.with_conn(&self.server, async |conn| {
            // MySQL 8 caches the sizes for a day unless told otherwise; MariaDB has no such
            // variable (error 1193), and needs nothing.
            let _ = conn
                .query_drop("SET SESSION information_schema_stats_expiry = 0")
                .await;
            let asked = |e: &WireError| self.failed("cannot query", "the tables", e);
            let exists = !conn
                .exec_texts(
                    "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
                    db,
                )
                .await
                .map_err(|e| asked(&e))?
                .is_empty();
            let rows = conn
                .exec_texts(
                    "SELECT TABLE_NAME, \
                            CAST(COALESCE(DATA_LENGTH, 0) + COALESCE(INDEX_LENGTH, 0) AS UNSIGNED) \
                     FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME",
                    db,
                )
                .await
                .map_err(|e| asked(&e))?;
            Ok(crate::bench::Survey {
                server: format!("{} at {}", self.dialect.database.name(), peer.addr),
                database: db.clone(),
                database_key: self.key("dbase"),
                user: format!("user {} (kept)", peer.user),
                exists,
                tables: rows.iter().map(|r| cell(r, 0)).collect(),
                bytes: rows
                    .iter()
                    .filter_map(|r| cell(r, 1).parse::<u64>().ok())
                    .sum(),
            })
        })
        .await
    }

    async fn delete_on(&self, conn: &mut Wire, say: &Say) -> Result<Vec<String>> {
        let db = &self.dbname;
        self.refuse_system_db()?;
        match conn
            .query_drop(format!("DROP DATABASE {}", ident(db)))
            .await
        {
            Ok(()) => {}
            // ER_DB_DROP_EXISTS: not an error, so that "delete, then build" works on a fresh
            // server.
            Err(e) if e.code == 1008 => {
                let peer = self.peer();
                let line = format!(
                    "Database {db} does not exist on {} at {} (looked for as {}): nothing to delete",
                    self.dialect.database.name(),
                    peer.addr,
                    peer.user
                );
                say.line(&line);
                return Ok(vec![line]);
            }
            Err(e) => {
                return Err(self.denied_or_failed(
                    "DROP",
                    &format!("GRANT DROP ON {db}.* to it"),
                    "cannot drop",
                    &format!("drop database {db}"),
                    &e,
                ))
            }
        }
        let line = format!(
            "{db} {} Schema has been deleted successfully.",
            self.workload
        );
        say.line(&line);
        Ok(vec![line])
    }
}

impl SchemaDb for MySchema {
    type Loader = MyLoader;

    fn name(&self) -> &'static str {
        self.dialect.database.name()
    }

    fn describe(&self) -> String {
        let where_ = match &self.server.socket {
            Some(s) => format!("socket {}", s.display()),
            None => format!("host {}", self.peer().addr),
        };
        format!(
            "{where_} under user {} in database {}",
            self.server.user, self.dbname
        )
    }

    async fn create(&self, warehouses: u32, say: &Say) -> Result<()> {
        self.shared.remember(say);
        self.with_conn(&self.server, async |conn| {
            // The socket leads to another server: say where the schema goes instead.
            if let Some(note) = conn.note() {
                say.line(note);
            }
            if let Some(line) = self.dialect.reached(conn.dialect(), conn.addr()) {
                say.line(line);
            }
            self.create_on(conn, warehouses, say).await
        })
        .await
    }

    async fn loader(&self, at: Position) -> Result<MyLoader> {
        let target = self.schema.clone().routed(&self.to.route(at));
        let mut conn = mywire::connect(&target).await?;
        let peer = target.peer();
        // Bulk-load settings for this session only. sql_log_bin needs SUPER (or
        // BINLOG ADMIN / SYSTEM_VARIABLES_ADMIN): without it the binary log stays on.
        let setup = conn
            .query_drop("SET unique_checks = 0, foreign_key_checks = 0")
            .await;
        if let Err(e) = setup {
            conn.close().await;
            return Err(Error::Db(peer.failed(
                "cannot set up a loading session on",
                e.kind,
                e.detail,
            )));
        }
        match conn.query_drop("SET sql_log_bin = 0").await {
            // The server's refusal (no privilege): the binary log stays on.
            Ok(()) => {}
            Err(e) if e.code != 0 => {}
            Err(e) => {
                conn.close().await;
                return Err(Error::Db(peer.failed(
                    "cannot set up a loading session on",
                    e.kind,
                    e.detail,
                )));
            }
        }
        Ok(MyLoader {
            conn: Box::new(conn),
            peer,
            shared: self.shared.clone(),
        })
    }

    fn database(&self) -> String {
        self.dbname.clone()
    }

    async fn owner_conn(&self) -> Result<ScriptConn> {
        let wire = mywire::connect(&self.schema).await?;
        Ok(ScriptConn::new(MyScript {
            wire: Box::new(wire),
            peer: self.schema.peer(),
        }))
    }

    async fn finish(&self, constants: &Constants, say: &Say) -> Result<()> {
        self.with_conn(&self.schema, async |conn| {
            self.finish_on(conn, constants, say).await
        })
        .await
    }

    async fn warehouses(&self) -> Result<u32> {
        self.with_conn(&self.schema, async |conn| {
            let max = conn
                .first_int("SELECT COALESCE(MAX(w_id), 0) FROM warehouse")
                .await
                .map_err(|e| self.failed("cannot count", "warehouses", &e))?;
            Ok(max.and_then(|n| u32::try_from(n).ok()).unwrap_or(0))
        })
        .await
    }

    async fn size_on_disk(&self) -> Result<u64> {
        self.with_conn(&self.server, async |conn| {
            // MySQL 8 caches these figures for a day unless told otherwise; MariaDB has no
            // such variable (error 1193), and needs nothing.
            let _ = conn
                .query_drop("SET SESSION information_schema_stats_expiry = 0")
                .await;
            let size = conn
                .exec_texts(
                    "SELECT CAST(COALESCE(SUM(DATA_LENGTH + INDEX_LENGTH), 0) AS UNSIGNED) \
                     FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
                    &self.dbname,
                )
                .await
                .map_err(|e| self.failed("cannot query", "the size of the tables", &e))?
                .first()
                .and_then(|r| cell(r, 0).parse::<u64>().ok());
            Ok(size.unwrap_or(0))
        })
        .await
    }

    async fn check(&self, warehouses: u32, say: &Say) -> Result<Vec<Check>> {
        say.line(format!("Checking {} TPROC-C schema", self.dbname));
        self.with_conn(&self.server, async |conn| {
            let names = Names {
                db: &self.dbname,
                count_ware: self.key("count_ware"),
                routines: self.dialect.routines,
                peer: self.peer(),
            };
            check_on(conn, &names, warehouses, say).await
        })
        .await
    }

    async fn survey(&self) -> Result<crate::bench::Survey> {
        self.survey_db().await
    }

    async fn delete(&self, say: &Say) -> Result<Vec<String>> {
        self.with_conn(&self.server, async |conn| self.delete_on(conn, say).await)
            .await
    }
}

/// Databases `deleteschema` never drops.
const SYSTEM_SCHEMAS: [&str; 4] = ["mysql", "information_schema", "performance_schema", "sys"];

/// HISTORY's invisible key column (tables.sql `{{history_pk}}`).
const HISTORY_PK: &str = ", id INT NOT NULL AUTO_INCREMENT INVISIBLE PRIMARY KEY";

/// The server's dialect, as its `version()` names it, and its version.
#[derive(Debug, Clone, Copy)]
struct ServerKind {
    dialect: &'static MyDialect,
    version: (u16, u16, u16),
}

async fn server_kind(conn: &mut Wire) -> Result<ServerKind, WireError> {
    let text = conn.query_texts("SELECT VERSION()").await?;
    Ok(ServerKind {
        dialect: MyDialect::of_server(&text.first().map(|r| cell(r, 0)).unwrap_or_default()),
        version: conn.server_version(),
    })
}

/// Why HISTORY cannot have its invisible key here, or `None` when it can.
fn history_pk_refusal(engine: &str, server: &ServerKind) -> Option<String> {
    if !engine.eq_ignore_ascii_case("innodb") {
        return Some(format!(
            "Invisible PK needs the InnoDB engine, not {engine}"
        ));
    }
    let (min, name) = (server.dialect.invisible_pk_since, server.dialect.server);
    (server.version < min).then(|| {
        format!(
            "Minimum {name} version for invisible PK is {}.{}.{} (server is {}.{}.{})",
            min.0, min.1, min.2, server.version.0, server.version.1, server.version.2
        )
    })
}

/// ORDER_LINE's hash partitions: only when asked and with at least 200 warehouses, one per
/// 100 warehouses (reference 7.5).
fn partitions(asked: bool, warehouses: u32) -> Option<u32> {
    (asked && warehouses >= 200).then_some(warehouses / 100)
}

/// The engine is written into the DDL as it is, so it must be a plain name.
fn check_engine_name(engine: &str, key: &str) -> Result<()> {
    if !engine.is_empty()
        && engine
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        Ok(())
    } else {
        Err(Error::BadStorageEngine {
            value: engine.to_string(),
            key: key.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::check::{expected_indexes, PROCEDURES};
    use super::*;

    #[test]
    fn partitions_only_from_200_warehouses() {
        assert_eq!(partitions(false, 1000), None);
        assert_eq!(partitions(true, 199), None);
        assert_eq!(partitions(true, 200), Some(2));
        assert_eq!(partitions(true, 1050), Some(10));
    }

    #[test]
    fn history_pk_needs_innodb_and_a_recent_server() {
        let maria = |v| ServerKind {
            dialect: MyDialect::of_server("10.11.19-MariaDB"),
            version: v,
        };
        let mysql = |v| ServerKind {
            dialect: MyDialect::of_server("8.0.36"),
            version: v,
        };
        assert_eq!(history_pk_refusal("InnoDB", &maria((10, 3, 3))), None);
        assert!(history_pk_refusal("innodb", &maria((10, 3, 2)))
            .unwrap()
            .contains("10.3.3"));
        assert!(history_pk_refusal("myisam", &maria((11, 4, 0)))
            .unwrap()
            .contains("InnoDB"));
        assert_eq!(history_pk_refusal("innodb", &mysql((8, 0, 30))), None);
        assert!(history_pk_refusal("innodb", &mysql((8, 0, 29)))
            .unwrap()
            .contains("8.0.30"));
    }

    #[test]
    fn engine_names_and_identifiers() {
        assert!(check_engine_name("innodb", "maria_storage_engine").is_ok());
        assert!(check_engine_name("x;drop", "maria_storage_engine").is_err());
        assert_eq!(ident("a`b"), "`a``b`");
    }

    #[test]
    fn sql_files_have_what_the_code_expects() {
        let tables = sqlfile::split(TABLES_SQL);
        assert_eq!(tables.len(), 9);
        for t in Table::ALL {
            assert!(
                tables
                    .iter()
                    .any(|s| s.contains(&format!("CREATE TABLE {} (", t.name()))),
                "{}",
                t.name()
            );
        }
        assert!(TABLES_SQL.contains(&format!("COLLATE = {COLLATION}")));
        for t in Table::ALL {
            let create = tables
                .iter()
                .find(|s| s.contains(&format!("CREATE TABLE {} (", t.name())))
                .unwrap();
            for index in expected_indexes(t) {
                let key = match *index {
                    "PRIMARY" => "PRIMARY KEY (".to_string(),
                    name => format!("KEY {name} ("),
                };
                assert!(create.contains(&key), "{} {index}", t.name());
            }
        }
        let procs = sqlfile::split(PROCEDURES_SQL);
        for p in PROCEDURES {
            assert!(
                procs
                    .iter()
                    .any(|s| s.starts_with(&format!("CREATE PROCEDURE {p}("))),
                "{p}"
            );
        }
        assert!(NURAND_SQL.contains("CREATE TABLE tpcc_nurand"));
    }
}
