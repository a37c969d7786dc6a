-- The 22 TPROC-H queries for MariaDB and MySQL, written from the TPC-H specification (clause 2.4).
-- Each query starts at a line `-- query N`; a query of several statements (15: create its
-- view, query it, drop it) separates them with a line `-- go`. `:1`, `:2`, ... are the
-- query's substitution parameters, numbered as the specification's query text numbers them
-- (their quotes are part of this text, not of the values); `:s` is the stream's number, which
-- keeps query 15's view apart from other streams'. Lines starting with `--` are comments.
-- Row limits (queries 2, 3, 10, 18, 21) are those the specification's preamble states.
-- The text is PostgreSQL's but for queries 14 and 18, whose joins are ordered for MariaDB's
-- optimizer (their comments say why); both give the same rows.

-- query 1
-- Pricing Summary Report
select
  l_returnflag,
  l_linestatus,
  sum(l_quantity) as sum_qty,
  sum(l_extendedprice) as sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
  sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
  avg(l_quantity) as avg_qty,
  avg(l_extendedprice) as avg_price,
  avg(l_discount) as avg_disc,
  count(*) as count_order
from lineitem
where l_shipdate <= date '1998-12-01' - interval ':1' day
group by l_returnflag, l_linestatus
order by l_returnflag, l_linestatus

-- query 2
-- Minimum Cost Supplier
select
  s_acctbal,
  s_name,
  n_name,
  p_partkey,
  p_mfgr,
  s_address,
  s_phone,
  s_comment
from part, supplier, partsupp, nation, region
where p_partkey = ps_partkey
  and s_suppkey = ps_suppkey
  and p_size = :1
  and p_type like '%:2'
  and s_nationkey = n_nationkey
  and n_regionkey = r_regionkey
  and r_name = ':3'
  and ps_supplycost = (
    select min(ps_supplycost)
    from partsupp, supplier, nation, region
    where p_partkey = ps_partkey
      and s_suppkey = ps_suppkey
      and s_nationkey = n_nationkey
      and n_regionkey = r_regionkey
      and r_name = ':3'
  )
order by s_acctbal desc, n_name, s_name, p_partkey
limit 100

-- query 3
-- Shipping Priority
select
  l_orderkey,
  sum(l_extendedprice * (1 - l_discount)) as revenue,
  o_orderdate,
  o_shippriority
from customer, orders, lineitem
where c_mktsegment = ':1'
  and c_custkey = o_custkey
  and l_orderkey = o_orderkey
  and o_orderdate < date ':2'
  and l_shipdate > date ':2'
group by l_orderkey, o_orderdate, o_shippriority
order by revenue desc, o_orderdate
limit 10

-- query 4
-- Order Priority Checking
select
  o_orderpriority,
  count(*) as order_count
from orders
where o_orderdate >= date ':1'
  and o_orderdate < date ':1' + interval '3' month
  and exists (
    select *
    from lineitem
    where l_orderkey = o_orderkey
      and l_commitdate < l_receiptdate
  )
group by o_orderpriority
order by o_orderpriority

-- query 5
-- Local Supplier Volume
select
  n_name,
  sum(l_extendedprice * (1 - l_discount)) as revenue
from customer, orders, lineitem, supplier, nation, region
where c_custkey = o_custkey
  and l_orderkey = o_orderkey
  and l_suppkey = s_suppkey
  and c_nationkey = s_nationkey
  and s_nationkey = n_nationkey
  and n_regionkey = r_regionkey
  and r_name = ':1'
  and o_orderdate >= date ':2'
  and o_orderdate < date ':2' + interval '1' year
group by n_name
order by revenue desc

-- query 6
-- Forecasting Revenue Change
select
  sum(l_extendedprice * l_discount) as revenue
from lineitem
where l_shipdate >= date ':1'
  and l_shipdate < date ':1' + interval '1' year
  and l_discount between :2 - 0.01 and :2 + 0.01
  and l_quantity < :3

-- query 7
-- Volume Shipping
select
  supp_nation,
  cust_nation,
  l_year,
  sum(volume) as revenue
from (
  select
    n1.n_name as supp_nation,
    n2.n_name as cust_nation,
    extract(year from l_shipdate) as l_year,
    l_extendedprice * (1 - l_discount) as volume
  from supplier, lineitem, orders, customer, nation n1, nation n2
  where s_suppkey = l_suppkey
    and o_orderkey = l_orderkey
    and c_custkey = o_custkey
    and s_nationkey = n1.n_nationkey
    and c_nationkey = n2.n_nationkey
    and (
      (n1.n_name = ':1' and n2.n_name = ':2')
      or (n1.n_name = ':2' and n2.n_name = ':1')
    )
    and l_shipdate between date '1995-01-01' and date '1996-12-31'
) as shipping
group by supp_nation, cust_nation, l_year
order by supp_nation, cust_nation, l_year

-- query 8
-- National Market Share
select
  o_year,
  sum(case when nation = ':1' then volume else 0 end) / sum(volume) as mkt_share
