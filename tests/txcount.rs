//! The transaction counter on the real servers: its figures add up to the transactions a test
//! commits itself, agree with sysbench's, show NOPM from TPROC-C districts, count TPROC-H's
//! queries per hour as its logins, and its bad inputs.
//!
//! The counter reads server-wide counters, so the tests of one server take turns (a lock per
//! server) instead of counting each other's work.

mod common;

use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{Fixture, Servers};

static PG: Mutex<()> = Mutex::new(());
static MARIA: Mutex<()> = Mutex::new(());

fn turn(m: &'static Mutex<()>) -> std::sync::MutexGuard<'static, ()> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn configured(db: &str) -> Fixture {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    f.ok(&format!("dbset db {db}; tcset refreshrate 1"));
    f
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A client and the task driving its connection (await it after dropping the client to
/// have the session end).
fn pg_client(
    rt: &tokio::runtime::Runtime,
    dbname: &str,
) -> (tokio_postgres::Client, tokio::task::JoinHandle<()>) {
    let s = Servers::get();
    let conf = format!(
        "host={} port={} user={} password={} dbname={dbname}",
        s.pg_host, s.pg_port, s.pg_user, s.pg_pass
    );
    let (client, conn) = rt
        .block_on(tokio_postgres::connect(&conf, tokio_postgres::NoTls))
        .expect("test connects to PostgreSQL");
    let driver = rt.spawn(async move {
        let _ = conn.await;
    });
    (client, driver)
}

fn maria_conn(rt: &tokio::runtime::Runtime, dbname: Option<&str>) -> mysql_async::Conn {
    let s = Servers::get();
    let opts = mysql_async::OptsBuilder::default()
        .ip_or_hostname(s.maria_host.clone())
        .tcp_port(s.maria_port)
        .user(Some(s.maria_user.clone()))
        .pass(Some(s.maria_pass.clone()))
        .db_name(dbname.map(str::to_string))
        .prefer_socket(false);
    rt.block_on(mysql_async::Conn::new(opts))
        .expect("test connects to MariaDB")
}

fn sleep(secs: f64) {
    std::thread::sleep(Duration::from_secs_f64(secs));
}

/// `tcstop()` as (transactions, series of (end unix ms, seconds, transactions)), and its lines.
fn tcstop(f: &mut Fixture) -> (i64, Vec<(f64, f64, f64)>, Vec<String>) {
    let (r, lines) = f.console(
        "let t = tcstop(); let s = []; for x in t.series { s.push(`${x.unix_ms}|${x.seconds}|${x.transactions}`) } `${t.transactions};${s}`",
    );
    let r = r.unwrap_or_else(|e| panic!("tcstop: {e}\n{lines:#?}"));
    let (total, series) = r.split_once(';').unwrap();
    let series = series
        .trim_matches(['[', ']'])
        .split(", ")
        .filter(|x| !x.is_empty())
        .map(|x| {
            let v: Vec<f64> = x
                .trim_matches('"')
                .split('|')
                .map(|n| n.parse().unwrap())
                .collect();
            (v[0], v[1], v[2])
        })
        .collect();
    (total.parse().unwrap_or(0), series, lines)
}

fn tpm_lines(lines: &[String], rdbms: &str) -> Vec<u64> {
    lines
        .iter()
        .filter_map(|l| l.strip_suffix(&format!(" {rdbms} tpm")))
        .filter_map(|n| n.parse().ok())
        .collect()
}

/// Commits `n` transactions (every tenth rolled back) at `per_second`, on the test's own
/// connection, while the counter runs; the counter's total must be `n` give or take what one
/// refresh interval holds.
#[test]
fn counts_what_a_test_commits_on_postgresql() {
    let _turn = turn(&PG);
    let mut f = configured("pg");
    let rt = rt();
    let (client, driver) = pg_client(&rt, "postgres");
    rt.block_on(client.batch_execute("CREATE TEMP TABLE tc_probe (x int)"))
        .unwrap();
    let lines = f.ok("tcstart");
    assert!(
        lines.contains(&"Transaction Counter Started".to_string()),
        "{lines:#?}"
    );
    sleep(1.5);
    let (n, per_second) = (60, 20.0);
    for i in 0..n {
        let end = if i % 10 == 9 { "ROLLBACK" } else { "COMMIT" };
        rt.block_on(
            client.batch_execute(&format!("BEGIN; INSERT INTO tc_probe VALUES ({i}); {end}")),
        )
        .unwrap();
        sleep(1.0 / per_second);
    }
    // PostgreSQL publishes a session's counts at most once a second, and at once when the
    // session ends.
    drop(client);
    rt.block_on(driver).unwrap();
    sleep(2.5);
    let (total, series, lines) = tcstop(&mut f);
    println!("counted {total} of {n} transactions");
    assert!(
        (total - n).abs() <= per_second as i64,
        "counted {total} of {n}: {series:?}\n{lines:#?}"
    );
    // Every sample was printed as HammerDB prints it.
    assert_eq!(
        tpm_lines(&lines, "PostgreSQL").len(),
        series.len(),
        "{lines:#?}"
    );
}

#[test]
fn counts_what_a_test_commits_on_mariadb() {
    let _turn = turn(&MARIA);
    let mut f = configured("maria");
    let rt = rt();
    let mut conn = maria_conn(&rt, None);
    use mysql_async::prelude::Queryable;
    let db = format!("hammer_tc_{}", std::process::id());
    rt.block_on(conn.query_drop(format!(
        "CREATE DATABASE IF NOT EXISTS {db}; CREATE TABLE {db}.tc_probe (x int) ENGINE=InnoDB"
    )))
    .unwrap();
    let lines = f.ok("tcstart");
    assert!(
        lines.contains(&"Transaction Counter Started".to_string()),
        "{lines:#?}"
    );
    sleep(1.5);
    let (n, per_second) = (60, 20.0);
    for i in 0..n {
        let end = if i % 10 == 9 { "ROLLBACK" } else { "COMMIT" };
        rt.block_on(conn.query_drop(format!(
            "BEGIN; INSERT INTO {db}.tc_probe VALUES ({i}); {end}"
        )))
        .unwrap();
        sleep(1.0 / per_second);
    }
    sleep(2.5);
    let (total, series, lines) = tcstop(&mut f);
    println!("counted {total} of {n} transactions");
    rt.block_on(conn.query_drop(format!("DROP DATABASE {db}")))
        .unwrap();
    rt.block_on(conn.disconnect()).unwrap();
    assert!(
        (total - n).abs() <= per_second as i64,
        "counted {total} of {n}: {series:?}\n{lines:#?}"
    );
}

/// Runs sysbench's oltp_read_write with the counter on, and compares the counter's average
/// over the intervals that lie inside sysbench's run with sysbench's own tps × 60.
fn sysbench_agrees(db: &str, rdbms: &str, connect_args: &[String], admin: impl Fn(&str)) {
    let mut f = configured(db);
    let name = "sbtest_hammer";
    admin(&format!("DROP DATABASE IF EXISTS {name}"));
    admin(&format!("CREATE DATABASE {name}"));
    let sysbench = |phase: &str, extra: &[&str]| {
        let out = Command::new("sysbench")
            .arg("oltp_read_write")
            .args(connect_args)
            .args(["--tables=2", "--table-size=10000", "--threads=4"])
            .args(extra)
            .arg(phase)
            .output()
            .expect("sysbench runs: apt-get install sysbench (scripts/ci/install.sh does)");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "sysbench {phase}:\n{text}");
        text
    };
    sysbench("prepare", &[]);
    f.ok("tcstart");
    sleep(1.2);
    let now_ms = || {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as f64
    };
    let started = now_ms();
    let report = sysbench("run", &["--time=15", "--report-interval=0"]);
    let ended = now_ms();
    sleep(1.5);
    let (_, series, lines) = tcstop(&mut f);
    admin(&format!("DROP DATABASE {name}"));
    // "transactions:                        12345  (822.93 per sec.)", "total time: 15.0012s"
    let field = |name: &str, after: char| -> f64 {
        report
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .and_then(|l| l.split(after).nth(1))
            .and_then(|l| l.trim().trim_end_matches('s').split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in sysbench's report:\n{report}"))
    };
    let tps = field("transactions:", '(');
    let run_seconds = field("total time:", ':');
    // The server runs nothing but sysbench while the counter runs (prepare came before,
    // cleanup after), so the counter's transactions in the intervals that overlap the run,
    // over the run's time, are its average over the run. The intervals that follow the run
    // also hold what PostgreSQL publishes late.
    let overlapping: Vec<&(f64, f64, f64)> = series
        .iter()
        .filter(|(end, secs, _)| *end > started && end - secs * 1000.0 < ended + 1000.0)
        .collect();
    assert!(overlapping.len() >= 12, "{series:?}");
    let transactions: f64 = overlapping.iter().map(|x| x.2).sum();
    let counter_tpm = transactions * 60.0 / run_seconds;
    let sysbench_tpm = tps * 60.0;
    let off = (counter_tpm - sysbench_tpm).abs() / sysbench_tpm;
    println!(
        "{rdbms}: counter {counter_tpm:.0} tpm ({transactions} transactions in {} intervals over sysbench's {run_seconds} s), \
         sysbench {tps} tps x 60 = {sysbench_tpm:.0}: {:.2} % apart",
        overlapping.len(),
        off * 100.0
    );
    assert!(
        off <= 0.05,
        "{rdbms}: counter {counter_tpm:.0} tpm vs sysbench {sysbench_tpm:.0}: {series:?}\n{lines:#?}\n{report}"
    );
}

#[test]
fn agrees_with_sysbench_on_postgresql() {
    let _turn = turn(&PG);
    let s = Servers::get();
    s.require();
    let args = vec![
        "--db-driver=pgsql".to_string(),
        format!("--pgsql-host={}", s.pg_host),
        format!("--pgsql-port={}", s.pg_port),
        format!("--pgsql-user={}", s.pg_user),
        format!("--pgsql-password={}", s.pg_pass),
        "--pgsql-db=sbtest_hammer".to_string(),
    ];
    let rt = rt();
    let (admin, _driver) = pg_client(&rt, "postgres");
    sysbench_agrees("pg", "PostgreSQL", &args, |sql| {
        let sql = sql.replace(
            "DROP DATABASE sbtest_hammer",
            "DROP DATABASE sbtest_hammer WITH (FORCE)",
        );
        rt.block_on(admin.batch_execute(&sql)).unwrap();
    });
}

#[test]
fn agrees_with_sysbench_on_mariadb() {
    let _turn = turn(&MARIA);
    let s = Servers::get();
    s.require();
    let args = vec![
        "--db-driver=mysql".to_string(),
        format!("--mysql-host={}", s.maria_host),
        format!("--mysql-port={}", s.maria_port),
        format!("--mysql-user={}", s.maria_user),
        format!("--mysql-password={}", s.maria_pass),
        "--mysql-db=sbtest_hammer".to_string(),
    ];
    let rt = rt();
    let conn = Mutex::new(Some(maria_conn(&rt, None)));
    sysbench_agrees("maria", "MariaDB", &args, |sql| {
        use mysql_async::prelude::Queryable;
        let mut c = conn.lock().unwrap();
        rt.block_on(c.as_mut().unwrap().query_drop(sql)).unwrap();
    });
    let c = conn.lock().unwrap().take().unwrap();
    rt.block_on(c.disconnect()).unwrap();
}

/// Where the schema database holds TPROC-C districts, each line carries NOPM: the test moves
/// `d_next_o_id` by a known amount and the NOPM figures add up to it.
#[test]
fn nopm_from_the_district_counters_on_mariadb() {
    let _turn = turn(&MARIA);
    let mut f = configured("maria");
    let db = format!("hammer_tc_nopm_{}", std::process::id());
    f.ok(&format!("diset tpcc maria_dbase {db}"));
    let rt = rt();
    let mut conn = maria_conn(&rt, None);
    use mysql_async::prelude::Queryable;
    rt.block_on(conn.query_drop(format!(
        "CREATE DATABASE {db}; CREATE TABLE {db}.district (d_id int, d_next_o_id int); \
         INSERT INTO {db}.district VALUES (1, 3001), (2, 3001)"
    )))
    .unwrap();
    let lines = f.ok("tcstart");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("with NOPM from the TPROC-C districts")),
        "{lines:#?}"
    );
    sleep(1.2);
    for _ in 0..40 {
        rt.block_on(conn.query_drop(format!(
            "BEGIN; UPDATE {db}.district SET d_next_o_id = d_next_o_id + 1 WHERE d_id = 1; COMMIT"
        )))
        .unwrap();
        sleep(0.05);
    }
    sleep(2.2);
    let (r, lines) = f.console("let t = tcstop(); let n = 0.0; for x in t.series { n += x.nopm * x.seconds / 60.0 } n.round()");
    rt.block_on(conn.query_drop(format!("DROP DATABASE {db}")))
        .unwrap();
    rt.block_on(conn.disconnect()).unwrap();
    let text = lines.join("\n");
    assert_eq!(r, Ok("40.0".to_string()), "{text}");
    assert!(lines.iter().any(|l| l.ends_with(" NOPM")), "{lines:#?}");
}

/// Alongside vurun: the counter goes on printing while vurun blocks the script, and counts
/// the virtual users' transactions.
#[test]
fn counts_alongside_vurun_on_mariadb() {
    let _turn = turn(&MARIA);
    let mut f = configured("maria");
    let db = format!("hammer_tc_vu_{}", std::process::id());
    let rt = rt();
    let mut conn = maria_conn(&rt, None);
    use mysql_async::prelude::Queryable;
    rt.block_on(conn.query_drop(format!(
        "CREATE DATABASE {db}; CREATE TABLE {db}.t (vu int) ENGINE=InnoDB"
    )))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("work.rhai");
    std::fs::write(
        &script,
        "DB.begin(); DB.execute(`insert into t values (${VUSER})`); DB.commit();",
    )
    .unwrap();
    f.ok(&format!(
        "diset tpcc maria_dbase {db}; customscript {}",
        script.display()
    ));
    f.ok("vuset vu 2; vuset iterations 100; vuset repeat 20; vuset delay 0; vuset showoutput 0");
    f.ok("tcstart");
    sleep(1.2);
    let (r, lines) = f.console("vurun()");
    assert!(r.is_ok(), "{r:?}\n{lines:#?}");
    // Counter lines came while vurun ran, before it said it was done.
    let done = lines
        .iter()
        .position(|l| l == "ALL VIRTUAL USERS COMPLETE")
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(
        !tpm_lines(&lines[..done], "MariaDB").is_empty(),
        "{lines:#?}"
    );
    sleep(2.2);
    let (total, series, lines) = tcstop(&mut f);
    println!("counted {total} of 200 transactions alongside vurun");
    rt.block_on(conn.query_drop(format!("DROP DATABASE {db}")))
        .unwrap();
    rt.block_on(conn.disconnect()).unwrap();
    // Two virtual users commit at most 100 a second together: one interval's worth.
    assert!(
        (total - 200).abs() <= 100,
        "counted {total} of 200: {series:?}\n{lines:#?}"
    );
}

/// Under `dbset bm TPC-H` the counter shows queries per hour as HammerDB's does, logged in with
/// the TPROC-H keys (the TPROC-C login is made unusable to show that it is not the one used):
/// the lines and the summary say qph, the series is per hour, and it counts at least the
/// queries the test ran.
fn counts_queries_per_hour(db: &str, rdbms: &str, run: impl Fn(usize)) {
    let s = Servers::get();
    let mut f = configured(db);
    f.ok("dbset bm TPC-H");
    if db == "pg" {
        f.ok(&format!(
            "diset tpcc pg_superuser hammer_no_such_user; diset tpch pg_tpch_superuser {}; diset tpch pg_tpch_superuserpass {}",
            s.pg_user, s.pg_pass
        ));
    } else {
        f.ok(&format!(
            "diset tpcc {db}_user hammer_no_such_user; diset tpch {db}_tpch_user {}; diset tpch {db}_tpch_pass {}",
            s.maria_user, s.maria_pass
        ));
    }
    let lines = f.ok("tcstart");
    assert!(
        lines.iter().any(
            |l| l.starts_with(&format!("Transaction Counter: counting {rdbms} at "))
                && l.ends_with(", in queries per hour (qph)")
        ),
        "{lines:#?}"
    );
    sleep(1.5);
    let n = 60;
    run(n);
    sleep(2.5);
    let (r, lines) = f.console(
        "let t = tcstop(); let ok = t.unit == \"qph\" && t.avg_qph == t.queries * 3600.0 / t.seconds; for x in t.series { ok = ok && x.qph == x.queries * 3600.0 / x.seconds; } `${ok};${t.queries}`",
    );
    let r = r.unwrap_or_else(|e| panic!("tcstop: {e}\n{lines:#?}"));
    let (ok, total) = r.split_once(';').unwrap();
    assert_eq!(ok, "true", "rates per hour: {lines:#?}");
    let total: i64 = total.parse().unwrap();
    println!("counted {total} queries of the {n} the test ran");
    assert!(total >= n as i64, "counted {total} of {n}: {lines:#?}");
    let qph: Vec<u64> = lines
        .iter()
        .filter_map(|l| l.strip_suffix(&format!(" {rdbms} qph")))
        .filter_map(|v| v.parse().ok())
        .collect();
    assert!(
        qph.iter().any(|v| *v > 0),
        "a non-zero qph line: {lines:#?}"
    );
    assert!(
        tpm_lines(&lines, rdbms).is_empty(),
        "no tpm lines: {lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("Transaction Counter: ")
            && l.contains(" samples over ")
            && l.ends_with(&format!(" {rdbms} qph"))),
        "the summary in qph: {lines:#?}"
    );
}

