//! OLTP, hammer's own workload: sysbench's OLTP tests on its `sbtest` tables. Its tables
//! ([`Table`]: `sbtest1..N`, each `id`, `k`, `c`, `pad`) and their shape ([`Layout`]: how
//! many, how many rows, the id's key and the `k` index), the value templates, and the keys
//! that say them. The pieces: [`rand`] (sysbench's random numbers and distributions),
//! [`gen`] (a table's rows as sysbench's `prepare` draws them), [`schema`] (what an engine
//! offers the builder), [`build`] (builds and checks on any [`schema::SchemaDb`]),
//! [`cleanup`] (what `deleteschema` drops), [`options`] (the run's options, what
//! `loadscript` reads), [`support`] (what an engine offers the workload) and [`bench`]
//! (OLTP as the session sees it).
//!
//! The run (the tests' events, sysbench's report) belongs beside these, in this folder: it
//! reads [`options::Options`], connects through [`support::Support::connect`], draws with
//! [`rand`] and makes values with [`value`].

pub mod arrivals;
pub mod bench;
pub mod build;
pub mod cleanup;
pub mod db;
pub mod events;
pub mod gen;
pub mod options;
pub mod outcome;
pub mod rand;
pub mod report;
pub mod run;
pub mod schema;
pub mod support;

use std::sync::{Mutex, OnceLock};

use crate::config::{Database, Settings};
use crate::sql::TableRef;

/// The workload's name, as jobs record it and messages say it.
pub const NAME: &str = crate::benchmarks::OLTP.name;

/// The columns of every table, in the order the loaders send them.
pub const COLUMNS: [&str; 4] = ["id", "k", "c", "pad"];

/// `c`'s values: ten groups of eleven random digits joined by dashes, 119 characters, in a
/// CHAR(120) (sysbench's `c_value_template`).
pub const C_TEMPLATE: &str = "###########-###########-###########-###########-###########-\
###########-###########-###########-###########-###########";

/// `pad`'s values: five groups, 59 characters, in a CHAR(60) (sysbench's
/// `pad_value_template`).
pub const PAD_TEMPLATE: &str = "###########-###########-###########-###########-###########";

/// The prefix of every table's name: `sbtest1`, `sbtest2`, ...
pub const PREFIX: &str = "sbtest";

/// One of the tables: `sbtest{n}`, n from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Table(pub u32);

impl Table {
    /// `sbtest{n}`. The loaders take a table's name as `&'static str`: each name is made
    /// once and kept for the process's life (a few bytes per table, at most
    /// `*_oltp_tables`' maximum of them).
    pub fn name(self) -> &'static str {
        static NAMES: OnceLock<Mutex<Vec<&'static str>>> = OnceLock::new();
        let mut names = NAMES
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let i = self.0 as usize;
        while names.len() <= i {
            let n = names.len();
            names.push(Box::leak(format!("{PREFIX}{n}").into_boxed_str()));
        }
        names[i]
    }

    /// The table as the families' loaders take it.
    pub fn table_ref(self) -> TableRef {
        TableRef {
            name: self.name(),
            columns: &COLUMNS,
        }
    }

    /// The table `name` is (`sbtest7`, in any case), or `None` for any other name
    /// (`sbtest`, `sbtest0`, `sbtest07`, `sbtest1_old`).
    pub fn parse(name: &str) -> Option<Table> {
        let digits = name
            .get(..PREFIX.len())
            .filter(|p| p.eq_ignore_ascii_case(PREFIX))
            .map(|_| &name[PREFIX.len()..])?;
        if digits.is_empty()
            || digits.starts_with('0')
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        digits.parse().ok().map(Table)
    }

    /// Whether `name` is one of the tables of any number (`deleteschema`'s test of what a
    /// database holds); a table outside the default schema (`schema.sbtest1`) counts by its
    /// own name.
    pub fn is_one(name: &str) -> bool {
        Table::parse(name.rsplit('.').next().unwrap_or(name)).is_some()
    }
}

/// The tables' shape, as the `oltp` dictionary says it: what `buildschema` makes and
/// `checkschema` expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// `*_oltp_tables`: `sbtest1..=tables`.
    pub tables: u32,
    /// `*_oltp_table_size`: rows per table.
    pub table_size: u32,
    /// `*_oltp_auto_inc`: `id` is SERIAL / AUTO_INCREMENT.
    pub auto_inc: bool,
    /// `*_oltp_secondary`: `id` has a plain index in place of the primary key.
    pub secondary: bool,
    /// `*_oltp_create_secondary`: the index `k_N` on `k`.
    pub create_secondary: bool,
    /// The tables are made empty: sysbench's `oltp_insert` prepares them so without
    /// `auto_inc`, for its ids would collide with the rows' (`*_oltp_test` says the test).
    pub empty: bool,
}

impl Layout {
    /// The current shape of `db`'s `oltp` dictionary.
    pub fn of(settings: &Settings, db: Database) -> Layout {
        let d = settings.db(db);
        let k = |name: &str| db.key(&format!("oltp_{name}"));
        let auto_inc = d.get_bool(&k("auto_inc"));
        Layout {
            tables: d.get_u32(&k("tables")).max(1),
            table_size: d.get_u32(&k("table_size")),
            auto_inc,
            secondary: d.get_bool(&k("secondary")),
            create_secondary: d.get_bool(&k("create_secondary")),
            empty: d.get(&k("test")) == "oltp_insert" && !auto_inc,
        }
    }

