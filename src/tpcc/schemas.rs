//! Several identical TPROC-C schemas in one build and one run (`*_schemas`, hammer's own, as
//! tpcc-mysql's multi-schema mode): the databases' names (`<dbase>1` .. `<dbase>N`) and the
//! settings that point at each, the schema each virtual user runs on, what hammer does not
//! run over several schemas, and each schema's figures from the monitor's readings.
//!
//! With `*_schemas` 1 (the default) nothing here changes a thing: the one schema is the
//! database `*_dbase` names, as in HammerDB.

use rhai::{Array, Dynamic, Map};

use super::txn::Counters;
use crate::config::{Settings, Target};
use crate::error::{Error, Result};

/// The longest database name hammer makes: PostgreSQL's identifiers (63 bytes; MariaDB and
/// MySQL take 64). A longer one PostgreSQL would cut short, and two schemas could meet.
const NAME_MAX: usize = 63;

/// `*_schemas` of the current database.
pub fn count(settings: &Settings) -> u32 {
    let db = settings.current();
    settings.db(db).get_u32(&db.key("schemas")).max(1)
}

/// The database of schema `i` (from 1) of those named after `dbase`: `hammer_x` gives
/// `hammer_x1`, `hammer_x2`, ...
pub fn name(dbase: &str, i: u32) -> String {
    format!("{dbase}{i}")
}

/// One schema of the run or build: its database, and the settings whose `*_dbase` names it.
#[derive(Clone)]
pub struct Schema {
    pub name: String,
    pub settings: Settings,
}

/// The schemas of the current database: with `*_schemas` 1 the one `*_dbase` names, with
/// the settings as they are; with N the databases `<dbase>1` .. `<dbase>N`. Names longer
/// than a database name may be are refused, naming the keys.
pub fn all(settings: &Settings) -> Result<Vec<Schema>> {
    let db = settings.current();
    let n = count(settings);
    let key = db.key("dbase");
    let dbase = settings.db(db).get(&key).to_string();
    if n == 1 {
        return Ok(vec![Schema {
            name: dbase,
            settings: settings.clone(),
        }]);
    }
    let last = name(&dbase, n);
    if last.len() > NAME_MAX {
        return Err(Error::Schemas {
            key: db.key("schemas"),
            n,
            why: format!(
                "the last schema's database, {last}, would be {} bytes long, more than the \
                 {NAME_MAX} a database name may have: shorten {key} or lower {}",
                last.len(),
                db.key("schemas")
            ),
        });
    }
    (1..=n)
        .map(|i| {
            let name = name(&dbase, i);
            let mut settings = settings.clone();
            settings.set(Target::Db(db), "tpcc", &key, &name)?;
            Ok(Schema { name, settings })
        })
        .collect()
}

/// `hammer_x1 .. hammer_x4`: the schemas' databases, for the lines that name them all.
pub fn span(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [first, .., last] => format!("{first} .. {last}"),
    }
}

/// The schema (from 1, of `n`) that active virtual user `worker` (from 1) runs on: round
/// robin, so that each schema gets its share. A virtual user's asynchronous clients all
/// stay on its schema.
pub fn schema_of(worker: u32, n: u32) -> u32 {
    (worker.max(1) - 1) % n.max(1) + 1
}

/// Active virtual user `worker`'s place (from 1) among the `workers` that share its schema
/// of `n`, and how many share it: all-warehouse mode deals each schema's warehouses among
/// its own virtual users.
pub fn among(worker: u32, workers: u32, n: u32) -> (u32, u32) {
    let n = n.max(1);
    let slot = (worker.max(1) - 1) % n;
    let sharing = workers.saturating_sub(slot).div_ceil(n);
    ((worker.max(1) - 1) / n + 1, sharing.max(1))
}

/// The worker (from 1) whose terminal `terminal` (from 1) is, when each worker runs
/// `terminals` of them (see `vu::Place::position`).
pub fn worker_of(terminal: u32, terminals: u32) -> u32 {
    (terminal.max(1) - 1) / terminals.max(1) + 1
}

