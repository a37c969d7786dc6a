//! Whether a TPROC-C schema is fit for a run, checked before any virtual user starts: one set
//! of rules and messages, every engine answering the same questions with its own SQL.
//!
//! In order: the tables (the nine of TPC-C and `tpcc_nurand`), some warehouses, the routines
//! the mode calls, one row of NURand load constants within TPC-C's ranges (clause 2.1.6), and
//! last whatever the engine can only learn by preparing the terminals' statements.

use std::future::Future;

use super::{Constants, Table};
use crate::error::{Error, Result};

/// The table where hammer's `buildschema` records the load's NURand constants.
pub const NURAND_TABLE: &str = "tpcc_nurand";

/// The largest value of each NURand constant `C` (clause 2.1.6: `A` is 255, 1023, 8191).
const C_LAST_MAX: i64 = 255;
const C_ID_MAX: i64 = 1023;
const OL_I_ID_MAX: i64 = 8191;

/// Where the schema is, for the messages.
pub struct Place<'a> {
    /// The schema's database.
    pub db: &'a str,
    /// `PostgreSQL`, `MariaDB`, `MySQL`.
    pub engine: &'a str,
    /// The server's address.
    pub addr: &'a str,
}

/// The questions an engine answers about its schema, each with its own SQL.
pub trait Fitness: Send {
    /// Which of `tables` the schema's database lacks, in the order asked.
    fn missing_tables(
        &mut self,
        tables: &[&'static str],
    ) -> impl Future<Output = Result<Vec<String>>> + Send;

    /// `max(w_id)` of WAREHOUSE, `None` when it is empty.
    fn max_warehouse(&mut self) -> impl Future<Output = Result<Option<i64>>> + Send;

    /// The routines the mode calls are there; the error says which are not and what to do.
    fn routines(&mut self) -> impl Future<Output = Result<()>> + Send;

    /// The rows of `tpcc_nurand`: `c_last`, `c_id`, `ol_i_id` (`None` for NULL or a value
    /// that is no integer).
    fn nurand(&mut self) -> impl Future<Output = Result<Vec<[Option<i64>; 3]>>> + Send;

    /// Anything else the terminals' statements need (PostgreSQL prepares them).
    fn statements(&mut self) -> impl Future<Output = Result<()>> + Send;
}

/// Checks the schema for a run; returns the warehouses it has (`max(w_id)`, all of which the
/// run uses, as HammerDB's driver does) and the load's NURand constants. `_asked`, the build's
/// `count_ware`, limits nothing: the session warns when it differs from what the schema holds.
pub async fn check<F: Fitness>(
    f: &mut F,
    place: &Place<'_>,
    _asked: u32,
) -> Result<(u32, Constants)> {
    let db = place.db;
    let mut tables: Vec<&'static str> = Table::ALL.iter().map(|t| t.name()).collect();
    tables.push(NURAND_TABLE);
    let missing = f.missing_tables(&tables).await?;
    tables_verdict(place, &missing)?;

    let max = f.max_warehouse().await?;
    let have = max.unwrap_or(0).clamp(0, i64::from(u32::MAX)) as u32;
    warehouses_verdict(place, have)?;

    f.routines().await?;

    let rows = f.nurand().await?;
    let constants = constants_verdict(db, &rows)?;

    f.statements().await?;
    Ok((have, constants))
}

fn tables_verdict(place: &Place<'_>, missing: &[String]) -> Result<()> {
    let db = place.db;
    let tpcc_missing: Vec<&str> = missing
        .iter()
        .map(String::as_str)
        .filter(|t| !t.eq_ignore_ascii_case(NURAND_TABLE))
        .collect();
    if tpcc_missing.len() >= Table::ALL.len() {
        return Err(Error::NoSchema { db: db.into() });
    }
    if !tpcc_missing.is_empty() {
        return Err(Error::SchemaLacksTables {
            db: db.into(),
            engine: place.engine.into(),
            addr: place.addr.into(),
            tables: tpcc_missing.iter().map(|t| t.to_string()).collect(),
        });
    }
    if !missing.is_empty() {
        return Err(Error::NoConstantsTable {
            db: db.into(),
            table: NURAND_TABLE,
        });
    }
    Ok(())
}

fn warehouses_verdict(place: &Place<'_>, have: u32) -> Result<()> {
    if have == 0 {
        return Err(Error::NoWarehouses {
            db: place.db.into(),
        });
    }
    Ok(())
}

fn constants_verdict(db: &str, rows: &[[Option<i64>; 3]]) -> Result<Constants> {
    let [row] = rows else {
        return Err(Error::ConstantsRows {
            db: db.into(),
            table: NURAND_TABLE,
            rows: rows.len(),
        });
    };
    let within = |v: Option<i64>, max: i64| v.filter(|v| (0..=max).contains(v));
    match (
        within(row[0], C_LAST_MAX),
        within(row[1], C_ID_MAX),
        within(row[2], OL_I_ID_MAX),
    ) {
        (Some(c_last), Some(c_id), Some(ol_i_id)) => Ok(Constants {
            c_last: c_last as u32,
            c_id: c_id as u32,
            ol_i_id: ol_i_id as u32,
        }),
        _ => Err(Error::ConstantsOutOfRange {
            db: db.into(),
            table: NURAND_TABLE,
            c_last_max: C_LAST_MAX,
            c_id_max: C_ID_MAX,
            ol_i_id_max: OL_I_ID_MAX,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLACE: Place<'static> = Place {
        db: "tpcc",
        engine: "MariaDB",
        addr: "127.0.0.1:3306",
    };

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn tables_none_some_or_only_the_constants() {
        assert!(tables_verdict(&PLACE, &[]).is_ok());
        let all: Vec<String> = Table::ALL.iter().map(|t| t.name().to_string()).collect();
        let e = tables_verdict(&PLACE, &all).unwrap_err().to_string();
        assert_eq!(
            e,
            "Database tpcc holds no TPROC-C schema: build it with buildschema"
        );
        let e = tables_verdict(&PLACE, &names(&["stock", NURAND_TABLE]))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "The TPROC-C schema tpcc on MariaDB at 127.0.0.1:3306 lacks table stock: delete it \
             with deleteschema and build it again with buildschema"
        );
        let e = tables_verdict(&PLACE, &names(&["stock", "item"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("lacks tables stock, item:"), "{e}");
        let e = tables_verdict(&PLACE, &names(&["TPCC_NURAND"]))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("Database tpcc has no table tpcc_nurand"),
            "{e}"
        );
    }

    #[test]
    fn warehouses_any_but_none() {
        assert!(warehouses_verdict(&PLACE, 4).is_ok());
        assert!(warehouses_verdict(&PLACE, 1).is_ok());
        let e = warehouses_verdict(&PLACE, 0).unwrap_err().to_string();
        assert!(e.contains("tpcc has no warehouses"), "{e}");
    }

    #[test]
    fn one_row_of_constants_within_range() {
        let c = constants_verdict("tpcc", &[[Some(255), Some(0), Some(8191)]]).expect("fit");
        assert_eq!(
            c,
            Constants {
                c_last: 255,
                c_id: 0,
                ol_i_id: 8191
            }
        );
        let e = constants_verdict("tpcc", &[]).unwrap_err().to_string();
        assert!(e.contains("holds 0 rows, expected exactly 1"), "{e}");
        let two = [[Some(1), Some(1), Some(1)]; 2];
        let e = constants_verdict("tpcc", &two).unwrap_err().to_string();
        assert!(e.contains("holds 2 rows"), "{e}");
        for bad in [
            [Some(256), Some(1), Some(1)],
            [Some(1), Some(1024), Some(1)],
            [Some(1), Some(1), Some(8192)],
            [Some(-1), Some(1), Some(1)],
            [None, Some(1), Some(1)],
        ] {
            let e = constants_verdict("tpcc", &[bad]).unwrap_err().to_string();
            assert!(
                e.contains("holds constants out of range (c_last 0..255"),
                "{e}"
            );
        }
    }
}
