//! The state a console or script works on (dictionaries, output, runtime) and one method per command.

use std::path::PathBuf;

use rhai::{Dynamic, Map};

use crate::commands::{
    self, Command, DGSET_OPTIONS, METSET_OPTIONS, PRINT_TARGETS, TCSET_OPTIONS, VUSET_OPTIONS,
};
use crate::config::{Change, Database, Settings, Target, UNSUPPORTED};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::jobs::Kind as JobKind;
use crate::output::Output;
use crate::tpcc::schema::Say;
use std::sync::Arc;

/// One hammer session: what `dbset`, `diset` and friends change and what later commands read.
pub struct Session {
    pub settings: Settings,
    pub out: Output,
    rt: tokio::runtime::Handle,
    home: Option<PathBuf>,
    pub interrupt: Interrupt,
    vu: crate::vu::VuManager,
    tc: crate::txcount::TxCounter,
    metrics: crate::metrics::Metrics,
    /// The job history: records each build, check, delete, data generation and run.
    pub jobs: crate::jobs::Recorder,
}

impl Session {
    /// A session whose settings persist in `home` (or nowhere, for `None`).
    pub fn new(rt: tokio::runtime::Handle, out: Output, home: Option<PathBuf>) -> Self {
        let settings = match &home {
            Some(dir) => {
                let (s, warnings) = Settings::load(dir);
                for w in warnings {
                    out.error(format!("Warning: {w}"));
                }
                s
            }
            None => Settings::defaults(),
        };
        let jobs = crate::jobs::Recorder::new(&settings, home.as_deref());
        Session {
            settings,
            out,
            rt,
            home,
            interrupt: Interrupt::default(),
            vu: crate::vu::VuManager::default(),
            tc: crate::txcount::TxCounter::default(),
            metrics: crate::metrics::Metrics::default(),
            jobs,
        }
    }

    /// Runs async work to completion, or until Ctrl-C: the one place the session blocks.
    pub fn block_on<F: std::future::Future>(&self, work: F) -> Result<F::Output> {
        let interrupt = self.interrupt.clone();
        self.rt.block_on(async move {
            tokio::select! {
                out = work => Ok(out),
                _ = interrupt.wait() => Err(Error::Interrupted),
            }
        })
    }

    pub fn home(&self) -> Option<&PathBuf> {
        self.home.as_ref()
    }

    /// Runs a command by name after checking its argument count against the table.
    pub fn run(&mut self, name: &str, args: &[String]) -> Result<Dynamic> {
        let cmd =
            commands::find(name).ok_or_else(|| Error::State(format!("Unknown command {name}")))?;
        if args.len() < cmd.min_args || args.len() > cmd.max_args {
            let msg = match cmd.name {
                "diset" | "giset" => "Error: Invalid number of arguments".to_string(),
                _ => format!("Error: {name} takes {}", arg_count(cmd)),
            };
            return Err(Error::usage(msg, cmd.usage()));
        }
        (cmd.run)(self, args)
    }

    fn current(&self) -> Database {
        self.settings.current()
    }

    /// Saves settings after a change; a failure is reported but the change stays in force.
    fn persist(&self) {
        if let Err(e) = self.settings.save() {
            self.out.error(format!(
                "Warning: {e}; the change holds for this session only"
            ));
        }
    }

    /// Whether virtual users exist (created and not yet destroyed).
    fn vus_exist(&self) -> bool {
        self.vu.exist()
    }

    // ---- dbset -------------------------------------------------------------------------

    pub fn dbset(&mut self, args: &[String]) -> Result<Dynamic> {
        let usage = commands::find("dbset")
            .map(Command::usage)
            .unwrap_or_default();
        match args[0].as_str() {
            "db" => self.set_database(&args[1]),
            "bm" => self.set_benchmark(&args[1]),
            other => Err(Error::usage(
                format!("Error: invalid option {other}"),
                usage,
            )),
        }
    }

    fn set_database(&mut self, prefix: &str) -> Result<Dynamic> {
        let supported: Vec<&str> = Database::ALL.iter().map(|d| d.prefix()).collect();
        let Some(db) = Database::from_prefix(prefix) else {
            if let Some((p, name)) = UNSUPPORTED
                .iter()
                .find(|(p, _)| p.eq_ignore_ascii_case(prefix))
            {
                return Err(Error::Config(format!(
                    "{name} ({p}) is not supported by hammer (yet); choose one from {}",
                    supported.join(" ")
                )));
            }
            return Err(Error::Config(format!(
                "Unknown prefix {prefix}, choose one from {}",
                supported.join(" ")
            )));
        };
        if db != self.current() {
            self.settings
                .set(Target::Generic, "benchmark", "rdbms", db.name())?;
            self.persist();
        }
        self.out.line(format!("Database set to {}", db.name()));
        Ok(Dynamic::UNIT)
    }

    fn set_benchmark(&mut self, name: &str) -> Result<Dynamic> {
        let db = self.current().name();
        match name.to_ascii_uppercase().as_str() {
            "TPROC-C" | "TPC-C" => {
                self.out.line(format!(
                    "Benchmark set to {} for {db}",
                    name.to_ascii_uppercase()
                ));
                Ok(Dynamic::UNIT)
            }
            "TPROC-H" | "TPC-H" => Err(Error::Config(format!(
                "{} is not supported by hammer yet; TPROC-C is",
                name.to_ascii_uppercase()
            ))),
            _ => Err(Error::Config(format!(
                "Unknown benchmark {name}, choose one from TPROC-C (or its compatible name TPC-C)"
            ))),
        }
    }

    // ---- diset / giset -----------------------------------------------------------------

    pub fn diset(&mut self, args: &[String]) -> Result<Dynamic> {
        self.set_key(Target::Db(self.current()), &args[0], &args[1], &args[2])
    }

    pub fn giset(&mut self, args: &[String]) -> Result<Dynamic> {
        self.set_key(Target::Generic, &args[0], &args[1], &args[2])
    }

