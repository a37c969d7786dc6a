//! The OLTP tables on PostgreSQL: the role and database made as for TPROC-C (the same
//! [`PgSchema`] steps, on the `pg_oltp_*` logins), `sbtest1..N` as sysbench's pgsql driver
//! makes them (`schemas/pg/oltp/tables.sql`), COPY loading through [`PgLoader`], each
//! table's index on `k`, id sequence and statistics after its rows, the inventory
//! `checkschema` reads, and removal.

use super::placement::Placement;
use super::statements::{exec, failed, transaction};
use super::{PgLoader, PgSchema};
use crate::config::Settings;
use crate::db::postgres::dialect::PgDialect;
use crate::db::postgres::{connect, PgTarget};
use crate::endpoint::{Destination, Position};
use crate::error::Result;
use crate::oltp::schema::{Column, Index, Loader, Say, SchemaDb, TableFacts};
use crate::oltp::{Layout, Table, NAME};
use crate::sqlfile::{self, Named};
use crate::tpcc::schema::SchemaDb as _;

const TABLES_SQL: &str = include_str!("../../../../schemas/pg/oltp/tables.sql");

/// The OLTP tables of a PostgreSQL-family database, from its `oltp` dictionary.
pub struct PgOltp {
    base: PgSchema,
}

impl PgOltp {
    /// The OLTP tables of `dialect`'s database, in its default tablespace.
    pub fn new(settings: &Settings, dialect: &'static PgDialect) -> Self {
        let db = dialect.database;
        let login = |user, pass, dbname| PgTarget::from_dict(settings, db, user, pass, dbname);
        PgOltp {
            base: PgSchema {
                dialect,
                admin: login("oltp_superuser", "oltp_superuserpass", "oltp_defaultdbase"),
                owner: login("oltp_user", "oltp_pass", "oltp_dbase"),
                to: Destination::of(settings, db),
                tablespace: dialect.defaults().tspace.into(),
                placement: Placement::default(),
                partition: false,
                procedures: false,
                workload: NAME,
                keys: "oltp_",
            },
        }
    }

    /// `pg_oltp_dbase`.
    pub fn dbname(&self) -> &str {
        self.base.db()
    }

    /// The schema owner's login on the schema's database: where the run's statements go.
    pub fn owner_target(&self) -> PgTarget {
        self.base.owner.clone()
    }

    /// Whether the schema's database exists, asked as the superuser.
    async fn exists(&self) -> Result<bool> {
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
        Ok(
            r.map_err(|e| failed(&admin.peer(), "cannot query", "databases", &e))?
                .get(0),
        )
    }
}

/// `table`'s CREATE TABLE for `layout`, from tables.sql.
fn create_table(sql: &Named, layout: &Layout, table: Table) -> String {
    let id = if layout.auto_inc {
        "SERIAL"
    } else {
        "INTEGER NOT NULL"
    };
    let key = if layout.secondary {
        ""
    } else {
        sql.get("primary_key")
    };
    let n = table.0.to_string();
    sqlfile::render(
        sql.get("create_table"),
        &[("n", &n), ("id", id), ("id_key", key)],
    )
}

/// What `finish_table` runs on `table` after its rows, from tables.sql: each statement with
/// the line said before it, if any.
fn after_load(sql: &Named, layout: &Layout, table: Table) -> Vec<(Option<String>, String)> {
    let n = table.0.to_string();
    let rows = layout.rows().to_string();
    let vars = [("n", n.as_str()), ("rows", rows.as_str())];
    let name = table.name();
    let mut statements = Vec::new();
    if layout.create_secondary {
        statements.push((
            Some(format!("Creating a secondary index on '{name}'...")),
            sqlfile::render(sql.get("secondary_index"), &vars),
        ));
    }
    if layout.secondary {
        statements.push((None, sqlfile::render(sql.get("id_index"), &vars)));
    }
    if layout.auto_inc && layout.rows() > 0 {
        statements.push((None, sqlfile::render(sql.get("id_sequence"), &vars)));
    }
    statements.push((None, sqlfile::render(sql.get("analyze"), &vars)));
    statements
}

