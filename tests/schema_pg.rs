//! Real-server tests of the PostgreSQL TPROC-C schema: create, COPY load, keys and routines,
//! checks, refusals and removal, each test with its own database and role.

mod common;

use std::time::Instant;

use common::Servers;
use hammer::config::{Database, Settings, Target};
use hammer::db::postgres::schema::PgSchema;
use hammer::db::postgres::{connect, PgConn, PgTarget};
use hammer::output::Output;
use hammer::tpcc::schema::{Check, Loader, Say, SchemaDb};
use hammer::tpcc::{Constants, Format, Generator, Table, DISTRICTS_PER_W, ITEMS, STOCK_PER_W};
use rand::rngs::SmallRng;
use rand::SeedableRng;

/// One test's schema: settings naming its own database and role, and captured output.
struct Case {
    settings: Settings,
    db: String,
    user: String,
    out: Output,
    say: Say,
    _cleanup: Cleanup,
}

impl Case {
    /// Settings for the test server with database and role `hammer_pgs_<test>_<pid>`.
    fn new(test: &str) -> Self {
        let servers = Servers::get();
        servers.require();
        let name = format!("hammer_pgs_{test}_{}", std::process::id());
        let mut settings = Settings::defaults();
        let pg = Target::Db(Database::Pg);
        for (section, key, value) in [
            ("connection", "pg_host", servers.pg_host.as_str()),
            ("connection", "pg_port", &servers.pg_port.to_string()),
            ("tpcc", "pg_superuser", &servers.pg_user),
            ("tpcc", "pg_superuserpass", &servers.pg_pass),
            ("tpcc", "pg_user", &name),
            ("tpcc", "pg_pass", "pgs'pass\\word"),
            ("tpcc", "pg_dbase", &name),
        ] {
            settings.set(pg, section, key, value).expect("test setting");
        }
        let out = Output::capture();
        Case {
            settings,
            db: name.clone(),
            user: name.clone(),
            say: Say::new(out.clone(), 1),
            out,
            _cleanup: Cleanup { name },
        }
    }

    fn set(&mut self, key: &str, value: &str) {
        self.settings
            .set(Target::Db(Database::Pg), "tpcc", key, value)
            .expect("test setting");
    }

    fn schema(&self) -> PgSchema {
        PgSchema::new(&self.settings, Database::Pg)
    }

    fn lines(&self) -> Vec<String> {
        self.out.take_captured()
    }

    /// The superuser on `db`.
    async fn admin(&self, db: &str) -> PgConn {
        let target = PgTarget {
            dbname: db.to_string(),
            ..PgTarget::admin_of(&self.settings, hammer::config::Database::Pg)
        };
        connect(&target).await.expect("superuser connects")
    }

    async fn count(&self, db: &str, sql: &str) -> i64 {
        let conn = self.admin(db).await;
        let n = conn.client.query_one(sql, &[]).await.expect(sql).get(0);
        conn.close().await;
        n
    }

    async fn db_exists(&self) -> bool {
        let sql = format!(
            "SELECT count(*) FROM pg_database WHERE datname = '{}'",
            self.db
        );
        self.count("postgres", &sql).await == 1
    }

    async fn role_exists(&self) -> bool {
        let sql = format!(
            "SELECT count(*) FROM pg_roles WHERE rolname = '{}'",
            self.user
        );
        self.count("postgres", &sql).await == 1
    }
}

