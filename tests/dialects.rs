//! CockroachDB, YugabyteDB and TiDB as dialects, on the nearest real servers: none of the
//! three can be installed here, so every path each dialect takes runs where it can. The
//! CockroachDB dialect on the test PostgreSQL builds with primary keys in CREATE TABLE and no
//! routines, and runs client-side SQL under SERIALIZABLE with enough terminals that real
//! serialization failures (SQLSTATE 40001) happen: they are retried and counted, and the run
//! goes on.
//! The YugabyteDB dialect builds its functions there and runs them. The TiDB dialect on the
//! test MariaDB builds and runs client-side SQL as a user who may not create routines. Each
//! says in one line which server it really reached.

mod common;

use common::Servers;
use hammer::config::{Database, Settings, Target};
use hammer::interrupt::Interrupt;
use hammer::output::Output;
use hammer::tpcc::build::Plan;
use hammer::tpcc::driver::{Options, StateSink};
use hammer::tpcc::result::RunResult;
use hammer::tpcc::schema::Say;
use std::sync::Arc;

fn set(settings: &mut Settings, db: Database, section: &str, key: &str, value: &str) {
    let key = db.key(key);
    settings
        .set(Target::Db(db), section, &key, value)
        .unwrap_or_else(|e| panic!("{key}: {e}"));
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// A PostgreSQL-family dialect's dictionary pointed at the test PostgreSQL.
fn on_postgresql(s: &Servers, db: Database, dbname: &str) -> Settings {
    let mut settings = Settings::defaults();
    set(&mut settings, db, "connection", "host", &s.pg_host);
    set(
        &mut settings,
        db,
        "connection",
        "port",
        &s.pg_port.to_string(),
    );
    set(&mut settings, db, "tpcc", "superuser", &s.pg_user);
    set(&mut settings, db, "tpcc", "superuserpass", &s.pg_pass);
    set(&mut settings, db, "tpcc", "defaultdbase", "postgres");
    set(&mut settings, db, "tpcc", "dbase", dbname);
    set(
        &mut settings,
        db,
        "tpcc",
        "user",
        &format!("{dbname}_owner"),
    );
    settings
}

/// Deletes a schema when the test ends, however it ends.
struct Scratch {
    settings: Settings,
    db: Database,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let (settings, db) = (self.settings.clone(), self.db);
        let _ = std::thread::spawn(move || {
            let say = Say::new(Output::capture(), 1);
            let _ = runtime().block_on(
                hammer::tpcc::bench::support(db)
                    .expect("TPROC-C support")
                    .delete(&settings, &say),
            );
        })
        .join();
    }
}

/// Builds one warehouse and returns what the build said.
fn build(rt: &tokio::runtime::Runtime, settings: &Settings, db: Database) -> Vec<String> {
    let out = Output::capture();
    let plan = Plan {
        warehouses: 1,
        loaders: 1,
    };
    rt.block_on(
        hammer::tpcc::bench::support(db)
            .expect("TPROC-C support")
            .build(
                settings,
                plan,
                Say::new(out.clone(), 1),
                out.clone(),
                Interrupt::default(),
            ),
    )
    .unwrap_or_else(|e| panic!("{}: build: {e}", db.name()));
    let said = out.take_captured();
    let checks = rt
        .block_on(
            hammer::tpcc::bench::support(db)
                .expect("TPROC-C support")
                .check(settings, 1, &Say::new(Output::capture(), 1)),
        )
        .unwrap_or_else(|e| panic!("{}: check: {e}", db.name()));
    for c in &checks {
        assert!(c.ok, "{}: check failed on a fresh build: {c:?}", db.name());
    }
    said
}

/// Runs TPROC-C with `vus` virtual users: `timed` for `seconds`, else 50 transactions each.
fn run(
    rt: &tokio::runtime::Runtime,
    settings: &mut Settings,
    db: Database,
    vus: u32,
    timed: Option<u32>,
) -> (RunResult, Vec<String>) {
    settings
        .set(Target::Generic, "benchmark", "rdbms", db.name())
        .unwrap_or_else(|e| panic!("rdbms {}: {e}", db.name()));
    match timed {
        Some(seconds) => {
            set(settings, db, "tpcc", "driver", "timed");
            set(settings, db, "tpcc", "rampup", "0");
            set(
                settings,
                db,
                "tpcc",
                "duration",
                &(f64::from(seconds) / 60.0).to_string(),
            );
        }
        None => {
            set(settings, db, "tpcc", "driver", "test");
            set(settings, db, "tpcc", "total_iterations", "50");
        }
    }
    let support = hammer::tpcc::bench::support(db).expect("TPROC-C support");
    let mut opts = Options::load(settings, support.routines(settings));
    opts.virtual_users = vus;
    let states: StateSink = Arc::new(|_, _| {});
    let out = Output::capture();
    let result = rt
        .block_on(support.run(
            settings,
            opts,
            Say::new(out.clone(), 1),
            states,
            Interrupt::default(),
        ))
        .unwrap_or_else(|e| panic!("{}: run: {e}", db.name()));
    (result, out.take_captured())
}

