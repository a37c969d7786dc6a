//! Passwords as the clients keep them, against the real servers: with an empty password key a
//! PostgreSQL login takes `PGPASSWORD` or its `~/.pgpass` line (a file open to others is
//! ignored), a MariaDB login `MYSQL_PWD` or `~/.my.cnf`'s client password; never printed.
//!
//! Each case runs `hammer` as a child whose environment alone holds HOME and the variables, so
//! the tests neither read the machine's own files nor change the test process's environment.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use common::Servers;

/// The login these tests make, on both servers: its own, so no other test's password changes.
const USER: &str = "hammer_pwtest";
const PASSWORD: &str = "pw-Lq7x9Zt2-hammer";

/// The servers, with `USER` able to log in with `PASSWORD` on each (made once per run).
fn servers() -> &'static Servers {
    static MADE: OnceLock<Servers> = OnceLock::new();
    MADE.get_or_init(|| {
        let s = Servers::get();
        s.require();
        s.pg_exec(
            "postgres",
            &format!(
                "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{USER}') \
                 THEN CREATE ROLE {USER} LOGIN; END IF; END $$; \
                 ALTER ROLE {USER} LOGIN PASSWORD '{PASSWORD}'"
            ),
        );
        let mut statements = Vec::new();
        for host in ["%", "localhost", "127.0.0.1"] {
            statements.push(format!(
                "CREATE USER IF NOT EXISTS '{USER}'@'{host}' IDENTIFIED BY '{PASSWORD}'"
            ));
            statements.push(format!(
                "ALTER USER '{USER}'@'{host}' IDENTIFIED BY '{PASSWORD}'"
            ));
        }
        let statements: Vec<&str> = statements.iter().map(String::as_str).collect();
        s.maria_exec("mysql", &statements);
        s
    })
}

/// What a `hammer` child printed.
struct Run {
    stdout: String,
    stderr: String,
}

