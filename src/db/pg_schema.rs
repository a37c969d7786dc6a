//! The TPROC-C schema on PostgreSQL: creation, COPY loading, keys, functions, checks, removal.