#[test]
fn counts_queries_per_hour_on_postgresql() {
    let _turn = turn(&PG);
    let rt = rt();
    let session = Mutex::new(Some(pg_client(&rt, "postgres")));
    counts_queries_per_hour("pg", "PostgreSQL", |n| {
        let Some((client, driver)) = session.lock().unwrap().take() else {
            return;
        };
        // Queries that read a table, as TPROC-H's do: PostgreSQL publishes a session's
        // counts when it has table statistics to publish (a bare SELECT 1 waits for the
        // session's end).
        for i in 0..n {
            rt.block_on(client.simple_query(&format!(
                "SELECT count(*) FROM pg_namespace WHERE oid > {i}"
            )))
            .unwrap();
            sleep(0.05);
        }
        // And at once when the session ends.
        drop(client);
        rt.block_on(driver).unwrap();
    });
}

#[test]
fn counts_queries_per_hour_on_mariadb() {
    let _turn = turn(&MARIA);
    let rt = rt();
    let conn = Mutex::new(Some(maria_conn(&rt, None)));
    counts_queries_per_hour("maria", "MariaDB", |n| {
        use mysql_async::prelude::Queryable;
        let mut c = conn.lock().unwrap();
        for i in 0..n {
            rt.block_on(c.as_mut().unwrap().query_drop(format!("SELECT {i}")))
                .unwrap();
            sleep(0.05);
        }
    });
    let c = conn.lock().unwrap().take().unwrap();
    rt.block_on(c.disconnect()).unwrap();
}

