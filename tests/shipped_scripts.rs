//! The shipped scripts run as a user runs them: `hammer auto scripts/<db>/tprocc/...` builds,
//! checks and deletes a one-warehouse schema on each database; `scripts/<db>/oltp/...` builds,
//! checks and deletes sysbench's tables; `scripts/<db>/monitor/...` watches each database with
//! the transaction counter and CPU metrics. Passwords (and OLTP's database) come from the
//! environment variables the scripts read, so the scripts keep HammerDB's (and sysbench's)
//! defaults. Each script sets its database and its workload before it touches a schema or runs.

mod common;

use common::{text, Servers};

fn run(home: &std::path::Path, script: &str, args: &[&str], servers: &Servers) -> (bool, String) {
    run_with(home, script, args, servers, &[])
}

fn run_with(
    home: &std::path::Path,
    script: &str,
    args: &[&str],
    servers: &Servers,
    env: &[(&str, &str)],
) -> (bool, String) {
    let path = format!("{}/scripts/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hammer"))
        .arg("auto")
        .arg(&path)
        .args(args)
        .envs(env.iter().copied())
        .env("HAMMER_HOME", home)
        .env("HAMMER_PG_SUPERUSERPASS", &servers.pg_pass)
        .env("HAMMER_MARIA_PASS", &servers.maria_pass)
        .env("HAMMER_MYSQL_PASS", &servers.maria_pass)
        .output()
        .expect("hammer runs");
    (
        out.status.success(),
        format!("{}{}", text(&out.stdout), text(&out.stderr)),
    )
}

/// The commands that act on the database and workload the settings chose.
const ACTING: [&str; 11] = [
    "buildschema(",
    "checkschema(",
    "deleteschema(",
    "datagenrun(",
    "loadscript(",
    "vucreate(",
    "vurun(",
    "tcstart(",
    "metstart(",
    "librarycheck(",
    "print(\"dict\")",
];

/// The workloads a script may choose.
const WORKLOADS: [&str; 3] = ["TPROC-C", "TPROC-H", "OLTP"];

/// Settings persist between sessions: a TPROC-C delete script that set only the database
/// deleted the TPROC-H schema an earlier session had chosen. Every script under
/// `scripts/<db>/{tprocc,tproch,monitor,oltp}` sets its database and its workload (of its
/// folder; the monitor's counter counts TPROC-C's transactions) before its first acting
/// command.
#[test]
fn every_shipped_script_sets_database_and_workload_before_it_acts() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let mut seen = 0;
    let mut oltp = Vec::new();
    for db in ["pg", "maria", "mysql"] {
        for (folder, bm) in [
            ("tprocc", "TPROC-C"),
            ("tproch", "TPROC-H"),
            ("monitor", "TPROC-C"),
            ("oltp", "OLTP"),
        ] {
            let dir = root.join(db).join(folder);
            let entries =
                std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            for entry in entries {
                let path = entry.expect("a directory entry").path();
                if path.extension().is_none_or(|e| e != "rhai") {
                    continue;
                }
                if folder == "oltp" {
                    oltp.push(path.file_name().unwrap().to_string_lossy().into_owned());
                } else {
                    seen += 1;
                }
                let source = std::fs::read_to_string(&path).expect("a script");
                let code: Vec<&str> = source
                    .lines()
                    .map(|l| l.split("//").next().unwrap_or("").trim())
                    .collect();
                let at = |needle: &str| code.iter().position(|l| l.contains(needle));
                let name = path.display();
                let first_act = ACTING
                    .iter()
                    .filter_map(|a| at(a))
                    .min()
                    .unwrap_or_else(|| panic!("{name} does nothing with a schema or a run"));
                let db_set = at(&format!("dbset(\"db\", \"{db}\");"))
                    .unwrap_or_else(|| panic!("{name} does not set the database to {db}"));
                let bm_set = at(&format!("dbset(\"bm\", \"{bm}\");"))
                    .unwrap_or_else(|| panic!("{name} does not set the workload to {bm}"));
                assert!(
                    db_set < first_act && bm_set < first_act,
                    "{name}: the database (line {}) and the workload (line {}) must be set \
                     before line {}: {}",
                    db_set + 1,
                    bm_set + 1,
                    first_act + 1,
                    code[first_act]
                );
                // No other workload is set anywhere in it.
                for other in WORKLOADS.iter().filter(|w| **w != bm) {
                    assert!(
                        at(&format!("dbset(\"bm\", \"{other}\")")).is_none(),
                        "{name} sets {other}"
                    );
                }
            }
        }
    }
    // Build, check, delete and run of two workloads, and one monitor, on three databases.
    assert_eq!(seen, 27, "scripts found under {}", root.display());
    // OLTP's build, check and delete on each (its run scripts are counted with them when
    // they are there).
    for db in ["pg", "maria", "mysql"] {
        for step in ["build", "check", "delete"] {
            let script = format!("{db}_oltp_{step}.rhai");
            assert!(
                oltp.contains(&script),
                "no scripts/{db}/oltp/{script}: {oltp:?}"
            );
        }
    }
}

