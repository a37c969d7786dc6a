//! Real-server tests of the TPROC-C transactions on MariaDB, with stored procedures and with
//! client-side SQL, through the `maria_*` and the `mysql_*` dictionaries.
//!
//! Each test builds a one-warehouse schema in a database of its own
//! (`hammer_mydrv_<test>_<pid>`), runs every transaction with inputs made by hand, checks
//! their effects behind the driver's back, and drops the database at the end, also when it
//! fails.

mod common;

use common::Servers;
use hammer::config::{Database, Settings, Target};
use hammer::db::mysql::driver::MyDriver;
use hammer::db::Failure;
use hammer::endpoint::Position;
use hammer::error::Error;
use hammer::interrupt::Interrupt;
use hammer::output::Output;
use hammer::tpcc::build::Plan;
use hammer::tpcc::schema::Say;
use hammer::tpcc::txn::{
    Customer, Delivery, Done, Line, Mode, NewOrder, OrderStatus, Payment, StockLevel, TxnConn,
    TxnDb,
};
use mysql_async::prelude::Queryable;
use mysql_async::Conn;

/// A run's one terminal.
const TERMINAL: Position = Position::Terminal { n: 1, of: 1 };

/// The dictionary `db` pointed at the test MariaDB on database `dbname`.
fn settings(db: Database, dbname: &str, no_stored_procs: bool) -> Settings {
    let servers = Servers::get();
    servers.require();
    let mut s = Settings::defaults();
    let p = db.prefix();
    // The MySQL dictionary reaches the same server over TCP only.
    let socket = match db {
        Database::Mysql => "null".to_string(),
        _ => servers.maria_socket.clone(),
    };
    let port = servers.maria_port.to_string();
    let procs = if no_stored_procs { "true" } else { "false" };
    for (section, key, value) in [
        ("connection", "host", servers.maria_host.as_str()),
        ("connection", "port", port.as_str()),
        ("connection", "socket", socket.as_str()),
        ("tpcc", "user", servers.maria_user.as_str()),
        ("tpcc", "pass", servers.maria_pass.as_str()),
        ("tpcc", "dbase", dbname),
        ("tpcc", "no_stored_procs", procs),
    ] {
        s.set(Target::Db(db), section, &format!("{p}_{key}"), value)
            .unwrap_or_else(|e| panic!("{p}_{key}: {e}"));
    }
    s
}

fn dbname(test: &str) -> String {
    format!("hammer_mydrv_{test}_{}", std::process::id())
}

fn say() -> Say {
    Say::new(Output::capture(), 1)
}

/// Drops the test's database when the test ends, however it ends.
struct Scratch {
    settings: Settings,
    db: Database,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let (settings, db) = (self.settings.clone(), self.db);
        // A runtime of its own on a thread of its own: the test's runtime may be shutting down.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            let _ = rt.block_on(
                hammer::tpcc::bench::support(db)
                    .expect("TPROC-C support")
                    .delete(&settings, &say()),
            );
        })
        .join();
    }
}

async fn build(settings: &Settings, db: Database) {
    let out = Output::capture();
    hammer::tpcc::bench::support(db)
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

async fn check(settings: &Settings, db: Database) {
    let checks = hammer::tpcc::bench::support(db)
        .expect("TPROC-C support")
        .check(settings, 1, &say())
        .await
        .expect("checkschema");
    let failed: Vec<_> = checks.iter().filter(|c| !c.ok).collect();
    assert!(failed.is_empty(), "checkschema fails: {failed:#?}");
}

/// A raw connection on the test database, for looking behind the driver's back.
async fn raw(dbname: &str) -> Conn {
    let s = Servers::get();
    let opts = mysql_async::OptsBuilder::default()
        .ip_or_hostname(s.maria_host)
        .tcp_port(s.maria_port)
        .user(Some(s.maria_user))
        .pass(Some(s.maria_pass))
        .db_name(Some(dbname));
    Conn::new(opts).await.expect("raw connection")
}

/// The first row of a query that must return one.
async fn one<T: mysql_async::prelude::FromRow + Send + 'static>(conn: &mut Conn, sql: &str) -> T {
    conn.query_first(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .unwrap_or_else(|| panic!("{sql}: no row"))
}

/// A DECIMAL(.., 2) as cents.
fn cents(text: &str) -> i64 {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, "0"));
    let frac = format!("{frac:0<2}");
    let v: i64 =
        whole.parse::<i64>().expect("number") * 100 + frac[..2].parse::<i64>().expect("number");
    if negative {
        -v
    } else {
        v
    }
}

fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", cents.abs() / 100, cents.abs() % 100)
}

async fn com_rollback(conn: &mut Conn) -> u64 {
    let (_, v): (String, String) = one(conn, "SHOW GLOBAL STATUS LIKE 'Com_rollback'").await;
    v.parse().expect("Com_rollback")
}

async fn next_o_id(conn: &mut Conn, d: u32) -> u32 {
    one(
        conn,
        &format!("SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = {d}"),
    )
    .await
}

/// (s_quantity, s_ytd, s_order_cnt, s_remote_cnt) of an item in warehouse 1.
async fn stock(conn: &mut Conn, item: u32) -> (i64, i64, i64, i64) {
    one(
        conn,
        &format!(
            "SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock \
             WHERE s_w_id = 1 AND s_i_id = {item}"
        ),
    )
    .await
}

/// (c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_credit, c_data) of a customer.
async fn customer(conn: &mut Conn, d: u32, c: u32) -> (String, String, i64, i64, String, String) {
    one(
        conn,
        &format!(
            "SELECT c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_credit, c_data \
             FROM customer WHERE c_w_id = 1 AND c_d_id = {d} AND c_id = {c}"
        ),
    )
    .await
}

/// ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, quantity * price, ol_delivery_d.
type LineRow = (u32, u32, u32, u32, String, String, Option<String>);

fn local(item_id: u32, quantity: u32) -> Line {
    Line {
        item_id,
        supply_w_id: 1,
        quantity,
    }
}

fn new_order(d_id: u32, c_id: u32, mut lines: Vec<Line>) -> NewOrder {
    lines.sort_by_key(|l| (l.item_id, l.supply_w_id));
    NewOrder {
        w_id: 1,
        d_id,
        c_id,
        lines,
        all_local: true,
    }
}

