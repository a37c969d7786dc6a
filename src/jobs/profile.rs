//! Performance profiles, as HammerDB keeps them: `jobs profileid N` stamps the timed TPROC-C
//! runs that follow with N, and `jobs profile N` lists them with their NOPM, TPM and virtual
//! users. hammer's own beyond that: each run also records the step the script named
//! (`jobs profilestep LABEL`: a buffer pool size, a device), and `jobs profile A B ...` sets
//! profiles side by side, one row per step, with each profile's NOPM and its ratio to the
//! first's.

use std::collections::HashMap;

use serde::Serialize;

use super::store::{Store, StoreError};
use super::{id, Status};

/// One run recorded under a profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub jobid: String,
    pub profile: i64,
    /// The step the script named, empty when it named none.
    pub step: String,
    pub active_vus: u32,
    pub nopm: Option<f64>,
    pub tpm: Option<f64>,
    pub status: Status,
    #[serde(serialize_with = "id::ser_time")]
    pub started: i64,
}

impl Entry {
    /// The row it belongs to side by side: the script's step, else its virtual users.
    pub fn step_label(&self) -> String {
        if self.step.is_empty() {
            format!("{} VU", self.active_vus)
        } else {
            self.step.clone()
        }
    }
}

/// Every run recorded under a profile, oldest first.
pub fn entries(store: &Store) -> Result<Vec<Entry>, StoreError> {
    let tagged = store.profiles()?;
    let results: HashMap<String, super::JobResult> = store
        .results()?
        .into_iter()
        .map(|r| (r.0.id.clone(), r))
        .collect();
    Ok(tagged
        .into_iter()
        .filter_map(|(job, profile, step)| {
            let (summary, figures, _) = results.get(&job)?;
            Some(Entry {
                jobid: job,
                profile,
                step,
                active_vus: figures.as_ref().map_or(0, |f| f.active_vus),
                nopm: summary.nopm,
                tpm: summary.tpm,
                status: summary.status,
                started: summary.started,
            })
        })
        .collect())
}

/// The profile ids that have runs, in order.
pub fn ids(entries: &[Entry]) -> Vec<i64> {
    let mut ids: Vec<i64> = entries.iter().map(|e| e.profile).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// One step side by side: each profile's NOPM there (its latest successful run of the step)
/// and its ratio to the first profile's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub step: String,
    pub nopm: Vec<Option<f64>>,
    pub ratio: Vec<Option<f64>>,
}

/// Profiles side by side, one row per step in the order the runs came (the first profile's
/// steps first).
pub fn side_by_side(entries: &[Entry], profiles: &[i64]) -> Vec<Row> {
    let mut steps: Vec<String> = Vec::new();
    for p in profiles {
        for e in entries.iter().filter(|e| e.profile == *p) {
            let s = e.step_label();
            if !steps.contains(&s) {
                steps.push(s);
            }
        }
    }
    steps
        .into_iter()
        .map(|step| {
            let nopm: Vec<Option<f64>> = profiles
                .iter()
                .map(|p| {
                    entries
                        .iter()
                        .filter(|e| {
                            e.profile == *p && e.status == Status::Success && e.step_label() == step
                        })
                        .filter_map(|e| e.nopm)
                        .next_back()
                })
                .collect();
            let ratio = nopm
                .iter()
                .map(|n| match (nopm[0], n) {
                    (Some(base), Some(n)) if base > 0.0 => Some(n / base),
                    _ => None,
                })
                .collect();
            Row { step, nopm, ratio }
        })
        .collect()
}

/// `jobs profile N`'s table.
pub fn text(profile: i64, entries: &[Entry]) -> String {
    let runs: Vec<&Entry> = entries.iter().filter(|e| e.profile == profile).collect();
    if runs.is_empty() {
        return format!("No jobs found for performance profile {profile}");
    }
    let mut out = format!(
        "Performance profile {profile}: {} run{}\n{:<24}  {:<19}  {:>4}  {:>10}  {:>10}  {:<8}  STEP",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        "JOBID",
        "STARTED",
        "VU",
        "NOPM",
        "TPM",
        "STATUS"
    );
    for e in runs {
        out.push_str(&format!(
            "\n{:<24}  {:<19}  {:>4}  {:>10}  {:>10}  {:<8}  {}",
            e.jobid,
            id::text_time(e.started),
            e.active_vus,
            figure(e.nopm),
            figure(e.tpm),
            e.status.label(),
            e.step_label()
        ));
    }
    out
}

/// `jobs profile A B ...`'s table: NOPM per step and profile, and each profile's ratio to the
/// first's.
pub fn side_text(profiles: &[i64], rows: &[Row]) -> String {
    let mut head = format!("{:<24}", "STEP");
    for p in profiles {
        head.push_str(&format!("  {:>12}", format!("NOPM {p}")));
    }
    for p in &profiles[1..] {
        head.push_str(&format!("  {:>10}", format!("{p}/{}", profiles[0])));
    }
    let mut out = head;
    for r in rows {
        let mut line = format!("\n{:<24}", r.step);
        for n in &r.nopm {
            line.push_str(&format!("  {:>12}", figure(*n)));
        }
        for x in &r.ratio[1..] {
            line.push_str(&format!(
                "  {:>10}",
                x.map_or("-".to_string(), |x| format!("{x:.3}"))
            ));
        }
        out.push_str(&line);
    }
    out
}

