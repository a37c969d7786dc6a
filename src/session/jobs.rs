//! Commands as jobs: the recording around buildschema, checkschema, deleteschema, datagenrun
//! and vurun (begin, end, system facts, the verdict a failed job raises), and the jobs command.

use rhai::{Dynamic, Map};

use super::{values, Session};
use crate::config::{Database, Settings};
use crate::error::{Error, Result};
use crate::jobs::Kind as JobKind;

impl Session {
    // ---- jobs --------------------------------------------------------------------------

    /// Runs a command as a job. The command calls `begin_job` where its work starts, after
    /// its checks, so that a refused command is no job; its end is recorded here.
    pub(super) fn as_job(
        &mut self,
        args: &[String],
        body: fn(&mut Session, &[String]) -> Result<Dynamic>,
    ) -> Result<Dynamic> {
        let outcome = body(self, args);
        let Some(job) = self.jobs.running() else {
            return outcome;
        };
        let (id, kind, db, settings) = (job.id.clone(), job.kind, job.db, job.settings.clone());
        let run = self.vu.last_run.as_ref().filter(|(r, _)| *r == id);
        let record = run.map(|(_, r)| r.record());
        let mut end =
            crate::jobs::recorder::end_of(&outcome, self.interrupt.is_set(), record.as_ref());
        // HammerDB stamps timed TPROC-C runs with the performance profile id; other jobs get 0.
        let profile = self.profile_id();
        let tpcc = crate::workloads::of(&settings)
            .is_ok_and(|b| b.name() == crate::benchmarks::TPROC_C.name);
        if kind == JobKind::Run && tpcc && profile > 0 && run.is_some() {
            end.profile = Some((profile, self.jobs.profile_step.clone()));
        }
        let figures = run.map(|(rid, r)| r.value(rid));
        // A failed job's server may be gone, and data generation needs none: no waiting.
        let facts = end.status != crate::jobs::Status::Failed && kind != JobKind::Datagen;
        end.system = Some(self.job_system(&settings, db, facts));
        // A stopped job's id is in its verdict, which a script cannot catch: said once there.
        if end.status != crate::jobs::Status::Stopped {
            self.out.line(format!("{} jobid={id}", kind.label()));
        }
        // Recorded before the verdict reaches the script: a script that stops here, or a
        // `hammer auto` that exits, leaves the job saved.
        self.jobs.finish(&self.out, &end);
        let outcome = crate::jobs::recorder::with_jobid(outcome, &id);
        match end.status {
            crate::jobs::Status::Failed | crate::jobs::Status::Stopped => {
                Err(job_verdict(&id, kind, &end, outcome, figures))
            }
            _ => outcome,
        }
    }

    /// The performance profile id later TPROC-C runs are recorded under (0: none).
    fn profile_id(&self) -> i64 {
        self.settings
            .generic
            .get("jobs_profile_id")
            .parse()
            .unwrap_or(0)
    }

    /// Starts recording the current command as a job; returns its id.
    pub(super) fn begin_job(&mut self, spec: crate::jobs::Spec) -> String {
        let settings = match &self.vu.script {
            Some(script) if spec.kind == JobKind::Run => script.settings.clone(),
            _ => self.settings.clone(),
        };
        let db = Database::from_name(&spec.profile.db).unwrap_or_else(|| self.current());
        self.jobs.begin(spec, db, &settings, &self.out)
    }

    /// The machine, and the server's version and key settings when `server` is true.
    fn job_system(
        &self,
        settings: &Settings,
        db: Database,
        server: bool,
    ) -> crate::jobs::SystemInfo {
        let mut sys = crate::jobs::system::host_info();
        if server {
            let facts = self.rt.block_on(async {
                tokio::time::timeout(
                    std::time::Duration::from_secs(5),
                    crate::db::server_facts(settings, db),
                )
                .await
            });
            if let Ok(Ok(facts)) = facts {
                sys.server_version = Some(facts.version);
                sys.server_settings = facts.settings;
                sys.transport = Some(facts.transport);
            }
        }
        sys
    }

    pub fn jobs(&mut self, args: &[String]) -> Result<Dynamic> {
        use crate::jobs::command::{self, Request};
        use crate::jobs::Format;
        let request = command::parse(args)?;
        match &request {
            Request::ProfileId(None) => {
                let id = self.profile_id();
                self.out.line(format!("Performance profile id set to {id}"));
                return Ok(Dynamic::from(id));
            }
            Request::ProfileId(Some(id)) => {
                let change = self.settings.set(
                    crate::config::Target::Generic,
                    "commandline",
                    "jobs_profile_id",
                    &id.to_string(),
                )?;
                if matches!(change, crate::config::Change::Changed { .. }) {
                    self.persist();
                }
                self.out
                    .line(format!("Setting performance profile id to {id}"));
                return Ok(Dynamic::UNIT);
            }
            Request::ProfileStep(None) => {
                let step = self.jobs.profile_step.clone();
                self.out.line(if step.is_empty() {
                    "No performance profile step set: runs are told apart by their virtual users"
                        .to_string()
                } else {
                    format!("Performance profile step set to {step}")
                });
                return Ok(Dynamic::from(step));
            }
            Request::ProfileStep(Some(step)) => {
                self.jobs.profile_step = step.clone();
                self.out
                    .line(format!("Setting performance profile step to {step}"));
                return Ok(Dynamic::UNIT);
            }
            _ => {}
        }
        if let Request::Format(value) = &request {
            let (value, changed) =
                command::format(&mut self.settings, value.as_deref(), &self.out)?;
            if changed {
                self.persist();
            }
            return Ok(value);
        }
        let format = self
            .jobs
            .format_override
            .unwrap_or_else(|| Format::of(&self.settings));
        // `hammer jobs --json` asks for JSON even of the table that is otherwise text.
        let request = match (request, self.jobs.format_override) {
            (Request::Table, Some(Format::Json)) => Request::List,
            (r, _) => r,
        };
        command::run(&mut self.jobs, request, format, &self.out)
    }
}

/// The error a FAILED or STOPPED job raises: one line naming the job, its status and why
/// (`Schema Check jobid=... FAILED: 1 of 24 checks failed: ...`), and for `catch (e)` a map
/// with the same `message`, the `jobid`, `status`, `type`, `kind` and `note`, the command's
/// own map when it returned one (`checkschema`'s `ok`, `failed` and `checks`), and a run's
/// figures as `result` (what `lastrun()` returns; `()` when nothing ran).
fn job_verdict(
    id: &str,
    kind: JobKind,
    end: &crate::jobs::store::End,
    outcome: Result<Dynamic>,
    figures: Option<Map>,
) -> Error {
    let note = end.note.clone().unwrap_or_else(|| match &outcome {
        Err(e) => e.to_string(),
        Ok(_) => "no reason was recorded".to_string(),
    });
    let status = end.status.label();
    let message = format!("{} jobid={id} {status}: {note}", kind.label());
    let caught = values::verdict_map(
        outcome.ok().and_then(|v| v.try_cast::<Map>()),
        &message,
        id,
        kind,
        status,
        &note,
        figures,
    );
    Error::Job {
        message,
        stopped: end.status == crate::jobs::Status::Stopped,
        caught: Box::new(caught.into()),
    }
}
