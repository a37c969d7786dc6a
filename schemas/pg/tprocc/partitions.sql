-- The children of a hash-partitioned order_line (tables.sql rendered with
-- {{partition}} = `PARTITION BY HASH (ol_w_id)`): {{partitions}} tables named
-- ol_0 .. ol_<n-1>, as HammerDB names them. Run after tables.sql, before the load.

-- go
DO $$
DECLARE
    n CONSTANT int := {{partitions}};
BEGIN
    FOR i IN 0 .. n - 1 LOOP
        EXECUTE format(
            'CREATE TABLE ol_%s PARTITION OF order_line FOR VALUES WITH (MODULUS %s, REMAINDER %s)',
            i, n, i);
    END LOOP;
END
$$;
