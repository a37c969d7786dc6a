//! The TPROC-C schema on PostgreSQL: creation, COPY loading, keys, functions, removal;
//! `checkschema` in `check`, the statements' execution in `statements`.
//!
//! The superuser (`pg_superuser` on `pg_defaultdbase`) makes the role and the database; every
//! table, key and routine is then made by the owner (`pg_user` on `pg_dbase`), so the workload
//! owns what it uses. A role hammer creates carries the comment `created by hammer`: that is
//! how `delete` tells it from a role someone else made, which it never drops or alters.

mod check;
pub mod oltp;
mod placement;
mod statements;
pub mod tpch;

use bytes::Bytes;
use futures_util::SinkExt;

use self::check::check_schema;
use self::placement::{create_database, reshape, Placement};
use self::statements::{
    exec, failed, ident, largest_first, literal, on_db, parallel, transaction, WORKERS,
};
use crate::bench::Survey;
use crate::config::{Database, Settings};
use crate::db::engine::TableRef;
use crate::db::postgres::dialect::{DropDatabase, PgDialect};
use crate::db::postgres::script::PgScript;
use crate::db::postgres::{classify, connect, PgConn, PgTarget};
use crate::endpoint::{Destination, Position};
use crate::error::{Creatable, Error, Result};
use crate::fault::{DbError, Failure, Peer};
use crate::sql::ScriptConn;
use crate::sqlfile;
use crate::tpcc::checks;
use crate::tpcc::fitness::NURAND_TABLE;
use crate::tpcc::schema::{Check, Loader, Say, SchemaDb};
use crate::tpcc::{Constants, Table};

const TABLES_SQL: &str = include_str!("../../../schemas/pg/tprocc/tables.sql");
const PARTITIONS_SQL: &str = include_str!("../../../schemas/pg/tprocc/partitions.sql");
const KEYS_SQL: &str = include_str!("../../../schemas/pg/tprocc/keys.sql");
/// The five transactions, written once; `flavours.sql` makes them functions or procedures.
const ROUTINES_SQL: &str = include_str!("../../../schemas/pg/tprocc/routines.sql");
const FLAVOURS_SQL: &str = include_str!("../../../schemas/pg/tprocc/flavours.sql");
const NURAND_SQL: &str = include_str!("../../../schemas/pg/tprocc/nurand.sql");

/// The comment that marks a role as hammer's own.
const HAMMER_ROLE: &str = "created by hammer";
/// Bytes per COPY data message.
const COPY_CHUNK: usize = 256 * 1024;
/// Partitioning of ORDER_LINE starts at this many warehouses (reference 7.5).
const PARTITION_MIN_W: u32 = 200;

/// HammerDB's PostgreSQL TPROC-C schema, with the settings read when it was made.
pub struct PgSchema {
    /// What differs on this database, whose prefix names the dictionary keys (`pg_tspace`).
    dialect: &'static PgDialect,
    admin: PgTarget,
    owner: PgTarget,
    /// Where the loaders' connections go.
    to: Destination,
    tablespace: String,
    /// YugabyteDB's colocation and tablet splits (none elsewhere).
    placement: Placement,
    partition: bool,
    procedures: bool,
    /// The workload whose schema this is, in messages: `TPROC-C`.
    workload: &'static str,
    /// What the workload's login keys have after the prefix: `tpch_` for `pg_tpch_user`.
    keys: &'static str,
}

impl PgSchema {
    /// The schema of `db`, a database of the PostgreSQL family, with its dialect
    /// ([`PgDialect::of`]); the engine makes it with [`PgSchema::of`].
    pub fn new(settings: &Settings, db: Database) -> Self {
        Self::of(settings, PgDialect::of(db))
    }

    /// The schema of `dialect`'s database, from its dictionary (keys `{prefix}_tspace` and
    /// the like).
    pub fn of(settings: &Settings, dialect: &'static PgDialect) -> Self {
        let db = dialect.database;
        let d = settings.db(db);
        let placement = if dialect.tablets {
            Placement {
                colocation: d.get_bool(&db.key("colocation")),
                tablets: u32::try_from(d.get_i64(&db.key("num_tablets"))).unwrap_or(0),
                tablespace: None,
            }
        } else {
            Placement::default()
        };
        PgSchema {
            dialect,
            admin: PgTarget::admin_of(settings, db),
            owner: PgTarget::owner_of(settings, db),
            to: Destination::of(settings, db),
            tablespace: d.get(&db.key("tspace")).to_string(),
            placement,
            partition: d.get_bool(&db.key("partition")),
            procedures: d.get_bool(&db.key("storedprocs")),
            workload: crate::tpcc::options::NAME,
            keys: "",
        }
    }

