-- The statements hammer's TPROC-C terminals run on MariaDB and MySQL (src/db/mysql/driver.rs).
-- Each statement is named by a `-- name:` line and ends at a `-- go` line; `{{x}}` marks a
-- list the driver fills in with a fixed number of slots.
--
-- Stored procedures: IN arguments, then a `?` for each OUT parameter (sent as NULL). The
-- timestamp arguments are NULL: the procedure takes the server's current time.
-- name: call_neword
CALL NEWORD(?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)
-- go
-- name: call_payment
CALL PAYMENT(?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)
-- go
-- name: call_ostat
CALL OSTAT(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
-- go
-- name: call_delivery
CALL DELIVERY(?, ?, NULL, ?, ?)
-- go
-- name: call_slev
CALL SLEV(?, ?, ?, ?)
-- go
-- Without summaries, on MariaDB, NEWORD is called in a compound statement with its OUT
-- parameters in session variables (@hammer_out_8 is rolled_back), which then tells a
-- rollback as this error: one reply, never an OUT row and an OK.
-- name: neword_rolled_back
IF @hammer_out_8 = 1 THEN
  SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'hammer: NEWORD rolled back';
END IF
-- go

-- Client-side SQL (maria_no_stored_procs / mysql_no_stored_procs): the business logic of
-- procedures.sql in explicit transactions. Lists have a fixed number of slots, the unused
-- ones NULL (which matches nothing), so that each statement is prepared once whatever the
-- number of lines.

-- New-Order: the district's next order id taken (the row locked until the COMMIT). Where
-- compound statements run (MariaDB) it opens the block of writes, so that the district row,
-- which every Payment of the district also updates, stays locked for one round trip only.
-- name: district_next
UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?
-- go

-- New-Order in the block of writes: the id district_next took, into the block's variable o
-- (a read of the transaction's own update).
-- name: order_id
SELECT d_next_o_id - 1 INTO o FROM district WHERE d_w_id = ? AND d_id = ?
-- go

-- New-Order's one read, one reply: warehouse, district, customer and every item (a row with
-- NULL item columns when no item exists), then every STOCK row, locked in key order, with the
-- s_dist_xx of the district given before the stock keys. The STOCK rows are those with an
-- s_w_id. After district_next in the same transaction d_next_o_id - 1 is the order's id;
-- without it, d_next_o_id is only read (the order's id is taken with the writes).
-- name: items_stock
(SELECT w_tax, c_discount, c_last, c_credit, i_id, i_price, i_name, i_data, d_tax, d_next_o_id,
        NULL AS s_w_id, NULL AS s_i_id, NULL AS s_quantity, NULL AS s_dist, NULL AS s_data
   FROM warehouse JOIN district ON d_w_id = w_id
   JOIN customer ON c_w_id = w_id AND c_d_id = d_id
   LEFT JOIN item ON i_id IN ({{item_slots}})
  WHERE w_id = ? AND d_id = ? AND c_id = ?)
UNION ALL
(SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        s_w_id, s_i_id, s_quantity,
        ELT(?, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07,
            s_dist_08, s_dist_09, s_dist_10),
        s_data
   FROM stock WHERE (s_w_id, s_i_id) IN ({{stock_keys}}) FOR UPDATE)
-- go

-- The order's id is {{o_id}}: a placeholder, or the block's variable o.
-- name: insert_order
INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt,
                    o_all_local)
VALUES ({{o_id}}, ?, ?, ?, NOW(), NULL, ?, ?)
-- go
-- name: insert_new_order
INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ({{o_id}}, ?, ?)
-- go

-- New-Order: each STOCK row once, with its new quantity (the replenishment rule applied
-- line by line by the client, on the locked values) and what to add to its counters.
-- {{stock_rows}} is a derived table of rows (w, i, q, ytd, cnt, rem).
-- name: stock_update
UPDATE stock JOIN ({{stock_rows}}) v ON s_w_id = v.w AND s_i_id = v.i
   SET s_quantity = v.q, s_ytd = s_ytd + v.ytd, s_order_cnt = s_order_cnt + v.cnt,
       s_remote_cnt = s_remote_cnt + v.rem
-- go

-- New-Order: every order line in one statement; {{line_rows}} is a derived table of rows
-- (n, i, w, q, a, info), unused ones with a NULL n.
-- name: order_lines
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                        ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
SELECT {{o_id}}, ?, ?, v.n, v.i, v.w, NULL, v.q, v.a, v.info FROM ({{line_rows}}) v
 WHERE v.n IS NOT NULL
-- go

-- Payment: warehouse and district year-to-date amounts in one statement.
-- name: pay_ytd
UPDATE warehouse JOIN district ON d_w_id = w_id
   SET w_ytd = w_ytd + CAST(? AS DECIMAL(6,2)), d_ytd = d_ytd + CAST(? AS DECIMAL(6,2))
 WHERE w_id = ? AND d_id = ?
-- go

-- Payment and Order-Status by name: the candidates in the order that picks the middle one.
-- name: customers_by_name
SELECT c_id FROM customer
 WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first, c_id
-- go

-- Payment: the names for HISTORY and the customer, locked (warehouse and district are
-- locked already by the update).
-- name: pay_customer
SELECT w_name, d_name, c_first, c_middle, c_last, c_credit, c_balance
  FROM warehouse, district, customer
 WHERE w_id = ? AND d_w_id = w_id AND d_id = ? AND c_w_id = ? AND c_d_id = ? AND c_id = ?
   FOR UPDATE
-- go
-- name: pay_customer_update
UPDATE customer
   SET c_balance = c_balance - CAST(? AS DECIMAL(6,2)),
       c_ytd_payment = c_ytd_payment + CAST(? AS DECIMAL(6,2)),
       c_payment_cnt = c_payment_cnt + 1,
       c_data = CASE WHEN c_credit = 'BC'
                     THEN LEFT(CONCAT(c_id, ' ', c_d_id, ' ', c_w_id, ' ', ?, ' ', ?, ' ',
                                      CAST(? AS DECIMAL(6,2)), ' | ', c_data), 500)
                     ELSE c_data END
 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?
-- go
-- Payment: the HISTORY row, its h_data (w_name, four spaces, d_name) read here, so that the
-- insert need not wait for the customer's read and goes in the same batch; no row when the
-- customer does not exist.
-- name: insert_history
INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
SELECT c_id, c_d_id, c_w_id, d_id, w_id, NOW(), CAST(? AS DECIMAL(6,2)),
       CONCAT(w_name, '    ', d_name)
  FROM warehouse JOIN district ON d_w_id = w_id
  JOIN customer ON c_w_id = ? AND c_d_id = ? AND c_id = {{c_id}}
 WHERE w_id = ? AND d_id = ?
-- go

-- Payment where compound statements run (MariaDB) is one block, one reply: the customer's
-- id into the block's variable c, given or by name (the middle one of those with the last
-- name ordered by c_first, position ceil(n/2): clause 2.5.2.2); warehouse, district and
-- customer in one update, which changes nothing unless all three exist, and then fails
-- the block; the HISTORY row; the COMMIT.
-- A plain read (SELECT ... INTO, not SET c = (SELECT ...), which would lock what it reads).
-- name: pay_customer_id
SELECT COALESCE(?, (SELECT c_id
                      FROM (SELECT c_id, ROW_NUMBER() OVER (ORDER BY c_first, c_id) AS k,
                                   COUNT(*) OVER () AS n
                              FROM customer
                             WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?) named
                     WHERE k = (n + 1) DIV 2)) INTO c
