//! The battery every engine goes through, on the real servers, through the public seams only
//! (`hammer::db::engine` and the functions beside it): a new engine gets the whole of it by
//! adding its row to [`ENGINES`] and its server to the test set-up.
//!
//! MySQL's row runs against the test MariaDB through the `mysql_*` dictionary over TCP: the
//! same family under another database value and key prefix, which is what a dialect is.
//! CockroachDB's and YugabyteDB's rows run their dialects on the test PostgreSQL, TiDB's on
//! the test MariaDB: those databases cannot be installed here (`tests/dialects.rs` puts
//! their own paths through more).
//!
//! Each engine builds a one-warehouse TPROC-C schema in a database of its own
//! (`hammer_engine_<prefix>_<pid>`), runs the TPROC-C driver on it, and deletes it at the end,
//! also when the test fails.

mod common;

use common::Servers;
use hammer::config::{Database, Settings, Target};
use hammer::interrupt::Interrupt;
use hammer::output::Output;
use hammer::tpcc::build::Plan;
use hammer::tpcc::driver::{Options, StateSink};
use hammer::tpcc::schema::Say;
use hammer::vu::VuState;
use std::sync::{Arc, Mutex};

/// Every engine, and how the test set-up points its dictionary at a test server.
/// Points a dictionary at the test server for a schema database.
type Configure = fn(&Servers, &mut Settings, &str);

const ENGINES: &[(Database, Configure)] = &[
    (Database::Pg, |s, settings, db| {
        pg(s, settings, Database::Pg, db)
    }),
    (Database::Crdb, |s, settings, db| {
        pg(s, settings, Database::Crdb, db)
    }),
    (Database::Yb, |s, settings, db| {
        pg(s, settings, Database::Yb, db)
    }),
    (Database::Tidb, |s, settings, db| {
        mysql_family(s, settings, Database::Tidb, db, false)
    }),
    (Database::Maria, |s, settings, db| {
        mysql_family(s, settings, Database::Maria, db, true)
    }),
    (Database::Mysql, |s, settings, db| {
        mysql_family(s, settings, Database::Mysql, db, false)
    }),
];

fn set(settings: &mut Settings, db: Database, section: &str, key: &str, value: &str) {
    let key = format!("{}_{key}", db.prefix());
    settings
        .set(Target::Db(db), section, &key, value)
        .unwrap_or_else(|e| panic!("{key}: {e}"));
}

fn pg(s: &Servers, settings: &mut Settings, db: Database, dbname: &str) {
    set(settings, db, "connection", "host", &s.pg_host);
    set(settings, db, "connection", "port", &s.pg_port.to_string());
    set(settings, db, "tpcc", "superuser", &s.pg_user);
    set(settings, db, "tpcc", "superuserpass", &s.pg_pass);
    // The test server's default database, whatever the dialect's own default is.
    set(settings, db, "tpcc", "defaultdbase", "postgres");
    set(settings, db, "tpcc", "dbase", dbname);
    set(settings, db, "tpcc", "user", &format!("{dbname}_owner"));
}

fn mysql_family(s: &Servers, settings: &mut Settings, db: Database, dbname: &str, socket: bool) {
    set(settings, db, "connection", "host", &s.maria_host);
    set(
        settings,
        db,
        "connection",
        "port",
        &s.maria_port.to_string(),
    );
    let socket = if socket {
        s.maria_socket.as_str()
    } else {
        "null"
    };
    set(settings, db, "connection", "socket", socket);
    set(settings, db, "tpcc", "user", &s.maria_user);
    set(settings, db, "tpcc", "pass", &s.maria_pass);
    set(settings, db, "tpcc", "dbase", dbname);
}

/// Deletes the engine's schema when the test ends, however it ends.
struct Scratch {
    settings: Settings,
    db: Database,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let (settings, db) = (self.settings.clone(), self.db);
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            let say = Say::new(Output::capture(), 1);
            let _ = rt.block_on(
                hammer::tpcc::bench::support(db)
                    .expect("TPROC-C support")
                    .delete(&settings, &say),
            );
        })
        .join();
    }
}

