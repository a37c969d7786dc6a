//! Real-server tests of the TPROC-C transactions on PostgreSQL, as functions, as procedures
//! and as client-side SQL.
//!
//! Each test builds a one-warehouse schema in a database and role of its own
//! (`hammer_pgdrv_<test>_<pid>`), runs every transaction with inputs made by hand, checks
//! their effects behind the driver's back as the superuser, checks that `checkschema`'s
//! consistency conditions still hold, and drops the schema at the end, also when it fails.

mod common;

use std::future::Future;
use std::task::Poll;
use std::time::Duration;

use common::Servers;
use hammer::config::{Database, Settings, Target};
use hammer::db::postgres::driver::PgDriver;
use hammer::db::postgres::{connect, PgConn, PgTarget};
use hammer::db::Failure;
use hammer::endpoint::Position;
use hammer::error::Error;
use hammer::interrupt::Interrupt;
use hammer::output::Output;
use hammer::tpcc::build::Plan;
use hammer::tpcc::schema::Say;
use hammer::tpcc::txn::{
    Customer, Delivery, Line, Mode, NewOrder, OrderStatus, Payment, StockLevel, TxnConn, TxnDb,
};

/// A run's one terminal.
const TERMINAL: Position = Position::Terminal { n: 1, of: 1 };

/// The `pg` dictionary pointed at the test server, with database and role `name`.
fn settings(name: &str) -> Settings {
    let servers = Servers::get();
    servers.require();
    let mut s = Settings::defaults();
    let port = servers.pg_port.to_string();
    for (section, key, value) in [
        ("connection", "pg_host", servers.pg_host.as_str()),
        ("connection", "pg_port", port.as_str()),
        ("tpcc", "pg_superuser", servers.pg_user.as_str()),
        ("tpcc", "pg_superuserpass", servers.pg_pass.as_str()),
        ("tpcc", "pg_user", name),
        ("tpcc", "pg_pass", "drv'pass"),
        ("tpcc", "pg_dbase", name),
    ] {
        set(&mut s, section, key, value);
    }
    s
}

fn set(s: &mut Settings, section: &str, key: &str, value: &str) {
    s.set(Target::Db(Database::Pg), section, key, value)
        .unwrap_or_else(|e| panic!("{key}: {e}"));
}

/// The same settings in one of the three flavours.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Flavour {
    Functions,
    Procedures,
    ClientSql,
}

fn flavoured(s: &Settings, f: Flavour) -> Settings {
    let mut s = s.clone();
    let (procs, client) = match f {
        Flavour::Functions => ("false", "false"),
        Flavour::Procedures => ("true", "false"),
        Flavour::ClientSql => ("false", "true"),
    };
    set(&mut s, "tpcc", "pg_storedprocs", procs);
    set(&mut s, "tpcc", "pg_no_stored_procs", client);
    s
}

fn name(test: &str) -> String {
    format!("hammer_pgdrv_{test}_{}", std::process::id())
}

fn say() -> Say {
    Say::new(Output::capture(), 1)
}

/// Deletes the test's schema when the test ends, however it ends.
struct Scratch {
    settings: Settings,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let settings = self.settings.clone();
        // A runtime of its own on a thread of its own: the test's runtime may be shutting down.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            let _ = rt.block_on(
                hammer::tpcc::bench::support(Database::Pg)
                    .expect("TPROC-C support")
                    .delete(&settings, &say()),
            );
        })
        .join();
    }
}

async fn build(settings: &Settings) {
    let out = Output::capture();
    hammer::tpcc::bench::support(Database::Pg)
        .expect("TPROC-C support")
        .build(
            settings,
            Plan {
                warehouses: 1,
                loaders: 1,
            },
            Say::new(out.clone(), 1),
            out,
            Interrupt::default(),
        )
        .await
        .expect("buildschema");
}

async fn check(settings: &Settings) {
    let checks = hammer::tpcc::bench::support(Database::Pg)
        .expect("TPROC-C support")
        .check(settings, 1, &say())
        .await
        .expect("checkschema");
    let failed: Vec<_> = checks.iter().filter(|c| !c.ok).collect();
    assert!(failed.is_empty(), "checkschema fails: {failed:#?}");
    assert!(
        checks
            .iter()
            .filter(|c| c.what.starts_with("Check consistency"))
            .count()
            >= 4,
        "{checks:#?}"
    );
}

/// The superuser on the test's database, for looking behind the driver's back.
async fn raw(settings: &Settings) -> PgConn {
    let target = PgTarget {
        dbname: settings.db(Database::Pg).get("pg_dbase").to_string(),
        ..PgTarget::admin_of(settings, hammer::config::Database::Pg)
    };
    connect(&target).await.expect("superuser connects")
}

async fn int(raw: &PgConn, sql: &str) -> i64 {
    let row = raw.client.query_one(sql, &[]).await.expect(sql);
    row.get::<_, Option<i64>>(0)
        .unwrap_or_else(|| panic!("NULL from {sql}"))
}

