//! Where results become the Rhai values scripts receive: the maps and arrays that tcstop,
//! metstop, buildschema, checkschema, deleteschema, librarycheck and a failed job's
//! `catch (e)` return. The commands compute plain results; only this file shapes them. A
//! run's map (`lastrun()`, and `e.result` of a failed run) is its outcome's own, made by the
//! workload (`bench::Outcome::value`).

use rhai::{Array, Dynamic, Map};

use crate::jobs::Kind as JobKind;

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
    // One driver of a split build: its share, whether it added the keys, who loaded what.
    if let Some(split) = &built.split {
        m.insert("share".into(), split.share.clone().into());
        m.insert("finished".into(), split.finished.into());
        let parts: Array = split.parts.iter().map(|p| p.clone().into()).collect();
        m.insert("parts".into(), parts.into());
    }
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