/// What hammer does not run over several schemas, refused naming the keys: the connect pool
/// (its named connections each name a database of their own), servers for reads, a run
/// several drivers share, and fewer virtual users than schemas (`virtual_users`, when known).
pub fn refuse_run(settings: &Settings, virtual_users: Option<u32>) -> Result<()> {
    let n = count(settings);
    if n == 1 {
        return Ok(());
    }
    let db = settings.current();
    let (d, key) = (settings.db(db), db.key("schemas"));
    let refuse = |why: String| {
        Err(Error::Schemas {
            key: key.clone(),
            n,
            why,
        })
    };
    let pool = db.key("connect_pool");
    if d.spec(&pool).is_some() && d.get_bool(&pool) {
        return refuse(format!(
            "hammer does not run several schemas in connect-pool mode (each named connection \
             names its own database): diset tpcc {pool} false, or {key} 1"
        ));
    }
    let reads = db.key("read_only_hosts");
    if d.spec(&reads).is_some() && !d.get(&reads).trim().is_empty() {
        return refuse(format!(
            "hammer does not run several schemas with servers for reads ({reads} {}): \
             empty {reads}, or set {key} 1",
            d.get(&reads).trim()
        ));
    }
    let run = settings.generic.get("drivers_run").trim();
    if !run.is_empty() {
        return refuse(format!(
            "hammer does not run several schemas in a run several drivers share (drivers_run \
             {run}): empty drivers_run, or set {key} 1"
        ));
    }
    if let Some(vus) = virtual_users.filter(|v| *v < n) {
        return refuse(format!(
            "{vus} virtual user{} would leave schemas without any (virtual user i runs on \
             schema ((i-1) mod {n})+1): vuset vu {n} or more, or set {key} {vus}",
            if vus == 1 { "" } else { "s" }
        ));
    }
    Ok(())
}

/// One schema's share of a timed run.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaFigures {
    /// The schema's database.
    pub schema: String,
    /// From the schema's own districts.
    pub nopm: f64,
    /// From the schema's own database's counters, where the server keeps one per database
    /// (PostgreSQL's `pg_stat_database`); `None` where it counts for itself as a whole.
    pub tpm: Option<f64>,
}

impl SchemaFigures {
    /// `Schema hammer_x3: 1234 NOPM`, with the schema's TPM where its server counts it per
    /// database, in the order of the TEST RESULT line.
    pub fn line(&self, db_name: &str, nopm_first: bool) -> String {
        let nopm = self.nopm.round() as u64;
        match self.tpm.map(|t| t.round() as u64) {
            None => format!("Schema {}: {nopm} NOPM", self.schema),
            Some(tpm) if nopm_first => {
                format!(
                    "Schema {}: {nopm} NOPM from {tpm} {db_name} TPM",
                    self.schema
                )
            }
            Some(tpm) => format!("Schema {}: {tpm} {db_name} TPM at {nopm} NOPM", self.schema),
        }
    }

    /// As `lastrun()` and the job's record carry it: `schema`, `nopm`, and `tpm` where the
    /// schema has its own.
    pub fn value(&self) -> Map {
        let mut m = Map::new();
        m.insert("schema".into(), self.schema.clone().into());
        m.insert("nopm".into(), self.nopm.into());
        if let Some(tpm) = self.tpm {
            m.insert("tpm".into(), tpm.into());
        }
        m
    }
}

/// Every schema's figures, as a `lastrun()` array.
pub fn values(schemas: &[SchemaFigures]) -> Array {
    schemas
        .iter()
        .map(|s| Dynamic::from_map(s.value()))
        .collect()
}

/// The line under the schemas' when the server counts its transactions as a whole: the TPM
/// above is the server's, over every schema, and no schema has one of its own.
pub fn server_tpm_line(db_name: &str) -> String {
    format!(
        "TPM is the {db_name} server's total over every schema: it counts commits and \
         rollbacks for the whole server, not per database"
    )
}

