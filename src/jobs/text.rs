//! The text form of what `jobs` shows: pure functions of the stored structs.

use super::id::text_time;
use super::runs::{Entry, RunPart, SharedRun};
use super::{
    Detail, Line, MetricPoint, RunFigures, Summary, SystemInfo, TcountPoint, Timing, TpchRecord,
};

/// `12345` for figures, `-` when there is none.
fn figure(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |v| format!("{:.0}", v))
}

fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(width.saturating_sub(1)).collect();
        t.push('~');
        t
    }
}

/// A geometric mean in seconds, `0.43356`, `-` when there is none.
fn seconds5(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |v| format!("{v:.5}"))
}

/// The `jobs` table, newest first, in one section per workload, headed by its name, as
/// HammerDB lists them: the benchmarks in the order of `crate::benchmarks::ALL`, then any
/// other workload a job recorded. Custom runs share the first benchmark's section, whose
/// heading then says so. A list of only that section has no heading. TPROC-H's jobs,
/// measured by a geometric mean rather than NOPM, show it in NOPM's place.
pub fn list(jobs: &[Summary], path: &str) -> String {
    list_with_runs(jobs, &[], path)
}

/// The `jobs` table with each run several drivers shared as one entry (its merged NOPM and
/// TPM, the status of the whole, its name), its drivers beneath it (their jobs, hosts and
/// their own terminals' New-Orders a minute) in its newest part's place.
pub fn list_with_runs(jobs: &[Summary], runs: &[SharedRun], path: &str) -> String {
    if jobs.is_empty() {
        // HammerDB's words for its file; a server's database (`jobs_store`) is no file.
        let what = if path.contains("://") {
            "database"
        } else {
            "database file"
        };
        return format!("No jobs found in {what} {path}");
    }
    let sections = sections(jobs);
    let headed = sections.len() > 1 || sections.first().is_some_and(|s| s.rank != 0);
    sections
        .iter()
        .map(|s| {
            let mut out = String::new();
            if headed {
                out.push_str(&s.heading());
                out.push('\n');
            }
            out.push_str(&if s.name.eq_ignore_ascii_case(super::TPROC_H) {
                geomean_table(&s.jobs)
            } else {
                nopm_table(&s.jobs, runs)
            });
            out
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// One workload's jobs in the `jobs` table.
struct Section<'a> {
    /// The workload's name as the section is headed: `TPROC-C`.
    name: &'a str,
    /// Where it comes: its place in `crate::benchmarks::ALL`, or after them.
    rank: usize,
    /// Whether custom runs share it.
    custom: bool,
    jobs: Vec<&'a Summary>,
}

impl Section<'_> {
    /// `TPROC-C Jobs`, `TPROC-C and custom Jobs`.
    fn heading(&self) -> String {
        if self.custom {
            format!("{} and custom Jobs", self.name)
        } else {
            format!("{} Jobs", self.name)
        }
    }
}

/// The jobs grouped by workload, each group newest first, the groups in their order.
fn sections(jobs: &[Summary]) -> Vec<Section<'_>> {
    let known = crate::benchmarks::ALL;
    let mut sections: Vec<Section> = Vec::new();
    for j in jobs {
        let custom = is_custom(j);
        let (name, rank) = if custom {
            (known[0].name, 0)
        } else {
            let recorded = j.profile.workload.as_str();
            match known
                .iter()
                .position(|b| b.name.eq_ignore_ascii_case(recorded))
            {
                Some(i) => (known[i].name, i),
                None => (recorded, known.len()),
            }
        };
        match sections.iter_mut().find(|s| s.name == name) {
            Some(s) => {
                s.custom |= custom;
                s.jobs.push(j);
            }
            None => sections.push(Section {
                name,
                rank,
                custom,
                jobs: vec![j],
            }),
        }
    }
    // Stable: workloads outside the list keep the order they were first met in.
    sections.sort_by_key(|s| s.rank);
    sections
}

/// One row of a table with NOPM and TPM.
#[allow(clippy::too_many_arguments)]
fn nopm_row(
    id: &str,
    started: &str,
    db: &str,
    workload: &str,
    label: &str,
    nopm: &str,
    tpm: &str,
    status: &str,
) -> String {
    format!(
        "{id:<24}  {started:<19}  {:<10}  {:<12}  {label:<15}  {nopm:>8}  {tpm:>9}  {status}",
        clip(db, 10),
        clip(workload, 12),
    )
}

/// A section's table with NOPM and TPM; the jobs that are parts of a shared run are listed
/// under it, where its newest part is.
fn nopm_table(jobs: &[&Summary], runs: &[SharedRun]) -> String {
    let mut out = nopm_row(
        "JOBID",
        "STARTED (UTC)",
        "DATABASE",
        "WORKLOAD",
        "TYPE",
        "NOPM",
        "TPM",
        "STATUS",
    );
    let entries = super::runs::entries(jobs.iter().copied(), runs);
    for e in &entries {
        match e {
            Entry::Job(j) => {
                out.push('\n');
                out.push_str(&nopm_row(
                    &j.id,
                    &text_time(j.started),
                    &j.profile.db,
                    &j.profile.workload,
                    j.label,
                    &figure(j.nopm),
                    &figure(j.tpm),
                    j.status.label(),
                ));
            }
            Entry::Run(r) => {
                for line in run_rows(r) {
                    out.push('\n');
                    out.push_str(&line);
                }
            }
        }
    }
    if entries.iter().any(|e| matches!(e, Entry::Run(_))) {
        out.push_str(
            "\n(A shared run's NOPM and TPM are the database's own over the common window; \
             beneath it, each driver's NOPM is what its own terminals committed. jobs run NAME \
             shows one.)",
        );
    }
    out
}

/// A shared run's rows in the `jobs` table: the run, then each driver with its job.
fn run_rows(r: &SharedRun) -> Vec<String> {
    let m = &r.merged;
    let lead = r.lead();
    let workload = lead.map_or("TPROC-C", |j| j.profile.workload.as_str());
    let mut status = format!("{} run {}", r.status.label(), r.run);
    if let Some(note) = r.note() {
        status.push_str(&format!(": {note}"));
    }
    let mut rows = vec![nopm_row(
        &format!("run of {} drivers", r.drivers),
        &text_time(r.started),
        &m.db,
        workload,
        super::runs::LABEL,
        &figure(m.nopm),
        &figure(m.tpm),
        &status,
    )];
    for mem in &r.members {
        let row = &mem.row;
        let (id, started, state) = match &mem.job {
            Some(j) => (j.id.clone(), text_time(j.started), j.status.label()),
            None => ("(not in this jobs store)".to_string(), "-".into(), "-"),
        };
        let mut status = format!("{state} on {} (pid {})", row.host, row.pid);
        if let Some(why) = &row.missing {
            let short = why.split(':').next().unwrap_or(why);
            status.push_str(&format!(", {short}"));
        }
        rows.push(nopm_row(
            &id,
            &started,
            &m.db,
            workload,
            &format!("driver {} of {}", row.driver, r.drivers),
            &figure(row.client_nopm),
            "-",
            &status,
        ));
    }
    rows
}

