//! The session's recorder: opens the jobs database when first needed, records the job that is
//! running (its output lines and series through a writer thread, its end in one transaction),
//! and turns into a no-op, with one warning, when the database cannot be used.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use hdrhistogram::Histogram;
use rhai::Dynamic;

use super::id::{new_id, now_ms, unix_ms};
use super::store::{End, Location, Origin, Store};
use super::{
    vu_of, Kind, Line, MetricPoint, Profile, RunFigures, Spec, Status, TcountPoint, Timing,
};
use crate::config::{Database, Settings, Target};
use crate::endpoint::Destination;
use crate::error::Error;
use crate::output::{Output, Tee};

/// Lines and samples reach the database at most this long after they were made.
const FLUSH_EVERY: Duration = Duration::from_millis(200);

enum Msg {
    Line(Line),
    Tcount(TcountPoint),
    Metric(MetricPoint),
    Stop,
}

/// The sending end a running job hands out: the output tee, and the series sink.
#[derive(Clone)]
struct Tap {
    tx: Sender<Msg>,
}

impl Tee for Tap {
    fn line(&self, text: &str) {
        let _ = self.tx.send(Msg::Line(Line {
            at: now_ms(),
            vu: vu_of(text),
            line: text.to_string(),
        }));
    }
}

/// Where the transaction counter and the CPU metrics send their samples: into the job that is
/// running when each sample is taken, or nowhere between jobs. Cheap to clone into a task.
#[derive(Clone, Default)]
pub struct SeriesSink(Arc<Mutex<Option<Tap>>>);

impl SeriesSink {
    fn send(&self, msg: Msg) {
        if let Some(tap) = &*self.0.lock().unwrap_or_else(|e| e.into_inner()) {
            let _ = tap.tx.send(msg);
        }
    }

    /// One transaction counter sample: its rate in `metric` (`tpm`: transactions per minute,
    /// `qph`: queries per hour), and NOPM when known.
    pub fn record_tcount(&self, at: SystemTime, metric: &str, value: f64, nopm: Option<f64>) {
        self.send(Msg::Tcount(TcountPoint {
            at: unix_ms(at),
            metric: metric.to_string(),
            value,
            nopm,
        }));
    }

    /// One CPU sample: user, system, interrupt and idle percentages of all CPUs.
    pub fn record_metric(&self, at: SystemTime, usr: f64, sys: f64, irq: f64, idle: f64) {
        self.send(Msg::Metric(MetricPoint {
            at: unix_ms(at),
            usr,
            sys,
            irq,
            idle,
        }));
    }

    fn set(&self, tap: Option<Tap>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = tap;
    }
}

/// The job being recorded.
pub struct Running {
    pub id: String,
    pub kind: Kind,
    /// The database and settings it ran with, for the server facts at its end.
    pub db: Database,
    pub settings: Settings,
    writer: Option<(Sender<Msg>, std::thread::JoinHandle<Option<Failure>>)>,
    /// Room kept for the job's end on the database's disk (see [`Reserve`]).
    reserve: Option<Reserve>,
    /// The host's CPU, measured from the job's start.
    cpu: Option<super::cpu::Span>,
}

/// Why something could not be recorded, and whether it was for want of disk space.
#[derive(Debug, Clone)]
struct Failure {
    why: String,
    full: bool,
}

impl From<super::store::StoreError> for Failure {
    fn from(e: super::store::StoreError) -> Self {
        Failure {
            full: e.full,
            why: e.to_string(),
        }
    }
}

/// How much room a job sets aside for its end: the end of a run (its figures, timings with
/// their histograms, system facts, live series, TPROC-H's query sets) takes tens of KB in the
/// write-ahead log; this leaves room for many times that.
const RESERVE_BYTES: usize = 1 << 20;

/// Disk space set aside, as a file beside the jobs database, while a job runs: when the disk
/// fills during the job its output lines stop being saved, but the file is removed to make
/// room for the job's end, so that a finished job is never left RUNNING (later ABORTED) for
/// want of a few pages. Removed with the job's end, or when dropped.
#[derive(Debug)]
struct Reserve {
    path: PathBuf,
}

