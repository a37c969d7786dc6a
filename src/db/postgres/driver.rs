//! The TPROC-C transactions on PostgreSQL: functions, procedures or client-side SQL.
//!
//! Three flavours, chosen from the dictionary when the driver is made:
//! * functions (`pg_storedprocs` false): `SELECT ... FROM neword(...)` and the like, one
//!   prepared statement per transaction in autocommit (`schemas/pg/tprocc/routines.sql`);
//! * procedures (`pg_storedprocs` true): `CALL neword(...)`, likewise (the same bodies);
//! * client-side SQL (`pg_no_stored_procs` true, hammer's addition): the same business logic
//!   as plain prepared statements inside `BEGIN ... COMMIT`.
//!
//! Every statement is prepared once per connection, and the client-side flavour pipelines
//! `BEGIN`, its statements and `COMMIT` (tokio-postgres sends requests polled together
//! without waiting for answers), so a transaction costs one round trip, New-Order two:
//! whether it commits depends on the item lookup.

pub mod counters;

use std::borrow::Cow;
use std::collections::HashMap;

use futures_util::future::join_all;
use tokio::sync::Mutex;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{FromSql, ToSql, Type};
use tokio_postgres::{Client, Row, Statement};

use crate::config::{Database, Settings};
use crate::db::postgres::wire::{self as pgwire, Reply, Wire, WireError};
use crate::db::postgres::{classify, connect, PgConn, PgTarget};
use crate::db::KillSwitch;
use crate::db::{DbError, Failure, Peer};
use crate::error::{Error, Result};
use crate::tpcc::fitness::{self, Fitness, Place, NURAND_TABLE};
use crate::tpcc::summary::{self, LastOrder};
use crate::tpcc::txn::{
    Counters, Customer, Delivery, Done, Line, Mode, NewOrder, OrderStatus, Payment, StockLevel,
    TxnConn, TxnDb,
};
use crate::tpcc::Constants;

/// The five transactions' routine names, as functions or procedures.
const ROUTINES: [&str; 5] = ["neword", "payment", "ostat", "delivery", "slev"];
/// The SQLSTATE `neword` raises for an unused item (routines.sql, as functions): the New-Order rollback.
const ITEM_NOT_VALID: &str = "HR001";

/// How the transactions reach the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavour {
    Functions,
    Procedures,
    ClientSql,
}

impl Flavour {
    /// The routine kind this flavour calls, as `pg_proc.prokind` and in words.
    fn routines(self) -> Option<(&'static str, &'static str)> {
        match self {
            Flavour::Functions => Some(("f", "functions")),
            Flavour::Procedures => Some(("p", "stored procedures")),
            Flavour::ClientSql => None,
        }
    }
}

/// PostgreSQL as a [`TxnDb`]: the schema owner's and the superuser's logins, the flavour, and
/// the connections `counters` keeps between calls.
pub struct PgDriver {
    /// The engine, whose prefix names the dictionary keys (`pg_storedprocs`).
    db: Database,
    owner: PgTarget,
    admin: PgTarget,
    flavour: Flavour,
    /// The superuser's connection for `pg_stat_database`.
    admin_conn: Mutex<Option<PgConn>>,
    /// The owner's connection for `district`.
    owner_conn: Mutex<Option<PgConn>>,
    /// Terminals make the one-line summaries of their transactions (`showoutput`).
    summaries: bool,
    /// Every connection opened from `owner` and `admin`.
    kill: KillSwitch,
}

impl PgDriver {
    /// TPROC-C on `db`, an engine of the PostgreSQL family, from its dictionary (keys
    /// `{prefix}_storedprocs` and the like).
    pub fn new(settings: &Settings, db: Database) -> Self {
        let d = settings.db(db);
        let p = db.prefix();
        let flavour = if d.get_bool(&format!("{p}_no_stored_procs")) {
            Flavour::ClientSql
        } else if d.get_bool(&format!("{p}_storedprocs")) {
            Flavour::Procedures
        } else {
            Flavour::Functions
        };
        let kill = KillSwitch::default();
        PgDriver {
            db,
            owner: PgTarget::owner(settings).with_kill_switch(&kill),
            admin: PgTarget::admin(settings).with_kill_switch(&kill),
            flavour,
            admin_conn: Mutex::new(None),
            owner_conn: Mutex::new(None),
            summaries: false,
            kill,
        }
    }

    /// Terminals make their transactions' summaries (for `showoutput`) when `on`.
    pub fn with_summaries(mut self, on: bool) -> Self {
        self.summaries = on;
        self
    }

