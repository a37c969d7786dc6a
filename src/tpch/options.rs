//! TPROC-H's run options: what `loadscript` reads from the `tpch` dictionary
//! (`*_total_querysets`, `*_refresh_on`, ...), how `print script` shows them and how a job
//! names the run's mode (a power test with one virtual user, a throughput test with more).

use std::any::Any;
use std::time::Duration;

use super::NAME;
use crate::config::{Database, Settings};
use crate::error::Result;
use crate::vu::script::{reconnect_for, VuGlobals};
use crate::vu::WorkloadOptions;

/// Everything a TPROC-H run needs from the dictionaries, frozen by `loadscript`.
#[derive(Debug, Clone)]
pub struct Options {
    /// `*_scale_fact`: the schema must be of this scale factor.
    pub scale_factor: f64,
    /// `*_total_querysets`: query sets each query stream runs.
    pub total_querysets: u32,
    /// `*_raise_query_error`: a failed query stops its virtual user (else it is counted).
    pub raise_error: bool,
    /// `*_verbose`: each query's text and rows are shown.
    pub verbose: bool,
    /// `*_refresh_on`: the refresh functions run (power test: around each set; throughput
    /// test: virtual user 1 runs `update_sets` pairs).
    pub refresh_on: bool,
    /// `*_update_sets`: refresh pairs virtual user 1 runs in a throughput test.
    pub update_sets: u32,
    /// `*_trickle_refresh`: the pause between two refresh functions of the refresh stream.
    pub trickle: Duration,
    /// `*_refresh_verbose`: each refresh function's rows are said.
    pub refresh_verbose: bool,
    /// `pg_degree_of_parallel`: parallel workers per query (PostgreSQL), if the database
    /// has the key.
    pub degree_of_parallel: Option<u32>,
    /// `*_validate` (hammer's): the validation parameters, and each answer checked.
    pub validate: bool,
    pub virtual_users: u32,
    pub user_delay: Duration,
    /// `vuset refreshrate`: between two intervals of the live view; zero for none.
    pub refresh: Duration,
    pub reconnect_for: Duration,
}

impl Options {
    /// The `tpch` dictionary of the current database, as `loadscript` takes it.
    pub fn load(settings: &Settings) -> Self {
        let db = settings.current();
        let d = settings.db(db);
        let k = |key: &str| db.key(key);
        let vu = VuGlobals::read(settings);
        let parallel = k("degree_of_parallel");
        Options {
            scale_factor: d.get_f64(&k("scale_fact")),
            total_querysets: d.get_i64(&k("total_querysets")).max(1) as u32,
            raise_error: d.get_bool(&k("raise_query_error")),
            verbose: d.get_bool(&k("verbose")),
            refresh_on: d.get_bool(&k("refresh_on")),
            update_sets: d.get_i64(&k("update_sets")).max(1) as u32,
            trickle: Duration::from_millis(d.get_i64(&k("trickle_refresh")).max(0) as u64),
            refresh_verbose: d.get_bool(&k("refresh_verbose")),
            degree_of_parallel: d
                .spec(&parallel)
                .is_some()
                .then(|| d.get_i64(&parallel).max(1) as u32),
            validate: d.get_bool(&k("validate")),
            virtual_users: vu.virtual_users,
            user_delay: vu.user_delay,
            refresh: vu.refresh,
            reconnect_for: crate::vu::RECONNECT_FOR,
        }
    }

    /// One virtual user is TPC-H's power test; more are its throughput test.
    pub fn power_test(&self) -> bool {
        self.virtual_users <= 1
    }

    /// Whether virtual user 1 runs the refresh stream (a throughput test with refresh on).
    pub fn refresh_stream(&self) -> bool {
        self.refresh_on && !self.power_test()
    }

    /// Query streams the run has: every virtual user's, but the refresh stream's.
    pub fn query_streams(&self) -> u32 {
        self.virtual_users - u32::from(self.refresh_stream())
    }
}

impl WorkloadOptions for Options {
    fn workload(&self) -> &'static str {
        NAME
    }

    fn timed(&self) -> bool {
        false
    }

    fn virtual_users(&self) -> u32 {
        self.virtual_users
    }

    fn use_vu_options(&mut self, settings: &Settings) -> Result<()> {
        let vu = VuGlobals::read(settings);
        self.virtual_users = vu.virtual_users;
        self.user_delay = vu.user_delay;
        self.refresh = vu.refresh;
        self.reconnect_for = reconnect_for()?;
        Ok(())
    }

    fn rows(&self, db: Database, schema: &str) -> Vec<(&'static str, String)> {
        let o = self;
        let mut rows = vec![
            ("workload", NAME.into()),
            ("database", format!("{} ({schema})", db.name())),
            ("mode", self.mode()),
            ("scale factor", super::shown(o.scale_factor)),
            ("virtual users", o.virtual_users.to_string()),
            ("query sets", o.total_querysets.to_string()),
            (
                "parameters",
                if o.validate {
                    "validation (answers checked)".into()
                } else {
                    "random, per stream".into()
                },
            ),
            ("raise query error", o.raise_error.to_string()),
            ("verbose", o.verbose.to_string()),
            (
                "refresh",
                if !o.refresh_on {
                    "false".into()
                } else if o.power_test() {
                    "RF1 before and RF2 after each query set".into()
                } else {
                    format!(
                        "virtual user 1: {} update set(s), {} ms apart",
                        o.update_sets,
                        o.trickle.as_millis()
                    )
                },
            ),
        ];
        if let Some(n) = o.degree_of_parallel {
            rows.push(("degree of parallel", n.to_string()));
        }
        rows.push(("user delay", format!("{} ms", o.user_delay.as_millis())));
        rows
    }

    /// `power test` or `throughput test, 3 streams`, with `refresh` and `validation`.
    fn mode(&self) -> String {
        let mut parts = vec![if self.power_test() {
            "power test".to_string()
        } else {
            format!("throughput test, {} streams", self.query_streams())
        }];
        if self.refresh_on {
            parts.push("refresh".into());
        }
        if self.validate {
            parts.push("validation".into());
        }
        parts.join(", ")
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
    use crate::config::Target;

    fn tpch(settings: &mut Settings) {
        settings
            .set(Target::Generic, "benchmark", "bm", "TPC-H")
            .expect("bm");
    }

    #[test]
    fn one_virtual_user_is_the_power_test_and_more_the_throughput_test() {
        let mut s = Settings::defaults();
        tpch(&mut s);
        let o = Options::load(&s);
        assert_eq!((o.scale_factor, o.total_querysets), (1.0, 1));
        assert!(o.power_test());
        assert_eq!(o.mode(), "power test");
        assert_eq!(o.degree_of_parallel, Some(2));
        let mut o = o;
        o.virtual_users = 3;
        assert_eq!(o.mode(), "throughput test, 3 streams");
        o.refresh_on = true;
        assert_eq!(o.query_streams(), 2);
        assert_eq!(o.mode(), "throughput test, 2 streams, refresh");
    }
}
