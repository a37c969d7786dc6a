-- TPROC-H primary keys (TPC-H clause 1.4.2.2) and the indexes on the foreign-key columns
-- the queries join on, added after the load: one ALTER TABLE per table, so each table is
-- rebuilt once.

-- go
ALTER TABLE region ADD PRIMARY KEY (r_regionkey)
-- go
ALTER TABLE nation ADD PRIMARY KEY (n_nationkey), ADD INDEX nation_fk1 (n_regionkey)
-- go
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey), ADD INDEX supplier_fk1 (s_nationkey)
-- go
ALTER TABLE customer ADD PRIMARY KEY (c_custkey), ADD INDEX customer_fk1 (c_nationkey)
-- go
ALTER TABLE part ADD PRIMARY KEY (p_partkey)
-- go
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey), ADD INDEX partsupp_fk1 (ps_suppkey)
-- go
ALTER TABLE orders ADD PRIMARY KEY (o_orderkey), ADD INDEX orders_fk1 (o_custkey)
-- go
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber), ADD INDEX lineitem_fk1 (l_partkey, l_suppkey)
