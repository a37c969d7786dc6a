//! The transaction counter across a PostgreSQL restart: it says once that the server went
//! away, comes back by itself, and counts neither a spike nor a negative rate. Alone in its
//! test binary, like the other restart tests.

mod common;

use std::time::{Duration, Instant};

use common::{Fixture, Servers};

/// Commits `n` transactions at 50 a second on a connection of its own, then ends the session
/// (so that PostgreSQL publishes its counts at once).
fn commit(rt: &tokio::runtime::Runtime, n: usize) {
    let s = Servers::get();
    let conf = format!(
        "host={} port={} user={} password={} dbname=postgres",
        s.pg_host, s.pg_port, s.pg_user, s.pg_pass
    );
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(&conf, tokio_postgres::NoTls)
            .await
            .expect("test connects");
        let driver = tokio::spawn(async move {
            let _ = conn.await;
        });
        for _ in 0..n {
            client
                .batch_execute("BEGIN; SELECT 1; COMMIT")
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        drop(client);
        let _ = driver.await;
    });
}

#[test]
fn the_counter_rides_out_a_server_restart() {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    f.ok("dbset db pg; tcset refreshrate 1; tcstart");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    commit(&rt, 100);
    std::thread::sleep(Duration::from_millis(1500));
    common::restart_pg_after(Duration::ZERO).join().unwrap();
    // Until the counter has said it is back (or reconnected at once).
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !lines
        .iter()
        .any(|l: &String| l.contains("is back after") || l.contains("reconnected at once"))
    {
        assert!(Instant::now() < deadline, "never came back: {lines:#?}");
        std::thread::sleep(Duration::from_millis(100));
        lines.extend(f.out.take_captured());
    }
    commit(&rt, 100);
    std::thread::sleep(Duration::from_millis(2500));
    let (r, stop_lines) = f.console("tcstop().transactions");
    lines.extend(stop_lines);
    let text = lines.join("\n");
    let lost = lines
        .iter()
        .filter(|l| l.starts_with("Transaction Counter: cannot read counters of PostgreSQL"))
        .count();
    assert_eq!(lost, 1, "the loss is said once:\n{text}");
    let retried = text.contains("; retrying with backoff");
    assert_eq!(
        lines.iter().filter(|l| l.contains("is back after")).count(),
        usize::from(retried),
        "{text}"
    );
    // Every rate line is a whole, non-negative number, and none is a spike: the test never
    // commits faster than 50 a second (3,000 a minute). PostgreSQL publishes a session's
    // counts once a second at most, so one interval may hold two of those batches; more
    // would be the transactions of before the restart counted again.
    let rates: Vec<u64> = lines
        .iter()
        .filter_map(|l| l.strip_suffix(" PostgreSQL tpm"))
        .filter(|n| !n.contains(' '))
        .map(|n| {
            n.parse()
                .unwrap_or_else(|_| panic!("not a rate: {n}\n{text}"))
        })
        .collect();
    assert!(rates.len() >= 4, "{text}");
    assert!(
        rates.iter().all(|&r| r <= 7_200),
        "a spike: {rates:?}\n{text}"
    );
    // The two hundred transactions are counted once each, up to one interval's worth (50)
    // around the restart, where a session's last counts may be lost with the server.
    let total: i64 = r.unwrap().parse().unwrap();
    assert!((150..=220).contains(&total), "counted {total}:\n{text}");
}
