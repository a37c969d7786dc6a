//! Runs that several hammer drivers shared, in the jobs history (hammer's own: HammerDB has no
//! such runs). Each driver's job records its part ([`RunPart`]: the run's name, its number,
//! how many drivers there were, and the merged result as it computed it); here the parts of
//! one run, found in the store, become one entry ([`SharedRun`]) with the merge that covered
//! the most parts, every driver beneath it with its job, and the status of the whole. `jobs`,
//! `jobs list` and `jobs run NAME` show these; the workload fills [`MergedRun`] (plain data).

use serde::{Deserialize, Serialize};

use super::{Kind, Status, Summary, Timing};

/// One driver's part of a shared run, as its job records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunPart {
    pub run: String,
    /// This driver's number in the run, from 1 in the order they joined.
    pub driver: u32,
    /// How many drivers the run had.
    pub drivers: u32,
    /// The merged result as this driver computed it from the parts it gathered.
    pub merged: MergedRun,
}

/// A shared run's merged result, as one driver computed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedRun {
    /// The database as its result line names it (`PostgreSQL`), and whether that line puts
    /// NOPM first (`benchmark.first_result`).
    pub db: String,
    pub nopm_first: bool,
    /// The common window, milliseconds since the epoch on the database server's clock.
    pub window_from_ms: i64,
    pub window_to_ms: i64,
    /// The database's own figures over the window, from the counters that driver `read_by`
    /// read `seconds` apart; `None` when no driver read both ends.
    pub nopm: Option<f64>,
    pub tpm: Option<f64>,
    pub seconds: Option<f64>,
    pub read_by: Option<u32>,
    /// The New-Orders a minute the drivers' terminals committed, summed: the cross-check.
    pub client_nopm: Option<f64>,
    /// Percent of TPC-C's ceiling of tpmC for `warehouses`, when every driver keyed and
    /// thought.
    pub efficiency: Option<f64>,
    /// The warehouses the drivers drove, over every driver that joined.
    pub warehouses: u32,
    /// Histograms of the parts that did not decode (left out of the percentiles).
    pub unreadable: u32,
    /// Per transaction type: every part's counts summed, their histograms merged.
    pub timing: Vec<Timing>,
    /// Every driver that joined, by number.
    pub drivers: Vec<DriverRow>,
}

/// One driver of a shared run as the merge saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriverRow {
    pub driver: u32,
    pub host: String,
    pub pid: u32,
    pub first_ware: u32,
    pub last_ware: u32,
    pub vus: u32,
    /// The board's word for it: `done` (it measured the window), `failed`, or `joined` (it
    /// posted no part).
    pub state: String,
    /// Why the merge has no part of it (it died, with its last sign of life; its part could
    /// not be read; it was still running when the merging driver stopped waiting).
    pub missing: Option<String>,
    /// A step (`drivers_step`): it measured a window of its own inside the common one, from
    /// `read_from_ms` to `read_to_ms` (server clock), as every part's monitor read it.
    pub step: bool,
    pub read_from_ms: Option<i64>,
    pub read_to_ms: Option<i64>,
    /// Why its run ended early, when it did.
    pub stopped_early: Option<String>,
    /// Its own terminals over the window: New-Orders a minute, transactions finished
    /// (committed and rolled back), and New-Order's 95th percentile.
    pub client_nopm: Option<f64>,
    pub transactions: Option<u64>,
    pub new_order_p95_ms: Option<f64>,
}

impl DriverRow {
    /// Whether the merge holds its part.
    pub fn has_part(&self) -> bool {
        self.missing.is_none()
    }

    /// Why it did not complete, in a few words (`died`, `failed (the server ...)`), or
    /// `None` when it measured the window.
    fn trouble(&self) -> Option<String> {
        if let Some(why) = &self.missing {
            // `died: its last sign of life ...`: the first words say it.
            let short = why.split(':').next().unwrap_or(why);
            return Some(format!("driver {} {short}", self.driver));
        }
        (self.state != "done").then(|| match &self.stopped_early {
            Some(why) => format!("driver {} failed ({why})", self.driver),
            None => format!("driver {} failed", self.driver),
        })
    }
}

