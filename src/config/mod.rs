//! HammerDB's dictionaries: the generic one and one per database, their values and where they persist.

pub mod full;
pub mod keys;
pub mod pool;
pub mod spec;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

pub use crate::database::{Database, Unsupported, DATABASES, NAMES, UNSUPPORTED};
use crate::error::{Error, Result};
pub use spec::{KeySpec, Kind, MASK};

/// Which dictionary a command addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Generic,
    Db(Database),
}

impl Target {
    /// How messages name it: `for PostgreSQL`, `for generic`.
    pub fn label(self) -> &'static str {
        match self {
            Target::Generic => "generic",
            Target::Db(db) => db.name(),
        }
    }

    /// The hint HammerDB appends to every diset/giset error.
    fn hint(self) -> String {
        match self {
            Target::Generic => "Type \"print generic\" for valid dictionaries and keys".to_string(),
            Target::Db(db) => format!(
                "Type \"print dict\" for valid dictionaries and keys for {}",
                db.name()
            ),
        }
    }
}

/// What a successful `set` did.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Changed { old: String, new: String },
    Same(String),
}

/// One dictionary: its key specs in display order and their current values.
#[derive(Debug, Clone)]
pub struct Dict {
    specs: Vec<KeySpec>,
    values: HashMap<String, String>,
}

impl Dict {
    fn new(specs: Vec<KeySpec>) -> Self {
        let values = specs
            .iter()
            .map(|s| (s.key.clone(), s.default.clone()))
            .collect();
        Dict { specs, values }
    }

    /// Section names in display order.
    pub fn sections(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for s in &self.specs {
            if !out.contains(&s.section) {
                out.push(s.section);
            }
        }
        out
    }

    pub fn specs(&self) -> &[KeySpec] {
        &self.specs
    }

    pub fn spec(&self, key: &str) -> Option<&KeySpec> {
        self.specs.iter().find(|s| s.key == key)
    }

    /// The value of a key; an unknown key is a programming error and reads as empty.
    pub fn get(&self, key: &str) -> &str {
        debug_assert!(self.values.contains_key(key), "no key {key}");
        self.values.get(key).map(String::as_str).unwrap_or("")
    }

    pub fn get_i64(&self, key: &str) -> i64 {
        self.get(key).parse().unwrap_or(0)
    }

    pub fn get_f64(&self, key: &str) -> f64 {
        self.get(key).parse().unwrap_or(0.0)
    }

    // The typed readers below never panic: a dictionary holds only values in their key's
    // range, every range fits the type (a test checks), and anything else reads as the
    // nearest value the type holds.

    /// A whole-number key as a count (virtual users, warehouses, iterations).
    pub fn get_u32(&self, key: &str) -> u32 {
        u32::try_from(self.get_i64(key).max(0)).unwrap_or(u32::MAX)
    }

    /// A whole-number key as a large count (`*_total_iterations`).
    pub fn get_u64(&self, key: &str) -> u64 {
        u64::try_from(self.get_i64(key)).unwrap_or(0)
    }

    /// A port key.
    pub fn get_u16(&self, key: &str) -> u16 {
        u16::try_from(self.get_i64(key).max(0)).unwrap_or(u16::MAX)
    }

    /// A key in milliseconds (`user_delay`, `*_async_delay`) as a duration.
    pub fn get_millis(&self, key: &str) -> Duration {
        Duration::from_millis(self.get_u64(key))
    }

    /// A key in seconds (`*_reply_timeout`, `refresh_rate`) as a duration.
    pub fn get_secs(&self, key: &str) -> Duration {
        Duration::from_secs(self.get_u64(key))
    }

    /// A minutes key (`*_rampup`, `*_duration`) as a duration, at most [`spec::MINUTES_MAX`].
    pub fn get_minutes(&self, key: &str) -> Duration {
        let minutes = self.get_f64(key).clamp(0.0, spec::MINUTES_MAX);
        // NaN (which no dictionary holds) fails here rather than in a panic.
        Duration::try_from_secs_f64(minutes * 60.0).unwrap_or(Duration::ZERO)
    }

    pub fn get_bool(&self, key: &str) -> bool {
        matches!(self.get(key), "true" | "1")
    }

    /// The value as printed: passwords masked.
    pub fn shown(&self, key: &str) -> String {
        match self.spec(key) {
            Some(s) => s.show(self.get(key)),
            None => self.get(key).to_string(),
        }
    }

