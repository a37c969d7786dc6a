//! What OLTP needs of a database: [`Support`], the object-safe answers an engine gives
//! through `Engine::offers` (build, check, delete, a connection as the schema's user),
//! written once for every family over [`Family`], which a family implements with its own
//! schema builder ([`SchemaDb`]).

use std::sync::Arc;

use super::build::{build, check, Expected, Plan, Summary};
use super::db::OltpDb;
use super::options::Options;
use super::run::Ran;
use super::schema::{Check, Say, SchemaDb};
use super::{Layout, Table};
use crate::bench::Survey;
use crate::config::Settings;
use crate::endpoint::Position;
use crate::error::{Error, Result};
use crate::fault::{DbError, Peer};
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::sql::ScriptConn;
use crate::task::Pending;
use crate::vu::StateSink;

/// OLTP on one database, as the benchmark asks it (through `dyn`).
pub trait Support: Sync {
    /// Where the tables go: `host localhost:5432 under user sbtest in database sbtest`.
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

    /// `checkschema` of `layout`; `stop` cancels its queries on the server.
    fn check<'a>(
        &'a self,
        settings: &'a Settings,
        layout: Layout,
        say: &'a Say,
        stop: &'a Interrupt,
    ) -> Pending<'a, Result<Vec<Check>>>;

    /// What `deleteschema` would drop, found without dropping anything.
    fn survey<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<Survey>>;

    /// `deleteschema` of the whole database: one line per object dropped, or what was not
    /// there.
    fn delete<'a>(
        &'a self,
        settings: &'a Settings,
        say: &'a Say,
    ) -> Pending<'a, Result<Vec<String>>>;

    /// `deleteschema` of `tables` alone, in a database that keeps other tables.
    fn drop_tables<'a>(
        &'a self,
        settings: &'a Settings,
        tables: &'a [Table],
        say: &'a Say,
    ) -> Pending<'a, Result<Vec<String>>>;

    /// A connection as the schema's user on the schema's database, for the connection at
    /// `at`, with the way to cancel its running statement on the server.
    fn connect<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>>;

    /// The server and login [`Self::connect`] reaches for the connection at `at`, for
    /// messages about it.
    fn peer(&self, settings: &Settings, at: Position) -> Peer;

    /// `vurun`: the test with `opts`.
    fn run<'a>(
        &'a self,
        settings: &'a Settings,
        opts: Options,
        say: crate::vu::Say,
        states: StateSink,
        interrupt: Interrupt,
    ) -> Pending<'a, Result<Ran>>;
}

/// What an engine family supplies for OLTP: its schema builder made from the settings, and
/// its connections. [`Support`] follows from it.
pub trait Family: Sync {
    type Schema: SchemaDb;
    /// The run's database: its connections and statements.
    type Driver: OltpDb;

    /// The schema builder, checker and remover for these settings.
    fn oltp_schema(&self, settings: &Settings) -> Self::Schema;

    /// A connection as the schema's user on the schema's database, for the connection at
    /// `at`, cancellable on the server.
    fn oltp_connect<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>>;

    /// The server and login [`Self::oltp_connect`] reaches for the connection at `at`.
    fn oltp_peer(&self, settings: &Settings, at: Position) -> Peer;

    /// The run's database for these settings.
    fn oltp_driver(&self, settings: &Settings) -> Self::Driver;
}

impl<F: Family> Support for F {
    fn describe(&self, settings: &Settings) -> String {
        self.oltp_schema(settings).describe()
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
            let schema = Arc::new(self.oltp_schema(settings));
            build(schema, plan, say, out, interrupt).await
        })
    }

    fn check<'a>(
        &'a self,
        settings: &'a Settings,
        layout: Layout,
        say: &'a Say,
        stop: &'a Interrupt,
    ) -> Pending<'a, Result<Vec<Check>>> {
        Box::pin(async move {
            let schema = self.oltp_schema(settings);
            let name = schema.database();
            say.line(format!("Checking {name} {} tables", super::NAME));
            let inventory = tokio::select! {
                found = schema.inventory(layout.tables) => found?,
                _ = stop.wait() => return Err(Error::Interrupted),
            };
            let Some(found) = inventory else {
                return Ok(vec![Check::fail(
                    format!("database {name}"),
                    "does not exist: buildschema first",
                )]);
            };
            let expected = Expected {
                layout,
                prefix: settings.current().prefix(),
                engine: schema.storage_engine(),
            };
            // The counts run on one connection of the schema's user, whose running query
            // the stop cancels.
            let mut conn = self.oltp_connect(settings, Position::Session).await?;
            let checks = check(&mut conn, found, &expected, &name, stop).await;
            conn.close().await;
            checks
        })
    }

    fn survey<'a>(&'a self, settings: &'a Settings) -> Pending<'a, Result<Survey>> {
        Box::pin(async move { self.oltp_schema(settings).survey().await })
    }

    fn delete<'a>(
        &'a self,
        settings: &'a Settings,
        say: &'a Say,
    ) -> Pending<'a, Result<Vec<String>>> {
        Box::pin(async move { self.oltp_schema(settings).delete(say).await })
    }

    fn drop_tables<'a>(
        &'a self,
        settings: &'a Settings,
        tables: &'a [Table],
        say: &'a Say,
    ) -> Pending<'a, Result<Vec<String>>> {
        Box::pin(async move {
            let schema = self.oltp_schema(settings);
            let conn = schema.owner_conn().await?;
            super::cleanup::drop_tables(conn, tables, &schema.database(), say).await
        })
    }

    fn connect<'a>(
        &'a self,
        settings: &'a Settings,
        at: Position,
    ) -> Pending<'a, Result<ScriptConn, DbError>> {
        self.oltp_connect(settings, at)
    }

    fn peer(&self, settings: &Settings, at: Position) -> Peer {
        self.oltp_peer(settings, at)
    }

    fn run<'a>(
        &'a self,
        settings: &'a Settings,
        opts: Options,
        say: crate::vu::Say,
        states: StateSink,
        interrupt: Interrupt,
    ) -> Pending<'a, Result<Ran>> {
        Box::pin(async move {
            let db = settings.current();
            let driver = self.oltp_driver(settings);
            // The server's transactions, read as the OLTP login (`*_oltp_superuser` on
            // PostgreSQL, `*_oltp_user` on MariaDB/MySQL).
            let source = crate::db::counter_source(
                settings,
                db,
                crate::db::counter::Counting {
                    counted: crate::db::counter::Counted::Transactions,
                    keys: "oltp_",
                },
            );
            let dbname = settings.db(db).get(&db.key("oltp_dbase")).to_string();
            let names = (db.name(), dbname, db.prefix());
            super::run::run(driver, opts, Some(source), names, say, states, interrupt).await
        })
    }
}
