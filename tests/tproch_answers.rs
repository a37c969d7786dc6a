//! The 22 TPROC-H queries of each dialect, run with the specification's validation parameters
//! on a scale factor 0.01 schema on the real servers, give the published answers; and run with
//! the values streams draw.

mod common;

use std::time::{Duration, Instant};

use hammer::config::Database;
use hammer::tpch::answers::{compare, has_answers};
use hammer::tpch::params::{order, random, validation};
use hammer::tpch::queries::Queries;
use rand::rngs::SmallRng;
use rand::SeedableRng;

const SF: f64 = 0.01;

/// Builds a scale factor 0.01 TPROC-H schema on `db` in a database (and PostgreSQL role) of
/// the test's own; returns the settings that reach it.
fn built(db: &'static str) -> (hammer::config::Settings, common::TprochDb) {
    let (_f, settings, cleanup) = common::tproch_built(db, "answers");
    (settings, cleanup)
}

/// Runs the 22 queries of `db`'s dialect with the validation parameters and compares each with
/// the published answer; every difference and every failure fails the test, after all ran.
fn answers_on(db: &'static str, database: Database) {
    assert!(has_answers(SF));
    let (settings, _cleanup) = built(db);
    let support = hammer::tpch::bench::support(database).expect("the engine offers TPROC-H");
    let queries = Queries::parse(support.queries_sql()).unwrap_or_else(|e| panic!("{e}"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let (failures, times) = rt.block_on(async {
        let mut conn = support
            .connect(&settings, hammer::endpoint::Position::Session)
            .await
            .unwrap_or_else(|e| panic!("the schema's user connects: {e}"));
        let mut failures = Vec::new();
        let mut times = Vec::new();
        for q in 1..=22u8 {
            let start = Instant::now();
            let mut rows = None;
            for s in queries.statements(q, &validation(q, SF), 1) {
                let ran = if s.returns_rows {
                    conn.query(&s.sql).await.map(|r| rows = Some(r))
                } else {
                    conn.execute(&s.sql).await.map(|_| ())
                };
                if let Err(e) = ran {
                    failures.push(format!("query {q} failed: {e}\n{}", s.sql));
                }
            }
            times.push((q, start.elapsed()));
            if let Some(rows) = rows {
                if let Err(e) = compare(q, SF, &rows) {
                    failures.push(e);
                }
            }
        }
        // The values a stream draws run too: two streams' sets, in their order.
        let mut rng = SmallRng::seed_from_u64(u64::from(std::process::id()));
        for stream in [1, 2] {
            for q in order(stream) {
                let p = random(q, SF, &mut rng);
                for s in queries.statements(q, &p, stream) {
                    let ran = if s.returns_rows {
                        conn.query(&s.sql).await.map(|_| ())
                    } else {
                        conn.execute(&s.sql).await.map(|_| ())
                    };
                    if let Err(e) = ran {
                        failures.push(format!("stream {stream} query {q} {p:?} failed: {e}"));
                    }
                }
            }
        }
        conn.close().await;
        (failures, times)
    });
    let total: Duration = times.iter().map(|(_, t)| *t).sum();
    let shown: Vec<String> = times
        .iter()
        .map(|(q, t)| format!("Q{q} {:.3}s", t.as_secs_f64()))
        .collect();
    println!(
        "{db}: 22 queries in {:.2}s: {}",
        total.as_secs_f64(),
        shown.join(", ")
    );
    assert!(failures.is_empty(), "{db}:\n{}", failures.join("\n"));
    // Seconds, not minutes, at this scale: a plan gone quadratic shows here.
    assert!(
        total < Duration::from_secs(60),
        "{db}: {}",
        shown.join(", ")
    );
}

#[test]
fn postgresql_gives_the_published_answers_at_scale_factor_001() {
    answers_on("pg", Database::Pg);
}

#[test]
fn mariadb_gives_the_published_answers_at_scale_factor_001() {
    answers_on("maria", Database::Maria);
}