async fn text(raw: &PgConn, sql: &str) -> String {
    let row = raw.client.query_one(sql, &[]).await.expect(sql);
    row.get::<_, Option<String>>(0)
        .unwrap_or_else(|| panic!("NULL from {sql}"))
}

fn line(item_id: u32, supply_w_id: u32, quantity: u32) -> Line {
    Line {
        item_id,
        supply_w_id,
        quantity,
    }
}

/// TPC-C's stock rule for one order line.
fn restock(s: i64, q: i64) -> i64 {
    if s >= q + 10 {
        s - q
    } else {
        s - q + 91
    }
}

async fn next_o_id(raw: &PgConn, d: u32) -> i64 {
    int(
        raw,
        &format!("SELECT d_next_o_id::bigint FROM district WHERE d_w_id = 1 AND d_id = {d}"),
    )
    .await
}

/// One driver connection and the superuser's view of the same database.
struct Run<'a> {
    conn: &'a mut hammer::db::postgres::driver::PgTxnConn,
    raw: &'a PgConn,
    flavour: Flavour,
}

impl Run<'_> {
    /// A New-Order that commits: the order, its lines, the stock (a repeated item applies the
    /// rule twice, in line order), the district counter and the total. Returns the order id.
    async fn new_order(&mut self, d_id: u32, c_id: u32) -> i64 {
        let raw = self.raw;
        let lines = vec![
            line(10, 1, 5),
            line(20, 1, 3),
            line(20, 1, 8),
            line(30, 1, 1),
            line(40, 1, 9),
        ];
        let stock = |i: u32| {
            format!("SELECT s_quantity::bigint FROM stock WHERE s_w_id = 1 AND s_i_id = {i}")
        };
        let counts = |i: u32| {
            format!(
                "SELECT (s_ytd * 1000 + s_order_cnt)::bigint FROM stock \
                 WHERE s_w_id = 1 AND s_i_id = {i}"
            )
        };
        // 15, less 3, leaves 12; less 8 would leave 4, so that line adds 91: both branches
        // of the rule, in line order.
        raw.client
            .batch_execute("UPDATE stock SET s_quantity = 15 WHERE s_w_id = 1 AND s_i_id = 20")
            .await
            .expect("set stock");
        let s20 = int(raw, &stock(20)).await;
        let s40 = int(raw, &stock(40)).await;
        let c20 = int(raw, &counts(20)).await;
        let o_id = next_o_id(raw, d_id).await;
        let t = NewOrder {
            w_id: 1,
            d_id,
            c_id,
            lines,
            all_local: true,
        };
        let done = self.conn.new_order(&t).await.expect("new order");
        assert!(!done.rolled_back, "{done:?}");
        let head = format!("New Order: w 1 d {d_id} c {c_id} o {o_id} lines 5 total ");
        assert!(
            done.summary.starts_with(&head),
            "{:?}: {done:?}",
            self.flavour
        );
        assert_eq!(next_o_id(raw, d_id).await, o_id + 1);
        let key = format!("WHERE ol_w_id = 1 AND ol_d_id = {d_id} AND ol_o_id = {o_id}");
        let n = int(raw, &format!("SELECT count(*) FROM order_line {key}")).await;
        assert_eq!(n, 5);
        let numbers = text(
            raw,
            &format!(
                "SELECT string_agg(ol_number || ':' || ol_i_id || 'x' || ol_quantity, ' ' \
                 ORDER BY ol_number) FROM order_line {key}"
            ),
        )
        .await;
        assert_eq!(numbers, "1:10x5 2:20x3 3:20x8 4:30x1 5:40x9");
        let expected_total = text(
            raw,
            &format!(
                "SELECT round(sum(ol_amount) * (1 - c_discount) * (1 + w_tax + d_tax), 2)::text
                   FROM order_line, customer, warehouse, district {key}
                    AND c_w_id = 1 AND c_d_id = {d_id} AND c_id = {c_id} AND w_id = 1
                    AND d_w_id = 1 AND d_id = {d_id}
                  GROUP BY c_discount, w_tax, d_tax"
            ),
        )
        .await;
        assert_eq!(done.summary, format!("{head}{expected_total}"));
        let order = text(
            raw,
            &format!(
                "SELECT o_c_id || ' ' || o_ol_cnt || ' ' || o_all_local || ' '
                        || coalesce(o_carrier_id::text, '-')
                   FROM orders WHERE o_w_id = 1 AND o_d_id = {d_id} AND o_id = {o_id}"
            ),
        )
        .await;
        assert_eq!(order, format!("{c_id} 5 1 -"));
        let queued = format!(
            "SELECT count(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = {d_id} \
             AND no_o_id = {o_id}"
        );
        assert_eq!(int(raw, &queued).await, 1);
        assert_eq!(restock(restock(s20, 3), 8), 95);
        assert_eq!(int(raw, &stock(20)).await, 95, "{:?}", self.flavour);
        assert_eq!(int(raw, &stock(40)).await, restock(s40, 9));
        assert_eq!(int(raw, &counts(20)).await, c20 + 11 * 1000 + 2);
        o_id
    }

    /// The unused item 100001 rolls the order back: nothing of it stays.
    async fn rolled_back_order(&mut self) {
        let raw = self.raw;
        let o_id = next_o_id(raw, 4).await;
        let orders = "SELECT count(*) FROM orders";
        let lines = "SELECT count(*) FROM order_line";
        let stock5 = "SELECT s_quantity::bigint FROM stock WHERE s_w_id = 1 AND s_i_id = 5";
        let (n_orders, n_lines, s5) = (
            int(raw, orders).await,
            int(raw, lines).await,
            int(raw, stock5).await,
        );
        let t = NewOrder {
            w_id: 1,
            d_id: 4,
            c_id: 9,
            lines: vec![line(5, 1, 2), line(100_001, 1, 1)],
            all_local: true,
        };
        let done = self
            .conn
            .new_order(&t)
            .await
            .expect("rolled-back new order");
        assert!(done.rolled_back, "{:?}: {done:?}", self.flavour);
        assert_eq!(
            done.summary,
            format!("New Order: w 1 d 4 c 9 o {o_id} lines 2 rolled back (item 100001 not valid)")
        );
        assert_eq!(next_o_id(raw, 4).await, o_id, "d_next_o_id unchanged");
        assert_eq!(int(raw, orders).await, n_orders);
        assert_eq!(int(raw, lines).await, n_lines);
        assert_eq!(int(raw, stock5).await, s5);
    }

    /// Payment by id at home, by id for a BC customer, by name, and for a customer of
    /// another district; warehouse, district, customer and history all follow.
    async fn payments(&mut self) {
        let raw = self.raw;
        let ytd = |table: &str| match table {
            "w" => "SELECT (w_ytd * 100)::bigint FROM warehouse WHERE w_id = 1".to_string(),
            d => format!(
                "SELECT (d_ytd * 100)::bigint FROM district WHERE d_w_id = 1 AND d_id = {d}"
            ),
        };
        let customer = |d: u32, c: i64| {
            format!(
                "SELECT (c_balance * 100)::bigint * 1000 + c_payment_cnt FROM customer
                  WHERE c_w_id = 1 AND c_d_id = {d} AND c_id = {c}"
            )
        };
        let history = "SELECT count(*) FROM history";

        // By id, at home.
        let (w0, d0, c0, h0) = (
            int(raw, &ytd("w")).await,
            int(raw, &ytd("2")).await,
            int(raw, &customer(2, 77)).await,
            int(raw, history).await,
        );
        let t = Payment {
            w_id: 1,
            d_id: 2,
            c_w_id: 1,
            c_d_id: 2,
            customer: Customer::ById(77),
            amount_cents: 1234,
        };
        let done = self.conn.payment(&t).await.expect("payment by id");
        assert!(!done.rolled_back);
        let balance = text(
            raw,
            "SELECT c_balance::text || ' credit ' || c_credit FROM customer
              WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 77",
        )
        .await;
        assert_eq!(
            done.summary,
            format!("Payment: w 1 d 2 c 77 amount 12.34 balance {balance}")
        );
        assert_eq!(int(raw, &ytd("w")).await, w0 + 1234);
        assert_eq!(int(raw, &ytd("2")).await, d0 + 1234);
        assert_eq!(int(raw, &customer(2, 77)).await, c0 - 1234 * 1000 + 1);
        assert_eq!(int(raw, history).await, h0 + 1);
        let h_data = text(
            raw,
            "SELECT h_data || '|' || h_amount || '|' || h_c_id || h_c_d_id || h_d_id
               FROM history ORDER BY h_date DESC LIMIT 1",
        )
        .await;
        let names = text(
            raw,
            "SELECT w_name || '    ' || d_name FROM warehouse, district
              WHERE w_id = 1 AND d_w_id = 1 AND d_id = 2",
        )
        .await;
        assert_eq!(h_data, format!("{names}|12.34|7722"));

        // A BC customer's c_data gets the payment in front.
        let bc = int(
            raw,
            "SELECT min(c_id)::bigint FROM customer
              WHERE c_w_id = 1 AND c_d_id = 5 AND c_credit = 'BC'",
        )
        .await;
        let data =
            format!("SELECT c_data FROM customer WHERE c_w_id = 1 AND c_d_id = 5 AND c_id = {bc}");
        let before = text(raw, &data).await;
        let t = Payment {
            d_id: 5,
            c_d_id: 5,
            customer: Customer::ById(u32::try_from(bc).expect("id")),
            amount_cents: 50_000,
            ..t
        };
        let done = self.conn.payment(&t).await.expect("BC payment");
        assert!(done.summary.ends_with("credit BC"), "{done:?}");
        let after = text(raw, &data).await;
        let prefix = format!("{bc} 5 1 5 1 500.00 | ");
        assert!(after.starts_with(&prefix), "{after}");
        assert_eq!(after.len(), (prefix.len() + before.len()).min(500));
        assert_eq!(
            &after[prefix.len()..],
            &before[..after.len() - prefix.len()]
        );

        // By name: the customer at position ceil(n/2) by first name.
        let last = text(
            raw,
            "SELECT c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 2
              GROUP BY c_last HAVING count(*) >= 4 ORDER BY c_last LIMIT 1",
        )
        .await;
        let ids: Vec<i32> = raw
            .client
            .query(
                "SELECT c_id FROM customer WHERE c_w_id = 1 AND c_d_id = 2 AND c_last = $1
                  ORDER BY c_first, c_id",
                &[&last],
            )
            .await
            .expect("customers by name")
            .iter()
            .map(|r| r.get(0))
            .collect();
        let chosen = i64::from(ids[(ids.len() - 1) / 2]);
        let c0 = int(raw, &customer(2, chosen)).await;
        let t = Payment {
            w_id: 1,
            d_id: 2,
            c_w_id: 1,
            c_d_id: 2,
            customer: Customer::ByName(last.clone()),
            amount_cents: 100,
        };
        let done = self.conn.payment(&t).await.expect("payment by name");
        let head = format!("Payment: w 1 d 2 c {chosen} (by name {last}) amount 1.00 balance ");
        assert!(
            done.summary.starts_with(&head),
            "{:?}: {done:?} ({ids:?})",
            self.flavour
        );
        assert_eq!(int(raw, &customer(2, chosen)).await, c0 - 100 * 1000 + 1);

        // A customer of another district: the home district is paid, the customer's pays.
        let (d0, d7, c0) = (
            int(raw, &ytd("2")).await,
            int(raw, &ytd("7")).await,
            int(raw, &customer(7, 1500)).await,
        );
        let t = Payment {
            w_id: 1,
            d_id: 2,
            c_w_id: 1,
            c_d_id: 7,
            customer: Customer::ById(1500),
            amount_cents: 99,
        };
        let done = self.conn.payment(&t).await.expect("remote payment");
        assert!(
            done.summary
                .starts_with("Payment: w 1 d 2 c 1500 of w 1 d 7 amount 0.99 "),
            "{done:?}"
        );
        assert_eq!(int(raw, &ytd("2")).await, d0 + 99);
        assert_eq!(int(raw, &ytd("7")).await, d7);
        assert_eq!(int(raw, &customer(7, 1500)).await, c0 - 99 * 1000 + 1);
        let h = text(
            raw,
            "SELECT h_c_id || ' ' || h_c_d_id || ' ' || h_d_id FROM history
              ORDER BY h_date DESC LIMIT 1",
        )
        .await;
        assert_eq!(h, "1500 7 2");
    }

    /// Order-Status by id shows the customer's latest order; by name the ceil(n/2) customer.
    async fn order_status(&mut self, d_id: u32, c_id: u32, o_id: i64) {
        let raw = self.raw;
        let t = OrderStatus {
            w_id: 1,
            d_id,
            customer: Customer::ById(c_id),
        };
        let done = self.conn.order_status(&t).await.expect("order status");
        let balance = text(
            raw,
            &format!(
                "SELECT c_balance::text FROM customer
                  WHERE c_w_id = 1 AND c_d_id = {d_id} AND c_id = {c_id}"
            ),
        )
        .await;
        assert_eq!(
            done.summary,
            format!(
                "Order Status: w 1 d {d_id} c {c_id} balance {balance} o {o_id} carrier none lines 5"
            )
        );

        let last = text(
            raw,
            "SELECT c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 6
              GROUP BY c_last HAVING count(*) = 3 ORDER BY c_last LIMIT 1",
        )
        .await;
        let chosen = int(
            raw,
            &format!(
                "SELECT c_id::bigint FROM customer
                  WHERE c_w_id = 1 AND c_d_id = 6 AND c_last = '{last}'
                  ORDER BY c_first, c_id OFFSET 1 LIMIT 1"
            ),
        )
        .await;
        let latest = text(
            raw,
            &format!(
                "SELECT coalesce(max(o_id)::text, 'none') FROM orders
                  WHERE o_w_id = 1 AND o_d_id = 6 AND o_c_id = {chosen}"
            ),
        )
        .await;
        let t = OrderStatus {
            w_id: 1,
            d_id: 6,
            customer: Customer::ByName(last.clone()),
        };
        let done = self
            .conn
            .order_status(&t)
            .await
            .expect("order status by name");
        let head = format!("Order Status: w 1 d 6 c {chosen} (by name {last}) balance ");
        assert!(done.summary.starts_with(&head), "{done:?}");
        if latest == "none" {
            assert!(done.summary.ends_with("no order"), "{done:?}");
        } else {
            assert!(done.summary.contains(&format!(" o {latest} ")), "{done:?}");
        }
    }

    /// Delivery takes the oldest new order of every district.
    async fn delivery(&mut self) {
        let raw = self.raw;
        let oldest = |d: u32| {
            format!(
                "SELECT min(no_o_id)::bigint FROM new_order WHERE no_w_id = 1 AND no_d_id = {d}"
            )
        };
        let o1 = int(raw, &oldest(1)).await;
        let o9 = int(raw, &oldest(9)).await;
        let c1 = int(
            raw,
            &format!(
                "SELECT o_c_id::bigint FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = {o1}"
            ),
        )
        .await;
        let amount = int(
            raw,
            &format!(
                "SELECT (sum(ol_amount) * 100)::bigint FROM order_line
                  WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = {o1}"
            ),
        )
        .await;
        let customer = format!(
            "SELECT (c_balance * 100)::bigint * 1000 + c_delivery_cnt FROM customer
              WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = {c1}"
        );
        let c0 = int(raw, &customer).await;
        let t = Delivery {
            w_id: 1,
            carrier_id: 7,
        };
        let done = self.conn.delivery(&t).await.expect("delivery");
        assert_eq!(
            done.summary,
            "Delivery: w 1 carrier 7 delivered 10 skipped 0"
        );
        assert_eq!(int(raw, &oldest(1)).await, o1 + 1);
        assert_eq!(int(raw, &oldest(9)).await, o9 + 1);
        let carrier = format!(
            "SELECT o_carrier_id::bigint FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = {o1}"
        );
        assert_eq!(int(raw, &carrier).await, 7);
        let undelivered = format!(
            "SELECT count(*) FROM order_line
              WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = {o1} AND ol_delivery_d IS NULL"
        );
        assert_eq!(int(raw, &undelivered).await, 0);
        assert_eq!(int(raw, &customer).await, c0 + amount * 1000 + 1);
    }

    /// Stock-Level counts distinct low-stock items of the district's last 20 orders.
    async fn stock_level(&mut self, d_id: u32, threshold: u32) {
        let expected = int(
            self.raw,
            &format!(
                "SELECT count(DISTINCT s_i_id) FROM district, order_line, stock
                  WHERE d_w_id = 1 AND d_id = {d_id}
                    AND ol_w_id = 1 AND ol_d_id = {d_id}
                    AND ol_o_id BETWEEN d_next_o_id - 20 AND d_next_o_id - 1
                    AND s_w_id = 1 AND s_i_id = ol_i_id AND s_quantity < {threshold}"
            ),
        )
        .await;
        let t = StockLevel {
            w_id: 1,
            d_id,
            threshold,
        };
        let done = self.conn.stock_level(&t).await.expect("stock level");
        assert_eq!(
            done.summary,
            format!("Stock Level: w 1 d {d_id} threshold {threshold} low {expected}")
        );
    }

    /// A transaction that fails leaves nothing open: the next one on the connection works.
    async fn failures(&mut self) {
        let raw = self.raw;
        let o_id = next_o_id(raw, 8).await;
        let t = NewOrder {
            w_id: 1,
            d_id: 8,
            c_id: 99_999,
            lines: vec![line(1, 1, 1)],
            all_local: true,
        };
        let e = self.conn.new_order(&t).await.expect_err("unknown customer");
        let Error::Db(db) = &e else { panic!("{e}") };
        assert_eq!(db.kind, Failure::Other, "{e}");
        assert!(e.to_string().contains("New Order"), "{e}");
        assert_eq!(next_o_id(raw, 8).await, o_id);

        let t = Payment {
            w_id: 1,
            d_id: 3,
            c_w_id: 1,
            c_d_id: 3,
            customer: Customer::ByName("NOSUCHNAME".into()),
            amount_cents: 100,
        };
        let w = "SELECT (w_ytd * 100)::bigint FROM warehouse WHERE w_id = 1";
        let w0 = int(raw, w).await;
        let e = self.conn.payment(&t).await.expect_err("unknown name");
        assert!(e.to_string().contains("Payment"), "{e}");
        assert_eq!(int(raw, w).await, w0, "a failed payment leaves no trace");
        // Nor a transaction left open (client-side SQL's pipeline stops at the error, after
        // its BEGIN): it was rolled back at once, so its locks are gone.
        let open = "SELECT count(*) FROM pg_stat_activity
                     WHERE datname = current_database() AND state LIKE 'idle in transaction%'";
        assert_eq!(
            int(raw, open).await,
            0,
            "a failed payment's transaction is open"
        );

        let t = StockLevel {
            w_id: 1,
            d_id: 11,
            threshold: 10,
        };
        let e = self
            .conn
            .stock_level(&t)
            .await
            .expect_err("unknown district");
        assert!(e.to_string().contains("Stock Level"), "{e}");
        self.stock_level(8, 20).await;
    }

    /// Client-side SQL: a call dropped between BEGIN and COMMIT is rolled back by the next.
    async fn dropped_call(&mut self) {
        let raw = self.raw;
        let o_id = next_o_id(raw, 10).await;
        let t = NewOrder {
            w_id: 1,
            d_id: 10,
            c_id: 10,
            lines: vec![line(1, 1, 1), line(2, 1, 1)],
            all_local: true,
        };
        // The superuser holds the district's row, so that the call's first step (which takes
        // the order id) waits on the server however fast it is, and the call is surely
        // still open when it is dropped.
        raw.client
            .batch_execute(
                "BEGIN; SELECT 1 FROM district WHERE d_w_id = 1 AND d_id = 10 FOR UPDATE",
            )
            .await
            .expect("lock the district");
        {
            // One poll sends BEGIN and the first statement; then the call is dropped.
            let mut call = std::pin::pin!(self.conn.new_order(&t));
            let first = std::future::poll_fn(|cx| Poll::Ready(call.as_mut().poll(cx))).await;
            assert!(first.is_pending(), "{first:?}");
        }
        raw.client
            .batch_execute("ROLLBACK")
            .await
            .expect("release the district");
        let done = self
            .conn
            .new_order(&t)
            .await
            .expect("new order after a dropped one");
        assert!(
            done.summary.contains(&format!(" o {o_id} ")),
            "the dropped order rolled back: {done:?}"
        );
        assert_eq!(next_o_id(raw, 10).await, o_id + 1);
    }
}

