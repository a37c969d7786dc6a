//! Real-server tests of the TPROC-C schema on MariaDB: build, load, check, refuse, delete,
//! through both the `maria_*` and the `mysql_*` dictionaries.
//!
//! Each test works in a database of its own (`hammer_mys_<test>_<pid>`) and drops it at the
//! end, also when it fails.

mod common;

use std::collections::HashMap;

use common::Servers;
use hammer::config::{Database, Settings, Target};
use hammer::db::mysql::schema::{LoadMethod, MySchema};
use hammer::error::Error;
use hammer::output::Output;
use hammer::tpcc::schema::{Check, Loader, Say, SchemaDb};
use hammer::tpcc::{Constants, Format, Generator, Table, DISTRICTS_PER_W, ITEMS, STOCK_PER_W};
use mysql_async::prelude::Queryable;
use rand::rngs::SmallRng;
use rand::SeedableRng;

const LOAD_TIME: &str = "2025-01-02 03:04:05";

/// The dictionary `db` pointed at the test MariaDB, as `user`, on database `dbname`.
fn settings(db: Database, dbname: &str, user: Option<(&str, &str)>) -> Settings {
    let servers = Servers::get();
    servers.require();
    let mut s = Settings::defaults();
    let p = db.prefix();
    let (user, pass) = user.unwrap_or((&servers.maria_user, &servers.maria_pass));
    // The MySQL dictionary reaches the same server over TCP only.
    let socket = match db {
        Database::Mysql => "null".to_string(),
        _ => servers.maria_socket.clone(),
    };
    let port = servers.maria_port.to_string();
    for (section, key, value) in [
        ("connection", "host", servers.maria_host.as_str()),
        ("connection", "port", port.as_str()),
        ("connection", "socket", socket.as_str()),
        ("tpcc", "user", user),
        ("tpcc", "pass", pass),
        ("tpcc", "dbase", dbname),
    ] {
        s.set(Target::Db(db), section, &format!("{p}_{key}"), value)
            .unwrap_or_else(|e| panic!("{p}_{key}: {e}"));
    }
    s
}

fn set(s: &mut Settings, db: Database, key: &str, value: &str) {
    let key = format!("{}_{key}", db.prefix());
    s.set(Target::Db(db), "tpcc", &key, value)
        .unwrap_or_else(|e| panic!("{key}: {e}"));
}

fn dbname(test: &str) -> String {
    format!("hammer_mys_{test}_{}", std::process::id())
}

/// Drops the test's database when the test ends, however it ends.
struct Scratch {
    settings: Settings,
    db: Database,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let schema = MySchema::new(&self.settings, self.db);
        // A runtime of its own on a thread of its own: the test's runtime may be shutting down.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            let say = Say::new(Output::capture(), 1);
            let _ = rt.block_on(schema.delete(&say));
        })
        .join();
    }
}

fn say() -> (Say, Output) {
    let out = Output::capture();
    (Say::new(out.clone(), 1), out)
}

/// A raw connection on the test database, for looking behind the schema's back.
async fn raw(dbname: &str) -> mysql_async::Conn {
    let s = Servers::get();
    let opts = mysql_async::OptsBuilder::default()
        .ip_or_hostname(s.maria_host)
        .tcp_port(s.maria_port)
        .user(Some(s.maria_user))
        .pass(Some(s.maria_pass))
        .db_name(Some(dbname));
    mysql_async::Conn::new(opts).await.expect("raw connection")
}

async fn count(conn: &mut mysql_async::Conn, table: &str) -> u64 {
    conn.query_first(format!("SELECT COUNT(*) FROM {table}"))
        .await
        .expect("count")
        .unwrap_or(0)
}

fn constants() -> Constants {
    Constants::for_load(&mut SmallRng::seed_from_u64(7))
}

fn generator() -> Generator {
    Generator::new(
        Format::COPY,
        constants(),
        LOAD_TIME,
        SmallRng::seed_from_u64(42),
    )
}

async fn load(loader: &mut impl Loader, table: Table, rows: &[u8]) {
    loader
        .load(table, rows)
        .await
        .unwrap_or_else(|e| panic!("loading {}: {e}", table.name()));
}

