//! Where results become the Rhai values scripts receive: the maps and arrays that lastrun,
//! tcstop, metstop, buildschema, checkschema, deleteschema, librarycheck and a failed job's
//! `catch (e)` return. The commands compute plain results; only this file shapes them.

use rhai::{Array, Dynamic, Map};

use crate::jobs::Kind as JobKind;

/// A run's figures as `lastrun()` gives them (and a failed run's `catch (e)` as `e.result`).
pub(super) fn run_map(id: &str, r: &super::last_run::LastRun) -> Map {
    match r {
        super::last_run::LastRun::Tpcc(r) => tpcc_run_map(id, r),
        super::last_run::LastRun::Custom(r) => custom_run_map(id, r),
        super::last_run::LastRun::Tpch(r) => tpch_run_map(id, r),
    }
}

/// A TPROC-H run's figures: the keys every run has (`nopm` and `tpm` are `()`,
/// `transactions` counts queries); what its job keeps, in the same shape `jobs ID result` and
/// `jobs ID queries` give (`scale_factor`, `query_streams`, `geomean` (`()` when no query
/// returned rows), `geomean_queries`, `querysets`, `queries`, `failed_queries`,
/// `query_seconds`, `sets_seconds`, `sets` with each set's `queries`, `refreshes`); and each
/// query's and refresh function's counts and latencies (`query_1` .. `query_22`,
/// `new_sales_refresh`, `old_sales_refresh`).
fn tpch_run_map(id: &str, r: &crate::tpch::result::RunResult) -> Map {
    let mut m = RunFields {
        id,
        nopm: None,
        tpm: None,
        active_vus: r.active_vus,
        seconds: r.elapsed.as_secs_f64(),
        failed_vus: r.failed_vus,
        stats: &r.stats,
        abandoned_calls: r.abandoned_calls,
        transactions: r.queries(),
        stopped_early: &r.stopped_early,
        client_cpu: r.client_cpu,
    }
    .map();
    // The job's record, as `jobs` gives it back: one shape for lastrun() and the history.
    let times = serde_json::to_value(super::jobs::tpch_times(r)).unwrap_or_default();
    if let Some(times) = crate::jobs::value::to_dynamic(&times).try_cast::<Map>() {
        m.extend(times);
    }
    for (name, s) in crate::tpch::TYPE_NAMES.iter().zip(&r.stats.by_kind) {
        m.insert(name.replace(' ', "_").into(), type_map(s).into());
    }
    m
}

/// What every run's map holds, whatever the workload.
struct RunFields<'a> {
    id: &'a str,
    nopm: Option<f64>,
    tpm: Option<f64>,
    active_vus: u32,
    seconds: f64,
    failed_vus: u32,
    stats: &'a crate::vu::Stats,
    abandoned_calls: u64,
    transactions: u64,
    stopped_early: &'a Option<String>,
    client_cpu: Option<std::time::Duration>,
}

impl RunFields<'_> {
    fn map(&self) -> Map {
        let opt = |v: Option<f64>| v.map_or(Dynamic::UNIT, Dynamic::from);
        let mut m = Map::new();
        m.insert("id".into(), self.id.into());
        m.insert("nopm".into(), opt(self.nopm));
        m.insert("tpm".into(), opt(self.tpm));
        m.insert("active_vus".into(), (self.active_vus as i64).into());
        m.insert("seconds".into(), self.seconds.into());
        m.insert("failed_vus".into(), (self.failed_vus as i64).into());
        m.insert("reconnects".into(), (self.stats.reconnects as i64).into());
        m.insert(
            "abandoned_calls".into(),
            (self.abandoned_calls as i64).into(),
        );
        m.insert("transactions".into(), (self.transactions as i64).into());
        m.insert(
            "stopped_early".into(),
            self.stopped_early
                .clone()
                .map_or(Dynamic::UNIT, Dynamic::from),
        );
        m.insert(
            "client_cpu_seconds".into(),
            opt(self.client_cpu.map(|c| c.as_secs_f64())),
        );
        m
    }
}

/// A custom run's figures: the keys of a TPROC-C run's (`nopm` and `tpm` are `()`,
/// `transactions` counts iterations), and `iteration` with its counts and latencies.
fn custom_run_map(id: &str, r: &crate::custom::CustomResult) -> Map {
    let mut m = RunFields {
        id,
        nopm: None,
        tpm: None,
        active_vus: r.active_vus,
        seconds: r.elapsed.as_secs_f64(),
        failed_vus: r.failed_vus,
        stats: &r.stats,
        abandoned_calls: r.abandoned_calls,
        transactions: r.iterations(),
        stopped_early: &r.stopped_early,
        client_cpu: r.client_cpu,
    }
    .map();
    for (name, s) in crate::custom::TYPE_NAMES.iter().zip(&r.stats.by_kind) {
        m.insert((*name).into(), type_map(s).into());
    }
    m
}

