//! The transaction counter's connection on MariaDB/MySQL: `*_user` with no database selected
//! for the server's status, and TPROC-C's districts in the schema database. The queries are the
//! family's one counter definition (`driver::counters`).

use std::time::{Instant, SystemTime};

use crate::db::counter::{CounterConn, Reading};
use crate::db::engine::Pending;
use crate::db::mysql::driver::counters;
use crate::db::mysql::wire::{self as mywire, Arg, Wire};
use crate::db::mysql::{int_of, MyTarget};
use crate::fault::{DbError, Failure, Peer};

/// The counter's login and its connection, when open.
pub struct MyCounter {
    pub target: MyTarget,
    /// The schema database, for `district`.
    pub dbname: String,
    pub conn: Option<Box<Wire>>,
    pub district: bool,
}

impl MyCounter {
    pub fn new(target: MyTarget, dbname: String) -> Self {
        MyCounter {
            target,
            dbname,
            conn: None,
            district: false,
        }
    }
}

impl CounterConn for MyCounter {
    fn peer(&self) -> Peer {
        self.target.peer()
    }

    fn schema_db(&self) -> &str {
        &self.dbname
    }

    fn is_connected(&self) -> bool {
        self.conn.is_some()
    }

    fn reply_timeout(&self) -> std::time::Duration {
        self.target.bounds.reply_timeout
    }

    fn connect(&mut self) -> Pending<'_, Result<bool, DbError>> {
        Box::pin(async move {
            let mut c = mywire::connect(&self.target).await?;
            let found = c
                .exec_rows(
                    "SELECT COUNT(*) FROM information_schema.tables \
                     WHERE table_schema = ? AND table_name = 'district'",
                    &[Arg::Text(self.dbname.as_bytes())],
                )
                .await;
            self.district = matches!(&found, Ok(rows) if rows
                .first()
                .and_then(|r| r.first())
                .and_then(int_of)
                .is_some_and(|n| n > 0));
            self.conn = Some(Box::new(c));
            Ok(self.district)
        })
    }

    fn read(&mut self) -> Pending<'_, Result<Reading, DbError>> {
        Box::pin(read_my(
            &self.target,
            &self.dbname,
            &mut self.conn,
            &mut self.district,
        ))
    }

    fn drop_connections(&mut self) {
        drop(self.conn.take());
    }

    fn close(&mut self) -> Pending<'_, ()> {
        Box::pin(async move {
            if let Some(c) = self.conn.take() {
                c.close().await;
            }
        })
    }
}

async fn read_my(
    target: &MyTarget,
    dbname: &str,
    conn: &mut Option<Box<Wire>>,
    district: &mut bool,
) -> Result<Reading, DbError> {
    let peer = target.peer();
    let Some(c) = conn.as_mut() else {
        return Err(peer.failed("cannot read", Failure::Lost, "not connected"));
    };
    let failed = |e: mywire::WireError| peer.failed("cannot read counters of", e.kind, e.detail);
    let sent = Instant::now();
    let server = counters::server(c).await.map_err(failed)?;
    let received = Instant::now();
    let parts = vec![(0, server.commits), (1, server.rollbacks)];
    let uptime = server.uptime;
    let mut new_orders = None;
    if *district {
        match counters::new_orders(c, dbname).await {
            Ok(n) => new_orders = n,
            // The connection is gone: the reading failed.
            Err(e) if e.kind == Failure::Lost || e.kind == Failure::Tls => return Err(failed(e)),
            // The schema went away (or the user may not read it): no new orders from now on.
            Err(_) => *district = false,
        }
    }
    Ok(Reading {
        parts,
        uptime,
        new_orders,
        // Com_commit and Com_rollback count COMMIT and ROLLBACK statements; reading
        // status and districts issues neither.
        own: 0,
        at: sent + (received - sent) / 2,
        wall: SystemTime::now(),
    })
}
