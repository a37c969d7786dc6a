//! The TPROC-C transactions on MariaDB and MySQL: stored procedures or client-side SQL.
//!
//! Both modes run prepared statements, prepared once when a terminal connects (HammerDB's
//! `*_prepared` is implied). With stored procedures each transaction is one `CALL` whose OUT
//! parameters, passed as `NULL` placeholders, come back as a row for the summaries, and go
//! to session variables without them (`procs`); the procedures
//! (`schemas/mysql/tprocc/procedures.sql`) run their own `START TRANSACTION ... COMMIT`.
//! Both modes go over the lean connection of `db::mysql::wire` (a fraction of a general client
//! library's CPU per statement), with no fallback to another client: what that connection
//! refuses (an authentication that would give the password away) is an error.
//! With client-side SQL (`*_no_stored_procs`) the session runs with autocommit off, so a
//! transaction begins with its first statement and ends with the `COMMIT` or `ROLLBACK` sent
//! here: the same transaction as `START TRANSACTION` (whose snapshot also starts at the first
//! read), one round trip cheaper. The statements carry the procedures' business logic,
//! set-based where the logic allows, so that a transaction costs few round trips and few
//! replies: New-Order reads all its items and locks all its STOCK rows in one statement,
//! updates and inserts all its lines in one statement each, and Delivery serves all ten
//! districts in four statements. Where the order of work differs from the procedures, the
//! data do not: New-Order locks STOCK rows in key order (also one order across terminals),
//! and on MariaDB takes the district's next order id with its writes, so that the district
//! row every Payment of the district also updates is held for one round trip, not two (an
//! unused item rolls back either way).

mod client_sql;
pub mod counters;
mod done;
mod fitness;
mod lag;
pub mod oltp;
mod procs;
mod sql;
mod values;

pub use sql::MAX_LINES;

use std::sync::atomic::{AtomicU8, Ordering};

use self::client_sql::{
    sql_delivery, sql_new_order, sql_order_status, sql_payment, sql_stock_level, ClientSql,
};
use self::fitness::MyFitness;
use self::procs::WireProcs;
use self::values::{Fail, Step};
use crate::config::{Database, Settings};
use crate::db::mysql::dialect::MyDialect;
use crate::db::mysql::wire::{self as mywire, Arg, Stmt, Wire, WireError};
use crate::db::mysql::MyTarget;
use crate::db::net::sock::KillSwitch;
use crate::endpoint::{Destination, Endpoint, Position, Route};
use crate::error::{Error, Result};
use crate::fault::{Failure, Peer};
use crate::tpcc::fitness::{self as rules, Place};
use crate::tpcc::txn::{
    Counters, Delivery, Done, Lag, Mode, NewOrder, OrderStatus, Payment, StockLevel, TxnConn, TxnDb,
};
use crate::tpcc::Constants;

/// What the driver knows about the server's `innodb_snapshot_isolation` (MariaDB >= 10.6.18).
const SNAPSHOT_UNKNOWN: u8 = 0;
const SNAPSHOT_PRESENT: u8 = 1;
const SNAPSHOT_ABSENT: u8 = 2;

/// TPROC-C on a MariaDB or MySQL server, from the `maria_*` or `mysql_*` keys.
pub struct MyDriver {
    /// What the dictionary's database is, whose prefix names the keys (`maria_dbase`); the
    /// server's own answer decides what the server decides (see `compound`).
    dialect: &'static MyDialect,
    /// The user on `*_dbase`: terminals and the counters.
    schema: MyTarget,
    /// The user with no database selected: `prepare` checks that the database exists.
    server: MyTarget,
    dbname: String,
    mode: Mode,
    snapshot: AtomicU8,
    /// The counters' connection, kept between readings.
    monitor: tokio::sync::Mutex<Option<Box<Wire>>>,
    /// With several servers, a kept connection to each for its own `Com_commit` and
    /// `Com_rollback` (a Galera node counts only the transactions run on it).
    node_conns: Vec<(Endpoint, NodeSlot)>,
    /// Terminals make the one-line summaries of their transactions (`showoutput`).
    summaries: bool,
    /// Compound statements where the server's dialect runs them (MariaDB): client-side SQL's
    /// blocks, and the quiet NEWORD call.
    compound: bool,
    /// Every lean connection opened from `schema` and `server`.
    kill: KillSwitch,
    /// Where the terminals' and the monitor's connections go.
    to: Destination,
}

