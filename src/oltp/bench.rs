//! OLTP as the session sees it ([`OLTP`], a `bench::Benchmark`): the schema commands on the
//! current database's `Support` (offered by the engine, `db::engine::offered`), with
//! sysbench's lines and hammer's summary, and the run (`oltp::run`). It has no data
//! generation (sysbench has none: its `prepare` loads the server directly, as `buildschema`
//! does).

use std::path::Path;

use super::build::Plan;
use super::cleanup::{plan, Dropping};
use super::options::Options;
use super::schema::Say;
use super::support::Support;
use super::{build_threads, rand_spec, Layout, Table, NAME};
use crate::bench::benchmark::{Benchmark, Built, Check, Generation, Ran, Work};
use crate::benchmarks::Named;
use crate::config::{Database, Settings};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::vu::{Script, StateSink, WorkloadOptions};

/// OLTP, sysbench's tests on its tables.
pub struct Oltp;

/// The one OLTP.
pub static OLTP: Oltp = Oltp;

/// What OLTP needs of `db`, as its engine offers it, or why it cannot have it.
pub fn support(db: Database) -> Result<&'static dyn Support> {
    crate::db::engine::offered::<&'static dyn Support>(crate::db::engine(db)).ok_or(
        Error::WorkloadUnavailable {
            workload: NAME,
            db: db.name(),
        },
    )
}

impl Benchmark for Oltp {
    fn names(&self) -> &'static Named {
        &crate::benchmarks::OLTP
    }

    fn describe(&self, settings: &Settings) -> String {
        support(settings.current())
            .map(|s| s.describe(settings))
            .unwrap_or_default()
    }

    fn job_sizes(&self, settings: &Settings) -> (u32, Option<u32>) {
        (build_threads(settings, settings.current()), None)
    }

    fn build(
        &self,
        settings: &Settings,
        out: &Output,
        interrupt: &Interrupt,
    ) -> Result<Work<Built>> {
        let db = settings.current();
        let support = support(db)?;
        let plan = Plan {
            layout: Layout::of(settings, db),
            loaders: build_threads(settings, db),
            rand: rand_spec(settings, db),
        };
        let (settings, out, interrupt) = (settings.clone(), out.clone(), interrupt.clone());
        Ok(Box::pin(async move {
            let layout = plan.layout;
            out.line(format!(
                "Ready to create {} {} {NAME} tables (sysbench's sbtest, {}) in {}",
                layout.shown(),
                db.name(),
                plan.rand.kind,
                support.describe(&settings)
            ));
            let b = plan.loaders;
            if b == 1 {
                out.line("Building with 1 Virtual User");
            } else {
                out.line(format!(
                    "Building with {} Virtual Users, {b} active + 1 Monitor VU(dict value {}_oltp_build_threads is set to {b})",
                    b + 1,
                    db.prefix()
                ));
            }
            let say = Say::new(out.clone(), 1);
            let summary = support
                .build(&settings, plan, say, out.clone(), interrupt)
                .await;
            let summary = crate::bench::loading::say_build_end(&out, b, summary)?;
            let built = Built {
                scale: ("table_size", f64::from(layout.rows())),
                rows: summary.rows,
                elapsed: summary.elapsed,
                bytes_on_disk: summary.bytes_on_disk,
                split: None,
            };
            out.line(format!(
                "{NAME} tables built: {}, {} rows in {:.1} s ({:.0} rows/s), {:.1} MB on disk",
                layout.shown(),
                built.rows,
                built.elapsed.as_secs_f64(),
                built.rows_per_second(),
                built.bytes_on_disk as f64 / 1e6
            ));
            Ok(built)
        }))
    }

    fn check(
        &self,
        settings: &Settings,
        out: &Output,
        interrupt: &Interrupt,
    ) -> Result<Work<Vec<Check>>> {
        let db = settings.current();
        let support = support(db)?;
        let (settings, out, interrupt) = (settings.clone(), out.clone(), interrupt.clone());
        Ok(Box::pin(async move {
            let layout = Layout::of(&settings, db);
            out.line("Checking schema with 1 Virtual User");
            let say = Say::new(out, 1);
            let checks = support.check(&settings, layout, &say, &interrupt).await?;
            let failed = checks.iter().filter(|c| !c.ok).count();
            for c in &checks {
                let verdict = if c.ok { "PASS" } else { "FAIL" };
                say.line(format!("{verdict} {}: {}", c.what, c.detail));
            }
            if failed == 0 {
                say.line(format!(
                    "{} {NAME} Schema of {} has been checked successfully.",
                    db.name(),
                    layout.shown()
                ));
            } else {
                say.line(format!(
                    "{NAME} Schema check failed {}: {failed} of {} checks failed",
                    db.name(),
                    checks.len()
                ));
            }
            Ok(checks)
        }))
    }

    fn tables(&self) -> Vec<&'static str> {
        vec![Table(1).name()]
    }

    /// `sbtest1`, `sbtest2`, ...: any number.
    fn owns(&self, name: &str) -> bool {
        Table::is_one(name)
    }

    fn delete(
        &self,
        settings: &Settings,
        out: &Output,
        all: &'static [&'static dyn Benchmark],
    ) -> Result<Work<Vec<String>>> {
        let support = support(settings.current())?;
        let (settings, out) = (settings.clone(), out.clone());
        Ok(Box::pin(async move {
            let survey = support.survey(&settings).await?;
            let (line, dropping) = plan(&OLTP, all, &survey)?;
            out.line(line);
            let say = Say::new(out, 1);
            match dropping {
                Dropping::Database => support.delete(&settings, &say).await,
                Dropping::Tables(tables) => support.drop_tables(&settings, &tables, &say).await,
            }
        }))
    }

    fn generation_plan(&self, settings: &Settings, dir: &Path) -> String {
        format!(
            "Data Generation is not available for {NAME} on {} (into {}): buildschema loads its \
             tables directly, as sysbench's prepare does",
            settings.current().name(),
            dir.display()
        )
    }

    fn generate(&self, _settings: &Settings, _dir: &Path) -> Result<Generation> {
        Err(Error::NoDataGeneration { workload: NAME })
    }

    /// Server-wide transactions per minute, as TPROC-C's counter, read as the `oltp_`
    /// logins (`pg_oltp_superuser`, `maria_oltp_user`).
    fn counting(&self) -> crate::db::counter::Counting {
        crate::db::counter::Counting {
            counted: crate::db::counter::Counted::Transactions,
            keys: "oltp_",
        }
    }

    fn options(&self, settings: &Settings) -> Result<Box<dyn WorkloadOptions>> {
        support(settings.current())?;
        Ok(Box::new(Options::load(settings)?))
    }

    fn run(
        &self,
        script: &Script,
        say: Say,
        states: StateSink,
        interrupt: &Interrupt,
    ) -> Result<Work<Ran>> {
        let Some(opts) = script.options::<Options>().cloned() else {
            return Err(Error::CannotRun {
                workload: script.workload(),
            });
        };
        let (settings, db, interrupt) = (script.settings.clone(), script.db, interrupt.clone());
        let support = support(db)?;
        Ok(Box::pin(async move {
            let (test, threads) = (opts.test.name(), opts.virtual_users);
            let ran = support.run(&settings, opts, say, states, interrupt).await?;
            Ok(Box::new(super::outcome::OltpResult::new(
                ran,
                db.name(),
                test,
                threads,
            )) as Ran)
        }))
    }
}
