\set w random(1,:ware)
\set d random(1,10)
\set t random(10,20)
SELECT stock_count FROM slev(:w, :d, :t);
