//! How `jobs` prints, text or JSON: the one setting that the jobs command and the recorder
//! (which holds `hammer jobs --json|--text`'s override) both read, and the numbers of JSON
//! shown to a person rounded as the text form rounds them.

use serde_json::Value;

use crate::config::Settings;

/// How `jobs` prints: `jobs format text|json`, kept in `commandline.jobsoutput`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

impl Format {
    pub fn of(settings: &Settings) -> Format {
        if settings
            .generic
            .get("jobsoutput")
            .eq_ignore_ascii_case("text")
        {
            Format::Text
        } else {
            Format::Json
        }
    }
}

/// A job's JSON as a person reads it in the console: every number with the decimals the text
/// form gives it (NOPM whole, milliseconds to 3 places, the geometric mean to 5), so that no
/// binary noise (`0.30000000000000004`) shows. `hammer jobs --json` prints the exact values
/// instead, for programs, and scripts get them too.
pub fn shown(v: &Value) -> Value {
    tidy(v, None)
}

/// Decimals of a number under `key`: `None` when the key says nothing (its parent's rule, or
/// none, applies).
fn decimals(key: &str) -> Option<u32> {
    Some(match key {
        "nopm" | "tpm" | "qph" | "nopm_mean" | "activevu" | "client_nopm" => 0,
        "efficiency" => 1,
        "geomean" => 5,
        "client_cpu_seconds" => 2,
        "seconds" | "mean_ms" => 3,
        "power_at_size" | "throughput_at_size" | "qphh" | "query_seconds" | "querytime"
        | "sets_seconds" | "usr" | "sys" | "irq" | "idle" | "elapsed_s" | "rates" => 1,
        k if k.ends_with("_ms") => 3,
        k if k.ends_with("_pct") => 1,
        _ => return None,
    })
}

/// Significant digits kept of a number no key rule covers: enough for any measured figure,
/// too few for the last bits of a binary fraction.
const SIGNIFICANT: i32 = 12;

fn tidy(v: &Value, rule: Option<u32>) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), tidy(v, decimals(k).or(rule))))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| tidy(v, rule)).collect()),
        Value::Number(n) if n.is_f64() => n.as_f64().map_or(Value::Null, |f| round(f, rule)),
        other => other.clone(),
    }
}

fn round(f: f64, decimals: Option<u32>) -> Value {
    if !f.is_finite() {
        return Value::Null;
    }
    let d = match decimals {
        Some(d) => d as i32,
        None if f == 0.0 => 0,
        None => SIGNIFICANT - 1 - f.abs().log10().floor() as i32,
    };
    if d <= 0 {
        // Whole numbers print as such (`25845`, not `25845.0`), as in the text form.
        let whole = f.round();
        return if whole.abs() < 9.0e15 {
            Value::from(whole as i64)
        } else {
            Value::from(whole)
        };
    }
    // Dividing the rounded integer by an exact power of ten gives the double nearest to the
    // decimal, which prints as the decimal.
    let scale = 10f64.powi(d.min(300));
    let r = (f * scale).round() / scale;
    if r.is_finite() {
        serde_json::Number::from_f64(r).map_or(Value::Null, Value::Number)
    } else {
        Value::from(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_show_as_the_text_form_shows_them() {
        let v = json!({
            "nopm": 25845.005429674635,
            "seconds": 4.803249136,
            "client_cpu_seconds": 0.1 + 0.2,
            "geomean": 0.433561234,
            "scale_factor": 0.1 + 0.2,
            "vus": 2,
            "name": "new order",
            "none": null,
            "timings": [{"p99_ms": 9.86349, "mean_ms": 2.0955654875717036}],
            "nopm_diff": {"nopm": {"base": 1000.4, "change": 99.6, "change_pct": 9.96}},
            "rates": [["NOPM", 10.04]],
        });
        let s = shown(&v);
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"client_cpu_seconds":0.3,"geomean":0.43356,"name":"new order","none":null,"nopm":25845,"nopm_diff":{"nopm":{"base":1000,"change":100,"change_pct":10.0}},"rates":[["NOPM",10.0]],"scale_factor":0.3,"seconds":4.803,"timings":[{"mean_ms":2.096,"p99_ms":9.863}],"vus":2}"#
        );
        // No binary noise, in whatever key.
        let noisy = json!({"anything": 0.1 + 0.2, "big": 1.0e20, "tiny": 1.0e-9 / 3.0});
        let text = serde_json::to_string(&shown(&noisy)).unwrap();
        assert_eq!(
            text,
            r#"{"anything":0.3,"big":1e+20,"tiny":3.33333333333e-10}"#
        );
    }
}
