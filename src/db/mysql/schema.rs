//! The TPROC-C schema on MariaDB and MySQL: creation, LOAD DATA loading, procedures, checks, removal.
//!
//! One [`MySchema`] serves both dictionaries (`maria_*` and `mysql_*` keys). Rows arrive as
//! [`Format::COPY`](crate::tpcc::Format::COPY) text, which is exactly `LOAD DATA`'s default
//! format (fields ended by a tab, lines by a newline, `\` escapes, `\N` for NULL), so they are
//! streamed to the server untouched as the data of a `LOAD DATA LOCAL INFILE` (the lean
//! connection of `db::mysql::wire` sends the rows it is given, never a file). Where the server
//! refuses `LOAD DATA LOCAL` the same text is parsed into multi-row INSERTs.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use mysql_common::Value;

use crate::config::{Database, Settings};
use crate::db::mysql::wire::{self as mywire, Arg, Wire, WireError};
use crate::db::mysql::{int_of, text_of, MyTarget};
use crate::error::{Error, Result};
use crate::fault::Peer;
use crate::sqlfile;
use crate::tpcc::schema::{Check, Loader, Say, SchemaDb};
use crate::tpcc::{Constants, Table};

const TABLES_SQL: &str = include_str!("../../../schemas/mysql/tprocc/tables.sql");
const PROCEDURES_SQL: &str = include_str!("../../../schemas/mysql/tprocc/procedures.sql");
const NURAND_SQL: &str = include_str!("../../../schemas/mysql/tprocc/nurand.sql");

/// The tables' character set and collation (tables.sql); the database gets them too, so that
/// the stored procedures' text variables compare like the columns they are compared with.
const CHARSET: &str = "latin1";
const COLLATION: &str = "latin1_bin";

/// The five transactions' stored procedures (procedures.sql).
const PROCEDURES: [&str; 5] = ["NEWORD", "PAYMENT", "OSTAT", "DELIVERY", "SLEV"];

/// Rows per INSERT statement when `LOAD DATA LOCAL` is refused, as HammerDB's loader.
const INSERT_ROWS: usize = 1_000;
/// An INSERT statement is sent early once its text reaches this size, far below the
/// smallest default `max_allowed_packet` (16 MB on MariaDB, 64 MB on MySQL).
const INSERT_BYTES: usize = 4 << 20;

/// Server errors meaning `LOAD DATA LOCAL` is switched off: ER_NOT_ALLOWED_COMMAND (1148),
/// MySQL's ER_CLIENT_LOCAL_FILES_DISABLED (3948), MariaDB's ER_LOAD_INFILE_CAPABILITY_DISABLED (4166).
const INFILE_REFUSED: [u16; 3] = [1148, 3948, 4166];

/// How rows reach the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadMethod {
    /// `LOAD DATA LOCAL INFILE`, the text streamed as it is.
    LoadData,
    /// Multi-row `INSERT ... VALUES` built from the text, for servers with `local_infile` off.
    Insert,
}

impl LoadMethod {
    fn describe(self) -> &'static str {
        match self {
            LoadMethod::LoadData => "LOAD DATA LOCAL INFILE",
            LoadMethod::Insert => "multi-row INSERT statements",
        }
    }
}

const METHOD_UNKNOWN: u8 = 0;
const METHOD_LOAD_DATA: u8 = 1;
const METHOD_INSERT: u8 = 2;

/// What the schema and its loaders share: the load method (one loader's discovery that
/// `LOAD DATA LOCAL` is refused spares the others the attempt) and where to say so.
struct Shared {
    method: AtomicU8,
    /// Set once the method in use has been said, so it is said once per build.
    said: AtomicBool,
    /// The build's output, remembered by `create`: loaders have none of their own.
    say: Mutex<Option<Say>>,
}

impl Shared {
    fn method(&self) -> Option<LoadMethod> {
        match self.method.load(Ordering::Relaxed) {
            METHOD_LOAD_DATA => Some(LoadMethod::LoadData),
            METHOD_INSERT => Some(LoadMethod::Insert),
            _ => None,
        }
    }

    fn set_method(&self, method: LoadMethod) {
        let v = match method {
            LoadMethod::LoadData => METHOD_LOAD_DATA,
            LoadMethod::Insert => METHOD_INSERT,
        };
        self.method.store(v, Ordering::Relaxed);
    }

