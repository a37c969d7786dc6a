//! Custom workloads (`customscript FILE.rhai`): the user's Rhai script as a workload of the
//! virtual-user runtime, as HammerDB's custom scripts are; one unit is one iteration of the
//! script, run by every virtual user on a database connection of its own.
//!
//! The script sees `VUSER` (its virtual user's number), `ITERATION` and `DB`, a connection
//! with `query(sql)` (rows as arrays of strings, `()` for NULL), `execute(sql)` (rows
//! affected), `callproc(name, [args])` (a procedure's rows), `callfunc(name, [args])` (a
//! function's value), `begin()`, `commit()` and `rollback()`. Rhai keeps `call` for function
//! pointers, so a connection method cannot have that name (see `conn`).
//!
//! The pieces: `conn` (the connection handle `DB` and the Rhai engine that knows it),
//! `workload` (the [`crate::vu::Workload`] the runtime drives, and [`run`]), `result` (what a
//! run measured, its text, and the run as a `bench::Outcome`). A [`CustomScript`] is a
//! `bench::UserScript`: the session loads it through `crate::workloads::user_script` and runs
//! it without naming it.

mod conn;
mod result;
mod workload;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rhai::AST;

use crate::bench::benchmark::{Ran, Work};
use crate::config::{Database, Settings};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::vu::{Say, StateSink};

pub use result::{CustomResult, TYPE_NAMES};
pub use workload::{run, Plan};

/// A compiled custom script.
#[derive(Clone)]
pub struct CustomScript {
    pub path: PathBuf,
    pub source: String,
    ast: Arc<AST>,
}

impl CustomScript {
    /// Reads and compiles the script; a syntax error names `FILE:LINE:COL`.
    pub fn load(path: &Path) -> Result<Self> {
        let source = std::fs::read_to_string(path).map_err(|why| Error::ScriptUnreadable {
            path: path.display().to_string(),
            why,
        })?;
        let ast = conn::engine(None, None).compile(&source).map_err(|e| {
            let p = e.position();
            Error::ScriptSyntax {
                path: path.display().to_string(),
                line: p.line().unwrap_or(0),
                column: p.position().unwrap_or(0),
                why: Box::new(e.err_type().clone()),
            }
        })?;
        Ok(CustomScript {
            path: path.to_path_buf(),
            source,
            ast: Arc::new(ast),
        })
    }
}

impl crate::bench::UserScript for CustomScript {
    fn path(&self) -> &Path {
        &self.path
    }

    fn render(&self) -> String {
        format!(
            "Custom script {}:\n{}",
            self.path.display(),
            self.source.trim_end()
        )
    }

    /// Runs it with the settings' `iterations`, `user_delay` and `repeat_delay`.
    fn run(
        &self,
        settings: &Settings,
        db: Database,
        virtual_users: u32,
        say: Say,
        states: StateSink,
        interrupt: &Interrupt,
        rt: tokio::runtime::Handle,
    ) -> Work<Ran> {
        let g = &settings.generic;
        let plan = Plan {
            virtual_users,
            iterations: g.get_u32("iterations"),
            user_delay: g.get_millis("user_delay"),
            repeat_delay: g.get_millis("repeat_delay"),
        };
        let (script, settings, interrupt) = (self.clone(), settings.clone(), interrupt.clone());
        Box::pin(async move {
            let result = run(&script, &settings, db, plan, say, states, interrupt, rt).await?;
            Ok(Box::new(result) as Ran)
        })
    }
}

impl CustomScript {
    /// Whether `e`, raised at `line`, is Rhai refusing a `call` that is not given a function
    /// pointer: what `DB.call(..)` and `call(DB, ..)` give.
    fn called_a_pointer(&self, e: &rhai::EvalAltResult, line: usize) -> bool {
        matches!(e, rhai::EvalAltResult::ErrorMismatchDataType(want, ..) if want == "Fn")
            && line
                .checked_sub(1)
                .and_then(|i| self.source.lines().nth(i))
                .is_some_and(|l| l.contains("call("))
    }
}

#[cfg(test)]
mod tests;
