//! What the transaction counter reads from a server: the server-wide commit and rollback
//! counters (or, for a workload measured in queries, the queries), the server's uptime, and
//! TPROC-C's new orders (`sum(d_next_o_id)`) where the schema exists. What is counted and as
//! whom is plain data a benchmark gives ([`Counting`]). Each family reads them its own way
//! ([`CounterConn`], in its `counter.rs`); the bound on a reading and the reconnecting are
//! here, once.

use std::time::{Instant, SystemTime};

use crate::config::Database;
use crate::endpoint::{Destination, Position, Route};
use crate::fault::{DbError, Failure, Peer};
use crate::task::Pending;

/// What a counter counts, and the rate it reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Counted {
    /// Committed and rolled-back transactions, per minute: `N PostgreSQL tpm`.
    #[default]
    Transactions,
    /// Queries, per hour: `N PostgreSQL qph` (TPROC-H's counter, as HammerDB's).
    Queries,
}

impl Counted {
    /// The rate's unit as the counter's lines say it: `tpm`, `qph`.
    pub fn unit(self) -> &'static str {
        match self {
            Counted::Transactions => "tpm",
            Counted::Queries => "qph",
        }
    }

    /// What is counted, in words: `transactions`, `queries`.
    pub fn noun(self) -> &'static str {
        match self {
            Counted::Transactions => "transactions",
            Counted::Queries => "queries",
        }
    }

    /// The seconds the rate is per: 60 for a minute, 3600 for an hour.
    pub fn per_seconds(self) -> f64 {
        match self {
            Counted::Transactions => 60.0,
            Counted::Queries => 3600.0,
        }
    }

    /// The rate of `count` units in `seconds`.
    pub fn rate(self, count: u64, seconds: f64) -> f64 {
        count as f64 * self.per_seconds() / seconds
    }
}

/// What the transaction counter counts and as whom: what a benchmark is measured by, and the
/// infix of the dictionary keys of its logins, HammerDB's naming (`pg_superuser` and
/// `pg_user` for TPROC-C, `pg_tpch_superuser` and `pg_tpch_user` for TPROC-H).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counting {
    pub counted: Counted,
    /// `""`, or `"tpch_"`: the logins are `{prefix}_{keys}superuser`, `{prefix}_{keys}user`...
    pub keys: &'static str,
}

impl Counting {
    /// Server-wide transactions per minute, read as the workload's superuser (PostgreSQL) or
    /// user (MariaDB, MySQL) of the keys without infix: TPROC-C's counter.
    pub const TRANSACTIONS: Counting = Counting {
        counted: Counted::Transactions,
        keys: "",
    };
}

/// One reading of a server's counters.
#[derive(Debug, Clone)]
pub struct Reading {
    /// Cumulative transaction counts by component: one per database oid on PostgreSQL (so a
    /// dropped database does not make the total go back), `Com_commit` and `Com_rollback` on
    /// MariaDB/MySQL; or, counting queries there, `Queries - Com_show_status`.
    pub parts: Vec<(u64, u64)>,
    /// Seconds the server has been up: less than last time means it restarted.
    pub uptime: f64,
    /// `sum(d_next_o_id)` over the TPROC-C districts, where the schema database has them.
    pub new_orders: Option<u64>,
    /// Transactions this reading itself committed (PostgreSQL counts read-only ones).
    pub own: u64,
    /// Midway between sending the query and receiving its answer: when the server looked.
    pub at: Instant,
    pub wall: SystemTime,
}

impl Reading {
    pub fn total(&self) -> u64 {
        self.parts.iter().map(|p| p.1).sum()
    }
}

/// A family's connection (or two) that reads counters.
pub trait CounterConn: Send {
    /// The login the counters are read as, for messages.
    fn peer(&self) -> Peer;

    /// The database whose TPROC-C districts give NOPM.
    fn schema_db(&self) -> &str;

    fn is_connected(&self) -> bool;

    /// How long a reading may wait for the server before it counts as lost.
    fn reply_timeout(&self) -> std::time::Duration;

    /// Connects; whether the schema database holds TPROC-C districts (then readings carry
    /// new orders). A missing schema is not an error: the counter counts any workload.
    fn connect(&mut self) -> Pending<'_, Result<bool, DbError>>;

    /// One reading on the open connections.
    fn read(&mut self) -> Pending<'_, Result<Reading, DbError>>;

    /// Forgets the connections without a word: they are mid-reply.
    fn drop_connections(&mut self);

