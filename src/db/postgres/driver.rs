//! The TPROC-C transactions on PostgreSQL: functions, procedures or client-side SQL.
//!
//! Three flavours, chosen from the dictionary when the driver is made:
//! * functions (`pg_storedprocs` false): `SELECT ... FROM neword(...)` and the like, one
//!   prepared statement per transaction in autocommit (`schemas/pg/tprocc/routines.sql`);
//! * procedures (`pg_storedprocs` true): `CALL neword(...)`, likewise (the same bodies);
//! * client-side SQL (`pg_no_stored_procs` true, hammer's addition): the same business logic
//!   as plain prepared statements inside `BEGIN ... COMMIT`.
//!
//! Every statement is prepared once per connection on hammer's lean connection, and the
//! client-side flavour pipelines `BEGIN`, its statements and `COMMIT` behind one Sync, so a
//! transaction costs one round trip, New-Order two: whether it commits depends on the item
//! lookup.

mod calls;
mod client;
pub mod counters;
mod fitness;
mod lag;
pub mod oltp;
mod outputs;
mod sql;

use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::Mutex;
use tokio_postgres::Client;

use self::calls::{customer_args, routine_new_order};
use self::client::{
    ClientLink, DELIVERY, OSTAT_BY_ID, OSTAT_BY_NAME, PAYMENT_BY_ID, PAYMENT_BY_NAME, SLEV,
};
use self::fitness::PgFitness;
use self::outputs::{
    delivery_result, failed, order_status_result, payment_result, routine_failed,
    stock_level_result,
};
use self::sql::{statement_texts, Flavour, ROUTINES};
use crate::config::{Database, Settings};
use crate::db::net::sock::KillSwitch;
use crate::db::postgres::dialect::{PgDialect, Routines};
use crate::db::postgres::wire::{self as pgwire, Wire};
use crate::db::postgres::{classify, connect, PgConn, PgTarget};
use crate::endpoint::{Destination, Endpoint, Position, Route};
use crate::error::{Error, Result};
use crate::fault::{DbError, Failure, Peer};
use crate::tpcc::fitness::{self as rules, Place};
use crate::tpcc::txn::{
    Counters, Customer, Delivery, Done, Lag, Mode, NewOrder, OrderStatus, Payment, StockLevel,
    TxnConn, TxnDb,
};
use crate::tpcc::Constants;

/// PostgreSQL as a [`TxnDb`]: the schema owner's and the superuser's logins, the flavour, and
/// the connections `counters` keeps between calls.
pub struct PgDriver {
    /// What differs on this database, whose prefix names the dictionary keys
    /// (`pg_storedprocs`).
    dialect: &'static PgDialect,
    owner: PgTarget,
    admin: PgTarget,
    flavour: Flavour,
    /// The superuser's connection for `pg_stat_database`.
    admin_conn: Mutex<Option<PgConn>>,
    /// The owner's connection for `district`.
    owner_conn: Mutex<Option<PgConn>>,
    /// With several servers, each one's superuser connection for its own
    /// `pg_stat_database` (each server counts only the transactions run on it).
    node_conns: Vec<(Endpoint, Mutex<Option<PgConn>>)>,
    /// Terminals make the one-line summaries of their transactions (`showoutput`).
    summaries: bool,
    /// Every connection opened from `owner` and `admin`.
    kill: KillSwitch,
    /// Transactions the counters' own readings made in the schema's database.
    own_reads: AtomicU64,
    /// Where the terminals' and the monitor's connections go.
    to: Destination,
    /// What the server is, read by `prepare`: its counters are the server's own.
    server: std::sync::OnceLock<&'static PgDialect>,
}

impl PgDriver {
    /// TPROC-C on `db`, an engine of the PostgreSQL family, from its dictionary (keys
    /// `{prefix}_storedprocs` and the like).
    pub fn new(settings: &Settings, db: Database) -> Self {
        Self::of(settings, PgDialect::of(db))
    }