impl Reserve {
    /// Writes the file (bytes that do not compress: a compressing file system would keep no
    /// room for zeros); on failure nothing is left behind.
    fn make(db: &Path) -> std::io::Result<Reserve> {
        use std::io::Write;
        let name = db
            .file_name()
            .map_or("jobs.db".into(), |n| n.to_string_lossy().into_owned());
        let path = db.with_file_name(format!("{name}-reserve-{}", std::process::id()));
        let reserve = Reserve { path };
        let mut file = std::fs::File::create(&reserve.path)?;
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let chunk: Vec<u8> = (0..64 * 1024)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        // Not flushed: ext4, XFS, btrfs and tmpfs all take the space at `write` (delayed
        // allocation reserves it), and a flush would cost every job a disk round trip.
        for _ in 0..RESERVE_BYTES / chunk.len() {
            file.write_all(&chunk)?;
        }
        Ok(reserve)
    }

    fn release(self) {}
}

impl Drop for Reserve {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Where the jobs database is, and whether recording is on.
enum State {
    /// Not opened yet.
    Closed(Location),
    Open(Store),
    /// Not usable: why, said once.
    Off(Failure),
}

/// The session's job recorder.
pub struct Recorder {
    state: State,
    /// The data directory, where the settings file is too.
    home: Option<PathBuf>,
    /// Where the jobs database is, when recording is on.
    at: Option<Location>,
    warned: bool,
    running: Option<Running>,
    series: SeriesSink,
    /// `hammer jobs --json|--text`: the format for this process only.
    pub format_override: Option<super::format::Format>,
    /// The step runs of a performance profile record (`jobs profilestep LABEL`).
    pub profile_step: String,
}

impl Recorder {
    /// The recorder for a session: the PostgreSQL database `commandline.jobs_store` names
    /// when it names one (hammer's own key), else `jobs.db` in the data directory, or the
    /// path in `commandline.sqlite_db` when it names one; off when `jobs_disable` is 1 or
    /// there is no data directory for a file.
    pub fn new(settings: &Settings, home: Option<&Path>) -> Self {
        let (state, at) = Self::place(settings, home);
        Recorder {
            state,
            home: home.map(Path::to_path_buf),
            at,
            warned: false,
            running: None,
            series: SeriesSink::default(),
            format_override: None,
            profile_step: String::new(),
        }
    }

    /// Takes the jobs database the settings name now (after `giset commandline jobs_store`):
    /// the next job is recorded there, and `jobs` reads it. The counter's and metrics' sink
    /// and the output format stay.
    pub fn relocate(&mut self, settings: &Settings) {
        let (state, at) = Self::place(settings, self.home.as_deref());
        self.state = state;
        self.at = at;
        self.warned = false;
    }

    /// Where the settings put the jobs, or why nowhere.
    fn place(settings: &Settings, home: Option<&Path>) -> (State, Option<Location>) {
        let g = &settings.generic;
        let off = |why: &str| {
            State::Off(Failure {
                why: why.into(),
                full: false,
            })
        };
        let server = g.get("jobs_store").trim();
        let state = if g.get_bool("jobs_disable") {
            off("jobs are disabled (giset commandline jobs_disable 0 enables them at the next start)")
        } else if !server.is_empty() {
            // Checked when set; a settings file edited by hand is checked here too (the
            // message never quotes the password).
            match crate::conninfo::parse(server) {
                Ok(c) => State::Closed(Location::Server(c)),
                Err(why) => off(&format!("commandline jobs_store {why}")),
            }
        } else {
            match (g.get("sqlite_db"), home) {
                ("" | "TMP" | "TEMP", Some(home)) => {
                    State::Closed(Location::File(super::store::default_path(home)))
                }
                ("" | "TMP" | "TEMP", None) => {
                    off("there is no data directory to keep them in (set HAMMER_HOME)")
                }
                (path, _) => State::Closed(Location::File(PathBuf::from(path))),
            }
        };
        let at = match &state {
            State::Closed(at) => Some(at.clone()),
            _ => None,
        };
        (state, at)
    }

    /// Where jobs are recorded, as `citmp` shows it: the SQLite file, the PostgreSQL database
    /// (never its password), or why nowhere.
    pub fn place_text(&self) -> String {
        match (&self.at, &self.state) {
            (Some(Location::File(path)), _) => path.display().to_string(),
            (Some(Location::Server(c)), _) => c.shown(),
            (None, State::Off(f)) => format!("none ({})", f.why),
            (None, _) => "none".to_string(),
        }
    }

