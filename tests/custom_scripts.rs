//! customscript: users' own Rhai workloads run by every virtual user, on both servers.

mod common;

use common::{Fixture, Servers};

const SCRIPT: &str = r#"
let r = DB.query("select " + VUSER + " as v, 'x' as s, null as n");
print(`vu ${VUSER} it ${ITERATION} got ${r[0][0]} ${r[0][1]} null=${r[0][2] == ()}`);
DB.begin();
DB.execute("create temporary table hammer_custom_t (a int)");
let n = DB.execute("insert into hammer_custom_t values (1), (2)");
DB.rollback();
print(`inserted ${n}`);
DB.execute("drop table if exists hammer_custom_t");
"#;

fn setup(db: &str) -> (Fixture, tempfile::TempDir) {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    // The servers' own databases stand in for a schema: custom scripts need none.
    match db {
        "pg" => f.ok(&format!(
            "dbset db pg; diset tpcc pg_user {}; diset tpcc pg_pass {}; diset tpcc pg_dbase postgres",
            servers.pg_user, servers.pg_pass
        )),
        _ => f.ok("dbset db maria; diset tpcc maria_dbase mysql"),
    };
    let dir = tempfile::tempdir().unwrap();
    (f, dir)
}

fn runs_in_every_virtual_user(db: &str) {
    let (mut f, dir) = setup(db);
    let file = dir.path().join("work.rhai");
    std::fs::write(&file, SCRIPT).unwrap();
    assert_eq!(
        f.ok(&format!("customscript {}", file.display())),
        [format!("Loaded {}", file.display())]
    );
    assert!(f.ok("print script")[0].starts_with("Custom script"));
    f.ok("vuset vu 2; vuset iterations 2; vuset repeat 0; vuset delay 0");
    assert_eq!(f.ok("vucreate")[2], "2 Virtual Users Created");
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    for vu in 1..=2 {
        for it in 1..=2 {
            assert!(
                text.contains(&format!("Vuser {vu}:vu {vu} it {it} got {vu} x null=true")),
                "{text}"
            );
        }
        assert!(
            text.contains(&format!("Vuser {vu}:FINISHED SUCCESS")),
            "{text}"
        );
    }
    assert!(text.contains("Vuser 1:inserted 2"), "{text}");
    assert!(text.contains("ALL VIRTUAL USERS COMPLETE"), "{text}");
    assert_eq!(f.console("vucomplete()").0, Ok("true".to_string()));
    f.ok("vudestroy");
}

#[test]
fn custom_script_on_postgres() {
    runs_in_every_virtual_user("pg");
}

#[test]
fn custom_script_on_mariadb() {
    runs_in_every_virtual_user("maria");
}

#[test]
fn bad_custom_scripts_are_explained() {
    let (mut f, dir) = setup("pg");
    let e = f.err("customscript /no/such/work.rhai");
    assert!(
        e.contains("cannot read /no/such/work.rhai") && e.contains("Usage: customscript"),
        "{e}"
    );
    let bad = dir.path().join("bad.rhai");
    std::fs::write(&bad, "let x = 1;\nlet y = (2 + ;\n").unwrap();
    let e = f.err(&format!("customscript {}", bad.display()));
    assert!(e.starts_with(&format!("{}:2:", bad.display())), "{e}");
    // A script that fails at run time fails its virtual user, with file, line and column.
    let failing = dir.path().join("failing.rhai");
    std::fs::write(
        &failing,
        "print(\"before\");\nDB.query(\"select * from no_such_table_here\");\n",
    )
    .unwrap();
    f.ok(&format!("customscript {}", failing.display()));
    f.ok("vuset vu 1; vuset iterations 1");
    let (r, lines) = f.console("vurun()");
    // A failed virtual user fails the job, and vurun with it.
    let e = r.unwrap_err();
    assert!(
        e.starts_with("Benchmark Run jobid=") && e.ends_with("FAILED: 1 virtual user failed"),
        "{e}"
    );
    let text = lines.join("\n");
    assert!(text.contains("Vuser 1:before"), "{text}");
    assert!(
        text.contains(&format!(
            "Error in Virtual User 1: {}:2:",
            failing.display()
        )),
        "{text}"
    );
    assert!(text.contains("no_such_table_here"), "{text}");
    assert!(text.contains("Vuser 1:FINISHED FAILED"), "{text}");
    assert_eq!(f.ok("vustatus"), ["1 = FINISH FAILED"]);
    f.ok("vudestroy");
}
