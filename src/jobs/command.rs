//! `jobs ...` (and `hammer jobs ...`): the arguments parsed into a request, the request run
//! against the jobs database, its answer printed as text or JSON and returned to scripts.

use std::path::PathBuf;

use rhai::Dynamic;
use serde::Serialize;

pub use super::format::Format;
use super::id::{self, IdArg};
use super::recorder::Recorder;
use super::store::{Lookup, Store};
use super::{
    diff, profile, report, runs, text, value, Detail, RunFigures, Status, Summary, TpchFigures,
};
use crate::config::{Settings, Target};
use crate::error::Error;
use crate::output::Output;

/// What one job's subcommand asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum What {
    Summary,
    Status,
    Result,
    Timing,
    Tcount,
    /// The live view's intervals.
    Progress,
    Metrics,
    System,
    Dict,
    Output(Option<u32>),
    Delete,
    Report(PathBuf),
    /// A TPROC-H run's query sets: each query's time and rows, and the refresh functions.
    Queries,
}

/// A parsed `jobs` command.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// `jobs`: the table, always as text.
    Table,
    List,
    /// `jobs result`: every job's result, HammerDB's form.
    Results,
    /// `jobs format` shows the format; `jobs format text|json` sets it.
    Format(Option<String>),
    Diff(IdArg, IdArg),
    /// `jobs run`: the runs several drivers shared; `jobs run NAME`: one of them (hammer's own).
    Run(Option<String>),
    /// `jobs profileid` shows the performance profile id; `jobs profileid N` sets it (the
    /// session does both); `jobs profileid all` lists the profiles that have runs.
    ProfileId(Option<i64>),
    ProfileIds,
    /// `jobs profilestep [LABEL]`: shows or names the step later runs of a profile record
    /// (hammer's own; the session keeps it).
    ProfileStep(Option<String>),
    /// `jobs profile N`, or `jobs profile A B ...` side by side (and HammerDB's `jobs diff A B`
    /// of two profile ids), optionally written as an HTML chart.
    Profile(Vec<i64>, Option<PathBuf>),
    Job(IdArg, What),
}

/// The words that may follow `jobs` (besides an id).
pub const WORDS: &[&str] = &[
    "list",
    "result",
    "format",
    "diff",
    "run",
    "profileid",
    "profile",
    "profilestep",
];
/// The words that may follow `jobs ID`.
pub const SUBCOMMANDS: &[&str] = &[
    "status", "result", "timing", "queries", "tcount", "progress", "metrics", "system", "dict",
    "output", "delete", "report",
];

/// The usage line.
pub fn usage() -> String {
    format!(
        "Usage: jobs [list | result | format [text|json] | diff ID1 ID2 | run [NAME] | \
         profileid [N|all] | profile N [M ...] [report FILE.html] | profilestep [LABEL] | ID [{}]]",
        SUBCOMMANDS
            .iter()
            .map(|s| match *s {
                "output" => "output [VU]",
                "report" => "report FILE.html",
                s => s,
            })
            .collect::<Vec<_>>()
            .join("|")
    )
}

fn bad(message: String) -> Error {
    Error::usage(message, usage())
}

fn job_id(word: &str) -> Result<IdArg, Error> {
    if id::too_short(word) {
        return Err(bad(format!(
            "Error: {word} is too short for a job id: give at least its first {} of {} characters (more when several jobs start with them); type jobs for the list",
            id::MIN_PREFIX,
            id::LEN
        )));
    }
    id::parse(word).ok_or_else(|| {
        bad(format!(
            "Error: {word} is not a job id: a job id is {} hexadecimal characters (or its first {} or more), e.g. 67FD24A6FDB403E253438393; type jobs for the list",
            id::LEN,
            id::MIN_PREFIX
        ))
    })
}

