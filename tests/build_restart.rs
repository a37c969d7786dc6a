//! A build whose server restarts in the middle reconnects, loads the lost chunk again and
//! finishes with a consistent schema. Alone in its test binary: restarting PostgreSQL would
//! break any test running beside it, and cargo runs test binaries one after another.

mod common;

use common::{Fixture, Servers};

#[test]
fn a_build_survives_a_server_restart() {
    let servers = Servers::get();
    servers.require();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    let unique = format!("hammer_restart_{}", std::process::id());
    f.ok(&format!(
        "dbset db pg; diset tpcc pg_dbase {unique}; diset tpcc pg_user {unique}"
    ));
    f.ok("diset tpcc pg_count_ware 4; diset tpcc pg_num_vu 1");
    let restarter = common::restart_pg_after(std::time::Duration::from_millis(2_500));
    let (r, lines) = f.console("buildschema().ok");
    restarter.join().unwrap();
    let text = lines.join("\n");
    assert_eq!(r, Ok("true".to_string()), "{text}");
    assert!(
        text.contains("again on a new connection"),
        "the restart came too late to test anything:\n{text}"
    );
    let (r, lines) = f.console("checkschema().ok");
    assert_eq!(r, Ok("true".to_string()), "{}", lines.join("\n"));
    f.ok("deleteschema()");
}
