//! The schema SQL a PostgreSQL-family dialect reshapes: primary keys moved into their
//! `CREATE TABLE` (CockroachDB, YugabyteDB), YugabyteDB's colocated database and tablet
//! splits, and `CREATE DATABASE` with them. Pure text, tested without a server.

use super::statements::ident;
use crate::error::{Error, Result};

/// Where the tables go, as the dictionary asks and the dialect allows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    /// `CREATE DATABASE .. COLOCATION = true`: the tables share one tablet (YugabyteDB).
    pub colocation: bool,
    /// `CREATE TABLE .. SPLIT INTO n TABLETS` (YugabyteDB); 0 leaves it to the server.
    pub tablets: u32,
    /// The tablespace, when the dialect has tablespaces and it is not the default.
    pub tablespace: Option<String>,
}

impl Placement {
    /// Refuses what no server can do: a colocated database's tables are not split.
    pub fn check(&self, colocation_key: &str, tablets_key: &str) -> Result<()> {
        if self.colocation && self.tablets > 0 {
            return Err(Error::ConflictingKeys {
                first: format!("{colocation_key} true"),
                second: format!("{tablets_key} {}", self.tablets),
                why: format!(
                    "a colocated database's tables share its tablet and are not split; set \
                     {tablets_key} 0 or {colocation_key} false"
                ),
            });
        }
        Ok(())
    }
}

/// `CREATE DATABASE` for `db` owned by `user`, with its placement.
pub fn create_database(db: &str, user: &str, placement: &Placement) -> String {
    let mut sql = format!("CREATE DATABASE {} OWNER {}", ident(db), ident(user));
    if let Some(tablespace) = &placement.tablespace {
        sql.push_str(&format!(" TABLESPACE {}", ident(tablespace)));
    }
    if placement.colocation {
        sql.push_str(" COLOCATION = true");
    }
    sql
}

/// A primary key as `keys.sql` adds it: `ALTER TABLE t ADD CONSTRAINT name PRIMARY KEY (..)`,
/// read as (table, the constraint's text).
fn primary_key(statement: &str) -> Option<(&str, &str)> {
    let rest = statement.strip_prefix("ALTER TABLE ")?;
    let (table, rest) = rest.split_once(' ')?;
    let constraint = rest.strip_prefix("ADD ")?.trim_end().trim_end_matches(';');
    constraint
        .contains(" PRIMARY KEY ")
        .then_some((table, constraint))
}

/// The table a `CREATE TABLE` statement makes.
fn created_table(statement: &str) -> Option<&str> {
    let rest = statement.strip_prefix("CREATE TABLE ")?;
    rest.split(|c: char| c.is_whitespace() || c == '(').next()
}