    /// The database, opened (and upgraded) on first use; why not, when it cannot be.
    pub fn store(&mut self) -> Result<&Store, String> {
        self.opened().map_err(|f| f.why)
    }

    fn opened(&mut self) -> Result<&Store, Failure> {
        if let State::Closed(at) = &self.state {
            self.state = match Store::open(at) {
                Ok(s) => State::Open(s),
                Err(e) => State::Off(e.into()),
            };
        }
        match &self.state {
            State::Open(s) => Ok(s),
            State::Off(f) => Err(f.clone()),
            State::Closed(_) => Err(Failure {
                why: "the jobs database is not open".into(),
                full: false,
            }),
        }
    }

    /// The jobs database's directory, where a full disk is said once (see
    /// [`crate::config::full`]).
    fn store_dir(&self) -> PathBuf {
        let path = self
            .at
            .as_ref()
            .and_then(Location::file)
            .unwrap_or(Path::new("jobs.db"));
        match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// Says once per session that jobs are not recorded, and why.
    fn warn(&mut self, out: &Output, why: &str) {
        if !self.warned {
            self.warned = true;
            out.error(format!(
                "Warning: jobs are not recorded: {why}. The command itself runs on."
            ));
        }
    }

    /// Says what a failure lost: a full disk once per process for its directory (the
    /// settings file, which lives there too, may have said it already), anything else once
    /// per session.
    fn report(&mut self, out: &Output, what: &str, f: &Failure) {
        if !f.full {
            if !self.warned {
                self.warned = true;
                out.error(format!(
                    "Warning: {what}: {}. The command itself runs on.",
                    f.why
                ));
            }
            return;
        }
        let dir = self.store_dir();
        if !crate::config::full::first_report(&dir) {
            return;
        }
        self.warned = true;
        let settings_too = if self.home.as_deref() == Some(dir.as_path()) {
            " or settings change"
        } else {
            ""
        };
        out.error(format!(
            "Warning: the disk of {} is full: {what}, and no job{settings_too} is saved there \
             while it stays full ({}). The command itself runs on.",
            dir.display(),
            f.why
        ));
    }

    /// Stops recording after a failed write, with the one warning.
    fn give_up(&mut self, out: &Output, why: String) {
        self.warn(out, &why);
        self.state = State::Off(Failure { why, full: false });
    }

    /// Where the transaction counter and metrics send samples (see [`SeriesSink`]).
    pub fn series(&self) -> SeriesSink {
        self.series.clone()
    }

    /// The job being recorded, if one is.
    pub fn running(&self) -> Option<&Running> {
        self.running.as_ref()
    }

    /// Starts a job: records it as RUNNING and copies every output line into it until
    /// [`finish`](Self::finish). Returns its id, made even when nothing can be recorded. A job
    /// is recorded only when the disk has room for its end (a [`Reserve`]): one that could
    /// not be ended would be left RUNNING, and listed ABORTED.
    pub fn begin(&mut self, spec: Spec, db: Database, settings: &Settings, out: &Output) -> String {
        let id = new_id();
        let mut running = Running {
            id: id.clone(),
            kind: spec.kind,
            db,
            settings: settings.clone(),
            writer: None,
            reserve: None,
            cpu: None,
        };
        let origin = Origin {
            hostname: super::system::hostname(),
            pid: std::process::id(),
            pid_started: super::system::own_start(),
        };
        // The room first: on a full disk SQLite's own files fail with less telling errors.
        let started = self.room().and_then(|reserve| {
            let store = self.opened()?;
            store.insert_job(&id, &spec, &origin, now_ms())?;
            Ok((store.location().clone(), reserve))
        });
        match started {
            Ok((at, reserve)) => match Store::connect(&at) {
                Ok(writer_store) => {
                    if let Some(dir) = at.file().and_then(Path::parent) {
                        crate::config::full::cleared(dir);
                    }
                    let (tx, rx) = mpsc::channel();
                    let job = id.clone();
                    let spawned = std::thread::Builder::new()
                        .name("hammer-jobs".into())
                        .spawn(move || write_loop(&writer_store, &job, &rx));
                    match spawned {
                        Ok(handle) => {
                            let tap = Tap { tx: tx.clone() };
                            out.set_tee(Some(Arc::new(tap.clone())));
                            self.series.set(Some(tap));
                            running.writer = Some((tx, handle));
                            running.reserve = reserve;
                            running.cpu = super::cpu::Span::begin(&super::cpu::listening(
                                &Destination::of(settings, db),
                            ));
                        }
                        Err(e) => self.give_up(out, format!("cannot start the jobs writer: {e}")),
                    }
                }
                Err(e) => self.give_up(out, e.to_string()),
            },
            Err(f) => {
                // A full disk may have room again for a later job; anything else stays.
                let what = if f.full {
                    "this job is not recorded"
                } else {
                    "jobs are not recorded"
                };
                self.report(out, what, &f)
            }
        }
        self.running = Some(running);
        id
    }

    /// Ends the running job: the last lines and samples are written, then its status and
    /// what it measured, in one transaction. Nothing when no job runs. When the disk filled
    /// during the job, its reserve makes room for the end, and one warning says what was
    /// lost (output lines, or in the worst case the end itself).
    pub fn finish(&mut self, out: &Output, end: &End) {
        let Some(mut running) = self.running.take() else {
            return;
        };
        out.set_tee(None);
        self.series.set(None);
        let Some((tx, handle)) = running.writer.take() else {
            return;
        };
        let _ = tx.send(Msg::Stop);
        drop(tx);
        let lost = handle.join().unwrap_or_else(|_| {
            Some(Failure {
                why: "the jobs writer panicked".into(),
                full: false,
            })
        });
        let mut reserve = running.reserve.take();
        let end = End {
            cpu: running.cpu.take().and_then(super::cpu::Span::end),
            ..end.clone()
        };
        let id = running.id;
        let mut ended = self.end(&id, &end);
        if matches!(&ended, Err(f) if f.full) {
            if let Some(r) = reserve.take() {
                r.release();
                ended = self.end(&id, &end);
            }
        }
        drop(reserve);
        match (ended, lost) {
            (Ok(()), None) => {}
            (Ok(()), Some(f)) => self.report(
                out,
                &format!("job {id} is recorded with its end but without all its output"),
                &f,
            ),
            (Err(f), _) => {
                // Left RUNNING, the job reads as ABORTED once this process ends: say so.
                let what =
                    format!("job {id} could not be recorded to its end (jobs lists it as ABORTED)");
                self.report(out, &what, &f);
                if !f.full {
                    self.state = State::Off(f);
                }
            }
        }
    }

    /// A [`Reserve`] beside the jobs database, when recording is on and the database is a
    /// file (a server keeps its own disk).
    fn room(&self) -> Result<Option<Reserve>, Failure> {
        let path = match (&self.state, &self.at) {
            (State::Off(f), _) => return Err(f.clone()),
            (_, Some(Location::File(path))) => path,
            (_, Some(Location::Server(_))) => return Ok(None),
            (_, None) => {
                return Err(Failure {
                    why: "there is no jobs database".into(),
                    full: false,
                })
            }
        };
        Reserve::make(path).map(Some).map_err(|e| Failure {
            full: crate::config::full::is_full(&e),
            why: format!(
                "no room for a job's end ({} KB kept free beside {} while it runs): {e}",
                RESERVE_BYTES / 1024,
                path.display()
            ),
        })
    }

    fn end(&mut self, id: &str, end: &End) -> Result<(), Failure> {
        let store = self.opened()?;
        Ok(store.finish(id, end, now_ms())?)
    }
}

impl Drop for Recorder {
    /// A session that ends with a job still running (an engine dropped mid-command) leaves
    /// no writer thread behind.
    fn drop(&mut self) {
        if let Some((tx, handle)) = self.running.as_mut().and_then(|r| r.writer.take()) {
            let _ = tx.send(Msg::Stop);
            let _ = handle.join();
        }
    }
}

/// What was collected between two writes.
#[derive(Default)]
struct Batch {
    lines: Vec<Line>,
    tcount: Vec<TcountPoint>,
    metrics: Vec<MetricPoint>,
}

impl Batch {
    /// Adds a message; true when it asks the writer to stop.
    fn add(&mut self, m: Msg) -> bool {
        match m {
            Msg::Line(l) => self.lines.push(l),
            Msg::Tcount(t) => self.tcount.push(t),
            Msg::Metric(m) => self.metrics.push(m),
            Msg::Stop => return true,
        }
        false
    }

    fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.tcount.is_empty() && self.metrics.is_empty()
    }
}

/// The writer thread: gathers what arrives for up to [`FLUSH_EVERY`], writes it in one
/// transaction, until told to stop. Returns why writing failed, if it did (it writes no more
/// after that, but takes what arrives until the end).
fn write_loop(store: &Store, job: &str, rx: &Receiver<Msg>) -> Option<Failure> {
    let mut failure = None;
    loop {
        let Ok(first) = rx.recv() else {
            return failure;
        };
        let mut batch = Batch::default();
        let mut stop = batch.add(first);
        let deadline = Instant::now() + FLUSH_EVERY;
        while !stop {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(m) => stop = batch.add(m),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => stop = true,
            }
        }
        if failure.is_none() && !batch.is_empty() {
            if let Err(e) = store.append(job, &batch.lines, &batch.tcount, &batch.metrics) {
                failure = Some(e.into());
            }
        }
        if stop {
            return failure;
        }
    }
}

// ---- what a job is and how it ended, from the session's values ---------------------------

/// The settings in force, passwords masked: `{"generic": {section: {key: value}}, "<prefix>": ...}`.
pub fn snapshot(settings: &Settings, db: Database) -> serde_json::Value {
    let dict = |d: &crate::config::Dict| {
        let mut sections = serde_json::Map::new();
        for section in d.sections() {
            let keys: serde_json::Map<String, serde_json::Value> = d
                .specs()
                .iter()
                .filter(|s| s.section == section)
                .map(|s| (s.key.clone(), serde_json::Value::String(d.shown(&s.key))))
                .collect();
            sections.insert(section.to_string(), keys.into());
        }
        serde_json::Value::Object(sections)
    };
    let mut root = serde_json::Map::new();
    root.insert("generic".into(), dict(settings.dict(Target::Generic)));
    root.insert(db.prefix().into(), dict(settings.db(db)));
    serde_json::Value::Object(root)
}