    /// TPROC-C on `dialect`'s database, from its dictionary, the routines as the dialect
    /// allows.
    pub fn of(settings: &Settings, dialect: &'static PgDialect) -> Self {
        let db = dialect.database;
        let flavour = match dialect.routines(settings) {
            Routines::ClientSql => Flavour::ClientSql,
            Routines::Procedures => Flavour::Procedures,
            Routines::Functions => Flavour::Functions,
        };
        let kill = KillSwitch::default();
        let to = Destination::of(settings, db);
        let servers = to.servers();
        let node_conns = if servers.len() > 1 {
            servers.into_iter().map(|e| (e, Mutex::new(None))).collect()
        } else {
            Vec::new()
        };
        PgDriver {
            dialect,
            owner: PgTarget::owner_of(settings, db).with_kill_switch(&kill),
            admin: PgTarget::admin_of(settings, db).with_kill_switch(&kill),
            flavour,
            admin_conn: Mutex::new(None),
            owner_conn: Mutex::new(None),
            node_conns,
            summaries: false,
            kill,
            own_reads: AtomicU64::new(0),
            to,
            server: std::sync::OnceLock::new(),
        }
    }

    /// The counter statement of the server `prepare` found, else the dialect's.
    fn counter_sql(&self) -> &'static str {
        self.server.get().unwrap_or(&self.dialect).counter_sql
    }

    /// Terminals make their transactions' summaries (for `showoutput`) when `on`.
    pub fn with_summaries(mut self, on: bool) -> Self {
        self.summaries = on;
        self
    }

    /// Closes the connections `counters` keeps.
    pub async fn close(&self) {
        let nodes = self.node_conns.iter().map(|(_, slot)| slot);
        for slot in [&self.admin_conn, &self.owner_conn]
            .into_iter()
            .chain(nodes)
        {
            if let Some(conn) = slot.lock().await.take() {
                conn.close().await;
            }
        }
    }

    fn db(&self) -> &str {
        &self.owner.dbname
    }

    /// A dictionary key of this engine: `pg_storedprocs` for `storedprocs`.
    fn key(&self, name: &str) -> String {
        self.dialect.key(name)
    }

    /// Connects as the owner; a refused login or a missing database is explained with what
    /// the superuser can see, since both usually mean the schema was never built.
    async fn connect_owner(&self) -> Result<PgConn> {
        let e = match connect(&self.owner).await {
            Ok(conn) => return Ok(conn),
            Err(e) => e,
        };
        if !matches!(e.kind, Failure::Auth | Failure::UnknownDatabase) {
            return Err(e.into());
        }
        let (db, user, addr) = (self.db(), &self.owner.user, e.addr.clone());
        let Ok((db_exists, role_exists)) = self.db_and_role_exist().await else {
            return Err(e.into());
        };
        if !db_exists {
            return Err(Error::NoSchemaDatabase {
                db: db.to_string(),
                database: self.dialect.database,
                addr,
                missing_user: (!role_exists).then(|| user.clone()),
            });
        }
        if !role_exists {
            return Err(Error::NoSchemaOwner {
                user: user.clone(),
                database: self.dialect.database,
                addr,
                db: db.to_string(),
            });
        }
        Err(e.into())
    }

    /// Whether the schema's database and its owner exist, as the superuser sees it.
    async fn db_and_role_exist(&self) -> Result<(bool, bool), DbError> {
        let conn = connect(&self.admin).await?;
        let sql = "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1::text),
                          EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $2::text)";
        let r = conn
            .client
            .query_one(sql, &[&self.owner.dbname, &self.owner.user])
            .await;
        conn.close().await;
        let row = r.map_err(|e| failed(&self.admin.peer(), "cannot query", "databases", &e))?;
        Ok((row.get(0), row.get(1)))
    }

    /// Everything `prepare` checks, on the owner's connection: TPROC-C's rules
    /// (`tpcc::fitness`), asked in PostgreSQL's SQL.
    async fn inspect(&self, conn: &PgConn, warehouses: u32) -> Result<(u32, Constants)> {
        let peer = self.owner.peer();
        let place = Place {
            db: self.db(),
            engine: self.dialect.database.name(),
            addr: &peer.addr,
        };
        let mut f = PgFitness {
            client: &conn.client,
            peer: &peer,
            db: self.db(),
            flavour: self.flavour,
            procs_key: self.key("storedprocs"),
            no_procs_key: self.key("no_stored_procs"),
        };
        rules::check(&mut f, &place, warehouses).await
    }
}

