//! The dictionary commands: dbset, diset, giset, vuset, tcset and metset change the settings
//! (checked, confirmed in HammerDB's words, persisted); print shows them; librarycheck asks
//! each database's server what it is.

use rhai::Dynamic;

use super::{values, vus_exist_error, Session};
use crate::commands::{self, Command, METSET_OPTIONS, PRINT_TARGETS, TCSET_OPTIONS, VUSET_OPTIONS};
use crate::config::{Change, Database, Target, Unsupported, DATABASES};
use crate::error::{Error, Result};

impl Session {
    // ---- dbset -------------------------------------------------------------------------

    pub fn dbset(&mut self, args: &[String]) -> Result<Dynamic> {
        let usage = commands::find("dbset")
            .map(Command::usage)
            .unwrap_or_default();
        match args[0].as_str() {
            "db" => self.set_database(&args[1]),
            "bm" => self.set_benchmark(&args[1]),
            other => Err(Error::usage(
                format!("Error: invalid option {other}"),
                usage,
            )),
        }
    }

    fn set_database(&mut self, typed: &str) -> Result<Dynamic> {
        let db = database_named(typed)?;
        let changed = db != self.current();
        if changed {
            self.settings
                .set(Target::Generic, "benchmark", "rdbms", db.name())?;
            self.persist();
        }
        self.out.line(format!("Database set to {}", db.name()));
        if changed {
            self.drop_workload(&format!("the database changed to {}", db.name()));
        }
        Ok(Dynamic::UNIT)
    }

    fn set_benchmark(&mut self, name: &str) -> Result<Dynamic> {
        let bm = crate::workloads::named(name)?;
        // HammerDB's own words are echoed as typed; any other spelling by the name it chose.
        let typed = name.to_ascii_uppercase();
        let shown = if [bm.name(), bm.alias()].contains(&typed.as_str()) {
            typed
        } else {
            bm.name().to_string()
        };
        let changed =
            crate::workloads::of(&self.settings).map_or(true, |old| old.name() != bm.name());
        if changed {
            // Kept under HammerDB's compatible name (`TPC-C`, `TPC-H`), as its settings keep it.
            self.settings
                .set(Target::Generic, "benchmark", "bm", bm.alias())?;
            self.persist();
        }
        self.out.line(format!(
            "Benchmark set to {shown} for {}",
            self.current().name()
        ));
        if changed {
            self.drop_workload(&format!("the workload changed to {}", bm.name()));
        }
        Ok(Dynamic::UNIT)
    }

    /// After `dbset` changed the database or the workload: the loaded script (made for the
    /// old one) and the virtual users created for it go, so that the next `vurun` cannot run
    /// what was set before; one line says what went and why. A custom script stays: it is
    /// the user's own and runs on whichever database is current.
    fn drop_workload(&mut self, why: &str) {
        let script = self.vu.script.take().map(|s| s.workload());
        let vus = self.vu.board.take().map_or(0, |b| b.len());
        let what = match (script, vus) {
            (None, 0) => return,
            (Some(w), 0) => format!("Loaded {w} script cleared"),
            (None, n) => format!("{n} virtual user{} destroyed", plural(n)),
            (Some(w), n) => format!(
                "Loaded {w} script cleared and {n} virtual user{} destroyed",
                plural(n)
            ),
        };
        let again = if self.vu.custom.is_some() {
            "run vucreate again for the custom script, or loadscript"
        } else {
            "run loadscript again"
        };
        self.out.line(format!("{what}: {why}; {again}"));
    }

    // ---- diset / giset -----------------------------------------------------------------

    pub fn diset(&mut self, args: &[String]) -> Result<Dynamic> {
        self.set_key(Target::Db(self.current()), &args[0], &args[1], &args[2])
    }

    pub fn giset(&mut self, args: &[String]) -> Result<Dynamic> {
        self.set_key(Target::Generic, &args[0], &args[1], &args[2])
    }