    fn set_key(
        &mut self,
        target: Target,
        section: &str,
        key: &str,
        value: &str,
    ) -> Result<Dynamic> {
        if target == Target::Generic && section == "virtual_user_options" && self.vus_exist() {
            return Err(vus_exist_error());
        }
        let secret = self
            .settings
            .dict(target)
            .spec(key)
            .is_some_and(|s| s.is_secret());
        if secret && value == crate::config::MASK {
            // A line recalled from the history has its password masked: running it again
            // must not make the mask the password.
            return Err(Error::Config(format!(
                "{} is how hammer shows a password, not a password: {section}:{key} keeps its value; \
                 type the password itself (the console's history keeps passwords masked)",
                crate::config::MASK
            )));
        }
        let change = self.settings.set(target, section, key, value)?;
        // A password is never shown, not even masked: "from ******** to ********" would read
        // as if something were hidden in the sentence rather than in the value.
        match change {
            Change::Same(_) if secret => self.out.line(format!(
                "Value for {section}:{key} is the same as the existing value, no change made"
            )),
            Change::Same(v) => self.out.line(format!(
                "Value {v} for {section}:{key} is the same as existing value {v}, no change made"
            )),
            Change::Changed { old, new } => {
                if secret {
                    self.out
                        .line(format!("Changed {section}:{key} for {}", target.label()));
                } else {
                    self.out.line(format!(
                        "Changed {section}:{key} from {old} to {new} for {}",
                        target.label()
                    ));
                }
                self.persist();
                // HammerDB clears the script only for *_driver keys, so other changes silently
                // miss the next run; here any change to the script's database clears it, and
                // vucreate loads the current settings again.
                let affects_script = self
                    .vu
                    .script
                    .as_ref()
                    .is_some_and(|sc| target == Target::Db(sc.db));
                if affects_script {
                    self.vu.script = None;
                    self.out
                        .line("Clearing Script, reload script to activate new setting");
                    self.out.line("Script cleared");
                }
            }
        }
        Ok(Dynamic::UNIT)
    }

    // ---- vuset / tcset / metset --------------------------------------------------------

    pub fn vuset(&mut self, args: &[String]) -> Result<Dynamic> {
        let usage = commands::find("vuset")
            .map(Command::usage)
            .unwrap_or_default();
        let Some((_, key)) = VUSET_OPTIONS.iter().find(|(o, _)| *o == args[0]) else {
            return Err(Error::usage(
                format!("Error: invalid option {}", args[0]),
                usage,
            ));
        };
        if self.vus_exist() {
            return Err(vus_exist_error());
        }
        let value = if *key == "virtual_users" && args[1].eq_ignore_ascii_case("vcpu") {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .to_string()
        } else {
            args[1].clone()
        };
        self.set_key(Target::Generic, "virtual_user_options", key, &value)
    }

    pub fn tcset(&mut self, args: &[String]) -> Result<Dynamic> {
        let r = self.set_option("tcset", "transaction_counter", TCSET_OPTIONS, args)?;
        if self.tc.thread_id().is_some() {
            self.out
                .line("Transaction Counter is running: the change applies from the next tcstart");
        }
        Ok(r)
    }

    pub fn metset(&mut self, args: &[String]) -> Result<Dynamic> {
        if self.metrics.status().is_some() {
            return Err(Error::State(
                "Stop Metrics before setting configuration: metstop stops them".into(),
            ));
        }
        self.set_option("metset", "metrics", METSET_OPTIONS, args)
    }

    /// `tcset`/`metset`: an option word mapped to a generic key, confirmed in HammerDB's words.
    fn set_option(
        &mut self,
        cmd: &str,
        section: &str,
        options: &[(&str, &str, &str)],
        args: &[String],
    ) -> Result<Dynamic> {
        let usage = commands::find(cmd).map(Command::usage).unwrap_or_default();
        let Some((_, key, label)) = options.iter().find(|(o, _, _)| *o == args[0]) else {
            return Err(Error::usage(
                format!("Error: invalid option {}", args[0]),
                usage,
            ));
        };
        let change = self.settings.set(Target::Generic, section, key, &args[1])?;
        let value = match change {
            Change::Same(v) => v,
            Change::Changed { new, .. } => {
                self.persist();
                new
            }
        };
        self.out.line(format!("{label} set to {value}"));
        Ok(Dynamic::UNIT)
    }

    // ---- tcstart / tcstatus / tcstop ----------------------------------------------------

    /// The transaction counter's series: the running one, or the last after `tcstop`.
    pub fn tc_series(&self) -> Option<crate::txcount::Series> {
        self.tc.series()
    }

    pub fn tcstart(&mut self, _args: &[String]) -> Result<Dynamic> {
        if let Some(id) = self.tc.thread_id() {
            return Err(Error::State(format!(
                "Transaction Counter thread already running with threadid:{id}; tcstop stops it"
            )));
        }
        let g = &self.settings.generic;
        let opts = crate::txcount::Options {
            refresh: std::time::Duration::from_secs(
                g.get_i64("tc_refresh_rate").clamp(1, 59) as u64
            ),
            log_to_temp: g.get_bool("tc_log_to_temp"),
            unique_log_name: g.get_bool("tc_unique_log_name"),
            log_timestamps: g.get_bool("tc_log_timestamps"),
        };
        let mut source = crate::db::counter::CounterSource::new(&self.settings, self.current());
        let what = source.describe();
        let connected = self.block_on(async {
            let nopm = source.connect().await?;
            let first = source.read().await?;
            Ok::<_, crate::db::DbError>((nopm, first))
        });
        let (nopm, first) = match connected {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => {
                return Err(Error::State(format!(
                    "Transaction Counter Failed to Start: {e}"
                )))
            }
            Err(e) => {
                self.rt.block_on(source.close());
                return Err(e);
            }
        };
        let schema_db = source.schema_db().to_string();
        let log = self.tc.start(
            &self.rt,
            source,
            first,
            &opts,
            self.out.clone(),
            self.jobs.series(),
        )?;
        self.out.line("Transaction Counter Started");
        let mut detail = format!(
            "Transaction Counter: counting {what} every {} s",
            opts.refresh.as_secs()
        );
        if nopm {
            detail.push_str(&format!(
                ", with NOPM from the TPROC-C districts in {schema_db}"
            ));
        }
        self.out.line(detail);
        if let Some(path) = log {
            self.out.line(format!(
                "Transaction Counter logging activated to {}",
                path.display()
            ));
        }
        Ok(Dynamic::UNIT)
    }

    pub fn tcstatus(&mut self, _args: &[String]) -> Result<Dynamic> {
        match self.tc.thread_id() {
            Some(id) => {
                self.out.line(format!(
                    "Transaction Counter thread running with threadid:{id}"
                ));
                Ok(true.into())
            }
            None => {
                self.out.line("Transaction Counter is not running");
                Ok(false.into())
            }
        }
    }