    /// Closes the connections `counters` keeps.
    pub async fn close(&self) {
        for slot in [&self.admin_conn, &self.owner_conn] {
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
        format!("{}_{name}", self.db.prefix())
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
        let (engine, db_key, user_key) = (self.db.name(), self.key("dbase"), self.key("user"));
        let Ok((db_exists, role_exists)) = self.db_and_role_exist().await else {
            return Err(e.into());
        };
        if !db_exists {
            let role = if role_exists {
                String::new()
            } else {
                format!(" and user {user} ({user_key}) does not either")
            };
            return Err(Error::State(format!(
                "TPROC-C schema database {db} ({db_key}) does not exist on {engine} at \
                 {addr}{role}: build the schema with buildschema, or set {db_key} and \
                 {user_key} to those of an existing schema"
            )));
        }
        if !role_exists {
            return Err(Error::State(format!(
                "User {user} ({user_key}) does not exist on {engine} at {addr}: set \
                 {user_key} to the owner of the schema in database {db}, or build the schema \
                 with buildschema"
            )));
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
        let count_ware = self.key("count_ware");
        let place = Place {
            db: self.db(),
            engine: self.db.name(),
            addr: &peer.addr,
            count_ware: &count_ware,
        };
        let mut f = PgFitness {
            driver: self,
            client: &conn.client,
            peer: &peer,
        };
        fitness::check(&mut f, &place, warehouses).await
    }

    /// The routines this flavour calls are all there; if only the other flavour's are, say so
    /// and how to choose (HammerDB switches silently; hammer does not).
    async fn check_routines(&self, client: &Client, peer: &Peer) -> Result<()> {
        let Some((kind, words)) = self.flavour.routines() else {
            return Ok(());
        };
        let sql = "SELECT p.proname::text, p.prokind::text FROM pg_proc p
                     JOIN pg_namespace n ON n.oid = p.pronamespace
                    WHERE n.nspname = current_schema() AND p.proname = ANY ($1::text[])";
        let found: Vec<(String, String)> = client
            .query(sql, &[&ROUTINES.as_slice()])
            .await
            .map_err(|e| failed(peer, "cannot check", "routines", &e))?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        let has = |name: &str, k: &str| found.iter().any(|(n, fk)| n == name && fk == k);
        let missing: Vec<&str> = ROUTINES.iter().copied().filter(|n| !has(n, kind)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        let db = self.db();
        let (procs, no_procs) = (self.key("storedprocs"), self.key("no_stored_procs"));
        let (other, other_words, wanted) = if kind == "f" {
            ("p", "stored procedures", "false")
        } else {
            ("f", "functions", "true")
        };
        if ROUTINES.iter().all(|n| has(n, other)) {
            let flip = if wanted == "true" { "false" } else { "true" };
            return Err(Error::State(format!(
                "Database {db} has the TPROC-C transactions as {other_words}, but {procs} is \
                 {wanted}, which calls {words}: set diset tpcc {procs} {flip} to call the \
                 {other_words}, or rebuild the schema with {procs} {wanted} (deleteschema, \
                 then buildschema)"
            )));
        }
        Err(Error::State(format!(
            "Database {db} lacks the TPROC-C {words} {} ({procs} is {wanted}): rebuild the \
             schema (deleteschema, then buildschema), or run the transactions as client-side \
             SQL with diset tpcc {no_procs} true",
            missing.join(", ")
        )))
    }
}

/// The fitness questions, on the owner's connection.
struct PgFitness<'a> {
    driver: &'a PgDriver,
    client: &'a Client,
    peer: &'a Peer,
}

impl Fitness for PgFitness<'_> {
    async fn missing_tables(&mut self, tables: &[&'static str]) -> Result<Vec<String>> {
        let sql = "SELECT t FROM unnest($1::text[]) WITH ORDINALITY AS u(t, n)
                    WHERE to_regclass(u.t) IS NULL ORDER BY u.n";
        Ok(self
            .client
            .query(sql, &[&tables])
            .await
            .map_err(|e| failed(self.peer, "cannot check", "tables", &e))?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    async fn max_warehouse(&mut self) -> Result<Option<i64>> {
        let max: Option<i32> = self
            .client
            .query_one("SELECT max(w_id)::int FROM warehouse", &[])
            .await
            .map_err(|e| failed(self.peer, "cannot check", "warehouses", &e))?
            .get(0);
        Ok(max.map(i64::from))
    }

    async fn routines(&mut self) -> Result<()> {
        self.driver.check_routines(self.client, self.peer).await
    }

    async fn nurand(&mut self) -> Result<Vec<[Option<i64>; 3]>> {
        let rows = self
            .client
            .query(
                "SELECT c_last::int, c_id::int, ol_i_id::int FROM tpcc_nurand",
                &[],
            )
            .await
            .map_err(|e| failed(self.peer, "cannot check", NURAND_TABLE, &e))?;
        Ok(rows
            .iter()
            .map(|r| [0, 1, 2].map(|i| r.get::<_, Option<i32>>(i).map(i64::from)))
            .collect())
    }

    /// Preparing what the terminals will run shows any routine or column of another shape.
    async fn statements(&mut self) -> Result<()> {
        let flavour = self.driver.flavour;
        let texts = statement_texts(flavour);
        let prepared = join_all(texts.iter().map(|t| self.client.prepare(t))).await;
        if let Some(Err(e)) = prepared.into_iter().find(|p| p.is_err()) {
            let (_, detail) = classify(&e, false);
            let what = match flavour.routines() {
                Some((_, words)) => format!("the TPROC-C {words}"),
                None => "hammer's client-side SQL".to_string(),
            };
            return Err(Error::State(format!(
                "Database {} does not fit {what} ({detail}): the schema was built by another \
                 tool or version; remove it with deleteschema and build it with buildschema",
                self.driver.db()
            )));
        }
        Ok(())
    }
}

impl TxnDb for PgDriver {
    type Conn = PgTxnConn;

    fn name(&self) -> &'static str {
        self.db.name()
    }

    fn mode(&self) -> Mode {
        match self.flavour {
            Flavour::ClientSql => Mode::ClientSql,
            Flavour::Functions | Flavour::Procedures => Mode::StoredProcedures,
        }
    }

    async fn connect(&self) -> Result<PgTxnConn> {
        let peer = self.owner.peer();
        let link = match self.flavour {
            Flavour::Functions | Flavour::Procedures => {
                let mut wire = pgwire::open(&self.owner).await?;
                let texts = statement_texts(self.flavour);
                let named: Vec<(&str, &str)> = ROUTINES
                    .iter()
                    .zip(&texts)
                    .map(|(name, sql)| (*name, sql.as_str()))
                    .collect();
                if let Err(e) = wire.prepare(&named).await {
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
                Link::Routines {
                    wire,
                    procedures: self.flavour == Flavour::Procedures,
                }
            }
            Flavour::ClientSql => {
                let conn = connect(&self.owner).await?;
                match ClientStatements::prepare(&conn.client).await {
                    Ok(st) => Link::Client(ClientLink {
                        conn,
                        st,
                        open: false,
                    }),
                    Err(e) => {
                        conn.close().await;
                        return Err(failed(&peer, "cannot prepare", "the transactions", &e).into());
                    }
                }
            }
        };
        Ok(PgTxnConn {
            link,
            peer,
            summaries: self.summaries,
        })
    }

    fn reply_timeout(&self) -> std::time::Duration {
        self.owner.bounds.reply_timeout
    }

    fn cut(&self) -> usize {
        self.kill.cut()
    }

    fn peer(&self) -> Peer {
        self.owner.peer()
    }

    async fn prepare(&self, warehouses: u32) -> Result<(u32, Constants)> {
        let conn = self.connect_owner().await?;
        let r = self.inspect(&conn, warehouses).await;
        conn.close().await;
        r
    }

    async fn counters(&self) -> Result<Counters> {
        // The schema database's own commits and rollbacks (see `counters`).
        let (transactions, new_orders) = tokio::join!(
            read_counter(
                &self.admin_conn,
                &self.admin,
                Counter::Transactions(&self.owner.dbname),
            ),
            read_counter(&self.owner_conn, &self.owner, Counter::NewOrders),
        );
        Ok(Counters {
            new_orders: new_orders?,
            transactions: transactions?,
        })
    }
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

    async fn read(self, client: &Client) -> Result<u64, tokio_postgres::Error> {
        Ok(match self {
            Counter::Transactions(db) => counters::server(client).await?.of_database(db),
            Counter::NewOrders => counters::new_orders(client).await?.unwrap_or(0),
        })
    }
}

/// Reads a counter on a kept connection, connecting when there is none and once more when
/// the kept one turns out to be lost.
async fn read_counter(
    slot: &Mutex<Option<PgConn>>,
    target: &PgTarget,
    counter: Counter<'_>,
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
        match counter.read(&conn.client).await {
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

/// One terminal's connection. Functions and procedures run on hammer's own lean connection
/// ([`Wire`]): a transaction there is one statement, and the general client's machinery
/// cost more client CPU than the round trip. Client-side SQL pipelines several statements
/// per round trip and stays on tokio-postgres.
pub struct PgTxnConn {
    link: Link,
    peer: Peer,
    summaries: bool,
}

impl PgTxnConn {
    /// Whether the routines' lean connection has a blocking socket (`TxnConn::into_blocking`).
    pub fn is_blocking(&self) -> bool {
        matches!(&self.link, Link::Routines { wire, .. } if wire.is_blocking())
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

/// Client-side SQL: the connection, its statements, and whether a transaction may still be
/// open because a call was dropped halfway.
struct ClientLink {
    conn: PgConn,
    st: ClientStatements,
    open: bool,
}

/// Client-side SQL, in the order of `sql::client`.
struct ClientStatements {
    begin: Statement,
    commit: Statement,
    rollback: Statement,
    neword_start: Statement,
    neword_finish: Statement,
    stock: Statement,
    payment_by_id: Statement,
    payment_by_name: Statement,
    ostat_by_id: Statement,
    ostat_by_name: Statement,
    delivery: Statement,
    slev: Statement,
}

impl ClientStatements {
    /// Prepares the statements, all in one round trip.
    async fn prepare(client: &Client) -> Result<Self, tokio_postgres::Error> {
        let [begin, commit, rollback, neword_start, neword_finish, stock, payment_by_id, payment_by_name, ostat_by_id, ostat_by_name, delivery, slev] =
            prepare_all(client, sql::client()).await?;
        Ok(ClientStatements {
            begin,
            commit,
            rollback,
            neword_start,
            neword_finish,
            stock,
            payment_by_id,
            payment_by_name,
            ostat_by_id,
            ostat_by_name,
            delivery,
            slev,
        })
    }
}

/// The flavour's statement texts: what a terminal prepares.
fn statement_texts(flavour: Flavour) -> Vec<String> {
    match flavour {
        Flavour::Functions => sql::functions().to_vec(),
        Flavour::Procedures => sql::procedures().to_vec(),
        Flavour::ClientSql => sql::client().to_vec(),
    }
}

/// Prepares `N` statements, pipelined.
async fn prepare_all<const N: usize>(
    client: &Client,
    texts: [String; N],
) -> Result<[Statement; N], tokio_postgres::Error> {
    let prepared = join_all(texts.iter().map(|t| client.prepare(t))).await;
    let statements = prepared.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(statements
        .try_into()
        .unwrap_or_else(|_: Vec<Statement>| unreachable!("join_all gives one result per text")))
}

/// A server's NUMERIC as the text PostgreSQL prints for it (tokio-postgres has no decimal
/// type of its own): money and rates are shown, never computed with, on the client.
#[derive(Debug, Clone, PartialEq)]
struct Numeric(String);

impl<'a> FromSql<'a> for Numeric {
    fn from_sql(
        _: &Type,
        raw: &'a [u8],
    ) -> std::result::Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        numeric_text(raw)
            .map(Numeric)
            .ok_or_else(|| "malformed numeric value".into())
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::NUMERIC
    }
}

impl std::fmt::Display for Numeric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Decodes NUMERIC's binary form: digit count, weight of the first base-10000 digit, sign,
/// display scale, then the digits.
fn numeric_text(raw: &[u8]) -> Option<String> {
    let word = |i: usize| -> Option<u16> {
        let b = raw.get(2 * i..2 * i + 2)?;
        Some(u16::from_be_bytes([b[0], b[1]]))
    };
    let ndigits = usize::from(word(0)?);
    let weight = i64::from(word(1)? as i16);
    let sign = word(2)?;
    let dscale = usize::from(word(3)?);
    if raw.len() != 8 + 2 * ndigits {
        return None;
    }
    match sign {
        0x0000 | 0x4000 => {}
        0xC000 => return Some("NaN".into()),
        0xD000 => return Some("Infinity".into()),
        0xF000 => return Some("-Infinity".into()),
        _ => return None,
    }
    // The base-10000 digit of weight `w` (0 when outside the stored digits).
    let digit = |w: i64| -> Option<u16> {
        let i = weight - w;
        if i < 0 || i >= ndigits as i64 {
            Some(0)
        } else {
            word(4 + i as usize).filter(|d| *d < 10_000)
        }
    };
    let mut s = String::new();
    if sign == 0x4000 {
        s.push('-');
    }
    if weight < 0 {
        s.push('0');
    } else {
        s.push_str(&digit(weight)?.to_string());
        for w in (0..weight).rev() {
            s.push_str(&format!("{:04}", digit(w)?));
        }
    }
    if dscale > 0 {
        s.push('.');
        let mut frac = String::new();
        let mut w = -1;
        while frac.len() < dscale {
            frac.push_str(&format!("{:04}", digit(w)?));
            w -= 1;
        }
        frac.truncate(dscale);
        s.push_str(&frac);
    }
    Some(s)
}

/// A statement parameter: TPC-C's numbers are small, and the schema's columns are `int`.
fn int(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Cents as the text a `$n::text::numeric` parameter takes: 1234 is `12.34`.
fn money(cents: u32) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// A `key=value` field of a DETAIL line such as neword's `w_id=1 d_id=3 ... o_id=3012`.
fn detail_field<'a>(detail: &'a str, key: &str) -> Option<&'a str> {
    detail
        .split_whitespace()
        .find_map(|f| f.strip_prefix(key)?.strip_prefix('='))
}

/// Stock updates beyond the first for order lines that repeat an (item, supply warehouse)
/// pair: the first occurrence of every pair is updated with the order's other writes, the
/// second ones in a second statement, and so on, so each line applies the replenishment rule
/// to the quantity the previous one left, as the functions' line-by-line loop does.
#[derive(Debug, Default, PartialEq)]
struct StockRound {
    items: Vec<i32>,
    supply: Vec<i32>,
    quantities: Vec<i32>,
}

fn later_rounds(lines: &[Line]) -> Vec<StockRound> {
    let mut seen: HashMap<(u32, u32), usize> = HashMap::new();
    let mut rounds: Vec<StockRound> = Vec::new();
    for l in lines {
        let n = seen.entry((l.item_id, l.supply_w_id)).or_insert(0);
        *n += 1;
        if *n < 2 {
            continue;
        }
        let r = *n - 2;
        if rounds.len() <= r {
            rounds.push(StockRound::default());
        }
        let round = &mut rounds[r];
        round.items.push(int(l.item_id));
        round.supply.push(int(l.supply_w_id));
        round.quantities.push(int(l.quantity));
    }
    rounds
}

/// `DbError` for a statement that failed, with the driver's own classification.
fn failed(peer: &Peer, action: &'static str, what: &str, e: &tokio_postgres::Error) -> DbError {
    let (kind, detail) = classify(e, false);
    peer.failed(action, kind, format!("{what}: {detail}"))
}

/// What a transaction's outputs are read into.
fn col<'a, T: FromSql<'a>>(row: &'a Row, i: usize, peer: &Peer, txn: &str) -> Result<T> {
    row.try_get(i).map_err(|e| {
        Error::Db(peer.failed(
            "cannot read the result from",
            Failure::Other,
            format!("{txn}: column {i}: {e}"),
        ))
    })
}

/// The inputs shared by the New-Order statements.
struct OrderArgs {
    w: i32,
    d: i32,
    c: i32,
    all_local: i32,
    items: Vec<i32>,
    supply: Vec<i32>,
    quantities: Vec<i32>,
}

impl OrderArgs {
    fn new(t: &NewOrder) -> Self {
        OrderArgs {
            w: int(t.w_id),
            d: int(t.d_id),
            c: int(t.c_id),
            all_local: i32::from(t.all_local),
            items: t.lines.iter().map(|l| int(l.item_id)).collect(),
            supply: t.lines.iter().map(|l| int(l.supply_w_id)).collect(),
            quantities: t.lines.iter().map(|l| int(l.quantity)).collect(),
        }
    }
}

fn new_order_done(show: bool, t: &NewOrder, o_id: Option<i64>, total: Option<&str>) -> Done {
    if !show {
        return Done::quiet(total.is_none());
    }
    summary::new_order(t, o_id, total)
}

/// `Error::Db` for a transaction's failed statement.
fn txn_failed(peer: &Peer, txn: &str, e: &tokio_postgres::Error) -> Error {
    let (kind, mut detail) = classify(e, false);
    if e.code() == Some(&SqlState::NOT_NULL_VIOLATION) {
        // Client-side SQL: a row the transaction needs was missing (see `sql`).
        detail = format!("a warehouse, district, customer or stock row is missing ({detail})");
    }
    Error::Db(peer.failed("cannot run", kind, format!("{txn}: {detail}")))
}

/// `Error::Db` for a transaction that found no row where it needs one.
fn not_found(peer: &Peer, txn: &str, what: &str) -> Error {
    Error::Db(peer.failed(
        "cannot run",
        Failure::Other,
        format!("{txn}: {what} not found"),
    ))
}

/// Client-side SQL: a ROLLBACK request when a dropped call may have left a transaction
/// open, sent first in a pipeline (a ROLLBACK with nothing open only draws a warning).
async fn reset(client: &Client, st: &ClientStatements, open: bool) {
    if open {
        let _ = client.execute(&st.rollback, &[]).await;
    }
}

/// Client-side SQL: ends the open transaction with a rollback.
async fn rollback(
    client: &Client,
    st: &ClientStatements,
    open: &mut bool,
) -> Result<(), tokio_postgres::Error> {
    let r = client.execute(&st.rollback, &[]).await;
    if r.is_ok() || client.is_closed() {
        *open = false;
    }
    r.map(|_| ())
}

/// A transaction's result row, from either kind of connection.
trait Outputs {
    /// Column `i` as an integer, `None` for NULL.
    fn int(&self, i: usize) -> Result<Option<i64>, String>;
    /// Column `i` as text (a NUMERIC as PostgreSQL prints it), `None` for NULL.
    fn text(&self, i: usize) -> Result<Option<Cow<'_, str>>, String>;
}

impl Outputs for Reply<'_> {
    fn int(&self, i: usize) -> Result<Option<i64>, String> {
        Reply::int(self, i)
    }

    fn text(&self, i: usize) -> Result<Option<Cow<'_, str>>, String> {
        Reply::text(self, i).map(|t| t.map(Cow::Borrowed))
    }
}

impl Outputs for Row {
    fn int(&self, i: usize) -> Result<Option<i64>, String> {
        self.try_get::<_, Option<i32>>(i)
            .map(|v| v.map(i64::from))
            .map_err(|e| format!("column {i}: {e}"))
    }

    fn text(&self, i: usize) -> Result<Option<Cow<'_, str>>, String> {
        let numeric = self
            .columns()
            .get(i)
            .is_some_and(|c| *c.type_() == Type::NUMERIC);
        let v = if numeric {
            self.try_get::<_, Option<Numeric>>(i)
                .map(|v| v.map(|n| Cow::Owned(n.0)))
        } else {
            self.try_get::<_, Option<String>>(i)
                .map(|v| v.map(Cow::Owned))
        };
        v.map_err(|e| format!("column {i}: {e}"))
    }
}

/// An output read, or the error that says which transaction's result was unreadable.
fn read<T>(r: std::result::Result<T, String>, peer: &Peer, txn: &str) -> Result<T> {
    r.map_err(|e| {
        Error::Db(peer.failed(
            "cannot read the result from",
            Failure::Other,
            format!("{txn}: {e}"),
        ))
    })
}

/// An output that must not be NULL.
fn need<T>(v: Option<T>, i: usize, peer: &Peer, txn: &str) -> Result<T> {
    v.ok_or_else(|| {
        Error::Db(peer.failed(
            "cannot read the result from",
            Failure::Other,
            format!("{txn}: column {i} is NULL"),
        ))
    })
}

/// `Error::Db` for a routine call that failed.
fn routine_failed(peer: &Peer, txn: &str, e: &WireError) -> Error {
    let (kind, detail) = pgwire::classify(e);
    Error::Db(peer.failed("cannot run", kind, format!("{txn}: {detail}")))
}

/// A routine's customer arguments: id, by-name flag, last name.
fn customer_args(c: &Customer) -> (i64, i64, &str) {
    match c {
        Customer::ById(id) => (i64::from(*id), 0, ""),
        Customer::ByName(name) => (0, 1, name.as_str()),
    }
}

async fn routine_new_order(
    wire: &mut Wire,
    procedures: bool,
    peer: &Peer,
    summaries: bool,
    t: &NewOrder,
) -> Result<Done> {
    let txn = "New Order";
    let call = wire
        .call(ROUTINES[0], 8)
        .int(t.w_id.into())
        .int(t.d_id.into())
        .int(t.c_id.into())
        .int(t.lines.len() as i64)
        .int(i64::from(t.all_local))
        .ints(t.lines.iter().map(|l| l.item_id))
        .ints(t.lines.iter().map(|l| l.supply_w_id))
        .ints(t.lines.iter().map(|l| l.quantity));
    let reply = match call.run().await {
        Ok(reply) => reply,
        Err(WireError::Server(e)) if e.code == ITEM_NOT_VALID => {
            let o_id = e
                .detail
                .as_deref()
                .and_then(|d| detail_field(d, "o_id"))
                .and_then(|o| o.parse().ok());
            return Ok(new_order_done(summaries, t, o_id, None));
        }
        Err(e) => return Err(routine_failed(peer, txn, &e)),
    };
    if reply.first().is_none() {
        return Err(not_found(peer, txn, "a result row"));
    }
    let o_id = read(reply.int(0), peer, txn)?;
    let total = read(reply.text(1), peer, txn)?;
    if procedures && read(reply.int(7), peer, txn)? == Some(1) {
        return Ok(new_order_done(summaries, t, o_id, None));
    }
    match total {
        Some(total) => Ok(new_order_done(summaries, t, o_id, Some(total))),
        None => Err(not_found(peer, txn, "the order total")),
    }
}

fn payment_result(
    peer: &Peer,
    summaries: bool,
    t: &Payment,
    row: Option<&impl Outputs>,
) -> Result<Done> {
    let txn = "Payment";
    let Some(row) = row else {
        return Err(not_found(peer, txn, "customer"));
    };
    if !summaries {
        return Ok(Done::quiet(false));
    }
    let c_id = need(read(row.int(0), peer, txn)?, 0, peer, txn)?;
    let balance = need(read(row.text(4), peer, txn)?, 4, peer, txn)?;
    let credit = need(read(row.text(5), peer, txn)?, 5, peer, txn)?;
    Ok(summary::payment(t, c_id, &balance, &credit))
}

fn order_status_result(
    peer: &Peer,
    summaries: bool,
    t: &OrderStatus,
    row: Option<&impl Outputs>,
) -> Result<Done> {
    let txn = "Order Status";
    let Some(row) = row else {
        return Err(not_found(peer, txn, "customer"));
    };
    if !summaries {
        return Ok(Done::quiet(false));
    }
    let c_id = need(read(row.int(0), peer, txn)?, 0, peer, txn)?;
    let balance = need(read(row.text(4), peer, txn)?, 4, peer, txn)?;
    let o_id = read(row.int(5), peer, txn)?;
    let carrier = read(row.int(7), peer, txn)?;
    let lines = need(read(row.int(8), peer, txn)?, 8, peer, txn)?;
    let order = o_id.map(|o_id| LastOrder {
        o_id,
        carrier,
        lines,
    });
    Ok(summary::order_status(t, c_id, &balance, order))
}

fn delivery_result(
    peer: &Peer,
    summaries: bool,
    t: &Delivery,
    row: Option<&impl Outputs>,
) -> Result<Done> {
    let txn = "Delivery";
    let Some(row) = row else {
        return Err(not_found(peer, txn, "a result row"));
    };
    if !summaries {
        return Ok(Done::quiet(false));
    }
    let delivered = need(read(row.int(0), peer, txn)?, 0, peer, txn)?;
    let skipped = need(read(row.int(1), peer, txn)?, 1, peer, txn)?;
    Ok(summary::delivery(t, delivered, skipped))
}

fn stock_level_result(
    peer: &Peer,
    summaries: bool,
    t: &StockLevel,
    row: Option<&impl Outputs>,
) -> Result<Done> {
    let txn = "Stock Level";
    let low = match row {
        Some(row) => read(row.int(0), peer, txn)?,
        None => None,
    };
    let Some(low) = low else {
        return Err(not_found(
            peer,
            txn,
            &format!("district {} of warehouse {}", t.d_id, t.w_id),
        ));
    };
    if !summaries {
        return Ok(Done::quiet(false));
    }
    Ok(summary::stock_level(t, low))
}

impl ClientLink {
    /// BEGIN, one statement and COMMIT in one round trip. A failed statement turns the
    /// COMMIT into a rollback, so nothing stays open either way.
    async fn single(
        &mut self,
        peer: &Peer,
        txn: &str,
        pick: impl Fn(&ClientStatements) -> &Statement,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>> {
        let (client, st) = (&self.conn.client, &self.st);
        let was_open = std::mem::replace(&mut self.open, true);
        let (_, begin, rows, commit) = tokio::join!(
            biased;
            reset(client, st, was_open),
            client.execute(&st.begin, &[]),
            client.query(pick(st), params),
            client.execute(&st.commit, &[]),
        );
        self.open = false;
        let r = begin.and(rows).and_then(|rows| commit.map(|_| rows));
        r.map_err(|e| txn_failed(peer, txn, &e))
    }

    async fn new_order(&mut self, peer: &Peer, summaries: bool, t: &NewOrder) -> Result<Done> {
        let txn = "New Order";
        let ClientLink { conn, st, open } = self;
        let client = &conn.client;
        let a = OrderArgs::new(t);

        // Round trip 1: take the order id, read the customer and taxes, count valid items.
        let was_open = std::mem::replace(open, true);
        let params: [&(dyn ToSql + Sync); 4] = [&a.w, &a.d, &a.c, &a.items];
        let (_, begin, start) = tokio::join!(
            biased;
            reset(client, st, was_open),
            client.execute(&st.begin, &[]),
            client.query(&st.neword_start, &params),
        );
        let read = match begin.and(start) {
            Ok(rows) => match rows.first() {
                None => Err(not_found(
                    peer,
                    txn,
                    &format!(
                        "warehouse {}, district {} or customer {}",
                        t.w_id, t.d_id, t.c_id
                    ),
                )),
                Some(row) => (|| {
                    Ok((
                        col::<i32>(row, 0, peer, txn)?,
                        col::<Numeric>(row, 1, peer, txn)?,
                        col::<Numeric>(row, 2, peer, txn)?,
                        col::<Numeric>(row, 3, peer, txn)?,
                        col::<i32>(row, 4, peer, txn)?,
                    ))
                })(),
            },
            Err(e) => Err(txn_failed(peer, txn, &e)),
        };
        let (o_id, d_tax, w_tax, discount, found) = match read {
            Ok(values) => values,
            Err(e) => {
                let _ = rollback(client, st, open).await;
                return Err(e);
            }
        };
        if usize::try_from(found).unwrap_or(0) < t.lines.len() {
            // Clause 2.4.2.3: an unused item rolls the whole order back.
            return match rollback(client, st, open).await {
                Ok(()) => Ok(new_order_done(summaries, t, Some(o_id.into()), None)),
                Err(e) => Err(txn_failed(peer, txn, &e)),
            };
        }

        // Round trip 2: the order, its lines and the stock, then COMMIT.
        let rounds = later_rounds(&t.lines);
        let round_params: Vec<[&(dyn ToSql + Sync); 4]> = rounds
            .iter()
            .map(|r| -> [&(dyn ToSql + Sync); 4] { [&a.w, &r.items, &r.supply, &r.quantities] })
            .collect();
        let params: [&(dyn ToSql + Sync); 11] = [
            &a.w,
            &a.d,
            &a.c,
            &o_id,
            &a.all_local,
            &a.items,
            &a.supply,
            &a.quantities,
            &discount.0,
            &w_tax.0,
            &d_tax.0,
        ];
        let (finish, later, commit) = tokio::join!(
            biased;
            client.query(&st.neword_finish, &params),
            join_all(round_params.iter().map(|p| client.execute(&st.stock, p))),
            client.execute(&st.commit, &[]),
        );
        *open = false;
        let rows = finish
            .and_then(|rows| later.into_iter().try_fold(rows, |rows, r| r.map(|_| rows)))
            .and_then(|rows| commit.map(|_| rows))
            .map_err(|e| txn_failed(peer, txn, &e))?;
        let total: Option<Numeric> = match rows.first() {
            Some(row) => col(row, 0, peer, txn)?,
            None => None,
        };
        match total {
            Some(total) => Ok(new_order_done(
                summaries,
                t,
                Some(o_id.into()),
                Some(&total.0),
            )),
            None => Err(not_found(peer, txn, "the order total")),
        }
    }
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
                let amount = money(t.amount_cents);
                let (w, d, c_w, c_d) = (int(t.w_id), int(t.d_id), int(t.c_w_id), int(t.c_d_id));
                let rows = match &t.customer {
                    Customer::ById(id) => {
                        let id = int(*id);
                        let params: [&(dyn ToSql + Sync); 6] = [&w, &d, &c_w, &c_d, &id, &amount];
                        c.single(peer, txn, |s| &s.payment_by_id, &params).await?
                    }
                    Customer::ByName(name) => {
                        let params: [&(dyn ToSql + Sync); 6] = [&w, &d, &c_w, &c_d, name, &amount];
                        c.single(peer, txn, |s| &s.payment_by_name, &params).await?
                    }
                };
                payment_result(peer, *summaries, t, rows.first())
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
                let (w, d) = (int(t.w_id), int(t.d_id));
                let rows = match &t.customer {
                    Customer::ById(id) => {
                        let id = int(*id);
                        c.single(peer, txn, |s| &s.ostat_by_id, &[&w, &d, &id])
                            .await?
                    }
                    Customer::ByName(name) => {
                        c.single(peer, txn, |s| &s.ostat_by_name, &[&w, &d, name])
                            .await?
                    }
                };
                order_status_result(peer, *summaries, t, rows.first())
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
                let (w, carrier) = (int(t.w_id), int(t.carrier_id));
                let rows = c
                    .single(peer, txn, |s| &s.delivery, &[&w, &carrier])
                    .await?;
                delivery_result(peer, *summaries, t, rows.first())
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
                let (w, d, threshold) = (int(t.w_id), int(t.d_id), int(t.threshold));
                let rows = c
                    .single(peer, txn, |s| &s.slev, &[&w, &d, &threshold])
                    .await?;
                stock_level_result(peer, *summaries, t, rows.first())
            }
        }
    }

    fn into_blocking(self) -> Result<Self> {
        let link = match self.link {
            Link::Routines { wire, procedures } => Link::Routines {
                wire: wire.into_blocking().map_err(|e| {
                    self.peer.failed(
                        "cannot switch to a blocking socket on",
                        Failure::Lost,
                        e.to_string(),
                    )
                })?,
                procedures,
            },
            client => client,
        };
        Ok(PgTxnConn { link, ..self })
    }

    async fn close(self) {
        match self.link {
            Link::Routines { wire, .. } => wire.close().await,
            Link::Client(c) => {
                if c.open {
                    let _ = c.conn.client.execute(&c.st.rollback, &[]).await;
                }
                c.conn.close().await;
            }
        }
    }
}

/// The statements, as text, from `schemas/pg/tprocc/driver.sql`.
mod sql {
    use std::sync::LazyLock;