/// A statistics reset makes a counter go back without a restart: said, and never a rate.
#[test]
fn a_statistics_reset_is_said_not_counted() {
    let _turn = turn(&PG);
    let mut f = configured("pg");
    let rt = rt();
    let (client, driver) = pg_client(&rt, "postgres");
    f.ok("tcstart");
    sleep(1.5);
    rt.block_on(client.batch_execute("SELECT pg_stat_reset()"))
        .unwrap();
    drop(client);
    rt.block_on(driver).unwrap();
    sleep(2.5);
    let (_, series, lines) = tcstop(&mut f);
    let said: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("transaction counters went back (statistics reset)"))
        .collect();
    assert_eq!(said.len(), 1, "{lines:#?}");
    assert_eq!(
        tpm_lines(&lines, "PostgreSQL").len(),
        series.len(),
        "{lines:#?}"
    );
    assert!(series.iter().all(|s| s.2 < 1000.0), "{series:?}");
}

#[test]
fn bad_input_and_state_errors() {
    let mut f = configured("pg");
    for bad in ["0", "-1", "abc"] {
        let e = f.err(&format!("tcset refreshrate {bad}"));
        assert!(
            e.contains(&format!(
                "Value {bad} for transaction_counter:tc_refresh_rate is not valid"
            )) && e.contains("must be an integer from 1 to 59"),
            "{bad}: {e}"
        );
    }
    let e = f.err("tcstop");
    assert_eq!(e, "Transaction Counter is not running");
    assert_eq!(
        f.console("tcstatus()"),
        (
            Ok("false".to_string()),
            vec!["Transaction Counter is not running".to_string()]
        )
    );
    let _turn = turn(&PG);
    f.ok("tcstart");
    let e = f.err("tcstart");
    assert!(
        e.starts_with("Transaction Counter thread already running with threadid:"),
        "{e}"
    );
    let lines = f.ok("tcstatus");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Transaction Counter thread running with threadid:")),
        "{lines:#?}"
    );
    let lines = f.ok("tcset refreshrate 2");
    assert!(
        lines.contains(
            &"Transaction Counter is running: the change applies from the next tcstart".to_string()
        ),
        "{lines:#?}"
    );
    let lines = f.ok("tcstop");
    assert!(
        lines.contains(&"Stopping Transaction Counter".to_string()),
        "{lines:#?}"
    );
    // A server that does not answer: the counter does not start, and says why.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    f.ok(&format!("diset connection pg_port {port}"));
    let e = f.err("tcstart");
    assert!(
        e.starts_with("Transaction Counter Failed to Start:")
            && e.contains(&format!("127.0.0.1:{port}"))
            && e.contains("connection refused"),
        "{e}"
    );
    assert_eq!(
        f.console("tcstatus()"),
        (
            Ok("false".to_string()),
            vec!["Transaction Counter is not running".to_string()]
        )
    );
}