/// Warehouse 1 as the build loads it: items, the warehouse, its stock and districts, then
/// customers with history and orders for every district. `districts` limits the last two.
async fn load_warehouse(schema: &MySchema, districts: u32) {
    let mut gen = generator();
    let mut loader = schema
        .loader(hammer::endpoint::Position::Loader { n: 1, of: 1 })
        .await
        .expect("loader");
    let mut buf = Vec::new();
    gen.items(1..=ITEMS, &mut buf);
    load(&mut loader, Table::Item, &buf).await;
    buf.clear();
    gen.warehouse(1, &mut buf);
    load(&mut loader, Table::Warehouse, &buf).await;
    buf.clear();
    gen.stock(1, 1..=STOCK_PER_W, &mut buf);
    load(&mut loader, Table::Stock, &buf).await;
    buf.clear();
    gen.districts(1, &mut buf);
    load(&mut loader, Table::District, &buf).await;
    for d in 1..=districts {
        let (mut c, mut h) = (Vec::new(), Vec::new());
        gen.customers_and_history(1, d, &mut c, &mut h);
        load(&mut loader, Table::Customer, &c).await;
        load(&mut loader, Table::History, &h).await;
    }
    for d in 1..=districts {
        let (mut o, mut no, mut ol) = (Vec::new(), Vec::new(), Vec::new());
        gen.orders(1, d, &mut o, &mut no, &mut ol);
        load(&mut loader, Table::Orders, &o).await;
        load(&mut loader, Table::NewOrder, &no).await;
        load(&mut loader, Table::OrderLine, &ol).await;
    }
    loader.close().await;
}

fn failed(checks: &[Check]) -> Vec<&Check> {
    checks.iter().filter(|c| !c.ok).collect()
}

