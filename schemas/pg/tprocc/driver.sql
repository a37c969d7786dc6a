-- The statements hammer's TPROC-C terminals run on PostgreSQL (src/db/pg_driver.rs).
-- Each statement is named by a `-- name:` line and ends at a `-- go` line; `{{x}}` marks a
-- fragment the driver fills in (a named fragment below, or a parameter).
--
-- Functions (pg_storedprocs false): the outputs selected in the order procedures return them.
-- name: neword_function
SELECT order_id, total_amount, cust_discount, cust_last, cust_credit, wh_tax, dist_tax
  FROM neword($1, $2, $3, $4, $5, $6, $7, $8, NULL)
-- go
-- name: payment_function
SELECT cust_id, cust_first, cust_middle, cust_last, cust_balance, cust_credit
  FROM payment($1, $2, $3, $4, $5, $6, $7, $8::text::numeric, NULL)
-- go
-- name: ostat_function
SELECT cust_id, cust_first, cust_middle, cust_last, cust_balance, order_id, entry_d,
       carrier_id, line_count, order_lines
  FROM ostat($1, $2, $3, $4, $5)
-- go
-- name: delivery_function
SELECT delivered, skipped FROM delivery($1, $2, NULL)
-- go
-- name: slev_function
SELECT stock_count FROM slev($1, $2, $3)
-- go

-- Procedures (pg_storedprocs true): the INOUT parameters come back as one row.
-- name: neword_procedure
CALL neword($1, $2, $3, $4, $5, $6, $7, $8, NULL)
-- go
-- name: payment_procedure
CALL payment($1, $2, $3, $4, $5, $6, $7, $8::text::numeric, NULL)
-- go
-- name: ostat_procedure
CALL ostat($1, $2, $3, $4, $5)
-- go
-- name: delivery_procedure
CALL delivery($1, $2, NULL)
-- go
-- name: slev_procedure
CALL slev($1, $2, $3)
-- go

-- Client-side SQL (pg_no_stored_procs true) mirrors functions.sql statement for statement,
-- merged into as few statements as the logic allows: writes that depend on each other are
-- data-modifying CTEs of one statement. Where a function raises no_data_found, the statement
-- makes a NOT NULL column NULL instead (a missing warehouse leaves h_data NULL, a missing
-- stock row ol_dist_info), which fails it, and the pipelined COMMIT then rolls back. Every
-- parameter is cast where it is used: many columns are smallint, and a parameter would
-- otherwise take the type of the first it meets.
-- name: begin
BEGIN
-- go
-- name: commit
COMMIT
-- go
-- name: rollback
ROLLBACK
-- go

-- New-Order, first part ($1 w, $2 d, $3 c, $4 item ids): take the order id (locking the
-- district), read the taxes and the customer, and count the lines whose item exists.
-- No row means a missing warehouse, district or customer.
-- name: neword_start
WITH d AS (
    UPDATE district SET d_next_o_id = d_next_o_id + 1
     WHERE d_w_id = $1::int AND d_id = $2::int
    RETURNING d_next_o_id - 1 AS o_id, d_tax
)
SELECT d.o_id, d.d_tax, w.w_tax, c.c_discount,
       (SELECT count(*) FROM unnest($4::int[]) AS l(i_id)
          JOIN item i ON i.i_id = l.i_id)::int,
       c.c_last, c.c_credit
  FROM d, warehouse w, customer c
 WHERE w.w_id = $1::int
   AND c.c_w_id = $1::int AND c.c_d_id = $2::int AND c.c_id = $3::int
-- go

-- Fragment: the STOCK update of New-Order for the lines `l`, `$1` being the home
-- warehouse: quantity down by the ordered amount, back up by 91 when fewer than 10 would
-- remain.
-- name: stock_set
   SET s_quantity = CASE WHEN s.s_quantity >= l.quantity + 10
                         THEN s.s_quantity - l.quantity
                         ELSE s.s_quantity - l.quantity + 91 END,
       s_ytd = s.s_ytd + l.quantity,
       s_order_cnt = s.s_order_cnt + 1,
       s_remote_cnt = s.s_remote_cnt
                      + CASE WHEN l.supply_w_id <> $1::int THEN 1 ELSE 0 END
-- go