impl MergedRun {
    /// How many drivers' parts the merge holds.
    pub fn parts(&self) -> usize {
        self.drivers.iter().filter(|d| d.has_part()).count()
    }

    /// How many drivers measured the whole window.
    pub fn measured(&self) -> usize {
        self.drivers
            .iter()
            .filter(|d| d.has_part() && d.state == "done")
            .count()
    }
}

/// Whether every part of a shared run completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whole {
    Complete,
    Incomplete,
}

impl Whole {
    pub fn label(self) -> &'static str {
        match self {
            Whole::Complete => "COMPLETE",
            Whole::Incomplete => "INCOMPLETE",
        }
    }
}

impl Serialize for Whole {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

/// One driver of a shared run with its job, when the job is in this store.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub row: DriverRow,
    pub job: Option<Summary>,
}

/// A stored merge that is not the one shown: its job, its driver and the parts it covered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OtherMerge {
    pub id: String,
    pub driver: u32,
    pub parts: usize,
}

/// The parts of one shared run found in the store, as one entry.
#[derive(Debug, Clone, PartialEq)]
pub struct SharedRun {
    pub run: String,
    pub drivers: u32,
    /// The merge shown: of the stored ones, the one covering the most parts (the lowest
    /// driver's on a tie), with its job and driver.
    pub merged: MergedRun,
    pub merged_by: (String, u32),
    /// Stored merges that covered fewer parts (drivers that gathered less).
    pub fewer: Vec<OtherMerge>,
    /// Every driver of the run by number, with its job when it is in this store.
    pub members: Vec<Member>,
    pub status: Whole,
    /// What kept it from being complete: `driver 3 died`, `driver 2's job FAILED`.
    pub problems: Vec<String>,
    /// The first part's start and the last part's end, of the jobs in this store.
    pub started: i64,
    pub ended: Option<i64>,
}

impl SharedRun {
    /// The jobs of this run in the store.
    pub fn jobs(&self) -> impl Iterator<Item = &Summary> {
        self.members.iter().filter_map(|m| m.job.as_ref())
    }

    /// Whether the job `id` is one of its parts.
    pub fn holds(&self, id: &str) -> bool {
        self.jobs().any(|j| j.id == id)
    }

    /// The first part's job: its database, workload and mode are the run's.
    pub fn lead(&self) -> Option<&Summary> {
        self.jobs().next()
    }

