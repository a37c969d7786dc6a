//! Real-server tests: librarycheck against the PostgreSQL and MariaDB that `.ci/run` starts,
//! with TLS on and off, the MariaDB socket, and each kind of connection failure.

mod common;

use common::{Fixture, Servers};

/// A fixture already pointed at the test servers.
fn configured() -> (Fixture, Servers) {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    (f, servers)
}

/// Runs librarycheck and returns its map as a Rhai expression's text plus the printed lines.
fn check(f: &mut Fixture, expr: &str) -> (String, String) {
    let (r, lines) = f.console(&format!("let r = librarycheck(); {expr}"));
    (r.expect("librarycheck runs"), lines.join("\n"))
}

#[test]
fn librarycheck_reads_each_servers_version() {
    let (mut f, s) = configured();
    let (r, text) = check(
        &mut f,
        "[r.pg.ok, r.maria.ok, r.mysql.ok, r.pg.version, r.maria.version, r.mysql.version]",
    );
    // The MySQL dictionary reaches a MariaDB here: the server is named as what it is.
    assert!(!r.contains("\"MySQL "), "{r}");
    assert_eq!(r.matches("\"MariaDB ").count(), 2, "{r}");
    assert!(
        r.starts_with("[true, true, true, \"PostgreSQL 15"),
        "{r}\n{text}"
    );
    assert!(r.contains("MariaDB"), "{r}");
    assert!(
        text.contains("Checking database library for PostgreSQL"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "Server {}:{} answers as user {}: PostgreSQL 15",
            s.pg_host, s.pg_port, s.pg_user
        )),
        "{text}"
    );
    // MariaDB's socket is used where it exists; the MySQL dictionary was pointed at TCP.
    assert!(
        text.contains(&format!(
            "Server {} answers as user {}",
            s.maria_socket, s.maria_user
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "Server {}:{} answers as user {}",
            s.maria_host, s.maria_port, s.maria_user
        )),
        "{text}"
    );
}

#[test]
fn pg_sslmode_is_honoured() {
    let (mut f, _) = configured();
    f.ok("dbset db pg; diset connection pg_sslmode require");
    assert_eq!(check(&mut f, "r.pg.tls").0, "true");
    f.ok("diset connection pg_sslmode disable");
    assert_eq!(check(&mut f, "r.pg.tls").0, "false");
    f.ok("diset connection pg_sslmode prefer");
    assert_eq!(check(&mut f, "r.pg.tls").0, "true");
}

#[test]
fn pg_verify_full_checks_the_servers_certificate() {
    let (mut f, s) = configured();
    let dir = std::env::var("HAMMER_CI_DIR").unwrap_or_else(|_| "/tmp/hammer-ci".into());
    let ca = std::path::Path::new(&dir).join("ssl/ca.crt");
    f.ok(&format!(
        "dbset db pg; diset connection pg_sslmode verify-full; diset connection pg_sslrootcert {}",
        ca.display()
    ));
    // The CI certificate names localhost and 127.0.0.1.
    let (r, text) = check(&mut f, "[r.pg.ok, r.pg.tls]");
    assert_eq!(r, "[true, true]", "{text}");
    // The driver's lean connection checks it too.
    let settings = f.engine.session_handle().lock().unwrap().settings.clone();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let admin = hammer::db::postgres::PgTarget::admin_of(&settings, hammer::config::Database::Pg);
    let wire = rt.block_on(hammer::db::postgres::wire::open(&admin));
    assert!(wire.is_ok(), "{:?}", wire.err());
    rt.block_on(wire.unwrap().close());
    // A CA that did not sign the server's certificate: TLS fails, nothing is sent in clear.
    let other = tempfile::NamedTempFile::new().unwrap();
    let cert = rcgen::generate_simple_self_signed(vec![s.pg_host.clone()]).unwrap();
    std::fs::write(other.path(), cert.cert.pem()).unwrap();
    f.ok(&format!(
        "diset connection pg_sslrootcert {}",
        other.path().display()
    ));
    let (r, text) = check(&mut f, "r.pg.error");
    assert!(r.contains("TLS failed"), "{r}\n{text}");
}

#[test]
fn maria_tls_where_asked() {
    let (mut f, s) = configured();
    // TLS needs TCP: a socket connection is local and never encrypted.
    f.ok("dbset db maria; diset connection maria_socket null; diset connection maria_ssl true");
    f.ok("diset connection maria_ssl_ca {}");
    let (r, text) = check(&mut f, "[r.maria.ok, r.maria.tls]");
    assert_eq!(r, "[true, true]", "{text}");
    assert!(
        text.contains(&format!("{}:{}", s.maria_host, s.maria_port)),
        "{text}"
    );
    // A CA file that is not there is a clear TLS error, not a silent downgrade.
    f.ok("diset connection maria_ssl_ca nosuch-ca.pem");
    let (r, text) = check(&mut f, "r.maria.error");
    assert!(
        r.contains("TLS failed") && r.contains("nosuch-ca.pem not found"),
        "{r}\n{text}"
    );
    f.ok("diset connection maria_ssl false");
    assert_eq!(
        check(&mut f, "[r.maria.ok, r.maria.tls]").0,
        "[true, false]"
    );
}

#[test]
fn wrong_password_is_an_authentication_failure_that_hides_the_password() {
    let (mut f, s) = configured();
    f.ok("dbset db pg; diset tpcc pg_superuserpass Wr0ngPa55");
    f.ok("dbset db maria; diset tpcc maria_pass Wr0ngPa55; diset connection maria_socket null");
    let (r, text) = check(&mut f, "[r.pg.error, r.maria.error]");
    assert!(
        text.contains(&format!(
            "Error: cannot connect to PostgreSQL at {}:{} as user {}: authentication failed",
            s.pg_host, s.pg_port, s.pg_user
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "Error: cannot connect to MariaDB at {}:{} as user {}: authentication failed",
            s.maria_host, s.maria_port, s.maria_user
        )),
        "{text}"
    );
    assert!(
        !text.contains("Wr0ngPa55") && !r.contains("Wr0ngPa55"),
        "{text}"
    );
}

#[test]
fn unknown_database_is_named() {
    let (mut f, s) = configured();
    f.ok("dbset db pg; diset tpcc pg_defaultdbase no_such_db_here");
    let (_, text) = check(&mut f, "r.pg.error");
    assert!(
        text.contains(&format!(
            "Error: cannot connect to PostgreSQL at {}:{} as user {}: unknown database",
            s.pg_host, s.pg_port, s.pg_user
        )),
        "{text}"
    );
    assert!(text.contains("no_such_db_here"), "{text}");
}

#[test]
fn an_unreachable_server_is_refused_at_once() {
    let (mut f, _) = configured();
    f.ok("dbset db pg; diset connection pg_port 1");
    let started = std::time::Instant::now();
    let (_, text) = check(&mut f, "r.pg.error");
    assert!(
        text.contains("at 127.0.0.1:1 as user postgres: connection refused"),
        "{text}"
    );
    assert!(
        started.elapsed() < hammer::db::CONNECT_TIMEOUT,
        "took {:?}",
        started.elapsed()
    );
    // The other servers still answer in the same check.
    assert_eq!(check(&mut f, "r.maria.ok").0, "true");
}