/// `jobs run`: every shared run, newest first, one line each.
pub fn runs(runs: &[SharedRun]) -> String {
    if runs.is_empty() {
        return "No shared runs in the jobs history (drivers that share a run, drivers_run, \
                record one)"
            .to_string();
    }
    let mut out = format!(
        "{:<19}  {:>7}  {:>8}  {:>9}  {:<10}  {}",
        "STARTED (UTC)", "DRIVERS", "NOPM", "TPM", "STATUS", "RUN"
    );
    for r in runs {
        out.push_str(&format!(
            "\n{:<19}  {:>7}  {:>8}  {:>9}  {:<10}  {}",
            text_time(r.started),
            r.drivers,
            figure(r.merged.nopm),
            figure(r.merged.tpm),
            r.status.label(),
            r.run
        ));
    }
    out
}

/// `jobs run NAME`: the run's merged result as its drivers printed it (the window, the
/// drivers that died or failed, the TEST RESULT line, the merged transaction table), each
/// driver with its job, and whose merge it is. `same_name` is how many runs in the store have
/// the name (the newest is shown).
pub fn shared_run(r: &SharedRun, same_name: usize) -> String {
    let m = &r.merged;
    let count = m.drivers.len();
    let mut out = vec![format!(
        "Run {}: {} drivers, {}{}",
        r.run,
        r.drivers,
        r.status.label(),
        r.note().map(|n| format!(": {n}")).unwrap_or_default()
    )];
    if let Some(j) = r.lead() {
        out.push(profile_of_run(j, r));
    }
    out.push(format!(
        "Drivers of run {}: {} of {count} measured the common window {} to {} (server clock, \
         {:.1} s)",
        r.run,
        m.measured(),
        text_time(m.window_from_ms),
        text_time(m.window_to_ms),
        (m.window_to_ms - m.window_from_ms) as f64 / 1000.0
    ));
    for d in &m.drivers {
        if let Some(why) = &d.missing {
            out.push(format!(
                "Driver {} on {} (pid {}), warehouses {}-{}: {why}; the figures below leave its \
                 terminals' counts out",
                d.driver, d.host, d.pid, d.first_ware, d.last_ware
            ));
        } else if d.step {
            let at = |ms: Option<i64>| {
                ms.map_or("-".to_string(), |t| {
                    format!("+{:.1} s", (t - m.window_from_ms) as f64 / 1000.0)
                })
            };
            out.push(format!(
                "Driver {} on {} (pid {}) is a step: it measured from {} to {} of the common \
                 window with {} virtual users",
                d.driver,
                d.host,
                d.pid,
                at(d.read_from_ms),
                at(d.read_to_ms),
                d.vus
            ));
        }
        if d.missing.is_none() && d.state == "failed" {
            out.push(format!(
                "Driver {} on {} (pid {}) did not complete its run{}",
                d.driver,
                d.host,
                d.pid,
                d.stopped_early
                    .as_deref()
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default()
            ));
        }
    }
    match (m.nopm, m.tpm) {
        (Some(nopm), Some(tpm)) => {
            out.push(test_result(&m.db, nopm, tpm, m.nopm_first).replacen(
                "TEST RESULT :",
                &format!("TEST RESULT ({count} drivers) :"),
                1,
            ));
            let mut from = format!(
                "  from the database's own counters over {:.1} s of the common window",
                m.seconds.unwrap_or_default()
            );
            if let Some(d) = m.read_by {
                from.push_str(&format!(", as driver {d} read them"));
            }
            if let Some(c) = m.client_nopm {
                from.push_str(&format!(
                    "; the drivers' terminals committed {} New-Orders a minute",
                    c.round() as u64
                ));
            }
            out.push(from);
        }
        _ => out.push(format!(
            "No driver of run {} read the database's counters over the whole window: no system \
             NOPM or TPM",
            r.run
        )),
    }
    if let Some(e) = m.efficiency {
        out.push(format!(
            "Efficiency: {e:.1} % of the tpmC the {} warehouses can give with keying and \
             thinking",
            m.warehouses
        ));
    }
    out.push("Transactions (all drivers; histograms merged, after rampup):".into());
    out.push(timing(&r.run, "TRANSACTION", &m.timing));
    if m.unreadable > 0 {
        out.push(format!(
            "({} histogram(s) of the drivers' parts could not be read: their percentiles are \
             left out)",
            m.unreadable
        ));
    }
    out.push(format!(
        "{:<7} {:<24} {:<16} {:>8} {:>11} {:>4} {:>10} {:>12} {:>10}  {}",
        "DRIVER",
        "JOBID",
        "HOST",
        "PID",
        "WAREHOUSES",
        "VUS",
        "NO/MIN",
        "TRANSACTIONS",
        "NO P95 MS",
        "STATE"
    ));
    for mem in &r.members {
        let d = &mem.row;
        let state = match (&d.missing, &mem.job) {
            (Some(_), Some(j)) => format!("missing (job {})", j.status.label()),
            (Some(_), None) => "missing".into(),
            (None, Some(j)) => format!("{} (job {})", d.state, j.status.label()),
            (None, None) => d.state.clone(),
        };
        out.push(format!(
            "{:<7} {:<24} {:<16} {:>8} {:>11} {:>4} {:>10} {:>12} {:>10}  {state}",
            d.driver,
            mem.job
                .as_ref()
                .map_or("(not in this jobs store)", |j| j.id.as_str()),
            clip(&d.host, 16),
            d.pid,
            format!("{}-{}", d.first_ware, d.last_ware),
            d.vus,
            figure(d.client_nopm),
            d.transactions.map_or("-".into(), |t| t.to_string()),
            d.new_order_p95_ms.map_or("-".into(), |p| format!("{p:.3}")),
        ));
    }
    let (by, driver) = &r.merged_by;
    let mut whose = format!(
        "The merge of driver {driver} (job {by}), which gathered {} of {count} parts",
        m.parts()
    );
    for f in &r.fewer {
        whose.push_str(&format!(
            "; driver {} (job {}) gathered {} and merged fewer",
            f.driver, f.id, f.parts
        ));
    }
    out.push(whose);
    if same_name > 1 {
        out.push(format!(
            "{same_name} runs in this jobs history are named {}: this is the newest",
            r.run
        ));
    }
    out.join("\n")
}

