//! PostgreSQL's transaction counters, defined once: the driver's monitor and the transaction
//! counter (`tcstart`) both read them with these queries.
//!
//! A transaction is a commit or a rollback of `pg_stat_database`, counted per database. The
//! monitor of a run takes its schema database's row (a run's TPM is its own database's work);
//! the transaction counter takes every row, each delta per database so that a database dropped
//! between two readings does not make the total go back. Both are read with the simple
//! protocol: one implicit transaction per query (a prepared statement would add a second).

use tokio_postgres::{Client, SimpleQueryMessage};

/// Every database's commits plus rollbacks, and the server's uptime in seconds: PostgreSQL's
/// counter statement (its dialect's `counter_sql`).
pub const SERVER: &str = "SELECT datid::int8, datname::text, \
     (coalesce(xact_commit, 0) + coalesce(xact_rollback, 0))::int8, \
     extract(epoch FROM now() - pg_postmaster_start_time())::float8 FROM pg_stat_database";
/// CockroachDB's counter statement: the transactions its gateway node has committed and
/// rolled back, and its uptime, from `crdb_internal.node_metrics`. The node counts for the
/// whole server (it keeps no count per database), so its one row names no database.
pub const CRDB_NODE: &str = "SELECT 0::INT8, NULL::TEXT, \
     (SELECT coalesce(sum(value), 0) FROM crdb_internal.node_metrics \
      WHERE name IN ('sql.txn.commit.count', 'sql.txn.rollback.count'))::INT8, \
     (SELECT value FROM crdb_internal.node_metrics WHERE name = 'sys.uptime')::FLOAT8";
/// TPROC-C's new orders: one `d_next_o_id` step per committed New-Order.
const NEW_ORDERS: &str = "SELECT coalesce(sum(d_next_o_id), 0)::int8 FROM district";

/// One database's row of `pg_stat_database`.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub datid: u64,
    /// `None` for the row of shared objects.
    pub datname: Option<String>,
    pub transactions: u64,
}

/// One reading of the server's transaction counts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Server {
    pub parts: Vec<Part>,
    pub uptime: f64,
}

impl Server {
    /// The transactions of database `name`; a server that counts none per database (no row
    /// has a name) counts them all for every database.
    pub fn of_database(&self, name: &str) -> u64 {
        if self.parts.iter().all(|p| p.datname.is_none()) {
            return self.parts.iter().map(|p| p.transactions).sum();
        }
        self.parts
            .iter()
            .filter(|p| p.datname.as_deref() == Some(name))
            .map(|p| p.transactions)
            .sum()
    }
}

/// Reads every database's transactions (on any database of the server) with `sql`, a
/// dialect's counter statement ([`SERVER`] for PostgreSQL).
pub async fn server(client: &Client, sql: &str) -> Result<Server, tokio_postgres::Error> {
    let messages = client.simple_query(sql).await?;
    let mut server = Server::default();
    for m in &messages {
        if let SimpleQueryMessage::Row(r) = m {
            let num = |i: usize| r.get(i).and_then(|v| v.parse::<u64>().ok());
            if let (Some(datid), Some(transactions)) = (num(0), num(2)) {
                server.parts.push(Part {
                    datid,
                    datname: r.get(1).map(str::to_string),
                    transactions,
                });
            }
            server.uptime = r
                .get(3)
                .and_then(|v| v.parse().ok())
                .unwrap_or(server.uptime);
        }
    }
    Ok(server)
}

/// Reads `sum(d_next_o_id)` on a connection to the schema database.
pub async fn new_orders(client: &Client) -> Result<Option<u64>, tokio_postgres::Error> {
    let messages = client.simple_query(NEW_ORDERS).await?;
    Ok(first_cell(&messages, 0).and_then(|v| v.parse().ok()))
}

/// Column `col` of the first row of a simple query's answer.
pub fn first_cell(messages: &[SimpleQueryMessage], col: usize) -> Option<String> {
    messages.iter().find_map(|m| match m {
        SimpleQueryMessage::Row(r) => r.get(col).map(str::to_string),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(datid: u64, datname: Option<&str>, transactions: u64) -> Part {
        Part {
            datid,
            datname: datname.map(str::to_string),
            transactions,
        }
    }

    #[test]
    fn a_database_counts_its_own_row_or_the_servers_when_none_is_named() {
        let pg = Server {
            parts: vec![
                part(0, None, 5),
                part(1, Some("tpcc"), 7),
                part(2, Some("x"), 11),
            ],
            uptime: 1.0,
        };
        assert_eq!(pg.of_database("tpcc"), 7);
        assert_eq!(pg.of_database("missing"), 0);
        let node = Server {
            parts: vec![part(0, None, 13)],
            uptime: 1.0,
        };
        assert_eq!(node.of_database("tpcc"), 13);
        assert_eq!(Server::default().of_database("tpcc"), 0);
    }

    #[test]
    fn cockroachdbs_counter_reads_its_node_metrics_as_one_unnamed_row() {
        assert!(CRDB_NODE.contains("crdb_internal.node_metrics"));
        assert!(CRDB_NODE.contains("'sql.txn.commit.count', 'sql.txn.rollback.count'"));
        assert!(CRDB_NODE.starts_with("SELECT 0::INT8, NULL::TEXT"));
    }
}