/// Reads `jobs` arguments.
pub fn parse(args: &[String]) -> Result<Request, Error> {
    // A converted HammerDB script passes what its job command returned, `Benchmark Run
    // jobid=ID`: the id is what follows `jobid=`.
    let words: Vec<&str> = args
        .iter()
        .map(|a| a.trim())
        .map(|a| match a.rsplit_once(" jobid=") {
            Some((_, id)) if a.contains(' ') => id,
            _ => a,
        })
        .collect();
    let too_many = |n: usize| {
        (words.len() > n).then(|| {
            bad(format!(
                "Error: too many arguments after jobs {}: {}",
                words[..n].join(" "),
                words[n..].join(" ")
            ))
        })
    };
    let Some(first) = words.first() else {
        return Ok(Request::Table);
    };
    match first.to_ascii_lowercase().as_str() {
        "list" => {
            if words.len() > 1 {
                return Err(bad("Error: jobs list takes no arguments".into()));
            }
            Ok(Request::List)
        }
        "result" => {
            if words.len() > 1 {
                return Err(bad(
                    "Error: jobs result takes no arguments (jobs ID result shows one job's)".into(),
                ));
            }
            Ok(Request::Results)
        }
        "format" => {
            if words.len() > 2 {
                return Err(bad("Error: Usage: jobs format [text|json]".into()));
            }
            Ok(Request::Format(words.get(1).map(|s| s.to_string())))
        }
        // HammerDB's `jobs diff A B [true|false]` compares two performance profiles.
        "diff"
            if words.len() >= 3
                && words[1..3].iter().all(|w| w.parse::<i64>().is_ok())
                && words.len() <= 4 =>
        {
            Ok(Request::Profile(
                words[1..3].iter().map(|w| w.parse().unwrap_or(0)).collect(),
                None,
            ))
        }
        "profileid" => match words.get(1).map(|w| w.to_ascii_lowercase()) {
            _ if words.len() > 2 => Err(bad(
                "Error: jobs profileid takes one profile id, or all".into(),
            )),
            None => Ok(Request::ProfileId(None)),
            Some(w) if w == "all" => Ok(Request::ProfileIds),
            Some(w) => match w.parse::<i64>() {
                Ok(n) if n >= 0 => Ok(Request::ProfileId(Some(n))),
                _ => Err(bad(format!(
                    "Error: jobs profileid takes a whole number from 0 (no profile) up, or all, not {w}"
                ))),
            },
        },
        "profilestep" => Ok(Request::ProfileStep(
            (words.len() > 1).then(|| words[1..].join(" ")),
        )),
        "profile" => {
            let mut ids = Vec::new();
            let mut file = None;
            let mut rest = words[1..].iter();
            while let Some(w) = rest.next() {
                if w.eq_ignore_ascii_case("report") {
                    match rest.next() {
                        Some(f) if !f.is_empty() => file = Some(PathBuf::from(f)),
                        _ => {
                            return Err(bad(
                                "Error: jobs profile N report needs the file to write, e.g. report profile.html".into(),
                            ))
                        }
                    }
                    if let Some(extra) = rest.next() {
                        return Err(bad(format!("Error: too many arguments after the report file: {extra}")));
                    }
                    break;
                }
                match w.parse::<i64>() {
                    Ok(n) if n > 0 => ids.push(n),
                    _ => {
                        return Err(bad(format!(
                            "Error: jobs profile takes performance profile ids (whole numbers from 1), not {w}"
                        )))
                    }
                }
            }
            if ids.is_empty() {
                return Err(bad(
                    "Error: jobs profile takes a performance profile id, or several side by side (jobs profileid all lists them)".into(),
                ));
            }
            Ok(Request::Profile(ids, file))
        }
        "diff" => {
            if words.len() != 3 {
                return Err(bad(format!(
                    "Error: jobs diff takes two job ids, the base and the one to compare, not {}",
                    words.len() - 1
                )));
            }
            Ok(Request::Diff(job_id(words[1])?, job_id(words[2])?))
        }
        "run" => {
            if words.len() > 2 {
                return Err(bad(format!(
                    "Error: jobs run takes one run's name (a run several drivers shared), not {}",
                    words[1..].join(" ")
                )));
            }
            Ok(Request::Run(words.get(1).map(|s| s.to_string())))
        }
        _ => {
            if id::parse(first).is_none() && !id::looks_like_id(first) && !id::too_short(first) {
                return Err(bad(format!(
                    "Error: unknown jobs subcommand {first}; valid are {}, or a job id",
                    WORDS.join(", ")
                )));
            }
            let job = job_id(first)?;
            let Some(sub) = words.get(1) else {
                return Ok(Request::Job(job, What::Summary));
            };
            let what = match sub.to_ascii_lowercase().as_str() {
                "status" => What::Status,
                "result" => What::Result,
                "timing" => What::Timing,
                "queries" => What::Queries,
                "tcount" => What::Tcount,
                "progress" => What::Progress,
                "metrics" => What::Metrics,
                "system" => What::System,
                "dict" => What::Dict,
                "delete" => What::Delete,
                "output" => match words.get(2) {
                    None => What::Output(None),
                    Some(vu) => What::Output(Some(vu.parse().map_err(|_| {
                        bad(format!(
                            "Error: jobs ID output takes a virtual user number, not {vu}"
                        ))
                    })?)),
                },
                "report" => match words.get(2) {
                    Some(file) if !file.is_empty() => What::Report(PathBuf::from(file)),
                    _ => {
                        return Err(bad(
                            "Error: jobs ID report needs the file to write, e.g. jobs ID report run.html".into(),
                        ))
                    }
                },
                // HammerDB's `jobs ID N`: one virtual user's output.
                n if n.parse::<u32>().is_ok() => What::Output(n.parse().ok()),
                other => {
                    return Err(bad(format!(
                        "Error: unknown jobs subcommand {other}; valid after a job id are {}",
                        SUBCOMMANDS.join(", ")
                    )))
                }
            };
            let max = match what {
                What::Output(_) | What::Report(_) => 3,
                _ => 2,
            };
            if let Some(e) = too_many(max) {
                return Err(e);
            }
            Ok(Request::Job(job, what))
        }
    }
}

/// `jobs format [text|json]`: shows or sets the format; returns it and whether it changed.
pub fn format(
    settings: &mut Settings,
    value: Option<&str>,
    out: &Output,
) -> Result<(Dynamic, bool), Error> {
    let Some(value) = value else {
        // The console echoes the value; a script gets it.
        return Ok((settings.generic.get("jobsoutput").to_string().into(), false));
    };
    if !["text", "json"].contains(&value.to_ascii_lowercase().as_str()) {
        return Err(bad(format!(
            "Error: jobs format is text or json, not {value}"
        )));
    }
    let change = settings.set(Target::Generic, "commandline", "jobsoutput", value)?;
    let now = settings.generic.get("jobsoutput").to_string();
    out.line(format!("Setting jobs output format to {now}"));
    Ok((
        Dynamic::UNIT,
        matches!(change, crate::config::Change::Changed { .. }),
    ))
}