    /// Validates and stores a value; the key keeps its old value when the new one is refused.
    fn set_checked(&mut self, spec: &KeySpec, raw: &str) -> std::result::Result<Change, String> {
        let new = spec.kind.parse(raw)?;
        Ok(self.store(&spec.key, new))
    }

    /// Stores a value already checked and in canonical form.
    fn store(&mut self, key: &str, new: String) -> Change {
        let old = self.get(key).to_string();
        if old == new {
            return Change::Same(new);
        }
        self.values.insert(key.to_string(), new.clone());
        Change::Changed { old, new }
    }

    /// HammerDB's nested two-level layout (reference 5.4) for the given sections.
    pub fn render(&self, sections: &[&str]) -> String {
        let width1 = sections.iter().map(|s| s.len()).max().unwrap_or(0);
        let mut out = String::new();
        for section in sections {
            let specs: Vec<&KeySpec> = self
                .specs
                .iter()
                .filter(|s| s.section == *section)
                .collect();
            let width2 = specs.iter().map(|s| s.key.len()).max().unwrap_or(0);
            out.push_str(&format!("{section:<width1$} {{\n"));
            for s in specs {
                out.push_str(&format!(" {:<width2$} = {}\n", s.key, self.shown(&s.key)));
            }
            out.push_str("}\n");
        }
        out.pop();
        out
    }
}

/// All dictionaries, and the file they persist to.
#[derive(Debug, Clone)]
pub struct Settings {
    pub generic: Dict,
    dbs: Vec<Dict>,
    /// Each database's connect pool (`cpset`), in [`Database::ALL`]'s order.
    pools: Vec<pool::ConnectPool>,
    path: Option<PathBuf>,
}

const SETTINGS_FILE: &str = "settings.json";
/// The settings file's entry for the connect pools.
const POOLS: &str = "connectpool";

impl Settings {
    /// Defaults only, persisted nowhere (tests and a data directory that cannot be made).
    pub fn defaults() -> Self {
        Settings {
            generic: Dict::new(keys::generic_keys()),
            dbs: Database::ALL
                .iter()
                .map(|d| Dict::new(keys::database_keys(*d)))
                .collect(),
            pools: vec![pool::ConnectPool::default(); Database::ALL.len()],
            path: None,
        }
    }

