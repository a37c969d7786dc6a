-- The five TPROC-C transactions for PostgreSQL, written once for both flavours: as FUNCTIONS
-- (pg_storedprocs = false) and as PROCEDURES (pg_storedprocs = true, PG 11+). The slots in double
-- braces are filled from flavours.sql, which holds what differs: the routine kind, the
-- output parameters (OUT, or INOUT defaulting to NULL) and the New-Order rollback.
--
-- Functions: call each with SELECT * FROM <name>(...) in autocommit: the statement is the
-- transaction (slev, with one output, also as SELECT slev(...)).
-- Procedures: call each with CALL <name>(inputs...) in autocommit, outside any BEGIN block:
-- the procedure is the transaction, and neword ends it itself when it rolls back. The
-- outputs are INOUT parameters defaulting to NULL, so the call passes the inputs only and
-- gets one row of outputs back (CALL works as a prepared statement too).
-- The terminal (client) generates every input, as TPC-C clause 2 says; the routines
-- implement the transaction profiles of clauses 2.4 to 2.8 and nothing random happens here.
-- schemas/mysql/tprocc/procedures.sql holds the same logic for MariaDB/MySQL.
--
--   neword(w_id int, d_id int, c_id int, ol_cnt int, all_local int,
--          item_ids int[], supply_w_ids int[], quantities int[], entry_d timestamptz)
--     -> order_id int, total_amount numeric, cust_discount numeric, cust_last varchar,
--        cust_credit varchar, wh_tax numeric, dist_tax numeric (procedures: rolled_back int)
--   payment(w_id int, d_id int, c_w_id int, c_d_id int, c_id int, byname int,
--           c_last varchar, h_amount numeric, h_date timestamptz)
--     -> cust_id int, cust_first varchar, cust_middle varchar, cust_last varchar,
--        cust_balance numeric, cust_credit varchar
--   ostat(w_id int, d_id int, c_id int, byname int, c_last varchar)
--     -> cust_id int, cust_first varchar, cust_middle varchar, cust_last varchar,
--        cust_balance numeric, order_id int, entry_d timestamptz, carrier_id int,
--        line_count int, order_lines text
--   delivery(w_id int, carrier_id int, delivery_d timestamptz)
--     -> delivered int, skipped int
--   slev(w_id int, d_id int, threshold int)
--     -> stock_count int
--
-- Conventions shared by both databases:
--   * byname: 1 selects the customer by c_last (the c_id argument is ignored), 0 by c_id.
--     By name, the matching customers are sorted by c_first (then c_id) and the one at
--     position ceil(n/2), counting from 1, is used (clauses 2.5.2.2, 2.6.2.2).
--   * A NULL timestamp argument means the server's current time.
--   * neword's arrays hold ol_cnt elements each, line 1 first. The client sorts the lines
--     by (item id, supply warehouse), so that concurrent New-Orders lock STOCK rows in one
--     order, and sends all_local = 1 when every supply warehouse is the home warehouse.
--   * ostat's order_lines: one "i_id,supply_w_id,quantity,amount,delivery_d" entry per
--     line in ol_number order, joined by ';' (delivery_d 'YYYY-MM-DD HH24:MI:SS', or
--     empty while undelivered); order_id and order_lines are NULL and line_count 0 if the
--     customer has no order.
--   * Payment's BC customers get "c_id c_d_id c_w_id d_id w_id h_amount | " put in front
--     of c_data, cut to 500 characters; h_data is w_name, four spaces, d_name.
--
-- The New-Order rollback (clause 2.4.2.3). Functions: an item id that does not exist (the client
-- sends 100001 as the last line of 1 % of orders) raises SQLSTATE HR001, message
-- 'Item number is not valid', after the rest of the profile has run. The error rolls the
-- whole statement back, as the specification requires; the client counts HR001 as a
-- New-Order rolled back on purpose, not as an error. The DETAIL carries the w_id, d_id,
-- c_id, o_id, c_last and c_credit the terminal should show (clause 2.4.3.4).
-- Any other error (a missing row: SQLSTATE P0002; bad arguments: 22023; deadlock or
-- serialization failure: 40P01 / 40001) is an ordinary error; the server has rolled back.
-- Procedures: when an item id does not exist (the client
-- sends 100001 as the last line of 1 % of orders) neword executes ROLLBACK and returns
-- normally with rolled_back = 1; order_id, cust_last and cust_credit are still filled in
-- for the terminal (clause 2.4.3.4), total_amount is NULL. Otherwise rolled_back = 0 and
-- the transaction commits when the CALL ends. The server counts a rolled-back New-Order
-- once in xact_rollback and once in xact_commit (the empty transaction that follows the
-- ROLLBACK until the CALL ends), so TPM from pg_stat_database over-counts those 1 %.
-- Errors (missing rows P0002, bad arguments 22023, deadlock 40P01, serialization 40001)
-- are raised as usual and the server rolls the CALL's transaction back.


