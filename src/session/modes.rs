//! switchmode, distributescript and steprun: HammerDB's Primary and Replica modes, linked
//! through the jobs database (see `crate::modes`). A Replica follows its Primary inside
//! `switchmode replica`, running what it posts until it closes down or Ctrl-C.

use std::time::{Duration, Instant};

use rhai::Dynamic;

use super::Session;
use crate::config::Target;
use crate::error::{Error, Result};
use crate::jobs::store::ModeCommand;
use crate::modes::{self, Extra, Mode, PrimaryState, SharedPlace, Snapshot};

fn mode_error(message: impl Into<String>) -> Error {
    Error::Mode {
        message: message.into(),
    }
}

impl Session {
    /// The jobs database the modes go through.
    fn mode_store(&mut self) -> Result<&crate::jobs::store::Store> {
        self.jobs.store().map_err(|why| {
            mode_error(format!(
                "Error: Primary and Replica mode need the jobs database, which is off: {why}"
            ))
        })
    }

    pub fn switchmode(&mut self, args: &[String]) -> Result<Dynamic> {
        let Some(wanted) = args.first() else {
            self.out
                .line(format!("Mode currently set to {}", self.mode.name()));
            return Ok(Dynamic::UNIT);
        };
        let wanted = match wanted.to_lowercase().as_str() {
            "local" => "Local",
            "primary" => "Primary",
            "replica" => "Replica",
            _ => {
                return Err(mode_error(
                    "Error:Mode to switch to must be one of Local, Primary or Replica",
                ))
            }
        };
        if wanted == self.mode.name() {
            self.out.line(format!("Already in {wanted} mode"));
            return Ok(Dynamic::UNIT);
        }
        if self.vus_exist() && wanted != "Local" {
            return Err(Error::VusExist {
                doing: "switching mode",
            });
        }
        self.close_primary();
        match wanted {
            "Local" => Ok(Dynamic::UNIT),
            "Primary" => {
                let host = crate::jobs::system::hostname();
                let role = modes::open_primary(self.mode_store()?, &host)?;
                let shown = self.mode_store()?.shown();
                self.out.line(format!(
                    "Setting Primary Mode at id : {}, hostname : {host}",
                    role.id
                ));
                self.out.line(format!(
                    "Primary Mode active at id : {}, hostname : {host}",
                    role.id
                ));
                self.out.line(format!(
                    "(Replicas join with switchmode replica {} {host}, through the jobs database \
                     {shown})",
                    role.id
                ));
                self.mode = Mode::Primary(role);
                Ok(Dynamic::UNIT)
            }
            _ => {
                let g = &self.settings.generic;
                let id = match args.get(1) {
                    Some(v) => v.trim().parse::<u32>().map_err(|_| {
                        mode_error(format!(
                            "Error: a Primary's id is a whole number, as its switchmode primary \
                             printed it: not {v:?}"
                        ))
                    })?,
                    None => g.get_u32("id"),
                };
                let host = args
                    .get(2)
                    .cloned()
                    .unwrap_or_else(|| g.get("hostname").to_string());
                self.out.line(format!(
                    "Setting Replica Mode at id : {id}, hostname : {host}"
                ));
                let me = crate::jobs::system::hostname();
                let role = modes::join_replica(self.mode_store()?, id, &host, &me)?;
                self.out.line(format!(
                    "Replica connecting to {} {id} : Connection succeeded",
                    role.primary_host
                ));
                self.out.line(format!(
                    "Replica {} follows the Primary (Ctrl-C stops following); the settings it \
                     sends hold for this session only",
                    role.member
                ));
                self.mode = Mode::Replica(role);
                let followed = self.follow();
                if let Mode::Replica(role) = std::mem::take(&mut self.mode) {
                    if let Ok(store) = self.jobs.store() {
                        let _ = store.mode_leave(role.id, role.member);
                    }
                }
                self.out.line("Setting Local Mode");
                followed.map(|()| Dynamic::UNIT)
            }
        }
    }