/// One unit type's counts and latency percentiles.
fn type_map(s: &crate::vu::TypeStats) -> Map {
    let mut t = Map::new();
    t.insert("committed".into(), (s.committed as i64).into());
    t.insert("rolled_back".into(), (s.rolled_back as i64).into());
    t.insert("retried".into(), (s.retried as i64).into());
    t.insert("failed".into(), (s.failed as i64).into());
    for (name, q) in [("p50_ms", 0.5), ("p95_ms", 0.95), ("p99_ms", 0.99)] {
        t.insert(
            name.into(),
            (s.latency.value_at_quantile(q) as f64 / 1000.0).into(),
        );
    }
    t.insert("max_ms".into(), (s.latency.max() as f64 / 1000.0).into());
    t
}

fn tpcc_run_map(id: &str, r: &crate::tpcc::driver::RunResult) -> Map {
    let mut m = RunFields {
        id,
        nopm: r.nopm,
        tpm: r.tpm,
        active_vus: r.active_vus,
        seconds: r.measured.as_secs_f64(),
        failed_vus: r.failed_vus,
        stats: &r.stats,
        abandoned_calls: r.abandoned_calls,
        transactions: r.transactions(),
        stopped_early: &r.stopped_early,
        client_cpu: r.client_cpu,
    }
    .map();
    for k in crate::tpcc::inputs::Kind::ALL {
        let t = type_map(r.stats.kind(k));
        m.insert(k.name().replace(' ', "_").into(), t.into());
    }
    m
}

/// `tcstop`'s value: the summary and the series. The keys say what was counted, in its unit:
/// `transactions`, `min_tpm`, `avg_tpm`, `max_tpm` and each sample's `tpm`; or, counting
/// queries per hour, `queries`, `min_qph`, `avg_qph`, `max_qph` and `qph`; `unit` says which.
pub(super) fn tc_map(series: &crate::txcount::Series) -> Map {
    let mut m = Map::new();
    let sum = series.summary();
    let f = |g: fn(&crate::txcount::Summary) -> f64| {
        sum.as_ref().map_or(Dynamic::UNIT, |s| g(s).into())
    };
    let (noun, unit) = (series.counted.noun(), series.counted.unit());
    m.insert("unit".into(), unit.into());
    m.insert("samples".into(), (series.samples.len() as i64).into());
    m.insert("seconds".into(), f(|s| s.seconds));
    m.insert(
        noun.into(),
        sum.as_ref()
            .map_or(Dynamic::UNIT, |s| (s.count as i64).into()),
    );
    m.insert(format!("min_{unit}").into(), f(|s| s.min_rate));
    m.insert(format!("avg_{unit}").into(), f(|s| s.avg_rate));
    m.insert(format!("max_{unit}").into(), f(|s| s.max_rate));
    m.insert(
        "nopm".into(),
        match sum.as_ref().and_then(|s| s.nopm) {
            Some((min, avg, max)) => stat_map(min, avg, max).into(),
            None => Dynamic::UNIT,
        },
    );
    let samples: Array = series
        .samples
        .iter()
        .map(|x| {
            let mut t = Map::new();
            t.insert("time".into(), crate::clock::utc(x.at).into());
            t.insert(
                "unix_ms".into(),
                (crate::clock::unix_ms(x.at) as i64).into(),
            );
            t.insert("seconds".into(), x.seconds.into());
            t.insert(noun.into(), (x.count as i64).into());
            t.insert(unit.into(), x.rate.into());
            t.insert("nopm".into(), x.nopm.map_or(Dynamic::UNIT, Dynamic::from));
            Dynamic::from(t)
        })
        .collect();
    m.insert("series".into(), samples.into());
    m
}

/// `metstop`'s value: the summary and the series of the `all` line.
pub(super) fn metrics_map(series: &crate::metrics::Series) -> Map {
    let mut m = Map::new();
    let sum = series.summary();
    m.insert("samples".into(), (series.samples.len() as i64).into());
    m.insert(
        "seconds".into(),
        sum.as_ref().map_or(Dynamic::UNIT, |s| s.seconds.into()),
    );
    for (name, pick) in [
        (
            "usr",
            (|s| s.usr) as fn(&crate::metrics::Summary) -> crate::metrics::Stat,
        ),
        ("sys", |s| s.sys),
        ("irq", |s| s.irq),
        ("idle", |s| s.idle),
    ] {
        m.insert(
            name.into(),
            sum.as_ref().map_or(Dynamic::UNIT, |s| {
                let st = pick(s);
                stat_map(st.min, st.avg, st.max).into()
            }),
        );
    }
    let samples: Array = series
        .samples
        .iter()
        .map(|x| {
            let mut t = Map::new();
            t.insert("time".into(), crate::clock::utc(x.at).into());
            t.insert(
                "unix_ms".into(),
                (crate::clock::unix_ms(x.at) as i64).into(),
            );
            t.insert("seconds".into(), x.seconds.into());
            t.insert("usr".into(), x.all.usr.into());
            t.insert("sys".into(), x.all.sys.into());
            t.insert("irq".into(), x.all.irq.into());
            t.insert("idle".into(), x.all.idle.into());
            Dynamic::from(t)
        })
        .collect();
    m.insert("series".into(), samples.into());
    m
}