/// `PostgreSQL TPROC-C, timed, stored functions, 4 virtual users over 2 drivers, 4 warehouses`.
fn profile_of_run(lead: &Summary, r: &SharedRun) -> String {
    let p = &lead.profile;
    let mut parts = vec![format!("{} {}", p.db, p.workload)];
    let mode = r.mode();
    if !mode.is_empty() {
        parts.push(mode);
    }
    let vus = r.vus();
    parts.push(format!(
        "{vus} virtual user{} over {} drivers",
        if vus == 1 { "" } else { "s" },
        r.drivers
    ));
    let w = r.merged.warehouses;
    parts.push(format!("{w} warehouse{}", if w == 1 { "" } else { "s" }));
    parts.join(", ")
}

/// A section's table with the geometric mean and the query sets (TPROC-H's).
fn geomean_table(jobs: &[&Summary]) -> String {
    let mut out = format!(
        "{:<24}  {:<19}  {:<10}  {:<15}  {:>10}  {:>4}  {}",
        "JOBID", "STARTED (UTC)", "DATABASE", "TYPE", "GEOMEAN", "SETS", "STATUS"
    );
    for j in jobs {
        out.push_str(&format!(
            "\n{:<24}  {:<19}  {:<10}  {:<15}  {:>10}  {:>4}  {}",
            j.id,
            text_time(j.started),
            clip(&j.profile.db, 10),
            j.label,
            seconds5(j.geomean),
            j.querysets.map_or("-".to_string(), |n| n.to_string()),
            j.status.label()
        ));
    }
    out
}

