//! OLTP's run options: what `loadscript` reads from the `oltp` dictionary (the test, its
//! statements per event, how long and how fast, the distribution of the ids), checked
//! together, how `print script` shows them and how a job names the run's mode. Virtual users
//! are sysbench's `--threads`.

use std::any::Any;
use std::time::Duration;

use super::rand::RandSpec;
use super::{rand_spec, Layout, NAME};
use crate::config::{Database, Settings};
use crate::error::{Error, Result};
use crate::vu::script::{reconnect_for, VuGlobals};
use crate::vu::WorkloadOptions;

pub use super::events::Test;

/// sysbench's statements per event of the `oltp_*` tests (`--point_selects`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerEvent {
    pub point_selects: u32,
    pub simple_ranges: u32,
    pub sum_ranges: u32,
    pub order_ranges: u32,
    pub distinct_ranges: u32,
    pub index_updates: u32,
    pub non_index_updates: u32,
    pub delete_inserts: u32,
    /// `--range_selects`: off leaves out the four kinds of range SELECT.
    pub range_selects: bool,
    /// `--range_size`: ids per range.
    pub range_size: u32,
    /// select_random_points' `--random_points`: values in its IN list.
    pub random_points: u32,
    /// select_random_ranges' `--number_of_ranges` and `--delta`.
    pub number_of_ranges: u32,
    pub delta: u32,
}

/// Everything an OLTP run needs from the dictionaries, frozen by `loadscript`.
#[derive(Debug, Clone)]
pub struct Options {
    pub test: Test,
    /// The tables the run works on, as the build made them.
    pub layout: Layout,
    pub per_event: PerEvent,
    /// `*_oltp_skip_trx`: every statement in autocommit, no BEGIN/COMMIT.
    pub skip_trx: bool,
    /// `*_oltp_reconnect`: a virtual user reconnects after this many events (0: never).
    pub reconnect: u32,
    /// `*_oltp_rampup`: events before the measured window (not counted).
    pub rampup: Duration,
    /// `*_oltp_duration` (sysbench's `--time`): zero is no time limit.
    pub duration: Duration,
    /// `*_oltp_events` (sysbench's `--events`): zero is no limit.
    pub events: u64,
    /// `*_oltp_rate` (sysbench's `--rate`): events per second over all virtual users, an
    /// open loop; zero is as fast as they go.
    pub rate: u32,
    pub rand: RandSpec,
    pub virtual_users: u32,
    pub user_delay: Duration,
    /// `vuset refreshrate`: between two intervals of the live view; zero for none.
    pub refresh: Duration,
    pub reconnect_for: Duration,
}

impl Options {
    /// The `oltp` dictionary of the current database, as `loadscript` takes it; refuses
    /// settings no run can honour together.
    pub fn load(settings: &Settings) -> Result<Self> {
        let db = settings.current();
        let d = settings.db(db);
        let k = |name: &str| db.key(&format!("oltp_{name}"));
        let n = |name: &str| d.get_u32(&k(name));
        let vu = VuGlobals::read(settings);
        let o = Options {
            test: Test::parse(d.get(&k("test"))).unwrap_or(Test::ReadWrite),
            layout: Layout::of(settings, db),
            per_event: PerEvent {
                point_selects: n("point_selects"),
                simple_ranges: n("simple_ranges"),
                sum_ranges: n("sum_ranges"),
                order_ranges: n("order_ranges"),
                distinct_ranges: n("distinct_ranges"),
                index_updates: n("index_updates"),
                non_index_updates: n("non_index_updates"),
                delete_inserts: n("delete_inserts"),
                range_selects: d.get_bool(&k("range_selects")),
                range_size: n("range_size"),
                random_points: n("random_points"),
                number_of_ranges: n("number_of_ranges"),
                delta: n("delta"),
            },
            skip_trx: d.get_bool(&k("skip_trx")),
            reconnect: n("reconnect"),
            rampup: d.get_minutes(&k("rampup")),
            duration: d.get_minutes(&k("duration")),
            events: d.get_u64(&k("events")),
            rate: n("rate"),
            rand: rand_spec(settings, db),
            virtual_users: vu.virtual_users,
            user_delay: vu.user_delay,
            refresh: vu.refresh,
            reconnect_for: crate::vu::RECONNECT_FOR,
        };
        o.check(db)?;
        Ok(o)
    }

    /// What no run can do: end without a duration or a number of events.
    fn check(&self, db: Database) -> Result<()> {
        if self.duration.is_zero() && self.events == 0 {
            return Err(Error::ConflictingKeys {
                first: format!("{} 0", db.key("oltp_duration")),
                second: format!("{} 0", db.key("oltp_events")),
                why: "the run would have no end; give it minutes or a number of events \
                      (sysbench's --time or --events)"
                    .into(),
            });
        }
        Ok(())
    }

    /// `5 minutes`, `10000 events`, or `at most 10000 events in 5 minutes`.
    fn length(&self) -> String {
        let minutes = self.duration.as_secs_f64() / 60.0;
        match (self.duration.is_zero(), self.events) {
            (false, 0) => format!("{minutes} minutes"),
            (true, n) => format!("{n} events"),
            (false, n) => format!("at most {n} events in {minutes} minutes"),
        }
    }
}

