//! TPROC-C's run options: what `loadscript` reads from the dictionaries (`*_driver`,
//! `*_count_ware`, `*_rampup`, ...), how `print script` shows them and how a job names the
//! run's mode.

use std::any::Any;
use std::time::Duration;

use super::range::WareRange;
use crate::config::{Database, Settings};
use crate::error::Result;
use crate::vu::script::{reconnect_for, VuGlobals};
use crate::vu::WorkloadOptions;

/// The workload's name, as jobs record it.
pub const NAME: &str = crate::benchmarks::TPROC_C.name;

/// `*_driver`: a functional test or a measured run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverKind {
    Test,
    Timed,
}

/// Everything a run needs from the dictionaries, frozen by `loadscript`.
#[derive(Debug, Clone)]
pub struct Options {
    pub driver: DriverKind,
    /// `*_count_ware`: the schema must have at least this many.
    pub warehouses: u32,
    /// `*_first_ware` and `*_owned_ware`: the warehouses this driver's terminals take their
    /// home warehouses from, checked against the schema's warehouses when the run starts
    /// (see [`WareRange`]); `db` names the keys in that check's error.
    pub first_ware: u32,
    pub owned_ware: u32,
    pub db: Database,
    /// `drivers_run` and `drivers_count`: the shared run this driver joins, if any.
    pub shared: Option<(String, u32)>,
    pub total_iterations: u64,
    pub raise_error: bool,
    pub key_and_think: bool,
    pub rampup: Duration,
    pub duration: Duration,
    pub all_warehouses: bool,
    pub time_profile: bool,
    pub async_scale: bool,
    pub async_clients: u32,
    pub async_delay: Duration,
    /// How long terminals keep reconnecting to a server that went away.
    pub reconnect_for: Duration,
    /// `*_async_pool`: connections a virtual user's asynchronous clients share; 0 gives
    /// each client its own (HammerDB's way).
    pub async_pool: u32,
    pub virtual_users: u32,
    pub user_delay: Duration,
    pub show_output: bool,
    /// `vuset refreshrate`: between two intervals of the live view; zero for none.
    pub refresh: Duration,
    /// `benchmark.first_result`: NOPM first (HammerDB's default) or TPM first.
    pub nopm_first: bool,
    /// `*_connect_pool`: the transactions go to the connect pool's connections.
    pub connect_pool: bool,
    /// How the transactions run under these settings, as the engine says:
    /// `stored functions (SELECT)`, `stored procedures (CALL)`, `client-side SQL`.
    pub routines: &'static str,
    /// The common window of several drivers, once this one has joined them (see
    /// `crate::drivers`); `None` for a run of its own.
    pub window: Option<crate::vu::FixedWindow>,
    /// `*_schemas` above 1: the schemas' databases (`<dbase>1` .. `<dbase>N`) the virtual
    /// users are spread over (see [`super::schemas`]); empty for the one schema `*_dbase`
    /// names.
    pub schemas: Vec<String>,
}

impl Options {
    /// The driver configuration of the current database, as `loadscript` takes it; the
    /// engine said how its transactions run (`routines`).
    pub fn load(settings: &Settings, routines: &'static str) -> Self {
        let db = settings.current();
        let d = settings.db(db);
        let k = |key: &str| db.key(key);
        let vu = VuGlobals::read(settings);
        Options {
            driver: if d.get(&k("driver")) == "test" {
                DriverKind::Test
            } else {
                DriverKind::Timed
            },
            warehouses: d.get_u32(&k("count_ware")),
            first_ware: d.get_u32(&k("first_ware")),
            owned_ware: d.get_u32(&k("owned_ware")),
            db,
            shared: shared_run(settings),
            total_iterations: d.get_u64(&k("total_iterations")),
            raise_error: d.get_bool(&k("raiseerror")),
            key_and_think: d.get_bool(&k("keyandthink")),
            rampup: d.get_minutes(&k("rampup")),
            duration: d.get_minutes(&k("duration")),
            all_warehouses: d.get_bool(&k("allwarehouse")),
            time_profile: d.get_bool(&k("timeprofile")),
            async_scale: d.get_bool(&k("async_scale")),
            async_clients: d.get_u32(&k("async_client")),
            async_delay: d.get_millis(&k("async_delay")),
            async_pool: d.get_u32(&k("async_pool")),
            reconnect_for: crate::vu::RECONNECT_FOR,
            virtual_users: vu.virtual_users,
            user_delay: vu.user_delay,
            show_output: vu.show_output,
            refresh: vu.refresh,
            nopm_first: first_result_nopm(settings),
            connect_pool: d.spec(&k("connect_pool")).is_some() && d.get_bool(&k("connect_pool")),
            routines,
            window: None,
            schemas: schema_names(settings),
        }
    }
}

/// The databases of `*_schemas` above 1; none for one schema.
fn schema_names(settings: &Settings) -> Vec<String> {
    let n = super::schemas::count(settings);
    if n == 1 {
        return Vec::new();
    }
    let db = settings.current();
    let dbase = settings.db(db).get(&db.key("dbase"));
    (1..=n).map(|i| super::schemas::name(dbase, i)).collect()
}

/// The run several drivers share, as `drivers_run` and `drivers_count` name it.
fn shared_run(settings: &Settings) -> Option<(String, u32)> {
    let g = &settings.generic;
    let run = g.get("drivers_run").trim();
    (!run.is_empty()).then(|| (run.to_string(), g.get_u32("drivers_count")))
}