-- New-Order, second part ($1 w, $2 d, $3 c, $4 o_id, $5 all_local, $6..$8 the lines,
-- $9 discount, $10 w_tax, $11 d_tax): the order, its NEW_ORDER row, the stock of the first
-- line of every (item, supply warehouse) pair, locked in that order as the functions lock
-- them, and the order lines; returns the total.
-- name: neword_finish
WITH l AS (
    SELECT u.i_id, u.supply_w_id, u.quantity, u.number::int AS number,
           row_number() OVER (PARTITION BY u.i_id, u.supply_w_id ORDER BY u.number)
               AS round
      FROM unnest($6::int[], $7::int[], $8::int[])
           WITH ORDINALITY AS u(i_id, supply_w_id, quantity, number)
), s AS (
    UPDATE stock s {{stock_set}}
      FROM l
     WHERE l.round = 1 AND s.s_i_id = l.i_id AND s.s_w_id = l.supply_w_id
    RETURNING s.s_i_id, s.s_w_id,
              CASE $2::int WHEN 1 THEN s.s_dist_01 WHEN 2 THEN s.s_dist_02
                           WHEN 3 THEN s.s_dist_03 WHEN 4 THEN s.s_dist_04
                           WHEN 5 THEN s.s_dist_05 WHEN 6 THEN s.s_dist_06
                           WHEN 7 THEN s.s_dist_07 WHEN 8 THEN s.s_dist_08
                           WHEN 9 THEN s.s_dist_09 ELSE s.s_dist_10 END AS dist_info
), o AS (
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id,
                        o_ol_cnt, o_all_local)
    VALUES ($4::int, $2::int, $1::int, $3::int, current_timestamp, NULL,
            cardinality($6::int[]), $5::int)
), n AS (
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($4::int, $2::int, $1::int)
), ol AS (
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id,
                            ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount,
                            ol_dist_info)
    SELECT $4::int, $2::int, $1::int, l.number, l.i_id, l.supply_w_id, NULL,
           l.quantity, l.quantity * i.i_price, s.dist_info
      FROM l
      LEFT JOIN item i ON i.i_id = l.i_id
      LEFT JOIN s ON s.s_i_id = l.i_id AND s.s_w_id = l.supply_w_id
    RETURNING ol_amount
)
SELECT round(sum(ol.ol_amount)::numeric(12,2) * (1 - $9::text::numeric)
             * (1 + $10::text::numeric + $11::text::numeric), 2)
  FROM ol
-- go

-- The stock of repeated (item, supply warehouse) lines ($1 w, $2..$4 the lines).
-- name: stock
UPDATE stock s {{stock_set}}
  FROM unnest($2::int[], $3::int[], $4::int[]) AS l(i_id, supply_w_id, quantity)
 WHERE s.s_i_id = l.i_id AND s.s_w_id = l.supply_w_id
-- go

-- Fragment: the id of the customer at position ceil(n/2), by first name, of the n named
-- {{last}} in warehouse {{w}} district {{d}} (clauses 2.5.2.2, 2.6.2.2).
-- name: customer_by_name
(SELECT p.c_id FROM customer p
  WHERE p.c_w_id = {{w}}::int AND p.c_d_id = {{d}}::int AND p.c_last = {{last}}::text
  ORDER BY p.c_first, p.c_id
 OFFSET (SELECT (count(*) - 1) / 2 FROM customer q
          WHERE q.c_w_id = {{w}}::int AND q.c_d_id = {{d}}::int
            AND q.c_last = {{last}}::text)
  LIMIT 1)
-- go

-- Payment ($1 w, $2 d, $3 c_w, $4 c_d, $5 customer id or last name, $6 amount): warehouse,
-- district and customer are updated in that order (each waits for the one before), then
-- the history row, which a missing one leaves with a NULL.
-- name: payment
WITH w AS (
    UPDATE warehouse SET w_ytd = w_ytd + $6::text::numeric(6,2)
     WHERE w_id = $1::int
    RETURNING w_name
), d AS (
    UPDATE district SET d_ytd = d_ytd + $6::text::numeric(6,2)
     WHERE d_w_id = $1::int AND d_id = $2::int AND EXISTS (SELECT FROM w)
    RETURNING d_name
), c AS (
    UPDATE customer c
       SET c_balance = c.c_balance - $6::text::numeric(6,2),
           c_ytd_payment = c.c_ytd_payment + $6::text::numeric(6,2),
           c_payment_cnt = c.c_payment_cnt + 1,
           c_data = CASE WHEN c.c_credit = 'BC'
                         THEN left(format('%s %s %s %s %s %s | ', c.c_id, c.c_d_id,
                                          c.c_w_id, $2::int, $1::int,
                                          $6::text::numeric(6,2)) || c.c_data, 500)
                         ELSE c.c_data END
     WHERE c.c_w_id = $3::int AND c.c_d_id = $4::int AND EXISTS (SELECT FROM d)
       AND c.c_id = {{customer}}
    RETURNING c.c_id, c.c_first, c.c_middle, c.c_last, c.c_balance, c.c_credit
), h AS (
    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount,
                         h_data)
    VALUES ((SELECT c_id FROM c), $4::int, $3::int, $2::int, $1::int,
            current_timestamp, $6::text::numeric(6,2),
            (SELECT w_name FROM w) || '    ' || (SELECT d_name FROM d))
)
SELECT c_id, c_first, c_middle, c_last, c_balance, c_credit FROM c
-- go

