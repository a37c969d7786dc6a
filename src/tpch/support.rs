//! What TPROC-H needs of a database: [`Support`], the object-safe answers an engine gives
//! through `Engine::offers` (build, check, delete, a query connection and the dialect's query
//! texts), written once for every family over [`Family`], which a family implements with its
//! own schema builder ([`SchemaDb`]).

use std::sync::Arc;

use super::build::{build, check, Plan, Summary};
use super::schema::{Check, Say, SchemaDb};
use crate::bench::Survey;
use crate::config::Settings;
use crate::endpoint::Position;
use crate::error::{Error, Result};
use crate::fault::{DbError, Peer};
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::sql::ScriptConn;
use crate::task::Pending;

/// TPROC-H on one database, as the benchmark asks it (through `dyn`).
pub trait Support: Sync {
    /// Where the schema goes: `host localhost:5432 under user tpch in database tpch`.
    fn describe(&self, settings: &Settings) -> String;

    /// `buildschema`.
    fn build<'a>(
        &'a self,
        settings: &'a Settings,
        plan: Plan,
        say: Say,
        out: Output,
        interrupt: Interrupt,
    ) -> Pending<'a, Result<Summary>>;

    /// `checkschema` for scale factor `sf`; `stop` cancels its queries on the server.
    fn check<'a>(
        &'a self,
        settings: &'a Settings,
        sf: f64,
        say: &'a Say,
        stop: &'a Interrupt,
    ) -> Pending<'a, Result<Vec<Check>>>;

    /// What `deleteschema` would drop, found without dropping anything.
    fn survey<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<Survey>>;

    /// `deleteschema`: one line per object dropped, or what was not there.
    fn delete<'a>(
        &'a self,
        settings: &'a Settings,
        say: &'a Say,
    ) -> Pending<'a, Result<Vec<String>>>;

    /// A connection as the schema's user on the schema's database, where the queries and the
    /// refresh functions run, for the connection at `at`.
    fn connect<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>>;

    /// The server and login [`Self::connect`] reaches for the connection at `at`, for
    /// messages about it.
    fn peer(&self, settings: &Settings, at: Position) -> Peer;

    /// The 22 queries in this database's SQL (`schemas/<db>/tproch/queries.sql`), as
    /// `tpch::queries` parses them.
    fn queries_sql(&self) -> &'static str;
}

/// What an engine family supplies for TPROC-H: its schema builder made from the settings.
/// [`Support`] follows from it.
pub trait Family: Sync {
    type Schema: SchemaDb;

    /// The schema builder, checker and remover for these settings.
    fn tpch_schema(&self, settings: &Settings) -> Self::Schema;

    /// The schema's database name (`*_tpch_dbase`), for `checkschema`'s lines.
    fn tpch_dbname(&self, settings: &Settings) -> String;

    /// A connection as the schema's user on the schema's database, for the connection at
    /// `at`.
    fn tpch_connect<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>>;

    /// The server and login [`Self::tpch_connect`] reaches for the connection at `at`.
    fn tpch_peer(&self, settings: &Settings, at: Position) -> Peer;

    /// The dialect's query file.
    fn tpch_queries_sql(&self) -> &'static str;
}

impl<F: Family> Support for F {
    fn describe(&self, settings: &Settings) -> String {
        self.tpch_schema(settings).describe()
    }

    fn build<'a>(
        &'a self,
        settings: &'a Settings,
        plan: Plan,
        say: Say,
        out: Output,
        interrupt: Interrupt,
    ) -> Pending<'a, Result<Summary>> {
        Box::pin(build(
            Arc::new(self.tpch_schema(settings)),
            plan,
            say,
            out,
            interrupt,
        ))
    }

    fn check<'a>(
        &'a self,
        settings: &'a Settings,
        sf: f64,
        say: &'a Say,
        stop: &'a Interrupt,
    ) -> Pending<'a, Result<Vec<Check>>> {
        Box::pin(async move {
            let name = self.tpch_dbname(settings);
            say.line(format!("Checking {name} TPROC-H schema"));
            let schema = self.tpch_schema(settings);
            let inventory = tokio::select! {
                found = schema.inventory() => found?,
                _ = stop.wait() => return Err(Error::Interrupted),
            };
            let Some(found) = inventory else {
                return Ok(vec![Check::fail(
                    format!("database {name}"),
                    "does not exist: buildschema first",
                )]);
            };
            // The counts and the invariants run on one connection of the schema's user, whose
            // running query the stop cancels.
            let mut conn = self.tpch_connect(settings, Position::Session).await?;
            let checks = async {
                let mut checks = check(&mut conn, found, (sf, &name), stop).await?;
                // The invariants say something only of tables that hold the right rows.
                if checks.iter().all(|c| c.ok) {
                    say.line("Checking a sample of dbgen's invariants (TPC-H clause 4.2.3)");
                    checks.extend(super::invariants::check(&mut conn, stop).await?);
                }
                Ok(checks)
            }
            .await;
            conn.close().await;
            checks
        })
    }

    fn survey<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<Survey>> {
        Box::pin(async move { self.tpch_schema(settings).survey().await })
    }

    fn delete<'a>(
        &'a self,
        settings: &'a Settings,
        say: &'a Say,
    ) -> Pending<'a, Result<Vec<String>>> {
        Box::pin(async move { self.tpch_schema(settings).delete(say).await })
    }

    fn connect<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>> {
        self.tpch_connect(settings, at)
    }

    fn peer(&self, settings: &Settings, at: Position) -> Peer {
        self.tpch_peer(settings, at)
    }

    fn queries_sql(&self) -> &'static str {
        self.tpch_queries_sql()
    }
}