    /// Closes the connections politely.
    fn close(&mut self) -> Pending<'_, ()>;
}

/// Reads a server's counters, reconnecting on demand, each reading within the reply timeout.
pub struct CounterSource {
    db: Database,
    counted: Counted,
    inner: Box<dyn CounterConn>,
}

impl CounterSource {
    /// The source `db`'s dictionary asks for, counting `counted`: along the counter's route
    /// for one server; for a host list (and servers for reads), one counter per server,
    /// summed ([`Several`]). `along` makes a family's counter along a route.
    pub fn over<C: CounterConn + 'static>(
        db: Database,
        counted: Counted,
        to: &Destination,
        along: impl Fn(&Route) -> C,
    ) -> Self {
        let servers = to.servers();
        if servers.len() < 2 {
            return Self::with(db, counted, along(&to.route(Position::Counter)));
        }
        // Each server counts only what ran on it: one counter each, summed.
        let each = servers
            .iter()
            .map(|e| {
                let name = crate::endpoint::addr(&e.host, e.port);
                (
                    name,
                    Box::new(along(&Route::one(e))) as Box<dyn CounterConn>,
                )
            })
            .collect();
        Self::with(db, counted, Several::new(each))
    }

    /// A source over a family's connection for `db` that counts `counted` (the engine's
    /// `counter_source` makes one).
    pub fn with(db: Database, counted: Counted, inner: impl CounterConn + 'static) -> Self {
        CounterSource {
            db,
            counted,
            inner: Box::new(inner),
        }
    }

    pub fn db(&self) -> Database {
        self.db
    }

    /// What its readings count.
    pub fn counted(&self) -> Counted {
        self.counted
    }

    /// `PostgreSQL at 127.0.0.1:5432 as user postgres`, for messages.
    pub fn describe(&self) -> String {
        let peer = self.inner.peer();
        format!("{} at {} as user {}", self.db.name(), peer.addr, peer.user)
    }

    /// The database whose TPROC-C districts give NOPM.
    pub fn schema_db(&self) -> &str {
        self.inner.schema_db()
    }

    /// Where NOPM is read from, as `tcstart` says it: `the TPROC-C districts in tpcc`.
    pub fn new_orders_from(&self) -> String {
        format!("the TPROC-C districts in {}", self.schema_db())
    }

    pub fn is_connected(&self) -> bool {
        self.inner.is_connected()
    }

    /// Connects; returns whether the schema database holds TPROC-C districts (then readings
    /// carry new orders). A missing schema is not an error: the counter counts any workload.
    pub async fn connect(&mut self) -> Result<bool, DbError> {
        self.close().await;
        self.inner.connect().await
    }

    /// Reads the counters, connecting first when not connected, within the reply timeout. A
    /// failure leaves the source disconnected; the next call connects again.
    pub async fn read(&mut self) -> Result<Reading, DbError> {
        let limit = self.inner.reply_timeout();
        match tokio::time::timeout(limit, self.read_once()).await {
            Ok(r) => r,
            Err(_) => {
                // The connections are mid-reply: dropped, not closed politely.
                self.inner.drop_connections();
                Err(self.inner.peer().failed(
                    "no reply from",
                    Failure::Lost,
                    format!(
                        "the counters' query got no answer within {} s (the reply timeout)",
                        limit.as_secs_f64()
                    ),
                ))
            }
        }
    }

    async fn read_once(&mut self) -> Result<Reading, DbError> {
        if !self.is_connected() {
            self.connect().await?;
        }
        let result = self.inner.read().await;
        if result.is_err() {
            self.close().await;
        }
        result
    }

    /// Closes the connections.
    pub async fn close(&mut self) {
        self.inner.close().await
    }
}

/// A server's last parts and uptime.
type Kept = (Vec<(u64, u64)>, f64);

/// One counter per server of a host list (and of the servers for reads), read together as
/// one: each server's counts are its own transactions (a Galera node's, a standby's), so the
/// whole system's are their sum. A server that does not answer keeps its last counts, so that
/// it adds nothing while it is away and only what it did meanwhile when it is back; NOPM comes
/// from the first server that has the districts.
pub struct Several {
    servers: Vec<(String, Box<dyn CounterConn>)>,
    /// Each server's last parts and uptime, while it has answered.
    last: Vec<Option<Kept>>,
}

impl Several {
    /// Counters aimed at one server each, named by their addresses.
    pub fn new(servers: Vec<(String, Box<dyn CounterConn>)>) -> Self {
        let last = vec![None; servers.len()];
        Several { servers, last }
    }
}