fn ok(what: &str, r: Result<Done, Error>) -> Done {
    r.unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// A committed New-Order: the order, its lines, the stock rule, counters and the total.
async fn committed_new_order(
    conn: &mut impl TxnConn,
    raw: &mut Conn,
    d: u32,
    c: u32,
    lines: Vec<Line>,
) {
    let t = new_order(d, c, lines);
    let o_id = next_o_id(raw, d).await;
    let mut expected = Vec::new();
    for l in &t.lines {
        if !expected.iter().any(|(i, _)| *i == l.item_id) {
            expected.push((l.item_id, stock(raw, l.item_id).await));
        }
    }
    // The procedure's rule, line by line (an item may appear twice).
    for l in &t.lines {
        let (_, s) = expected
            .iter_mut()
            .find(|(i, _)| *i == l.item_id)
            .expect("item");
        let q = i64::from(l.quantity);
        s.0 = if s.0 >= q + 10 { s.0 - q } else { s.0 - q + 91 };
        s.1 += q;
        s.2 += 1;
    }

    let done = ok("new order", conn.new_order(&t).await);
    assert!(!done.rolled_back, "{done:?}");
    let head = format!(
        "New Order: w 1 d {d} c {c} o {o_id} lines {} total ",
        t.lines.len()
    );
    assert!(
        done.summary.starts_with(&head),
        "{} vs {head}",
        done.summary
    );

    assert_eq!(next_o_id(raw, d).await, o_id + 1);
    let order: (u32, u32, Option<u32>, u32, u32) = one(
        raw,
        &format!(
            "SELECT o_c_id, o_ol_cnt, o_carrier_id, o_all_local, \
                    (SELECT COUNT(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = {d} AND no_o_id = {o_id}) \
               FROM orders WHERE o_w_id = 1 AND o_d_id = {d} AND o_id = {o_id}"
        ),
    )
    .await;
    assert_eq!(order, (c, t.lines.len() as u32, None, 1, 1));
    let lines: Vec<LineRow> = raw
        .query(format!(
            "SELECT ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, \
                    CAST(ol_quantity * i_price AS CHAR), ol_delivery_d \
               FROM order_line JOIN item ON i_id = ol_i_id \
              WHERE ol_w_id = 1 AND ol_d_id = {d} AND ol_o_id = {o_id} ORDER BY ol_number"
        ))
        .await
        .expect("order lines");
    assert_eq!(lines.len(), t.lines.len());
    for (k, (line, l)) in lines.iter().zip(&t.lines).enumerate() {
        assert_eq!(
            (line.0, line.1, line.2, line.3),
            (k as u32 + 1, l.item_id, 1, l.quantity)
        );
        assert_eq!(cents(&line.4), cents(&line.5), "amount of line {}", k + 1);
        assert_eq!(line.6, None);
    }
    let dist: u32 = one(
        raw,
        &format!(
            "SELECT COUNT(*) FROM order_line JOIN stock ON s_w_id = ol_supply_w_id AND s_i_id = ol_i_id \
              WHERE ol_w_id = 1 AND ol_d_id = {d} AND ol_o_id = {o_id} AND ol_dist_info = s_dist_{d:02}"
        ),
    )
    .await;
    assert_eq!(
        dist as usize,
        t.lines.len(),
        "ol_dist_info is s_dist_{d:02}"
    );
    for (item, s) in &expected {
        assert_eq!(&stock(raw, *item).await, s, "stock of item {item}");
    }
    let total: String = one(
        raw,
        &format!(
            "SELECT CAST(ROUND(SUM(ol_amount) * (1 - c_discount) * (1 + w_tax + d_tax), 2) AS CHAR) \
               FROM order_line, customer, warehouse, district \
              WHERE ol_w_id = 1 AND ol_d_id = {d} AND ol_o_id = {o_id} \
                AND c_w_id = 1 AND c_d_id = {d} AND c_id = {c} AND w_id = 1 \
                AND d_w_id = 1 AND d_id = {d}"
        ),
    )
    .await;
    assert_eq!(done.summary, format!("{head}{}", money(cents(&total))));
}

/// Every transaction kind, in the driver's mode, with effects checked on the server.
async fn battery(driver: &MyDriver, dbname: &str, blocking: bool) {
    let mut raw = raw(dbname).await;
    let (w, constants) = driver.prepare(1).await.expect("prepare");
    assert_eq!(w, 1);
    let stored: (u32, u32, u32) =
        one(&mut raw, "SELECT c_last, c_id, ol_i_id FROM tpcc_nurand").await;
    assert_eq!(
        (constants.c_last, constants.c_id, constants.ol_i_id),
        stored
    );
    let before = driver.counters().await.expect("counters");
    let mut conn = driver.connect(TERMINAL).await.expect("connect");
    if blocking {
        conn = conn.into_blocking().expect("a blocking socket");
    }
    // Both modes run on the lean connection; it blocks when asked.
    assert_eq!(conn.is_blocking(), blocking);
    let mut committed = 0;

    // New-Order: a line that replenishes its stock, an item ordered twice.
    let (low, _): (u32, i64) = one(
        &mut raw,
        "SELECT s_i_id, s_quantity FROM stock WHERE s_w_id = 1 AND s_quantity < 19 \
         ORDER BY s_i_id DESC LIMIT 1",
    )
    .await;
    let lines = vec![
        local(low, 10),
        local(500, 3),
        local(500, 4),
        local(1000, 1),
        local(2000, 2),
    ];
    committed_new_order(&mut conn, &mut raw, 3, 42, lines).await;
    committed += 1;
    // The most lines an order has.
    let lines = (1..=15)
        .map(|k| local(k * 6007 % 100_000, k % 10 + 1))
        .collect();
    committed_new_order(&mut conn, &mut raw, 10, 3000, lines).await;
    committed += 1;

    // The unused item rolls the order back (clause 2.4.2.3).
    let o_id = next_o_id(&mut raw, 4).await;
    let stock_77 = stock(&mut raw, 77).await;
    let rollbacks = com_rollback(&mut raw).await;
    let t = new_order(4, 7, vec![local(77, 5), local(100_001, 1)]);
    let done = ok("rolled back new order", conn.new_order(&t).await);
    assert!(done.rolled_back, "{done:?}");
    assert_eq!(
        done.summary,
        format!("New Order: w 1 d 4 c 7 o {o_id} lines 2 rolled back (item 100001 not valid)")
    );
    assert_eq!(next_o_id(&mut raw, 4).await, o_id, "d_next_o_id unchanged");
    let orders: u32 = one(
        &mut raw,
        &format!("SELECT COUNT(*) FROM orders WHERE o_w_id = 1 AND o_d_id = 4 AND o_id = {o_id}"),
    )
    .await;
    assert_eq!(orders, 0);
    assert_eq!(stock(&mut raw, 77).await, stock_77);
    assert!(
        com_rollback(&mut raw).await > rollbacks,
        "Com_rollback grows"
    );

    // Payment by id, a GC customer of the home district.
    let gc: u32 = one(
        &mut raw,
        "SELECT c_id FROM customer WHERE c_w_id = 1 AND c_d_id = 2 AND c_credit = 'GC' \
         ORDER BY c_id LIMIT 1",
    )
    .await;
    let ytd = "SELECT CAST(w_ytd AS CHAR), CAST(d_ytd AS CHAR) FROM warehouse, district \
               WHERE w_id = 1 AND d_w_id = 1 AND d_id = 2";
    let (w_ytd, d_ytd): (String, String) = one(&mut raw, ytd).await;
    let c_before = customer(&mut raw, 2, gc).await;
    let history = "SELECT COUNT(*) FROM history";
    let h_before: u64 = one(&mut raw, history).await;
    let t = Payment {
        w_id: 1,
        d_id: 2,
        c_w_id: 1,
        c_d_id: 2,
        customer: Customer::ById(gc),
        amount_cents: 12_345,
    };
    let done = ok("payment by id", conn.payment(&t).await);
    let balance = cents(&c_before.0) - 12_345;
    assert_eq!(
        done.summary,
        format!(
            "Payment: w 1 d 2 c {gc} amount 123.45 balance {} credit GC",
            money(balance)
        )
    );
    let (w_ytd2, d_ytd2): (String, String) = one(&mut raw, ytd).await;
    assert_eq!(cents(&w_ytd2), cents(&w_ytd) + 12_345);
    assert_eq!(cents(&d_ytd2), cents(&d_ytd) + 12_345);
    let c_after = customer(&mut raw, 2, gc).await;
    assert_eq!(cents(&c_after.0), balance);
    assert_eq!(cents(&c_after.1), cents(&c_before.1) + 12_345);
    assert_eq!(c_after.2, c_before.2 + 1);
    assert_eq!(c_after.5, c_before.5, "a GC customer's c_data is unchanged");
    assert_eq!(one::<u64>(&mut raw, history).await, h_before + 1);
    let h: (String, u32) = one(
        &mut raw,
        &format!(
            "SELECT CAST(h_amount AS CHAR), h_data = CONCAT(w_name, '    ', d_name) \
               FROM history, warehouse, district \
              WHERE h_c_w_id = 1 AND h_c_d_id = 2 AND h_c_id = {gc} AND h_d_id = 2 AND h_w_id = 1 \
                AND w_id = 1 AND d_w_id = 1 AND d_id = 2 AND h_amount = 123.45"
        ),
    )
    .await;
    assert_eq!(
        h,
        ("123.45".to_string(), 1),
        "h_data is w_name, four spaces, d_name"
    );

    // Payment by name, for a customer of another district: the middle one by c_first.
    let last: String = one(
        &mut raw,
        "SELECT c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 5 GROUP BY c_last \
         HAVING COUNT(*) >= 2 ORDER BY COUNT(*) DESC, c_last LIMIT 1",
    )
    .await;
    let ids: Vec<u32> = raw
        .query(format!(
            "SELECT c_id FROM customer WHERE c_w_id = 1 AND c_d_id = 5 AND c_last = '{last}' \
             ORDER BY c_first, c_id"
        ))
        .await
        .expect("customers by name");
    let middle = ids[ids.len().div_ceil(2) - 1];
    let c_before = customer(&mut raw, 5, middle).await;
    let t = Payment {
        w_id: 1,
        d_id: 2,
        c_w_id: 1,
        c_d_id: 5,
        customer: Customer::ByName(last.clone()),
        amount_cents: 500_000,
    };
    let done = ok("payment by name", conn.payment(&t).await);
    let balance = cents(&c_before.0) - 500_000;
    assert_eq!(
        done.summary,
        format!(
            "Payment: w 1 d 2 c {middle} of w 1 d 5 (by name {last}) amount 5000.00 balance {} credit {}",
            money(balance),
            c_before.4
        )
    );
    let c_after = customer(&mut raw, 5, middle).await;
    assert_eq!((cents(&c_after.0), c_after.2), (balance, c_before.2 + 1));

    // Payment of a BC customer: the payment is put in front of c_data.
    let bc: u32 = one(
        &mut raw,
        "SELECT c_id FROM customer WHERE c_w_id = 1 AND c_d_id = 6 AND c_credit = 'BC' \
         ORDER BY c_id DESC LIMIT 1",
    )
    .await;
    let c_before = customer(&mut raw, 6, bc).await;
    let t = Payment {
        w_id: 1,
        d_id: 7,
        c_w_id: 1,
        c_d_id: 6,
        customer: Customer::ById(bc),
        amount_cents: 100,
    };
    let done = ok("payment of a BC customer", conn.payment(&t).await);
    assert!(done.summary.ends_with("credit BC"), "{}", done.summary);
    let c_after = customer(&mut raw, 6, bc).await;
    let expected: String = format!("{bc} 6 1 7 1 1.00 | {}", c_before.5)
        .chars()
        .take(500)
        .collect();
    assert_eq!(c_after.5, expected);

    // Order-Status by id: the order placed above.
    let (balance, o_id): (String, u32) = one(
        &mut raw,
        "SELECT CAST(c_balance AS CHAR), (SELECT MAX(o_id) FROM orders WHERE o_w_id = 1 AND o_d_id = 3 AND o_c_id = 42) \
           FROM customer WHERE c_w_id = 1 AND c_d_id = 3 AND c_id = 42",
    )
    .await;
    let t = OrderStatus {
        w_id: 1,
        d_id: 3,
        customer: Customer::ById(42),
    };
    let done = ok("order status by id", conn.order_status(&t).await);
    assert_eq!(
        done.summary,
        format!(
            "Order Status: w 1 d 3 c 42 balance {} o {o_id} carrier none lines 5",
            money(cents(&balance))
        )
    );

    // Order-Status by name: the customer paid above, and its latest order.
    let (balance, o_id, carrier, count): (String, u32, Option<u32>, u32) = one(
        &mut raw,
        &format!(
            "SELECT CAST(c_balance AS CHAR), o_id, o_carrier_id, o_ol_cnt FROM customer, orders \
              WHERE c_w_id = 1 AND c_d_id = 5 AND c_id = {middle} \
                AND o_w_id = 1 AND o_d_id = 5 AND o_c_id = {middle} \
              ORDER BY o_id DESC LIMIT 1"
        ),
    )
    .await;
    let t = OrderStatus {
        w_id: 1,
        d_id: 5,
        customer: Customer::ByName(last.clone()),
    };
    let done = ok("order status by name", conn.order_status(&t).await);
    let carrier = carrier.map_or("none".to_string(), |c| c.to_string());
    assert_eq!(
        done.summary,
        format!(
            "Order Status: w 1 d 5 c {middle} (by name {last}) balance {} o {o_id} carrier {carrier} lines {count}",
            money(cents(&balance))
        )
    );

    // Delivery: the oldest new order of every district.
    let oldest: Vec<(u32, u32, u32, String, String, i64)> = raw
        .query(
            "SELECT no_d_id, no_o_id, o_c_id, CAST(c_balance AS CHAR), \
                    (SELECT CAST(SUM(ol_amount) AS CHAR) FROM order_line \
                      WHERE ol_w_id = 1 AND ol_d_id = no_d_id AND ol_o_id = no_o_id), \
                    c_delivery_cnt \
               FROM new_order \
               JOIN orders ON o_w_id = 1 AND o_d_id = no_d_id AND o_id = no_o_id \
               JOIN customer ON c_w_id = 1 AND c_d_id = no_d_id AND c_id = o_c_id \
              WHERE no_w_id = 1 \
                AND no_o_id = (SELECT MIN(no_o_id) FROM new_order n \
                                WHERE n.no_w_id = 1 AND n.no_d_id = new_order.no_d_id) \
              ORDER BY no_d_id",
        )
        .await
        .expect("oldest new orders");
    assert_eq!(oldest.len(), 10);
    let t = Delivery {
        w_id: 1,
        carrier_id: 7,
    };
    let done = ok("delivery", conn.delivery(&t).await);
    assert_eq!(
        done.summary,
        "Delivery: w 1 carrier 7 delivered 10 skipped 0"
    );
    for (d, o, c, balance, amount, deliveries) in oldest {
        let gone: u32 = one(
            &mut raw,
            &format!("SELECT COUNT(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = {d} AND no_o_id = {o}"),
        )
        .await;
        assert_eq!(gone, 0, "new order {o} of district {d} delivered");
        let (carrier, undelivered): (u32, u32) = one(
            &mut raw,
            &format!(
                "SELECT o_carrier_id, (SELECT COUNT(*) FROM order_line WHERE ol_w_id = 1 \
                         AND ol_d_id = {d} AND ol_o_id = {o} AND ol_delivery_d IS NULL) \
                   FROM orders WHERE o_w_id = 1 AND o_d_id = {d} AND o_id = {o}"
            ),
        )
        .await;
        assert_eq!((carrier, undelivered), (7, 0), "order {o} of district {d}");
        let after = customer(&mut raw, d, c).await;
        assert_eq!(
            cents(&after.0),
            cents(&balance) + cents(&amount),
            "customer {c} of {d}"
        );
        assert_eq!(after.3, deliveries + 1);
    }

    // Stock-Level, against the same count made here.
    for threshold in [10, 15, 20] {
        let low: u32 = one(
            &mut raw,
            &format!(
                "SELECT COUNT(DISTINCT s_i_id) FROM district, order_line, stock \
                  WHERE d_w_id = 1 AND d_id = 4 AND ol_w_id = 1 AND ol_d_id = 4 \
                    AND ol_o_id >= d_next_o_id - 20 AND ol_o_id < d_next_o_id \
                    AND s_w_id = 1 AND s_i_id = ol_i_id AND s_quantity < {threshold}"
            ),
        )
        .await;
        let t = StockLevel {
            w_id: 1,
            d_id: 4,
            threshold,
        };
        let done = ok("stock level", conn.stock_level(&t).await);
        assert_eq!(
            done.summary,
            format!("Stock Level: w 1 d 4 threshold {threshold} low {low}")
        );
    }

    let after = driver.counters().await.expect("counters");
    assert_eq!(after.new_orders, before.new_orders + committed);
    assert!(
        after.transactions >= before.transactions + 10,
        "{before:?} then {after:?}"
    );

    // A failure says which transaction and why, rolls back, and leaves the connection usable.
    let o_id = next_o_id(&mut raw, 4).await;
    let t = new_order(4, 3001, vec![local(77, 5)]);
    let e = conn
        .new_order(&t)
        .await
        .expect_err("customer 3001 does not exist");
    let msg = e.to_string();
    assert!(
        msg.contains("New Order") && msg.contains("3001") && msg.contains("not found"),
        "{msg}"
    );
    assert_eq!(kind(&e), Some(Failure::Other), "{e}");
    assert_eq!(
        next_o_id(&mut raw, 4).await,
        o_id,
        "d_next_o_id rolled back"
    );
    // Had the failed order's district update not been rolled back, this commit would
    // carry it along and skip an order id.
    let lines = vec![
        local(77, 5),
        local(78, 6),
        local(79, 7),
        local(80, 8),
        local(81, 9),
    ];
    committed_new_order(&mut conn, &mut raw, 4, 7, lines).await;
    committed += 1;
    let t = StockLevel {
        w_id: 1,
        d_id: 11,
        threshold: 10,
    };
    let e = conn
        .stock_level(&t)
        .await
        .expect_err("district 11 does not exist");
    let msg = e.to_string();
    assert!(
        msg.contains("Stock Level") && msg.contains("district 11"),
        "{msg}"
    );
    ok(
        "stock level after a failure",
        conn.stock_level(&StockLevel {
            w_id: 1,
            d_id: 4,
            threshold: 10,
        })
        .await,
    );

    let after = driver.counters().await.expect("counters");
    assert_eq!(after.new_orders, before.new_orders + committed);
    assert!(
        after.transactions >= before.transactions + 10,
        "{before:?} then {after:?}"
    );

    conn.close().await;
    driver.close().await;
    let _ = raw.disconnect().await;
}

fn kind(e: &Error) -> Option<Failure> {
    match e {
        Error::Db(d) => Some(d.kind),
        _ => None,
    }
}

/// A client-side New-Order whose statement the server interrupts halfway (`KILL QUERY` while
/// it waits for a stock row another session holds; on MySQL, or without compound
/// statements, after it has moved the district's counter): the error is told, the
/// transaction is rolled back, and the next New-Order on the same connection commits alone.
async fn interrupted_new_order(driver: &MyDriver, dbname: &str) {
    let mut holder = raw(dbname).await;
    let mut killer = raw(dbname).await;
    let next = "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = 3";
    let orders = "SELECT COUNT(*) FROM orders WHERE o_w_id = 1 AND o_d_id = 3";
    let (next_before, orders_before): (u32, i64) =
        (one(&mut holder, next).await, one(&mut holder, orders).await);
    let holder_id: u64 = one(&mut holder, "SELECT CONNECTION_ID()").await;
    holder.query_drop("START TRANSACTION").await.expect("begin");
    holder
        .query_drop("SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = 77 FOR UPDATE")
        .await
        .expect("lock a stock row");
    let mut conn = driver.connect(TERMINAL).await.expect("connect");
    let blocked = new_order(3, 5, vec![local(76, 1), local(77, 2)]);
    let kill = async {
        // When the terminal waits for the stock row, interrupt its statement.
        for _ in 0..200 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let ids: Vec<u64> = killer
                .exec(
                    "SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? \
                     AND ID NOT IN (CONNECTION_ID(), ?) AND INFO LIKE '%FROM stock%FOR UPDATE%'",
                    (dbname, holder_id),
                )
                .await
                .expect("processlist");
            if let Some(id) = ids.first() {
                killer
                    .query_drop(format!("KILL QUERY {id}"))
                    .await
                    .expect("kill query");
                return true;
            }
        }
        false
    };
    let (r, killed) = tokio::join!(conn.new_order(&blocked), kill);
    assert!(killed, "the terminal never waited for the stock row");
    let e = r.expect_err("an interrupted New-Order");
    assert_eq!(kind(&e), Some(Failure::Other), "{e}");
    assert!(e.to_string().contains("interrupted"), "{e}");
    holder.query_drop("COMMIT").await.expect("release");
    let again = new_order(3, 5, vec![local(78, 1)]);
    ok("the next New-Order", conn.new_order(&again).await);
    let (next_after, orders_after): (u32, i64) =
        (one(&mut holder, next).await, one(&mut holder, orders).await);
    assert_eq!(
        (next_after, orders_after),
        (next_before + 1, orders_before + 1),
        "only the second New-Order committed"
    );
    conn.close().await;
    let _ = holder.disconnect().await;
    let _ = killer.disconnect().await;
}