/// The run's NOPM and TPM from each schema's two readings `mins` minutes apart, and each
/// schema's (none with one schema). NOPM is the sum of the schemas'. With `by_database`
/// each reading's transactions are its schema's database's own, and TPM is their sum; else
/// every reading holds the server's (the same counter), and TPM is the first schema's.
pub fn split(
    names: &[String],
    start: &[Counters],
    end: &[Counters],
    mins: f64,
    by_database: bool,
) -> (f64, f64, Vec<SchemaFigures>) {
    let per = |s: &Counters, e: &Counters| {
        (
            e.new_orders.saturating_sub(s.new_orders) as f64 / mins,
            e.transactions_since(s) as f64 / mins,
        )
    };
    let pairs: Vec<(f64, f64)> = start.iter().zip(end).map(|(s, e)| per(s, e)).collect();
    let nopm = pairs.iter().map(|p| p.0).sum();
    let tpm = if by_database {
        pairs.iter().map(|p| p.1).sum()
    } else {
        pairs.first().map_or(0.0, |p| p.1)
    };
    if names.len() < 2 {
        return (nopm, tpm, Vec::new());
    }
    let schemas = names
        .iter()
        .zip(&pairs)
        .map(|(name, (nopm, tpm))| SchemaFigures {
            schema: name.clone(),
            nopm: *nopm,
            tpm: by_database.then_some(*tpm),
        })
        .collect();
    (nopm, tpm, schemas)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Database;

    fn with(db: Database, pairs: &[(&str, &str, &str)]) -> Settings {
        let mut s = Settings::defaults();
        s.set(Target::Generic, "benchmark", "rdbms", db.name())
            .unwrap();
        for (section, key, value) in pairs {
            let target = if *section == "drivers" {
                Target::Generic
            } else {
                Target::Db(db)
            };
            s.set(target, section, key, value).unwrap();
        }
        s
    }

    #[test]
    fn one_schema_is_the_dictionarys_database_as_it_is() {
        let s = with(Database::Pg, &[("tpcc", "pg_dbase", "hammer_schemas_t")]);
        let all = all(&s).unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].name, "hammer_schemas_t");
        assert_eq!(count(&s), 1);
    }

    #[test]
    fn several_schemas_are_the_database_name_suffixed_from_one() {
        for (db, prefix) in [(Database::Pg, "pg"), (Database::Maria, "maria")] {
            let s = with(
                db,
                &[
                    ("tpcc", &format!("{prefix}_dbase"), "hammer_schemas_t"),
                    ("tpcc", &format!("{prefix}_schemas"), "3"),
                ],
            );
            let all = all(&s).unwrap();
            let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(
                names,
                [
                    "hammer_schemas_t1",
                    "hammer_schemas_t2",
                    "hammer_schemas_t3"
                ]
            );
            for schema in &all {
                let d = schema.settings.db(db);
                assert_eq!(d.get(&db.key("dbase")), schema.name);
                // Everything else is the dictionary's.
                assert_eq!(d.get(&db.key("schemas")), "3");
            }
            let owned: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            assert_eq!(span(&owned), "hammer_schemas_t1 .. hammer_schemas_t3");
        }
    }

    #[test]
    fn names_longer_than_a_database_name_are_refused_naming_the_keys() {
        let long = "d".repeat(61);
        let s = with(
            Database::Pg,
            &[("tpcc", "pg_dbase", &long), ("tpcc", "pg_schemas", "100")],
        );
        let e = all(&s).err().expect("64-byte names").to_string();
        assert!(
            e.contains("pg_schemas is 100") && e.contains("shorten pg_dbase"),
            "{e}"
        );
        let s = with(
            Database::Pg,
            &[("tpcc", "pg_dbase", &long), ("tpcc", "pg_schemas", "99")],
        );
        assert_eq!(all(&s).unwrap().len(), 99);
    }

    #[test]
    fn the_schemas_key_is_in_every_tpcc_dictionary_from_1_to_1000() {
        for db in Database::ALL {
            let mut s = Settings::defaults();
            let key = db.key("schemas");
            assert_eq!(s.db(db).get(&key), "1", "{key}");
            assert!(s.set(Target::Db(db), "tpcc", &key, "1000").is_ok());
            for bad in ["0", "1001", "two"] {
                let e = s.set(Target::Db(db), "tpcc", &key, bad).unwrap_err();
                assert!(e.to_string().contains(bad), "{e}");
            }
        }
    }

    #[test]
    fn virtual_users_go_round_robin_over_the_schemas() {
        let spread: Vec<u32> = (1..=7).map(|vu| schema_of(vu, 3)).collect();
        assert_eq!(spread, [1, 2, 3, 1, 2, 3, 1]);
        assert!((1..=5).all(|vu| schema_of(vu, 1) == 1));
        // Each schema's own virtual users, numbered among themselves.
        assert_eq!(among(1, 7, 3), (1, 3));
        assert_eq!(among(4, 7, 3), (2, 3));
        assert_eq!(among(7, 7, 3), (3, 3));
        assert_eq!(among(2, 7, 3), (1, 2));
        assert_eq!(among(5, 7, 3), (2, 2));
        assert_eq!(among(3, 7, 3), (1, 2));
        assert_eq!(among(4, 4, 1), (4, 4));
        // Every worker's place is within its schema's count, and the places are distinct.
        for workers in 1..=9 {
            for n in 1..=4 {
                let mut seen = std::collections::HashSet::new();
                for w in 1..=workers {
                    let (at, of) = among(w, workers, n);
                    assert!(at >= 1 && at <= of, "{w} of {workers} over {n}");
                    assert!(seen.insert((schema_of(w, n), at)));
                }
            }
        }
    }

    #[test]
    fn a_terminal_belongs_to_its_virtual_user() {
        // Four asynchronous clients each: terminals 1-4 are worker 1's, 5-8 worker 2's.
        assert_eq!(
            (1..=9).map(|t| worker_of(t, 4)).collect::<Vec<_>>(),
            [1, 1, 1, 1, 2, 2, 2, 2, 3]
        );
        assert_eq!(worker_of(3, 1), 3);
        let place = crate::vu::Place {
            worker: 2,
            workers: 3,
            client: Some(3),
        };
        let crate::endpoint::Position::Terminal { n, .. } = place.position(4) else {
            panic!("a terminal's position");
        };
        assert_eq!(worker_of(n, 4), 2);
    }

    #[test]
    fn what_a_run_over_several_schemas_refuses() {
        let base = [
            ("tpcc", "pg_dbase", "hammer_schemas_t"),
            ("tpcc", "pg_schemas", "2"),
        ];
        let refused = |extra: &[(&str, &str, &str)], vus| {
            let pairs: Vec<_> = base.iter().chain(extra).copied().collect();
            refuse_run(&with(Database::Pg, &pairs), vus)
                .err()
                .map(|e| e.to_string())
        };
        assert_eq!(refused(&[], Some(2)), None);
        let e = refused(&[("tpcc", "pg_connect_pool", "true")], None).unwrap();
        assert!(e.contains("pg_schemas is 2") && e.contains("pg_connect_pool false"));
        let e = refused(&[("connection", "pg_read_only_hosts", "127.0.0.1")], None).unwrap();
        assert!(e.contains("pg_read_only_hosts 127.0.0.1"), "{e}");
        let e = refused(&[("drivers", "drivers_run", "r1")], None).unwrap();
        assert!(e.contains("drivers_run r1"), "{e}");
        let e = refused(&[], Some(1)).unwrap();
        assert!(
            e.contains("1 virtual user would") && e.contains("vuset vu 2"),
            "{e}"
        );
        // One schema refuses nothing of these.
        let one = with(
            Database::Pg,
            &[
                ("tpcc", "pg_connect_pool", "true"),
                ("drivers", "drivers_run", "r"),
            ],
        );
        assert!(refuse_run(&one, Some(1)).is_ok());
    }

    fn reading(new_orders: u64, transactions: u64) -> Counters {
        Counters {
            new_orders,
            transactions,
            ..Counters::default()
        }
    }

    #[test]
    fn each_schema_has_its_nopm_and_tpm_where_the_server_counts_per_database() {
        let names = vec!["x1".to_string(), "x2".to_string()];
        let start = [reading(100, 1000), reading(200, 5000)];
        let end = [reading(130, 1300), reading(210, 5100)];
        let (nopm, tpm, per) = split(&names, &start, &end, 0.5, true);
        assert_eq!((nopm, tpm), (80.0, 800.0));
        assert_eq!(per[0].nopm + per[1].nopm, nopm);
        assert_eq!((per[0].tpm, per[1].tpm), (Some(600.0), Some(200.0)));
        assert_eq!(
            per[0].line("PostgreSQL", true),
            "Schema x1: 60 NOPM from 600 PostgreSQL TPM"
        );
        assert_eq!(
            per[1].line("PostgreSQL", false),
            "Schema x2: 200 PostgreSQL TPM at 20 NOPM"
        );
        // The server's counter, the same in every reading: its growth once, no schema's own.
        let start = [reading(100, 1000), reading(200, 1001)];
        let end = [reading(130, 1400), reading(210, 1401)];
        let (nopm, tpm, per) = split(&names, &start, &end, 0.5, false);
        assert_eq!((nopm, tpm), (80.0, 800.0));
        assert_eq!(per[1].tpm, None);
        assert_eq!(per[1].line("MariaDB", true), "Schema x2: 20 NOPM");
        assert!(!per[1].value().contains_key("tpm"));
        // One schema: the figures as ever, no schema lines.
        let (nopm, tpm, per) = split(&names[..1], &start[..1], &end[..1], 0.5, false);
        assert_eq!((nopm, tpm, per.len()), (60.0, 800.0, 0));
    }
}
