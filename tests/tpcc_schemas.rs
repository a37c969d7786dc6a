//! `*_schemas` on the real servers: two identical TPROC-C schemas built, checked, run and
//! deleted as one. The run's virtual users spread over both, each schema's NOPM is its own
//! districts' delta, the schemas' NOPM add up to the TEST RESULT's, and the job keeps the
//! per-schema lines.

mod common;

use common::{Fixture, Servers};

/// The schemas' base name: the databases are `hammer_schemas_t1` and `hammer_schemas_t2`.
const BASE: &str = "hammer_schemas_t";
const N: usize = 2;

fn names() -> Vec<String> {
    (1..=N).map(|i| format!("{BASE}{i}")).collect()
}

/// Drops what the test made, however it ends (deleteschema is what the test checks; this is
/// only the net under it).
struct Cleanup {
    db: &'static str,
}

impl Cleanup {
    fn clean(&self) {
        let s = Servers::get();
        for name in names() {
            if self.db == "pg" {
                s.pg_exec(
                    "postgres",
                    &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
                );
            } else {
                s.maria_exec("mysql", &[&format!("DROP DATABASE IF EXISTS {name}")]);
            }
        }
        if self.db == "pg" {
            s.pg_exec("postgres", &format!("DROP ROLE IF EXISTS {BASE}"));
        }
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = std::panic::catch_unwind(|| self.clean());
    }
}

/// A fixture on the test servers' `db` with two schemas of one warehouse each, nothing left
/// of them from before.
fn configured(db: &'static str) -> (Fixture, Cleanup) {
    let servers = Servers::get();
    servers.require();
    let cleanup = Cleanup { db };
    cleanup.clean();
    let mut f = Fixture::new();
    f.ok(&servers.configure());
    f.ok(&format!(
        "dbset db {db}; diset tpcc {db}_dbase {BASE}; diset tpcc {db}_schemas {N}; \
         diset tpcc {db}_count_ware 1; diset tpcc {db}_num_vu 1"
    ));
    if db == "pg" {
        f.ok(&format!("diset tpcc pg_user {BASE}"));
    }
    (f, cleanup)
}

/// `sum(d_next_o_id)` of schema `name`: one step per committed New-Order.
fn next_orders(db: &str, name: &str) -> i64 {
    let s = Servers::get();
    if db == "pg" {
        s.pg_i64(
            name,
            "SELECT coalesce(sum(d_next_o_id), 0)::bigint FROM district",
        )
    } else {
        s.maria_i64(
            name,
            "SELECT CAST(SUM(d_next_o_id) AS SIGNED) FROM district",
        )
    }
}

/// The schemas' databases that exist on `db`'s server.
fn existing(db: &str) -> Vec<String> {
    let s = Servers::get();
    if db == "pg" {
        names()
            .into_iter()
            .filter(|n| {
                s.pg_i64(
                    "postgres",
                    &format!("SELECT count(*) FROM pg_database WHERE datname = '{n}'"),
                ) == 1
            })
            .collect()
    } else {
        let all = s.maria_databases(s.maria_port);
        names().into_iter().filter(|n| all.contains(n)).collect()
    }
}

/// The number in `line` just before ` NOPM`.
fn nopm_in(line: &str) -> f64 {
    let before = &line[..line.find(" NOPM").expect("a NOPM figure")];
    before
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no NOPM figure in {line}"))
}