-- go
-- name: pay_all
UPDATE warehouse JOIN district ON d_w_id = w_id
  JOIN customer ON c_w_id = ? AND c_d_id = ? AND c_id = c
   SET w_ytd = w_ytd + CAST(? AS DECIMAL(6,2)), d_ytd = d_ytd + CAST(? AS DECIMAL(6,2)),
       c_balance = c_balance - CAST(? AS DECIMAL(6,2)),
       c_ytd_payment = c_ytd_payment + CAST(? AS DECIMAL(6,2)),
       c_payment_cnt = c_payment_cnt + 1,
       c_data = CASE WHEN c_credit = 'BC'
                     THEN LEFT(CONCAT(c_id, ' ', c_d_id, ' ', c_w_id, ' ', d_id, ' ', w_id, ' ',
                                      CAST(? AS DECIMAL(6,2)), ' | ', c_data), 500)
                     ELSE c_data END
 WHERE w_id = ? AND d_id = ?
-- go
-- The text the client knows the failure by.
-- name: pay_found
IF ROW_COUNT() = 0 THEN
  SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'hammer: Payment found no such customer';
END IF
-- go
-- With summaries, before the COMMIT: the customer's id, credit and new balance.
-- name: pay_shown
SELECT c, c_credit, c_balance FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = c
-- go