impl Run<'_> {
    /// Functions and procedures: a call dropped after it was sent still runs on the server;
    /// the next call on the connection skips its answer and gets its own. Returns the new
    /// orders committed: the dropped one, the next, and any that finished in a first poll.
    async fn dropped_routine_call(&mut self) -> u64 {
        let raw = self.raw;
        let t = NewOrder {
            w_id: 1,
            d_id: 9,
            c_id: 9,
            lines: vec![line(1, 1, 1), line(2, 1, 1)],
            all_local: true,
        };
        // One poll sends the call; then it is dropped before its answer is read. On a busy
        // machine the answer can be there by the end of that poll: then the call is simply
        // done, and the test tries again.
        let mut tries = 0;
        let o_id = loop {
            tries += 1;
            assert!(tries <= 20, "every first poll finished the call");
            let o_id = next_o_id(raw, 9).await;
            let mut call = std::pin::pin!(self.conn.new_order(&t));
            let first = std::future::poll_fn(|cx| Poll::Ready(call.as_mut().poll(cx))).await;
            if first.is_pending() {
                break o_id;
            }
        };
        let done = self
            .conn
            .new_order(&t)
            .await
            .expect("new order after a dropped one");
        assert!(
            done.summary.contains(&format!(" o {} ", o_id + 1)),
            "the dropped order ran, this one is the next: {done:?}"
        );
        assert_eq!(next_o_id(raw, 9).await, o_id + 2);
        tries + 1
    }

    /// A connection the server ends is reported as lost (the driver then reconnects).
    async fn terminated(&mut self) {
        let killed = int(
            self.raw,
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid()
                AND application_name = 'hammer'",
        )
        .await;
        assert_eq!(killed, 1, "the terminal's backend");
        let t = StockLevel {
            w_id: 1,
            d_id: 1,
            threshold: 10,
        };
        let e = self.conn.stock_level(&t).await.expect_err("terminated");
        let Error::Db(db) = &e else { panic!("{e}") };
        assert_eq!(db.kind, Failure::Lost, "{e}");
    }
}