impl Spec {
    /// `buildschema`, `checkschema`, `deleteschema` of `workload` on the current database.
    /// `sizes`: the build's loaders and, for a workload sized in warehouses, the warehouses.
    pub fn schema(
        kind: Kind,
        settings: &Settings,
        workload: &str,
        (vus, warehouses): (u32, Option<u32>),
    ) -> Spec {
        let db = settings.current();
        Spec {
            kind,
            profile: Profile {
                db: db.name().into(),
                workload: workload.into(),
                mode: String::new(),
                vus: Some(vus),
                warehouses,
            },
            settings: snapshot(settings, db),
        }
    }

    /// `datagenrun` of `workload`'s data.
    /// `warehouses`: the warehouses generated, for a workload sized in them (TPROC-C's
    /// `gen_count_ware`; `None` for TPROC-H, sized by `gen_scale_fact`).
    pub fn datagen(settings: &Settings, workload: &str, warehouses: Option<u32>) -> Spec {
        let db = settings.current();
        let g = &settings.generic;
        Spec {
            kind: Kind::Datagen,
            profile: Profile {
                db: db.name().into(),
                workload: workload.into(),
                mode: String::new(),
                vus: Some(g.get_i64("gen_num_vu") as u32),
                warehouses,
            },
            settings: snapshot(settings, db),
        }
    }

    /// `vurun` of a loaded script, as the session profiles it.
    pub fn run(profile: Profile, settings: &Settings, db: Database) -> Spec {
        Spec {
            kind: Kind::Run,
            profile,
            settings: snapshot(settings, db),
        }
    }

    /// `vurun` of a user's script.
    pub fn custom(path: &Path, settings: &Settings, vus: u32) -> Spec {
        let db = settings.current();
        Spec {
            kind: Kind::Run,
            profile: Profile {
                db: db.name().into(),
                workload: format!("custom {}", path.display()),
                mode: "custom".into(),
                vus: Some(vus),
                warehouses: None,
            },
            settings: snapshot(settings, db),
        }
    }
}

/// A run as its job records it: the figures, and per unit type its timing with the HDR
/// histogram serialized. The session fills it from the workload's result.
#[derive(Debug, Clone)]
pub struct RunRecord {
    pub figures: RunFigures,
    pub timings: Vec<(Timing, Vec<u8>)>,
    /// The live view's intervals, when the run had one.
    pub live: Option<super::live::Live>,
    /// A TPROC-H run's figures, query sets and refresh functions.
    pub tpch: Option<super::TpchRecord>,
    /// Its part of a run several drivers shared, when it was one.
    pub run: Option<super::runs::RunPart>,
}

