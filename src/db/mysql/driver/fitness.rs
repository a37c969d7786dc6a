//! The pre-run fitness questions of `tpcc::fitness`, answered in MariaDB's and MySQL's SQL.

use super::sql::PROCEDURES;
use super::values::{cell, int_of, Cols};
use crate::db::mysql::wire::{Arg, Wire, WireError};
use crate::error::{Error, Result};
use crate::fault::Peer;
use crate::tpcc::fitness::{Fitness, NURAND_TABLE};

/// The fitness questions, on a connection with no database selected.
pub(super) struct MyFitness<'a> {
    pub(super) conn: &'a mut Wire,
    /// The schema's database.
    pub(super) db: &'a str,
    /// The server the connection reached, for errors.
    pub(super) peer: Peer,
    /// The stored procedures must be there.
    pub(super) procedures: bool,
    /// The key that turns the procedures off (`maria_no_stored_procs`).
    pub(super) no_procs_key: String,
}

impl MyFitness<'_> {
    fn failed(&self, action: &'static str, what: &str, e: &WireError) -> Error {
        Error::Db(
            self.peer
                .failed(action, e.kind, format!("{what}: {}", e.detail)),
        )
    }
}

impl Fitness for MyFitness<'_> {
    async fn missing_tables(&mut self, wanted: &[&'static str]) -> Result<Vec<String>> {
        let tables: Vec<String> = self
            .conn
            .exec_rows(
                "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
                &[Arg::Text(self.db.as_bytes())],
            )
            .await
            .map_err(|e| self.failed("cannot check", "the tables", &e))?
            .iter()
            .map(|r| Cols(r).text(0))
            .collect();
        Ok(wanted
            .iter()
            .filter(|t| !tables.iter().any(|have| have.eq_ignore_ascii_case(t)))
            .map(|t| t.to_string())
            .collect())
    }

    async fn max_warehouse(&mut self) -> Result<Option<i64>> {
        Ok(self
            .conn
            .query_first(&format!(
                "SELECT MAX(w_id) FROM {}.warehouse",
                ident(self.db)
            ))
            .await
            .map_err(|e| self.failed("cannot check", "the warehouses", &e))?
            .and_then(|r| int_of(cell(&r, 0))))
    }

    async fn routines(&mut self) -> Result<()> {
        if !self.procedures {
            return Ok(());
        }
        let routines: Vec<String> = self
            .conn
            .exec_rows(
                "SELECT ROUTINE_NAME FROM information_schema.ROUTINES \
                 WHERE ROUTINE_SCHEMA = ? AND ROUTINE_TYPE = 'PROCEDURE'",
                &[Arg::Text(self.db.as_bytes())],
            )
            .await
            .map_err(|e| self.failed("cannot check", "the stored procedures", &e))?
            .iter()
            .map(|r| Cols(r).text(0))
            .collect();
        let missing: Vec<&str> = PROCEDURES
            .into_iter()
            .filter(|p| !routines.iter().any(|r| r.eq_ignore_ascii_case(p)))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(Error::LacksProcedures {
            db: self.db.to_string(),
            procedures: missing.into_iter().map(String::from).collect(),
            key: self.no_procs_key.clone(),
        })
    }

    async fn nurand(&mut self) -> Result<Vec<[Option<i64>; 3]>> {
        let rows = self
            .conn
            .query_rows(&format!(
                "SELECT c_last, c_id, ol_i_id FROM {}.{NURAND_TABLE}",
                ident(self.db)
            ))
            .await
            .map_err(|e| self.failed("cannot read", NURAND_TABLE, &e))?;
        Ok(rows
            .iter()
            .map(|row| [0, 1, 2].map(|i| int_of(cell(row, i))))
            .collect())
    }

    /// The procedures' and statements' shapes show when a terminal prepares them.
    async fn statements(&mut self) -> Result<()> {
        Ok(())
    }
}

/// A database name as an identifier.
fn ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}