/// Drops the test's database and role whatever happened, on a thread of its own, so a failed
/// test leaves nothing behind.
struct Cleanup {
    name: String,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let name = self.name.clone();
        let servers = Servers::get();
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async {
                let target = PgTarget {
                    db: hammer::config::Database::Pg,
                    host: servers.pg_host,
                    port: servers.pg_port,
                    also: Vec::new(),
                    attrs: Default::default(),
                    user: servers.pg_user,
                    password: servers.pg_pass,
                    dbname: "postgres".into(),
                    sslmode: "disable".into(),
                    sslrootcert: String::new(),
                    require_auth: String::new(),
                    bounds: Default::default(),
                };
                if let Ok(conn) = connect(&target).await {
                    // Two statements: DROP DATABASE cannot share a (transaction) batch.
                    for sql in [
                        format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"),
                        format!("DROP ROLE IF EXISTS \"{name}\""),
                        format!("DROP ROLE IF EXISTS \"{name}_adm\""),
                    ] {
                        let _ = conn.client.batch_execute(&sql).await;
                    }
                    conn.close().await;
                }
            });
        })
        .join();
    }
}

/// Loads ITEM and warehouse 1 as a build does: one COPY per table and district.
async fn load_one_warehouse(schema: &PgSchema, constants: Constants) {
    let mut gen = Generator::new(
        Format::COPY,
        constants,
        "2026-01-02 03:04:05",
        SmallRng::seed_from_u64(7),
    );
    let mut loader = schema
        .loader(hammer::endpoint::Position::Loader { n: 1, of: 1 })
        .await
        .expect("loader connects");
    let mut buf = Vec::new();
    gen.items(1..=ITEMS, &mut buf);
    loader.load(Table::Item, &buf).await.expect("items");
    let w = 1;
    let mut rows = Vec::new();
    gen.warehouse(w, &mut rows);
    loader
        .load(Table::Warehouse, &rows)
        .await
        .expect("warehouse");
    rows.clear();
    gen.stock(w, 1..=STOCK_PER_W, &mut rows);
    loader.load(Table::Stock, &rows).await.expect("stock");
    rows.clear();
    gen.districts(w, &mut rows);
    loader.load(Table::District, &rows).await.expect("district");
    for d in 1..=DISTRICTS_PER_W {
        let (mut c, mut h) = (Vec::new(), Vec::new());
        gen.customers_and_history(w, d, &mut c, &mut h);
        loader.load(Table::Customer, &c).await.expect("customer");
        loader.load(Table::History, &h).await.expect("history");
    }
    for d in 1..=DISTRICTS_PER_W {
        let (mut o, mut no, mut ol) = (Vec::new(), Vec::new(), Vec::new());
        gen.orders(w, d, &mut o, &mut no, &mut ol);
        loader.load(Table::Orders, &o).await.expect("orders");
        loader.load(Table::NewOrder, &no).await.expect("new_order");
        loader
            .load(Table::OrderLine, &ol)
            .await
            .expect("order_line");
    }
    loader.close().await;
}

fn constants() -> Constants {
    Constants {
        c_last: 100,
        c_id: 200,
        ol_i_id: 300,
    }
}

