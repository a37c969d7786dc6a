-- The NURand constants C the database was loaded with (TPC-C clause 2.1.6): one row,
-- written by the loader. The driver reads it to choose its run-time constants, which
-- clause 2.1.6.1 requires to differ from the load-time ones in a prescribed way.
--   c_last  : C for customer last names  (A = 255,  0 .. 255)
--   c_id    : C for customer ids         (A = 1023, 0 .. 1023)
--   ol_i_id : C for item ids             (A = 8191, 0 .. 8191)

-- go
CREATE TABLE tpcc_nurand (
    c_last  int NOT NULL CHECK (c_last BETWEEN 0 AND 255),
    c_id    int NOT NULL CHECK (c_id BETWEEN 0 AND 1023),
    ol_i_id int NOT NULL CHECK (ol_i_id BETWEEN 0 AND 8191)
);