impl MyDriver {
    /// TPROC-C on `db`, a database of the family, with its dialect ([`MyDialect::of`]); the
    /// engine makes it with [`MyDriver::of`].
    pub fn new(settings: &Settings, db: Database) -> Self {
        Self::of(settings, MyDialect::of(db))
    }

    /// TPROC-C on `dialect`'s database, from its dictionary, the routines as the dialect
    /// allows.
    pub fn of(settings: &Settings, dialect: &'static MyDialect) -> Self {
        let db = dialect.database;
        let kill = KillSwitch::default();
        let mut schema = MyTarget::schema(settings, dialect);
        schema.bounds.kill = kill.clone();
        let mut server = MyTarget::server(settings, dialect);
        server.bounds.kill = kill.clone();
        let no_procs = dialect.client_sql(settings);
        let to = Destination::of(settings, db);
        let servers = to.servers();
        let node_conns = if servers.len() > 1 {
            servers
                .into_iter()
                .map(|e| (e, NodeSlot::default()))
                .collect()
        } else {
            Vec::new()
        };
        MyDriver {
            dialect,
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
            node_conns,
            summaries: false,
            compound: true,
            kill,
            to,
        }
    }

    /// Terminals make their transactions' summaries (for `showoutput`) when `on`.
    pub fn with_summaries(mut self, on: bool) -> Self {
        self.summaries = on;
        self
    }

    /// No compound statements, as on MySQL, whatever the server: for tests of that path on a
    /// MariaDB server.
    #[doc(hidden)]
    pub fn without_compound_statements(mut self) -> Self {
        self.compound = false;
        self
    }

    /// Disconnects the counters' connection, if one is open.
    pub async fn close(&self) {
        if let Some(conn) = self.monitor.lock().await.take() {
            conn.close().await;
        }
    }

    fn key(&self, name: &str) -> String {
        self.dialect.key(name)
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
                Mode::StoredProcedures => {
                    let compound = self.compound && wire.dialect().compound_statements;
                    // With several servers a failover may lose acknowledged New-Orders:
                    // NEWORD returns each order's id then, to count them.
                    let order_ids = !self.node_conns.is_empty();
                    let procs =
                        WireProcs::prepare(wire, self.summaries, compound, order_ids).await?;
                    WirePrepared::Procedures(procs)
                }
                Mode::ClientSql => {
                    let compound = self.compound && wire.dialect().compound_statements;
                    let st = ClientSql::prepare(wire, compound, self.summaries).await?;
                    WirePrepared::Client(Box::new(st))
                }
            })
        }
        .await;
        prepared.map_err(|e| fail("cannot prepare statements on", e))
    }

    /// The database exists, then TPROC-C's rules (`tpcc::fitness`), asked in MySQL's SQL.
    async fn prepare_on(&self, conn: &mut Wire, warehouses: u32) -> Result<(u32, Constants)> {
        let db = &self.dbname;
        let peer = self.server.peer();
        let exists = conn
            .exec_rows(
                "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
                &[Arg::Text(db.as_bytes())],
            )
            .await
            .map_err(|e| self.failed("cannot check", "the database", &e))?;
        if exists.is_empty() {
            return Err(Error::SchemaNotFound {
                db: db.clone(),
                engine: self.dialect.database.name(),
                addr: peer.addr,
                key: self.key("dbase"),
            });
        }
        let place = Place {
            db,
            engine: self.dialect.database.name(),
            addr: &peer.addr,
        };
        let mut f = MyFitness {
            conn,
            db,
            peer: peer.clone(),
            procedures: self.mode == Mode::StoredProcedures,
            no_procs_key: self.key("no_stored_procs"),
        };
        rules::check(&mut f, &place, warehouses).await
    }
}

impl TxnDb for MyDriver {
    type Conn = MyConn;

