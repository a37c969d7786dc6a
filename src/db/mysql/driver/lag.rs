//! How far the servers for reads (`*_read_only_hosts`) were behind at the end of a run: each
//! replica's `Seconds_Behind_Master` (MySQL 8.0.22+: `Seconds_Behind_Source`) from
//! `SHOW REPLICA STATUS`, or `SHOW SLAVE STATUS` where the server predates that name.

use mysql_common::Value;

use crate::db::mysql::wire::{self as mywire, Wire, WireError};
use crate::db::mysql::{int_of, text_of, MyTarget};
use crate::endpoint::{addr, Destination};
use crate::tpcc::txn::{Lag, LagReading};

/// The lag of every server for reads, as the login `server` (no database) reads it: a
/// replica's status needs `REPLICATION CLIENT` (MariaDB: `SLAVE MONITOR`). Each wait is
/// bounded by the login's reply timeout.
pub async fn replay_lag(server: &MyTarget, to: &Destination) -> Vec<Lag> {
    let mut lags = Vec::new();
    for at in to.read_only_endpoints() {
        let target = server.clone().at(at);
        let reading = match mywire::connect(&target).await {
            Ok(mut wire) => {
                let r = status(&mut wire).await;
                wire.close().await;
                match r {
                    Ok(Some(row)) => match seconds_behind(&row) {
                        Some(seconds) => LagReading::Behind {
                            seconds: seconds.map(|s| s as f64),
                            bytes: None,
                            source: "its Seconds_Behind_Master",
                        },
                        None => LagReading::Unknown(
                            "its replica status has no Seconds_Behind_Master where expected".into(),
                        ),
                    },
                    Ok(None) => LagReading::NotReplica,
                    Err(e) => LagReading::Unknown(e.detail),
                }
            }
            Err(e) => LagReading::Unknown(e.to_string()),
        };
        lags.push(Lag {
            server: addr(&at.host, at.port),
            reading,
        });
    }
    lags
}

/// The first row of the replica status (one per source; `None` on a server that is no
/// replica).
async fn status(wire: &mut Wire) -> Result<Option<Vec<Value>>, WireError> {
    match wire.query_first("SHOW REPLICA STATUS").await {
        Ok(row) => Ok(row),
        // MariaDB before 10.5 and MySQL before 8.0.22 know only the old name.
        Err(_) => wire.query_first("SHOW SLAVE STATUS").await,
    }
}

/// `Seconds_Behind_Master` of a replica status row (`Some(None)` when the server says NULL:
/// replication stopped), found by its neighbours rather than by a fixed position, since
/// servers insert columns before it (MariaDB's `Replicate_Rewrite_DB`): it comes nine
/// columns after `Until_Condition` (`None`, `Master`, `Relay`, `Gtid`, `SQL_*`), whose third
/// next column is `Master_SSL_Allowed` (`Yes`, `No`, `Ignored`), and is followed by
/// `Master_SSL_Verify_Server_Cert` (`Yes`, `No`). The lean connection reads values only, not
/// the columns' names.
fn seconds_behind(row: &[Value]) -> Option<Option<i64>> {
    let text = |i: usize| row.get(i).and_then(text_of).unwrap_or_default();
    let until =
        |s: &str| matches!(s, "None" | "Master" | "Relay" | "Gtid") || s.starts_with("SQL_");
    let yes_no = |s: &str| matches!(s, "Yes" | "No" | "Ignored");
    (10..row.len().saturating_sub(10))
        .find(|&i| until(&text(i)) && yes_no(&text(i + 3)) && yes_no(&text(i + 10)))
        .map(|i| row.get(i + 9).and_then(int_of))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Vec<Value> {
        cells
            .iter()
            .map(|c| match *c {
                "NULL" => Value::NULL,
                c => Value::Bytes(c.as_bytes().to_vec()),
            })
            .collect()
    }

    /// The first 34 columns of MySQL's and MariaDB's replica status, with `extra` inserted
    /// before `Replicate_Do_DB` as newer servers do.
    fn status(extra: &[&str], seconds: &str) -> Vec<Value> {
        let mut cells = vec![
            "Waiting for master",
            "h",
            "repl",
            "3306",
            "60",
            "bin.000001",
            "4",
            "relay.000002",
            "4",
            "bin.000001",
            "Yes",
            "Yes",
        ];
        cells.extend_from_slice(extra);
        cells.extend_from_slice(&[
            "", "", "", "", "", "", "0", "", "0", "4", "1024", "None", "", "0", "No", "", "", "",
            "", "", seconds, "No", "0", "",
        ]);
        row(&cells)
    }

    #[test]
    fn seconds_behind_is_found_wherever_the_server_puts_it() {
        assert_eq!(seconds_behind(&status(&[], "7")), Some(Some(7)));
        assert_eq!(seconds_behind(&status(&["db1->db2"], "0")), Some(Some(0)));
        assert_eq!(seconds_behind(&status(&[], "NULL")), Some(None));
        assert_eq!(seconds_behind(&row(&["a", "b"])), None);
    }
}
