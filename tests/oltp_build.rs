//! OLTP's buildschema, checkschema and deleteschema on the real servers, held against
//! sysbench 1.0.20 itself: hammer builds into one database and sysbench's `prepare` into
//! another with the same options, and the two are compared from the server's catalog (tables,
//! columns, keys, indexes, sequences) and their rows (counts, ids, the spread of `k`, the
//! shape of `c` and `pad`). checkschema accepts both, and fails naming a missing table or a
//! short one; deleteschema drops the database of `sbtest` tables alone, and only the `sbtest`
//! tables of a database that holds others.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Fixture, Servers};

/// How long one `sysbench prepare` of these small tables may take before it is killed.
const SYSBENCH_WITHIN: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Db {
    Pg,
    Maria,
}

impl Db {
    fn prefix(self) -> &'static str {
        match self {
            Db::Pg => "pg",
            Db::Maria => "maria",
        }
    }
}

/// The tables' options, as sysbench's command line and hammer's `oltp` keys both say them.
#[derive(Debug, Clone, Copy)]
struct Options {
    /// sysbench's test script; `*_oltp_test`.
    test: &'static str,
    tables: u32,
    table_size: u32,
    auto_inc: bool,
    secondary: bool,
    create_secondary: bool,
    /// `--mysql-storage-engine`; `maria_oltp_storage_engine`. MariaDB only.
    engine: Option<&'static str>,
    /// `--threads` of sysbench's prepare; `*_oltp_build_threads`.
    loaders: u32,
}

/// sysbench's defaults, on two small tables.
const DEFAULTS: Options = Options {
    test: "oltp_read_write",
    tables: 2,
    table_size: 2000,
    auto_inc: true,
    secondary: false,
    create_secondary: true,
    engine: None,
    loaders: 1,
};

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

impl Options {
    /// sysbench's options for these tables.
    fn sysbench_args(&self) -> Vec<String> {
        let mut args = vec![
            format!("--tables={}", self.tables),
            format!("--table-size={}", self.table_size),
            format!("--auto_inc={}", on_off(self.auto_inc)),
            format!("--secondary={}", on_off(self.secondary)),
            format!("--create_secondary={}", on_off(self.create_secondary)),
            format!("--threads={}", self.loaders),
        ];
        if let Some(engine) = self.engine {
            args.push(format!("--mysql-storage-engine={engine}"));
        }
        args
    }

    /// The same, as hammer's keys.
    fn diset(&self, db: Db) -> String {
        let p = db.prefix();
        let mut s = format!(
            "diset oltp {p}_oltp_test {}; diset oltp {p}_oltp_tables {}; \
             diset oltp {p}_oltp_table_size {}; diset oltp {p}_oltp_auto_inc {}; \
             diset oltp {p}_oltp_secondary {}; diset oltp {p}_oltp_create_secondary {}; \
             diset oltp {p}_oltp_build_threads {}",
            self.test,
            self.tables,
            self.table_size,
            self.auto_inc,
            self.secondary,
            self.create_secondary,
            self.loaders
        );
        if db == Db::Maria {
            s.push_str(&format!(
                "; diset oltp maria_oltp_storage_engine {}",
                self.engine.unwrap_or("innodb")
            ));
        }
        s
    }
}

/// The test's databases (and on PostgreSQL the roles of the same names), dropped whatever
/// the test did.
struct Scratch {
    db: Db,
    names: Vec<String>,
}

impl Scratch {
    /// `hammer_ot_<db>_<tag>_<pid>_<which>` for each of `which`.
    fn new(db: Db, tag: &str, which: &[&str]) -> Scratch {
        let names = which
            .iter()
            .map(|w| format!("hammer_ot_{}_{tag}_{}_{w}", db.prefix(), std::process::id()))
            .collect();
        let scratch = Scratch { db, names };
        scratch.drop_all();
        scratch
    }

    fn name(&self, i: usize) -> &str {
        &self.names[i]
    }