    /// A dictionary key of this engine: `pg_superuser` for `superuser`.
    fn key(&self, name: &str) -> String {
        self.dialect.key(&format!("{}{name}", self.keys))
    }

    fn db(&self) -> &str {
        &self.owner.dbname
    }

    fn user(&self) -> &str {
        &self.owner.user
    }

    /// The owner's login for the loader at `at`.
    fn loader_target(&self, at: Position) -> PgTarget {
        self.owner.clone().routed(&self.to.route(at))
    }

    /// The superuser on the schema's database.
    fn admin_on_schema(&self) -> PgTarget {
        on_db(&self.admin, self.db())
    }

    /// What `finish` creates the transactions as, in its message: `CREATING TPCC FUNCTIONS`.
    fn routine_kind(&self) -> &'static str {
        if self.procedures {
            "PROCEDURES"
        } else {
            "FUNCTIONS"
        }
    }
}

/// What the superuser's server says about the role, the database and the superuser's rights.
struct Facts {
    /// What the server is, by its `version()`: it decides how to drop and what roles take.
    server: &'static PgDialect,
    superuser: bool,
    create_role: bool,
    create_db: bool,
    version: i32,
    role_exists: bool,
    role_is_ours: bool,
    db_exists: bool,
    db_owner: Option<String>,
    db_tablespace: Option<String>,
}

impl PgSchema {
    async fn facts(&self, conn: &PgConn, peer: &Peer) -> Result<Facts, DbError> {
        let sql = "SELECT r.rolsuper, r.rolcreaterole, r.rolcreatedb,
                          current_setting('server_version_num')::int,
                          EXISTS (SELECT 1 FROM pg_roles u WHERE u.rolname = $1::text),
                          (SELECT shobj_description(u.oid, 'pg_authid') FROM pg_roles u
                            WHERE u.rolname = $1::text),
                          EXISTS (SELECT 1 FROM pg_database d WHERE d.datname = $2::text),
                          (SELECT pg_get_userbyid(d.datdba)::text FROM pg_database d
                            WHERE d.datname = $2::text),
                          (SELECT t.spcname::text FROM pg_database d
                             JOIN pg_tablespace t ON t.oid = d.dattablespace
                            WHERE d.datname = $2::text),
                          version()
                     FROM pg_roles r WHERE r.rolname = current_user";
        let row = conn
            .client
            .query_one(sql, &[&self.user(), &self.db()])
            .await
            .map_err(|e| failed(peer, "cannot query", "the role and database", &e))?;
        Ok(Facts {
            server: PgDialect::of_server(&row.get::<_, String>(9)),
            superuser: row.get(0),
            create_role: row.get(1),
            create_db: row.get(2),
            version: row.get(3),
            role_exists: row.get(4),
            role_is_ours: row.get::<_, Option<String>>(5).as_deref() == Some(HAMMER_ROLE),
            db_exists: row.get(6),
            db_owner: row.get(7),
            db_tablespace: row.get(8),
        })
    }

    /// Tables already in the schema database, where the owner would create or find them.
    async fn tables_in(&self, conn: &PgConn, peer: &Peer) -> Result<i64, DbError> {
        let sql = "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE n.nspname IN ('public', $1::text) AND c.relkind IN ('r', 'p')";
        let row = conn
            .client
            .query_one(sql, &[&self.user()])
            .await
            .map_err(|e| failed(peer, "cannot query", "tables", &e))?;
        Ok(row.get(0))
    }

