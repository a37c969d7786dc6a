//! The 22 TPC-H queries in a database's SQL (`schemas/<db>/tproch/queries.sql`, given by the
//! engine through `tpch::support::Support::queries_sql`), parsed once, and the statements one
//! query runs with its substitution parameters (query 15: create its view, query it, drop it).
//!
//! (Being written: see the contract in the issue-16 helper brief.)

use super::params::Params;

/// One statement of a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub sql: String,
    pub returns_rows: bool,
}

/// (Stub until the queries land.)
pub struct Queries;

impl Queries {
    pub fn parse(_text: &str) -> Result<Queries, String> {
        Ok(Queries)
    }

    pub fn statements(&self, query: u8, _params: &Params, _stream: u32) -> Vec<Statement> {
        vec![Statement {
            sql: format!("SELECT {query}, count(*) FROM nation"),
            returns_rows: true,
        }]
    }
}