/// Every transaction through one flavour, with the counters and the consistency checks;
/// `blocking` runs them on a blocking socket, as a virtual user with its own thread does.
async fn exercise(settings: &Settings, flavour: Flavour, blocking: bool) {
    let s = flavoured(settings, flavour);
    let driver = PgDriver::new(&s, Database::Pg).with_summaries(true);
    let mode = match flavour {
        Flavour::ClientSql => Mode::ClientSql,
        _ => Mode::StoredProcedures,
    };
    assert_eq!(driver.mode(), mode);
    assert_eq!(driver.name(), "PostgreSQL");
    let (w, constants) = driver.prepare(1).await.expect("prepare");
    assert_eq!(w, 1);
    let raw = raw(settings).await;
    let c_last = int(&raw, "SELECT c_last::bigint FROM tpcc_nurand").await;
    assert_eq!(i64::from(constants.c_last), c_last);

    let before = driver.counters().await.expect("counters");
    let mut conn = driver.connect(TERMINAL).await.expect("connect");
    if blocking {
        conn = conn.into_blocking().expect("a blocking socket");
    }
    // Every flavour runs on the lean connection, which then blocks.
    assert_eq!(conn.is_blocking(), blocking);
    let mut run = Run {
        conn: &mut conn,
        raw: &raw,
        flavour,
    };
    let o1 = run.new_order(3, 1201).await;
    // The server sees the terminal's session encrypted exactly when pg_sslmode asks for it.
    let tls = s.db(Database::Pg).get("pg_sslmode") != "disable";
    for encrypted in [true, false] {
        let sessions = int(
            &raw,
            &format!(
                "SELECT count(*) FROM pg_stat_activity JOIN pg_stat_ssl USING (pid)
                  WHERE datname = current_database() AND pid <> pg_backend_pid()
                    AND application_name = 'hammer' AND ssl = {encrypted}"
            ),
        )
        .await;
        assert_eq!(
            sessions > 0,
            encrypted == tls,
            "sessions with ssl = {encrypted}"
        );
    }
    run.new_order(3, 1202).await;
    run.rolled_back_order().await;
    run.new_order(5, 17).await;
    run.payments().await;
    run.order_status(3, 1201, o1).await;
    run.delivery().await;
    run.stock_level(3, 15).await;
    run.stock_level(3, 100).await;
    run.failures().await;
    let mut committed = 3;
    // On a blocking socket a call is never left halfway: its first poll finishes it.
    if !blocking && flavour == Flavour::ClientSql {
        run.dropped_call().await;
        committed += 1;
    } else if !blocking {
        committed += run.dropped_routine_call().await;
    }
    let after = driver.counters().await.expect("counters");
    assert_eq!(
        after.new_orders,
        before.new_orders + committed,
        "{flavour:?}: {before:?} then {after:?}"
    );

    // The kept owner connection is lost: counters connects again.
    let killed = int(
        &raw,
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND query LIKE 'SELECT coalesce(sum(d_next_o_id)%'",
    )
    .await;
    assert_eq!(killed, 1);
    conn.close().await;
    // A backend reports its transactions to pg_stat_database by the time it exits.
    let mut again = driver
        .counters()
        .await
        .expect("counters after a lost connection");
    for _ in 0..40 {
        if again.transactions > before.transactions {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        again = driver.counters().await.expect("counters");
    }
    assert_eq!(again.new_orders, after.new_orders);
    assert!(
        again.transactions > before.transactions,
        "{before:?} {again:?}"
    );
    driver.close().await;
    raw.close().await;
    check(settings).await;
}

fn prepare_error(r: hammer::error::Result<(u32, hammer::tpcc::Constants)>) -> String {
    match r {
        Ok(v) => panic!("prepare should have failed, gave {v:?}"),
        Err(e) => e.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn functions_and_client_sql_on_a_function_schema() {
    let name = name("fn");
    let settings = flavoured(&settings(&name), Flavour::Functions);
    let _scratch = Scratch {
        settings: settings.clone(),
    };
    build(&settings).await;

    exercise(&settings, Flavour::Functions, false).await;
    exercise(&settings, Flavour::ClientSql, false).await;
    // The default pg_sslmode (prefer) encrypts on this server; the same without TLS.
    let mut plain = settings.clone();
    set(&mut plain, "connection", "pg_sslmode", "disable");
    exercise(&plain, Flavour::Functions, false).await;
    // On blocking sockets, with TLS and without.
    exercise(&settings, Flavour::Functions, true).await;
    exercise(&plain, Flavour::Functions, true).await;
    exercise(&settings, Flavour::ClientSql, true).await;
    let superuser = raw(&settings).await;
    for (s, blocking) in [(&plain, false), (&plain, true), (&settings, true)] {
        let mut conn = PgDriver::new(s, Database::Pg)
            .connect(TERMINAL)
            .await
            .expect("connect");
        if blocking {
            conn = conn.into_blocking().expect("a blocking socket");
        }
        assert_eq!(conn.is_blocking(), blocking);
        Run {
            conn: &mut conn,
            raw: &superuser,
            flavour: Flavour::Functions,
        }
        .terminated()
        .await;
    }
    superuser.close().await;

    // A wrong password, several times: over TLS the server's error and its close_notify
    // may come in one read or two, and either way the error is what is reported.
    let mut wrong = settings.clone();
    set(&mut wrong, "tpcc", "pg_pass", "not-the-password");
    for _ in 0..20 {
        let e = PgDriver::new(&wrong, Database::Pg)
            .connect(TERMINAL)
            .await
            .err()
            .expect("a wrong password");
        let Error::Db(db) = &e else { panic!("{e}") };
        assert_eq!(db.kind, Failure::Auth, "{e}");
        assert!(
            e.to_string().contains("password authentication failed"),
            "{e}"
        );
    }

    // More warehouses asked for than built: the run takes the schema's, as HammerDB's
    // driver does (the session warns of the difference).
    let (have, _) = PgDriver::new(&settings, Database::Pg)
        .prepare(2)
        .await
        .expect("a run of the schema's one warehouse");
    assert_eq!(have, 1);
    // Procedures asked for, functions found: say so and how to choose, do not switch.
    let procs = flavoured(&settings, Flavour::Procedures);
    let e = prepare_error(PgDriver::new(&procs, Database::Pg).prepare(1).await);
    assert!(
        e.contains("as functions, but pg_storedprocs is true")
            && e.contains("diset tpcc pg_storedprocs false")
            && e.contains("buildschema"),
        "{e}"
    );
    let e = PgDriver::new(&procs, Database::Pg)
        .connect(TERMINAL)
        .await
        .err()
        .expect("procedures cannot be called");
    assert!(e.to_string().contains("cannot prepare"), "{e}");

    // NURand constants out of TPC-C's range (clause 2.1.6) are refused, as on MariaDB, also
    // where the table does not check them itself (one made by another tool).
    let raw = raw(&settings).await;
    raw.client
        .batch_execute(
            "ALTER TABLE tpcc_nurand DROP CONSTRAINT tpcc_nurand_c_id_check; \
             UPDATE tpcc_nurand SET c_id = c_id + 1024",
        )
        .await
        .expect("corrupt the constants");
    let e = prepare_error(PgDriver::new(&settings, Database::Pg).prepare(1).await);
    assert!(
        e.contains("holds constants out of range (c_last 0..255, c_id 0..1023"),
        "{e}"
    );
    raw.client
        .batch_execute("UPDATE tpcc_nurand SET c_id = c_id - 1024")
        .await
        .expect("mend the constants");

    // Half a set of routines: name what is missing.
    raw.client
        .batch_execute("DROP FUNCTION slev(int, int, int)")
        .await
        .expect("drop slev");
    let e = prepare_error(PgDriver::new(&settings, Database::Pg).prepare(1).await);
    assert!(
        e.contains("lacks the TPROC-C functions slev") && e.contains("pg_no_stored_procs"),
        "{e}"
    );
    raw.close().await;

    hammer::tpcc::bench::support(Database::Pg)
        .expect("TPROC-C support")
        .delete(&settings, &say())
        .await
        .expect("deleteschema");
    let e = prepare_error(PgDriver::new(&settings, Database::Pg).prepare(1).await);
    assert!(
        e.contains("does not exist") && e.contains("buildschema"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn procedures_on_a_procedure_schema() {
    let name = name("proc");
    let settings = flavoured(&settings(&name), Flavour::Procedures);
    let _scratch = Scratch {
        settings: settings.clone(),
    };
    build(&settings).await;

    exercise(&settings, Flavour::Procedures, false).await;
    exercise(&settings, Flavour::Procedures, true).await;

    let functions = flavoured(&settings, Flavour::Functions);
    let e = prepare_error(PgDriver::new(&functions, Database::Pg).prepare(1).await);
    assert!(
        e.contains("as stored procedures, but pg_storedprocs is false")
            && e.contains("diset tpcc pg_storedprocs true"),
        "{e}"
    );
    // Client-side SQL needs no routines.
    let client = flavoured(&settings, Flavour::ClientSql);
    PgDriver::new(&client, Database::Pg)
        .prepare(1)
        .await
        .expect("client-side SQL needs no routines");

    hammer::tpcc::bench::support(Database::Pg)
        .expect("TPROC-C support")
        .delete(&settings, &say())
        .await
        .expect("deleteschema");
}

#[tokio::test]
async fn prepare_names_what_is_missing() {
    // Neither the database nor its owner exist.
    let name = name("none");
    let e = prepare_error(
        PgDriver::new(&settings(&name), Database::Pg)
            .prepare(1)
            .await,
    );
    assert!(
        e.contains(&format!("database {name} (pg_dbase) does not exist"))
            && e.contains(&format!("user {name} (pg_user) does not either"))
            && e.contains("buildschema"),
        "{e}"
    );
    assert!(!e.contains("drv'pass"), "{e}");

    // The owner exists, the database does not.
    let servers = Servers::get();
    let mut s = settings(&name);
    set(&mut s, "tpcc", "pg_user", &servers.pg_user);
    set(&mut s, "tpcc", "pg_pass", &servers.pg_pass);
    let e = prepare_error(PgDriver::new(&s, Database::Pg).prepare(1).await);
    assert!(
        e.contains(&format!(
            "database {name} (pg_dbase) does not exist on PostgreSQL"
        )) && !e.contains("does not either"),
        "{e}"
    );

    // A database without a schema.
    set(&mut s, "tpcc", "pg_dbase", "template1");
    let e = prepare_error(PgDriver::new(&s, Database::Pg).prepare(1).await);
    assert!(
        e.contains("Database template1 holds no TPROC-C schema: build it with buildschema"),
        "{e}"
    );
}
