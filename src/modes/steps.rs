//! `steprun`'s plan: HammerDB's step workload. The Primary runs its rampup and duration with
//! its virtual users; Replica 1 starts its own virtual users some minutes after the rampup,
//! each later Replica some minutes after the one before, each for its own duration (with no
//! rampup), so that the load climbs and falls in steps inside the Primary's window.
//!
//! The steps come from `config/steps.xml` under the working directory (HammerDB's file:
//! `<replicaN>` elements with `<start_after_prev>`, `<duration>` and `<virtual_users>`), else
//! `steps.xml` in hammer's data directory, else HammerDB's defaults: four Replicas, one
//! minute apart, for 4, 3, 2 and 1 minutes, 2 virtual users each.

use std::path::{Path, PathBuf};

/// One Replica's step.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// `replica1`, ...
    pub name: String,
    /// Minutes after the rampup (Replica 1) or after the Replica before.
    pub start_after: f64,
    /// Minutes it runs.
    pub duration: f64,
    pub vus: u32,
}

/// HammerDB's default steps.
pub fn defaults() -> Vec<Step> {
    (1..=4)
        .map(|n| Step {
            name: format!("replica{n}"),
            start_after: 1.0,
            duration: f64::from(5 - n),
            vus: 2,
        })
        .collect()
}

/// Where the steps come from: the first file that exists, or `None` for the defaults.
pub fn source(home: Option<&Path>) -> Option<PathBuf> {
    let mut candidates = vec![PathBuf::from("config").join("steps.xml")];
    if let Some(h) = home {
        candidates.push(h.join("steps.xml"));
    }
    candidates.into_iter().find(|p| p.is_file())
}

/// The text between `<tag>` and `</tag>` in `text`, from `from`: (inner text, end offset).
fn element<'a>(text: &'a str, tag: &str, from: usize) -> Option<(&'a str, usize)> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let a = text[from..].find(&open)? + from + open.len();
    let b = text[a..].find(&close)? + a;
    Some((&text[a..b], b + close.len()))
}

/// Reads HammerDB's steps file: `<steps><replica1>...</replica1>...</steps>`, the replicas
/// in the file's order. Every value is checked, naming the replica and the element.
pub fn parse(text: &str) -> Result<Vec<Step>, String> {
    let (body, _) = element(text, "steps", 0).ok_or("it has no <steps> element")?;
    let mut steps = Vec::new();
    let mut at = 0;
    while let Some(rel) = body[at..].find("<replica") {
        let start = at + rel + 1;
        let end = body[start..]
            .find('>')
            .map(|e| start + e)
            .ok_or("an unclosed <replica...> tag")?;
        let name = body[start..end].trim().to_string();
        if !name.starts_with("replica") || !name[7..].chars().all(|c| c.is_ascii_digit()) {
            return Err(format!(
                "<{name}> is not a replica: name them replica1, replica2, ..."
            ));
        }
        let (inner, next) =
            element(body, &name, start - 1).ok_or(format!("<{name}> is not closed"))?;
        let field = |tag: &str| -> Result<f64, String> {
            let (v, _) = element(inner, tag, 0).ok_or(format!("{name} has no <{tag}>"))?;
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or(format!(
                    "{name}'s <{tag}> is {:?}: give minutes, 0 or more",
                    v.trim()
                ))
        };
        let vus = field("virtual_users")?;
        if vus < 1.0 || vus.fract() != 0.0 || vus > 10_000.0 {
            return Err(format!(
                "{name}'s <virtual_users> is {vus}: give a whole number from 1 to 10000"
            ));
        }
        let duration = field("duration")?;
        if duration <= 0.0 {
            return Err(format!(
                "{name}'s <duration> is 0: give more than 0 minutes"
            ));
        }
        let start_after = field("start_after_prev")?;
        steps.push(Step {
            name,
            start_after,
            duration,
            vus: vus as u32,
        });
        at = next;
    }
    if steps.is_empty() {
        return Err("it names no replica (<replica1>...)".into());
    }
    Ok(steps)
}

/// The minutes after the common start at which each step starts: the rampup, then each
/// step's start after the one before.
pub fn starts(rampup: f64, steps: &[Step]) -> Vec<f64> {
    let mut at = rampup;
    steps
        .iter()
        .map(|s| {
            at += s.start_after;
            at
        })
        .collect()
}