    pub fn tcstop(&mut self, _args: &[String]) -> Result<Dynamic> {
        let Some(id) = self.tc.thread_id() else {
            return Err(Error::State("Transaction Counter is not running".into()));
        };
        self.out.line(format!(
            "Transaction Counter thread running with threadid:{id}"
        ));
        self.out.line("Stopping Transaction Counter");
        let Some(stopped) = self.tc.stop(&self.rt) else {
            return Err(Error::State("Transaction Counter is not running".into()));
        };
        if stopped.aborted {
            self.out
                .line("Transaction Counter did not stop in time and was aborted");
        }
        if stopped.log.is_some() {
            self.out.line("Closed Transaction Counter Log");
        }
        for line in stopped.series.summary_lines() {
            self.out.line(line);
        }
        Ok(tc_map(&stopped.series).into())
    }

    // ---- metstart / metstatus / metstop -------------------------------------------------

    /// The metrics series: the running one, or the last after `metstop`.
    pub fn metrics_series(&self) -> Option<crate::metrics::Series> {
        self.metrics.series()
    }

    pub fn metstart(&mut self, _args: &[String]) -> Result<Dynamic> {
        if let Some((opts, _)) = self.metrics.status() {
            return Err(Error::State(format!(
                "CPU metrics are already running on {}, call metstop to stop",
                opts.host
            )));
        }
        let g = &self.settings.generic;
        let opts = crate::metrics::Options {
            host: g.get("agent_hostname").to_string(),
            port: g.get_i64("agent_id").clamp(1, 65535) as u16,
            interval: std::time::Duration::from_secs(g.get_i64("metrics_interval").max(1) as u64),
            per_cpu: g.get_bool("metrics_per_cpu"),
        };
        if opts.is_local() {
            self.out
                .line(format!("Starting Local Metrics Agent on {}", opts.host));
        } else {
            self.out
                .line(format!("Connecting to Metrics Agent @ {}", opts.endpoint()));
        }
        self.metrics
            .start(&self.rt, opts, self.out.clone(), self.jobs.series());
        Ok(Dynamic::UNIT)
    }

    pub fn metstatus(&mut self, _args: &[String]) -> Result<Dynamic> {
        use crate::metrics::Link;
        let Some((opts, link)) = self.metrics.status() else {
            self.out.line(format!(
                "CPU Metrics are not running on {}",
                self.settings.generic.get("agent_hostname")
            ));
            return Ok(false.into());
        };
        self.out
            .line(format!("CPU Metrics are running on {}", opts.host));
        let endpoint = opts.endpoint();
        self.out.line(match link {
            Link::Connected if opts.is_local() => {
                "Metrics Agent running inside hammer on localhost".to_string()
            }
            Link::Connected => format!("Metrics Agent running on {endpoint}"),
            Link::Connecting => format!("Connecting to Metrics Agent @ {endpoint}"),
            Link::Failing(why) => {
                format!("Metrics Agent not connected @ {endpoint} ({why}); retrying")
            }
        });
        Ok(true.into())
    }

    pub fn metstop(&mut self, _args: &[String]) -> Result<Dynamic> {
        let Some((opts, _)) = self.metrics.status() else {
            return Err(Error::State(format!(
                "CPU Metrics are not running on {}",
                self.settings.generic.get("agent_hostname")
            )));
        };
        self.out.line(format!(
            "Stopping Metrics Agent and Display on {}",
            opts.endpoint()
        ));
        let Some(stopped) = self.metrics.stop(&self.rt) else {
            return Err(Error::State("CPU Metrics are not running".into()));
        };
        if stopped.aborted {
            self.out
                .line("CPU Metrics did not stop in time and were aborted");
        }
        for line in stopped.series.summary_lines() {
            self.out.line(line);
        }
        Ok(metrics_map(&stopped.series).into())
    }

    // ---- runtimer ----------------------------------------------------------------------