    /// Leaves Primary mode, if in it: its Replicas see it close and return to Local mode.
    pub(super) fn close_primary(&mut self) {
        if let Mode::Primary(role) = std::mem::take(&mut self.mode) {
            self.out.line("Setting Local Mode : Closing Primary");
            let followers = self
                .jobs
                .store()
                .ok()
                .and_then(|s| modes::live_replicas(s, role.id).ok())
                .map_or(0, |r| r.len());
            if let Ok(store) = self.jobs.store() {
                let _ = store.mode_leave(role.id, 0);
            }
            self.out.line(format!(
                "Closing Primary connection ({followers} Replica(s) return to Local mode)"
            ));
        }
    }

    /// A Replica's loop: runs the Primary's commands in order until it closes down, goes
    /// silent, or Ctrl-C.
    fn follow(&mut self) -> Result<()> {
        let (id, member) = match &self.mode {
            Mode::Replica(r) => (r.id, r.member),
            _ => return Ok(()),
        };
        let mut last = 0;
        let mut withheld_said = false;
        loop {
            if self.interrupt.is_set() {
                self.out.line("Replica disconnected");
                return Err(Error::Interrupted);
            }
            let store = self.mode_store()?;
            let commands = store
                .mode_commands(id, member, last)
                .map_err(|e| mode_error(format!("Error: {e}")))?;
            let state = modes::primary_state(store, id)?;
            for c in commands {
                last = c.seq;
                if let Err(e) = self.follow_one(&c, &mut withheld_said) {
                    if matches!(e, Error::Interrupted) {
                        self.out.line("Replica disconnected");
                        return Err(e);
                    }
                    self.out.error(e.to_string());
                }
            }
            match state {
                PrimaryState::Alive(_) => {}
                PrimaryState::Left | PrimaryState::Missing => {
                    // Commands posted just before it closed are run first.
                    let rest = self
                        .mode_store()?
                        .mode_commands(id, member, last)
                        .unwrap_or_default();
                    if rest.is_empty() {
                        self.out.line("Primary has closed down");
                        return Ok(());
                    }
                    continue;
                }
                PrimaryState::Silent(ms) => {
                    self.out.error(format!(
                        "Primary id {id} has been silent for {} s: its hammer is gone; Replica \
                         mode ends",
                        ms / 1000
                    ));
                    return Ok(());
                }
            }
            let until = Instant::now() + modes::POLL;
            while Instant::now() < until && !self.interrupt.is_set() {
                std::thread::sleep(Duration::from_millis(25));
            }
        }
    }

    /// Runs one command a Primary posted.
    fn follow_one(&mut self, c: &ModeCommand, withheld_said: &mut bool) -> Result<()> {
        let args: Vec<String> = serde_json::from_str(&c.args).unwrap_or_default();
        let extra: Extra = c
            .extra
            .as_deref()
            .and_then(|e| serde_json::from_str(e).ok())
            .unwrap_or_default();
        let shown = if c.command == "settings" || c.command == "customscript" {
            c.command.clone()
        } else {
            std::iter::once(c.command.clone())
                .chain(args.iter().cloned())
                .collect::<Vec<_>>()
                .join(" ")
        };
        self.out.line(format!("Primary sent: {shown}"));
        match c.command.as_str() {
            "diset" if args.get(2).is_some_and(|v| v == modes::WITHHELD) => {
                if !*withheld_said {
                    *withheld_said = true;
                    self.out.line(format!(
                        "{} not set here: passwords do not travel through the jobs database; \
                         this Replica uses its own",
                        args[1]
                    ));
                }
                Ok(())
            }
            "settings" => {
                let Some(s) = extra.settings else {
                    return Ok(());
                };
                self.take_snapshot(&s)
            }
            "customscript" => {
                let Some((name, text)) = extra.script else {
                    return Ok(());
                };
                let safe: String = name
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '.' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                let path = std::env::temp_dir()
                    .join(format!("hammer-replica-{}-{safe}", std::process::id()));
                std::fs::write(&path, text).map_err(|e| {
                    mode_error(format!(
                        "Error: cannot write the Primary's script to {}: {e}",
                        path.display()
                    ))
                })?;
                self.run("customscript", &[path.display().to_string()])
                    .map(|_| ())
            }
            "vurun" => {
                self.shared_place = extra.shared;
                let r = self.run("vurun", &args);
                self.shared_place = None;
                r.map(|_| ())
            }
            name => self.run(name, &args).map(|_| ()),
        }
    }

