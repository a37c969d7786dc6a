//! The PostgreSQL driver's statements by flavour, as text from `schemas/pg/tprocc/driver.sql`.

use std::sync::LazyLock;

use crate::sqlfile::{render, Named};

/// The five transactions' routine names, as functions or procedures.
pub(super) const ROUTINES: [&str; 5] = ["neword", "payment", "ostat", "delivery", "slev"];

/// How the transactions reach the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flavour {
    Functions,
    Procedures,
    ClientSql,
}

impl Flavour {
    /// The routine kind this flavour calls, as `pg_proc.prokind` and in words.
    pub(super) fn routines(self) -> Option<(&'static str, &'static str)> {
        match self {
            Flavour::Functions => Some(("f", "functions")),
            Flavour::Procedures => Some(("p", "stored procedures")),
            Flavour::ClientSql => None,
        }
    }
}

/// The flavour's statement texts: what a terminal prepares.
pub(super) fn statement_texts(flavour: Flavour) -> Vec<String> {
    match flavour {
        Flavour::Functions => functions().to_vec(),
        Flavour::Procedures => procedures().to_vec(),
        Flavour::ClientSql => client().to_vec(),
    }
}

pub(super) static FILE: LazyLock<Named> =
    LazyLock::new(|| Named::parse(include_str!("../../../../schemas/pg/tprocc/driver.sql")));

/// Functions: the outputs selected in the order procedures return them.
pub fn functions() -> [String; 5] {
    ROUTINES.map(|r| FILE.get(&format!("{r}_function")).to_string())
}

/// Procedures: the INOUT parameters come back as one row.
pub fn procedures() -> [String; 5] {
    ROUTINES.map(|r| FILE.get(&format!("{r}_procedure")).to_string())
}

/// Client-side SQL, in `ClientStatements` order.
pub fn client() -> [String; 12] {
    let stock_set = FILE.get("stock_set");
    let with_stock = |name: &str| render(FILE.get(name), &[("stock_set", stock_set)]);
    let by_name = render(
        FILE.get("customer_by_name"),
        &[("w", "$3"), ("d", "$4"), ("last", "$5")],
    );
    let ostat_by_name = render(
        FILE.get("customer_by_name"),
        &[("w", "$1"), ("d", "$2"), ("last", "$3")],
    );
    let with_customer =
        |name: &str, customer: &str| render(FILE.get(name), &[("customer", customer)]);
    [
        FILE.get("begin").to_string(),
        FILE.get("commit").to_string(),
        FILE.get("rollback").to_string(),
        FILE.get("neword_start").to_string(),
        with_stock("neword_finish"),
        with_stock("stock"),
        with_customer("payment", "$5::int"),
        with_customer("payment", &by_name),
        with_customer("ostat", "$3::int"),
        with_customer("ostat", &ostat_by_name),
        FILE.get("delivery").to_string(),
        FILE.get("slev").to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_statement_is_in_the_file_and_filled_in() {
        let client = client();
        for text in functions().iter().chain(&procedures()).chain(&client) {
            assert!(!text.is_empty() && !text.contains("{{"), "{text}");
        }
        // By name: the customer picked by last name; by id: the parameter itself.
        assert!(client[7].contains("OFFSET") && client[7].contains("p.c_last = $5::text"));
        assert!(!client[6].contains("OFFSET") && client[6].contains("c.c_id = $5::int"));
        assert!(
            client[9].contains("p.c_last = $3::text") && client[9].contains("p.c_w_id = $1::int")
        );
        assert!(client[4].contains("SET s_quantity = CASE"));
    }
}
