//! TPROC-C: the data model, its random rules and row generation (TPC-C clause 4.3.3), and the
//! workload the virtual-user runtime drives.
//!
//! [`Table`] names the nine tables and the column order the generator writes; the loaders
//! name these columns explicitly, so the DDL may order them as it likes. [`Generator`]
//! writes the initial population as delimited text; [`random`] holds the rules it and the
//! driver share (uniform and NURand numbers, last names, strings). The run: [`options`] (what
//! `loadscript` freezes), [`inputs`] (the deck and each transaction's inputs), [`txn`] (what a
//! database must run), [`links`] (a terminal's connections and where each transaction goes),
//! [`driver`] (the terminal and monitor as a [`crate::vu::Workload`]),
//! [`result`] (the result and its text: TEST RESULT, the table), [`outcome`] (a run as the
//! session shows, records and hands it on). What it needs of a database: [`support`]
//! (`Support`, which an engine offers through `Engine::offers`, written once over the `Family`
//! a family implements). [`bench`]: TPROC-C as the session drives it (the
//! `bench::Benchmark`); [`range`] and [`split`]: one driver's warehouses when several share a
//! schema, and its part in building that schema; [`schemas`]: several identical schemas in one
//! build and one run (`*_schemas`, hammer's own); [`merged`]: several drivers' run as one.

pub mod acked;
pub mod bench;
pub mod build;
pub mod checks;
pub mod driver;
pub mod fitness;
mod gen;
pub mod inputs;
pub mod links;
pub mod merged;
pub mod options;
pub mod outcome;
pub mod random;
pub mod range;
pub mod result;
pub mod schema;
pub mod schemas;
pub mod split;
pub mod summary;
pub mod support;
pub mod txn;

pub use gen::{Format, Generator};
pub use options::NAME;
pub use random::Constants;

/// Rows of ITEM, independent of the number of warehouses.
pub const ITEMS: u32 = 100_000;
/// Districts per warehouse.
pub const DISTRICTS_PER_W: u32 = 10;
/// Customers per district (and HISTORY rows per district at load).
pub const CUSTOMERS_PER_D: u32 = 3_000;
/// Initial orders per district.
pub const ORDERS_PER_D: u32 = 3_000;
/// Initial undelivered orders per district: the last 900, `o_id` 2101..=3000.
pub const NEW_ORDERS_PER_D: u32 = 900;
/// The first undelivered order id of a district: 2101.
pub const FIRST_NEW_ORDER: u32 = ORDERS_PER_D - NEW_ORDERS_PER_D + 1;
/// STOCK rows per warehouse, one per item.
pub const STOCK_PER_W: u32 = ITEMS;

/// The nine TPROC-C tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    Warehouse,
    District,
    Customer,
    History,
    NewOrder,
    Orders,
    OrderLine,
    Item,
    Stock,
}

impl Table {
    /// Every table, in the order of TPC-C clause 1.3.
    pub const ALL: [Table; 9] = [
        Table::Warehouse,
        Table::District,
        Table::Customer,
        Table::History,
        Table::NewOrder,
        Table::Orders,
        Table::OrderLine,
        Table::Item,
        Table::Stock,
    ];

    /// The table's name as HammerDB creates it.
    pub fn name(self) -> &'static str {
        match self {
            Table::Warehouse => "warehouse",
            Table::District => "district",
            Table::Customer => "customer",
            Table::History => "history",
            Table::NewOrder => "new_order",
            Table::Orders => "orders",
            Table::OrderLine => "order_line",
            Table::Item => "item",
            Table::Stock => "stock",
        }
    }

    /// The columns in the order [`Generator`] writes them: TPC-C clause 1.3's order, with
    /// HammerDB's column names.
    /// The table as the families' loaders take it.
    pub fn table_ref(self) -> crate::sql::TableRef {
        crate::sql::TableRef {
            name: self.name(),
            columns: self.columns(),
        }
    }

    pub fn columns(self) -> &'static [&'static str] {
        match self {
            Table::Warehouse => &[
                "w_id",
                "w_name",
                "w_street_1",
                "w_street_2",
                "w_city",
                "w_state",
                "w_zip",
                "w_tax",
                "w_ytd",
            ],
            Table::District => &[
                "d_id",
                "d_w_id",
                "d_name",
                "d_street_1",
                "d_street_2",
                "d_city",
                "d_state",
                "d_zip",
                "d_tax",
                "d_ytd",
                "d_next_o_id",
            ],
            Table::Customer => &[
                "c_id",
                "c_d_id",
                "c_w_id",
                "c_first",
                "c_middle",
                "c_last",
                "c_street_1",
                "c_street_2",
                "c_city",
                "c_state",
                "c_zip",
                "c_phone",
                "c_since",
                "c_credit",
                "c_credit_lim",
                "c_discount",
                "c_balance",
                "c_ytd_payment",
                "c_payment_cnt",
                "c_delivery_cnt",
                "c_data",
            ],
            Table::History => &[
                "h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount",
                "h_data",
            ],
            Table::NewOrder => &["no_o_id", "no_d_id", "no_w_id"],
            Table::Orders => &[
                "o_id",
                "o_d_id",
                "o_w_id",
                "o_c_id",
                "o_entry_d",
                "o_carrier_id",
                "o_ol_cnt",
                "o_all_local",
            ],
            Table::OrderLine => &[
                "ol_o_id",
                "ol_d_id",
                "ol_w_id",
                "ol_number",
                "ol_i_id",
                "ol_supply_w_id",
                "ol_delivery_d",
                "ol_quantity",
                "ol_amount",
                "ol_dist_info",
            ],
            Table::Item => &["i_id", "i_im_id", "i_name", "i_price", "i_data"],
            Table::Stock => &[
                "s_i_id",
                "s_w_id",
                "s_quantity",
                "s_dist_01",
                "s_dist_02",
                "s_dist_03",
                "s_dist_04",
                "s_dist_05",
                "s_dist_06",
                "s_dist_07",
                "s_dist_08",
                "s_dist_09",
                "s_dist_10",
                "s_ytd",
                "s_order_cnt",
                "s_remote_cnt",
                "s_data",
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_columns_are_prefixed() {
        let names: std::collections::HashSet<_> = Table::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(names.len(), 9);
        for table in Table::ALL {
            let prefix = match table {
                Table::NewOrder => "no_",
                Table::OrderLine => "ol_",
                other => &other.name()[..1],
            };
            for column in table.columns() {
                assert!(column.starts_with(prefix), "{column} in {}", table.name());
            }
            let distinct: std::collections::HashSet<_> = table.columns().iter().collect();
            assert_eq!(distinct.len(), table.columns().len());
        }
        assert_eq!(FIRST_NEW_ORDER, 2101);
    }
}