    /// A Primary's settings as `steprun` sends them: its database, workload and keys
    /// (no passwords).
    fn take_snapshot(&mut self, s: &Snapshot) -> Result<()> {
        let _ = self.run("dbset", &["db".into(), s.db.clone()])?;
        let _ = self.run("dbset", &["bm".into(), s.bm.clone()])?;
        let db = self.current();
        for (section, key, value) in &s.keys {
            self.settings.set(Target::Db(db), section, key, value)?;
        }
        for (section, key, value) in &s.generic {
            self.settings.set(Target::Generic, section, key, value)?;
        }
        self.vu.script = None;
        Ok(())
    }

    /// After a command ran on a Primary: the same for its Replicas, when it is one of
    /// HammerDB's forwarded commands.
    pub(super) fn forward(&mut self, name: &str, args: &[String]) {
        let Some(id) = self.mode.primary().map(|r| r.id) else {
            return;
        };
        if !modes::FORWARDED.contains(&name) {
            return;
        }
        let posted = modes::posted_args(&self.settings, name, args);
        let json = serde_json::to_string(&posted).unwrap_or_else(|_| "[]".into());
        let failed = match self.jobs.store() {
            Ok(store) => store
                .mode_post(id, 0, name, &json, None)
                .err()
                .map(|e| e.to_string()),
            Err(why) => Some(why),
        };
        if let Some(why) = failed {
            self.out.error(format!(
                "Warning: {name} was not sent to the Replicas: {why}"
            ));
        }
    }

    fn post(
        &mut self,
        id: u32,
        target: u32,
        name: &str,
        args: &[String],
        extra: &Extra,
    ) -> Result<()> {
        let json = serde_json::to_string(args).unwrap_or_else(|_| "[]".into());
        let extra = serde_json::to_string(extra).ok();
        self.mode_store()?
            .mode_post(id, target, name, &json, extra.as_deref())
            .map(|_| ())
            .map_err(|e| mode_error(format!("Error: {name} was not sent to the Replicas: {e}")))
    }

    /// Whether a `vurun` now is one hammer can share among drivers: a timed TPROC-C run of
    /// the loaded (or default) script.
    fn shareable(&self) -> bool {
        let db = self.current();
        let tpcc = crate::workloads::of(&self.settings)
            .is_ok_and(|b| b.name() == crate::benchmarks::TPROC_C.name);
        let timed = self.settings.db(db).get(&db.key("driver")) == "timed";
        tpcc && timed && self.vu.custom.is_none()
    }

    /// `vurun` on a Primary: its Replicas run too. A timed TPROC-C run is one shared run with
    /// one merged result; anything else runs on each on its own, as in HammerDB.
    pub(super) fn primary_vurun(&mut self, args: &[String]) -> Result<Dynamic> {
        let Some(id) = self.mode.primary().map(|r| r.id) else {
            return self.vurun(args);
        };
        let replicas = modes::live_replicas(self.mode_store()?, id)?;
        if replicas.is_empty() {
            self.out
                .line("Primary has no Replicas: the run is the Primary's alone");
            return self.vurun(args);
        }
        let list = replicas
            .iter()
            .map(|r| format!("{} ({}, pid {})", r.member, r.hostname, r.pid))
            .collect::<Vec<_>>()
            .join(", ");
        if !self.shareable() {
            self.post(id, 0, "vurun", args, &Extra::default())?;
            self.out.line(format!(
                "Primary sent vurun to its Replicas {list}: each runs its own virtual users and \
                 reports its own figures (one merged result needs a timed TPROC-C run)"
            ));
            return self.vurun(args);
        }
        let places = replicas
            .iter()
            .enumerate()
            .map(|(i, r)| (r.member, 0.0, false, i as u32 + 2))
            .collect::<Vec<_>>();
        self.shared_vurun(id, args, &places, &list)
    }