/// A type as `format_type` writes it, in the words both families share: `character(120)`
/// is `char(120)`.
fn shared_kind(kind: &str) -> String {
    if let Some(rest) = kind.strip_prefix("character varying") {
        format!("varchar{rest}")
    } else if let Some(rest) = kind.strip_prefix("character") {
        format!("char{rest}")
    } else {
        kind.to_string()
    }
}

impl SchemaDb for PgOltp {
    type Loader = PgLoader;

    fn name(&self) -> &'static str {
        self.base.dialect.database.name()
    }

    fn describe(&self) -> String {
        self.base.describe()
    }

    fn database(&self) -> String {
        self.dbname().to_string()
    }

    fn storage_engine(&self) -> Option<String> {
        None
    }

    async fn create(&self, layout: &Layout, say: &Say) -> Result<()> {
        self.base.make_owner(say).await?;
        let sql = Named::parse(TABLES_SQL);
        let statements: Vec<String> = layout
            .all()
            .map(|t| create_table(&sql, layout, t))
            .collect();
        let conn = connect(&self.base.owner).await?;
        for t in layout.all() {
            say.line(format!("Creating table '{}'...", t.name()));
        }
        // All or none: a failed build leaves no half of the tables.
        let r = transaction(&conn, &self.base.owner.peer(), "cannot create", &statements).await;
        conn.close().await;
        Ok(r?)
    }

    async fn loader(&self, at: Position) -> Result<PgLoader> {
        PgLoader::open(&self.base.loader_target(at)).await
    }

    async fn finish_table(&self, layout: &Layout, table: Table, say: &Say) -> Result<()> {
        let sql = Named::parse(TABLES_SQL);
        let owner = &self.base.owner;
        let peer = owner.peer();
        let conn = connect(owner).await?;
        let r = async {
            for (line, statement) in after_load(&sql, layout, table) {
                if let Some(line) = line {
                    say.line(line);
                }
                exec(&conn, &peer, "cannot finish", table.name(), &statement).await?;
            }
            Ok::<_, crate::fault::DbError>(())
        }
        .await;
        conn.close().await;
        Ok(r?)
    }

    async fn owner_conn(&self) -> Result<crate::sql::ScriptConn> {
        self.base.owner_conn().await
    }

    async fn size_on_disk(&self) -> Result<u64> {
        self.base.size_on_disk().await
    }

    async fn inventory(&self, tables: u32) -> Result<Option<Vec<TableFacts>>> {
        if !self.exists().await? {
            return Ok(None);
        }
        let owner = &self.base.owner;
        let peer = owner.peer();
        let conn = connect(owner).await?;
        let names: Vec<&str> = (1..=tables).map(|n| Table(n).name()).collect();
        let r = async {
            let which = "c.oid = ANY (SELECT to_regclass(t)::oid FROM unnest($1::text[]) t)";
            let columns = format!(
                "SELECT c.relname::text, a.attname::text, format_type(a.atttypid, a.atttypmod),
                        a.attnotnull, pg_get_expr(d.adbin, d.adrelid),
                        a.attidentity <> '' OR coalesce(pg_get_expr(d.adbin, d.adrelid), '')
                            LIKE 'nextval(%'
                   FROM pg_class c
                   JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
                                      AND NOT a.attisdropped
                   LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
                  WHERE {which}
                  ORDER BY c.relname, a.attnum"
            );
            let indexes = format!(
                "SELECT c.relname::text, lower(i.relname::text), x.indisprimary, x.indisunique,
                        ARRAY(SELECT a.attname::text
                                FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                                JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
                               ORDER BY k.ord)
                   FROM pg_class c
                   JOIN pg_index x ON x.indrelid = c.oid
                   JOIN pg_class i ON i.oid = x.indexrelid
                  WHERE {which}
                  ORDER BY c.relname, i.relname"
            );
            let columns = conn.client.query(&columns, &[&names]).await?;
            let indexes = conn.client.query(&indexes, &[&names]).await?;
            Ok::<_, tokio_postgres::Error>((columns, indexes))
        }
        .await;
        conn.close().await;
        let (columns, indexes) = r.map_err(|e| failed(&peer, "cannot query", "tables", &e))?;
        let mut facts: Vec<TableFacts> = Vec::new();
        let mut of = |name: &str| -> Option<usize> {
            let table = Table::parse(name)?;
            if let Some(i) = facts.iter().position(|f| f.table == table) {
                return Some(i);
            }
            facts.push(TableFacts {
                table,
                columns: Vec::new(),
                primary_key: Vec::new(),
                indexes: Vec::new(),
                engine: None,
            });
            Some(facts.len() - 1)
        };
        let mut found_columns = Vec::new();
        for row in &columns {
            let Some(i) = of(&row.get::<_, String>(0)) else {
                continue;
            };
            found_columns.push((
                i,
                Column {
                    name: row.get(1),
                    kind: shared_kind(&row.get::<_, String>(2)),
                    not_null: row.get(3),
                    default: row.get(4),
                    auto_inc: row.get(5),
                },
            ));
        }
        let mut found_indexes = Vec::new();
        for row in &indexes {
            let Some(i) = of(&row.get::<_, String>(0)) else {
                continue;
            };
            let primary: bool = row.get(2);
            let columns: Vec<String> = row.get(4);
            found_indexes.push((i, primary, row.get::<_, String>(1), row.get(3), columns));
        }
        for (i, column) in found_columns {
            facts[i].columns.push(column);
        }
        for (i, primary, name, unique, columns) in found_indexes {
            if primary {
                facts[i].primary_key = columns;
            } else {
                facts[i].indexes.push(Index {
                    name,
                    columns,
                    unique,
                });
            }
        }
        facts.sort_by_key(|f| f.table);
        Ok(Some(facts))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout {
            tables: 2,
            table_size: 1000,
            auto_inc: true,
            secondary: false,
            create_secondary: true,
            empty: false,
        }
    }

    #[test]
    fn the_tables_are_sysbenchs() {
        let sql = Named::parse(TABLES_SQL);
        assert_eq!(
            create_table(&sql, &layout(), Table(2)),
            "CREATE TABLE sbtest2 (\n  id SERIAL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  \
             c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  \
             PRIMARY KEY (id)\n)"
        );
        let plain = Layout {
            auto_inc: false,
            secondary: true,
            ..layout()
        };
        let text = create_table(&sql, &plain, Table(1));
        assert!(text.contains("id INTEGER NOT NULL,"), "{text}");
        assert!(
            text.ends_with("pad CHAR(60) DEFAULT '' NOT NULL\n)"),
            "{text}"
        );
        let after: Vec<String> = after_load(&sql, &layout(), Table(2))
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        assert_eq!(
            after,
            [
                "CREATE INDEX k_2 ON sbtest2(k)",
                "SELECT setval(pg_get_serial_sequence('sbtest2', 'id'), 1000)",
                "ANALYZE sbtest2",
            ]
        );
        let after: Vec<String> = after_load(&sql, &plain, Table(1))
            .into_iter()
            .map(|(_, s)| s)
            .collect();
        assert_eq!(
            after,
            [
                "CREATE INDEX k_1 ON sbtest1(k)",
                "CREATE INDEX xid_1 ON sbtest1(id)",
                "ANALYZE sbtest1",
            ]
        );
        assert_eq!(shared_kind("character(120)"), "char(120)");
        assert_eq!(shared_kind("character varying(5)"), "varchar(5)");
        assert_eq!(shared_kind("integer"), "integer");
    }
}
