//! What a new user meets in the first hour of a session: `dbset` takes the names users type
//! for databases and workloads, a change of either drops the script loaded for the old one
//! and its virtual users, and a schema command refused for virtual users names the way out.

mod common;

use common::{hammer, text, Fixture, Servers};

#[test]
fn dbset_db_takes_the_names_users_type() {
    let mut f = Fixture::new();
    for (typed, name) in [
        ("postgres", "PostgreSQL"),
        ("postgresql", "PostgreSQL"),
        ("PostgreSQL", "PostgreSQL"),
        ("PGSQL", "PostgreSQL"),
        ("mariadb", "MariaDB"),
        ("MariaDB", "MariaDB"),
        ("MySQL", "MySQL"),
        ("pg", "PostgreSQL"),
    ] {
        assert_eq!(
            f.ok(&format!("dbset db {typed}")),
            [format!("Database set to {name}")],
            "{typed}"
        );
        assert_eq!(f.ok("print db")[0], format!("Database {name} set."));
    }
    // Near misses are answered with the prefix they are near.
    for (typed, near) in [
        ("postgress", "pg (PostgreSQL)"),
        ("postgre-sql", "pg (PostgreSQL)"),
        ("maraidb", "maria (MariaDB)"),
        ("mysq", "mysql (MySQL)"),
        ("pq", "pg (PostgreSQL)"),
    ] {
        let e = f.err(&format!("dbset db {typed}"));
        assert_eq!(
            e,
            format!("Unknown prefix {typed}, did you mean {near}? choose one from pg maria mysql crdb yb tidb"),
        );
    }
    // Far from every name: no guess.
    for typed in ["sqlite", "my", "informix"] {
        let e = f.err(&format!("dbset db {typed}"));
        assert_eq!(
            e,
            format!("Unknown prefix {typed}, choose one from pg maria mysql crdb yb tidb")
        );
    }
    // The names of databases hammer does not support are told as such.
    for (typed, said) in [
        ("oracle", "Oracle (ora)"),
        ("mssql", "MSSQLServer (mssqls)"),
        ("SQLServer", "MSSQLServer (mssqls)"),
    ] {
        let e = f.err(&format!("dbset db {typed}"));
        assert!(e.starts_with(&format!("{said} is not supported")), "{e}");
    }
    // A refused name changes nothing.
    assert_eq!(f.ok("print db")[0], "Database PostgreSQL set.");
}

#[test]
fn dbset_bm_takes_the_names_users_type() {
    let mut f = Fixture::new();
    for (typed, said, stored) in [
        ("tpch", "TPROC-H", "TPC-H"),
        ("TPC-C", "TPC-C", "TPC-C"),
        ("TPROC-H", "TPROC-H", "TPC-H"),
        ("tpcc", "TPROC-C", "TPC-C"),
        ("tproc_h", "TPROC-H", "TPC-H"),
        ("TPCC", "TPROC-C", "TPC-C"),
        ("tpc-h", "TPC-H", "TPC-H"),
        ("tproc-c", "TPROC-C", "TPC-C"),
    ] {
        assert_eq!(
            f.ok(&format!("dbset bm {typed}")),
            [format!("Benchmark set to {said} for PostgreSQL")],
            "{typed}"
        );
        assert_eq!(f.ok("print bm"), [format!("Benchmark set to {stored}")]);
    }
    let e = f.err("dbset bm TPCCC");
    assert!(
        e.contains("Unknown benchmark TPCCC, did you mean TPROC-C?"),
        "{e}"
    );
    let e = f.err("dbset bm tproc-hh");
    assert!(e.contains("did you mean TPROC-H?"), "{e}");
    let e = f.err("dbset bm TPC-E");
    assert!(!e.contains("did you mean"), "{e}");
    assert!(e.contains("choose one from TPROC-C TPROC-H OLTP"), "{e}");
    assert_eq!(f.ok("print bm"), ["Benchmark set to TPC-C"]);
}

#[test]
fn schema_commands_with_virtual_users_name_vudestroy() {
    let mut f = Fixture::new();
    f.ok("vucreate");
    for (cmd, what) in [
        ("buildschema", "build schema"),
        ("checkschema", "check schema"),
        ("deleteschema", "delete schema"),
        ("datagenrun", "generate data"),
    ] {
        let e = f.err(cmd);
        assert_eq!(
            e,
            format!("Error: Cannot {what} with Virtual Users active, destroy Virtual Users first with vudestroy"),
        );
    }
    // The way out it names works, and the refusal is gone (no server: the build starts and
    // fails on the connection, not on virtual users).
    assert_eq!(f.ok("vudestroy"), ["vudestroy success"]);
    f.ok("diset connection pg_port 1");
    let e = f.err("buildschema");
    assert!(!e.contains("Virtual Users"), "{e}");
}