    /// Why the owner cannot log in with `pg_pass`, or `None` when it can: only a rejected login
    /// counts. It tries the schema's database when that exists, as the workload will.
    async fn owner_login_refused(&self, facts: &Facts) -> Result<Option<String>, DbError> {
        let db = if facts.db_exists {
            self.db()
        } else {
            &self.admin.dbname
        };
        match connect(&on_db(&self.owner, db)).await {
            Ok(conn) => {
                conn.close().await;
                Ok(None)
            }
            Err(e) if e.kind == Failure::Auth => Ok(Some(e.detail)),
            // Logged in, but not let into that database, for instance.
            Err(e) if e.kind == Failure::Other => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The refusals `create` makes before it changes anything.
    async fn refusals(&self, facts: &Facts, peer: &Peer) -> Result<()> {
        let (admin, user, db) = (&self.admin.user, self.user(), self.db());
        let (superuser, pass, user_key) =
            (self.key("superuser"), self.key("pass"), self.key("user"));
        if facts.db_exists {
            let conn = connect(&self.admin_on_schema()).await?;
            let tables = self.tables_in(&conn, peer).await;
            conn.close().await;
            if tables? > 0 {
                return Err(Error::DatabaseNotEmpty { db: db.to_string() });
            }
        }
        let may_create_role = facts.superuser || facts.create_role;
        if !facts.role_exists && !may_create_role {
            return Err(Error::MayNotCreate {
                admin: admin.clone(),
                key: superuser,
                what: Creatable::Role,
                name: user.to_string(),
            });
        }
        let may_create_db = facts.superuser || facts.create_db;
        if !facts.db_exists && !may_create_db {
            return Err(Error::MayNotCreate {
                admin: admin.clone(),
                key: superuser,
                what: Creatable::Database,
                name: db.to_string(),
            });
        }
        if facts.role_exists && !facts.role_is_ours {
            if let Some(why) = self.owner_login_refused(facts).await? {
                return Err(Error::UserLoginRefused {
                    user: user.to_string(),
                    pass_key: pass,
                    why,
                    user_key,
                });
            }
        }
        Ok(())
    }

    /// Creates or re-uses the role, as the superuser.
    async fn make_role(&self, conn: &PgConn, peer: &Peer, facts: &Facts, say: &Say) -> Result<()> {
        let user = self.user();
        // The owner's password as its logins will send it: the key, else libpq's ways.
        let (role, password) = (ident(user), literal(&self.owner.login_password()));
        if !facts.role_exists {
            let mut sql = format!("BEGIN; CREATE ROLE {role} LOGIN PASSWORD {password};");
            // Without comments on roles (CockroachDB) the role is not marked, and `delete`
            // keeps it as anybody else's.
            if facts.server.role_comments {
                sql.push_str(&format!(
                    " COMMENT ON ROLE {role} IS {};",
                    literal(HAMMER_ROLE)
                ));
            }
            if !facts.superuser {
                // CREATE DATABASE ... OWNER needs a non-superuser to be a member of the owner.
                sql.push_str(&format!(" GRANT {role} TO CURRENT_USER;"));
            }
            sql.push_str(" COMMIT");
            // The statement holds the password: its text never goes into an error.
            return Ok(exec(conn, peer, "cannot create", &format!("role {user}"), &sql).await?);
        }
        say.line(format!("Using existing User {user} for Schema build"));
        // A role of hammer's own gets the password back when it no longer logs in; anybody
        // else's role is never altered (`refusals` stopped the build if it cannot log in).
        if facts.role_is_ours && self.owner_login_refused(facts).await?.is_some() {
            say.line(format!(
                "Resetting the password of User {user}, created by hammer, to {}",
                self.key("pass")
            ));
            let sql = format!("ALTER ROLE {role} LOGIN PASSWORD {password}");
            exec(conn, peer, "cannot alter", &format!("role {user}"), &sql).await?;
        }
        Ok(())
    }

    /// Creates or re-uses the database, as the superuser.
    async fn make_database(
        &self,
        conn: &PgConn,
        peer: &Peer,
        facts: &Facts,
        say: &Say,
    ) -> Result<()> {
        let (user, db) = (self.user(), self.db());
        let what = format!("database {db}");
        let moved = self.dialect.tablespaces
            && self.tablespace != "pg_default"
            && facts.db_tablespace.as_deref() != Some(self.tablespace.as_str());
        if !facts.db_exists {
            say.line(format!("CREATING DATABASE {db} under OWNER {user}"));
            let placement = Placement {
                tablespace: moved.then(|| self.tablespace.clone()),
                ..self.placement.clone()
            };
            let sql = create_database(db, user, &placement);
            exec(conn, peer, "cannot create", &what, &sql).await?;
            return Ok(());
        }
        if self.placement.colocation {
            say.line(format!(
                "Database {db} exists: its colocation is as it was created ({} ignored)",
                self.key("colocation")
            ));
        }
        say.line(format!(
            "Using existing empty Database {db} for Schema build"
        ));
        if facts.db_owner.as_deref() != Some(user) {
            let sql = format!("ALTER DATABASE {} OWNER TO {}", ident(db), ident(user));
            exec(conn, peer, "cannot alter", &what, &sql).await?;
        }
        self.grant_public(user).await?;
        if moved {
            let sql = format!(
                "ALTER DATABASE {} SET TABLESPACE {}",
                ident(db),
                ident(&self.tablespace)
            );
            exec(conn, peer, "cannot alter", &what, &sql).await?;
        }
        Ok(())
    }

    /// Lets the owner create tables in `public` of an existing database where it may not:
    /// PostgreSQL 15+ gives that schema to the database's owner, but an older or restored
    /// database may keep it elsewhere.
    async fn grant_public(&self, user: &str) -> Result<()> {
        let target = self.admin_on_schema();
        let peer = target.peer();
        let conn = connect(&target).await?;
        let r = async {
            let may = conn
                .client
                .query_one(
                    "SELECT has_schema_privilege($1::text, 'public', 'CREATE')
                        AND has_schema_privilege($1::text, 'public', 'USAGE')",
                    &[&user],
                )
                .await
                .map_err(|e| failed(&peer, "cannot query", "schema public", &e))?
                .get::<_, bool>(0);
            if may {
                return Ok(());
            }
            let sql = format!("GRANT USAGE, CREATE ON SCHEMA public TO {}", ident(user));
            exec(&conn, &peer, "cannot grant", "schema public", &sql).await
        }
        .await;
        conn.close().await;
        Ok(r?)
    }

    /// Creates the tables, as the owner, in one transaction: all or none.
    async fn make_tables(&self, warehouses: u32, say: &Say) -> Result<()> {
        let conn = connect(&self.owner).await?;
        let peer = self.owner.peer();
        let partitions =
            self.partition && self.dialect.partitioning && warehouses >= PARTITION_MIN_W;
        let clause = if partitions {
            "PARTITION BY HASH (ol_w_id)"
        } else {
            ""
        };
        let tables = sqlfile::split(&sqlfile::render(TABLES_SQL, &[("partition", clause)]));
        let (mut statements, _) = reshape(
            tables,
            sqlfile::split(KEYS_SQL),
            self.dialect.keys_in_create,
            self.placement.tablets,
        );
        if partitions {
            let n = (warehouses / 100).to_string();
            statements.extend(sqlfile::split(&sqlfile::render(
                PARTITIONS_SQL,
                &[("partitions", &n)],
            )));
        }
        say.line("CREATING TPCC TABLES");
        let r = transaction(&conn, &peer, "cannot create", &statements).await;
        conn.close().await;
        Ok(r?)
    }
}

impl PgSchema {
    /// The role and the database, made or re-used as the superuser (nothing else): what
    /// every workload's schema needs first.
    async fn make_owner(&self, say: &Say) -> Result<()> {
        self.placement
            .check(&self.key("colocation"), &self.key("num_tablets"))?;
        let conn = connect(&self.admin).await?;
        let peer = self.admin.peer();
        say.line(format!("CREATING {} SCHEMA", self.user().to_uppercase()));
        let r = async {
            let facts = self.facts(&conn, &peer).await?;
            if let Some(line) = self.dialect.reached(facts.server, &peer.addr) {
                say.line(line);
            }
            self.refusals(&facts, &peer).await?;
            self.make_role(&conn, &peer, &facts, say).await?;
            self.make_database(&conn, &peer, &facts, say).await
        }
        .await;
        conn.close().await;
        r
    }
}

impl SchemaDb for PgSchema {
    type Loader = PgLoader;

    fn name(&self) -> &'static str {
        self.dialect.database.name()
    }

    fn describe(&self) -> String {
        format!(
            "host {} under user {} in database {}",
            self.owner.peer().addr,
            self.user(),
            self.db()
        )
    }

    async fn create(&self, warehouses: u32, say: &Say) -> Result<()> {
        self.make_owner(say).await?;
        self.make_tables(warehouses, say).await
    }

    async fn loader(&self, at: Position) -> Result<PgLoader> {
        PgLoader::open(&self.loader_target(at)).await
    }

    fn database(&self) -> String {
        self.db().to_string()
    }

    async fn owner_conn(&self) -> Result<ScriptConn> {
        let conn = connect(&self.owner).await?;
        Ok(ScriptConn::new(PgScript {
            conn,
            peer: self.owner.peer(),
        }))
    }

    async fn finish(&self, constants: &Constants, say: &Say) -> Result<()> {
        let owner = &self.owner;
        let peer = owner.peer();

        say.line("CREATING TPCC INDEXES");
        // The primary keys of a dialect that makes them in CREATE TABLE are there already.
        let (_, keys) = reshape(
            Vec::new(),
            sqlfile::split(KEYS_SQL),
            self.dialect.keys_in_create,
            0,
        );
        let sizes = self.table_sizes().await?;
        let keys = largest_first(keys, &sizes);
        let server = self.server().await?;
        parallel(
            owner,
            server.key_session,
            &keys,
            WORKERS,
            "cannot create keys on",
        )
        .await?;

        let routines = self.dialect.routines;
        if routines {
            say.line(format!("CREATING TPCC {}", self.routine_kind()));
        }
        let conn = connect(owner).await?;
        let r = async {
            if routines {
                let sql = routines_sql(self.procedures);
                transaction(&conn, &peer, "cannot create", &sqlfile::split(&sql)).await?;
            }

            let mut statements = vec![format!("DROP TABLE IF EXISTS {NURAND_TABLE}")];
            statements.extend(sqlfile::split(NURAND_SQL));
            statements.push(format!(
                "INSERT INTO {NURAND_TABLE} (c_last, c_id, ol_i_id) VALUES ({}, {}, {})",
                constants.c_last, constants.c_id, constants.ol_i_id
            ));
            transaction(&conn, &peer, "cannot create", &statements).await
        }
        .await;
        conn.close().await;
        r?;

        say.line("GATHERING SCHEMA STATISTICS");
        let analyze: Vec<String> = largest_first(
            Table::ALL
                .iter()
                .map(|t| format!("ANALYZE {}", t.name()))
                .chain([format!("ANALYZE {NURAND_TABLE}")])
                .collect(),
            &sizes,
        );
        parallel(owner, "", &analyze, WORKERS, "cannot analyze").await?;

        say.line(format!("{} SCHEMA COMPLETE", self.user().to_uppercase()));
        Ok(())
    }

    async fn warehouses(&self) -> Result<u32> {
        let conn = connect(&self.owner).await?;
        let r = conn
            .client
            .query_one("SELECT coalesce(max(w_id), 0)::bigint FROM warehouse", &[])
            .await;
        conn.close().await;
        let row = r.map_err(|e| failed(&self.owner.peer(), "cannot count", "warehouses", &e))?;
        Ok(u32::try_from(row.get::<_, i64>(0)).unwrap_or(0))
    }

    async fn size_on_disk(&self) -> Result<u64> {
        let conn = connect(&self.admin).await?;
        let r = conn
            .client
            .query_one("SELECT pg_database_size($1::text)", &[&self.db()])
            .await;
        conn.close().await;
        let row = r.map_err(|e| failed(&self.admin.peer(), "cannot query", "database size", &e))?;
        Ok(u64::try_from(row.get::<_, i64>(0)).unwrap_or(0))
    }

    async fn check(&self, warehouses: u32, say: &Say) -> Result<Vec<Check>> {
        let db = self.db();
        say.line(format!("Checking {db} TPROC-C schema"));
        let mut checks = Vec::new();

        say.line("Check database");
        let conn = connect(&self.admin).await?;
        let r = conn
            .client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1::text)",
                &[&db],
            )
            .await;
        conn.close().await;
        let exists: bool = r
            .map_err(|e| failed(&self.admin.peer(), "cannot query", "databases", &e))?
            .get(0);
        checks.push(checks::database(db, exists));
        if !exists {
            return Ok(checks);
        }

