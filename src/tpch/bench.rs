//! TPROC-H as the session sees it ([`TPROC_H`], a `bench::Benchmark`): the schema commands
//! on the current database's `Support` (offered by the engine, `db::engine::offered`), with their lines and summary.
//! Data generation writes dbgen's flat files (`tpch::gen::datagen`); runs are
//! `tpch::driver`'s.

use std::path::{Path, PathBuf};

use super::build::Plan;
use super::gen::datagen;
use super::options::Options;
use super::outcome::Tpch;
use super::schema::Say;
use super::support::Support;
use super::{scale_factor, shown, threads, NAME};
use crate::bench::benchmark::{Benchmark, Built, Check, Generation, Ran, Work};
use crate::benchmarks::Named;
use crate::config::{Database, Settings};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::vu::{Script, StateSink, WorkloadOptions};

/// TPROC-H, HammerDB's TPC-H derived workload.
pub struct Tproch;

/// The one TPROC-H.
pub static TPROC_H: Tproch = Tproch;

/// What TPROC-H needs of `db`, as its engine offers it, or why it cannot have it.
pub fn support(db: Database) -> Result<&'static dyn Support> {
    crate::db::engine::offered::<&'static dyn Support>(crate::db::engine(db)).ok_or(
        Error::WorkloadUnavailable {
            workload: NAME,
            db: db.name(),
        },
    )
}

