//! Virtual users: the loaded script, the created virtual users and their states, and runs.
//!
//! HammerDB's words at the edge (`loadscript`, `vucreate`, `vurun`), plain state here: the
//! script is the frozen driver configuration, a virtual user is a slot with a state; tasks
//! exist only while `vurun` runs.

use std::sync::{Arc, Mutex};

use crate::config::{Database, Settings};
use crate::tpcc::driver::{DriverKind, Options, VuState};

/// What `loadscript` froze: the database, its settings and the driver options.
#[derive(Clone)]
pub struct Script {
    pub db: Database,
    pub settings: Settings,
    pub options: Options,
}

/// `HAMMER_RECONNECT_SECS` (seconds, may be fractional), else a minute.
fn reconnect_for() -> crate::error::Result<std::time::Duration> {
    const VAR: &str = "HAMMER_RECONNECT_SECS";
    let Ok(v) = std::env::var(VAR) else {
        return Ok(crate::tpcc::driver::RECONNECT_FOR);
    };
    match v.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && (0.0..=86_400.0).contains(&s) => {
            Ok(std::time::Duration::from_secs_f64(s))
        }
        _ => Err(crate::error::Error::Config(format!(
            "{VAR}={v:?} is not valid: give the seconds terminals keep reconnecting, 0 to 86400"
        ))),
    }
}

impl Script {
    /// The driver configuration of the current database, as `loadscript` takes it.
    pub fn load(settings: &Settings) -> Self {
        let db = settings.current();
        let d = settings.db(db);
        let g = &settings.generic;
        let p = db.prefix();
        let k = |key: &str| format!("{p}_{key}");
        let minutes = |key: &str| std::time::Duration::from_secs_f64(d.get_f64(&k(key)) * 60.0);
        let options = Options {
            driver: if d.get(&k("driver")) == "test" {
                DriverKind::Test
            } else {
                DriverKind::Timed
            },
            warehouses: d.get_i64(&k("count_ware")) as u32,
            total_iterations: d.get_i64(&k("total_iterations")) as u64,
            raise_error: d.get_bool(&k("raiseerror")),
            key_and_think: d.get_bool(&k("keyandthink")),
            rampup: minutes("rampup"),
            duration: minutes("duration"),
            all_warehouses: d.get_bool(&k("allwarehouse")),
            time_profile: d.get_bool(&k("timeprofile")),
            async_scale: d.get_bool(&k("async_scale")),
            async_clients: d.get_i64(&k("async_client")) as u32,
            async_delay: std::time::Duration::from_millis(d.get_i64(&k("async_delay")) as u64),
            async_pool: d.get_i64(&k("async_pool")) as u32,
            reconnect_for: crate::tpcc::driver::RECONNECT_FOR,
            virtual_users: g.get_i64("virtual_users") as u32,
            user_delay: std::time::Duration::from_millis(g.get_i64("user_delay") as u64),
            show_output: g.get_bool("show_output"),
            nopm_first: g.get("first_result") != "TPM",
        };
        Script {
            db,
            settings: settings.clone(),
            options,
        }
    }

    /// Takes the virtual-user options (`vuset`) from the current settings.
    pub fn use_vu_options(&mut self, settings: &Settings) -> crate::error::Result<()> {
        let g = &settings.generic;
        self.options.virtual_users = g.get_i64("virtual_users") as u32;
        self.options.user_delay = std::time::Duration::from_millis(g.get_i64("user_delay") as u64);
        self.options.show_output = g.get_bool("show_output");
        self.options.nopm_first = g.get("first_result") != "TPM";
        self.options.reconnect_for = reconnect_for()?;
        Ok(())
    }

    pub fn timed(&self) -> bool {
        self.options.driver == DriverKind::Timed
    }

