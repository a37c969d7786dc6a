//! The warehouses one driver owns when several share a schema: `first..=last` of the
//! schema's `total` (`*_first_ware`, `*_owned_ware`, `*_count_ware`). A lone driver owns
//! them all.

use std::fmt;

use crate::config::{Database, Settings};
use crate::error::{Error, Result};

/// A driver's warehouses, 1-based and inclusive, within the schema's total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WareRange {
    pub first: u32,
    pub last: u32,
    pub total: u32,
}

impl WareRange {
    /// Every warehouse of a schema of `total`.
    pub fn whole(total: u32) -> Self {
        WareRange {
            first: 1,
            last: total.max(1),
            total: total.max(1),
        }
    }

    /// The range the keys give in a schema of `total` warehouses: `owned` 0 is every
    /// warehouse from `first` to `total`. A range that leaves the schema is refused naming
    /// the keys and what would fit.
    pub fn new(db: Database, first: u32, owned: u32, total: u32) -> Result<Self> {
        let key = |k: &str| format!("tpcc:{}", db.key(k));
        if first == 0 || first > total {
            return Err(Error::ConflictingKeys {
                first: format!("{} {first}", key("first_ware")),
                second: format!("a schema of {total} warehouses"),
                why: format!(
                    "a driver's first warehouse is one of the schema's, from 1 to {total}"
                ),
            });
        }
        let last = if owned == 0 {
            total as u64
        } else {
            first as u64 + owned as u64 - 1
        };
        if last > total as u64 {
            return Err(Error::ConflictingKeys {
                first: format!("{} {owned} from warehouse {first}", key("owned_ware")),
                second: format!("a schema of {total} warehouses"),
                why: format!(
                    "the range would end at warehouse {last}; from {first} a driver owns at \
                     most {} (or 0 for all of them)",
                    total - first + 1
                ),
            });
        }
        Ok(WareRange {
            first,
            last: last as u32,
            total,
        })
    }

    /// The current database's range, from its `tpcc` dictionary.
    pub fn of(settings: &Settings) -> Result<Self> {
        let db = settings.current();
        let d = settings.db(db);
        Self::new(
            db,
            d.get_u32(&db.key("first_ware")),
            d.get_u32(&db.key("owned_ware")),
            d.get_u32(&db.key("count_ware")),
        )
    }

    /// What `*_first_ware` and `*_owned_ware` say before the schema's size is known:
    /// `warehouses 3-4`, `warehouse 3`, `warehouse 3 to the last`.
    pub fn keys_text(first: u32, owned: u32) -> String {
        match owned {
            0 => format!("warehouse {first} to the last"),
            1 => format!("warehouse {first}"),
            n => format!("warehouses {first}-{}", first as u64 + n as u64 - 1),
        }
    }

    /// How many warehouses the driver owns.
    pub fn count(&self) -> u32 {
        self.last - self.first + 1
    }

    /// All of the schema's warehouses.
    pub fn is_whole(&self) -> bool {
        self.first == 1 && self.last == self.total
    }

    /// The driver's warehouses in order.
    pub fn iter(&self) -> std::ops::RangeInclusive<u32> {
        self.first..=self.last
    }
}

impl fmt::Display for WareRange {
    /// `warehouses 5-8 of 16`, `warehouse 3 of 4`, `all 4 warehouses`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_whole() {
            write!(f, "all {} warehouses", self.total)
        } else if self.first == self.last {
            write!(f, "warehouse {} of {}", self.first, self.total)
        } else {
            write!(
                f,
                "warehouses {}-{} of {}",
                self.first, self.last, self.total
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_zero_runs_to_the_last_warehouse() {
        let r = WareRange::new(Database::Pg, 5, 0, 16).unwrap();
        assert_eq!((r.first, r.last, r.count()), (5, 16, 12));
        assert_eq!(r.to_string(), "warehouses 5-16 of 16");
        assert!(WareRange::new(Database::Pg, 1, 0, 4).unwrap().is_whole());
        assert_eq!(WareRange::whole(4).to_string(), "all 4 warehouses");
    }

    #[test]
    fn a_range_past_the_schema_names_the_keys_and_what_fits() {
        let e = WareRange::new(Database::Pg, 5, 8, 8)
            .unwrap_err()
            .to_string();
        assert!(e.contains("tpcc:pg_owned_ware 8 from warehouse 5"), "{e}");
        assert!(e.contains("a schema of 8 warehouses"), "{e}");
        assert!(e.contains("at most 4"), "{e}");
        let e = WareRange::new(Database::Maria, 9, 1, 8)
            .unwrap_err()
            .to_string();
        assert!(e.contains("tpcc:maria_first_ware 9"), "{e}");
        assert!(e.contains("from 1 to 8"), "{e}");
    }
}