fn build_check_delete_scripts(dbs: &[&'static str]) {
    let servers = Servers::get();
    servers.require();
    for &db in dbs {
        let home = tempfile::tempdir().unwrap();
        let (ok, out) = run(
            home.path(),
            &format!("{db}/tprocc/{db}_tprocc_build.rhai"),
            &["1", "1"],
            &servers,
        );
        assert!(ok, "{db} build:\n{out}");
        assert!(out.contains("TPROC-C schema built: 1 warehouses"), "{out}");
        let (ok, out) = run(
            home.path(),
            &format!("{db}/tprocc/{db}_tprocc_check.rhai"),
            &["1"],
            &servers,
        );
        assert!(ok, "{db} check:\n{out}");
        assert!(
            out.contains("Schema has been checked successfully"),
            "{out}"
        );
        // The run script: 2 virtual users, a few seconds of rampup and of measurement. Each
        // virtual user on a thread of its own (the default), and on PostgreSQL also all on
        // the shared runtime (HAMMER_VU_THREADS=shared).
        let modes: &[&[(&str, &str)]] = if db == "pg" {
            &[&[], &[("HAMMER_VU_THREADS", "shared")]]
        } else {
            &[&[]]
        };
        for env in modes {
            let (ok, out) = run_with(
                home.path(),
                &format!("{db}/tprocc/{db}_tprocc_run.rhai"),
                &["2", "0.05", "0.1"],
                &servers,
                env,
            );
            assert!(ok, "{db} run {env:?}:\n{out}");
            // "N NOPM from M <Database> TPM"
            let result: Vec<&str> = out
                .split("TEST RESULT : System achieved ")
                .nth(1)
                .unwrap_or_else(|| panic!("{db} run {env:?}: no result:\n{out}"))
                .split_whitespace()
                .collect();
            let nopm: u64 = result[0].parse().expect("NOPM");
            assert!(nopm > 0, "{db} run {env:?}:\n{out}");
            // The script's own summary gives the same figures as the result line.
            let summary = format!(": {} NOPM, {} TPM", result[0], result[3]);
            assert!(
                out.lines()
                    .any(|l| l.starts_with("Run ") && l.ends_with(&summary)),
                "{db} run {env:?}: no summary line ending {summary:?}:\n{out}"
            );
            assert!(out.contains("Vuser 3:FINISHED SUCCESS"), "{out}");
        }
        // The check script exits 1 when the schema does not match the dictionary: the failed
        // check is a script error that names the job.
        let (ok, out) = run(
            home.path(),
            &format!("{db}/tprocc/{db}_tprocc_check.rhai"),
            &["2"],
            &servers,
        );
        assert!(
            !ok && out.contains("FAIL warehouse count")
                && out.contains("Schema Check jobid=")
                && out.contains(" FAILED: "),
            "{db} check of 2:\n{out}"
        );
        let (ok, out) = run(
            home.path(),
            &format!("{db}/tprocc/{db}_tprocc_delete.rhai"),
            &[],
            &servers,
        );
        assert!(
            ok && out.contains("has been deleted successfully"),
            "{db} delete:\n{out}"
        );
        // Deleting again finds nothing to delete, and succeeds.
        let (ok, out) = run(
            home.path(),
            &format!("{db}/tprocc/{db}_tprocc_delete.rhai"),
            &[],
            &servers,
        );
        assert!(
            ok && out.contains("does not exist") && out.contains("nothing to delete"),
            "{db} second delete:\n{out}"
        );
    }
}

#[test]
fn monitor_scripts_on_every_database() {
    let servers = Servers::get();
    servers.require();
    for (db, rdbms) in [
        ("pg", "PostgreSQL"),
        ("maria", "MariaDB"),
        ("mysql", "MySQL"),
    ] {
        let home = tempfile::tempdir().unwrap();
        let (ok, out) = run(
            home.path(),
            &format!("{db}/monitor/{db}_monitor.rhai"),
            &["3", "1"],
            &servers,
        );
        assert!(ok, "{db} monitor:\n{out}");
        for expected in [
            "Transaction Counter Started".to_string(),
            format!(" {rdbms} tpm\n"),
            "Started CPU Metrics for ".to_string(),
            "CPU all usr%-".to_string(),
            "Stopping Transaction Counter".to_string(),
            "Stopping Metrics Agent and Display on localhost".to_string(),
            "Monitored 3 s: ".to_string(),
        ] {
            assert!(out.contains(&expected), "{db}: no {expected:?} in\n{out}");
        }
    }
}

fn tproch_scripts(dbs: &[&'static str]) {
    let servers = Servers::get();
    servers.require();
    for &db in dbs {
        let home = tempfile::tempdir().unwrap();
        let script = |step: &str| format!("{db}/tproch/{db}_tproch_{step}.rhai");
        // Whatever an earlier run left is deleted first.
        let (ok, out) = run(home.path(), &script("delete"), &[], &servers);
        assert!(ok, "{db} first delete:\n{out}");
        let (ok, out) = run(home.path(), &script("build"), &["0.01", "2"], &servers);
        assert!(ok, "{db} build:\n{out}");
        assert!(
            out.contains("TPROC-H schema built: scale factor 0.01, 86805 rows"),
            "{out}"
        );
        let (ok, out) = run(home.path(), &script("check"), &["0.01"], &servers);
        assert!(ok, "{db} check:\n{out}");
        assert!(out.contains("has been checked successfully"), "{out}");
        // A throughput test of two query streams with the refresh stream.
        let (ok, out) = run(
            home.path(),
            &script("run"),
            &["3", "1", "0.01", "true"],
            &servers,
        );
        assert!(ok, "{db} run:\n{out}");
        for expected in [
            "Vuser 1:Completed 1 update set(s) in ",
            "Vuser 2:Completed 1 query set(s) in ",
            "Vuser 3:Geometric mean of query times returning rows (",
            "Throughput@Size ",
            "ALL VIRTUAL USERS COMPLETE",
        ] {
            assert!(
                out.contains(expected),
                "{db} run: no {expected:?} in\n{out}"
            );
        }
        assert!(
            out.lines()
                .any(|l| l.starts_with("Run ") && l.contains(": 2 query set(s), geometric mean ")),
            "{db} run: no summary line:\n{out}"
        );
        // A schema of another scale factor fails the check, and the script exits 1.
        let (ok, out) = run(home.path(), &script("check"), &["0.1"], &servers);
        assert!(
            !ok && out.contains("Schema Check jobid=") && out.contains(" FAILED: "),
            "{db} check of 0.1:\n{out}"
        );
        let (ok, out) = run(home.path(), &script("delete"), &[], &servers);
        assert!(ok, "{db} delete:\n{out}");
        let (ok, out) = run(home.path(), &script("delete"), &[], &servers);
        assert!(
            ok && out.contains("nothing to delete"),
            "{db} second delete:\n{out}"
        );
    }
}

/// A database (and PostgreSQL role) of the test's own for the OLTP scripts, dropped whatever
/// the test did.
struct OltpDb {
    db: &'static str,
    name: String,
}

impl Drop for OltpDb {
    fn drop(&mut self) {
        let servers = Servers::get();
        let n = &self.name;
        if self.db == "pg" {
            servers.pg_exec(
                "postgres",
                &format!("DROP DATABASE IF EXISTS {n} WITH (FORCE)"),
            );
            servers.pg_exec("postgres", &format!("DROP ROLE IF EXISTS {n}"));
        } else {
            servers.maria_exec("mysql", &[&format!("DROP DATABASE IF EXISTS {n}")]);
        }
    }
}

/// OLTP's scripts, in a database (and on PostgreSQL a role) of the test's own that
/// `$HAMMER_OLTP_DBASE` (and `$HAMMER_OLTP_USER`) name: delete whatever is there, build two
/// tables with two loaders, check them, check three (which fails, and the script exits 1),
/// delete, and delete again (nothing to delete).
fn oltp_scripts(dbs: &[&'static str]) {
    let servers = Servers::get();
    servers.require();
    for &db in dbs {
        let home = tempfile::tempdir().unwrap();
        let own = OltpDb {
            db,
            name: format!("hammer_ot_script_{db}_{}", std::process::id()),
        };
        let env = [
            ("HAMMER_OLTP_DBASE", own.name.as_str()),
            ("HAMMER_OLTP_USER", own.name.as_str()),
        ];
        let script = |step: &str| format!("{db}/oltp/{db}_oltp_{step}.rhai");
        let run =
            |step: &str, args: &[&str]| run_with(home.path(), &script(step), args, &servers, &env);
        let (ok, out) = run("delete", &[]);
        assert!(ok, "{db} first delete:\n{out}");
        let (ok, out) = run("build", &["2", "500", "2"]);
        assert!(ok, "{db} build:\n{out}");
        for expected in [
            "Vuser 2:Inserting 500 records into 'sbtest1'",
            "Vuser 3:Inserting 500 records into 'sbtest2'",
            "OLTP tables built: 2 tables of 500 rows, 1000 rows in ",
            "Built 1000 rows in ",
        ] {
            assert!(
                out.contains(expected),
                "{db} build: no {expected:?} in\n{out}"
            );
        }
        let (ok, out) = run("check", &["2", "500"]);
        assert!(ok, "{db} check:\n{out}");
        assert!(
            out.contains("OLTP Schema of 2 tables of 500 rows has been checked successfully."),
            "{db} check:\n{out}"
        );
        // The run script: two seconds of oltp_read_only on the two tables, sysbench's lines.
        let (ok, out) = run("run", &["oltp_read_only", "2", "2", "2", "500"]);
        for expected in [
            "] thds: 2 tps: ",
            "SQL statistics:",
            "Threads fairness:",
            "us per query",
            "oltp_read_only: ",
        ] {
            assert!(
                ok && out.contains(expected),
                "{db} run: no {expected:?} in\n{out}"
            );
        }
        let (ok, out) = run("check", &["3"]);
        assert!(
            !ok && out.contains("FAIL tables: sbtest3 missing of sbtest1 to sbtest3")
                && out.contains("Schema Check jobid=")
                && out.contains(" FAILED: "),
            "{db} check of 3:\n{out}"
        );
        let (ok, out) = run("delete", &[]);
        assert!(
            ok && out.contains(&format!("{} OLTP", own.name))
                && out.contains("deleted successfully"),
            "{db} delete:\n{out}"
        );
        if db == "pg" {
            assert!(
                out.contains(&format!(
                    "{} OLTP role has been deleted successfully.",
                    own.name
                )),
                "{db} delete:\n{out}"
            );
        }
        let (ok, out) = run("delete", &[]);
        assert!(
            ok && out.contains("does not exist") && out.contains("nothing to delete"),
            "{db} second delete:\n{out}"
        );
    }
}

#[test]
fn build_check_delete_scripts_on_postgresql() {
    build_check_delete_scripts(&["pg"]);
}

/// MariaDB and MySQL take turns: their scripts' schemas share the one MariaDB server.
#[test]
fn build_check_delete_scripts_on_mariadb_and_mysql() {
    build_check_delete_scripts(&["maria", "mysql"]);
}

#[test]
fn tproch_scripts_on_postgresql() {
    tproch_scripts(&["pg"]);
}

/// MariaDB and MySQL take turns: their scripts' schemas share the one MariaDB server.
#[test]
fn tproch_scripts_on_mariadb_and_mysql() {
    tproch_scripts(&["maria", "mysql"]);
}

#[test]
fn oltp_scripts_on_postgresql() {
    oltp_scripts(&["pg"]);
}

/// MariaDB and MySQL take turns: their scripts' schemas share the one MariaDB server.
#[test]
fn oltp_scripts_on_mariadb_and_mysql() {
    oltp_scripts(&["maria", "mysql"]);
}