-- go
-- Both flavours share names: drop whichever is there so exactly one set exists, as
-- HammerDB-era drivers detect the flavour by counting routines in pg_proc.
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT p.oid::regprocedure AS signature, p.prokind
          FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname = current_schema()
           AND p.proname IN ('neword', 'payment', 'ostat', 'delivery', 'slev')
    LOOP
        EXECUTE format('DROP %s %s',
                       CASE r.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END,
                       r.signature);
    END LOOP;
END
$$;
-- go
CREATE {{kind}} neword(
    p_w_id int, p_d_id int, p_c_id int, p_ol_cnt int, p_all_local int,
    p_item_ids int[], p_supply_w_ids int[], p_quantities int[], p_entry_d timestamptz,
    {{neword_outputs}})
LANGUAGE plpgsql AS $$
DECLARE
    v_entry_d   timestamptz := coalesce(p_entry_d, current_timestamp);
    v_i_id      int;
    v_supply    int;
    v_qty       int;
    v_price     numeric(5,2);
    v_i_name    varchar(24);
    v_i_data    varchar(50);
    v_s_qty     int;
    v_s_data    varchar(50);
    v_dist_info char(24);
    v_amount    numeric(6,2);
    v_sum       numeric(12,2) := 0;
BEGIN
    {{neword_begin}}
       OR coalesce(cardinality(p_item_ids), 0) <> p_ol_cnt
       OR coalesce(cardinality(p_supply_w_ids), 0) <> p_ol_cnt
       OR coalesce(cardinality(p_quantities), 0) <> p_ol_cnt THEN
        RAISE EXCEPTION 'neword: ol_cnt is % but % item ids, % supply warehouses and % quantities were given',
            p_ol_cnt, cardinality(p_item_ids), cardinality(p_supply_w_ids), cardinality(p_quantities)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;

    SELECT w.w_tax INTO wh_tax FROM warehouse w WHERE w.w_id = p_w_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'neword: warehouse % not found', p_w_id USING ERRCODE = 'no_data_found';
    END IF;

    UPDATE district d SET d_next_o_id = d.d_next_o_id + 1
     WHERE d.d_w_id = p_w_id AND d.d_id = p_d_id
    RETURNING d.d_next_o_id - 1, d.d_tax INTO order_id, dist_tax;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'neword: district % of warehouse % not found', p_d_id, p_w_id
            USING ERRCODE = 'no_data_found';
    END IF;

    SELECT c.c_discount, c.c_last, c.c_credit INTO cust_discount, cust_last, cust_credit
      FROM customer c
     WHERE c.c_w_id = p_w_id AND c.c_d_id = p_d_id AND c.c_id = p_c_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'neword: customer % of district % warehouse % not found', p_c_id, p_d_id, p_w_id
            USING ERRCODE = 'no_data_found';
    END IF;

    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (order_id, p_d_id, p_w_id, p_c_id, v_entry_d, NULL, p_ol_cnt, p_all_local);
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (order_id, p_d_id, p_w_id);

    FOR v_line IN 1 .. p_ol_cnt LOOP
        v_i_id := p_item_ids[v_line];
        v_supply := p_supply_w_ids[v_line];
        v_qty := p_quantities[v_line];

        SELECT i.i_price, i.i_name, i.i_data INTO v_price, v_i_name, v_i_data
          FROM item i WHERE i.i_id = v_i_id;
        IF NOT FOUND THEN
            {{neword_unused_item}}
        END IF;

        UPDATE stock s
           SET s_quantity = CASE WHEN s.s_quantity >= v_qty + 10 THEN s.s_quantity - v_qty
                                 ELSE s.s_quantity - v_qty + 91 END,
               s_ytd = s.s_ytd + v_qty,
               s_order_cnt = s.s_order_cnt + 1,
               s_remote_cnt = s.s_remote_cnt + CASE WHEN v_supply <> p_w_id THEN 1 ELSE 0 END
         WHERE s.s_i_id = v_i_id AND s.s_w_id = v_supply
        RETURNING s.s_quantity,
                  CASE p_d_id WHEN 1 THEN s.s_dist_01 WHEN 2 THEN s.s_dist_02
                              WHEN 3 THEN s.s_dist_03 WHEN 4 THEN s.s_dist_04
                              WHEN 5 THEN s.s_dist_05 WHEN 6 THEN s.s_dist_06
                              WHEN 7 THEN s.s_dist_07 WHEN 8 THEN s.s_dist_08
                              WHEN 9 THEN s.s_dist_09 ELSE s.s_dist_10 END,
                  s.s_data
          INTO v_s_qty, v_dist_info, v_s_data;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'neword: stock of item % in warehouse % not found', v_i_id, v_supply
                USING ERRCODE = 'no_data_found';
        END IF;

        v_amount := v_qty * v_price;
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                                ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        VALUES (order_id, p_d_id, p_w_id, v_line, v_i_id, v_supply,
                NULL, v_qty, v_amount, v_dist_info);
        v_sum := v_sum + v_amount;
    END LOOP;

    total_amount := round(v_sum * (1 - cust_discount) * (1 + wh_tax + dist_tax), 2);
