//! What TPROC-C needs of a database: [`Support`], the object-safe answers an engine gives
//! through `Engine::offers` (build, check, delete, run, and how its transactions run), written
//! once for every family over [`Family`], which a family implements with its own schema
//! builder ([`SchemaDb`]) and driver ([`TxnDb`]).

use std::sync::Arc;

use super::build::{build, Plan, Summary};
use super::driver::{run, DriverKind, Options, PoolRun, RunResult, StateSink};
use super::links::Pool;
use super::range::WareRange;
use super::schema::{Check, Say, SchemaDb};
use super::split::TpccSplit;
use super::txn::TxnDb;
use crate::bench::Survey;
use crate::config::Settings;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::task::Pending;

/// TPROC-C on one database, as the benchmark asks it (through `dyn`).
pub trait Support: Sync {
    /// How the TPROC-C transactions run under these settings, for `print script`:
    /// `stored functions (SELECT)`, `stored procedures (CALL)`, `client-side SQL`.
    fn routines(&self, settings: &Settings) -> &'static str;

    /// Where the schema goes: `host localhost:5432 under user tpcc in database tpcc`.
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

    /// `checkschema` for `warehouses`.
    fn check<'a>(
        &'a self,
        settings: &'a Settings,
        warehouses: u32,
        say: &'a Say,
    ) -> Pending<'a, Result<Vec<Check>>>;

    /// What `deleteschema` would drop, found without dropping anything.
    fn survey<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<Survey>>;

    /// The warehouses the schema holds, as a run uses them.
    fn warehouses<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<u32>>;

    /// `deleteschema`: one line per object dropped, or what was not there.
    fn delete<'a>(
        &'a self,
        settings: &'a Settings,
        say: &'a Say,
    ) -> Pending<'a, Result<Vec<String>>>;

    /// `vurun` of the TPROC-C driver.
    fn run<'a>(
        &'a self,
        settings: &'a Settings,
        opts: Options,
        say: Say,
        states: StateSink,
        interrupt: Interrupt,
    ) -> Pending<'a, Result<RunResult>>;
}

/// What an engine family supplies for TPROC-C: its schema builder and driver, made from the
/// settings, and what its transactions run as. [`Support`] follows from it.
pub trait Family: Sync {
    type Schema: SchemaDb;
    type Driver: TxnDb;

    /// The schema builder, checker and remover for these settings.
    fn schema(&self, settings: &Settings) -> Self::Schema;

    /// The driver for these settings; its terminals make one-line summaries when `summaries`.
    fn driver(&self, settings: &Settings, summaries: bool) -> Self::Driver;

    /// See [`Support::routines`].
    fn routines(&self, settings: &Settings) -> &'static str;
}

impl<F: Family> Support for F {
    fn routines(&self, settings: &Settings) -> &'static str {
        Family::routines(self, settings)
    }

    fn describe(&self, settings: &Settings) -> String {
        self.schema(settings).describe()
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
            let range = WareRange::of(settings)?;
            let schema = Arc::new(self.schema(settings));
            if range.is_whole() {
                return build(schema, plan, say, out, interrupt).await;
            }
            // One driver of several (hammer's own): its warehouses, through the ledger.
            let started = std::time::Instant::now();
            let split = Arc::new(TpccSplit::new(
                schema.clone(),
                plan,
                settings,
                range,
                say.clone(),
            ));
            let outcome = crate::bench::split::build(split, &say, &interrupt).await?;
            let bytes_on_disk = schema.size_on_disk().await.unwrap_or(0);
            Ok(Summary {
                warehouses: plan.warehouses,
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
        warehouses: u32,
        say: &'a Say,
    ) -> Pending<'a, Result<Vec<Check>>> {
        Box::pin(async move {
            let schema = self.schema(settings);
            // A split build that is not complete says what is missing, rather than every
            // check its missing keys and rows would fail.
            if let Some(check) = split_verdict(&schema, settings).await {
                return Ok(vec![check]);
            }
            schema.check(warehouses, say).await
        })
    }

    fn warehouses<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<u32>> {
        Box::pin(async move { self.schema(settings).warehouses().await })
    }

    fn survey<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<Survey>> {
        Box::pin(async move { self.schema(settings).survey().await })
    }

    fn delete<'a>(
        &'a self,
        settings: &'a Settings,
        say: &'a Say,
    ) -> Pending<'a, Result<Vec<String>>> {
        Box::pin(async move { self.schema(settings).delete(say).await })
    }

    fn run<'a>(
        &'a self,
        settings: &'a Settings,
        opts: Options,
        say: Say,
        states: StateSink,
        interrupt: Interrupt,
    ) -> Pending<'a, Result<RunResult>> {
        let summaries = opts.show_output && opts.driver == DriverKind::Test;
        Box::pin(async move {
            // One driver per schema (`*_schemas`), each on its own database.
            let drivers = super::schemas::all(settings)?
                .iter()
                .map(|s| Arc::new(self.driver(&s.settings, summaries)))
                .collect();
            let pool = if opts.connect_pool {
                let db = settings.current();
                let pool = Pool::of(settings.pool(db), db)?;
                // Each named connection: the dictionary with the keys it sets.
                let dbs = pool
                    .ids
                    .iter()
                    .filter_map(|id| settings.pool_connection(db, id))
                    .map(|s| Arc::new(self.driver(&s, summaries)))
                    .collect();
                Some(PoolRun { pool, dbs })
            } else {
                None
            };
            run(drivers, pool, opts, say, states, interrupt).await
        })
    }
}

/// `checkschema`'s one verdict on a split build that is not complete (hammer's own): what
/// its ledger says is missing and how to resume it; `None` when there is no such ledger (a
/// whole build, a complete split one, or no schema at all).
async fn split_verdict<S: SchemaDb>(schema: &S, settings: &Settings) -> Option<Check> {
    let mut conn = schema.owner_conn().await.ok()?;
    let ledger = crate::bench::split::read(&mut conn, &schema.database()).await;
    conn.close().await;
    let ledger = ledger.ok()??;
    let units = super::split::units(settings.current());
    let why = crate::bench::split::verdict(&ledger, &units)?;
    Some(Check::fail(
        format!("split build ({})", crate::bench::split::LEDGER),
        why,
    ))
}