impl TxnDb for PgDriver {
    type Conn = PgTxnConn;

    fn name(&self) -> &'static str {
        self.dialect.database.name()
    }

    fn mode(&self) -> Mode {
        match self.flavour {
            Flavour::ClientSql => Mode::ClientSql,
            Flavour::Functions | Flavour::Procedures => Mode::StoredProcedures,
        }
    }

    async fn connect(&self, at: Position) -> Result<PgTxnConn> {
        self.open_along(&self.to.route(at)).await
    }

    fn reply_timeout(&self) -> std::time::Duration {
        self.owner.bounds.reply_timeout
    }

    fn cut(&self) -> usize {
        self.kill.cut()
    }

    fn peer(&self, at: Position) -> Peer {
        self.owner.clone().routed(&self.to.route(at)).peer()
    }

    async fn district_heads(&self) -> Result<crate::tpcc::txn::Heads> {
        // Not the run's kill switch: the run's end has cut every connection made with it.
        let owner = self.owner.clone().with_kill_switch(&KillSwitch::default());
        let conn = connect(&owner).await?;
        let read = conn
            .client
            .simple_query("SELECT d_w_id, d_id, d_next_o_id FROM district")
            .await;
        let addr = conn.addr.clone();
        conn.close().await;
        let messages = read.map_err(|e| failed(&owner.peer(), "cannot query", "district", &e))?;
        let heads = messages
            .iter()
            .filter_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(r) => {
                    let n = |i: usize| r.get(i).and_then(|v| v.parse::<u32>().ok());
                    Some((n(0)?, n(1)?, n(2)?))
                }
                _ => None,
            })
            .collect();
        Ok((addr, heads))
    }

    async fn prepare(&self, warehouses: u32) -> Result<(u32, Constants)> {
        let conn = self.connect_owner().await?;
        let server = PgDialect::of_client(&conn.client).await;
        if let Ok(server) = server {
            let _ = self.server.set(server);
            let addr = self.owner.peer().addr;
            if let Some(line) = self.dialect.reached(server, &addr) {
                crate::db::warn_once(format!("reached {} {addr}", self.dialect.server), line);
            }
        }
        let r = self.inspect(&conn, warehouses).await;
        conn.close().await;
        r
    }

    /// `pg_stat_database` keeps a row per database; CockroachDB's node metrics do not.
    fn counts_by_database(&self) -> bool {
        self.counter_sql() == counters::SERVER
    }

    async fn counters(&self) -> Result<Counters> {
        let own = self.own_reads.load(Ordering::Relaxed);
        // Along the monitor's route: a lost server's reading moves to a live one.
        let route = self.to.route(Position::Monitor);
        let (admin, owner) = (
            self.admin.clone().routed(&route),
            self.owner.clone().routed(&route),
        );
        let txns = Counter::Transactions(&self.owner.dbname);
        let sql = self.counter_sql();
        // The schema database's own commits and rollbacks (see `counters`): with several
        // servers, each one's, read on each.
        let whole = async {
            if self.node_conns.is_empty() {
                return read_counter(&self.admin_conn, &admin, txns, sql)
                    .await
                    .map(|n| (n, Vec::new()));
            }
            let readings =
                futures_util::future::join_all(self.node_conns.iter().map(|(at, slot)| async {
                    let one = self.admin.clone().at(at);
                    let name = one.peer().addr;
                    // A server that stalls is left out of this reading, within the monitor's.
                    let limit = self.owner.bounds.reply_timeout * 3 / 4;
                    let reading = tokio::time::timeout(limit, read_counter(slot, &one, txns, sql))
                        .await
                        .unwrap_or_else(|_| Err(failed_to_answer(&one.peer(), limit)));
                    (name, reading)
                }))
                .await;
            let mut nodes = Vec::new();
            let mut last_error = None;
            for (name, reading) in readings {
                match reading {
                    Ok(n) => nodes.push((name, Some(n))),
                    Err(e) => {
                        nodes.push((name, None));
                        last_error = Some(e);
                    }
                }
            }
            match last_error {
                Some(e) if nodes.iter().all(|(_, n)| n.is_none()) => Err(e),
                _ => Ok((nodes.iter().filter_map(|(_, n)| *n).sum(), nodes)),
            }
        };
        let (whole, new_orders) = tokio::join!(
            whole,
            read_counter(&self.owner_conn, &owner, Counter::NewOrders, sql),
        );
        let (transactions, nodes) = whole?;
        let counters = Counters {
            new_orders: new_orders?,
            transactions,
            own,
            nodes,
        };
        // Each read of `district` (and of pg_stat_database, when the superuser's database is
        // the schema's) is one more transaction of the schema's database.
        let servers = self.node_conns.len().max(1) as u64;
        let reads = 1 + servers * u64::from(self.admin.dbname == self.owner.dbname);
        self.own_reads.fetch_add(reads, Ordering::Relaxed);
        Ok(counters)
    }

    async fn connect_reads(&self, at: Position) -> Result<Option<PgTxnConn>> {
        match self.to.read_route(at) {
            Some(route) => self.open_along(&route).await.map(Some),
            None => Ok(None),
        }
    }

    async fn replay_lag(&self) -> Vec<Lag> {
        lag::replay_lag(&self.admin, &self.to).await
    }
}