/// `benchmark.first_result`: NOPM first unless it says TPM.
fn first_result_nopm(settings: &Settings) -> bool {
    settings.generic.get("first_result") != "TPM"
}

impl Options {
    /// The warehouses this driver owns in a schema of `total`, or why the keys cannot give
    /// them there.
    pub fn range(&self, total: u32) -> Result<WareRange> {
        WareRange::new(self.db, self.first_ware, self.owned_ware, total)
    }
}

impl WorkloadOptions for Options {
    fn workload(&self) -> &'static str {
        NAME
    }

    fn timed(&self) -> bool {
        self.driver == DriverKind::Timed
    }

    fn virtual_users(&self) -> u32 {
        self.virtual_users
    }

    fn use_vu_options(&mut self, settings: &Settings) -> Result<()> {
        let vu = VuGlobals::read(settings);
        self.virtual_users = vu.virtual_users;
        self.user_delay = vu.user_delay;
        self.show_output = vu.show_output;
        self.refresh = vu.refresh;
        self.nopm_first = first_result_nopm(settings);
        self.reconnect_for = reconnect_for()?;
        // The run a Primary shares is set on the run's settings just before it starts.
        self.shared = shared_run(settings);
        Ok(())
    }

    fn rows(&self, db: Database, schema: &str) -> Vec<(&'static str, String)> {
        let o = self;
        let driver = match o.driver {
            DriverKind::Test => "test".to_string(),
            DriverKind::Timed => format!(
                "timed: rampup {} min, duration {} min",
                o.rampup.as_secs_f64() / 60.0,
                o.duration.as_secs_f64() / 60.0
            ),
        };
        let mut rows = vec![
            ("workload", NAME.into()),
            ("database", format!("{} ({schema})", db.name())),
            ("mode", o.routines.into()),
            ("driver", driver),
            (
                "virtual users",
                format!(
                    "{}{}",
                    o.virtual_users,
                    if o.timed() { " + 1 monitor" } else { "" }
                ),
            ),
            (
                "warehouses",
                if o.first_ware == 1 && o.owned_ware == 0 {
                    o.warehouses.to_string()
                } else {
                    format!(
                        "{} (this driver's home warehouses: {})",
                        o.warehouses,
                        WareRange::keys_text(o.first_ware, o.owned_ware)
                    )
                },
            ),
            ("total iterations", o.total_iterations.to_string()),
        ];
        if !o.schemas.is_empty() {
            let n = o.schemas.len();
            rows.push((
                "schemas",
                format!(
                    "{n}: {}, active virtual user i on schema ((i-1) mod {n})+1",
                    super::schemas::span(&o.schemas)
                ),
            ));
        }
        rows.extend([
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
            ("connect pool", o.connect_pool.to_string()),
            (
                "drivers",
                match &o.shared {
                    Some((run, n)) => format!("one of {n} in run {run}"),
                    None => "this one alone".into(),
                },
            ),
            ("user delay", format!("{} ms", o.user_delay.as_millis())),
            ("show output", o.show_output.to_string()),
        ]);
        rows
    }

    /// e.g. `timed, stored functions, async 10 clients`: the routines without the statement
    /// that calls them.
    fn mode(&self) -> String {
        let mut parts = vec![match self.driver {
            DriverKind::Timed => "timed".to_string(),
            DriverKind::Test => "test".to_string(),
        }];
        let routines = self.routines.split(" (").next().unwrap_or(self.routines);
        parts.push(routines.to_string());
        if self.async_scale {
            parts.push(format!("async {} clients", self.async_clients));
        }
        if self.key_and_think {
            parts.push("keying and thinking".into());
        }
        if self.all_warehouses {
            parts.push("all warehouses".into());
        }
        if self.connect_pool {
            parts.push("connect pool".into());
        }
        if !self.schemas.is_empty() {
            parts.push(format!("{} schemas", self.schemas.len()));
        }
        if let Some((run, n)) = &self.shared {
            parts.push(format!(
                "{} of run {run} ({n} drivers)",
                WareRange::keys_text(self.first_ware, self.owned_ware)
            ));
        }
        parts.join(", ")
    }

    fn warehouses(&self) -> Option<u32> {
        Some(self.warehouses)
    }

    fn boxed(&self) -> Box<dyn WorkloadOptions> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_knows_its_workload_and_mode() {
        let settings = Settings::defaults();
        let options = Options::load(&settings, "stored functions (SELECT)");
        let script = crate::vu::Script::new(
            &settings,
            "host h under user u in database d".into(),
            options,
        );
        assert_eq!(script.workload(), "TPROC-C");
        let o = script.options::<Options>().expect("TPROC-C options");
        assert_eq!(o.warehouses, 1);
        assert_eq!(script.warehouses(), Some(1));
        assert_eq!(script.mode(), "timed, stored functions");
        let text = script.render();
        assert!(text.starts_with("#OPTIONS\nworkload ") && text.ends_with("#OPTIONS"));
        for row in [
            "\nwarehouses          = 1\n",
            "\ndatabase            = PostgreSQL (host h under user u in database d)\n",
            "\nmode                = stored functions (SELECT)\n",
        ] {
            assert!(text.contains(row), "{row} in {text}");
        }
    }
}
