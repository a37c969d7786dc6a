//! The HTML report in a real browser: reports of each kind of job (a TPROC-C run, a TPROC-H
//! power test, a TPROC-H throughput test of many streams, a schema build), recorded into a
//! jobs database without a server, written by `hammer jobs ID report`, and laid out by headless
//! Chromium, which measures every chart's text: no text overlaps another text or a bar, and
//! none runs out of its chart.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{hammer, text};
use hammer::jobs::live::{Live, Point, TypePoint};
use hammer::jobs::store::{default_path, End, Origin, Store};
use hammer::jobs::{
    Kind, Line, Profile, QueryTime, RefreshTime, RunFigures, SetTimes, Spec, Status, SystemInfo,
    Timing, TpchFigures, TpchRecord,
};

/// When the runs below started: 2025-04-14 09:30:05 UTC.
const T0: i64 = 1_744_623_005_000;

/// The Chromium to run: `HAMMER_CHROMIUM`, else Debian's `chromium`.
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("HAMMER_CHROMIUM") {
        return PathBuf::from(p);
    }
    for name in ["chromium", "chromium-browser"] {
        for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
            let p = dir.join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!(
        "no headless browser: this test lays the report out in Chromium; install it with \
         `apt-get install -y chromium` (scripts/ci/install.sh does), or point HAMMER_CHROMIUM \
         at one"
    );
}

/// Runs Chromium headless on `args` with a fresh profile, for at most a minute; its stdout.
fn run_chromium(args: &[String]) -> String {
    use std::process::{Command, Stdio};
    let profile = tempfile::tempdir().expect("a browser profile dir");
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    // Read both pipes aside, so that a chatty browser never blocks on a full one.
    let pipe = |r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut r = r;
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = pipe(Box::new(child.stdout.take().expect("stdout")));
    let err = pipe(Box::new(child.stderr.take().expect("stderr")));
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().expect("chromium runs") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 60 s: {args:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert!(
        status.success(),
        "chromium {args:?} failed ({status}): {}",
        text(&err)
    );
    text(&out)
}

/// Measures every chart of a page once it is laid out: pairs of texts whose boxes overlap, a
/// text over a bar or a legend's swatch (not the measured window's shading, which labels
/// sit on by design), a text outside its chart; and a page wider than its window. Writes the
/// findings into the page as JSON.
const MEASURE: &str = r#"<script>
window.addEventListener('load', () => {
  const found = [];
  let texts = 0;
  const hit = (a, b) =>
    Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  const svgs = [...document.querySelectorAll('svg')];
  svgs.forEach((svg, i) => {
    const name = `chart ${i + 1} (${svg.getAttribute('aria-label')})`;
    const box = svg.getBoundingClientRect();
    const ts = [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()]);
    const rs = [...svg.querySelectorAll('rect')]
      .filter(r => !r.classList.contains('window'))
      .map(r => [r.querySelector('title') ? r.querySelector('title').textContent : 'a swatch', r.getBoundingClientRect()]);
    texts += ts.length;
    ts.forEach(([a, ab], j) => {
      if (ab.width === 0 || ab.height === 0) found.push(`${name}: "${a}" is not drawn`);
      if (ab.left < box.left - 0.5 || ab.right > box.right + 0.5 || ab.top < box.top - 0.5 || ab.bottom > box.bottom + 0.5)
        found.push(`${name}: "${a}" runs out of the chart`);
      ts.slice(j + 1).forEach(([b, bb]) => { if (hit(ab, bb)) found.push(`${name}: "${a}" overlaps "${b}"`); });
      rs.forEach(([b, bb]) => { if (hit(ab, bb)) found.push(`${name}: "${a}" overlaps the bar of ${b}`); });
    });
  });
  // A table wider than the page scrolls in its own box; the page itself never does.
  const page = document.documentElement;
  if (page.scrollWidth > page.clientWidth + 1)
    found.push(`the page is ${page.scrollWidth} px wide in a window of ${page.clientWidth} px`);
  const pre = document.createElement('pre');
  pre.id = 'hammer-measured';
  pre.textContent = JSON.stringify({charts: svgs.length, texts, found});
  document.body.appendChild(pre);
});
</script>"#;

