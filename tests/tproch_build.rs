//! TPROC-H's buildschema, checkschema and deleteschema end to end on the real servers, as a
//! user runs them: scale factor 0.01 with two loaders, dbgen's row counts and known rows; and
//! the bad input TPROC-H refuses.

mod common;

use common::{Fixture, Servers, TprochDb};

/// A session on `db` under TPROC-H at scale factor 0.01 with two loaders, in a database (and
/// PostgreSQL role) of the test's own; `dbset bm` answers as HammerDB does.
fn configured(db: &'static str, test: &str) -> (Fixture, TprochDb) {
    let (mut f, cleanup) = common::tproch_session(db, test);
    assert_eq!(
        f.ok("dbset bm TPC-H"),
        [format!(
            "Benchmark set to TPC-H for {}",
            match db {
                "pg" => "PostgreSQL",
                "maria" => "MariaDB",
                _ => "MySQL",
            }
        )]
    );
    (f, cleanup)
}

/// dbgen's rows at scale factor 0.01 (LINEITEM's is the generator's: 60,175, as the
/// specification's reference data has it).
const SF001: [(&str, i64); 8] = [
    ("region", 5),
    ("nation", 25),
    ("supplier", 100),
    ("customer", 1_500),
    ("part", 2_000),
    ("partsupp", 8_000),
    ("orders", 15_000),
    ("lineitem", 60_175),
];

fn build_check_delete(
    db: &'static str,
    count: impl Fn(&str, &str) -> i64,
    text_of: impl Fn(&str, &str) -> String,
) {
    let (mut f, cleanup) = configured(db, "bcd");
    let name = cleanup.name.clone();
    let (r, lines) =
        f.console("let b = buildschema(); [b.ok, b.scale_fact, b.rows, b.bytes_on_disk > 0]");
    let text = lines.join("\n");
    let total: i64 = SF001.iter().map(|(_, n)| n).sum();
    assert_eq!(r, Ok(format!("[true, 0.01, {total}, true]")), "{text}");
    assert!(
        text.contains("Building Scale Factor 0.01 with 3 Virtual Users, 2 active + 1 Monitor VU"),
        "{text}"
    );
    assert!(
        text.contains("Vuser 3:Loading LINEITEM part 2 of 2"),
        "{text}"
    );
    assert!(text.contains("ALL VIRTUAL USERS COMPLETE"), "{text}");
    assert!(
        text.contains(&format!(
            "TPROC-H schema built: scale factor 0.01, {total} rows in "
        )),
        "{text}"
    );
    // The job records the workload and its loaders, and no warehouses (it has none).
    let out = common::hammer(f.home.path(), &["jobs", "--json", "list"], "");
    let listed = common::text(&out.stdout);
    let list: serde_json::Value = serde_json::from_str(&listed).expect(&listed);
    let job = list
        .as_array()
        .and_then(|jobs| jobs.iter().find(|j| j["kind"] == "build"))
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(job["status"], "SUCCESS", "{listed}");
    assert_eq!(job["vus"], 2, "{listed}");
    assert!(job["warehouses"].is_null(), "{listed}");
    assert!(listed.contains("TPROC-H"), "{listed}");
    for (table, n) in SF001 {
        assert_eq!(
            count(&name, &format!("SELECT count(*) FROM {table}")),
            n,
            "{table}"
        );
    }
    // Known rows of dbgen's output.
    assert_eq!(
        text_of(&name, "SELECT n_name FROM nation WHERE n_nationkey = 0").trim(),
        "ALGERIA"
    );
    assert_eq!(
        text_of(&name, "SELECT r_name FROM region WHERE r_regionkey = 4").trim(),
        "MIDDLE EAST"
    );
    assert_eq!(
        text_of(&name, "SELECT c_name FROM customer WHERE c_custkey = 1500"),
        "Customer#000001500"
    );
    assert_eq!(count(&name, "SELECT max(l_linenumber) FROM lineitem"), 7);

    let (r, lines) = f.console("let c = checkschema(); [c.ok, c.failed]");
    let text = lines.join("\n");
    assert_eq!(r, Ok("[true, 0]".to_string()), "{text}");
    assert!(
        text.contains("Vuser 1:PASS table lineitem rows: 60175"),
        "{text}"
    );
    assert!(
        text.contains("Vuser 1:PASS table partsupp primary key: (ps_partkey, ps_suppkey)"),
        "{text}"
    );
    assert!(
        text.contains("TPROC-H Schema of Scale Factor 0.01 has been checked successfully."),
        "{text}"
    );
    assert!(
        text.contains("Vuser 1:PASS table lineitem indexes: lineitem_fk1"),
        "{text}"
    );
    for invariant in [
        "every order has line items",
        "no order has more than 7 line items",
        "every part has 4 suppliers in partsupp",
        "every line item's part and supplier are in partsupp",
        "every line item ships after its order date",
    ] {
        assert!(
            text.contains(&format!("Vuser 1:PASS invariant: {invariant}: holds")),
            "{invariant}:\n{text}"
        );
    }

    // A line item shipped before its order was placed breaks an invariant, not a count.
    let servers = Servers::get();
    let sql =
        "UPDATE lineitem SET l_shipdate = '1990-01-01' WHERE l_orderkey = 1 AND l_linenumber = 1";
    if db == "pg" {
        servers.pg_exec(&name, sql);
    } else {
        servers.maria_exec(&name, &[sql]);
    }
    let (r, lines) = f.console("checkschema().failed");
    let text = lines.join("\n");
    assert!(r.is_err(), "{text}");
    assert!(
        text.contains(
            "FAIL invariant: every line item ships after its order date: 1 rows break it"
        ),
        "{text}"
    );

    // A missing index fails the check, naming it (PostgreSQL: MariaDB keeps an index its
    // foreign key needs).
    if db == "pg" {
        servers.pg_exec(&name, "DROP INDEX orders_fk1");
        let (r, lines) = f.console("checkschema().failed");
        let text = lines.join("\n");
        assert!(r.is_err(), "{text}");
        assert!(
            text.contains("FAIL table orders indexes: orders_fk1 missing"),
            "{text}"
        );
    }

    // Checked against another scale factor, the counts disagree and say so.
    f.ok(&format!("diset tpch {db}_scale_fact 0.1"));
    let (r, lines) = f.console("checkschema().failed");
    let text = lines.join("\n");
    assert!(r.is_err(), "{text}");
    assert!(
        text.contains(
            "FAIL table orders rows: 15000 found, the generator makes 150000 at scale factor 0.1"
        ),
        "{text}"
    );
    f.ok(&format!("diset tpch {db}_scale_fact 0.01"));

    // A second build never drops data unasked.
    let e = f.err("buildschema");
    assert!(e.contains("deleteschema"), "{e}");

    let lines = f.ok("deleteschema");
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("{name} TPROC-H")) && l.contains("deleted successfully")),
        "{lines:#?}"
    );
    let (r, lines) = f.console("checkschema().ok");
    assert!(r.is_err(), "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("FAIL database {name}: does not exist"))),
        "{lines:#?}"
    );
}