/// What a client-side New-Order leaves in district `d`: (d_next_o_id, its orders, its new
/// orders, its order lines).
async fn district_work(conn: &mut Conn, d: u32) -> (u32, i64, i64, i64) {
    let count = |table: &str, prefix: &str| {
        format!("SELECT COUNT(*) FROM {table} WHERE {prefix}_w_id = 1 AND {prefix}_d_id = {d}")
    };
    (
        next_o_id(conn, d).await,
        one(conn, &count("orders", "o")).await,
        one(conn, &count("new_order", "no")).await,
        one(conn, &count("order_line", "ol")).await,
    )
}

/// A New-Order of `item` for customer `c` of district `d` once the district's next order id
/// is taken by another session: it fails on the duplicate, nothing of it is committed, STOCK
/// is as it was; then the id is freed. The error, for the caller to look at.
async fn taken_order_id(
    conn: &mut impl TxnConn,
    raw: &mut Conn,
    d: u32,
    c: u32,
    item: u32,
) -> Error {
    let o_id = next_o_id(raw, d).await;
    raw.query_drop(format!(
        "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, \
         o_all_local) VALUES ({o_id}, {d}, 1, 1, NOW(), NULL, 1, 1)"
    ))
    .await
    .expect("take the next order id");
    let before = district_work(raw, d).await;
    let stock_before = stock(raw, item).await;
    let e = conn
        .new_order(&new_order(d, c, vec![local(item, 3)]))
        .await
        .expect_err("the order id is taken");
    assert!(e.to_string().contains("Duplicate entry"), "{e}");
    assert_eq!(district_work(raw, d).await, before, "nothing committed");
    assert_eq!(stock(raw, item).await, stock_before, "STOCK untouched");
    raw.query_drop(format!(
        "DELETE FROM orders WHERE o_w_id = 1 AND o_d_id = {d} AND o_id = {o_id}"
    ))
    .await
    .expect("free the order id");
    e
}

