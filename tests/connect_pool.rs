//! HammerDB's connect pool on the real PostgreSQL: named connections set with `cpset`, each
//! transaction type sent to them by its policy, the connections every terminal opens seen
//! mid-run, where each type went in the result, and the `CLIENT SIDE TPM` cross-check, also
//! in the job's record.

mod common;

use std::thread;
use std::time::Duration;

use common::{Fixture, Servers};

/// `neworder 12, payment 30` after `prefix: ` in the line that starts with `prefix`.
fn counts(text: &str, prefix: &str) -> Vec<(String, u64)> {
    let line = text
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix}\n{text}"));
    let (_, list) = line.rsplit_once(": ").expect("a list after ': '");
    list.split(", ")
        .map(|item| {
            let (name, n) = item.rsplit_once(' ').expect("name count");
            (name.to_string(), n.parse().expect("a count"))
        })
        .collect()
}

fn count_of(list: &[(String, u64)], name: &str) -> u64 {
    list.iter().find(|(n, _)| n == name).map_or(0, |(_, c)| *c)
}

#[test]
fn each_transaction_goes_where_its_policy_sends_it() {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let unique = format!("hammer_cpool_{}", std::process::id());
    f.ok(&format!(
        "dbset db pg; diset tpcc pg_dbase {unique}; diset tpcc pg_user {unique}; \
         diset tpcc pg_count_ware 1; diset tpcc pg_num_vu 1"
    ));
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));

    // Connect-pool mode with an empty pool is refused, saying how to fill it.
    f.ok("diset tpcc pg_connect_pool true; diset tpcc pg_rampup 0; diset tpcc pg_duration 0.25");
    f.ok("vuset vu 2; vuset delay 0");
    let e = f.err("vurun()");
    assert!(e.contains("connect pool") && e.contains("cpset"), "{e}");

    // One server by two names; the pool's connections are told apart by them.
    let lines = f.ok(&format!(
        r#"cpset("c1", "pg_host", "{h}"); cpset("c2", "pg_host", "localhost");
           cpset("c2", "pg_port", "{p}");
           cpset("neworder", "connections", "c1 c2"); cpset("neworder", "policy", "round_robin");
           cpset("payment", "connections", "c1,c2"); cpset("payment", "policy", "first_named");
           cpset("delivery", "connections", "c1 c2"); cpset("delivery", "policy", "last_named");
           cpset("stocklevel", "connections", "c1 c2"); cpset("stocklevel", "policy", "random");
           cpset("orderstatus", "policy", "fastest")"#,
        h = servers.pg_host,
        p = servers.pg_port
    ));
    let said = lines.join("\n");
    assert!(
        said.contains("Connect pool: neworder goes to c1 c2")
            && said.contains("Warning: connect pool policy 'fastest' of orderstatus"),
        "{said}"
    );
    let e = f.err(r#"cpset("c3", "pg_port", "70000")"#);
    assert!(e.contains("70000") && e.contains("Usage: cpset"), "{e}");
    let (shown, lines) = f.console(r#"print("connectpool")"#);
    let shown = format!(
        "{}\n{}",
        shown.expect("print connectpool"),
        lines.join("\n")
    );
    assert!(
        shown.contains(" c2 { pg_host = localhost, pg_port = ")
            && shown.contains(
                " orderstatus = connections (the terminal's own connection), policy first_named"
            ),
        "{shown}"
    );

    let user = unique.clone();
    let prober = thread::spawn(move || {
        thread::sleep(Duration::from_secs(7));
        Servers::get().pg_i64(
            "postgres",
            &format!("SELECT count(*) FROM pg_stat_activity WHERE usename = '{user}'"),
        )
    });
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    let id = r.unwrap_or_else(|e| panic!("{e}\n{text}"));
    let sessions = prober.join().expect("the probe ends");
    // Each of the two terminals opens its own connection, c1 and c2; the monitor one more.
    assert_eq!(sessions, 7, "{text}");

    let c1 = counts(
        &text,
        &format!(
            "Connect pool connection c1 on {}:{} (2 terminals)",
            servers.pg_host, servers.pg_port
        ),
    );
    let c2 = counts(
        &text,
        &format!(
            "Connect pool connection c2 on localhost:{} (2 terminals)",
            servers.pg_port
        ),
    );
    let own = counts(&text, "Connect pool the terminals' own connections");
    // first_named: payment all on c1; last_named: delivery all on c2; the unlisted
    // orderstatus on the terminals' own connections.
    assert!(
        count_of(&c1, "payment") > 0 && count_of(&c2, "payment") == 0,
        "{text}"
    );
    assert!(
        count_of(&c2, "delivery") > 0 && count_of(&c1, "delivery") == 0,
        "{text}"
    );
    assert!(count_of(&own, "orderstatus") > 0, "{text}");
    assert_eq!(own.len(), 1, "{text}");
    // round_robin: each terminal alternates, so the two differ by at most one a terminal.
    let (n1, n2) = (count_of(&c1, "neworder"), count_of(&c2, "neworder"));
    assert!(n1 > 0 && n1.abs_diff(n2) <= 2, "{n1} {n2}\n{text}");
    // random: both get some.
    assert!(
        count_of(&c1, "stocklevel") > 0 && count_of(&c2, "stocklevel") > 0,
        "{text}"
    );

    // The cross-check: each type's completed transactions over the run's minutes.
    let line = text
        .lines()
        .find(|l| l.starts_with("CLIENT SIDE TPM : neworder "))
        .unwrap_or_else(|| panic!("no CLIENT SIDE TPM line\n{text}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        [words[4], words[6], words[8], words[10], words[12]],
        [
            "neworder",
            "payment",
            "delivery",
            "stocklevel",
            "orderstatus"
        ],
        "{line}"
    );
    let tpm: f64 = words[5].parse().expect("a rate");
    let (measured, _) = f.console("lastrun().seconds");
    let minutes: f64 = measured.unwrap().parse::<f64>().unwrap() / 60.0;
    let expected = (n1 + n2) as f64 / minutes;
    assert!(
        (tpm - expected).abs() <= expected * 0.05 + 1.0,
        "{tpm} against {expected}\n{text}"
    );
    let (value, _) = f.console("lastrun().client_tpm.neworder");
    assert!(value.is_ok(), "{value:?}");
    // The job keeps the line with the run's output.
    let (output, _) = f.console(&format!("jobs(\"{id}\", \"output\")"));
    let output = output.expect("the job's output");
    assert!(output.contains("CLIENT SIDE TPM : neworder "), "{output}");

    f.ok("vudestroy(); cpclear(); diset tpcc pg_connect_pool false; deleteschema()");
}
