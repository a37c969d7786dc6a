//! The five TPROC-C transactions as a database must run them for the driver, and their inputs.
//!
//! The terminal generates every input (TPC-C clause 2); a database implementation only
//! executes: through stored procedures or functions, or as client-side SQL in an explicit
//! transaction with the same business logic (`schemas/<db>/tprocc/`). `db::postgres::driver` and
//! `db::mysql::driver` implement [`TxnDb`].

use std::future::Future;

use super::Constants;
use crate::endpoint::Position;
use crate::error::Result;

/// How a transaction selects its customer (clauses 2.5.1.2, 2.6.1.2).
#[derive(Debug, Clone, PartialEq)]
pub enum Customer {
    ById(u32),
    ByName(String),
}

/// One order line of a New-Order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    pub item_id: u32,
    pub supply_w_id: u32,
    pub quantity: u32,
}

/// New-Order (clause 2.4.1). `lines` are sorted by (item, supply warehouse) so that
/// concurrent orders lock STOCK rows in one order; the last line of 1 % of orders holds the
/// unused item id 100001, which makes the transaction roll back (clause 2.4.2.3).
#[derive(Debug, Clone, PartialEq)]
pub struct NewOrder {
    pub w_id: u32,
    pub d_id: u32,
    pub c_id: u32,
    pub lines: Vec<Line>,
    /// True when every supply warehouse is the home warehouse.
    pub all_local: bool,
}

/// Payment (clause 2.5.1). `amount_cents` is in [100, 500000].
#[derive(Debug, Clone, PartialEq)]
pub struct Payment {
    pub w_id: u32,
    pub d_id: u32,
    pub c_w_id: u32,
    pub c_d_id: u32,
    pub customer: Customer,
    pub amount_cents: u32,
}

/// Order-Status (clause 2.6.1).
#[derive(Debug, Clone, PartialEq)]
pub struct OrderStatus {
    pub w_id: u32,
    pub d_id: u32,
    pub customer: Customer,
}

/// Delivery (clause 2.7.1), all ten districts of a warehouse.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub w_id: u32,
    pub carrier_id: u32,
}

/// Stock-Level (clause 2.8.1).
#[derive(Debug, Clone, PartialEq)]
pub struct StockLevel {
    pub w_id: u32,
    pub d_id: u32,
    pub threshold: u32,
}

/// What a finished transaction reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    /// The New-Order rollback of clause 2.4.2.3 happened (always false for the others).
    pub rolled_back: bool,
    /// A one-line summary of the outputs, for the `test` driver with `showoutput` on,
    /// e.g. `New Order: w 1 d 3 c 1201 o 3012 total 1520.33`.
    pub summary: String,
    /// A New-Order the server acknowledged: its warehouse, district and order id, kept to
    /// count the acknowledged orders a failover lost.
    pub ordered: Option<(u32, u32, u32)>,
}

impl Done {
    /// A finished transaction whose summary is not wanted (the usual case: formatting it
    /// would cost more client CPU than the rest of the client's work on some transactions).
    pub fn quiet(rolled_back: bool) -> Self {
        Done {
            rolled_back,
            summary: String::new(),
            ordered: None,
        }
    }

    /// The same, for New-Order `o_id` of warehouse `w`, district `d`, which committed.
    pub fn with_order(self, w: u32, d: u32, o_id: Option<i64>) -> Self {
        let ordered = o_id
            .and_then(|o| u32::try_from(o).ok())
            .filter(|_| !self.rolled_back)
            .map(|o| (w, d, o));
        Done { ordered, ..self }
    }
}

/// Whether a routine flavour was found, for the driver's start-up checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Stored procedures (MariaDB/MySQL `CALL`; PostgreSQL per `pg_storedprocs`, detected).
    StoredProcedures,
    /// Client-side SQL (`*_no_stored_procs`).
    ClientSql,
}