        let conn = match connect(&self.owner).await {
            Ok(conn) => conn,
            Err(e) => {
                checks.push(Check::fail(
                    format!("login as {}", self.user()),
                    e.to_string(),
                ));
                return Ok(checks);
            }
        };
        let count_ware = self.key("count_ware");
        let r = check_schema(
            &self.owner,
            &count_ware,
            self.dialect.routines,
            &conn,
            warehouses,
            say,
            &mut checks,
        )
        .await;
        conn.close().await;
        r?;
        Ok(checks)
    }

    async fn survey(&self) -> Result<Survey> {
        self.survey_db().await
    }

    async fn delete(&self, say: &Say) -> Result<Vec<String>> {
        let (user, db, wl) = (self.user(), self.db(), self.workload);
        if db == self.admin.dbname {
            return Err(Error::AdminDatabase {
                db: db.to_string(),
                key: self.key("defaultdbase"),
            });
        }
        let conn = connect(&self.admin).await?;
        let peer = self.admin.peer();
        let r = async {
            let facts = self.facts(&conn, &peer).await?;
            let mut lines = Vec::new();
            let mut tell = |line: String| {
                say.line(&line);
                lines.push(line);
            };
            let what = format!("database {db}");
            if !facts.db_exists {
                // Not an error: "delete, then build" must work on a fresh server. A role
                // hammer made for a build that never made its database still goes below.
                let role = if facts.role_exists {
                    String::new()
                } else {
                    format!(", nor does role {user}")
                };
                tell(format!(
                    "Database {db} does not exist on {}{role}: nothing to delete",
                    peer.addr
                ));
            } else if facts.server.drop_database == DropDatabase::Cascade {
                let sql = format!("DROP DATABASE {} CASCADE", ident(db));
                exec(&conn, &peer, "cannot drop", &what, &sql).await?;
            } else if matches!(facts.server.drop_database,
                DropDatabase::ForceSince(v) if facts.version >= v)
            {
                let sql = format!("DROP DATABASE {} WITH (FORCE)", ident(db));
                exec(&conn, &peer, "cannot drop", &what, &sql).await?;
            } else {
                // Before 13, sessions still on the database make DROP fail: end them first.
                // Two round trips: DROP DATABASE cannot share a (transaction) batch.
                let sql = format!(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = {}",
                    literal(db)
                );
                exec(&conn, &peer, "cannot drop", &what, &sql).await?;
                let sql = format!("DROP DATABASE {}", ident(db));
                exec(&conn, &peer, "cannot drop", &what, &sql).await?;
            }
            if facts.db_exists {
                tell(format!("{db} {wl} schema has been deleted successfully."));
            }

            if !facts.role_exists {
                return Ok(lines);
            }
            if !facts.role_is_ours {
                tell(format!(
                    "{user} {wl} role was kept: hammer did not create it."
                ));
                return Ok(lines);
            }
            let sql = format!("DROP ROLE {}", ident(user));
            match conn.client.batch_execute(&sql).await {
                Ok(()) => tell(format!("{user} {wl} role has been deleted successfully.")),
                // The database is gone already; a role still owning objects elsewhere stays.
                Err(e) if e.as_db_error().is_some() => {
                    let (_, detail) = classify(&e, false);
                    tell(format!("{user} {wl} role was kept: {detail}"));
                }
                Err(e) => {
                    return Err(failed(&peer, "cannot drop", &format!("role {user}"), &e).into())
                }
            }
            Ok(lines)
        }
        .await;
        conn.close().await;
        r
    }
}