    /// The rows each table holds once built.
    pub fn rows(&self) -> u32 {
        if self.empty {
            0
        } else {
            self.table_size
        }
    }

    /// Every table, in order.
    pub fn all(&self) -> impl Iterator<Item = Table> {
        (1..=self.tables).map(Table)
    }

    /// `2 tables of 10000 rows`, as messages say the schema.
    pub fn shown(&self) -> String {
        let tables = if self.tables == 1 { "table" } else { "tables" };
        let rows = self.rows();
        let of = if rows == 1 { "row" } else { "rows" };
        format!("{} {tables} of {rows} {of}", self.tables)
    }
}

/// `*_oltp_build_threads` of `db`: the build's parallel loaders, at least 1.
pub fn build_threads(settings: &Settings, db: Database) -> u32 {
    settings
        .db(db)
        .get_u32(&db.key("oltp_build_threads"))
        .max(1)
}

/// The `*_oltp_rand_*` keys of `db`, as sysbench's `--rand-*` options.
pub fn rand_spec(settings: &Settings, db: Database) -> rand::RandSpec {
    let d = settings.db(db);
    let k = |name: &str| db.key(&format!("oltp_rand_{name}"));
    rand::RandSpec {
        kind: rand::RandType::named(d.get(&k("type"))).unwrap_or(rand::RandType::Special),
        spec_iter: d.get_u32(&k("spec_iter")),
        spec_pct: d.get_u32(&k("spec_pct")),
        spec_res: d.get_u32(&k("spec_res")),
        seed: d.get_u32(&k("seed")),
        pareto_h: d.get_f64(&k("pareto_h")),
        zipfian_exp: d.get_f64(&k("zipfian_exp")),
    }
}

/// A row's values as sysbench makes them: `c` and `pad` from their templates.
pub mod value {
    use super::rand::Rng;
    use super::{C_TEMPLATE, PAD_TEMPLATE};

    /// A `c` value appended to `out`.
    pub fn c(rng: &mut Rng, out: &mut Vec<u8>) {
        rng.fill_template(C_TEMPLATE.as_bytes(), out);
    }

    /// A `pad` value appended to `out`.
    pub fn pad(rng: &mut Rng, out: &mut Vec<u8>) {
        rng.fill_template(PAD_TEMPLATE.as_bytes(), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Target;

    #[test]
    fn the_templates_are_sysbenchs() {
        assert_eq!(C_TEMPLATE.len(), 119);
        assert_eq!(C_TEMPLATE.split('-').count(), 10);
        assert_eq!(PAD_TEMPLATE.len(), 59);
        assert_eq!(PAD_TEMPLATE.split('-').count(), 5);
        for t in [C_TEMPLATE, PAD_TEMPLATE] {
            assert!(t.split('-').all(|g| g == "###########"), "{t}");
        }
    }

    #[test]
    fn table_names_are_made_once_and_read_back() {
        assert_eq!(Table(1).name(), "sbtest1");
        assert_eq!(Table(12).name(), "sbtest12");
        assert!(std::ptr::eq(Table(12).name(), Table(12).name()));
        assert_eq!(Table::parse("sbtest12"), Some(Table(12)));
        assert_eq!(Table::parse("SBTEST3"), Some(Table(3)));
        for other in [
            "sbtest",
            "sbtest0",
            "sbtest07",
            "sbtest1_old",
            "sbtest1a",
            "orders",
        ] {
            assert_eq!(Table::parse(other), None, "{other}");
        }
        assert!(Table::is_one("public.sbtest2"));
        assert!(!Table::is_one("public.sbtests"));
        assert_eq!(Table(2).table_ref().columns, &["id", "k", "c", "pad"]);
    }

    #[test]
    fn the_layout_is_the_dictionarys() {
        let mut s = Settings::defaults();
        let l = Layout::of(&s, Database::Pg);
        assert_eq!(
            l,
            Layout {
                tables: 1,
                table_size: 10_000,
                auto_inc: true,
                secondary: false,
                create_secondary: true,
                empty: false,
            }
        );
        assert_eq!(l.shown(), "1 table of 10000 rows");
        let maria = Target::Db(Database::Maria);
        for (k, v) in [
            ("maria_oltp_tables", "4"),
            ("maria_oltp_test", "oltp_insert"),
            ("maria_oltp_auto_inc", "off"),
        ] {
            s.set(maria, "oltp", k, v).unwrap();
        }
        let l = Layout::of(&s, Database::Maria);
        assert!(l.empty && !l.auto_inc);
        assert_eq!(l.rows(), 0);
        assert_eq!(l.all().map(|t| t.0).collect::<Vec<_>>(), [1, 2, 3, 4]);
        assert_eq!(l.shown(), "4 tables of 0 rows");
        assert_eq!(rand_spec(&s, Database::Maria), rand::RandSpec::default());
        assert_eq!(build_threads(&s, Database::Maria), 1);
    }
}