    fn set_key(
        &mut self,
        target: Target,
        section: &str,
        key: &str,
        value: &str,
    ) -> Result<Dynamic> {
        if target == Target::Generic && section == "virtual_user_options" && self.vus_exist() {
            return Err(vus_exist_error());
        }
        let spec = self.settings.dict(target).spec(key).cloned();
        let secret = spec.as_ref().is_some_and(|s| s.is_secret());
        let masked_inside = spec
            .as_ref()
            .and_then(|s| s.inner_secret(value))
            .is_some_and(|p| p == crate::config::MASK);
        if (secret && value == crate::config::MASK) || masked_inside {
            // A line recalled from the history has its password masked: running it again
            // must not make the mask the password.
            return Err(Error::MaskedPassword {
                mask: crate::config::MASK,
                section: section.to_string(),
                key: key.to_string(),
            });
        }
        let change = self.settings.set(target, section, key, value)?;
        // A password is never shown, not even masked: "from ******** to ********" would read
        // as if something were hidden in the sentence rather than in the value.
        match change {
            Change::Same(_) if secret => self.out.line(format!(
                "Value for {section}:{key} is the same as the existing value, no change made"
            )),
            Change::Same(v) => {
                // A connection string's password stays masked.
                let v = spec.as_ref().map_or(v.clone(), |s| s.show(&v));
                self.out.line(format!(
                    "Value {v} for {section}:{key} is the same as existing value {v}, no change made"
                ))
            }
            Change::Changed { old, new } => {
                if secret {
                    self.out
                        .line(format!("Changed {section}:{key} for {}", target.label()));
                } else {
                    let show = |v: &str| spec.as_ref().map_or(v.to_string(), |s| s.show(v));
                    self.out.line(format!(
                        "Changed {section}:{key} from {} to {} for {}",
                        show(&old),
                        show(&new),
                        target.label()
                    ));
                }
                self.persist();
                // HammerDB clears the script only for *_driver keys, so other changes silently
                // miss the next run; here any change to the script's database clears it, and
                // vurun (or vucreate) loads the current settings again, whether or not virtual
                // users exist.
                // So does a change to the shared run this driver joins (generic `drivers`).
                let affects_script = self.vu.script.as_ref().is_some_and(|sc| {
                    target == Target::Db(sc.db)
                        || (target == Target::Generic && section == "drivers")
                });
                if affects_script {
                    self.vu.script = None;
                    self.out
                        .line("Clearing Script, reload script to activate new setting");
                    self.out
                        .line("Script cleared: vurun loads it again with the new setting");
                }
                // hammer's own: the next job goes to the jobs database named now, and
                // `jobs` reads that one.
                if target == Target::Generic && section == "commandline" && key == "jobs_store" {
                    self.jobs.relocate(&self.settings);
                }
                // `giset benchmark bm|rdbms` is dbset by another name.
                if target == Target::Generic && section == "benchmark" {
                    match key {
                        "bm" => self.drop_workload(&format!("the workload changed to {new}")),
                        "rdbms" => self.drop_workload(&format!("the database changed to {new}")),
                        _ => {}
                    }
                }
            }
        }
        // A HammerDB key that does nothing here: stored and checked, and said so in one line.
        if let Some(why) = crate::config::keys::unused_key(key) {
            self.out.error(format!(
                "Warning: {section}:{key} has no effect in hammer: {why}"
            ));
        }
        Ok(Dynamic::UNIT)
    }

    // ---- vuset / tcset / metset --------------------------------------------------------

    pub fn vuset(&mut self, args: &[String]) -> Result<Dynamic> {
        let usage = commands::find("vuset")
            .map(Command::usage)
            .unwrap_or_default();
        let Some((_, key)) = VUSET_OPTIONS.iter().find(|(o, _)| *o == args[0]) else {
            return Err(Error::usage(
                format!("Error: invalid option {}", args[0]),
                usage,
            ));
        };
        if self.vus_exist() {
            return Err(vus_exist_error());
        }
        let value = if *key == "virtual_users" && args[1].eq_ignore_ascii_case("vcpu") {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .to_string()
        } else {
            args[1].clone()
        };
        self.set_key(Target::Generic, "virtual_user_options", key, &value)
    }