#[test]
fn a_changed_workload_or_database_drops_the_loaded_script_and_its_virtual_users() {
    let mut f = Fixture::new();
    f.ok("dbset bm TPROC-H; vuset vu 3; loadscript; vucreate");
    assert_eq!(f.ok("print vucreated"), ["3 Virtual Users created"]);
    // The same workload again is no change: nothing goes.
    assert_eq!(
        f.ok("dbset bm TPC-H"),
        ["Benchmark set to TPC-H for PostgreSQL"]
    );
    assert_eq!(f.ok("print vucreated"), ["3 Virtual Users created"]);
    assert_eq!(
        f.ok("dbset bm TPC-C"),
        [
            "Benchmark set to TPC-C for PostgreSQL",
            "Loaded TPROC-H script cleared and 3 virtual users destroyed: the workload changed \
             to TPROC-C; run loadscript again"
        ]
    );
    assert_eq!(f.ok("print vucreated"), ["0 Virtual Users created"]);
    assert!(f.ok("print script").join("\n").contains("No Script loaded"));
    assert_eq!(f.err("vudestroy"), "No Virtual Users found to destroy");
    // Nothing loaded, nothing created: nothing to say.
    assert_eq!(
        f.ok("dbset bm TPC-H"),
        ["Benchmark set to TPC-H for PostgreSQL"]
    );

    // The database: a loaded TPROC-C script without virtual users.
    f.ok("dbset bm TPC-C; loadscript");
    assert_eq!(f.ok("dbset db pg"), ["Database set to PostgreSQL"]);
    assert_eq!(
        f.ok("dbset db mariadb"),
        [
            "Database set to MariaDB",
            "Loaded TPROC-C script cleared: the database changed to MariaDB; run loadscript again"
        ]
    );
    let script = f.ok("loadscript; print script").join("\n");
    assert!(script.contains("database            = MariaDB"), "{script}");
    // Virtual users created for a custom script go; the custom script stays.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mine.rhai");
    std::fs::write(&path, "print(\"hello\");\n").unwrap();
    f.ok(&format!("customscript {}", path.display()));
    f.ok("vucreate");
    assert_eq!(
        f.ok("dbset db pg"),
        [
            "Database set to PostgreSQL",
            "3 virtual users destroyed: the database changed to PostgreSQL; run vucreate again \
             for the custom script, or loadscript"
        ]
    );
    assert!(f.ok("print script").join("\n").contains("mine.rhai"));
    // giset on the benchmark's keys is dbset by another name.
    f.ok("loadscript");
    let lines = f.ok("giset benchmark bm TPC-H");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("Loaded TPROC-C script cleared: the workload changed to TPC-H; run loadscript again"),
        "{lines:#?}"
    );
}

/// The trap as a user met it, typed at the console (fed by a pipe): a TPROC-H script loaded,
/// then the workload changed to TPROC-C, then `vurun`. It runs TPROC-C: on a database without
/// a schema, the run says that it holds no TPROC-C schema.
#[test]
fn console_vurun_after_a_workload_change_runs_the_new_workload() {
    let servers = Servers::get();
    servers.require();
    let home = tempfile::tempdir().unwrap();
    let input = format!(
        "{}\ndbset db pg\n\
         diset tpcc pg_user {u}\ndiset tpcc pg_pass {p}\ndiset tpcc pg_dbase postgres\n\
         diset tpch pg_tpch_user {u}\ndiset tpch pg_tpch_pass {p}\ndiset tpch pg_tpch_dbase postgres\n\
         dbset bm TPROC-H\nloadscript\nvucreate\ndbset bm TPC-C\nvurun\n",
        servers
            .configure()
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n"),
        u = servers.pg_user,
        p = servers.pg_pass,
    );
    let out = hammer(home.path(), &[], &input);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    let all = format!("{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "Loaded TPROC-H script cleared and 1 virtual user destroyed: the workload changed \
             to TPROC-C; run loadscript again"
        ),
        "{all}"
    );
    assert!(
        stderr.contains("Database postgres holds no TPROC-C schema"),
        "{all}"
    );
    assert!(!all.contains("TPROC-H schema"), "{all}");
}
