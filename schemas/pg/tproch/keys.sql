-- TPROC-H primary keys (TPC-H clause 1.4.2.2) and the indexes on the foreign-key columns
-- the queries join on, added after the load; built in parallel, largest tables first.

-- go
ALTER TABLE region ADD CONSTRAINT region_pk PRIMARY KEY (r_regionkey)
-- go
ALTER TABLE nation ADD CONSTRAINT nation_pk PRIMARY KEY (n_nationkey)
-- go
ALTER TABLE supplier ADD CONSTRAINT supplier_pk PRIMARY KEY (s_suppkey)
-- go
ALTER TABLE customer ADD CONSTRAINT customer_pk PRIMARY KEY (c_custkey)
-- go
ALTER TABLE part ADD CONSTRAINT part_pk PRIMARY KEY (p_partkey)
-- go
ALTER TABLE partsupp ADD CONSTRAINT partsupp_pk PRIMARY KEY (ps_partkey, ps_suppkey)
-- go
ALTER TABLE orders ADD CONSTRAINT orders_pk PRIMARY KEY (o_orderkey)
-- go
ALTER TABLE lineitem ADD CONSTRAINT lineitem_pk PRIMARY KEY (l_orderkey, l_linenumber)
-- go
CREATE INDEX nation_fk1 ON nation (n_regionkey)
-- go
CREATE INDEX supplier_fk1 ON supplier (s_nationkey)
-- go
CREATE INDEX customer_fk1 ON customer (c_nationkey)
-- go
CREATE INDEX partsupp_fk1 ON partsupp (ps_suppkey)
-- go
CREATE INDEX orders_fk1 ON orders (o_custkey)
-- go
CREATE INDEX lineitem_fk1 ON lineitem (l_partkey, l_suppkey)