    pub fn runtimer(&mut self, args: &[String]) -> Result<Dynamic> {
        let seconds = args[0]
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && (0.0..=1e9).contains(s))
            .ok_or_else(|| {
                Error::usage(
                    format!(
                        "Error: runtimer takes a number of seconds >= 0, not {}",
                        args[0]
                    ),
                    commands::find("runtimer")
                        .map(Command::usage)
                        .unwrap_or_default(),
                )
            })?;
        let started = std::time::Instant::now();
        let wait = std::time::Duration::from_secs_f64(seconds);
        match self.block_on(async move { tokio::time::sleep(wait).await }) {
            Ok(()) => {}
            Err(Error::Interrupted) => {
                // Ctrl-C ends the wait, not the script: what follows (tcstop, metstop)
                // still runs and reports.
                self.interrupt.clear();
                self.out.line(format!(
                    "runtimer: Ctrl-C ended the wait after {:.1} of {seconds} s",
                    started.elapsed().as_secs_f64()
                ));
            }
            Err(e) => return Err(e),
        }
        Ok(Dynamic::UNIT)
    }

    /// Stops what runs in the background (counter, metrics), reporting as their stop
    /// commands do: the end of a script or console session.
    pub fn shutdown(&mut self) {
        if self.tc.thread_id().is_some() {
            let _ = self.tcstop(&[]);
        }
        if self.metrics.status().is_some() {
            let _ = self.metstop(&[]);
        }
    }

    // ---- print -------------------------------------------------------------------------

    pub fn print(&mut self, args: &[String]) -> Result<Dynamic> {
        Ok(self.print_text(&args[0])?.into())
    }

    /// The text `print target` shows.
    pub fn print_text(&self, target: &str) -> Result<String> {
        let db = self.current();
        let text = match target {
            "db" => {
                let all: Vec<String> = Database::ALL
                    .iter()
                    .map(|d| format!("{} = {}", d.name(), d.prefix()))
                    .collect();
                format!(
                    "Database {} set.\nTo change do: dbset db prefix, one of:\n{}",
                    db.name(),
                    all.join(" ")
                )
            }
            "bm" => "Benchmark set to TPC-C".to_string(),
            "dict" => {
                let dict = self.settings.db(db);
                format!(
                    "Dictionary Settings for {}\n{}",
                    db.name(),
                    dict.render(&dict.sections())
                )
            }
            "generic" => {
                let g = &self.settings.generic;
                format!("Generic Dictionary Settings\n{}", g.render(&g.sections()))
            }
            "vuconf" => {
                let g = &self.settings.generic;
                [
                    ("Virtual Users", "virtual_users"),
                    ("User Delay(ms)", "user_delay"),
                    ("Repeat Delay(ms)", "repeat_delay"),
                    ("Iterations", "iterations"),
                    ("Show Output", "show_output"),
                    ("Log Output", "log_to_temp"),
                    ("Unique Log Name", "unique_log_name"),
                    ("No Log Buffer", "no_log_buffer"),
                    ("Log Timestamps", "log_timestamps"),
                ]
                .iter()
                .map(|(label, key)| format!("{label} = {}", g.get(key)))
                .collect::<Vec<_>>()
                .join("\n")
            }
            "tcconf" => self.settings.generic.render(&["transaction_counter"]),
            "script" => match (&self.vu.script, &self.vu.custom) {
                (Some(script), _) => script.render(),
                (None, Some(custom)) => format!(
                    "Custom script {}:\n{}",
                    custom.path.display(),
                    custom.source.trim_end()
                ),
                (None, None) => "\nNo Script loaded: Load with loadscript\n".to_string(),
            },
            "vucreated" => format!(
                "{} Virtual Users created",
                self.vu.board.as_ref().map_or(0, |b| b.len())
            ),
            "vustatus" => self.vustatus_text(),
            "vucomplete" => self.vucomplete_value().to_string(),
            "datagen" => {
                let g = &self.settings.generic;
                format!(
                    "Data Generation set to build a TPC-C schema for {} with {} warehouses with {} virtual users in {}",
                    db.name(),
                    g.get("gen_count_ware"),
                    g.get("gen_num_vu"),
                    self.datagen_dir().display()
                )
            }
            other => {
                let usage = commands::find("print")
                    .map(Command::usage)
                    .unwrap_or_default();
                return Err(Error::usage(
                    format!(
                        "Error: cannot print \"{other}\", valid targets are {}",
                        PRINT_TARGETS.join(", ")
                    ),
                    usage,
                ));
            }
        };
        Ok(text)
    }

    // ---- buildschema / checkschema / deleteschema ---------------------------------------

    fn refuse_with_vus(&self, what: &str) -> Result<()> {
        if self.vus_exist() {
            return Err(Error::State(format!(
                "Error: Cannot {what} with Virtual Users active, destroy Virtual Users first"
            )));
        }
        Ok(())
    }

    /// `*_count_ware` and `*_num_vu` of the current database.
    fn build_sizes(&self) -> (u32, u32) {
        let db = self.current();
        let d = self.settings.db(db);
        let p = db.prefix();
        (
            d.get_i64(&format!("{p}_count_ware")) as u32,
            d.get_i64(&format!("{p}_num_vu")) as u32,
        )
    }

    pub fn buildschema(&mut self, args: &[String]) -> Result<Dynamic> {
        self.as_job(args, Self::build_schema_job)
    }

    fn build_schema_job(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.refuse_with_vus("build schema")?;
        let db = self.current();
        let (w, b) = self.build_sizes();
        let unsupported = crate::db::unsupported_build_options(&self.settings, db);
        if !unsupported.is_empty() {
            return Err(Error::Config(format!(
                "hammer does not support {}; set it to false to build",
                unsupported.join(" or ")
            )));
        }
        if b > w {
            return Err(Error::State(format!(
                "Error:Build virtual users must be less than or equal to number of warehouses\n\
                 You have {b} virtual users building {w} warehouses (diset tpcc {p}_num_vu or {p}_count_ware)",
                p = db.prefix()
            )));
        }
        self.begin_job(crate::jobs::Spec::schema(JobKind::Build, &self.settings));
        self.out.line(format!(
            "Ready to create a {w} Warehouse {} TPROC-C schema in {}",
            db.name(),
            crate::db::describe_schema(&self.settings, db)
        ));
        if b == 1 {
            self.out
                .line(format!("Building {w} Warehouses(s) with 1 Virtual User"));
        } else {
            self.out.line(format!(
                "Building {w} Warehouses with {} Virtual Users, {b} active + 1 Monitor VU(dict value {}_num_vu is set to {b})",
                b + 1,
                db.prefix()
            ));
        }
        let plan = crate::tpcc::build::Plan {
            warehouses: w,
            loaders: b,
        };
        let say = Say::new(self.out.clone(), 1);
        // Not `block_on`: the build sees Ctrl-C itself, stops its loaders between chunks
        // and reports what it loaded.
        let summary = self.rt.block_on(crate::db::build_schema(
            &self.settings,
            db,
            plan,
            say,
            self.out.clone(),
            self.interrupt.clone(),
        ));
        let vusers = if b == 1 { 1 } else { b + 1 };
        let summary = match summary {
            Ok(s) => s,
            Err(e) => {
                self.out.line("Vuser 1:FINISHED FAILED");
                return Err(e);
            }
        };
        for n in 1..=vusers {
            self.out.line(format!("Vuser {n}:FINISHED SUCCESS"));
        }
        self.out.line("ALL VIRTUAL USERS COMPLETE");
        let secs = summary.elapsed.as_secs_f64();
        self.out.line(format!(
            "TPROC-C schema built: {w} warehouses, {} rows in {secs:.1} s ({:.0} rows/s), {:.1} MB on disk",
            summary.rows,
            summary.rows_per_second(),
            summary.bytes_on_disk as f64 / 1e6
        ));
        let mut m = Map::new();
        m.insert("ok".into(), true.into());
        m.insert("warehouses".into(), (w as i64).into());
        m.insert("rows".into(), (summary.rows as i64).into());
        m.insert("seconds".into(), secs.into());
        m.insert("rows_per_second".into(), summary.rows_per_second().into());
        m.insert(
            "bytes_on_disk".into(),
            (summary.bytes_on_disk as i64).into(),
        );
        Ok(m.into())
    }

    pub fn checkschema(&mut self, args: &[String]) -> Result<Dynamic> {
        self.as_job(args, Self::check_schema_job)
    }

    fn check_schema_job(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.refuse_with_vus("check schema")?;
        self.begin_job(crate::jobs::Spec::schema(JobKind::Check, &self.settings));
        let db = self.current();
        let (w, _) = self.build_sizes();
        self.out.line("Checking schema with 1 Virtual User");
        let say = Say::new(self.out.clone(), 1);
        let checks = self.block_on(crate::db::check_schema(&self.settings, db, w, &say))??;
        let failed = checks.iter().filter(|c| !c.ok).count();
        let mut list = rhai::Array::new();
        for c in &checks {
            let verdict = if c.ok { "PASS" } else { "FAIL" };
            let detail = if c.detail.is_empty() {
                String::new()
            } else {
                format!(": {}", c.detail)
            };
            say.line(format!("{verdict} {}{detail}", c.what));
            let mut m = Map::new();
            m.insert("what".into(), c.what.clone().into());
            m.insert("ok".into(), c.ok.into());
            m.insert("detail".into(), c.detail.clone().into());
            list.push(m.into());
        }
        if failed == 0 {
            say.line(format!(
                "{} TPROC-C Schema has been checked successfully.",
                db.name()
            ));
        } else {
            say.line(format!(
                "TPROC-C Schema check failed {}: {failed} of {} checks failed",
                db.name(),
                checks.len()
            ));
        }
        let mut m = Map::new();
        m.insert("ok".into(), (failed == 0).into());
        m.insert("failed".into(), (failed as i64).into());
        m.insert("checks".into(), list.into());
        Ok(m.into())
    }

    pub fn deleteschema(&mut self, args: &[String]) -> Result<Dynamic> {
        self.as_job(args, Self::delete_schema_job)
    }

    fn delete_schema_job(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.refuse_with_vus("delete schema")?;
        self.begin_job(crate::jobs::Spec::schema(JobKind::Delete, &self.settings));
        let db = self.current();
        self.out.line("Deleting schema with 1 Virtual User");
        let say = Say::new(self.out.clone(), 1);
        let dropped = self.block_on(crate::db::delete_schema(&self.settings, db, &say))??;
        Ok(dropped
            .into_iter()
            .map(Dynamic::from)
            .collect::<rhai::Array>()
            .into())
    }

    // ---- dgset / datagenrun ------------------------------------------------------------

    /// Where datagenrun writes: `gen_directory`, or the temporary directory when empty.
    fn datagen_dir(&self) -> PathBuf {
        match self.settings.generic.get("gen_directory") {
            "" => std::env::temp_dir(),
            dir => PathBuf::from(dir),
        }
    }

    pub fn dgset(&mut self, args: &[String]) -> Result<Dynamic> {
        let usage = commands::find("dgset")
            .map(Command::usage)
            .unwrap_or_default();
        let Some((option, key)) = DGSET_OPTIONS.iter().find(|(o, _)| *o == args[0]) else {
            return Err(Error::usage(
                format!("Error: invalid option {}", args[0]),
                usage,
            ));
        };
        let g = &self.settings.generic;
        let (vus, ware) = (g.get_i64("gen_num_vu"), g.get_i64("gen_count_ware"));
        match *option {
            "scale_fact" => {
                return Err(Error::Config(
                    "scale_fact belongs to TPROC-H, which hammer does not support yet".into(),
                ))
            }
            "vu" | "warehouse" => {
                let n: i64 = args[1].trim().parse().map_err(|_| {
                    Error::Config(format!(
                        "Error: {} must be an integer, not {}",
                        option, args[1]
                    ))
                })?;
                let (v, w) = if *option == "vu" { (n, ware) } else { (vus, n) };
                if v > w && n >= 1 {
                    return Err(Error::Config(format!(
                        "Error:Build virtual users must be less than or equal to number of warehouses\n\
                         You have {v} virtual users building {w} warehouses"
                    )));
                }
            }
            _ => {
                let dir = std::path::Path::new(&args[1]);
                if !args[1].is_empty() {
                    check_writable_dir(dir)?;
                }
            }
        }
        let change = self.settings.set(
            crate::config::Target::Generic,
            "datageneration",
            key,
            &args[1],
        )?;
        if let Change::Changed { .. } = change {
            self.persist();
        }
        let shown = match *option {
            "vu" => format!(
                "Set virtual users to {} for data generation",
                args[1].trim()
            ),
            "warehouse" => format!("Set warehouses to {} for data generation", args[1].trim()),
            _ => format!(
                "Set directory to {} for data generation",
                self.datagen_dir().display()
            ),
        };
        self.out.line(shown);
        Ok(Dynamic::UNIT)
    }

    pub fn datagenrun(&mut self, args: &[String]) -> Result<Dynamic> {
        self.as_job(args, Self::datagen_job)
    }

    fn datagen_job(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.refuse_with_vus("generate data")?;
        let g = &self.settings.generic;
        let plan = crate::tpcc::build::Plan {
            warehouses: g.get_i64("gen_count_ware") as u32,
            loaders: g.get_i64("gen_num_vu") as u32,
        };
        if plan.loaders > plan.warehouses {
            return Err(Error::Config(format!(
                "Error:Build virtual users must be less than or equal to number of warehouses\n\
                 You have {} virtual users building {} warehouses",
                plan.loaders, plan.warehouses
            )));
        }
        let dir = self.datagen_dir();
        check_writable_dir(&dir)?;
        self.begin_job(crate::jobs::Spec::datagen(&self.settings));
        self.out.line(format!(
            "Ready to generate the data for a {} Warehouse {} TPROC-C schema in directory {}",
            plan.warehouses,
            self.current().name(),
            dir.display()
        ));
        let say = Say::new(self.out.clone(), 1);
        let summary = crate::tpcc::build::datagen(plan, &dir, &say, &self.interrupt)?;
        self.out.line(format!(
            "{} WAREHOUSE SCHEMA GENERATED in {:.2} MINUTES ({} rows, {:.1} MB, {:.1} s)",
            plan.warehouses,
            summary.elapsed.as_secs_f64() / 60.0,
            summary.rows,
            summary.bytes_on_disk as f64 / 1e6,
            summary.elapsed.as_secs_f64()
        ));
        Ok((summary.rows as i64).into())
    }

    // ---- loadscript / vucreate / vurun / vustatus / vucomplete / vudestroy -------------

    pub fn loadscript(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.vu.custom = None;
        self.vu.script = Some(crate::vu::Script::load(&self.settings));
        self.out
            .line("Script loaded, Type \"print script\" to view");
        Ok(Dynamic::UNIT)
    }

    pub fn customscript(&mut self, args: &[String]) -> Result<Dynamic> {
        let script = crate::custom::CustomScript::load(std::path::Path::new(&args[0]))?;
        self.out.line(format!("Loaded {}", script.path.display()));
        self.vu.script = None;
        self.vu.custom = Some(script);
        Ok(Dynamic::UNIT)
    }

    pub fn clearscript(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.vu.script = None;
        self.vu.custom = None;
        self.out.line("Script cleared");
        Ok(Dynamic::UNIT)
    }

    pub fn vucreate(&mut self, _args: &[String]) -> Result<Dynamic> {
        if self.vus_exist() {
            return Err(Error::State(
                "Error: Virtual Users exist, destroy with vudestroy before creating".into(),
            ));
        }
        if self.vu.script.is_none() && self.vu.custom.is_none() {
            let _ = self.loadscript(&[])?;
        }
        let workers = self.settings.generic.get_i64("virtual_users") as usize;
        // Custom scripts run without a monitor.
        let monitor = self.vu.script.as_ref().is_some_and(|s| s.timed());
        let total = workers + usize::from(monitor);
        for n in 1..=total {
            if monitor && n == 1 {
                self.out.line("Vuser 1 created MONITOR - WAIT IDLE");
            } else {
                self.out.line(format!("Vuser {n} created - WAIT IDLE"));
            }
        }
        if monitor {
            self.out
                .line(format!("{total} Virtual Users Created with Monitor VU"));
        } else {
            self.out.line(format!("{total} Virtual Users Created"));
        }
        self.vu.board = Some(crate::vu::Board::new(total));
        self.vu.monitor = monitor;
        Ok(Dynamic::UNIT)
    }

    pub fn vurun(&mut self, args: &[String]) -> Result<Dynamic> {
        self.as_job(args, Self::run_job)
    }

    fn run_job(&mut self, _args: &[String]) -> Result<Dynamic> {
        if !self.vus_exist() {
            let _ = self.vucreate(&[])?;
        }
        if let (Some(custom), Some(board)) = (self.vu.custom.clone(), self.vu.board.clone()) {
            return self.run_custom(&custom, &board);
        }
        let (Some(mut script), Some(board)) = (self.vu.script.clone(), self.vu.board.clone())
        else {
            return Err(Error::State(
                "Error: There is no workload to run because the Script is empty".into(),
            ));
        };
        // Virtual-user options are HammerDB's globals, read at run time, not frozen.
        script.use_vu_options(&self.settings)?;
        if script.timed() != self.vu.monitor
            || board.len() != script.options.virtual_users as usize + usize::from(script.timed())
        {
            return Err(Error::State(
                "Error: the loaded script needs other virtual users than those created; vudestroy, then vurun".into(),
            ));
        }
        for n in 1..=board.len() {
            board.set(n, crate::tpcc::driver::VuState::WaitIdle);
        }
        let id = self.begin_job(crate::jobs::Spec::run(&script));
        let say = Say::new(self.out.clone(), 1);
        let states: crate::tpcc::driver::StateSink = {
            let board = board.clone();
            Arc::new(move |vu, state| board.set(vu, state))
        };
        let result = self.rt.block_on(crate::db::run_tpcc(
            &script.settings,
            script.db,
            script.options.clone(),
            say.clone(),
            states,
            self.interrupt.clone(),
        ));
        let result = match result {
            Ok(r) => r,
            Err(e) => {
                // Nothing ran: the schema or the connection was not right.
                for n in 1..=board.len() {
                    board.set(n, crate::tpcc::driver::VuState::WaitIdle);
                }
                return Err(e);
            }
        };
        if script.timed() || script.options.show_output {
            self.out
                .line("Transactions (hammer; after rampup for timed runs):");
        }
        for line in result.stats.table() {
            self.out.line(line);
        }
        if script.options.time_profile {
            for (vu, stats) in &result.per_vu {
                self.out.line(format!("Vuser {vu} time profile:"));
                for line in stats.table() {
                    self.out.line(format!("  {line}"));
                }
            }
        }
        if let Some(line) = result.client_cpu_line() {
            self.out.line(line);
        }
        if result.stats.reconnects > 0 {
            self.out.line(format!(
                "Lost connections reconnected: {}",
                result.stats.reconnects
            ));
        }
        if let Some(why) = &result.stopped_early {
            self.out.line(format!("The run ended early: {why}"));
        }
        self.out.line("ALL VIRTUAL USERS COMPLETE");
        self.vu.last_run = Some((id.clone(), result));
        Ok(id.into())
    }

    fn run_custom(
        &mut self,
        custom: &crate::custom::CustomScript,
        board: &crate::vu::Board,
    ) -> Result<Dynamic> {
        let g = &self.settings.generic;
        let plan = crate::custom::Plan {
            virtual_users: board.len() as u32,
            iterations: g.get_i64("iterations") as u32,
            user_delay: std::time::Duration::from_millis(g.get_i64("user_delay") as u64),
            repeat_delay: std::time::Duration::from_millis(g.get_i64("repeat_delay") as u64),
        };
        let states: crate::tpcc::driver::StateSink = {
            let board = board.clone();
            Arc::new(move |vu, state| board.set(vu, state))
        };
        let say = Say::new(self.out.clone(), 1);
        let spec = crate::jobs::Spec::custom(&custom.path, &self.settings, plan.virtual_users);
        let id = self.begin_job(spec);
        let failed = crate::custom::run(
            custom,
            &self.settings,
            self.current(),
            &plan,
            &say,
            &states,
            &self.interrupt,
            &self.rt,
        );
        self.out.line("ALL VIRTUAL USERS COMPLETE");
        if failed > 0 {
            // The job ends FAILED with this as its reason, and vurun raises it.
            return Err(Error::State(crate::jobs::recorder::vus_failed(failed)));
        }
        Ok(id.into())
    }

    fn vustatus_text(&self) -> String {
        match &self.vu.board {
            None => "No Virtual Users found".to_string(),
            Some(b) => b
                .states()
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{} = {}", i + 1, s.label()))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    fn vucomplete_value(&self) -> bool {
        self.vu.board.as_ref().is_some_and(|b| b.complete())
    }

    pub fn vustatus(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.out.line(self.vustatus_text());
        Ok(Dynamic::UNIT)
    }

    pub fn vucomplete(&mut self, _args: &[String]) -> Result<Dynamic> {
        Ok(self.vucomplete_value().into())
    }

    pub fn vudestroy(&mut self, _args: &[String]) -> Result<Dynamic> {
        if self.vu.board.take().is_none() {
            return Err(Error::State("No Virtual Users found to destroy".into()));
        }
        self.out.line("vudestroy success");
        Ok(Dynamic::UNIT)
    }

    /// The last run's result as a map: `#{id, nopm, tpm, active_vus, seconds, new_order: #{...}, ...}`.
    pub fn lastrun(&mut self, _args: &[String]) -> Result<Dynamic> {
        let Some((id, r)) = &self.vu.last_run else {
            return Err(Error::State("No run yet: vurun first".into()));
        };
        Ok(run_map(id, r).into())
    }

    // ---- jobs --------------------------------------------------------------------------

    /// Runs a command as a job. The command calls `begin_job` where its work starts, after
    /// its checks, so that a refused command is no job; its end is recorded here.
    fn as_job(
        &mut self,
        args: &[String],
        body: fn(&mut Session, &[String]) -> Result<Dynamic>,
    ) -> Result<Dynamic> {
        let outcome = body(self, args);
        let Some(job) = self.jobs.running() else {
            return outcome;
        };
        let (id, kind, db, settings) = (job.id.clone(), job.kind, job.db, job.settings.clone());
        let run = self.vu.last_run.as_ref().filter(|(r, _)| *r == id);
        let mut end =
            crate::jobs::recorder::end_of(&outcome, self.interrupt.is_set(), run.map(|r| &r.1));
        let figures = run.map(|(rid, r)| run_map(rid, r));
        // A failed job's server may be gone, and data generation needs none: no waiting.
        let facts = end.status != crate::jobs::Status::Failed && kind != JobKind::Datagen;
        end.system = Some(self.job_system(&settings, db, facts));
        self.out.line(format!("{} jobid={id}", kind.label()));
        // Recorded before the verdict reaches the script: a script that stops here, or a
        // `hammer auto` that exits, leaves the job saved.
        self.jobs.finish(&self.out, &end);
        let outcome = crate::jobs::recorder::with_jobid(outcome, &id);
        match end.status {
            crate::jobs::Status::Failed | crate::jobs::Status::Stopped => {
                Err(job_verdict(&id, kind, &end, outcome, figures))
            }
            _ => outcome,
        }
    }

    /// Starts recording the current command as a job; returns its id.
    fn begin_job(&mut self, spec: crate::jobs::Spec) -> String {
        let settings = match &self.vu.script {
            Some(script) if spec.kind == JobKind::Run => script.settings.clone(),
            _ => self.settings.clone(),
        };
        let db = Database::from_name(&spec.profile.db).unwrap_or_else(|| self.current());
        self.jobs.begin(spec, db, &settings, &self.out)
    }

    /// The machine, and the server's version and key settings when `server` is true.
    fn job_system(
        &self,
        settings: &Settings,
        db: Database,
        server: bool,
    ) -> crate::jobs::SystemInfo {
        let mut sys = crate::jobs::system::host_info();
        if server {
            let facts = self.rt.block_on(async {
                tokio::time::timeout(
                    std::time::Duration::from_secs(5),
                    crate::db::server_facts(settings, db),
                )
                .await
            });
            if let Ok(Ok((version, values))) = facts {
                sys.server_version = Some(version);
                sys.server_settings = values;
            }
        }
        sys
    }

    pub fn jobs(&mut self, args: &[String]) -> Result<Dynamic> {
        use crate::jobs::command::{self, Format, Request};
        let request = command::parse(args)?;
        if let Request::Format(value) = &request {
            let (value, changed) =
                command::format(&mut self.settings, value.as_deref(), &self.out)?;
            if changed {
                self.persist();
            }
            return Ok(value);
        }
        let format = self
            .jobs
            .format_override
            .unwrap_or_else(|| Format::of(&self.settings));
        // `hammer jobs --json` asks for JSON even of the table that is otherwise text.
        let request = match (request, self.jobs.format_override) {
            (Request::Table, Some(Format::Json)) => Request::List,
            (r, _) => r,
        };
        command::run(&mut self.jobs, request, format, &self.out)
    }

    // ---- librarycheck ------------------------------------------------------------------

    pub fn librarycheck(&mut self, _args: &[String]) -> Result<Dynamic> {
        let settings = self.settings.clone();
        // All servers are asked at once, so three unreachable hosts cost one timeout, not three.
        let probes = self.block_on(async {
            let (pg, maria, mysql) = tokio::join!(
                crate::db::probe(&settings, Database::Pg),
                crate::db::probe(&settings, Database::Maria),
                crate::db::probe(&settings, Database::Mysql),
            );
            [pg, maria, mysql]
        })?;
        let mut result = Map::new();
        for (db, probe) in Database::ALL.iter().zip(probes) {
            let name = db.name();
            self.out
                .line(format!("Checking database library for {name}"));
            let driver = match db {
                Database::Pg => "tokio-postgres",
                _ => "mywire",
            };
            self.out.line(format!(
                "Success ... {driver} driver is built into hammer for {name}"
            ));
            let mut entry = Map::new();
            match probe {
                Ok(info) => {
                    let tls = if info.tls { "TLS on" } else { "TLS off" };
                    let port = info
                        .port
                        .map(|p| format!(", @@port {p}"))
                        .unwrap_or_default();
                    let via = if info.peer.addr.starts_with('/') {
                        "socket"
                    } else {
                        "TCP"
                    };
                    self.out.line(format!(
                        "Server {} answers as user {}: {} ({via}, {tls}{port})",
                        info.peer.addr, info.peer.user, info.version
                    ));
                    if let Some(note) = &info.note {
                        self.out.line(format!("Note: {note}"));
                    }
                    entry.insert("addr".into(), info.peer.addr.clone().into());
                    entry.insert("port".into(), info.port.map_or(0, i64::from).into());
                    entry.insert("ok".into(), true.into());
                    entry.insert("version".into(), info.version.into());
                    entry.insert("tls".into(), info.tls.into());
                    entry.insert("error".into(), "".into());
                }
                Err(e) => {
                    self.out.line(format!("Error: {e}"));
                    entry.insert("ok".into(), false.into());
                    entry.insert("version".into(), "".into());
                    entry.insert("tls".into(), false.into());
                    entry.insert("error".into(), e.to_string().into());
                }
            }
            result.insert(db.prefix().into(), entry.into());
        }
        Ok(result.into())
    }

    // ---- help / quit -------------------------------------------------------------------

    pub fn help(&mut self, args: &[String]) -> Result<Dynamic> {
        let names = commands::names();
        match args.first() {
            None => {
                let mut text = format!(
                    "hammer v{} CLI Help Index\n\nType \"help command\" for more details on specific commands below\n",
                    crate::VERSION
                );
                for n in &names {
                    text.push_str(&format!("\n\t{n}"));
                }
                self.out.line(text);
            }
            Some(name) => match commands::find(name) {
                Some(cmd) => self
                    .out
                    .line(format!("{} - {}\n{}", cmd.name, cmd.usage(), cmd.help)),
                None => {
                    let mut msg = format!("Error: invalid option {name}");
                    if let Some(near) = crate::config::nearest(name, names.iter().copied()) {
                        msg.push_str(&format!("; did you mean {near}?"));
                    }
                    return Err(Error::usage(
                        msg,
                        format!("Usage: help [{}]", names.join("|")),
                    ));
                }
            },
        }
        Ok(Dynamic::UNIT)
    }

    pub fn quit(&mut self, _args: &[String]) -> Result<Dynamic> {
        Err(Error::Quit)
    }
}