    fn drop_all(&self) {
        let servers = Servers::get();
        for n in &self.names {
            match self.db {
                Db::Pg => {
                    // Two round trips: DROP DATABASE cannot share a batch.
                    servers.pg_exec(
                        "postgres",
                        &format!("DROP DATABASE IF EXISTS {n} WITH (FORCE)"),
                    );
                    servers.pg_exec("postgres", &format!("DROP ROLE IF EXISTS {n}"));
                }
                Db::Maria => {
                    servers.maria_exec("mysql", &[&format!("DROP DATABASE IF EXISTS {n}")])
                }
            }
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.drop_all();
    }
}

/// A session on `db` under OLTP, its live view off, its logins the test servers'.
fn session(db: Db) -> Fixture {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    f.ok(&format!("dbset db {}", db.prefix()));
    f.ok("dbset bm OLTP");
    f.ok("vuset refreshrate 0");
    if db == Db::Pg {
        f.ok(&format!(
            "diset oltp pg_oltp_superuser {}; diset oltp pg_oltp_superuserpass {}",
            servers.pg_user, servers.pg_pass
        ));
    } else {
        f.ok(&format!(
            "diset oltp maria_oltp_user {}; diset oltp maria_oltp_pass {}",
            servers.maria_user, servers.maria_pass
        ));
    }
    f
}

/// Points the session's `oltp` dictionary at database `name`: on PostgreSQL under a role of
/// the same name that hammer makes (`own_role`), or as the superuser (sysbench's login).
fn use_db(f: &mut Fixture, db: Db, name: &str, own_role: bool) {
    let p = db.prefix();
    f.ok(&format!("diset oltp {p}_oltp_dbase {name}"));
    if db == Db::Pg {
        let servers = Servers::get();
        let (user, pass) = if own_role {
            (name.to_string(), "ot_pass".to_string())
        } else {
            (servers.pg_user.clone(), servers.pg_pass.clone())
        };
        f.ok(&format!(
            "diset oltp pg_oltp_user {user}; diset oltp pg_oltp_pass {pass}"
        ));
    }
}

/// `sysbench <test> <options> prepare` into database `name` (made first, empty, as
/// sysbench needs), as the test servers' administrator; its output, or why it failed.
fn sysbench_prepare(db: Db, name: &str, o: &Options) -> Result<String, String> {
    let servers = Servers::get();
    let connect = match db {
        Db::Pg => {
            servers.pg_exec("postgres", &format!("CREATE DATABASE {name}"));
            vec![
                "--db-driver=pgsql".to_string(),
                format!("--pgsql-host={}", servers.pg_host),
                format!("--pgsql-port={}", servers.pg_port),
                format!("--pgsql-user={}", servers.pg_user),
                format!("--pgsql-password={}", servers.pg_pass),
                format!("--pgsql-db={name}"),
            ]
        }
        Db::Maria => {
            servers.maria_exec("mysql", &[&format!("CREATE DATABASE {name}")]);
            vec![
                "--db-driver=mysql".to_string(),
                format!("--mysql-socket={}", servers.maria_socket),
                format!("--mysql-user={}", servers.maria_user),
                format!("--mysql-password={}", servers.maria_pass),
                format!("--mysql-db={name}"),
            ]
        }
    };
    let mut args = vec![o.test.to_string()];
    args.extend(connect);
    args.extend(o.sysbench_args());
    args.push("prepare".to_string());
    sysbench(&args)
}

/// Runs sysbench with `args`, its output in a file (no pipe to fill), killed after
/// [`SYSBENCH_WITHIN`]: its output, or the failure with it.
fn sysbench(args: &[String]) -> Result<String, String> {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("sysbench.out");
    let file = std::fs::File::create(&log).expect("sysbench's log");
    let mut child = match Command::new("sysbench")
        .args(args)
        .stdin(Stdio::null())
        .stdout(file.try_clone().expect("log"))
        .stderr(file)
        .spawn()
    {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!(
            "sysbench is not installed (these tests compare hammer's tables with sysbench \
             1.0.20's): apt-get install sysbench"
        ),
        Err(e) => panic!("sysbench does not start: {e}"),
    };
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("sysbench's status") {
            break status;
        }
        if started.elapsed() > SYSBENCH_WITHIN {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "sysbench {} ran past {SYSBENCH_WITHIN:?}: killed\n{}",
                args.join(" "),
                read(&log)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = read(&log);
    if status.success() {
        Ok(text)
    } else {
        Err(format!(
            "sysbench {} failed ({status}):\n{text}",
            args.join(" ")
        ))
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The rows `sql` returns on database `name`, as the administrator, each cell as text.
fn query(db: Db, name: &str, sql: &str) -> Vec<Vec<Option<String>>> {
    let servers = Servers::get();
    match db {
        Db::Pg => {
            let (rt, conn) = servers.pg(name);
            rt.block_on(async {
                let messages = conn.client.simple_query(sql).await.expect(sql);
                conn.close().await;
                messages
                    .into_iter()
                    .filter_map(|m| match m {
                        tokio_postgres::SimpleQueryMessage::Row(r) => {
                            Some((0..r.len()).map(|i| r.get(i).map(String::from)).collect())
                        }
                        _ => None,
                    })
                    .collect()
            })
        }
        Db::Maria => {
            use mysql_async::prelude::Queryable;
            use mysql_async::Value;
            let (rt, mut conn) = servers.maria_on(servers.maria_port, Some(name));
            rt.block_on(async {
                let rows: Vec<mysql_async::Row> = conn.query(sql).await.expect(sql);
                let _ = conn.disconnect().await;
                rows.into_iter()
                    .map(|r| {
                        r.unwrap()
                            .into_iter()
                            .map(|v| match v {
                                Value::NULL => None,
                                Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
                                Value::Int(i) => Some(i.to_string()),
                                Value::UInt(u) => Some(u.to_string()),
                                Value::Float(x) => Some(x.to_string()),
                                Value::Double(x) => Some(x.to_string()),
                                other => Some(format!("{other:?}")),
                            })
                            .collect()
                    })
                    .collect()
            })
        }
    }
}

/// The first column of each row.
fn column(db: Db, name: &str, sql: &str) -> Vec<String> {
    query(db, name, sql)
        .into_iter()
        .map(|r| r.into_iter().next().flatten().unwrap_or_default())
        .collect()
}

/// Database `name`'s tables as the catalog describes them, one line per table, column,
/// index, constraint and sequence, sorted.
fn catalog(db: Db, name: &str) -> Vec<String> {
    let sql = match db {
        Db::Pg => {
            "SELECT 'table ' || c.relname || ' kind ' || c.relkind::text || ' persistence '
                    || c.relpersistence::text
               FROM pg_class c
              WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
             UNION ALL
             SELECT 'column ' || c.relname || '.' || a.attname || ' '
                    || format_type(a.atttypid, a.atttypmod)
                    || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE ' NULL' END
                    || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
                    || CASE WHEN a.attidentity <> '' THEN ' IDENTITY' ELSE '' END
               FROM pg_class c
               JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
               LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
              WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
             UNION ALL
             SELECT 'index ' || indexname || ': ' || indexdef
               FROM pg_indexes WHERE schemaname = 'public'
             UNION ALL
             SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ': '
                    || pg_get_constraintdef(oid)
               FROM pg_constraint WHERE connamespace = 'public'::regnamespace
             UNION ALL
             SELECT 'sequence ' || sequencename || ' ' || data_type::text || ' from '
                    || start_value || ' by ' || increment_by || ' last '
                    || coalesce(last_value::text, 'none')
               FROM pg_sequences WHERE schemaname = 'public'
             ORDER BY 1"
        }
        Db::Maria => {
            "SELECT CONCAT('table ', TABLE_NAME, ' ', ENGINE, ' ', TABLE_COLLATION, ' ',
                           ROW_FORMAT, ' next id ', COALESCE(AUTO_INCREMENT, 'none'))
               FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()
             UNION ALL
             SELECT CONCAT('column ', TABLE_NAME, '.', COLUMN_NAME, ' ', COLUMN_TYPE,
                           IF(IS_NULLABLE = 'NO', ' NOT NULL', ' NULL'),
                           ' DEFAULT ', COALESCE(COLUMN_DEFAULT, 'none'), ' ', EXTRA, ' ',
                           COALESCE(COLLATION_NAME, ''))
               FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()
             UNION ALL
             SELECT CONCAT('index ', TABLE_NAME, '.', INDEX_NAME,
                           IF(NON_UNIQUE = 0, ' UNIQUE ', ' '), INDEX_TYPE, ' (',
                           GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX), ')')
               FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()
              GROUP BY TABLE_NAME, INDEX_NAME, NON_UNIQUE, INDEX_TYPE
             ORDER BY 1"
        }
    };
    column(db, name, sql)
}

/// What one table's rows are like: what must equal sysbench's, and the spread of `k`, which
/// is drawn at random and compared within a margin.
#[derive(Debug, PartialEq)]
struct Rows {
    /// Rows, least and greatest id, distinct ids, least and greatest length of `c` and of
    /// `pad`, and the rows whose `c` or `pad` is not digit groups as sysbench's templates
    /// make them.
    exact: Vec<Option<String>>,
    /// Least and greatest `k`.
    k_range: Option<(u32, u32)>,
    /// Mean of `k`.
    k_mean: f64,
    /// The share of the rows whose `k` is one of the most frequent 1 % of the values (the
    /// `special` distribution's mark: 75 % of draws fall on 1 % of the range).
    k_top_share: f64,
}

fn rows_of(db: Db, name: &str, table: &str, table_size: u32) -> Rows {
    let counts = format!(
        "SELECT count(*), min(id), max(id), count(DISTINCT id),
                min(char_length(c)), max(char_length(c)),
                min(char_length(pad)), max(char_length(pad))
           FROM {table}"
    );
    let mut exact = query(db, name, &counts).remove(0);
    let k = query(
        db,
        name,
        &format!("SELECT min(k), max(k), avg(k) FROM {table}"),
    )
    .remove(0);
    let number = |i: usize| k[i].as_deref().map(|v| v.parse::<f64>().expect("a number"));
    let k_range = number(0).zip(number(1)).map(|(a, b)| (a as u32, b as u32));
    let k_mean = number(2).unwrap_or(0.0);
    // c: ten groups of eleven digits joined by dashes; pad: five (as stored: a CHAR's
    // trailing blanks are not the value's).
    let (c, pad) = (
        "'^[0-9]{11}(-[0-9]{11}){9}$'",
        "'^[0-9]{11}(-[0-9]{11}){4}$'",
    );
    let off_shape = match db {
        Db::Pg => format!(
            "SELECT count(*) FROM {table} WHERE NOT (rtrim(c) ~ {c} AND rtrim(pad) ~ {pad})"
        ),
        Db::Maria => {
            format!("SELECT count(*) FROM {table} WHERE NOT (c REGEXP {c} AND pad REGEXP {pad})")
        }
    };
    exact.push(column(db, name, &off_shape).into_iter().next());
    let top = (table_size / 100).max(1);
    let top_rows: f64 = column(
        db,
        name,
        &format!(
            "SELECT coalesce(sum(n), 0) FROM
               (SELECT count(*) AS n FROM {table} GROUP BY k ORDER BY n DESC LIMIT {top}) t"
        ),
    )[0]
    .parse()
    .expect("a count");
    let rows: f64 = exact[0].as_deref().unwrap_or("0").parse().expect("a count");
    Rows {
        exact,
        k_range,
        k_mean,
        k_top_share: if rows > 0.0 { top_rows / rows } else { 0.0 },
    }
}

/// checkschema of database `name`: its output, and whether it passed.
fn check(f: &mut Fixture, db: Db, name: &str, own_role: bool) -> (bool, String) {
    use_db(f, db, name, own_role);
    let (r, lines) = f.console("checkschema().ok");
    (r == Ok("true".to_string()), lines.join("\n"))
}

/// Builds `o` with hammer into database 0 of `scratch` and with sysbench into database 1,
/// and compares them; checkschema passes on both, and deleteschema drops both databases.
fn compare_with_sysbench(f: &mut Fixture, scratch: &Scratch, o: &Options) {
    let db = scratch.db;
    let (ours, theirs) = (scratch.name(0), scratch.name(1));
    f.ok(&o.diset(db));
    use_db(f, db, ours, true);
    let (r, lines) = f.console("buildschema().rows");
    let text = lines.join("\n");
    let empty = o.test == "oltp_insert" && !o.auto_inc;
    let rows = if empty { 0 } else { o.tables * o.table_size };
    assert_eq!(r, Ok(rows.to_string()), "{o:?}:\n{text}");
    let said = sysbench_prepare(db, theirs, o).unwrap_or_else(|e| panic!("{o:?}: {e}"));

    // sysbench's lines, said alike by one virtual user or another (more loaders than
    // tables share tables, and say which rows each loads).
    for n in 1..=o.tables {
        let mut lines = vec![format!("Creating table 'sbtest{n}'...")];
        if !empty && o.loaders <= o.tables {
            lines.push(format!(
                "Inserting {} records into 'sbtest{n}'",
                o.table_size
            ));
        }
        if o.create_secondary {
            lines.push(format!("Creating a secondary index on 'sbtest{n}'..."));
        }
        for line in lines {
            assert!(said.contains(&line), "{o:?}: sysbench said\n{said}");
            assert!(
                text.lines()
                    .any(|l| l.starts_with("Vuser ") && l.ends_with(&format!(":{line}"))),
                "{o:?}: no {line:?} in\n{text}"
            );
        }
    }

    let (mine, sysbenchs) = (catalog(db, ours), catalog(db, theirs));
    assert!(!mine.is_empty(), "{o:?}: the catalog shows no tables");
    assert_eq!(
        mine, sysbenchs,
        "{o:?}: hammer's catalog (left), sysbench's (right)"
    );

    for n in 1..=o.tables {
        let table = format!("sbtest{n}");
        let (h, s) = (
            rows_of(db, ours, &table, o.table_size),
            rows_of(db, theirs, &table, o.table_size),
        );
        assert_eq!(
            h.exact, s.exact,
            "{o:?} {table}: hammer's rows (left), sysbench's"
        );
        let expected = if empty { 0 } else { o.table_size }.to_string();
        assert_eq!(
            h.exact[0].as_deref(),
            Some(&*expected),
            "{o:?} {table}: rows"
        );
        if empty {
            continue;
        }
        // Every k in [1, table_size], spread alike.
        for (who, r) in [("hammer", &h), ("sysbench", &s)] {
            assert!(
                r.k_range
                    .is_some_and(|(lo, hi)| lo >= 1 && hi <= o.table_size),
                "{o:?} {table}: {who}'s k outside 1 to {}: {r:?}",
                o.table_size
            );
        }
        let size = f64::from(o.table_size);
        assert!(
            (h.k_mean - s.k_mean).abs() <= size / 20.0,
            "{o:?} {table}: mean k {} (hammer) vs {} (sysbench)",
            h.k_mean,
            s.k_mean
        );
        assert!(
            (h.k_top_share - s.k_top_share).abs() <= 0.1,
            "{o:?} {table}: the top 1 % of k hold {} of hammer's rows, {} of sysbench's",
            h.k_top_share,
            s.k_top_share
        );
    }

    // hammer accepts its own tables and sysbench's.
    for (name, own_role) in [(ours, true), (theirs, false)] {
        let (ok, text) = check(f, db, name, own_role);
        assert!(ok, "{o:?}: checkschema of {name}:\n{text}");
        assert!(
            text.contains("OLTP Schema of ") && text.contains("has been checked successfully."),
            "{text}"
        );
    }

    // Each database holds nothing but the sbtest tables: deleteschema drops it.
    for (name, own_role) in [(ours, true), (theirs, false)] {
        use_db(f, db, name, own_role);
        let text = f.ok("deleteschema").join("\n");
        assert!(
            text.contains(&format!("{name} OLTP")) && text.contains("deleted successfully"),
            "{o:?}: deleteschema of {name}:\n{text}"
        );
        assert!(!database_exists(db, name), "{o:?}: {name} is still there");
    }
}

fn database_exists(db: Db, name: &str) -> bool {
    let servers = Servers::get();
    match db {
        Db::Pg => {
            servers.pg_i64(
                "postgres",
                &format!("SELECT count(*) FROM pg_database WHERE datname = '{name}'"),
            ) == 1
        }
        Db::Maria => servers
            .maria_databases(servers.maria_port)
            .iter()
            .any(|d| d == name),
    }
}

#[test]
fn mariadb_tables_are_sysbenchs() {
    let scratch = Scratch::new(Db::Maria, "cmp", &["h", "s"]);
    let mut f = session(Db::Maria);
    for o in [
        DEFAULTS,
        // Client ids, no index on k.
        Options {
            auto_inc: false,
            create_secondary: false,
            ..DEFAULTS
        },
        // An index on id in place of the primary key, in another storage engine.
        Options {
            secondary: true,
            engine: Some("myisam"),
            loaders: 2,
            ..DEFAULTS
        },
        // oltp_insert without auto_inc: empty tables.
        Options {
            test: "oltp_insert",
            auto_inc: false,
            engine: Some("aria"),
            ..DEFAULTS
        },
    ] {
        compare_with_sysbench(&mut f, &scratch, &o);
    }
}

#[test]
fn postgresql_tables_are_sysbenchs() {
    let scratch = Scratch::new(Db::Pg, "cmp", &["h", "s"]);
    let mut f = session(Db::Pg);
    for o in [
        DEFAULTS,
        // Four loaders on two tables: two runs of ids of each table loaded side by side.
        Options {
            auto_inc: false,
            create_secondary: false,
            loaders: 4,
            ..DEFAULTS
        },
        Options {
            test: "oltp_insert",
            auto_inc: false,
            ..DEFAULTS
        },
    ] {
        compare_with_sysbench(&mut f, &scratch, &o);
    }
}

/// sysbench's `secondary` on PostgreSQL writes MySQL's `KEY xid (id)` into its CREATE TABLE,
/// which PostgreSQL refuses; hammer makes the index `xid_N` on id in its place.
#[test]
fn postgresql_secondary_is_an_index_on_id() {
    let scratch = Scratch::new(Db::Pg, "sec", &["h", "s"]);
    let mut f = session(Db::Pg);
    let o = Options {
        secondary: true,
        ..DEFAULTS
    };
    f.ok(&o.diset(Db::Pg));
    let ours = scratch.name(0);
    use_db(&mut f, Db::Pg, ours, true);
    let (r, lines) = f.console("buildschema().rows");
    assert_eq!(r, Ok("4000".to_string()), "{}", lines.join("\n"));
    let cat = catalog(Db::Pg, ours);
    for n in 1..=2 {
        for line in [
            format!("index xid_{n}: CREATE INDEX xid_{n} ON public.sbtest{n} USING btree (id)"),
            format!("index k_{n}: CREATE INDEX k_{n} ON public.sbtest{n} USING btree (k)"),
        ] {
            assert!(cat.contains(&line), "no {line:?} in {cat:#?}");
        }
    }
    assert!(
        !cat.iter().any(|l| l.starts_with("constraint ")),
        "no primary key: {cat:#?}"
    );
    let (ok, text) = check(&mut f, Db::Pg, ours, true);
    assert!(ok, "{text}");
    assert!(
        text.contains(
            "PASS primary key: none: an index on id in its place (pg_oltp_secondary true)"
        ),
        "{text}"
    );
    let e = sysbench_prepare(Db::Pg, scratch.name(1), &o).expect_err("sysbench's secondary");
    assert!(e.contains("KEY xid (id)"), "{e}");
}

/// checkschema passes on a fresh build, and fails naming a missing table, then a table short
/// of rows, with the key that sets what it expected.
fn check_names_what_is_wrong(db: Db) {
    let scratch = Scratch::new(db, "chk", &["h"]);
    let mut f = session(db);
    let name = scratch.name(0);
    let o = Options {
        table_size: 1000,
        ..DEFAULTS
    };
    f.ok(&o.diset(db));
    use_db(&mut f, db, name, true);
    f.ok("buildschema()");
    let (ok, text) = check(&mut f, db, name, true);
    assert!(ok, "{text}");
    let p = db.prefix();
    let servers = Servers::get();
    let exec = |sql: &str| match db {
        Db::Pg => servers.pg_exec(name, sql),
        Db::Maria => servers.maria_exec(name, &[sql]),
    };

    exec("DELETE FROM sbtest1 WHERE id > 990");
    let (ok, text) = check(&mut f, db, name, true);
    assert!(!ok, "{text}");
    for line in [
        format!("Vuser 1:FAIL rows: sbtest1: 990 found, {p}_oltp_table_size 1000"),
        "Vuser 1:FAIL ids: sbtest1: from 1 to 990, not 1 to 1000".to_string(),
        "Vuser 1:PASS tables: sbtest1 to sbtest2 (2)".to_string(),
    ] {
        assert!(text.contains(&line), "no {line:?} in\n{text}");
    }

    exec("DROP TABLE sbtest2");
    let (ok, text) = check(&mut f, db, name, true);
    assert!(!ok, "{text}");
    for line in [
        format!("Vuser 1:FAIL tables: sbtest2 missing of sbtest1 to sbtest2 ({p}_oltp_tables)"),
        // What passes is said of the tables found.
        "Vuser 1:PASS index on k: k_1".to_string(),
    ] {
        assert!(text.lines().any(|l| l == line), "no {line:?} in\n{text}");
    }
    assert!(text.contains("OLTP Schema check failed"), "{text}");

    // A database that is not there.
    f.ok("deleteschema");
    let (ok, text) = check(&mut f, db, name, true);
    assert!(!ok, "{text}");
    assert!(
        text.contains(&format!(
            "FAIL database {name}: does not exist: buildschema first"
        )),
        "{text}"
    );
}

#[test]
fn mariadb_check_names_what_is_wrong() {
    check_names_what_is_wrong(Db::Maria);
}

#[test]
fn postgresql_check_names_what_is_wrong() {
    check_names_what_is_wrong(Db::Pg);
}

/// In a database that holds other tables too, deleteschema drops the sbtest tables only, as
/// sysbench's cleanup does, and the database and its other tables stay; a database with no
/// sbtest table left is refused, nothing dropped.
fn delete_beside_other_tables(db: Db) {
    let scratch = Scratch::new(db, "del", &["h"]);
    let mut f = session(db);
    let name = scratch.name(0);
    let o = Options {
        table_size: 100,
        ..DEFAULTS
    };
    f.ok(&o.diset(db));
    use_db(&mut f, db, name, true);
    f.ok("buildschema()");
    let servers = Servers::get();
    let accounts = "CREATE TABLE accounts (id INTEGER PRIMARY KEY, note VARCHAR(20))";
    match db {
        Db::Pg => servers.pg_exec(name, accounts),
        Db::Maria => servers.maria_exec(name, &[accounts]),
    }
    let text = f.ok("deleteschema").join("\n");
    for line in [
        format!("Deleting the OLTP tables with 1 Virtual User: 2 of database {name} on "),
        "as sysbench's cleanup does; the database and its other tables (accounts) stay".to_string(),
        "Vuser 1:Dropping table 'sbtest1'...".to_string(),
        "Vuser 1:Dropping table 'sbtest2'...".to_string(),
        format!("Vuser 1:2 OLTP tables of database {name} have been deleted successfully."),
    ] {
        assert!(text.contains(&line), "no {line:?} in\n{text}");
    }
    assert!(database_exists(db, name), "{name} went:\n{text}");
    let tables = match db {
        Db::Pg => column(
            db,
            name,
            "SELECT relname::text FROM pg_class WHERE relnamespace = 'public'::regnamespace \
             AND relkind = 'r' ORDER BY 1",
        ),
        Db::Maria => column(db, name, "SHOW TABLES"),
    };
    assert_eq!(tables, ["accounts"], "{text}");

    // Nothing of OLTP's is left: refused, nothing dropped.
    let e = f.err("deleteschema");
    assert!(
        e.contains(&format!(
            "deleteschema refused, nothing dropped: database {name} on "
        )) && e.contains("1 table (accounts), none of them OLTP's own"),
        "{e}"
    );
    assert!(database_exists(db, name));
}

#[test]
fn mariadb_delete_beside_other_tables_drops_the_sbtest_tables_only() {
    delete_beside_other_tables(Db::Maria);
}

#[test]
fn postgresql_delete_beside_other_tables_drops_the_sbtest_tables_only() {
    delete_beside_other_tables(Db::Pg);
}