/// A client-side New-Order whose insert of its order fails (the order id is taken) while the
/// other writes of the same batch succeed: none of them is committed, the district's counter
/// and STOCK are as they were, and the connection goes on. A Payment to a missing customer
/// commits nothing either.
async fn failed_write_batch(driver: &MyDriver, dbname: &str) {
    let mut raw = raw(dbname).await;
    let d = 6;
    let mut conn = driver.connect(TERMINAL).await.expect("connect");
    let e = taken_order_id(&mut conn, &mut raw, d, 9, 90).await;
    assert_eq!(kind(&e), Some(Failure::Other), "{e}");
    committed_new_order(&mut conn, &mut raw, d, 9, vec![local(90, 3)]).await;

    // A Payment to a customer that does not exist changes nothing at all.
    let paid = "SELECT CAST(w_ytd AS CHAR), CAST(d_ytd AS CHAR), \
                (SELECT COUNT(*) FROM history) FROM warehouse, district \
                WHERE w_id = 1 AND d_w_id = 1 AND d_id = 3";
    let before: (String, String, i64) = one(&mut raw, paid).await;
    let t = Payment {
        w_id: 1,
        d_id: 3,
        c_w_id: 1,
        c_d_id: 3,
        customer: Customer::ById(3001),
        amount_cents: 1_000,
    };
    let e = conn
        .payment(&t)
        .await
        .expect_err("customer 3001 does not exist");
    assert!(e.to_string().contains("not found"), "{e}");
    assert_eq!(one::<(String, String, i64)>(&mut raw, paid).await, before);
    conn.close().await;
    let _ = raw.disconnect().await;
}