impl Run {
    fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// `hammer` reading `input` from a pipe, with `home` as HOME (and its data directory inside),
/// none of the password variables of the test process, and `env` on top.
fn hammer(home: &Path, env: &[(&str, &str)], input: &str) -> Run {
    use std::io::Write;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hammer"));
    cmd.env("HOME", home)
        .env("HAMMER_HOME", home.join("hammer"))
        .env_remove("PGPASSWORD")
        .env_remove("PGPASSFILE")
        .env_remove("MYSQL_PWD")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("hammer starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().expect("hammer ends");
    let run = Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    // Wherever the password came from, hammer never prints it.
    assert!(!run.all().contains(PASSWORD), "{}", run.all());
    run
}

/// The PostgreSQL dictionary with `USER` as superuser and owner, `superpass` and `pass` as
/// their keys (`{}` for empty), then `librarycheck`.
fn pg_check(superpass: &str) -> String {
    let s = servers();
    format!(
        "dbset db pg\n\
         diset connection pg_host {}\n\
         diset connection pg_port {}\n\
         diset tpcc pg_superuser {USER}\n\
         diset tpcc pg_superuserpass {superpass}\n\
         diset tpcc pg_defaultdbase postgres\n\
         librarycheck\n",
        s.pg_host, s.pg_port
    )
}

fn pg_answers(run: &Run) -> bool {
    let s = servers();
    let ok = format!(
        "Server {}:{} answers as user {USER}: PostgreSQL",
        s.pg_host, s.pg_port
    );
    let refused = format!(
        "cannot connect to PostgreSQL at {}:{} as user {USER}: authentication failed",
        s.pg_host, s.pg_port
    );
    match (run.stdout.contains(&ok), run.all().contains(&refused)) {
        (true, false) => true,
        (false, true) => false,
        _ => panic!("neither an answer nor a refusal: {}", run.all()),
    }
}

/// A virtual user of a custom script, logging in as the owner (`pg_user`, `pg_pass` empty),
/// says who it is.
fn pg_owner_run(home: &Path) -> String {
    let s = servers();
    let script = home.join("whoami.rhai");
    std::fs::write(
        &script,
        "let r = DB.query(\"select current_user\");\nprint(`I am ${r[0][0]}`);\n",
    )
    .unwrap();
    format!(
        "dbset db pg\n\
         diset connection pg_host {}\n\
         diset connection pg_port {}\n\
         diset tpcc pg_user {USER}\n\
         diset tpcc pg_pass {{}}\n\
         diset tpcc pg_dbase postgres\n\
         customscript {}\n\
         vuset vu 1\nvuset iterations 1\nvuset repeat 0\nvuset delay 0\n\
         vucreate\nvurun\n",
        s.pg_host,
        s.pg_port,
        script.display()
    )
}

fn write_private(path: &Path, text: &str, mode: u32) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn empty_pg_keys_take_pgpassword() {
    let home = tempfile::tempdir().unwrap();
    // Without it the server refuses, and hammer says where it looked.
    let run = hammer(home.path(), &[], &pg_check("{}"));
    assert!(!pg_answers(&run));
    assert!(
        run.all()
            .contains("the dictionary has no password, PGPASSWORD is not set and there is no"),
        "{}",
        run.all()
    );
    let run = hammer(home.path(), &[("PGPASSWORD", PASSWORD)], &pg_check("{}"));
    assert!(pg_answers(&run));
    // A password in the dictionary wins, as libpq's password parameter does.
    let run = hammer(home.path(), &[("PGPASSWORD", PASSWORD)], &pg_check("wrong"));
    assert!(!pg_answers(&run));
    // The owner's login (a virtual user's) too.
    let run = hammer(
        home.path(),
        &[("PGPASSWORD", PASSWORD)],
        &pg_owner_run(home.path()),
    );
    assert!(
        run.stdout.contains(&format!("Vuser 1:I am {USER}")),
        "{}",
        run.all()
    );
}

#[test]
fn empty_pg_keys_take_the_first_matching_pgpass_line() {
    let s = servers();
    let home = tempfile::tempdir().unwrap();
    let (host, port) = (&s.pg_host, s.pg_port);
    write_private(
        &home.path().join(".pgpass"),
        &format!(
            "# hammer's test\n\
             {host}:{port}:*:someone_else:wrong\n\
             other\\:host:*:*:{USER}:wrong\n\
             {host}:{port}:*:{USER}:{PASSWORD}\n\
             *:*:*:*:wrong-later\n"
        ),
        0o600,
    );
    let run = hammer(home.path(), &[], &pg_check("{}"));
    assert!(pg_answers(&run));
    let run = hammer(home.path(), &[], &pg_owner_run(home.path()));
    assert!(
        run.stdout.contains(&format!("Vuser 1:I am {USER}")),
        "{}",
        run.all()
    );
    // PGPASSFILE names another file, which then alone counts.
    let elsewhere = tempfile::tempdir().unwrap();
    let file = elsewhere.path().join("pass");
    write_private(&file, &format!("*:*:*:{USER}:{PASSWORD}\n"), 0o400);
    std::fs::remove_file(home.path().join(".pgpass")).unwrap();
    let run = hammer(
        home.path(),
        &[("PGPASSFILE", file.to_str().unwrap())],
        &pg_check("{}"),
    );
    assert!(pg_answers(&run));
}

#[test]
fn a_pgpass_open_to_others_is_ignored_with_one_warning() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join(".pgpass");
    write_private(&file, &format!("*:*:*:{USER}:{PASSWORD}\n"), 0o640);
    // Two logins, one warning.
    let run = hammer(
        home.path(),
        &[],
        &format!("{}librarycheck\n", pg_check("{}")),
    );
    assert!(!pg_answers(&run));
    let warning = format!(
        "Warning: password file {} has group or world access (mode 0640); it is ignored, \
         as libpq ignores it: chmod 0600 {} to use it",
        file.display(),
        file.display()
    );
    assert_eq!(run.stderr.matches(&warning).count(), 1, "{}", run.stderr);
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let run = hammer(home.path(), &[], &pg_check("{}"));
    assert!(pg_answers(&run));
    assert!(!run.stderr.contains("Warning"), "{}", run.stderr);
}

/// The MariaDB dictionary with `USER` and an empty password over TCP, then `librarycheck`.
fn maria_check() -> String {
    let s = servers();
    format!(
        "dbset db maria\n\
         diset connection maria_host {}\n\
         diset connection maria_port {}\n\
         diset connection maria_socket {{}}\n\
         diset tpcc maria_user {USER}\n\
         diset tpcc maria_pass {{}}\n\
         librarycheck\n",
        s.maria_host, s.maria_port
    )
}

fn maria_answers(run: &Run) -> bool {
    let s = servers();
    let ok = format!(
        "Server {}:{} answers as user {USER}: MariaDB",
        s.maria_host, s.maria_port
    );
    let refused = format!(
        "cannot connect to MariaDB at {}:{} as user {USER}: authentication failed",
        s.maria_host, s.maria_port
    );
    match (run.stdout.contains(&ok), run.all().contains(&refused)) {
        (true, false) => true,
        (false, true) => false,
        _ => panic!("neither an answer nor a refusal: {}", run.all()),
    }
}

#[test]
fn an_empty_maria_key_takes_mysql_pwd() {
    let home = tempfile::tempdir().unwrap();
    let run = hammer(home.path(), &[], &maria_check());
    assert!(!maria_answers(&run));
    let run = hammer(home.path(), &[("MYSQL_PWD", PASSWORD)], &maria_check());
    assert!(maria_answers(&run));
}

#[test]
fn an_empty_maria_key_takes_the_client_password_of_my_cnf() {
    let s = servers();
    let home = tempfile::tempdir().unwrap();
    let cnf = home.path().join(".my.cnf");
    write_private(
        &cnf,
        &format!(
            "[mysqld]\npassword = not-this-one\n\
             [client]\nuser = {USER}\npassword = \"{PASSWORD}\"  # hammer's test\n\
             port = {}\n",
            s.maria_port
        ),
        0o600,
    );
    let run = hammer(home.path(), &[], &maria_check());
    assert!(maria_answers(&run));
    // The file wins over MYSQL_PWD, as in the clients.
    let run = hammer(home.path(), &[("MYSQL_PWD", "wrong")], &maria_check());
    assert!(maria_answers(&run));
    // MariaDB's own client group, later in the file, wins over [client].
    write_private(
        &cnf,
        &format!("[client]\npassword = wrong\n[client-mariadb]\npassword = '{PASSWORD}'\n"),
        0o600,
    );
    assert!(maria_answers(&hammer(home.path(), &[], &maria_check())));
    // A password written for another user or server is not sent.
    for other in ["user = someone_else", "host = db9.invalid", "port = 1"] {
        write_private(
            &cnf,
            &format!("[client]\npassword = {PASSWORD}\n{other}\n"),
            0o600,
        );
        assert!(
            !maria_answers(&hammer(home.path(), &[], &maria_check())),
            "{other}"
        );
    }
    // A file anybody may write is ignored, with a warning.
    write_private(&cnf, &format!("[client]\npassword = {PASSWORD}\n"), 0o666);
    let run = hammer(home.path(), &[], &maria_check());
    assert!(!maria_answers(&run));
    assert!(
        run.stderr.contains(&format!(
            "Warning: option file {} is world-writable (mode 0666); it is ignored",
            cnf.display()
        )),
        "{}",
        run.stderr
    );
}