    /// How the drivers ran, in the words all their jobs share (`timed, stored functions`),
    /// without each job's own warehouses (`warehouses 1-2 of run night-42 (2 drivers)`).
    pub fn mode(&self) -> String {
        let modes: Vec<&str> = self.jobs().map(|j| j.profile.mode.as_str()).collect();
        let Some(first) = modes.first() else {
            return String::new();
        };
        let own = format!(" of run {} (", self.run);
        first
            .split(", ")
            .filter(|w| !w.contains(&own))
            .filter(|w| modes.iter().all(|m| m.split(", ").any(|x| x == *w)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The virtual users of every driver.
    pub fn vus(&self) -> u32 {
        self.members.iter().map(|m| m.row.vus).sum()
    }

    /// `driver 3 died; driver 2's job FAILED`, or `None` when complete.
    pub fn note(&self) -> Option<String> {
        (!self.problems.is_empty()).then(|| self.problems.join("; "))
    }
}

/// Whether two windows share a moment: parts of one run have the same window; a name used
/// again (on another database under test) has another.
fn overlap(a: &MergedRun, b: &MergedRun) -> bool {
    a.window_from_ms <= b.window_to_ms && b.window_from_ms <= a.window_to_ms
}

/// A driver's job that recorded no part (its run failed before it could merge): the newest
/// run job of the same host and pid that started within a day before the window closed.
fn unrecorded<'a>(
    jobs: &'a [Summary],
    row: &DriverRow,
    m: &MergedRun,
    taken: &dyn Fn(&str) -> bool,
) -> Option<&'a Summary> {
    const DAY_MS: i64 = 86_400_000;
    jobs.iter()
        .filter(|j| {
            j.kind == Kind::Run
                && j.hostname == row.host
                && j.pid == row.pid
                && j.started <= m.window_to_ms
                && j.started >= m.window_from_ms - DAY_MS
                && !taken(&j.id)
        })
        .max_by_key(|j| j.started)
}

/// The shared runs the stored parts make, newest first: parts of one name whose windows
/// overlap are one run. `jobs` are every job in the store, `parts` every job's part (its id
/// and what it recorded).
pub fn group(jobs: &[Summary], mut parts: Vec<(String, RunPart)>) -> Vec<SharedRun> {
    parts.sort_by(|a, b| {
        (&a.1.run, a.1.merged.window_from_ms, a.1.driver).cmp(&(
            &b.1.run,
            b.1.merged.window_from_ms,
            b.1.driver,
        ))
    });
    let mut clusters: Vec<Vec<(String, RunPart)>> = Vec::new();
    for p in parts {
        match clusters
            .iter_mut()
            .find(|c| c[0].1.run == p.1.run && c.iter().any(|q| overlap(&q.1.merged, &p.1.merged)))
        {
            Some(c) => c.push(p),
            None => clusters.push(vec![p]),
        }
    }
    let recorded: std::collections::HashSet<String> = clusters
        .iter()
        .flatten()
        .map(|(id, _)| id.clone())
        .collect();
    let mut runs: Vec<SharedRun> = clusters
        .into_iter()
        .map(|c| one_run(jobs, c, &recorded))
        .collect();
    runs.sort_by_key(|r| std::cmp::Reverse(r.started));
    runs
}

fn one_run(
    jobs: &[Summary],
    cluster: Vec<(String, RunPart)>,
    recorded: &std::collections::HashSet<String>,
) -> SharedRun {
    // The most parts; on a tie the lowest driver (the cluster is in driver order).
    let best = cluster
        .iter()
        .enumerate()
        .max_by_key(|(i, (_, p))| (p.merged.parts(), std::cmp::Reverse(*i)))
        .map(|(i, _)| i)
        .unwrap_or(0);
    let (best_id, best_part) = &cluster[best];
    let covered = best_part.merged.parts();
    let fewer = cluster
        .iter()
        .filter(|(_, p)| p.merged.parts() < covered)
        .map(|(id, p)| OtherMerge {
            id: id.clone(),
            driver: p.driver,
            parts: p.merged.parts(),
        })
        .collect();
    let by_id = |id: &str| jobs.iter().find(|j| j.id == id);
    let mut linked: Vec<String> = Vec::new();
    let members: Vec<Member> = best_part
        .merged
        .drivers
        .iter()
        .map(|row| {
            let job = match cluster.iter().find(|(_, p)| p.driver == row.driver) {
                Some((id, _)) => by_id(id),
                None => {
                    let taken = |id: &str| recorded.contains(id) || linked.iter().any(|l| l == id);
                    unrecorded(jobs, row, &best_part.merged, &taken)
                }
            };
            if let Some(j) = job {
                linked.push(j.id.clone());
            }
            Member {
                row: row.clone(),
                job: job.cloned(),
            }
        })
        .collect();
    let mut problems: Vec<String> = Vec::new();
    for m in &members {
        if let Some(t) = m.row.trouble() {
            problems.push(t);
        } else if let Some(j) = &m.job {
            if !matches!(j.status, Status::Success | Status::Running) {
                problems.push(format!(
                    "driver {}'s job {}",
                    m.row.driver,
                    j.status.label()
                ));
            }
        }
    }
    let status = if problems.is_empty() {
        Whole::Complete
    } else {
        Whole::Incomplete
    };
    let started = members
        .iter()
        .filter_map(|m| m.job.as_ref().map(|j| j.started))
        .min()
        .unwrap_or(best_part.merged.window_from_ms);
    let ended = members
        .iter()
        .filter_map(|m| m.job.as_ref())
        .map(|j| j.ended)
        .collect::<Option<Vec<i64>>>()
        .and_then(|e| e.into_iter().max());
    SharedRun {
        run: best_part.run.clone(),
        drivers: best_part.drivers,
        merged: best_part.merged.clone(),
        merged_by: (best_id.clone(), best_part.driver),
        fewer,
        members,
        status,
        problems,
        started,
        ended,
    }
}

/// One line of the `jobs` list: a job of its own, or a shared run with its parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Entry<'a> {
    Job(&'a Summary),
    Run(&'a SharedRun),
}

/// The list in the store's order (newest first), each shared run in its newest part's place
/// and its parts under it rather than among the jobs.
pub fn entries<'a>(
    jobs: impl IntoIterator<Item = &'a Summary>,
    runs: &'a [SharedRun],
) -> Vec<Entry<'a>> {
    let mut shown = vec![false; runs.len()];
    let mut out = Vec::new();
    for j in jobs {
        match runs.iter().position(|r| r.holds(&j.id)) {
            Some(i) if !shown[i] => {
                shown[i] = true;
                out.push(Entry::Run(&runs[i]));
            }
            Some(_) => {}
            None => out.push(Entry::Job(j)),
        }
    }
    out
}

