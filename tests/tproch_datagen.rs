//! `datagenrun` under TPROC-H as a user runs it: scale factor 0.01 in two parts writes
//! dbgen's own `|`-ended text into `<table>_<part>.tbl` files, with dbgen's row counts, and
//! never overwrites a file.

mod common;

use std::path::Path;

use common::Fixture;
use hammer::tpch::{gen::generate_tbl, Table};

/// dbgen's rows at scale factor 0.01.
const SF001: [(&str, usize); 8] = [
    ("region", 5),
    ("nation", 25),
    ("supplier", 100),
    ("customer", 1_500),
    ("part", 2_000),
    ("partsupp", 8_000),
    ("orders", 15_000),
    ("lineitem", 60_175),
];

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The whole table as dbgen writes it in one part.
fn dbgen_text(table: Table) -> String {
    let mut text = Vec::new();
    generate_tbl(table, 0.01, 1, 1, &mut |buf, _| {
        text.extend(buf);
        true
    });
    String::from_utf8(text).expect("dbgen writes ASCII")
}

#[test]
fn datagenrun_writes_dbgens_files_in_parts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let mut f = Fixture::new();
    f.ok("dbset bm TPC-H");
    f.ok("giset datageneration gen_scale_fact 0.01");
    f.ok("giset datageneration gen_num_vu 2");
    f.ok(&format!("dgset directory {}", d.display()));
    let (r, lines) = f.console("datagenrun");
    let text = lines.join("\n");
    let total: usize = SF001.iter().map(|(_, n)| n).sum();
    assert_eq!(r, Ok(total.to_string()), "{text}");
    assert!(
        text.contains(&format!(
            "Ready to generate the data for a Scale Factor 0.01 PostgreSQL TPROC-H schema in directory {}",
            d.display()
        )),
        "{text}"
    );
    assert!(text.contains("Vuser 1:Generating NATION"), "{text}");
    assert!(
        text.contains("Vuser 3:Generating LINEITEM part 2 of 2"),
        "{text}"
    );
    assert!(
        text.contains("SCALE FACTOR 0.01 TPROC-H SCHEMA GENERATED in ")
            && text.contains(&format!(" MINUTES ({total} rows in 14 files, ")),
        "{text}"
    );

    let mut names: Vec<String> = std::fs::read_dir(d)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2 + 6 * 2, "{names:?}");
    for (table, rows) in SF001 {
        let parts: &[u32] = if matches!(table, "region" | "nation") {
            &[1]
        } else {
            &[1, 2]
        };
        let text: String = parts
            .iter()
            .map(|n| read(d, &format!("{table}_{n}.tbl")))
            .collect();
        assert_eq!(text.lines().count(), rows, "{table}");
        let t = Table::ALL
            .into_iter()
            .find(|t| t.name() == table)
            .expect("a TPC-H table");
        let ncols = t.columns().len();
        assert!(
            text.lines()
                .all(|l| l.ends_with('|') && l.split('|').count() == ncols + 1),
            "{table}"
        );
        // The parts together are the whole table as dbgen writes it.
        assert!(text == dbgen_text(t), "{table}");
    }
    assert_eq!(
        read(d, "nation_1.tbl").lines().next(),
        Some("0|ALGERIA|0| haggle. carefully final deposits detect slyly agai|")
    );
    // Part 2 starts where part 1 ends.
    assert!(read(d, "orders_2.tbl").starts_with("29989|"));

    // A second run never overwrites.
    let e = f.err("datagenrun");
    assert!(
        e.contains("already exists") && e.contains("dgset directory"),
        "{e}"
    );
}

#[test]
fn datagen_scale_factors_are_tproch_ones() {
    let mut f = Fixture::new();
    let e = f.err("giset datageneration gen_scale_fact 2");
    assert!(
        e.contains("Value 2 for datageneration:gen_scale_fact is not valid")
            && e.contains("1|10|30|100|300|1000|3000|10000|30000|100000|0.01|0.1"),
        "{e}"
    );
}
