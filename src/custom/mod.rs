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
//! run measured and its text).

mod conn;
mod result;
mod workload;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rhai::AST;

use crate::error::{Error, Result};

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