/// The error a FAILED or STOPPED job raises: one line naming the job, its status and why
/// (`Schema Check jobid=... FAILED: 1 of 24 checks failed: ...`), and for `catch (e)` a map
/// with the same `message`, the `jobid`, `status`, `type`, `kind` and `note`, the command's
/// own map when it returned one (`checkschema`'s `ok`, `failed` and `checks`), and a run's
/// figures as `result` (what `lastrun()` returns; `()` when nothing ran).
fn job_verdict(
    id: &str,
    kind: JobKind,
    end: &crate::jobs::store::End,
    outcome: Result<Dynamic>,
    figures: Option<Map>,
) -> Error {
    let note = end.note.clone().unwrap_or_else(|| match &outcome {
        Err(e) => e.to_string(),
        Ok(_) => "no reason was recorded".to_string(),
    });
    let status = end.status.label();
    let message = format!("{} jobid={id} {status}: {note}", kind.label());
    let mut caught = outcome
        .ok()
        .and_then(|v| v.try_cast::<Map>())
        .unwrap_or_default();
    caught.insert("message".into(), message.clone().into());
    caught.insert("jobid".into(), id.into());
    caught.insert("status".into(), status.into());
    caught.insert("type".into(), kind.label().into());
    caught.insert("kind".into(), kind.code().into());
    caught.insert("note".into(), note.into());
    caught.insert(
        "result".into(),
        figures.map_or(Dynamic::UNIT, Dynamic::from),
    );
    Error::Job {
        message,
        stopped: end.status == crate::jobs::Status::Stopped,
        caught: Box::new(caught.into()),
    }
}

