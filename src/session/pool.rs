//! The connect pool commands: `cpset` and `cpclear` change the current database's connect
//! pool (`config::pool`), which persists with the settings and which `print connectpool`
//! shows.

use rhai::Dynamic;

use super::Session;
use crate::commands;
use crate::error::{Error, Result};

impl Session {
    pub fn cpset(&mut self, args: &[String]) -> Result<Dynamic> {
        let db = self.current();
        let (id, key, value) = (&args[0], &args[1], &args[2]);
        let dict = self.settings.db(db).clone();
        let (line, warning) = self
            .settings
            .pool_mut(db)
            .set(&dict, db, id, key, value)
            .map_err(|why| {
                let usage = commands::find("cpset")
                    .map(commands::Command::usage)
                    .unwrap_or_default();
                Error::usage(
                    format!("Error: {why}; type \"print connectpool\" for the pool"),
                    usage,
                )
            })?;
        self.out.line(line);
        if let Some(w) = warning {
            self.out.error(format!("Warning: {w}"));
        }
        self.pool_changed(db);
        Ok(Dynamic::UNIT)
    }

    pub fn cpclear(&mut self, _args: &[String]) -> Result<Dynamic> {
        let db = self.current();
        *self.settings.pool_mut(db) = Default::default();
        self.out
            .line(format!("Connect pool for {} cleared", db.name()));
        self.pool_changed(db);
        Ok(Dynamic::UNIT)
    }

    /// Saves the settings, and clears a loaded script of `db`, which froze the pool it saw.
    fn pool_changed(&mut self, db: crate::config::Database) {
        self.persist();
        if self.vu.script.as_ref().is_some_and(|sc| sc.db == db) {
            self.vu.script = None;
            self.out
                .line("Script cleared: vurun loads it again with the new connect pool");
        }
    }
}
