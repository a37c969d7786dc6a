//! TPC-H's substitution parameters (clause 2.4): drawn per stream as the specification's query
//! generator draws them, or the validation values (clause 2.4.x.3); and the per-stream query
//! order (Appendix A).
//!
//! (Being written: see the contract in the issue-16 helper brief.)
