//! `jobs diff A B`: how two jobs' NOPM, TPM and latencies differ, whether the difference is
//! beyond the run-to-run noise measured on repeats of the same settings, and whether the
//! machine was as quiet for both (its CPU busy outside hammer and the database server).

use serde::Serialize;

use super::text::profile;
use super::{Detail, HostCpu, Summary};

/// One figure in both jobs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub base: Option<f64>,
    pub compare: Option<f64>,
    /// `compare - base`.
    pub change: Option<f64>,
    /// The change in percent of `base`.
    pub change_pct: Option<f64>,
}

impl Change {
    pub fn of(base: Option<f64>, compare: Option<f64>) -> Change {
        let change = base.zip(compare).map(|(b, c)| c - b);
        let change_pct = base
            .zip(change)
            .filter(|(b, _)| *b != 0.0)
            .map(|(b, d)| 100.0 * d / b);
        Change {
            base,
            compare,
            change,
            change_pct,
        }
    }
}

/// One transaction type's latency percentiles in both jobs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencyChange {
    pub name: String,
    pub p50_ms: Change,
    pub p95_ms: Change,
    pub p99_ms: Change,
}

/// The spread of NOPM over successful runs with one job's settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Noise {
    /// Other successful runs (neither of the two compared) with the same database, workload,
    /// mode, virtual users and warehouses.
    pub repeats: usize,
    pub nopm_mean: Option<f64>,
    /// Coefficient of variation (standard deviation / mean) of NOPM, percent; from 2 repeats.
    pub nopm_cv_pct: Option<f64>,
}

impl Noise {
    pub fn of(repeats: &[Summary]) -> Noise {
        let v: Vec<f64> = repeats.iter().filter_map(|s| s.nopm).collect();
        let n = v.len();
        let mean = (n > 0).then(|| v.iter().sum::<f64>() / n as f64);
        let cv = mean.filter(|m| n >= 2 && *m > 0.0).map(|m| {
            let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1) as f64;
            100.0 * var.sqrt() / m
        });
        Noise {
            repeats: n,
            nopm_mean: mean,
            nopm_cv_pct: cv,
        }
    }
}

/// How a NOPM change compares with the noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    BeyondNoise,
    WithinNoise,
    /// Fewer than two repeats of either job's settings: the noise is not known.
    NoiseUnknown,
    /// One of the jobs has no NOPM.
    NotComparable,
}

/// The comparison `jobs diff` prints and returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    pub base: Summary,
    pub compare: Summary,
    /// Lines that say the comparison may mislead (other database, other workload).
    pub warnings: Vec<String>,
    /// Settings that differ while database and workload agree.
    pub differences: Vec<String>,
    pub nopm: Change,
    pub tpm: Change,
    pub latency: Vec<LatencyChange>,
    pub base_noise: Noise,
    pub compare_noise: Noise,
    /// A difference of two single runs is beyond the noise (95 %) when it exceeds this many
    /// percent: 2.77 times the larger coefficient of variation.
    pub noise_threshold_pct: Option<f64>,
    pub verdict: Verdict,
    /// Each job's host CPU, when it was measured: busy, hammer's, the server's, other work.
    pub base_cpu: Option<HostCpu>,
    pub compare_cpu: Option<HostCpu>,
}

/// Other work on the machine (CPU busy outside hammer and the database server, in percent of
/// all CPUs) that differs by more than this many points between two jobs makes their
/// comparison suspect: a few points is the noise of a quiet machine's daemons, more is
/// something else that ran beside one of them and took CPU the benchmark could have had.
pub const QUIET_POINTS: f64 = 5.0;

/// Jobs shorter than this are not judged for quiet: CPU time is counted in hundredths of a
/// second, so a short job's shares move by whole points with a tick or two.
pub const QUIET_MIN_SECONDS: f64 = 5.0;

