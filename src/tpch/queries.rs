//! The 22 TPC-H queries in a database's SQL (`schemas/<db>/tproch/queries.sql`, given by the
//! engine through `tpch::support::Support::queries_sql`), parsed once, and the statements one
//! query runs with its substitution parameters (query 15: create its view, query it, drop it).
//!
//! (Being written: see the contract in the issue-16 helper brief.)