/// The tables and the keys to add after the load, reshaped for the dialect: with
/// `keys_in_create` each primary key goes into its table's `CREATE TABLE` as its last
/// element and leaves the later keys; with `tablets` every table is split.
pub fn reshape(
    tables: Vec<String>,
    keys: Vec<String>,
    keys_in_create: bool,
    tablets: u32,
) -> (Vec<String>, Vec<String>) {
    let (moved, later): (Vec<String>, Vec<String>) = if keys_in_create {
        keys.into_iter().partition(|k| primary_key(k).is_some())
    } else {
        (Vec::new(), keys)
    };
    let tables = tables
        .into_iter()
        .map(|statement| {
            let Some(table) = created_table(&statement) else {
                return statement;
            };
            let body = statement.trim_end().trim_end_matches(';').trim_end();
            let Some(close) = body.rfind(')') else {
                return statement;
            };
            let (columns, tail) = body.split_at(close);
            let mut sql = columns.trim_end().to_string();
            if let Some((_, constraint)) = moved
                .iter()
                .filter_map(|k| primary_key(k))
                .find(|(t, _)| *t == table)
            {
                sql.push_str(&format!(",\n    {constraint}\n"));
            } else {
                sql.push('\n');
            }
            sql.push_str(tail.trim_end());
            if tablets > 0 {
                sql.push_str(&format!(" SPLIT INTO {tablets} TABLETS"));
            }
            sql
        })
        .collect();
    (tables, later)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLES: &str =
        "CREATE TABLE warehouse (\n    w_id int NOT NULL,\n    w_ytd numeric(16,2) NOT NULL\n);";
    const HISTORY: &str = "CREATE TABLE history (\n    h_c_id int NOT NULL\n);";
    const ORDER_LINE: &str = "CREATE TABLE order_line (\n    ol_o_id int NOT NULL\n) ;";
    const PK: &str = "ALTER TABLE warehouse ADD CONSTRAINT WAREHOUSE_I1 PRIMARY KEY (w_id);";
    const PK_OL: &str =
        "ALTER TABLE order_line ADD CONSTRAINT ORDER_LINE_I1 PRIMARY KEY (ol_w_id, ol_o_id);";
    const INDEX: &str = "CREATE UNIQUE INDEX ORDERS_I2 ON orders (o_w_id, o_d_id, o_c_id, o_id);";

    fn all() -> (Vec<String>, Vec<String>) {
        (
            vec![TABLES.into(), HISTORY.into(), ORDER_LINE.into()],
            vec![PK.into(), PK_OL.into(), INDEX.into()],
        )
    }

    #[test]
    fn primary_keys_move_into_create_table_and_the_rest_stay_for_later() {
        let (tables, keys) = all();
        let (tables, later) = reshape(tables, keys, true, 0);
        assert_eq!(
            tables[0],
            "CREATE TABLE warehouse (\n    w_id int NOT NULL,\n    w_ytd numeric(16,2) NOT NULL,\n    \
             CONSTRAINT WAREHOUSE_I1 PRIMARY KEY (w_id)\n)"
        );
        // HISTORY has no key: unchanged but for the semicolon.
        assert_eq!(
            tables[1],
            "CREATE TABLE history (\n    h_c_id int NOT NULL\n)"
        );
        assert!(tables[2].ends_with("CONSTRAINT ORDER_LINE_I1 PRIMARY KEY (ol_w_id, ol_o_id)\n)"));
        assert_eq!(later, [INDEX]);
        assert!(later.iter().all(|k| !k.contains("PRIMARY KEY")));
    }

    #[test]
    fn without_the_flag_nothing_moves() {
        let (tables, keys) = all();
        let (shaped, later) = reshape(tables.clone(), keys.clone(), false, 0);
        assert_eq!(later, keys);
        for (a, b) in shaped.iter().zip(&tables) {
            assert_eq!(
                a.trim_end_matches(';').trim(),
                b.trim_end_matches(';').trim()
            );
            assert!(!a.contains("PRIMARY KEY"));
        }
    }

    #[test]
    fn tablets_split_every_table() {
        let (tables, keys) = all();
        let (tables, _) = reshape(tables, keys, true, 8);
        for t in &tables {
            assert!(t.ends_with(") SPLIT INTO 8 TABLETS"), "{t}");
        }
    }

    #[test]
    fn create_database_with_its_placement() {
        let plain = Placement::default();
        assert_eq!(
            create_database("tpcc", "tpcc", &plain),
            "CREATE DATABASE \"tpcc\" OWNER \"tpcc\""
        );
        let colocated = Placement {
            colocation: true,
            ..Placement::default()
        };
        assert_eq!(
            create_database("tpcc", "tpcc", &colocated),
            "CREATE DATABASE \"tpcc\" OWNER \"tpcc\" COLOCATION = true"
        );
        let placed = Placement {
            tablespace: Some("fast".into()),
            ..Placement::default()
        };
        assert_eq!(
            create_database("tpcc", "tpcc", &placed),
            "CREATE DATABASE \"tpcc\" OWNER \"tpcc\" TABLESPACE \"fast\""
        );
    }

    #[test]
    fn a_colocated_database_is_not_split() {
        let both = Placement {
            colocation: true,
            tablets: 4,
            tablespace: None,
        };
        let e = both
            .check("yb_colocation", "yb_num_tablets")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("yb_num_tablets 4") && e.contains("yb_colocation true"),
            "{e}"
        );
        assert!(Placement::default().check("a", "b").is_ok());
    }
}
