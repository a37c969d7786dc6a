//! TPROC-H's part in a split build (`bench::split`, hammer's own): driver `k` of `N`
//! (`*_tpch_build_part`, `*_tpch_build_parts`) loads part `k` of every scaled table in dbgen's
//! numbering, and part 1 also REGION and NATION. Each driver's part is split again between its
//! workers: with `L` workers (`*_num_tpch_threads` of part 1, which the creator records, so
//! that every driver cuts the tables alike) driver `k` loads dbgen's parts `(k-1)L+1` to `kL`
//! of `NL`. A dead driver's rows are deleted by key, from the first key of its first part to
//! the first key of the next driver's.

use std::sync::Arc;
use std::time::Duration;

use super::build::{load, Load, Plan};
use super::gen;
use super::schema::{Say, SchemaDb};
use super::{shown, Table};
use crate::bench::split::{Share, Split, Stopped, Units};
use crate::config::{Database, Settings};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::sql::ScriptConn;

/// `*_tpch_build_part` and `*_tpch_build_parts` of the current database: this driver's part
/// and the number of drivers, or the refusal of a part past the last.
pub fn build_part(settings: &Settings) -> Result<(u32, u32)> {
    let db = settings.current();
    let d = settings.db(db);
    let (part, parts) = (
        d.get_u32(&db.key("tpch_build_part")),
        d.get_u32(&db.key("tpch_build_parts")),
    );
    if part > parts {
        return Err(Error::ConflictingKeys {
            first: format!("tpch:{} {part}", db.key("tpch_build_part")),
            second: format!("tpch:{} {parts}", db.key("tpch_build_parts")),
            why: format!("a driver's part is one of the build's, from 1 to {parts}"),
        });
    }
    Ok((part, parts))
}

/// How TPROC-H names a share (one driver's part) of `db`'s schema and the commands that load
/// one.
pub fn units(db: Database) -> Units {
    let prefix = db.prefix();
    Units {
        name: Box::new(|s: Share, total| {
            if s.first == s.last {
                format!("part {} of {total}", s.first)
            } else {
                format!("parts {}-{} of {total}", s.first, s.last)
            }
        }),
        resume: Box::new(move |s: Share| {
            (s.first..=s.last)
                .map(|k| format!("diset tpch {prefix}_tpch_build_part {k}; buildschema"))
                .collect::<Vec<_>>()
                .join(" | ")
        }),
        creator: "the driver of part 1",
        plural: "parts",
    }
}

/// One driver's part of a TPROC-H schema on `D`.
pub struct TpchSplit<D: SchemaDb> {
    db: Arc<D>,
    plan: Plan,
    part: u32,
    parts: u32,
    database: Database,
    wait: Duration,
    units: Units,
    say: Say,
    out: Output,
}

impl<D: SchemaDb> TpchSplit<D> {
    /// Driver `part` of `parts`, loading with `plan`'s scale factor.
    pub fn new(
        db: Arc<D>,
        plan: Plan,
        settings: &Settings,
        (part, parts): (u32, u32),
        say: Say,
    ) -> Self {
        let database = settings.current();
        let wait = settings
            .db(database)
            .get_u64(&database.key("tpch_build_wait"));
        let out = say.out().clone();
        TpchSplit {
            db,
            plan,
            part,
            parts,
            database,
            wait: Duration::from_secs(wait),
            units: units(database),
            say,
            out,
        }
    }
}

/// dbgen's parts driver `part` of `parts` loads, and of how many, with `loaders` workers a
/// driver.
fn cut(part: u32, parts: u32, loaders: u32) -> (std::ops::RangeInclusive<u32>, u32) {
    let first = (part - 1) * loaders + 1;
    (first..=part * loaders, parts * loaders)
}

/// What the creator records: `scale_fact=0.01 loaders=2`.
fn facts_text(sf: f64, loaders: u32) -> String {
    format!("scale_fact={} loaders={loaders}", shown(sf))
}

/// The scale factor (as written) and the workers a driver of [`facts_text`]'s text.
fn parse_facts(text: &str) -> Option<(String, u32)> {
    let get = |key: &str| {
        text.split_whitespace()
            .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
    };
    Some((
        get("scale_fact")?.to_string(),
        get("loaders")?.parse().ok().filter(|n| *n >= 1)?,
    ))
}

impl<D: SchemaDb> Split for TpchSplit<D> {
    /// The workers a driver, as the creator recorded them.
    type Facts = u32;

    fn units(&self) -> &Units {
        &self.units
    }

    fn share(&self) -> Share {
        Share {
            first: self.part,
            last: self.part,
        }
    }

    fn total(&self) -> u32 {
        self.parts
    }

