//! The TPROC-C transactions on PostgreSQL: functions, procedures or client-side SQL.