END
$$;
-- go
CREATE {{kind}} payment(
    p_w_id int, p_d_id int, p_c_w_id int, p_c_d_id int, p_c_id int, p_byname int,
    p_c_last varchar, p_h_amount numeric, p_h_date timestamptz,
    {{payment_outputs}})
LANGUAGE plpgsql AS $$
DECLARE
    v_h_date timestamptz := coalesce(p_h_date, current_timestamp);
    v_amount numeric(6,2) := p_h_amount;
    v_w_name varchar(10);
    v_d_name varchar(10);
    v_count  int;
BEGIN
    UPDATE warehouse w SET w_ytd = w.w_ytd + v_amount
     WHERE w.w_id = p_w_id
    RETURNING w.w_name INTO v_w_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'payment: warehouse % not found', p_w_id USING ERRCODE = 'no_data_found';
    END IF;

    UPDATE district d SET d_ytd = d.d_ytd + v_amount
     WHERE d.d_w_id = p_w_id AND d.d_id = p_d_id
    RETURNING d.d_name INTO v_d_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'payment: district % of warehouse % not found', p_d_id, p_w_id
            USING ERRCODE = 'no_data_found';
    END IF;

    IF p_byname = 1 THEN
        SELECT count(*) INTO v_count FROM customer c
         WHERE c.c_w_id = p_c_w_id AND c.c_d_id = p_c_d_id AND c.c_last = p_c_last;
        IF v_count = 0 THEN
            RAISE EXCEPTION 'payment: no customer named % in district % of warehouse %',
                p_c_last, p_c_d_id, p_c_w_id USING ERRCODE = 'no_data_found';
        END IF;
        SELECT c.c_id INTO cust_id FROM customer c
         WHERE c.c_w_id = p_c_w_id AND c.c_d_id = p_c_d_id AND c.c_last = p_c_last
         ORDER BY c.c_first, c.c_id
         OFFSET (v_count - 1) / 2 LIMIT 1;
    ELSE
        cust_id := p_c_id;
    END IF;

    UPDATE customer c
       SET c_balance = c.c_balance - v_amount,
           c_ytd_payment = c.c_ytd_payment + v_amount,
           c_payment_cnt = c.c_payment_cnt + 1,
           c_data = CASE WHEN c.c_credit = 'BC'
                         THEN left(format('%s %s %s %s %s %s | ', c.c_id, c.c_d_id, c.c_w_id,
                                          p_d_id, p_w_id, v_amount) || c.c_data, 500)
                         ELSE c.c_data END
     WHERE c.c_w_id = p_c_w_id AND c.c_d_id = p_c_d_id AND c.c_id = cust_id
    RETURNING c.c_first, c.c_middle, c.c_last, c.c_balance, c.c_credit
         INTO cust_first, cust_middle, cust_last, cust_balance, cust_credit;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'payment: customer % of district % warehouse % not found', cust_id, p_c_d_id, p_c_w_id
            USING ERRCODE = 'no_data_found';
    END IF;

    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (cust_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, v_h_date, v_amount,
            v_w_name || '    ' || v_d_name);
END
$$;
-- go
CREATE {{kind}} ostat(
    p_w_id int, p_d_id int, p_c_id int, p_byname int, p_c_last varchar,
    {{ostat_outputs}})
LANGUAGE plpgsql AS $$
DECLARE
    v_count int;
