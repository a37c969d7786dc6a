-- What differs between the two flavours of routines.sql: each slot's text for FUNCTIONS
-- (name_function) and for PROCEDURES (name_procedure). Only the signatures' outputs and the
-- New-Order rollback differ (procedures also set rolled_back first); the bodies are
-- routines.sql's, once.
-- go
-- name: kind_function
FUNCTION
-- go
-- name: kind_procedure
PROCEDURE
-- go
-- name: neword_outputs_function
OUT order_id int, OUT total_amount numeric, OUT cust_discount numeric,
    OUT cust_last varchar, OUT cust_credit varchar, OUT wh_tax numeric, OUT dist_tax numeric
-- go
-- name: neword_outputs_procedure
INOUT order_id int DEFAULT NULL, INOUT total_amount numeric DEFAULT NULL,
    INOUT cust_discount numeric DEFAULT NULL, INOUT cust_last varchar DEFAULT NULL,
    INOUT cust_credit varchar DEFAULT NULL, INOUT wh_tax numeric DEFAULT NULL,
    INOUT dist_tax numeric DEFAULT NULL, INOUT rolled_back int DEFAULT NULL
-- go
-- name: neword_begin_function
IF p_ol_cnt IS NULL OR p_ol_cnt < 1
-- go
-- name: neword_begin_procedure
rolled_back := 0;
    IF p_ol_cnt IS NULL OR p_ol_cnt < 1
-- go
-- name: neword_unused_item_function
RAISE EXCEPTION 'Item number is not valid'
                USING ERRCODE = 'HR001',
                      DETAIL = format('w_id=%s d_id=%s c_id=%s o_id=%s c_last=%s c_credit=%s i_id=%s',
                                      p_w_id, p_d_id, p_c_id, order_id, cust_last, cust_credit, v_i_id);
-- go
-- name: neword_unused_item_procedure
-- Clause 2.4.2.3: the unused item rolls the whole transaction back; order_id,
            -- cust_last and cust_credit stay set for the terminal to show.
            ROLLBACK;
            rolled_back := 1;
            RETURN;
-- go
-- name: payment_outputs_function
OUT cust_id int, OUT cust_first varchar, OUT cust_middle varchar, OUT cust_last varchar,
    OUT cust_balance numeric, OUT cust_credit varchar
-- go
-- name: payment_outputs_procedure
INOUT cust_id int DEFAULT NULL, INOUT cust_first varchar DEFAULT NULL,
    INOUT cust_middle varchar DEFAULT NULL, INOUT cust_last varchar DEFAULT NULL,
    INOUT cust_balance numeric DEFAULT NULL, INOUT cust_credit varchar DEFAULT NULL
-- go
-- name: ostat_outputs_function
OUT cust_id int, OUT cust_first varchar, OUT cust_middle varchar, OUT cust_last varchar,
    OUT cust_balance numeric, OUT order_id int, OUT entry_d timestamptz, OUT carrier_id int,
    OUT line_count int, OUT order_lines text
-- go
-- name: ostat_outputs_procedure
INOUT cust_id int DEFAULT NULL, INOUT cust_first varchar DEFAULT NULL,
    INOUT cust_middle varchar DEFAULT NULL, INOUT cust_last varchar DEFAULT NULL,
    INOUT cust_balance numeric DEFAULT NULL, INOUT order_id int DEFAULT NULL,
    INOUT entry_d timestamptz DEFAULT NULL, INOUT carrier_id int DEFAULT NULL,
    INOUT line_count int DEFAULT NULL, INOUT order_lines text DEFAULT NULL
-- go
-- name: delivery_outputs_function
OUT delivered int, OUT skipped int
-- go
-- name: delivery_outputs_procedure
INOUT delivered int DEFAULT NULL, INOUT skipped int DEFAULT NULL
-- go
-- name: slev_outputs_function
OUT stock_count int
-- go
-- name: slev_outputs_procedure
INOUT stock_count int DEFAULT NULL