    /// Runs `vurun` here as driver 1 of a new shared run, with each Replica `(member,
    /// delay minutes, step, driver number)` its own driver.
    fn shared_vurun(
        &mut self,
        id: u32,
        args: &[String],
        places: &[(u32, f64, bool, u32)],
        list: &str,
    ) -> Result<Dynamic> {
        let n = match self.mode.primary_mut() {
            Some(role) => {
                role.runs += 1;
                role.runs
            }
            None => 1,
        };
        let stamp = crate::drivers::board::epoch_ms() / 1000;
        let run = format!("primary-{id}-{n}-{stamp}");
        let drivers = places.len() as u32 + 1;
        for &(member, delay_minutes, step, number) in places {
            let extra = Extra {
                shared: Some(SharedPlace {
                    run: run.clone(),
                    drivers,
                    number,
                    delay_minutes,
                    step,
                }),
                ..Extra::default()
            };
            self.post(id, member, "vurun", args, &extra)?;
        }
        self.out.line(format!(
            "Primary and its Replicas {list} share run {run}: the Primary is driver 1, the \
             Replicas drivers 2 to {drivers}, and each prints the one merged result"
        ));
        self.shared_place = Some(SharedPlace {
            run,
            drivers,
            number: 1,
            delay_minutes: 0.0,
            step: false,
        });
        let r = self.vurun(args);
        self.shared_place = None;
        r
    }

    pub fn distributescript(&mut self, _args: &[String]) -> Result<Dynamic> {
        let Some(id) = self.mode.primary().map(|r| r.id) else {
            return Err(mode_error(
                "Error: Cannot distribute script if not in Primary mode",
            ));
        };
        let replicas = modes::live_replicas(self.mode_store()?, id)?;
        if replicas.is_empty() {
            return Err(mode_error(
                "Error: Primary has no Replicas to distribute to",
            ));
        }
        let extra = match &self.vu.custom {
            Some(custom) => {
                let path = custom.path().to_path_buf();
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    mode_error(format!("Error: cannot read {}: {e}", path.display()))
                })?;
                let name = path
                    .file_name()
                    .map_or("script.rhai".into(), |n| n.to_string_lossy().into_owned());
                Some(Extra {
                    script: Some((name, text)),
                    ..Extra::default()
                })
            }
            None => None,
        };
        for r in &replicas {
            self.out
                .line(format!("Distributing to {} ({}) ...", r.member, r.hostname));
        }
        match extra {
            Some(extra) => self.post(id, 0, "customscript", &[], &extra)?,
            None => self.post(id, 0, "loadscript", &[], &Extra::default())?,
        }
        self.out.line("Primary Distribution Succeeded");
        Ok(Dynamic::UNIT)
    }
}

/// A Replica process `steprun` started, with its log.
struct Child {
    process: std::process::Child,
    log: std::path::PathBuf,
}

/// The last lines of a log, to say why a Replica process ended.
fn tail(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(5).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
}