/// `jobs result`: every job's result in one line each, oldest first: HammerDB's result lines
/// (`TEST RESULT : ...`, or TPROC-H's geometric mean and completed sets), or that it has none.
pub fn results(jobs: &[super::JobResult]) -> String {
    if jobs.is_empty() {
        return "No jobs found".to_string();
    }
    jobs.iter()
        .rev()
        .map(|(s, f, h)| {
            let what = match (f, h) {
                (_, Some(h)) => {
                    let g = h.geomean_line().unwrap_or_else(|| no_geomean(h));
                    format!("{g}; {}", h.completed_line())
                }
                (Some(f), None) => result_line(&s.profile.db, f)
                    .unwrap_or_else(|| format!("no NOPM or TPM, {} {}", f.transactions, units(s))),
                (None, None) => "Jobid has no test result".to_string(),
            };
            format!(
                "{}  {}  {}  {}  {what}",
                s.id,
                text_time(s.started),
                s.profile.db,
                s.profile.workload
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the profile says about a job: `PostgreSQL TPROC-C, timed, stored functions, 2 virtual
/// users, 1 warehouse`.
pub fn profile(s: &Summary) -> String {
    let p = &s.profile;
    let mut parts = vec![format!("{} {}", p.db, p.workload)];
    if !p.mode.is_empty() {
        parts.push(p.mode.clone());
    }
    if let Some(v) = p.vus {
        parts.push(format!("{v} virtual user{}", if v == 1 { "" } else { "s" }));
    }
    if let Some(w) = p.warehouses {
        parts.push(format!("{w} warehouse{}", if w == 1 { "" } else { "s" }));
    }
    parts.join(", ")
}

fn when(s: &Summary) -> String {
    let mut t = format!("{} UTC", text_time(s.started));
    match (s.ended, s.seconds) {
        (Some(e), Some(secs)) => t.push_str(&format!(" to {} ({secs:.1} s)", text_time(e))),
        _ => t.push_str(", not ended"),
    }
    t
}

/// `jobs ID status`.
pub fn status(s: &Summary) -> String {
    let mut out = format!("Job {} ({}): {}", s.id, s.label, s.status.label());
    if let Some(note) = &s.note {
        out.push_str(&format!("\n{note}"));
    }
    out.push_str(&format!("\n{}, on {} (pid {})", when(s), s.hostname, s.pid));
    out
}

/// HammerDB's result line, `TEST RESULT : System achieved 1234 NOPM from 5678 PostgreSQL TPM`
/// (the run's own words, NOPM first).
pub fn result_line(db: &str, f: &RunFigures) -> Option<String> {
    Some(test_result(db, f.nopm?, f.tpm?, true))
}

/// HammerDB's result line: `TEST RESULT : System achieved 1234 NOPM from 5678 PostgreSQL
/// TPM`, or TPM first (`benchmark.first_result`).
pub fn test_result(db: &str, nopm: f64, tpm: f64, nopm_first: bool) -> String {
    let (n, m) = (nopm.round() as u64, tpm.round() as u64);
    if nopm_first {
        format!("TEST RESULT : System achieved {n} NOPM from {m} {db} TPM")
    } else {
        format!("TEST RESULT : System achieved {m} {db} TPM at {n} NOPM")
    }
}

/// Whether a run job is a custom workload's (its profile's workload is `custom FILE`), whose
/// units are its script's iterations.
fn is_custom(s: &Summary) -> bool {
    s.profile.workload.starts_with("custom ")
}

/// What a run's units are called: a custom workload's iterations, TPROC-H's queries,
/// TPROC-C's transactions.
fn units(s: &Summary) -> &'static str {
    if is_custom(s) {
        "iterations"
    } else if s.is_tpch() {
        "queries"
    } else {
        "transactions"
    }
}

/// TPROC-H's result lines, as its run printed them: the geometric mean (or why there is
/// none) and the query sets completed.
fn tpch_lines(h: &super::TpchFigures) -> [String; 2] {
    [
        h.geomean_line().unwrap_or_else(|| no_geomean(h)),
        h.completed_line(),
    ]
}

/// Why a TPROC-H job has no geometric mean: a stopped run whose sets were all cut short
/// (their few queries are no run's figure), or no query that returned rows.
fn no_geomean(h: &super::TpchFigures) -> String {
    if h.querysets == 0 && h.queries > 0 {
        "no geometric mean: stopped before a query set was complete".to_string()
    } else {
        "no geometric mean: no query returned rows".to_string()
    }
}

/// `scale factor 1, 3 query streams, 66 queries (1 failed) in 25.3 s of query time`.
fn tpch_sizes(h: &super::TpchFigures) -> String {
    format!(
        "scale factor {}, {} query stream{}, {} queries ({} failed) in {:.1} s of query time",
        h.scale_factor,
        h.query_streams,
        if h.query_streams == 1 { "" } else { "s" },
        h.queries,
        h.failed_queries,
        h.query_seconds
    )
}

/// The specification's figures the run computed (labelled as hammer's, as the run printed
/// them) and how its answers compared with the published answer set, when it checked them.
fn tpch_extra(h: &super::TpchFigures) -> Vec<String> {
    let mut out = Vec::new();
    let ours = "hammer's figure, not an official TPC-H result";
    if let Some(p) = h.power_at_size {
        out.push(format!("Power@Size {p:.1} ({ours})"));
    }
    if let Some(t) = h.throughput_at_size {
        out.push(format!("Throughput@Size {t:.1} ({ours})"));
    }
    if let Some(q) = h.qphh {
        out.push(format!(
            "QphH@Size {q:.1} with the power test before it ({ours})"
        ));
    }
    if h.answers_checked > 0 {
        out.push(format!(
            "Answers checked against the published answer set: {} of {} match",
            h.answers_matched, h.answers_checked
        ));
    }
    out
}

/// `RF1 New Sales refresh 1.250 s (1500 rows)`, one per refresh function.
fn refresh_lines(t: &TpchRecord) -> Vec<String> {
    t.refreshes
        .iter()
        .map(|r| {
            let mut l = format!(
                "Vuser {} pair {}: {} {} {:.3} s ({} rows)",
                r.vu, r.pair, r.function, r.name, r.seconds, r.rows
            );
            if let Some(e) = &r.error {
                l.push_str(&format!(" failed: {e}"));
            }
            l
        })
        .collect()
}

/// `jobs ID`: the status and a summary of what it did.
pub fn summary(d: &Detail) -> String {
    let s = &d.summary;
    let mut out = format!("Job {}: {} {}", s.id, s.label, s.status.label());
    out.push_str(&format!("\n{}", profile(s)));
    out.push_str(&format!("\n{}, on {} (pid {})", when(s), s.hostname, s.pid));
    if let Some(note) = &s.note {
        out.push_str(&format!("\n{note}"));
    }
    if let Some(h) = &d.tpch {
        for line in tpch_lines(&h.figures) {
            out.push_str(&format!("\n{line}"));
        }
    }
    if let Some(f) = &d.figures {
        if let Some(line) = result_line(&s.profile.db, f) {
            out.push_str(&format!("\n{line}"));
        }
        out.push_str(&format!(
            "\n{} active virtual users, {} {} in {:.1} s",
            f.active_vus,
            f.transactions,
            units(s),
            f.seconds
        ));
    }
    if let Some(h) = &d.tpch {
        out.push_str(&format!("\n{}", tpch_sizes(&h.figures)));
        for line in tpch_extra(&h.figures) {
            out.push_str(&format!("\n{line}"));
        }
    }
    if let Some(p) = &d.run {
        out.push_str(&format!("\n{}", part_line(p)));
    }
    // Last, so that the result keeps its place (scripts read it by line).
    if let Some(line) = d.system.as_ref().and_then(conditions) {
        out.push_str(&format!("\n{line}"));
    }
    out
}

/// What a part of a shared run says of it: `Driver 1 of 2 of run night-42: merged, TEST
/// RESULT (2 drivers) : ... (jobs run night-42 shows the whole)`.
pub fn part_line(p: &RunPart) -> String {
    let m = &p.merged;
    let result = match (m.nopm, m.tpm) {
        (Some(n), Some(t)) => test_result(&m.db, n, t, m.nopm_first).replacen(
            "TEST RESULT :",
            &format!("TEST RESULT ({} drivers) :", m.drivers.len()),
            1,
        ),
        _ => "no system NOPM or TPM".into(),
    };
    format!(
        "Driver {} of {} of run {}: merged over {} of {} parts, {result} (jobs run {} shows the \
         whole)",
        p.driver,
        p.drivers,
        p.run,
        m.parts(),
        m.drivers.len(),
        p.run
    )
}

/// A setting's value, `''` when it is empty (so that it is seen to be).
fn shown(v: &str) -> &str {
    if v.is_empty() {
        "''"
    } else {
        v
    }
}

/// What a result was measured under, in one line: the server and how hammer reached it, its
/// durability settings, and the hammer that measured (`PostgreSQL 16.4 via TCP
/// 127.0.0.1:5432; fsync=on synchronous_commit=off; hammer 0.1.0 (release build)`).
pub fn conditions(s: &SystemInfo) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(v) = &s.server_version {
        parts.push(match &s.transport {
            Some(t) => format!("{v} via {t}"),
            None => v.clone(),
        });
    }
    let (durable, _) = s.settings_in_order();
    if !durable.is_empty() {
        let words: Vec<String> = durable
            .iter()
            .map(|(k, v)| format!("{k}={}", shown(v)))
            .collect();
        parts.push(words.join(" "));
    }
    parts.extend(s.hammer());
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// `jobs ID result`.
pub fn result(d: &Detail) -> String {
    let s = &d.summary;
    if let Some(f) = &d.figures {
        let mut out = format!("Job {} result", s.id);
        if let Some(h) = &d.tpch {
            for line in tpch_lines(&h.figures) {
                out.push_str(&format!("\n{line}"));
            }
        } else if let Some(line) = result_line(&s.profile.db, f) {
            out.push_str(&format!("\n{line}"));
        } else if is_custom(s) {
            out.push_str("\nno NOPM or TPM: a custom workload counts its iterations only");
        } else {
            out.push_str("\nno NOPM or TPM: a test run, or the run ended before it measured");
        }
        out.push_str(&format!(
            "\n{} Active Virtual Users configured",
            f.active_vus
        ));
        out.push_str(&format!(
            "\nmeasured {:.1} s, {} {}, {} failed virtual users, {} reconnects",
            f.seconds,
            f.transactions,
            units(s),
            f.failed_vus,
            f.reconnects
        ));
        if let Some(h) = &d.tpch {
            out.push_str(&format!("\n{}", tpch_sizes(&h.figures)));
            for line in tpch_extra(&h.figures).into_iter().chain(refresh_lines(h)) {
                out.push_str(&format!("\n{line}"));
            }
        }
        if let Some(cpu) = f.client_cpu_seconds {
            out.push_str(&format!("\nclient CPU {cpu:.2} s"));
        }
        if let Some(why) = &f.stopped_early {
            out.push_str(&format!("\nthe run ended early: {why}"));
        }
        return out;
    }
    match &d.returned {
        Some(v) => format!(
            "Job {} ({}) has no benchmark result; {} returned:\n{}",
            s.id,
            s.label,
            command_of(s.kind),
            serde_json::to_string_pretty(v).unwrap_or_default()
        ),
        None => format!("Job {} ({}) has no result", s.id, s.label),
    }
}

fn command_of(kind: super::Kind) -> &'static str {
    match kind {
        super::Kind::Build => "buildschema",
        super::Kind::Check => "checkschema",
        super::Kind::Delete => "deleteschema",
        super::Kind::Datagen => "datagenrun",
        super::Kind::Run => "vurun",
    }
}

/// `jobs ID timing`: counts and latency percentiles per unit type, the first column headed
/// `unit` (`TRANSACTION`, or `QUERY` for TPROC-H's queries and refresh functions).
pub fn timing(id: &str, unit: &str, t: &[Timing]) -> String {
    if t.is_empty() {
        return format!("Job {id} has no timing data");
    }
    let w = t
        .iter()
        .map(|x| x.name.len())
        .chain([unit.len(), 13])
        .max()
        .unwrap_or(13);
    let mut out = format!(
        "{:<w$} {:>10} {:>11} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9}",
        unit,
        "COMMITTED",
        "ROLLED BACK",
        "RETRIED",
        "FAILED",
        "MEAN MS",
        "P50 MS",
        "P95 MS",
        "P99 MS",
        "MAX MS"
    );
    for x in t {
        out.push_str(&format!(
            "\n{:<w$} {:>10} {:>11} {:>8} {:>7} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
            x.name,
            x.committed,
            x.rolled_back,
            x.retried,
            x.failed,
            x.mean_ms,
            x.p50_ms,
            x.p95_ms,
            x.p99_ms,
            x.max_ms
        ));
    }
    out
}

/// `jobs ID tcount`: the counter's samples in its metric (`PostgreSQL TPM`, or `PostgreSQL
/// QPH` for TPROC-H's queries per hour), with NOPM where the counter read TPROC-C's districts.
pub fn tcount(id: &str, db: &str, t: &[TcountPoint]) -> String {
    let Some(first) = t.first() else {
        return format!(
            "Job {id} has no transaction counter data (tcstart before the run records it)"
        );
    };
    let heading = format!("{db} {}", first.metric.to_ascii_uppercase());
    let nopm = t.iter().any(|p| p.nopm.is_some()) || first.metric == "tpm";
    let w = heading.len().max(14);
    let mut out = format!("{:<19}  {heading:>w$}", "TIME (UTC)");
    if nopm {
        out.push_str(&format!("  {:>10}", "NOPM"));
    }
    for p in t {
        out.push_str(&format!("\n{:<19}  {:>w$.0}", text_time(p.at), p.value));
        if nopm {
            out.push_str(&format!("  {:>10}", figure(p.nopm)));
        }
    }
    out
}

/// `jobs ID queries`: each query set's queries in the order they ran, with their time and
/// rows, then the refresh functions and the run's result lines.
pub fn queries(id: &str, t: Option<&TpchRecord>) -> String {
    let Some(t) = t else {
        return format!("Job {id} has no query times (a TPROC-H run records them)");
    };
    let mut out = format!(
        "Job {id} query times, scale factor {}",
        t.figures.scale_factor
    );
    for s in &t.sets {
        out.push_str(&format!(
            "\nVuser {} stream {} query set {}: {} of 22 queries in {:.3} s",
            s.vu,
            s.stream,
            s.set,
            s.queries.len(),
            s.seconds
        ));
        out.push_str(&format!(
            "\n{:>4}  {:>5}  {:>10}  {:>10}  {}",
            "POS", "QUERY", "SECONDS", "ROWS", "ERROR"
        ));
        for q in &s.queries {
            out.push_str(&format!(
                "\n{:>4}  {:>5}  {:>10.3}  {:>10}  {}",
                q.position,
                q.query,
                q.seconds,
                q.rows,
                q.error.as_deref().unwrap_or("")
            ));
        }
    }
    if !t.refreshes.is_empty() {
        out.push_str("\nRefresh functions:");
        for line in refresh_lines(t) {
            out.push_str(&format!("\n{line}"));
        }
    }
    for line in tpch_lines(&t.figures) {
        out.push_str(&format!("\n{line}"));
    }
    // Rows of spaces at the ends of lines (an empty ERROR) help no reader.
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `jobs ID progress`: the live view's intervals, one row each: where in the run, the
/// database's rates, then per type its rate and p95.
pub fn progress(id: &str, live: Option<&super::live::Live>) -> String {
    let Some(l) = live.filter(|l| !l.points.is_empty()) else {
        return format!(
            "Job {id} has no live view intervals (a run with vuset refreshrate above 0 records them)"
        );
    };
    let rates = l.rate_names();
    let mut out = format!("{:>8}  {:<8}", "SECONDS", "PHASE");
    for r in &rates {
        out.push_str(&format!("  {r:>10}"));
    }
    for n in &l.names {
        out.push_str(&format!("  {:>22}", format!("{n} /s, p95 ms")));
    }
    out.push_str(&format!("  {:>6}  {:>7}", "ERRORS", "RETRIES"));
    for p in &l.points {
        out.push_str(&format!("\n{:>8.1}  {:<8}", p.elapsed_s, p.phase));
        for r in &rates {
            out.push_str(&format!("  {:>10}", figure(p.rate(r))));
        }
        for t in &p.types {
            let rate = if p.seconds > 0.0 {
                t.finished as f64 / p.seconds
            } else {
                0.0
            };
            let p95 = t.p95_ms.map_or("-".to_string(), |v| format!("{v:.2}"));
            out.push_str(&format!("  {:>22}", format!("{rate:.1}, {p95}")));
        }
        let failed: u64 = p.types.iter().map(|t| t.failed).sum();
        let retried: u64 = p.types.iter().map(|t| t.retried).sum();
        out.push_str(&format!("  {failed:>6}  {retried:>7}"));
    }
    if let Some((start, end)) = l.window {
        out.push_str(&format!(
            "\nmeasured window: {start:.1} s to {}",
            end.map_or("the stop".to_string(), |e| format!("{e:.1} s"))
        ));
    }
    out
}

/// `jobs ID metrics`.
pub fn metrics(id: &str, m: &[MetricPoint]) -> String {
    if m.is_empty() {
        return format!("Job {id} has no CPU metrics (metstart before the run records them)");
    }
    let mut out = format!(
        "{:<19}  {:>6}  {:>6}  {:>6}  {:>6}",
        "TIME (UTC)", "USR%", "SYS%", "IRQ%", "IDLE%"
    );
    for p in m {
        out.push_str(&format!(
            "\n{:<19}  {:>6.1}  {:>6.1}  {:>6.1}  {:>6.1}",
            text_time(p.at),
            p.usr,
            p.sys,
            p.irq,
            p.idle
        ));
    }
    out
}

/// `12.0 GiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// `jobs ID system`.
pub fn system(id: &str, s: Option<&SystemInfo>) -> String {
    let Some(s) = s else {
        return format!("Job {id} has no system data (its process ended before recording it)");
    };
    let cores = s
        .physical_cores
        .map_or(String::new(), |c| format!(" ({c} physical cores)"));
    let mut rows = vec![
        ("hostname", s.hostname.clone()),
        ("os", s.os.clone()),
        ("cpu", format!("{} x {}{cores}", s.cpu_count, s.cpu_model)),
        ("memory", bytes(s.memory_bytes)),
        (
            "server",
            s.server_version
                .clone()
                .unwrap_or_else(|| "not read (the job failed or the server did not answer)".into()),
        ),
    ];
    if let Some(t) = &s.transport {
        rows.push(("transport", t.clone()));
    }
    if let Some(h) = s.hammer() {
        rows.push(("client", h));
    }
    let (durable, rest) = s.settings_in_order();
    for (k, v) in durable.into_iter().chain(rest) {
        rows.push((k.as_str(), shown(v).to_string()));
    }
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<width$} = {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `jobs ID dict`: the stored settings in `print dict`'s two-level layout.
pub fn dict(settings: &serde_json::Value) -> String {
    let mut out = Vec::new();
    let Some(dicts) = settings.as_object() else {
        return "no settings recorded".into();
    };
    for (name, sections) in dicts {
        out.push(format!("Dictionary {name}"));
        let Some(sections) = sections.as_object() else {
            continue;
        };
        let width1 = sections.keys().map(String::len).max().unwrap_or(0);
        for (section, keys) in sections {
            out.push(format!("{section:<width1$} {{"));
            if let Some(keys) = keys.as_object() {
                let width2 = keys.keys().map(String::len).max().unwrap_or(0);
                for (k, v) in keys {
                    out.push(format!(
                        " {k:<width2$} = {}",
                        v.as_str().unwrap_or_default()
                    ));
                }
            }
            out.push("}".into());
        }
    }
    out.join("\n")
}

/// `jobs ID output`: the lines as they were printed.
pub fn output(lines: &[Line]) -> String {
    lines
        .iter()
        .map(|l| l.line.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::sample::summary as summary_of;

    #[test]
    fn the_list_is_a_table() {
        let t = list(
            &[
                summary_of("67FD24A6FDB403E253438393", Some(12345.4)),
                summary_of("67FD24A6FDB403E253438392", None),
            ],
            "/x/jobs.db",
        );
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("JOBID"), "{t}");
        assert!(
            lines[1].starts_with("67FD24A6FDB403E253438393  2025-04-14 09:30:05  PostgreSQL"),
            "{t}"
        );
        assert!(
            lines[1].contains("12345") && lines[1].ends_with("SUCCESS"),
            "{t}"
        );
        assert!(lines[2].contains("       -  "), "{t}");
        assert_eq!(
            list(&[], "/x/jobs.db"),
            "No jobs found in database file /x/jobs.db"
        );
    }

    #[test]
    fn a_custom_run_counts_iterations_not_transactions() {
        let mut d = crate::jobs::sample::detail("67FD24A6FDB403E253438393", 1.0);
        d.summary.profile.workload = "custom /tmp/audit.rhai".into();
        if let Some(f) = d.figures.as_mut() {
            f.nopm = None;
            f.tpm = None;
        }
        let r = result(&d);
        assert!(
            r.contains("a custom workload counts its iterations only"),
            "{r}"
        );
        assert!(r.contains(", 500 iterations, "), "{r}");
        assert!(summary(&d).contains("500 iterations in"), "{}", summary(&d));
        // TPROC-C's stay transactions.
        let d = crate::jobs::sample::detail("67FD24A6FDB403E253438393", 1.0);
        assert!(result(&d).contains(", 500 transactions, "));
    }

    /// TPROC-H's jobs get a section of their own after the others, with the geometric mean in
    /// NOPM's place, as HammerDB lists them.
    #[test]
    fn tpch_jobs_are_listed_in_their_own_section() {
        let h = crate::jobs::sample::tpch_detail("67FD24A6FDB403E253438394", 1).summary;
        let mut build = summary_of("67FD24A6FDB403E253438391", None);
        build.profile.workload = "TPROC-H".into();
        build.label = "Schema Build";
        let c = summary_of("67FD24A6FDB403E253438393", Some(12345.4));
        let t = list(&[h.clone(), c.clone(), build], "/x/jobs.db");
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "TPROC-C Jobs", "{t}");
        assert!(
            lines[1].starts_with("JOBID") && lines[1].contains("NOPM"),
            "{t}"
        );
        assert!(lines[2].starts_with("67FD24A6FDB403E253438393"), "{t}");
        assert_eq!(lines[3], "", "{t}");
        assert_eq!(lines[4], "TPROC-H Jobs", "{t}");
        assert_eq!(
            lines[5],
            "JOBID                     STARTED (UTC)        DATABASE    TYPE                GEOMEAN  SETS  STATUS"
        );
        assert_eq!(
            lines[6],
            "67FD24A6FDB403E253438394  2025-04-14 09:30:05  PostgreSQL  Benchmark Run       0.43356     1  SUCCESS"
        );
        assert!(
            lines[7].contains("Schema Build") && lines[7].contains("       -     -  SUCCESS"),
            "{t}"
        );
        // Only TPROC-H jobs: its section alone.
        let t = list(&[h], "/x/jobs.db");
        assert!(t.starts_with("TPROC-H Jobs\nJOBID"), "{t}");
        // Custom runs share the first section, which says so.
        let mut custom = c;
        custom.profile.workload = "custom /x.rhai".into();
        let t = list(
            &[
                custom,
                crate::jobs::sample::tpch_detail("67FD24A6FDB403E253438394", 1).summary,
            ],
            "/x/jobs.db",
        );
        assert!(t.starts_with("TPROC-C and custom Jobs\n"), "{t}");
    }

    /// A workload outside the known benchmarks gets a section headed by its own name, after
    /// theirs; alone, it is headed too.
    #[test]
    fn another_workload_gets_its_own_section() {
        let c = summary_of("67FD24A6FDB403E253438393", Some(12345.4));
        let mut other = summary_of("67FD24A6FDB403E253438395", Some(99.0));
        other.profile.workload = "SYSBENCH".into();
        let h = crate::jobs::sample::tpch_detail("67FD24A6FDB403E253438394", 1).summary;
        let t = list(&[other.clone(), h, c.clone()], "/x/jobs.db");
        let headings: Vec<&str> = t.lines().filter(|l| l.ends_with(" Jobs")).collect();
        assert_eq!(
            headings,
            ["TPROC-C Jobs", "TPROC-H Jobs", "SYSBENCH Jobs"],
            "{t}"
        );
        let t = list(&[other.clone(), c], "/x/jobs.db");
        assert!(t.starts_with("TPROC-C Jobs\nJOBID"), "{t}");
        assert!(t.contains("\n\nSYSBENCH Jobs\nJOBID"), "{t}");
        assert!(t.contains("SYSBENCH") && t.contains("      99"), "{t}");
        let t = list(&[other], "/x/jobs.db");
        assert!(t.starts_with("SYSBENCH Jobs\nJOBID"), "{t}");
    }

    #[test]
    fn a_tpch_job_says_its_geometric_mean_and_sets() {
        let d = crate::jobs::sample::tpch_detail("67FD24A6FDB403E253438394", 1);
        let t = summary(&d);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[1], "PostgreSQL TPROC-H, power test, 1 virtual user",
            "{t}"
        );
        assert_eq!(
            &lines[3..],
            [
                "Geometric mean of query times returning rows (21) is 0.43356",
                "Completed 1 query set(s) in 34 seconds",
                "1 active virtual users, 22 queries in 60.0 s",
                "scale factor 1, 1 query stream, 22 queries (0 failed) in 25.3 s of query time",
                "Power@Size 8303.2 (hammer's figure, not an official TPC-H result)",
            ],
            "{t}"
        );
        assert!(!t.contains("NOPM") && !t.contains("TPM"), "{t}");
        let r = result(&d);
        assert_eq!(
            r.lines().take(4).collect::<Vec<_>>(),
            [
                "Job 67FD24A6FDB403E253438394 result",
                "Geometric mean of query times returning rows (21) is 0.43356",
                "Completed 1 query set(s) in 34 seconds",
                "1 Active Virtual Users configured",
            ],
            "{r}"
        );
        assert!(r.contains(", 22 queries, 0 failed virtual users"), "{r}");
        assert!(
            r.contains("Vuser 1 pair 1: RF1 New Sales refresh 1.250 s (1500 rows)"),
            "{r}"
        );
        assert!(r.contains("Vuser 1 pair 1: RF2 Old Sales refresh 0.750 s (1500 rows)"));
        assert!(
            r.contains("\nPower@Size 8303.2 (hammer's figure, not an official TPC-H result)\n"),
            "{r}"
        );
        assert!(!r.contains("Answers checked"), "{r}");
        // No query returned rows: said, not a made-up mean.
        let mut d = d;
        if let Some(t) = d.tpch.as_mut() {
            t.figures.geomean = None;
        }
        assert!(result(&d).contains("\nno geometric mean: no query returned rows\n"));
        // Stopped before a set was complete: said so.
        if let Some(t) = d.tpch.as_mut() {
            t.figures.querysets = 0;
        }
        assert!(
            result(&d).contains("\nno geometric mean: stopped before a query set was complete\n")
        );
    }

    /// TPROC-H's timing names its queries and refresh functions, the column as wide as the
    /// longest name; TPROC-C's stays as it was.
    #[test]
    fn timing_columns_fit_their_names() {
        use crate::jobs::sample::timing as t;
        let c = timing("X", "TRANSACTION", &[t("new order", 1.0)]);
        assert!(c.starts_with("TRANSACTION    COMMITTED"), "{c}");
        assert!(c.contains("\nnew order            100"), "{c}");
        let h = timing(
            "X",
            "QUERY",
            &[t("query 1", 1.0), t("new sales refresh", 2.0)],
        );
        let lines: Vec<&str> = h.lines().collect();
        assert!(
            lines[0].starts_with(&format!("QUERY{}COMMITTED", " ".repeat(14))),
            "{h}"
        );
        assert!(lines[1].starts_with("query 1                  100"), "{h}");
        assert!(lines[2].starts_with("new sales refresh        100"), "{h}");
    }

    #[test]
    fn queries_list_every_set_s_queries_then_the_refreshes() {
        let mut rec = crate::jobs::sample::tpch_record(2);
        rec.sets[1].queries[0].error = Some("division by zero".into());
        let t = queries("X", Some(&rec));
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "Job X query times, scale factor 1");
        assert_eq!(
            lines[1],
            "Vuser 1 stream 1 query set 1: 22 of 22 queries in 31.000 s"
        );
        assert_eq!(lines[2], " POS  QUERY     SECONDS        ROWS  ERROR");
        assert_eq!(lines[3], "   1      1       0.110           1");
        assert_eq!(
            lines[25],
            "Vuser 2 stream 2 query set 1: 22 of 22 queries in 32.000 s"
        );
        assert_eq!(
            lines[27],
            "   1      2       0.220           2  division by zero"
        );
        assert_eq!(lines[49], "Refresh functions:");
        assert_eq!(lines.len(), 54, "{t}");
        assert_eq!(lines[53], "Completed 2 query set(s) in 34 seconds");
        assert_eq!(
            queries("X", None),
            "Job X has no query times (a TPROC-H run records them)"
        );
    }

    #[test]
    fn a_qph_counter_is_shown_in_its_unit() {
        let p = |metric: &str, value, nopm| TcountPoint {
            at: 1_744_623_005_123,
            metric: metric.into(),
            value,
            nopm,
        };
        assert_eq!(
            tcount("X", "MariaDB", &[p("qph", 7200.4, None)]),
            "TIME (UTC)              MariaDB QPH\n2025-04-14 09:30:05            7200"
        );
        assert_eq!(
            tcount("X", "MariaDB", &[p("tpm", 600.0, None)]),
            "TIME (UTC)              MariaDB TPM        NOPM\n2025-04-14 09:30:05             600           -"
        );
    }

    /// `jobs result`: one line per job, oldest first, in HammerDB's words.
    #[test]
    fn results_give_each_job_s_result_line() {
        let c = crate::jobs::sample::detail("67FD24A6FDB403E253438393", 12345.0);
        let h = crate::jobs::sample::tpch_detail("67FD24A6FDB403E253438394", 1);
        let b = summary_of("67FD24A6FDB403E253438392", None);
        let jobs = vec![
            (
                h.summary.clone(),
                h.figures.clone(),
                h.tpch.as_ref().map(|t| t.figures.clone()),
            ),
            (c.summary.clone(), c.figures.clone(), None),
            (b, None, None),
        ];
        let t = results(&jobs);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines,
            [
                "67FD24A6FDB403E253438392  2025-04-14 09:30:05  PostgreSQL  TPROC-C  Jobid has no test result",
                "67FD24A6FDB403E253438393  2025-04-14 09:30:05  PostgreSQL  TPROC-C  TEST RESULT : System achieved 12345 NOPM from 28393 PostgreSQL TPM",
                "67FD24A6FDB403E253438394  2025-04-14 09:30:05  PostgreSQL  TPROC-H  Geometric mean of query times returning rows (21) is 0.43356; Completed 1 query set(s) in 34 seconds",
            ]
        );
        assert_eq!(results(&[]), "No jobs found");
    }

    #[test]
    fn profiles_read_as_a_sentence() {
        assert_eq!(
            profile(&summary_of("A", None)),
            "PostgreSQL TPROC-C, timed, stored functions, 2 virtual users, 1 warehouse"
        );
    }

    #[test]
    fn a_stored_dict_prints_like_print_dict() {
        let v = serde_json::json!({"pg": {"connection": {"pg_host": "h", "pg_port": "5432"}}});
        assert_eq!(
            dict(&v),
            "Dictionary pg\nconnection {\n pg_host = h\n pg_port = 5432\n}"
        );
    }

    #[test]
    fn sizes_are_readable() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(3 * 1024 * 1024 * 1024), "3.0 GiB");
    }

    fn measured_on() -> SystemInfo {
        SystemInfo {
            server_version: Some("PostgreSQL 16.4".into()),
            server_settings: vec![
                ("shared_buffers".into(), "128MB".into()),
                ("synchronous_commit".into(), "off".into()),
                ("fsync".into(), "on".into()),
            ],
            transport: Some("TCP 127.0.0.1:5432".into()),
            hammer_version: Some("0.1.0".into()),
            hammer_build: Some("debug".into()),
            ..SystemInfo::default()
        }
    }

    #[test]
    fn a_job_says_what_its_result_was_measured_under() {
        assert_eq!(
            conditions(&measured_on()).unwrap(),
            "PostgreSQL 16.4 via TCP 127.0.0.1:5432; fsync=on synchronous_commit=off; \
             hammer 0.1.0 (debug build)"
        );
        assert_eq!(conditions(&SystemInfo::default()), None);
        let mut d = crate::jobs::sample::detail("67FD24A6FDB403E253438393", 10.0);
        d.system = Some(measured_on());
        let t = summary(&d);
        assert!(
            t.lines()
                .last()
                .unwrap()
                .starts_with("PostgreSQL 16.4 via TCP"),
            "{t}"
        );
        assert!(t.lines().nth(3).unwrap().starts_with("TEST RESULT"), "{t}");
        let t = system("X", Some(&measured_on()));
        let keys: Vec<&str> = t.lines().map(|l| l.split(' ').next().unwrap()).collect();
        // Durability first, in its own order, then the rest.
        let at = |k: &str| keys.iter().position(|x| *x == k).unwrap();
        assert!(at("transport") < at("fsync"), "{t}");
        assert!(at("fsync") < at("synchronous_commit"), "{t}");
        assert!(at("synchronous_commit") < at("shared_buffers"), "{t}");
        assert!(
            t.contains("client") && t.contains("hammer 0.1.0 (debug build)"),
            "{t}"
        );
    }
}

