//! TPROC-H, HammerDB's TPC-H derived analytic workload: its eight tables, their sizes for a
//! scale factor, and its dictionary keys. The pieces: [`gen`] (TPC-H's reference generator's
//! rows, dbgen's, through the `tpchgen` crate), [`build`] (builds and checks a schema on any
//! [`schema::SchemaDb`], with [`invariants`]), [`options`] (what `loadscript` reads),
//! [`driver`] (the query streams and refresh functions as a `vu::Workload`, with [`params`],
//! [`queries`], [`refresh`] and [`answers`]), [`result`] (what a run measured and its text),
//! [`outcome`] (a run as the session shows, records and hands it on, and the QphH@Size it
//! remembers), [`bench`] (TPROC-H as the session sees it), [`support`] (what an engine
//! offers it) and [`split`] (one driver's part of a schema several build at once).

pub mod answers;
pub mod bench;
pub mod build;
pub mod driver;
pub mod gen;
pub mod invariants;
pub mod options;
pub mod outcome;
pub mod params;
pub mod queries;
pub mod refresh;
pub mod result;
pub mod schema;
pub mod split;
pub mod support;

use crate::config::{Database, Settings};
use crate::sql::TableRef;

/// The workload's name, as jobs record it and messages say it.
pub const NAME: &str = crate::benchmarks::TPROC_H.name;

/// How long a query's reply may take before its connection counts as lost. TPROC-H's
/// queries run for minutes at large scale factors, so the OLTP `*_reply_timeout` does not
/// bound them; TCP keepalive still notices a vanished server within about a minute, and
/// Ctrl-C cancels a running query on the server at once.
pub const QUERY_REPLY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// The run's unit types as statistics and jobs name them: the 22 queries, then the two
/// refresh functions. Query `q` is at index `q - 1`.
pub const TYPE_NAMES: [&str; 24] = [
    "query 1",
    "query 2",
    "query 3",
    "query 4",
    "query 5",
    "query 6",
    "query 7",
    "query 8",
    "query 9",
    "query 10",
    "query 11",
    "query 12",
    "query 13",
    "query 14",
    "query 15",
    "query 16",
    "query 17",
    "query 18",
    "query 19",
    "query 20",
    "query 21",
    "query 22",
    "new sales refresh",
    "old sales refresh",
];

/// The eight TPC-H tables, in the order they are loaded (the fixed ones first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    Region,
    Nation,
    Supplier,
    Customer,
    Part,
    PartSupp,
    Orders,
    Lineitem,
}

impl Table {
    pub const ALL: [Table; 8] = [
        Table::Region,
        Table::Nation,
        Table::Supplier,
        Table::Customer,
        Table::Part,
        Table::PartSupp,
        Table::Orders,
        Table::Lineitem,
    ];

    /// The tables whose rows depend on the scale factor, split between the loaders.
    pub const SCALED: [Table; 6] = [
        Table::Supplier,
        Table::Customer,
        Table::Part,
        Table::PartSupp,
        Table::Orders,
        Table::Lineitem,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Table::Region => "region",
            Table::Nation => "nation",
            Table::Supplier => "supplier",
            Table::Customer => "customer",
            Table::Part => "part",
            Table::PartSupp => "partsupp",
            Table::Orders => "orders",
            Table::Lineitem => "lineitem",
        }
    }

    /// The columns in the order the generator writes them (TPC-H clause 1.4.1).
    pub fn columns(self) -> &'static [&'static str] {
        match self {
            Table::Region => &["r_regionkey", "r_name", "r_comment"],
            Table::Nation => &["n_nationkey", "n_name", "n_regionkey", "n_comment"],
            Table::Supplier => &[
                "s_suppkey",
                "s_name",
                "s_address",
                "s_nationkey",
                "s_phone",
                "s_acctbal",
                "s_comment",
            ],
            Table::Customer => &[
                "c_custkey",
                "c_name",
                "c_address",
                "c_nationkey",
                "c_phone",
                "c_acctbal",
                "c_mktsegment",
                "c_comment",
            ],
            Table::Part => &[
                "p_partkey",
                "p_name",
                "p_mfgr",
                "p_brand",
                "p_type",
                "p_size",
                "p_container",
                "p_retailprice",
                "p_comment",
            ],
            Table::PartSupp => &[
                "ps_partkey",
                "ps_suppkey",
                "ps_availqty",
                "ps_supplycost",
                "ps_comment",
            ],
            Table::Orders => &[
                "o_orderkey",
                "o_custkey",
                "o_orderstatus",
                "o_totalprice",
                "o_orderdate",
                "o_orderpriority",
                "o_clerk",
                "o_shippriority",
                "o_comment",
            ],
            Table::Lineitem => &[
                "l_orderkey",
                "l_partkey",
                "l_suppkey",
                "l_linenumber",
                "l_quantity",
                "l_extendedprice",
                "l_discount",
                "l_tax",
                "l_returnflag",
                "l_linestatus",
                "l_shipdate",
                "l_commitdate",
                "l_receiptdate",
                "l_shipinstruct",
                "l_shipmode",
                "l_comment",
            ],
        }
    }

    /// The table as the families' loaders take it.
    pub fn table_ref(self) -> TableRef {
        TableRef {
            name: self.name(),
            columns: self.columns(),
        }
    }

    /// The indexes the build adds on the foreign-key columns the queries join on
    /// (`schemas/<db>/tproch/keys.sql`), by name.
    pub fn indexes(self) -> &'static [&'static str] {
        match self {
            Table::Region | Table::Part => &[],
            Table::Nation => &["nation_fk1"],
            Table::Supplier => &["supplier_fk1"],
            Table::Customer => &["customer_fk1"],
            Table::PartSupp => &["partsupp_fk1"],
            Table::Orders => &["orders_fk1"],
            Table::Lineitem => &["lineitem_fk1"],
        }
    }

    /// The primary key's columns (TPC-H clause 1.4.2.2).
    pub fn primary_key(self) -> &'static [&'static str] {
        match self {
            Table::Region => &["r_regionkey"],
            Table::Nation => &["n_nationkey"],
            Table::Supplier => &["s_suppkey"],
            Table::Customer => &["c_custkey"],
            Table::Part => &["p_partkey"],
            Table::PartSupp => &["ps_partkey", "ps_suppkey"],
            Table::Orders => &["o_orderkey"],
            Table::Lineitem => &["l_orderkey", "l_linenumber"],
        }
    }
}

/// `*_scale_fact` of `db`: one of `config::keys::TPCH_SCALE_FACTORS`, which the dictionary
/// already checked.
pub fn scale_factor(settings: &Settings, db: Database) -> f64 {
    settings.db(db).get_f64(&db.key("scale_fact"))
}

/// `*_num_tpch_threads` of `db`: at least 1, which the dictionary already checked.
pub fn threads(settings: &Settings, db: Database) -> u32 {
    settings.db(db).get_i64(&db.key("num_tpch_threads")).max(1) as u32
}

/// A scale factor as the messages write it: `1`, `0.01`.
pub fn shown(sf: f64) -> String {
    format!("{sf}")
}
