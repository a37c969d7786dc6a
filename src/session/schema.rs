//! The schema commands: buildschema, checkschema and deleteschema on the current database,
//! and dgset and datagenrun for data files; each of the four runs as a job.

use std::path::PathBuf;

use rhai::Dynamic;

use super::{values, Session};
use crate::commands::{self, Command, DGSET_OPTIONS};
use crate::config::Change;
use crate::error::{Error, Result};
use crate::jobs::Kind as JobKind;

impl Session {
    // ---- buildschema / checkschema / deleteschema ---------------------------------------

    fn refuse_with_vus(&self, what: &str) -> Result<()> {
        if self.vus_exist() {
            return Err(Error::VusActive {
                what: what.to_string(),
            });
        }
        Ok(())
    }

    pub fn buildschema(&mut self, args: &[String]) -> Result<Dynamic> {
        self.as_job(args, Self::build_schema_job)
    }

    fn build_schema_job(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.refuse_with_vus("build schema")?;
        let bm = crate::workloads::of(&self.settings)?;
        let work = bm.build(&self.settings, &self.out, &self.interrupt)?;
        self.begin_job(crate::jobs::Spec::schema(
            JobKind::Build,
            &self.settings,
            bm.name(),
            bm.job_sizes(&self.settings),
        ));
        // Not `block_on`: the build sees Ctrl-C itself, stops its loaders between chunks
        // and reports what it loaded.
        let built = self.rt.block_on(work)?;
        Ok(values::build_map(&built).into())
    }

    pub fn checkschema(&mut self, args: &[String]) -> Result<Dynamic> {
        self.as_job(args, Self::check_schema_job)
    }

    fn check_schema_job(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.refuse_with_vus("check schema")?;
        let bm = crate::workloads::of(&self.settings)?;
        let work = bm.check(&self.settings, &self.out, &self.interrupt)?;
        self.begin_job(crate::jobs::Spec::schema(
            JobKind::Check,
            &self.settings,
            bm.name(),
            bm.job_sizes(&self.settings),
        ));
        // Not `block_on`: the check sees Ctrl-C itself and cancels its queries on the server
        // before it ends.
        let checks = self.rt.block_on(work)?;
        Ok(values::checks_map(&checks).into())
    }

    pub fn deleteschema(&mut self, args: &[String]) -> Result<Dynamic> {
        self.as_job(args, Self::delete_schema_job)
    }

    fn delete_schema_job(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.refuse_with_vus("delete schema")?;
        let bm = crate::workloads::of(&self.settings)?;
        let work = bm.delete(&self.settings, &self.out, &crate::workloads::ALL)?;
        self.begin_job(crate::jobs::Spec::schema(
            JobKind::Delete,
            &self.settings,
            bm.name(),
            bm.job_sizes(&self.settings),
        ));
        let dropped = self.block_on(work)??;
        Ok(values::lines(dropped).into())
    }

    // ---- dgset / datagenrun ------------------------------------------------------------

    /// Where datagenrun writes: `gen_directory`, or the temporary directory when empty.
    pub(super) fn datagen_dir(&self) -> PathBuf {
        crate::bench::generation::directory(&self.settings)
    }

    /// The chosen benchmark for data generation: an unknown `bm` cannot be set, and the
    /// default benchmark stands in all the same.
    pub(super) fn datagen_benchmark(&self) -> &'static dyn crate::bench::Benchmark {
        crate::workloads::of(&self.settings).unwrap_or(crate::workloads::ALL[0])
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
        let bm = self.datagen_benchmark();
        crate::bench::generation::check_change(bm, &self.settings, key, &args[1])?;
        let change = self.settings.set(
            crate::config::Target::Generic,
            "datageneration",
            key,
            &args[1],
        )?;
        if let Change::Changed { .. } = change {
            self.persist();
        }
        let value = if *key == "gen_directory" {
            self.datagen_dir().display().to_string()
        } else {
            args[1].trim().to_string()
        };
        let what = commands::dgset_sets(option);
        self.out
            .line(format!("Set {what} to {value} for data generation"));
        Ok(Dynamic::UNIT)
    }

    pub fn datagenrun(&mut self, args: &[String]) -> Result<Dynamic> {
        self.as_job(args, Self::datagen_job)
    }

    fn datagen_job(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.refuse_with_vus("generate data")?;
        let bm = crate::workloads::of(&self.settings)?;
        let dir = self.datagen_dir();
        let generate = bm.generate(&self.settings, &dir)?;
        crate::bench::generation::check_writable_dir(&dir)?;
        self.begin_job(crate::jobs::Spec::datagen(
            &self.settings,
            bm.name(),
            bm.generation_warehouses(&self.settings),
        ));
        let rows = generate(&self.out, &self.interrupt)?;
        Ok((rows as i64).into())
    }
}