/// Counts of one unit type, as a run kept them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counts {
    pub committed: u64,
    pub rolled_back: u64,
    pub retried: u64,
    pub failed: u64,
}

/// One unit type's timing as stored: its counts, the latency percentiles of `latency` (in
/// microseconds) and the histogram serialized (empty when it does not serialize).
pub fn timing(name: &str, counts: Counts, latency: &Histogram<u64>) -> (Timing, Vec<u8>) {
    use hdrhistogram::serialization::{Serializer, V2Serializer};
    let h = latency;
    let ms = |us: u64| us as f64 / 1000.0;
    let timing = Timing {
        name: name.to_string(),
        committed: counts.committed,
        rolled_back: counts.rolled_back,
        retried: counts.retried,
        failed: counts.failed,
        mean_ms: if h.is_empty() { 0.0 } else { h.mean() / 1000.0 },
        p50_ms: ms(h.value_at_quantile(0.50)),
        p95_ms: ms(h.value_at_quantile(0.95)),
        p99_ms: ms(h.value_at_quantile(0.99)),
        max_ms: ms(h.max()),
    };
    let mut bytes = Vec::new();
    // A histogram that does not serialize is stored without its buckets.
    if V2Serializer::new().serialize(h, &mut bytes).is_err() {
        bytes.clear();
    }
    (timing, bytes)
}

/// How a command that ran as a job ended: its status, why, and what it measured.
pub fn end_of(outcome: &Result<Dynamic, Error>, interrupted: bool, run: Option<&RunRecord>) -> End {
    let mut end = End::new(Status::Success);
    match outcome {
        Err(e) => {
            end.status = if interrupted || matches!(e, Error::Interrupted) {
                Status::Stopped
            } else {
                Status::Failed
            };
            end.note = Some(e.to_string());
        }
        Ok(v) => {
            let value = super::value::to_json(v);
            if value.get("ok") == Some(&serde_json::Value::Bool(false)) {
                end.status = Status::Failed;
                end.note = Some(failed_checks(&value));
            } else if interrupted {
                // The command did its whole work (a build finishes its keys once its data
                // is in): a success, which says the Ctrl-C came too late to stop it. A run
                // the Ctrl-C cut short says so in its record below.
                end.note = Some("complete: Ctrl-C came too late to stop it".into());
            }
            if !value.is_null() {
                end.returned = Some(value);
            }
        }
    }
    if let Some(RunRecord {
        figures,
        timings,
        live,
        tpch,
        run: part,
    }) = run
    {
        let r = figures;
        if r.failed_vus > 0 {
            end.status = Status::Failed;
            let failed = vus_failed(r.failed_vus);
            // Why the run ended comes first: "the server did not come back within 60 s".
            end.note = Some(match &r.stopped_early {
                Some(why) => format!("{why}; {failed}"),
                None => failed,
            });
        } else if let Some(why) = &r.stopped_early {
            end.status = if interrupted {
                Status::Stopped
            } else {
                Status::Failed
            };
            end.note = Some(why.clone());
        }
        end.figures = Some(figures.clone());
        end.timings = timings.clone();
        end.live = live.clone();
        end.tpch = tpch.clone();
        end.run = part.clone();
    }
    end
}

/// "1 virtual user failed", "3 virtual users failed": the reason a run with failed virtual
/// users gives.
pub fn vus_failed(n: u32) -> String {
    match n {
        1 => "1 virtual user failed".to_string(),
        n => format!("{n} virtual users failed"),
    }
}

