\set w random(1,:ware)
\set k random(1,10)
SELECT delivered, skipped FROM delivery(:w, :k, NULL);
