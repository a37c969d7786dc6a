-- The five TPROC-C transactions as MariaDB / MySQL stored procedures.
--
-- The same logic as schemas/pg/tprocc/functions.sql (TPC-C clauses 2.4 to 2.8); the
-- terminal (client) generates every input and nothing random happens here. Each
-- procedure is one transaction: it runs START TRANSACTION ... COMMIT itself (which also
-- commits anything the session left open), whatever the session's autocommit setting.
-- Outputs are OUT parameters: pass user variables (CALL NEWORD(..., @o_id, ...); SELECT
-- @o_id, ...) or, with the binary protocol, `?` placeholders.
--
--   NEWORD(IN w_id INT, IN d_id INT, IN c_id INT, IN ol_cnt INT, IN all_local INT,
--          IN item_ids VARCHAR, IN supply_w_ids VARCHAR, IN quantities VARCHAR,
--          IN entry_d DATETIME,
--          OUT order_id INT, OUT total_amount DECIMAL(12,2), OUT cust_discount DECIMAL(4,4),
--          OUT cust_last VARCHAR(16), OUT cust_credit CHAR(2), OUT wh_tax DECIMAL(4,4),
--          OUT dist_tax DECIMAL(4,4), OUT rolled_back INT)
--   PAYMENT(IN w_id INT, IN d_id INT, IN c_w_id INT, IN c_d_id INT, IN c_id INT,
--           IN byname INT, IN c_last VARCHAR(16), IN h_amount DECIMAL(6,2), IN h_date DATETIME,
--           OUT cust_id INT, OUT cust_first VARCHAR(16), OUT cust_middle CHAR(2),
--           OUT cust_last VARCHAR(16), OUT cust_balance DECIMAL(12,2), OUT cust_credit CHAR(2))
--   OSTAT(IN w_id INT, IN d_id INT, IN c_id INT, IN byname INT, IN c_last VARCHAR(16),
--         OUT cust_id INT, OUT cust_first VARCHAR(16), OUT cust_middle CHAR(2),
--         OUT cust_last VARCHAR(16), OUT cust_balance DECIMAL(12,2), OUT order_id INT,
--         OUT entry_d DATETIME, OUT carrier_id INT, OUT line_count INT, OUT order_lines TEXT)
--   DELIVERY(IN w_id INT, IN carrier_id INT, IN delivery_d DATETIME,
--            OUT delivered INT, OUT skipped INT)
--   SLEV(IN w_id INT, IN d_id INT, IN threshold INT, OUT stock_count INT)
--
-- Conventions (identical on PostgreSQL):
--   * byname: 1 selects the customer by c_last (the c_id argument is ignored), 0 by c_id.
--     By name, the matching customers are sorted by c_first (then c_id) and the one at
--     position ceil(n/2), counting from 1, is used (clauses 2.5.2.2, 2.6.2.2).
--   * A NULL timestamp argument means the server's current time.
--   * NEWORD's lists are comma-separated decimal numbers, ol_cnt of each, line 1 first
--     ('12,407,93001'). The client sorts the lines by (item id, supply warehouse), so
--     that concurrent New-Orders lock STOCK rows in one order, and sends all_local = 1
--     when every supply warehouse is the home warehouse.
--   * OSTAT's order_lines: one "i_id,supply_w_id,quantity,amount,delivery_d" entry per line
--     in ol_number order, joined by ';' (delivery_d 'YYYY-MM-DD HH:MM:SS', or empty while
--     undelivered); order_id and order_lines are NULL and line_count 0 if the customer has
--     no order.
--   * PAYMENT's BC customers get "c_id c_d_id c_w_id d_id w_id h_amount | " put in front
--     of c_data, cut to 500 characters; h_data is w_name, four spaces, d_name.
--
-- The New-Order rollback (clause 2.4.2.3): when an item id does not exist (the client
-- sends 100001 as the last line of 1 % of orders) NEWORD executes ROLLBACK after the rest
-- of the profile has run and returns normally with rolled_back = 1; order_id, cust_last
-- and cust_credit are still set for the terminal (clause 2.4.3.4), total_amount is NULL.
-- Otherwise rolled_back = 0 and the transaction is committed.
-- Any error (a missing row: SQLSTATE 45000 with a message naming it; bad lists: 45000;
-- deadlock 40001 / 1213; lock wait timeout HY000 / 1205) rolls the transaction back and
-- is raised again to the caller.