impl PgSchema {
    /// What `delete` would drop, asked of the server as the superuser: the role (dropped
    /// only when hammer made it), the database, every table and view in it, and its size.
    pub(super) async fn survey_db(&self) -> Result<Survey> {
        let (user, db) = (self.user(), self.db());
        if db == self.admin.dbname {
            return Err(Error::AdminDatabase {
                db: db.to_string(),
                key: self.key("defaultdbase"),
            });
        }
        let peer = self.admin.peer();
        let conn = connect(&self.admin).await?;
        let facts = self.facts(&conn, &peer).await;
        conn.close().await;
        let facts = facts?;
        let user = match (facts.role_exists, facts.role_is_ours) {
            (false, _) => format!("no role {user}"),
            (true, true) => format!("role {user}"),
            (true, false) => format!("role {user} (kept: hammer did not create it)"),
        };
        let mut survey = Survey {
            server: format!("{} at {}", self.dialect.database.name(), peer.addr),
            database: db.to_string(),
            database_key: self.key("dbase"),
            user,
            exists: facts.db_exists,
            tables: Vec::new(),
            bytes: 0,
        };
        if !facts.db_exists {
            return Ok(survey);
        }
        // Partitions are their table's: a large ORDER_LINE is one name, not hundreds.
        let tables = "SELECT CASE WHEN n.nspname = 'public' THEN c.relname::text
                                  ELSE n.nspname || '.' || c.relname END
                        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                       WHERE c.relkind IN ('r', 'p', 'f', 'v', 'm') AND NOT c.relispartition
                         AND n.nspname NOT IN ('pg_catalog', 'information_schema')
                         AND n.nspname NOT LIKE 'pg\\_toast%'
                         AND n.nspname NOT LIKE 'pg\\_temp%'
                       ORDER BY 1";
        let target = self.admin_on_schema();
        let conn = connect(&target).await?;
        let r = async {
            let rows = conn.client.query(tables, &[]).await?;
            let size = conn
                .client
                .query_one("SELECT pg_database_size(current_database())", &[])
                .await?;
            Ok::<_, tokio_postgres::Error>((rows, size))
        }
        .await;
        conn.close().await;
        let (rows, size) = r.map_err(|e| failed(&target.peer(), "cannot query", "tables", &e))?;
        survey.tables = rows.iter().map(|r| r.get(0)).collect();
        survey.bytes = u64::try_from(size.get::<_, i64>(0)).unwrap_or(0);
        Ok(survey)
    }

