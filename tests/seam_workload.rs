//! A workload written outside the crate, against its public seams alone: `ECHO` keeps the
//! `bench::Benchmark` contract (names, refusals, options, data generation's rule, a run),
//! reached by `dgset` and `print datagen` as the session reaches any workload, and its run
//! gives back an `bench::Outcome` of its own (lines, job record, `lastrun()` map, and what it
//! remembers between runs). No server is needed: the workload's run says its units and counts them.
//! That it compiles here is the proof a new workload is a sibling, not a hunt through the
//! session; its checks are what the session reads of any outcome.

use std::any::Any;
use std::path::Path;
use std::sync::Arc;

use hammer::bench::benchmark::{Generation, Work};
use hammer::bench::outcome::{run_value, timings, type_map};
use hammer::bench::{Benchmark, Built, Check, Memory, Outcome, Ran};
use hammer::benchmarks::Named;
use hammer::config::{Database, Settings, Target};
use hammer::error::{Error, Result};
use hammer::interrupt::Interrupt;
use hammer::jobs::recorder::RunRecord;
use hammer::jobs::{RunFigures, Status};
use hammer::output::Output;
use hammer::vu::{Say, Script, StateSink, Stats, VuState, WorkloadOptions};

const NAMES: Named = Named {
    name: "ECHO",
    alias: "ECHO-1",
    dictionary: "echo",
};

/// The one unit type: an echo.
const TYPE_NAMES: [&str; 1] = ["echo"];

/// A workload whose run says `echo N` for each of its units.
struct Echo;

static ECHO: Echo = Echo;

/// What `loadscript` froze of it: how many echoes each virtual user says.
#[derive(Clone)]
struct EchoOptions {
    echoes: u32,
    virtual_users: u32,
}

impl WorkloadOptions for EchoOptions {
    fn workload(&self) -> &'static str {
        NAMES.name
    }

    fn timed(&self) -> bool {
        false
    }

    fn virtual_users(&self) -> u32 {
        self.virtual_users
    }

    fn use_vu_options(&mut self, settings: &Settings) -> Result<()> {
        self.virtual_users = settings.generic.get_u32("virtual_users");
        Ok(())
    }

    fn rows(&self, _db: Database, schema: &str) -> Vec<(&'static str, String)> {
        vec![
            ("echoes", self.echoes.to_string()),
            ("schema", schema.to_string()),
        ]
    }

    fn mode(&self) -> String {
        "echo".into()
    }

    fn boxed(&self) -> Box<dyn WorkloadOptions> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// What a run of it gave back.
struct Echoed {
    echoes: u64,
    active_vus: u32,
    stats: Stats,
    /// Which of this session's echo runs it was, as its memory counted.
    nth: u32,
}

/// The session's memory of echo runs: a type only this workload knows.
#[derive(Default)]
struct EchoRuns(u32);

impl Echoed {
    fn figures(&self) -> RunFigures {
        RunFigures {
            nopm: None,
            tpm: None,
            active_vus: self.active_vus,
            seconds: 0.5,
            failed_vus: 0,
            reconnects: 0,
            transactions: self.echoes,
            client_cpu_seconds: None,
            stopped_early: None,
        }
    }
}

impl Outcome for Echoed {
    fn remember(&mut self, memory: &mut Memory) {
        let runs = memory.slot::<EchoRuns>();
        runs.0 += 1;
        self.nth = runs.0;
    }

    fn lines(&self) -> Vec<String> {
        vec![format!(
            "Echo run {}: {} echoes from {} virtual users",
            self.nth, self.echoes, self.active_vus
        )]
    }

    fn record(&self) -> RunRecord {
        RunRecord {
            figures: self.figures(),
            timings: timings(&TYPE_NAMES, &self.stats, false),
            live: None,
            tpch: None,
            run: None,
        }
    }

    fn value(&self, id: &str) -> rhai::Map {
        let mut m = run_value(id, &self.figures(), 0);
        m.insert("echo".into(), type_map(&self.stats.by_kind[0]).into());
        m.insert("nth".into(), (self.nth as i64).into());
        m
    }
}

