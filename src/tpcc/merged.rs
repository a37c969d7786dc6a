//! The one result of a TPROC-C run shared by several drivers: the database's own NOPM and
//! TPM over the common window, every driver's counts summed and their histograms merged
//! (exact percentiles), the efficiency against TPC-C's 12.86 tpmC per warehouse when the
//! terminals key and think, one row per driver, and the drivers that died.

use rhai::{Array, Map};

use super::driver::TYPE_NAMES;
use super::inputs::Kind;
use crate::drivers::part::{merge, Part};
use crate::drivers::Member;
use crate::vu::Stats;

/// The highest tpmC a warehouse can give under TPC-C's keying and think times (clause 5.2.5).
pub const TPMC_PER_WAREHOUSE: f64 = 12.86;

/// Several drivers' run, merged.
#[derive(Debug, Clone)]
pub struct Merged {
    pub run: String,
    /// The driver that prints it.
    pub driver: u32,
    pub members: Vec<Member>,
    /// The common window on the server's clock.
    pub window_ms: (i64, i64),
    pub stats: Stats,
    /// Histograms that did not decode (left out of the percentiles).
    pub unreadable: usize,
    pub db_name: &'static str,
    pub nopm_first: bool,
}

impl Merged {
    pub fn new(
        run: &str,
        driver: u32,
        members: Vec<Member>,
        window_ms: (i64, i64),
        db_name: &'static str,
        nopm_first: bool,
    ) -> Self {
        let (stats, unreadable) =
            merge(&TYPE_NAMES, members.iter().filter_map(|m| m.part.as_ref()));
        Merged {
            run: run.to_string(),
            driver,
            members,
            window_ms,
            stats,
            unreadable,
            db_name,
            nopm_first,
        }
    }

    /// The drivers that posted a part.
    fn parts(&self) -> impl Iterator<Item = (&Member, &Part)> {
        self.members
            .iter()
            .filter_map(|m| m.part.as_ref().map(|p| (m, p)))
    }

    /// The database's figures over the window: from the first driver (by number) whose
    /// monitor read the counters at both ends, with that driver's number and the seconds
    /// between its readings.
    /// Steps (`drivers_step`) read the counters over windows of their own: never theirs.
    pub fn figures(&self) -> Option<(u32, f64, f64, f64)> {
        self.parts()
            .filter(|(m, _)| !m.row.entry.step)
            .find_map(|(m, p)| {
                let (nopm, tpm) = (p.nopm?, p.tpm?);
                Some((m.row.driver, nopm, tpm, p.seconds))
            })
    }

    /// Warehouses the drivers drove, over every driver that joined: the union of their
    /// ranges (drivers following a Primary all drive every warehouse).
    pub fn warehouses(&self) -> u32 {
        let mut ranges: Vec<(u32, u32)> = self
            .members
            .iter()
            .map(|m| (m.row.entry.first_ware, m.row.entry.last_ware))
            .filter(|(a, b)| a <= b)
            .collect();
        ranges.sort_unstable();
        let (mut total, mut upto) = (0, 0);
        for (a, b) in ranges {
            let from = a.max(upto + 1);
            if b >= from {
                total += b - from + 1;
                upto = b;
            }
        }
        total
    }

    /// New-Orders a driver's terminals committed, over its measured window.
    fn new_orders(p: &Part) -> u64 {
        p.types
            .iter()
            .find(|t| t.name == TYPE_NAMES[Kind::NewOrder.index()])
            .map_or(0, |t| t.committed)
    }

    /// New-Orders the drivers' terminals committed per minute of the window.
    fn client_nopm(&self, p: &Part) -> Option<f64> {
        (p.seconds > 0.0).then(|| {
            p.types
                .iter()
                .find(|t| t.name == TYPE_NAMES[Kind::NewOrder.index()])
                .map_or(0, |t| t.committed) as f64
                * 60.0
                / p.seconds
        })
    }

    /// Efficiency in percent when every driver's terminals keyed and thought.
    pub fn efficiency(&self) -> Option<f64> {
        let keyed = self.parts().count() > 0 && self.parts().all(|(_, p)| p.key_and_think);
        let (_, nopm, _, _) = self.figures()?;
        let w = self.warehouses();
        (keyed && w > 0).then(|| 100.0 * nopm / (TPMC_PER_WAREHOUSE * w as f64))
    }