fn failures(checks: &[Check]) -> Vec<&Check> {
    checks.iter().filter(|c| !c.ok).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn build_one_warehouse_check_break_and_delete() {
    let case = Case::new("full");
    let schema = case.schema();
    let started = Instant::now();
    schema.create(1, &case.say).await.expect("create");
    let lines = case.lines();
    let upper = case.user.to_uppercase();
    for expected in [
        format!("Vuser 1:CREATING {upper} SCHEMA"),
        format!(
            "Vuser 1:CREATING DATABASE {} under OWNER {}",
            case.db, case.user
        ),
        "Vuser 1:CREATING TPCC TABLES".to_string(),
    ] {
        assert!(lines.contains(&expected), "{expected} in {lines:#?}");
    }

    load_one_warehouse(&schema, constants()).await;
    let loaded = started.elapsed();
    schema
        .finish(&constants(), &case.say)
        .await
        .expect("finish");
    eprintln!(
        "create+load of 1 warehouse {:.1} s, finish {:.1} s",
        loaded.as_secs_f64(),
        (started.elapsed() - loaded).as_secs_f64()
    );
    let lines = case.lines();
    assert_eq!(
        lines,
        [
            "Vuser 1:CREATING TPCC INDEXES".to_string(),
            "Vuser 1:CREATING TPCC FUNCTIONS".to_string(),
            "Vuser 1:GATHERING SCHEMA STATISTICS".to_string(),
            format!("Vuser 1:{upper} SCHEMA COMPLETE"),
        ]
    );

    let checks = schema.check(1, &case.say).await.expect("check");
    assert!(failures(&checks).is_empty(), "{checks:#?}");
    let lines = case.lines();
    assert_eq!(
        lines[0],
        format!("Vuser 1:Checking {} TPROC-C schema", case.db)
    );
    for what in [
        "routine neword",
        "indexes on stock",
        "rows in order_line",
        "Check consistency 4",
    ] {
        assert!(
            checks.iter().any(|c| c.what == what),
            "{what} in {checks:#?}"
        );
    }
    assert!(!checks.iter().any(|c| c.what == "indexes on history"));
    let nurand = case
        .count(
            &case.db,
            "SELECT (c_last + c_id + ol_i_id)::bigint FROM tpcc_nurand",
        )
        .await;
    assert_eq!(nurand, 600);
    let owned = case
        .count(
            &case.db,
            &format!(
                "SELECT count(*) FROM pg_proc WHERE proname IN ('neword','payment','ostat','delivery','slev') \
                 AND pg_get_userbyid(proowner) = '{}' AND prokind = 'f'",
                case.user
            ),
        )
        .await;
    assert_eq!(owned, 5, "the owner owns the five functions");

    assert!(schema.size_on_disk().await.expect("size") > 50_000_000);

    // A database with tables is refused and left as it is.
    let e = schema.create(1, &case.say).await.unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "Database {} exists but is not empty, specify a new or empty database name, or \
             remove the existing schema with deleteschema",
            case.db
        )
    );
    assert_eq!(
        case.count(&case.db, "SELECT count(*) FROM warehouse").await,
        1
    );
    assert_eq!(
        case.count(&case.db, "SELECT count(*) FROM stock").await,
        i64::from(STOCK_PER_W)
    );
    case.lines();

    // One district's YTD off breaks condition 1 only, and the check says where.
    let conn = case.admin(&case.db).await;
    conn.client
        .batch_execute("UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = 4")
        .await
        .expect("update");
    conn.close().await;
    let checks = schema.check(1, &case.say).await.expect("check");
    let failed = failures(&checks);
    assert_eq!(failed.len(), 1, "{checks:#?}");
    assert_eq!(failed[0].what, "Check consistency 1");
    assert!(
        failed[0]
            .detail
            .contains("first warehouse 1; 1 warehouse fails"),
        "{}",
        failed[0].detail
    );

    // A checked warehouse count that differs from the dictionary's.
    let checks = schema.check(2, &case.say).await.expect("check");
    let wrong: Vec<_> = failures(&checks).iter().map(|c| c.what.clone()).collect();
    assert!(wrong.contains(&"warehouse count".to_string()), "{wrong:?}");
    assert!(wrong.contains(&"rows in stock".to_string()), "{wrong:?}");
    case.lines();

    let deleted = schema.delete(&case.say).await.expect("delete");
    assert_eq!(
        deleted,
        [
            format!("{} TPROC-C schema has been deleted successfully.", case.db),
            format!("{} TPROC-C role has been deleted successfully.", case.user),
        ]
    );
    assert!(!case.db_exists().await);
    assert!(!case.role_exists().await);
    assert_eq!(case.lines().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_superuser_without_rights_is_told_which_it_lacks() {
    let mut case = Case::new("nocreate");
    case.set("pg_superuser", "hammer_nocreate");
    case.set("pg_superuserpass", "nocreate");
    let e = case
        .schema()
        .create(1, &case.say)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("User hammer_nocreate (pg_superuser) may not create roles"),
        "{e}"
    );
    assert!(e.contains("CREATEROLE") && !e.contains('\n'), "{e}");
    assert!(!e.contains("nocreate\"") && !e.contains("pgs'pass"), "{e}");

    // With a role that exists (the login itself), the database is what it may not create.
    case.set("pg_user", "hammer_nocreate");
    case.set("pg_pass", "nocreate");
    let e = case
        .schema()
        .create(1, &case.say)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("User hammer_nocreate (pg_superuser) may not create databases"),
        "{e}"
    );
    assert!(e.contains("CREATEDB") && !e.contains('\n'), "{e}");
    assert!(!case.db_exists().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_procedures_are_built_and_checked() {
    let mut case = Case::new("procs");
    case.set("pg_storedprocs", "true");
    let schema = case.schema();
    schema.create(1, &case.say).await.expect("create");
    schema
        .finish(&constants(), &case.say)
        .await
        .expect("finish");
    assert!(case
        .lines()
        .contains(&"Vuser 1:CREATING TPCC PROCEDURES".to_string()));
    let checks = schema.check(1, &case.say).await.expect("check");
    for name in ["neword", "payment", "ostat", "delivery", "slev"] {
        let c = checks
            .iter()
            .find(|c| c.what == format!("routine {name}"))
            .expect("routine checked");
        assert!(c.ok && c.detail == "procedure", "{c:?}");
    }
    // Empty tables: the row counts fail, the empty districts break no consistency rule.
    let failed: Vec<_> = failures(&checks).iter().map(|c| c.what.clone()).collect();
    assert!(failed.contains(&"rows in item".to_string()), "{failed:?}");
    assert!(
        failed.iter().all(|w| !w.starts_with("Check consistency")),
        "{failed:?}"
    );
    schema.delete(&case.say).await.expect("delete");
    assert!(!case.db_exists().await && !case.role_exists().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_existing_role_and_empty_database_are_used_and_the_role_kept() {
    let case = Case::new("reuse");
    let conn = case.admin("postgres").await;
    conn.client
        .batch_execute(&format!(
            "CREATE ROLE \"{}\" LOGIN PASSWORD E'pgs''pass\\\\word'",
            case.user
        ))
        .await
        .expect("role");
    conn.client
        .batch_execute(&format!("CREATE DATABASE \"{}\"", case.db))
        .await
        .expect("database");
    conn.close().await;

    let schema = case.schema();
    schema.create(1, &case.say).await.expect("create");
    let lines = case.lines();
    assert!(
        lines.contains(&format!(
            "Vuser 1:Using existing User {} for Schema build",
            case.user
        )),
        "{lines:#?}"
    );
    assert!(
        lines.contains(&format!(
            "Vuser 1:Using existing empty Database {} for Schema build",
            case.db
        )),
        "{lines:#?}"
    );
    let owner = format!(
        "SELECT count(*) FROM pg_tables WHERE tablename = 'warehouse' AND tableowner = '{}'",
        case.user
    );
    assert_eq!(case.count(&case.db, &owner).await, 1);

    let deleted = schema.delete(&case.say).await.expect("delete");
    assert_eq!(
        deleted[1],
        format!(
            "{} TPROC-C role was kept: hammer did not create it.",
            case.user
        )
    );
    assert!(!case.db_exists().await);
    assert!(case.role_exists().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_existing_role_that_does_not_log_in_is_left_alone() {
    let case = Case::new("badpass");
    let conn = case.admin("postgres").await;
    conn.client
        .batch_execute(&format!(
            "CREATE ROLE \"{}\" LOGIN PASSWORD 'other'",
            case.user
        ))
        .await
        .expect("role");
    conn.close().await;
    let e = case
        .schema()
        .create(1, &case.say)
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("does not log in with pg_pass"), "{e}");
    assert!(e.contains("password authentication failed"), "{e}");
    assert!(!case.db_exists().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_role_of_hammers_own_gets_its_password_back() {
    let case = Case::new("repass");
    let schema = case.schema();
    schema.create(1, &case.say).await.expect("create");
    let conn = case.admin("postgres").await;
    for sql in [
        format!("DROP DATABASE \"{}\" WITH (FORCE)", case.db),
        format!("ALTER ROLE \"{}\" PASSWORD 'other'", case.user),
    ] {
        conn.client.batch_execute(&sql).await.expect(&sql);
    }
    conn.close().await;
    case.lines();

    schema.create(1, &case.say).await.expect("create again");
    let lines = case.lines();
    let user = &case.user;
    for expected in [
        format!("Vuser 1:Using existing User {user} for Schema build"),
        format!("Vuser 1:Resetting the password of User {user}, created by hammer, to pg_pass"),
    ] {
        assert!(lines.contains(&expected), "{expected} in {lines:#?}");
    }
    let deleted = schema.delete(&case.say).await.expect("delete");
    assert_eq!(deleted.len(), 2, "{deleted:?}");
    assert!(!case.role_exists().await);
}

/// A managed server's administrator (RDS, Azure, Cloud SQL) is no superuser: CREATEROLE and
/// CREATEDB must do, through membership in the role it creates.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_administrator_with_createrole_and_createdb_builds_and_deletes() {
    let mut case = Case::new("adm");
    let admin = format!("{}_adm", case.user);
    let conn = case.admin("postgres").await;
    let sql = format!("CREATE ROLE \"{admin}\" LOGIN CREATEROLE CREATEDB PASSWORD 'adm'");
    conn.client.batch_execute(&sql).await.expect("admin role");
    conn.close().await;
    case.set("pg_superuser", &admin);
    case.set("pg_superuserpass", "adm");

    let schema = case.schema();
    schema.create(1, &case.say).await.expect("create");
    schema
        .finish(&constants(), &case.say)
        .await
        .expect("finish");
    let checks = schema.check(1, &case.say).await.expect("check");
    assert!(
        checks.iter().any(|c| c.what == "routine slev" && c.ok),
        "{checks:#?}"
    );
    let deleted = schema.delete(&case.say).await.expect("delete");
    assert_eq!(deleted.len(), 2, "{deleted:?}");
    assert!(deleted[1].ends_with("role has been deleted successfully."));
    assert!(!case.db_exists().await && !case.role_exists().await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn order_line_is_partitioned_from_200_warehouses() {
    let mut case = Case::new("part");
    case.set("pg_partition", "true");
    let schema = case.schema();
    schema.create(250, &case.say).await.expect("create");
    let parts = case
        .count(
            &case.db,
            "SELECT count(*) FROM pg_inherits WHERE inhparent = 'order_line'::regclass",
        )
        .await;
    assert_eq!(parts, 2);
    schema.delete(&case.say).await.expect("delete");

    // Below 200 warehouses the option is ignored.
    schema.create(199, &case.say).await.expect("create");
    let kind = case
        .count(
            &case.db,
            "SELECT count(*) FROM pg_class WHERE relname = 'order_line' AND relkind = 'r'",
        )
        .await;
    assert_eq!(kind, 1);
    schema.delete(&case.say).await.expect("delete");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_database_is_reported_by_check_and_delete() {
    let case = Case::new("missing");
    let schema = case.schema();
    let checks = schema.check(1, &case.say).await.expect("check");
    assert_eq!(checks.len(), 1, "{checks:#?}");
    assert!(!checks[0].ok);
    assert_eq!(
        checks[0].detail,
        format!("TPROC-C schema {} does not exist", case.db)
    );
    // Nothing to delete is said, and is no error.
    let said = schema.delete(&case.say).await.expect("nothing to delete");
    assert!(
        said[0].starts_with(&format!("Database {} does not exist", case.db))
            && said[0].ends_with(": nothing to delete"),
        "{said:?}"
    );
}