impl Session {
    /// HammerDB's step workload: the Primary runs its rampup and duration; each Replica, a
    /// hammer process started here, joins some minutes later for its own duration and
    /// virtual users (see `crate::modes::steps`). One shared run: every process measures,
    /// the Primary's window is the run's, and the merged result says where each step ran.
    pub fn steprun(&mut self, _args: &[String]) -> Result<Dynamic> {
        let bm = crate::workloads::of(&self.settings)?;
        if bm.name() != crate::benchmarks::TPROC_C.name {
            return Err(mode_error(format!(
                "Error: Step Workload does not support {}",
                bm.name()
            )));
        }
        if self.vus_exist() {
            return Err(Error::VusExist {
                doing: "starting a step workload",
            });
        }
        let db = self.current();
        let driver_key = db.key("driver");
        if self.settings.db(db).get(&driver_key) != "timed" {
            return Err(mode_error(format!(
                "Error: a step workload is a timed run: diset tpcc {driver_key} timed"
            )));
        }
        let minutes = |d: Duration| d.as_secs_f64() / 60.0;
        let dict = self.settings.db(db);
        let rampup = minutes(dict.get_minutes(&db.key("rampup")));
        let duration = minutes(dict.get_minutes(&db.key("duration")));
        let vus = self.settings.generic.get_u32("virtual_users");
        let steps = match modes::steps::source(self.home().map(|p| p.as_path())) {
            Some(path) => {
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    mode_error(format!("Error: cannot read {}: {e}", path.display()))
                })?;
                let steps = modes::steps::parse(&text).map_err(|why| {
                    mode_error(format!("Error: steps file {}: {why}", path.display()))
                })?;
                self.out.line(format!("Steps from {}", path.display()));
                steps
            }
            None => {
                self.out.line(
                    "Steps: HammerDB's defaults (no config/steps.xml here, no steps.xml in the \
                     data directory)",
                );
                modes::steps::defaults()
            }
        };
        let (lines, fits) = modes::steps::plan(rampup, duration, vus, &steps);
        let (plan, errors): (Vec<String>, Vec<String>) =
            lines.into_iter().partition(|l| !l.starts_with("Error:"));
        for l in plan {
            self.out.line(l);
        }
        if !fits {
            return Err(mode_error(errors.join("\n")));
        }
        if self.mode.primary().is_none() {
            let _ = self.switchmode(&["primary".into()])?;
        }
        let Some(id) = self.mode.primary().map(|r| r.id) else {
            return Err(mode_error("Error: Primary mode did not start"));
        };
        let host = self
            .mode
            .primary()
            .map(|r| r.primary_host.clone())
            .unwrap_or_default();
        let mut children = Vec::new();
        let started = self.start_replicas(id, &host, steps.len(), &mut children);
        let outcome = started.and_then(|()| self.run_steps(id, &steps, rampup, &mut children));
        self.close_primary();
        self.end_replicas(&mut children);
        if outcome.is_ok() {
            self.out.line("Step workload complete");
        }
        outcome
    }

    fn start_replicas(
        &mut self,
        id: u32,
        host: &str,
        n: usize,
        children: &mut Vec<Child>,
    ) -> Result<()> {
        let exe = std::env::current_exe()
            .map_err(|e| mode_error(format!("Error: cannot find hammer's own program: {e}")))?;
        let dir = std::env::temp_dir();
        let script = dir.join(format!("hammer-step-{id}.rhai"));
        std::fs::write(
            &script,
            format!("// steprun's Replica: follows Primary {id}\nswitchmode(\"replica\", {id}, \"{host}\");\n"),
        )
        .map_err(|e| mode_error(format!("Error: cannot write {}: {e}", script.display())))?;
        for step in 1..=n {
            let log = dir.join(format!("hammer-step-{id}-replica{step}.log"));
            let file = std::fs::File::create(&log)
                .map_err(|e| mode_error(format!("Error: cannot write {}: {e}", log.display())))?;
            let err = file
                .try_clone()
                .map_err(|e| mode_error(format!("Error: {}: {e}", log.display())))?;
            self.out.line(format!(
                "Starting {step} replica hammer instance (its output: {})",
                log.display()
            ));
            let process = std::process::Command::new(&exe)
                .arg("auto")
                .arg(&script)
                .stdin(std::process::Stdio::null())
                .stdout(file)
                .stderr(err)
                .spawn()
                .map_err(|e| mode_error(format!("Error: cannot start a Replica: {e}")))?;
            children.push(Child { process, log });
        }
        // Wait until every Replica has joined, or one ends, or the wait runs out.
        let wait = Duration::from_secs(self.settings.generic.get_u64("drivers_wait"));
        let since = Instant::now();
        let mut seen = usize::MAX;
        loop {
            let joined = modes::live_replicas(self.mode_store()?, id)?.len();
            if joined != seen {
                seen = joined;
                self.out.line(format!(
                    "Primary waiting for all replicas to connect .... {joined} out of {n} are connected"
                ));
            }
            if joined >= n {
                self.out.line("Primary Received all replica connections");
                return Ok(());
            }
            for c in children.iter_mut() {
                if let Ok(Some(status)) = c.process.try_wait() {
                    return Err(mode_error(format!(
                        "Error: a Replica ended before it joined ({status}): {}",
                        tail(&c.log)
                    )));
                }
            }
            if since.elapsed() >= wait {
                return Err(mode_error(format!(
                    "Error: {joined} of {n} Replicas joined within {} s (drivers_wait)",
                    wait.as_secs()
                )));
            }
            if self.interrupt.is_set() {
                return Err(Error::Interrupted);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn run_steps(
        &mut self,
        id: u32,
        steps: &[modes::steps::Step],
        rampup: f64,
        _children: &mut [Child],
    ) -> Result<Dynamic> {
        let replicas = modes::live_replicas(self.mode_store()?, id)?;
        let snapshot = Extra {
            settings: Some(Snapshot::of(&self.settings)),
            ..Extra::default()
        };
        self.post(id, 0, "settings", &[], &snapshot)?;
        let db = self.current();
        let starts = modes::steps::starts(rampup, steps);
        let mut places = Vec::new();
        let mut list = Vec::new();
        for (i, (r, step)) in replicas.iter().zip(steps).enumerate() {
            self.out.line(format!(
                "Setting {} to start after {} duration {} VU count {}, Replica instance is {} \
                 (pid {})",
                step.name,
                modes::steps::minutes(step.start_after),
                modes::steps::minutes(step.duration),
                step.vus,
                r.member,
                r.pid
            ));
            for (cmd, args) in [
                (
                    "diset",
                    vec!["tpcc".to_string(), db.key("timeprofile"), "false".into()],
                ),
                ("diset", vec!["tpcc".into(), db.key("rampup"), "0".into()]),
                (
                    "diset",
                    vec!["tpcc".into(), db.key("duration"), step.duration.to_string()],
                ),
                ("vuset", vec!["vu".into(), step.vus.to_string()]),
            ] {
                self.post(id, r.member, cmd, &args, &Extra::default())?;
            }
            places.push((r.member, starts[i], true, i as u32 + 2));
            list.push(format!("{} ({})", r.member, step.name));
        }
        self.out.line(format!(
            "Delaying Start of Replicas to {}",
            steps
                .iter()
                .zip(&starts)
                .map(|(s, at)| format!("{} {} minutes", s.name, modes::steps::minutes(*at)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        self.shared_vurun(id, &[], &places, &list.join(", "))
    }

    /// Waits for the Replica processes to end after the Primary closed (a minute at most;
    /// then they are stopped), and names any that failed with its log.
    fn end_replicas(&mut self, children: &mut Vec<Child>) {
        let until = Instant::now() + Duration::from_secs(60);
        for c in children.iter_mut() {
            let status = loop {
                match c.process.try_wait() {
                    Ok(Some(s)) => break Some(s),
                    Ok(None) if Instant::now() < until && !self.interrupt.is_set() => {
                        std::thread::sleep(Duration::from_millis(100))
                    }
                    _ => {
                        let _ = c.process.kill();
                        let _ = c.process.wait();
                        break None;
                    }
                }
            };
            match status {
                Some(s) if s.success() => {}
                Some(s) => self.out.error(format!(
                    "Replica process {} ended with {s}: its output is in {}",
                    c.process.id(),
                    c.log.display()
                )),
                None => self.out.error(format!(
                    "Replica process {} did not end after the Primary closed: stopped; its output \
                     is in {}",
                    c.process.id(),
                    c.log.display()
                )),
            }
        }
        children.clear();
    }
}

impl Drop for Session {
    /// A Primary that quits closes its session, so that its Replicas return to Local mode at
    /// once rather than after its silence.
    fn drop(&mut self) {
        if let Mode::Primary(role) = std::mem::take(&mut self.mode) {
            if let Ok(store) = self.jobs.store() {
                let _ = store.mode_leave(role.id, 0);
            }
        }
    }
}
