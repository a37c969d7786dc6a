//! `deleteschema` on the real servers drops only what is the chosen workload's: its first line
//! says what it drops; a database of TPROC-H's tables, or of tables nobody's workload made,
//! is refused with nothing dropped; a partly built schema and a missing database still go.

mod common;

use common::{Fixture, Servers, TprochDb};

const TPROCH_TABLES: [&str; 8] = [
    "region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem",
];

/// A session on `db` whose TPROC-C and TPROC-H schemas both live in database `name` (a
/// test's own), with the logins of the test servers.
fn session(db: &str, name: &str) -> Fixture {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    f.ok(&format!("dbset db {db}"));
    if db == "pg" {
        f.ok(&format!(
            "diset tpch pg_tpch_superuser {u}; diset tpch pg_tpch_superuserpass {p}",
            u = servers.pg_user,
            p = servers.pg_pass
        ));
        f.ok(&format!(
            "diset tpcc pg_user {name}; diset tpch pg_tpch_user {name}"
        ));
    } else {
        f.ok(&format!(
            "diset tpch {db}_tpch_user {}; diset tpch {db}_tpch_pass {}",
            servers.maria_user, servers.maria_pass
        ));
    }
    f.ok(&format!(
        "diset tpcc {db}_dbase {name}; diset tpch {db}_tpch_dbase {name}"
    ));
    f
}

/// Creates database `name` holding empty tables called `tables`.
fn database_with(db: &str, name: &str, tables: &[&str]) {
    let servers = Servers::get();
    if db == "pg" {
        servers.pg_exec("postgres", &format!("CREATE DATABASE {name}"));
        let sql: Vec<String> = tables
            .iter()
            .map(|t| format!("CREATE TABLE {t} (id int);"))
            .collect();
        if !sql.is_empty() {
            servers.pg_exec(name, &sql.join("\n"));
        }
    } else {
        servers.maria_exec("mysql", &[&format!("CREATE DATABASE {name}")]);
        let sql: Vec<String> = tables
            .iter()
            .map(|t| format!("CREATE TABLE {t} (id int)"))
            .collect();
        let sql: Vec<&str> = sql.iter().map(String::as_str).collect();
        servers.maria_exec(name, &sql);
    }
}

fn exists(db: &str, name: &str) -> bool {
    let servers = Servers::get();
    let n = if db == "pg" {
        servers.pg_i64(
            "postgres",
            &format!("SELECT count(*) FROM pg_database WHERE datname = '{name}'"),
        )
    } else {
        servers.maria_i64(
            "mysql",
            &format!(
                "SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '{name}'"
            ),
        )
    };
    n == 1
}

fn server_of(db: &str) -> String {
    let s = Servers::get();
    match db {
        "pg" => format!("PostgreSQL at {}:{}", s.pg_host, s.pg_port),
        // `configure` points MariaDB at its socket.
        _ => format!("MariaDB at {}", s.maria_socket),
    }
}

/// A TPROC-H schema is refused by a TPROC-C deleteschema, and the refusal's way out works.
fn tproch_tables_are_not_tproc_cs(db: &'static str) {
    let name = format!("hammer_dg_tph_{db}_{}", std::process::id());
    let _cleanup = TprochDb {
        db,
        name: name.clone(),
    };
    database_with(db, &name, &TPROCH_TABLES);
    let mut f = session(db, &name);
    f.ok("dbset bm TPROC-C");
    let e = f.err("deleteschema");
    assert!(
        e.contains(&format!(
            "FAILED: deleteschema refused, nothing dropped: database {name} on {} holds 8 \
             tables (customer, lineitem, nation, orders, part, partsupp, region, supplier), none \
             of them TPROC-C's own; they are TPROC-H's: to delete that schema, dbset bm TPROC-H \
             then deleteschema; to delete a TPROC-C schema, set its database with diset tpcc \
             {db}_dbase",
            server_of(db)
        )),
        "{e}"
    );
    assert!(exists(db, &name), "{db}: {name} was dropped");
    // The way out it names.
    f.ok("dbset bm TPROC-H");
    let lines = f.ok("deleteschema");
    assert!(
        lines[0].starts_with(&format!(
            "Deleting schema with 1 Virtual User: TPROC-H database {name} with "
        )) && lines[0].contains(&format!(
            " on {}: 8 tables (customer, lineitem, nation, orders, part, partsupp, region, \
             supplier), ",
            server_of(db)
        )) && lines[0].ends_with(" MB"),
        "{lines:#?}"
    );
    assert!(!exists(db, &name), "{db}: {name} was not dropped");
}