/// What the browser measured of a report.
#[derive(Debug)]
struct Measured {
    charts: usize,
    texts: usize,
    found: Vec<String>,
}

/// Lays `report` out at `width` pixels and measures it.
fn measure(report: &Path, width: u32) -> Measured {
    let html = std::fs::read_to_string(report).expect("the report");
    let probe = report.with_extension(format!("measure{width}.html"));
    std::fs::write(
        &probe,
        html.replace("</body>", &format!("{MEASURE}</body>")),
    )
    .unwrap();
    let dom = run_chromium(&[
        format!("--window-size={width},2000"),
        "--virtual-time-budget=5000".into(),
        "--dump-dom".into(),
        format!("file://{}", probe.display()),
    ]);
    let json = dom
        .split_once(r#"<pre id="hammer-measured">"#)
        .and_then(|(_, rest)| rest.split_once("</pre>"))
        .map(|(j, _)| {
            j.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        })
        .unwrap_or_else(|| panic!("the page did not measure itself: {dom}"));
    let v: serde_json::Value = serde_json::from_str(&json).expect("the measure's JSON");
    Measured {
        charts: v["charts"].as_u64().unwrap_or(0) as usize,
        texts: v["texts"].as_u64().unwrap_or(0) as usize,
        found: v["found"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| s.as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn store(home: &Path) -> Store {
    Store::open(&default_path(home)).expect("the jobs database")
}

fn begin(store: &Store, id: &str, kind: Kind, profile: Profile) {
    let spec = Spec {
        kind,
        profile,
        settings: serde_json::json!({"generic": {"commandline": {"jobsoutput": "JSON"}}}),
    };
    let origin = Origin {
        hostname: "box".into(),
        pid: std::process::id(),
        pid_started: None,
    };
    store.insert_job(id, &spec, &origin, T0).unwrap();
    let lines: Vec<Line> = (0..3)
        .map(|i| Line {
            at: T0 + i,
            vu: 0,
            line: format!("line {i}"),
        })
        .collect();
    store.append(id, &lines, &[], &[]).unwrap();
}

fn timing(name: &str, p50: f64) -> Timing {
    Timing {
        name: name.into(),
        committed: 1000,
        rolled_back: 10,
        retried: 0,
        failed: 0,
        mean_ms: p50 * 1.2,
        p50_ms: p50,
        p95_ms: p50 * 3.0,
        p99_ms: p50 * 4.5,
        max_ms: p50 * 10.0,
    }
}

fn system() -> SystemInfo {
    SystemInfo {
        hostname: "box".into(),
        os: "Linux".into(),
        cpu_model: "a CPU".into(),
        cpu_count: 2,
        physical_cores: Some(2),
        memory_bytes: 8 << 30,
        server_version: Some("PostgreSQL 15.4".into()),
        server_settings: vec![("fsync".into(), "on".into())],
        transport: Some("TCP 127.0.0.1:5432".into()),
        hammer_version: Some("0.1.0".into()),
        hammer_build: Some("debug".into()),
    }
}

/// A live series of `names`, one point every 2 s over `seconds`, a 4 s rampup, rates in the
/// tens of thousands per minute and p95s from 1 to 40 ms.
fn live(names: &[String], rates: &[&str], seconds: u32) -> Live {
    let points = (1..=seconds / 2)
        .map(|i| {
            let t = f64::from(i) * 2.0;
            Point {
                at_ms: T0 + (t * 1000.0) as i64,
                elapsed_s: t,
                seconds: 2.0,
                phase: if t <= 4.0 { "rampup" } else { "measured" }.into(),
                rates: rates
                    .iter()
                    .enumerate()
                    .map(|(k, r)| (r.to_string(), 20_000.0 * (k as f64 + 1.0) + 500.0 * t))
                    .collect(),
                types: (0..names.len())
                    .map(|k| TypePoint {
                        finished: 100,
                        failed: 0,
                        retried: 0,
                        p95_ms: Some(1.0 + (k as f64 * 1.7 + t) % 40.0),
                    })
                    .collect(),
                reconnects: 0,
                client_cpu_s: Some(0.1),
            }
        })
        .collect();
    Live {
        names: names.to_vec(),
        window: Some((4.0, Some(f64::from(seconds)))),
        points,
    }
}

/// A TPROC-C timed run with every series: the live view, the transaction counter, CPU.
fn tpcc_run(store: &Store, id: &str) {
    let profile = Profile {
        db: "PostgreSQL".into(),
        workload: "TPROC-C".into(),
        mode: "timed, stored functions".into(),
        vus: Some(4),
        warehouses: Some(4),
    };
    begin(store, id, Kind::Run, profile);
    for i in 0..30 {
        let at = T0 + i * 2_000;
        store
            .record_tcount(id, at, "tpm", 70_000.0 + 300.0 * i as f64, Some(31_000.0))
            .unwrap();
        store
            .record_metric(id, at, 60.0 - i as f64, 20.0, 1.5, 18.5 + i as f64)
            .unwrap();
    }
    let names: Vec<String> = [
        "new order",
        "payment",
        "delivery",
        "stock level",
        "order status",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let timings = names
        .iter()
        .enumerate()
        .map(|(k, n)| (timing(n, 0.8 + 2.7 * k as f64), Vec::new()))
        .collect();
    let end = End {
        figures: Some(RunFigures {
            nopm: Some(31_234.5),
            tpm: Some(71_853.2),
            active_vus: 4,
            seconds: 56.0,
            failed_vus: 0,
            reconnects: 0,
            transactions: 66_000,
            client_cpu_seconds: Some(12.5),
            stopped_early: None,
        }),
        timings,
        system: Some(system()),
        live: Some(live(&names, &["NOPM", "TPM"], 60)),
        ..End::new(Status::Success)
    };
    store.finish(id, &end, T0 + 61_000).unwrap();
}

/// A TPROC-H run of `streams` query streams (a power test for 1), query `q` of stream `s`
/// taking longer the later it is in the numbering, so that the last bars rise past the
/// geometric mean where its label was drawn.
fn tpch_run(store: &Store, id: &str, streams: u32) {
    let profile = Profile {
        db: "PostgreSQL".into(),
        workload: "TPROC-H".into(),
        mode: if streams == 1 {
            "power test".into()
        } else {
            format!("throughput test, {streams} streams")
        },
        vus: Some(streams),
        warehouses: None,
    };
    begin(store, id, Kind::Run, profile);
    for i in 0..5 {
        store
            .record_tcount(id, T0 + i * 10_000, "qph", 5_000.0 + 100.0 * i as f64, None)
            .unwrap();
    }
    let sets: Vec<SetTimes> = (1..=streams)
        .map(|vu| SetTimes {
            vu,
            stream: if streams == 1 { 0 } else { vu },
            set: 1,
            seconds: 30.0,
            queries: (1..=22u32)
                .map(|q| QueryTime {
                    position: q,
                    query: q,
                    seconds: 0.05 * f64::from(q) + 0.01 * f64::from(vu),
                    rows: if q == 13 { 0 } else { u64::from(q) },
                    error: None,
                })
                .collect(),
        })
        .collect();
    let geomean = {
        let logs: Vec<f64> = sets
            .iter()
            .flat_map(|s| {
                s.queries
                    .iter()
                    .filter(|q| q.rows > 0)
                    .map(|q| q.seconds.ln())
            })
            .collect();
        (logs.iter().sum::<f64>() / logs.len() as f64).exp()
    };
    let names: Vec<String> = (1..=22).map(|q| format!("query {q}")).collect();
    let record = TpchRecord {
        figures: TpchFigures {
            scale_factor: 1.0,
            query_streams: streams,
            geomean: Some(geomean),
            geomean_queries: 21 * u64::from(streams),
            querysets: streams,
            queries: 22 * u64::from(streams),
            failed_queries: 0,
            query_seconds: 12.0 * f64::from(streams),
            sets_seconds: 30.0,
            power_at_size: (streams == 1).then_some(8_303.2),
            throughput_at_size: (streams > 1).then_some(5_012.5),
            qphh: (streams > 1).then_some(6_451.2),
            answers_checked: 0,
            answers_matched: 0,
        },
        sets,
        refreshes: vec![RefreshTime {
            vu: 1,
            pair: 1,
            function: "RF1".into(),
            name: "New Sales refresh".into(),
            seconds: 1.25,
            rows: 1_500,
            error: None,
        }],
    };
    let end = End {
        figures: Some(RunFigures {
            nopm: None,
            tpm: None,
            active_vus: streams,
            seconds: 30.0,
            failed_vus: 0,
            reconnects: 0,
            transactions: 22 * u64::from(streams),
            client_cpu_seconds: Some(0.4),
            stopped_early: None,
        }),
        timings: names
            .iter()
            .enumerate()
            .map(|(k, n)| (timing(n, 50.0 * (k as f64 + 1.0)), Vec::new()))
            .collect(),
        system: Some(system()),
        // TPROC-H has no database counters in its live view: its queries' p95s only.
        live: Some(live(&names, &[], 30)),
        tpch: Some(record),
        ..End::new(Status::Success)
    };
    store.finish(id, &end, T0 + 31_000).unwrap();
}

/// A schema build: no chart at all.
fn build(store: &Store, id: &str) {
    let profile = Profile {
        db: "MariaDB".into(),
        workload: "TPROC-C".into(),
        mode: String::new(),
        vus: Some(2),
        warehouses: Some(2),
    };
    begin(store, id, Kind::Build, profile);
    let end = End {
        returned: Some(serde_json::json!({"ok": true, "warehouses": 2})),
        system: Some(system()),
        ..End::new(Status::Success)
    };
    store.finish(id, &end, T0 + 9_000).unwrap();
}

/// `hammer jobs ID report FILE`.
fn report(home: &Path, id: &str) -> PathBuf {
    let file = home.join(format!("{id}.html"));
    let out = hammer(
        home,
        &["jobs", id, "report", &file.display().to_string()],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    file
}

#[test]
fn no_text_of_any_report_overlaps_in_a_browser() {
    chromium();
    let home = tempfile::tempdir().unwrap();
    let jobs = [
        ("67FD24A6FDB403E2534383C1", "TPROC-C run", 5),
        ("67FD24A6FDB403E2534383C2", "TPROC-H power test", 3),
        ("67FD24A6FDB403E2534383C3", "TPROC-H throughput test", 3),
        ("67FD24A6FDB403E2534383C4", "schema build", 0),
    ];
    {
        let s = store(home.path());
        tpcc_run(&s, jobs[0].0);
        tpch_run(&s, jobs[1].0, 1);
        tpch_run(&s, jobs[2].0, 8);
        build(&s, jobs[3].0);
    }
    let mut problems = Vec::new();
    for (id, kind, charts) in jobs {
        let file = report(home.path(), id);
        // A chart scales with the window as a whole (its text with it): one width tells.
        let m = measure(&file, 1000);
        assert_eq!(m.charts, charts, "charts of the {kind} report");
        assert!(
            charts == 0 || m.texts > 10 * charts,
            "the {kind} report's charts have their labels: {m:?}"
        );
        problems.extend(m.found.iter().map(|f| format!("{kind} report: {f}")));
        // HAMMER_REPORT_SHOTS=DIR: a screenshot of each report there, to look at.
        if let Some(dir) = std::env::var_os("HAMMER_REPORT_SHOTS") {
            let png = Path::new(&dir).join(format!("report-{}.png", kind.replace(' ', "-")));
            run_chromium(&[
                "--window-size=1000,4000".into(),
                format!("--screenshot={}", png.display()),
                format!("file://{}", file.display()),
            ]);
            assert!(png.is_file(), "no screenshot at {}", png.display());
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
