//! What a job records of its server, checked against the real servers: every recorded setting
//! is what `SHOW` (PostgreSQL) or `SELECT @@GLOBAL.` (MariaDB) says on that server, the
//! durability settings are among them, and the transport is the one the settings asked for;
//! a build's progress lines and its job's record of them. Only the build test creates (and
//! deletes) a schema of its own.

mod common;

use common::{hammer, text, Fixture, Servers};
use hammer::config::{Database, Settings, Target};

/// The durability settings every job of the family must record.
const PG_DURABILITY: &[&str] = &[
    "fsync",
    "synchronous_commit",
    "full_page_writes",
    "wal_level",
];
const MY_DURABILITY: &[&str] = &[
    "innodb_flush_log_at_trx_commit",
    "sync_binlog",
    "innodb_doublewrite",
];

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn with(db: Database, pairs: &[(&str, &str, &str)]) -> Settings {
    let mut settings = Settings::defaults();
    for (section, key, value) in pairs {
        settings
            .set(Target::Db(db), section, key, value)
            .unwrap_or_else(|e| panic!("{key}: {e}"));
    }
    settings
}

fn facts(settings: &Settings, db: Database) -> hammer::db::engine::Facts {
    runtime()
        .block_on(hammer::db::server_facts(settings, db))
        .unwrap_or_else(|e| panic!("{} facts: {e}", db.name()))
}

/// The one text value `sql` returns, as the PostgreSQL superuser.
fn pg_text(servers: &Servers, sql: &str) -> String {
    let (rt, conn) = servers.pg("postgres");
    rt.block_on(async {
        let v: String = conn.client.query_one(sql, &[]).await.expect(sql).get(0);
        conn.close().await;
        v
    })
}

fn pg_settings(s: &Servers, sslmode: &str) -> Settings {
    with(
        Database::Pg,
        &[
            ("connection", "pg_host", &s.pg_host),
            ("connection", "pg_port", &s.pg_port.to_string()),
            ("connection", "pg_sslmode", sslmode),
            ("tpcc", "pg_superuser", &s.pg_user),
            ("tpcc", "pg_superuserpass", &s.pg_pass),
            // A login no one has: no role's own settings come into the values.
            (
                "tpcc",
                "pg_user",
                &format!("hammer_facts_nobody_{}", std::process::id()),
            ),
        ],
    )
}

#[test]
fn postgres_facts_are_what_show_says() {
    let servers = Servers::get();
    servers.require();
    let f = facts(&pg_settings(&servers, "disable"), Database::Pg);
    let names: Vec<&str> = f.settings.iter().map(|(k, _)| k.as_str()).collect();
    for d in PG_DURABILITY
        .iter()
        .chain(&["shared_buffers", "work_mem", "effective_cache_size"])
    {
        assert!(names.contains(d), "{d} is not recorded: {names:?}");
    }
    let (rt, conn) = servers.pg("postgres");
    rt.block_on(async {
        for (name, value) in &f.settings {
            let row = conn
                .client
                .query_one(&format!("SHOW {name}"), &[])
                .await
                .unwrap_or_else(|e| panic!("SHOW {name}: {e}"));
            assert_eq!(value, &row.get::<_, String>(0), "{name}");
        }
        let v: String = conn
            .client
            .query_one("SHOW server_version", &[])
            .await
            .expect("version")
            .get(0);
        assert_eq!(f.version, format!("PostgreSQL {v}"));
        conn.close().await;
    });
    assert_eq!(
        f.transport,
        format!("TCP {}:{}", servers.pg_host, servers.pg_port)
    );
}

#[test]
fn postgres_transport_names_tls_and_its_version() {
    let servers = Servers::get();
    servers.require();
    let f = facts(&pg_settings(&servers, "require"), Database::Pg);
    let (rt, conn) = servers.pg("postgres");
    // The superuser's own session says which TLS version this server speaks to hammer.
    let version: Option<String> = rt.block_on(async {
        let v = conn
            .client
            .query_one(
                "select version from pg_stat_ssl where pid = pg_backend_pid() and ssl",
                &[],
            )
            .await
            .ok()
            .map(|r| r.get(0));
        conn.close().await;
        v
    });
    let version = version.expect("the test PostgreSQL speaks TLS (ssl = on)");
    assert_eq!(
        f.transport,
        format!("{version} over TCP {}:{}", servers.pg_host, servers.pg_port)
    );
}