impl Benchmark for Echo {
    fn names(&self) -> &'static Named {
        &NAMES
    }

    fn describe(&self, _settings: &Settings) -> String {
        "nowhere".into()
    }

    fn job_sizes(&self, _settings: &Settings) -> (u32, Option<u32>) {
        (1, None)
    }

    fn build(&self, _: &Settings, _: &Output, _: &Interrupt) -> Result<Work<Built>> {
        Err(Error::WorkloadUnavailable {
            workload: NAMES.name,
            db: "this test",
        })
    }

    fn check(&self, _: &Settings, _: &Output, _: &Interrupt) -> Result<Work<Vec<Check>>> {
        Ok(Box::pin(async {
            Ok(vec![Check::pass("echo", "nothing to check")])
        }))
    }

    fn tables(&self) -> Vec<&'static str> {
        vec!["echoes"]
    }

    fn delete(
        &self,
        _: &Settings,
        _: &Output,
        _all: &'static [&'static dyn Benchmark],
    ) -> Result<Work<Vec<String>>> {
        Ok(Box::pin(async { Ok(Vec::new()) }))
    }

    fn generation_plan(&self, _: &Settings, dir: &Path) -> String {
        format!("Data Generation set to echo into {}", dir.display())
    }

    /// Its rule over the generation's sizes: at most two writers say echoes.
    fn check_generation(&self, _: &Settings, key: &str, value: &str) -> Result<()> {
        match (key, value.trim().parse::<i64>()) {
            ("gen_num_vu", Ok(vus)) if vus > 2 => Err(Error::TooManyBuilders {
                vus,
                warehouses: 2,
                way_out: Some("echoes take two writers at most".into()),
            }),
            _ => Ok(()),
        }
    }

    fn generate(&self, _: &Settings, _: &Path) -> Result<Generation> {
        Err(Error::WorkloadUnavailable {
            workload: NAMES.name,
            db: "this test",
        })
    }

    fn options(&self, settings: &Settings) -> Result<Box<dyn WorkloadOptions>> {
        Ok(Box::new(EchoOptions {
            echoes: 3,
            virtual_users: settings.generic.get_u32("virtual_users"),
        }))
    }

    fn run(
        &self,
        script: &Script,
        say: Say,
        states: StateSink,
        _interrupt: &Interrupt,
    ) -> Result<Work<Ran>> {
        let Some(opts) = script.options::<EchoOptions>().cloned() else {
            return Err(Error::CannotRun {
                workload: script.workload(),
            });
        };
        Ok(Box::pin(async move {
            let mut stats = Stats::new(TYPE_NAMES.len());
            for vu in 1..=opts.virtual_users as usize {
                states(vu, VuState::Running);
                for n in 1..=opts.echoes {
                    say.line(format!("echo {n}"));
                    stats.by_kind[0].committed += 1;
                    let _ = stats.by_kind[0].latency.record(1_000);
                }
                states(vu, VuState::FinishSuccess);
            }
            let echoed = Echoed {
                echoes: u64::from(opts.echoes * opts.virtual_users),
                active_vus: opts.virtual_users,
                stats,
                nth: 0,
            };
            Ok(Box::new(echoed) as Ran)
        }))
    }
}

/// Runs `bm` as the session does: options, a script, the run, and its outcome remembered.
fn run(bm: &dyn Benchmark, settings: &Settings, memory: &mut Memory) -> (Ran, Vec<String>) {
    let script = Script::with_options(
        settings,
        bm.describe(settings),
        bm.options(settings).unwrap(),
    );
    let out = Output::capture();
    let states: StateSink = Arc::new(|_, _| {});
    let work = bm
        .run(
            &script,
            Say::new(out.clone(), 1),
            states,
            &Interrupt::default(),
        )
        .expect("the run is accepted");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut outcome = rt.block_on(work).expect("the run ends");
    outcome.remember(memory);
    (outcome, out.take_captured())
}

#[test]
fn a_sibling_workload_runs_through_the_contract() {
    let mut settings = Settings::defaults();
    settings
        .set(
            Target::Generic,
            "virtual_user_options",
            "virtual_users",
            "2",
        )
        .expect("vuset vu 2");
    let vus = settings.generic.get_u32("virtual_users");
    assert_eq!(vus, 2);
    let mut memory = Memory::default();

    let (first, said) = run(&ECHO, &settings, &mut memory);
    assert_eq!(said.len(), 6, "{said:?}");
    assert!(said[0].ends_with("echo 1"), "{said:?}");
    assert_eq!(first.lines(), ["Echo run 1: 6 echoes from 2 virtual users"]);
    let (second, _) = run(&ECHO, &settings, &mut memory);
    // The session's memory carried what the workload keeps from one run to the next.
    assert_eq!(
        second.lines(),
        ["Echo run 2: 6 echoes from 2 virtual users"]
    );

    // Its job record, as the recorder reads any run's.
    let record = second.record();
    assert_eq!(record.figures.transactions, 6);
    assert_eq!(record.timings.len(), 1);
    assert_eq!(record.timings[0].0.name, "echo");
    let end = hammer::jobs::recorder::end_of(&Ok(rhai::Dynamic::UNIT), false, Some(&record));
    assert_eq!(end.status, Status::Success);

    // Its `lastrun()` map: the keys every run has, and its own.
    let m = second.value("ID");
    assert_eq!(m["id"].clone().into_string().unwrap(), "ID");
    assert!(m["nopm"].is_unit());
    assert_eq!(m["transactions"].as_int(), Ok(6));
    assert_eq!(m["active_vus"].as_int(), Ok(2));
    assert_eq!(m["nth"].as_int(), Ok(2));
    let echo = m["echo"].clone().cast::<rhai::Map>();
    assert_eq!(echo["committed"].as_int(), Ok(6));
    assert_eq!(echo["p50_ms"].as_float().map(|ms| ms >= 0.9), Ok(true));
}