fn store(rec: &mut Recorder) -> Result<&Store, Error> {
    rec.store().map_err(|why| Error::JobsUnreadable {
        why: why.to_string(),
    })
}

fn read<T>(r: Result<T, super::store::StoreError>) -> Result<T, Error> {
    r.map_err(|e| Error::JobStore { why: e.to_string() })
}

fn resolve(store: &Store, arg: &IdArg) -> Result<String, Error> {
    store.resolve(arg).map_err(|e| match e {
        Lookup::Missing(id) => Error::NoSuchJob { id },
        Lookup::Ambiguous(prefix, ids, total) => Error::AmbiguousJob {
            prefix,
            more: total.saturating_sub(ids.len()),
            ids,
        },
        Lookup::Store(e) => Error::JobStore { why: e.to_string() },
    })
}

/// A run name no shared run in the store has: the nearest name, and the names there are.
fn no_such_run(name: &str, shared: &[runs::SharedRun]) -> Error {
    let mut names: Vec<&str> = Vec::new();
    for r in shared {
        if !names.contains(&r.run.as_str()) {
            names.push(&r.run);
        }
    }
    let way_out = if names.is_empty() {
        "; it has none (drivers that share a run, giset drivers drivers_run NAME, record one)"
            .to_string()
    } else {
        let near = crate::config::nearest(name, names.iter().copied())
            .map(|n| format!("; did you mean {n}?"))
            .unwrap_or_default();
        const SHOWN: usize = 10;
        let more = names.len().saturating_sub(SHOWN);
        format!(
            "{near} The runs there, newest first: {}{} (jobs run lists them)",
            names[..names.len().min(SHOWN)].join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )
    };
    Error::NoSuchRun {
        run: name.to_string(),
        way_out,
    }
}

fn detail(store: &Store, id: &str) -> Result<Detail, Error> {
    read(store.detail(id))?.ok_or_else(|| Error::NoSuchJob { id: id.to_string() })
}

/// A run's figures in JSON: those of every run, and a TPROC-H run's beside them.
#[derive(Serialize)]
struct RunView<'a> {
    #[serde(flatten)]
    figures: &'a RunFigures,
    #[serde(flatten)]
    tpch: Option<&'a TpchFigures>,
}

impl<'a> RunView<'a> {
    fn of(d: &'a Detail) -> Option<Self> {
        Some(RunView {
            figures: d.figures.as_ref()?,
            tpch: d.tpch.as_ref().map(|t| &t.figures),
        })
    }
}

/// `jobs ID` in JSON: the summary, for runs the figures, and for a driver's part of a shared
/// run that run (hammer's own).
#[derive(Serialize)]
struct JobView<'a> {
    #[serde(flatten)]
    summary: &'a Summary,
    result: Option<RunView<'a>>,
    run: Option<runs::PartView<'a>>,
}

/// `jobs ID status` in JSON.
#[derive(Serialize)]
struct StatusView<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    label: &'a str,
    status: Status,
    note: &'a Option<String>,
    /// What `hammer auto` exits with when a script stops at this job (`Status::exit_status`).
    exit_status: Option<i32>,
    #[serde(serialize_with = "id::ser_time")]
    started: i64,
    #[serde(serialize_with = "id::ser_opt_time")]
    ended: Option<i64>,
    seconds: Option<f64>,
    hostname: &'a str,
    pid: u32,
}

/// `jobs ID result` in JSON: a run's figures, or what another job's command returned.
#[derive(Serialize)]
struct ResultView<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    label: &'a str,
    db: &'a str,
    #[serde(flatten)]
    figures: Option<RunView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    returned: Option<&'a serde_json::Value>,
}

/// `jobs result` in JSON: every job by id, oldest first, in HammerDB's words (its keys, typed
/// values): a TPROC-C run `{db, bm, tstamp, activevu, nopm, tpm, status}`, a TPROC-H run
/// `{db, bm, tstamp, queries, querysets, geomean, querytime, status}`, any other job
/// `"Jobid has no test result"`.
pub fn results_json(jobs: &[super::JobResult]) -> serde_json::Value {
    use serde_json::json;
    let mut all = serde_json::Map::new();
    for (s, f, h) in jobs {
        let head = |mut v: serde_json::Value| {
            v["db"] = s.profile.db.clone().into();
            v["bm"] = s.profile.workload.clone().into();
            v["tstamp"] = super::id::text_time(s.started).into();
            v["status"] = s.status.label().into();
            v
        };
        let v = match (f, h) {
            (_, Some(h)) => head(json!({
                "queries": h.queries,
                "querysets": h.querysets,
                "geomean": h.geomean,
                "querytime": h.query_seconds,
            })),
            (Some(f), None) => head(json!({
                "activevu": f.active_vus,
                "nopm": f.nopm,
                "tpm": f.tpm,
            })),
            (None, None) => "Jobid has no test result".into(),
        };
        all.insert(s.id.clone(), v);
    }
    serde_json::Value::Object(all)
}

/// How an answer prints: text, JSON for a person (numbers rounded as the text form rounds
/// them), or JSON for a program (`hammer jobs --json`: every digit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Text,
    Json,
    ExactJson,
}

impl Shape {
    fn of(format: Format, rec: &Recorder) -> Shape {
        match (format, rec.format_override) {
            (Format::Text, _) => Shape::Text,
            (Format::Json, Some(Format::Json)) => Shape::ExactJson,
            (Format::Json, _) => Shape::Json,
        }
    }
}