    /// What the server is, asked as the owner: it decides the index builds' settings.
    async fn server(&self) -> Result<&'static PgDialect> {
        let conn = connect(&self.owner).await?;
        let server = PgDialect::of_client(&conn.client).await;
        conn.close().await;
        let peer = self.owner.peer();
        Ok(server.map_err(|e| failed(&peer, "cannot query", "the server's version", &e))?)
    }

    /// Bytes per table, to start the longest index builds first.
    async fn table_sizes(&self) -> Result<Vec<(String, i64)>> {
        let conn = connect(&self.owner).await?;
        let sql = "SELECT c.relname::text, pg_total_relation_size(c.oid)
                     FROM pg_class c WHERE c.oid = ANY (
                          SELECT to_regclass(t)::oid FROM unnest($1::text[]) t)";
        let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
        let r = conn.client.query(sql, &[&names]).await;
        conn.close().await;
        let rows = r.map_err(|e| failed(&self.owner.peer(), "cannot query", "table sizes", &e))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }
}

/// The slots `routines.sql` leaves for `flavours.sql` to fill.
const FLAVOUR_SLOTS: [&str; 8] = [
    "kind",
    "neword_outputs",
    "neword_begin",
    "neword_unused_item",
    "payment_outputs",
    "ostat_outputs",
    "delivery_outputs",
    "slev_outputs",
];

