//! (Stub until the answer sets land.)

pub fn has_answers(_sf: f64) -> bool {
    false
}

pub fn compare(_query: u8, _sf: f64, _rows: &[Vec<Option<String>>]) -> Result<(), String> {
    Ok(())
}