/// Prints a value in the chosen shape and returns it, every digit kept, to the script.
fn answer(
    out: &Output,
    shape: Shape,
    json: serde_json::Value,
    text: impl FnOnce() -> String,
) -> Dynamic {
    let pretty = |v: &serde_json::Value| serde_json::to_string_pretty(v).unwrap_or_default();
    match shape {
        Shape::ExactJson => out.line(pretty(&json)),
        Shape::Json => out.line(pretty(&super::format::shown(&json))),
        Shape::Text => out.line(text()),
    }
    value::to_dynamic(&json)
}

fn json<T: Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

/// Runs a request other than `Format` (which changes settings: the session does it).
pub fn run(
    rec: &mut Recorder,
    req: Request,
    format: Format,
    out: &Output,
) -> Result<Dynamic, Error> {
    let shape = Shape::of(format, rec);
    let store = store(rec)?;
    match req {
        Request::Format(_) | Request::ProfileId(_) | Request::ProfileStep(_) => {
            Err(Error::SetElsewhere {
                what: "jobs format, profileid and profilestep",
                by: "session",
            })
        }
        Request::ProfileIds => {
            let ids = profile::ids(&read(profile::entries(store))?);
            let text = || {
                if ids.is_empty() {
                    "No performance profiles found".to_string()
                } else {
                    ids.iter()
                        .map(|i| i.to_string())
                        .collect::<Vec<_>>()
                        .join("\n")
                }
            };
            Ok(answer(out, shape, json(&ids), text))
        }
        Request::Profile(ids, file) => {
            let entries = read(profile::entries(store))?;
            if let [one] = ids.as_slice() {
                if file.is_none() {
                    let runs: Vec<&profile::Entry> =
                        entries.iter().filter(|e| e.profile == *one).collect();
                    return Ok(answer(out, shape, json(&runs), || {
                        profile::text(*one, &entries)
                    }));
                }
            }
            let rows = profile::side_by_side(&entries, &ids);
            if let Some(file) = file {
                std::fs::write(&file, profile::html(&ids, &rows))
                    .map_err(|e| bad(format!("Error: cannot write {}: {e}", file.display())))?;
                out.line(format!(
                    "Wrote performance profiles {} to {}",
                    ids.iter()
                        .map(|i| i.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    file.display()
                ));
            }
            let value = serde_json::json!({ "profiles": ids, "steps": rows });
            Ok(answer(out, shape, value, || {
                profile::side_text(&ids, &rows)
            }))
        }
        Request::Table | Request::List => {
            let jobs = read(store.list())?;
            let shared = runs::group(&jobs, read(store.runs())?);
            let path = store.shown();
            let table = || text::list_with_runs(&jobs, &shared, &path);
            let shape = if req == Request::Table {
                Shape::Text
            } else {
                shape
            };
            let listed = runs::list_json(&runs::entries(&jobs, &shared));
            Ok(answer(out, shape, listed, table))
        }
        Request::Run(name) => {
            let jobs = read(store.list())?;
            let shared = runs::group(&jobs, read(store.runs())?);
            let Some(name) = name else {
                let all: Vec<serde_json::Value> =
                    shared.iter().map(|r| json(&runs::RunView::of(r))).collect();
                return Ok(answer(out, shape, all.into(), || text::runs(&shared)));
            };
            let Some((r, same)) = runs::named(&shared, &name) else {
                return Err(no_such_run(&name, &shared));
            };
            Ok(answer(out, shape, json(&runs::RunView::of(r)), || {
                text::shared_run(r, same)
            }))
        }
        Request::Results => {
            let jobs = read(store.results())?;
            Ok(answer(out, shape, results_json(&jobs), || {
                text::results(&jobs)
            }))
        }
        Request::Diff(a, b) => {
            let (a, b) = (resolve(store, &a)?, resolve(store, &b)?);
            let (base, compare) = (detail(store, &a)?, detail(store, &b)?);
            let base_repeats = read(store.repeats(&base.summary.profile))?;
            let compare_repeats = read(store.repeats(&compare.summary.profile))?;
            let d = diff::diff(&base, &compare, &base_repeats, &compare_repeats);
            if format == Format::Json {
                // The warnings reach the terminal (stderr) even when stdout goes to a parser.
                for w in &d.warnings {
                    out.error(w);
                }
            }
            Ok(answer(out, shape, json(&d), || diff::text(&d)))
        }
        Request::Job(arg, what) => {
            let id = resolve(store, &arg)?;
            match what {
                What::Delete => {
                    read(store.delete(&id))?;
                    Ok(answer(
                        out,
                        shape,
                        serde_json::json!({ "deleted": id }),
                        || format!("Deleted Jobid {id}"),
                    ))
                }
                What::Output(vu) => {
                    let lines = read(store.output(&id, vu))?;
                    let shown = || match (vu, lines.is_empty()) {
                        (Some(n), true) => {
                            format!("Jobid {id} for virtual user {n} does not exist")
                        }
                        (None, true) => format!("Jobid {id} has no output"),
                        _ => text::output(&lines),
                    };
                    Ok(answer(out, shape, json(&lines), shown))
                }
                What::Report(path) => {
                    let d = detail(store, &id)?;
                    let lines = read(store.output(&id, None))?;
                    let page = report::html(&d, &lines);
                    std::fs::write(&path, page).map_err(|source| Error::Io {
                        what: "cannot write the job report",
                        path: path.display().to_string(),
                        source,
                    })?;
                    let shown = path.display().to_string();
                    Ok(answer(
                        out,
                        shape,
                        serde_json::json!({ "id": id, "file": shown }),
                        || format!("Wrote the report of job {id} to {shown}"),
                    ))
                }
                what => {
                    let d = detail(store, &id)?;
                    let s = &d.summary;
                    let (v, t) = match what {
                        What::Summary => (
                            json(&JobView {
                                summary: s,
                                result: RunView::of(&d),
                                run: d.run.as_ref().map(runs::PartView::of),
                            }),
                            text::summary(&d),
                        ),
                        What::Status => (
                            json(&StatusView {
                                id: &s.id,
                                label: s.label,
                                status: s.status,
                                note: &s.note,
                                exit_status: s.status.exit_status(),
                                started: s.started,
                                ended: s.ended,
                                seconds: s.seconds,
                                hostname: &s.hostname,
                                pid: s.pid,
                            }),
                            text::status(s),
                        ),
                        What::Result => (
                            json(&ResultView {
                                id: &s.id,
                                label: s.label,
                                db: &s.profile.db,
                                figures: RunView::of(&d),
                                returned: d.returned.as_ref().filter(|_| d.figures.is_none()),
                            }),
                            text::result(&d),
                        ),
                        What::Timing => {
                            let unit = if s.is_tpch() { "QUERY" } else { "TRANSACTION" };
                            (json(&d.timings), text::timing(&s.id, unit, &d.timings))
                        }
                        What::Queries => (json(&d.tpch), text::queries(&s.id, d.tpch.as_ref())),
                        What::Tcount => (
                            json(&d.tcount),
                            text::tcount(&s.id, &s.profile.db, &d.tcount),
                        ),
                        What::Progress => (json(&d.live), text::progress(&s.id, d.live.as_ref())),
                        What::Metrics => (json(&d.metrics), text::metrics(&s.id, &d.metrics)),
                        What::System => (json(&d.system), text::system(&s.id, d.system.as_ref())),
                        What::Dict => (d.settings.clone(), text::dict(&d.settings)),
                        What::Delete | What::Output(_) | What::Report(_) => unreachable!(),
                    };
                    Ok(answer(out, shape, v, || t))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Request, String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse(&args).map_err(|e| e.to_string())
    }

    const ID: &str = "67FD24A6FDB403E253438393";

    #[test]
    fn the_forms_parse() {
        let full = IdArg::Full(ID.into());
        assert_eq!(p(&[]), Ok(Request::Table));
        assert_eq!(p(&["list"]), Ok(Request::List));
        assert_eq!(p(&["result"]), Ok(Request::Results));
        assert_eq!(
            p(&[ID, "queries"]),
            Ok(Request::Job(IdArg::Full(ID.into()), What::Queries))
        );
        assert_eq!(
            p(&["format", "text"]),
            Ok(Request::Format(Some("text".into())))
        );
        assert_eq!(p(&[ID]), Ok(Request::Job(full.clone(), What::Summary)));
        assert_eq!(
            p(&[ID, "result"]),
            Ok(Request::Job(full.clone(), What::Result))
        );
        assert_eq!(
            p(&[ID, "output", "2"]),
            Ok(Request::Job(full.clone(), What::Output(Some(2))))
        );
        assert_eq!(
            p(&[ID, "2"]),
            Ok(Request::Job(full.clone(), What::Output(Some(2))))
        );
        assert_eq!(
            p(&[&ID.to_ascii_lowercase()[..10], "report", "r.html"]),
            Ok(Request::Job(
                IdArg::Prefix(ID[..10].into()),
                What::Report("r.html".into())
            ))
        );
        assert_eq!(p(&["diff", ID, ID]), Ok(Request::Diff(full.clone(), full)));
        assert_eq!(
            p(&[&format!("Benchmark Run jobid={ID}"), "result"]),
            p(&[ID, "result"])
        );
        assert_eq!(
            p(&["profile", "2", "3", "report", "p.html"]),
            Ok(Request::Profile(vec![2, 3], Some(PathBuf::from("p.html"))))
        );
        assert_eq!(p(&["profileid", "all"]), Ok(Request::ProfileIds));
        assert_eq!(
            p(&["diff", "2", "3", "true"]),
            Ok(Request::Profile(vec![2, 3], None))
        );
        assert_eq!(p(&["run"]), Ok(Request::Run(None)));
        assert_eq!(
            p(&["RUN", "night-42"]),
            Ok(Request::Run(Some("night-42".into())))
        );
        assert!(p(&["run", "a", "b"])
            .unwrap_err()
            .contains("jobs run takes one run's name"));
        // A bare 4-character prefix is a job, not an unknown subcommand.
        assert_eq!(
            p(&["6b0e"]),
            Ok(Request::Job(IdArg::Prefix("6B0E".into()), What::Summary))
        );
    }

    #[test]
    fn bad_forms_say_what_is_valid() {
        let e = p(&["frobnicate"]).unwrap_err();
        assert!(e.starts_with("Error: unknown jobs subcommand frobnicate; valid are list, result, format, diff, run, profileid, profile, profilestep, or a job id"), "{e}");
        assert!(e.contains("\nUsage: jobs [list | result | format [text|json] | diff ID1 ID2 | run [NAME] | profileid [N|all] | profile N [M ...] [report FILE.html] | profilestep [LABEL] | ID [status|result|timing|queries|tcount|progress|metrics|system|dict|output [VU]|delete|report FILE.html]]"), "{e}");
        let e = p(&["67FD24A6FDB403E25343839Z"]).unwrap_err();
        assert!(e.starts_with("Error: 67FD24A6FDB403E25343839Z is not a job id: a job id is 24 hexadecimal characters"), "{e}");
        let e = p(&[ID, "resutl"]).unwrap_err();
        assert!(
            e.starts_with(
                "Error: unknown jobs subcommand resutl; valid after a job id are status, result,"
            ),
            "{e}"
        );
        assert!(p(&[ID, "result", "x"])
            .unwrap_err()
            .contains("too many arguments after jobs 67FD24A6FDB403E253438393 result: x"));
        assert!(p(&[ID, "output", "two"])
            .unwrap_err()
            .contains("virtual user number, not two"));
        assert!(p(&[ID, "report"]).unwrap_err().contains("needs the file"));
        assert!(p(&["diff", ID]).unwrap_err().contains("two job ids"));
        assert!(p(&["diff", ID, "nothex!!"])
            .unwrap_err()
            .contains("nothex!! is not a job id"));
        assert!(p(&["list", "x"]).is_err());
        assert!(p(&["result", ID])
            .unwrap_err()
            .contains("jobs ID result shows one job's"));
        let e = p(&["6B0"]).unwrap_err();
        assert!(e.starts_with("Error: 6B0 is too short for a job id: give at least its first 4 of 24 characters (more when several jobs start with them); type jobs for the list"), "{e}");
        assert!(p(&["diff", "6B", ID])
            .unwrap_err()
            .contains("6B is too short"));
    }

    /// A recorder whose database holds a finished TPROC-H run (3 query streams) and a
    /// TPROC-C run, as their ends recorded them.
    fn recorded() -> (tempfile::TempDir, Recorder, String, String) {
        use crate::jobs::store::{End, Origin};
        let home = tempfile::tempdir().unwrap();
        let mut rec = Recorder::new(&Settings::defaults(), Some(home.path()));
        let store = rec.store().unwrap();
        let origin = Origin {
            hostname: "box".into(),
            pid: std::process::id(),
            pid_started: None,
        };
        let h = crate::jobs::sample::tpch_detail("67FD24A6FDB403E2534383A1", 3);
        let c = crate::jobs::sample::detail("67FD24A6FDB403E2534383A0", 12345.0);
        for d in [&c, &h] {
            let spec = crate::jobs::Spec {
                kind: crate::jobs::Kind::Run,
                profile: d.summary.profile.clone(),
                settings: serde_json::json!({}),
            };
            store
                .insert_job(&d.summary.id, &spec, &origin, d.summary.started)
                .unwrap();
            let end = End {
                figures: d.figures.clone(),
                tpch: d.tpch.clone(),
                ..End::new(Status::Success)
            };
            store
                .finish(&d.summary.id, &end, d.summary.started + 60_000)
                .unwrap();
        }
        (home, rec, h.summary.id, c.summary.id)
    }

    fn json_of(rec: &mut Recorder, req: Request) -> (serde_json::Value, Dynamic) {
        let out = Output::capture();
        let v = run(rec, req, Format::Json, &out).unwrap();
        let printed = out.take_captured().join("\n");
        (serde_json::from_str(&printed).unwrap(), v)
    }

    /// `jobs ID result` of a TPROC-H run: the figures every run has, and its own beside them
    /// (HammerDB's result is its geometric mean and its query sets).
    #[test]
    fn a_tpch_result_is_typed_json() {
        let (_home, mut rec, h, _) = recorded();
        let (v, script) = json_of(&mut rec, Request::Job(IdArg::Full(h.clone()), What::Result));
        assert_eq!(v["id"], h.as_str());
        assert_eq!(v["geomean"], 0.43356);
        assert_eq!(v["geomean_queries"], 63);
        assert_eq!(v["querysets"], 3);
        assert_eq!(v["queries"], 66);
        assert_eq!(v["query_seconds"], 25.3);
        assert_eq!(v["scale_factor"], 1.0);
        assert_eq!(v["query_streams"], 3);
        assert_eq!(v["active_vus"], 3);
        assert!(v["nopm"].is_null() && v["tpm"].is_null());
        // A script gets the same as a map.
        let m = script.cast::<rhai::Map>();
        assert_eq!(m["querysets"].as_int(), Ok(3));
        // `jobs ID` nests the same under `result`.
        let (v, _) = json_of(
            &mut rec,
            Request::Job(IdArg::Full(h.clone()), What::Summary),
        );
        assert_eq!(v["result"]["geomean"], 0.43356);
        assert_eq!(v["geomean"], 0.43356);
        assert_eq!(v["querysets"], 3);
        // `jobs ID queries`: every set with its queries, and the refresh functions.
        let (v, script) = json_of(&mut rec, Request::Job(IdArg::Full(h), What::Queries));
        assert_eq!(v["sets"].as_array().unwrap().len(), 3);
        assert_eq!(v["sets"][2]["vu"], 3);
        assert_eq!(v["sets"][2]["queries"][0]["query"], 3);
        assert_eq!(v["sets"][2]["queries"][0]["rows"], 3);
        assert_eq!(v["refreshes"][0]["function"], "RF1");
        let m = script.cast::<rhai::Map>();
        let sets = m["sets"].clone().into_array().unwrap();
        let first = sets[0].clone().cast::<rhai::Map>();
        let queries = first["queries"].clone().into_array().unwrap();
        assert_eq!(queries.len(), 22);
    }

    /// `jobs result`: HammerDB's forms, each job by its id.
    #[test]
    fn all_results_are_hammerdb_s_shapes() {
        let (_home, mut rec, h, c) = recorded();
        let (v, script) = json_of(&mut rec, Request::Results);
        let words = |v: &serde_json::Value| {
            let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            k.sort();
            k.join(" ")
        };
        assert_eq!(
            words(&v[&h]),
            "bm db geomean queries querysets querytime status tstamp"
        );
        assert_eq!(v[&h]["bm"], "TPROC-H");
        assert_eq!(v[&h]["tstamp"], "2025-04-14 09:30:05");
        assert_eq!(v[&h]["querytime"], 25.3);
        assert_eq!(words(&v[&c]), "activevu bm db nopm status tpm tstamp");
        assert_eq!(v[&c]["nopm"], 12345.0);
        assert!(script.is_map());
        // A job without a run: no test result.
        let store = rec.store().unwrap();
        let spec = crate::jobs::Spec {
            kind: crate::jobs::Kind::Build,
            profile: crate::jobs::sample::summary("X", None).profile,
            settings: serde_json::json!({}),
        };
        store
            .insert_job(
                "67FD24A6FDB403E2534383A2",
                &spec,
                &crate::jobs::store::Origin {
                    hostname: "box".into(),
                    pid: std::process::id(),
                    pid_started: None,
                },
                1,
            )
            .unwrap();
        let (v, _) = json_of(&mut rec, Request::Results);
        assert_eq!(v["67FD24A6FDB403E2534383A2"], "Jobid has no test result");
    }

    /// The console's JSON shows a run's numbers as the text form does; `hammer jobs --json`
    /// and scripts get every digit.
    #[test]
    fn json_for_a_person_has_no_binary_noise() {
        let (_home, mut rec, _, c) = recorded();
        let noisy = 12345.0 + (0.1 + 0.2);
        {
            let store = rec.store().unwrap();
            let mut d = crate::jobs::sample::detail("67FD24A6FDB403E2534383A3", noisy);
            d.figures.as_mut().unwrap().seconds = 0.1 + 0.2;
            d.figures.as_mut().unwrap().client_cpu_seconds = Some(0.1 + 0.2);
            let spec = crate::jobs::Spec {
                kind: crate::jobs::Kind::Run,
                profile: d.summary.profile.clone(),
                settings: serde_json::json!({}),
            };
            let origin = crate::jobs::store::Origin {
                hostname: "box".into(),
                pid: std::process::id(),
                pid_started: None,
            };
            store
                .insert_job(&d.summary.id, &spec, &origin, d.summary.started)
                .unwrap();
            let end = crate::jobs::store::End {
                figures: d.figures.clone(),
                timings: d.timings.iter().map(|t| (t.clone(), Vec::new())).collect(),
                ..crate::jobs::store::End::new(Status::Success)
            };
            store
                .finish(&d.summary.id, &end, d.summary.started + 1)
                .unwrap();
        }
        let id = IdArg::Full("67FD24A6FDB403E2534383A3".into());
        let printed = |rec: &mut Recorder, req: Request| {
            let out = Output::capture();
            let v = run(rec, req, Format::Json, &out).unwrap();
            (out.take_captured().join("\n"), v)
        };
        let (text, script) = printed(&mut rec, Request::Job(id.clone(), What::Result));
        assert!(!text.contains("0000000"), "{text}");
        assert!(text.contains("\"nopm\": 12345,"), "{text}");
        assert!(text.contains("\"seconds\": 0.3,"), "{text}");
        assert!(text.contains("\"client_cpu_seconds\": 0.3,"), "{text}");
        let m = script.cast::<rhai::Map>();
        assert_eq!(m["nopm"].as_float(), Ok(noisy), "a script gets every digit");
        let (text, _) = printed(&mut rec, Request::Job(id.clone(), What::Timing));
        assert!(text.contains("\"mean_ms\": 2.2,"), "{text}");
        let (text, _) = printed(&mut rec, Request::List);
        assert!(
            !text.contains("0000000") && text.contains("\"nopm\": 12345,"),
            "{text}"
        );
        let (text, _) = printed(&mut rec, Request::Diff(IdArg::Full(c), id.clone()));
        assert!(text.contains("\"compare\": 12345\n"), "{text}");
        assert!(!text.contains("0000000"), "{text}");
        // `hammer jobs --json`: for a program, exact.
        rec.format_override = Some(Format::Json);
        let (text, _) = printed(&mut rec, Request::Job(id, What::Result));
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["nopm"].as_f64(), Some(noisy));
        assert_eq!(v["seconds"].as_f64(), Some(0.1 + 0.2));
    }

    /// Two drivers' jobs of one shared run, as their ends recorded them, and a job of its own.
    fn shared() -> (tempfile::TempDir, Recorder) {
        use crate::jobs::runs::sample::{merged, row};
        use crate::jobs::runs::RunPart;
        use crate::jobs::store::{End, Origin};
        let home = tempfile::tempdir().unwrap();
        let mut rec = Recorder::new(&Settings::defaults(), Some(home.path()));
        let store = rec.store().unwrap();
        let rows = vec![row(1, "alpha"), row(2, "beta")];
        let lone = crate::jobs::sample::detail("67FD24A6FDB403E2534383B0", 5.0);
        for (n, d) in [
            (1, "67FD24A6FDB403E2534383A1"),
            (2, "67FD24A6FDB403E2534383A2"),
            (0, ""),
        ] {
            let d = if n == 0 {
                lone.clone()
            } else {
                crate::jobs::sample::detail(d, 3012.4)
            };
            let origin = Origin {
                hostname: rows
                    .get(n.max(1) - 1)
                    .map_or("box".into(), |r| r.host.clone()),
                pid: 4000 + n as u32,
                pid_started: None,
            };
            let spec = crate::jobs::Spec {
                kind: crate::jobs::Kind::Run,
                profile: d.summary.profile.clone(),
                settings: serde_json::json!({}),
            };
            store
                .insert_job(&d.summary.id, &spec, &origin, d.summary.started)
                .unwrap();
            let end = End {
                figures: d.figures.clone(),
                run: (n > 0).then(|| RunPart {
                    run: "night-42".into(),
                    driver: n as u32,
                    drivers: 2,
                    merged: merged(rows.clone(), d.summary.started),
                }),
                ..End::new(Status::Success)
            };
            store
                .finish(&d.summary.id, &end, d.summary.started + 60_000)
                .unwrap();
        }
        (home, rec)
    }

    /// `jobs run NAME` gives the merged result with every driver's job id; `jobs list` has the
    /// run as one entry; a name that is not there is refused with the nearest one.
    #[test]
    fn a_shared_run_is_asked_for_by_name() {
        let (home, mut rec) = shared();
        let (v, script) = json_of(&mut rec, Request::Run(Some("night-42".into())));
        assert_eq!(v["kind"], "shared_run");
        assert_eq!(v["run"], "night-42");
        assert_eq!(v["nopm"], 3012);
        assert_eq!(v["status"], "COMPLETE");
        assert_eq!(v["members"][0]["id"], "67FD24A6FDB403E2534383A1");
        assert_eq!(v["members"][1]["id"], "67FD24A6FDB403E2534383A2");
        assert_eq!(v["members"][1]["host"], "beta");
        assert_eq!(v["timing"][0]["name"], "new order");
        let m = script.cast::<rhai::Map>();
        assert_eq!(
            m["nopm"].as_float(),
            Ok(3012.4),
            "a script gets every digit"
        );
        let (v, _) = json_of(&mut rec, Request::List);
        let list = v.as_array().unwrap();
        assert_eq!(list.len(), 2, "{v}");
        assert_eq!(list[0]["id"], "67FD24A6FDB403E2534383B0");
        assert_eq!(list[1]["run"], "night-42");
        let (v, _) = json_of(&mut rec, Request::Run(None));
        assert_eq!(v[0]["run"], "night-42");
        // A part's own job names its run.
        let (v, _) = json_of(
            &mut rec,
            Request::Job(
                IdArg::Full("67FD24A6FDB403E2534383A2".into()),
                What::Summary,
            ),
        );
        assert_eq!(v["run"]["run"], "night-42");
        assert_eq!(v["run"]["driver"], 2);
        let (v, _) = json_of(
            &mut rec,
            Request::Job(
                IdArg::Full("67FD24A6FDB403E2534383B0".into()),
                What::Summary,
            ),
        );
        assert!(v["run"].is_null());
        let out = Output::capture();
        let e = run(
            &mut rec,
            Request::Run(Some("night-24".into())),
            Format::Text,
            &out,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(e, "Error: no shared run is named night-24 in the jobs history; did you mean night-42? The runs there, newest first: night-42 (jobs run lists them)");
        // The report of a part has a section on its run.
        let file = home.path().join("part.html");
        let _ = run(
            &mut rec,
            Request::Job(
                IdArg::Full("67FD24A6FDB403E2534383A1".into()),
                What::Report(file.clone()),
            ),
            Format::Text,
            &out,
        )
        .unwrap();
        let page = std::fs::read_to_string(file).unwrap();
        assert!(page.contains("<h2>Shared run</h2>"), "{page}");
        assert!(page.contains("Driver 1 of 2 of run night-42: merged over 2 of 2 parts, TEST RESULT (2 drivers) : System achieved 3012 NOPM from 7004 PostgreSQL TPM"), "{page}");
    }

    #[test]
    fn a_store_without_shared_runs_says_so() {
        let (_home, mut rec, _, _) = recorded();
        let out = Output::capture();
        let e = run(&mut rec, Request::Run(Some("x".into())), Format::Text, &out)
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("in the jobs history; it has none (drivers that share a run, giset drivers drivers_run NAME, record one)"), "{e}");
        let _ = run(&mut rec, Request::Run(None), Format::Text, &out).unwrap();
        assert!(out.take_captured()[0].starts_with("No shared runs in the jobs history"));
    }

    #[test]
    fn the_format_is_a_persisted_setting() {
        let mut s = Settings::defaults();
        let out = Output::capture();
        assert_eq!(Format::of(&s), Format::Json);
        let (v, changed) = format(&mut s, Some("TEXT"), &out).unwrap();
        assert!(v.is_unit() && changed);
        assert_eq!(format(&mut s, None, &out).unwrap().0.to_string(), "text");
        assert_eq!(Format::of(&s), Format::Text);
        assert_eq!(out.take_captured(), ["Setting jobs output format to text"]);
        let (_, changed) = format(&mut s, Some("json"), &out).unwrap();
        assert!(changed);
        assert_eq!(s.generic.get("jobsoutput"), "JSON");
        assert!(format(&mut s, Some("xml"), &out)
            .unwrap_err()
            .to_string()
            .contains("text or json, not xml"));
    }
}
