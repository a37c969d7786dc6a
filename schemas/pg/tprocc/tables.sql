-- TPROC-C tables for PostgreSQL: HammerDB's table and column names, TPC-C clause 1.3 types.
--
-- No keys here: the loader adds them after the load (keys.sql), which is faster than
-- maintaining indexes row by row. Columns follow the clause 1.3 order, the order
-- hammer's generator writes. Differences from HammerDB, on purpose:
--   * every column is NOT NULL except o_carrier_id and ol_delivery_d (NULL until delivered);
--   * the counters Payment, Delivery and New-Order now update are int, not smallint;
--   * c_first and c_last compare in the "C" collation (byte order), so Payment and
--     Order-Status pick the same customer by name as MariaDB/MySQL (latin1_bin) do.
--
-- Placeholder: {{partition}} is empty, or `PARTITION BY HASH (ol_w_id)`; a partitioned
-- order_line then needs its children from partitions.sql before the load.
-- Statements are separated by `-- go` lines (src/sqlfile.rs).

-- go
CREATE TABLE warehouse (
    w_id        int           NOT NULL,
    w_name      varchar(10)   NOT NULL,
    w_street_1  varchar(20)   NOT NULL,
    w_street_2  varchar(20)   NOT NULL,
    w_city      varchar(20)   NOT NULL,
    w_state     char(2)       NOT NULL,
    w_zip       char(9)       NOT NULL,
    w_tax       numeric(4,4)  NOT NULL,
    w_ytd       numeric(16,2) NOT NULL
);
-- go
CREATE TABLE district (
    d_id        smallint      NOT NULL,
    d_w_id      int           NOT NULL,
    d_name      varchar(10)   NOT NULL,
    d_street_1  varchar(20)   NOT NULL,
    d_street_2  varchar(20)   NOT NULL,
    d_city      varchar(20)   NOT NULL,
    d_state     char(2)       NOT NULL,
    d_zip       char(9)       NOT NULL,
    d_tax       numeric(4,4)  NOT NULL,
    d_ytd       numeric(12,2) NOT NULL,
    d_next_o_id int           NOT NULL
);
-- go
CREATE TABLE customer (
    c_id           int           NOT NULL,
    c_d_id         smallint      NOT NULL,
    c_w_id         int           NOT NULL,
    c_first        varchar(16)   COLLATE "C" NOT NULL,
    c_middle       char(2)       NOT NULL,
    c_last         varchar(16)   COLLATE "C" NOT NULL,
    c_street_1     varchar(20)   NOT NULL,
    c_street_2     varchar(20)   NOT NULL,
    c_city         varchar(20)   NOT NULL,
    c_state        char(2)       NOT NULL,
    c_zip          char(9)       NOT NULL,
    c_phone        char(16)      NOT NULL,
    c_since        timestamptz   NOT NULL,
    c_credit       char(2)       NOT NULL,
    c_credit_lim   numeric(12,2) NOT NULL,
    c_discount     numeric(4,4)  NOT NULL,
    c_balance      numeric(12,2) NOT NULL,
    c_ytd_payment  numeric(12,2) NOT NULL,
    c_payment_cnt  int           NOT NULL,
    c_delivery_cnt int           NOT NULL,
    c_data         varchar(500)  NOT NULL
);
-- go
CREATE TABLE history (
    h_c_id   int          NOT NULL,
    h_c_d_id smallint     NOT NULL,
    h_c_w_id int          NOT NULL,
    h_d_id   smallint     NOT NULL,
    h_w_id   int          NOT NULL,
    h_date   timestamptz  NOT NULL,
    h_amount numeric(6,2) NOT NULL,
    h_data   varchar(24)  NOT NULL
);
-- go
CREATE TABLE new_order (
    no_o_id int      NOT NULL,
    no_d_id smallint NOT NULL,
    no_w_id int      NOT NULL
);
-- go
CREATE TABLE orders (
    o_id         int         NOT NULL,
    o_d_id       smallint    NOT NULL,
    o_w_id       int         NOT NULL,
    o_c_id       int         NOT NULL,
    o_entry_d    timestamptz NOT NULL,
    o_carrier_id smallint,
    o_ol_cnt     smallint    NOT NULL,
    o_all_local  smallint    NOT NULL
);
-- go
CREATE TABLE order_line (
    ol_o_id        int          NOT NULL,
    ol_d_id        smallint     NOT NULL,
    ol_w_id        int          NOT NULL,
    ol_number      smallint     NOT NULL,
    ol_i_id        int          NOT NULL,
    ol_supply_w_id int          NOT NULL,
    ol_delivery_d  timestamptz,
    ol_quantity    smallint     NOT NULL,
    ol_amount      numeric(6,2) NOT NULL,
    ol_dist_info   char(24)     NOT NULL
) {{partition}};
-- go
CREATE TABLE item (
    i_id    int          NOT NULL,
    i_im_id int          NOT NULL,
    i_name  varchar(24)  NOT NULL,
    i_price numeric(5,2) NOT NULL,
    i_data  varchar(50)  NOT NULL
);
-- go
CREATE TABLE stock (
    s_i_id       int         NOT NULL,
    s_w_id       int         NOT NULL,
    s_quantity   smallint    NOT NULL,
    s_dist_01    char(24)    NOT NULL,
    s_dist_02    char(24)    NOT NULL,
    s_dist_03    char(24)    NOT NULL,
    s_dist_04    char(24)    NOT NULL,
    s_dist_05    char(24)    NOT NULL,
    s_dist_06    char(24)    NOT NULL,
    s_dist_07    char(24)    NOT NULL,
    s_dist_08    char(24)    NOT NULL,
    s_dist_09    char(24)    NOT NULL,
    s_dist_10    char(24)    NOT NULL,
    s_ytd        int         NOT NULL,
    s_order_cnt  int         NOT NULL,
    s_remote_cnt int         NOT NULL,
    s_data       varchar(50) NOT NULL
);
