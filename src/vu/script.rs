//! The loaded script: what `loadscript` froze (the database, its settings and the workload's
//! own options), and the virtual-user options every workload reads from `vuset`.

use std::time::Duration;

use super::workload::WorkloadOptions;
use crate::config::{Database, Settings};
use crate::error::{Error, Result};

/// What `loadscript` froze: the database, its settings and the workload's options.
pub struct Script {
    pub db: Database,
    pub settings: Settings,
    /// Where the schema is, as `print script` shows it: `host localhost:5432 under user tpcc
    /// in database tpcc` (the engine says it when the script is loaded).
    pub schema: String,
    options: Box<dyn WorkloadOptions>,
}

impl Clone for Script {
    fn clone(&self) -> Self {
        Script {
            db: self.db,
            settings: self.settings.clone(),
            schema: self.schema.clone(),
            options: self.options.boxed(),
        }
    }
}

/// The virtual-user options (`vuset`), HammerDB's globals: read when the script is loaded and
/// again at each run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VuGlobals {
    pub virtual_users: u32,
    pub user_delay: Duration,
    pub show_output: bool,
    /// Between two intervals of the live view; zero for none.
    pub refresh: Duration,
}

impl VuGlobals {
    pub fn read(settings: &Settings) -> Self {
        let g = &settings.generic;
        VuGlobals {
            virtual_users: g.get_u32("virtual_users"),
            user_delay: g.get_millis("user_delay"),
            show_output: g.get_bool("show_output"),
            refresh: g.get_secs("refresh_rate"),
        }
    }
}

/// `HAMMER_RECONNECT_SECS` (seconds, may be fractional), else [`super::RECONNECT_FOR`].
pub fn reconnect_for() -> Result<Duration> {
    const VAR: &str = "HAMMER_RECONNECT_SECS";
    let Ok(v) = std::env::var(VAR) else {
        return Ok(super::shared::RECONNECT_FOR);
    };
    match v.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && (0.0..=86_400.0).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => Err(Error::BadEnv {
            var: VAR,
            value: v,
            want: "the seconds terminals keep reconnecting, 0 to 86400",
        }),
    }
}

impl Script {
    /// The script of the current database, whose schema is `schema`, for a workload whose
    /// options are read.
    pub fn new(settings: &Settings, schema: String, options: impl WorkloadOptions) -> Self {
        Self::with_options(settings, schema, Box::new(options))
    }

    /// [`Script::new`] for options a benchmark gave already boxed.
    pub fn with_options(
        settings: &Settings,
        schema: String,
        options: Box<dyn WorkloadOptions>,
    ) -> Self {
        Script {
            db: settings.current(),
            settings: settings.clone(),
            schema,
            options,
        }
    }

    /// The workload's name: `TPROC-C`.
    pub fn workload(&self) -> &'static str {
        self.options.workload()
    }

    /// The workload's own options, when the script is for the workload whose options are `O`.
    pub fn options<O: WorkloadOptions>(&self) -> Option<&O> {
        self.options.as_any().downcast_ref()
    }

    /// Takes the virtual-user options (`vuset`) from the current settings.
    pub fn use_vu_options(&mut self, settings: &Settings) -> Result<()> {
        self.options.use_vu_options(settings)
    }

    /// Whether a run has a monitor (virtual user 1).
    pub fn timed(&self) -> bool {
        self.options.timed()
    }

    /// Worker virtual users a run starts.
    pub fn virtual_users(&self) -> u32 {
        self.options.virtual_users()
    }

    /// How a run drives its database, for the job's profile.
    pub fn mode(&self) -> String {
        self.options.mode()
    }

    /// The schema size the job's profile compares runs by, if the workload has one.
    pub fn warehouses(&self) -> Option<u32> {
        self.options.warehouses()
    }

    /// `print script`: the options block, readable.
    pub fn render(&self) -> String {
        let rows = self.options.rows(self.db, &self.schema);
        let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let mut text = String::from("#OPTIONS\n");
        for (k, v) in rows {
            text.push_str(&format!("{k:<width$} = {v}\n"));
        }
        text.push_str("#OPTIONS");
        text
    }
}
