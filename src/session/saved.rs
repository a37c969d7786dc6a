//! HammerDB's `savescript` and `citmp`: what hammer can do of them. `savescript FILE` writes
//! the loaded workload as a hammer script that loads it again (a custom script is copied), and
//! `citmp` shows where a run's files and jobs go.

use std::path::{Path, PathBuf};

use rhai::Dynamic;

use super::Session;
use crate::commands::VUSET_OPTIONS;
use crate::config::{Database, Settings, Target};
use crate::error::{Error, Result};

impl Session {
    /// `savescript FILE`: a bare name goes to the temporary directory, as HammerDB's does, and
    /// the file always ends in `.rhai` (HammerDB forces `.tcl`; the file is a hammer script).
    /// Returns the path written.
    pub fn savescript(&mut self, args: &[String]) -> Result<Dynamic> {
        let path = save_path(&args[0], &crate::txcount::log_dir());
        let text = match (&self.vu.script, &self.vu.custom) {
            (Some(script), _) => saved_script(&script.render(), &script.settings, script.db),
            (None, Some(custom)) => {
                std::fs::read_to_string(custom.path()).map_err(|source| Error::Io {
                    what: "cannot read the custom script to save",
                    path: custom.path().display().to_string(),
                    source,
                })?
            }
            (None, None) => return Err(Error::NoScriptToSave),
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let writable =
            std::fs::metadata(&dir).is_ok_and(|m| m.is_dir() && !m.permissions().readonly());
        if !writable {
            return Err(Error::SaveDirectory {
                dir: dir.display().to_string(),
                file: path.display().to_string(),
            });
        }
        std::fs::write(&path, text).map_err(|source| Error::Io {
            what: "cannot write the script for savescript",
            path: path.display().to_string(),
            source,
        })?;
        let shown = path.display().to_string();
        self.out
            .line(format!("Success ... wrote script to {shown}"));
        Ok(shown.into())
    }

    /// `citmp`: the temporary directory (logs, `savescript`, a converted script's `$TMP`) and
    /// the jobs database, as a map `#{tmp: ..., jobs: ...}` too.
    pub fn citmp(&mut self, _args: &[String]) -> Result<Dynamic> {
        let tmp = crate::txcount::log_dir().display().to_string();
        let jobs = self.jobs.place_text();
        self.out.line(format!("TMP directory: {tmp}"));
        self.out.line(format!("Jobs database: {jobs}"));
        let mut map = rhai::Map::new();
        map.insert("tmp".into(), tmp.into());
        map.insert("jobs".into(), jobs.into());
        Ok(map.into())
    }
}

/// Where `savescript NAME` writes: a bare name in `tmp`, a path as given; either way with the
/// extension `.rhai`.
fn save_path(name: &str, tmp: &Path) -> PathBuf {
    let given = Path::new(name.trim());
    let mut path = match given.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => given.to_path_buf(),
        _ => tmp.join(given),
    };
    path.set_extension("rhai");
    path
}

/// The hammer script `savescript` writes for a loaded workload: `print script` as comments,
/// then the commands that load the same script again from default settings. Passwords are
/// left out and named.
fn saved_script(render: &str, settings: &Settings, db: Database) -> String {
    // A Rhai string literal (Rust's {:?} escapes some characters in a form Rhai does not read).
    let quote = crate::convert::string_literal;
    let mut out = String::from(
        "// Written by hammer's savescript; run it with hammer auto FILE to load the same \
         workload again.\n",
    );
    for line in render.lines() {
        if line.is_empty() {
            out.push_str("//\n");
        } else {
            out.push_str(&format!("// {line}\n"));
        }
    }
    out.push_str(&format!("dbset(\"db\", {});\n", quote(db.prefix())));
    out.push_str(&format!(
        "dbset(\"bm\", {});\n",
        quote(settings.generic.get("bm"))
    ));
    let bench = crate::workloads::of(settings).map(|b| b.dictionary());
    let dict = settings.dict(Target::Db(db));
    let mut passwords = Vec::new();
    for spec in dict.specs() {
        let wanted =
            spec.section == "connection" || bench.as_ref().is_ok_and(|b| spec.section == *b);
        let value = dict.get(&spec.key);
        if !wanted || value == spec.default {
            continue;
        }
        if spec.is_secret() {
            passwords.push(format!("{} {}", spec.section, spec.key));
            continue;
        }
        out.push_str(&format!(
            "diset({}, {}, {});\n",
            quote(spec.section),
            quote(&spec.key),
            quote(value)
        ));
    }
    if !passwords.is_empty() {
        out.push_str(&format!(
            "// Passwords are not saved: set {} with diset before loadscript.\n",
            passwords.join(", ")
        ));
    }
    let g = &settings.generic;
    for (option, key) in VUSET_OPTIONS {
        let default = g.spec(key).map(|s| s.default.as_str());
        if *option == "vu" || default.is_some_and(|d| d != g.get(key)) {
            out.push_str(&format!(
                "vuset({}, {});\n",
                quote(option),
                quote(g.get(key))
            ));
        }
    }
    out.push_str("loadscript();\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_script_sets_what_changed_and_loads_again_without_passwords() {
        let mut s = Settings::defaults();
        let pg = Target::Db(Database::Pg);
        s.set(pg, "tpcc", "pg_count_ware", "4").unwrap();
        s.set(pg, "tpcc", "pg_pass", "s3cret").unwrap();
        s.set(pg, "connection", "pg_host", "db1").unwrap();
        s.set(
            Target::Generic,
            "virtual_user_options",
            "virtual_users",
            "3",
        )
        .unwrap();
        s.set(Target::Generic, "virtual_user_options", "user_delay", "20")
            .unwrap();
        let text = saved_script("#OPTIONS\n\nworkload = TPROC-C", &s, Database::Pg);
        assert!(!text.contains("s3cret"), "{text}");
        for line in [
            "// #OPTIONS\n//\n// workload = TPROC-C\n",
            "dbset(\"db\", \"pg\");\n",
            "dbset(\"bm\", \"TPC-C\");\n",
            "diset(\"connection\", \"pg_host\", \"db1\");\n",
            "diset(\"tpcc\", \"pg_count_ware\", \"4\");\n",
            "// Passwords are not saved: set tpcc pg_pass with diset before loadscript.\n",
            "vuset(\"vu\", \"3\");\nvuset(\"delay\", \"20\");\nloadscript();\n",
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
        // Keys left at their default, and other workloads' keys, are not written.
        for absent in ["pg_rampup", "pg_scale_fact", "repeat"] {
            assert!(!text.contains(absent), "{absent} in {text}");
        }
    }

    #[test]
    fn a_bare_name_is_saved_in_the_temporary_directory_as_rhai() {
        let tmp = Path::new("/var/tmp");
        assert_eq!(save_path("x", tmp), PathBuf::from("/var/tmp/x.rhai"));
        assert_eq!(save_path("x.tcl", tmp), PathBuf::from("/var/tmp/x.rhai"));
        assert_eq!(save_path("/a/b.rhai", tmp), PathBuf::from("/a/b.rhai"));
        assert_eq!(save_path("d/b", tmp), PathBuf::from("d/b.rhai"));
    }
}