impl WorkloadOptions for Options {
    fn workload(&self) -> &'static str {
        NAME
    }

    /// The virtual users are sysbench's threads; a run with a duration has a monitor on top
    /// (virtual user 1), which reads the server's counters around the measured window.
    fn timed(&self) -> bool {
        !self.duration.is_zero()
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
        let p = &self.per_event;
        let mut rows = vec![
            ("workload", NAME.into()),
            ("database", format!("{} ({schema})", db.name())),
            ("test", self.test.name().into()),
            ("tables", self.layout.shown()),
            ("threads", format!("{} virtual users", self.virtual_users)),
            ("length", self.length()),
        ];
        if !self.rampup.is_zero() {
            rows.push((
                "rampup",
                format!("{} minutes", self.rampup.as_secs_f64() / 60.0),
            ));
        }
        rows.push((
            "rate",
            if self.rate == 0 {
                "as fast as they go".into()
            } else {
                format!("{} events per second", self.rate)
            },
        ));
        match self.test {
            Test::RandomPoints => rows.push(("random points", p.random_points.to_string())),
            Test::RandomRanges => rows.push((
                "ranges",
                format!("{} of {} ids each", p.number_of_ranges, p.delta),
            )),
            _ => rows.push((
                "per event",
                format!(
                    "point_selects {}, simple_ranges {}, sum_ranges {}, order_ranges {}, \
                     distinct_ranges {}, index_updates {}, non_index_updates {}, \
                     delete_inserts {}, range_size {}, range_selects {}",
                    p.point_selects,
                    p.simple_ranges,
                    p.sum_ranges,
                    p.order_ranges,
                    p.distinct_ranges,
                    p.index_updates,
                    p.non_index_updates,
                    p.delete_inserts,
                    p.range_size,
                    p.range_selects
                ),
            )),
        }
        rows.push(("skip_trx", self.skip_trx.to_string()));
        rows.push(("reconnect", self.reconnect.to_string()));
        rows.push(("rand_type", self.rand.kind.to_string()));
        rows
    }

    /// The test, and what differs from sysbench's defaults that changes what it does:
    /// `oltp_read_only, range_selects off`.
    fn mode(&self) -> String {
        let mut parts = vec![self.test.name().to_string()];
        if !self.per_event.range_selects {
            parts.push("range_selects off".into());
        }
        if self.skip_trx {
            parts.push("skip_trx".into());
        }
        if self.rate > 0 {
            parts.push(format!("rate {}", self.rate));
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

    fn oltp() -> Settings {
        let mut s = Settings::defaults();
        s.set(Target::Generic, "benchmark", "bm", "OLTP").unwrap();
        s
    }

    #[test]
    fn the_defaults_are_sysbenchs() {
        let o = Options::load(&oltp()).unwrap();
        assert_eq!(o.test, Test::ReadWrite);
        assert_eq!(
            o.per_event,
            PerEvent {
                point_selects: 10,
                simple_ranges: 1,
                sum_ranges: 1,
                order_ranges: 1,
                distinct_ranges: 1,
                index_updates: 1,
                non_index_updates: 1,
                delete_inserts: 1,
                range_selects: true,
                range_size: 100,
                random_points: 10,
                number_of_ranges: 10,
                delta: 5,
            }
        );
        assert_eq!((o.events, o.rate, o.reconnect), (0, 0, 0));
        assert!(!o.skip_trx && o.rampup.is_zero());
        assert_eq!(o.duration, Duration::from_secs(300));
        assert_eq!(o.mode(), "oltp_read_write");
        assert_eq!(o.rand, RandSpec::default());
        let names: Vec<&str> = crate::oltp::events::TESTS
            .iter()
            .map(|t| t.name())
            .collect();
        assert_eq!(names, crate::config::keys::OLTP_TESTS);
    }

    #[test]
    fn a_run_without_an_end_is_refused_naming_both_keys() {
        let mut s = oltp();
        let pg = Target::Db(Database::Pg);
        s.set(pg, "oltp", "pg_oltp_duration", "0").unwrap();
        let e = Options::load(&s).unwrap_err().to_string();
        assert_eq!(
            e,
            "pg_oltp_duration 0 and pg_oltp_events 0 cannot both be set: the run would have no \
             end; give it minutes or a number of events (sysbench's --time or --events)"
        );
        s.set(pg, "oltp", "pg_oltp_events", "1000").unwrap();
        let o = Options::load(&s).unwrap();
        assert_eq!(o.length(), "1000 events");
        s.set(pg, "oltp", "pg_oltp_duration", "0.5").unwrap();
        s.set(pg, "oltp", "pg_oltp_test", "OLTP_READ_ONLY").unwrap();
        s.set(pg, "oltp", "pg_oltp_range_selects", "off").unwrap();
        let o = Options::load(&s).unwrap();
        assert_eq!(o.length(), "at most 1000 events in 0.5 minutes");
        assert_eq!(o.mode(), "oltp_read_only, range_selects off");
        let rows = o.rows(Database::Pg, "sbtest");
        assert!(
            rows.contains(&("test", "oltp_read_only".to_string())),
            "{rows:?}"
        );
    }
}
