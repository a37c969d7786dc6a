//! sysbench's OLTP workloads as hammer's own third workload.

pub mod events;
pub mod report;