fn maria_settings(s: &Servers, socket: &str, ssl: bool) -> Settings {
    with(
        Database::Maria,
        &[
            ("connection", "maria_host", &s.maria_host),
            ("connection", "maria_port", &s.maria_port.to_string()),
            ("connection", "maria_socket", socket),
            (
                "connection",
                "maria_ssl",
                if ssl { "true" } else { "false" },
            ),
            ("connection", "maria_ssl_linux_capath", ""),
            ("connection", "maria_ssl_ca", ""),
            ("tpcc", "maria_user", &s.maria_user),
            ("tpcc", "maria_pass", &s.maria_pass),
        ],
    )
}

#[test]
fn mariadb_facts_are_what_select_at_at_says() {
    use mysql_async::prelude::Queryable;
    let servers = Servers::get();
    servers.require();
    let socket = servers.maria_socket.clone();
    assert!(
        std::path::Path::new(&socket).exists(),
        "the MariaDB socket {socket} is missing: start the test servers with \
         `scripts/ci/servers.sh start`"
    );
    let f = facts(&maria_settings(&servers, &socket, false), Database::Maria);
    let names: Vec<&str> = f.settings.iter().map(|(k, _)| k.as_str()).collect();
    for d in MY_DURABILITY
        .iter()
        .chain(&["innodb_buffer_pool_size", "innodb_log_file_size"])
    {
        assert!(names.contains(d), "{d} is not recorded: {names:?}");
    }
    assert_eq!(f.transport, format!("unix socket {socket}"));
    let (rt, mut conn) = servers.maria_on(servers.maria_port, None);
    rt.block_on(async {
        for (name, value) in &f.settings {
            let sql = format!("SELECT CAST(@@GLOBAL.{name} AS CHAR)");
            let got: Option<Option<String>> = conn
                .query_first(&sql)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
            assert_eq!(Some(value.clone()), got.flatten(), "{name}");
        }
        let v: Option<String> = conn.query_first("SELECT version()").await.expect("version");
        assert_eq!(f.version, format!("MariaDB {}", v.unwrap_or_default()));
        let _ = conn.disconnect().await;
    });
    // Over TCP, and over TLS with the version the server reports.
    let tcp = facts(&maria_settings(&servers, "null", false), Database::Maria);
    let addr = format!("{}:{}", servers.maria_host, servers.maria_port);
    assert_eq!(tcp.transport, format!("TCP {addr}"));
    let tls = facts(&maria_settings(&servers, "null", true), Database::Maria);
    let (rt, mut conn) = servers.maria_on(servers.maria_port, None);
    let have_tls: Option<(String, String)> = rt.block_on(async {
        let v = conn
            .query_first("SHOW GLOBAL VARIABLES LIKE 'tls_version'")
            .await
            .expect("tls_version");
        let _ = conn.disconnect().await;
        v
    });
    let offered = have_tls.map(|(_, v)| v).unwrap_or_default();
    let (version, over) = tls.transport.split_once(" over ").expect("TLS named");
    assert!(
        version.starts_with("TLSv") && offered.contains(version),
        "{} (server offers {offered})",
        tls.transport
    );
    assert_eq!(over, format!("TCP {addr}"));
}