-- go
DROP PROCEDURE IF EXISTS NEWORD;
-- go
DROP PROCEDURE IF EXISTS PAYMENT;
-- go
DROP PROCEDURE IF EXISTS OSTAT;
-- go
DROP PROCEDURE IF EXISTS DELIVERY;
-- go
DROP PROCEDURE IF EXISTS SLEV;
-- go
CREATE PROCEDURE NEWORD(
    IN p_w_id INT, IN p_d_id INT, IN p_c_id INT, IN p_ol_cnt INT, IN p_all_local INT,
    IN p_item_ids VARCHAR(1000), IN p_supply_w_ids VARCHAR(1000), IN p_quantities VARCHAR(1000),
    IN p_entry_d DATETIME,
    OUT order_id INT, OUT total_amount DECIMAL(12,2), OUT cust_discount DECIMAL(4,4),
    OUT cust_last VARCHAR(16), OUT cust_credit CHAR(2), OUT wh_tax DECIMAL(4,4),
    OUT dist_tax DECIMAL(4,4), OUT rolled_back INT)
neword: BEGIN
    DECLARE v_entry_d   DATETIME DEFAULT IFNULL(p_entry_d, NOW());
    DECLARE v_line      INT DEFAULT 1;
    DECLARE v_i_id      INT;
    DECLARE v_supply    INT;
    DECLARE v_qty       INT;
    DECLARE v_price     DECIMAL(5,2);
    DECLARE v_i_name    VARCHAR(24);
    DECLARE v_i_data    VARCHAR(50);
    DECLARE v_s_qty     INT;
    DECLARE v_s_data    VARCHAR(50);
    DECLARE v_dist_info CHAR(24);
    DECLARE v_amount    DECIMAL(6,2);
    DECLARE v_sum       DECIMAL(12,2) DEFAULT 0;
    DECLARE v_found     INT DEFAULT 1;
    DECLARE v_message   VARCHAR(200);
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET rolled_back = 0;
    IF p_ol_cnt IS NULL OR p_ol_cnt < 1
       OR p_item_ids IS NULL OR p_supply_w_ids IS NULL OR p_quantities IS NULL
       OR LENGTH(p_item_ids) - LENGTH(REPLACE(p_item_ids, ',', '')) + 1 <> p_ol_cnt
       OR LENGTH(p_supply_w_ids) - LENGTH(REPLACE(p_supply_w_ids, ',', '')) + 1 <> p_ol_cnt
       OR LENGTH(p_quantities) - LENGTH(REPLACE(p_quantities, ',', '')) + 1 <> p_ol_cnt THEN
        SET v_message = CONCAT('NEWORD: ol_cnt is ', IFNULL(p_ol_cnt, 'NULL'),
                               ' but the item, supply warehouse and quantity lists do not all have that many elements');
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;
    END IF;

    START TRANSACTION;

    SELECT w_tax INTO wh_tax FROM warehouse WHERE w_id = p_w_id;
    IF v_found = 0 THEN
        SET v_message = CONCAT('NEWORD: warehouse ', p_w_id, ' not found');
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;
    END IF;

    SELECT d_tax, d_next_o_id INTO dist_tax, order_id
      FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id
       FOR UPDATE;
    IF v_found = 0 THEN
        SET v_message = CONCAT('NEWORD: district ', p_d_id, ' of warehouse ', p_w_id, ' not found');
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;
    END IF;
    UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w_id AND d_id = p_d_id;

    SELECT c_discount, c_last, c_credit INTO cust_discount, cust_last, cust_credit
      FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;
    IF v_found = 0 THEN
        SET v_message = CONCAT('NEWORD: customer ', p_c_id, ' of district ', p_d_id, ' warehouse ', p_w_id, ' not found');
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;
    END IF;

    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (order_id, p_d_id, p_w_id, p_c_id, v_entry_d, NULL, p_ol_cnt, p_all_local);
    INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (order_id, p_d_id, p_w_id);

    WHILE v_line <= p_ol_cnt DO
        SET v_i_id = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_item_ids, ',', v_line), ',', -1) AS SIGNED);
        SET v_supply = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply_w_ids, ',', v_line), ',', -1) AS SIGNED);
        SET v_qty = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_quantities, ',', v_line), ',', -1) AS SIGNED);

        SELECT i_price, i_name, i_data INTO v_price, v_i_name, v_i_data FROM item WHERE i_id = v_i_id;
        IF v_found = 0 THEN
            -- Clause 2.4.2.3: the unused item rolls the whole transaction back.
            ROLLBACK;
            SET rolled_back = 1;
            LEAVE neword;
        END IF;

        SELECT s_quantity,
               CASE p_d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02
                           WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
                           WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
                           WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
                           WHEN 9 THEN s_dist_09 ELSE s_dist_10 END,
               s_data
          INTO v_s_qty, v_dist_info, v_s_data
          FROM stock WHERE s_i_id = v_i_id AND s_w_id = v_supply
           FOR UPDATE;
        IF v_found = 0 THEN
            SET v_message = CONCAT('NEWORD: stock of item ', v_i_id, ' in warehouse ', v_supply, ' not found');
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;
        END IF;
        UPDATE stock
           SET s_quantity = CASE WHEN v_s_qty >= v_qty + 10 THEN v_s_qty - v_qty
                                 ELSE v_s_qty - v_qty + 91 END,
               s_ytd = s_ytd + v_qty,
               s_order_cnt = s_order_cnt + 1,
               s_remote_cnt = s_remote_cnt + CASE WHEN v_supply <> p_w_id THEN 1 ELSE 0 END
         WHERE s_i_id = v_i_id AND s_w_id = v_supply;

        SET v_amount = v_qty * v_price;
        INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                                ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
        VALUES (order_id, p_d_id, p_w_id, v_line, v_i_id, v_supply,
                NULL, v_qty, v_amount, v_dist_info);
        SET v_sum = v_sum + v_amount;
        SET v_line = v_line + 1;
    END WHILE;

    COMMIT;
    SET total_amount = ROUND(v_sum * (1 - cust_discount) * (1 + wh_tax + dist_tax), 2);