#[test]
fn a_sibling_workload_refuses_as_the_shipped_ones_do() {
    let settings = Settings::defaults();
    // A script loaded for another workload is not run.
    let tpcc = hammer::workloads::ALL[0];
    let script = Script::with_options(&settings, String::new(), ECHO.options(&settings).unwrap());
    let refused = tpcc
        .run(
            &script,
            Say::new(Output::capture(), 1),
            Arc::new(|_, _| {}),
            &Interrupt::default(),
        )
        .err()
        .expect("TPROC-C refuses an echo script");
    assert!(refused.to_string().contains("ECHO"), "{refused}");
    // No engine offers it: its support is not found on any.
    trait EchoSupport: Sync {}
    for db in Database::ALL {
        let engine = hammer::db::engine(db);
        assert!(hammer::db::engine::offered::<&'static dyn EchoSupport>(engine).is_none());
    }
    // deleteschema's verdict reads its tables beside the shipped workloads'.
    let all: &[&dyn Benchmark] = &[&ECHO, hammer::workloads::ALL[0], hammer::workloads::ALL[1]];
    let survey = hammer::bench::Survey {
        server: "nowhere".into(),
        database: "echo".into(),
        database_key: "pg_dbase".into(),
        user: "nobody".into(),
        exists: true,
        tables: vec!["warehouse".into()],
        bytes: 0,
    };
    let e = hammer::bench::deleting::verdict(&ECHO, all, &survey).unwrap_err();
    assert!(e.to_string().contains("they are TPROC-C's"), "{e}");
    survey_ok(all);
}

/// `dgset` and `print datagen` reach the chosen workload through the same functions the
/// session calls with it.
#[test]
fn data_generation_asks_the_workload() {
    use hammer::bench::generation;
    let mut settings = Settings::defaults();
    let dir = std::env::temp_dir();
    settings
        .set(
            Target::Generic,
            "datageneration",
            "gen_directory",
            &dir.display().to_string(),
        )
        .expect("dgset directory");
    assert_eq!(
        generation::plan(&ECHO, &settings),
        format!("Data Generation set to echo into {}", dir.display())
    );
    generation::check_change(&ECHO, &settings, "gen_num_vu", "2").expect("two writers");
    let e = generation::check_change(&ECHO, &settings, "gen_num_vu", "3").unwrap_err();
    assert!(e.to_string().contains("two writers at most"), "{e}");
    // The key's own range comes first, whatever the workload.
    let e = generation::check_change(&ECHO, &settings, "gen_num_vu", "0").unwrap_err();
    assert!(e.to_string().contains("gen_num_vu"), "{e}");
    // TPROC-C's own rule is not the echo's: three writers for one warehouse are refused there.
    let tpcc = hammer::workloads::ALL[0];
    assert!(generation::check_change(tpcc, &settings, "gen_num_vu", "3").is_err());
    assert_eq!(tpcc.generation_warehouses(&settings), Some(1));
    assert_eq!(ECHO.generation_warehouses(&settings), None);
}

/// Its own tables are its own to delete.
fn survey_ok(all: &[&dyn Benchmark]) {
    let survey = hammer::bench::Survey {
        server: "nowhere".into(),
        database: "echo".into(),
        database_key: "pg_dbase".into(),
        user: "nobody".into(),
        exists: true,
        tables: vec!["echoes".into()],
        bytes: 0,
    };
    let line = hammer::bench::deleting::verdict(&ECHO, all, &survey).expect("its own schema");
    assert!(
        line.starts_with("Deleting schema with 1 Virtual User: ECHO database echo"),
        "{line}"
    );
}