from (
  select
    extract(year from o_orderdate) as o_year,
    l_extendedprice * (1 - l_discount) as volume,
    n2.n_name as nation
  from part, supplier, lineitem, orders, customer, nation n1, nation n2, region
  where p_partkey = l_partkey
    and s_suppkey = l_suppkey
    and l_orderkey = o_orderkey
    and o_custkey = c_custkey
    and c_nationkey = n1.n_nationkey
    and n1.n_regionkey = r_regionkey
    and r_name = ':2'
    and s_nationkey = n2.n_nationkey
    and o_orderdate between date '1995-01-01' and date '1996-12-31'
    and p_type = ':3'
) as all_nations
group by o_year
order by o_year

-- query 9
-- Product Type Profit Measure
select
  nation,
  o_year,
  sum(amount) as sum_profit
from (
  select
    n_name as nation,
    extract(year from o_orderdate) as o_year,
    l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
  from part, supplier, lineitem, partsupp, orders, nation
  where s_suppkey = l_suppkey
    and ps_suppkey = l_suppkey
    and ps_partkey = l_partkey
    and p_partkey = l_partkey
    and o_orderkey = l_orderkey
    and s_nationkey = n_nationkey
    and p_name like '%:1%'
) as profit
group by nation, o_year
order by nation, o_year desc

-- query 10
-- Returned Item Reporting
select
  c_custkey,
  c_name,
  sum(l_extendedprice * (1 - l_discount)) as revenue,
  c_acctbal,
  n_name,
  c_address,
  c_phone,
  c_comment
from customer, orders, lineitem, nation
where c_custkey = o_custkey
  and l_orderkey = o_orderkey
  and o_orderdate >= date ':1'
  and o_orderdate < date ':1' + interval '3' month
  and l_returnflag = 'R'
  and c_nationkey = n_nationkey
group by c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
order by revenue desc
limit 20

-- query 11
-- Important Stock Identification
select
  ps_partkey,
  sum(ps_supplycost * ps_availqty) as value
from partsupp, supplier, nation
where ps_suppkey = s_suppkey
  and s_nationkey = n_nationkey
  and n_name = ':1'
group by ps_partkey
having sum(ps_supplycost * ps_availqty) > (
  select sum(ps_supplycost * ps_availqty) * :2
  from partsupp, supplier, nation
  where ps_suppkey = s_suppkey
    and s_nationkey = n_nationkey
    and n_name = ':1'
)
order by value desc

-- query 12
-- Shipping Modes and Order Priority
select
  l_shipmode,
  sum(case
    when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH' then 1
    else 0
  end) as high_line_count,
  sum(case
    when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH' then 1
    else 0
  end) as low_line_count
from orders, lineitem
where o_orderkey = l_orderkey
  and l_shipmode in (':1', ':2')
  and l_commitdate < l_receiptdate
  and l_shipdate < l_commitdate
  and l_receiptdate >= date ':3'
  and l_receiptdate < date ':3' + interval '1' year
group by l_shipmode
order by l_shipmode

-- query 13
-- Customer Distribution
select
  c_count,
  count(*) as custdist
from (
  select
    c_custkey,
    count(o_orderkey) as c_count
  from customer left outer join orders on
    c_custkey = o_custkey
    and o_comment not like '%:1%:2%'
  group by c_custkey
) as c_orders
group by c_count
order by custdist desc, c_count desc

-- query 14
-- Promotion Effect
-- Rewritten for MariaDB's optimizer: left to itself it reads every part and then each part's
-- lines through lineitem's (l_partkey, l_suppkey) index, one random read per line (15 times
-- slower at scale factor 0.1). STRAIGHT_JOIN reads the month's lines first and looks each
-- one's part up by its key; the rows joined are the same.
select
  100.00 * sum(case
    when p_type like 'PROMO%' then l_extendedprice * (1 - l_discount)
    else 0
  end) / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from lineitem straight_join part on l_partkey = p_partkey
where l_shipdate >= date ':1'
  and l_shipdate < date ':1' + interval '1' month

-- query 15
-- Top Supplier: the specification's view, made, queried and dropped by each stream. OR
-- REPLACE, so that a view left by a stream stopped between its create and its drop does not
-- fail the stream's next query 15.
create or replace view revenue:s (supplier_no, total_revenue) as
  select
    l_suppkey,
    sum(l_extendedprice * (1 - l_discount))
  from lineitem
  where l_shipdate >= date ':1'
    and l_shipdate < date ':1' + interval '3' month
  group by l_suppkey
-- go
select
  s_suppkey,
  s_name,
  s_address,
  s_phone,
  total_revenue
from supplier, revenue:s
where s_suppkey = supplier_no
  and total_revenue = (select max(total_revenue) from revenue:s)
order by s_suppkey
-- go
drop view revenue:s

-- query 16
-- Parts/Supplier Relationship
select
  p_brand,
  p_type,
  p_size,
  count(distinct ps_suppkey) as supplier_cnt
