//! PostgreSQL through tokio-postgres: connection settings from the `pg` dictionary, TLS per
//! `pg_sslmode`, and errors classified with the driver's own SQLSTATE codes.

use tokio::task::JoinHandle;
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Config, NoTls};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{addr, io_failure, io_source, DbError, Failure, Peer, ServerInfo, CONNECT_TIMEOUT};
use crate::config::{Database, Settings};

/// One PostgreSQL login: server, role, password, database and TLS mode.
#[derive(Clone)]
pub struct PgTarget {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub dbname: String,
    pub sslmode: String,
}

impl std::fmt::Debug for PgTarget {
    // Written out so that the password can never reach a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgTarget")
            .field("addr", &addr(&self.host, self.port))
            .field("user", &self.user)
            .field("dbname", &self.dbname)
            .field("sslmode", &self.sslmode)
            .finish()
    }
}

impl PgTarget {
    fn from_dict(settings: &Settings, user: &str, pass: &str, db: &str) -> Self {
        let d = settings.db(Database::Pg);
        PgTarget {
            host: d.get("pg_host").to_string(),
            port: d.get_i64("pg_port") as u16,
            user: d.get(user).to_string(),
            password: d.get(pass).to_string(),
            dbname: d.get(db).to_string(),
            sslmode: d.get("pg_sslmode").to_string(),
        }
    }

    /// The superuser on its default database: what creates schemas and reads server counters.
    pub fn admin(settings: &Settings) -> Self {
        Self::from_dict(
            settings,
            "pg_superuser",
            "pg_superuserpass",
            "pg_defaultdbase",
        )
    }

    /// The schema owner on the schema's database: what the workload runs as.
    pub fn owner(settings: &Settings) -> Self {
        Self::from_dict(settings, "pg_user", "pg_pass", "pg_dbase")
    }

    pub fn peer(&self) -> Peer {
        Peer {
            db: Database::Pg,
            addr: addr(&self.host, self.port),
            user: self.user.clone(),
        }
    }

    fn tls_wanted(&self) -> bool {
        self.sslmode != "disable"
    }

    fn config(&self) -> Config {
        let mut c = Config::new();
        c.host(&self.host)
            .port(self.port)
            .user(&self.user)
            .password(&self.password)
            .dbname(&self.dbname)
            .application_name("hammer")
            .connect_timeout(CONNECT_TIMEOUT)
            .ssl_mode(match self.sslmode.as_str() {
                "disable" => tokio_postgres::config::SslMode::Disable,
                "require" => tokio_postgres::config::SslMode::Require,
                // libpq's `allow` tries plain first; tokio-postgres has no such mode, and
                // trying TLS first only ever adds encryption.
                _ => tokio_postgres::config::SslMode::Prefer,
            });
        c
    }
}

/// A live connection; the task driving its socket ends when the client is dropped.
pub struct PgConn {
    pub client: Client,
    driver: JoinHandle<()>,
}

impl PgConn {
    /// Closes the connection and waits for its socket task to end.
    pub async fn close(self) {
        drop(self.client);
        let _ = self.driver.await;
    }
}

/// Opens a connection, or says in one line why it could not.
pub async fn connect(t: &PgTarget) -> Result<PgConn, DbError> {
    let peer = t.peer();
    let config = t.config();
    let attempt = async {
        if t.tls_wanted() {
            let (client, conn) = config
                .connect(MakeRustlsConnect::new(super::tls::encrypt_only()))
                .await?;
            Ok::<_, tokio_postgres::Error>((client, tokio::spawn(async move { drop(conn.await) })))
        } else {
            let (client, conn) = config.connect(NoTls).await?;
            Ok((client, tokio::spawn(async move { drop(conn.await) })))
        }
    };
    match tokio::time::timeout(CONNECT_TIMEOUT + std::time::Duration::from_secs(1), attempt).await {
        Err(_) => Err(peer.error(
            Failure::Unreachable,
            format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
        )),
        Ok(Err(e)) => {
            let (kind, detail) = classify(&e, t.tls_wanted() && t.sslmode == "require");
            Err(peer.error(kind, detail))
        }
        Ok(Ok((client, driver))) => Ok(PgConn { client, driver }),
    }
}

/// The `Failure` a server error's SQLSTATE means.
pub fn code_failure(code: &str) -> Failure {
    if code == SqlState::INVALID_PASSWORD.code()
        || code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION.code()
    {
        Failure::Auth
    } else if code == SqlState::INVALID_CATALOG_NAME.code() {
        Failure::UnknownDatabase
    } else if code == SqlState::T_R_SERIALIZATION_FAILURE.code()
        || code == SqlState::T_R_DEADLOCK_DETECTED.code()
    {
        Failure::Retry
    } else if code.starts_with("08") || code.starts_with("57P") {
        Failure::Lost
    } else {
        Failure::Other
    }
}

/// Maps a tokio-postgres error to a `Failure` using its SQLSTATE and source chain.
pub fn classify(e: &tokio_postgres::Error, tls_required: bool) -> (Failure, String) {
    if let Some(db) = e.as_db_error() {
        let kind = code_failure(db.code().code());
        return (kind, db.message().to_string());
    }
    if let Some(io) = io_source(e) {
        return (io_failure(io), io.to_string());
    }
    if e.is_closed() {
        return (Failure::Lost, e.to_string());
    }
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if err.downcast_ref::<rustls::Error>().is_some() {
            return (Failure::Tls, e.to_string());
        }
        cur = err.source();
    }
    // With sslmode=require the only remaining driver failure before login is the TLS set-up
    // itself ("server does not support TLS"), which tokio-postgres reports without a code.
    (
        if tls_required {
            Failure::Tls
        } else {
            Failure::Other
        },
        e.to_string(),
    )
}

/// Connects and reads the server's version and whether the session is encrypted.
pub async fn probe(t: &PgTarget) -> Result<ServerInfo, DbError> {
    let conn = connect(t).await?;
    let peer = t.peer();
    let query = "select current_setting('server_version'), \
                 coalesce((select ssl from pg_stat_ssl where pid = pg_backend_pid()), false)";
    let row = conn.client.query_one(query, &[]).await.map_err(|e| {
        let (kind, detail) = classify(&e, false);
        peer.failed("cannot query", kind, detail)
    });
    conn.close().await;
    let row = row?;
    Ok(ServerInfo {
        version: format!("PostgreSQL {}", row.get::<_, String>(0)),
        tls: row.get(1),
        peer,
        port: None,
        note: None,
    })
}