/// The five transactions as procedures or as functions, from the one text of their bodies.
fn routines_sql(procedures: bool) -> String {
    let flavours = sqlfile::Named::parse(FLAVOURS_SQL);
    let suffix = if procedures { "procedure" } else { "function" };
    let values: Vec<(&str, &str)> = FLAVOUR_SLOTS
        .iter()
        .map(|slot| (*slot, flavours.get(&format!("{slot}_{suffix}"))))
        .collect();
    sqlfile::render(ROUTINES_SQL, &values)
}

/// A loading session: the owner on the schema database, without waiting for WAL flushes.
pub struct PgLoader {
    conn: PgConn,
    peer: Peer,
}

impl Loader for PgLoader {
    async fn load(&mut self, table: Table, rows: &[u8]) -> Result<()> {
        self.load_rows(table.table_ref(), rows).await
    }

    async fn close(self) {
        self.conn.close().await;
    }
}

impl PgLoader {
    /// A loading session as `owner`, with the server's loading settings: on PostgreSQL, COPY
    /// without waiting for the WAL flush.
    pub async fn open(owner: &PgTarget) -> Result<PgLoader> {
        let conn = connect(owner).await?;
        let peer = owner.peer();
        // A lost commit costs a reload, not corruption: this is only the initial population.
        let set = async {
            let server = PgDialect::of_client(&conn.client).await?;
            if !server.load_session.is_empty() {
                conn.client.batch_execute(server.load_session).await?;
            }
            Ok::<_, tokio_postgres::Error>(())
        }
        .await;
        if let Err(e) = set {
            conn.close().await;
            return Err(failed(&peer, "cannot set up loading on", "the session", &e).into());
        }
        Ok(PgLoader { conn, peer })
    }