/// A run's figures as `lastrun()` gives them (and a failed run's `catch (e)` as `e.result`).
fn run_map(id: &str, r: &crate::tpcc::driver::RunResult) -> Map {
    let mut m = Map::new();
    m.insert("id".into(), id.into());
    m.insert("nopm".into(), r.nopm.map_or(Dynamic::UNIT, Dynamic::from));
    m.insert("tpm".into(), r.tpm.map_or(Dynamic::UNIT, Dynamic::from));
    m.insert("active_vus".into(), (r.active_vus as i64).into());
    m.insert("seconds".into(), r.measured.as_secs_f64().into());
    m.insert("failed_vus".into(), (r.failed_vus as i64).into());
    m.insert("reconnects".into(), (r.stats.reconnects as i64).into());
    m.insert("abandoned_calls".into(), (r.abandoned_calls as i64).into());
    m.insert("transactions".into(), (r.transactions() as i64).into());
    m.insert(
        "stopped_early".into(),
        r.stopped_early.clone().map_or(Dynamic::UNIT, Dynamic::from),
    );
    m.insert(
        "client_cpu_seconds".into(),
        r.client_cpu
            .map_or(Dynamic::UNIT, |c| Dynamic::from(c.as_secs_f64())),
    );
    for k in crate::tpcc::inputs::Kind::ALL {
        let s = r.stats.kind(k);
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
        m.insert(k.name().replace(' ', "_").into(), t.into());
    }
    m
}

