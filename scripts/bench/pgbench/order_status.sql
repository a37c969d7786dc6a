\set w random(1,:ware)
\set d random(1,10)
\set c random(1,3000)
SELECT cust_id, cust_first, cust_middle, cust_last, cust_balance, order_id, entry_d, carrier_id, line_count, order_lines FROM ostat(:w, :d, :c, 0, '');
