//! The live series a job keeps covers the measured window: a short timed run on the real
//! servers whose recorded intervals start at the window's start and end at its end, labelled
//! by the phase they lie in, and whose measured points sum to the run's per-type counts
//! within one interval's worth.

mod common;

use common::{hammer, text, Fixture, Servers, TprochDb};

/// A one-warehouse schema of the test's own on `db`, built, and dropped with the guard
/// (whatever the test did; its Drop is TPROC-H's but drops any database and role by name).
fn built(db: &'static str) -> (Fixture, TprochDb) {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    let unique = format!("hammer_live_series_{db}_{}", std::process::id());
    // Dropped when the test ends, also when the build fails half-way.
    let guard = TprochDb {
        db,
        name: unique.clone(),
    };
    f.ok(&servers.configure());
    f.ok(&format!(
        "dbset db {db}; dbset bm TPC-C; diset tpcc {db}_dbase {unique}"
    ));
    if db == "pg" {
        f.ok(&format!("diset tpcc pg_user {unique}"));
    }
    f.ok(&format!(
        "diset tpcc {db}_count_ware 1; diset tpcc {db}_num_vu 1"
    ));
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    (f, guard)
}

/// `hammer jobs --json ID WHAT` on the fixture's data directory.
fn job(f: &Fixture, id: &str, what: &str) -> serde_json::Value {
    let out = hammer(f.home.path(), &["jobs", "--json", id, what], "");
    let stdout = text(&out.stdout);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{what} is not JSON ({e}): {stdout}{}", text(&out.stderr)))
}

fn f64_of(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// A timed run of 1.2 s rampup and 3.9 s measured (not a whole number of the 1 s
/// intervals), then its job's series against its window and its counts.
fn series_covers_the_window(db: &'static str) {
    let (mut f, _schema) = built(db);
    f.ok(&format!(
        "diset tpcc {db}_driver timed; diset tpcc {db}_rampup 0.02; \
         diset tpcc {db}_duration 0.065; vuset vu 2; vuset delay 0; vuset refreshrate 1"
    ));
    let (r, lines) = f.console("vurun()");
    assert!(r.is_ok(), "{r:?}\n{}", lines.join("\n"));
    let (id, _) = f.console("lastrun().id");
    let id = id.unwrap();
    let progress = job(&f, &id, "progress");
    let timing = job(&f, &id, "timing");

    let window = progress["window"].as_array().expect("the window");
    let (start, end) = (f64_of(&window[0]), f64_of(&window[1]));
    assert!(end - start >= 3.9, "{progress}");
    let points = progress["points"].as_array().expect("points");
    let begins = |p: &serde_json::Value| f64_of(&p["elapsed_s"]) - f64_of(&p["seconds"]);
    let ends = |p: &serde_json::Value| f64_of(&p["elapsed_s"]);
    let measured: Vec<&serde_json::Value> =
        points.iter().filter(|p| p["phase"] == "measured").collect();
    assert!(measured.len() >= 4, "{progress}");
    // The first measured interval begins at the window's start, the last ends at its end
    // (to the microsecond the JSON's seconds keep), with no gap or overlap between.
    let near = |a: f64, b: f64| (a - b).abs() < 1e-5;
    assert!(near(begins(measured[0]), start), "{start}: {progress}");
    assert!(
        near(ends(measured[measured.len() - 1]), end),
        "{end}: {progress}"
    );
    for pair in points.windows(2) {
        assert!(near(ends(&pair[0]), begins(&pair[1])), "{progress}");
    }
    // Each interval is labelled by where it lies.
    for p in points {
        let want = if ends(p) <= start + 1e-5 {
            "rampup"
        } else if ends(p) <= end + 1e-5 {
            "measured"
        } else {
            "ending"
        };
        assert_eq!(p["phase"], want, "{start}..{end}: {p}");
    }
    // Per type and in all, the measured points sum to the run's counts within one interval.
    let names = progress["names"].as_array().expect("names");
    let (mut sum_all, mut counted_all) = (0, 0);
    for (k, name) in names.iter().enumerate() {
        let finished: Vec<u64> = measured
            .iter()
            .map(|p| p["types"][k]["finished"].as_u64().expect("finished"))
            .collect();
        let sum: u64 = finished.iter().sum();
        let t = timing
            .as_array()
            .expect("timings")
            .iter()
            .find(|t| t["name"] == *name)
            .unwrap_or_else(|| panic!("{name} in {timing}"));
        let counted: u64 = ["committed", "rolled_back", "failed"]
            .iter()
            .map(|c| t[c].as_u64().expect("a count"))
            .sum();
        let one = finished.iter().copied().max().unwrap_or(0);
        assert!(
            sum.abs_diff(counted) <= one,
            "{name}: {sum} in the series, {counted} in the run ({one} in its largest interval)"
        );
        (sum_all, counted_all) = (sum_all + sum, counted_all + counted);
    }
    let widest = measured.iter().map(|p| total(p)).max().unwrap_or(0);
    assert!(counted_all > 0, "{timing}");
    assert!(
        sum_all.abs_diff(counted_all) <= widest,
        "{sum_all} in the series, {counted_all} in the run"
    );
}

/// Every unit an interval counted, all types.
fn total(p: &serde_json::Value) -> u64 {
    p["types"]
        .as_array()
        .expect("types")
        .iter()
        .map(|t| t["finished"].as_u64().expect("finished"))
        .sum()
}

#[test]
fn postgres_live_series_covers_the_measured_window() {
    series_covers_the_window("pg");
}

#[test]
fn mariadb_live_series_covers_the_measured_window() {
    series_covers_the_window("maria");
}