    /// `print script`: the options block, readable.
    pub fn render(&self) -> String {
        let o = &self.options;
        let d = self.settings.db(self.db);
        let p = self.db.prefix();
        let mode = if d.get_bool(&format!("{p}_no_stored_procs")) {
            "client-side SQL".to_string()
        } else if self.db == Database::Pg && d.get_bool("pg_storedprocs") {
            "stored procedures (CALL)".to_string()
        } else if self.db == Database::Pg {
            "stored functions (SELECT)".to_string()
        } else {
            "stored procedures (CALL)".to_string()
        };
        let driver = match o.driver {
            DriverKind::Test => "test".to_string(),
            DriverKind::Timed => format!(
                "timed: rampup {} min, duration {} min",
                o.rampup.as_secs_f64() / 60.0,
                o.duration.as_secs_f64() / 60.0
            ),
        };
        let rows: Vec<(&str, String)> = vec![
            ("workload", "TPROC-C".into()),
            (
                "database",
                format!(
                    "{} ({})",
                    self.db.name(),
                    crate::db::describe_schema(&self.settings, self.db)
                ),
            ),
            ("mode", mode),
            ("driver", driver),
            (
                "virtual users",
                format!(
                    "{}{}",
                    o.virtual_users,
                    if self.timed() { " + 1 monitor" } else { "" }
                ),
            ),
            ("warehouses", o.warehouses.to_string()),
            ("total iterations", o.total_iterations.to_string()),
            ("raise error", o.raise_error.to_string()),
            ("keying and thinking", o.key_and_think.to_string()),
            ("all warehouses", o.all_warehouses.to_string()),
            ("time profile", o.time_profile.to_string()),
            (
                "async scale",
                if o.async_scale {
                    format!(
                        "{} clients per virtual user, {} ms login delay, {}",
                        o.async_clients,
                        o.async_delay.as_millis(),
                        if o.async_pool == 0 {
                            "a connection each".to_string()
                        } else {
                            format!("sharing {} connections", o.async_pool)
                        }
                    )
                } else {
                    "false".into()
                },
            ),
            ("user delay", format!("{} ms", o.user_delay.as_millis())),
            ("show output", o.show_output.to_string()),
        ];
        let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let mut text = String::from("#OPTIONS\n");
        for (k, v) in rows {
            text.push_str(&format!("{k:<width$} = {v}\n"));
        }
        text.push_str("#OPTIONS");
        text
    }
}

/// The created virtual users: one state per user, virtual user 1 first.
#[derive(Clone, Default)]
pub struct Board {
    states: Arc<Mutex<Vec<VuState>>>,
}

impl Board {
    pub fn new(count: usize) -> Self {
        Board {
            states: Arc::new(Mutex::new(vec![VuState::WaitIdle; count])),
        }
    }

    pub fn set(&self, vu: usize, state: VuState) {
        let mut s = self.states.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slot) = vu.checked_sub(1).and_then(|i| s.get_mut(i)) {
            *slot = state;
        }
    }

    pub fn states(&self) -> Vec<VuState> {
        self.states
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn len(&self) -> usize {
        self.states().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every virtual user has finished (the state `vucomplete` reports).
    pub fn complete(&self) -> bool {
        let s = self.states();
        !s.is_empty()
            && s.iter()
                .all(|v| matches!(v, VuState::FinishSuccess | VuState::FinishFailed))
    }
}

/// The session's virtual-user state.
#[derive(Default)]
pub struct VuManager {
    pub script: Option<Script>,
    pub board: Option<Board>,
    /// Whether the script the virtual users were created for has a monitor.
    pub monitor: bool,
    /// A user's Rhai workload (`customscript`), instead of the TPROC-C script.
    pub custom: Option<crate::custom::CustomScript>,
    /// The last run's id and result.
    pub last_run: Option<(String, crate::tpcc::driver::RunResult)>,
}

impl VuManager {
    pub fn exist(&self) -> bool {
        self.board.is_some()
    }
}

/// A run id in HammerDB's job id shape: 24 hexadecimal characters that sort by time.
pub fn new_run_id() -> String {
    crate::jobs::new_id()
}
