//! JSON values to Rhai values and back: what `jobs` returns to scripts, and what a command
//! returned, kept with its job.

use rhai::{Dynamic, Map};
use serde_json::Value;

/// A JSON value as the Rhai value a script works with (objects become maps, null `()`).
pub fn to_dynamic(v: &Value) -> Dynamic {
    match v {
        Value::Null => Dynamic::UNIT,
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64().unwrap_or(f64::NAN).into(),
        },
        Value::String(s) => s.clone().into(),
        Value::Array(a) => a.iter().map(to_dynamic).collect::<rhai::Array>().into(),
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| (k.as_str().into(), to_dynamic(v)))
            .collect::<Map>()
            .into(),
    }
}

/// A Rhai value as JSON; what JSON cannot hold is kept as its text.
pub fn to_json(v: &Dynamic) -> Value {
    if v.is_unit() {
        Value::Null
    } else if let Some(b) = v.clone().try_cast::<bool>() {
        Value::Bool(b)
    } else if let Some(i) = v.clone().try_cast::<rhai::INT>() {
        Value::from(i)
    } else if let Some(f) = v.clone().try_cast::<rhai::FLOAT>() {
        serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
    } else if let Some(a) = v.clone().try_cast::<rhai::Array>() {
        Value::Array(a.iter().map(to_json).collect())
    } else if let Some(m) = v.clone().try_cast::<Map>() {
        Value::Object(m.iter().map(|(k, v)| (k.to_string(), to_json(v))).collect())
    } else {
        Value::String(v.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        let v = serde_json::json!({
            "id": "ABC", "nopm": 12.5, "vus": 4, "ok": true, "none": null,
            "types": [{"name": "new order", "p99_ms": 3.25}]
        });
        let d = to_dynamic(&v);
        let m = d.clone().cast::<Map>();
        assert_eq!(m["vus"].as_int(), Ok(4));
        assert_eq!(m["nopm"].as_float(), Ok(12.5));
        assert!(m["none"].is_unit());
        assert_eq!(to_json(&d), v);
        assert_eq!(to_json(&Dynamic::from(rhai::FLOAT::NAN)), Value::Null);
    }
}
