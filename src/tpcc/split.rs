//! TPROC-C's part in a split build (`bench::split`, hammer's own): a driver's share is its
//! warehouses (`*_first_ware`, `*_owned_ware` of `*_count_ware`), ITEM goes with warehouse 1,
//! the creator records the NURand load constants and the load time every driver generates
//! with, and a dead driver's warehouses are deleted from every table before they load again.

use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::SeedableRng;

use super::build::{load, load_time_now, Load, Plan};
use super::range::WareRange;
use super::schema::{Say, SchemaDb};
use super::{Constants, Table};
use crate::bench::split::{Share, Split, Stopped, Units};
use crate::config::{Database, Settings};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::sql::ScriptConn;

/// One driver's share of a TPROC-C schema on `D`.
pub struct TpccSplit<D: SchemaDb> {
    db: Arc<D>,
    plan: Plan,
    range: WareRange,
    database: Database,
    wait: Duration,
    units: Units,
    say: Say,
    out: Output,
}

/// How TPROC-C names a share of `db`'s schema and the commands that load one.
pub fn units(db: Database) -> Units {
    let prefix = db.prefix();
    Units {
        name: Box::new(|s: Share, total| {
            WareRange {
                first: s.first,
                last: s.last,
                total,
            }
            .to_string()
        }),
        resume: Box::new(move |s: Share| {
            format!(
                "diset tpcc {prefix}_first_ware {}; diset tpcc {prefix}_owned_ware {}; buildschema",
                s.first,
                s.last - s.first + 1
            )
        }),
        creator: "the driver of warehouse 1",
        plural: "warehouses",
    }
}

/// `*_build_wait` of the current database.
pub fn build_wait(settings: &Settings) -> Duration {
    let db = settings.current();
    Duration::from_secs(settings.db(db).get_u64(&db.key("build_wait")))
}

impl<D: SchemaDb> TpccSplit<D> {
    pub fn new(db: Arc<D>, plan: Plan, settings: &Settings, range: WareRange, say: Say) -> Self {
        let database = settings.current();
        let out = say.out().clone();
        TpccSplit {
            db,
            plan,
            range,
            database,
            wait: build_wait(settings),
            units: units(database),
            say,
            out,
        }
    }
}

/// The column that holds a row's warehouse (ITEM has none).
fn warehouse_column(table: Table) -> Option<&'static str> {
    Some(match table {
        Table::Warehouse => "w_id",
        Table::District => "d_w_id",
        Table::Customer => "c_w_id",
        Table::History => "h_w_id",
        Table::NewOrder => "no_w_id",
        Table::Orders => "o_w_id",
        Table::OrderLine => "ol_w_id",
        Table::Stock => "s_w_id",
        Table::Item => return None,
    })
}

/// What the creator records: `c_last=.. c_id=.. ol_i_id=.. load_time=YYYY-MM-DDTHH:MM:SS`.
fn facts_text(c: &Constants, load_time: &str) -> String {
    format!(
        "c_last={} c_id={} ol_i_id={} load_time={}",
        c.c_last,
        c.c_id,
        c.ol_i_id,
        load_time.replace(' ', "T")
    )
}

/// The constants and load time of [`facts_text`]'s text.
fn parse_facts(text: &str) -> Option<(Constants, String)> {
    let get = |key: &str| {
        text.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
    };
    let num = |key: &str| get(key)?.parse::<u32>().ok();
    let constants = Constants {
        c_last: num("c_last")?,
        c_id: num("c_id")?,
        ol_i_id: num("ol_i_id")?,
    };
    Some((constants, get("load_time")?.replace('T', " ")))
}

impl<D: SchemaDb> Split for TpccSplit<D> {
    type Facts = (Constants, String);

    fn units(&self) -> &Units {
        &self.units
    }

    fn share(&self) -> Share {
        Share {
            first: self.range.first,
            last: self.range.last,
        }
    }

    fn total(&self) -> u32 {
        self.range.total
    }

    fn total_key(&self) -> String {
        format!("tpcc:{}", self.database.key("count_ware"))
    }

    fn wait(&self) -> (Duration, String) {
        (
            self.wait,
            format!("tpcc:{}", self.database.key("build_wait")),
        )
    }

    fn dbname(&self) -> String {
        self.db.database()
    }

    fn engine(&self) -> &'static str {
        self.db.name()
    }

    async fn connect(&self) -> Result<ScriptConn> {
        self.db.owner_conn().await
    }

    async fn create(&self, say: &Say) -> Result<()> {
        self.db.create(self.range.total, say).await
    }

    fn new_facts(&self) -> String {
        facts_text(
            &Constants::for_load(&mut SmallRng::from_os_rng()),
            &load_time_now(),
        )
    }

    fn facts(&self, recorded: &str) -> Result<Self::Facts> {
        parse_facts(recorded).ok_or_else(|| Error::SplitRefused {
            why: format!(
                "the load constants recorded in {} ({recorded:?}) cannot be read",
                crate::bench::split::LEDGER
            ),
        })
    }

    async fn clear(&self, conn: &mut ScriptConn, share: Share, _: &Self::Facts) -> Result<()> {
        for table in Table::ALL {
            let sql = match warehouse_column(table) {
                Some(col) => format!(
                    "DELETE FROM {} WHERE {col} BETWEEN {} AND {}",
                    table.name(),
                    share.first,
                    share.last
                ),
                // ITEM goes with warehouse 1.
                None if share.first == 1 => format!("DELETE FROM {}", table.name()),
                None => continue,
            };
            conn.execute(&sql).await?;
        }
        Ok(())
    }

    async fn load(
        &self,
        (constants, load_time): &Self::Facts,
        stop: Interrupt,
    ) -> std::result::Result<u64, Stopped> {
        let what = Load {
            range: self.range.iter(),
            item: self.range.first == 1,
            constants: *constants,
            load_time: load_time.clone(),
        };
        load(&self.db, self.plan, what, (&self.say, &self.out), stop).await
    }

    async fn finish(&self, (constants, _): &Self::Facts, say: &Say) -> Result<()> {
        self.db.finish(constants, say).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_facts_read_back() {
        let c = Constants {
            c_last: 7,
            c_id: 300,
            ol_i_id: 8000,
        };
        let text = facts_text(&c, "2026-12-04 13:00:01");
        assert_eq!(
            text,
            "c_last=7 c_id=300 ol_i_id=8000 load_time=2026-12-04T13:00:01"
        );
        assert_eq!(
            parse_facts(&text),
            Some((c, "2026-12-04 13:00:01".to_string()))
        );
        assert_eq!(parse_facts("c_last=7 c_id=300"), None);
    }

    #[test]
    fn shares_are_named_as_ranges_and_resumed_by_their_keys() {
        let u = units(Database::Pg);
        assert_eq!(
            (u.name)(Share { first: 5, last: 8 }, 16),
            "warehouses 5-8 of 16"
        );
        assert_eq!(
            (u.resume)(Share { first: 5, last: 8 }),
            "diset tpcc pg_first_ware 5; diset tpcc pg_owned_ware 4; buildschema"
        );
        let u = units(Database::Maria);
        assert_eq!(
            (u.resume)(Share { first: 3, last: 3 }),
            "diset tpcc maria_first_ware 3; diset tpcc maria_owned_ware 1; buildschema"
        );
        for t in Table::ALL {
            let col = warehouse_column(t);
            assert_eq!(col.is_none(), t == Table::Item);
            if let Some(col) = col {
                assert!(t.columns().contains(&col), "{t:?}");
            }
        }
    }
}