END neword;
-- go
CREATE PROCEDURE PAYMENT(
    IN p_w_id INT, IN p_d_id INT, IN p_c_w_id INT, IN p_c_d_id INT, IN p_c_id INT,
    IN p_byname INT, IN p_c_last VARCHAR(16) CHARACTER SET latin1, IN p_h_amount DECIMAL(6,2),
    IN p_h_date DATETIME,
    OUT cust_id INT, OUT cust_first VARCHAR(16), OUT cust_middle CHAR(2),
    OUT cust_last VARCHAR(16), OUT cust_balance DECIMAL(12,2), OUT cust_credit CHAR(2))
BEGIN
    DECLARE v_h_date  DATETIME DEFAULT IFNULL(p_h_date, NOW());
    DECLARE v_w_name  VARCHAR(10);
    DECLARE v_d_name  VARCHAR(10);
    DECLARE v_count   INT;
    DECLARE v_offset  INT;
    DECLARE v_found   INT DEFAULT 1;
    DECLARE v_message VARCHAR(200);
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    START TRANSACTION;

    UPDATE warehouse SET w_ytd = w_ytd + p_h_amount WHERE w_id = p_w_id;
    SELECT w_name INTO v_w_name FROM warehouse WHERE w_id = p_w_id;
    IF v_found = 0 THEN
        SET v_message = CONCAT('PAYMENT: warehouse ', p_w_id, ' not found');
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;
    END IF;

    UPDATE district SET d_ytd = d_ytd + p_h_amount WHERE d_w_id = p_w_id AND d_id = p_d_id;
    SELECT d_name INTO v_d_name FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
    IF v_found = 0 THEN
        SET v_message = CONCAT('PAYMENT: district ', p_d_id, ' of warehouse ', p_w_id, ' not found');
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;
    END IF;

    IF p_byname = 1 THEN
        SELECT COUNT(*) INTO v_count FROM customer
         WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last;
        IF v_count = 0 THEN
            SET v_message = CONCAT('PAYMENT: no customer named ', p_c_last, ' in district ', p_c_d_id, ' of warehouse ', p_c_w_id);
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;
        END IF;
        SET v_offset = (v_count - 1) DIV 2;
        SELECT c_id INTO cust_id FROM customer
         WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last
         ORDER BY c_first, c_id
         LIMIT v_offset, 1;
    ELSE
        SET cust_id = p_c_id;
    END IF;

    SELECT c_first, c_middle, c_last, c_credit INTO cust_first, cust_middle, cust_last, cust_credit
      FROM customer WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = cust_id
       FOR UPDATE;
    IF v_found = 0 THEN
        SET v_message = CONCAT('PAYMENT: customer ', cust_id, ' of district ', p_c_d_id, ' warehouse ', p_c_w_id, ' not found');
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;
    END IF;
    -- MySQL evaluates SET assignments left to right with the new values: c_data's
    -- expression reads only columns no assignment changes.
    UPDATE customer
       SET c_balance = c_balance - p_h_amount,
           c_ytd_payment = c_ytd_payment + p_h_amount,
           c_payment_cnt = c_payment_cnt + 1,
           c_data = CASE WHEN c_credit = 'BC'
                         THEN LEFT(CONCAT(c_id, ' ', c_d_id, ' ', c_w_id, ' ', p_d_id, ' ', p_w_id, ' ',
                                          p_h_amount, ' | ', c_data), 500)
                         ELSE c_data END
     WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = cust_id;
    SELECT c_balance INTO cust_balance
      FROM customer WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = cust_id;

    INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (cust_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, v_h_date, p_h_amount,
            CONCAT(v_w_name, '    ', v_d_name));

    COMMIT;