/// A side-by-side chart as one offline HTML file: NOPM against the steps, a line per profile.
pub fn html(profiles: &[i64], rows: &[Row]) -> String {
    let (w, h, left, bottom) = (720.0, 360.0, 70.0, 40.0);
    let max = rows
        .iter()
        .flat_map(|r| r.nopm.iter().flatten())
        .fold(0.0_f64, |a, b| a.max(*b))
        .max(1.0);
    let n = rows.len().max(1) as f64;
    let x = |i: usize| left + (w - left - 20.0) * (i as f64 + 0.5) / n;
    let y = |v: f64| (h - bottom) - (h - bottom - 20.0) * v / max;
    let colours = [
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    ];
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\">\
         <line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>\
         <line x1=\"{left}\" y1=\"20\" x2=\"{left}\" y2=\"{}\" stroke=\"#888\"/>\
         <text x=\"4\" y=\"24\" font-size=\"12\">{:.0}</text><text x=\"4\" y=\"{}\" font-size=\"12\">0 NOPM</text>",
        h - bottom,
        w - 20.0,
        h - bottom,
        h - bottom,
        max,
        h - bottom
    );
    for (i, r) in rows.iter().enumerate() {
        svg.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}</text>",
            x(i),
            h - bottom + 16.0,
            escape(&r.step)
        ));
    }
    for (k, p) in profiles.iter().enumerate() {
        let colour = colours[k % colours.len()];
        let points: Vec<String> = rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.nopm[k].map(|v| format!("{:.1},{:.1}", x(i), y(v))))
            .collect();
        svg.push_str(&format!(
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>",
            points.join(" ")
        ));
        svg.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{colour}\">profile {p}</text>",
            left + 10.0 + 90.0 * k as f64,
            14.0
        ));
    }
    svg.push_str("</svg>");
    let mut table = String::from("<table><tr><th>step</th>");
    for p in profiles {
        table.push_str(&format!("<th>NOPM {p}</th>"));
    }
    for p in &profiles[1..] {
        table.push_str(&format!("<th>{p}/{}</th>", profiles[0]));
    }
    table.push_str("</tr>");
    for r in rows {
        table.push_str(&format!("<tr><td>{}</td>", escape(&r.step)));
        for n in &r.nopm {
            table.push_str(&format!("<td>{}</td>", figure(*n)));
        }
        for x in &r.ratio[1..] {
            table.push_str(&format!(
                "<td>{}</td>",
                x.map_or("-".to_string(), |x| format!("{x:.3}"))
            ));
        }
        table.push_str("</tr>");
    }
    table.push_str("</table>");
    let names: Vec<String> = profiles.iter().map(|p| p.to_string()).collect();
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hammer performance profiles {}</title>\
         <style>body{{font-family:sans-serif}}td,th{{padding:2px 10px;text-align:right}}</style></head>\
         <body><h1>Performance profiles {}: NOPM per step</h1>{svg}{table}</body></html>\n",
        names.join(", "),
        names.join(", ")
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn figure(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |v| format!("{v:.0}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(profile: i64, step: &str, vus: u32, nopm: f64) -> Entry {
        Entry {
            jobid: format!("{profile}{step}{vus}"),
            profile,
            step: step.to_string(),
            active_vus: vus,
            nopm: Some(nopm),
            tpm: Some(nopm * 2.3),
            status: Status::Success,
            started: 0,
        }
    }

    #[test]
    fn profiles_side_by_side_by_step_with_ratios_to_the_first() {
        let all = [
            e(2, "", 1, 100.0),
            e(2, "", 2, 180.0),
            e(3, "", 1, 50.0),
            e(3, "", 2, 90.0),
            e(3, "", 4, 120.0),
        ];
        assert_eq!(ids(&all), [2, 3]);
        let rows = side_by_side(&all, &[2, 3]);
        assert_eq!(
            rows.iter().map(|r| r.step.as_str()).collect::<Vec<_>>(),
            ["1 VU", "2 VU", "4 VU"]
        );
        assert_eq!(rows[1].nopm, [Some(180.0), Some(90.0)]);
        assert_eq!(rows[1].ratio, [Some(1.0), Some(0.5)]);
        assert_eq!(rows[2].nopm, [None, Some(120.0)]);
        assert_eq!(rows[2].ratio, [None, None]);
        let t = side_text(&[2, 3], &rows);
        assert!(
            t.contains("NOPM 2") && t.contains("3/2") && t.contains("0.500"),
            "{t}"
        );
        let page = html(&[2, 3], &rows);
        assert!(
            page.contains("<polyline") && page.contains("profile 3"),
            "{page}"
        );
    }

    #[test]
    fn a_named_step_is_the_row_and_the_latest_run_counts() {
        let all = [
            e(5, "bp=1G", 8, 10.0),
            e(5, "bp=1G", 8, 12.0),
            e(5, "bp=8G", 8, 30.0),
        ];
        let rows = side_by_side(&all, &[5]);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].step, "bp=1G");
        assert_eq!(rows[0].nopm, [Some(12.0)]);
        assert!(text(5, &all).contains("Performance profile 5: 3 runs"));
        assert!(text(6, &all).contains("No jobs found for performance profile 6"));
    }
}