impl CounterConn for Several {
    fn peer(&self) -> Peer {
        let mut peer = self.servers[0].1.peer();
        peer.addr = self
            .servers
            .iter()
            .map(|(name, _)| name.as_str())
            .collect::<Vec<_>>()
            .join(",");
        peer
    }

    fn schema_db(&self) -> &str {
        self.servers[0].1.schema_db()
    }

    fn is_connected(&self) -> bool {
        self.servers.iter().any(|(_, c)| c.is_connected())
    }

    fn reply_timeout(&self) -> std::time::Duration {
        self.servers
            .iter()
            .map(|(_, c)| c.reply_timeout())
            .max()
            .unwrap_or_default()
    }

    fn connect(&mut self) -> Pending<'_, Result<bool, DbError>> {
        Box::pin(async move {
            let results =
                futures_util::future::join_all(self.servers.iter_mut().map(|(_, c)| c.connect()))
                    .await;
            let districts = results.iter().any(|r| matches!(r, Ok(true)));
            match results.into_iter().find_map(Result::err) {
                Some(e) if !self.is_connected() => Err(e),
                _ => Ok(districts),
            }
        })
    }

    fn read(&mut self) -> Pending<'_, Result<Reading, DbError>> {
        Box::pin(async move {
            // Each server within three quarters of its reply timeout, so that a server that
            // stalls leaves time for the reading of the others.
            let readings =
                futures_util::future::join_all(self.servers.iter_mut().map(|(_, c)| async move {
                    let limit = c.reply_timeout() * 3 / 4;
                    if !c.is_connected() {
                        match tokio::time::timeout(limit, c.connect()).await {
                            Ok(Ok(_)) => {}
                            Ok(Err(e)) => return Err(e),
                            Err(_) => {
                                c.drop_connections();
                                return Err(c.peer().error(Failure::Unreachable, "no answer"));
                            }
                        }
                    }
                    match tokio::time::timeout(limit, c.read()).await {
                        Ok(r) => r,
                        Err(_) => {
                            c.drop_connections();
                            Err(c
                                .peer()
                                .failed("no reply from", Failure::Lost, "the counters"))
                        }
                    }
                }))
                .await;
            let (mut parts, mut uptime, mut new_orders, mut own) = (Vec::new(), f64::MAX, None, 0);
            let (mut at, mut wall, mut error) = (None, None, None);
            for (i, reading) in readings.into_iter().enumerate() {
                let tag = (i as u64) << 56;
                match reading {
                    Ok(r) => {
                        self.last[i] = Some((r.parts.clone(), r.uptime));
                        parts.extend(r.parts.iter().map(|(k, v)| (k ^ tag, *v)));
                        uptime = uptime.min(r.uptime);
                        new_orders = new_orders.or(r.new_orders);
                        own += r.own;
                        at.get_or_insert(r.at);
                        wall.get_or_insert(r.wall);
                    }
                    Err(e) => {
                        if let Some((kept, up)) = &self.last[i] {
                            parts.extend(kept.iter().map(|(k, v)| (k ^ tag, *v)));
                            uptime = uptime.min(*up);
                        }
                        error = Some(e);
                    }
                }
            }
            match (at, wall) {
                (Some(at), Some(wall)) => Ok(Reading {
                    parts,
                    uptime,
                    new_orders,
                    own,
                    at,
                    wall,
                }),
                _ => {
                    Err(error
                        .unwrap_or_else(|| self.peer().error(Failure::Unreachable, "no server")))
                }
            }
        })
    }

    fn drop_connections(&mut self) {
        for (_, c) in &mut self.servers {
            c.drop_connections();
        }
    }

    fn close(&mut self) -> Pending<'_, ()> {
        Box::pin(async move {
            for (_, c) in &mut self.servers {
                c.close().await;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_rates_are_hammerdb_s() {
        assert_eq!(Counted::default(), Counted::Transactions);
        assert_eq!(Counting::TRANSACTIONS.keys, "");
        assert_eq!(
            (Counted::Transactions.unit(), Counted::Queries.unit()),
            ("tpm", "qph")
        );
        assert_eq!(Counted::Queries.noun(), "queries");
        // 50 in 10 s: 300 a minute, 18000 an hour.
        assert_eq!(Counted::Transactions.rate(50, 10.0), 300.0);
        assert_eq!(Counted::Queries.rate(50, 10.0), 18_000.0);
    }
}
