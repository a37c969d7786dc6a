\set w random(1,:ware)
\set d random(1,10)
\set c random(1,3000)
SELECT cust_id, cust_first, cust_middle, cust_last, cust_balance, cust_credit FROM payment(:w, :d, :w, :d, :c, 0, '', '12.34'::text::numeric, NULL);
