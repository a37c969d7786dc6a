//! TPROC-C as the session sees it ([`TPROC_C`], a `bench::Benchmark`): the schema commands'
//! sizes, refusals and HammerDB's lines around them, data generation, the script's options and
//! the run, each on the current database's `Support` (offered by the engine, `db::engine::offered`).

use std::path::{Path, PathBuf};

use super::build::{datagen, Plan};
use super::driver::Options;
use super::options::NAME;
use super::outcome::Tpcc;
use super::range::WareRange;
use super::schema::Say;
use super::support::Support;
use crate::bench::benchmark::{Benchmark, Built, Check, Generation, Held, Ran, Work};
use crate::benchmarks::Named;
use crate::config::{Database, Settings};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::vu::{Script, StateSink, WorkloadOptions};

/// TPROC-C, HammerDB's TPC-C derived workload.
pub struct Tprocc;

/// The one TPROC-C.
pub static TPROC_C: Tprocc = Tprocc;

/// What TPROC-C needs of `db`, as its engine offers it, or why it cannot have it.
pub fn support(db: Database) -> Result<&'static dyn Support> {
    crate::db::engine::offered::<&'static dyn Support>(crate::db::engine(db)).ok_or(
        Error::WorkloadUnavailable {
            workload: NAME,
            db: db.name(),
        },
    )
}

/// One driver of several: joins the named run, starts at its place, runs, posts its part and
/// merges everyone's. A run that fails still posts, so that the others need not wait for it.
async fn shared_run(
    support: &'static dyn Support,
    settings: &Settings,
    team: &crate::drivers::Team,
    mut opts: Options,
    say: Say,
    states: StateSink,
    interrupt: Interrupt,
) -> Result<(super::result::RunResult, super::merged::Merged)> {
    use crate::drivers::{board, part::Part};
    let db = settings.current();
    let engine = crate::db::engine(db);
    let opener: crate::drivers::Opener = {
        let settings = settings.clone();
        std::sync::Arc::new(move || {
            let settings = settings.clone();
            Box::pin(async move {
                engine
                    .script_conn(&settings, crate::endpoint::Position::Monitor)
                    .await
            })
        })
    };
    // The range is posted as the run is joined: checked against the schema's size first.
    let range = opts.range(support.warehouses(settings).await?)?;
    let ms = |d: std::time::Duration| d.as_millis() as i64;
    let me = board::Entry {
        host: crate::jobs::system::hostname(),
        pid: std::process::id(),
        first_ware: range.first,
        last_ware: range.last,
        vus: opts.virtual_users,
        delay_ms: ms(team.delay),
        rampup_ms: ms(opts.rampup),
        duration_ms: ms(opts.duration),
        step: team.step,
    };
    let vsay = say.clone();
    let joined =
        crate::drivers::join(team, me, board::Flavour::of(db), opener, &vsay, &interrupt).await?;
    opts.window = Some(joined.window);
    let nopm_first = opts.nopm_first;
    let key_and_think = opts.key_and_think;
    let terminals = opts.virtual_users
        * if opts.async_scale {
            opts.async_clients.max(1)
        } else {
            1
        };
    let mut started_ms = None;
    let ran = if joined.wait_for_my_start(&interrupt).await {
        started_ms = Some(joined.server_now());
        support
            .run(settings, opts, say, states, interrupt.clone())
            .await
    } else {
        Err(Error::Interrupted)
    };
    let part = match &ran {
        Ok(r) => Part {
            nopm: r.nopm,
            tpm: r.tpm,
            started_ms,
            read_from_ms: r.measured_from.map(|t| joined.server_ms(t)),
            read_to_ms: r
                .measured_from
                .map(|t| joined.server_ms(t) + r.measured.as_millis() as i64),
            seconds: r.measured.as_secs_f64(),
            vus: r.active_vus,
            terminals,
            key_and_think,
            failed_vus: r.failed_vus,
            reconnects: r.stats.reconnects,
            client_cpu_seconds: r.client_cpu.map(|c| c.as_secs_f64()),
            stopped_early: r.stopped_early.clone(),
            types: Part::types_of(&super::driver::TYPE_NAMES, &r.stats),
        },
        Err(e) => Part {
            started_ms,
            stopped_early: Some(e.to_string()),
            terminals,
            key_and_think,
            ..Part::default()
        },
    };
    let failed = match &ran {
        Ok(r) => r.stopped_early.is_some() || r.nopm.is_none(),
        Err(_) => true,
    };
    let (run, driver, window_ms) = (joined.run.clone(), joined.driver, joined.window_ms);
    let members = joined.finish(&part, failed, &vsay, &interrupt).await;
    let result = ran?;
    let merged =
        super::merged::Merged::new(&run, driver, members?, window_ms, db.name(), nopm_first);
    Ok((result, merged))
}