fn retried(r: &RunResult) -> u64 {
    r.stats.by_kind.iter().map(|t| t.retried).sum()
}

fn failed(r: &RunResult) -> u64 {
    r.stats.by_kind.iter().map(|t| t.failed).sum()
}

/// The line a dialect says when it reached a server of another kind.
fn says_it_reached(said: &[String], dialect: &str, server: &str) {
    let line = format!("the {dialect} dialect reached a {server} server at ");
    assert!(
        said.iter().any(|l| l.contains(&line)),
        "{line:?} in\n{}",
        said.join("\n")
    );
}

#[test]
fn cockroachdb_dialect_on_postgresql_retries_real_serialization_failures() {
    let servers = Servers::get();
    servers.require();
    let db = Database::Crdb;
    let dbname = format!("hammer_dialect_crdb_{}", std::process::id());
    let mut settings = on_postgresql(&servers, db, &dbname);
    let _scratch = Scratch {
        settings: settings.clone(),
        db,
    };
    let rt = runtime();
    let said = build(&rt, &settings, db);
    says_it_reached(&said, "CockroachDB", "PostgreSQL");

    // Every table but HISTORY has the primary key its CREATE TABLE made; no routines.
    let keys = servers.pg_i64(
        &dbname,
        "SELECT count(*) FROM pg_constraint WHERE contype = 'p' \
         AND conname IN ('warehouse_i1', 'district_i1', 'customer_i1', 'new_order_i1', \
         'orders_i1', 'order_line_i1', 'item_i1', 'stock_i1')",
    );
    assert_eq!(keys, 8, "the eight primary keys");
    let routines = servers.pg_i64(
        &dbname,
        "SELECT count(*) FROM pg_proc WHERE proname IN \
         ('neword', 'payment', 'ostat', 'delivery', 'slev')",
    );
    assert_eq!(routines, 0, "CockroachDB's build makes no routines");

    // Enough terminals on one warehouse that SERIALIZABLE transactions collide: each
    // Payment updates the one warehouse row, each New-Order a district's next order id.
    let (result, lines) = run(&rt, &mut settings, db, 6, Some(8));
    let text = lines.join("\n");
    assert_eq!(result.failed_vus, 0, "no virtual user failed:\n{text}");
    assert!(result.nopm.is_some_and(|n| n > 0.0), "a NOPM:\n{text}");
    let (retried, failed) = (retried(&result), failed(&result));
    assert!(
        retried > 0,
        "serialization failures were retried and counted:\n{text}"
    );
    // A transaction fails only when its retries run out: most conflicts end in a commit.
    assert!(
        failed < retried && failed < result.transactions(),
        "{failed} failed, {retried} retried, {} done:\n{text}",
        result.transactions()
    );
    // The live view counts them too.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("retries ") && !l.contains("retries 0,")),
        "retries in the progress lines:\n{text}"
    );
}

#[test]
fn yugabytedb_dialect_on_postgresql_builds_functions_with_keys_in_create_table() {
    let servers = Servers::get();
    servers.require();
    let db = Database::Yb;
    let dbname = format!("hammer_dialect_yb_{}", std::process::id());
    let mut settings = on_postgresql(&servers, db, &dbname);
    let _scratch = Scratch {
        settings: settings.clone(),
        db,
    };
    let rt = runtime();
    let said = build(&rt, &settings, db);
    says_it_reached(&said, "YugabyteDB", "PostgreSQL");
    let routines = servers.pg_i64(
        &dbname,
        "SELECT count(*) FROM pg_proc WHERE prokind = 'f' AND proname IN \
         ('neword', 'payment', 'ostat', 'delivery', 'slev')",
    );
    assert_eq!(routines, 5, "YugabyteDB's build makes the five functions");
    let (result, lines) = run(&rt, &mut settings, db, 2, None);
    assert_eq!(result.failed_vus, 0, "{}", lines.join("\n"));
    assert_eq!(result.transactions(), 100, "{}", lines.join("\n"));
}

