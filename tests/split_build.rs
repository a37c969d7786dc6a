//! One schema built by several hammer processes at once (`bench::split`): two `hammer auto`
//! drivers build one TPROC-C schema in two warehouse ranges on PostgreSQL and on MariaDB, and
//! one TPROC-H schema in two parts; the result checks, holds exactly a whole build's rows, and
//! was generated with one set of NURand load constants. A driver killed mid-load, or never
//! started, leaves the schema without keys and its range named with the commands that resume
//! it; running that range alone completes the schema.

mod common;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Fixture, Servers, TprochDb};

/// The longest one driver may take (a build of a few warehouses takes seconds; the creator's
/// wait for a dead driver about half a minute).
const DRIVER_LIMIT: Duration = Duration::from_secs(300);

/// A driver: a `hammer auto` process on a script of its own, with its own home, its output
/// in a file.
struct Driver {
    child: Child,
    out: PathBuf,
    _home: tempfile::TempDir,
}

impl Driver {
    /// Starts `hammer auto` on `commands` (the console's bare form, `;`-separated), after
    /// the test servers' settings.
    fn start(commands: &str) -> Driver {
        let home = tempfile::tempdir().expect("temp dir");
        let file = home.path().join("driver.rhai");
        let servers = Servers::get();
        let script = format!("{}\n{}", servers.configure(), rhai_of(commands));
        std::fs::write(&file, script).expect("script");
        let out = home.path().join("out.txt");
        let log = std::fs::File::create(&out).expect("output file");
        let child = Command::new(env!("CARGO_BIN_EXE_hammer"))
            .args(["auto", file.to_str().expect("path")])
            .env("HAMMER_HOME", home.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("output file"))
            .stderr(log)
            .spawn()
            .expect("hammer starts");
        Driver {
            child,
            out,
            _home: home,
        }
    }

    fn output(&self) -> String {
        std::fs::read_to_string(&self.out).unwrap_or_default()
    }