/// A client-side New-Order dropped while its first batch waits for a STOCK row another
/// session holds (a stop drops a transaction so): the next call on the connection reads its
/// own replies, and the dropped transaction is rolled back, not committed with the next one.
async fn dropped_client_call(driver: &MyDriver, dbname: &str) {
    let mut raw = raw(dbname).await;
    let d = 7;
    let before = district_work(&mut raw, d).await;
    let stock_before = stock(&mut raw, 92).await;
    let mut holder = self::raw(dbname).await;
    holder.query_drop("START TRANSACTION").await.expect("begin");
    holder
        .query_drop("SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = 92 FOR UPDATE")
        .await
        .expect("lock a stock row");
    let mut conn = driver.connect(TERMINAL).await.expect("connect");
    {
        use std::future::Future as _;
        let t = new_order(d, 11, vec![local(91, 2), local(92, 4)]);
        let mut call = Box::pin(conn.new_order(&t));
        // One poll sends the first batch; its replies are still to come.
        let pending =
            std::future::poll_fn(|cx| std::task::Poll::Ready(call.as_mut().poll(cx).is_pending()))
                .await;
        assert!(pending, "the New-Order is under way");
    }
    holder.query_drop("COMMIT").await.expect("release");
    let _ = holder.disconnect().await;
    let t = StockLevel {
        w_id: 1,
        d_id: d,
        threshold: 15,
    };
    let done = ok(
        "stock level after a dropped call",
        conn.stock_level(&t).await,
    );
    assert!(done
        .summary
        .starts_with(&format!("Stock Level: w 1 d {d} threshold 15 low ")));
    assert_eq!(
        district_work(&mut raw, d).await,
        before,
        "the dropped New-Order was rolled back"
    );
    assert_eq!(stock(&mut raw, 92).await, stock_before, "STOCK untouched");
    committed_new_order(&mut conn, &mut raw, d, 11, vec![local(91, 2)]).await;
    conn.close().await;
    let _ = raw.disconnect().await;
}