/// The run of that name: the newest when several have it (a name used again on another
/// database under test), with how many do.
pub fn named<'a>(runs: &'a [SharedRun], name: &str) -> Option<(&'a SharedRun, usize)> {
    let all: Vec<&SharedRun> = runs.iter().filter(|r| r.run == name).collect();
    all.first().map(|r| (*r, all.len()))
}

/// A driver of a shared run in JSON: the merge's row, its job's id and status, and the job.
#[derive(Serialize)]
struct MemberView<'a> {
    #[serde(flatten)]
    row: &'a DriverRow,
    /// Its job, `null` when not in this store.
    id: Option<&'a str>,
    status: Option<Status>,
    job: Option<&'a Summary>,
}

/// A shared run in JSON (`jobs list`'s entry, `jobs run NAME`).
#[derive(Serialize)]
pub struct RunView<'a> {
    kind: &'static str,
    #[serde(rename = "type")]
    label: &'static str,
    run: &'a str,
    drivers: u32,
    db: &'a str,
    workload: Option<&'a str>,
    mode: String,
    vus: u32,
    warehouses: u32,
    status: Whole,
    note: Option<String>,
    #[serde(serialize_with = "super::id::ser_time")]
    started: i64,
    #[serde(serialize_with = "super::id::ser_opt_time")]
    ended: Option<i64>,
    #[serde(serialize_with = "super::id::ser_time")]
    window_from: i64,
    #[serde(serialize_with = "super::id::ser_time")]
    window_to: i64,
    nopm: Option<f64>,
    tpm: Option<f64>,
    seconds: Option<f64>,
    read_by: Option<u32>,
    client_nopm: Option<f64>,
    efficiency: Option<f64>,
    measured: usize,
    parts: usize,
    merged_by: OtherMerge,
    fewer: &'a [OtherMerge],
    unreadable: u32,
    timing: &'a [Timing],
    members: Vec<MemberView<'a>>,
}

/// The kind a shared run's entry has in `jobs list`, beside the jobs' own.
pub const KIND: &str = "shared_run";
/// Its type, as the jobs' `Benchmark Run`.
pub const LABEL: &str = "Shared Run";