fn battery(db: Database, configure: Configure) {
    let servers = Servers::get();
    servers.require();
    let name = db.name();
    let dbname = format!("hammer_engine_{}_{}", db.prefix(), std::process::id());
    let mut settings = Settings::defaults();
    configure(&servers, &mut settings, &dbname);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let engine = hammer::db::engine(db);
    assert_eq!(
        engine.database(),
        db,
        "{name}: the dispatch picks its own engine"
    );
    assert!(!engine.client().is_empty(), "{name}: names its client");

    // The server answers, and says what it is.
    let info = rt
        .block_on(hammer::db::probe(&settings, db))
        .unwrap_or_else(|e| panic!("{name}: probe: {e}"));
    assert!(!info.version.is_empty(), "{name}: a version");
    assert_eq!(
        info.peer.db, db,
        "{name}: the probe's peer is the engine's database"
    );
    let facts = rt
        .block_on(hammer::db::server_facts(&settings, db))
        .unwrap_or_else(|e| panic!("{name}: server facts: {e}"));
    assert!(!facts.version.is_empty(), "{name}: facts carry the version");
    assert!(!facts.settings.is_empty(), "{name}: facts carry settings");
    assert!(
        !facts.transport.is_empty(),
        "{name}: facts say the transport"
    );
    assert!(
        hammer::db::unsupported_build_options(&settings, db).is_empty(),
        "{name}: no unsupported option is on by default"
    );

    // A schema: built, checked, used by a custom connection and the counters, deleted.
    let _scratch = Scratch {
        settings: settings.clone(),
        db,
    };
    assert!(
        hammer::tpcc::bench::support(db)
            .expect("TPROC-C support")
            .describe(&settings)
            .contains(&dbname),
        "{name}: the description names the schema's database"
    );
    let out = Output::capture();
    let plan = Plan {
        warehouses: 1,
        loaders: 1,
    };
    let expected = plan.expected_rows();
    let summary = rt
        .block_on(
            hammer::tpcc::bench::support(db)
                .expect("TPROC-C support")
                .build(
                    &settings,
                    plan,
                    Say::new(out.clone(), 1),
                    out,
                    Interrupt::default(),
                ),
        )
        .unwrap_or_else(|e| panic!("{name}: build: {e}"));
    assert_eq!(summary.warehouses, 1, "{name}");
    // Order lines are random (5 to 15 per order): the total is near, not equal to, the plan.
    assert!(
        summary.rows.abs_diff(expected) < expected / 10,
        "{name}: built {} rows, planned about {expected}",
        summary.rows
    );
    let say = Say::new(Output::capture(), 1);
    let checks = rt
        .block_on(
            hammer::tpcc::bench::support(db)
                .expect("TPROC-C support")
                .check(&settings, 1, &say),
        )
        .unwrap_or_else(|e| panic!("{name}: check: {e}"));
    assert!(!checks.is_empty(), "{name}: checks ran");
    for c in &checks {
        assert!(c.ok, "{name}: check failed on a fresh build: {c:?}");
    }

    let rows = rt
        .block_on(async {
            let mut conn = hammer::db::engine(db)
                .script_conn(&settings, hammer::endpoint::Position::Session)
                .await?;
            conn.begin().await?;
            let changed = conn
                .execute("UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1")
                .await?;
            conn.execute("ROLLBACK").await?;
            let rows = conn.query("SELECT count(*) FROM district").await?;
            conn.close().await;
            Ok::<_, hammer::db::DbError>((changed, rows))
        })
        .unwrap_or_else(|e| panic!("{name}: custom connection: {e}"));
    assert_eq!(rows.0, 1, "{name}: one warehouse updated");
    assert_eq!(
        rows.1,
        vec![vec![Some("10".to_string())]],
        "{name}: ten districts"
    );

    let reading = rt
        .block_on(async {
            let mut source = hammer::db::counter_source(
                &settings,
                db,
                hammer::db::counter::Counting::TRANSACTIONS,
            );
            let found = source.connect().await?;
            let r = source.read().await;
            source.close().await;
            Ok::<_, hammer::db::DbError>((found, r?))
        })
        .unwrap_or_else(|e| panic!("{name}: counters: {e}"));
    assert!(reading.0, "{name}: the counter finds the TPROC-C districts");
    assert_eq!(
        reading.1.new_orders,
        Some(10 * 3001),
        "{name}: new orders are sum(d_next_o_id) of a fresh build"
    );
    assert!(
        reading.1.total() > 0,
        "{name}: the server has counted transactions"
    );

    // A test run of the TPROC-C driver: two virtual users, 50 transactions each, in the
    // engine's default mode, through the run's public seam.
    settings
        .set(Target::Generic, "benchmark", "rdbms", name)
        .unwrap_or_else(|e| panic!("rdbms {name}: {e}"));
    set(&mut settings, db, "tpcc", "driver", "test");
    set(&mut settings, db, "tpcc", "total_iterations", "50");
    let mut opts = Options::load(
        &settings,
        hammer::tpcc::bench::support(db)
            .expect("TPROC-C support")
            .routines(&settings),
    );
    opts.virtual_users = 2;
    let finished = Arc::new(Mutex::new(Vec::new()));
    let seen = finished.clone();
    let states: StateSink = Arc::new(move |vu, state| seen.lock().unwrap().push((vu, state)));
    let run_out = Output::capture();
    let result = rt
        .block_on(
            hammer::tpcc::bench::support(db)
                .expect("TPROC-C support")
                .run(
                    &settings,
                    opts,
                    Say::new(run_out.clone(), 1),
                    states,
                    Interrupt::default(),
                ),
        )
        .unwrap_or_else(|e| panic!("{name}: run: {e}"));
    assert_eq!(result.failed_vus, 0, "{name}: no virtual user failed");
    assert_eq!(
        result.transactions(),
        100,
        "{name}: two virtual users ran their 50 transactions each: {:?}",
        run_out.take_captured()
    );
    let finished = finished.lock().unwrap();
    for vu in [1, 2] {
        assert!(
            finished.contains(&(vu, VuState::FinishSuccess)),
            "{name}: virtual user {vu} finished with success: {finished:?}"
        );
    }
    drop(finished);

    let dropped = rt
        .block_on(
            hammer::tpcc::bench::support(db)
                .expect("TPROC-C support")
                .delete(&settings, &say),
        )
        .unwrap_or_else(|e| panic!("{name}: delete: {e}"));
    assert!(
        !dropped.is_empty(),
        "{name}: the delete says what it dropped"
    );
}