    /// Appends rows (COPY text, columns in `table.columns` order) to a table of any
    /// workload, in one COPY. Committed when it returns.
    pub async fn load_rows(&mut self, table: TableRef, rows: &[u8]) -> Result<()> {
        let name = table.name;
        let sql = format!("COPY {name} ({}) FROM STDIN", table.columns.join(", "));
        let fail = |e: &tokio_postgres::Error| failed(&self.peer, "cannot load into", name, e);
        let sink = self
            .conn
            .client
            .copy_in::<_, Bytes>(sql.as_str())
            .await
            .map_err(|e| fail(&e))?;
        let mut sink = std::pin::pin!(sink);
        for chunk in rows.chunks(COPY_CHUNK) {
            // Dropping the sink on an error sends CopyFail: nothing of this COPY stays.
            sink.send(Bytes::copy_from_slice(chunk))
                .await
                .map_err(|e| fail(&e))?;
        }
        sink.as_mut().finish().await.map_err(|e| fail(&e))?;
        Ok(())
    }

    /// Ends the session and closes its connection.
    pub async fn close_conn(self) {
        self.conn.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::check::ROUTINES;
    use super::*;

    #[test]
    fn both_flavours_come_from_one_text() {
        for procedures in [false, true] {
            let sql = routines_sql(procedures);
            assert!(!sql.contains("{{"), "every slot filled");
            let statements = sqlfile::split(&sql);
            // The DROP of either flavour, then the five routines.
            assert_eq!(statements.len(), 6);
            let kind = if procedures { "PROCEDURE" } else { "FUNCTION" };
            for (name, statement) in ROUTINES.iter().zip(&statements[1..]) {
                assert!(
                    statement.starts_with(&format!("CREATE {kind} {name}(")),
                    "{statement}"
                );
            }
            let bodies = statements.join("\n");
            assert_eq!(bodies.contains("INOUT"), procedures);
            assert_eq!(bodies.contains("ERRCODE = 'HR001'"), !procedures);
            assert_eq!(bodies.contains("rolled_back := 1;"), procedures);
        }
    }

    #[test]
    fn cockroachdbs_and_yugabytedbs_tables_carry_their_primary_keys() {
        use crate::db::postgres::dialect::{COCKROACHDB, POSTGRESQL, YUGABYTEDB};
        let tables = sqlfile::split(&sqlfile::render(TABLES_SQL, &[("partition", "")]));
        for d in [&COCKROACHDB, &YUGABYTEDB] {
            let (made, later) = reshape(
                tables.clone(),
                sqlfile::split(KEYS_SQL),
                d.keys_in_create,
                0,
            );
            assert_eq!(made.len(), 9);
            for t in &made {
                let keyed = t.contains(" PRIMARY KEY (");
                assert_eq!(
                    keyed,
                    !t.starts_with("CREATE TABLE history"),
                    "{}: {t}",
                    d.server
                );
            }
            assert_eq!(later.len(), 2, "{}: the two secondary indexes", d.server);
            assert!(later.iter().all(|k| k.starts_with("CREATE UNIQUE INDEX")));
            // The TPROC-H tables likewise.
            let (made, later) = reshape(
                sqlfile::split(tpch::TABLES_SQL),
                sqlfile::split(tpch::KEYS_SQL),
                d.keys_in_create,
                0,
            );
            assert_eq!(made.iter().filter(|t| t.contains("PRIMARY KEY")).count(), 8);
            assert!(later.iter().all(|k| !k.contains("PRIMARY KEY")));
        }
        let (made, later) = reshape(
            tables,
            sqlfile::split(KEYS_SQL),
            POSTGRESQL.keys_in_create,
            0,
        );
        assert!(made.iter().all(|t| !t.contains("PRIMARY KEY")));
        assert_eq!(later.len(), 10);
    }

    #[test]
    fn every_sql_file_splits_into_statements() {
        for sql in [
            TABLES_SQL,
            PARTITIONS_SQL,
            KEYS_SQL,
            &routines_sql(false),
            &routines_sql(true),
            NURAND_SQL,
        ] {
            assert!(!sqlfile::split(sql).is_empty());
        }
        assert_eq!(sqlfile::split(TABLES_SQL).len(), 9);
    }
}