/// `tcset logtotemp 1`: the lines go to hdbtcount.log in the temporary directory too, with
/// timestamps when asked, and a unique name when asked.
#[test]
fn logs_to_the_temporary_directory() {
    let _turn = turn(&MARIA);
    let mut f = configured("maria");
    let tmp = tempfile::tempdir().unwrap();
    // The counter finds the temporary directory as HammerDB does: $TMP first.
    std::env::set_var("TMP", tmp.path());
    f.ok("tcset logtotemp 1; tcset timestamps 1; tcset unique 1");
    let lines = f.ok("tcstart");
    let logged = lines
        .iter()
        .find_map(|l| l.strip_prefix("Transaction Counter logging activated to "))
        .unwrap_or_else(|| panic!("{lines:#?}"))
        .to_string();
    assert!(
        logged.starts_with(&tmp.path().join("hdbtcount_").display().to_string())
            && logged.ends_with(".log"),
        "{logged}"
    );
    sleep(2.5);
    let lines = f.ok("tcstop");
    assert!(
        lines.contains(&"Closed Transaction Counter Log".to_string()),
        "{lines:#?}"
    );
    let text = std::fs::read_to_string(&logged).unwrap();
    let mut rows = text.lines();
    assert!(
        rows.next()
            .unwrap()
            .starts_with("hammer Transaction Counter Log @ "),
        "{text}"
    );
    rows.next();
    let samples: Vec<&str> = rows.collect();
    assert!(!samples.is_empty(), "{text}");
    for s in samples {
        let (line, at) = s
            .split_once(" MariaDB tpm @ ")
            .unwrap_or_else(|| panic!("{s}"));
        line.parse::<u64>().unwrap();
        assert_eq!(at.len(), "2025-04-14 17:09:41".len(), "{s}");
    }
}
