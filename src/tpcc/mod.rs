//! TPROC-C: the data model, its random rules and row generation (TPC-C clause 4.3.3).