#[test]
fn postgresql_builds_checks_and_deletes_scale_factor_001() {
    let servers = Servers::get();
    build_check_delete(
        "pg",
        |db, sql| servers.pg_i64(db, &format!("SELECT ({sql})::bigint")),
        |db, sql| {
            let (rt, conn) = servers.pg(db);
            rt.block_on(async {
                let v: String = conn
                    .client
                    .query_one(&format!("SELECT ({sql})::text"), &[])
                    .await
                    .expect(sql)
                    .get(0);
                conn.close().await;
                v
            })
        },
    );
}

#[test]
fn bad_tproch_input_is_refused_with_the_way_out() {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok("dbset bm TPROC-H");
    let e = f.err("diset tpch pg_scale_fact 2");
    assert!(
        e.contains("Value 2 for tpch:pg_scale_fact is not valid")
            && e.contains("1|10|30|100|300|1000|3000|10000|30000|100000|0.01|0.1"),
        "{e}"
    );
    let e = f.err("diset tpch pg_num_tpch_threads 0");
    assert!(
        e.contains("Value 0 for tpch:pg_num_tpch_threads is not valid"),
        "{e}"
    );
    // Data generation takes TPROC-H's scale factors too (`dgset scale_fact`).
    let e = f.err("dgset scale_fact 2");
    assert!(
        e.contains("Value 2 for datageneration:gen_scale_fact is not valid"),
        "{e}"
    );
    assert_eq!(
        f.ok("dgset scale_fact 0.01"),
        ["Set scale factor to 0.01 for data generation"]
    );
    // Its writers take dbgen's parts, not warehouses: more of them than warehouses is fine.
    assert_eq!(
        f.ok("dgset vu 4"),
        ["Set virtual users to 4 for data generation"]
    );
}

/// The first value of the one row `sql` returns on the test MariaDB's database `db`.
fn maria_value<T: mysql_async::prelude::FromValue + Send + 'static>(
    servers: &Servers,
    db: &str,
    sql: &str,
) -> T {
    use mysql_async::prelude::Queryable;
    let (rt, mut conn) = servers.maria_on(servers.maria_port, Some(db));
    rt.block_on(async {
        let v: Option<T> = conn.query_first(sql).await.expect(sql);
        let _ = conn.disconnect().await;
        v.expect(sql)
    })
}

#[test]
fn mariadb_builds_checks_and_deletes_scale_factor_001() {
    let servers = Servers::get();
    build_check_delete(
        "maria",
        |db, sql| maria_value::<i64>(&servers, db, sql),
        |db, sql| maria_value::<String>(&servers, db, sql),
    );
}

/// The MySQL dialect, against the test MariaDB through the `mysql_*` dictionary over TCP (as
/// the engine battery runs it).
#[test]
fn mysql_dialect_builds_checks_and_deletes_scale_factor_001() {
    let servers = Servers::get();
    build_check_delete(
        "mysql",
        |db, sql| maria_value::<i64>(&servers, db, sql),
        |db, sql| maria_value::<String>(&servers, db, sql),
    );
}