/// Server-wide counters the monitor and the transaction counter read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Counters {
    /// Sum of `d_next_o_id` over all districts: grows by one per committed New-Order.
    pub new_orders: u64,
    /// The server's commits plus rollbacks (PostgreSQL `pg_stat_database`, MariaDB/MySQL
    /// `Com_commit + Com_rollback`), as HammerDB counts TPM; with several servers, the sum
    /// of those that answered.
    pub transactions: u64,
    /// Transactions the readings before this one added to `transactions` themselves (on
    /// PostgreSQL a read of `district` is a transaction of the schema's database): the
    /// figures between two readings leave them out.
    pub own: u64,
    /// With several servers (a host list, servers for reads), each one's own count, `None`
    /// for one that did not answer; empty with one server. Each server counts only the
    /// transactions run on it (a Galera node's `Com_commit`, a standby's read-only ones).
    pub nodes: Vec<(String, Option<u64>)>,
}

impl Counters {
    /// The workload's transactions from `start` to this reading, the readings' own left out:
    /// with several servers, the sum of each server's own growth, over the servers that
    /// answered both readings.
    pub fn transactions_since(&self, start: &Counters) -> u64 {
        let grown = if self.nodes.is_empty() || start.nodes.is_empty() {
            self.transactions.saturating_sub(start.transactions)
        } else {
            self.nodes
                .iter()
                .filter_map(|(node, end)| {
                    let begin = start.nodes.iter().find(|(n, _)| n == node)?.1?;
                    Some(end.as_ref()?.saturating_sub(begin))
                })
                .sum()
        };
        grown.saturating_sub(self.own.saturating_sub(start.own))
    }

    /// Whether the server's counter went back between `start` and this reading (a restart
    /// resets it): with several servers, any server that answered both.
    pub fn went_back(&self, start: &Counters) -> bool {
        if self.nodes.is_empty() || start.nodes.is_empty() {
            return self.transactions < start.transactions;
        }
        self.nodes.iter().any(|(node, end)| {
            let begin = start
                .nodes
                .iter()
                .find(|(n, _)| n == node)
                .and_then(|n| n.1);
            matches!((begin, end), (Some(b), Some(e)) if e < &b)
        })
    }

    /// The servers that did not answer one of the two readings, whose transactions the TPM
    /// between them leaves out.
    pub fn missing_since(&self, start: &Counters) -> Vec<String> {
        let answered =
            |c: &Counters, node: &str| c.nodes.iter().any(|(n, v)| n == node && v.is_some());
        let mut missing: Vec<String> = start
            .nodes
            .iter()
            .chain(&self.nodes)
            .map(|(n, _)| n.clone())
            .filter(|n| !answered(start, n) || !answered(self, n))
            .collect();
        missing.sort();
        missing.dedup();
        missing
    }
}

/// Each district's `d_next_o_id` as `(w, d, next)`, and the server they were read on.
pub type Heads = (String, Vec<(u32, u32, u32)>);

/// One terminal's connection: runs transactions. A failed call has rolled back; its error is
/// `Error::Db` with `Failure::Retry` for a deadlock or serialization failure (worth running
/// again), `Failure::Lost` when the connection is gone (reconnect), anything else otherwise.
pub trait TxnConn: Send + 'static {
    fn new_order(&mut self, t: &NewOrder) -> impl Future<Output = Result<Done>> + Send;
    fn payment(&mut self, t: &Payment) -> impl Future<Output = Result<Done>> + Send;
    fn order_status(&mut self, t: &OrderStatus) -> impl Future<Output = Result<Done>> + Send;
    fn delivery(&mut self, t: &Delivery) -> impl Future<Output = Result<Done>> + Send;
    fn stock_level(&mut self, t: &StockLevel) -> impl Future<Output = Result<Done>> + Send;
    /// Closes the connection.
    fn close(self) -> impl Future<Output = ()> + Send;

    /// The server the connection reached (`host:port` or a socket), where its transactions
    /// run.
    fn node(&self) -> &str;

    /// The connection for a terminal alone on its thread, whose calls may block it: a lean
    /// connection moves to a blocking socket (see `db::net::sock`), any other stays as it is.
    fn into_blocking(self) -> Result<Self>
    where
        Self: Sized,
    {
        Ok(self)
    }
}