/// Where the schemas go, in the engine's words (`host ... in database tpcc`); with several
/// (`*_schemas`) the first's, then the span: `... in database x1 .. x3 (3 schemas)`.
fn describe(support: &dyn Support, settings: &Settings) -> String {
    match super::schemas::all(settings) {
        Ok(all) if all.len() > 1 => format!(
            "{} .. {} ({} schemas)",
            support.describe(&all[0].settings),
            all[all.len() - 1].name,
            all.len()
        ),
        _ => support.describe(settings),
    }
}

/// `e` as it happened on `schema`, named when there are several; a Ctrl-C stays as it is
/// (the build's end says STOPPED for it).
fn in_schema(schema: &str, several: bool, e: Error) -> Error {
    let stopped = match &e {
        Error::BuildStopped { why, .. } => matches!(**why, Error::Interrupted),
        e => matches!(e, Error::Interrupted),
    };
    if !several || stopped {
        return e;
    }
    Error::InSchema {
        schema: schema.to_string(),
        why: Box::new(e),
    }
}

/// Two schemas' builds together.
fn added(sum: Option<super::build::Summary>, one: super::build::Summary) -> super::build::Summary {
    match sum {
        None => one,
        Some(sum) => super::build::Summary {
            warehouses: sum.warehouses + one.warehouses,
            rows: sum.rows + one.rows,
            elapsed: sum.elapsed + one.elapsed,
            bytes_on_disk: sum.bytes_on_disk + one.bytes_on_disk,
            // Several schemas are built whole, never split over drivers.
            split: None,
        },
    }
}

/// `*_count_ware` and `*_num_vu` of the current database.
fn build_sizes(settings: &Settings) -> (u32, u32) {
    let db = settings.current();
    let d = settings.db(db);
    (
        d.get_i64(&db.key("count_ware")) as u32,
        d.get_i64(&db.key("num_vu")) as u32,
    )
}