    fn name(&self) -> &'static str {
        self.dialect.database.name()
    }

    fn mode(&self) -> Mode {
        self.mode
    }

    async fn connect(&self, at: Position) -> Result<MyConn> {
        self.open_along(&self.to.route(at)).await
    }

    fn reply_timeout(&self) -> std::time::Duration {
        self.schema.bounds.reply_timeout
    }

    fn cut(&self) -> usize {
        self.kill.cut()
    }

    fn peer(&self, at: Position) -> crate::fault::Peer {
        self.schema.clone().routed(&self.to.route(at)).peer()
    }

    async fn district_heads(&self) -> Result<crate::tpcc::txn::Heads> {
        // Not the run's kill switch: the run's end has cut every connection made with it.
        let mut target = self.schema.clone();
        target.bounds.kill = KillSwitch::default();
        let mut conn = mywire::connect(&target).await?;
        // A Galera node certifies at commit but applies its peers' commits after: the read
        // waits until this node has applied every commit the cluster acknowledged before it.
        // Servers without Galera's variable refuse it, and have nothing to wait for.
        let _ = conn.query("SET SESSION wsrep_sync_wait = 1").await;
        let rows = conn
            .query_rows("SELECT d_w_id, d_id, d_next_o_id FROM district")
            .await;
        let addr = conn.addr().to_string();
        conn.close().await;
        let rows = rows.map_err(|e| self.failed("cannot query", "district", &e))?;
        let heads = rows
            .iter()
            .filter_map(|r| {
                let n = |i: usize| {
                    r.get(i)
                        .and_then(crate::db::mysql::int_of)
                        .and_then(|v| u32::try_from(v).ok())
                };
                Some((n(0)?, n(1)?, n(2)?))
            })
            .collect();
        Ok((addr, heads))
    }

    async fn prepare(&self, warehouses: u32) -> Result<(u32, Constants)> {
        let mut conn = mywire::connect(&self.server).await?;
        let addr = conn.addr().to_string();
        if let Some(line) = self.dialect.reached(conn.dialect(), &addr) {
            crate::db::warn_once(format!("reached {} {addr}", self.dialect.server), line);
        }
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
                    let target = self
                        .schema
                        .clone()
                        .routed(&self.to.route(Position::Monitor));
                    let mut conn = mywire::connect(&target).await?;
                    // Each reading must see the latest commits, whatever the server's default.
                    if let Err(e) = conn.query("SET SESSION autocommit = 1").await {
                        conn.close().await;
                        return Err(self.failed("cannot read", "the counters", &e));
                    }
                    monitor.insert(Box::new(conn))
                }
            };
            match read_counters(conn, &self.dbname).await {
                Ok(mut c) if !self.node_conns.is_empty() => {
                    drop(monitor);
                    let readings = futures_util::future::join_all(self.node_conns.iter().map(
                        |(at, slot)| async {
                            // A server that stalls is left out, within the monitor's
                            // reading.
                            let limit = self.schema.bounds.reply_timeout * 3 / 4;
                            let name = crate::endpoint::addr(&at.host, at.port);
                            tokio::time::timeout(limit, self.node_transactions(at, slot))
                                .await
                                .unwrap_or((name, None))
                        },
                    ))
                    .await;
                    c.transactions = readings.iter().filter_map(|(_, n)| *n).sum();
                    c.nodes = readings;
                    return Ok(c);
                }
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

    async fn connect_reads(&self, at: Position) -> Result<Option<MyConn>> {
        match self.to.read_route(at) {
            Some(route) => self.open_along(&route).await.map(Some),
            None => Ok(None),
        }
    }

    async fn replay_lag(&self) -> Vec<Lag> {
        lag::replay_lag(&self.server, &self.to).await
    }
}

