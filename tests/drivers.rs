//! Several hammer processes, one TPROC-C benchmark, against the CI's PostgreSQL and MariaDB:
//! the merged NOPM is the database's own delta over the common window, the merged histograms
//! are every part's samples, a driver killed mid-run is reported while the others' figures
//! stand, and staggered drivers all measure the same window.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::Servers;
use hammer::drivers::part::{merge, Part};

/// One row of the board as the test reads it.
struct Board {
    start_ms: i64,
    /// (driver, delay_ms, rampup_ms, duration_ms, state, part)
    drivers: Vec<(i64, i64, i64, i64, String, Option<String>)>,
}

impl Board {
    /// The window every driver was to measure: the start plus the longest delay and
    /// rampup, for driver 1's duration.
    fn window(&self) -> (i64, i64) {
        let ready = self.drivers.iter().map(|d| d.1 + d.2).max().unwrap();
        let duration = self.drivers.iter().find(|d| d.0 == 1).unwrap().3;
        (self.start_ms + ready, self.start_ms + ready + duration)
    }

    fn parts(&self) -> Vec<(i64, Part)> {
        self.drivers
            .iter()
            .filter_map(|d| Some((d.0, Part::from_json(d.5.as_deref()?)?)))
            .collect()
    }
}

fn pg_board(s: &Servers, db: &str, run: &str) -> Board {
    let (rt, conn) = s.pg(db);
    rt.block_on(async {
        let start_ms: i64 = conn
            .client
            .query_one("SELECT start_ms FROM hammer_runs WHERE run = $1", &[&run])
            .await
            .expect("the run's row")
            .get(0);
        let rows = conn
            .client
            .query(
                "SELECT driver::bigint, delay_ms, rampup_ms, duration_ms, state, part \
                 FROM hammer_drivers WHERE run = $1 ORDER BY driver",
                &[&run],
            )
            .await
            .expect("the drivers' rows");
        let drivers = rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
            .collect();
        conn.close().await;
        Board { start_ms, drivers }
    })
}

fn maria_board(s: &Servers, db: &str, run: &str) -> Board {
    use mysql_async::prelude::Queryable;
    let (rt, mut conn) = s.maria_on(s.maria_port, Some(db));
    rt.block_on(async {
        let start_ms: i64 = conn
            .exec_first("SELECT start_ms FROM hammer_runs WHERE run = ?", (run,))
            .await
            .expect("the run's row")
            .expect("the run is on the board");
        let drivers: Vec<(i64, i64, i64, i64, String, Option<String>)> = conn
            .exec(
                "SELECT driver, delay_ms, rampup_ms, duration_ms, state, part \
                 FROM hammer_drivers WHERE run = ? ORDER BY driver",
                (run,),
            )
            .await
            .expect("the drivers' rows");
        let _ = conn.disconnect().await;
        Board { start_ms, drivers }
    })
}

/// `(server ms, SUM(d_next_o_id))` pairs.
type Samples = Arc<Mutex<Vec<(i64, i64)>>>;

/// Samples `(server ms, SUM(d_next_o_id))` every 100 ms until told to stop.
struct Sampler {
    stop: Arc<AtomicBool>,
    samples: Samples,
    thread: std::thread::JoinHandle<()>,
}