/// A build of one warehouse shows its progress in plain lines (the output is not a terminal);
/// its job records the facts, and `jobs ID` and `jobs ID system` show them with hammer's
/// version and build; the job's values are the server's.
#[test]
fn a_build_shows_progress_and_its_job_what_it_was_measured_under() {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let unique = format!("hammer_facts_{}", std::process::id());
    f.ok(&format!(
        "dbset db pg; diset tpcc pg_dbase {unique}; diset tpcc pg_user {unique}; \
         diset tpcc pg_count_ware 1; diset tpcc pg_num_vu 1"
    ));
    let (r, lines) = f.console("buildschema().jobid");
    let id = r.unwrap_or_else(|e| panic!("build: {e}\n{}", lines.join("\n")));
    // The captured output is not a terminal: plain progress lines, each loader's last one
    // with its rows and rate, then the total, before the summary.
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix) && l.contains(" rows/s, done"))
            .unwrap_or_else(|| panic!("no {prefix:?} line:\n{}", lines.join("\n")))
    };
    let item = at("Loading item: 100000 rows in ");
    let warehouse = at("Loading warehouse 1: ");
    let all = at("Loading all: ");
    assert!(item < all && warehouse < all, "{}", lines.join("\n"));
    let summary = lines
        .iter()
        .position(|l| l.contains("schema built"))
        .unwrap_or_else(|| panic!("no summary:\n{}", lines.join("\n")));
    assert!(all < summary, "{}", lines.join("\n"));
    let id = id.trim_matches('"').to_string();
    let build = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let (fsync, transport, built_by) = (
        f.console(&format!("jobs(\"{id}\", \"system\").server_settings.fsync"))
            .0,
        f.console(&format!("jobs(\"{id}\", \"system\").transport"))
            .0,
        f.console(&format!("jobs(\"{id}\", \"system\").hammer_build"))
            .0,
    );
    let show_fsync = pg_text(&servers, "SHOW fsync");
    assert_eq!(fsync, Ok(show_fsync.clone()));
    // The settings' default pg_sslmode (prefer), as the superuser's own session has it.
    let tls = pg_text(
        &servers,
        "select coalesce((select version from pg_stat_ssl where pid = pg_backend_pid() \
         and ssl), '')",
    );
    let addr = format!("TCP {}:{}", servers.pg_host, servers.pg_port);
    let expected = if tls.is_empty() {
        addr
    } else {
        format!("{tls} over {addr}")
    };
    assert_eq!(transport, Ok(expected));
    assert_eq!(built_by, Ok(build.to_string()));
    f.ok("jobs format text");
    let summary = f.ok(&format!("jobs {id}")).join("\n");
    assert!(
        summary.contains(&format!("fsync={show_fsync}")),
        "{summary}"
    );
    let hammer_line = format!("hammer {} ({build} build)", env!("CARGO_PKG_VERSION"));
    assert!(summary.contains(&hammer_line), "{summary}");
    let system = text(&hammer(f.home.path(), &["jobs", "--text", &id, "system"], "").stdout);
    for key in PG_DURABILITY
        .iter()
        .chain(&["transport", "client", "shared_buffers"])
    {
        assert!(
            system.lines().any(|l| l.starts_with(key)),
            "{key}: {system}"
        );
    }
    f.ok("deleteschema");
}

/// Drops the scratch role when the test ends, passed or not.
struct ScratchRole<'a>(&'a Servers, String);

impl Drop for ScratchRole<'_> {
    fn drop(&mut self) {
        self.0
            .pg_exec("postgres", &format!("DROP ROLE IF EXISTS {}", self.1));
    }
}

/// A value the run's login gets from `ALTER ROLE .. SET` is the one recorded, saying so, and is
/// what `SHOW` says in that login's session.
#[test]
fn postgres_facts_take_the_run_logins_own_settings() {
    let servers = Servers::get();
    servers.require();
    let role = format!("hammer_facts_role_{}", std::process::id());
    servers.pg_exec(
        "postgres",
        &format!(
            "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN PASSWORD 'facts'; \
             ALTER ROLE {role} SET synchronous_commit = 'local'"
        ),
    );
    let _drop = ScratchRole(&servers, role.clone());
    let mut settings = pg_settings(&servers, "disable");
    for (key, value) in [
        ("pg_user", role.as_str()),
        ("pg_pass", "facts"),
        ("pg_dbase", "postgres"),
    ] {
        settings
            .set(Target::Db(Database::Pg), "tpcc", key, value)
            .unwrap_or_else(|e| panic!("{key}: {e}"));
    }
    let f = facts(&settings, Database::Pg);
    let got = f
        .settings
        .iter()
        .find(|(k, _)| k == "synchronous_commit")
        .map(|(_, v)| v.clone());
    assert_eq!(got, Some(format!("local (set for role {role})")));
    let owner = hammer::db::postgres::PgTarget::owner_of(&settings, Database::Pg);
    let show: String = runtime().block_on(async {
        let conn = hammer::db::postgres::connect(&owner)
            .await
            .expect("the scratch role logs in");
        let v = conn
            .client
            .query_one("SHOW synchronous_commit", &[])
            .await
            .expect("show")
            .get(0);
        conn.close().await;
        v
    });
    assert_eq!(show, "local");
}
