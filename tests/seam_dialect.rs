//! Adding a dialect, done from outside the crate: a TiDB-like MySQL dialect (no stored
//! procedures, no bulk load path) and a CockroachDB-like PostgreSQL one, built as the real
//! dialects are, from the public seams only, and checked for the answers the family code
//! reads from a dialect: key names, dictionary defaults, routines, the server pick, and that
//! the engine made from a dialect answers with that dialect (its driver's routines), not
//! with the one its database would pick, while the server is named as what it is.

mod common;

use hammer::config::keys::{MyDefaults, PgDefaults};
use hammer::config::{Database, Settings, Target};
use hammer::db::engine::Engine;
use hammer::db::mysql::dialect::{Bulk, MyDialect, MARIADB, MYSQL, STATUS_SQL};
use hammer::db::mysql::engine::Mysql;
use hammer::db::postgres::dialect::{DropDatabase, PgDialect, Routines, POSTGRESQL};
use hammer::db::postgres::engine::{Postgres, POSTGRESQL as POSTGRESQL_ENGINE};
use hammer::tpcc::support::Family;
use hammer::tpcc::txn::{Mode, TxnDb};

/// A MySQL-protocol database without stored procedures, on the `mysql_*` dictionary (a test
/// cannot add a `Database`; a real dialect adds its own, with its own row of defaults).
static TIDB_LIKE: MyDialect = MyDialect {
    database: Database::Mysql,
    server: "TiDB",
    version_mark: Some("TiDB"),
    routines: false,
    compound_statements: false,
    partitioning: true,
    invisible_pk_since: (u16::MAX, 0, 0),
    null_password: false,
    option_groups: &["client"],
    bulk: Bulk::Insert,
    status_sql: STATUS_SQL,
    retry_codes: &[9007],
    unsupported: &[],
    tested_on: Some("MariaDB"),
};

/// Its engine: the family's code, made from the dialect as the real engines are.
static TIDB_ENGINE: Mysql = Mysql::of(&TIDB_LIKE);

/// A PostgreSQL-protocol database without stored routines or hash partitions (on the `pg_*`
/// dictionary, as above).
static COCKROACH_LIKE: PgDialect = PgDialect {
    database: Database::Pg,
    server: "CockroachDB",
    version_mark: Some("CockroachDB"),
    routines: false,
    partitioning: false,
    keys_in_create: true,
    isolation: Some("SERIALIZABLE"),
    tablespaces: false,
    tablets: false,
    drop_database: DropDatabase::Cascade,
    role_comments: false,
    load_session: "",
    key_session: "",
    counter_sql: POSTGRESQL.counter_sql,
    unsupported: &[],
    tested_on: Some("PostgreSQL"),
};

static COCKROACH_ENGINE: Postgres = Postgres::of(&COCKROACH_LIKE);

/// The dialect's defaults are what its dictionary holds before anyone sets a key.
fn holds_its_defaults(d: &MyDialect, s: &Settings) {
    let dict = s.db(d.database);
    let MyDefaults {
        host,
        port,
        socket,
        user,
        pass,
        connection,
        tpcc,
    } = d.defaults();
    for (key, default) in [
        ("host", host),
        ("port", port),
        ("socket", socket),
        ("user", user),
        ("tpch_user", user),
        ("pass", pass),
        ("tpch_pass", pass),
    ] {
        assert_eq!(dict.get(&d.key(key)), *default, "{}: {key}", d.server);
    }
    for (key, default, _) in connection.iter().chain(tpcc.iter()) {
        assert_eq!(dict.get(&d.key(key)), *default, "{}: {key}", d.server);
    }
}

#[test]
fn a_mysql_dialect_is_one_value_the_family_reads() {
    let s = Settings::defaults();
    assert_eq!(TIDB_LIKE.key("count_ware"), "mysql_count_ware");
    for d in [&TIDB_LIKE, &MARIADB, &MYSQL] {
        holds_its_defaults(d, &s);
    }
    // No stored procedures: client-side SQL whatever `*_no_stored_procs` says.
    assert!(TIDB_LIKE.client_sql(&s));
    assert!(!MYSQL.client_sql(&s));
    let mut asked = Settings::defaults();
    asked
        .set(
            Target::Db(Database::Mysql),
            "tpcc",
            "mysql_no_stored_procs",
            "true",
        )
        .unwrap();
    assert!(MYSQL.client_sql(&asked));
    // The engine made from it answers for its database, with its dialect.
    assert_eq!(TIDB_ENGINE.database(), Database::Mysql);
    assert_eq!(TIDB_ENGINE.client(), "mywire");
    assert!(std::ptr::eq(TIDB_ENGINE.dialect(), &TIDB_LIKE));
}

#[test]
fn the_real_mysql_dialects_are_picked_by_dictionary_and_by_server() {
    for db in Database::ALL {
        if hammer::db::engine(db).client() != "mywire" {
            continue;
        }
        let d = MyDialect::of(db);
        assert_eq!(d.database, db);
        assert_eq!(d.key("count_ware"), format!("{}_count_ware", db.prefix()));
    }
    assert!(std::ptr::eq(
        MyDialect::of_server("10.11.19-MariaDB-0+deb12u1"),
        &MARIADB
    ));
    assert!(std::ptr::eq(MyDialect::of_server("8.0.36"), &MYSQL));
    // A dialect in the family's list is picked by its mark; one outside it (the test's own)
    // is not: adding one means its row in `MyDialect::ALL`, which is the family's to hold.
    assert!(std::ptr::eq(
        MyDialect::of_server("8.0.11-TiDB-v7.5.0"),
        &hammer::db::mysql::dialect::TIDB
    ));
    assert!(!MyDialect::ALL.iter().any(|d| std::ptr::eq(*d, &TIDB_LIKE)));
    // Every dialect without routines is one whose database cannot be installed here.
    for d in MyDialect::ALL {
        assert_eq!(d.routines, d.tested_on.is_none(), "{}", d.server);
    }
}