impl<'a> RunView<'a> {
    pub fn of(r: &'a SharedRun) -> Self {
        let m = &r.merged;
        let lead = r.lead();
        RunView {
            kind: KIND,
            label: LABEL,
            run: &r.run,
            drivers: r.drivers,
            db: &m.db,
            workload: lead.map(|j| j.profile.workload.as_str()),
            mode: r.mode(),
            vus: r.vus(),
            warehouses: m.warehouses,
            status: r.status,
            note: r.note(),
            started: r.started,
            ended: r.ended,
            window_from: m.window_from_ms,
            window_to: m.window_to_ms,
            nopm: m.nopm,
            tpm: m.tpm,
            seconds: m.seconds,
            read_by: m.read_by,
            client_nopm: m.client_nopm,
            efficiency: m.efficiency,
            measured: m.measured(),
            parts: m.parts(),
            merged_by: OtherMerge {
                id: r.merged_by.0.clone(),
                driver: r.merged_by.1,
                parts: m.parts(),
            },
            fewer: &r.fewer,
            unreadable: m.unreadable,
            timing: &m.timing,
            members: r
                .members
                .iter()
                .map(|mem| MemberView {
                    row: &mem.row,
                    id: mem.job.as_ref().map(|j| j.id.as_str()),
                    status: mem.job.as_ref().map(|j| j.status),
                    job: mem.job.as_ref(),
                })
                .collect(),
        }
    }
}

/// `jobs list` in JSON: the jobs, each shared run one entry in its place.
pub fn list_json(entries: &[Entry<'_>]) -> serde_json::Value {
    serde_json::Value::Array(
        entries
            .iter()
            .map(|e| match e {
                Entry::Job(j) => serde_json::to_value(j),
                Entry::Run(r) => serde_json::to_value(RunView::of(r)),
            })
            .map(|v| v.unwrap_or(serde_json::Value::Null))
            .collect(),
    )
}

/// What `jobs ID` of a part says of its run: its name, this part's place, and the merged
/// figures as this driver computed them.
#[derive(Debug, Serialize)]
pub struct PartView<'a> {
    run: &'a str,
    driver: u32,
    drivers: u32,
    nopm: Option<f64>,
    tpm: Option<f64>,
    parts: usize,
}

impl<'a> PartView<'a> {
    pub fn of(p: &'a RunPart) -> Self {
        PartView {
            run: &p.run,
            driver: p.driver,
            drivers: p.drivers,
            nopm: p.merged.nopm,
            tpm: p.merged.tpm,
            parts: p.merged.parts(),
        }
    }
}

/// Shared runs for the renderers' tests.
#[cfg(test)]
pub(crate) mod sample {
    use super::*;

    /// Driver `n` of a run on `host`, warehouses `2n-1..2n`, which measured the window.
    pub fn row(n: u32, host: &str) -> DriverRow {
        DriverRow {
            driver: n,
            host: host.into(),
            pid: 4000 + n,
            first_ware: 2 * n - 1,
            last_ware: 2 * n,
            vus: 2,
            state: "done".into(),
            missing: None,
            step: false,
            read_from_ms: None,
            read_to_ms: None,
            stopped_early: None,
            client_nopm: Some(1000.0 * f64::from(n)),
            transactions: Some(500 * u64::from(n)),
            new_order_p95_ms: Some(2.5),
        }
    }

    /// Run `name`'s merge over `rows`, its window from `from` for 60 s.
    pub fn merged(rows: Vec<DriverRow>, from: i64) -> MergedRun {
        MergedRun {
            db: "PostgreSQL".into(),
            nopm_first: true,
            window_from_ms: from,
            window_to_ms: from + 60_000,
            nopm: Some(3012.4),
            tpm: Some(7003.6),
            seconds: Some(60.0),
            read_by: Some(1),
            client_nopm: Some(3000.0),
            efficiency: None,
            warehouses: rows.iter().map(|r| r.last_ware - r.first_ware + 1).sum(),
            unreadable: 0,
            timing: vec![
                crate::jobs::sample::timing("new order", 2.0),
                crate::jobs::sample::timing("payment", 1.0),
            ],
            drivers: rows,
        }
    }