impl PgDriver {
    /// A terminal's connection as the owner, along `route`, its statements prepared: the
    /// functions' calls are read-only statements, so a hot standby prepares them too.
    async fn open_along(&self, route: &Route) -> Result<PgTxnConn> {
        let owner = self.owner.clone().routed(route);
        let mut wire = pgwire::open(&owner).await?;
        // The server the route reached, which messages about this terminal name.
        let peer = Peer {
            addr: wire.addr().to_string(),
            ..owner.peer()
        };
        let prepared = match self.flavour {
            Flavour::Functions | Flavour::Procedures => {
                let texts = statement_texts(self.flavour);
                let named: Vec<(&str, &str)> = ROUTINES
                    .iter()
                    .zip(&texts)
                    .map(|(name, sql)| (*name, sql.as_str()))
                    .collect();
                wire.prepare(&named).await
            }
            Flavour::ClientSql => client::prepare(&mut wire, self.dialect.begin()).await,
        };
        if let Err(e) = prepared {
            wire.close().await;
            let (kind, detail) = pgwire::classify(&e);
            return Err(peer
                .failed(
                    "cannot prepare",
                    kind,
                    format!("the transactions: {detail}"),
                )
                .into());
        }
        let link = match self.flavour {
            Flavour::Functions | Flavour::Procedures => Link::Routines {
                wire,
                procedures: self.flavour == Flavour::Procedures,
            },
            Flavour::ClientSql => Link::Client(ClientLink { wire, open: false }),
        };
        Ok(PgTxnConn {
            link,
            peer,
            summaries: self.summaries,
        })
    }
}

/// A server of several whose counters did not come within `limit`.
fn failed_to_answer(peer: &Peer, limit: std::time::Duration) -> Error {
    peer.failed(
        "no reply from",
        Failure::Lost,
        format!("the counters, within {} s", limit.as_secs_f64()),
    )
    .into()
}

/// What one of the monitor's connections reads.
#[derive(Clone, Copy)]
enum Counter<'a> {
    /// The named database's commits and rollbacks, as the superuser.
    Transactions(&'a str),
    /// `sum(d_next_o_id)`, as the owner on the schema database.
    NewOrders,
}

impl Counter<'_> {
    fn what(self) -> &'static str {
        match self {
            Counter::Transactions(_) => "pg_stat_database",
            Counter::NewOrders => "district",
        }
    }

    async fn read(self, client: &Client, sql: &str) -> Result<u64, tokio_postgres::Error> {
        Ok(match self {
            Counter::Transactions(db) => counters::server(client, sql).await?.of_database(db),
            Counter::NewOrders => counters::new_orders(client).await?.unwrap_or(0),
        })
    }
}

