-- TPROC-C tables for MariaDB and MySQL: HammerDB's table, column, key and index names,
-- TPC-C clause 1.3 types. Keys and the two secondary indexes are created with the tables.
--
-- Differences from HammerDB, on purpose:
--   * ol_amount is DECIMAL(6,2), not INT: money is exact on every database;
--   * every column is NOT NULL except o_carrier_id and ol_delivery_d (NULL until delivered);
--   * text is latin1 with the binary collation latin1_bin (HammerDB declares its columns
--     BINARY, deprecated in MySQL 8), set per table so the database's default does not
--     matter: c_first and c_last sort in byte order, like PostgreSQL's "C" collation, so
--     Payment and Order-Status pick the same customer by name on every database;
--   * no display widths (INT(6)), deprecated in MySQL 8.
--
-- Placeholders (src/sqlfile.rs render):
--   {{engine}}      the storage engine, e.g. InnoDB
--   {{history_pk}}  empty, or an invisible key column for HISTORY (MariaDB >= 10.3.3,
--                   MySQL >= 8.0.30, InnoDB):
--                   `, id INT NOT NULL AUTO_INCREMENT INVISIBLE PRIMARY KEY`
--   {{partition}}   empty, or `PARTITION BY HASH (ol_w_id) PARTITIONS <n>` for ORDER_LINE
-- Statements are separated by `-- go` lines.