    fn remember(&self, say: &Say) {
        *self.say.lock().unwrap_or_else(|e| e.into_inner()) = Some(say.clone());
    }

    /// Says `text` unless the method has been said already.
    fn say_once(&self, text: String) {
        if self.said.swap(true, Ordering::Relaxed) {
            return;
        }
        if let Some(say) = self.say.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            say.line(text);
        }
    }
}

/// The TPROC-C schema on a MariaDB or MySQL server, from the `maria_*` or `mysql_*` keys.
pub struct MySchema {
    db: Database,
    /// The user with no database selected: creates, checks and drops the database.
    server: MyTarget,
    /// The same user on `*_dbase`: creates tables and procedures, loads.
    schema: MyTarget,
    dbname: String,
    engine: String,
    history_pk: bool,
    partition: bool,
    /// Loads with INSERTs even where `LOAD DATA LOCAL` works (tests, measurements).
    force_insert: bool,
    shared: Arc<Shared>,
}

impl MySchema {
    pub fn new(settings: &Settings, db: Database) -> Self {
        let d = settings.db(db);
        let p = db.prefix();
        let schema = MyTarget::schema(settings, db);
        MySchema {
            db,
            server: MyTarget::server(settings, db),
            dbname: schema.dbname.clone().unwrap_or_default(),
            schema,
            engine: d.get(&format!("{p}_storage_engine")).to_string(),
            history_pk: d.get_bool(&format!("{p}_history_pk")),
            partition: d.get_bool(&format!("{p}_partition")),
            force_insert: false,
            shared: Arc::new(Shared {
                method: AtomicU8::new(METHOD_UNKNOWN),
                said: AtomicBool::new(false),
                say: Mutex::new(None),
            }),
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
        format!("{}_{name}", self.db.prefix())
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
        right: &str,
        fix: &str,
        action: &'static str,
        what: &str,
        e: &WireError,
    ) -> Error {
        match e {
            // ER_DBACCESS_DENIED_ERROR, ER_TABLEACCESS_DENIED_ERROR, ER_SPECIFIC_ACCESS_DENIED,
            // ER_PROCACCESS_DENIED_ERROR
            s if matches!(s.code, 1044 | 1142 | 1227 | 1370) => Error::State(format!(
                "User {user} may not {what} on {name} at {addr}: it lacks the {right} \
                     privilege; {fix} (server said: {msg})",
                user = self.server.user,
                name = self.db.name(),
                addr = self.peer().addr,
                msg = s.detail,
            )),
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

        // Say now, before loading starts, how the rows will travel.
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
                    return Err(Error::State(format!(
                        "Database {db} exists but is not empty, specify a new or empty database \
                         name, or remove the existing schema with deleteschema"
                    )));
                }
                say.line(format!(
                    "Using existing empty Database {db} for Schema build"
                ));
                if !charset.eq_ignore_ascii_case(CHARSET)
                    || !collation.eq_ignore_ascii_case(COLLATION)
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
                conn.query_drop(format!(
                    "CREATE DATABASE {} CHARACTER SET {CHARSET} COLLATE {COLLATION}",
                    ident(db)
                ))
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
        let partition = match partitions(self.partition, warehouses) {
            Some(n) => format!("PARTITION BY HASH (ol_w_id) PARTITIONS {n}"),
            None => {
                if self.partition {
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
        say.line("CREATING TPCC STORED PROCEDURES");
        for statement in sqlfile::split(PROCEDURES_SQL) {
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
            return Err(Error::State(format!(
                "ANALYZE TABLE {table} failed on {} at {}: {msg}",
                self.db.name(),
                self.peer().addr
            )));
        }
        say.line(format!("{} SCHEMA COMPLETE", db.to_uppercase()));
        Ok(())
    }

    async fn check_on(&self, conn: &mut Wire, warehouses: u32, say: &Say) -> Result<Vec<Check>> {
        let db = &self.dbname;
        let q = |what: &str, e: WireError| self.failed("cannot check", what, &e);
        let mut checks = Vec::new();

        say.line("Check database");
        let exists = conn
            .exec_texts(
                "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
                db,
            )
            .await
            .map_err(|e| q("the database", e))?;
        if exists.is_empty() {
            checks.push(Check::fail(
                format!("database {db}"),
                format!("TPROC-C schema {db} does not exist"),
            ));
            return Ok(checks);
        }
        checks.push(Check::pass(format!("database {db}"), "exists"));
        conn.query_drop(format!("USE {}", ident(db)))
            .await
            .map_err(|e| q("the database", e))?;

        say.line("Check tables and indices");
        let tables: HashSet<String> = conn
            .exec_texts(
                "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
                db,
            )
            .await
            .map_err(|e| q("the tables", e))?
            .iter()
            .map(|r| cell(r, 0).to_ascii_lowercase())
            .collect();
        let indexes: HashMap<String, String> = conn
            .exec_texts(
                "SELECT TABLE_NAME, GROUP_CONCAT(DISTINCT INDEX_NAME ORDER BY INDEX_NAME SEPARATOR ', ') \
                 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? GROUP BY TABLE_NAME",
                db,
            )
            .await
            .map_err(|e| q("the indexes", e))?
            .iter()
            .map(|r| (cell(r, 0).to_ascii_lowercase(), cell(r, 1)))
            .collect();
        for table in Table::ALL {
            let t = table.name();
            if tables.contains(t) {
                checks.push(Check::pass(format!("table {t}"), "present"));
            } else {
                checks.push(Check::fail(
                    format!("table {t}"),
                    format!("{db} is missing table {t}"),
                ));
            }
        }
        for table in Table::ALL.into_iter().filter(|t| *t != Table::History) {
            let t = table.name();
            let expected = expected_indexes(table);
            checks.push(match indexes.get(t) {
                Some(names) => {
                    let have: Vec<&str> = names.split(", ").collect();
                    let missing: Vec<&str> = expected
                        .iter()
                        .copied()
                        .filter(|e| !have.iter().any(|h| h.eq_ignore_ascii_case(e)))
                        .collect();
                    if missing.is_empty() {
                        Check::pass(format!("indexes on {t}"), names.clone())
                    } else {
                        Check::fail(
                            format!("indexes on {t}"),
                            format!("missing {} (has {names})", missing.join(", ")),
                        )
                    }
                }
                None if !tables.contains(t) => {
                    Check::fail(format!("indexes on {t}"), format!("table {t} is missing"))
                }
                None => Check::fail(
                    format!("indexes on {t}"),
                    format!("no indices on table {t}"),
                ),
            });
        }

        say.line("Check procedures");
        let routines: HashSet<String> = conn
            .exec_texts(
                "SELECT ROUTINE_NAME FROM information_schema.ROUTINES \
                 WHERE ROUTINE_SCHEMA = ? AND ROUTINE_TYPE = 'PROCEDURE'",
                db,
            )
            .await
            .map_err(|e| q("the procedures", e))?
            .iter()
            .map(|r| cell(r, 0).to_ascii_uppercase())
            .collect();
        for p in PROCEDURES {
            checks.push(if routines.contains(p) {
                Check::pass(format!("procedure {p}"), "present")
            } else {
                Check::fail(
                    format!("procedure {p}"),
                    format!("missing stored procedure {p}"),
                )
            });
        }
        checks.push(if tables.contains("tpcc_nurand") {
            let rows = conn
                .query_texts("SELECT c_last, c_id, ol_i_id FROM tpcc_nurand")
                .await
                .map_err(|e| q("tpcc_nurand", e))?;
            match rows.as_slice() {
                [row] => Check::pass(
                    "table tpcc_nurand",
                    format!(
                        "load constants c_last {}, c_id {}, ol_i_id {}",
                        cell(row, 0),
                        cell(row, 1),
                        cell(row, 2)
                    ),
                ),
                other => Check::fail(
                    "table tpcc_nurand",
                    format!("holds {} rows, expected exactly 1", other.len()),
                ),
            }
        } else {
            Check::fail(
                "table tpcc_nurand",
                "missing table tpcc_nurand (the NURand load constants)",
            )
        });

        // Row counts, and the warehouse count against the dictionary.
        let w = u64::from(warehouses);
        let mut counts: HashMap<Table, u64> = HashMap::new();
        for table in Table::ALL {
            let t = table.name();
            if !tables.contains(t) {
                continue;
            }
            let n = conn
                .first_int(&format!("SELECT COUNT(*) FROM {t}"))
                .await
                .map_err(|e| q(&format!("the rows of {t}"), e))?
                .unwrap_or(0)
                .max(0) as u64;
            counts.insert(table, n);
        }
        checks.push(if tables.contains("warehouse") {
            let max = conn
                .first_int("SELECT COALESCE(MAX(w_id), 0) FROM warehouse")
                .await
                .map_err(|e| q("the warehouses", e))?
                .unwrap_or(0)
                .max(0) as u64;
            let n = counts.get(&Table::Warehouse).copied().unwrap_or(0);
            if n == w && max == w {
                Check::pass(
                    "warehouse count",
                    format!("{}, as {} says", plural(n, "warehouse"), self.key("count_ware")),
                )
            } else {
                Check::fail(
                    "warehouse count",
                    format!(
                        "warehouse count {n} (highest w_id {max}) does not equal dict warehouse count of {w} ({})",
                        self.key("count_ware")
                    ),
                )
            }
        } else {
            Check::fail("warehouse count", "table warehouse is missing")
        });
        for table in Table::ALL {
            let t = table.name();
            let min = minimum_rows(table, w);
            checks.push(match counts.get(&table) {
                None => Check::fail(format!("rows in {t}"), format!("table {t} is missing")),
                Some(&n) if n >= min => Check::pass(
                    format!("rows in {t}"),
                    format!("{}, at least {min} expected", plural(n, "row")),
                ),
                Some(&n) => Check::fail(
                    format!("rows in {t}"),
                    format!("row count of {n} is less than expected count of {min}"),
                ),
            });
        }

        for (i, condition) in CONSISTENCY.iter().enumerate() {
            let what = format!("Check consistency {}", i + 1);
            say.line(&what);
            if let Some(t) = condition.tables.iter().find(|t| !tables.contains(**t)) {
                checks.push(Check::fail(
                    what,
                    format!("cannot check: table {t} is missing"),
                ));
                continue;
            }
            let first = conn
                .query_first(condition.sql)
                .await
                .map_err(|e| q(&what, e))?;
            checks.push(match first {
                None => {
                    let (table, unit) = match condition.per {
                        Per::Warehouse => (Table::Warehouse, "warehouse"),
                        Per::District => (Table::District, "district"),
                    };
                    let n = counts.get(&table).copied().unwrap_or(0);
                    let scope = if n == 1 {
                        format!("its 1 {unit}")
                    } else {
                        format!("all {}", plural(n, unit))
                    };
                    Check::pass(what, format!("{}: holds for {scope}", condition.rule))
                }
                Some(row) => {
                    let v = row_texts(&row);
                    let offenders: u64 = v.last().and_then(|n| n.parse().ok()).unwrap_or(0);
                    let unit = match condition.per {
                        Per::Warehouse => "warehouse",
                        Per::District => "district",
                    };
                    let verb = if offenders == 1 { "fails" } else { "fail" };
                    Check::fail(
                        what,
                        format!(
                            "{}: {}; {} {verb}",
                            condition.rule,
                            (condition.describe)(&v),
                            plural(offenders, unit)
                        ),
                    )
                }
            });
        }
        Ok(checks)
    }

    async fn delete_on(&self, conn: &mut Wire, say: &Say) -> Result<Vec<String>> {
        let db = &self.dbname;
        if SYSTEM_SCHEMAS.iter().any(|s| s.eq_ignore_ascii_case(db)) {
            return Err(Error::State(format!(
                "{} is {db}, a {} system database: deleteschema drops only TPROC-C schemas",
                self.key("dbase"),
                self.db.name()
            )));
        }
        match conn
            .query_drop(format!("DROP DATABASE {}", ident(db)))
            .await
        {
            Ok(()) => {}
            // ER_DB_DROP_EXISTS: not an error, so that "delete, then build" works on a fresh
            // server.
            Err(e) if e.code == 1008 => {
                let line = format!(
                    "Database {db} does not exist on {} at {}: nothing to delete",
                    self.db.name(),
                    self.peer().addr
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
        let line = format!("{db} TPROC-C Schema has been deleted successfully.");
        say.line(&line);
        Ok(vec![line])
    }
}

impl SchemaDb for MySchema {
    type Loader = MyLoader;

    fn name(&self) -> &'static str {
        self.db.name()
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
            self.create_on(conn, warehouses, say).await
        })
        .await
    }

    async fn loader(&self) -> Result<MyLoader> {
        let mut conn = mywire::connect(&self.schema).await?;
        let peer = self.schema.peer();
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

    async fn finish(&self, constants: &Constants, say: &Say) -> Result<()> {
        self.with_conn(&self.schema, async |conn| {
            self.finish_on(conn, constants, say).await
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
            self.check_on(conn, warehouses, say).await
        })
        .await
    }

    async fn delete(&self, say: &Say) -> Result<Vec<String>> {
        self.with_conn(&self.server, async |conn| self.delete_on(conn, say).await)
            .await
    }
}

/// One loading session on the schema's database.
pub struct MyLoader {
    conn: Box<Wire>,
    peer: Peer,
    shared: Arc<Shared>,
}

impl MyLoader {
    fn failed(&self, table: Table, e: &WireError) -> Error {
        Error::Db(self.peer.failed(
            "cannot load rows into",
            e.kind,
            format!("table {}: {}", table.name(), e.detail),
        ))
    }

    /// One `LOAD DATA LOCAL` statement in one transaction. `LOCAL` makes the server treat
    /// bad or duplicate rows as warnings rather than errors (it cannot stop the client
    /// mid-file), so anything but a clean load of every row is rolled back and reported.
    async fn load_data(&mut self, table: Table, rows: &[u8]) -> Result<(), LoadError> {
        let expected = count_lines(rows);
        let sql = format!(
            // The defaults are Format::COPY: FIELDS TERMINATED BY '\t' ESCAPED BY '\\',
            // LINES TERMINATED BY '\n'. They are left implicit because spelling them out
            // would break under sql_mode NO_BACKSLASH_ESCAPES.
            "LOAD DATA LOCAL INFILE '{name}.tsv' INTO TABLE {name} CHARACTER SET {CHARSET} ({cols})",
            name = table.name(),
            cols = table.columns().join(", ")
        );
        self.conn
            .query_drop("START TRANSACTION")
            .await
            .map_err(LoadError::Driver)?;
        let done = match self.conn.load_local(&sql, rows).await {
            Ok(done) => done,
            Err(e) => {
                self.rollback().await;
                return Err(LoadError::Driver(e));
            }
        };
        let (loaded, warnings) = (done.affected, done.warnings);
        if loaded != expected || warnings > 0 {
            let shown = self
                .conn
                .query_texts("SHOW WARNINGS LIMIT 3")
                .await
                .unwrap_or_default();
            self.rollback().await;
            let first = shown
                .first()
                .map(|r| format!("; first: {} {}: {}", cell(r, 0), cell(r, 1), cell(r, 2)))
                .unwrap_or_default();
            return Err(LoadError::Bad(format!(
                "LOAD DATA read {loaded} of {expected} rows with {warnings} warnings{first}; rolled back"
            )));
        }
        self.conn
            .query_drop("COMMIT")
            .await
            .map_err(LoadError::Driver)
    }

    /// The same rows as multi-row INSERTs of about [`INSERT_ROWS`] rows, in one transaction.
    async fn insert(&mut self, table: Table, rows: &[u8]) -> Result<(), LoadError> {
        let head = format!(
            "INSERT INTO {} ({}) VALUES ",
            table.name(),
            table.columns().join(", ")
        );
        let ncols = table.columns().len();
        self.conn
            .query_drop("START TRANSACTION")
            .await
            .map_err(LoadError::Driver)?;
        let mut sql = String::with_capacity(INSERT_BYTES + 64 * 1024);
        let mut in_stmt = 0;
        for (i, line) in lines(rows).enumerate() {
            if in_stmt == 0 {
                sql.clear();
                sql.push_str(&head);
            } else {
                sql.push(',');
            }
            if let Err(why) = push_row(&mut sql, line, ncols) {
                self.rollback().await;
                return Err(LoadError::Bad(format!("row {}: {why}", i + 1)));
            }
            in_stmt += 1;
            if in_stmt == INSERT_ROWS || sql.len() >= INSERT_BYTES {
                if let Err(e) = self.conn.query_drop(&sql).await {
                    self.rollback().await;
                    return Err(LoadError::Driver(e));
                }
                in_stmt = 0;
            }
        }
        if in_stmt > 0 {
            if let Err(e) = self.conn.query_drop(&sql).await {
                self.rollback().await;
                return Err(LoadError::Driver(e));
            }
        }
        self.conn
            .query_drop("COMMIT")
            .await
            .map_err(LoadError::Driver)
    }

    async fn rollback(&mut self) {
        // On a lost connection the server rolls back by itself.
        let _ = self.conn.query_drop("ROLLBACK").await;
    }
}

/// Why a load failed: the driver's error, or rows the server would not take cleanly.
enum LoadError {
    Driver(WireError),
    Bad(String),
}

impl Loader for MyLoader {
    async fn load(&mut self, table: Table, rows: &[u8]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let outcome = match self.shared.method() {
            Some(LoadMethod::Insert) => self.insert(table, rows).await,
            _ => match self.load_data(table, rows).await {
                Err(LoadError::Driver(s)) if INFILE_REFUSED.contains(&s.code) => {
                    self.shared.set_method(LoadMethod::Insert);
                    self.shared.say_once(format!(
                        "The server refuses LOAD DATA LOCAL ({}): loading rows with {}",
                        s.detail,
                        LoadMethod::Insert.describe()
                    ));
                    self.insert(table, rows).await
                }
                other => {
                    if other.is_ok() && self.shared.method().is_none() {
                        self.shared.set_method(LoadMethod::LoadData);
                    }
                    other
                }
            },
        };
        match outcome {
            Ok(()) => Ok(()),
            Err(LoadError::Driver(e)) => Err(self.failed(table, &e)),
            Err(LoadError::Bad(why)) => Err(Error::Db(self.peer.failed(
                "cannot load rows into",
                crate::db::Failure::Other,
                format!("table {}: {why}", table.name()),
            ))),
        }
    }

    async fn close(self) {
        self.conn.close().await;
    }
}

/// Databases `deleteschema` never drops.
const SYSTEM_SCHEMAS: [&str; 4] = ["mysql", "information_schema", "performance_schema", "sys"];

/// HISTORY's invisible key column (tables.sql `{{history_pk}}`).
const HISTORY_PK: &str = ", id INT NOT NULL AUTO_INCREMENT INVISIBLE PRIMARY KEY";

/// The server's flavour and version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ServerKind {
    mariadb: bool,
    version: (u16, u16, u16),
}

async fn server_kind(conn: &mut Wire) -> Result<ServerKind, WireError> {
    let text = conn.query_texts("SELECT VERSION()").await?;
    Ok(ServerKind {
        mariadb: text.first().is_some_and(|r| cell(r, 0).contains("MariaDB")),
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
    let (min, name) = if server.mariadb {
        ((10, 3, 3), "MariaDB")
    } else {
        ((8, 0, 30), "MySQL")
    };
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
        Err(Error::Config(format!(
            "Value {engine} for tpcc:{key} is not a storage engine name (letters, digits and _, \
             e.g. innodb)"
        )))
    }
}

/// `1 row`, `2 rows`.
fn plural(n: u64, unit: &str) -> String {
    if n == 1 {
        format!("{n} {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// A name as a quoted identifier.
fn ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The keys tables.sql gives each table: the primary key, and the indexes Payment and
/// Order-Status use to find a customer by name and a customer's last order.
fn expected_indexes(table: Table) -> &'static [&'static str] {
    match table {
        Table::History => &[],
        Table::Customer => &["PRIMARY", "c_w_id"],
        Table::Orders => &["PRIMARY", "o_w_id"],
        _ => &["PRIMARY"],
    }
}

/// HammerDB's minimum row counts for `checkschema` (reference 7.9).
fn minimum_rows(table: Table, w: u64) -> u64 {
    match table {
        Table::Warehouse => w,
        Table::District => 10 * w,
        Table::Customer | Table::History | Table::Orders => 30_000 * w,
        Table::Item => 100_000,
        Table::Stock => 100_000 * w,
        Table::NewOrder => 8_100 * w,
        Table::OrderLine => 297_000 * w,
    }
}

#[derive(Debug, Clone, Copy)]
enum Per {
    Warehouse,
    District,
}

/// One TPC-C consistency condition: a query returning the first offender (its key and
/// values, then the number of offenders) or no row at all.
struct Condition {
    rule: &'static str,
    per: Per,
    tables: &'static [&'static str],
    sql: &'static str,
    describe: fn(&[String]) -> String,
}

/// Clause 3.3.2.1 to 3.3.2.4, each over every warehouse or district.
const CONSISTENCY: [Condition; 4] = [
    Condition {
        rule: "W_YTD = sum(D_YTD)",
        per: Per::Warehouse,
        tables: &["warehouse", "district"],
        sql: "SELECT w.w_id, w.w_ytd, d.ytd, COUNT(*) OVER () \
              FROM warehouse w \
              LEFT JOIN (SELECT d_w_id, SUM(d_ytd) AS ytd FROM district GROUP BY d_w_id) d \
                ON d.d_w_id = w.w_id \
              WHERE d.ytd IS NULL OR w.w_ytd <> d.ytd \
              ORDER BY w.w_id LIMIT 1",
        describe: |v| {
            format!(
                "warehouse {} has W_YTD {} but sum(D_YTD) {}",
                v[0], v[1], v[2]
            )
        },
    },
    Condition {
        rule: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
        per: Per::District,
        tables: &["district", "orders", "new_order"],
        sql: "SELECT d.d_w_id, d.d_id, d.d_next_o_id, o.m, n.m, COUNT(*) OVER () \
              FROM district d \
              LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS m FROM orders \
                         GROUP BY o_w_id, o_d_id) o \
                ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id \
              LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS m FROM new_order \
                         GROUP BY no_w_id, no_d_id) n \
                ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id \
              WHERE d.d_next_o_id - 1 <> COALESCE(o.m, 0) \
                 OR (n.m IS NOT NULL AND n.m <> COALESCE(o.m, 0)) \
              ORDER BY d.d_w_id, d.d_id LIMIT 1",
        describe: |v| {
            format!(
                "district {} of warehouse {} has D_NEXT_O_ID {}, max(O_ID) {}, max(NO_O_ID) {}",
                v[1], v[0], v[2], v[3], v[4]
            )
        },
    },
    Condition {
        rule: "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW_ORDER",
        per: Per::District,
        tables: &["new_order"],
        sql: "SELECT no_w_id, no_d_id, COUNT(*), MIN(no_o_id), MAX(no_o_id), COUNT(*) OVER () \
              FROM new_order GROUP BY no_w_id, no_d_id \
              HAVING COUNT(*) <> MAX(no_o_id) - MIN(no_o_id) + 1 \
              ORDER BY no_w_id, no_d_id LIMIT 1",
        describe: |v| {
            format!(
                "district {} of warehouse {} has {} new orders from {} to {}",
                v[1], v[0], v[2], v[3], v[4]
            )
        },
    },
    Condition {
        rule: "sum(O_OL_CNT) = rows in ORDER_LINE",
        per: Per::District,
        tables: &["district", "orders", "order_line"],
        sql: "SELECT d.d_w_id, d.d_id, COALESCE(o.n, 0), COALESCE(l.n, 0), COUNT(*) OVER () \
              FROM district d \
              LEFT JOIN (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS n FROM orders \
                         GROUP BY o_w_id, o_d_id) o \
                ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id \
              LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM order_line \
                         GROUP BY ol_w_id, ol_d_id) l \
                ON l.ol_w_id = d.d_w_id AND l.ol_d_id = d.d_id \
              WHERE COALESCE(o.n, 0) <> COALESCE(l.n, 0) \
              ORDER BY d.d_w_id, d.d_id LIMIT 1",
        describe: |v| {
            format!(
                "district {} of warehouse {} has sum(O_OL_CNT) {} but {} order lines",
                v[1], v[0], v[2], v[3]
            )
        },
    },
];

/// A row's values as text, `NULL` for NULL.
fn row_texts(row: &[Value]) -> Vec<String> {
    row.iter()
        .map(|v| text_of(v).unwrap_or_else(|| "NULL".to_string()))
        .collect()
}

/// Column `i` of a row of text, empty for NULL or a missing column.
fn cell(row: &[Option<String>], i: usize) -> String {
    row.get(i).cloned().flatten().unwrap_or_default()
}

/// The statements the schema's work takes, on the lean connection.
trait Queries {
    /// Runs a statement, its rows (if any) dropped.
    async fn query_drop(&mut self, sql: impl AsRef<str>) -> Result<(), WireError>;
    /// The rows of a statement as text (`None` for NULL).
    async fn query_texts(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, WireError>;
    /// The first column of the first row, as an integer.
    async fn first_int(&mut self, sql: &str) -> Result<Option<i64>, WireError>;
    /// The rows of a statement with one text parameter (a name), as text.
    async fn exec_texts(
        &mut self,
        sql: &str,
        name: &str,
    ) -> Result<Vec<Vec<Option<String>>>, WireError>;
}

fn texts(rows: Vec<Vec<Value>>) -> Vec<Vec<Option<String>>> {
    rows.iter()
        .map(|r| r.iter().map(text_of).collect())
        .collect()
}

impl Queries for Wire {
    async fn query_drop(&mut self, sql: impl AsRef<str>) -> Result<(), WireError> {
        self.query_done(sql.as_ref()).await.map(drop)
    }

    async fn query_texts(&mut self, sql: &str) -> Result<Vec<Vec<Option<String>>>, WireError> {
        Ok(texts(self.query_rows(sql).await?))
    }

    async fn first_int(&mut self, sql: &str) -> Result<Option<i64>, WireError> {
        let row = self.query_first(sql).await?;
        Ok(row.as_deref().and_then(|r| r.first()).and_then(int_of))
    }

    async fn exec_texts(
        &mut self,
        sql: &str,
        name: &str,
    ) -> Result<Vec<Vec<Option<String>>>, WireError> {
        Ok(texts(
            self.exec_rows(sql, &[Arg::Text(name.as_bytes())]).await?,
        ))
    }
}

/// The lines of COPY text, without their newlines; a last line without one counts too.
fn lines(rows: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = rows.strip_suffix(b"\n").unwrap_or(rows);
    // `split` yields one empty piece for empty input, which holds no row.
    let pieces = if rows.is_empty() { 0 } else { usize::MAX };
    body.split(|b| *b == b'\n').take(pieces)
}

fn count_lines(rows: &[u8]) -> u64 {
    lines(rows).count() as u64
}

/// Appends one row of COPY text as `(v1, v2, ...)`, with LOAD DATA's reading of it:
/// `\N` alone is NULL, `\0 \b \n \r \t \Z` are control characters and `\x` is `x`.
/// Plain printable text is quoted; anything else goes as a hex literal, which means the
/// same bytes whatever the session's sql_mode and character set.
fn push_row(sql: &mut String, line: &[u8], ncols: usize) -> Result<(), String> {
    let fields = line.split(|b| *b == b'\t');
    sql.push('(');
    let mut n = 0;
    for field in fields {
        if n > 0 {
            sql.push(',');
        }
        n += 1;
        if field == b"\\N" {
            sql.push_str("NULL");
        } else if field
            .iter()
            .all(|&b| (b' '..=b'~').contains(&b) && b != b'\'' && b != b'\\')
        {
            sql.push('\'');
            // Printable ASCII is valid UTF-8.
            sql.push_str(std::str::from_utf8(field).unwrap_or_default());
            sql.push('\'');
        } else {
            let raw = unescape(field);
            if raw.is_empty() {
                sql.push_str("''");
            } else {
                sql.push_str("X'");
                for b in raw {
                    sql.push(char::from(HEX[usize::from(b >> 4)]));
                    sql.push(char::from(HEX[usize::from(b & 15)]));
                }
                sql.push('\'');
            }
        }
    }
    sql.push(')');
    if n == ncols {
        Ok(())
    } else {
        Err(format!("{n} fields where the table has {ncols} columns"))
    }
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// LOAD DATA's backslash escapes (the default `ESCAPED BY '\\'`) undone.
fn unescape(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut it = field.iter();
    while let Some(&b) = it.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match it.next() {
            Some(b'0') => out.push(0),
            Some(b'b') => out.push(8),
            Some(b'n') => out.push(b'\n'),
            Some(b'r') => out.push(b'\r'),
            Some(b't') => out.push(b'\t'),
            Some(b'Z') => out.push(26),
            Some(&other) => out.push(other),
            None => out.push(b'\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(line: &[u8], ncols: usize) -> Result<String, String> {
        let mut s = String::new();
        push_row(&mut s, line, ncols).map(|()| s)
    }

    #[test]
    fn rows_become_values() {
        assert_eq!(
            row(b"1\tab c\t\\N\t2024-01-02 03:04:05\t-10.00", 5).unwrap(),
            "('1','ab c',NULL,'2024-01-02 03:04:05','-10.00')"
        );
        // Quotes and escapes go as hex, with LOAD DATA's meaning of the escapes.
        assert_eq!(
            row(b"it's\ta\\tb\t\\\\", 3).unwrap(),
            "(X'69742773',X'610962',X'5C')"
        );
        assert_eq!(row(b"\t", 2).unwrap(), "('','')");
        assert!(row(b"1\t2", 3).unwrap_err().contains("2 fields"));
    }

    #[test]
    fn lines_of_copy_text() {
        assert_eq!(lines(b"a\nb\n").collect::<Vec<_>>(), vec![&b"a"[..], b"b"]);
        assert_eq!(lines(b"a\nb").count(), 2);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(count_lines(b"x\n"), 1);
    }

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
            mariadb: true,
            version: v,
        };
        let mysql = |v| ServerKind {
            mariadb: false,
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
