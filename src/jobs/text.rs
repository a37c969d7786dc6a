//! The text form of what `jobs` shows: pure functions of the stored structs.

use super::id::text_time;
use super::{Detail, Line, MetricPoint, RunFigures, Summary, SystemInfo, TcountPoint, Timing};

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

/// The `jobs` table, newest first.
pub fn list(jobs: &[Summary], path: &str) -> String {
    if jobs.is_empty() {
        return format!("No jobs found in database file {path}");
    }
    let mut out = format!(
        "{:<24}  {:<19}  {:<10}  {:<12}  {:<15}  {:>8}  {:>9}  {}",
        "JOBID", "STARTED (UTC)", "DATABASE", "WORKLOAD", "TYPE", "NOPM", "TPM", "STATUS"
    );
    for j in jobs {
        out.push_str(&format!(
            "\n{:<24}  {:<19}  {:<10}  {:<12}  {:<15}  {:>8}  {:>9}  {}",
            j.id,
            text_time(j.started),
            clip(&j.profile.db, 10),
            clip(&j.profile.workload, 12),
            j.label,
            figure(j.nopm),
            figure(j.tpm),
            j.status.label()
        ));
    }
    out
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
    Some(crate::tpcc::result::test_result(db, f.nopm?, f.tpm?, true))
}

/// Whether a run job is a custom workload's (its profile's workload is `custom FILE`), whose
/// units are its script's iterations.
fn is_custom(s: &Summary) -> bool {
    s.profile.workload.starts_with("custom ")
}

/// What a run's units are called: a custom workload's iterations, TPROC-C's transactions.
fn units(s: &Summary) -> &'static str {
    if is_custom(s) {
        "iterations"
    } else {
        "transactions"
    }
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
    // Last, so that the result keeps its place (scripts read it by line).
    if let Some(line) = d.system.as_ref().and_then(conditions) {
        out.push_str(&format!("\n{line}"));
    }
    out
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
        if let Some(line) = result_line(&s.profile.db, f) {
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

/// `jobs ID timing`: counts and latency percentiles per transaction type.
pub fn timing(id: &str, t: &[Timing]) -> String {
    if t.is_empty() {
        return format!("Job {id} has no timing data");
    }
    let mut out = format!(
        "{:<13} {:>10} {:>11} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "TRANSACTION",
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
            "\n{:<13} {:>10} {:>11} {:>8} {:>7} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3}",
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

/// `jobs ID tcount`.
pub fn tcount(id: &str, db: &str, t: &[TcountPoint]) -> String {
    if t.is_empty() {
        return format!(
            "Job {id} has no transaction counter data (tcstart before the run records it)"
        );
    }
    let mut out = format!(
        "{:<19}  {:>12}  {:>10}",
        "TIME (UTC)",
        format!("{db} TPM"),
        "NOPM"
    );
    for p in t {
        out.push_str(&format!(
            "\n{:<19}  {:>12.0}  {:>10}",
            text_time(p.at),
            p.tpm,
            figure(p.nopm)
        ));
    }
    out
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