/// Why a command whose value says `ok: false` failed: for `checkschema`, how many checks of
/// how many and the first few that failed, so the message alone says what to look at.
fn failed_checks(value: &serde_json::Value) -> String {
    /// More than this many failed checks are counted, not listed.
    const LISTED: usize = 3;
    let Some(n) = value.get("failed").and_then(|f| f.as_i64()) else {
        return "the command reported a failure".into();
    };
    let checks = value.get("checks").and_then(|c| c.as_array());
    let mut note = match checks {
        Some(all) => format!("{n} of {} checks failed", all.len()),
        None => format!("{n} checks failed"),
    };
    let failed: Vec<String> = checks
        .into_iter()
        .flatten()
        .filter(|c| c.get("ok") == Some(&serde_json::Value::Bool(false)))
        .map(|c| {
            let what = c.get("what").and_then(|w| w.as_str()).unwrap_or("a check");
            match c.get("detail").and_then(|d| d.as_str()) {
                Some(d) if !d.is_empty() => format!("{what} ({d})"),
                _ => what.to_string(),
            }
        })
        .collect();
    if !failed.is_empty() {
        note.push_str(": ");
        note.push_str(
            &failed
                .iter()
                .take(LISTED)
                .cloned()
                .collect::<Vec<_>>()
                .join("; "),
        );
        if failed.len() > LISTED {
            note.push_str(&format!("; and {} more", failed.len() - LISTED));
        }
    }
    note
}