#[cfg(test)]
mod run_tests {
    use super::*;
    use crate::jobs::runs::sample::{job, merged, row};
    use crate::jobs::runs::{group, RunPart};

    const T: i64 = 1_744_623_005_123;

    /// Two drivers' jobs of run `night-42`, the second recorded on another machine's store
    /// when `both` is false; and a job of its own after them.
    fn store(both: bool) -> (Vec<Summary>, Vec<SharedRun>) {
        let rows = vec![row(1, "alpha"), row(2, "beta")];
        let m = merged(rows.clone(), T);
        let mut jobs = vec![
            crate::jobs::sample::summary("67FD24A6FDB403E2534383B0", Some(77.0)),
            job("67FD24A6FDB403E2534383A1", &rows[0], T - 6_000),
        ];
        let mut parts = vec![(
            "67FD24A6FDB403E2534383A1".to_string(),
            RunPart {
                run: "night-42".into(),
                driver: 1,
                drivers: 2,
                merged: m.clone(),
            },
        )];
        if both {
            jobs.insert(1, job("67FD24A6FDB403E2534383A2", &rows[1], T - 5_000));
            parts.push((
                "67FD24A6FDB403E2534383A2".to_string(),
                RunPart {
                    run: "night-42".into(),
                    driver: 2,
                    drivers: 2,
                    merged: m,
                },
            ));
        }
        let runs = group(&jobs, parts);
        (jobs, runs)
    }