    pub fn tcset(&mut self, args: &[String]) -> Result<Dynamic> {
        let r = self.set_option("tcset", "transaction_counter", TCSET_OPTIONS, args)?;
        if self.tc.thread_id().is_some() {
            self.out
                .line("Transaction Counter is running: the change applies from the next tcstart");
        }
        Ok(r)
    }

    pub fn metset(&mut self, args: &[String]) -> Result<Dynamic> {
        if self.metrics.status().is_some() {
            return Err(Error::MetricsRunningSet);
        }
        self.set_option("metset", "metrics", METSET_OPTIONS, args)
    }

    /// `tcset`/`metset`: an option word mapped to a generic key, confirmed in HammerDB's words.
    fn set_option(
        &mut self,
        cmd: &str,
        section: &str,
        options: &[(&str, &str, &str)],
        args: &[String],
    ) -> Result<Dynamic> {
        let usage = commands::find(cmd).map(Command::usage).unwrap_or_default();
        let Some((_, key, label)) = options.iter().find(|(o, _, _)| *o == args[0]) else {
            return Err(Error::usage(
                format!("Error: invalid option {}", args[0]),
                usage,
            ));
        };
        let change = self.settings.set(Target::Generic, section, key, &args[1])?;
        let value = match change {
            Change::Same(v) => v,
            Change::Changed { new, .. } => {
                self.persist();
                new
            }
        };
        self.out.line(format!("{label} set to {value}"));
        Ok(Dynamic::UNIT)
    }

    // ---- print -------------------------------------------------------------------------

    pub fn print(&mut self, args: &[String]) -> Result<Dynamic> {
        Ok(self.print_text(&args[0])?.into())
    }

    /// The text `print target` shows.
    pub fn print_text(&self, target: &str) -> Result<String> {
        let db = self.current();
        let text = match target {
            "db" => {
                let all: Vec<String> = Database::ALL
                    .iter()
                    .map(|d| format!("{} = {}", d.name(), d.prefix()))
                    .collect();
                format!(
                    "Database {} set.\nTo change do: dbset db prefix, one of:\n{}",
                    db.name(),
                    all.join(" ")
                )
            }
            "bm" => format!("Benchmark set to {}", self.settings.generic.get("bm")),
            "dict" => {
                // HammerDB shows the connection and the current benchmark's section.
                let dict = self.settings.db(db);
                let bench = crate::workloads::of(&self.settings).map(|b| b.dictionary());
                let sections: Vec<&str> = dict
                    .sections()
                    .into_iter()
                    .filter(|s| bench.as_ref().map_or(true, |b| s == b) || *s == "connection")
                    .collect();
                format!(
                    "Dictionary Settings for {}\n{}",
                    db.name(),
                    dict.render(&sections)
                )
            }
            "generic" => {
                let g = &self.settings.generic;
                format!("Generic Dictionary Settings\n{}", g.render(&g.sections()))
            }
            "vuconf" => {
                let g = &self.settings.generic;
                [
                    ("Virtual Users", "virtual_users"),
                    ("User Delay(ms)", "user_delay"),
                    ("Repeat Delay(ms)", "repeat_delay"),
                    ("Iterations", "iterations"),
                    ("Show Output", "show_output"),
                    ("Log Output", "log_to_temp"),
                    ("Unique Log Name", "unique_log_name"),
                    ("No Log Buffer", "no_log_buffer"),
                    ("Log Timestamps", "log_timestamps"),
                    ("Refresh Rate(s)", "refresh_rate"),
                ]
                .iter()
                .map(|(label, key)| format!("{label} = {}", g.get(key)))
                .collect::<Vec<_>>()
                .join("\n")
            }
            "tcconf" => self.settings.generic.render(&["transaction_counter"]),
            "script" => match (&self.vu.script, &self.vu.custom) {
                (Some(script), _) => script.render(),
                (None, Some(custom)) => custom.render(),
                (None, None) => "\nNo Script loaded: Load with loadscript\n".to_string(),
            },
            "vucreated" => format!(
                "{} Virtual Users created",
                self.vu.board.as_ref().map_or(0, |b| b.len())
            ),
            "vustatus" => self.vustatus_text(),
            "vucomplete" => self.vucomplete_value().to_string(),
            "datagen" => crate::bench::generation::plan(self.datagen_benchmark(), &self.settings),
            "connectpool" => self.settings.pool(db).render(self.settings.db(db), db),
            other => {
                let usage = commands::find("print")
                    .map(Command::usage)
                    .unwrap_or_default();
                return Err(Error::usage(
                    format!(
                        "Error: cannot print \"{other}\", valid targets are {}",
                        PRINT_TARGETS.join(", ")
                    ),
                    usage,
                ));
            }
        };
        Ok(text)
    }

