-- TPROC-C keys for PostgreSQL, added after the load, with HammerDB's names (unquoted, so
-- CUSTOMER_I1 is stored as customer_i1, as HammerDB's are). Primary keys first, then the
-- two secondary unique indexes the transactions use: CUSTOMER_I2 finds a customer by last
-- name in c_first order (Payment, Order-Status), ORDERS_I2 a customer's latest order
-- (Order-Status). HISTORY has no key.

-- go
ALTER TABLE warehouse ADD CONSTRAINT WAREHOUSE_I1 PRIMARY KEY (w_id);
-- go
ALTER TABLE district ADD CONSTRAINT DISTRICT_I1 PRIMARY KEY (d_w_id, d_id);
-- go
ALTER TABLE customer ADD CONSTRAINT CUSTOMER_I1 PRIMARY KEY (c_w_id, c_d_id, c_id);
-- go
ALTER TABLE new_order ADD CONSTRAINT NEW_ORDER_I1 PRIMARY KEY (no_w_id, no_d_id, no_o_id);
-- go
ALTER TABLE orders ADD CONSTRAINT ORDERS_I1 PRIMARY KEY (o_w_id, o_d_id, o_id);
-- go
ALTER TABLE order_line ADD CONSTRAINT ORDER_LINE_I1 PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number);
-- go
ALTER TABLE item ADD CONSTRAINT ITEM_I1 PRIMARY KEY (i_id);
-- go
ALTER TABLE stock ADD CONSTRAINT STOCK_I1 PRIMARY KEY (s_i_id, s_w_id);
-- go
CREATE UNIQUE INDEX CUSTOMER_I2 ON customer (c_w_id, c_d_id, c_last, c_first, c_id);
-- go
CREATE UNIQUE INDEX ORDERS_I2 ON orders (o_w_id, o_d_id, o_c_id, o_id);
