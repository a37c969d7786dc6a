//! MariaDB's and MySQL's transaction counters, defined once: the driver's monitor and the
//! transaction counter (`tcstart`) both read them with these queries.
//!
//! A transaction is a `Com_commit` or `Com_rollback` of the server's global status (server
//! wide, as HammerDB counts); reading the status and the districts issues neither.

use crate::db::mysql::wire::{Wire, WireError};
use crate::db::mysql::{int_of, text_of};

/// The commit and rollback statements the server has run, and its uptime in seconds.
const SERVER: &str =
    "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_rollback', 'Uptime')";

/// One reading of the server's counters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Server {
    pub commits: u64,
    pub rollbacks: u64,
    pub uptime: f64,
}

impl Server {
    /// Commits plus rollbacks: the transactions TPM counts.
    pub fn transactions(&self) -> u64 {
        self.commits + self.rollbacks
    }
}

/// Reads the server's counters.
pub async fn server(conn: &mut Wire) -> Result<Server, WireError> {
    let status = conn.query_rows(SERVER).await?;
    let mut server = Server::default();
    for row in &status {
        let cell = |i: usize| row.get(i).and_then(text_of).unwrap_or_default();
        let (name, value) = (cell(0), cell(1));
        let v = value.trim().parse::<u64>().unwrap_or(0);
        match name.to_ascii_lowercase().as_str() {
            "com_commit" => server.commits = v,
            "com_rollback" => server.rollbacks = v,
            "uptime" => server.uptime = v as f64,
            _ => {}
        }
    }
    Ok(server)
}

/// TPROC-C's new orders, `sum(d_next_o_id)` over the districts of database `db`: one step
/// per committed New-Order.
pub async fn new_orders(conn: &mut Wire, db: &str) -> Result<Option<u64>, WireError> {
    let sql = format!(
        "SELECT COALESCE(SUM(d_next_o_id), 0) FROM `{}`.district",
        db.replace('`', "``")
    );
    let row = conn.query_first(&sql).await?;
    Ok(row
        .as_deref()
        .and_then(|r| r.first())
        .and_then(int_of)
        .map(|v| v.max(0) as u64))
}