/// A database the driver can run TPROC-C on, configured from the dictionary (schema owner,
/// database, mode) when constructed.
pub trait TxnDb: Send + Sync + 'static {
    type Conn: TxnConn;

    /// `PostgreSQL`, `MariaDB`, `MySQL`: the name in `... NOPM from M PostgreSQL TPM`.
    fn name(&self) -> &'static str;

    /// The mode the dictionary asks for.
    fn mode(&self) -> Mode;

    /// Opens the connection of the terminal at `at` as the schema owner.
    fn connect(&self, at: Position) -> impl Future<Output = Result<Self::Conn>> + Send;

    /// Checks that the schema is there and usable in this mode, before any virtual user
    /// starts: tables present, some warehouses, the routines this mode needs. Returns the
    /// number of warehouses (`max(w_id)`, which the run uses whatever `warehouses`, the
    /// build's `count_ware`, says) and the NURand load constants (`tpcc_nurand`). An error
    /// says what is missing and what to run (`buildschema`).
    fn prepare(&self, warehouses: u32) -> impl Future<Output = Result<(u32, Constants)>> + Send;

    /// Reads the counters (as the monitor does at the end of rampup and of the run).
    fn counters(&self) -> impl Future<Output = Result<Counters>> + Send;

    /// Whether [`Counters::transactions`] counts the schema's database alone (PostgreSQL's
    /// row of `pg_stat_database`), rather than the whole server (MariaDB/MySQL's
    /// `Com_commit`, CockroachDB's node metrics): several schemas on one server then each
    /// have a TPM of their own. Known once [`Self::prepare`] has met the server.
    fn counts_by_database(&self) -> bool {
        false
    }

    /// How long a call may wait for its reply (`*_reply_timeout`) before its connection
    /// counts as lost.
    fn reply_timeout(&self) -> std::time::Duration;

    /// The server and login of the connection at `at` (where [`Self::connect`] sends it),
    /// for messages about it.
    fn peer(&self, at: Position) -> crate::fault::Peer;

    /// Each district's `d_next_o_id` as `(w, d, next)`, read after a run on the server a
    /// session's connection reaches now (after a failover, the survivor), and that server's
    /// address.
    fn district_heads(&self) -> impl Future<Output = Result<Heads>> + Send;

    /// Shuts down every connection this database has opened and any it opens from now on, so
    /// that a call waiting on a server that stopped answering ends at once, on whichever
    /// thread it waits; returns how many connections were open.
    fn cut(&self) -> usize;

    /// Opens the connection the terminal at `at` runs its reads on (Order-Status and
    /// Stock-Level) when the dictionary names servers for reads (`*_read_only_hosts`): along
    /// [`crate::endpoint::Destination::read_route`], prepared as [`Self::connect`] prepares
    /// its own. `None` when no server is named for reads.
    fn connect_reads(
        &self,
        at: Position,
    ) -> impl Future<Output = Result<Option<Self::Conn>>> + Send;

    /// How far each server for reads was behind its primary when the run ended, as the
    /// servers say it; empty when no server is named for reads. A server that cannot be
    /// asked gives a [`Lag`] that says why.
    fn replay_lag(&self) -> impl Future<Output = Vec<Lag>> + Send;
}

/// How far a replica was behind its primary, as one server said it.
#[derive(Debug, Clone, PartialEq)]
pub struct Lag {
    /// The replica (`host:port`), or how the primary names it.
    pub server: String,
    pub reading: LagReading,
}

/// What a server said of a replica's lag.
#[derive(Debug, Clone, PartialEq)]
pub enum LagReading {
    /// Behind by `seconds` (`None`: the server does not know, e.g. nothing replayed yet) and
    /// `bytes` of WAL (PostgreSQL's primary only), as `source` says.
    Behind {
        seconds: Option<f64>,
        bytes: Option<i64>,
        source: &'static str,
    },
    /// The server is not a replica: reads there see the latest commits.
    NotReplica,
    /// The server could not be asked: why.
    Unknown(String),
}