impl MyDriver {
    /// A terminal's connection as the schema's user, along `route`, its session set up and
    /// its statements prepared.
    async fn open_along(&self, route: &Route) -> Result<MyConn> {
        let target = self.schema.clone().routed(route);
        // No fallback to another client: an authentication the lean connection refuses
        // must not be done by one that gives the password away.
        let mut wire = mywire::connect(&target).await?;
        // Errors name the server the connection reached (the socket may have led elsewhere).
        let peer = Peer {
            addr: wire.addr().to_string(),
            ..target.peer()
        };
        let conn = |link| MyConn {
            link,
            peer,
            // The flag the statements were prepared with (their variants for the summaries).
            summaries: self.summaries,
            open: false,
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
}

/// A kept connection to one server of several, for its own counters.
type NodeSlot = tokio::sync::Mutex<Option<Box<Wire>>>;

impl MyDriver {
    /// One server's `Com_commit + Com_rollback`, on the connection kept for it (made again
    /// once when lost), named by its address; `None` when it does not answer.
    async fn node_transactions(&self, at: &Endpoint, slot: &NodeSlot) -> (String, Option<u64>) {
        let target = self.server.clone().at(at);
        let name = crate::endpoint::addr(&at.host, at.port);
        let mut kept = slot.lock().await;
        for _ in 0..2 {
            let mut conn = match kept.take() {
                Some(conn) => conn,
                None => match mywire::connect(&target).await {
                    Ok(conn) => Box::new(conn),
                    Err(_) => return (name, None),
                },
            };
            match counters::server(&mut conn).await {
                Ok(c) => {
                    let n = c.transactions();
                    *kept = Some(conn);
                    return (name, Some(n));
                }
                Err(e) if e.kind == Failure::Lost => continue,
                Err(_) => {
                    conn.close().await;
                    return (name, None);
                }
            }
        }
        (name, None)
    }
}

async fn read_counters(conn: &mut Wire, db: &str) -> Result<Counters, WireError> {
    let transactions = counters::server(conn).await?.transactions();
    let new_orders = counters::new_orders(conn, db).await?.unwrap_or(0);
    // An autocommitted SELECT is not a COMMIT: the readings add nothing to Com_commit.
    Ok(Counters {
        new_orders,
        transactions,
        own: 0,
        nodes: Vec::new(),
    })
}

/// One terminal's connection and its prepared statements.
pub struct MyConn {
    link: Link,
    peer: Peer,
    summaries: bool,
    /// Client-side SQL: a transaction began and has not ended (its call was dropped).
    open: bool,
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

impl MyConn {
    /// Client-side SQL: before a transaction begins, the one a dropped call left open is
    /// rolled back (its statements would otherwise commit with the next one's). A call
    /// dropped once its compound statement was sent (MariaDB: New-Order's and Delivery's
    /// writes, Payment) is the server's to finish, COMMIT included, as a dropped procedure
    /// call is; the ROLLBACK then finds nothing to undo.
    async fn settle(&mut self) -> Step<()> {
        if let Link::WireClient(wire, _) = &mut self.link {
            if self.open {
                wire.query("ROLLBACK").await?;
            }
            self.open = true;
        }
        Ok(())
    }

    /// The outcome of one transaction: a failure in client-side SQL is rolled back here
    /// (the procedures roll back their own), unless the connection is gone.
    async fn finish(&mut self, txn: &str, outcome: Step<Done>) -> Result<Done> {
        let (kind, detail) = match outcome {
            Ok(done) => {
                self.open = false;
                return Ok(done);
            }
            Err(Fail::Wire(e)) => (e.kind, e.detail),
            Err(Fail::Data(d)) => (Failure::Other, d),
        };
        if kind != Failure::Lost {
            match &mut self.link {
                Link::WireClient(wire, _) => {
                    if wire.query("ROLLBACK").await.is_ok() {
                        self.open = false;
                    }
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
        let outcome = async {
            self.settle().await?;
            match &mut self.link {
                Link::WireClient(wire, c) => sql_new_order(&mut **wire, c, t, self.summaries).await,
                Link::Wire(wire, p) => procs::new_order(wire, p, t, self.summaries).await,
            }
        }
        .await;
        self.finish("New Order", outcome).await
    }

    async fn payment(&mut self, t: &Payment) -> Result<Done> {
        let outcome = async {
            self.settle().await?;
            match &mut self.link {
                Link::WireClient(wire, c) => sql_payment(&mut **wire, c, t, self.summaries).await,
                Link::Wire(wire, p) => procs::payment(wire, p, t, self.summaries).await,
            }
        }
        .await;
        self.finish("Payment", outcome).await
    }

    async fn order_status(&mut self, t: &OrderStatus) -> Result<Done> {
        let outcome = async {
            self.settle().await?;
            match &mut self.link {
                Link::WireClient(wire, c) => {
                    sql_order_status(&mut **wire, c, t, self.summaries).await
                }
                Link::Wire(wire, p) => procs::order_status(wire, p, t, self.summaries).await,
            }
        }
        .await;
        self.finish("Order Status", outcome).await
    }

    async fn delivery(&mut self, t: &Delivery) -> Result<Done> {
        let outcome = async {
            self.settle().await?;
            match &mut self.link {
                Link::WireClient(wire, c) => sql_delivery(&mut **wire, c, t, self.summaries).await,
                Link::Wire(wire, p) => procs::delivery(wire, p, t, self.summaries).await,
            }
        }
        .await;
        self.finish("Delivery", outcome).await
    }

    async fn stock_level(&mut self, t: &StockLevel) -> Result<Done> {
        let outcome = async {
            self.settle().await?;
            match &mut self.link {
                Link::WireClient(wire, c) => {
                    sql_stock_level(&mut **wire, c, t, self.summaries).await
                }
                Link::Wire(wire, p) => procs::stock_level(wire, p, t, self.summaries).await,
            }
        }
        .await;
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

    fn node(&self) -> &str {
        &self.peer.addr
    }

    async fn close(self) {
        match self.link {
            Link::Wire(wire, _) | Link::WireClient(wire, _) => wire.close().await,
        }
    }
}