impl Benchmark for Tproch {
    fn names(&self) -> &'static Named {
        &crate::benchmarks::TPROC_H
    }

    fn describe(&self, settings: &Settings) -> String {
        support(settings.current())
            .map(|s| s.describe(settings))
            .unwrap_or_default()
    }

    fn job_sizes(&self, settings: &Settings) -> (u32, Option<u32>) {
        (threads(settings, settings.current()), None)
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
            scale_factor: scale_factor(settings, db),
            loaders: threads(settings, db),
        };
        // One driver of several loads only its part (hammer's own).
        let (part, parts) = super::split::build_part(settings)?;
        let (settings, out, interrupt) = (settings.clone(), out.clone(), interrupt.clone());
        Ok(Box::pin(async move {
            let sf = shown(plan.scale_factor);
            if parts == 1 {
                out.line(format!(
                    "Ready to create a Scale Factor {sf} {} TPROC-H schema in {}",
                    db.name(),
                    support.describe(&settings)
                ));
            } else {
                out.line(format!(
                    "Ready to load part {part} of {parts} of a Scale Factor {sf} {} TPROC-H \
                     schema in {}, as one driver of several: the driver of part 1 creates the \
                     schema and adds its keys",
                    db.name(),
                    support.describe(&settings)
                ));
            }
            let b = plan.loaders;
            if b == 1 {
                out.line(format!("Building Scale Factor {sf} with 1 Virtual User"));
            } else {
                out.line(format!(
                    "Building Scale Factor {sf} with {} Virtual Users, {b} active + 1 Monitor VU(dict value {}_num_tpch_threads is set to {b})",
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
                scale: ("scale_fact", plan.scale_factor),
                rows: summary.rows,
                elapsed: summary.elapsed,
                bytes_on_disk: summary.bytes_on_disk,
                split: summary.split,
            };
            let (rows, secs, rate) = (
                built.rows,
                built.elapsed.as_secs_f64(),
                built.rows_per_second(),
            );
            match &built.split {
                None => out.line(format!(
                    "TPROC-H schema built: scale factor {sf}, {rows} rows in {secs:.1} s ({rate:.0} rows/s), {:.1} MB on disk",
                    built.bytes_on_disk as f64 / 1e6
                )),
                Some(split) if split.finished => {
                    out.line(format!(
                        "TPROC-H schema built: scale factor {sf} by {} drivers; this driver loaded {}: {rows} rows in {secs:.1} s ({rate:.0} rows/s), then added the keys; {:.1} MB on disk",
                        split.parts.len(),
                        split.share,
                        built.bytes_on_disk as f64 / 1e6
                    ));
                    for part in &split.parts {
                        out.line(format!("  {part}"));
                    }
                }
                Some(split) => out.line(format!(
                    "TPROC-H {} loaded: {rows} rows in {secs:.1} s ({rate:.0} rows/s); another driver adds the schema's keys",
                    split.share
                )),
            }
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
            let sf = scale_factor(&settings, db);
            out.line("Checking schema with 1 Virtual User");
            let say = Say::new(out, 1);
            let checks = support.check(&settings, sf, &say, &interrupt).await?;
            let failed = checks.iter().filter(|c| !c.ok).count();
            for c in &checks {
                let verdict = if c.ok { "PASS" } else { "FAIL" };
                say.line(format!("{verdict} {}: {}", c.what, c.detail));
            }
            if failed == 0 {
                say.line(format!(
                    "{} TPROC-H Schema of Scale Factor {} has been checked successfully.",
                    db.name(),
                    shown(sf)
                ));
            } else {
                say.line(format!(
                    "TPROC-H Schema check failed {}: {failed} of {} checks failed",
                    db.name(),
                    checks.len()
                ));
            }
            Ok(checks)
        }))
    }

    fn tables(&self) -> Vec<&'static str> {
        let mut tables: Vec<&'static str> = super::Table::ALL.iter().map(|t| t.name()).collect();
        // A split build's ledger (hammer's own), which TPROC-C's builds keep too.
        tables.push(crate::bench::split::LEDGER);
        tables
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
            out.line(crate::bench::deleting::verdict(&TPROC_H, all, &survey)?);
            let say = Say::new(out, 1);
            support.delete(&settings, &say).await
        }))
    }

    fn generation_plan(&self, settings: &Settings, dir: &Path) -> String {
        let g = &settings.generic;
        format!(
            "Data Generation set to build a TPC-H schema for {} with scale factor {} with {} virtual users in {}",
            settings.current().name(),
            g.get("gen_scale_fact"),
            g.get("gen_num_vu"),
            dir.display()
        )
    }

    fn generate(&self, settings: &Settings, dir: &Path) -> Result<Generation> {
        let g = &settings.generic;
        let sf = g.get_f64("gen_scale_fact");
        let parts = g.get_i64("gen_num_vu").max(1) as u32;
        let db = settings.current();
        let dir: PathBuf = dir.to_path_buf();
        Ok(Box::new(move |out: &Output, interrupt: &Interrupt| {
            let said = shown(sf);
            out.line(format!(
                "Ready to generate the data for a Scale Factor {said} {} TPROC-H schema in directory {}",
                db.name(),
                dir.display()
            ));
            let say = Say::new(out.clone(), 1);
            let done = datagen(sf, parts, &dir, &say, interrupt)?;
            out.line(format!(
                "SCALE FACTOR {said} TPROC-H SCHEMA GENERATED in {:.2} MINUTES ({} rows in {} files, {:.1} MB, {:.1} s)",
                done.elapsed.as_secs_f64() / 60.0,
                done.rows,
                done.files,
                done.bytes as f64 / 1e6,
                done.elapsed.as_secs_f64()
            ));
            Ok(done.rows)
        }))
    }

    /// Queries per hour (`qph`), as HammerDB's counter shows TPROC-H, read as the `tpch_`
    /// logins (`pg_tpch_superuser`, `maria_tpch_user`).
    fn counting(&self) -> crate::db::counter::Counting {
        crate::db::counter::Counting {
            counted: crate::db::counter::Counted::Queries,
            keys: "tpch_",
        }
    }

    fn options(&self, settings: &Settings) -> Result<Box<dyn WorkloadOptions>> {
        support(settings.current())?;
        Ok(Box::new(Options::load(settings)))
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
            let out = say.out().clone();
            let r = super::driver::run(support, settings, db, opts, say, states, interrupt).await?;
            for line in super::result::summary(&r, db.name()) {
                out.line(line);
            }
            Ok(Box::new(Tpch::new(r, db)) as Ran)
        }))
    }
}
