//! The TPROC-C transactions on MariaDB and MySQL: stored procedures or client-side SQL.
//!
//! Both modes run prepared statements, prepared once when a terminal connects (HammerDB's
//! `*_prepared` is implied). With stored procedures each transaction is one `CALL` whose OUT
//! parameters, passed as `NULL` placeholders, come back as a row; the procedures
//! (`schemas/mysql/tprocc/procedures.sql`) run their own `START TRANSACTION ... COMMIT`.
//! Both modes go over the lean connection of `db::mysql::wire` (a fraction of a general client
//! library's CPU per statement), with no fallback to another client: what that connection
//! refuses (an authentication that would give the password away) is an error.
//! With client-side SQL (`*_no_stored_procs`) the session runs with autocommit off, so a
//! transaction begins with its first statement and ends with the `COMMIT` or `ROLLBACK` sent
//! here: the same transaction as `START TRANSACTION` (whose snapshot also starts at the first
//! read), one round trip cheaper. The statements carry the procedures' business logic,
//! set-based where the logic allows, so that a transaction costs few round trips: New-Order
//! reads all its items in one statement, locks, updates and inserts all its lines in one
//! statement each, and Delivery serves all ten districts in four statements. Where the order
//! of work differs from the procedures, the data do not: New-Order checks its items before it
//! touches STOCK (an unused item rolls back either way), and locks STOCK rows in key order
//! (also one order across terminals).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::LazyLock;

use mysql_common::Value;

use crate::config::{Database, Settings};
use crate::db::mysql::wire::{self as mywire, Arg, Stmt, Wire, WireError};
use crate::db::mysql::MyTarget;
use crate::db::net::sock::KillSwitch;
use crate::error::{Error, Result};
use crate::fault::{Failure, Peer};
use crate::sqlfile::{render, Named};
use crate::tpcc::txn::{
    Counters, Customer, Delivery, Done, Mode, NewOrder, OrderStatus, Payment, StockLevel, TxnConn,
    TxnDb,
};
use crate::tpcc::{Constants, Table, DISTRICTS_PER_W};

/// Order lines a client-side New-Order can carry: the statements have this many slots
/// (TPC-C orders have 5 to 15 lines). The stored procedure takes any number.
pub const MAX_LINES: usize = 15;

/// The five stored procedures the procedure mode calls.
const PROCEDURES: [&str; 5] = ["NEWORD", "PAYMENT", "OSTAT", "DELIVERY", "SLEV"];

/// What the driver knows about the server's `innodb_snapshot_isolation` (MariaDB >= 10.6.18).
const SNAPSHOT_UNKNOWN: u8 = 0;
const SNAPSHOT_PRESENT: u8 = 1;
const SNAPSHOT_ABSENT: u8 = 2;

// The OUT parameters of each procedure (`schemas/mysql/tprocc/driver.sql` has a `?` each).
const NEWORD_OUT: usize = 8;
const PAYMENT_OUT: usize = 6;
const OSTAT_OUT: usize = 10;
const DELIVERY_OUT: usize = 2;
const SLEV_OUT: usize = 1;

/// The driver's statements, from `schemas/mysql/tprocc/driver.sql` with the slot lists
/// filled in: New-Order carries up to [`MAX_LINES`] lines, Delivery one order per district.
struct Sql {
    call_neword: String,
    call_payment: String,
    call_ostat: String,
    call_delivery: String,
    call_slev: String,
    district_lock: String,
    district_next: String,
    items: String,
    insert_order: String,
    insert_new_order: String,
    stock_lock: String,
    stock_update: String,
    order_lines: String,
    pay_ytd: String,
    customers_by_name: String,
    pay_customer: String,
    pay_customer_update: String,
    insert_history: String,
    order_status: String,
    oldest_new_orders: String,
    delete_new_orders: String,
    deliver_lines: String,
    deliver_orders: String,
    stock_level: String,
}

static SQL: LazyLock<Sql> = LazyLock::new(|| {
    let file = Named::parse(include_str!("../../../schemas/mysql/tprocc/driver.sql"));
    let districts = DISTRICTS_PER_W as usize;
    let item_slots = slots("?", MAX_LINES);
    let stock_keys = slots("(?, ?)", MAX_LINES);
    let stock_rows = rows(&["w", "i", "q", "ytd", "cnt", "rem"], &[INT; 6], MAX_LINES);
    let line_rows = rows(
        &["n", "i", "w", "q", "a", "info"],
        &[INT, INT, INT, INT, MONEY, "CHAR(24)"],
        MAX_LINES,
    );
    let district_keys = slots("(?, ?)", districts);
    let vars: [(&str, &str); 5] = [
        ("item_slots", &item_slots),
        ("stock_keys", &stock_keys),
        ("stock_rows", &stock_rows),
        ("line_rows", &line_rows),
        ("district_keys", &district_keys),
    ];
    let get = |name: &str| render(file.get(name), &vars);
    Sql {
        call_neword: get("call_neword"),
        call_payment: get("call_payment"),
        call_ostat: get("call_ostat"),
        call_delivery: get("call_delivery"),
        call_slev: get("call_slev"),
        district_lock: get("district_lock"),
        district_next: get("district_next"),
        items: get("items"),
        insert_order: get("insert_order"),
        insert_new_order: get("insert_new_order"),
        stock_lock: get("stock_lock"),
        stock_update: get("stock_update"),
        order_lines: get("order_lines"),
        pay_ytd: get("pay_ytd"),
        customers_by_name: get("customers_by_name"),
        pay_customer: get("pay_customer"),
        pay_customer_update: get("pay_customer_update"),
        insert_history: get("insert_history"),
        order_status: get("order_status"),
        oldest_new_orders: (1..=DISTRICTS_PER_W)
            .map(|d| render(file.get("oldest_new_order"), &[("d", &d.to_string())]))
            .collect::<Vec<_>>()
            .join(" UNION ALL "),
        delete_new_orders: get("delete_new_orders"),
        deliver_lines: get("deliver_lines"),
        deliver_orders: get("deliver_orders"),
        stock_level: get("stock_level"),
    }
});

const INT: &str = "SIGNED";
const MONEY: &str = "DECIMAL(6,2)";

/// `n` copies of `item`, comma-separated.
fn slots(item: &str, n: usize) -> String {
    vec![item; n].join(", ")
}

