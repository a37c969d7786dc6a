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
        // The key's own range first: `dgset vu 9223372036854775807` is out of range, whatever
        // the warehouses.
        self.settings.check(
            crate::config::Target::Generic,
            "datageneration",
            key,
            &args[1],
        )?;
        let g = &self.settings.generic;
        let (vus, ware) = (g.get_i64("gen_num_vu"), g.get_i64("gen_count_ware"));
        match *option {
            // The dictionary checks it against the TPROC-H scale factors.
            "scale_fact" => {}
            "vu" | "warehouse" => {
                let n: i64 = args[1].trim().parse().map_err(|_| Error::NotAnInteger {
                    option: option.to_string(),
                    value: args[1].clone(),
                })?;
                let (v, w) = if *option == "vu" { (n, ware) } else { (vus, n) };
                // TPROC-C's writers each take whole warehouses; TPROC-H's take dbgen's parts.
                let by_warehouse = crate::workloads::of(&self.settings)
                    .map_or(true, |b| b.job_sizes(&self.settings).1.is_some());
                if by_warehouse && v > w && n >= 1 {
                    return Err(Error::TooManyBuilders {
                        vus: v,
                        warehouses: w,
                        way_out: None,
                    });
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
            "scale_fact" => format!("Set scale factor to {} for data generation", args[1].trim()),
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
        let bm = crate::workloads::of(&self.settings)?;
        let dir = self.datagen_dir();
        let generate = bm.generate(&self.settings, &dir)?;
        check_writable_dir(&dir)?;
        // Sized in warehouses (TPROC-C) or by its scale factor (TPROC-H).
        let warehouses = bm
            .job_sizes(&self.settings)
            .1
            .map(|_| self.settings.generic.get_i64("gen_count_ware") as u32);
        self.begin_job(crate::jobs::Spec::datagen(
            &self.settings,
            bm.name(),
            warehouses,
        ));
        let rows = generate(&self.out, &self.interrupt)?;
        Ok((rows as i64).into())
    }
}

/// Refuses a path that is not an existing directory this process can write in.
fn check_writable_dir(dir: &std::path::Path) -> Result<()> {
    if !dir.is_dir() {
        return Err(Error::NoDirectory {
            dir: dir.display().to_string(),
            way_out: "dgset directory",
        });
    }
    let probe = dir.join(format!(".hammer-write-test-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(Error::DirectoryNotWritable {
            dir: dir.display().to_string(),
            why: e.to_string(),
            way_out: "dgset directory",
        }),
    }
}
