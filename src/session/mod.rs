//! The session: the state a console or script works on (settings, output, runtime, virtual
//! users, counter, metrics, job history), the one place it blocks, and the command runner.
//! The commands themselves live beside it, one file per family: `dicts` (dbset, diset, giset,
//! vuset, tcset, metset, print, librarycheck), `schema` (buildschema, checkschema,
//! deleteschema, dgset, datagenrun), `vus` (loadscript to lastrun), `monitors` (tcstart to
//! metstop, runtimer), `jobs` (jobs and the job each command runs as), `saved` (savescript,
//! citmp); `values` turns their results into the Rhai values scripts receive. The session
//! names no workload: it reaches them through `crate::workloads` and the contract in
//! `crate::bench`, and a run's outcome makes its own lines, job record and Rhai value.

mod dicts;
mod jobs;
mod modes;
mod monitors;
mod pool;
mod saved;
mod schema;
mod values;
mod vus;

use std::path::PathBuf;

use rhai::Dynamic;

use crate::commands::{self, Command};
use crate::config::{Database, Settings};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::output::Output;

/// What runs one command: the session, and the arguments as typed.
type Method = fn(&mut Session, &[String]) -> Result<Dynamic>;

/// The method that runs each row of the command table, by the row's name. The table stays
/// plain data (it knows no session); a test checks that the two name the same commands.
const METHODS: &[(&str, Method)] = &[
    ("dbset", Session::dbset),
    ("diset", Session::diset),
    ("giset", Session::giset),
    ("print", Session::print),
    ("vuset", Session::vuset),
    ("tcset", Session::tcset),
    ("metset", Session::metset),
    ("tcstart", Session::tcstart),
    ("tcstatus", Session::tcstatus),
    ("tcstop", Session::tcstop),
    ("metstart", Session::metstart),
    ("metstatus", Session::metstatus),
    ("metstop", Session::metstop),
    ("runtimer", Session::runtimer),
    ("buildschema", Session::buildschema),
    ("checkschema", Session::checkschema),
    ("deleteschema", Session::deleteschema),
    ("dgset", Session::dgset),
    ("datagenrun", Session::datagenrun),
    ("loadscript", Session::loadscript),
    ("customscript", Session::customscript),
    ("clearscript", Session::clearscript),
    ("vucreate", Session::vucreate),
    ("vurun", Session::vurun),
    ("vustatus", Session::vustatus),
    ("vucomplete", Session::vucomplete),
    ("vudestroy", Session::vudestroy),
    ("lastrun", Session::lastrun),
    ("jobs", Session::jobs),
    ("job", Session::jobs),
    ("cpset", Session::cpset),
    ("cpclear", Session::cpclear),
    ("switchmode", Session::switchmode),
    ("distributescript", Session::distributescript),
    ("steprun", Session::steprun),
    ("librarycheck", Session::librarycheck),
    ("savescript", Session::savescript),
    ("citmp", Session::citmp),
    ("help", Session::help),
    ("clear", Session::clear),
    ("quit", Session::quit),
];