/// Reads a counter on a kept connection, connecting when there is none and once more when
/// the kept one turns out to be lost. `counter_sql` is the dialect's (see `counters`).
async fn read_counter(
    slot: &Mutex<Option<PgConn>>,
    target: &PgTarget,
    counter: Counter<'_>,
    counter_sql: &str,
) -> Result<u64> {
    let mut kept = slot.lock().await;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let conn = match kept.take() {
            Some(conn) if !conn.client.is_closed() => conn,
            stale => {
                if let Some(conn) = stale {
                    conn.close().await;
                }
                connect(target).await?
            }
        };
        match counter.read(&conn.client, counter_sql).await {
            Ok(n) => {
                *kept = Some(conn);
                return Ok(n);
            }
            Err(e) => {
                let (kind, _) = classify(&e, false);
                conn.close().await;
                if kind != Failure::Lost || attempt > 1 {
                    return Err(failed(&target.peer(), "cannot query", counter.what(), &e).into());
                }
            }
        }
    }
}

/// One terminal's connection, hammer's own lean one ([`Wire`]): a transaction there is one
/// routine call, or with client-side SQL one pipeline of statements per round trip, and the
/// general client's machinery cost more client CPU than the round trip.
pub struct PgTxnConn {
    link: Link,
    peer: Peer,
    summaries: bool,
}

impl PgTxnConn {
    /// Whether the connection has a blocking socket (`TxnConn::into_blocking`).
    pub fn is_blocking(&self) -> bool {
        match &self.link {
            Link::Routines { wire, .. } | Link::Client(ClientLink { wire, .. }) => {
                wire.is_blocking()
            }
        }
    }
}

enum Link {
    /// Functions or procedures, prepared under their routine names ([`ROUTINES`]).
    Routines {
        wire: Wire,
        /// `CALL`: New-Order's rollback is the `rolled_back` column, not an error.
        procedures: bool,
    },
    Client(ClientLink),
}

impl TxnConn for PgTxnConn {
    async fn new_order(&mut self, t: &NewOrder) -> Result<Done> {
        let PgTxnConn {
            link,
            peer,
            summaries,
        } = self;
        match link {
            Link::Routines { wire, procedures } => {
                routine_new_order(wire, *procedures, peer, *summaries, t).await
            }
            Link::Client(c) => c.new_order(peer, *summaries, t).await,
        }
    }

    async fn payment(&mut self, t: &Payment) -> Result<Done> {
        let txn = "Payment";
        let PgTxnConn {
            link,
            peer,
            summaries,
        } = self;
        match link {
            Link::Routines { wire, .. } => {
                let (c_id, byname, c_last) = customer_args(&t.customer);
                let reply = wire
                    .call(ROUTINES[1], 8)
                    .int(t.w_id.into())
                    .int(t.d_id.into())
                    .int(t.c_w_id.into())
                    .int(t.c_d_id.into())
                    .int(c_id)
                    .int(byname)
                    .text(c_last)
                    .cents(t.amount_cents)
                    .run()
                    .await
                    .map_err(|e| routine_failed(peer, txn, &e))?;
                payment_result(peer, *summaries, t, reply.first())
            }
            Link::Client(c) => {
                let st = match &t.customer {
                    Customer::ById(_) => PAYMENT_BY_ID,
                    Customer::ByName(_) => PAYMENT_BY_NAME,
                };
                c.single(
                    peer,
                    txn,
                    st,
                    |call| {
                        let call = call
                            .int(t.w_id.into())
                            .int(t.d_id.into())
                            .int(t.c_w_id.into())
                            .int(t.c_d_id.into());
                        match &t.customer {
                            Customer::ById(id) => call.int(i64::from(*id)),
                            Customer::ByName(name) => call.text(name),
                        }
                        .cents(t.amount_cents)
                    },
                    |row| payment_result(peer, *summaries, t, row),
                )
                .await
            }
        }
    }