/// The warning when the machine was not equally quiet for both jobs.
fn unquiet(base: Option<&HostCpu>, compare: Option<&HostCpu>) -> Option<String> {
    let judged = |c: &HostCpu| c.seconds >= QUIET_MIN_SECONDS;
    let (b, c) = (
        base.filter(|c| judged(c))?.other_pct?,
        compare.filter(|c| judged(c))?.other_pct?,
    );
    ((b - c).abs() > QUIET_POINTS).then(|| {
        format!(
            "Warning: the machine was not equally quiet: other work (CPU busy outside hammer and \
             the database server) took {b:.1} % of all CPUs during the base job and {c:.1} % \
             during the compare job, more than {QUIET_POINTS:.0} points apart: part of the \
             difference may be the machine's, not the database's"
        )
    })
}

/// Two single runs each with coefficient of variation c differ by more than 2.77 c (1.96 x
/// sqrt 2) only one time in twenty by chance.
const NOISE_FACTOR: f64 = 2.77;

/// Compares `compare` with `base`, given the runs with each one's settings (see [`Noise`];
/// the two compared are left out: their difference is what is being judged).
pub fn diff(
    base: &Detail,
    compare: &Detail,
    base_repeats: &[Summary],
    compare_repeats: &[Summary],
) -> Diff {
    let (b, c) = (&base.summary, &compare.summary);
    let others = |runs: &[Summary]| -> Vec<Summary> {
        runs.iter()
            .filter(|r| r.id != b.id && r.id != c.id)
            .cloned()
            .collect()
    };
    let mut warnings = Vec::new();
    if b.profile.db != c.profile.db {
        warnings.push(format!(
            "Warning: the jobs ran on different databases ({} and {}): the difference is between databases, not between runs",
            b.profile.db, c.profile.db
        ));
    }
    if b.profile.workload != c.profile.workload || b.kind != c.kind {
        warnings.push(format!(
            "Warning: the jobs are different workloads ({} {} and {} {}): their figures do not compare",
            b.profile.workload, b.label, c.profile.workload, c.label
        ));
    }
    let mut differences = Vec::new();
    let opt = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
    // Settings of different kinds of jobs differ by nature: the warning says enough.
    let same_kind = b.kind == c.kind;
    if same_kind && b.profile.mode != c.profile.mode {
        differences.push(format!("mode {} vs {}", b.profile.mode, c.profile.mode));
    }
    if same_kind && b.profile.vus != c.profile.vus {
        differences.push(format!(
            "virtual users {} vs {}",
            opt(b.profile.vus),
            opt(c.profile.vus)
        ));
    }
    if same_kind && b.profile.warehouses != c.profile.warehouses {
        differences.push(format!(
            "warehouses {} vs {}",
            opt(b.profile.warehouses),
            opt(c.profile.warehouses)
        ));
    }
    warnings.extend(unquiet(base.cpu.as_ref(), compare.cpu.as_ref()));
    if let (Some(x), Some(y)) = (&base.system, &compare.system) {
        warnings.extend(unlike_conditions(x, y));
        if x.server_version != y.server_version {
            let v = |s: &Option<String>| s.clone().unwrap_or_else(|| "unknown".into());
            differences.push(format!(
                "server {} vs {}",
                v(&x.server_version),
                v(&y.server_version)
            ));
        }
        if x.transport.is_some() && y.transport.is_some() && x.transport != y.transport {
            let v = |s: &Option<String>| s.clone().unwrap_or_default();
            differences.push(format!(
                "transport {} vs {}",
                v(&x.transport),
                v(&y.transport)
            ));
        }
        if x.hammer_version.is_some() && x.hammer_version != y.hammer_version {
            let v = |s: &Option<String>| s.clone().unwrap_or_else(|| "unknown".into());
            differences.push(format!(
                "hammer {} vs {}",
                v(&x.hammer_version),
                v(&y.hammer_version)
            ));
        }
        for (k, v) in &x.server_settings {
            if let Some((_, w)) = y.server_settings.iter().find(|(l, _)| l == k) {
                if v != w {
                    differences.push(format!("{k} {v} vs {w}"));
                }
            }
        }
    }
    let fig = |d: &Detail, f: fn(&super::RunFigures) -> Option<f64>| d.figures.as_ref().and_then(f);
    let nopm = Change::of(fig(base, |f| f.nopm), fig(compare, |f| f.nopm));
    let tpm = Change::of(fig(base, |f| f.tpm), fig(compare, |f| f.tpm));
    let mut latency = Vec::new();
    for t in &base.timings {
        let Some(other) = compare.timings.iter().find(|o| o.name == t.name) else {
            continue;
        };
        let pick = |f: fn(&super::Timing) -> f64| Change::of(Some(f(t)), Some(f(other)));
        latency.push(LatencyChange {
            name: t.name.clone(),
            p50_ms: pick(|x| x.p50_ms),
            p95_ms: pick(|x| x.p95_ms),
            p99_ms: pick(|x| x.p99_ms),
        });
    }
    let base_noise = Noise::of(&others(base_repeats));
    let compare_noise = Noise::of(&others(compare_repeats));
    let cv = match (base_noise.nopm_cv_pct, compare_noise.nopm_cv_pct) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    let threshold = cv.map(|c| NOISE_FACTOR * c);
    let verdict = match (nopm.change_pct, threshold) {
        (None, _) => Verdict::NotComparable,
        (Some(_), None) => Verdict::NoiseUnknown,
        (Some(p), Some(t)) if p.abs() > t => Verdict::BeyondNoise,
        _ => Verdict::WithinNoise,
    };
    Diff {
        base: b.clone(),
        compare: c.clone(),
        warnings,
        differences,
        nopm,
        tpm,
        latency,
        base_noise,
        compare_noise,
        noise_threshold_pct: threshold,
        verdict,
        base_cpu: base.cpu.clone(),
        compare_cpu: compare.cpu.clone(),
    }
}

