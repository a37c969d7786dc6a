//! The virtual-user commands: loadscript, customscript and clearscript choose the workload;
//! vucreate, vurun (a job), vustatus, vucomplete and vudestroy drive the virtual users;
//! lastrun gives the last run's figures.

use std::sync::Arc;

use rhai::Dynamic;

use super::Session;
use crate::bench::benchmark::Held;
use crate::error::{Error, Result};
use crate::vu::Say;

impl Session {
    // ---- loadscript / vucreate / vurun / vustatus / vucomplete / vudestroy -------------

    pub fn loadscript(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.vu.custom = None;
        let bm = crate::workloads::of(&self.settings)?;
        let (schema, options) = (bm.describe(&self.settings), bm.options(&self.settings)?);
        self.vu.script = Some(crate::vu::Script::with_options(
            &self.settings,
            schema,
            options,
        ));
        self.out
            .line("Script loaded, Type \"print script\" to view");
        Ok(Dynamic::UNIT)
    }

    pub fn customscript(&mut self, args: &[String]) -> Result<Dynamic> {
        let script = crate::workloads::user_script(std::path::Path::new(&args[0]))?;
        self.out.line(format!("Loaded {}", script.path().display()));
        self.vu.script = None;
        self.vu.custom = Some(script);
        Ok(Dynamic::UNIT)
    }

    pub fn clearscript(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.vu.script = None;
        self.vu.custom = None;
        self.out.line("Script cleared");
        Ok(Dynamic::UNIT)
    }

    pub fn vucreate(&mut self, _args: &[String]) -> Result<Dynamic> {
        if self.vus_exist() {
            return Err(Error::VusExist { doing: "creating" });
        }
        if self.vu.script.is_none() && self.vu.custom.is_none() {
            let _ = self.loadscript(&[])?;
        }
        let workers = self.settings.generic.get_u32("virtual_users") as usize;
        // Custom scripts run without a monitor.
        let monitor = self.vu.script.as_ref().is_some_and(|s| s.timed());
        let total = workers + usize::from(monitor);
        for n in 1..=total {
            if monitor && n == 1 {
                self.out.line("Vuser 1 created MONITOR - WAIT IDLE");
            } else {
                self.out.line(format!("Vuser {n} created - WAIT IDLE"));
            }
        }
        if monitor {
            self.out
                .line(format!("{total} Virtual Users Created with Monitor VU"));
        } else {
            self.out.line(format!("{total} Virtual Users Created"));
        }
        self.vu.board = Some(crate::vu::Board::new(total));
        self.vu.monitor = monitor;
        Ok(Dynamic::UNIT)
    }

    pub fn vurun(&mut self, args: &[String]) -> Result<Dynamic> {
        let outcome = self.as_job(args, Self::run_job);
        // The id was printed with the job's line; a script gets it as the value.
        if let Some(id) = outcome
            .as_ref()
            .ok()
            .and_then(|v| v.read_lock::<rhai::ImmutableString>())
        {
            let id = id.to_string();
            self.printed(&id);
        }
        outcome
    }

    fn run_job(&mut self, _args: &[String]) -> Result<Dynamic> {
        let created_here = !self.vus_exist();
        if created_here {
            let _ = self.vucreate(&[])?;
        } else if self.vu.script.is_none() && self.vu.custom.is_none() {
            // A key change cleared the script: it is loaded again with the current settings,
            // as vucreate does when no virtual users exist, so both cases behave alike.
            let _ = self
                .loadscript(&[])
                .map_err(|e| self.ran_nothing(false, e))?;
        }
        if let (Some(custom), Some(board)) = (self.vu.custom.clone(), self.vu.board.clone()) {
            return self.run_custom(custom.as_ref(), &board);
        }
        let Some(mut script) = self.vu.script.clone() else {
            return Err(self.ran_nothing(created_here, Error::NoScript));
        };
        // Virtual-user options are HammerDB's globals, read at run time, not frozen.
        // A run a Primary shares with its Replicas: this process's place in it, on the
        // run's settings only (never the session's, never persisted).
        let mut now = self.settings.clone();
        if let Some(place) = &self.shared_place {
            if let Err(e) = place
                .apply(&mut script.settings)
                .and_then(|()| place.apply(&mut now))
            {
                return Err(self.ran_nothing(created_here, e));
            }
        }
        if let Err(e) = script.use_vu_options(&now) {
            return Err(self.ran_nothing(created_here, e));
        }
        let fits = |board: &crate::vu::Board, monitor: bool| {
            script.timed() == monitor
                && board.len() == script.virtual_users() as usize + usize::from(script.timed())
        };
        if !self
            .vu
            .board
            .as_ref()
            .is_some_and(|b| fits(b, self.vu.monitor))
        {
            // The reloaded script wants a monitor (or no longer does): the idle virtual users
            // are made again to fit it, rather than refusing the run.
            self.out.line(
                "The loaded script needs other virtual users than those created: creating them again",
            );
            self.vu.board = None;
            let _ = self.vucreate(&[])?;
        }
        let Some(board) = self.vu.board.clone() else {
            return Err(self.ran_nothing(created_here, Error::NoVus));
        };
        for n in 1..=board.len() {
            board.set(n, crate::vu::VuState::WaitIdle);
        }
        let say = Say::new(self.out.clone(), 1);
        let states: crate::vu::StateSink = {
            let board = board.clone();
            Arc::new(move |vu, state| board.set(vu, state))
        };
        let work = crate::workloads::of(&script.settings)
            .and_then(|b| b.run(&script, say, states, &self.interrupt));
        let work = match work {
            Ok(w) => w,
            Err(e) => return Err(self.ran_nothing(created_here, e)),
        };
        let held = match self.held_warehouses(&script) {
            Ok(held) => held,
            Err(e) => return Err(self.ran_nothing(created_here, e)),
        };
        let profile = crate::jobs::Profile {
            db: script.db.name().into(),
            workload: script.workload().into(),
            mode: script.mode(),
            vus: Some(script.virtual_users()),
            warehouses: held.as_ref().map(|h| h.warehouses).or(script.warehouses()),
        };
        let id = self.begin_job(crate::jobs::Spec::run(profile, &script.settings, script.db));
        if let Some(warning) = held.and_then(|h| h.warning) {
            self.out.error(warning);
        }
        let outcome = match self.rt.block_on(work) {
            Ok(outcome) => outcome,
            Err(e) => {
                // Nothing ran: the schema or the connection was not right.
                for n in 1..=board.len() {
                    board.set(n, crate::vu::VuState::WaitIdle);
                }
                return Err(self.ran_nothing(created_here, e));
            }
        };
        Ok(self.ran(id, outcome))
    }

