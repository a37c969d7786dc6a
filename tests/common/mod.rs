//! Shared fixtures: a session with captured output, the hammer binary, and the test servers.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output as ProcOutput, Stdio};
use std::sync::{Arc, Mutex};

use hammer::output::Output;
use hammer::script::{Outcome, ScriptEngine};
use hammer::session::Session;

/// A script engine on a fresh session whose output is captured and whose settings persist in
/// a temporary directory (dropped with the fixture).
pub struct Fixture {
    pub engine: ScriptEngine,
    pub out: Output,
    pub home: tempfile::TempDir,
    _rt: tokio::runtime::Runtime,
}

impl Fixture {
    pub fn new() -> Self {
        let home = tempfile::tempdir().expect("temp dir");
        Self::in_home(home)
    }

    pub fn in_home(home: tempfile::TempDir) -> Self {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let out = Output::capture();
        let session = Session::new(
            rt.handle().clone(),
            out.clone(),
            Some(home.path().to_path_buf()),
        );
        let engine = ScriptEngine::new(Arc::new(Mutex::new(session)));
        Fixture {
            engine,
            out,
            home,
            _rt: rt,
        }
    }

    /// Runs console input and returns (result text or error message, captured lines).
    pub fn console(&mut self, input: &str) -> (Result<String, String>, Vec<String>) {
        let r = self.engine.eval_console(input);
        let lines = self.out.take_captured();
        let r = match r {
            Ok(Outcome::Value(v)) => Ok(ScriptEngine::show(&v)),
            Ok(Outcome::Quit(code)) => Ok(format!("<quit {code}>")),
            Err(e) => Err(e.message),
        };
        (r, lines)
    }

    /// Runs input that must succeed; returns its output lines.
    pub fn ok(&mut self, input: &str) -> Vec<String> {
        let (r, lines) = self.console(input);
        if let Err(e) = r {
            panic!("{input:?} failed: {e}\noutput: {lines:#?}");
        }
        lines
    }

    /// Runs input that must fail; returns the error message.
    pub fn err(&mut self, input: &str) -> String {
        match self.console(input) {
            (Err(e), _) => e,
            (Ok(v), lines) => panic!("{input:?} should have failed, gave {v:?} and {lines:#?}"),
        }
    }
}