fn num(v: Option<f64>, decimals: usize) -> String {
    v.map_or("-".to_string(), |v| format!("{v:.decimals$}"))
}

fn signed(v: Option<f64>, decimals: usize, unit: &str) -> String {
    v.map_or("-".to_string(), |v| format!("{v:+.decimals$}{unit}"))
}

fn noise_line(which: &str, n: &Noise) -> String {
    match (n.nopm_cv_pct, n.nopm_mean) {
        (Some(cv), Some(mean)) => format!(
            "{which}: {} other successful runs with these settings, NOPM mean {mean:.0}, coefficient of variation {cv:.1} %",
            n.repeats
        ),
        _ => format!(
            "{which}: {} other successful run{} with these settings: too few to measure the noise",
            n.repeats,
            if n.repeats == 1 { "" } else { "s" }
        ),
    }
}

/// The text `jobs diff` prints.
pub fn text(d: &Diff) -> String {
    let mut out = vec![
        format!(
            "Base    {}  {}  {}",
            d.base.id,
            d.base.label,
            d.base.status.label()
        ),
        format!("        {}", profile(&d.base)),
        format!(
            "Compare {}  {}  {}",
            d.compare.id,
            d.compare.label,
            d.compare.status.label()
        ),
        format!("        {}", profile(&d.compare)),
    ];
    out.extend(d.warnings.iter().cloned());
    if !d.differences.is_empty() {
        out.push(format!("Settings differ: {}", d.differences.join(", ")));
    }
    out.push(format!(
        "{:<22} {:>12} {:>12} {:>12} {:>9}",
        "", "BASE", "COMPARE", "CHANGE", "CHANGE %"
    ));
    let row = |name: &str, c: &Change, decimals: usize| {
        format!(
            "{:<22} {:>12} {:>12} {:>12} {:>9}",
            name,
            num(c.base, decimals),
            num(c.compare, decimals),
            signed(c.change, decimals, ""),
            signed(c.change_pct, 1, " %")
        )
    };
    out.push(row("NOPM", &d.nopm, 0));
    out.push(row("TPM", &d.tpm, 0));
    for l in &d.latency {
        out.push(row(&format!("{} p50 ms", l.name), &l.p50_ms, 3));
        out.push(row(&format!("{} p95 ms", l.name), &l.p95_ms, 3));
        out.push(row(&format!("{} p99 ms", l.name), &l.p99_ms, 3));
    }
    if d.base_cpu.is_some() || d.compare_cpu.is_some() {
        let (b, c) = (d.base_cpu.as_ref(), d.compare_cpu.as_ref());
        let pick = |f: fn(&HostCpu) -> Option<f64>| Change::of(b.and_then(f), c.and_then(f));
        out.push(row("host CPU busy %", &pick(|x| Some(x.busy_pct)), 1));
        out.push(row("  hammer %", &pick(|x| Some(x.hammer_pct)), 1));
        out.push(row("  database server %", &pick(|x| x.server_pct), 1));
        out.push(row("  other work %", &pick(|x| x.other_pct), 1));
        let server =
            |x: Option<&HostCpu>| x.map_or("not measured".to_string(), |x| x.server.clone());
        out.push(format!(
            "Host CPU over each job, in percent of all CPUs; the database server: base {}, compare {}",
            server(b),
            server(c)
        ));
    }
    if d.verdict != Verdict::NotComparable {
        if d.base.profile == d.compare.profile {
            out.push(noise_line("Noise", &d.base_noise));
        } else {
            out.push(noise_line("Noise of base", &d.base_noise));
            out.push(noise_line("Noise of compare", &d.compare_noise));
        }
    }
    let pct = d.nopm.change_pct.unwrap_or(0.0);
    out.push(match (d.verdict, d.noise_threshold_pct) {
        (Verdict::BeyondNoise, Some(t)) => format!(
            "The NOPM change of {pct:+.1} % is beyond the run-to-run noise (differences within {t:.1} % are noise at 95 %)"
        ),
        (Verdict::WithinNoise, Some(t)) => format!(
            "The NOPM change of {pct:+.1} % is within the run-to-run noise (differences within {t:.1} % are noise at 95 %)"
        ),
        (Verdict::NotComparable, _) => {
            "No NOPM to compare: both jobs must be timed runs that measured".to_string()
        }
        _ => format!(
            "The NOPM change is {pct:+.1} %; run the same settings at least twice more to tell it from noise"
        ),
    });
    out.join("\n")
}

