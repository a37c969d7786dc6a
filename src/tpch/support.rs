//! What TPROC-H needs of a database: [`Support`], the object-safe answers an engine gives
//! through `Engine::offers` (build, check, delete, a query connection and the dialect's query
//! texts), written once for every family over [`Family`], which a family implements with its
//! own schema builder ([`SchemaDb`]).

use std::sync::Arc;

use super::build::{build, check, Plan, Summary};
use super::schema::{Check, Say, SchemaDb};
use super::split;
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
        Box::pin(async move {
            let (part, parts) = split::build_part(settings)?;
            let schema = Arc::new(self.tpch_schema(settings));
            if parts == 1 {
                return build(schema, plan, say, out, interrupt).await;
            }
            // One driver of several (hammer's own): its part, through the ledger.
            let started = std::time::Instant::now();
            let work = Arc::new(split::TpchSplit::new(
                schema.clone(),
                plan,
                settings,
                (part, parts),
                say.clone(),
            ));
            let outcome = crate::bench::split::build(work, &say, &interrupt).await?;
            let bytes_on_disk = schema.size_on_disk().await.unwrap_or(0);
            Ok(Summary {
                rows: outcome.rows,
                elapsed: started.elapsed(),
                bytes_on_disk,
                split: Some(outcome),
            })
        })
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
            // A split build that is not complete says what is missing, rather than every
            // check its missing keys and rows would fail (hammer's own).
            if let Some(check) = split_verdict(&schema, settings).await {
                return Ok(vec![check]);
            }
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

/// `checkschema`'s one verdict on a split build that is not complete: what its ledger says
/// is missing and how to resume it; `None` when there is no such ledger.
async fn split_verdict<S: SchemaDb>(schema: &S, settings: &Settings) -> Option<Check> {
    let mut conn = schema.owner_conn().await.ok()?;
    let ledger = crate::bench::split::read(&mut conn, &schema.database()).await;
    conn.close().await;
    let ledger = ledger.ok()??;
    let units = split::units(settings.current());
    let why = crate::bench::split::verdict(&ledger, &units)?;
    Some(Check::fail(
        format!("split build ({})", crate::bench::split::LEDGER),
        why,
    ))
}
