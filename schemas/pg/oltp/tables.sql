-- sysbench's OLTP tables on PostgreSQL, as its oltp_common.lua makes them with its pgsql
-- driver: sbtest{{n}} with id, k, c and pad. {{id}} is SERIAL with *_oltp_auto_inc (else
-- INTEGER NOT NULL); {{id_key}} is the primary key clause, or empty with *_oltp_secondary.
-- The table is created empty; the rows come by COPY, then the statements below.
-- go
-- name: create_table
CREATE TABLE sbtest{{n}} (
  id {{id}},
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL{{id_key}}
)
-- go
-- name: primary_key
,
  PRIMARY KEY (id)
-- go
-- name: secondary_index
CREATE INDEX k_{{n}} ON sbtest{{n}}(k)
-- go
-- *_oltp_secondary (hammer's own on PostgreSQL: sysbench's MySQL clause KEY xid (id) is no
-- PostgreSQL syntax): a plain index on id in place of the primary key.
-- name: id_index
CREATE INDEX xid_{{n}} ON sbtest{{n}}(id)
-- go
-- The rows came with their ids: SERIAL's sequence goes on from the last, as sysbench's
-- INSERTs would have left it.
-- name: id_sequence
SELECT setval(pg_get_serial_sequence('sbtest{{n}}', 'id'), {{rows}})
-- go
-- name: analyze
ANALYZE sbtest{{n}}
