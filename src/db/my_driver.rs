//! The TPROC-C transactions on MariaDB and MySQL: stored procedures or client-side SQL.