from partsupp, part
where p_partkey = ps_partkey
  and p_brand <> ':1'
  and p_type not like ':2%'
  and p_size in (:3, :4, :5, :6, :7, :8, :9, :10)
  and ps_suppkey not in (
    select s_suppkey
    from supplier
    where s_comment like '%Customer%Complaints%'
  )
group by p_brand, p_type, p_size
order by supplier_cnt desc, p_brand, p_type, p_size

-- query 17
-- Small-Quantity-Order Revenue
select
  sum(l_extendedprice) / 7.0 as avg_yearly
from lineitem, part
where p_partkey = l_partkey
  and p_brand = ':1'
  and p_container = ':2'
  and l_quantity < (
    select 0.2 * avg(l_quantity)
    from lineitem
    where l_partkey = p_partkey
  )

-- query 18
-- Large Volume Customer
-- Rewritten for MariaDB's optimizer: it materializes the IN subquery but then walks every
-- customer and their orders to probe it (6 times slower at scale factor 0.1). The subquery
-- becomes a derived table of the large orders (its l_orderkey values are distinct, so the
-- join keeps exactly the rows the IN kept), read first with STRAIGHT_JOIN.
select
  c_name,
  c_custkey,
  o_orderkey,
  o_orderdate,
  o_totalprice,
  sum(l_quantity)
from (
    select l_orderkey as large_orderkey
    from lineitem
    group by l_orderkey
    having sum(l_quantity) > :1
  ) as large_orders
  straight_join orders on o_orderkey = large_orderkey
  straight_join customer on c_custkey = o_custkey
  straight_join lineitem on l_orderkey = o_orderkey
group by c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
order by o_totalprice desc, o_orderdate
limit 100

-- query 19
-- Discounted Revenue
select
  sum(l_extendedprice * (1 - l_discount)) as revenue
from lineitem, part
where (
    p_partkey = l_partkey
    and p_brand = ':1'
    and p_container in ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
    and l_quantity >= :4 and l_quantity <= :4 + 10
    and p_size between 1 and 5
    and l_shipmode in ('AIR', 'AIR REG')
    and l_shipinstruct = 'DELIVER IN PERSON'
  )
  or (
    p_partkey = l_partkey
    and p_brand = ':2'
    and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
    and l_quantity >= :5 and l_quantity <= :5 + 10
    and p_size between 1 and 10
    and l_shipmode in ('AIR', 'AIR REG')
    and l_shipinstruct = 'DELIVER IN PERSON'
  )
  or (
    p_partkey = l_partkey
    and p_brand = ':3'
    and p_container in ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
    and l_quantity >= :6 and l_quantity <= :6 + 10
    and p_size between 1 and 15
    and l_shipmode in ('AIR', 'AIR REG')
    and l_shipinstruct = 'DELIVER IN PERSON'
  )

-- query 20
-- Potential Part Promotion
select
  s_name,
  s_address
from supplier, nation
where s_suppkey in (
    select ps_suppkey
    from partsupp
    where ps_partkey in (
        select p_partkey
        from part
        where p_name like ':1%'
      )
      and ps_availqty > (
        select 0.5 * sum(l_quantity)
        from lineitem
        where l_partkey = ps_partkey
          and l_suppkey = ps_suppkey
          and l_shipdate >= date ':2'
          and l_shipdate < date ':2' + interval '1' year
      )
  )
  and s_nationkey = n_nationkey
  and n_name = ':3'
order by s_name

-- query 21
-- Suppliers Who Kept Orders Waiting
select
  s_name,
  count(*) as numwait
from supplier, lineitem l1, orders, nation
where s_suppkey = l1.l_suppkey
  and o_orderkey = l1.l_orderkey
  and o_orderstatus = 'F'
  and l1.l_receiptdate > l1.l_commitdate
  and exists (
    select *
    from lineitem l2
    where l2.l_orderkey = l1.l_orderkey
      and l2.l_suppkey <> l1.l_suppkey
  )
  and not exists (
    select *
    from lineitem l3
    where l3.l_orderkey = l1.l_orderkey
      and l3.l_suppkey <> l1.l_suppkey
      and l3.l_receiptdate > l3.l_commitdate
  )
  and s_nationkey = n_nationkey
  and n_name = ':1'
group by s_name
order by numwait desc, s_name
limit 100

-- query 22
-- Global Sales Opportunity
select
  cntrycode,
  count(*) as numcust,
  sum(c_acctbal) as totacctbal
from (
  select
    substring(c_phone from 1 for 2) as cntrycode,
    c_acctbal
  from customer
  where substring(c_phone from 1 for 2) in (':1', ':2', ':3', ':4', ':5', ':6', ':7')
    and c_acctbal > (
      select avg(c_acctbal)
      from customer
      where c_acctbal > 0.00
        and substring(c_phone from 1 for 2) in (':1', ':2', ':3', ':4', ':5', ':6', ':7')
    )
    and not exists (
      select *
      from orders
      where o_custkey = c_custkey
    )
) as custsale
group by cntrycode
order by cntrycode
