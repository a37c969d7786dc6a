-- sysbench's OLTP tables on MariaDB and MySQL, as its oltp_common.lua makes them with its
-- mysql driver: sbtest{{n}} with id, k, c and pad in *_oltp_storage_engine ({{engine}}).
-- {{id}} is INTEGER NOT NULL AUTO_INCREMENT with *_oltp_auto_inc (else INTEGER NOT NULL);
-- {{id_key}} is PRIMARY KEY, or KEY xid with *_oltp_secondary. The table is created empty;
-- the rows come by LOAD DATA LOCAL (or INSERTs), then the statements below.
-- go
-- name: create_table
CREATE TABLE sbtest{{n}} (
  id {{id}},
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  {{id_key}} (id)
) ENGINE = {{engine}}
-- go
-- name: secondary_index
CREATE INDEX k_{{n}} ON sbtest{{n}}(k)
-- go
-- name: analyze
ANALYZE TABLE sbtest{{n}}