    pub fn lines(&self) -> Vec<String> {
        let count = self.members.len();
        let measured = self.parts().filter(|(m, _)| m.row.state == "done").count();
        let (a, b) = self.window_ms;
        let mut lines = vec![format!(
            "Drivers of run {}: {measured} of {count} measured the common window {} to {} \
             (server clock, {:.1} s)",
            self.run,
            crate::clock::text_time(a),
            crate::clock::text_time(b),
            (b - a) as f64 / 1000.0
        )];
        for m in &self.members {
            if let Some(why) = &m.missing {
                let e = &m.row.entry;
                lines.push(format!(
                    "Driver {} on {} (pid {}), warehouses {}-{}: {why}; the figures below leave \
                     its terminals' counts out",
                    m.row.driver, e.host, e.pid, e.first_ware, e.last_ware
                ));
            } else if m.row.entry.step {
                let e = &m.row.entry;
                let at = |ms: Option<i64>| {
                    ms.map_or("-".to_string(), |t| {
                        format!("+{:.1} s", (t - a) as f64 / 1000.0)
                    })
                };
                let part = m.part.as_ref();
                lines.push(format!(
                    "Driver {} on {} (pid {}) is a step: it measured from {} to {} of the common \
                     window with {} virtual users",
                    m.row.driver,
                    e.host,
                    e.pid,
                    at(part.and_then(|p| p.read_from_ms)),
                    at(part.and_then(|p| p.read_to_ms)),
                    e.vus
                ));
            }
            if m.missing.is_none() && m.row.state == "failed" {
                lines.push(format!(
                    "Driver {} on {} (pid {}) did not complete its run{}",
                    m.row.driver,
                    m.row.entry.host,
                    m.row.entry.pid,
                    m.part
                        .as_ref()
                        .and_then(|p| p.stopped_early.as_deref())
                        .map(|w| format!(" ({w})"))
                        .unwrap_or_default()
                ));
            }
        }
        match self.figures() {
            Some((from, nopm, tpm, seconds)) => {
                let line = crate::jobs::text::test_result(self.db_name, nopm, tpm, self.nopm_first);
                lines.push(line.replacen(
                    "TEST RESULT :",
                    &format!("TEST RESULT ({count} drivers) :"),
                    1,
                ));
                // Every part's New-Orders fall in the window (a step's window lies inside it).
                let client = self.parts().map(|(_, p)| Self::new_orders(p)).sum::<u64>() as f64
                    * 60.0
                    / seconds.max(0.001);
                lines.push(format!(
                    "  from the database's own counters over {seconds:.1} s of the common window, \
                     as driver {from} read them; the drivers' terminals committed {} New-Orders \
                     a minute",
                    client.round() as u64
                ));
            }
            None => lines.push(format!(
                "No driver of run {} read the database's counters over the whole window: no \
                 system NOPM or TPM",
                self.run
            )),
        }
        if let Some(e) = self.efficiency() {
            lines.push(format!(
                "Efficiency: {e:.1} % of the {TPMC_PER_WAREHOUSE} tpmC a warehouse can give with \
                 keying and thinking, over {} warehouses",
                self.warehouses()
            ));
        }
        lines.push("Transactions (all drivers; histograms merged, after rampup):".into());
        lines.extend(super::result::table(&self.stats));
        if self.unreadable > 0 {
            lines.push(format!(
                "({} histogram(s) of the drivers' parts could not be read: their percentiles are \
                 left out)",
                self.unreadable
            ));
        }
        lines.push(format!(
            "{:<7} {:<24} {:>8} {:>11} {:>4} {:>10} {:>12} {:>10}  {}",
            "DRIVER",
            "HOST",
            "PID",
            "WAREHOUSES",
            "VUS",
            "NO/MIN",
            "TRANSACTIONS",
            "NO P95 MS",
            "STATE"
        ));
        for m in &self.members {
            let e = &m.row.entry;
            let (nopm, done, p95) = match &m.part {
                Some(p) => {
                    let no = p
                        .types
                        .iter()
                        .find(|t| t.name == TYPE_NAMES[Kind::NewOrder.index()]);
                    let p95 = no
                        .and_then(|t| t.histogram())
                        .map(|h| format!("{:.3}", h.value_at_quantile(0.95) as f64 / 1000.0))
                        .unwrap_or_else(|| "-".into());
                    let done: u64 = p.types.iter().map(|t| t.committed + t.rolled_back).sum();
                    (
                        self.client_nopm(p)
                            .map_or("-".into(), |n| format!("{}", n.round() as u64)),
                        done.to_string(),
                        p95,
                    )
                }
                None => ("-".into(), "-".into(), "-".into()),
            };
            let state = match (&m.missing, m.row.state.as_str()) {
                (Some(_), _) => "missing",
                (None, s) => s,
            };
            lines.push(format!(
                "{:<7} {:<24} {:>8} {:>11} {:>4} {:>10} {:>12} {:>10}  {}{}",
                m.row.driver,
                e.host,
                e.pid,
                format!("{}-{}", e.first_ware, e.last_ware),
                e.vus,
                nopm,
                done,
                p95,
                state,
                if m.row.driver == self.driver {
                    " (this one)"
                } else {
                    ""
                }
            ));
        }
        lines
    }

