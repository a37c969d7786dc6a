//! stub
use super::{Converted, Refusal};
pub fn convert(_source: &str) -> Result<Converted, Vec<Refusal>> {
    Err(vec![Refusal::syntax(1, "todo")])
}
