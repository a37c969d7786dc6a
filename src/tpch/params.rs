//! TPC-H's substitution parameters (clause 2.4): drawn per stream as the specification's query
//! generator draws them, or the validation values (clause 2.4.x.3); and the per-stream query
//! order (Appendix A).
//!
//! (Being written: see the contract in the issue-16 helper brief.)

/// The values of a query's substitution parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Params(pub Vec<String>);

/// (Stub until the parameters land.)
pub fn random(_query: u8, _sf: f64, _rng: &mut impl rand::Rng) -> Params {
    Params(Vec::new())
}

/// (Stub until the parameters land.)
pub fn validation(_query: u8, _sf: f64) -> Params {
    Params(Vec::new())
}

/// (Stub until the orders land.)
pub fn order(_stream: u32) -> [u8; 22] {
    [
        14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12,
    ]
}