/// A command's value with its job id added: maps get `jobid`; other values are kept.
pub fn with_jobid(outcome: Result<Dynamic, Error>, id: &str) -> Result<Dynamic, Error> {
    outcome.map(|v| match v.clone().try_cast::<rhai::Map>() {
        Some(mut m) => {
            m.insert("jobid".into(), id.into());
            m.into()
        }
        None => v,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_mask_passwords() {
        let s = Settings::defaults();
        let v = snapshot(&s, Database::Pg);
        assert_eq!(v["pg"]["tpcc"]["pg_user"], "tpcc");
        assert_ne!(v["pg"]["tpcc"]["pg_pass"], "tpcc");
        assert_eq!(v["generic"]["commandline"]["jobsoutput"], "JSON");
        assert!(v.get("maria").is_none());
    }

    #[test]
    fn ends_follow_the_outcome() {
        let ok = end_of(&Ok(Dynamic::UNIT), false, None);
        assert_eq!(ok.status, Status::Success);
        // Work done whole though Ctrl-C came (a build's keys made): a success that says so.
        let late = end_of(&Ok(Dynamic::UNIT), true, None);
        assert_eq!(
            (late.status, late.note.as_deref()),
            (
                Status::Success,
                Some("complete: Ctrl-C came too late to stop it")
            )
        );
        let failed = end_of(&Err(Error::StoppedConnecting), false, None);
        assert_eq!(
            (failed.status, failed.note.as_deref()),
            (Status::Failed, Some("stopped while connecting"))
        );
        let stopped = end_of(&Err(Error::Interrupted), false, None);
        assert_eq!(stopped.status, Status::Stopped);
        let mut m = rhai::Map::new();
        m.insert("ok".into(), false.into());
        m.insert("failed".into(), Dynamic::from(2_i64));
        let check = end_of(&Ok(m.clone().into()), false, None);
        assert_eq!(
            (check.status, check.note.as_deref()),
            (Status::Failed, Some("2 checks failed"))
        );
        assert_eq!(check.returned.unwrap()["failed"], 2);
        // With the checks: how many of how many, and the first few that failed, by name.
        let check = |what: &str, ok: bool, detail: &str| {
            let mut c = rhai::Map::new();
            c.insert("what".into(), what.into());
            c.insert("ok".into(), ok.into());
            c.insert("detail".into(), detail.into());
            Dynamic::from(c)
        };
        let mut checks: rhai::Array = vec![check("tables", true, "")];
        for i in 1..=5 {
            checks.push(check(
                &format!("consistency {i}"),
                false,
                if i == 1 { "district 3" } else { "" },
            ));
        }
        m.insert("failed".into(), Dynamic::from(5_i64));
        m.insert("checks".into(), checks.into());
        let end = end_of(&Ok(m.into()), false, None);
        assert_eq!(
            end.note.as_deref(),
            Some("5 of 6 checks failed: consistency 1 (district 3); consistency 2; consistency 3; and 2 more")
        );
    }

    #[test]
    fn maps_get_the_job_id() {
        let v = with_jobid(Ok(rhai::Map::new().into()), "ABC").unwrap();
        assert_eq!(v.cast::<rhai::Map>()["jobid"].to_string(), "ABC");
        let v = with_jobid(Ok(Dynamic::from(3_i64)), "ABC").unwrap();
        assert_eq!(v.as_int(), Ok(3));
    }

    #[test]
    fn a_job_records_lines_and_series_then_its_end() {
        let home = tempfile::tempdir().unwrap();
        let settings = Settings::defaults();
        let mut rec = Recorder::new(&settings, Some(home.path()));
        let out = Output::capture();
        let id = rec.begin(
            Spec::schema(Kind::Check, &settings, "TPROC-C", (1, Some(1))),
            Database::Pg,
            &settings,
            &out,
        );
        out.line("Vuser 1:PASS something\nsecond line");
        // Room for the job's end is kept while it runs, and given back at its end.
        let reserves = || {
            std::fs::read_dir(home.path())
                .unwrap()
                .filter_map(|e| e.ok())
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with("jobs.db-reserve-")
                })
                .map(|e| e.metadata().unwrap().len())
                .collect::<Vec<u64>>()
        };
        assert_eq!(reserves(), [RESERVE_BYTES as u64]);
        let sink = rec.series();
        sink.record_tcount(SystemTime::now(), "tpm", 600.0, Some(200.0));
        sink.record_tcount(SystemTime::now(), "qph", 36_000.0, None);
        sink.record_metric(SystemTime::now(), 10.0, 5.0, 0.0, 85.0);
        rec.finish(&out, &End::new(Status::Success));
        assert!(reserves().is_empty());
        // After the job: nothing more reaches it.
        out.line("not part of the job");
        sink.record_tcount(SystemTime::now(), "qph", 1.0, None);
        let store = rec.store().unwrap();
        let lines: Vec<String> = store
            .output(&id, None)
            .unwrap()
            .into_iter()
            .map(|l| l.line)
            .collect();
        assert_eq!(lines, ["Vuser 1:PASS something", "second line"]);
        let d = store.detail(&id).unwrap().unwrap();
        assert_eq!(d.summary.status, Status::Success);
        let samples: Vec<(&str, f64)> = d
            .tcount
            .iter()
            .map(|t| (t.metric.as_str(), t.value))
            .collect();
        assert_eq!(samples, [("tpm", 600.0), ("qph", 36_000.0)]);
        assert_eq!(d.metrics.len(), 1);
        assert_eq!(store.output(&id, Some(1)).unwrap().len(), 1);
    }

    #[test]
    fn an_unusable_database_warns_once_and_jobs_still_get_ids() {
        let home = tempfile::tempdir().unwrap();
        // A directory where the file should be: SQLite cannot open it.
        std::fs::create_dir(home.path().join("jobs.db")).unwrap();
        let settings = Settings::defaults();
        let mut rec = Recorder::new(&settings, Some(home.path()));
        let out = Output::capture();
        for _ in 0..2 {
            let id = rec.begin(
                Spec::datagen(&settings, "TPROC-C", Some(1)),
                Database::Pg,
                &settings,
                &out,
            );
            assert_eq!(id.len(), 24);
            rec.finish(&out, &End::new(Status::Success));
        }
        let lines = out.take_captured();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("Warning: jobs are not recorded: jobs database"),
            "{lines:?}"
        );
        assert!(rec.store().is_err());
    }

    /// A jobs server that is not there: the command runs on, one warning names the server
    /// (never the password), and jobs still get ids; `jobs` says why it cannot read.
    #[test]
    fn a_jobs_server_that_is_down_warns_once_without_the_password() {
        let home = tempfile::tempdir().unwrap();
        let mut settings = Settings::defaults();
        settings
            .set(
                Target::Generic,
                "commandline",
                "jobs_store",
                "postgresql://bench:Down9pw@127.0.0.1:1/jobs",
            )
            .unwrap();
        let mut rec = Recorder::new(&settings, Some(home.path()));
        let out = Output::capture();
        for _ in 0..2 {
            let id = rec.begin(
                Spec::schema(Kind::Check, &settings, "TPROC-C", (1, Some(1))),
                Database::Pg,
                &settings,
                &out,
            );
            assert_eq!(id.len(), 24);
            rec.finish(&out, &End::new(Status::Success));
        }
        let lines = out.take_captured();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with(
                "Warning: jobs are not recorded: jobs database postgresql://bench@127.0.0.1:1/jobs: "
            ),
            "{lines:?}"
        );
        assert!(!lines[0].contains("Down9pw"), "{lines:?}");
        assert!(rec.store().is_err());
        // Nothing was made beside the settings: no file, no reserve.
        assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0);
    }
}