    use crate::sqlfile::{render, Named};

    static FILE: LazyLock<Named> =
        LazyLock::new(|| Named::parse(include_str!("../../../schemas/pg/tprocc/driver.sql")));

    const ROUTINES: [&str; 5] = ["neword", "payment", "ostat", "delivery", "slev"];

    /// Functions: the outputs selected in the order procedures return them.
    pub fn functions() -> [String; 5] {
        ROUTINES.map(|r| FILE.get(&format!("{r}_function")).to_string())
    }

    /// Procedures: the INOUT parameters come back as one row.
    pub fn procedures() -> [String; 5] {
        ROUTINES.map(|r| FILE.get(&format!("{r}_procedure")).to_string())
    }

    /// Client-side SQL, in `ClientStatements` order.
    pub fn client() -> [String; 12] {
        let stock_set = FILE.get("stock_set");
        let with_stock = |name: &str| render(FILE.get(name), &[("stock_set", stock_set)]);
        let by_name = render(
            FILE.get("customer_by_name"),
            &[("w", "$3"), ("d", "$4"), ("last", "$5")],
        );
        let ostat_by_name = render(
            FILE.get("customer_by_name"),
            &[("w", "$1"), ("d", "$2"), ("last", "$3")],
        );
        let with_customer =
            |name: &str, customer: &str| render(FILE.get(name), &[("customer", customer)]);
        [
            FILE.get("begin").to_string(),
            FILE.get("commit").to_string(),
            FILE.get("rollback").to_string(),
            FILE.get("neword_start").to_string(),
            with_stock("neword_finish"),
            with_stock("stock"),
            with_customer("payment", "$5::int"),
            with_customer("payment", &by_name),
            with_customer("ostat", "$3::int"),
            with_customer("ostat", &ostat_by_name),
            FILE.get("delivery").to_string(),
            FILE.get("slev").to_string(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NUMERIC's binary form from its parts.
    fn numeric(weight: i16, negative: bool, dscale: u16, digits: &[u16]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&(digits.len() as u16).to_be_bytes());
        b.extend_from_slice(&weight.to_be_bytes());
        b.extend_from_slice(&(if negative { 0x4000u16 } else { 0 }).to_be_bytes());
        b.extend_from_slice(&dscale.to_be_bytes());
        for d in digits {
            b.extend_from_slice(&d.to_be_bytes());
        }
        b
    }

    #[test]
    fn numeric_prints_as_postgres_does() {
        let text = |w, neg, scale, digits: &[u16]| numeric_text(&numeric(w, neg, scale, digits));
        assert_eq!(text(0, false, 2, &[1520, 3300]).as_deref(), Some("1520.33"));
        assert_eq!(text(0, true, 2, &[120]).as_deref(), Some("-120.00"));
        assert_eq!(text(1, false, 0, &[1, 0]).as_deref(), Some("10000"));
        assert_eq!(
            text(1, false, 2, &[12, 3456, 7800]).as_deref(),
            Some("123456.78")
        );
        assert_eq!(text(-1, false, 4, &[1367]).as_deref(), Some("0.1367"));
        assert_eq!(text(-2, false, 6, &[1200]).as_deref(), Some("0.000012"));
        assert_eq!(text(-2, false, 8, &[12]).as_deref(), Some("0.00000012"));
        assert_eq!(text(0, false, 2, &[]).as_deref(), Some("0.00"));
        assert_eq!(text(0, false, 0, &[]).as_deref(), Some("0"));
        assert_eq!(text(2, false, 0, &[5]).as_deref(), Some("500000000"));
        let mut nan = numeric(0, false, 0, &[]);
        nan[4] = 0xC0;
        assert_eq!(numeric_text(&nan).as_deref(), Some("NaN"));
        assert_eq!(numeric_text(&[0, 1, 0]), None);
        assert_eq!(numeric_text(&numeric(0, false, 0, &[10_000])), None);
        let mut short = numeric(0, false, 2, &[1, 2]);
        short.pop();
        assert_eq!(numeric_text(&short), None);
    }

    #[test]
    fn money_has_two_decimals() {
        assert_eq!(money(100), "1.00");
        assert_eq!(money(500_000), "5000.00");
        assert_eq!(money(1234), "12.34");
        assert_eq!(money(5), "0.05");
    }

    #[test]
    fn detail_fields_are_found_by_key() {
        let d = "w_id=1 d_id=3 c_id=5 o_id=3012 c_last=BARBAR c_credit=GC i_id=100001";
        assert_eq!(detail_field(d, "o_id"), Some("3012"));
        assert_eq!(detail_field(d, "c_id"), Some("5"));
        assert_eq!(detail_field(d, "id"), None);
        assert_eq!(detail_field(d, "x"), None);
    }

    fn line(item_id: u32, supply_w_id: u32, quantity: u32) -> Line {
        Line {
            item_id,
            supply_w_id,
            quantity,
        }
    }

    #[test]
    fn repeated_lines_update_stock_in_later_rounds() {
        assert!(later_rounds(&[line(1, 1, 5), line(2, 1, 5), line(2, 2, 5)]).is_empty());
        let rounds = later_rounds(&[
            line(1, 1, 5),
            line(2, 1, 6),
            line(2, 1, 7),
            line(2, 1, 8),
            line(3, 1, 9),
            line(3, 1, 10),
        ]);
        assert_eq!(
            rounds,
            vec![
                StockRound {
                    items: vec![2, 3],
                    supply: vec![1, 1],
                    quantities: vec![7, 10],
                },
                StockRound {
                    items: vec![2],
                    supply: vec![1],
                    quantities: vec![8],
                },
            ]
        );
    }

    #[test]
    fn every_statement_is_in_the_file_and_filled_in() {
        let client = sql::client();
        for text in sql::functions()
            .iter()
            .chain(&sql::procedures())
            .chain(&client)
        {
            assert!(!text.is_empty() && !text.contains("{{"), "{text}");
        }
        // By name: the customer picked by last name; by id: the parameter itself.
        assert!(client[7].contains("OFFSET") && client[7].contains("p.c_last = $5::text"));
        assert!(!client[6].contains("OFFSET") && client[6].contains("c.c_id = $5::int"));
        assert!(
            client[9].contains("p.c_last = $3::text") && client[9].contains("p.c_w_id = $1::int")
        );
        assert!(client[4].contains("SET s_quantity = CASE"));
    }
}