-- go
CREATE TABLE warehouse (
    w_id        INT           NOT NULL,
    w_name      VARCHAR(10)   NOT NULL,
    w_street_1  VARCHAR(20)   NOT NULL,
    w_street_2  VARCHAR(20)   NOT NULL,
    w_city      VARCHAR(20)   NOT NULL,
    w_state     CHAR(2)       NOT NULL,
    w_zip       CHAR(9)       NOT NULL,
    w_tax       DECIMAL(4,4)  NOT NULL,
    w_ytd       DECIMAL(16,2) NOT NULL,
    PRIMARY KEY (w_id)
) ENGINE = {{engine}} DEFAULT CHARSET = latin1 COLLATE = latin1_bin;
-- go
CREATE TABLE district (
    d_id        INT           NOT NULL,
    d_w_id      INT           NOT NULL,
    d_name      VARCHAR(10)   NOT NULL,
    d_street_1  VARCHAR(20)   NOT NULL,
    d_street_2  VARCHAR(20)   NOT NULL,
    d_city      VARCHAR(20)   NOT NULL,
    d_state     CHAR(2)       NOT NULL,
    d_zip       CHAR(9)       NOT NULL,
    d_tax       DECIMAL(4,4)  NOT NULL,
    d_ytd       DECIMAL(12,2) NOT NULL,
    d_next_o_id INT           NOT NULL,
    PRIMARY KEY (d_w_id, d_id)
) ENGINE = {{engine}} DEFAULT CHARSET = latin1 COLLATE = latin1_bin;
-- go
CREATE TABLE customer (
    c_id           INT           NOT NULL,
    c_d_id         INT           NOT NULL,
    c_w_id         INT           NOT NULL,
    c_first        VARCHAR(16)   NOT NULL,
    c_middle       CHAR(2)       NOT NULL,
    c_last         VARCHAR(16)   NOT NULL,
    c_street_1     VARCHAR(20)   NOT NULL,
    c_street_2     VARCHAR(20)   NOT NULL,
    c_city         VARCHAR(20)   NOT NULL,
    c_state        CHAR(2)       NOT NULL,
    c_zip          CHAR(9)       NOT NULL,
    c_phone        CHAR(16)      NOT NULL,
    c_since        DATETIME      NOT NULL,
    c_credit       CHAR(2)       NOT NULL,
    c_credit_lim   DECIMAL(12,2) NOT NULL,
    c_discount     DECIMAL(4,4)  NOT NULL,
    c_balance      DECIMAL(12,2) NOT NULL,
    c_ytd_payment  DECIMAL(12,2) NOT NULL,
    c_payment_cnt  INT           NOT NULL,
    c_delivery_cnt INT           NOT NULL,
    c_data         VARCHAR(500)  NOT NULL,
    PRIMARY KEY (c_w_id, c_d_id, c_id),
    KEY c_w_id (c_w_id, c_d_id, c_last, c_first)
) ENGINE = {{engine}} DEFAULT CHARSET = latin1 COLLATE = latin1_bin;
-- go
CREATE TABLE history (
    h_c_id   INT          NOT NULL,
    h_c_d_id INT          NOT NULL,
    h_c_w_id INT          NOT NULL,
    h_d_id   INT          NOT NULL,
    h_w_id   INT          NOT NULL,
    h_date   DATETIME     NOT NULL,
    h_amount DECIMAL(6,2) NOT NULL,
    h_data   VARCHAR(24)  NOT NULL{{history_pk}}
) ENGINE = {{engine}} DEFAULT CHARSET = latin1 COLLATE = latin1_bin;
-- go
CREATE TABLE new_order (
    no_o_id INT NOT NULL,
    no_d_id INT NOT NULL,
    no_w_id INT NOT NULL,
    PRIMARY KEY (no_w_id, no_d_id, no_o_id)
) ENGINE = {{engine}} DEFAULT CHARSET = latin1 COLLATE = latin1_bin;
-- go
CREATE TABLE orders (
    o_id         INT      NOT NULL,
    o_d_id       INT      NOT NULL,
    o_w_id       INT      NOT NULL,
    o_c_id       INT      NOT NULL,
    o_entry_d    DATETIME NOT NULL,
    o_carrier_id INT,
    o_ol_cnt     INT      NOT NULL,
    o_all_local  INT      NOT NULL,
    PRIMARY KEY (o_w_id, o_d_id, o_id),
    KEY o_w_id (o_w_id, o_d_id, o_c_id, o_id)
) ENGINE = {{engine}} DEFAULT CHARSET = latin1 COLLATE = latin1_bin;
-- go
CREATE TABLE order_line (
    ol_o_id        INT          NOT NULL,
    ol_d_id        INT          NOT NULL,
    ol_w_id        INT          NOT NULL,
    ol_number      INT          NOT NULL,
    ol_i_id        INT          NOT NULL,
    ol_supply_w_id INT          NOT NULL,
    ol_delivery_d  DATETIME,
    ol_quantity    INT          NOT NULL,
    ol_amount      DECIMAL(6,2) NOT NULL,
    ol_dist_info   CHAR(24)     NOT NULL,
    PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)
) ENGINE = {{engine}} DEFAULT CHARSET = latin1 COLLATE = latin1_bin
{{partition}};
-- go
CREATE TABLE item (
    i_id    INT          NOT NULL,
    i_im_id INT          NOT NULL,
    i_name  VARCHAR(24)  NOT NULL,
    i_price DECIMAL(5,2) NOT NULL,
    i_data  VARCHAR(50)  NOT NULL,
    PRIMARY KEY (i_id)
) ENGINE = {{engine}} DEFAULT CHARSET = latin1 COLLATE = latin1_bin;
-- go
CREATE TABLE stock (
    s_i_id       INT         NOT NULL,
    s_w_id       INT         NOT NULL,
    s_quantity   INT         NOT NULL,
    s_dist_01    CHAR(24)    NOT NULL,
    s_dist_02    CHAR(24)    NOT NULL,
    s_dist_03    CHAR(24)    NOT NULL,
    s_dist_04    CHAR(24)    NOT NULL,
    s_dist_05    CHAR(24)    NOT NULL,
    s_dist_06    CHAR(24)    NOT NULL,
    s_dist_07    CHAR(24)    NOT NULL,
    s_dist_08    CHAR(24)    NOT NULL,
    s_dist_09    CHAR(24)    NOT NULL,
    s_dist_10    CHAR(24)    NOT NULL,
    s_ytd        INT         NOT NULL,
    s_order_cnt  INT         NOT NULL,
    s_remote_cnt INT         NOT NULL,
    s_data       VARCHAR(50) NOT NULL,
    PRIMARY KEY (s_w_id, s_i_id)
) ENGINE = {{engine}} DEFAULT CHARSET = latin1 COLLATE = latin1_bin;