    /// Waits for the driver to end (killing it past [`DRIVER_LIMIT`]); whether it succeeded,
    /// and its output.
    fn wait(mut self) -> (bool, String) {
        let until = Instant::now() + DRIVER_LIMIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("driver status") {
                return (status.success(), self.output());
            }
            if Instant::now() >= until {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("a driver ran past {DRIVER_LIMIT:?}:\n{}", self.output());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Kills the driver (as a crash would) once its output shows `line`.
    fn kill_at(mut self, line: &str) -> String {
        let until = Instant::now() + DRIVER_LIMIT;
        while !self.output().contains(line) {
            if let Some(status) = self.child.try_wait().expect("driver status") {
                panic!(
                    "the driver ended ({status}) before it said {line:?}:\n{}",
                    self.output()
                );
            }
            assert!(
                Instant::now() < until,
                "no {line:?} within {DRIVER_LIMIT:?}:\n{}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        self.child.kill().expect("kill the driver");
        let _ = self.child.wait();
        self.output()
    }
}

/// Console commands (`diset tpcc pg_dbase x; buildschema`) as a script's calls
/// (`diset("tpcc", "pg_dbase", "x");`).
fn rhai_of(commands: &str) -> String {
    commands
        .split(';')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(|c| {
            let mut words = c.split_whitespace();
            let name = words.next().unwrap_or_default();
            let args: Vec<String> = words.map(|w| format!("{w:?}")).collect();
            format!("{name}({});\n", args.join(", "))
        })
        .collect()
}

/// The console commands that make a TPROC-C driver of warehouses `first`.. (`owned` of them) of a
/// `count`-warehouse schema in database `name` on `db` (`pg`, `maria`), then builds.
fn tpcc_driver(db: &str, name: &str, (first, owned, count): (u32, u32, u32), wait: u32) -> String {
    let user = if db == "pg" {
        format!("diset tpcc pg_user {name}; diset tpcc pg_pass split_pass;")
    } else {
        String::new()
    };
    format!(
        "dbset db {db}; {user} diset tpcc {db}_dbase {name}; diset tpcc {db}_count_ware {count}; \
         diset tpcc {db}_num_vu 1; diset tpcc {db}_first_ware {first}; \
         diset tpcc {db}_owned_ware {owned}; diset tpcc {db}_build_wait {wait}; \
         vuset refreshrate 0; buildschema"
    )
}

/// A session of the test's own on the same schema (to check it, count it, resume it).
fn session(db: &str, name: &str, count: u32) -> Fixture {
    let servers = Servers::get();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    f.ok(&format!("dbset db {db}; diset tpcc {db}_dbase {name}"));
    if db == "pg" {
        f.ok(&format!(
            "diset tpcc pg_user {name}; diset tpcc pg_pass split_pass"
        ));
    }
    f.ok(&format!("diset tpcc {db}_count_ware {count}"));
    f
}

/// The first column of the one row `sql` returns, on `db`'s database `name`.
fn count(db: &str, name: &str, sql: &str) -> i64 {
    let servers = Servers::get();
    if db == "pg" {
        servers.pg_i64(name, sql)
    } else {
        servers.maria_i64(name, sql)
    }
}

/// `expr` as the 64-bit integer the test's clients read.
fn integer(db: &str, expr: &str) -> String {
    if db == "pg" {
        format!("({expr})::bigint")
    } else {
        format!("CAST({expr} AS SIGNED)")
    }
}

/// Every table holds a whole build's rows for `w` warehouses, each warehouse's once.
fn assert_whole_build_rows(db: &str, name: &str, w: i64) {
    for (table, per_w) in [
        ("warehouse", 1),
        ("district", 10),
        ("customer", 30_000),
        ("history", 30_000),
        ("orders", 30_000),
        ("new_order", 9_000),
        ("stock", 100_000),
    ] {
        let n = count(db, name, &format!("SELECT count(*) FROM {table}"));
        assert_eq!(n, per_w * w, "rows in {table}");
    }
    assert_eq!(count(db, name, "SELECT count(*) FROM item"), 100_000);
    let lines = count(
        db,
        name,
        &format!("SELECT {} FROM orders", integer(db, "sum(o_ol_cnt)")),
    );
    assert_eq!(count(db, name, "SELECT count(*) FROM order_line"), lines);
    let warehouses = count(db, name, "SELECT count(DISTINCT w_id) FROM warehouse");
    assert_eq!(warehouses, w);
}

/// Customers 1001 to 3000 of each warehouse, by last name: `(warehouse, name, customers)`.
fn last_names(db: &str, name: &str) -> Vec<(i64, String, i64)> {
    let servers = Servers::get();
    if db == "pg" {
        let (rt, conn) = servers.pg(name);
        rt.block_on(async {
            let rows = conn
                .client
                .query(
                    "SELECT c_w_id::bigint, c_last::text, count(*) FROM customer \
                     WHERE c_id > 1000 GROUP BY 1, 2",
                    &[],
                )
                .await
                .expect("last names");
            conn.close().await;
            rows.iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect()
        })
    } else {
        use mysql_async::prelude::Queryable;
        let (rt, mut conn) = servers.maria_on(servers.maria_port, Some(name));
        rt.block_on(async {
            let rows: Vec<(i64, String, i64)> = conn
                .query(
                    "SELECT CAST(c_w_id AS SIGNED), c_last, count(*) FROM customer \
                     WHERE c_id > 1000 GROUP BY 1, 2",
                )
                .await
                .expect("last names");
            let _ = conn.disconnect().await;
            rows
        })
    }
}

/// The C_LAST each warehouse's customers 1001 to 3000 were generated with: their last names
/// are `NURand(255, 0, 999)` with that C (TPC-C clause 4.3.3.1), whose skew this finds back
/// as the most likely C of the names counted.
fn c_last_per_warehouse(db: &str, name: &str) -> Vec<(i64, u32)> {
    // P(x | y = r) for x uniform in 0..=255 and y in 0..=999.
    let mut or = vec![0f64; 1024];
    for x in 0..=255u32 {
        for y in 0..=999u32 {
            or[(x | y) as usize] += 1.0;
        }
    }
    let index: std::collections::HashMap<String, u32> = (0..1000)
        .map(|n| (hammer::tpcc::random::last_name(n), n))
        .collect();
    let mut by_w: std::collections::BTreeMap<i64, Vec<(u32, f64)>> = Default::default();
    for (w, last, n) in last_names(db, name) {
        let v = *index
            .get(&last)
            .unwrap_or_else(|| panic!("{last} is not a TPC-C last name"));
        by_w.entry(w).or_default().push((v, n as f64));
    }
    // ln P(name v | C) for every C of 0..=255.
    let ln_p: Vec<Vec<f64>> = (0..=255u32)
        .map(|c| {
            let mut p = vec![0f64; 1000];
            for (r, n) in or.iter().enumerate() {
                p[(r + c as usize) % 1000] += n;
            }
            p.iter().map(|x| x.ln()).collect()
        })
        .collect();
    by_w.into_iter()
        .map(|(w, counts)| {
            let likelihood =
                |c: usize| -> f64 { counts.iter().map(|(v, n)| n * ln_p[c][*v as usize]).sum() };
            let best = (0..=255usize)
                .max_by(|a, b| likelihood(*a).total_cmp(&likelihood(*b)))
                .expect("a C");
            (w, best as u32)
        })
        .collect()
}

/// Every warehouse's last names were generated with the C_LAST the schema records.
fn assert_one_c_last(db: &str, name: &str, w: i64) {
    let sql = format!("SELECT {} FROM tpcc_nurand", integer(db, "c_last"));
    let recorded = count(db, name, &sql) as u32;
    let found = c_last_per_warehouse(db, name);
    assert_eq!(found.len() as i64, w, "{found:?}");
    for (warehouse, c) in found {
        assert_eq!(
            c, recorded,
            "warehouse {warehouse}'s last names follow C_LAST {c}, the schema records {recorded}"
        );
    }
}

/// Two drivers, started together, build one schema of `count` warehouses: warehouses
/// 1..=`split` and the rest.
fn two_drivers_build_one_tprocc_schema(db: &'static str, count: u32, split: u32) {
    let servers = Servers::get();
    servers.require();
    let name = format!("hammer_split_{db}_two_{}", std::process::id());
    let _drop = TprochDb {
        db,
        name: name.clone(),
    };
    let creator = Driver::start(&tpcc_driver(db, &name, (1, split, count), 120));
    let other = Driver::start(&tpcc_driver(db, &name, (split + 1, 0, count), 120));
    let (ok, said) = creator.wait();
    assert!(ok, "the creator failed:\n{said}");
    assert!(
        said.contains(&format!(
            "TPROC-C schema built: {count} warehouses by 2 drivers"
        )),
        "{said}"
    );
    let (ok, other_said) = other.wait();
    assert!(ok, "the other driver failed:\n{other_said}");
    assert!(
        other_said.contains("Waiting up to 120 s")
            || other_said.contains("Split build: this driver loads"),
        "{other_said}"
    );
    assert!(
        other_said.contains("another driver adds the schema's keys"),
        "{other_said}"
    );
    // The creator says who loaded what.
    let range = |a: u32, b: u32| {
        if a == b {
            format!("warehouse {a} of {count}: loaded by host ")
        } else {
            format!("warehouses {a}-{b} of {count}: loaded by host ")
        }
    };
    assert!(
        said.contains(&range(1, split)) && said.contains(&range(split + 1, count)),
        "{said}"
    );

    let mut f = session(db, &name, count);
    let (r, lines) = f.console("checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    assert_whole_build_rows(db, &name, i64::from(count));
    assert_one_c_last(db, &name, i64::from(count));
    // A driver more, on the complete schema or with another size of it, is refused.
    f.ok(&format!(
        "diset tpcc {db}_first_ware 2; diset tpcc {db}_owned_ware 1"
    ));
    let e = f.err("buildschema()");
    assert!(
        e.contains("buildschema refused, nothing loaded: the schema is complete"),
        "{e}"
    );
    f.ok(&format!("diset tpcc {db}_count_ware {}", count + 1));
    let e = f.err("buildschema()");
    assert!(
        e.contains(&format!(
            "has {count} warehouses (hammer_build_parts), but tpcc:{db}_count_ware is {}: set it to {count}",
            count + 1
        )),
        "{e}"
    );
    f.ok(&format!("diset tpcc {db}_count_ware {count}"));
    let (r, lines) = f.console("checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    f.ok("deleteschema()");
}

#[test]
fn two_drivers_build_one_tprocc_schema_on_postgresql() {
    two_drivers_build_one_tprocc_schema("pg", 3, 2);
}

#[test]
fn two_drivers_build_one_tprocc_schema_on_mariadb() {
    two_drivers_build_one_tprocc_schema("maria", 2, 1);
}

/// The resume the creator named, run alone on the same schema: it completes the schema.
fn resume_completes(db: &'static str, name: &str, count: u32, said: &str) {
    let resume = format!(
        "diset tpcc {db}_first_ware 2; diset tpcc {db}_owned_ware {}; buildschema",
        count - 1
    );
    assert!(said.contains(&resume), "no resume command in:\n{said}");
    let mut f = session(db, name, count);
    // checkschema names what is missing rather than failing every check.
    let e = f.err("checkschema()");
    assert!(
        e.contains("FAILED: 1 of 1 checks failed: split build (hammer_build_parts) (incomplete, without keys yet: ")
            && e.contains(&resume),
        "{e}"
    );
    let (r, lines) = f.console(&format!("{resume}().ok"));
    let text = lines.join("\n");
    assert_eq!(r, Ok("true".to_string()), "{text}");
    assert!(
        text.contains("Every share is loaded: this driver adds the keys")
            && text.contains(&format!(
                "TPROC-C schema built: {count} warehouses by 2 drivers"
            )),
        "{text}"
    );
    let (r, lines) = f.console("checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    assert_whole_build_rows(db, name, i64::from(count));
    assert_one_c_last(db, name, i64::from(count));
    f.ok("deleteschema()");
}

#[test]
fn a_driver_killed_mid_load_is_named_and_its_range_resumes_on_postgresql() {
    let servers = Servers::get();
    servers.require();
    let db = "pg";
    let name = format!("hammer_split_pg_kill_{}", std::process::id());
    let _drop = TprochDb {
        db,
        name: name.clone(),
    };
    let creator = Driver::start(&tpcc_driver(db, &name, (1, 1, 2), 120));
    let other = Driver::start(&tpcc_driver(db, &name, (2, 1, 2), 120));
    // Killed with some of its rows committed: the resume must delete them.
    let killed = other.kill_at("Loading Customer for DID=1 WID=2");
    assert!(
        killed.contains("Split build: this driver loads warehouse 2 of 2"),
        "{killed}"
    );
    let (ok, said) = creator.wait();
    assert!(!ok, "the creator finished an incomplete schema:\n{said}");
    assert!(
        said.contains(
            "The PostgreSQL schema is incomplete: its keys, indexes and statistics are not added"
        ) && said.contains("warehouse 2 of 2: left unfinished by host ")
            && said.contains("which has given no heartbeat for over 30 s"),
        "{said}"
    );
    assert!(!said.contains("CREATING TPCC INDEXES"), "{said}");
    assert!(count(db, &name, "SELECT count(*) FROM stock WHERE s_w_id = 2") > 0);
    resume_completes(db, &name, 2, &said);
}

#[test]
fn a_driver_never_started_is_named_and_its_range_resumes_on_mariadb() {
    let servers = Servers::get();
    servers.require();
    let db = "maria";
    let name = format!("hammer_split_maria_late_{}", std::process::id());
    let _drop = TprochDb {
        db,
        name: name.clone(),
    };
    // Nobody starts warehouse 2: the creator gives it 2 s.
    let (ok, said) = Driver::start(&tpcc_driver(db, &name, (1, 1, 2), 2)).wait();
    assert!(!ok, "the creator finished an incomplete schema:\n{said}");
    assert!(
        said.contains("The MariaDB schema is incomplete")
            && said.contains("warehouse 2 of 2: not started by any driver"),
        "{said}"
    );
    resume_completes(db, &name, 2, &said);
}

#[test]
fn a_driver_waits_for_the_creator_within_its_bound() {
    let servers = Servers::get();
    servers.require();
    let name = format!("hammer_split_pg_alone_{}", std::process::id());
    let _drop = TprochDb {
        db: "pg",
        name: name.clone(),
    };
    let (ok, said) = Driver::start(&tpcc_driver("pg", &name, (2, 1, 2), 2)).wait();
    assert!(!ok, "{said}");
    assert!(
        said.contains("Waiting up to 2 s (tpcc:pg_build_wait) for the driver of warehouse 1")
            && said.contains("Waited 2 s for the driver of warehouse 1 to create the schema")
            && said.contains("diset tpcc pg_build_wait"),
        "{said}"
    );
}

/// The console commands of TPROC-H driver `part` of 2 at scale factor 0.01 in database `name` on `db`.
fn tpch_driver(db: &str, name: &str, part: u32) -> String {
    let servers = Servers::get();
    let login = if db == "pg" {
        format!(
            "diset tpch pg_tpch_superuser {}; diset tpch pg_tpch_superuserpass {}; \
             diset tpch pg_tpch_user {name}; diset tpch pg_tpch_pass split_pass;",
            servers.pg_user, servers.pg_pass
        )
    } else {
        format!(
            "diset tpch {db}_tpch_user {}; diset tpch {db}_tpch_pass {};",
            servers.maria_user, servers.maria_pass
        )
    };
    format!(
        "dbset db {db}; dbset bm TPC-H; {login} diset tpch {db}_tpch_dbase {name}; \
         diset tpch {db}_scale_fact 0.01; diset tpch {db}_num_tpch_threads 2; \
         diset tpch {db}_tpch_build_parts 2; diset tpch {db}_tpch_build_part {part}; \
         diset tpch {db}_tpch_build_wait 120; vuset refreshrate 0; buildschema"
    )
}

fn two_drivers_build_one_tproch_schema(db: &'static str) {
    let servers = Servers::get();
    servers.require();
    let name = format!("hammer_split_{db}_tph_{}", std::process::id());
    let _drop = TprochDb {
        db,
        name: name.clone(),
    };
    let creator = Driver::start(&tpch_driver(db, &name, 1));
    let other = Driver::start(&tpch_driver(db, &name, 2));
    let (ok, said) = creator.wait();
    assert!(ok, "the creator failed:\n{said}");
    let (ok, other_said) = other.wait();
    assert!(ok, "the other driver failed:\n{other_said}");
    assert!(
        said.contains("TPROC-H schema built: scale factor 0.01 by 2 drivers")
            && said.contains("part 2 of 2: loaded by host "),
        "{said}"
    );
    // Each driver loaded its two workers' dbgen parts of four.
    assert!(said.contains("Loading LINEITEM part 2 of 4"), "{said}");
    assert!(
        other_said.contains("Loading LINEITEM part 4 of 4"),
        "{other_said}"
    );
    for table in hammer::tpch::Table::ALL {
        let want = hammer::tpch::gen::rows(table, 0.01, 1, 1)
            .unwrap_or_else(|| hammer::tpch::gen::lineitem_rows(0.01));
        let n = count(db, &name, &format!("SELECT count(*) FROM {}", table.name()));
        assert_eq!(n as u64, want, "rows in {}", table.name());
    }
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    f.ok(&tpch_driver(db, &name, 1).replace("buildschema", ""));
    let (r, lines) = f.console("checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
}

#[test]
fn two_drivers_build_one_tproch_schema_on_postgresql() {
    two_drivers_build_one_tproch_schema("pg");
}

#[test]
fn two_drivers_build_one_tproch_schema_on_mariadb() {
    two_drivers_build_one_tproch_schema("maria");
}
