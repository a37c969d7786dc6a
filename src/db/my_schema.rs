//! The TPROC-C schema on MariaDB and MySQL: creation, LOAD DATA loading, procedures, checks, removal.