END;
-- go
CREATE PROCEDURE OSTAT(
    IN p_w_id INT, IN p_d_id INT, IN p_c_id INT, IN p_byname INT,
    IN p_c_last VARCHAR(16) CHARACTER SET latin1,
    OUT cust_id INT, OUT cust_first VARCHAR(16), OUT cust_middle CHAR(2),
    OUT cust_last VARCHAR(16), OUT cust_balance DECIMAL(12,2), OUT order_id INT,
    OUT entry_d DATETIME, OUT carrier_id INT, OUT line_count INT, OUT order_lines TEXT)
BEGIN
    DECLARE v_count   INT;
    DECLARE v_offset  INT;
    DECLARE v_found   INT DEFAULT 1;
    DECLARE v_message VARCHAR(200);
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    START TRANSACTION;

    IF p_byname = 1 THEN
        SELECT COUNT(*) INTO v_count FROM customer
         WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last;
        IF v_count = 0 THEN
            SET v_message = CONCAT('OSTAT: no customer named ', p_c_last, ' in district ', p_d_id, ' of warehouse ', p_w_id);
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;
        END IF;
        SET v_offset = (v_count - 1) DIV 2;
        SELECT c_id, c_first, c_middle, c_last, c_balance
          INTO cust_id, cust_first, cust_middle, cust_last, cust_balance
          FROM customer
         WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last
         ORDER BY c_first, c_id
         LIMIT v_offset, 1;
    ELSE
        SELECT c_id, c_first, c_middle, c_last, c_balance
          INTO cust_id, cust_first, cust_middle, cust_last, cust_balance
          FROM customer
         WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;
        IF v_found = 0 THEN
            SET v_message = CONCAT('OSTAT: customer ', p_c_id, ' of district ', p_d_id, ' warehouse ', p_w_id, ' not found');
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;
        END IF;
    END IF;

    SELECT o_id, o_entry_d, o_carrier_id INTO order_id, entry_d, carrier_id
      FROM orders
     WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_c_id = cust_id
     ORDER BY o_id DESC LIMIT 1;

    SELECT COUNT(*),
           GROUP_CONCAT(CONCAT_WS(',', ol_i_id, ol_supply_w_id, ol_quantity, ol_amount,
                                  IFNULL(DATE_FORMAT(ol_delivery_d, '%Y-%m-%d %H:%i:%s'), ''))
                        ORDER BY ol_number SEPARATOR ';')
      INTO line_count, order_lines
      FROM order_line
     WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id = order_id;

    COMMIT;