    /// Loads `<home>/settings.json` over the defaults. Problems with the file are returned as
    /// warnings, never fatal: a damaged file is set aside and hammer starts from defaults.
    pub fn load(home: &Path) -> (Self, Vec<String>) {
        let mut settings = Self::defaults();
        let path = home.join(SETTINGS_FILE);
        settings.path = Some(path.clone());
        let mut warnings = Vec::new();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (settings, warnings),
            Err(e) => {
                warnings.push(format!(
                    "cannot read settings file {}: {e}; using defaults",
                    path.display()
                ));
                return (settings, warnings);
            }
        };
        let root: Map<String, Value> = match serde_json::from_str(&text) {
            Ok(Value::Object(m)) => m,
            other => {
                let aside = path.with_extension("json.bad");
                let why = match other {
                    Err(e) => e.to_string(),
                    Ok(_) => "not a JSON object".to_string(),
                };
                let _ = std::fs::rename(&path, &aside);
                warnings.push(format!(
                    "settings file {} is damaged ({why}); moved it to {} and started from defaults",
                    path.display(),
                    aside.display()
                ));
                return (settings, warnings);
            }
        };
        for (name, values) in &root {
            let dict = match name.as_str() {
                "version" => continue,
                POOLS => {
                    settings.load_pools(values, &mut warnings);
                    continue;
                }
                "generic" => &mut settings.generic,
                prefix => match Database::from_prefix(prefix) {
                    Some(db) => &mut settings.dbs[db.index()],
                    None => {
                        warnings.push(format!("settings file: ignoring unknown dictionary {name}"));
                        continue;
                    }
                },
            };
            let Value::Object(values) = values else {
                continue;
            };
            for (key, value) in values {
                let raw = match value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                match dict.spec(key).cloned() {
                    None => {
                        warnings.push(format!("settings file: ignoring unknown key {name}.{key}"))
                    }
                    Some(spec) => {
                        // One warning per refused value; the rest of the file still loads.
                        if let Err(why) = dict.set_checked(&spec, &raw) {
                            let shown = if spec.is_secret() {
                                MASK.to_string()
                            } else {
                                clip(&spec.show(&raw))
                            };
                            warnings.push(format!(
                                "settings file {}: value {shown} of {}:{key} is not valid: it \
                                 {why}; using the default {}",
                                path.display(),
                                spec.section,
                                spec.default
                            ));
                        }
                    }
                }
            }
        }
        (settings, warnings)
    }

    /// Writes every value that differs from its default. The new file is written aside,
    /// flushed to disk and renamed over the old one, so the old one stays until the new one is
    /// whole (a full disk or a crash never leaves it truncated). A full disk is reported once
    /// per data directory: while it stays full, later saves fail quietly (`Ok`), the first
    /// error having said that nothing more is saved.
    pub fn save(&self) -> Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let mut root = Map::new();
        root.insert("version".into(), Value::String(crate::VERSION.into()));
        let mut put = |name: &str, dict: &Dict| {
            let changed: Map<String, Value> = dict
                .specs
                .iter()
                .filter(|s| dict.get(&s.key) != s.default)
                .map(|s| (s.key.clone(), Value::String(dict.get(&s.key).to_string())))
                .collect();
            root.insert(name.to_string(), Value::Object(changed));
        };
        put("generic", &self.generic);
        for db in Database::ALL {
            put(db.prefix(), &self.dbs[db.index()]);
        }
        let pools: Map<String, Value> = Database::ALL
            .into_iter()
            .filter(|db| !self.pools[db.index()].is_empty())
            .map(|db| (db.prefix().to_string(), self.pools[db.index()].to_json()))
            .collect();
        if !pools.is_empty() {
            root.insert(POOLS.into(), Value::Object(pools));
        }
        let text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
        let dir = path.parent().unwrap_or(Path::new("."));
        match write_aside(path, &(text + "\n")) {
            Ok(()) => {
                full::cleared(dir);
                Ok(())
            }
            Err(source) if full::is_full(&source) => {
                if !full::first_report(dir) {
                    return Ok(());
                }
                Err(Error::Io {
                    what: "the disk is full: no settings change or job is saved there while \
                           it stays full (said once); cannot write settings file",
                    path: path.display().to_string(),
                    source,
                })
            }
            Err(source) => Err(Error::Io {
                what: "cannot write settings file",
                path: path.display().to_string(),
                source,
            }),
        }
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    pub fn db(&self, db: Database) -> &Dict {
        &self.dbs[db.index()]
    }

    /// `db`'s connect pool.
    pub fn pool(&self, db: Database) -> &pool::ConnectPool {
        &self.pools[db.index()]
    }

    /// `db`'s connect pool, to change (`cpset`, `cpclear`).
    pub fn pool_mut(&mut self, db: Database) -> &mut pool::ConnectPool {
        &mut self.pools[db.index()]
    }

    /// These settings with `db`'s connection keys as the pool's connection `id` sets them
    /// (the keys it does not set keep the dictionary's); `None` when the pool names no `id`.
    pub fn pool_connection(&self, db: Database, id: &str) -> Option<Settings> {
        let named = self.pool(db).named(id)?;
        let mut s = self.clone();
        for (key, value) in &named.keys {
            // Checked when set: a value the dictionary refuses now keeps the dictionary's.
            if let Some(spec) = s.dbs[db.index()].spec(key).cloned() {
                let _ = s.dbs[db.index()].set_checked(&spec, value);
            }
        }
        Some(s)
    }

    /// The connect pools of the settings file's `connectpool` entry, by database prefix.
    fn load_pools(&mut self, values: &Value, warnings: &mut Vec<String>) {
        let Value::Object(by_db) = values else {
            return;
        };
        for (prefix, v) in by_db {
            let Some(db) = Database::from_prefix(prefix) else {
                warnings.push(format!(
                    "settings file: ignoring the connect pool of unknown database {prefix}"
                ));
                continue;
            };
            let (pool, refused) = pool::ConnectPool::from_json(v, self.db(db), db);
            warnings.extend(refused.into_iter().map(|w| format!("settings file: {w}")));
            self.pools[db.index()] = pool;
        }
    }

    pub fn dict(&self, target: Target) -> &Dict {
        match target {
            Target::Generic => &self.generic,
            Target::Db(db) => self.db(db),
        }
    }

    fn dict_mut(&mut self, target: Target) -> &mut Dict {
        match target {
            Target::Generic => &mut self.generic,
            Target::Db(db) => &mut self.dbs[db.index()],
        }
    }

    /// The database `dbset db` chose.
    pub fn current(&self) -> Database {
        Database::from_name(self.generic.get("rdbms")).unwrap_or(Database::Pg)
    }

    /// Sets `section:key` in a dictionary, with HammerDB's checks and our clearer errors.
    pub fn set(&mut self, target: Target, section: &str, key: &str, raw: &str) -> Result<Change> {
        let (spec, new) = self.checked(target, section, key, raw)?;
        Ok(self.dict_mut(target).store(&spec.key, new))
    }

    /// What [`Settings::set`] would refuse, without setting anything: a command that checks
    /// more than the range (dgset's writers per warehouse) says the range first.
    pub fn check(&self, target: Target, section: &str, key: &str, raw: &str) -> Result<()> {
        self.checked(target, section, key, raw).map(|_| ())
    }

    /// The key's spec and the value in canonical form, or why the value is refused.
    fn checked(
        &self,
        target: Target,
        section: &str,
        key: &str,
        raw: &str,
    ) -> Result<(KeySpec, String)> {
        let label = target.label();
        let dict = self.dict(target);
        let sections = dict.sections();
        if !sections.contains(&section) {
            return Err(Error::UnknownDictionary {
                section: section.to_string(),
                target: label.to_string(),
                valid: sections.iter().map(|s| s.to_string()).collect(),
                hint: target.hint(),
            });
        }
        let spec = match dict.spec(key) {
            Some(spec) if spec.section == section => spec.clone(),
            Some(spec) => {
                return Err(Error::UnknownKey {
                    section: section.to_string(),
                    target: label.to_string(),
                    key: key.to_string(),
                    way_out: format!(", key \"{key}\" is in the \"{}\" dictionary", spec.section),
                    hint: target.hint(),
                })
            }
            None => return Err(self.unknown_key(target, section, key)),
        };
        match spec.kind.parse(raw) {
            Ok(new) => Ok((spec, new)),
            Err(why) => Err(Error::BadValue {
                section: section.to_string(),
                key: key.to_string(),
                value: spec.show(raw),
                why,
                kept: self.dict(target).shown(key),
            }),
        }
    }

    fn unknown_key(&self, target: Target, section: &str, key: &str) -> Error {
        let label = target.label();
        // What follows "key k doesn't": where the key is, what it is, or what was meant.
        let mut way_out = String::new();
        let elsewhere = Database::ALL
            .into_iter()
            .map(Target::Db)
            .chain([Target::Generic])
            .filter(|t| *t != target)
            .find_map(|t| self.dict(t).spec(key).map(|s| (t, s.section)));
        if let Some((other, other_section)) = elsewhere {
            match other {
                Target::Db(db) => way_out.push_str(&format!(
                    ", key \"{key}\" is in the \"{other_section}\" dictionary of {}: use dbset db {} first",
                    db.name(),
                    db.prefix()
                )),
                Target::Generic => way_out.push_str(&format!(
                    ", key \"{key}\" is in the \"{other_section}\" dictionary of the generic settings: use giset {other_section} {key} value"
                )),
            }
        } else if let Some(why) = keys::unused_key(key) {
            way_out.push_str(&format!(
                "; it is a HammerDB setting that hammer does not use: {why}"
            ));
        } else {
            way_out.push_str(&format!(", it cannot be found in any {label} dictionary"));
            if let Some(near) = nearest(key, self.dict(target).specs.iter().map(|s| s.key.as_str()))
            {
                way_out.push_str(&format!("; did you mean {near}?"));
            }
        }
        Error::UnknownKey {
            section: section.to_string(),
            target: label.to_string(),
            key: key.to_string(),
            way_out,
            hint: target.hint(),
        }
    }
}