fn method(name: &str) -> Option<Method> {
    METHODS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

/// One hammer session: what `dbset`, `diset` and friends change and what later commands read.
pub struct Session {
    pub settings: Settings,
    pub out: Output,
    rt: tokio::runtime::Handle,
    home: Option<PathBuf>,
    pub interrupt: Interrupt,
    vu: crate::vu::VuManager<std::sync::Arc<dyn crate::bench::UserScript>, crate::bench::Ran>,
    tc: crate::txcount::TxCounter,
    metrics: crate::metrics::Metrics,
    /// The job history: records each build, check, delete, data generation and run.
    pub jobs: crate::jobs::Recorder,
    /// The run id `vurun` returned, already printed as `Benchmark Run jobid=...`: the console
    /// does not echo it a second time.
    printed_jobid: Option<String>,
    /// What runs' outcomes keep between runs (TPROC-H's last power test); the session holds
    /// it for them without reading it.
    memory: crate::bench::Memory,
    /// Local, Primary or Replica (`switchmode`).
    mode: crate::modes::Mode,
    /// The place the next `vurun` takes in a shared run a Primary started.
    shared_place: Option<crate::modes::SharedPlace>,
}

impl Session {
    /// A session whose settings persist in `home` (or nowhere, for `None`).
    pub fn new(rt: tokio::runtime::Handle, out: Output, home: Option<PathBuf>) -> Self {
        // What logins find on their way (a password file libpq would ignore) is said here.
        crate::db::warnings::say_through(out.clone());
        let settings = match &home {
            Some(dir) => {
                let (s, warnings) = Settings::load(dir);
                for w in warnings {
                    out.error(format!("Warning: {w}"));
                }
                s
            }
            None => Settings::defaults(),
        };
        let jobs = crate::jobs::Recorder::new(&settings, home.as_deref());
        Session {
            settings,
            out,
            rt,
            home,
            interrupt: Interrupt::default(),
            vu: crate::vu::VuManager::default(),
            tc: crate::txcount::TxCounter::default(),
            metrics: crate::metrics::Metrics::default(),
            jobs,
            printed_jobid: None,
            memory: crate::bench::Memory::default(),
            mode: crate::modes::Mode::Local,
            shared_place: None,
        }
    }

    /// Runs async work to completion, or until Ctrl-C: the one place the session blocks.
    pub fn block_on<F: std::future::Future>(&self, work: F) -> Result<F::Output> {
        let interrupt = self.interrupt.clone();
        self.rt.block_on(async move {
            tokio::select! {
                out = work => Ok(out),
                _ = interrupt.wait() => Err(Error::Interrupted),
            }
        })
    }

    /// Whether `value` is the job id the last command printed already (and forgets it), so
    /// that the console's echo of a command's value does not show it twice.
    pub fn was_printed(&mut self, value: &str) -> bool {
        self.printed_jobid.take().is_some_and(|id| id == value)
    }

    /// Notes a job id just printed with its job's line, for [`Session::was_printed`].
    pub(crate) fn printed(&mut self, id: &str) {
        self.printed_jobid = Some(id.to_string());
    }

    pub fn home(&self) -> Option<&PathBuf> {
        self.home.as_ref()
    }

    /// Runs a command by name after checking its argument count against the table.
    pub fn run(&mut self, name: &str, args: &[String]) -> Result<Dynamic> {
        let unknown = || Error::UnknownCommand {
            name: name.to_string(),
        };
        let cmd = commands::find(name).ok_or_else(unknown)?;
        if args.len() < cmd.min_args || args.len() > cmd.max_args {
            let msg = match cmd.name {
                "diset" | "giset" => "Error: Invalid number of arguments".to_string(),
                _ => format!("Error: {name} takes {}", arg_count(cmd)),
            };
            return Err(Error::usage(msg, cmd.usage()));
        }
        if let Some(why) = commands::no_effect(cmd.name) {
            self.out
                .error(format!("Warning: {name} has no effect in hammer: {why}"));
            return Ok(Dynamic::UNIT);
        }
        let method = method(cmd.name).ok_or_else(unknown)?;
        if cmd.name == "vurun" && self.mode.primary().is_some() {
            return self.primary_vurun(args);
        }
        let outcome = method(self, args);
        if outcome.is_ok() {
            self.forward(cmd.name, args);
        }
        outcome
    }

    fn current(&self) -> Database {
        self.settings.current()
    }

    /// Saves settings after a change; a failure is reported but the change stays in force.
    /// A Replica's settings follow its Primary and hold for its session only.
    fn persist(&self) {
        if self.mode.is_replica() {
            return;
        }
        if let Err(e) = self.settings.save() {
            self.out.error(format!(
                "Warning: {e}; the change holds for this session only"
            ));
        }
    }

    /// Whether virtual users exist (created and not yet destroyed).
    fn vus_exist(&self) -> bool {
        self.vu.exist()
    }

    // ---- help / quit -------------------------------------------------------------------

    pub fn help(&mut self, args: &[String]) -> Result<Dynamic> {
        let names = commands::names();
        match args.first() {
            None => {
                let mut text = format!(
                    "hammer v{} CLI Help Index\n\nType \"help command\" for more details on specific commands below\n",
                    crate::VERSION
                );
                for n in &names {
                    text.push_str(&format!("\n\t{n}"));
                }
                self.out.line(text);
            }
            Some(name) => match commands::find(name) {
                Some(cmd) => {
                    let mut help = cmd.help.to_string();
                    if let Some(why) = commands::no_effect(cmd.name) {
                        help.push_str(&format!(" It has no effect here: {why}."));
                    }
                    self.out
                        .line(format!("{} - {}\n{}", cmd.name, cmd.usage(), help))
                }
                None => {
                    let mut msg = format!("Error: invalid option {name}");
                    if let Some(near) = crate::config::nearest(name, names.iter().copied()) {
                        msg.push_str(&format!("; did you mean {near}?"));
                    }
                    return Err(Error::usage(
                        msg,
                        format!("Usage: help [{}]", names.join("|")),
                    ));
                }
            },
        }
        Ok(Dynamic::UNIT)
    }

    pub fn clear(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.out.clear_screen();
        Ok(Dynamic::UNIT)
    }

    pub fn quit(&mut self, _args: &[String]) -> Result<Dynamic> {
        Err(Error::Quit)
    }
}

fn vus_exist_error() -> Error {
    Error::VusExist {
        doing: "changing settings",
    }
}

fn arg_count(cmd: &Command) -> String {
    let n = |k: usize| {
        if k == 1 {
            "1 argument".to_string()
        } else {
            format!("{k} arguments")
        }
    };
    if cmd.min_args == cmd.max_args {
        n(cmd.min_args)
    } else {
        format!("{} to {}", cmd.min_args, n(cmd.max_args))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_a_method_and_every_method_a_command() {
        for cmd in commands::COMMANDS {
            let runs = method(cmd.name).is_some() || commands::no_effect(cmd.name).is_some();
            assert!(runs, "no method runs {}", cmd.name);
        }
        let mut seen = std::collections::HashSet::new();
        for (name, _) in METHODS {
            assert!(seen.insert(*name), "{name} is dispatched twice");
            assert!(commands::find(name).is_some(), "{name} is not in the table");
        }
        let no_effect = commands::COMMANDS
            .iter()
            .filter(|c| commands::no_effect(c.name).is_some())
            .count();
        assert_eq!(METHODS.len() + no_effect, commands::COMMANDS.len());
    }
}