/// The message of a refusal: an error of hammer's own, not the server's or the user's stop.
/// The callers compare the words, so this holds whichever variant carries them.
fn refusal(e: Error) -> String {
    match e {
        Error::Db(_) | Error::Interrupted | Error::Io { .. } => {
            panic!("expected a refusal, got {e:?}")
        }
        other => other.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn builds_loads_checks_and_deletes_one_warehouse() {
    let name = dbname("build");
    let mut s = settings(Database::Maria, &name, None);
    set(&mut s, Database::Maria, "history_pk", "true");
    set(&mut s, Database::Maria, "partition", "true");
    let _scratch = Scratch {
        settings: s.clone(),
        db: Database::Maria,
    };
    let schema = MySchema::new(&s, Database::Maria);
    assert_eq!(schema.name(), "MariaDB");
    assert!(
        schema
            .describe()
            .ends_with(&format!("under user root in database {name}")),
        "{}",
        schema.describe()
    );
    let (say, out) = say();

    schema.create(1, &say).await.expect("create");
    let lines = out.take_captured();
    assert_eq!(
        lines,
        [
            format!("Vuser 1:CREATING {} SCHEMA", name.to_uppercase()),
            format!("Vuser 1:CHECKING IF DATABASE {name} EXISTS"),
            format!("Vuser 1:CREATING DATABASE {name}"),
            "Vuser 1:Partitioning needs at least 200 warehouses, 1 requested: ORDER_LINE not partitioned".into(),
            "Vuser 1:CREATING TPCC TABLES".into(),
            "Vuser 1:Loading rows with LOAD DATA LOCAL INFILE".into(),
        ]
    );
    assert_eq!(schema.load_method(), Some(LoadMethod::LoadData));

    load_warehouse(&schema, DISTRICTS_PER_W).await;
    schema.finish(&constants(), &say).await.expect("finish");
    assert_eq!(
        out.take_captured(),
        [
            "Vuser 1:CREATING TPCC STORED PROCEDURES".to_string(),
            "Vuser 1:GATHERING SCHEMA STATISTICS".into(),
            format!("Vuser 1:{} SCHEMA COMPLETE", name.to_uppercase()),
        ]
    );
    assert!(schema.size_on_disk().await.expect("size") > 0);

    let mut conn = raw(&name).await;
    // The database and tables have the collation the procedures rely on; HISTORY has its
    // invisible key (MariaDB >= 10.3.3, InnoDB).
    let collation: Option<String> = conn
        .query_first("SELECT @@collation_database")
        .await
        .unwrap();
    assert_eq!(collation.as_deref(), Some("latin1_bin"));
    let extra: Option<String> = conn
        .exec_first(
            "SELECT EXTRA FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'history' AND COLUMN_NAME = 'id'",
            (&name,),
        )
        .await
        .unwrap();
    assert!(
        extra
            .unwrap_or_default()
            .to_uppercase()
            .contains("INVISIBLE"),
        "history has no invisible id"
    );
    // NULLs arrive as NULL, and the loaded text is the generated text.
    assert_eq!(
        count(&mut conn, "orders WHERE o_carrier_id IS NULL").await,
        9_000
    );
    assert_eq!(
        count(&mut conn, "order_line WHERE ol_delivery_d IS NULL").await,
        count(&mut conn, "order_line WHERE ol_o_id > 2100").await
    );
    let since: Option<String> = conn
        .query_first("SELECT CAST(MIN(c_since) AS CHAR) FROM customer")
        .await
        .unwrap();
    assert_eq!(since.as_deref(), Some(LOAD_TIME));

    let checks = schema.check(1, &say).await.expect("check");
    assert!(failed(&checks).is_empty(), "{:#?}", failed(&checks));
    assert!(checks.len() >= 9 + 8 + 5 + 1 + 1 + 9 + 4, "{checks:#?}");
    let lines = out.take_captured();
    assert_eq!(lines[0], format!("Vuser 1:Checking {name} TPROC-C schema"));
    assert!(lines.contains(&"Vuser 1:Check consistency 4".to_string()));

    // One district's D_YTD off by a cent breaks condition 1 and nothing else.
    conn.query_drop("UPDATE district SET d_ytd = d_ytd + 0.01 WHERE d_w_id = 1 AND d_id = 3")
        .await
        .unwrap();
    conn.disconnect().await.unwrap();
    let checks = schema.check(1, &say).await.expect("check");
    let bad = failed(&checks);
    assert_eq!(bad.len(), 1, "{bad:#?}");
    assert_eq!(bad[0].what, "Check consistency 1");
    assert!(
        bad[0]
            .detail
            .contains("warehouse 1 has W_YTD 300000.00 but sum(D_YTD) 300000.01")
            && bad[0].detail.ends_with("1 warehouse fails"),
        "{}",
        bad[0].detail
    );
    // The dictionary's warehouse count is checked too.
    let checks = schema.check(2, &say).await.expect("check");
    let bad: Vec<&str> = failed(&checks).iter().map(|c| c.what.as_str()).collect();
    assert!(bad.contains(&"warehouse count"), "{bad:?}");
    // Missing keys and procedures are named.
    let mut conn = raw(&name).await;
    conn.query_drop("DROP INDEX o_w_id ON orders")
        .await
        .unwrap();
    conn.query_drop("DROP PROCEDURE SLEV").await.unwrap();
    conn.disconnect().await.unwrap();
    let checks = schema.check(1, &say).await.expect("check");
    let bad: Vec<String> = failed(&checks)
        .iter()
        .map(|c| format!("{}: {}", c.what, c.detail))
        .collect();
    assert_eq!(
        bad[..2],
        [
            "indexes on orders: missing o_w_id (has PRIMARY)",
            "procedure SLEV: missing procedure SLEV"
        ],
        "{bad:#?}"
    );

    let lines = schema.delete(&say).await.expect("delete");
    assert_eq!(
        lines,
        [format!(
            "{name} TPROC-C Schema has been deleted successfully."
        )]
    );
    let checks = schema.check(1, &say).await.expect("check");
    assert_eq!(checks.len(), 1);
    assert!(!checks[0].ok && checks[0].detail.contains("does not exist"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refuses_a_database_with_tables_and_leaves_it_alone() {
    let name = dbname("refuse");
    let s = settings(Database::Maria, &name, None);
    let _scratch = Scratch {
        settings: s.clone(),
        db: Database::Maria,
    };
    let (say, out) = say();
    let schema = MySchema::new(&s, Database::Maria);
    schema.create(1, &say).await.expect("create");
    let mut loader = schema
        .loader(hammer::endpoint::Position::Loader { n: 1, of: 1 })
        .await
        .expect("loader");
    let mut rows = Vec::new();
    generator().items(1..=1_000, &mut rows);
    load(&mut loader, Table::Item, &rows).await;
    // LOAD DATA LOCAL only warns about duplicate keys; the loader rolls such a load back.
    let e = loader
        .load(Table::Item, &rows)
        .await
        .expect_err("duplicates")
        .to_string();
    assert!(
        e.contains("table item: LOAD DATA read 0 of 1000 rows") && e.contains("rolled back"),
        "{e}"
    );
    let mut more = Vec::new();
    generator().items(1_001..=1_010, &mut more);
    rows.extend_from_slice(&more);
    assert!(loader.load(Table::Item, &rows).await.is_err());
    loader.close().await;
    out.take_captured();

    let again = MySchema::new(&s, Database::Maria);
    let msg = refusal(again.create(1, &say).await.expect_err("refused"));
    assert_eq!(
        msg,
        format!(
            "Database {name} exists but is not empty, specify a new or empty database name, \
             or remove the existing schema with deleteschema"
        )
    );
    assert_eq!(
        out.take_captured(),
        [
            format!("Vuser 1:CREATING {} SCHEMA", name.to_uppercase()),
            format!("Vuser 1:CHECKING IF DATABASE {name} EXISTS")
        ]
    );
    let mut conn = raw(&name).await;
    assert_eq!(count(&mut conn, "item").await, 1_000);
    let tables: u64 = conn
        .exec_first(
            "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
            (&name,),
        )
        .await
        .unwrap()
        .unwrap_or(0);
    assert_eq!(tables, 9);
    // An empty database is used as it is.
    conn.query_drop("DROP TABLE warehouse, district, customer, history, new_order, orders, order_line, item, stock")
        .await
        .unwrap();
    conn.disconnect().await.unwrap();
    again
        .create(1, &say)
        .await
        .expect("create in the empty database");
    assert_eq!(
        out.take_captured()[1..3],
        [
            format!("Vuser 1:CHECKING IF DATABASE {name} EXISTS"),
            format!("Vuser 1:Using existing empty Database {name} for Schema build"),
        ]
    );

    schema.delete(&say).await.expect("delete");
    // Nothing to delete is said, and is no error.
    let said = schema.delete(&say).await.expect("nothing to delete");
    assert!(
        said.len() == 1
            && said[0].starts_with(&format!("Database {name} does not exist on MariaDB at"))
            && said[0].ends_with(": nothing to delete"),
        "{said:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_create_leaves_nothing_behind() {
    let name = dbname("badengine");
    let mut s = settings(Database::Maria, &name, None);
    set(&mut s, Database::Maria, "storage_engine", "nosuchengine");
    let _scratch = Scratch {
        settings: s.clone(),
        db: Database::Maria,
    };
    let (say, _out) = say();
    let schema = MySchema::new(&s, Database::Maria);
    let e = schema.create(1, &say).await.expect_err("unknown engine");
    assert!(e.to_string().contains("nosuchengine"), "{e}");
    let mut conn = raw("information_schema").await;
    let left: u64 = conn
        .exec_first(
            "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
            (&name,),
        )
        .await
        .unwrap()
        .unwrap_or(0);
    assert_eq!(left, 0);
    conn.disconnect().await.unwrap();

    set(&mut s, Database::Maria, "storage_engine", "inno;db");
    let e = MySchema::new(&s, Database::Maria)
        .create(1, &say)
        .await
        .expect_err("not a name");
    assert_eq!(
        refusal(e),
        "Value inno;db for tpcc:maria_storage_engine is not a storage engine name (letters, \
         digits and _, e.g. innodb)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_without_create_rights_is_told_which() {
    let name = dbname("nocreate");
    let s = settings(
        Database::Maria,
        &name,
        Some(("hammer_nocreate", "nocreate")),
    );
    let (say, _out) = say();
    let schema = MySchema::new(&s, Database::Maria);
    let msg = refusal(schema.create(1, &say).await.expect_err("no CREATE right"));
    assert!(!msg.contains('\n'), "{msg}");
    assert!(
        msg.starts_with(&format!(
            "User hammer_nocreate may not create database {name} on MariaDB at"
        )) && msg.contains("lacks the CREATE privilege"),
        "{msg}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insert_fallback_loads_the_same_rows() {
    let mut conns = Vec::new();
    let mut scratches = Vec::new();
    for (test, inserts) in [("viald", false), ("viains", true)] {
        let name = dbname(test);
        let s = settings(Database::Maria, &name, None);
        scratches.push(Scratch {
            settings: s.clone(),
            db: Database::Maria,
        });
        let mut schema = MySchema::new(&s, Database::Maria);
        if inserts {
            schema = schema.with_inserts();
        }
        let (say, out) = say();
        schema.create(1, &say).await.expect("create");
        let method = if inserts {
            "multi-row INSERT statements"
        } else {
            "LOAD DATA LOCAL INFILE"
        };
        assert_eq!(
            out.take_captured().last().map(String::as_str),
            Some(format!("Vuser 1:Loading rows with {method}").as_str())
        );
        // Items, the warehouse with its stock and districts, one district's customers and orders.
        load_warehouse(&schema, 1).await;
        conns.push(raw(&name).await);
    }
    let mut sums: Vec<HashMap<&str, (u64, Option<u64>)>> = Vec::new();
    for conn in &mut conns {
        let mut m = HashMap::new();
        for t in Table::ALL {
            let n = count(conn, t.name()).await;
            let sum: Option<(String, Option<u64>)> = conn
                .query_first(format!("CHECKSUM TABLE {}", t.name()))
                .await
                .unwrap();
            m.insert(t.name(), (n, sum.and_then(|s| s.1)));
        }
        sums.push(m);
    }
    assert_eq!(sums[0], sums[1]);
    assert_eq!(sums[0]["stock"].0, 100_000);
    assert_eq!(sums[0]["customer"].0, 3_000);
    assert_eq!(sums[0]["new_order"].0, 900);
    for conn in conns {
        conn.disconnect().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_dictionary_builds_over_tcp() {
    let name = dbname("mysqldict");
    let s = settings(Database::Mysql, &name, None);
    let _scratch = Scratch {
        settings: s.clone(),
        db: Database::Mysql,
    };
    let schema = MySchema::new(&s, Database::Mysql);
    assert_eq!(schema.name(), "MySQL");
    assert!(
        schema.describe().starts_with("host 127.0.0.1:"),
        "{}",
        schema.describe()
    );
    let (say, out) = say();
    schema.create(1, &say).await.expect("create");
    let mut loader = schema
        .loader(hammer::endpoint::Position::Loader { n: 1, of: 1 })
        .await
        .expect("loader");
    let mut rows = Vec::new();
    let mut gen = generator();
    gen.warehouse(1, &mut rows);
    load(&mut loader, Table::Warehouse, &rows).await;
    rows.clear();
    gen.districts(1, &mut rows);
    load(&mut loader, Table::District, &rows).await;
    loader.close().await;
    schema.finish(&constants(), &say).await.expect("finish");
    assert_eq!(
        out.take_captured().last().map(String::as_str),
        Some(format!("Vuser 1:{} SCHEMA COMPLETE", name.to_uppercase()).as_str())
    );
    let checks = schema.check(1, &say).await.expect("check");
    // Structure and the warehouse are all there; most tables are empty on purpose.
    for c in &checks {
        let structural = c.what.starts_with("table ")
            || c.what.starts_with("indexes ")
            || c.what.starts_with("procedure ")
            || c.what.starts_with("database ")
            || c.what == "warehouse count"
            || c.what == "Check consistency 1";
        if structural {
            assert!(c.ok, "{c:?}");
        }
    }
    assert!(checks
        .iter()
        .any(|c| c.what == "rows in stock" && !c.ok && c.detail.contains("less than expected")));
    schema.delete(&say).await.expect("delete");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn order_line_is_partitioned_from_200_warehouses() {
    let name = dbname("partition");
    let mut s = settings(Database::Maria, &name, None);
    set(&mut s, Database::Maria, "partition", "true");
    set(&mut s, Database::Maria, "storage_engine", "myisam");
    set(&mut s, Database::Maria, "history_pk", "true");
    let _scratch = Scratch {
        settings: s.clone(),
        db: Database::Maria,
    };
    let schema = MySchema::new(&s, Database::Maria);
    let (say, out) = say();
    schema.create(250, &say).await.expect("create");
    let lines = out.take_captured();
    assert!(
        lines.iter().any(|l| l.contains(
            "Invisible PK needs the InnoDB engine, not myisam: maria_history_pk ignored"
        )),
        "{lines:#?}"
    );
    let mut conn = raw(&name).await;
    let parts: u64 = conn
        .exec_first(
            "SELECT COUNT(*) FROM information_schema.PARTITIONS \
             WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'order_line' AND PARTITION_NAME IS NOT NULL",
            (&name,),
        )
        .await
        .unwrap()
        .unwrap_or(0);
    assert_eq!(parts, 2);
    let engine: Option<String> = conn
        .exec_first(
            "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'stock'",
            (&name,),
        )
        .await
        .unwrap();
    assert_eq!(engine.as_deref(), Some("MyISAM"));
    conn.disconnect().await.unwrap();
    schema.delete(&say).await.expect("delete");
}

/// Two MariaDB servers on one machine: the dictionary names the second one's port while
/// `maria_socket` is the first one's socket (HammerDB's default). The socket leads to the
/// wrong server, so hammer builds on the configured port over TCP, and says so.
#[test]
fn the_configured_port_wins_over_another_servers_socket() {
    let servers = Servers::get();
    servers.require();
    servers.require_maria2();
    let name = dbname("port");
    let mut f = common::Fixture::new();
    f.ok(&servers.configure());
    f.ok(&format!(
        "dbset db maria; diset connection maria_port {}; diset connection maria_socket {}; \
         diset tpcc maria_dbase {name}; diset tpcc maria_count_ware 1; diset tpcc maria_num_vu 1",
        servers.maria2_port, servers.maria_socket
    ));
    let mut settings = settings(Database::Maria, &name, None);
    settings
        .set(
            Target::Db(Database::Maria),
            "connection",
            "maria_port",
            &servers.maria2_port.to_string(),
        )
        .expect("maria_port");
    let _scratch = Scratch {
        settings,
        db: Database::Maria,
    };

    let (r, lines) = f.console("let r = librarycheck(); [r.maria.ok, r.maria.addr, r.maria.port]");
    let text = lines.join("\n");
    assert_eq!(
        r,
        Ok(format!(
            "[true, \"{}:{}\", {}]",
            servers.maria_host, servers.maria2_port, servers.maria2_port
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "maria_socket {} leads to the server listening on port {}, not maria_port {}",
            servers.maria_socket, servers.maria_port, servers.maria2_port
        )),
        "{text}"
    );

    let (r, lines) = f.console("buildschema().ok");
    let text = lines.join("\n");
    assert_eq!(r, Ok("true".to_string()), "{r:?}\n{text}");
    assert!(text.contains("connected over TCP to"), "{text}");
    // The schema is on the server named, and only there.
    assert!(
        servers.maria_databases(servers.maria2_port).contains(&name),
        "{text}"
    );
    assert!(
        !servers.maria_databases(servers.maria_port).contains(&name),
        "built on the server behind the socket"
    );
    let (r, lines) = f.console("checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    // A timed run runs and counts there too.
    f.ok(
        "diset tpcc maria_driver timed; diset tpcc maria_rampup 0.05; \
         diset tpcc maria_duration 0.2; vuset vu 1; vuset delay 0",
    );
    let orders = || {
        let (rt, mut conn) = servers.maria_on(servers.maria2_port, Some(&name));
        rt.block_on(async {
            let n: Option<u64> = conn
                .query_first("SELECT COUNT(*) FROM orders")
                .await
                .expect("orders");
            let _ = conn.disconnect().await;
            n.unwrap_or(0)
        })
    };
    let before = orders();
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    assert!(text.contains("TEST RESULT : System achieved"), "{text}");
    assert!(
        orders() > before,
        "no New-Order reached the server named\n{text}"
    );
    f.ok("vudestroy");

    // Through the second server's own socket, the check passes and nothing is rerouted.
    f.ok(&format!(
        "diset connection maria_socket {}",
        servers.maria2_socket
    ));
    let (r, lines) = f.console("let r = librarycheck(); [r.maria.addr, r.maria.port]");
    assert_eq!(
        r,
        Ok(format!(
            "[\"{}\", {}]",
            servers.maria2_socket, servers.maria2_port
        )),
        "{}",
        lines.join("\n")
    );
    // (Other databases' notes, such as a dialect's, are not about this socket.)
    assert!(
        !lines
            .iter()
            .any(|l| l.starts_with("Note:") && l.contains("_socket")),
        "{lines:#?}"
    );
}