/// `hammer` with a private data directory, the given stdin, and no terminal.
pub fn hammer(home: &Path, args: &[&str], stdin: &str) -> ProcOutput {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_hammer"))
        .args(args)
        .env("HAMMER_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hammer starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("hammer ends")
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The test servers `scripts/ci/servers.sh start` provides (overridable for other set-ups).
pub struct Servers {
    pub pg_host: String,
    pub pg_port: u16,
    pub pg_user: String,
    pub pg_pass: String,
    pub maria_host: String,
    pub maria_port: u16,
    pub maria_socket: String,
    pub maria_user: String,
    pub maria_pass: String,
    /// The second MariaDB (same accounts), for the tests of two servers on one machine.
    pub maria2_port: u16,
    pub maria2_socket: String,
    /// The three Galera nodes (same accounts as MariaDB): node N is index N - 1.
    pub galera_ports: [u16; 3],
    pub galera_sockets: [String; 3],
    /// The hot standby streaming from the PostgreSQL above (same logins, read-only).
    pub pg_standby_port: u16,
    /// The failover pair that `pg-pair sync|async` makes afresh (same superuser).
    pub pair_primary_port: u16,
    pub pair_standby_port: u16,
}

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn port_env(name: &str, default: &str) -> u16 {
    let v = env_or(name, default);
    v.parse()
        .unwrap_or_else(|_| panic!("{name} is {v:?}, which is not a port (1-65535)"))
}

/// Fails the calling test, saying how to start it, when `name` does not accept TCP on
/// `host:port` within 3 seconds.
pub fn require_tcp(name: &str, host: &str, port: u16, start: &str) {
    let addr = format!("{host}:{port}");
    let up = std::net::TcpStream::connect_timeout(
        &addr.parse().expect("test server address is host:port"),
        std::time::Duration::from_secs(3),
    )
    .is_ok();
    assert!(
        up,
        "{name} is not answering on {addr}: start the test servers with `{start}` \
         (or run the suite with scripts/test.sh)"
    );
}

impl Servers {
    pub fn get() -> Self {
        Servers {
            pg_host: env_or("HAMMER_TEST_PG_HOST", "127.0.0.1"),
            pg_port: env_or("HAMMER_TEST_PG_PORT", "5432").parse().expect("port"),
            pg_user: env_or("HAMMER_TEST_PG_USER", "postgres"),
            pg_pass: env_or("HAMMER_TEST_PG_PASS", "postgres"),
            maria_host: env_or("HAMMER_TEST_MARIA_HOST", "127.0.0.1"),
            maria_port: env_or("HAMMER_TEST_MARIA_PORT", "3306")
                .parse()
                .expect("port"),
            maria_socket: env_or("HAMMER_TEST_MARIA_SOCKET", "/tmp/mariadb.sock"),
            maria_user: env_or("HAMMER_TEST_MARIA_USER", "root"),
            maria_pass: env_or("HAMMER_TEST_MARIA_PASS", "maria"),
            maria2_port: env_or("HAMMER_TEST_MARIA2_PORT", "3307")
                .parse()
                .expect("port"),
            maria2_socket: env_or("HAMMER_TEST_MARIA2_SOCKET", "/tmp/mariadb2.sock"),
            galera_ports: [
                port_env("HAMMER_TEST_GALERA1_PORT", "4306"),
                port_env("HAMMER_TEST_GALERA2_PORT", "4307"),
                port_env("HAMMER_TEST_GALERA3_PORT", "4308"),
            ],
            galera_sockets: [
                env_or("HAMMER_TEST_GALERA1_SOCKET", "/tmp/galera1.sock"),
                env_or("HAMMER_TEST_GALERA2_SOCKET", "/tmp/galera2.sock"),
                env_or("HAMMER_TEST_GALERA3_SOCKET", "/tmp/galera3.sock"),
            ],
            pg_standby_port: port_env("HAMMER_TEST_PG_STANDBY_PORT", "5433"),
            pair_primary_port: port_env("HAMMER_TEST_PAIR_PRIMARY_PORT", "5434"),
            pair_standby_port: port_env("HAMMER_TEST_PAIR_STANDBY_PORT", "5435"),
        }
    }

    /// The Galera nodes as `host:port,host:port,host:port`, node 1 first.
    pub fn galera_hosts(&self) -> String {
        self.galera_ports
            .iter()
            .map(|p| format!("{}:{p}", self.maria_host))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The client port of Galera node `node` (1, 2 or 3).
    pub fn galera_port(&self, node: usize) -> u16 {
        assert!(
            (1..=3).contains(&node),
            "Galera node {node}: the nodes are 1, 2 and 3"
        );
        self.galera_ports[node - 1]
    }

    /// Fails the calling test, saying how to start them, when a Galera node does not accept TCP.
    pub fn require_galera(&self) {
        for (i, port) in self.galera_ports.iter().enumerate() {
            require_tcp(
                &format!("Galera node {}", i + 1),
                &self.maria_host,
                *port,
                "scripts/ci/servers.sh start",
            );
        }
    }

    /// Fails the calling test, saying how to start it, when the PostgreSQL standby does not
    /// accept TCP.
    pub fn require_pg_standby(&self) {
        require_tcp(
            "the PostgreSQL standby",
            &self.pg_host,
            self.pg_standby_port,
            "scripts/ci/servers.sh start",
        );
    }

    /// The first column of the one row `sql` returns on Galera node `node` (1, 2 or 3),
    /// as the MariaDB administrator, on database `db` if given.
    pub fn galera_i64(&self, node: usize, db: Option<&str>, sql: &str) -> Option<i64> {
        use mysql_async::prelude::Queryable;
        let (rt, mut conn) = self.maria_on(self.galera_port(node), db);
        rt.block_on(async {
            let n: Option<i64> = conn.query_first(sql).await.expect(sql);
            let _ = conn.disconnect().await;
            n
        })
    }

    /// A wsrep status variable of Galera node `node`, e.g. `wsrep_cluster_size`.
    pub fn galera_status(&self, node: usize, name: &str) -> String {
        use mysql_async::prelude::Queryable;
        let (rt, mut conn) = self.maria_on(self.galera_port(node), None);
        rt.block_on(async {
            let v: Option<String> = conn
                .exec_first(
                    "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS \
                     WHERE VARIABLE_NAME = UPPER(?)",
                    (name,),
                )
                .await
                .expect("wsrep status");
            let _ = conn.disconnect().await;
            v.unwrap_or_default()
        })
    }

    /// Runs each of `statements` on Galera node `node` as the MariaDB administrator.
    pub fn galera_exec(&self, node: usize, statements: &[&str]) {
        use mysql_async::prelude::Queryable;
        let (rt, mut conn) = self.maria_on(self.galera_port(node), None);
        rt.block_on(async {
            for sql in statements {
                conn.query_drop(*sql).await.expect(sql);
            }
            let _ = conn.disconnect().await;
        })
    }

    /// Rhai that points every dictionary at the test servers.
    pub fn configure(&self) -> String {
        format!(
            r#"
            dbset("db", "pg");
            diset("connection", "pg_host", "{}");
            diset("connection", "pg_port", {});
            diset("tpcc", "pg_superuser", "{}");
            diset("tpcc", "pg_superuserpass", "{}");
            dbset("db", "mysql");
            diset("connection", "mysql_host", "{mh}");
            diset("connection", "mysql_port", {mp});
            diset("connection", "mysql_socket", "null");
            diset("tpcc", "mysql_user", "{mu}");
            diset("tpcc", "mysql_pass", "{mw}");
            dbset("db", "maria");
            diset("connection", "maria_host", "{mh}");
            diset("connection", "maria_port", {mp});
            diset("connection", "maria_socket", "{ms}");
            diset("tpcc", "maria_user", "{mu}");
            diset("tpcc", "maria_pass", "{mw}");
            "#,
            self.pg_host,
            self.pg_port,
            self.pg_user,
            self.pg_pass,
            mh = self.maria_host,
            mp = self.maria_port,
            ms = self.maria_socket,
            mu = self.maria_user,
            mw = self.maria_pass,
        )
    }

    /// The first column of the one row `sql` returns, run as the PostgreSQL superuser on
    /// database `db`.
    pub fn pg_i64(&self, db: &str, sql: &str) -> i64 {
        let (rt, conn) = self.pg(db);
        rt.block_on(async {
            let n = conn.client.query_one(sql, &[]).await.expect(sql).get(0);
            conn.close().await;
            n
        })
    }

    /// Runs `sql` (any number of statements) as the PostgreSQL superuser on database `db`.
    pub fn pg_exec(&self, db: &str, sql: &str) {
        let (rt, conn) = self.pg(db);
        rt.block_on(async {
            conn.client.batch_execute(sql).await.expect(sql);
            conn.close().await;
        })
    }

    /// Settings whose `pg` dictionary points at the test PostgreSQL, as its superuser.
    pub fn pg_settings(&self) -> hammer::config::Settings {
        self.pg_settings_at(self.pg_port)
    }

    /// Settings whose `pg` dictionary points at the test PostgreSQL server on `port` (the
    /// primary, its standby, or the failover pair's), as its superuser.
    pub fn pg_settings_at(&self, port: u16) -> hammer::config::Settings {
        use hammer::config::{Database, Settings, Target};
        let mut settings = Settings::defaults();
        let pg = Target::Db(Database::Pg);
        for (section, key, value) in [
            ("connection", "pg_host", self.pg_host.as_str()),
            ("connection", "pg_port", &port.to_string()),
            ("tpcc", "pg_superuser", &self.pg_user),
            ("tpcc", "pg_superuserpass", &self.pg_pass),
        ] {
            settings.set(pg, section, key, value).expect("test setting");
        }
        settings
    }

    /// A runtime and the superuser's connection to database `db`.
    pub fn pg(&self, db: &str) -> (tokio::runtime::Runtime, hammer::db::postgres::PgConn) {
        self.pg_at(self.pg_port, db)
    }

    /// The first column of the one row `sql` returns, as the superuser of the PostgreSQL
    /// server on `port`, on database `db`.
    pub fn pg_i64_at(&self, port: u16, db: &str, sql: &str) -> i64 {
        let (rt, conn) = self.pg_at(port, db);
        rt.block_on(async {
            let n = conn.client.query_one(sql, &[]).await.expect(sql).get(0);
            conn.close().await;
            n
        })
    }

    /// Runs `sql` (any number of statements) as the superuser of the PostgreSQL server on
    /// `port`, on database `db`.
    pub fn pg_exec_at(&self, port: u16, db: &str, sql: &str) {
        let (rt, conn) = self.pg_at(port, db);
        rt.block_on(async {
            conn.client.batch_execute(sql).await.expect(sql);
            conn.close().await;
        })
    }

    /// A runtime and the superuser's connection to database `db` of the PostgreSQL server
    /// on `port`.
    pub fn pg_at(
        &self,
        port: u16,
        db: &str,
    ) -> (tokio::runtime::Runtime, hammer::db::postgres::PgConn) {
        use hammer::db::postgres::{connect, PgTarget};
        let settings = self.pg_settings_at(port);
        let target = PgTarget {
            dbname: db.to_string(),
            ..PgTarget::admin_of(&settings, hammer::config::Database::Pg)
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let conn = rt
            .block_on(connect(&target))
            .unwrap_or_else(|e| panic!("the PostgreSQL superuser connects to port {port}: {e}"));
        (rt, conn)
    }

    /// Runs each of `statements` as the MariaDB administrator on database `db`.
    pub fn maria_exec(&self, db: &str, statements: &[&str]) {
        use mysql_async::prelude::Queryable;
        let (rt, mut conn) = self.maria(Some(db));
        rt.block_on(async {
            for sql in statements {
                conn.query_drop(*sql).await.expect(sql);
            }
            let _ = conn.disconnect().await;
        })
    }

    /// The first column of the one row `sql` returns, run as the MariaDB administrator on
    /// database `db`.
    pub fn maria_i64(&self, db: &str, sql: &str) -> i64 {
        use mysql_async::prelude::Queryable;
        let (rt, mut conn) = self.maria(Some(db));
        rt.block_on(async {
            let n: Option<i64> = conn.query_first(sql).await.expect(sql);
            let _ = conn.disconnect().await;
            n.expect("one row")
        })
    }

    /// Kills every MariaDB session on database `db` (but the administrator's own), as a
    /// server-side `KILL` does to a client; returns how many it killed.
    pub fn maria_kill_sessions(&self, db: &str) -> usize {
        let (rt, mut conn) = self.maria(None);
        rt.block_on(async {
            let killed = maria_kill_others(&mut conn, db).await;
            let _ = conn.disconnect().await;
            killed
        })
    }

    /// A runtime and the MariaDB administrator's connection, on database `db` if given.
    fn maria(&self, db: Option<&str>) -> (tokio::runtime::Runtime, mysql_async::Conn) {
        self.maria_on(self.maria_port, db)
    }

    /// The names of the databases on the MariaDB at `port` (the first or the second).
    pub fn maria_databases(&self, port: u16) -> Vec<String> {
        use mysql_async::prelude::Queryable;
        let (rt, mut conn) = self.maria_on(port, None);
        rt.block_on(async {
            let names: Vec<String> = conn.query("SHOW DATABASES").await.expect("databases");
            let _ = conn.disconnect().await;
            names
        })
    }

    /// Fails the calling test, saying how to start it, when the second MariaDB is not up.
    pub fn require_maria2(&self) {
        let addr = format!("{}:{}", self.maria_host, self.maria2_port);
        let up = std::net::TcpStream::connect_timeout(
            &addr.parse().expect("test server address is host:port"),
            std::time::Duration::from_secs(3),
        )
        .is_ok();
        assert!(
            up && std::path::Path::new(&self.maria2_socket).exists(),
            "the second MariaDB is not answering on {addr} and {}: start the test servers \
             with `scripts/ci/servers.sh start` (or run the suite with scripts/test.sh)",
            self.maria2_socket
        );
    }

    /// A runtime and the administrator's connection to the MariaDB at `port`.
    pub fn maria_on(
        &self,
        port: u16,
        db: Option<&str>,
    ) -> (tokio::runtime::Runtime, mysql_async::Conn) {
        let opts = mysql_async::OptsBuilder::default()
            .ip_or_hostname(self.maria_host.clone())
            .tcp_port(port)
            .user(Some(self.maria_user.clone()))
            .pass(Some(self.maria_pass.clone()))
            .db_name(db);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let conn = rt
            .block_on(mysql_async::Conn::new(opts))
            .expect("the MariaDB administrator connects");
        (rt, conn)
    }

    /// Fails the calling test, saying how to start the servers, when one does not accept TCP.
    pub fn require(&self) {
        for (name, host, port) in [
            ("PostgreSQL", &self.pg_host, self.pg_port),
            ("MariaDB", &self.maria_host, self.maria_port),
        ] {
            let addr = format!("{host}:{port}");
            let up = std::net::TcpStream::connect_timeout(
                &addr.parse().expect("test server address is host:port"),
                std::time::Duration::from_secs(3),
            )
            .is_ok();
            assert!(
                up,
                "{name} is not answering on {addr}: start the test servers with \
                 `scripts/ci/servers.sh start` (or run the suite with scripts/test.sh)"
            );
        }
    }
}

/// Kills every session on MariaDB database `db` but `conn`'s own; returns how many.
pub async fn maria_kill_others(conn: &mut mysql_async::Conn, db: &str) -> usize {
    use mysql_async::prelude::Queryable;
    let ids: Vec<u64> = conn
        .exec(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()",
            (db,),
        )
        .await
        .expect("processlist");
    for id in &ids {
        // A session may end by itself meanwhile.
        let _ = conn.query_drop(format!("KILL {id}")).await;
    }
    ids.len()
}

/// Restarts the test PostgreSQL (data kept) after `delay`, on a thread the caller joins.
pub fn restart_pg_after(delay: std::time::Duration) -> std::thread::JoinHandle<()> {
    stop_pg_for(delay, 0)
}

/// Stops the test PostgreSQL after `delay` and starts it again (data kept) `down` seconds
/// later, on a thread the caller joins.
pub fn stop_pg_for(delay: std::time::Duration, down: u32) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        std::thread::sleep(delay);
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/ci/servers.sh");
        let status = Command::new("bash")
            .args([script, "restart-pg", &down.to_string()])
            .status()
            .expect("bash runs");
        assert!(status.success(), "restart-pg failed");
    })
}

/// A test's own TPROC-H database (and PostgreSQL role), dropped whatever the test did.
pub struct TprochDb {
    pub db: &'static str,
    pub name: String,
}

impl Drop for TprochDb {
    fn drop(&mut self) {
        let servers = Servers::get();
        let n = &self.name;
        if self.db == "pg" {
            // Two round trips: DROP DATABASE cannot share a batch.
            servers.pg_exec(
                "postgres",
                &format!("DROP DATABASE IF EXISTS {n} WITH (FORCE)"),
            );
            servers.pg_exec("postgres", &format!("DROP ROLE IF EXISTS {n}"));
        } else {
            servers.maria_exec("mysql", &[&format!("DROP DATABASE IF EXISTS {n}")]);
        }
    }
}

/// A session on `db` (`pg`, `maria`, `mysql`) under TPROC-H at scale factor 0.01 with two
/// loaders and the live view off, in a database (and PostgreSQL role) of the test's own,
/// named from `tag` and the process id.
pub fn tproch_session(db: &'static str, tag: &str) -> (Fixture, TprochDb) {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let name = format!("hammer_tph_{db}_{tag}_{}", std::process::id());
    f.ok(&format!("dbset db {db}"));
    f.ok("dbset bm TPC-H");
    if db == "pg" {
        f.ok(&format!(
            "diset tpch pg_tpch_superuser {}; diset tpch pg_tpch_superuserpass {}",
            servers.pg_user, servers.pg_pass
        ));
        f.ok(&format!(
            "diset tpch pg_tpch_user {name}; diset tpch pg_tpch_pass tph_pass"
        ));
    } else {
        f.ok(&format!(
            "diset tpch {db}_tpch_user {}; diset tpch {db}_tpch_pass {}",
            servers.maria_user, servers.maria_pass
        ));
    }
    f.ok(&format!("diset tpch {db}_tpch_dbase {name}"));
    f.ok(&format!(
        "diset tpch {db}_scale_fact 0.01; diset tpch {db}_num_tpch_threads 2"
    ));
    f.ok("vuset refreshrate 0");
    (f, TprochDb { db, name })
}

/// [`tproch_session`], with its scale factor 0.01 schema built, and the session's settings
/// (what reaches the schema through `hammer::tpch::bench::support(db)`).
pub fn tproch_built(db: &'static str, tag: &str) -> (Fixture, hammer::config::Settings, TprochDb) {
    let (mut f, cleanup) = tproch_session(db, tag);
    let (r, lines) = f.console("buildschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    let settings = f.engine.session().settings.clone();
    (f, settings, cleanup)
}

/// Runs `scripts/ci/servers.sh` with `args` (e.g. `["galera-kill", "2"]`), waits at most
/// `limit` for it, and fails the calling test with the script's output if it fails or
/// overruns; returns its output.
pub fn servers_sh(args: &[&str], limit: std::time::Duration) -> String {
    use std::io::Read;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/ci/servers.sh");
    let mut child = Command::new("bash")
        .arg(script)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash runs");
    // Drain both pipes on threads, so a talkative script never blocks on a full pipe.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = std::time::Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for servers.sh") {
            break Some(status);
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let text = format!(
        "{}{}",
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default()
    );
    match status {
        Some(s) if s.success() => text,
        Some(s) => panic!(
            "scripts/ci/servers.sh {} failed ({s}):\n{text}",
            args.join(" ")
        ),
        None => panic!(
            "scripts/ci/servers.sh {} did not end within {limit:?}; killed:\n{text}",
            args.join(" ")
        ),
    }
}

/// Fails the calling test when something still accepts TCP on `host:port` (a server that
/// should be down).
pub fn assert_tcp_closed(host: &str, port: u16) {
    let addr = format!("{host}:{port}");
    let up = std::net::TcpStream::connect_timeout(
        &addr.parse().expect("test server address is host:port"),
        std::time::Duration::from_secs(3),
    )
    .is_ok();
    assert!(!up, "something still accepts connections on {addr}");
}

/// How long one servers.sh command may take: the script's own waits are 60 s each.
pub const SERVERS_SH_LIMIT: std::time::Duration = std::time::Duration::from_secs(150);

/// Kills Galera node `node` (SIGKILL); returns once the other nodes go on without it.
pub fn galera_kill(node: usize) -> String {
    servers_sh(&["galera-kill", &node.to_string()], SERVERS_SH_LIMIT)
}

/// Starts Galera node `node` again on its data; returns once it has rejoined and is Synced.
pub fn galera_start(node: usize) -> String {
    servers_sh(&["galera-start", &node.to_string()], SERVERS_SH_LIMIT)
}

/// Makes the failover pair afresh, `sync` or `async`; returns once the standby streams.
pub fn pg_pair(mode: &str) -> String {
    servers_sh(&["pg-pair", mode], SERVERS_SH_LIMIT)
}

/// Stops the pair's primary at once (immediate mode: a crash as far as its data goes).
pub fn pg_pair_kill_primary() -> String {
    servers_sh(&["pg-pair-kill-primary"], SERVERS_SH_LIMIT)
}

/// Promotes the pair's standby; returns once it takes writes.
pub fn pg_pair_promote() -> String {
    servers_sh(&["pg-pair-promote"], SERVERS_SH_LIMIT)
}

/// Stops both servers of the pair.
pub fn pg_pair_stop() -> String {
    servers_sh(&["pg-pair-stop"], SERVERS_SH_LIMIT)
}
