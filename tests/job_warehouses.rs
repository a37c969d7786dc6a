//! A run's job records the warehouses of the schema the run used, counted as it starts, not
//! `count_ware` (the build's setting): a one-warehouse schema run with `count_ware` 5 runs,
//! warns once, and its job says 1, on PostgreSQL and on MariaDB.

mod common;

use common::{hammer, text, Fixture, Servers};

fn job_id(lines: &[String]) -> String {
    lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("Benchmark Run jobid="))
        .unwrap_or_else(|| panic!("no run job line:\n{}", lines.join("\n")))
        .to_string()
}

/// The job's warehouses as `hammer jobs --json ID` shows them.
fn recorded_warehouses(f: &Fixture, id: &str) -> serde_json::Value {
    let out = hammer(f.home.path(), &["jobs", "--json", id], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let job: serde_json::Value = serde_json::from_str(&stdout).expect("the job as JSON");
    let warehouses = &job["warehouses"];
    assert!(!warehouses.is_null(), "no warehouses in {job:#}");
    warehouses.clone()
}

fn job_records_the_schemas_warehouses(db: &str) {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let name = format!("hammer_jw_{db}_{}", std::process::id());
    f.ok(&format!(
        "dbset db {db}; dbset bm TPROC-C; diset tpcc {db}_dbase {name}; \
         diset tpcc {db}_count_ware 1; diset tpcc {db}_num_vu 1"
    ));
    if db == "pg" {
        f.ok(&format!("diset tpcc pg_user {name}"));
    }
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    f.ok(&format!(
        "diset tpcc {db}_driver timed; diset tpcc {db}_rampup 0; diset tpcc {db}_duration 0.05; \
         vuset vu 1; vuset delay 0"
    ));

    // The build's setting says 5; the schema holds 1: the run uses 1, says so once, records 1.
    f.ok(&format!("diset tpcc {db}_count_ware 5"));
    let (r, lines) = f.console("vurun()");
    let all = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{all}");
    let warning = format!(
        "Warning: {db}_count_ware is 5 but the schema {name} holds 1 warehouse: the run uses 1, \
         and its job records 1"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("_count_ware is"))
            .count(),
        1,
        "{all}"
    );
    assert!(lines.contains(&warning), "{all}");
    let id = job_id(&lines);
    assert_eq!(recorded_warehouses(&f, &id), 1, "{all}");
    f.ok("vudestroy");

    // The same number: no warning.
    f.ok(&format!("diset tpcc {db}_count_ware 1"));
    let (r, lines) = f.console("vurun()");
    let all = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{all}");
    assert!(!all.contains("_count_ware is"), "{all}");
    assert_eq!(recorded_warehouses(&f, &job_id(&lines)), 1, "{all}");
    f.ok("vudestroy");

    let lines = f.ok("deleteschema");
    assert!(
        lines.iter().any(|l| l.contains("deleted successfully")),
        "{lines:#?}"
    );
}

#[test]
fn pg_job_records_the_schemas_warehouses() {
    job_records_the_schemas_warehouses("pg");
}

#[test]
fn maria_job_records_the_schemas_warehouses() {
    job_records_the_schemas_warehouses("maria");
}
