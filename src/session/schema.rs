//! The schema commands: buildschema, checkschema and deleteschema on the current database,
//! and dgset and datagenrun for data files; each of the four runs as a job.

use std::path::PathBuf;

use rhai::Dynamic;

use super::{values, Session};
use crate::commands::{self, Command, DGSET_OPTIONS};
use crate::config::Change;
use crate::error::{Error, Result};
use crate::jobs::Kind as JobKind;
use crate::tpcc::schema::Say;

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
            return Err(Error::UnsupportedBuildOptions {
                options: unsupported,
            });
        }
        if b > w {
            return Err(Error::TooManyBuilders {
                vus: b.into(),
                warehouses: w.into(),
                way_out: Some(format!(
                    "diset tpcc {p}_num_vu or {p}_count_ware",
                    p = db.prefix()
                )),
            });
        }
        self.begin_job(crate::jobs::Spec::schema(
            JobKind::Build,
            &self.settings,
            crate::tpcc::NAME,
        ));
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
        Ok(values::build_map(w, &summary).into())
    }

    pub fn checkschema(&mut self, args: &[String]) -> Result<Dynamic> {
        self.as_job(args, Self::check_schema_job)
    }

    fn check_schema_job(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.refuse_with_vus("check schema")?;
        self.begin_job(crate::jobs::Spec::schema(
            JobKind::Check,
            &self.settings,
            crate::tpcc::NAME,
        ));
        let db = self.current();
        let (w, _) = self.build_sizes();
        self.out.line("Checking schema with 1 Virtual User");
        let say = Say::new(self.out.clone(), 1);
        let checks = self.block_on(crate::db::check_schema(&self.settings, db, w, &say))??;
        let failed = checks.iter().filter(|c| !c.ok).count();
        for c in &checks {
            let verdict = if c.ok { "PASS" } else { "FAIL" };
            let detail = if c.detail.is_empty() {
                String::new()
            } else {
                format!(": {}", c.detail)
            };
            say.line(format!("{verdict} {}{detail}", c.what));
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
        Ok(values::checks_map(&checks).into())
    }

    pub fn deleteschema(&mut self, args: &[String]) -> Result<Dynamic> {
        self.as_job(args, Self::delete_schema_job)
    }

    fn delete_schema_job(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.refuse_with_vus("delete schema")?;
        self.begin_job(crate::jobs::Spec::schema(
            JobKind::Delete,
            &self.settings,
            crate::tpcc::NAME,
        ));
        let db = self.current();
        self.out.line("Deleting schema with 1 Virtual User");
        let say = Say::new(self.out.clone(), 1);
        let dropped = self.block_on(crate::db::delete_schema(&self.settings, db, &say))??;
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
        let g = &self.settings.generic;
        let (vus, ware) = (g.get_i64("gen_num_vu"), g.get_i64("gen_count_ware"));
        match *option {
            "scale_fact" => {
                return Err(Error::TprochOption {
                    option: option.to_string(),
                })
            }
            "vu" | "warehouse" => {
                let n: i64 = args[1].trim().parse().map_err(|_| Error::NotAnInteger {
                    option: option.to_string(),
                    value: args[1].clone(),
                })?;
                let (v, w) = if *option == "vu" { (n, ware) } else { (vus, n) };
                if v > w && n >= 1 {
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
            return Err(Error::TooManyBuilders {
                vus: plan.loaders.into(),
                warehouses: plan.warehouses.into(),
                way_out: None,
            });
        }
        let dir = self.datagen_dir();
        check_writable_dir(&dir)?;
        self.begin_job(crate::jobs::Spec::datagen(
            &self.settings,
            crate::tpcc::NAME,
        ));
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
