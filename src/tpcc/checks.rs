//! `checkschema`'s conditions, their wording and the minimum row counts, written once: an
//! engine runs its own SQL for each and hands the facts to these functions, which make the
//! [`Check`] lines.

use super::fitness::NURAND_TABLE;
use super::schema::Check;
use super::Table;

/// What a consistency condition is checked over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Per {
    Warehouse,
    District,
}

impl Per {
    pub fn unit(self) -> &'static str {
        match self {
            Per::Warehouse => "warehouse",
            Per::District => "district",
        }
    }

    /// The table holding one row per unit.
    pub fn table(self) -> Table {
        match self {
            Per::Warehouse => Table::Warehouse,
            Per::District => Table::District,
        }
    }
}

/// A TPC-C consistency condition (clause 3.3.2): what must hold, over what, and the tables
/// its query reads.
pub struct Condition {
    pub rule: &'static str,
    pub per: Per,
    pub tables: &'static [Table],
}

/// Clause 3.3.2.1 to 3.3.2.4; engines give one query each, in this order.
pub const CONDITIONS: [Condition; 4] = [
    Condition {
        rule: "W_YTD = sum(D_YTD)",
        per: Per::Warehouse,
        tables: &[Table::Warehouse, Table::District],
    },
    Condition {
        rule: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
        per: Per::District,
        tables: &[Table::District, Table::Orders, Table::NewOrder],
    },
    Condition {
        rule: "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW_ORDER",
        per: Per::District,
        tables: &[Table::NewOrder],
    },
    Condition {
        rule: "sum(O_OL_CNT) = rows in ORDER_LINE",
        per: Per::District,
        tables: &[Table::District, Table::Orders, Table::OrderLine],
    },
];

/// HammerDB's minimum row counts for `checkschema` (reference 7.9): the load's counts, less
/// a margin where Delivery shrinks NEW_ORDER and order lines are random.
pub fn minimum_rows(table: Table, w: u64) -> u64 {
    match table {
        Table::Warehouse => w,
        Table::District => 10 * w,
        Table::Customer | Table::History | Table::Orders => 30_000 * w,
        Table::Item => 100_000,
        Table::Stock => 100_000 * w,
        Table::NewOrder => 8_100 * w,
        Table::OrderLine => 297_000 * w,
    }
}