/// The warnings two jobs' conditions call for: a durability setting or hammer's build profile
/// that differs makes a comparison across them not like for like.
fn unlike_conditions(x: &super::SystemInfo, y: &super::SystemInfo) -> Vec<String> {
    let mut warnings = Vec::new();
    let changed: Vec<String> = x
        .server_settings
        .iter()
        .filter(|(k, _)| super::DURABILITY.contains(&k.as_str()))
        .filter_map(|(k, v)| {
            let (_, w) = y.server_settings.iter().find(|(l, _)| l == k)?;
            (v != w).then(|| format!("{k} {v} vs {w}"))
        })
        .collect();
    if !changed.is_empty() {
        warnings.push(format!(
            "Warning: the jobs ran with different durability settings ({}): a commit waited for \
             different things, so the comparison is not like for like",
            changed.join(", ")
        ));
    }
    if let (Some(a), Some(b)) = (&x.hammer_build, &y.hammer_build) {
        if a != b {
            warnings.push(format!(
                "Warning: the jobs ran on different hammer builds ({a} and {b}): client CPU \
                 figures, and a client-bound rate, do not compare"
            ));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::sample;

    fn runs(nopm: &[f64]) -> Vec<Summary> {
        nopm.iter()
            .map(|n| sample::summary("X", Some(*n)))
            .collect()
    }

    #[test]
    fn changes_are_absolute_and_relative() {
        let c = Change::of(Some(200.0), Some(210.0));
        assert_eq!((c.change, c.change_pct), (Some(10.0), Some(5.0)));
        let none = Change::of(None, Some(1.0));
        assert_eq!((none.change, none.change_pct), (None, None));
        assert_eq!(Change::of(Some(0.0), Some(1.0)).change_pct, None);
    }

    #[test]
    fn noise_is_the_coefficient_of_variation() {
        let n = Noise::of(&runs(&[90.0, 100.0, 110.0]));
        assert_eq!(n.repeats, 3);
        assert_eq!(n.nopm_mean, Some(100.0));
        assert!((n.nopm_cv_pct.unwrap() - 10.0).abs() < 1e-9);
        assert_eq!(Noise::of(&runs(&[100.0])).nopm_cv_pct, None);
    }

    #[test]
    fn a_change_beyond_the_noise_is_called_so() {
        let a = sample::detail("A", 1000.0);
        let b = sample::detail("B", 1100.0);
        let quiet = runs(&[1000.0, 1010.0, 990.0]);
        let d = diff(&a, &b, &quiet, &quiet);
        assert_eq!(d.verdict, Verdict::BeyondNoise);
        assert!(d.warnings.is_empty());
        let t = text(&d);
        assert!(
            t.contains("NOPM                           1000         1100         +100   +10.0 %"),
            "{t}"
        );
        assert!(t.contains("beyond the run-to-run noise"), "{t}");
        assert!(t.contains("new order p99 ms"), "{t}");
        let noisy = runs(&[800.0, 1000.0, 1200.0]);
        assert_eq!(diff(&a, &b, &noisy, &noisy).verdict, Verdict::WithinNoise);
        let d = diff(&a, &b, &runs(&[1000.0]), &[]);
        assert_eq!(d.verdict, Verdict::NoiseUnknown);
        assert!(text(&d).contains("at least twice more to tell it from noise"));
        // The compared runs themselves are no measure of the noise between them.
        let same = vec![
            sample::summary("A", Some(1000.0)),
            sample::summary("B", Some(1100.0)),
        ];
        let d = diff(&a, &b, &same, &same);
        assert_eq!(
            (d.base_noise.repeats, d.verdict),
            (0, Verdict::NoiseUnknown)
        );
    }

    #[test]
    fn other_databases_and_workloads_warn() {
        let mut a = sample::detail("A", 1000.0);
        let mut b = sample::detail("B", 900.0);
        b.summary.profile.db = "MariaDB".into();
        b.summary.profile.vus = Some(4);
        let mut sys = crate::jobs::SystemInfo {
            server_version: Some("PostgreSQL 15".into()),
            server_settings: vec![("shared_buffers".into(), "128MB".into())],
            ..Default::default()
        };
        a.system = Some(sys.clone());
        sys.server_settings[0].1 = "1GB".into();
        b.system = Some(sys);
        let d = diff(&a, &b, &[], &[]);
        assert_eq!(d.warnings.len(), 1);
        assert!(d.warnings[0]
            .starts_with("Warning: the jobs ran on different databases (PostgreSQL and MariaDB)"));
        assert_eq!(
            d.differences,
            ["virtual users 2 vs 4", "shared_buffers 128MB vs 1GB"]
        );
        b.summary.kind = crate::jobs::Kind::Check;
        b.figures = None;
        b.timings.clear();
        let d = diff(&a, &b, &[], &[]);
        assert_eq!(d.warnings.len(), 2);
        assert_eq!(d.verdict, Verdict::NotComparable);
        assert_eq!(d.differences, ["shared_buffers 128MB vs 1GB"]);
        assert!(d.latency.is_empty());
        assert!(!text(&d).contains("Noise"), "{}", text(&d));
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["verdict"], "not_comparable");
        assert_eq!(json["nopm"]["base"], 1000.0);
    }

    /// Each job's CPU is shown; other work that differs by more than 5 points of all CPUs
    /// warns, whichever job had more of it; an unknown server share tells nothing.
    #[test]
    fn an_unequally_quiet_machine_warns() {
        let mut a = sample::detail("A", 1000.0);
        let mut b = sample::detail("B", 1100.0);
        let cpu = |busy, other: Option<f64>| {
            HostCpu::new(
                60.0,
                busy,
                10.0,
                other.map(|o| busy - 10.0 - o),
                "postgres (pid 7 and its processes)".into(),
            )
        };
        a.cpu = Some(cpu(50.0, Some(2.0)));
        b.cpu = Some(cpu(54.0, Some(6.5)));
        let d = diff(&a, &b, &[], &[]);
        assert!(d.warnings.is_empty(), "4.5 points apart: {:?}", d.warnings);
        let t = text(&d);
        assert!(
            t.contains("host CPU busy %                50.0         54.0         +4.0    +8.0 %"),
            "{t}"
        );
        assert!(
            t.contains("  other work %                  2.0          6.5         +4.5  +225.0 %"),
            "{t}"
        );
        assert!(t.contains("the database server: base postgres (pid 7 and its processes)"));
        for (x, y) in [(2.0, 7.5), (30.0, 2.0)] {
            a.cpu = Some(cpu(50.0, Some(x)));
            b.cpu = Some(cpu(50.0, Some(y)));
            let d = diff(&a, &b, &[], &[]);
            assert_eq!(d.warnings.len(), 1, "{:?}", d.warnings);
            assert!(
                d.warnings[0].starts_with("Warning: the machine was not equally quiet")
                    && d.warnings[0].contains(&format!(
                        "took {x:.1} % of all CPUs during the base job and {y:.1} %"
                    )),
                "{:?}",
                d.warnings
            );
        }
        // Too short a job to judge.
        a.cpu.as_mut().unwrap().seconds = 2.0;
        assert!(diff(&a, &b, &[], &[]).warnings.is_empty());
        // A server not found: its share, and so the other work, is not known.
        b.cpu = Some(cpu(90.0, None));
        let d = diff(&a, &b, &[], &[]);
        assert!(d.warnings.is_empty());
        assert!(text(&d).contains("  other work %                 30.0            -"));
        // Jobs recorded before the CPU was: no rows.
        a.cpu = None;
        b.cpu = None;
        let d = diff(&a, &b, &[], &[]);
        assert!(!text(&d).contains("host CPU"));
        let json = serde_json::to_value(&d).unwrap();
        assert!(json["base_cpu"].is_null());
    }

    #[test]
    fn durability_and_build_differences_warn() {
        let mut a = sample::detail("A", 1000.0);
        let mut b = sample::detail("B", 1500.0);
        let sys = |commit: &str, build: &str, transport: &str| crate::jobs::SystemInfo {
            server_version: Some("PostgreSQL 16".into()),
            server_settings: vec![
                ("fsync".into(), "on".into()),
                ("synchronous_commit".into(), commit.into()),
                ("work_mem".into(), "4MB".into()),
            ],
            transport: Some(transport.into()),
            hammer_version: Some("0.1.0".into()),
            hammer_build: Some(build.into()),
            ..Default::default()
        };
        a.system = Some(sys("on", "release", "TCP 127.0.0.1:5432"));
        b.system = Some(sys("on", "release", "TCP 127.0.0.1:5432"));
        assert!(diff(&a, &b, &[], &[]).warnings.is_empty());
        b.system = Some(sys("off", "debug", "unix socket /tmp/.s.PGSQL.5432"));
        let d = diff(&a, &b, &[], &[]);
        assert_eq!(d.warnings.len(), 2, "{:?}", d.warnings);
        assert!(d.warnings[0].starts_with(
            "Warning: the jobs ran with different durability settings (synchronous_commit on vs off)"
        ));
        assert!(d.warnings[1]
            .starts_with("Warning: the jobs ran on different hammer builds (release and debug)"));
        assert_eq!(
            d.differences,
            [
                "transport TCP 127.0.0.1:5432 vs unix socket /tmp/.s.PGSQL.5432",
                "synchronous_commit on vs off"
            ]
        );
        assert!(text(&d).contains("different durability settings"));
    }
}