    /// What this driver's job records of the run: its place in it and the merge as this
    /// driver computed it, in the jobs history's plain terms.
    pub fn record(&self) -> crate::jobs::runs::RunPart {
        use crate::jobs::runs::{DriverRow, MergedRun, RunPart};
        let figures = self.figures();
        let no = TYPE_NAMES[Kind::NewOrder.index()];
        let drivers = self
            .members
            .iter()
            .map(|m| {
                let e = &m.row.entry;
                let p = m.part.as_ref();
                DriverRow {
                    driver: m.row.driver,
                    host: e.host.clone(),
                    pid: e.pid,
                    first_ware: e.first_ware,
                    last_ware: e.last_ware,
                    vus: e.vus,
                    state: m.row.state.clone(),
                    missing: m.missing.clone(),
                    step: e.step,
                    read_from_ms: p.and_then(|p| p.read_from_ms),
                    read_to_ms: p.and_then(|p| p.read_to_ms),
                    stopped_early: p.and_then(|p| p.stopped_early.clone()),
                    client_nopm: p.and_then(|p| self.client_nopm(p)),
                    transactions: p
                        .map(|p| p.types.iter().map(|t| t.committed + t.rolled_back).sum()),
                    new_order_p95_ms: p
                        .and_then(|p| p.types.iter().find(|t| t.name == no))
                        .and_then(|t| t.histogram())
                        .map(|h| h.value_at_quantile(0.95) as f64 / 1000.0),
                }
            })
            .collect();
        // As the lines say it: every part's New-Orders over the window the counters cover.
        let client = figures.map(|(_, _, _, seconds)| {
            self.parts().map(|(_, p)| Self::new_orders(p)).sum::<u64>() as f64 * 60.0
                / seconds.max(0.001)
        });
        RunPart {
            run: self.run.clone(),
            driver: self.driver,
            drivers: self.members.len() as u32,
            merged: MergedRun {
                db: self.db_name.to_string(),
                nopm_first: self.nopm_first,
                window_from_ms: self.window_ms.0,
                window_to_ms: self.window_ms.1,
                nopm: figures.map(|f| f.1),
                tpm: figures.map(|f| f.2),
                seconds: figures.map(|f| f.3),
                read_by: figures.map(|f| f.0),
                client_nopm: client,
                efficiency: self.efficiency(),
                warehouses: self.warehouses(),
                unreadable: self.unreadable as u32,
                timing: crate::bench::outcome::timings(&TYPE_NAMES, &self.stats, false)
                    .into_iter()
                    .map(|(t, _)| t)
                    .collect(),
                drivers,
            },
        }
    }