/// A value as a warning quotes it: a hand-edited file may hold a whole paragraph.
fn clip(raw: &str) -> String {
    const MAX: usize = 40;
    match raw.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}...", &raw[..end]),
        None => raw.to_string(),
    }
}

/// The closest candidate to a mistyped word, if one is close enough to be the likely intent.
pub fn nearest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .map(|c| (strsim::damerau_levenshtein(word, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 5))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Writes `text` to `path` through a temporary file beside it (one per process: two hammers
/// saving at once must not share it), flushed before the rename; the temporary file is removed
/// when any step fails, so a full disk is not left fuller.
fn write_aside(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension(format!("json.tmp{}", std::process::id()));
    let written = (|| {
        let mut file = create_private(&tmp)?;
        file.write_all(text.as_bytes())?;
        // Whole on disk before it replaces the old file: a crash after the rename must not
        // find an empty new file in the old one's place.
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A new file only its owner can read (it holds passwords), from its creation on.
#[cfg(unix)]
fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    // A file left by an earlier process keeps its mode through `open`: set it.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(file)
}

#[cfg(not(unix))]
fn create_private(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::create(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_is_valid_and_every_key_unique() {
        let s = Settings::defaults();
        for target in [
            Target::Generic,
            Target::Db(Database::Pg),
            Target::Db(Database::Maria),
            Target::Db(Database::Mysql),
        ] {
            let dict = s.dict(target);
            let mut seen = std::collections::HashSet::new();
            for spec in dict.specs() {
                assert!(spec.kind.parse(&spec.default).is_ok(), "{}", spec.key);
                assert!(seen.insert(spec.key.clone()), "duplicate {}", spec.key);
            }
        }
    }

    #[test]
    fn hammerdb_defaults_are_kept() {
        let s = Settings::defaults();
        let pg = s.db(Database::Pg);
        assert_eq!(pg.get("pg_host"), "localhost");
        assert_eq!(pg.get("pg_sslmode"), "prefer");
        assert_eq!(pg.get("pg_superuserpass"), "postgres");
        assert_eq!(pg.get("pg_total_iterations"), "10000000");
        let maria = s.db(Database::Maria);
        assert_eq!(maria.get("maria_socket"), "/tmp/mariadb.sock");
        assert_eq!(maria.get("maria_pass"), "maria");
        assert!(maria.spec("maria_purge").is_some());
        let mysql = s.db(Database::Mysql);
        assert!(mysql.spec("mysql_purge").is_none());
        assert_eq!(mysql.get("mysql_oceanbase_port"), "2881");
        assert_eq!(s.generic.get("tc_refresh_rate"), "10");
    }

    #[test]
    fn set_validates_and_keeps_the_old_value() {
        let mut s = Settings::defaults();
        let pg = Target::Db(Database::Pg);
        assert_eq!(
            s.set(pg, "tpcc", "pg_count_ware", "4").unwrap(),
            Change::Changed {
                old: "1".into(),
                new: "4".into()
            }
        );
        assert_eq!(
            s.set(pg, "tpcc", "pg_count_ware", "4").unwrap(),
            Change::Same("4".into())
        );
        let err = s
            .set(pg, "tpcc", "pg_count_ware", "0")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("Value 0 for tpcc:pg_count_ware is not valid"),
            "{err}"
        );
        assert!(err.contains("keeps its value 4"), "{err}");
        assert_eq!(s.db(Database::Pg).get("pg_count_ware"), "4");
    }

    #[test]
    fn unknown_names_say_where_to_look() {
        let mut s = Settings::defaults();
        let pg = Target::Db(Database::Pg);
        let e = s
            .set(pg, "tpcx", "pg_count_ware", "1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("Dictionary \"tpcx\" for PostgreSQL does not exist; valid dictionaries are connection, tpcc"), "{e}");
        let e = s
            .set(pg, "tpcc", "pg_count_wre", "1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("did you mean pg_count_ware?"), "{e}");
        let e = s.set(pg, "tpcc", "pg_host", "h").unwrap_err().to_string();
        assert!(
            e.contains("key \"pg_host\" is in the \"connection\" dictionary"),
            "{e}"
        );
        let e = s
            .set(pg, "tpcc", "maria_user", "u")
            .unwrap_err()
            .to_string();
        assert!(e.contains("of MariaDB: use dbset db maria first"), "{e}");
        // A HammerDB key that has no effect here is kept and checked (giset warns).
        s.set(Target::Generic, "commandline", "keepalive_margin", "9")
            .unwrap();
        let e = s
            .set(Target::Generic, "commandline", "keepalive_margin", "-1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("keepalive_margin"), "{e}");
        let e = s.set(pg, "tpcc", "zzzzzzzz", "1").unwrap_err().to_string();
        assert!(
            e.contains("cannot be found in any PostgreSQL dictionary")
                && !e.contains("did you mean"),
            "{e}"
        );
    }

    #[test]
    fn passwords_are_masked_in_render_and_errors() {
        let mut s = Settings::defaults();
        let pg = Target::Db(Database::Pg);
        s.set(pg, "tpcc", "pg_pass", "s3cret").unwrap();
        let text = s.db(Database::Pg).render(&["connection", "tpcc"]);
        assert!(
            !text.contains("s3cret") && text.contains(" pg_pass             = ********"),
            "{text}"
        );
    }

    /// `jobs_store` holds a connection string: shown with its password masked, refused with
    /// the bad part and both valid forms named, never the password.
    #[test]
    fn a_connection_string_s_password_is_masked_in_render_and_errors() {
        let mut s = Settings::defaults();
        let g = Target::Generic;
        s.set(
            g,
            "commandline",
            "jobs_store",
            "postgresql://u:s3cret@h/jobs",
        )
        .unwrap();
        let text = s.generic.render(&["commandline"]);
        assert!(
            !text.contains("s3cret") && text.contains("= postgresql://u:********@h/jobs"),
            "{text}"
        );
        let e = s
            .set(
                g,
                "commandline",
                "jobs_store",
                "postgresql://u:0ther@h:99999/jobs",
            )
            .unwrap_err()
            .to_string();
        assert!(!e.contains("0ther") && !e.contains("s3cret"), "{e}");
        assert!(e.contains("port '99999'"), "{e}");
        assert!(
            e.contains("postgresql://user:password@host:port/dbname"),
            "{e}"
        );
        assert!(
            e.contains("host=... port=... user=... password=... dbname=..."),
            "{e}"
        );
        let e = s
            .set(
                g,
                "commandline",
                "jobs_store",
                "host=h password=0ther sslmode=on",
            )
            .unwrap_err()
            .to_string();
        assert!(!e.contains("0ther") && e.contains("sslmode 'on'"), "{e}");
        // Empty: back to the SQLite file.
        s.set(g, "commandline", "jobs_store", "").unwrap();
        assert_eq!(s.generic.get("jobs_store"), "");
    }

    #[test]
    fn render_uses_the_nested_layout() {
        let s = Settings::defaults();
        let text = s.db(Database::Pg).render(&["connection", "tpcc"]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "connection {");
        assert_eq!(lines[1], " pg_host                 = localhost");
        assert_eq!(lines[3], " pg_sslmode              = prefer");
        assert_eq!(lines[4], " pg_sslrootcert          = ");
        assert_eq!(lines[6], " pg_reply_timeout        = 120");
        assert_eq!(lines[7], " pg_target_session_attrs = any");
        assert_eq!(lines[9], " pg_read_only_hosts      = ");
        assert_eq!(lines[10], "}");
        assert_eq!(lines[11], "tpcc       {");
        assert_eq!(*lines.last().unwrap(), "}");
    }

    #[test]
    fn settings_round_trip_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let (mut s, w) = Settings::load(dir.path());
        assert!(w.is_empty());
        s.set(Target::Db(Database::Maria), "tpcc", "maria_count_ware", "7")
            .unwrap();
        s.set(Target::Generic, "benchmark", "rdbms", "mariadb")
            .unwrap();
        s.save().unwrap();
        let (again, w) = Settings::load(dir.path());
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(again.db(Database::Maria).get("maria_count_ware"), "7");
        assert_eq!(again.current(), Database::Maria);
    }

    const TARGETS: [Target; 4] = [
        Target::Generic,
        Target::Db(Database::Pg),
        Target::Db(Database::Maria),
        Target::Db(Database::Mysql),
    ];

    #[test]
    fn every_numeric_key_refuses_extremes_naming_key_value_and_range() {
        let mut s = Settings::defaults();
        let mut checked = 0;
        for target in TARGETS {
            let specs: Vec<KeySpec> = s.dict(target).specs().to_vec();
            for spec in specs.iter().filter(|k| k.kind.is_numeric()) {
                for bad in ["9223372036854775807", "-1", "1e300", "NaN", "", "inf"] {
                    let before = s.dict(target).get(&spec.key).to_string();
                    let Err(e) = s.set(target, spec.section, &spec.key, bad) else {
                        // -1 is no value any numeric key takes, nor are the others.
                        panic!("{}: {bad} was accepted", spec.key);
                    };
                    let e = e.to_string();
                    let named =
                        format!("Value {bad} for {}:{} is not valid", spec.section, spec.key);
                    assert!(e.contains(&named), "{e}");
                    assert!(e.contains(&spec.kind.describe()), "{e}");
                    if bad != "NaN" && !bad.is_empty() {
                        assert!(e.contains("is out of range"), "{e}");
                    }
                    assert_eq!(s.dict(target).get(&spec.key), before);
                    checked += 1;
                }
            }
        }
        // Every database's 18 or so numeric keys and the generic dictionary's.
        assert!(checked > 6 * 50, "only {checked} checks");
    }

    #[test]
    fn every_numeric_range_fits_the_readers() {
        let mut s = Settings::defaults();
        let later = std::time::Instant::now();
        for target in TARGETS {
            let specs: Vec<KeySpec> = s.dict(target).specs().to_vec();
            for spec in &specs {
                match spec.kind {
                    Kind::Int { min, max } | Kind::ZeroOr { min, max } => {
                        for v in [0, min, max] {
                            if v == 0 && matches!(spec.kind, Kind::Int { .. }) && min > 0 {
                                continue;
                            }
                            s.set(target, spec.section, &spec.key, &v.to_string())
                                .unwrap();
                            let d = s.dict(target);
                            // Counts fit u32 but for the totals read as u64.
                            let wide = ["max_operations", "max_script_memory"];
                            if spec.key.ends_with("total_iterations") || wide.contains(&&*spec.key)
                            {
                                assert_eq!(d.get_u64(&spec.key), v as u64);
                            } else {
                                assert_eq!(i64::from(d.get_u32(&spec.key)), v, "{}", spec.key);
                            }
                            // As milliseconds or seconds, a deadline can hold it.
                            assert!(later.checked_add(d.get_secs(&spec.key)).is_some());
                        }
                    }
                    Kind::Minutes { max, .. } => {
                        s.set(target, spec.section, &spec.key, &max.to_string())
                            .unwrap();
                        let d = s.dict(target).get_minutes(&spec.key);
                        assert_eq!(d.as_secs_f64(), max * 60.0);
                        assert!(later.checked_add(d * 2).is_some());
                    }
                    _ => {}
                }
            }
        }
    }

    #[test]
    fn a_value_out_of_range_in_the_file_warns_once_and_loads_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("settings.json"),
            r#"{"pg":{"pg_duration":"9223372036854775807","pg_count_ware":"3",
                 "pg_rampup":1e300},
               "generic":{"iterations":"99999999999","virtual_users":"4"}}"#,
        )
        .unwrap();
        let (s, w) = Settings::load(dir.path());
        assert_eq!(w.len(), 3, "{w:#?}");
        assert!(
            w.iter().any(|l| l.contains(
                "value 9223372036854775807 of tpcc:pg_duration is not valid: it is out of range"
            ) && l.contains("at most 525600")
                && l.ends_with("using the default 5")),
            "{w:#?}"
        );
        assert!(
            w.iter()
                .any(|l| l.contains("value 1e+300 of tpcc:pg_rampup")),
            "{w:#?}"
        );
        assert!(
            w.iter()
                .any(|l| l.contains("of virtual_user_options:iterations")),
            "{w:#?}"
        );
        let pg = s.db(Database::Pg);
        assert_eq!(pg.get("pg_duration"), "5");
        assert_eq!(pg.get("pg_rampup"), "2");
        assert_eq!(pg.get("pg_count_ware"), "3");
        assert_eq!(s.generic.get("iterations"), "1");
        assert_eq!(s.generic.get("virtual_users"), "4");
        assert_eq!(pg.get_minutes("pg_duration"), Duration::from_secs(300));
    }

    #[test]
    fn a_long_value_is_clipped_in_the_warning() {
        assert_eq!(clip("short"), "short");
        let long = "9".repeat(100);
        assert_eq!(clip(&long), format!("{}...", "9".repeat(40)));
        assert_eq!(clip(&"é".repeat(41)), format!("{}...", "é".repeat(40)));
    }

    #[test]
    fn a_damaged_file_is_set_aside_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("settings.json"), "{not json").unwrap();
        let (s, w) = Settings::load(dir.path());
        assert_eq!(s.current(), Database::Pg);
        assert!(w[0].contains("damaged"), "{w:?}");
        assert!(dir.path().join("settings.json.bad").exists());
        std::fs::write(
            dir.path().join("settings.json"),
            r#"{"pg":{"pg_count_ware":"0","nokey":"1"}}"#,
        )
        .unwrap();
        let (s, w) = Settings::load(dir.path());
        assert_eq!(s.db(Database::Pg).get("pg_count_ware"), "1");
        assert_eq!(w.len(), 2, "{w:?}");
    }
}