fn schemas_end_to_end(db: &'static str) {
    let (mut f, _cleanup) = configured(db);
    let schemas = names();

    // Build: one schema after another, each said as it starts.
    let (r, lines) = f.console("buildschema().ok");
    let text = lines.join("\n");
    assert_eq!(r, Ok("true".to_string()), "{text}");
    for (i, name) in schemas.iter().enumerate() {
        assert!(
            text.contains(&format!("Building schema {name} ({} of {N}) in ", i + 1)),
            "{text}"
        );
    }
    assert!(
        text.contains(&format!(
            "TPROC-C schemas built: {N} schemas ({} .. {}) of 1 warehouses",
            schemas[0], schemas[1]
        )),
        "{text}"
    );
    assert_eq!(existing(db), schemas);
    let fresh: Vec<i64> = schemas.iter().map(|n| next_orders(db, n)).collect();
    assert_eq!(
        fresh,
        vec![10 * 3001; N],
        "each schema: ten districts at 3001"
    );

    // Check: every schema, each named.
    let (r, lines) = f.console("checkschema().ok");
    let text = lines.join("\n");
    assert_eq!(r, Ok("true".to_string()), "{text}");
    assert!(
        text.contains(&format!("Checking schema {} (2 of 2)", schemas[1])),
        "{text}"
    );
    assert!(
        text.contains(&format!("PASS {}: ", schemas[1])),
        "the checks name their schema:\n{text}"
    );
    assert!(
        text.contains(&format!(
            "TPROC-C Schemas {} .. {} have been checked successfully.",
            schemas[0], schemas[1]
        )),
        "{text}"
    );

    // A third schema that was never built: the check names it.
    f.ok(&format!("diset tpcc {db}_schemas 3"));
    let (r, lines) = f.console("checkschema()");
    let text = lines.join("\n");
    let e = r.expect_err("a missing schema fails the check");
    assert!(e.contains(&format!("{BASE}3")), "{e}\n{text}");
    assert!(
        text.contains(&format!("checks failed (in schema {BASE}3)")),
        "{text}"
    );
    f.ok(&format!("diset tpcc {db}_schemas {N}"));

    // Fewer virtual users than schemas: refused before anything runs, naming the keys.
    f.ok(&format!(
        "diset tpcc {db}_driver timed; diset tpcc {db}_rampup 0; diset tpcc {db}_duration 0.2; \
         vuset vu 1; vuset delay 0"
    ));
    let e = f.err("vurun()");
    assert!(
        e.contains(&format!("{db}_schemas is 2")) && e.contains("vuset vu 2"),
        "{e}"
    );

    // The script says the run spans both. Three virtual users: two on the first schema, one
    // on the second, so that the schemas' figures differ and a mix-up shows below.
    f.ok("vuset vu 3; loadscript");
    let script = f.ok("print script").join("\n");
    assert!(
        script.contains(&format!(
            "2: {} .. {}, active virtual user i on schema ((i-1) mod 2)+1",
            schemas[0], schemas[1]
        )),
        "{script}"
    );
    assert!(script.contains("2 schemas"), "{script}");

    // A short timed run over both.
    let before: Vec<i64> = schemas.iter().map(|n| next_orders(db, n)).collect();
    let (r, lines) = f.console("vurun()");
    let text = lines.join("\n");
    let id = r.unwrap_or_else(|e| panic!("{e}\n{text}"));
    let id = id.trim_matches('"').to_string();
    assert!(!text.contains("FINISHED FAILED"), "{text}");
    let after: Vec<i64> = schemas.iter().map(|n| next_orders(db, n)).collect();
    let result = lines
        .iter()
        .find(|l| l.contains("TEST RESULT : System achieved"))
        .unwrap_or_else(|| panic!("no result line\n{text}"));
    let total = nopm_in(result);
    let schema_lines: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("Vuser 1:Schema "))
        .collect();
    assert_eq!(schema_lines.len(), N, "{text}");
    let printed: Vec<f64> = schema_lines.iter().map(|l| nopm_in(l)).collect();
    for (line, name) in schema_lines.iter().zip(&schemas) {
        assert!(line.contains(&format!("Schema {name}: ")), "{text}");
        // TPM of its own where the server counts per database (PostgreSQL), none else.
        assert_eq!(line.contains("PostgreSQL TPM"), db == "pg", "{line}");
    }
    // The lines come right below the TEST RESULT one.
    let at = lines.iter().position(|l| l == result).unwrap();
    assert!(lines[at + 1].contains("Schema ") && lines[at + 2].contains("Schema "));
    if db != "pg" {
        assert!(
            text.contains("TPM is the MariaDB server's total over every schema"),
            "{text}"
        );
    }
    // The schemas' NOPM add up to the total, within the rounding of each line.
    let sum: f64 = printed.iter().sum();
    assert!(
        (sum - total).abs() <= N as f64,
        "schemas {printed:?} against {total}"
    );

    let (r, _) = f.console(
        "let x = lastrun(); let s = x.schemas; \
         [x.nopm, x.tpm, x.seconds, s[0].nopm, s[1].nopm, \
          if \"tpm\" in s[0] { s[0].tpm } else { -1.0 }, \
          if \"tpm\" in s[1] { s[1].tpm } else { -1.0 }]",
    );
    let v: Vec<f64> = r
        .unwrap()
        .trim_matches(['[', ']'])
        .split(", ")
        .map(|x| x.parse().unwrap())
        .collect();
    let (nopm, tpm, seconds) = (v[0], v[1], v[2]);
    assert_eq!(nopm.round(), total, "lastrun's NOPM is the printed one");
    for i in 0..N {
        let schema_nopm = v[3 + i];
        assert!(schema_nopm > 0.0, "{}: no new orders\n{text}", schemas[i]);
        assert_eq!(schema_nopm.round(), printed[i], "{}", schemas[i]);
        // The schema's NOPM is its own districts' delta over the measured window: within
        // what the database gained over the whole run, short of it only by the orders
        // before the first reading and after the last (a few per virtual user).
        let window = schema_nopm * seconds / 60.0;
        let whole = (after[i] - before[i]) as f64;
        assert!(
            window <= whole + 1e-6 && whole - window <= 6.0 + whole * 0.1,
            "{}: window delta {window:.1} against the run's {whole}",
            schemas[i]
        );
    }
    let schema_tpm = [v[5], v[6]];
    if db == "pg" {
        assert!(schema_tpm.iter().all(|t| *t > 0.0), "{schema_tpm:?}");
        let sum: f64 = schema_tpm.iter().sum();
        assert!(
            (sum - tpm).abs() < 1e-6 * tpm.max(1.0),
            "{schema_tpm:?} against {tpm}"
        );
    } else {
        assert_eq!(schema_tpm, [-1.0, -1.0], "no per-schema TPM on MariaDB");
    }

    // The job keeps the per-schema lines with its output, and says it spans both schemas.
    let (r, _) = f.console(&format!(
        r#"let o = jobs("{id}", "output"); let n = 0; for l in o {{ if l.line.contains("Schema {BASE}") {{ n += 1; }} }}; [n, jobs("{id}").mode]"#
    ));
    let r = r.unwrap();
    assert!(
        r.starts_with(&format!("[{N}, ")) && r.contains("2 schemas"),
        "{r}"
    );
    f.ok("vudestroy");

    // Delete: both, each said.
    let (r, lines) = f.console("deleteschema()");
    let text = lines.join("\n");
    assert!(r.is_ok(), "{r:?}\n{text}");
    for name in &schemas {
        assert!(
            text.contains(&format!("TPROC-C database {name} with")),
            "{text}"
        );
        assert!(
            text.to_lowercase().contains(&format!(
                "{name} tproc-c schema has been deleted successfully"
            )),
            "{text}"
        );
    }
    assert!(existing(db).is_empty(), "{text}");
    if db == "pg" {
        let roles = Servers::get().pg_i64(
            "postgres",
            &format!("SELECT count(*) FROM pg_roles WHERE rolname = '{BASE}'"),
        );
        assert_eq!(
            roles, 0,
            "the role hammer made goes with the last schema:\n{text}"
        );
    }
}

#[test]
fn two_schemas_on_postgresql() {
    schemas_end_to_end("pg");
}

#[test]
fn two_schemas_on_mariadb() {
    schemas_end_to_end("maria");
}