    #[test]
    fn a_shared_run_is_one_entry_with_its_drivers_beneath() {
        let (jobs, runs) = store(true);
        let t = list_with_runs(&jobs, &runs, "/x/jobs.db");
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[1].starts_with("67FD24A6FDB403E2534383B0"), "{t}");
        assert_eq!(
            lines[2],
            "run of 2 drivers          2025-04-14 09:29:59  PostgreSQL  TPROC-C       Shared Run           3012       7004  COMPLETE run night-42",
            "{t}"
        );
        assert_eq!(
            lines[3],
            "67FD24A6FDB403E2534383A1  2025-04-14 09:29:59  PostgreSQL  TPROC-C       driver 1 of 2        1000          -  SUCCESS on alpha (pid 4001)",
            "{t}"
        );
        assert!(
            lines[4].starts_with("67FD24A6FDB403E2534383A2")
                && lines[4].contains("driver 2 of 2        2000"),
            "{t}"
        );
        assert!(
            lines[5].starts_with("(A shared run's NOPM and TPM are the database's own"),
            "{t}"
        );
        assert_eq!(lines.len(), 6, "{t}");
        // Without runs, the table is as it was.
        assert!(!list(&jobs, "/x/jobs.db").contains("shared run"));
    }

    #[test]
    fn a_run_shows_its_merged_result_and_each_driver_s_job() {
        let (_, runs) = store(false);
        let t = shared_run(&runs[0], 1);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "Run night-42: 2 drivers, COMPLETE", "{t}");
        assert_eq!(
            lines[1],
            "PostgreSQL TPROC-C, timed, stored functions, 4 virtual users over 2 drivers, 4 warehouses"
        );
        assert!(lines[2].starts_with("Drivers of run night-42: 2 of 2 measured the common window 2025-04-14 09:30:05 to 2025-04-14 09:31:05 (server clock, 60.0 s)"), "{t}");
        assert_eq!(
            lines[3],
            "TEST RESULT (2 drivers) : System achieved 3012 NOPM from 7004 PostgreSQL TPM"
        );
        assert_eq!(lines[4], "  from the database's own counters over 60.0 s of the common window, as driver 1 read them; the drivers' terminals committed 3000 New-Orders a minute");
        assert_eq!(
            lines[5],
            "Transactions (all drivers; histograms merged, after rampup):"
        );
        assert!(
            lines[6].starts_with("TRANSACTION") && lines[7].starts_with("new order"),
            "{t}"
        );
        let head = lines.iter().position(|l| l.starts_with("DRIVER")).unwrap();
        assert!(
            lines[head + 1].starts_with("1       67FD24A6FDB403E2534383A1 alpha"),
            "{t}"
        );
        assert!(lines[head + 1].ends_with("done (job SUCCESS)"), "{t}");
        assert!(
            lines[head + 2].starts_with("2       (not in this jobs store) beta"),
            "{t}"
        );
        assert_eq!(
            lines[head + 3],
            "The merge of driver 1 (job 67FD24A6FDB403E2534383A1), which gathered 2 of 2 parts"
        );
        // The part's own job says which run it was part of, after its own result.
        let mut d = crate::jobs::sample::detail("67FD24A6FDB403E2534383A1", 3012.4);
        d.run = Some(RunPart {
            run: "night-42".into(),
            driver: 1,
            drivers: 2,
            merged: runs[0].merged.clone(),
        });
        let s = summary(&d);
        assert!(s.lines().any(|l| l == "Driver 1 of 2 of run night-42: merged over 2 of 2 parts, TEST RESULT (2 drivers) : System achieved 3012 NOPM from 7004 PostgreSQL TPM (jobs run night-42 shows the whole)"), "{s}");
        assert!(runs_table_has(&runs, "night-42"));
    }

    fn runs_table_has(r: &[SharedRun], name: &str) -> bool {
        let t = runs(r);
        t.starts_with("STARTED (UTC)") && t.lines().nth(1).is_some_and(|l| l.ends_with(name))
    }
}
