//! TPC-H's refresh functions on the real servers: a scale factor 0.01 schema of the test's
//! own, RF1 then RF2 through TPROC-H's query connection leaves ORDERS and LINEITEM exactly
//! as loaded, RF1 adds exactly its rows, and an RF1 run twice (a run stopped between RF1
//! and RF2) neither fails nor leaves anything after its RF2.

mod common;

use common::Servers;
use hammer::config::{Database, Settings};
use hammer::db::engine::ScriptConn;
use hammer::interrupt::Interrupt;
use hammer::output::Output;
use hammer::tpch::build::Plan;
use hammer::tpch::refresh::{new_sales, old_sales, RefreshSql};
use hammer::vu::Say;

const SF: f64 = 0.01;

/// Settings for a TPROC-H schema at scale factor 0.01 on `db`, in a database (and
/// PostgreSQL role) of the test's own on the test servers, dropped with the second value.
fn settings(db: Database) -> (Settings, common::TprochDb) {
    let (f, cleanup) = common::tproch_session(db.prefix(), "rf");
    let settings = f.engine.session().settings.clone();
    (settings, cleanup)
}

/// What the refresh functions may change: per table its rows, the sum and the maximum of its
/// order keys and the sum of its prices, as the server writes them.
#[derive(Debug, Clone, PartialEq)]
struct Fingerprint {
    orders: Vec<Option<String>>,
    lineitem: Vec<Option<String>>,
}

impl Fingerprint {
    async fn take(conn: &mut ScriptConn) -> Fingerprint {
        const ORDERS: &str =
            "SELECT count(*), sum(o_orderkey), sum(o_totalprice), max(o_orderkey) FROM orders";
        const LINEITEM: &str = "SELECT count(*), sum(l_orderkey), sum(l_extendedprice), \
             max(l_orderkey) FROM lineitem";
        let mut one = async |sql: &str| {
            let mut rows = conn.query(sql).await.expect(sql);
            assert_eq!(rows.len(), 1, "{sql}");
            rows.remove(0)
        };
        Fingerprint {
            orders: one(ORDERS).await,
            lineitem: one(LINEITEM).await,
        }
    }

    fn rows(&self) -> u64 {
        let n = |v: &[Option<String>]| {
            v[0].as_deref()
                .and_then(|c| c.parse::<u64>().ok())
                .unwrap_or_else(|| panic!("count {v:?}"))
        };
        n(&self.orders) + n(&self.lineitem)
    }
}

/// Runs a refresh function's statements; the rows they affected.
async fn run(conn: &mut ScriptConn, rf: &RefreshSql) -> u64 {
    let mut affected = 0;
    for sql in &rf.statements {
        affected += conn
            .execute(sql)
            .await
            .unwrap_or_else(|e| panic!("{e}\n{}", &sql[..sql.len().min(300)]));
    }
    affected
}

fn refresh_pairs_leave_the_tables_as_loaded(db: Database) {
    let servers = Servers::get();
    servers.require();
    let (settings, cleanup) = settings(db);
    // Rows another session sees: what the statements committed. (The fixtures block on a
    // runtime of their own, so off this test's.)
    let committed_orders = || {
        let sql = "SELECT count(*) FROM orders";
        tokio::task::block_in_place(|| {
            if db == Database::Pg {
                servers.pg_i64(&cleanup.name, sql)
            } else {
                servers.maria_i64(&cleanup.name, sql)
            }
        })
    };
    let support = hammer::tpch::bench::support(db)
        .unwrap_or_else(|e| panic!("TPROC-H on {}: {e}", db.name()));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let out = Output::capture();
        let plan = Plan {
            scale_factor: SF,
            loaders: 2,
        };
        let built = support
            .build(
                &settings,
                plan,
                Say::new(out.clone(), 1),
                out.clone(),
                Interrupt::default(),
            )
            .await;
        let lines = out.take_captured();
        let built = built.unwrap_or_else(|e| panic!("build: {e}\n{lines:#?}"));
        assert_eq!(built.rows, 86_805);

        let mut conn = support
            .connect(&settings, hammer::endpoint::Position::Session)
            .await
            .unwrap_or_else(|e| panic!("connect: {e}"));
        let loaded = Fingerprint::take(&mut conn).await;
        assert_eq!(loaded.rows(), 15_000 + 60_175, "{loaded:?}");

        // Pair 1: RF1 adds exactly its rows, RF2 takes them away.
        let rf1 = new_sales(SF, 1);
        assert_eq!(run(&mut conn, &rf1).await, rf1.rows);
        let after_rf1 = Fingerprint::take(&mut conn).await;
        assert_eq!(after_rf1.rows(), loaded.rows() + rf1.rows);
        assert_eq!(
            after_rf1.orders[0].as_deref(),
            Some("15015"),
            "{after_rf1:?}"
        );
        assert_eq!(committed_orders(), 15_015);
        let rf2 = old_sales(SF, 1);
        assert_eq!(rf2.rows, rf1.rows);
        assert_eq!(run(&mut conn, &rf2).await, rf2.rows);
        assert_eq!(Fingerprint::take(&mut conn).await, loaded);
        assert_eq!(committed_orders(), 15_000);

        // A run stopped after RF1: the next RF1 of the same pair replaces its rows, and its
        // RF2 leaves the tables as loaded.
        let rf1 = new_sales(SF, 2);
        run(&mut conn, &rf1).await;
        assert_eq!(
            run(&mut conn, &rf1).await,
            2 * rf1.rows,
            "deleted + inserted"
        );
        let twice = Fingerprint::take(&mut conn).await;
        assert_eq!(twice.rows(), loaded.rows() + rf1.rows);
        let rf2 = old_sales(SF, 2);
        assert_eq!(run(&mut conn, &rf2).await, rf2.rows);
        assert_eq!(Fingerprint::take(&mut conn).await, loaded);

        // Another gap of the key space (pair 1001: slice 1 again, gap 2) works the same.
        let rf1 = new_sales(SF, 1001);
        assert_eq!(run(&mut conn, &rf1).await, rf1.rows);
        assert_eq!(run(&mut conn, &old_sales(SF, 1001)).await, rf1.rows);
        assert_eq!(Fingerprint::take(&mut conn).await, loaded);
        conn.close().await;
    });
}

#[test]
fn postgresql_refresh_pairs_leave_the_tables_as_loaded() {
    refresh_pairs_leave_the_tables_as_loaded(Database::Pg);
}

#[test]
fn mariadb_refresh_pairs_leave_the_tables_as_loaded() {
    refresh_pairs_leave_the_tables_as_loaded(Database::Maria);
}