/// Minutes as a plan says them: `2`, `0.15` (sums of steps rounded to what a file can say).
pub fn minutes(m: f64) -> String {
    let text = format!("{m:.4}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// HammerDB's plan lines, and whether every step ends inside the Primary's running time
/// (with HammerDB's error lines when not).
pub fn plan(rampup: f64, duration: f64, vus: u32, steps: &[Step]) -> (Vec<String>, bool) {
    let mut lines = vec![format!(
        "primary starts immediately, runs rampup for {} minutes then runs test for {} minutes \
         with {vus} Active VU",
        minutes(rampup),
        minutes(duration)
    )];
    let total = rampup + duration;
    let mut fits = true;
    let mut errors = Vec::new();
    for (i, (s, at)) in steps.iter().zip(starts(rampup, steps)).enumerate() {
        let after = if i == 0 {
            "after rampup completes"
        } else {
            "after previous replica starts"
        };
        lines.push(format!(
            "{} starts {} minutes {after} and runs test for {} minutes with {} Active VU",
            s.name,
            minutes(s.start_after),
            minutes(s.duration),
            s.vus
        ));
        let ends = at + s.duration;
        if ends > total + 1e-9 {
            fits = false;
            errors.push(format!(
                "Error: {} is set to complete after {} minutes and is longer than the Primary \
                 running time of {} minutes",
                s.name,
                minutes(ends),
                minutes(total)
            ));
        }
    }
    if !fits {
        lines.extend(errors);
        lines.push(
            "Error: Step workload primary running time must exceed the running time of all \
             replicas"
                .into(),
        );
    }
    (lines, fits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hammerdbs_file_reads_as_its_defaults() {
        let xml = "<steps>\n\t<replica1>\n\t\t<start_after_prev>1</start_after_prev>\n\t\t\
                   <duration>4</duration>\n\t\t<virtual_users>2</virtual_users>\n\t</replica1>\n\
                   <replica2><start_after_prev>1</start_after_prev><duration>3</duration>\
                   <virtual_users>2</virtual_users></replica2>\n\
                   <replica3><start_after_prev>1</start_after_prev><duration>2</duration>\
                   <virtual_users>2</virtual_users></replica3>\n\
                   <replica4><start_after_prev>1</start_after_prev><duration>1</duration>\
                   <virtual_users>2</virtual_users></replica4></steps>";
        assert_eq!(parse(xml).unwrap(), defaults());
    }

    #[test]
    fn a_bad_value_names_the_replica_and_the_element() {
        let xml = "<steps><replica1><start_after_prev>x</start_after_prev><duration>1</duration>\
                   <virtual_users>2</virtual_users></replica1></steps>";
        let e = parse(xml).unwrap_err();
        assert!(e.contains("replica1's <start_after_prev> is \"x\""), "{e}");
        let e = parse("<steps></steps>").unwrap_err();
        assert!(e.contains("names no replica"), "{e}");
        let xml = "<steps><replica1><start_after_prev>0</start_after_prev><duration>1</duration>\
                   <virtual_users>0</virtual_users></replica1></steps>";
        assert!(parse(xml).unwrap_err().contains("<virtual_users> is 0"));
    }

    #[test]
    fn the_plan_says_hammerdbs_lines_and_refuses_a_step_past_the_end() {
        let (lines, fits) = plan(2.0, 5.0, 3, &defaults());
        assert!(fits);
        assert_eq!(
            lines[0],
            "primary starts immediately, runs rampup for 2 minutes then runs test for 5 minutes \
             with 3 Active VU"
        );
        assert_eq!(
            lines[1],
            "replica1 starts 1 minutes after rampup completes and runs test for 4 minutes with \
             2 Active VU"
        );
        assert!(lines[2].starts_with("replica2 starts 1 minutes after previous replica starts"));
        assert_eq!(starts(2.0, &defaults()), vec![3.0, 4.0, 5.0, 6.0]);
        let (lines, fits) = plan(1.0, 3.0, 1, &defaults());
        assert!(!fits);
        assert!(lines.iter().any(|l| l
            == "Error: replica1 is set to complete after 6 minutes and is longer than the \
                Primary running time of 4 minutes"));
        assert_eq!(
            lines.last().unwrap(),
            "Error: Step workload primary running time must exceed the running time of all \
             replicas"
        );
    }
}