-- The end of a transaction, prepared, so that it may end a batch.
-- name: commit
COMMIT
-- go

-- Order-Status: the customer, its latest order and that order's lines in one read.
-- name: order_status
SELECT c.c_id, c.c_first, c.c_middle, c.c_last, c.c_balance,
       o.o_id, o.o_entry_d, o.o_carrier_id,
       ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount, ol.ol_delivery_d
  FROM customer c
  LEFT JOIN orders o
    ON o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id
   AND o.o_id = (SELECT MAX(o2.o_id) FROM orders o2
                  WHERE o2.o_w_id = c.c_w_id AND o2.o_d_id = c.c_d_id AND o2.o_c_id = c.c_id)
  LEFT JOIN order_line ol
    ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
 WHERE c.c_w_id = ? AND c.c_d_id = ? AND c.c_id = ?
-- go

-- Delivery: the oldest new order of district {{d}}, locked (the argument is the
-- warehouse); the driver joins one per district with UNION ALL.
-- name: oldest_new_order
(SELECT no_d_id, no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = {{d}}
  ORDER BY no_o_id LIMIT 1 FOR UPDATE)
-- go
-- name: delete_new_orders
DELETE FROM new_order WHERE no_w_id = ? AND (no_d_id, no_o_id) IN ({{district_keys}})
-- go
-- name: deliver_lines
UPDATE order_line SET ol_delivery_d = NOW()
 WHERE ol_w_id = ? AND (ol_d_id, ol_o_id) IN ({{district_keys}})
-- go

-- Delivery: the carrier on each order and each order's amount on its customer.
-- name: deliver_orders
UPDATE orders o
  JOIN customer c ON c.c_w_id = o.o_w_id AND c.c_d_id = o.o_d_id AND c.c_id = o.o_c_id
  LEFT JOIN (SELECT ol_d_id, ol_o_id, SUM(ol_amount) AS amount FROM order_line
              WHERE ol_w_id = ? AND (ol_d_id, ol_o_id) IN ({{district_keys}})
              GROUP BY ol_d_id, ol_o_id) s
    ON s.ol_d_id = o.o_d_id AND s.ol_o_id = o.o_id
   SET o.o_carrier_id = ?, c.c_balance = c.c_balance + IFNULL(s.amount, 0),
       c.c_delivery_cnt = c.c_delivery_cnt + 1
 WHERE o.o_w_id = ? AND (o.o_d_id, o.o_id) IN ({{district_keys}})
-- go

-- Stock-Level in one read; MAX(d_next_o_id) is NULL only when the district is missing.
-- name: stock_level
SELECT COUNT(DISTINCT s.s_i_id), MAX(d.d_next_o_id)
  FROM district d
  LEFT JOIN (order_line ol JOIN stock s
               ON s.s_w_id = ol.ol_w_id AND s.s_i_id = ol.ol_i_id AND s.s_quantity < ?)
    ON ol.ol_w_id = d.d_w_id AND ol.ol_d_id = d.d_id
   AND ol.ol_o_id >= d.d_next_o_id - 20 AND ol.ol_o_id < d.d_next_o_id
 WHERE d.d_w_id = ? AND d.d_id = ?
