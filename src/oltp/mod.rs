//! sysbench's OLTP workloads as hammer's own third workload.

pub mod arrivals;
pub mod events;
pub mod rand;
pub mod report;