    /// `lastrun()`'s `drivers` map: the run, the merged figures and one map per driver.
    pub fn value(&self) -> Map {
        let mut m = Map::new();
        m.insert("run".into(), self.run.clone().into());
        m.insert("driver".into(), (self.driver as i64).into());
        m.insert("count".into(), (self.members.len() as i64).into());
        m.insert("window_from_ms".into(), self.window_ms.0.into());
        m.insert("window_to_ms".into(), self.window_ms.1.into());
        if let Some((from, nopm, tpm, seconds)) = self.figures() {
            m.insert("nopm".into(), nopm.into());
            m.insert("tpm".into(), tpm.into());
            m.insert("seconds".into(), seconds.into());
            m.insert("read_by".into(), (from as i64).into());
        }
        if let Some(e) = self.efficiency() {
            m.insert("efficiency".into(), e.into());
        }
        m.insert("warehouses".into(), (self.warehouses() as i64).into());
        let mut types = Map::new();
        for k in Kind::ALL {
            types.insert(
                k.name().replace(' ', "_").into(),
                crate::bench::outcome::type_map(self.stats.kind(k)).into(),
            );
        }
        m.insert("transactions".into(), types.into());
        let parts: Array = self
            .members
            .iter()
            .map(|mem| {
                let e = &mem.row.entry;
                let mut d = Map::new();
                d.insert("driver".into(), (mem.row.driver as i64).into());
                d.insert("host".into(), e.host.clone().into());
                d.insert("pid".into(), (e.pid as i64).into());
                d.insert("first_ware".into(), (e.first_ware as i64).into());
                d.insert("last_ware".into(), (e.last_ware as i64).into());
                d.insert("vus".into(), (e.vus as i64).into());
                d.insert("state".into(), mem.row.state.clone().into());
                if let Some(why) = &mem.missing {
                    d.insert("missing".into(), why.clone().into());
                }
                if let Some(p) = &mem.part {
                    if let Some(n) = self.client_nopm(p) {
                        d.insert("client_nopm".into(), n.into());
                    }
                    if let Some(n) = p.nopm {
                        d.insert("nopm".into(), n.into());
                    }
                    if let Some(t) = p.tpm {
                        d.insert("tpm".into(), t.into());
                    }
                    d.insert("seconds".into(), p.seconds.into());
                }
                d.into()
            })
            .collect();
        m.insert("parts".into(), parts.into());
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drivers::board::{Entry, Row};

    fn member(driver: u32, part: Option<Part>, state: &str) -> Member {
        let missing = part.is_none().then(|| {
            "died: its last sign of life was at 2025-04-14 09:30:10 (server clock), 5.0 s into \
             the window"
                .to_string()
        });
        Member {
            row: Row {
                driver,
                entry: Entry {
                    host: format!("host{driver}"),
                    pid: 100 + driver,
                    first_ware: 2 * driver - 1,
                    last_ware: 2 * driver,
                    vus: 2,
                    delay_ms: 0,
                    rampup_ms: 1000,
                    duration_ms: 60_000,
                    step: false,
                },
                joined_ms: 0,
                beat_ms: 0,
                state: state.into(),
                part: None,
            },
            part,
            missing,
        }
    }

    /// A part whose terminals committed `n` New-Orders of `us` microseconds each in 60 s.
    fn part(n: u64, us: u64, figures: Option<(f64, f64)>) -> Part {
        let mut stats = Stats::new(TYPE_NAMES.len());
        let no = &mut stats.by_kind[Kind::NewOrder.index()];
        for _ in 0..n {
            no.latency.record(us).unwrap();
        }
        no.committed = n;
        Part {
            nopm: figures.map(|f| f.0),
            tpm: figures.map(|f| f.1),
            seconds: 60.0,
            types: Part::types_of(&TYPE_NAMES, &stats),
            ..Part::default()
        }
    }

    /// What a driver's job records is what it printed: `jobs run NAME`, made from the record
    /// alone, says the same window, drivers and TEST RESULT line.
    #[test]
    fn the_job_s_record_says_what_the_driver_printed() {
        let w = (1_744_623_005_000, 1_744_623_065_000);
        let mut members = vec![
            member(1, Some(part(600, 2000, Some((1200.4, 2800.6)))), "done"),
            member(2, Some(part(300, 4000, None)), "done"),
            member(3, None, "joined"),
        ];
        // Driver 2 is a step, measuring 6 s of the window from +3 s.
        members[1].row.entry.step = true;
        if let Some(p) = members[1].part.as_mut() {
            (p.read_from_ms, p.read_to_ms) = (Some(w.0 + 3000), Some(w.0 + 9000));
        }
        let merged = Merged::new("r7", 2, members, w, "PostgreSQL", true);
        let record = merged.record();
        assert_eq!(
            (record.run.as_str(), record.driver, record.drivers),
            ("r7", 2, 3)
        );
        let m = &record.merged;
        assert_eq!(
            (m.nopm, m.tpm, m.read_by),
            (Some(1200.4), Some(2800.6), Some(1))
        );
        assert_eq!(m.client_nopm, Some(900.0));
        assert_eq!(m.warehouses, 6);
        assert_eq!(m.parts(), 2);
        assert_eq!(m.drivers[1].client_nopm, Some(300.0));
        assert_eq!(m.drivers[1].transactions, Some(300));
        assert_eq!(m.drivers[0].new_order_p95_ms, Some(2.0));
        assert!(m.drivers[2]
            .missing
            .as_deref()
            .unwrap()
            .starts_with("died:"));
        let no = &m.timing[Kind::NewOrder.index()];
        assert_eq!((no.name.as_str(), no.committed), ("new order", 900));
        let back: crate::jobs::runs::RunPart =
            serde_json::from_str(&serde_json::to_string(&record).unwrap()).unwrap();
        assert_eq!(back, record);
        // The jobs history's rendering of the record, beside the driver's own lines.
        let jobs: Vec<crate::jobs::Summary> = (1..=2)
            .map(|n| {
                let mut s =
                    crate::jobs::sample::summary(&format!("67FD24A6FDB403E25343839{n}"), None);
                s.hostname = format!("host{n}");
                s.pid = 100 + n;
                s
            })
            .collect();
        let runs =
            crate::jobs::runs::group(&jobs, vec![("67FD24A6FDB403E253438392".into(), record)]);
        let shown = crate::jobs::text::shared_run(&runs[0], 1);
        let printed = merged.lines();
        for line in printed.iter().take(5) {
            assert!(shown.contains(line.as_str()), "{line}\nnot in\n{shown}");
        }
        assert!(printed[1].contains("is a step: it measured from +3.0 s to +9.0 s"));
        assert!(printed[3].starts_with("TEST RESULT (3 drivers) : System achieved 1200 NOPM"));
    }
}