#[test]
fn a_postgresql_dialect_is_one_value_the_family_reads() {
    let mut s = Settings::defaults();
    assert_eq!(COCKROACH_LIKE.key("count_ware"), "pg_count_ware");
    assert_eq!(POSTGRESQL.routines(&s), Routines::Functions);
    assert_eq!(COCKROACH_LIKE.routines(&s), Routines::ClientSql);
    s.set(Target::Db(Database::Pg), "tpcc", "pg_storedprocs", "true")
        .unwrap();
    assert_eq!(POSTGRESQL.routines(&s), Routines::Procedures);
    assert_eq!(COCKROACH_LIKE.routines(&s), Routines::ClientSql);
    assert_eq!(COCKROACH_ENGINE.database(), Database::Pg);
    assert_eq!(COCKROACH_ENGINE.client(), "tokio-postgres");
    assert!(std::ptr::eq(COCKROACH_ENGINE.dialect(), &COCKROACH_LIKE));
    assert!(std::ptr::eq(PgDialect::of(Database::Pg), &POSTGRESQL));
}

#[test]
fn a_postgresql_dialect_holds_its_dictionarys_defaults() {
    let s = Settings::defaults();
    for d in [&COCKROACH_LIKE, &POSTGRESQL] {
        let dict = s.db(d.database);
        let PgDefaults {
            host,
            port,
            superuser,
            superuserpass,
            defaultdbase,
            tspace,
            tpcc,
        } = d.defaults();
        for (key, default) in [
            ("host", host),
            ("port", port),
            ("superuser", superuser),
            ("tpch_superuser", superuser),
            ("superuserpass", superuserpass),
            ("tpch_superuserpass", superuserpass),
            ("defaultdbase", defaultdbase),
            ("tpch_defaultdbase", defaultdbase),
            ("tspace", tspace),
        ] {
            assert_eq!(dict.get(&d.key(key)), *default, "{}: {key}", d.server);
        }
        for (key, default, _) in *tpcc {
            assert_eq!(dict.get(&d.key(key)), *default, "{}: {key}", d.server);
        }
    }
}

/// The engines made from the test dialects share their database with a real engine, so only
/// the dialect they carry can make their answers differ from it.
#[test]
fn an_engine_answers_with_the_dialect_it_was_made_from() {
    let s = Settings::defaults();
    // The TPROC-C driver each engine makes runs as its dialect allows.
    assert_eq!(COCKROACH_ENGINE.driver(&s, false).mode(), Mode::ClientSql);
    assert_eq!(
        POSTGRESQL_ENGINE.driver(&s, false).mode(),
        Mode::StoredProcedures
    );
    assert_eq!(TIDB_ENGINE.driver(&s, false).mode(), Mode::ClientSql);
    let mysql = &hammer::db::mysql::engine::MYSQL;
    assert_eq!(mysql.driver(&s, false).mode(), Mode::StoredProcedures);
    assert_eq!(COCKROACH_ENGINE.routines(&s), "client-side SQL");
    assert_eq!(TIDB_ENGINE.routines(&s), "client-side SQL");

    // The server is named as the engine's dialect names it.
    let servers = common::Servers::get();
    servers.require();
    let settings = servers.pg_settings();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // A dialect pointed at another kind of server names the server it reached, and says
    // in one line that it is not its own.
    let probed = rt
        .block_on(COCKROACH_ENGINE.probe(&settings))
        .expect("the test PostgreSQL answers");
    assert!(
        probed.version.starts_with("PostgreSQL "),
        "{}",
        probed.version
    );
    let note = probed
        .note
        .expect("a note: CockroachDB's dialect reached PostgreSQL");
    assert!(
        note.starts_with("the CockroachDB dialect reached a PostgreSQL server at ")
            && !note.contains('\n'),
        "{note}"
    );
    let facts = rt
        .block_on(COCKROACH_ENGINE.server_facts(&settings))
        .expect("the test PostgreSQL answers");
    assert!(
        facts.version.starts_with("PostgreSQL "),
        "{}",
        facts.version
    );
    let real = rt
        .block_on(POSTGRESQL_ENGINE.probe(&settings))
        .expect("the test PostgreSQL answers");
    assert!(real.version.starts_with("PostgreSQL "), "{}", real.version);
    assert_eq!(
        real.note, None,
        "PostgreSQL's own dialect reached its own server"
    );
}

#[test]
fn the_databases_list_names_every_database_once() {
    use hammer::config::DATABASES;
    use std::collections::BTreeSet;
    // Each database's words (MySQL's prefix and display name are one word)...
    let each: Vec<BTreeSet<String>> = DATABASES
        .iter()
        .map(|n| {
            [n.prefix.to_string(), n.name.to_ascii_lowercase()]
                .into_iter()
                .chain(n.aliases.iter().map(|a| a.to_ascii_lowercase()))
                .collect()
        })
        .collect();
    // ...name no other database.
    let all: BTreeSet<&String> = each.iter().flatten().collect();
    assert_eq!(
        all.len(),
        each.iter().map(BTreeSet::len).sum::<usize>(),
        "a word names two databases"
    );
    for n in DATABASES {
        assert_eq!(Database::from_typed(n.prefix), Some(n.db));
        assert_eq!(Database::from_typed(n.name), Some(n.db));
        for a in n.aliases {
            assert_eq!(Database::from_typed(a), Some(n.db), "{a}");
        }
    }
}