#[test]
fn yugabytedb_refuses_a_colocated_database_split_into_tablets() {
    let db = Database::Yb;
    let mut settings = Settings::defaults();
    // Nothing listens here: the refusal comes before any connection.
    set(&mut settings, db, "connection", "host", "127.0.0.1");
    set(&mut settings, db, "connection", "port", "9");
    set(&mut settings, db, "tpcc", "colocation", "true");
    set(&mut settings, db, "tpcc", "num_tablets", "4");
    let out = Output::capture();
    let e = runtime()
        .block_on(
            hammer::tpcc::bench::support(db)
                .expect("TPROC-C support")
                .build(
                    &settings,
                    Plan {
                        warehouses: 1,
                        loaders: 1,
                    },
                    Say::new(out.clone(), 1),
                    out,
                    Interrupt::default(),
                ),
        )
        .expect_err("colocation and tablets together")
        .to_string();
    assert!(
        e.contains("yb_colocation true") && e.contains("yb_num_tablets 4"),
        "{e}"
    );
}

#[test]
fn tidb_dialect_on_mariadb_runs_client_side_sql_as_a_user_without_routines() {
    let servers = Servers::get();
    servers.require();
    let db = Database::Tidb;
    let pid = std::process::id();
    let dbname = format!("hammer_dialect_tidb_{pid}");
    let user = format!("hammer_tidb_{pid}");
    let pass = "tidb-test";
    // Everything a build needs on its database, but no CREATE ROUTINE or ALTER ROUTINE.
    servers.maria_exec(
        "mysql",
        &[
            &format!("DROP USER IF EXISTS '{user}'@'%', '{user}'@'localhost'"),
            &format!("CREATE USER '{user}'@'%' IDENTIFIED BY '{pass}'"),
            &format!("CREATE USER '{user}'@'localhost' IDENTIFIED BY '{pass}'"),
            &format!(
                "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER \
                 ON `{dbname}`.* TO '{user}'@'%'"
            ),
            &format!(
                "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER \
                 ON `{dbname}`.* TO '{user}'@'localhost'"
            ),
        ],
    );
    struct DropUser<'a>(&'a Servers, String);
    impl Drop for DropUser<'_> {
        fn drop(&mut self) {
            self.0.maria_exec(
                "mysql",
                &[&format!(
                    "DROP USER IF EXISTS '{0}'@'%', '{0}'@'localhost'",
                    self.1
                )],
            );
        }
    }
    let mut settings = Settings::defaults();
    set(&mut settings, db, "connection", "host", &servers.maria_host);
    set(
        &mut settings,
        db,
        "connection",
        "port",
        &servers.maria_port.to_string(),
    );
    set(&mut settings, db, "tpcc", "user", &user);
    set(&mut settings, db, "tpcc", "pass", pass);
    set(&mut settings, db, "tpcc", "dbase", &dbname);
    // Dropped after the schema (declared first, dropped last).
    let _user = DropUser(&servers, user.clone());
    let _scratch = Scratch {
        settings: settings.clone(),
        db,
    };
    let rt = runtime();
    let said = build(&rt, &settings, db);
    says_it_reached(&said, "TiDB", "MariaDB");
    let procedures = servers.maria_i64(
        "mysql",
        &format!(
            "SELECT count(*) FROM information_schema.routines WHERE routine_schema = '{dbname}'"
        ),
    );
    assert_eq!(procedures, 0, "TiDB's build makes no procedures");

    // The user may indeed not create one: the build did not need it.
    let refused = rt.block_on(async {
        let mut conn = hammer::db::engine(db)
            .script_conn(&settings, hammer::endpoint::Position::Session)
            .await
            .expect("the TiDB dialect's user connects");
        let r = conn
            .execute("CREATE PROCEDURE hammer_probe() BEGIN SELECT 1; END")
            .await;
        conn.close().await;
        r
    });
    assert!(refused.is_err(), "the user could create a procedure");

    let (result, lines) = run(&rt, &mut settings, db, 2, None);
    assert_eq!(result.failed_vus, 0, "{}", lines.join("\n"));
    assert_eq!(result.transactions(), 100, "{}", lines.join("\n"));
}

#[test]
fn librarycheck_says_each_dialect_is_untested_on_its_own_database() {
    let mut f = common::Fixture::new();
    // Every dictionary at its defaults: nothing listens on CockroachDB's, YugabyteDB's or
    // TiDB's port here, and the check says what it could not reach.
    let (r, lines) = f.console("librarycheck()");
    assert!(r.is_ok(), "{r:?}");
    let said = lines.join("\n");
    for (name, on) in [
        ("CockroachDB", "PostgreSQL"),
        ("YugabyteDB", "PostgreSQL"),
        ("TiDB", "MariaDB"),
    ] {
        let line = format!(
            "Note: hammer's {name} dialect has not been run against {name} here: its paths \
             are tested on {on} only"
        );
        assert!(said.contains(&line), "{line:?} in\n{said}");
    }
    for name in ["PostgreSQL", "MariaDB", "MySQL"] {
        assert!(
            !said.contains(&format!("hammer's {name} dialect has not been run")),
            "{said}"
        );
    }
}