    fn total_key(&self) -> String {
        format!("tpch:{}", self.database.key("tpch_build_parts"))
    }

    fn wait(&self) -> (Duration, String) {
        (
            self.wait,
            format!("tpch:{}", self.database.key("tpch_build_wait")),
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
        self.db.create(say).await
    }

    fn new_facts(&self) -> String {
        facts_text(self.plan.scale_factor, self.plan.loaders)
    }

    fn facts(&self, recorded: &str) -> Result<u32> {
        let Some((sf, loaders)) = parse_facts(recorded) else {
            return Err(Error::SplitRefused {
                why: format!(
                    "the build's facts recorded in {} ({recorded:?}) cannot be read",
                    crate::bench::split::LEDGER
                ),
            });
        };
        let mine = shown(self.plan.scale_factor);
        if sf != mine {
            return Err(Error::SplitRefused {
                why: format!(
                    "the schema being built is of scale factor {sf} ({}), but tpch:{} is {mine}: \
                     set it to {sf}",
                    crate::bench::split::LEDGER,
                    self.database.key("scale_fact")
                ),
            });
        }
        if loaders != self.plan.loaders {
            self.say.line(format!(
                "Loading with {loaders} workers, as {} recorded: every driver cuts the tables \
                 alike (tpch:{} {} is not used here)",
                self.units.creator,
                self.database.key("num_tpch_threads"),
                self.plan.loaders
            ));
        }
        Ok(loaders)
    }

    async fn clear(&self, conn: &mut ScriptConn, share: Share, loaders: &u32) -> Result<()> {
        let sf = self.plan.scale_factor;
        let (mine, parts) = cut(share.first, self.parts, *loaders);
        // Where the first non-empty part at or after `from` starts.
        let start = |table: Table, from: u32| {
            (from..=parts).find_map(|p| gen::first_key(table, sf, p, parts))
        };
        for table in Table::SCALED {
            let Some(lo) = start(table, *mine.start()) else {
                continue;
            };
            let key = table.columns()[0];
            let mut sql = format!("DELETE FROM {} WHERE {key} >= {lo}", table.name());
            if let Some(hi) = start(table, mine.end() + 1) {
                sql.push_str(&format!(" AND {key} < {hi}"));
            }
            conn.execute(&sql).await?;
        }
        if share.first == 1 {
            for table in [Table::Region, Table::Nation] {
                conn.execute(&format!("DELETE FROM {}", table.name()))
                    .await?;
            }
        }
        Ok(())
    }

    async fn load(&self, loaders: &u32, stop: Interrupt) -> std::result::Result<u64, Stopped> {
        let (mine, parts) = cut(self.part, self.parts, *loaders);
        let what = Load {
            fixed: self.part == 1,
            parts,
            mine,
        };
        let plan = Plan {
            loaders: *loaders,
            ..self.plan
        };
        load(&self.db, plan, what, (&self.say, &self.out), stop).await
    }

    async fn finish(&self, _: &u32, say: &Say) -> Result<()> {
        self.db.finish(say).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_facts_read_back() {
        let text = facts_text(0.01, 2);
        assert_eq!(text, "scale_fact=0.01 loaders=2");
        assert_eq!(parse_facts(&text), Some(("0.01".to_string(), 2)));
        assert_eq!(parse_facts("scale_fact=1 loaders=0"), None);
    }

    #[test]
    fn parts_are_named_and_resumed_by_their_key() {
        let u = units(Database::Pg);
        assert_eq!((u.name)(Share { first: 2, last: 2 }, 3), "part 2 of 3");
        assert_eq!(
            (u.resume)(Share { first: 2, last: 2 }),
            "diset tpch pg_tpch_build_part 2; buildschema"
        );
        for t in Table::SCALED {
            assert!(t.columns()[0].ends_with("key"), "{t:?}");
        }
    }

    #[test]
    fn each_driver_cuts_its_part_into_its_workers() {
        assert_eq!(cut(1, 2, 2), (1..=2, 4));
        assert_eq!(cut(2, 2, 2), (3..=4, 4));
        assert_eq!(cut(3, 3, 1), (3..=3, 3));
    }

    #[test]
    fn a_parts_rows_start_where_the_generator_says() {
        // Two drivers of two workers: dbgen's parts 1-2 and 3-4 of 4.
        for table in Table::SCALED {
            let keys: Vec<i64> = (1..=4)
                .map(|p| gen::first_key(table, 0.01, p, 4).unwrap())
                .collect();
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "{table:?}: {keys:?}");
            assert_eq!(keys[0], 1, "{table:?}");
        }
        assert_eq!(gen::first_key(Table::Region, 0.01, 1, 1), None);
    }
}