    /// The warehouses the run's schema holds, counted as the run starts, for a workload sized
    /// in them: the job records what ran, not `count_ware`, which is only the build's. `None`
    /// for another workload, or when they cannot be counted: the run then says why, in its
    /// own words. Only Ctrl-C is an error.
    fn held_warehouses(&self, script: &crate::vu::Script) -> Result<Option<Held>> {
        let Some(count) = crate::workloads::of(&script.settings)
            .ok()
            .and_then(|b| b.warehouses_held(&script.settings))
        else {
            return Ok(None);
        };
        Ok(self.block_on(count)?.ok())
    }

    /// After a run: its outcome remembers what it keeps for the next run, says its lines,
    /// and becomes the last run; the id is the value `vurun` returns.
    fn ran(&mut self, id: String, mut outcome: crate::bench::Ran) -> Dynamic {
        outcome.remember(&mut self.memory);
        for line in outcome.lines() {
            self.out.line(line);
        }
        self.out.line("ALL VIRTUAL USERS COMPLETE");
        self.vu.last_run = Some((id.clone(), outcome));
        id.into()
    }

    /// A vurun that ran nothing leaves no virtual users of its own behind, so that the next
    /// buildschema is not refused; those created before it stay, and it says how to remove
    /// them. Returns `e`, the reason, for the caller to raise.
    fn ran_nothing(&mut self, created_here: bool, e: Error) -> Error {
        if created_here {
            self.vu.board = None;
            self.out
                .line("Nothing ran: the virtual users this vurun created are destroyed");
        } else if self.vu.board.is_some() {
            self.out.line(
                "Nothing ran: the virtual users created before vurun remain; vudestroy removes them",
            );
        }
        e
    }

    fn run_custom(
        &mut self,
        custom: &dyn crate::bench::UserScript,
        board: &crate::vu::Board,
    ) -> Result<Dynamic> {
        let virtual_users = board.len() as u32;
        for n in 1..=board.len() {
            board.set(n, crate::vu::VuState::WaitIdle);
        }
        let states: crate::vu::StateSink = {
            let board = board.clone();
            Arc::new(move |vu, state| board.set(vu, state))
        };
        let say = Say::new(self.out.clone(), 1);
        let spec = crate::jobs::Spec::custom(custom.path(), &self.settings, virtual_users);
        let id = self.begin_job(spec);
        let work = custom.run(
            &self.settings,
            self.current(),
            virtual_users,
            say,
            states,
            &self.interrupt,
            self.rt.clone(),
        );
        // Failed virtual users make the job FAILED (the recorder reads them from the record).
        let outcome = self.rt.block_on(work)?;
        Ok(self.ran(id, outcome))
    }

    pub(super) fn vustatus_text(&self) -> String {
        match &self.vu.board {
            None => "No Virtual Users found".to_string(),
            Some(b) => b
                .states()
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{} = {}", i + 1, s.label()))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    pub(super) fn vucomplete_value(&self) -> bool {
        self.vu.board.as_ref().is_some_and(|b| b.complete())
    }

    pub fn vustatus(&mut self, _args: &[String]) -> Result<Dynamic> {
        self.out.line(self.vustatus_text());
        Ok(Dynamic::UNIT)
    }

    pub fn vucomplete(&mut self, _args: &[String]) -> Result<Dynamic> {
        Ok(self.vucomplete_value().into())
    }

    pub fn vudestroy(&mut self, _args: &[String]) -> Result<Dynamic> {
        if self.vu.board.take().is_none() {
            return Err(Error::NoVus);
        }
        self.out.line("vudestroy success");
        Ok(Dynamic::UNIT)
    }

    /// The last run's result as a map: `#{id, nopm, tpm, active_vus, seconds, new_order: #{...}, ...}`.
    pub fn lastrun(&mut self, _args: &[String]) -> Result<Dynamic> {
        let Some((id, r)) = &self.vu.last_run else {
            return Err(Error::NoRun);
        };
        Ok(r.value(id).into())
    }
}