/// A database of tables no workload made is refused, whatever the workload.
fn other_tables_are_refused(db: &'static str) {
    let name = format!("hammer_dg_app_{db}_{}", std::process::id());
    let _cleanup = TprochDb {
        db,
        name: name.clone(),
    };
    database_with(db, &name, &["accounts", "invoices"]);
    let mut f = session(db, &name);
    for bm in ["TPROC-C", "TPROC-H"] {
        f.ok(&format!("dbset bm {bm}"));
        let e = f.err("deleteschema");
        assert!(
            e.contains(&format!(
                "deleteschema refused, nothing dropped: database {name} on {} holds 2 tables \
                 (accounts, invoices), none of them {bm}'s own; hammer did not make them: drop \
                 the database yourself if it is to go",
                server_of(db)
            )),
            "{e}"
        );
        assert!(exists(db, &name), "{db}: {name} was dropped under {bm}");
    }
    // The job records the refusal.
    let listed = f.ok("jobs");
    assert!(listed.iter().any(|l| l.contains("FAILED")), "{listed:#?}");
}

/// A partly built TPROC-C schema goes, and so does an empty database; a missing one is
/// nothing to delete and no failure.
fn partial_and_empty_schemas_go(db: &'static str) {
    let name = format!("hammer_dg_part_{db}_{}", std::process::id());
    let _cleanup = TprochDb {
        db,
        name: name.clone(),
    };
    database_with(db, &name, &["warehouse", "district", "customer"]);
    let mut f = session(db, &name);
    f.ok("dbset bm TPROC-C");
    let lines = f.ok("deleteschema");
    assert!(
        lines[0].contains(&format!(
            "TPROC-C database {name} with {} on {}: 3 tables (customer, district, warehouse), ",
            if db == "pg" {
                format!("no role {name}")
            } else {
                format!("user {} (kept)", Servers::get().maria_user)
            },
            server_of(db)
        )),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("has been deleted successfully")),
        "{lines:#?}"
    );
    assert!(!exists(db, &name));
    let lines = f.ok("deleteschema");
    assert!(lines[0].ends_with(", which does not exist"), "{lines:#?}");
    assert!(
        lines.iter().any(|l| l.contains("nothing to delete")),
        "{lines:#?}"
    );
    database_with(db, &name, &[]);
    let lines = f.ok("deleteschema");
    assert!(lines[0].contains(": no tables, "), "{lines:#?}");
    assert!(!exists(db, &name));
}

#[test]
fn pg_tproch_schema_is_not_deleted_as_tproc_c() {
    tproch_tables_are_not_tproc_cs("pg");
}

#[test]
fn maria_tproch_schema_is_not_deleted_as_tproc_c() {
    tproch_tables_are_not_tproc_cs("maria");
}

#[test]
fn pg_database_of_other_tables_is_refused() {
    other_tables_are_refused("pg");
}

#[test]
fn maria_database_of_other_tables_is_refused() {
    other_tables_are_refused("maria");
}

#[test]
fn pg_partial_and_empty_schemas_are_deleted() {
    partial_and_empty_schemas_go("pg");
}

#[test]
fn maria_partial_and_empty_schemas_are_deleted() {
    partial_and_empty_schemas_go("maria");
}