-- Order-Status ($1 w, $2 d, $3 customer id or last name): the customer, its latest order
-- and that order's lines, in the columns and format `ostat` returns.
-- name: ostat
WITH c AS (
    SELECT c.c_id, c.c_first, c.c_middle, c.c_last, c.c_balance FROM customer c
     WHERE c.c_w_id = $1::int AND c.c_d_id = $2::int AND c.c_id = {{customer}}
), o AS (
    SELECT o.o_id, o.o_entry_d, o.o_carrier_id FROM orders o, c
     WHERE o.o_w_id = $1::int AND o.o_d_id = $2::int AND o.o_c_id = c.c_id
     ORDER BY o.o_id DESC LIMIT 1
)
SELECT c.c_id, c.c_first, c.c_middle, c.c_last, c.c_balance, o.o_id, o.o_entry_d,
       o.o_carrier_id::int, l.n::int, l.lines
  FROM c
  LEFT JOIN o ON true
  LEFT JOIN LATERAL (
      SELECT count(*) AS n,
             string_agg(concat_ws(',', ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity,
                                  ol.ol_amount,
                                  coalesce(to_char(ol.ol_delivery_d,
                                                   'YYYY-MM-DD HH24:MI:SS'), '')),
                        ';' ORDER BY ol.ol_number) AS lines
        FROM order_line ol
       WHERE ol.ol_w_id = $1::int AND ol.ol_d_id = $2::int AND ol.ol_o_id = o.o_id
  ) AS l ON true
-- go

-- Delivery ($1 w, $2 carrier): in every district the oldest NEW_ORDER row (locked, so a
-- concurrent Delivery takes the next one), deleted; its order gets the carrier, its lines
-- the delivery date, its customer the lines' amount. Returns delivered, skipped.
-- name: delivery
WITH n AS (
    SELECT g.d, x.no_o_id
      FROM generate_series(1, 10) AS g(d)
     CROSS JOIN LATERAL (
           SELECT no.no_o_id FROM new_order no
            WHERE no.no_w_id = $1::int AND no.no_d_id = g.d
            ORDER BY no.no_o_id LIMIT 1
              FOR UPDATE) AS x
), del AS (
    DELETE FROM new_order no USING n
     WHERE no.no_w_id = $1::int AND no.no_d_id = n.d AND no.no_o_id = n.no_o_id
    RETURNING no.no_d_id AS d, no.no_o_id AS o_id
), o AS (
    UPDATE orders o SET o_carrier_id = $2::int FROM del
     WHERE o.o_w_id = $1::int AND o.o_d_id = del.d AND o.o_id = del.o_id
    RETURNING o.o_d_id AS d, o.o_c_id AS c_id
), ol AS (
    UPDATE order_line ol SET ol_delivery_d = current_timestamp FROM del
     WHERE ol.ol_w_id = $1::int AND ol.ol_d_id = del.d AND ol.ol_o_id = del.o_id
    RETURNING ol.ol_d_id AS d, ol.ol_amount
), c AS (
    UPDATE customer c
       SET c_balance = c.c_balance + coalesce(a.amount, 0),
           c_delivery_cnt = c.c_delivery_cnt + 1
      FROM o LEFT JOIN (SELECT ol.d, sum(ol.ol_amount) AS amount
                          FROM ol GROUP BY ol.d) AS a ON a.d = o.d
     WHERE c.c_w_id = $1::int AND c.c_d_id = o.d AND c.c_id = o.c_id
)
SELECT (SELECT count(*) FROM del)::int, 10 - (SELECT count(*) FROM del)::int
-- go

-- Stock-Level ($1 w, $2 d, $3 threshold): distinct items below the threshold among the
-- lines of the district's last 20 orders; NULL when the district does not exist.
-- name: slev
WITH d AS (SELECT d_next_o_id FROM district WHERE d_w_id = $1::int AND d_id = $2::int)
SELECT CASE WHEN EXISTS (SELECT FROM d) THEN
       (SELECT count(DISTINCT s.s_i_id) FROM d, order_line ol
          JOIN stock s ON s.s_w_id = ol.ol_w_id AND s.s_i_id = ol.ol_i_id
         WHERE ol.ol_w_id = $1::int AND ol.ol_d_id = $2::int
           AND ol.ol_o_id >= d.d_next_o_id - 20 AND ol.ol_o_id < d.d_next_o_id
           AND s.s_quantity < $3::int)::int END
