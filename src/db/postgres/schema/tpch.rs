//! The TPROC-H schema on PostgreSQL: the role and database made as for TPROC-C (the same
//! [`PgSchema`] steps, on the `pg_tpch_*` logins), the eight tables, COPY loading through
//! [`PgLoader`], keys, foreign keys and statistics after the load, the inventory
//! `checkschema` reads, and removal.

use super::placement::{reshape, Placement};
use super::statements::{failed, largest_first, parallel, transaction, WORKERS};
use super::{PgLoader, PgSchema};
use crate::config::Settings;
use crate::db::postgres::dialect::PgDialect;
use crate::db::postgres::{connect, PgTarget};
use crate::endpoint::{Destination, Position};
use crate::error::Result;
use crate::sqlfile;
use crate::tpcc::schema::SchemaDb as _;
use crate::tpch::schema::{Loader, Say, SchemaDb, TableFacts};
use crate::tpch::{Table, NAME};

pub(super) const TABLES_SQL: &str = include_str!("../../../../schemas/pg/tproch/tables.sql");
pub(super) const KEYS_SQL: &str = include_str!("../../../../schemas/pg/tproch/keys.sql");
const FOREIGN_SQL: &str = include_str!("../../../../schemas/pg/tproch/foreign.sql");

/// The TPROC-H schema of a PostgreSQL-family database, from its `tpch` dictionary.
pub struct PgTpch {
    base: PgSchema,
}

impl PgTpch {
    /// The TPROC-H schema of `dialect`'s database, in its default tablespace.
    pub fn new(settings: &Settings, dialect: &'static PgDialect) -> Self {
        let db = dialect.database;
        let login = |user, pass, dbname| PgTarget::from_dict(settings, db, user, pass, dbname);
        PgTpch {
            base: PgSchema {
                dialect,
                admin: login("tpch_superuser", "tpch_superuserpass", "tpch_defaultdbase"),
                owner: login("tpch_user", "tpch_pass", "tpch_dbase"),
                to: Destination::of(settings, db),
                tablespace: dialect.defaults().tspace.into(),
                placement: Placement::default(),
                partition: false,
                procedures: false,
                workload: NAME,
                keys: "tpch_",
            },
        }
    }

    /// `pg_tpch_dbase`.
    pub fn dbname(&self) -> &str {
        self.base.db()
    }

    fn owner(&self) -> &PgTarget {
        &self.base.owner
    }

    /// The schema owner's login on the schema's database: where the queries run.
    pub fn owner_target(&self) -> PgTarget {
        self.base.owner.clone()
    }

    /// Bytes per table, to start the longest index builds first.
    async fn table_sizes(&self) -> Result<Vec<(String, i64)>> {
        let conn = connect(self.owner()).await?;
        let sql = "SELECT c.relname::text, pg_total_relation_size(c.oid)
                     FROM pg_class c WHERE c.oid = ANY (
                          SELECT to_regclass(t)::oid FROM unnest($1::text[]) t)";
        let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
        let r = conn.client.query(sql, &[&names]).await;
        conn.close().await;
        let rows =
            r.map_err(|e| failed(&self.owner().peer(), "cannot query", "table sizes", &e))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }
}

impl SchemaDb for PgTpch {
    type Loader = PgLoader;