impl Benchmark for Tprocc {
    fn names(&self) -> &'static Named {
        &crate::benchmarks::TPROC_C
    }

    fn describe(&self, settings: &Settings) -> String {
        support(settings.current())
            .map(|s| describe(s, settings))
            .unwrap_or_default()
    }

    /// With several schemas, a job's warehouses are all the schemas' together.
    fn job_sizes(&self, settings: &Settings) -> (u32, Option<u32>) {
        let (w, b) = build_sizes(settings);
        (b, Some(w.saturating_mul(super::schemas::count(settings))))
    }

    fn build(
        &self,
        settings: &Settings,
        out: &Output,
        interrupt: &Interrupt,
    ) -> Result<Work<Built>> {
        let db = settings.current();
        let (w, b) = build_sizes(settings);
        let unsupported = crate::db::unsupported_build_options(settings, db);
        if !unsupported.is_empty() {
            return Err(Error::UnsupportedBuildOptions {
                options: unsupported,
            });
        }
        // One driver of several loads only its warehouses (hammer's own).
        let range = WareRange::of(settings)?;
        if b > range.count() {
            let p = db.prefix();
            return Err(Error::TooManyBuilders {
                vus: b.into(),
                warehouses: range.count().into(),
                way_out: Some(if range.is_whole() {
                    format!("diset tpcc {p}_num_vu or {p}_count_ware")
                } else {
                    format!("diset tpcc {p}_num_vu or {p}_owned_ware")
                }),
            });
        }
        let support = support(db)?;
        let schemas = super::schemas::all(settings)?;
        if schemas.len() > 1 && !range.is_whole() {
            let p = db.prefix();
            return Err(Error::ConflictingKeys {
                first: format!("tpcc:{p}_schemas {}", schemas.len()),
                second: format!("tpcc:{p}_first_ware/{p}_owned_ware ({range})"),
                why: "several schemas are built whole by one driver: set the range to every \
                      warehouse (first_ware 1, owned_ware 0) or schemas to 1"
                    .into(),
            });
        }
        let (settings, out, interrupt) = (settings.clone(), out.clone(), interrupt.clone());
        Ok(Box::pin(async move {
            let n = schemas.len();
            if n > 1 {
                out.line(format!(
                    "Ready to create {n} {} TPROC-C schemas of {w} Warehouse{} each, one after another, in {}",
                    db.name(),
                    if w == 1 { "" } else { "s" },
                    describe(support, &settings)
                ));
            } else if range.is_whole() {
                out.line(format!(
                    "Ready to create a {w} Warehouse {} TPROC-C schema in {}",
                    db.name(),
                    support.describe(&settings)
                ));
            } else {
                out.line(format!(
                    "Ready to load {range} of a {} TPROC-C schema in {}, as one driver of \
                     several: the driver of warehouse 1 creates the schema and adds its keys",
                    db.name(),
                    support.describe(&settings)
                ));
            }
            let count = range.count();
            if b == 1 {
                out.line(format!(
                    "Building {count} Warehouses(s) with 1 Virtual User"
                ));
            } else {
                out.line(format!(
                    "Building {count} Warehouses with {} Virtual Users, {b} active + 1 Monitor VU(dict value {}_num_vu is set to {b})",
                    b + 1,
                    db.prefix()
                ));
            }
            let plan = Plan {
                warehouses: w,
                loaders: b,
            };
            let say = Say::new(out.clone(), 1);
            // The schemas one after another, each with all the build's virtual users.
            let mut total: Option<super::build::Summary> = None;
            let mut failed = None;
            for (i, schema) in schemas.iter().enumerate() {
                if n > 1 {
                    out.line(format!(
                        "Building schema {} ({} of {n}) in {}",
                        schema.name,
                        i + 1,
                        support.describe(&schema.settings)
                    ));
                }
                if interrupt.is_set() {
                    failed = Some(Error::Interrupted);
                    break;
                }
                let built = support
                    .build(
                        &schema.settings,
                        plan,
                        say.clone(),
                        out.clone(),
                        interrupt.clone(),
                    )
                    .await;
                match built {
                    Ok(one) => total = Some(added(total, one)),
                    Err(e) => {
                        failed = Some(in_schema(&schema.name, n > 1, e));
                        break;
                    }
                }
            }
            let summary = match (failed, total) {
                (None, Some(total)) => Ok(total),
                (failed, _) => Err(failed.unwrap_or(Error::Interrupted)),
            };
            let summary = crate::bench::loading::say_build_end(&out, b, summary)?;
            let built = Built {
                scale: ("warehouses", f64::from(w)),
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
            let mb = built.bytes_on_disk as f64 / 1e6;
            match &built.split {
                None if n == 1 => out.line(format!(
                    "TPROC-C schema built: {w} warehouses, {rows} rows in {secs:.1} s ({rate:.0} rows/s), {mb:.1} MB on disk"
                )),
                None => out.line(format!(
                    "TPROC-C schemas built: {n} schemas ({}) of {w} warehouses, {rows} rows in {secs:.1} s ({rate:.0} rows/s), {mb:.1} MB on disk",
                    super::schemas::span(
                        &schemas.iter().map(|s| s.name.clone()).collect::<Vec<_>>()
                    )
                )),
                Some(split) if split.finished => {
                    out.line(format!(
                        "TPROC-C schema built: {w} warehouses by {} drivers; this driver loaded {}: {rows} rows in {secs:.1} s ({rate:.0} rows/s), then added the keys; {mb:.1} MB on disk",
                        split.parts.len(),
                        split.share,
                    ));
                    for part in &split.parts {
                        out.line(format!("  {part}"));
                    }
                }
                Some(split) => out.line(format!(
                    "TPROC-C {} loaded: {rows} rows in {secs:.1} s ({rate:.0} rows/s); another driver adds the schema's keys",
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
        let support = support(settings.current())?;
        let schemas = super::schemas::all(settings)?;
        let (settings, out, interrupt) = (settings.clone(), out.clone(), interrupt.clone());
        Ok(Box::pin(async move {
            let db = settings.current();
            let (w, _) = build_sizes(&settings);
            let n = schemas.len();
            out.line("Checking schema with 1 Virtual User");
            let say = Say::new(out, 1);
            let mut all = Vec::new();
            // Each schema's verdicts, named after it when there are several.
            let mut failing = Vec::new();
            for (i, schema) in schemas.iter().enumerate() {
                if n > 1 {
                    say.line(format!(
                        "Checking schema {} ({} of {n})",
                        schema.name,
                        i + 1
                    ));
                }
                // Dropped at Ctrl-C, as a delete is.
                let mut checks = tokio::select! {
                    checks = support.check(&schema.settings, w, &say) => {
                        checks.map_err(|e| in_schema(&schema.name, n > 1, e))?
                    }
                    _ = interrupt.wait() => return Err(Error::Interrupted),
                };
                if n > 1 {
                    for c in &mut checks {
                        c.what = format!("{}: {}", schema.name, c.what);
                    }
                }
                for c in &checks {
                    let verdict = if c.ok { "PASS" } else { "FAIL" };
                    let detail = if c.detail.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", c.detail)
                    };
                    say.line(format!("{verdict} {}{detail}", c.what));
                }
                if checks.iter().any(|c| !c.ok) {
                    failing.push(schema.name.clone());
                }
                all.extend(checks);
            }
            let failed = all.iter().filter(|c| !c.ok).count();
            if failed == 0 && n == 1 {
                say.line(format!(
                    "{} TPROC-C Schema has been checked successfully.",
                    db.name()
                ));
            } else if failed == 0 {
                say.line(format!(
                    "{} TPROC-C Schemas {} have been checked successfully.",
                    db.name(),
                    super::schemas::span(
                        &schemas.iter().map(|s| s.name.clone()).collect::<Vec<_>>()
                    )
                ));
            } else {
                let which = if n > 1 {
                    format!(" (in schema {})", failing.join(", "))
                } else {
                    String::new()
                };
                say.line(format!(
                    "TPROC-C Schema check failed {}: {failed} of {} checks failed{which}",
                    db.name(),
                    all.len()
                ));
            }
            Ok(all)
        }))
    }

    fn tables(&self) -> Vec<&'static str> {
        let mut tables: Vec<&'static str> = super::Table::ALL.iter().map(|t| t.name()).collect();
        tables.push(super::fitness::NURAND_TABLE);
        // A split build's ledger (hammer's own), which TPROC-H's builds keep too.
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
        let schemas = super::schemas::all(settings)?;
        let out = out.clone();
        Ok(Box::pin(async move {
            let several = schemas.len() > 1;
            // Every schema is surveyed and judged before any is dropped: a refusal drops none.
            let mut verdicts = Vec::new();
            for schema in &schemas {
                let judged = async {
                    let survey = support.survey(&schema.settings).await?;
                    crate::bench::deleting::verdict(&TPROC_C, all, &survey)
                };
                verdicts.push(
                    judged
                        .await
                        .map_err(|e| in_schema(&schema.name, several, e))?,
                );
            }
            let say = Say::new(out.clone(), 1);
            let mut dropped = Vec::new();
            for (schema, verdict) in schemas.iter().zip(verdicts) {
                out.line(verdict);
                let lines = support
                    .delete(&schema.settings, &say)
                    .await
                    .map_err(|e| in_schema(&schema.name, several, e))?;
                dropped.extend(lines);
            }
            Ok(dropped)
        }))
    }

    /// With several schemas, all of them together: each one's shortfall is its own warning.
    fn warehouses_held(&self, settings: &Settings) -> Option<Work<Held>> {
        let settings = settings.clone();
        Some(Box::pin(async move {
            let db = settings.current();
            let support = support(db)?;
            let (asked, _) = build_sizes(&settings);
            let mut total = Held {
                warehouses: 0,
                warning: None,
            };
            let mut warnings = Vec::new();
            for schema in super::schemas::all(&settings)? {
                let held = support.warehouses(&schema.settings).await?;
                total.warehouses += held;
                // An empty WAREHOUSE is the run's to refuse, in its own words.
                if held != asked && held > 0 {
                    warnings.push(format!(
                        "Warning: {p}_count_ware is {asked} but the schema {schema} holds {held} \
                         warehouse{s}: the run uses {held}, and its job records {held}",
                        p = db.prefix(),
                        schema = schema.name,
                        s = if held == 1 { "" } else { "s" }
                    ));
                }
            }
            total.warning = (!warnings.is_empty()).then(|| warnings.join("\n"));
            Ok(total)
        }))
    }

    fn generation_plan(&self, settings: &Settings, dir: &Path) -> String {
        let g = &settings.generic;
        format!(
            "Data Generation set to build a TPC-C schema for {} with {} warehouses with {} virtual users in {}",
            settings.current().name(),
            g.get("gen_count_ware"),
            g.get("gen_num_vu"),
            dir.display()
        )
    }

    /// The generation's writers each take whole warehouses: no more writers than
    /// warehouses.
    fn check_generation(&self, settings: &Settings, key: &str, value: &str) -> Result<()> {
        let g = &settings.generic;
        let (vus, ware) = (g.get_i64("gen_num_vu"), g.get_i64("gen_count_ware"));
        let option = match key {
            "gen_num_vu" => "vu",
            "gen_count_ware" => "warehouse",
            _ => return Ok(()),
        };
        let n: i64 = value.trim().parse().map_err(|_| Error::NotAnInteger {
            option: option.to_string(),
            value: value.to_string(),
        })?;
        let (v, w) = if key == "gen_num_vu" {
            (n, ware)
        } else {
            (vus, n)
        };
        if v > w && n >= 1 {
            return Err(Error::TooManyBuilders {
                vus: v,
                warehouses: w,
                way_out: None,
            });
        }
        Ok(())
    }

    fn generation_warehouses(&self, settings: &Settings) -> Option<u32> {
        Some(settings.generic.get_i64("gen_count_ware") as u32)
    }

    fn generate(&self, settings: &Settings, dir: &Path) -> Result<Generation> {
        let g = &settings.generic;
        let plan = Plan {
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
        let db = settings.current();
        let dir: PathBuf = dir.to_path_buf();
        Ok(Box::new(move |out: &Output, interrupt: &Interrupt| {
            out.line(format!(
                "Ready to generate the data for a {} Warehouse {} TPROC-C schema in directory {}",
                plan.warehouses,
                db.name(),
                dir.display()
            ));
            let say = Say::new(out.clone(), 1);
            let summary = datagen(plan, &dir, &say, interrupt)?;
            out.line(format!(
                "{} WAREHOUSE SCHEMA GENERATED in {:.2} MINUTES ({} rows, {:.1} MB, {:.1} s)",
                plan.warehouses,
                summary.elapsed.as_secs_f64() / 60.0,
                summary.rows,
                summary.bytes_on_disk as f64 / 1e6,
                summary.elapsed.as_secs_f64()
            ));
            Ok(summary.rows)
        }))
    }

    fn options(&self, settings: &Settings) -> Result<Box<dyn WorkloadOptions>> {
        super::schemas::refuse_run(settings, None)?;
        super::schemas::all(settings)?;
        let routines = support(settings.current())?.routines(settings);
        Ok(Box::new(Options::load(settings, routines)))
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
        super::schemas::refuse_run(&settings, Some(opts.virtual_users))?;
        let (timed, show_output, time_profile) =
            (script.timed(), opts.show_output, opts.time_profile);
        let team = crate::drivers::Team::of(&settings)?;
        if team.is_some() && !timed {
            return Err(Error::Drivers {
                run: team.map(|t| t.run).unwrap_or_default(),
                why: format!(
                    "several drivers share a timed run: set {} to timed, or empty drivers_run",
                    db.key("driver")
                ),
            });
        }
        Ok(Box::pin(async move {
            let Some(team) = team else {
                let result = support.run(&settings, opts, say, states, interrupt).await?;
                return Ok(Box::new(Tpcc {
                    result,
                    timed,
                    show_output,
                    time_profile,
                    merged: None,
                }) as Ran);
            };
            let (result, merged) =
                shared_run(support, &settings, &team, opts, say, states, interrupt).await?;
            Ok(Box::new(Tpcc {
                result,
                timed,
                show_output,
                time_profile,
                merged: Some(merged),
            }) as Ran)
        }))
    }
}