/// `1 row`, `2 rows`.
pub fn plural(n: u64, unit: &str) -> String {
    if n == 1 {
        format!("{n} {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

pub fn database(db: &str, exists: bool) -> Check {
    let what = format!("database {db}");
    if exists {
        Check::pass(what, "exists")
    } else {
        Check::fail(what, format!("TPROC-C schema {db} does not exist"))
    }
}

/// The schema's database holds none of the tables.
pub fn empty(db: &str) -> Check {
    Check::fail("tables", format!("TPROC-C schema {db} is empty"))
}

pub fn table(table: &str, present: bool) -> Check {
    let what = format!("table {table}");
    if present {
        Check::pass(what, "present")
    } else {
        Check::fail(what, format!("missing table {table}"))
    }
}

/// What an engine found of a table's indexes.
pub enum Indexes<'a> {
    /// The table itself is missing.
    NoTable,
    /// This many, the engine expecting no particular names.
    Count(i64),
    /// The names found (`, `-separated, empty for none) and the expected ones not among them.
    Names {
        found: &'a str,
        missing: &'a [&'a str],
    },
}

pub fn indexes(table: &str, found: Indexes<'_>) -> Check {
    let what = format!("indexes on {table}");
    let none = || Check::fail(what.clone(), format!("no indexes on table {table}"));
    match found {
        Indexes::NoTable => Check::fail(what, format!("table {table} is missing")),
        Indexes::Count(n) if n <= 0 => none(),
        Indexes::Count(n) => Check::pass(
            what,
            format!("{n} {}", if n == 1 { "index" } else { "indexes" }),
        ),
        Indexes::Names { found: "", .. } => none(),
        Indexes::Names { found, missing: [] } => Check::pass(what, found),
        Indexes::Names { found, missing } => Check::fail(
            what,
            format!("missing {} (has {found})", missing.join(", ")),
        ),
    }
}

/// A routine the transactions call; `kind` is the engine's word (`routine`, `procedure`),
/// `found` what was found of it.
pub fn routine(kind: &str, name: &str, found: Option<&str>) -> Check {
    let what = format!("{kind} {name}");
    match found {
        Some(found) => Check::pass(what, found),
        None => Check::fail(what, format!("missing {kind} {name}")),
    }
}

/// `rows` are the NURand table's rows as text, `None` when the table is missing.
pub fn nurand(rows: Option<&[[String; 3]]>) -> Check {
    let what = format!("table {NURAND_TABLE}");
    match rows {
        None => Check::fail(
            what,
            format!("missing table {NURAND_TABLE} (the NURand load constants)"),
        ),
        Some([[c_last, c_id, ol_i_id]]) => Check::pass(
            what,
            format!("load constants c_last {c_last}, c_id {c_id}, ol_i_id {ol_i_id}"),
        ),
        Some(other) => Check::fail(
            what,
            format!("holds {} rows, expected exactly 1", other.len()),
        ),
    }
}

/// `count` rows in WAREHOUSE (`None`: the table is missing), the highest `w_id` `max`,
/// against the dictionary's `w` (key `key`).
pub fn warehouse_count(count: Option<u64>, max: u64, w: u64, key: &str) -> Check {
    let what = "warehouse count";
    match count {
        None => Check::fail(what, "table warehouse is missing"),
        Some(n) if n == w && max == w => {
            Check::pass(what, format!("{}, as {key} says", plural(n, "warehouse")))
        }
        Some(n) => Check::fail(
            what,
            format!(
                "warehouse count {n} (highest w_id {max}) does not equal dict warehouse count \
                 of {w} ({key})"
            ),
        ),
    }
}

/// `n` rows in `table` (`None`: the table is missing) for `w` warehouses.
pub fn rows(table: Table, n: Option<u64>, w: u64) -> Check {
    let t = table.name();
    let what = format!("rows in {t}");
    let min = minimum_rows(table, w);
    match n {
        None => Check::fail(what, format!("table {t} is missing")),
        Some(n) if n >= min => Check::pass(
            what,
            format!("{}, at least {min} expected", plural(n, "row")),
        ),
        Some(n) => Check::fail(
            what,
            format!("row count of {n} is less than expected count of {min}"),
        ),
    }
}

/// What a condition's query found.
pub enum Found {
    /// No offender, over this many warehouses or districts.
    Holds { units: u64 },
    /// `offenders` break it; `first` describes the first, in the engine's words.
    Fails { offenders: u64, first: String },
    /// A table the query reads is missing.
    NoTable(&'static str),
}

/// The verdict on condition `i` (0 to 3) of [`CONDITIONS`].
pub fn consistency(i: usize, found: Found) -> Check {
    let what = format!("Check consistency {}", i + 1);
    let Some(c) = CONDITIONS.get(i) else {
        return Check::fail(what, "no such condition");
    };
    let unit = c.per.unit();
    match found {
        Found::NoTable(t) => Check::fail(what, format!("cannot check: table {t} is missing")),
        Found::Holds { units } => {
            let scope = if units == 1 {
                format!("its 1 {unit}")
            } else {
                format!("all {}", plural(units, unit))
            };
            Check::pass(what, format!("{}: holds for {scope}", c.rule))
        }
        Found::Fails { offenders, first } => {
            let verb = if offenders == 1 { "fails" } else { "fail" };
            Check::fail(
                what,
                format!("{}: {first}; {} {verb}", c.rule, plural(offenders, unit)),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_rows_per_warehouse() {
        assert_eq!(minimum_rows(Table::Item, 4), 100_000);
        assert_eq!(minimum_rows(Table::Stock, 2), 200_000);
        assert_eq!(minimum_rows(Table::OrderLine, 1), 297_000);
        let c = rows(Table::Stock, Some(100_000), 2);
        assert!(!c.ok && c.detail == "row count of 100000 is less than expected count of 200000");
        let c = rows(Table::Item, Some(100_000), 3);
        assert!(c.ok && c.detail == "100000 rows, at least 100000 expected");
        assert!(!rows(Table::Item, None, 1).ok);
    }

    #[test]
    fn conditions_hold_or_name_the_first_offender() {
        let c = consistency(0, Found::Holds { units: 1 });
        assert!(c.ok);
        assert_eq!(c.what, "Check consistency 1");
        assert_eq!(c.detail, "W_YTD = sum(D_YTD): holds for its 1 warehouse");
        let c = consistency(1, Found::Holds { units: 20 });
        assert!(
            c.detail.ends_with("holds for all 20 districts"),
            "{}",
            c.detail
        );
        let c = consistency(
            3,
            Found::Fails {
                offenders: 2,
                first: "district 3 of warehouse 1".into(),
            },
        );
        assert!(!c.ok);
        assert_eq!(
            c.detail,
            "sum(O_OL_CNT) = rows in ORDER_LINE: district 3 of warehouse 1; 2 districts fail"
        );
        assert!(!consistency(2, Found::NoTable("new_order")).ok);
        assert!(!consistency(4, Found::Holds { units: 1 }).ok);
    }

    #[test]
    fn structure_lines() {
        assert_eq!(
            database("tpcc", false).detail,
            "TPROC-C schema tpcc does not exist"
        );
        assert_eq!(table("stock", false).detail, "missing table stock");
        assert_eq!(indexes("item", Indexes::Count(1)).detail, "1 index");
        assert_eq!(
            indexes("item", Indexes::Count(0)).detail,
            "no indexes on table item"
        );
        let c = indexes(
            "orders",
            Indexes::Names {
                found: "PRIMARY",
                missing: &["o_w_id"],
            },
        );
        assert_eq!(c.detail, "missing o_w_id (has PRIMARY)");
        let c = routine("procedure", "SLEV", None);
        assert_eq!(
            (c.what.as_str(), c.detail.as_str()),
            ("procedure SLEV", "missing procedure SLEV")
        );
        let one = [["1".to_string(), "2".to_string(), "3".to_string()]];
        assert_eq!(
            nurand(Some(&one)).detail,
            "load constants c_last 1, c_id 2, ol_i_id 3"
        );
        assert!(!nurand(Some(&[])).ok && !nurand(None).ok);
        let c = warehouse_count(Some(1), 1, 2, "pg_count_ware");
        assert_eq!(
            c.detail,
            "warehouse count 1 (highest w_id 1) does not equal dict warehouse count of 2 \
             (pg_count_ware)"
        );
        assert!(warehouse_count(Some(2), 2, 2, "pg_count_ware").ok);
    }
}
