//! buildschema, checkschema and deleteschema end to end on the real servers, as a user runs them.

mod common;

use common::{Fixture, Servers};

fn configured(db: &str, name: &str) -> Fixture {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let unique = format!("hammer_cmd_{name}_{}", std::process::id());
    f.ok(&format!("dbset db {db}"));
    f.ok(&format!("diset tpcc {db}_dbase {unique}"));
    if db == "pg" {
        f.ok(&format!("diset tpcc pg_user {unique}"));
    }
    f.ok(&format!(
        "diset tpcc {db}_count_ware 2; diset tpcc {db}_num_vu 2"
    ));
    f
}

fn build_check_delete(db: &str, name: &str) {
    let mut f = configured(db, name);
    let (r, lines) = f.console(
        "let b = buildschema(); [b.ok, b.warehouses, b.rows > 990000, b.bytes_on_disk > 0]",
    );
    let text = lines.join("\n");
    assert_eq!(r, Ok("[true, 2, true, true]".to_string()), "{text}");
    assert!(
        text.contains("Building 2 Warehouses with 3 Virtual Users, 2 active + 1 Monitor VU"),
        "{text}"
    );
    assert!(
        text.contains("Vuser 2:Loading 1 Warehouses start:1 end:1"),
        "{text}"
    );
    assert!(text.contains("Vuser 3:Loading Stock Wid=2"), "{text}");
    assert!(text.contains("ALL VIRTUAL USERS COMPLETE"), "{text}");
    assert!(
        text.contains("TPROC-C schema built: 2 warehouses"),
        "{text}"
    );

    let (r, lines) = f.console("let c = checkschema(); [c.ok, c.failed]");
    assert_eq!(r, Ok("[true, 0]".to_string()), "{}", lines.join("\n"));
    assert!(lines.iter().any(|l| l == "Vuser 1:PASS Check consistency 4: sum(O_OL_CNT) = count(ORDER_LINE) in every district"
        || l.starts_with("Vuser 1:PASS Check consistency 4")), "{lines:#?}");

    // A second build never drops data unasked: it points at deleteschema.
    let e = f.err("buildschema");
    assert!(
        e.contains("exists but is not empty") && e.contains("deleteschema"),
        "{e}"
    );
    let (r, _) = f.console("checkschema().ok");
    assert_eq!(r, Ok("true".to_string()));

    // A checkschema that disagrees with the dictionary is an error of the script, naming the
    // job and the failed check; caught, its checks are still there to read.
    f.ok(&format!("diset tpcc {db}_count_ware 3"));
    let (r, lines) = f.console("checkschema()");
    let e = r.unwrap_err();
    assert!(
        e.starts_with("Schema Check jobid=")
            && e.contains(" FAILED: ")
            && e.contains("warehouse count"),
        "{e}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Vuser 1:FAIL warehouse count")),
        "{lines:#?}"
    );
    let (r, lines) = f.console(
        "let c = (); try { checkschema(); } catch (e) { c = e; } \
         [c.ok, c.failed > 0, c.status, c.kind, c.checks.filter(|k| !k.ok)[0].what, c.jobid.len()]",
    );
    assert_eq!(
        r,
        Ok(r#"[false, true, "FAILED", "check", "warehouse count", 24]"#.to_string()),
        "{lines:#?}"
    );

    let (r, lines) = f.console("deleteschema().len() > 0");
    assert_eq!(r, Ok("true".to_string()), "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("has been deleted successfully")),
        "{lines:#?}"
    );
    // Twice: nothing to delete is said, and is no failure ("delete, then build" on a fresh
    // server works).
    let (r, lines) = f.console("deleteschema()");
    let said = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{said}");
    assert!(
        said.contains("hammer_cmd_")
            && said.contains("does not exist")
            && said.contains("nothing to delete"),
        "{said}"
    );
    let id = lines
        .last()
        .and_then(|l| l.strip_prefix("Schema Delete jobid="))
        .unwrap_or_else(|| panic!("{said}"))
        .to_string();
    let (r, _) = f.console(&format!("jobs(\"{id}\", \"status\").status"));
    assert_eq!(r, Ok("SUCCESS".to_string()));
}

#[test]
fn postgres_build_check_delete() {
    build_check_delete("pg", "pg");
}

#[test]
fn mariadb_build_check_delete() {
    build_check_delete("maria", "maria");
}

#[test]
fn mysql_dictionary_builds_on_the_mariadb_server() {
    let mut f = configured("mysql", "mysql");
    f.ok("diset tpcc mysql_count_ware 1; diset tpcc mysql_num_vu 1");
    let (r, lines) = f.console("buildschema().ok && checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    assert!(
        lines
            .iter()
            .any(|l| l == "Building 1 Warehouses(s) with 1 Virtual User"),
        "{lines:#?}"
    );
    f.ok("deleteschema()");
}

#[test]
fn wrong_superuser_password_and_missing_rights_stop_the_build_cleanly() {
    let mut f = configured("pg", "rights");
    f.ok("diset tpcc pg_superuserpass WrongPass1");
    let e = f.err("buildschema");
    assert!(
        e.contains("authentication failed") && !e.contains("WrongPass1"),
        "{e}"
    );
    f.ok("diset tpcc pg_superuser hammer_nocreate; diset tpcc pg_superuserpass nocreate");
    let e = f.err("buildschema");
    assert!(e.contains("hammer_nocreate"), "{e}");
    let mut m = configured("maria", "rights");
    m.ok("diset connection maria_socket null; diset tpcc maria_user hammer_nocreate; diset tpcc maria_pass nocreate");
    let e = m.err("buildschema");
    assert!(e.contains("hammer_nocreate"), "{e}");
}

#[test]
fn an_unreachable_server_fails_the_build_at_once() {
    let mut f = configured("pg", "unreachable");
    f.ok("diset connection pg_port 1");
    let e = f.err("buildschema");
    assert!(e.contains("connection refused"), "{e}");
}