BEGIN
    IF p_byname = 1 THEN
        SELECT count(*) INTO v_count FROM customer c
         WHERE c.c_w_id = p_w_id AND c.c_d_id = p_d_id AND c.c_last = p_c_last;
        IF v_count = 0 THEN
            RAISE EXCEPTION 'ostat: no customer named % in district % of warehouse %',
                p_c_last, p_d_id, p_w_id USING ERRCODE = 'no_data_found';
        END IF;
        SELECT c.c_id, c.c_first, c.c_middle, c.c_last, c.c_balance
          INTO cust_id, cust_first, cust_middle, cust_last, cust_balance
          FROM customer c
         WHERE c.c_w_id = p_w_id AND c.c_d_id = p_d_id AND c.c_last = p_c_last
         ORDER BY c.c_first, c.c_id
         OFFSET (v_count - 1) / 2 LIMIT 1;
    ELSE
        SELECT c.c_id, c.c_first, c.c_middle, c.c_last, c.c_balance
          INTO cust_id, cust_first, cust_middle, cust_last, cust_balance
          FROM customer c
         WHERE c.c_w_id = p_w_id AND c.c_d_id = p_d_id AND c.c_id = p_c_id;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'ostat: customer % of district % warehouse % not found', p_c_id, p_d_id, p_w_id
                USING ERRCODE = 'no_data_found';
        END IF;
    END IF;

    SELECT o.o_id, o.o_entry_d, o.o_carrier_id INTO order_id, entry_d, carrier_id
      FROM orders o
     WHERE o.o_w_id = p_w_id AND o.o_d_id = p_d_id AND o.o_c_id = cust_id
     ORDER BY o.o_id DESC LIMIT 1;

    SELECT count(*),
           string_agg(concat_ws(',', ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount,
                                coalesce(to_char(ol.ol_delivery_d, 'YYYY-MM-DD HH24:MI:SS'), '')),
                      ';' ORDER BY ol.ol_number)
      INTO line_count, order_lines
      FROM order_line ol
     WHERE ol.ol_w_id = p_w_id AND ol.ol_d_id = p_d_id AND ol.ol_o_id = order_id;
END
$$;
-- go
CREATE {{kind}} delivery(
    p_w_id int, p_carrier_id int, p_delivery_d timestamptz,
    {{delivery_outputs}})
LANGUAGE plpgsql AS $$
DECLARE
    v_delivery_d timestamptz := coalesce(p_delivery_d, current_timestamp);
    v_o_id   int;
    v_c_id   int;
    v_amount numeric(12,2);
BEGIN
    delivered := 0;
    skipped := 0;
    FOR v_d_id IN 1 .. 10 LOOP
        SELECT n.no_o_id INTO v_o_id FROM new_order n
         WHERE n.no_w_id = p_w_id AND n.no_d_id = v_d_id
         ORDER BY n.no_o_id LIMIT 1
           FOR UPDATE;
        IF NOT FOUND THEN
            skipped := skipped + 1;
            CONTINUE;
        END IF;

        DELETE FROM new_order n
         WHERE n.no_w_id = p_w_id AND n.no_d_id = v_d_id AND n.no_o_id = v_o_id;

        UPDATE orders o SET o_carrier_id = p_carrier_id
         WHERE o.o_w_id = p_w_id AND o.o_d_id = v_d_id AND o.o_id = v_o_id
        RETURNING o.o_c_id INTO v_c_id;

        WITH delivered_lines AS (
            UPDATE order_line ol SET ol_delivery_d = v_delivery_d
             WHERE ol.ol_w_id = p_w_id AND ol.ol_d_id = v_d_id AND ol.ol_o_id = v_o_id
            RETURNING ol.ol_amount)
        SELECT coalesce(sum(l.ol_amount), 0) INTO v_amount FROM delivered_lines l;

        UPDATE customer c
           SET c_balance = c.c_balance + v_amount,
               c_delivery_cnt = c.c_delivery_cnt + 1
         WHERE c.c_w_id = p_w_id AND c.c_d_id = v_d_id AND c.c_id = v_c_id;

        delivered := delivered + 1;
    END LOOP;
END
$$;
-- go
CREATE {{kind}} slev(p_w_id int, p_d_id int, p_threshold int, {{slev_outputs}})
LANGUAGE plpgsql AS $$
DECLARE
    v_next_o_id int;
BEGIN
    SELECT d.d_next_o_id INTO v_next_o_id FROM district d
     WHERE d.d_w_id = p_w_id AND d.d_id = p_d_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'slev: district % of warehouse % not found', p_d_id, p_w_id
            USING ERRCODE = 'no_data_found';
    END IF;

    SELECT count(DISTINCT s.s_i_id) INTO stock_count
      FROM order_line ol
      JOIN stock s ON s.s_w_id = ol.ol_w_id AND s.s_i_id = ol.ol_i_id
     WHERE ol.ol_w_id = p_w_id AND ol.ol_d_id = p_d_id
       AND ol.ol_o_id >= v_next_o_id - 20 AND ol.ol_o_id < v_next_o_id
       AND s.s_quantity < p_threshold;
END
$$;