/// The battery for one row of [`ENGINES`] (one test per engine, so they run side by side).
fn engine_row(db: Database) {
    let (_, configure) = ENGINES
        .iter()
        .find(|(d, _)| *d == db)
        .unwrap_or_else(|| panic!("{} has no row in ENGINES", db.name()));
    battery(db, *configure);
}

#[test]
fn postgresql_passes_the_battery() {
    engine_row(Database::Pg);
}

#[test]
fn mariadb_passes_the_battery() {
    engine_row(Database::Maria);
}

#[test]
fn mysql_dialect_passes_the_battery() {
    engine_row(Database::Mysql);
}

#[test]
fn cockroachdb_dialect_passes_the_battery_on_postgresql() {
    engine_row(Database::Crdb);
}

#[test]
fn yugabytedb_dialect_passes_the_battery_on_postgresql() {
    engine_row(Database::Yb);
}

#[test]
fn tidb_dialect_passes_the_battery_on_mariadb() {
    engine_row(Database::Tidb);
}

#[test]
fn every_database_has_a_row() {
    for db in Database::ALL {
        assert!(
            ENGINES.iter().any(|(d, _)| *d == db),
            "{} has no row in the engine battery",
            db.name()
        );
    }
}

/// `deleteschema` of a schema that was never built, through a session as a user runs it:
/// said plainly (the database, and on PostgreSQL the role, it looked for) and a SUCCESS job.
fn delete_nothing(db: Database) {
    let servers = Servers::get();
    servers.require();
    let p = db.prefix();
    let name = db.name();
    let dbname = format!("hammer_engine_none_{p}_{}", std::process::id());
    let mut f = common::Fixture::new();
    f.ok(&servers.configure());
    f.ok(&format!("dbset db {p}; diset tpcc {p}_dbase {dbname}"));
    if db == Database::Pg {
        f.ok(&format!("diset tpcc pg_user {dbname}"));
    }
    let (r, lines) = f.console("deleteschema()");
    let said = lines.join("\n");
    assert!(r.is_ok(), "{name}: {r:?}\n{said}");
    let looked_for = match db {
        Database::Pg => format!(
            "Vuser 1:Database {dbname} does not exist on {}:{}, nor does role {dbname}: nothing to delete",
            servers.pg_host, servers.pg_port
        ),
        _ => format!("(looked for as {}): nothing to delete", servers.maria_user),
    };
    assert!(
        said.contains(&format!("Vuser 1:Database {dbname} does not exist on "))
            && said.contains(&looked_for),
        "{name}: {looked_for:?} in\n{said}"
    );
    let id = lines
        .last()
        .and_then(|l| l.strip_prefix("Schema Delete jobid="))
        .unwrap_or_else(|| panic!("{name}: the job's id in\n{said}"))
        .to_string();
    let (r, lines) = f.console(&format!("jobs(\"{id}\", \"status\").status"));
    assert_eq!(r, Ok("SUCCESS".to_string()), "{name}: {lines:#?}");
}

#[test]
fn postgresql_deleting_nothing_is_a_successful_job() {
    delete_nothing(Database::Pg);
}

#[test]
fn mariadb_deleting_nothing_is_a_successful_job() {
    delete_nothing(Database::Maria);
}