impl Sampler {
    fn pg(s: &Servers, db: &str) -> Sampler {
        let (stop, samples) = (Arc::new(AtomicBool::new(false)), Arc::default());
        let (rt, conn) = s.pg(db);
        let thread = {
            let (stop, samples): (Arc<AtomicBool>, Samples) = (stop.clone(), Arc::clone(&samples));
            std::thread::spawn(move || {
                rt.block_on(async {
                    while !stop.load(Ordering::Relaxed) {
                        let r = conn
                            .client
                            .query_one(
                                "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT), \
                                 SUM(d_next_o_id)::bigint FROM district",
                                &[],
                            )
                            .await
                            .expect("sample");
                        samples.lock().unwrap().push((r.get(0), r.get(1)));
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    conn.close().await;
                })
            })
        };
        Sampler {
            stop,
            samples,
            thread,
        }
    }

    fn maria(s: &Servers, db: &str) -> Sampler {
        use mysql_async::prelude::Queryable;
        let (stop, samples) = (Arc::new(AtomicBool::new(false)), Arc::default());
        let (rt, mut conn) = s.maria_on(s.maria_port, Some(db));
        let thread = {
            let (stop, samples): (Arc<AtomicBool>, Samples) = (stop.clone(), Arc::clone(&samples));
            std::thread::spawn(move || {
                rt.block_on(async {
                    while !stop.load(Ordering::Relaxed) {
                        let r: (i64, i64) = conn
                            .query_first(
                                "SELECT CAST(UNIX_TIMESTAMP(NOW(6)) * 1000 AS SIGNED), \
                                 CAST(SUM(d_next_o_id) AS SIGNED) FROM district",
                            )
                            .await
                            .expect("sample")
                            .expect("a row");
                        samples.lock().unwrap().push(r);
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    let _ = conn.disconnect().await;
                })
            })
        };
        Sampler {
            stop,
            samples,
            thread,
        }
    }

    fn finish(self) -> Vec<(i64, i64)> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("sampler");
        let s = self.samples.lock().unwrap().clone();
        s
    }
}

/// The sampled counter at server time `t`, read between the two samples around it.
fn at(samples: &[(i64, i64)], t: i64) -> f64 {
    let i = samples
        .iter()
        .position(|s| s.0 >= t)
        .expect("a sample after the time asked");
    assert!(i > 0, "no sample before {t}");
    let ((t0, v0), (t1, v1)) = (samples[i - 1], samples[i]);
    assert!(
        t1 - t0 < 1000,
        "samples too far apart around {t}: {t0}, {t1}"
    );
    v0 as f64 + (v1 - v0) as f64 * (t - t0) as f64 / ((t1 - t0).max(1)) as f64
}

/// The database's New-Orders a minute between two server times, from the samples.
fn sampled_nopm(samples: &[(i64, i64)], from: i64, to: i64) -> f64 {
    (at(samples, to) - at(samples, from)) * 60_000.0 / (to - from) as f64
}

/// `N` of `TEST RESULT (k drivers) : System achieved N NOPM from ...`.
fn merged_nopm(out: &str, drivers: usize) -> f64 {
    let head = format!("TEST RESULT ({drivers} drivers) : System achieved ");
    let line = out
        .lines()
        .find_map(|l| l.split_once(&head).map(|(_, rest)| rest.to_string()))
        .unwrap_or_else(|| panic!("no merged result line in:\n{out}"));
    line.split_whitespace().next().unwrap().parse().unwrap()
}

/// `(N, M)` of `TEST RESULT (k drivers) : System achieved N NOPM from M <db> TPM`.
fn merged_figures(out: &str, drivers: usize) -> (u64, u64) {
    let head = format!("TEST RESULT ({drivers} drivers) : System achieved ");
    let line = out
        .lines()
        .find_map(|l| l.split_once(&head).map(|(_, rest)| rest.to_string()))
        .unwrap_or_else(|| panic!("no merged result line in:\n{out}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (words[0].parse().unwrap(), words[3].parse().unwrap())
}

/// `hammer jobs ARGS` in `home` (its own settings and jobs store), which must succeed.
fn jobs(home: &Path, args: &[&str]) -> String {
    let mut all = vec!["jobs"];
    all.extend(args);
    let out = common::hammer(home, &all, "");
    let text = common::text(&out.stdout);
    assert!(
        out.status.success(),
        "hammer {all:?}:\n{text}{}",
        common::text(&out.stderr)
    );
    text
}

/// What `jobs` shows of shared run `run`, which its `drivers` drivers printed in `printed`:
/// one entry with its parts beneath, the same NOPM and TPM as their TEST RESULT line, and
/// every part's job id, each of which names the run. Gives the parts' job ids.
fn jobs_show_the_run(home: &Path, run: &str, drivers: usize, printed: &str) -> Vec<String> {
    let (nopm, tpm) = merged_figures(printed, drivers);
    let table = jobs(home, &["--text"]);
    let entries: Vec<&str> = table
        .lines()
        .filter(|l| l.contains(&format!("COMPLETE run {run}")))
        .collect();
    assert_eq!(entries.len(), 1, "one entry for the run:\n{table}");
    assert!(
        entries[0].starts_with(&format!("run of {drivers} drivers")),
        "{table}"
    );
    for k in 1..=drivers {
        assert!(
            table.contains(&format!("driver {k} of {drivers}")),
            "driver {k} beneath the run:\n{table}"
        );
    }
    // `jobs run R`: the drivers' own result line, word for word.
    let shown = jobs(home, &["--text", "run", run]);
    assert_eq!(merged_figures(&shown, drivers), (nopm, tpm), "{shown}");
    assert!(
        shown.contains(&format!("Run {run}: {drivers} drivers, COMPLETE")),
        "{shown}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&jobs(home, &["--json", "run", run])).expect("JSON");
    assert_eq!(v["run"], run);
    assert_eq!(v["status"], "COMPLETE", "{v}");
    assert_eq!(v["nopm"].as_f64().unwrap().round() as u64, nopm, "{v}");
    assert_eq!(v["tpm"].as_f64().unwrap().round() as u64, tpm, "{v}");
    let ids: Vec<String> = v["members"]
        .as_array()
        .expect("the members")
        .iter()
        .map(|m| m["id"].as_str().expect("every part's job id").to_string())
        .collect();
    assert_eq!(ids.len(), drivers, "{v}");
    // The list has the run as one entry, its parts not again among the jobs.
    let list: serde_json::Value =
        serde_json::from_str(&jobs(home, &["--json", "list"])).expect("JSON");
    let list = list.as_array().expect("an array");
    assert_eq!(
        list.iter().filter(|e| e["run"] == run).count(),
        1,
        "{list:?}"
    );
    for (k, id) in ids.iter().enumerate() {
        assert!(!list.iter().any(|e| e["id"] == id.as_str()), "{list:?}");
        let part: serde_json::Value =
            serde_json::from_str(&jobs(home, &["--json", id])).expect("JSON");
        assert_eq!(part["run"]["run"], run, "{part}");
        assert_eq!(part["run"]["driver"], k as u64 + 1, "{part}");
        assert_eq!(part["kind"], "run");
    }
    ids
}

/// The merged table's row for a transaction type, after the merged heading.
fn merged_row(out: &str, name: &str) -> Vec<String> {
    let at = out
        .find("Transactions (all drivers; histograms merged")
        .expect("the merged table");
    let line = out[at..]
        .lines()
        .find(|l| l.trim_start_matches("Vuser 1:").starts_with(name))
        .unwrap_or_else(|| panic!("no {name} row in the merged table"));
    line.trim_start_matches("Vuser 1:")[name.len()..]
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn build(home: &Path, configure: &str, db: &str, settings: &str, warehouses: u32) {
    let script = home.join("build.rhai");
    let loaders = warehouses.min(2);
    std::fs::write(
        &script,
        format!(
            "{configure}\ndbset(\"db\", \"{db}\");\ndbset(\"bm\", \"TPROC-C\");\n{settings}\n\
             diset(\"tpcc\", \"{db}_count_ware\", {warehouses});\n\
             diset(\"tpcc\", \"{db}_num_vu\", {loaders});\n\
             let ok = false; try {{ checkschema(); ok = true; }} catch {{}}\n\
             if !ok {{ try {{ deleteschema(); }} catch {{}} buildschema(); }}\n"
        ),
    )
    .unwrap();
    let out = common::hammer(home, &["auto", script.to_str().unwrap()], "");
    let text = common::text(&out.stdout) + common::text(&out.stderr).as_str();
    assert!(out.status.success(), "the build failed:\n{text}");
}

/// A driver: `hammer auto` on its own script and home, output captured.
#[allow(clippy::too_many_arguments)]
fn driver(
    home: &Path,
    configure: &str,
    db: &str,
    settings: &str,
    run: &str,
    n: u32,
    first: u32,
    owned: u32,
    warehouses: u32,
    rampup: f64,
    duration: f64,
) -> Child {
    std::fs::create_dir_all(home).unwrap();
    let script = home.join("driver.rhai");
    std::fs::write(
        &script,
        format!(
            "{configure}\ndbset(\"db\", \"{db}\");\ndbset(\"bm\", \"TPROC-C\");\n{settings}\n\
             diset(\"tpcc\", \"{db}_count_ware\", {warehouses});\n\
             diset(\"tpcc\", \"{db}_first_ware\", {first});\n\
             diset(\"tpcc\", \"{db}_owned_ware\", {owned});\n\
             diset(\"tpcc\", \"{db}_rampup\", {rampup});\n\
             diset(\"tpcc\", \"{db}_duration\", {duration});\n\
             giset(\"drivers\", \"drivers_run\", \"{run}\");\n\
             giset(\"drivers\", \"drivers_count\", {n});\n\
             giset(\"drivers\", \"drivers_wait\", 120);\n\
             vuset(\"vu\", 2);\nloadscript();\nvucreate();\nvurun();\nvudestroy();\n"
        ),
    )
    .unwrap();
    Command::new(env!("CARGO_BIN_EXE_hammer"))
        .args(["auto", script.to_str().unwrap()])
        .env("HAMMER_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hammer starts")
}

fn output(child: Child) -> (bool, String) {
    let out = child.wait_with_output().expect("hammer ends");
    (
        out.status.success(),
        common::text(&out.stdout) + common::text(&out.stderr).as_str(),
    )
}

fn unique(tag: &str) -> String {
    format!(
        "{tag}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
    )
}

const PG_DB: &str = "hammer_drivers_pg";
const PG_SETTINGS: &str = "diset(\"tpcc\", \"pg_user\", \"hammer_drivers_pg\");\n\
                           diset(\"tpcc\", \"pg_dbase\", \"hammer_drivers_pg\");";

/// The shipped example, two drivers on PostgreSQL: the merged NOPM is the database's own
/// delta over the common window, and the merged table is every part's samples.
#[test]
fn two_drivers_on_postgresql_give_the_database_s_nopm_and_exact_percentiles() {
    let s = Servers::get();
    s.require();
    let home = tempfile::tempdir().unwrap();
    build(home.path(), &s.configure(), "pg", PG_SETTINGS, 4);
    let sampler = Sampler::pg(&s, PG_DB);
    let out = Command::new("bash")
        .args([
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/scripts/pg/tprocc/pg_tprocc_drivers.sh"
            ),
            "2",
            "0.1",
            "0.3",
        ])
        .env("HAMMER", env!("CARGO_BIN_EXE_hammer"))
        .env("HAMMER_HOME", home.path())
        .env("DBASE", PG_DB)
        .env("DBUSER", PG_DB)
        .env("HAMMER_PG_SUPERUSERPASS", &s.pg_pass)
        .stdin(Stdio::null())
        .output()
        .expect("the drivers script runs");
    let samples = sampler.finish();
    let text = common::text(&out.stdout) + common::text(&out.stderr).as_str();
    assert!(out.status.success(), "the drivers script failed:\n{text}");
    let run = text
        .lines()
        .find_map(|l| l.strip_prefix("drivers: run "))
        .and_then(|l| l.split(':').next())
        .expect("the run's name")
        .to_string();
    assert!(
        text.contains(&format!(
            "Drivers of run {run}: 2 of 2 measured the common window"
        )),
        "{text}"
    );
    let board = pg_board(&s, PG_DB, &run);
    let parts = board.parts();
    assert_eq!(parts.len(), 2, "both parts posted:\n{text}");
    // The database's delta over the window the first driver measured.
    let lead = &parts[0].1;
    let (from, to) = (lead.read_from_ms.unwrap(), lead.read_to_ms.unwrap());
    let (w0, w1) = board.window();
    assert!(
        (from - w0).abs() < 1000,
        "measured from {from}, window from {w0}"
    );
    assert!((to - w1).abs() < 2000, "measured to {to}, window to {w1}");
    let db = sampled_nopm(&samples, from, to);
    let merged = merged_nopm(&text, 2);
    assert!(
        (merged - db).abs() <= db * 0.01,
        "merged NOPM {merged} against the database's {db:.0} over the window:\n{text}"
    );
    // The merged table: each type's counts are the parts' sums, its percentiles those of
    // all the parts' samples together.
    let only: Vec<Part> = parts.into_iter().map(|(_, p)| p).collect();
    let names = hammer::tpcc::driver::TYPE_NAMES;
    let (all, unreadable) = merge(&names, &only);
    assert_eq!(unreadable, 0);
    for (i, name) in names.iter().enumerate() {
        let row = merged_row(&text, name);
        let sum: u64 = only.iter().map(|p| p.types[i].committed).sum();
        assert_eq!(row[0], sum.to_string(), "{name} committed:\n{text}");
        assert!(sum > 0, "{name} ran");
        let mut whole =
            hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        for p in &only {
            whole.add(p.types[i].histogram().unwrap()).unwrap();
        }
        let ms = |v: u64| format!("{:.3}", v as f64 / 1000.0);
        assert_eq!(whole.len(), all.by_kind[i].latency.len());
        for (col, q) in [(4, 0.5), (5, 0.95), (6, 0.99)] {
            assert_eq!(
                row[col],
                ms(whole.value_at_quantile(q)),
                "{name} at {q}:\n{text}"
            );
        }
        assert_eq!(row[7], ms(whole.max()), "{name} max");
    }
    // The drivers' jobs went to the user's jobs database: one run there, with both parts.
    jobs_show_the_run(home.path(), &run, 2, &text);
    // The run has started: its name cannot be joined again.
    let again = driver(
        &home.path().join("late"),
        &s.configure(),
        "pg",
        PG_SETTINGS,
        &run,
        2,
        1,
        2,
        4,
        0.0,
        0.1,
    );
    let (ok, late) = output(again);
    assert!(!ok, "a late driver is refused:\n{late}");
    assert!(
        late.contains(&format!("Error: drivers run '{run}': it started at")),
        "{late}"
    );
}

/// Three drivers, one killed in the middle of the window: the others say so and their
/// figures stand, the database's own NOPM still the delta over the window.
fn killed_mid_run(db: &str) {
    let s = Servers::get();
    s.require();
    let home = tempfile::tempdir().unwrap();
    let name = format!("hammer_drivers_kill_{db}");
    let settings = if db == "pg" {
        format!(
            "diset(\"tpcc\", \"pg_user\", \"{name}\");\ndiset(\"tpcc\", \"pg_dbase\", \"{name}\");"
        )
    } else {
        format!("diset(\"tpcc\", \"{db}_dbase\", \"{name}\");")
    };
    build(home.path(), &s.configure(), db, &settings, 3);
    let run = unique("kill");
    let sampler = if db == "pg" {
        Sampler::pg(&s, &name)
    } else {
        Sampler::maria(&s, &name)
    };
    let children: Vec<Child> = (1..=3)
        .map(|k| {
            driver(
                &home.path().join(format!("d{k}")),
                &s.configure(),
                db,
                &settings,
                &run,
                3,
                k,
                1,
                3,
                0.05,
                0.4,
            )
        })
        .collect();
    let mut children = children.into_iter();
    let (first, second, mut third) = (
        children.next().unwrap(),
        children.next().unwrap(),
        children.next().unwrap(),
    );
    // Into the window: 3 s of rampup, then 8 s of the 24 measured.
    std::thread::sleep(Duration::from_secs(14));
    third.kill().expect("the third driver is killed");
    let _ = third.wait();
    let (ok1, out1) = output(first);
    let (ok2, out2) = output(second);
    let samples = sampler.finish();
    assert!(ok1 && ok2, "the surviving drivers finish:\n{out1}\n{out2}");
    for out in [&out1, &out2] {
        assert!(
            out.contains(&format!(
                "Drivers of run {run}: 2 of 3 measured the common window"
            )),
            "{out}"
        );
        assert!(out.contains("died: its last sign of life was at"), "{out}");
        // MariaDB's drivers beat through the window; PostgreSQL's keep quiet in it.
        let when = if db == "pg" {
            "before the window opened (on PostgreSQL the drivers keep quiet"
        } else {
            "into the window"
        };
        assert!(out.contains(when), "{out}");
    }
    let board = if db == "pg" {
        pg_board(&s, &name, &run)
    } else {
        maria_board(&s, &name, &run)
    };
    let parts = board.parts();
    assert_eq!(parts.len(), 2, "two parts posted");
    let lead = &parts[0].1;
    let (from, to) = (lead.read_from_ms.unwrap(), lead.read_to_ms.unwrap());
    let delta = sampled_nopm(&samples, from, to);
    let merged = merged_nopm(&out1, 3);
    assert!(
        (merged - delta).abs() <= delta * 0.01,
        "merged NOPM {merged} against the database's {delta:.0}:\n{out1}"
    );
    // The first driver's jobs (its own data directory) hold its part: the run is incomplete
    // and says which driver died; the others' jobs are in their own stores.
    let dead = out1
        .lines()
        .find(|l| l.contains("died: its last sign of life"))
        .and_then(|l| l.split("Driver ").nth(1)?.split_whitespace().next())
        .expect("the dead driver's line")
        .to_string();
    let shown = jobs(&home.path().join("d1"), &["--text", "run", &run]);
    assert!(
        shown.starts_with(&format!(
            "Run {run}: 3 drivers, INCOMPLETE: driver {dead} died"
        )),
        "{shown}"
    );
    assert_eq!(
        shown.matches("(not in this jobs store)").count(),
        2,
        "{shown}"
    );
}

#[test]
fn a_driver_killed_mid_run_on_mariadb_is_reported_and_the_others_figures_stand() {
    killed_mid_run("maria");
}

#[test]
fn a_driver_killed_mid_run_on_postgresql_is_reported_and_the_others_figures_stand() {
    killed_mid_run("pg");
}

/// Two drivers staggered on PostgreSQL: the second starts later and ramps up for less, and
/// both measure the same window.
#[test]
fn staggered_drivers_all_measure_the_same_window() {
    let s = Servers::get();
    s.require();
    let home = tempfile::tempdir().unwrap();
    let settings = "diset(\"tpcc\", \"pg_user\", \"hammer_drivers_step\");\n\
                    diset(\"tpcc\", \"pg_dbase\", \"hammer_drivers_step\");";
    build(home.path(), &s.configure(), "pg", settings, 2);
    let out = Command::new("bash")
        .args([
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/scripts/pg/tprocc/pg_tprocc_drivers.sh"
            ),
            "2",
            "0.2",
            "0.2",
        ])
        .env("HAMMER", env!("CARGO_BIN_EXE_hammer"))
        .env("HAMMER_HOME", home.path())
        .env("DBASE", "hammer_drivers_step")
        .env("DBUSER", "hammer_drivers_step")
        .env("HAMMER_PG_SUPERUSERPASS", &s.pg_pass)
        .env("WAREHOUSES", "2")
        .env("STEPS", "1")
        .stdin(Stdio::null())
        .output()
        .expect("the drivers script runs");
    let text = common::text(&out.stdout) + common::text(&out.stderr).as_str();
    assert!(out.status.success(), "the drivers script failed:\n{text}");
    let run = text
        .lines()
        .find_map(|l| l.strip_prefix("drivers: run "))
        .and_then(|l| l.split(':').next())
        .expect("the run's name")
        .to_string();
    let board = pg_board(&s, "hammer_drivers_step", &run);
    let delays: Vec<i64> = board.drivers.iter().map(|d| d.1).collect();
    let mut sorted = delays.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [0, 6000], "one driver 6 s later: {delays:?}");
    let (w0, w1) = board.window();
    let parts = board.parts();
    assert_eq!(parts.len(), 2);
    for (driver, p) in &parts {
        let delay = board.drivers.iter().find(|d| d.0 == *driver).unwrap().1;
        let started = p.started_ms.unwrap();
        assert!(
            started >= board.start_ms + delay - 200 && started < board.start_ms + delay + 1500,
            "driver {driver} started at {started}, its place {}",
            board.start_ms + delay
        );
        let (from, to) = (p.read_from_ms.unwrap(), p.read_to_ms.unwrap());
        assert!(
            (from - w0).abs() < 1000,
            "driver {driver} measured from {from}, window {w0}"
        );
        assert!(
            (to - w1).abs() < 2000,
            "driver {driver} measured to {to}, window {w1}"
        );
    }
    let (a, b) = (&parts[0].1, &parts[1].1);
    assert!(
        (a.read_from_ms.unwrap() - b.read_from_ms.unwrap()).abs() < 500,
        "the drivers' windows open together"
    );
    assert!(
        text.contains("TEST RESULT (2 drivers) : System achieved"),
        "{text}"
    );
}

/// Settings a shared run cannot take are refused with what would be valid.
#[test]
fn a_bad_run_name_and_a_test_driver_are_refused() {
    let s = Servers::get();
    s.require();
    let mut f = common::Fixture::new();
    f.ok(&s.configure());
    f.ok(r#"dbset("db", "pg"); diset("tpcc", "pg_dbase", "hammer_drivers_none"); giset("drivers", "drivers_run", "no spaces allowed");"#);
    f.ok("loadscript(); vucreate();");
    let e = f.err("vurun()");
    assert!(e.contains("drivers run 'no spaces allowed'"), "{e}");
    assert!(e.contains("at most 64 letters, digits"), "{e}");
    f.ok(r#"vudestroy(); giset("drivers", "drivers_run", "ok-name"); diset("tpcc", "pg_driver", "test"); loadscript(); vucreate();"#);
    let e = f.err("vurun()");
    assert!(e.contains("several drivers share a timed run"), "{e}");
    assert!(e.contains("pg_driver"), "{e}");
}

/// A driver whose partners never come gives up after `drivers_wait`, names who did join and
/// leaves the run; a driver with another count is refused.
#[test]
fn a_driver_left_alone_gives_up_and_a_wrong_count_is_refused() {
    let s = Servers::get();
    s.require();
    let home = tempfile::tempdir().unwrap();
    let settings = "diset(\"tpcc\", \"pg_user\", \"hammer_drivers_wait\");\n\
                    diset(\"tpcc\", \"pg_dbase\", \"hammer_drivers_wait\");";
    build(home.path(), &s.configure(), "pg", settings, 1);
    let run = unique("alone");
    let script = |count: u32, wait: u32| {
        format!(
            "{}\ndbset(\"db\", \"pg\");\n{settings}\n\
             giset(\"drivers\", \"drivers_run\", \"{run}\");\n\
             giset(\"drivers\", \"drivers_count\", {count});\n\
             giset(\"drivers\", \"drivers_wait\", {wait});\n\
             diset(\"tpcc\", \"pg_rampup\", 0); diset(\"tpcc\", \"pg_duration\", 0.05);\n\
             vuset(\"vu\", 1); loadscript(); vucreate(); vurun();\n",
            s.configure()
        )
    };
    let alone = home.path().join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    std::fs::write(alone.join("run.rhai"), script(2, 4)).unwrap();
    let first = Command::new(env!("CARGO_BIN_EXE_hammer"))
        .args(["auto", alone.join("run.rhai").to_str().unwrap()])
        .env("HAMMER_HOME", &alone)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let other = home.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("run.rhai"), script(3, 4)).unwrap();
    let out = common::hammer(
        &other,
        &["auto", other.join("run.rhai").to_str().unwrap()],
        "",
    );
    let text = common::text(&out.stdout) + common::text(&out.stderr).as_str();
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("it was opened for 2 drivers, and drivers_count here is 3"),
        "{text}"
    );
    let (ok, text) = output(first);
    assert!(!ok, "{text}");
    assert!(
        text.contains("1 of 2 drivers joined within 4 s (driver 1 on"),
        "{text}"
    );
    assert!(text.contains("this driver left the run"), "{text}");
    let left = s.pg_i64(
        "hammer_drivers_wait",
        &format!("SELECT count(*) FROM hammer_drivers WHERE run = '{run}'"),
    );
    assert_eq!(left, 0, "the driver that gave up left the board");
}

/// A fresh jobs store database on the test PostgreSQL, dropped with the guard.
struct StoreDb {
    servers: Servers,
    name: String,
}

impl StoreDb {
    fn new(servers: Servers, name: &str) -> StoreDb {
        let drop = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
        servers.pg_exec("postgres", &drop);
        servers.pg_exec("postgres", &format!("CREATE DATABASE {name}"));
        StoreDb {
            servers,
            name: name.to_string(),
        }
    }
}

impl Drop for StoreDb {
    fn drop(&mut self) {
        // A failed test keeps it to look at (and the next run drops it first).
        if !std::thread::panicking() {
            let drop = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
            self.servers.pg_exec("postgres", &drop);
        }
    }
}

/// Two drivers (as on two machines: each its own data directory) record their jobs in a
/// shared PostgreSQL jobs store; a third hammer, with only the store configured, lists their
/// run as one entry with both parts and gives the merged result the drivers printed.
#[test]
fn drivers_recording_to_a_shared_store_are_one_run_from_any_hammer() {
    let s = Servers::get();
    s.require();
    let store = format!("hammer_drivers_store_{}", std::process::id());
    let _dropped = StoreDb::new(Servers::get(), &store);
    let home = tempfile::tempdir().unwrap();
    let settings = "diset(\"tpcc\", \"pg_user\", \"hammer_drivers_store\");\n\
                    diset(\"tpcc\", \"pg_dbase\", \"hammer_drivers_store\");";
    build(home.path(), &s.configure(), "pg", settings, 2);
    let url = format!(
        "postgresql://{}:{}@{}:{}/{store}",
        s.pg_user, s.pg_pass, s.pg_host, s.pg_port
    );
    let configure = format!(
        "{}\ngiset(\"commandline\", \"jobs_store\", \"{url}\");",
        s.configure()
    );
    let run = unique("store");
    let children: Vec<Child> = (1..=2)
        .map(|k| {
            driver(
                &home.path().join(format!("d{k}")),
                &configure,
                "pg",
                settings,
                &run,
                2,
                k,
                1,
                2,
                0.0,
                0.1,
            )
        })
        .collect();
    let outs: Vec<(bool, String)> = children.into_iter().map(output).collect();
    for (ok, out) in &outs {
        assert!(ok, "the drivers finish:\n{out}");
        assert!(
            !out.contains("jobs are not recorded"),
            "the store took the jobs:\n{out}"
        );
    }
    for k in 1..=2 {
        assert!(
            !home.path().join(format!("d{k}/jobs.db")).exists(),
            "driver {k}'s jobs went to the server, not to a file"
        );
    }
    // A third hammer: another data directory whose settings name only the store.
    let reader = tempfile::tempdir().unwrap();
    let at = serde_json::json!({ "generic": { "jobs_store": url } });
    std::fs::write(reader.path().join("settings.json"), at.to_string()).unwrap();
    let ids = jobs_show_the_run(reader.path(), &run, 2, &outs[0].1);
    // Each driver's job is the one it printed, under the number it joined as.
    for (_, out) in &outs {
        let joined = format!("Joined run {run} as driver ");
        let n: usize = out
            .lines()
            .find_map(|l| l.split_once(&joined).map(|(_, rest)| rest.to_string()))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no joined line:\n{out}"));
        assert!(
            out.contains(&format!("Benchmark Run jobid={}", ids[n - 1])),
            "driver {n}'s job {}:\n{out}",
            ids[n - 1]
        );
    }
}