    // ---- librarycheck ------------------------------------------------------------------

    pub fn librarycheck(&mut self, _args: &[String]) -> Result<Dynamic> {
        let settings = self.settings.clone();
        // All servers are asked at once, so unreachable hosts cost one timeout, not one each.
        let probes = self.block_on(futures_util::future::join_all(
            Database::ALL.map(|db| crate::db::probe(&settings, db)),
        ))?;
        let mut entries = Vec::new();
        for (db, probe) in Database::ALL.iter().zip(probes) {
            let name = db.name();
            self.out
                .line(format!("Checking database library for {name}"));
            let driver = crate::db::engine(*db).client();
            self.out.line(format!(
                "Success ... {driver} driver is built into hammer for {name}"
            ));
            if let Some(caveat) = crate::db::engine(*db).untested() {
                self.out.line(format!("Note: {caveat}"));
            }
            let entry = match probe {
                Ok(info) => {
                    let tls = if info.tls { "TLS on" } else { "TLS off" };
                    let port = info
                        .port
                        .map(|p| format!(", @@port {p}"))
                        .unwrap_or_default();
                    let via = if info.peer.addr.starts_with('/') {
                        "socket"
                    } else {
                        "TCP"
                    };
                    self.out.line(format!(
                        "Server {} answers as user {}: {} ({via}, {tls}{port})",
                        info.peer.addr, info.peer.user, info.version
                    ));
                    if let Some(note) = &info.note {
                        self.out.line(format!("Note: {note}"));
                    }
                    values::server_map(&info)
                }
                Err(e) => {
                    self.out.line(format!("Error: {e}"));
                    values::no_server_map(&e.to_string())
                }
            };
            entries.push((db.prefix(), entry));
        }
        Ok(values::by_prefix(entries).into())
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The database `dbset db` names: its prefix, its display name or another name users type
/// (`postgres`, `mariadb`), in any case; else why not, with the near miss it may be.
fn database_named(typed: &str) -> Result<Database> {
    if let Some(db) = Database::from_typed(typed) {
        return Ok(db);
    }
    let valid: Vec<String> = Database::ALL
        .iter()
        .map(|d| d.prefix().to_string())
        .collect();
    if let Some(u) = Unsupported::named(typed) {
        return Err(Error::UnsupportedDatabase {
            name: u.name.to_string(),
            prefix: u.prefix.to_string(),
            valid,
        });
    }
    // Every word that names a database, lower-cased, with the database it names: prefixes
    // and display names first, so that a tie goes to them rather than to an alias.
    let words: Vec<(String, Database)> = Database::ALL
        .iter()
        .flat_map(|d| {
            [
                (d.prefix().to_string(), *d),
                (d.name().to_ascii_lowercase(), *d),
            ]
        })
        .chain(
            DATABASES
                .iter()
                .flat_map(|n| n.aliases.iter().map(|a| (a.to_string(), n.db))),
        )
        .collect();
    // A short word is a near miss of one letter only: `pq` may be `pg`; `my` is not `pg`.
    let lower = typed.to_ascii_lowercase();
    let within = if lower.chars().count() <= 4 { 1 } else { 2 };
    let near = words
        .iter()
        .map(|(w, d)| (strsim::damerau_levenshtein(&lower, w), d))
        .filter(|(n, _)| *n <= within)
        .min_by_key(|(n, _)| *n)
        .map(|(_, d)| format!("{} ({})", d.prefix(), d.name()));
    Err(Error::UnknownDatabase {
        prefix: typed.to_string(),
        near,
        valid,
    })
}