    async fn order_status(&mut self, t: &OrderStatus) -> Result<Done> {
        let txn = "Order Status";
        let PgTxnConn {
            link,
            peer,
            summaries,
        } = self;
        match link {
            Link::Routines { wire, .. } => {
                let (c_id, byname, c_last) = customer_args(&t.customer);
                let reply = wire
                    .call(ROUTINES[2], 5)
                    .int(t.w_id.into())
                    .int(t.d_id.into())
                    .int(c_id)
                    .int(byname)
                    .text(c_last)
                    .run()
                    .await
                    .map_err(|e| routine_failed(peer, txn, &e))?;
                order_status_result(peer, *summaries, t, reply.first())
            }
            Link::Client(c) => {
                let st = match &t.customer {
                    Customer::ById(_) => OSTAT_BY_ID,
                    Customer::ByName(_) => OSTAT_BY_NAME,
                };
                c.single(
                    peer,
                    txn,
                    st,
                    |call| {
                        let call = call.int(t.w_id.into()).int(t.d_id.into());
                        match &t.customer {
                            Customer::ById(id) => call.int(i64::from(*id)),
                            Customer::ByName(name) => call.text(name),
                        }
                    },
                    |row| order_status_result(peer, *summaries, t, row),
                )
                .await
            }
        }
    }

    async fn delivery(&mut self, t: &Delivery) -> Result<Done> {
        let txn = "Delivery";
        let PgTxnConn {
            link,
            peer,
            summaries,
        } = self;
        match link {
            Link::Routines { wire, .. } => {
                let reply = wire
                    .call(ROUTINES[3], 2)
                    .int(t.w_id.into())
                    .int(t.carrier_id.into())
                    .run()
                    .await
                    .map_err(|e| routine_failed(peer, txn, &e))?;
                delivery_result(peer, *summaries, t, reply.first())
            }
            Link::Client(c) => {
                c.single(
                    peer,
                    txn,
                    DELIVERY,
                    |call| call.int(t.w_id.into()).int(t.carrier_id.into()),
                    |row| delivery_result(peer, *summaries, t, row),
                )
                .await
            }
        }
    }

    async fn stock_level(&mut self, t: &StockLevel) -> Result<Done> {
        let txn = "Stock Level";
        let PgTxnConn {
            link,
            peer,
            summaries,
        } = self;
        match link {
            Link::Routines { wire, .. } => {
                let reply = wire
                    .call(ROUTINES[4], 3)
                    .int(t.w_id.into())
                    .int(t.d_id.into())
                    .int(t.threshold.into())
                    .run()
                    .await
                    .map_err(|e| routine_failed(peer, txn, &e))?;
                stock_level_result(peer, *summaries, t, reply.first())
            }
            Link::Client(c) => {
                c.single(
                    peer,
                    txn,
                    SLEV,
                    |call| {
                        call.int(t.w_id.into())
                            .int(t.d_id.into())
                            .int(t.threshold.into())
                    },
                    |row| stock_level_result(peer, *summaries, t, row),
                )
                .await
            }
        }
    }

    fn into_blocking(self) -> Result<Self> {
        let peer = &self.peer;
        let blocking = |wire: Wire| {
            wire.into_blocking().map_err(|e| {
                peer.failed(
                    "cannot switch to a blocking socket on",
                    Failure::Lost,
                    e.to_string(),
                )
            })
        };
        let link = match self.link {
            Link::Routines { wire, procedures } => Link::Routines {
                wire: blocking(wire)?,
                procedures,
            },
            Link::Client(ClientLink { wire, open }) => Link::Client(ClientLink {
                wire: blocking(wire)?,
                open,
            }),
        };
        Ok(PgTxnConn { link, ..self })
    }

    fn node(&self) -> &str {
        &self.peer.addr
    }

    async fn close(self) {
        match self.link {
            Link::Routines { wire, .. } => wire.close().await,
            Link::Client(c) => c.close().await,
        }
    }
}