/// New-Orders and Payments without summaries (as a timed run makes them): committed with
/// their effects, quiet; an unused item still rolls back, a missing customer still fails.
async fn quiet_transactions(driver: &MyDriver, dbname: &str) {
    let mut raw = raw(dbname).await;
    let d = 8;
    driver.prepare(1).await.expect("prepare");
    let mut conn = driver.connect(TERMINAL).await.expect("connect");
    let (next, orders, new_orders, lines) = district_work(&mut raw, d).await;
    let stock_before = stock(&mut raw, 93).await;
    let done = ok(
        "a quiet New-Order",
        conn.new_order(&new_order(d, 12, vec![local(93, 2), local(94, 1)]))
            .await,
    );
    assert_eq!(
        (done.rolled_back, done.summary.as_str()),
        (false, ""),
        "{done:?}"
    );
    assert_eq!(
        district_work(&mut raw, d).await,
        (next + 1, orders + 1, new_orders + 1, lines + 2)
    );
    let o: (u32, u32) = one(
        &mut raw,
        &format!(
            "SELECT o_c_id, o_ol_cnt FROM orders WHERE o_w_id = 1 AND o_d_id = {d} AND o_id = {next}"
        ),
    )
    .await;
    assert_eq!(o, (12, 2), "order {next} is the district's next");
    assert_eq!(
        stock(&mut raw, 93).await.2,
        stock_before.2 + 1,
        "s_order_cnt"
    );
    let done = ok(
        "a quiet rolled-back New-Order",
        conn.new_order(&new_order(d, 12, vec![local(93, 2), local(100_001, 1)]))
            .await,
    );
    assert!(done.rolled_back, "{done:?}");
    assert_eq!(next_o_id(&mut raw, d).await, next + 1, "nothing taken");

    // A failed write (the order id taken beforehand) commits none of the others.
    taken_order_id(&mut conn, &mut raw, d, 12, 93).await;

    // Payment by name: the middle customer (clause 2.5.2.2), for names shared by an odd and an
    // even number of customers.
    let history = "SELECT COUNT(*) FROM history";
    for parity in [0, 1] {
        let last: String = one(
            &mut raw,
            &format!(
                "SELECT c_last FROM customer WHERE c_w_id = 1 AND c_d_id = {d} GROUP BY c_last \
                 HAVING COUNT(*) >= 2 AND COUNT(*) % 2 = {parity} ORDER BY c_last LIMIT 1"
            ),
        )
        .await;
        let ids: Vec<u32> = raw
            .query(format!(
                "SELECT c_id FROM customer WHERE c_w_id = 1 AND c_d_id = {d} \
                 AND c_last = '{last}' ORDER BY c_first, c_id"
            ))
            .await
            .expect("customers by name");
        let middle = ids[ids.len().div_ceil(2) - 1];
        let before = customer(&mut raw, d, middle).await;
        let rows: i64 = one(&mut raw, history).await;
        let t = Payment {
            w_id: 1,
            d_id: 2,
            c_w_id: 1,
            c_d_id: d,
            customer: Customer::ByName(last.clone()),
            amount_cents: 12_345,
        };
        let done = ok("a quiet Payment by name", conn.payment(&t).await);
        assert_eq!(done.summary, "", "{done:?}");
        let after = customer(&mut raw, d, middle).await;
        assert_eq!(
            (cents(&after.0), after.2),
            (cents(&before.0) - 12_345, before.2 + 1),
            "customer {middle} of {} named {last}",
            ids.len()
        );
        assert_eq!(one::<i64>(&mut raw, history).await, rows + 1);
    }
    let rows: i64 = one(&mut raw, history).await;
    for (customer, named) in [
        (Customer::ById(3001), "3001"),
        (Customer::ByName("NOBODY".into()), "named NOBODY"),
    ] {
        let t = Payment {
            w_id: 1,
            d_id: 2,
            c_w_id: 1,
            c_d_id: d,
            customer,
            amount_cents: 100,
        };
        let e = conn
            .payment(&t)
            .await
            .expect_err("no such customer")
            .to_string();
        assert!(
            e.contains(named) && (e.contains("not found") || e.contains("no customer")),
            "{e}"
        );
    }
    assert_eq!(one::<i64>(&mut raw, history).await, rows, "no HISTORY row");
    ok(
        "a Payment after a failed one",
        conn.payment(&Payment {
            w_id: 1,
            d_id: 2,
            c_w_id: 1,
            c_d_id: d,
            customer: Customer::ById(5),
            amount_cents: 100,
        })
        .await,
    );
    conn.close().await;
    driver.close().await;
    let _ = raw.disconnect().await;
}