fn stat_map(min: f64, avg: f64, max: f64) -> Map {
    let mut m = Map::new();
    m.insert("min".into(), min.into());
    m.insert("avg".into(), avg.into());
    m.insert("max".into(), max.into());
    m
}

/// `buildschema`'s value: what was built (its size under its own name), how fast and how big.
pub(super) fn build_map(built: &crate::bench::Built) -> Map {
    let mut m = Map::new();
    m.insert("ok".into(), true.into());
    // A whole size (warehouses, scale factor 10) is an integer, a fraction (0.01) a float.
    let size = built.scale.1;
    let size: rhai::Dynamic = if size.fract() == 0.0 {
        (size as i64).into()
    } else {
        size.into()
    };
    m.insert(built.scale.0.into(), size);
    m.insert("rows".into(), (built.rows as i64).into());
    m.insert("seconds".into(), built.elapsed.as_secs_f64().into());
    m.insert("rows_per_second".into(), built.rows_per_second().into());
    m.insert("bytes_on_disk".into(), (built.bytes_on_disk as i64).into());
    m
}

/// `checkschema`'s value: `#{ok, failed, checks}`, each check `#{what, ok, detail}`.
pub(super) fn checks_map(checks: &[crate::bench::Check]) -> Map {
    let failed = checks.iter().filter(|c| !c.ok).count();
    let list: Array = checks
        .iter()
        .map(|c| {
            let mut m = Map::new();
            m.insert("what".into(), c.what.clone().into());
            m.insert("ok".into(), c.ok.into());
            m.insert("detail".into(), c.detail.clone().into());
            Dynamic::from(m)
        })
        .collect();
    let mut m = Map::new();
    m.insert("ok".into(), (failed == 0).into());
    m.insert("failed".into(), (failed as i64).into());
    m.insert("checks".into(), list.into());
    m
}

/// Lines of text as an array of strings (`deleteschema`'s value).
pub(super) fn lines(lines: Vec<String>) -> Array {
    lines.into_iter().map(Dynamic::from).collect()
}

/// `librarycheck`'s entry for a server that answered.
pub(super) fn server_map(info: &crate::db::ServerInfo) -> Map {
    let mut m = Map::new();
    m.insert("addr".into(), info.peer.addr.clone().into());
    m.insert("port".into(), info.port.map_or(0, i64::from).into());
    m.insert("ok".into(), true.into());
    m.insert("version".into(), info.version.clone().into());
    m.insert("tls".into(), info.tls.into());
    m.insert("error".into(), "".into());
    m
}

/// `librarycheck`'s entry for a server that did not answer, with why.
pub(super) fn no_server_map(error: &str) -> Map {
    let mut m = Map::new();
    m.insert("ok".into(), false.into());
    m.insert("version".into(), "".into());
    m.insert("tls".into(), false.into());
    m.insert("error".into(), error.into());
    m
}

/// `librarycheck`'s value: one entry per database, keyed by its prefix.
pub(super) fn by_prefix(entries: Vec<(&str, Map)>) -> Map {
    entries
        .into_iter()
        .map(|(prefix, m)| (prefix.into(), Dynamic::from(m)))
        .collect()
}

/// What a failed job's `catch (e)` receives: the command's own map when it returned one,
/// with the job's `message`, `jobid`, `status`, `type`, `kind`, `note` and the run's figures
/// as `result` (`()` when nothing ran).
pub(super) fn verdict_map(
    own: Option<Map>,
    message: &str,
    id: &str,
    kind: JobKind,
    status: &str,
    note: &str,
    figures: Option<Map>,
) -> Map {
    let mut caught = own.unwrap_or_default();
    caught.insert("message".into(), message.into());
    caught.insert("jobid".into(), id.into());
    caught.insert("status".into(), status.into());
    caught.insert("type".into(), kind.label().into());
    caught.insert("kind".into(), kind.code().into());
    caught.insert("note".into(), note.into());
    caught.insert(
        "result".into(),
        figures.map_or(Dynamic::UNIT, Dynamic::from),
    );
    caught
}