    fn name(&self) -> &'static str {
        self.base.dialect.database.name()
    }

    fn describe(&self) -> String {
        self.base.describe()
    }

    async fn create(&self, say: &Say) -> Result<()> {
        self.base.make_owner(say).await?;
        let conn = connect(self.owner()).await?;
        say.line("CREATING TPCH TABLES");
        let (tables, _) = reshape(
            sqlfile::split(TABLES_SQL),
            sqlfile::split(KEYS_SQL),
            self.base.dialect.keys_in_create,
            0,
        );
        let r = transaction(&conn, &self.owner().peer(), "cannot create", &tables).await;
        conn.close().await;
        Ok(r?)
    }

    async fn loader(&self, at: Position) -> Result<PgLoader> {
        PgLoader::open(&self.base.loader_target(at)).await
    }

    async fn finish(&self, say: &Say) -> Result<()> {
        let owner = self.owner();
        say.line("CREATING TPCH INDEXES");
        let sizes = self.table_sizes().await?;
        // The primary keys of a dialect that makes them in CREATE TABLE are there already.
        let (_, keys) = reshape(
            Vec::new(),
            sqlfile::split(KEYS_SQL),
            self.base.dialect.keys_in_create,
            0,
        );
        let keys = largest_first(keys, &sizes);
        let server = self.base.server().await?;
        parallel(
            owner,
            server.key_session,
            &keys,
            WORKERS,
            "cannot create keys on",
        )
        .await?;
        say.line("CREATING TPCH FOREIGN KEYS");
        let conn = connect(owner).await?;
        let r = transaction(
            &conn,
            &owner.peer(),
            "cannot create",
            &sqlfile::split(FOREIGN_SQL),
        )
        .await;
        conn.close().await;
        r?;
        say.line("GATHERING SCHEMA STATISTICS");
        let analyze: Vec<String> = largest_first(
            Table::ALL
                .iter()
                .map(|t| format!("ANALYZE {}", t.name()))
                .collect(),
            &sizes,
        );
        parallel(owner, "", &analyze, WORKERS, "cannot analyze").await?;
        say.line("TPCH SCHEMA COMPLETE");
        Ok(())
    }

    fn database(&self) -> String {
        self.dbname().to_string()
    }

    async fn owner_conn(&self) -> Result<crate::sql::ScriptConn> {
        crate::tpcc::schema::SchemaDb::owner_conn(&self.base).await
    }

    async fn size_on_disk(&self) -> Result<u64> {
        self.base.size_on_disk().await
    }

    async fn inventory(&self) -> Result<Option<Vec<TableFacts>>> {
        let admin = &self.base.admin;
        let conn = connect(admin).await?;
        let r = conn
            .client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1::text)",
                &[&self.dbname()],
            )
            .await;
        conn.close().await;
        let exists: bool = r
            .map_err(|e| failed(&admin.peer(), "cannot query", "databases", &e))?
            .get(0);
        if !exists {
            return Ok(None);
        }
        let owner = self.owner();
        let peer = owner.peer();
        let conn = connect(owner).await?;
        let r = async {
            let sql = "SELECT c.relname::text,
                              EXISTS (SELECT 1 FROM pg_constraint k
                                       WHERE k.conrelid = c.oid AND k.contype = 'p'),
                              ARRAY(SELECT lower(i.relname::text) FROM pg_index x
                                      JOIN pg_class i ON i.oid = x.indexrelid
                                     WHERE x.indrelid = c.oid AND NOT x.indisprimary)
                         FROM pg_class c WHERE c.oid = ANY (
                              SELECT to_regclass(t)::oid FROM unnest($1::text[]) t)";
            let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
            let found = conn
                .client
                .query(sql, &[&names])
                .await
                .map_err(|e| failed(&peer, "cannot query", "tables", &e))?;
            let mut facts = Vec::new();
            for row in found {
                let name: String = row.get(0);
                let Some(table) = Table::ALL.into_iter().find(|t| t.name() == name) else {
                    continue;
                };
                facts.push(TableFacts {
                    table,
                    primary_key: row.get(1),
                    indexes: row.get(2),
                });
            }
            Ok::<_, crate::error::Error>(facts)
        }
        .await;
        conn.close().await;
        Ok(Some(r?))
    }

    async fn survey(&self) -> Result<crate::bench::Survey> {
        self.base.survey_db().await
    }

    async fn delete(&self, say: &Say) -> Result<Vec<String>> {
        self.base.delete(say).await
    }
}

impl Loader for PgLoader {
    async fn load(&mut self, table: Table, rows: &[u8]) -> Result<()> {
        self.load_rows(table.table_ref(), rows).await
    }

    async fn close(self) {
        self.close_conn().await;
    }
}