    /// A run job of driver `row`'s host and pid, started at `started`.
    pub fn job(id: &str, row: &DriverRow, started: i64) -> Summary {
        let mut s = crate::jobs::sample::summary(id, Some(3012.4));
        s.profile.mode = format!(
            "timed, stored functions, warehouses {}-{} of run night-42 (2 drivers)",
            row.first_ware, row.last_ware
        );
        s.hostname = row.host.clone();
        s.pid = row.pid;
        s.started = started;
        s.ended = Some(started + 70_000);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::sample::*;
    use super::*;

    const T: i64 = 1_744_623_005_123;

    fn part(run: &str, driver: u32, merged: MergedRun) -> RunPart {
        RunPart {
            run: run.into(),
            driver,
            drivers: merged.drivers.len() as u32,
            merged,
        }
    }

    #[test]
    fn the_parts_of_a_run_are_one_entry_with_its_jobs_beneath() {
        let rows = vec![row(1, "a"), row(2, "b")];
        let m = merged(rows.clone(), T);
        let jobs = vec![
            crate::jobs::sample::summary("67FD24A6FDB403E2534383B0", Some(5.0)),
            job("67FD24A6FDB403E2534383A2", &rows[1], T - 5_000),
            job("67FD24A6FDB403E2534383A1", &rows[0], T - 6_000),
            crate::jobs::sample::summary("67FD24A6FDB403E2534383A0", Some(7.0)),
        ];
        let parts = vec![
            ("67FD24A6FDB403E2534383A2".into(), part("r1", 2, m.clone())),
            ("67FD24A6FDB403E2534383A1".into(), part("r1", 1, m.clone())),
        ];
        let runs = group(&jobs, parts);
        assert_eq!(runs.len(), 1);
        let r = &runs[0];
        assert_eq!((r.run.as_str(), r.drivers), ("r1", 2));
        assert_eq!(r.status, Whole::Complete);
        assert_eq!(r.merged_by, ("67FD24A6FDB403E2534383A1".to_string(), 1));
        assert!(r.fewer.is_empty());
        assert_eq!(r.started, T - 6_000);
        let ids: Vec<_> = r.jobs().map(|j| j.id.as_str()).collect();
        assert_eq!(
            ids,
            ["67FD24A6FDB403E2534383A1", "67FD24A6FDB403E2534383A2"]
        );
        // In the list: the newest job, then the run in its newest part's place, then the
        // older job; the parts are not listed again.
        let e = entries(&jobs, &runs);
        assert_eq!(e.len(), 3);
        assert!(matches!(e[0], Entry::Job(j) if j.id.ends_with("B0")));
        assert!(matches!(e[1], Entry::Run(r) if r.run == "r1"));
        assert!(matches!(e[2], Entry::Job(j) if j.id.ends_with("A0")));
        let v = list_json(&e);
        assert_eq!(v[1]["kind"], KIND);
        assert_eq!(v[1]["run"], "r1");
        assert_eq!(v[1]["status"], "COMPLETE");
        assert_eq!(v[1]["nopm"], 3012.4);
        assert_eq!(v[1]["members"][1]["id"], "67FD24A6FDB403E2534383A2");
        assert_eq!(v[1]["members"][1]["host"], "b");
        assert_eq!(v[1]["members"][1]["status"], "SUCCESS");
        assert_eq!(v[1]["members"][1]["job"]["pid"], 4002);
        assert_eq!(v[1]["mode"], "timed, stored functions");
        assert_eq!(v[0]["id"], "67FD24A6FDB403E2534383B0");
    }

    #[test]
    fn the_merge_covering_most_parts_is_shown_and_the_others_named() {
        let mut rows = vec![row(1, "a"), row(2, "b"), row(3, "c")];
        let whole = merged(rows.clone(), T);
        // Driver 2 stopped waiting before driver 3's part came.
        rows[2].missing =
            Some("still running when this driver stopped waiting (120 s after posting)".into());
        let less = merged(rows.clone(), T);
        let jobs: Vec<Summary> = (1..=3u32)
            .map(|n| {
                job(
                    &format!("67FD24A6FDB403E2534383A{n}"),
                    &rows[n as usize - 1],
                    T,
                )
            })
            .collect();
        let parts = vec![
            ("67FD24A6FDB403E2534383A2".into(), part("r", 2, less)),
            (
                "67FD24A6FDB403E2534383A3".into(),
                part("r", 3, whole.clone()),
            ),
            ("67FD24A6FDB403E2534383A1".into(), part("r", 1, whole)),
        ];
        let runs = group(&jobs, parts);
        let r = &runs[0];
        assert_eq!(r.merged_by.1, 1, "the lowest of the fullest");
        assert_eq!(r.merged.parts(), 3);
        assert_eq!(
            r.fewer,
            [OtherMerge {
                id: "67FD24A6FDB403E2534383A2".into(),
                driver: 2,
                parts: 2
            }]
        );
        assert_eq!(r.status, Whole::Complete);
    }

    #[test]
    fn a_run_with_a_dead_or_failed_part_is_incomplete_and_says_which() {
        let mut rows = vec![row(1, "a"), row(2, "b"), row(3, "c")];
        rows[1].state = "failed".into();
        rows[1].stopped_early = Some("the server did not come back within 60 s".into());
        rows[2].state = "joined".into();
        rows[2].missing = Some("died: its last sign of life was at 2025-04-14 09:30:10 (server clock), 5.0 s into the window".into());
        let m = merged(rows.clone(), T);
        let mut failed = job("67FD24A6FDB403E2534383A2", &rows[1], T - 1000);
        failed.status = Status::Failed;
        // Driver 3's job recorded no part (it was killed): found by its host and pid.
        let mut killed = job("67FD24A6FDB403E2534383A3", &rows[2], T - 1000);
        killed.status = Status::Aborted;
        let jobs = vec![
            job("67FD24A6FDB403E2534383A1", &rows[0], T - 1000),
            failed,
            killed,
        ];
        let parts = vec![
            ("67FD24A6FDB403E2534383A1".into(), part("k", 1, m.clone())),
            ("67FD24A6FDB403E2534383A2".into(), part("k", 2, m)),
        ];
        let runs = group(&jobs, parts);
        let r = &runs[0];
        assert_eq!(r.status, Whole::Incomplete);
        assert_eq!(
            r.note().unwrap(),
            "driver 2 failed (the server did not come back within 60 s); driver 3 died"
        );
        assert_eq!(
            r.members[2].job.as_ref().map(|j| j.id.as_str()),
            Some("67FD24A6FDB403E2534383A3")
        );
        assert_eq!(r.ended, Some(T - 1000 + 70_000));
        // A part whose job failed although its board row says done.
        let rows = vec![row(1, "a")];
        let mut j = job("67FD24A6FDB403E2534383C1", &rows[0], T);
        j.status = Status::Failed;
        let runs = group(
            &[j],
            vec![(
                "67FD24A6FDB403E2534383C1".into(),
                part("f", 1, merged(rows, T)),
            )],
        );
        assert_eq!(runs[0].note().unwrap(), "driver 1's job FAILED");
    }

    #[test]
    fn a_name_used_again_elsewhere_is_another_run() {
        let rows = vec![row(1, "a")];
        let jobs = vec![
            job("67FD24A6FDB403E2534383A2", &rows[0], T + 3_600_000),
            job("67FD24A6FDB403E2534383A1", &rows[0], T),
        ];
        let parts = vec![
            (
                "67FD24A6FDB403E2534383A1".into(),
                part("same", 1, merged(rows.clone(), T)),
            ),
            (
                "67FD24A6FDB403E2534383A2".into(),
                part("same", 1, merged(rows.clone(), T + 3_600_000)),
            ),
        ];
        let runs = group(&jobs, parts);
        assert_eq!(runs.len(), 2);
        let (newest, n) = named(&runs, "same").unwrap();
        assert_eq!(n, 2);
        assert_eq!(newest.merged_by.0, "67FD24A6FDB403E2534383A2");
        assert!(named(&runs, "other").is_none());
    }

    #[test]
    fn a_part_round_trips_as_json() {
        let p = part("r", 1, merged(vec![row(1, "a")], T));
        let text = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<RunPart>(&text).unwrap(), p);
    }
}