/// `tcstop`'s value: the summary and the series.
fn tc_map(series: &crate::txcount::Series) -> Map {
    let mut m = Map::new();
    let sum = series.summary();
    let f = |g: fn(&crate::txcount::Summary) -> f64| {
        sum.as_ref().map_or(Dynamic::UNIT, |s| g(s).into())
    };
    m.insert("samples".into(), (series.samples.len() as i64).into());
    m.insert("seconds".into(), f(|s| s.seconds));
    m.insert(
        "transactions".into(),
        sum.as_ref()
            .map_or(Dynamic::UNIT, |s| (s.transactions as i64).into()),
    );
    m.insert("min_tpm".into(), f(|s| s.min_tpm));
    m.insert("avg_tpm".into(), f(|s| s.avg_tpm));
    m.insert("max_tpm".into(), f(|s| s.max_tpm));
    m.insert(
        "nopm".into(),
        match sum.as_ref().and_then(|s| s.nopm) {
            Some((min, avg, max)) => stat_map(min, avg, max).into(),
            None => Dynamic::UNIT,
        },
    );
    let samples: rhai::Array = series
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
            t.insert("transactions".into(), (x.transactions as i64).into());
            t.insert("tpm".into(), x.tpm.into());
            t.insert("nopm".into(), x.nopm.map_or(Dynamic::UNIT, Dynamic::from));
            Dynamic::from(t)
        })
        .collect();
    m.insert("series".into(), samples.into());
    m
}

/// `metstop`'s value: the summary and the series of the `all` line.
fn metrics_map(series: &crate::metrics::Series) -> Map {
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
    let samples: rhai::Array = series
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

/// Refuses a path that is not an existing directory this process can write in.
fn check_writable_dir(dir: &std::path::Path) -> Result<()> {
    if !dir.is_dir() {
        return Err(Error::Config(format!(
            "Error: directory {} does not exist; create it or choose another with dgset directory",
            dir.display()
        )));
    }
    let probe = dir.join(format!(".hammer-write-test-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(Error::Config(format!(
            "Error: directory {} is not writable ({e}); choose another with dgset directory",
            dir.display()
        ))),
    }
}

fn vus_exist_error() -> Error {
    Error::State(
        "Error: Virtual Users exist, destroy with vudestroy before changing settings".into(),
    )
}

fn arg_count(cmd: &Command) -> String {
    let n = |k: usize| {
        if k == 1 {
            "1 argument".to_string()
        } else {
            format!("{k} arguments")
        }
    };
    if cmd.min_args == cmd.max_args {
        n(cmd.min_args)
    } else {
        format!("{} to {}", cmd.min_args, n(cmd.max_args))
    }
}
