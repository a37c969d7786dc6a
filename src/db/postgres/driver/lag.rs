//! How far the servers for reads (`pg_read_only_hosts`) were behind at the end of a run: the
//! primary's `pg_stat_replication` (`replay_lag`, and the WAL bytes not yet replayed), and
//! each standby's own `now() - pg_last_xact_replay_timestamp()`.

use std::time::Duration;

use crate::db::postgres::{classify, connect, PgTarget};
use crate::endpoint::{addr, Destination, Position};
use crate::tpcc::txn::{Lag, LagReading};

/// What the primary says of its standbys.
const PRIMARY: &str = "SELECT application_name, coalesce(host(client_addr), 'local'), \
     EXTRACT(EPOCH FROM replay_lag)::float8, \
     pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint \
     FROM pg_stat_replication ORDER BY application_name";

/// What a standby says of itself: whether it is one, and how old its last replayed commit is.
const STANDBY: &str = "SELECT pg_is_in_recovery(), \
     EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())::float8";

/// The replay lag of every server for reads, and of every standby the primary (the first
/// server of `pg_host`, where the monitor goes) streams to, as the superuser `admin` reads
/// them. Every wait is bounded by the login's reply timeout.
pub async fn replay_lag(admin: &PgTarget, to: &Destination) -> Vec<Lag> {
    let reads = to.read_only_endpoints();
    if reads.is_empty() {
        return Vec::new();
    }
    let bound = admin.bounds.reply_timeout.max(Duration::from_secs(1));
    let mut lags = Vec::new();
    let primary = admin.clone().routed(&to.route(Position::Monitor));
    match ask(&primary, PRIMARY, bound).await {
        Ok(rows) => {
            for row in rows {
                let (name, client): (String, String) = (row.get(0), row.get(1));
                lags.push(Lag {
                    server: format!("standby {name} at {client}"),
                    reading: LagReading::Behind {
                        seconds: row.get(2),
                        bytes: row.get(3),
                        source: "the primary's pg_stat_replication",
                    },
                });
            }
        }
        Err(why) => lags.push(Lag {
            server: format!("primary {}", primary.peer().addr),
            reading: LagReading::Unknown(why),
        }),
    }
    for at in reads {
        let server = addr(&at.host, at.port);
        let reading = match ask(&admin.clone().at(at), STANDBY, bound).await {
            Ok(rows) => match rows.first() {
                Some(row) if row.get::<_, bool>(0) => LagReading::Behind {
                    seconds: row.get(1),
                    bytes: None,
                    source: "its last replayed commit",
                },
                _ => LagReading::NotReplica,
            },
            Err(why) => LagReading::Unknown(why),
        };
        lags.push(Lag { server, reading });
    }
    lags
}

/// Runs `sql` as `target`, within `bound`; the error as a message.
async fn ask(
    target: &PgTarget,
    sql: &str,
    bound: Duration,
) -> Result<Vec<tokio_postgres::Row>, String> {
    let conn = connect(target).await.map_err(|e| e.to_string())?;
    let rows = tokio::time::timeout(bound, conn.client.query(sql, &[])).await;
    conn.close().await;
    match rows {
        Ok(Ok(rows)) => Ok(rows),
        Ok(Err(e)) => Err(classify(&e, false).1),
        Err(_) => Err(format!("no reply within {} s", bound.as_secs())),
    }
}