/// A derived table of `n` rows of typed placeholders: `SELECT CAST(? AS t) AS name, ...
/// UNION ALL SELECT ...` (every placeholder cast, so the column types never depend on the
/// values of one execution).
fn rows(names: &[&str], types: &[&str], n: usize) -> String {
    let row = |named: bool| {
        names
            .iter()
            .zip(types)
            .map(|(name, ty)| {
                if named {
                    format!("CAST(? AS {ty}) AS {name}")
                } else {
                    format!("CAST(? AS {ty})")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut sql = format!("SELECT {}", row(true));
    for _ in 1..n {
        let _ = write!(sql, " UNION ALL SELECT {}", row(false));
    }
    sql
}

/// TPROC-C on a MariaDB or MySQL server, from the `maria_*` or `mysql_*` keys.
pub struct MyDriver {
    db: Database,
    /// The user on `*_dbase`: terminals and the counters.
    schema: MyTarget,
    /// The user with no database selected: `prepare` checks that the database exists.
    server: MyTarget,
    dbname: String,
    mode: Mode,
    snapshot: AtomicU8,
    /// The counters' connection, kept between readings.
    monitor: tokio::sync::Mutex<Option<Box<Wire>>>,
    /// Terminals make the one-line summaries of their transactions (`showoutput`).
    summaries: bool,
    /// Every lean connection opened from `schema` and `server`.
    kill: KillSwitch,
}

impl MyDriver {
    pub fn new(settings: &Settings, db: Database) -> Self {
        let kill = KillSwitch::default();
        let mut schema = MyTarget::schema(settings, db);
        schema.bounds.kill = kill.clone();
        let mut server = MyTarget::server(settings, db);
        server.bounds.kill = kill.clone();
        let no_procs = settings
            .db(db)
            .get_bool(&format!("{}_no_stored_procs", db.prefix()));
        MyDriver {
            db,
            dbname: schema.dbname.clone().unwrap_or_default(),
            server,
            schema,
            mode: if no_procs {
                Mode::ClientSql
            } else {
                Mode::StoredProcedures
            },
            snapshot: AtomicU8::new(SNAPSHOT_UNKNOWN),
            monitor: tokio::sync::Mutex::new(None),
            summaries: false,
            kill,
        }
    }

    /// Terminals make their transactions' summaries (for `showoutput`) when `on`.
    pub fn with_summaries(mut self, on: bool) -> Self {
        self.summaries = on;
        self
    }

    /// Disconnects the counters' connection, if one is open.
    pub async fn close(&self) {
        if let Some(conn) = self.monitor.lock().await.take() {
            conn.close().await;
        }
    }

    fn key(&self, name: &str) -> String {
        format!("{}_{name}", self.db.prefix())
    }

    fn failed(&self, action: &'static str, what: &str, e: &WireError) -> Error {
        Error::Db(
            self.server
                .peer()
                .failed(action, e.kind, format!("{what}: {}", e.detail)),
        )
    }

    /// The statement that sets a terminal's session up, given what is known of the server's
    /// `innodb_snapshot_isolation`.
    fn session(&self, snapshot: u8) -> String {
        // The procedures commit themselves; client-side transactions begin with their first
        // statement and end with our COMMIT or ROLLBACK.
        let autocommit = match self.mode {
            Mode::StoredProcedures => 1,
            Mode::ClientSql => 0,
        };
        let mut set = format!("SET SESSION autocommit = {autocommit}");
        if snapshot == SNAPSHOT_PRESENT {
            set.push_str(", innodb_snapshot_isolation = 0");
        }
        set
    }

    /// The same session settings, and the statements prepared, on a lean connection.
    async fn set_up_wire(&self, wire: &mut Wire) -> Result<WirePrepared> {
        let peer = self.schema.peer();
        let fail =
            |action: &'static str, e: WireError| Error::Db(peer.failed(action, e.kind, e.detail));
        // MariaDB 11.8 turns innodb_snapshot_isolation on by default, which makes a locking
        // read of a row changed since the transaction's snapshot fail under REPEATABLE READ.
        // Asked of MySQL too: the mysql_* keys may point at a MariaDB server.
        let snapshot = match self.snapshot.load(Ordering::Relaxed) {
            SNAPSHOT_UNKNOWN => {
                let rows = wire
                    .query("SHOW VARIABLES LIKE 'innodb_snapshot_isolation'")
                    .await
                    .map_err(|e| fail("cannot set up a session on", e))?;
                let v = if rows > 0 {
                    SNAPSHOT_PRESENT
                } else {
                    SNAPSHOT_ABSENT
                };
                self.snapshot.store(v, Ordering::Relaxed);
                v
            }
            v => v,
        };
        wire.query(&self.session(snapshot))
            .await
            .map_err(|e| fail("cannot set up a session on", e))?;
        let prepared: std::result::Result<WirePrepared, WireError> = async {
            Ok(match self.mode {
                Mode::StoredProcedures => WirePrepared::Procedures(WireProcs {
                    neword: wire.prepare(&SQL.call_neword).await?,
                    payment: wire.prepare(&SQL.call_payment).await?,
                    ostat: wire.prepare(&SQL.call_ostat).await?,
                    delivery: wire.prepare(&SQL.call_delivery).await?,
                    slev: wire.prepare(&SQL.call_slev).await?,
                }),
                Mode::ClientSql => WirePrepared::Client(Box::new(ClientSql::prepare(wire).await?)),
            })
        }
        .await;
        prepared.map_err(|e| fail("cannot prepare statements on", e))
    }

    async fn prepare_on(&self, conn: &mut Wire, warehouses: u32) -> Result<(u32, Constants)> {
        let db = &self.dbname;
        let peer = self.server.peer();
        let name = [Arg::Text(db.as_bytes())];
        let exists = conn
            .exec_rows(
                "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
                &name,
            )
            .await
            .map_err(|e| self.failed("cannot check", "the database", &e))?;
        if exists.is_empty() {
            return Err(Error::State(format!(
                "The TPROC-C schema {db} does not exist on {name} at {addr}: build it with \
                 buildschema, or set {key} to the database that holds it",
                name = self.db.name(),
                addr = peer.addr,
                key = self.key("dbase"),
            )));
        }
        let tables: Vec<String> = conn
            .exec_rows(
                "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
                &name,
            )
            .await
            .map_err(|e| self.failed("cannot check", "the tables", &e))?
            .iter()
            .map(|r| Cols(r).text(0))
            .collect();
        let missing: Vec<&str> = Table::ALL
            .iter()
            .map(|t| t.name())
            .chain(["tpcc_nurand"])
            .filter(|t| !tables.iter().any(|have| have.eq_ignore_ascii_case(t)))
            .collect();
        if !missing.is_empty() {
            return Err(Error::State(format!(
                "The TPROC-C schema {db} on {name} at {addr} lacks table{s} {list}: delete it \
                 with deleteschema and build it again with buildschema",
                name = self.db.name(),
                addr = peer.addr,
                s = if missing.len() == 1 { "" } else { "s" },
                list = missing.join(", "),
            )));
        }
        let max: Option<i64> = conn
            .query_first(&format!("SELECT MAX(w_id) FROM {}.warehouse", ident(db)))
            .await
            .map_err(|e| self.failed("cannot check", "the warehouses", &e))?
            .and_then(|r| int_of(cell(&r, 0)));
        let have = max.unwrap_or(0).clamp(0, i64::from(u32::MAX)) as u32;
        if have < warehouses.max(1) {
            let ware = self.key("count_ware");
            return Err(Error::State(if have == 0 {
                format!(
                    "The TPROC-C schema {db} has no warehouses: delete it with deleteschema \
                     and build it again with buildschema"
                )
            } else {
                format!(
                    "The TPROC-C schema {db} has {have} warehouse{s} but {ware} asks for \
                     {warehouses}: set {ware} to {have} (diset tpcc {ware} {have}), or build \
                     a larger schema",
                    s = if have == 1 { "" } else { "s" },
                )
            }));
        }
        if self.mode == Mode::StoredProcedures {
            let routines: Vec<String> = conn
                .exec_rows(
                    "SELECT ROUTINE_NAME FROM information_schema.ROUTINES \
                     WHERE ROUTINE_SCHEMA = ? AND ROUTINE_TYPE = 'PROCEDURE'",
                    &name,
                )
                .await
                .map_err(|e| self.failed("cannot check", "the stored procedures", &e))?
                .iter()
                .map(|r| Cols(r).text(0))
                .collect();
            let missing: Vec<&str> = PROCEDURES
                .into_iter()
                .filter(|p| !routines.iter().any(|r| r.eq_ignore_ascii_case(p)))
                .collect();
            if !missing.is_empty() {
                return Err(Error::State(format!(
                    "The TPROC-C schema {db} lacks the stored procedure{s} {list}: delete it \
                     with deleteschema and build it again with buildschema, or set {key} to \
                     true to run the transactions as client-side SQL",
                    s = if missing.len() == 1 { "" } else { "s" },
                    list = missing.join(", "),
                    key = self.key("no_stored_procs"),
                )));
            }
        }
        let nurand = conn
            .query_rows(&format!(
                "SELECT c_last, c_id, ol_i_id FROM {}.tpcc_nurand",
                ident(db)
            ))
            .await
            .map_err(|e| self.failed("cannot read", "tpcc_nurand", &e))?;
        let constants = match nurand.as_slice() {
            [row] => {
                let c = |i| {
                    int_of(cell(row, i))
                        .and_then(|v| u32::try_from(v).ok())
                        .unwrap_or(u32::MAX)
                };
                Constants {
                    c_last: c(0),
                    c_id: c(1),
                    ol_i_id: c(2),
                }
            }
            other => {
                return Err(Error::State(format!(
                    "Table tpcc_nurand of the TPROC-C schema {db} holds {} rows, expected \
                     exactly 1 (the NURand load constants): delete the schema with \
                     deleteschema and build it again with buildschema",
                    other.len()
                )))
            }
        };
        if constants.c_last > 255 || constants.c_id > 1023 || constants.ol_i_id > 8191 {
            return Err(Error::State(format!(
                "Table tpcc_nurand of the TPROC-C schema {db} holds constants out of range \
                 (c_last 0..255, c_id 0..1023, ol_i_id 0..8191): delete the schema with \
                 deleteschema and build it again with buildschema"
            )));
        }
        Ok((have, constants))
    }
}

impl TxnDb for MyDriver {
    type Conn = MyConn;

    fn name(&self) -> &'static str {
        self.db.name()
    }

    fn mode(&self) -> Mode {
        self.mode
    }

    async fn connect(&self) -> Result<MyConn> {
        // No fallback to another client: an authentication the lean connection refuses
        // must not be done by one that gives the password away.
        let mut wire = mywire::connect(&self.schema).await?;
        // Errors name the server the connection reached (the socket may have led elsewhere).
        let peer = Peer {
            addr: wire.addr().to_string(),
            ..self.schema.peer()
        };
        let conn = |link| MyConn {
            link,
            peer,
            summaries: self.summaries,
        };
        match self.set_up_wire(&mut wire).await {
            Ok(WirePrepared::Procedures(procs)) => Ok(conn(Link::Wire(Box::new(wire), procs))),
            Ok(WirePrepared::Client(c)) => Ok(conn(Link::WireClient(Box::new(wire), c))),
            Err(e) => {
                wire.close().await;
                Err(e)
            }
        }
    }

    fn reply_timeout(&self) -> std::time::Duration {
        self.schema.bounds.reply_timeout
    }

    fn cut(&self) -> usize {
        self.kill.cut()
    }

    fn peer(&self) -> crate::db::Peer {
        self.schema.peer()
    }

    async fn prepare(&self, warehouses: u32) -> Result<(u32, Constants)> {
        let mut conn = mywire::connect(&self.server).await?;
        let result = self.prepare_on(&mut conn, warehouses).await;
        conn.close().await;
        result
    }

    async fn counters(&self) -> Result<Counters> {
        let mut monitor = self.monitor.lock().await;
        // A connection lost since the last reading is replaced once.
        let mut retried = false;
        loop {
            let conn = match monitor.as_mut() {
                Some(conn) => conn,
                None => {
                    let mut conn = mywire::connect(&self.schema).await?;
                    // Each reading must see the latest commits, whatever the server's default.
                    if let Err(e) = conn.query("SET SESSION autocommit = 1").await {
                        conn.close().await;
                        return Err(self.failed("cannot read", "the counters", &e));
                    }
                    monitor.insert(Box::new(conn))
                }
            };
            match read_counters(conn).await {
                Ok(c) => return Ok(c),
                Err(e) => {
                    let kind = e.kind;
                    if let Some(conn) = monitor.take() {
                        if kind != Failure::Lost {
                            conn.close().await;
                        }
                    }
                    if kind != Failure::Lost || retried {
                        return Err(self.failed("cannot read", "the counters", &e));
                    }
                    retried = true;
                }
            }
        }
    }
}

async fn read_counters(conn: &mut Wire) -> Result<Counters, WireError> {
    let status = conn
        .query_rows("SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_rollback')")
        .await?;
    let transactions = status
        .iter()
        .map(|r| Cols(r).text(1).trim().parse::<u64>().unwrap_or(0))
        .sum();
    let next = conn
        .query_first("SELECT SUM(d_next_o_id) FROM district")
        .await?;
    let new_orders = next
        .as_ref()
        .and_then(|r| int_of(cell(r, 0)))
        .unwrap_or(0)
        .max(0) as u64;
    Ok(Counters {
        new_orders,
        transactions,
    })
}

/// A database or schema name as an identifier.
fn ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// One terminal's connection and its prepared statements.
pub struct MyConn {
    link: Link,
    peer: Peer,
    summaries: bool,
}

impl MyConn {
    /// The lean connection of `db::mysql::wire` the transactions run on.
    fn wire(&self) -> &Wire {
        match &self.link {
            Link::Wire(wire, _) | Link::WireClient(wire, _) => wire,
        }
    }

    /// Whether the connection's socket blocks (`TxnConn::into_blocking`).
    pub fn is_blocking(&self) -> bool {
        self.wire().is_blocking()
    }

    /// Whether the connection is encrypted.
    pub fn is_lean_tls(&self) -> bool {
        self.wire().is_tls()
    }

    /// Whether the connection is a unix socket's.
    pub fn is_socket(&self) -> bool {
        self.wire().is_socket()
    }
}

enum Link {
    /// Stored procedures on the lean connection.
    Wire(Box<Wire>, WireProcs),
    /// Client-side SQL on the lean connection.
    WireClient(Box<Wire>, Box<ClientSql<Stmt>>),
}

/// What a lean connection was set up for.
enum WirePrepared {
    Procedures(WireProcs),
    Client(Box<ClientSql<Stmt>>),
}

/// The procedure calls prepared on a lean connection.
struct WireProcs {
    neword: Stmt,
    payment: Stmt,
    ostat: Stmt,
    delivery: Stmt,
    slev: Stmt,
}

/// Which stored procedure a call runs.
#[derive(Debug, Clone, Copy)]
enum Proc {
    NewOrder,
    Payment,
    OrderStatus,
    Delivery,
    StockLevel,
}

/// The client-side statements, prepared once per connection (19 of them).
struct ClientSql<S> {
    district_lock: S,
    district_next: S,
    items: S,
    insert_order: S,
    insert_new_order: S,
    stock_lock: S,
    stock_update: S,
    order_lines: S,
    pay_ytd: S,
    customers_by_name: S,
    pay_customer: S,
    pay_customer_update: S,
    insert_history: S,
    order_status: S,
    oldest_new_orders: S,
    delete_new_orders: S,
    deliver_lines: S,
    deliver_orders: S,
    stock_level: S,
}

impl<S> ClientSql<S> {
    async fn prepare<C: SqlConn<Stmt = S>>(conn: &mut C) -> Result<Self, C::Error> {
        Ok(ClientSql {
            district_lock: conn.prepare(&SQL.district_lock).await?,
            district_next: conn.prepare(&SQL.district_next).await?,
            items: conn.prepare(&SQL.items).await?,
            insert_order: conn.prepare(&SQL.insert_order).await?,
            insert_new_order: conn.prepare(&SQL.insert_new_order).await?,
            stock_lock: conn.prepare(&SQL.stock_lock).await?,
            stock_update: conn.prepare(&SQL.stock_update).await?,
            order_lines: conn.prepare(&SQL.order_lines).await?,
            pay_ytd: conn.prepare(&SQL.pay_ytd).await?,
            customers_by_name: conn.prepare(&SQL.customers_by_name).await?,
            pay_customer: conn.prepare(&SQL.pay_customer).await?,
            pay_customer_update: conn.prepare(&SQL.pay_customer_update).await?,
            insert_history: conn.prepare(&SQL.insert_history).await?,
            order_status: conn.prepare(&SQL.order_status).await?,
            oldest_new_orders: conn.prepare(&SQL.oldest_new_orders).await?,
            delete_new_orders: conn.prepare(&SQL.delete_new_orders).await?,
            deliver_lines: conn.prepare(&SQL.deliver_lines).await?,
            deliver_orders: conn.prepare(&SQL.deliver_orders).await?,
            stock_level: conn.prepare(&SQL.stock_level).await?,
        })
    }
}

/// Why a transaction failed, before it is told as an [`Error`].
enum Fail {
    /// A failure on the lean connection, already classified.
    Wire(WireError),
    /// A row the transaction needs is missing, or the server sent an unexpected value.
    Data(String),
}

impl From<WireError> for Fail {
    fn from(e: WireError) -> Self {
        Fail::Wire(e)
    }
}

type Step<T> = std::result::Result<T, Fail>;

impl MyConn {
    /// The outcome of one transaction: a failure in client-side SQL is rolled back here
    /// (the procedures roll back their own), unless the connection is gone.
    async fn finish(&mut self, txn: &str, outcome: Step<Done>) -> Result<Done> {
        let (kind, detail) = match outcome {
            Ok(done) => return Ok(done),
            Err(Fail::Wire(e)) => (e.kind, e.detail),
            Err(Fail::Data(d)) => (Failure::Other, d),
        };
        if kind != Failure::Lost {
            match &mut self.link {
                Link::WireClient(wire, _) => {
                    let _ = wire.query("ROLLBACK").await;
                }
                Link::Wire(..) => {}
            }
        }
        Err(Error::Db(self.peer.failed(
            "cannot run",
            kind,
            format!("{txn}: {detail}"),
        )))
    }
}

impl TxnConn for MyConn {
    async fn new_order(&mut self, t: &NewOrder) -> Result<Done> {
        let outcome = match &mut self.link {
            Link::WireClient(wire, c) => sql_new_order(&mut **wire, c, t, self.summaries).await,
            link => call_new_order(link, t, self.summaries).await,
        };
        self.finish("New Order", outcome).await
    }

    async fn payment(&mut self, t: &Payment) -> Result<Done> {
        let outcome = match &mut self.link {
            Link::WireClient(wire, c) => sql_payment(&mut **wire, c, t, self.summaries).await,
            link => call_payment(link, t, self.summaries).await,
        };
        self.finish("Payment", outcome).await
    }

    async fn order_status(&mut self, t: &OrderStatus) -> Result<Done> {
        let outcome = match &mut self.link {
            Link::WireClient(wire, c) => sql_order_status(&mut **wire, c, t, self.summaries).await,
            link => call_order_status(link, t, self.summaries).await,
        };
        self.finish("Order Status", outcome).await
    }

    async fn delivery(&mut self, t: &Delivery) -> Result<Done> {
        let outcome = match &mut self.link {
            Link::WireClient(wire, c) => sql_delivery(&mut **wire, c, t, self.summaries).await,
            link => call_delivery(link, t, self.summaries).await,
        };
        self.finish("Delivery", outcome).await
    }

    async fn stock_level(&mut self, t: &StockLevel) -> Result<Done> {
        let outcome = match &mut self.link {
            Link::WireClient(wire, c) => sql_stock_level(&mut **wire, c, t, self.summaries).await,
            link => call_stock_level(link, t, self.summaries).await,
        };
        self.finish("Stock Level", outcome).await
    }

    fn into_blocking(self) -> Result<Self> {
        let blocking = |wire: Box<Wire>| {
            wire.into_blocking().map(Box::new).map_err(|e| {
                self.peer.failed(
                    "cannot switch to a blocking socket on",
                    Failure::Lost,
                    e.to_string(),
                )
            })
        };
        let link = match self.link {
            Link::Wire(wire, procs) => Link::Wire(blocking(wire)?, procs),
            Link::WireClient(wire, c) => Link::WireClient(blocking(wire)?, c),
        };
        Ok(MyConn { link, ..self })
    }

    async fn close(self) {
        match self.link {
            Link::Wire(wire, _) | Link::WireClient(wire, _) => wire.close().await,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Stored procedures: one round trip each.

/// Executes a `CALL` with `args` and `n` NULL placeholders for the OUT parameters, and
/// returns the OUT parameters.
async fn call(link: &mut Link, proc: Proc, args: &[Arg<'_>], n: usize) -> Step<Vec<Value>> {
    let row = match link {
        Link::Wire(wire, p) => {
            let stmt = match proc {
                Proc::NewOrder => p.neword,
                Proc::Payment => p.payment,
                Proc::OrderStatus => p.ostat,
                Proc::Delivery => p.delivery,
                Proc::StockLevel => p.slev,
            };
            wire.execute(stmt, args, n).await.map_err(Fail::Wire)?
        }
        Link::WireClient(..) => {
            return Err(Fail::Data(format!(
                "{proc:?} called on a client-side SQL connection"
            )))
        }
    };
    row.ok_or_else(|| Fail::Data("the procedure returned no OUT parameters".into()))
}

fn int(v: u32) -> Value {
    Value::Int(i64::from(v))
}

fn arg(v: u32) -> Arg<'static> {
    Arg::Int(i64::from(v))
}

/// A comma-separated list of numbers, as NEWORD takes its lines.
fn list(values: impl Iterator<Item = u32>) -> String {
    let mut s = String::with_capacity(8 * MAX_LINES);
    let mut buf = itoa::Buffer::new();
    for (i, v) in values.enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(buf.format(v));
    }
    s
}

async fn call_new_order(link: &mut Link, t: &NewOrder, show: bool) -> Step<Done> {
    let items = list(t.lines.iter().map(|l| l.item_id));
    let supply = list(t.lines.iter().map(|l| l.supply_w_id));
    let quantities = list(t.lines.iter().map(|l| l.quantity));
    let args = [
        arg(t.w_id),
        arg(t.d_id),
        arg(t.c_id),
        Arg::Int(t.lines.len() as i64),
        Arg::Int(i64::from(t.all_local)),
        Arg::Text(items.as_bytes()),
        Arg::Text(supply.as_bytes()),
        Arg::Text(quantities.as_bytes()),
    ];
    let row = call(link, Proc::NewOrder, &args, NEWORD_OUT).await?;
    let out = Cols(&row[..]);
    let o_id = out.int(0, "order_id")?;
    let rolled_back = out.int(7, "rolled_back")? == 1;
    let total = if rolled_back {
        None
    } else {
        Some(out.fixed(1, 2, "total_amount")?)
    };
    Ok(new_order_done(show, t, o_id, total))
}

async fn call_payment(link: &mut Link, t: &Payment, show: bool) -> Step<Done> {
    let (c_id, byname, last) = match &t.customer {
        Customer::ById(id) => (*id, 0, ""),
        Customer::ByName(last) => (0, 1, last.as_str()),
    };
    let amount = money(i64::from(t.amount_cents));
    let args = [
        arg(t.w_id),
        arg(t.d_id),
        arg(t.c_w_id),
        arg(t.c_d_id),
        arg(c_id),
        Arg::Int(byname),
        Arg::Text(last.as_bytes()),
        Arg::Text(amount.as_bytes()),
    ];
    let row = call(link, Proc::Payment, &args, PAYMENT_OUT).await?;
    let out = Cols(&row[..]);
    Ok(payment_done(
        show,
        t,
        out.int(0, "cust_id")?,
        out.fixed(4, 2, "cust_balance")?,
        &out.text(5),
    ))
}

async fn call_order_status(link: &mut Link, t: &OrderStatus, show: bool) -> Step<Done> {
    let (c_id, byname, last) = match &t.customer {
        Customer::ById(id) => (*id, 0, ""),
        Customer::ByName(last) => (0, 1, last.as_str()),
    };
    let args = [
        arg(t.w_id),
        arg(t.d_id),
        arg(c_id),
        Arg::Int(byname),
        Arg::Text(last.as_bytes()),
    ];
    let row = call(link, Proc::OrderStatus, &args, OSTAT_OUT).await?;
    let out = Cols(&row[..]);
    let order = match out.opt_int(5) {
        Some(o_id) => Some((o_id, out.opt_int(7), out.int(8, "line_count")?)),
        None => None,
    };
    Ok(order_status_done(
        show,
        t,
        out.int(0, "cust_id")?,
        out.fixed(4, 2, "cust_balance")?,
        order,
    ))
}

async fn call_delivery(link: &mut Link, t: &Delivery, show: bool) -> Step<Done> {
    let args = [arg(t.w_id), arg(t.carrier_id)];
    let row = call(link, Proc::Delivery, &args, DELIVERY_OUT).await?;
    let out = Cols(&row[..]);
    Ok(delivery_done(
        show,
        t,
        out.int(0, "delivered")?,
        out.int(1, "skipped")?,
    ))
}

async fn call_stock_level(link: &mut Link, t: &StockLevel, show: bool) -> Step<Done> {
    let args = [arg(t.w_id), arg(t.d_id), arg(t.threshold)];
    let row = call(link, Proc::StockLevel, &args, SLEV_OUT).await?;
    Ok(stock_level_done(
        show,
        t,
        Cols(&row[..]).int(0, "stock_count")?,
    ))
}

// ---------------------------------------------------------------------------------------
// Client-side SQL: the procedures' logic, in as few statements as it allows.

/// A connection client-side SQL runs on, with its kind of prepared statement (one kind
/// today: the lean connection's; the seam keeps the transactions apart from the protocol).
trait SqlConn {
    type Stmt;
    type Error;
    /// Prepares a statement.
    async fn prepare(&mut self, sql: &str) -> Result<Self::Stmt, Self::Error>;
    /// The first row the statement gives, if any.
    async fn first(&mut self, st: &Self::Stmt, args: Vec<Value>) -> Step<Option<Vec<Value>>>;
    /// Every row the statement gives.
    async fn all(&mut self, st: &Self::Stmt, args: Vec<Value>) -> Step<Vec<Vec<Value>>>;
    /// Runs a statement that gives no rows.
    async fn run(&mut self, st: &Self::Stmt, args: Vec<Value>) -> Step<()>;
    /// `COMMIT` or `ROLLBACK`.
    async fn end(&mut self, sql: &str) -> Step<()>;
}

/// Values as the lean connection binds them.
fn wire_args(values: &[Value]) -> Step<Vec<Arg<'_>>> {
    values
        .iter()
        .map(|v| match v {
            Value::Int(i) => Ok(Arg::Int(*i)),
            Value::Bytes(b) => Ok(Arg::Text(b)),
            Value::NULL => Ok(Arg::Null),
            other => Err(Fail::Data(format!("a parameter of {other:?}"))),
        })
        .collect()
}

impl SqlConn for Wire {
    type Stmt = Stmt;
    type Error = WireError;

    async fn prepare(&mut self, sql: &str) -> Result<Stmt, WireError> {
        Wire::prepare(self, sql).await
    }

    async fn first(&mut self, st: &Stmt, args: Vec<Value>) -> Step<Option<Vec<Value>>> {
        Ok(self.execute(*st, &wire_args(&args)?, 0).await?)
    }

    async fn all(&mut self, st: &Stmt, args: Vec<Value>) -> Step<Vec<Vec<Value>>> {
        Ok(self.execute_all(*st, &wire_args(&args)?).await?)
    }

    async fn run(&mut self, st: &Stmt, args: Vec<Value>) -> Step<()> {
        self.execute_all(*st, &wire_args(&args)?).await?;
        Ok(())
    }

    async fn end(&mut self, sql: &str) -> Step<()> {
        self.query(sql).await?;
        Ok(())
    }
}

/// Integer parameters.
fn ints<const N: usize>(values: [i64; N]) -> Vec<Value> {
    values.into_iter().map(Value::Int).collect()
}

/// A STOCK row a New-Order changes, with what its lines add up to.
struct StockRow {
    w: i64,
    i: i64,
    quantity: i64,
    dist_info: Value,
    ytd: i64,
    count: i64,
    remote: i64,
}

async fn sql_new_order<C: SqlConn>(
    conn: &mut C,
    st: &ClientSql<C::Stmt>,
    t: &NewOrder,
    show: bool,
) -> Step<Done> {
    let n = t.lines.len();
    if n == 0 || n > MAX_LINES {
        return Err(Fail::Data(format!(
            "{n} order lines; client-side SQL takes 1 to {MAX_LINES}"
        )));
    }
    let (w, d, c) = (i64::from(t.w_id), i64::from(t.d_id), i64::from(t.c_id));

    let district = conn.first(&st.district_lock, ints([w, d])).await?;
    let district =
        district.ok_or_else(|| Fail::Data(format!("district {d} of warehouse {w} not found")))?;
    let district = Cols(&district);
    let d_tax = district.fixed(0, 4, "d_tax")?;
    let o_id = district.int(1, "d_next_o_id")?;
    conn.run(&st.district_next, ints([w, d])).await?;

    let mut args = Vec::with_capacity(MAX_LINES + 3);
    args.extend((0..MAX_LINES).map(|k| t.lines.get(k).map_or(Value::NULL, |l| int(l.item_id))));
    args.extend([Value::Int(w), Value::Int(d), Value::Int(c)]);
    let rows = conn.all(&st.items, args).await?;
    let first = rows.first().ok_or_else(|| {
        Fail::Data(format!(
            "warehouse {w}, or customer {c} of district {d}, not found"
        ))
    })?;
    let head = Cols(first);
    let w_tax = head.fixed(0, 4, "w_tax")?;
    let discount = head.fixed(1, 4, "c_discount")?;
    // Item id and price in cents.
    let mut items: Vec<(i64, i64)> = Vec::with_capacity(rows.len());
    for row in &rows {
        let r = Cols(row);
        if let Some(id) = r.opt_int(4) {
            items.push((id, r.fixed(5, 2, "i_price")?));
        }
    }
    let price = |item: u32| {
        items
            .iter()
            .find(|(id, _)| *id == i64::from(item))
            .map(|(_, p)| *p)
    };
    if t.lines.iter().any(|l| price(l.item_id).is_none()) {
        // Clause 2.4.2.3: an unused item rolls the whole transaction back.
        conn.end("ROLLBACK").await?;
        return Ok(new_order_done(show, t, o_id, None));
    }

    conn.run(
        &st.insert_order,
        ints([o_id, d, w, c, n as i64, i64::from(t.all_local)]),
    )
    .await?;
    conn.run(&st.insert_new_order, ints([o_id, d, w])).await?;

    let mut args = Vec::with_capacity(1 + 2 * MAX_LINES);
    args.push(Value::Int(d));
    for k in 0..MAX_LINES {
        match t.lines.get(k) {
            Some(l) => args.extend([int(l.supply_w_id), int(l.item_id)]),
            None => args.extend([Value::NULL, Value::NULL]),
        }
    }
    let rows = conn.all(&st.stock_lock, args).await?;
    let mut stock = Vec::with_capacity(rows.len());
    for row in rows {
        let r = Cols(&row);
        stock.push(StockRow {
            w: r.int(0, "s_w_id")?,
            i: r.int(1, "s_i_id")?,
            quantity: r.int(2, "s_quantity")?,
            dist_info: cell(&row, 3).clone(),
            ytd: 0,
            count: 0,
            remote: 0,
        });
    }
    let mut lines = Vec::with_capacity(6 * MAX_LINES + 3);
    lines.extend([Value::Int(o_id), Value::Int(d), Value::Int(w)]);
    let mut sum = 0i64;
    for (k, l) in t.lines.iter().enumerate() {
        let (supply, item, qty) = (
            i64::from(l.supply_w_id),
            i64::from(l.item_id),
            i64::from(l.quantity),
        );
        let s = stock
            .iter_mut()
            .find(|s| s.w == supply && s.i == item)
            .ok_or_else(|| {
                Fail::Data(format!(
                    "stock of item {item} in warehouse {supply} not found"
                ))
            })?;
        s.quantity = if s.quantity >= qty + 10 {
            s.quantity - qty
        } else {
            s.quantity - qty + 91
        };
        s.ytd += qty;
        s.count += 1;
        s.remote += i64::from(supply != w);
        let amount = qty * price(l.item_id).unwrap_or(0);
        sum += amount;
        lines.extend([
            Value::Int(k as i64 + 1),
            Value::Int(item),
            Value::Int(supply),
            Value::Int(qty),
            Value::Bytes(money(amount).into_bytes()),
            s.dist_info.clone(),
        ]);
    }
    lines.resize(6 * MAX_LINES + 3, Value::NULL);
    let mut update = Vec::with_capacity(6 * MAX_LINES);
    for s in stock.iter().filter(|s| s.count > 0) {
        update.extend([s.w, s.i, s.quantity, s.ytd, s.count, s.remote].map(Value::Int));
    }
    update.resize(6 * MAX_LINES, Value::NULL);
    conn.run(&st.stock_update, update).await?;
    conn.run(&st.order_lines, lines).await?;
    conn.end("COMMIT").await?;
    Ok(new_order_done(
        show,
        t,
        o_id,
        Some(order_total(sum, discount, w_tax, d_tax)),
    ))
}

/// The middle customer of those with a last name (clause 2.5.2.2): position ceil(n/2) of
/// the list ordered by c_first.
async fn customer_by_name<C: SqlConn>(
    conn: &mut C,
    st: &ClientSql<C::Stmt>,
    w: i64,
    d: i64,
    last: &str,
) -> Step<i64> {
    let args = vec![
        Value::Int(w),
        Value::Int(d),
        Value::Bytes(last.as_bytes().to_vec()),
    ];
    let rows = conn.all(&st.customers_by_name, args).await?;
    match rows.get(rows.len().saturating_sub(1) / 2) {
        Some(row) => Cols(row).int(0, "c_id"),
        None => Err(Fail::Data(format!(
            "no customer named {last} in district {d} of warehouse {w}"
        ))),
    }
}

async fn sql_payment<C: SqlConn>(
    conn: &mut C,
    st: &ClientSql<C::Stmt>,
    t: &Payment,
    show: bool,
) -> Step<Done> {
    let (w, d, c_w, c_d) = (
        i64::from(t.w_id),
        i64::from(t.d_id),
        i64::from(t.c_w_id),
        i64::from(t.c_d_id),
    );
    let cents = i64::from(t.amount_cents);
    let amount = money(cents);
    let amount = || Value::Bytes(amount.as_bytes().to_vec());
    conn.run(
        &st.pay_ytd,
        vec![amount(), amount(), Value::Int(w), Value::Int(d)],
    )
    .await?;
    let c_id = match &t.customer {
        Customer::ById(id) => i64::from(*id),
        Customer::ByName(last) => customer_by_name(conn, st, c_w, c_d, last).await?,
    };
    let row = conn
        .first(&st.pay_customer, ints([w, d, c_w, c_d, c_id]))
        .await?;
    let row = row.ok_or_else(|| {
        Fail::Data(format!(
            "warehouse {w}, district {d}, or customer {c_id} of district {c_d} warehouse \
             {c_w}, not found"
        ))
    })?;
    let r = Cols(&row);
    let h_data = format!("{}    {}", r.text(0), r.text(1));
    let credit = r.text(5);
    let balance = r.fixed(6, 2, "c_balance")? - cents;
    conn.run(
        &st.pay_customer_update,
        vec![
            amount(),
            amount(),
            Value::Int(d),
            Value::Int(w),
            amount(),
            Value::Int(c_w),
            Value::Int(c_d),
            Value::Int(c_id),
        ],
    )
    .await?;
    conn.run(
        &st.insert_history,
        vec![
            Value::Int(c_id),
            Value::Int(c_d),
            Value::Int(c_w),
            Value::Int(d),
            Value::Int(w),
            amount(),
            Value::Bytes(h_data.into_bytes()),
        ],
    )
    .await?;
    conn.end("COMMIT").await?;
    Ok(payment_done(show, t, c_id, balance, &credit))
}

async fn sql_order_status<C: SqlConn>(
    conn: &mut C,
    st: &ClientSql<C::Stmt>,
    t: &OrderStatus,
    show: bool,
) -> Step<Done> {
    let (w, d) = (i64::from(t.w_id), i64::from(t.d_id));
    let c_id = match &t.customer {
        Customer::ById(id) => i64::from(*id),
        Customer::ByName(last) => customer_by_name(conn, st, w, d, last).await?,
    };
    let rows = conn.all(&st.order_status, ints([w, d, c_id])).await?;
    let first = rows.first().ok_or_else(|| {
        Fail::Data(format!(
            "customer {c_id} of district {d} warehouse {w} not found"
        ))
    })?;
    let r = Cols(first);
    let balance = r.fixed(4, 2, "c_balance")?;
    let order = r.opt_int(5).map(|o_id| {
        let lines = rows
            .iter()
            .filter(|row| !matches!(cell(*row, 8), Value::NULL));
        (o_id, r.opt_int(7), lines.count() as i64)
    });
    conn.end("COMMIT").await?;
    Ok(order_status_done(show, t, c_id, balance, order))
}

async fn sql_delivery<C: SqlConn>(
    conn: &mut C,
    st: &ClientSql<C::Stmt>,
    t: &Delivery,
    show: bool,
) -> Step<Done> {
    let w = i64::from(t.w_id);
    let districts = DISTRICTS_PER_W as usize;
    let rows = conn
        .all(&st.oldest_new_orders, vec![Value::Int(w); districts])
        .await?;
    let mut keys = Vec::with_capacity(2 * districts);
    for row in &rows {
        let r = Cols(row);
        keys.extend([
            Value::Int(r.int(0, "no_d_id")?),
            Value::Int(r.int(1, "no_o_id")?),
        ]);
    }
    let delivered = rows.len() as i64;
    if delivered > 0 {
        keys.resize(2 * districts, Value::NULL);
        let with_w = |prefix: &[Value]| {
            let mut args = prefix.to_vec();
            args.extend(keys.iter().cloned());
            args
        };
        conn.run(&st.delete_new_orders, with_w(&[Value::Int(w)]))
            .await?;
        conn.run(&st.deliver_lines, with_w(&[Value::Int(w)]))
            .await?;
        let mut args = with_w(&[Value::Int(w)]);
        args.extend([int(t.carrier_id), Value::Int(w)]);
        args.extend(keys.iter().cloned());
        conn.run(&st.deliver_orders, args).await?;
    }
    conn.end("COMMIT").await?;
    Ok(delivery_done(
        show,
        t,
        delivered,
        DISTRICTS_PER_W as i64 - delivered,
    ))
}

async fn sql_stock_level<C: SqlConn>(
    conn: &mut C,
    st: &ClientSql<C::Stmt>,
    t: &StockLevel,
    show: bool,
) -> Step<Done> {
    let row = conn
        .first(
            &st.stock_level,
            ints([i64::from(t.threshold), i64::from(t.w_id), i64::from(t.d_id)]),
        )
        .await?;
    let (low, district) = match &row {
        Some(row) => (Cols(row).int(0, "count")?, Cols(row).opt_int(1)),
        None => (0, None),
    };
    if district.is_none() {
        return Err(Fail::Data(format!(
            "district {} of warehouse {} not found",
            t.d_id, t.w_id
        )));
    }
    conn.end("COMMIT").await?;
    Ok(stock_level_done(show, t, low))
}

// ---------------------------------------------------------------------------------------
// Summaries, the same in both modes.

fn new_order_done(show: bool, t: &NewOrder, o_id: i64, total: Option<i64>) -> Done {
    if !show {
        return Done::quiet(total.is_none());
    }
    let head = format!(
        "New Order: w {} d {} c {} o {o_id} lines {}",
        t.w_id,
        t.d_id,
        t.c_id,
        t.lines.len()
    );
    match total {
        Some(total) => Done {
            rolled_back: false,
            summary: format!("{head} total {}", money(total)),
        },
        None => Done {
            rolled_back: true,
            summary: format!("{head} rolled back (unused item)"),
        },
    }
}

/// ` (by name X)` for a customer chosen by name.
fn by_name(customer: &Customer) -> String {
    match customer {
        Customer::ById(_) => String::new(),
        Customer::ByName(last) => format!(" (by name {last})"),
    }
}

fn payment_done(show: bool, t: &Payment, c_id: i64, balance: i64, credit: &str) -> Done {
    if !show {
        return Done::quiet(false);
    }
    let home = if (t.c_w_id, t.c_d_id) == (t.w_id, t.d_id) {
        String::new()
    } else {
        format!(" of w {} d {}", t.c_w_id, t.c_d_id)
    };
    Done {
        rolled_back: false,
        summary: format!(
            "Payment: w {} d {} c {c_id}{home}{} balance {} credit {credit}",
            t.w_id,
            t.d_id,
            by_name(&t.customer),
            money(balance)
        ),
    }
}

/// `order` is the latest order's id, carrier and number of lines.
fn order_status_done(
    show: bool,
    t: &OrderStatus,
    c_id: i64,
    balance: i64,
    order: Option<(i64, Option<i64>, i64)>,
) -> Done {
    if !show {
        return Done::quiet(false);
    }
    let order = match order {
        None => "no order".to_string(),
        Some((o_id, carrier, lines)) => {
            let carrier = carrier.map_or("none".to_string(), |c| c.to_string());
            format!("o {o_id} carrier {carrier} lines {lines}")
        }
    };
    Done {
        rolled_back: false,
        summary: format!(
            "Order Status: w {} d {} c {c_id}{} balance {} {order}",
            t.w_id,
            t.d_id,
            by_name(&t.customer),
            money(balance)
        ),
    }
}

fn delivery_done(show: bool, t: &Delivery, delivered: i64, skipped: i64) -> Done {
    if !show {
        return Done::quiet(false);
    }
    Done {
        rolled_back: false,
        summary: format!(
            "Delivery: w {} carrier {} delivered {delivered} skipped {skipped}",
            t.w_id, t.carrier_id
        ),
    }
}

fn stock_level_done(show: bool, t: &StockLevel, low: i64) -> Done {
    if !show {
        return Done::quiet(false);
    }
    Done {
        rolled_back: false,
        summary: format!(
            "Stock Level: w {} d {} threshold {} low {low}",
            t.w_id, t.d_id, t.threshold
        ),
    }
}

// ---------------------------------------------------------------------------------------
// Values.

/// A column of a row, NULL when the row is shorter.
fn cell<R: Cells + ?Sized>(row: &R, i: usize) -> &Value {
    row.cell(i).unwrap_or(&Value::NULL)
}

/// A row's values, as the lean connection decoded them.
trait Cells {
    fn cell(&self, i: usize) -> Option<&Value>;
}

impl Cells for Vec<Value> {
    fn cell(&self, i: usize) -> Option<&Value> {
        self.get(i)
    }
}

impl Cells for [Value] {
    fn cell(&self, i: usize) -> Option<&Value> {
        self.get(i)
    }
}

/// Typed reads of a row's columns, an unexpected value being a [`Fail::Data`].
struct Cols<'a, R: Cells + ?Sized>(&'a R);

impl<R: Cells + ?Sized> Cols<'_, R> {
    fn unexpected(&self, i: usize, name: &str) -> Fail {
        Fail::Data(format!("unexpected value {:?} for {name}", cell(self.0, i)))
    }

    fn opt_int(&self, i: usize) -> Option<i64> {
        int_of(cell(self.0, i))
    }

    fn int(&self, i: usize, name: &str) -> Step<i64> {
        self.opt_int(i).ok_or_else(|| self.unexpected(i, name))
    }

    /// A DECIMAL with `scale` digits after the point, as an integer count of its last digit.
    fn fixed(&self, i: usize, scale: u32, name: &str) -> Step<i64> {
        fixed_of(cell(self.0, i), scale).ok_or_else(|| self.unexpected(i, name))
    }

    fn text(&self, i: usize) -> String {
        match cell(self.0, i) {
            Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
            Value::NULL => String::new(),
            other => other.as_sql(true).trim_matches('\'').to_string(),
        }
    }
}

fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::UInt(u) => i64::try_from(*u).ok(),
        Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// Parses a decimal (`-12.3`, `7`, `0.1965`) into an integer of `scale` decimal places,
/// rounding half away from zero beyond them.
fn fixed_of(v: &Value, scale: u32) -> Option<i64> {
    let unit = 10i64.checked_pow(scale)?;
    match v {
        Value::Int(i) => i.checked_mul(unit),
        Value::UInt(u) => i64::try_from(*u).ok()?.checked_mul(unit),
        Value::Double(f) => Some((f * unit as f64).round() as i64),
        Value::Float(f) => Some((f64::from(*f) * unit as f64).round() as i64),
        Value::Bytes(b) => parse_fixed(std::str::from_utf8(b).ok()?.trim(), scale),
        _ => None,
    }
}

fn parse_fixed(s: &str, scale: u32) -> Option<i64> {
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && frac.is_empty() {
        return None;
    }
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(whole) || !all_digits(frac) {
        return None;
    }
    let mut value: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let frac = frac.as_bytes();
    for k in 0..scale as usize {
        let digit = frac.get(k).map_or(0, |b| i64::from(b - b'0'));
        value = value.checked_mul(10)?.checked_add(digit)?;
    }
    if frac.get(scale as usize).is_some_and(|b| *b >= b'5') {
        value = value.checked_add(1)?;
    }
    Some(if negative { -value } else { value })
}

/// Cents as a decimal amount: `-120.00`.
fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let a = cents.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

/// NEWORD's total: `ROUND(sum * (1 - discount) * (1 + w_tax + d_tax), 2)`, with the sum in
/// cents and the rates in units of 0.0001, exactly as the server computes it on DECIMALs.
fn order_total(sum_cents: i64, discount: i64, w_tax: i64, d_tax: i64) -> i64 {
    let raw =
        i128::from(sum_cents) * i128::from(10_000 - discount) * i128::from(10_000 + w_tax + d_tax);
    let unit = 100_000_000i128;
    let rounded = (raw.abs() + unit / 2) / unit;
    (if raw < 0 { -rounded } else { rounded }) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_parse_to_fixed_point() {
        let b = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        assert_eq!(fixed_of(&b("12.34"), 2), Some(1234));
        assert_eq!(fixed_of(&b("-120.00"), 2), Some(-12000));
        assert_eq!(fixed_of(&b("-0.5"), 2), Some(-50));
        assert_eq!(fixed_of(&b("0.1965"), 4), Some(1965));
        assert_eq!(fixed_of(&b("7"), 2), Some(700));
        assert_eq!(fixed_of(&b(".5"), 1), Some(5));
        assert_eq!(fixed_of(&b("1.005"), 2), Some(101));
        assert_eq!(fixed_of(&Value::Int(3), 2), Some(300));
        assert_eq!(fixed_of(&b("1.2.3"), 2), None);
        assert_eq!(fixed_of(&b(""), 2), None);
        assert_eq!(fixed_of(&b("-"), 2), None);
        assert_eq!(fixed_of(&Value::NULL, 2), None);
    }

    #[test]
    fn money_prints_cents() {
        assert_eq!(money(152033), "1520.33");
        assert_eq!(money(-12000), "-120.00");
        assert_eq!(money(-5), "-0.05");
        assert_eq!(money(0), "0.00");
    }

    #[test]
    fn order_total_rounds_as_the_server() {
        // 100.00 * (1 - 0.1) * (1 + 0.05 + 0.05) = 99.00
        assert_eq!(order_total(10_000, 1_000, 500, 500), 9_900);
        // 1.00 * (1 - 0.5) * (1 + 0.0001) = 0.50005, rounded down
        assert_eq!(order_total(100, 5_000, 1, 0), 50);
        // 0.01 * 1.5 = 0.015, half rounded up
        assert_eq!(order_total(1, 0, 5_000, 0), 2);
    }

    #[test]
    fn lists_and_slots() {
        assert_eq!(list([12, 407, 93001].into_iter()), "12,407,93001");
        assert_eq!(slots("(?, ?)", 2), "(?, ?), (?, ?)");
        assert_eq!(
            rows(&["a", "b"], &[INT, MONEY], 2),
            "SELECT CAST(? AS SIGNED) AS a, CAST(? AS DECIMAL(6,2)) AS b \
             UNION ALL SELECT CAST(? AS SIGNED), CAST(? AS DECIMAL(6,2))"
        );
    }

    #[test]
    fn statements_have_the_placeholders_the_code_sends() {
        let count = |s: &str| s.matches('?').count();
        assert_eq!(count(&SQL.call_neword), 8 + NEWORD_OUT);
        assert_eq!(count(&SQL.call_payment), 8 + PAYMENT_OUT);
        assert_eq!(count(&SQL.call_ostat), 5 + OSTAT_OUT);
        assert_eq!(count(&SQL.call_delivery), 2 + DELIVERY_OUT);
        assert_eq!(count(&SQL.call_slev), 3 + SLEV_OUT);
        assert_eq!(count(&SQL.items), MAX_LINES + 3);
        assert_eq!(count(&SQL.stock_lock), 1 + 2 * MAX_LINES);
        assert_eq!(count(&SQL.stock_update), 6 * MAX_LINES);
        assert_eq!(count(&SQL.order_lines), 3 + 6 * MAX_LINES);
        let districts = DISTRICTS_PER_W as usize;
        assert_eq!(count(&SQL.oldest_new_orders), districts);
        assert_eq!(count(&SQL.delete_new_orders), 1 + 2 * districts);
        assert_eq!(count(&SQL.deliver_lines), 1 + 2 * districts);
        assert_eq!(count(&SQL.deliver_orders), 3 + 4 * districts);
        assert_eq!(count(&SQL.stock_level), 3);
        let q = &*SQL;
        for text in [
            &q.call_neword,
            &q.call_payment,
            &q.call_ostat,
            &q.call_delivery,
            &q.call_slev,
            &q.district_lock,
            &q.district_next,
            &q.items,
            &q.insert_order,
            &q.insert_new_order,
            &q.stock_lock,
            &q.stock_update,
            &q.order_lines,
            &q.pay_ytd,
            &q.customers_by_name,
            &q.pay_customer,
            &q.pay_customer_update,
            &q.insert_history,
            &q.order_status,
            &q.oldest_new_orders,
            &q.delete_new_orders,
            &q.deliver_lines,
            &q.deliver_orders,
            &q.stock_level,
        ] {
            assert!(!text.is_empty() && !text.contains("{{"), "{text}");
        }
    }

    #[test]
    fn procedures_match_the_schema() {
        let sql = include_str!("../../../schemas/mysql/tprocc/procedures.sql");
        for p in PROCEDURES {
            assert!(sql.contains(&format!("CREATE PROCEDURE {p}(")), "{p}");
        }
    }
}