/// The procedures without summaries (as a timed run calls them, their OUT parameters into
/// session variables; NEWORD's in a compound statement that tells a rollback, or as on MySQL
/// returned): each one does its work, a rollback is known, and a failure is still told.
async fn quiet_procedures(driver: &MyDriver, dbname: &str) {
    let mut raw = raw(dbname).await;
    driver.prepare(1).await.expect("prepare");
    let mut conn = driver.connect(TERMINAL).await.expect("connect");
    let d = 9;
    let next = next_o_id(&mut raw, d).await;
    let done = ok(
        "a quiet NEWORD",
        conn.new_order(&new_order(d, 14, vec![local(95, 1)])).await,
    );
    assert_eq!((done.rolled_back, done.summary.as_str()), (false, ""));
    assert_eq!(next_o_id(&mut raw, d).await, next + 1);
    let done = ok(
        "a quiet NEWORD rolled back",
        conn.new_order(&new_order(d, 14, vec![local(95, 1), local(100_001, 1)]))
            .await,
    );
    assert!(done.rolled_back, "a rollback is told");
    assert_eq!(next_o_id(&mut raw, d).await, next + 1, "and nothing taken");
    let e = conn
        .new_order(&new_order(d, 3001, vec![local(95, 1)]))
        .await
        .expect_err("no customer 3001");
    assert!(e.to_string().contains("customer 3001"), "{e}");
    ok(
        "a quiet NEWORD after a failed one",
        conn.new_order(&new_order(d, 14, vec![local(96, 2)])).await,
    );
    assert_eq!(next_o_id(&mut raw, d).await, next + 2);

    let before = customer(&mut raw, d, 14).await;
    let t = Payment {
        w_id: 1,
        d_id: 2,
        c_w_id: 1,
        c_d_id: d,
        customer: Customer::ById(14),
        amount_cents: 2_500,
    };
    let done = ok("a quiet PAYMENT", conn.payment(&t).await);
    assert_eq!(done.summary, "");
    let after = customer(&mut raw, d, 14).await;
    assert_eq!(
        (cents(&after.0), after.2),
        (cents(&before.0) - 2_500, before.2 + 1)
    );
    let e = conn
        .payment(&Payment {
            customer: Customer::ById(3001),
            ..t
        })
        .await
        .expect_err("no customer 3001");
    assert!(e.to_string().contains("3001"), "{e}");

    let t = OrderStatus {
        w_id: 1,
        d_id: d,
        customer: Customer::ById(14),
    };
    assert_eq!(ok("a quiet OSTAT", conn.order_status(&t).await).summary, "");

    let undelivered = "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1";
    let waiting: i64 = one(&mut raw, undelivered).await;
    let t = Delivery {
        w_id: 1,
        carrier_id: 3,
    };
    assert_eq!(ok("a quiet DELIVERY", conn.delivery(&t).await).summary, "");
    assert_eq!(
        one::<i64>(&mut raw, undelivered).await,
        waiting - 10,
        "one order delivered in each district"
    );

    let t = StockLevel {
        w_id: 1,
        d_id: d,
        threshold: 12,
    };
    assert_eq!(ok("a quiet SLEV", conn.stock_level(&t).await).summary, "");
    let e = conn
        .stock_level(&StockLevel { d_id: 11, ..t })
        .await
        .expect_err("district 11 does not exist");
    assert!(e.to_string().contains("district 11"), "{e}");
    ok(
        "a quiet SLEV after a failed one",
        conn.stock_level(&t).await,
    );
    conn.close().await;
    driver.close().await;
    let _ = raw.disconnect().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn procedures_and_client_sql_on_mariadb() {
    let name = dbname("maria");
    let procs = settings(Database::Maria, &name, false);
    let client = settings(Database::Maria, &name, true);
    let _scratch = Scratch {
        settings: procs.clone(),
        db: Database::Maria,
    };
    build(&procs, Database::Maria).await;

    let sp = MyDriver::new(&procs, Database::Maria).with_summaries(true);
    assert_eq!((sp.name(), sp.mode()), ("MariaDB", Mode::StoredProcedures));
    battery(&sp, &name, false).await;
    // On a blocking socket, as a virtual user with its own thread runs them.
    battery(&sp, &name, true).await;
    quiet_procedures(&MyDriver::new(&procs, Database::Maria), &name).await;
    // NEWORD's OUT parameters, as on MySQL.
    let plain = MyDriver::new(&procs, Database::Maria).without_compound_statements();
    quiet_procedures(&plain, &name).await;
    let sql = MyDriver::new(&client, Database::Maria).with_summaries(true);
    assert_eq!(sql.mode(), Mode::ClientSql);
    battery(&sql, &name, false).await;
    battery(&sql, &name, true).await;
    interrupted_new_order(&sql, &name).await;
    failed_write_batch(&sql, &name).await;
    dropped_client_call(&sql, &name).await;
    quiet_transactions(&MyDriver::new(&client, Database::Maria), &name).await;
    // The statements MySQL runs, as a MySQL server would get them.
    let plain = MyDriver::new(&client, Database::Maria)
        .with_summaries(true)
        .without_compound_statements();
    battery(&plain, &name, false).await;
    interrupted_new_order(&plain, &name).await;
    failed_write_batch(&plain, &name).await;
    dropped_client_call(&plain, &name).await;
    quiet_transactions(
        &MyDriver::new(&client, Database::Maria).without_compound_statements(),
        &name,
    )
    .await;
    check(&procs, Database::Maria).await;

    // More warehouses asked for than built: the run takes the schema's, as HammerDB's
    // driver does (the session warns of the difference).
    let (have, _) = sp
        .prepare(2)
        .await
        .expect("a run of the schema's one warehouse");
    assert_eq!(have, 1);

    // A lost connection is told as such; the counters reconnect.
    let mut raw = raw(&name).await;
    let mut conn = sql.connect(TERMINAL).await.expect("connect");
    sql.counters().await.expect("counters");
    assert!(common::maria_kill_others(&mut raw, &name).await >= 2);
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let e = conn
        .stock_level(&StockLevel {
            w_id: 1,
            d_id: 1,
            threshold: 10,
        })
        .await
        .expect_err("killed connection");
    assert_eq!(kind(&e), Some(Failure::Lost), "{e}");
    conn.close().await;
    sql.counters()
        .await
        .expect("counters after a lost connection");
    sql.close().await;

    // A missing procedure stops the procedure mode, not client-side SQL.
    raw.query_drop("DROP PROCEDURE SLEV").await.expect("drop");
    let e = sp
        .prepare(1)
        .await
        .expect_err("SLEV is missing")
        .to_string();
    assert!(
        e.contains("lacks the stored procedure SLEV:")
            && e.contains("buildschema")
            && e.contains("maria_no_stored_procs"),
        "{e}"
    );
    sql.prepare(1)
        .await
        .expect("client-side SQL needs no procedure");
    let _ = raw.disconnect().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mysql_dictionary_runs_both_modes() {
    let name = dbname("mysql");
    let procs = settings(Database::Mysql, &name, false);
    let _scratch = Scratch {
        settings: procs.clone(),
        db: Database::Mysql,
    };
    build(&procs, Database::Mysql).await;
    let sp = MyDriver::new(&procs, Database::Mysql).with_summaries(true);
    assert_eq!(sp.name(), "MySQL");
    battery(&sp, &name, false).await;
    let sql = MyDriver::new(&settings(Database::Mysql, &name, true), Database::Mysql)
        .with_summaries(true);
    battery(&sql, &name, false).await;
    check(&procs, Database::Mysql).await;
}

#[tokio::test]
async fn prepare_refuses_a_missing_database() {
    let name = dbname("none");
    for no_procs in [false, true] {
        let driver = MyDriver::new(&settings(Database::Maria, &name, no_procs), Database::Maria)
            .with_summaries(true);
        let e = driver
            .prepare(1)
            .await
            .expect_err("no database")
            .to_string();
        assert_eq!(
            e,
            format!(
                "The TPROC-C schema {name} does not exist on MariaDB at {}: build it with \
                 buildschema, or set maria_dbase to the database that holds it",
                Servers::get().maria_socket
            )
        );
    }
}

/// The CA that signed the CI MariaDB's certificate, as `scripts/ci/servers.sh` makes it.
fn ci_certificate() -> std::path::PathBuf {
    let dir = std::env::var("HAMMER_CI_DIR").unwrap_or_else(|_| "/tmp/hammer-ci".into());
    let cert = std::path::Path::new(&dir).join("ssl/ca.crt");
    assert!(
        cert.exists(),
        "{} not found: start the test servers with `scripts/ci/servers.sh start`",
        cert.display()
    );
    cert
}

/// `settings` with TLS on, over TCP, checked against `ca` or not checked at all.
fn with_tls(settings: &Settings, ca: Option<&std::path::Path>) -> Settings {
    let mut s = settings.clone();
    let t = Target::Db(Database::Maria);
    let (capath, file) = match ca {
        Some(ca) => (
            ca.parent().expect("directory").display().to_string(),
            ca.file_name().expect("file").to_string_lossy().into_owned(),
        ),
        None => (String::new(), String::new()),
    };
    for (section, key, value) in [
        ("connection", "maria_socket", "null"),
        ("connection", "maria_ssl", "true"),
        ("connection", "maria_ssl_linux_capath", capath.as_str()),
        ("connection", "maria_ssl_ca", file.as_str()),
    ] {
        s.set(t, section, key, value)
            .unwrap_or_else(|e| panic!("{key}: {e}"));
    }
    s
}

/// The lean connection of the procedure mode: over TLS, its failures told as they are, a
/// killed connection lost, a call dropped halfway harmless to the next.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lean_connection_of_the_procedure_mode() {
    let name = dbname("lean");
    let procs = settings(Database::Maria, &name, false);
    let _scratch = Scratch {
        settings: procs.clone(),
        db: Database::Maria,
    };
    build(&procs, Database::Maria).await;

    // TLS without a CA (encrypt only): every transaction, checked on the server.
    let tls = MyDriver::new(&with_tls(&procs, None), Database::Maria).with_summaries(true);
    let conn = tls.connect(TERMINAL).await.expect("connect over TLS");
    assert!(conn.is_lean_tls());
    conn.close().await;
    battery(&tls, &name, false).await;
    battery(&tls, &name, true).await;
    // Client-side SQL over the same encrypted lean connection.
    let client_tls = with_tls(&settings(Database::Maria, &name, true), None);
    let tls_sql = MyDriver::new(&client_tls, Database::Maria).with_summaries(true);
    battery(&tls_sql, &name, true).await;
    // TLS asked for while the socket is set too (and there): TLS over TCP, on both paths.
    let mut both = procs.clone();
    for (key, value) in [
        ("maria_ssl", "true"),
        ("maria_ssl_linux_capath", ""),
        ("maria_ssl_ca", ""),
    ] {
        both.set(Target::Db(Database::Maria), "connection", key, value)
            .unwrap_or_else(|e| panic!("{key}: {e}"));
    }
    let target = hammer::db::mysql::MyTarget::schema(&both, &hammer::db::mysql::dialect::MARIADB);
    let servers = Servers::get();
    assert!(std::path::Path::new(&servers.maria_socket).exists());
    assert_eq!(
        target.peer().addr,
        format!("{}:{}", servers.maria_host, servers.maria_port)
    );
    let conn = MyDriver::new(&both, Database::Maria)
        .connect(TERMINAL)
        .await
        .expect("TLS over TCP with a socket set");
    assert!(conn.is_lean_tls() && !conn.is_socket());
    conn.close().await;
    // TLS checked against a CA file (the CI certificate is its own trust anchor).
    let ca = ci_certificate();
    let with_ca = with_tls(&procs, Some(&ca));
    let slev = StockLevel {
        w_id: 1,
        d_id: 2,
        threshold: 15,
    };
    let mut conn = MyDriver::new(&with_ca, Database::Maria)
        .connect(TERMINAL)
        .await
        .expect("TLS verified against the CA");
    assert!(conn.is_lean_tls());
    ok("stock level over TLS", conn.stock_level(&slev).await);
    conn.close().await;

    // A wrong password: the server's refusal, without the password.
    for s in [procs.clone(), with_tls(&procs, None)] {
        let mut wrong = s.clone();
        wrong
            .set(
                Target::Db(Database::Maria),
                "tpcc",
                "maria_pass",
                "Wr0ngPa55",
            )
            .expect("maria_pass");
        let e = MyDriver::new(&wrong, Database::Maria)
            .connect(TERMINAL)
            .await
            .err()
            .expect("wrong password");
        assert_eq!(kind(&e), Some(Failure::Auth), "{e}");
        assert!(
            e.to_string()
                .contains("as user root: authentication failed (Access denied for user 'root'@"),
            "{e}"
        );
        assert!(!e.to_string().contains("Wr0ngPa55"), "{e}");
    }

    // A call dropped halfway (the driver drops a transaction at a stop): the next call
    // reads its own reply, not the dropped one's.
    let sp = MyDriver::new(&procs, Database::Maria).with_summaries(true);
    let mut conn = sp.connect(TERMINAL).await.expect("connect");
    assert!(!conn.is_lean_tls());
    let mut raw = raw(&name).await;
    let carried = "SELECT COUNT(*) FROM orders WHERE o_w_id = 1 AND o_carrier_id = 3";
    let before: u32 = one(&mut raw, carried).await;
    // The Delivery waits for district 1's new orders, which another session holds, so its
    // reply cannot come before the call is dropped, however the threads are scheduled.
    let mut holder = self::raw(&name).await;
    holder.query_drop("START TRANSACTION").await.expect("begin");
    holder
        .query_drop("SELECT no_o_id FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 FOR UPDATE")
        .await
        .expect("lock the new orders");
    {
        let delivery = Delivery {
            w_id: 1,
            carrier_id: 3,
        };
        use std::future::Future as _;
        let mut call = Box::pin(conn.delivery(&delivery));
        // One poll sends the request; the reply is still to come.
        let pending =
            std::future::poll_fn(|cx| std::task::Poll::Ready(call.as_mut().poll(cx).is_pending()))
                .await;
        assert!(pending, "the delivery is under way");
    }
    holder.query_drop("COMMIT").await.expect("release");
    let _ = holder.disconnect().await;
    let low: u32 = one(
        &mut raw,
        "SELECT COUNT(DISTINCT s_i_id) FROM district, order_line, stock \
          WHERE d_w_id = 1 AND d_id = 2 AND ol_w_id = 1 AND ol_d_id = 2 \
            AND ol_o_id >= d_next_o_id - 20 AND ol_o_id < d_next_o_id \
            AND s_w_id = 1 AND s_i_id = ol_i_id AND s_quantity < 15",
    )
    .await;
    let done = ok(
        "stock level after a dropped call",
        conn.stock_level(&slev).await,
    );
    assert_eq!(
        done.summary,
        format!("Stock Level: w 1 d 2 threshold 15 low {low}")
    );
    // The dropped Delivery ran all the same: an order in each district.
    assert_eq!(one::<u32>(&mut raw, carried).await, before + 10);

    // A killed connection is lost; a new one works.
    assert!(common::maria_kill_others(&mut raw, &name).await >= 1);
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let e = conn
        .stock_level(&slev)
        .await
        .expect_err("killed connection");
    assert_eq!(kind(&e), Some(Failure::Lost), "{e}");
    assert!(e.to_string().contains("Stock Level"), "{e}");
    conn.close().await;
    let mut conn = sp.connect(TERMINAL).await.expect("reconnect");
    ok(
        "stock level after a reconnect",
        conn.stock_level(&slev).await,
    );
    conn.close().await;
    // The same on blocking sockets, over the unix socket and over TCP with TLS.
    for driver in [&sp, &tls] {
        let mut conn = driver.connect(TERMINAL).await.expect("connect");
        conn = conn.into_blocking().expect("a blocking socket");
        assert!(conn.is_blocking());
        ok("stock level, blocking", conn.stock_level(&slev).await);
        assert!(common::maria_kill_others(&mut raw, &name).await >= 1);
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let e = conn
            .stock_level(&slev)
            .await
            .expect_err("killed connection, blocking");
        assert_eq!(kind(&e), Some(Failure::Lost), "{e}");
        conn.close().await;
    }
    sp.close().await;
    let _ = raw.disconnect().await;
}

/// Bytes that come after the server's greeting but before TLS are not the server's answers
/// under TLS: a man in the middle could forge them. The lean connection refuses the session.
#[tokio::test]
async fn unencrypted_bytes_before_tls_are_refused() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let servers = Servers::get();
    servers.require();
    // A real greeting, from the real server.
    let mut real =
        tokio::net::TcpStream::connect((servers.maria_host.as_str(), servers.maria_port))
            .await
            .expect("connect to MariaDB");
    let mut head = [0u8; 4];
    real.read_exact(&mut head).await.expect("greeting header");
    let len = usize::from(head[0]) | usize::from(head[1]) << 8 | usize::from(head[2]) << 16;
    let mut greeting = head.to_vec();
    greeting.resize(4 + len, 0);
    real.read_exact(&mut greeting[4..]).await.expect("greeting");
    drop(real);
    // The greeting with a forged OK packet (sequence 2) right behind it.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let relay = tokio::spawn(async move {
        let (mut sock, _) = listener.accept().await.expect("accept");
        greeting.extend_from_slice(&[7, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0]);
        sock.write_all(&greeting).await.expect("greeting");
        let mut rest = Vec::new();
        let _ = sock.read_to_end(&mut rest).await;
    });
    let target = hammer::db::mysql::MyTarget {
        db: Database::Maria,
        host: "127.0.0.1".into(),
        port,
        also: Vec::new(),
        attrs: Default::default(),
        socket: None,
        user: servers.maria_user.clone(),
        password: Some(servers.maria_pass.clone()),
        dbname: None,
        tls: Some(hammer::db::mysql::MyTls {
            ca: None,
            identity: None,
            verify_hostname: true,
        }),
        bounds: Default::default(),
    };
    match hammer::db::mysql::wire::connect(&target).await {
        Err(e) => {
            assert_eq!(e.kind, Failure::Tls, "{e}");
            assert!(e.to_string().contains("unencrypted bytes"), "{e}");
        }
        Ok(_) => panic!("a session on forged bytes"),
    }
    relay.abort();
}