END;
-- go
CREATE PROCEDURE DELIVERY(
    IN p_w_id INT, IN p_carrier_id INT, IN p_delivery_d DATETIME,
    OUT delivered INT, OUT skipped INT)
BEGIN
    DECLARE v_delivery_d DATETIME DEFAULT IFNULL(p_delivery_d, NOW());
    DECLARE v_d_id   INT DEFAULT 1;
    DECLARE v_o_id   INT;
    DECLARE v_c_id   INT;
    DECLARE v_amount DECIMAL(12,2);
    DECLARE v_found  INT DEFAULT 1;
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET delivered = 0;
    SET skipped = 0;
    START TRANSACTION;

    WHILE v_d_id <= 10 DO
        SET v_found = 1;
        SELECT no_o_id INTO v_o_id FROM new_order
         WHERE no_w_id = p_w_id AND no_d_id = v_d_id
         ORDER BY no_o_id LIMIT 1
           FOR UPDATE;
        IF v_found = 0 THEN
            SET skipped = skipped + 1;
        ELSE
            DELETE FROM new_order
             WHERE no_w_id = p_w_id AND no_d_id = v_d_id AND no_o_id = v_o_id;

            -- Update first, then read: a consistent read sees this transaction's own
            -- changes even when the order was committed after its snapshot was taken.
            UPDATE orders SET o_carrier_id = p_carrier_id
             WHERE o_w_id = p_w_id AND o_d_id = v_d_id AND o_id = v_o_id;
            SELECT o_c_id INTO v_c_id FROM orders
             WHERE o_w_id = p_w_id AND o_d_id = v_d_id AND o_id = v_o_id;

            UPDATE order_line SET ol_delivery_d = v_delivery_d
             WHERE ol_w_id = p_w_id AND ol_d_id = v_d_id AND ol_o_id = v_o_id;
            SELECT IFNULL(SUM(ol_amount), 0) INTO v_amount FROM order_line
             WHERE ol_w_id = p_w_id AND ol_d_id = v_d_id AND ol_o_id = v_o_id;

            UPDATE customer
               SET c_balance = c_balance + v_amount,
                   c_delivery_cnt = c_delivery_cnt + 1
             WHERE c_w_id = p_w_id AND c_d_id = v_d_id AND c_id = v_c_id;

            SET delivered = delivered + 1;
        END IF;
        SET v_d_id = v_d_id + 1;
    END WHILE;

    COMMIT;
END;
-- go
CREATE PROCEDURE SLEV(IN p_w_id INT, IN p_d_id INT, IN p_threshold INT, OUT stock_count INT)
BEGIN
    DECLARE v_next_o_id INT;
    DECLARE v_found     INT DEFAULT 1;
    DECLARE v_message   VARCHAR(200);
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_found = 0;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    START TRANSACTION;

    SELECT d_next_o_id INTO v_next_o_id FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
    IF v_found = 0 THEN
        SET v_message = CONCAT('SLEV: district ', p_d_id, ' of warehouse ', p_w_id, ' not found');
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;
    END IF;

    SELECT COUNT(DISTINCT s.s_i_id) INTO stock_count
      FROM order_line ol
      JOIN stock s ON s.s_w_id = ol.ol_w_id AND s.s_i_id = ol.ol_i_id
     WHERE ol.ol_w_id = p_w_id AND ol.ol_d_id = p_d_id
       AND ol.ol_o_id >= v_next_o_id - 20 AND ol.ol_o_id < v_next_o_id
       AND s.s_quantity < p_threshold;

    COMMIT;
END;
