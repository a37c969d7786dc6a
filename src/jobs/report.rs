//! `jobs ID report FILE.html`: one self-contained HTML page of a job (inline CSS and SVG
//! charts drawn here, nothing fetched), readable when opened from disk.

use std::fmt::Write;

use super::id::text_time;
use super::text::{bytes, profile, result_line};
use super::{Detail, Line, Timing, TpchRecord};

/// `<`, `>`, `&`, and quotes made safe for HTML text and attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const CSS: &str = "
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:960px;color:#222;padding:0 1em}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
.status{display:inline-block;padding:.1em .6em;border-radius:.3em;color:#fff;font-weight:600;font-size:.8em;vertical-align:middle}
.SUCCESS{background:#2e7d32}.FAILED{background:#c62828}.STOPPED{background:#ef6c00}.ABORTED{background:#6d4c41}.RUNNING{background:#1565c0}
.result{font-size:1.2em;font-weight:600;margin:.6em 0}
table{border-collapse:collapse;font-size:.9em}td,th{padding:.2em .7em;border-bottom:1px solid #eee;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
pre{background:#f6f8fa;padding:.8em;overflow-x:auto;font-size:.8em;line-height:1.35}
svg{font-size:11px;font-family:inherit}.axis{stroke:#999}.grid{stroke:#eee}.none{color:#777;font-style:italic}
.window{fill:#e3f2fd}.phase{fill:#777}
details summary{cursor:pointer}
.scroll{overflow-x:auto;max-width:100%}.scroll td,.scroll th{white-space:nowrap}
";

const COLORS: [&str; 6] = [
    "#1565c0", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f",
];

/// A round step near `span / 5` for axis ticks.
fn nice_step(span: f64) -> f64 {
    if span <= 0.0 || !span.is_finite() {
        return 1.0;
    }
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f < 1.5 {
        1.0
    } else if f < 3.5 {
        2.0
    } else if f < 7.5 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// The horizontal grid lines and their labels, every `step` up to `top`, from `x0` to `x1`.
fn y_grid(
    svg: &mut String,
    (x0, x1): (f64, f64),
    (top, step): (f64, f64),
    py: &dyn Fn(f64) -> f64,
) {
    let mut y = 0.0;
    while y <= top + step / 2.0 {
        let _ = write!(
            svg,
            r#"<line class="grid" x1="{x0}" x2="{x1}" y1="{p:.1}" y2="{p:.1}"/><text x="{lx}" y="{ty:.1}" text-anchor="end">{l}</text>"#,
            p = py(y),
            lx = x0 - 6.0,
            ty = py(y) + 4.0,
            l = tick_label(y)
        );
        y += step;
    }
}

fn tick_label(v: f64) -> String {
    if v.abs() >= 10_000.0 {
        format!("{:.0}k", v / 1000.0)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The widest a text of `chars` characters is drawn at the charts' 11 px font: 0.62 em a
/// character covers the digits and most letters of the usual sans-serif faces, bold ones too
/// (a little room to spare is the price of laying text out without measuring it).
fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * 11.0 * 0.62
}

/// `text`, cut short with an ellipsis to what fits in `width` (tables keep the whole of it).
fn fit(text: &str, width: f64) -> String {
    if text_width(text) <= width {
        return text.to_string();
    }
    let keep = (width / (11.0 * 0.62)).floor() as usize;
    let mut cut: String = text.chars().take(keep.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// One entry of a chart's legend: a swatch of the series' color (a dashed line for a line
/// drawn across the plot) and its name.
struct Key<'a> {
    name: &'a str,
    color: &'a str,
    dashed: bool,
}

/// A legend row's height.
const KEY_ROW: f64 = 15.0;

/// A chart's title and legend, from `x0` to `x1`: the title on the first line, then the
/// legend's entries flowed left to right in as many rows as they need, so that neither
/// overlaps the other however many series there are. Returns where the plot may begin.
fn header(svg: &mut String, title: &str, keys: &[Key<'_>], (x0, x1): (f64, f64)) -> f64 {
    let _ = write!(
        svg,
        r#"<text x="{x0}" y="16" font-weight="600">{t}</text>"#,
        t = escape(&fit(title, x1 - x0))
    );
    let (mut x, mut row) = (x0, 16.0 + KEY_ROW);
    for key in keys {
        let name = fit(key.name, x1 - x0 - 16.0);
        let width = 16.0 + text_width(&name);
        if x > x0 && x + width > x1 {
            x = x0;
            row += KEY_ROW;
        }
        if key.dashed {
            let _ = write!(
                svg,
                r#"<line x1="{x:.1}" x2="{x2:.1}" y1="{y:.1}" y2="{y:.1}" stroke="{c}" stroke-width="2" stroke-dasharray="4 2"/>"#,
                x2 = x + 12.0,
                y = row - 4.0,
                c = key.color
            );
        } else {
            let _ = write!(
                svg,
                r#"<rect x="{x:.1}" y="{y:.1}" width="12" height="8" fill="{c}"/>"#,
                y = row - 8.0,
                c = key.color
            );
        }
        let _ = write!(
            svg,
            r#"<text x="{tx:.1}" y="{row:.1}">{n}</text>"#,
            tx = x + 16.0,
            n = escape(&name)
        );
        x += width + 14.0;
    }
    if keys.is_empty() {
        row -= KEY_ROW;
    }
    row + 12.0
}

/// One named series of (seconds since the start, value).
pub struct Series<'a> {
    pub name: &'a str,
    pub points: Vec<(f64, f64)>,
}

/// A line chart of one or more series sharing the axes, as inline SVG.
pub fn line_chart(title: &str, y_label: &str, series: &[Series<'_>]) -> String {
    marked_chart(title, y_label, series, None)
}

/// A line chart with a run's measured window shaded (seconds from the start to its end, or
/// to the chart's end when the run stopped inside it) and the rampup before it named.
pub fn marked_chart(
    title: &str,
    y_label: &str,
    series: &[Series<'_>],
    window: Option<(f64, Option<f64>)>,
) -> String {
    let (w, plot_h) = (760.0, 196.0);
    let (left, right, bottom) = (60.0, 20.0, 36.0);
    let keys: Vec<Key<'_>> = series
        .iter()
        .enumerate()
        .map(|(i, s)| Key {
            name: s.name,
            color: COLORS[i % COLORS.len()],
            dashed: false,
        })
        .collect();
    let mut head = String::new();
    let top = header(&mut head, title, &keys, (left, w - right));
    let h = top + plot_h + bottom;
    let all = series.iter().flat_map(|s| s.points.iter());
    let x_max = all.clone().map(|p| p.0).fold(0.0_f64, f64::max).max(1.0);
    let y_max = all.map(|p| p.1).fold(0.0_f64, f64::max);
    let y_step = nice_step(y_max.max(1e-9));
    let y_top = (y_max / y_step).ceil().max(1.0) * y_step;
    let x_step = nice_step(x_max);
    let px = |x: f64| left + (w - left - right) * x / x_max;
    let py = |y: f64| top + plot_h * (1.0 - y / y_top);
    let mut svg = format!(
        r#"<svg viewBox="0 0 {w} {h}" width="100%" role="img" aria-label="{t}">{head}"#,
        t = escape(title)
    );
    y_grid(&mut svg, (left, w - right), (y_top, y_step), &py);
    if let Some((start, end)) = window {
        let (x0, x1) = (px(start.min(x_max)), px(end.unwrap_or(x_max).min(x_max)));
        // `rampup` names the part before the window when it fits there; `measured` goes a
        // line lower when a short rampup leaves no room beside it, and ends at the plot's
        // right edge when the window starts close to it.
        let rampup = start > 0.0;
        let beside = x0 - left >= text_width("rampup") + 8.0;
        let ty = if rampup && !beside {
            top + 25.0
        } else {
            top + 12.0
        };
        let (tx, anchor) = if x0 + 4.0 + text_width("measured") <= w - right {
            (x0 + 4.0, "start")
        } else {
            (w - right - 4.0, "end")
        };
        let _ = write!(
            svg,
            r#"<rect class="window" x="{x0:.1}" y="{top}" width="{bw:.1}" height="{plot_h}"/><text class="phase" x="{tx:.1}" y="{ty}" text-anchor="{anchor}">measured</text>"#,
            bw = (x1 - x0).max(0.0),
        );
        if rampup {
            let _ = write!(
                svg,
                r#"<text class="phase" x="{tx:.1}" y="{ty}">rampup</text>"#,
                tx = left + 4.0,
                ty = top + 12.0
            );
        }
    }
    let mut x = 0.0;
    while x <= x_max + x_step / 100.0 {
        let _ = write!(
            svg,
            r#"<text x="{p:.1}" y="{ty}" text-anchor="middle">{l}</text>"#,
            p = px(x),
            ty = h - bottom + 16.0,
            l = tick_label(x)
        );
        x += x_step;
    }
    let _ = write!(
        svg,
        r#"<line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{b}"/><line class="axis" x1="{left}" x2="{r}" y1="{b}" y2="{b}"/><text x="{mx}" y="{ly}" text-anchor="middle">seconds</text><text x="14" y="{my}" text-anchor="middle" transform="rotate(-90 14 {my})">{yl}</text>"#,
        b = h - bottom,
        r = w - right,
        mx = (left + w - right) / 2.0,
        ly = h - 4.0,
        my = (top + h - bottom) / 2.0,
        yl = escape(y_label)
    );
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let pts: Vec<String> = s
            .points
            .iter()
            .map(|(x, y)| format!("{:.1},{:.1}", px(*x), py(*y)))
            .collect();
        let _ = write!(
            svg,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
            pts.join(" ")
        );
        if s.points.len() == 1 {
            let (x, y) = s.points[0];
            let _ = write!(
                svg,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}"/>"#,
                px(x),
                py(y)
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// Latency percentiles per transaction type as grouped horizontal bars, inline SVG.
pub fn latency_chart(timings: &[Timing]) -> String {
    type Pick = fn(&Timing) -> f64;
    let bars: [(&str, Pick); 3] = [
        ("p50", |t| t.p50_ms),
        ("p95", |t| t.p95_ms),
        ("p99", |t| t.p99_ms),
    ];
    let max = timings
        .iter()
        .map(|t| t.p99_ms.max(t.p95_ms).max(t.p50_ms))
        .fold(0.0_f64, f64::max)
        .max(1e-9);
    // Room on the left for the longest name, on the right for the widest value.
    let widest = |texts: &mut dyn Iterator<Item = String>| {
        texts.map(|t| text_width(&t)).fold(0.0_f64, f64::max)
    };
    let left = (widest(&mut timings.iter().map(|t| t.name.clone())) + 16.0).clamp(110.0, 260.0);
    let right = (widest(
        &mut timings
            .iter()
            .flat_map(|t| bars.iter().map(move |(_, f)| format!("{:.3}", f(t)))),
    ) + 10.0)
        .max(40.0);
    let w = 760.0;
    let keys: Vec<Key<'_>> = bars
        .iter()
        .enumerate()
        .map(|(i, (name, _))| Key {
            name,
            color: COLORS[i],
            dashed: false,
        })
        .collect();
    let mut head = String::new();
    let top = header(
        &mut head,
        "Latency percentiles (ms)",
        &keys,
        (left, w - right),
    );
    let group = 14.0 * bars.len() as f64 + 12.0;
    let h = top + group * timings.len() as f64 + 10.0;
    let mut svg = format!(
        r#"<svg viewBox="0 0 {w} {h}" width="100%" role="img" aria-label="latency percentiles">{head}"#
    );
    for (g, t) in timings.iter().enumerate() {
        let y0 = top + group * g as f64;
        let _ = write!(
            svg,
            r#"<text x="{x}" y="{y:.1}" text-anchor="end">{n}</text>"#,
            x = left - 8.0,
            y = y0 + group / 2.0,
            n = escape(&fit(&t.name, left - 16.0))
        );
        for (i, (_, f)) in bars.iter().enumerate() {
            let v = f(t);
            let bw = (w - left - right) * v / max;
            let y = y0 + 14.0 * i as f64;
            let _ = write!(
                svg,
                r#"<rect x="{left}" y="{y:.1}" width="{bw:.1}" height="12" fill="{c}"/><text x="{tx:.1}" y="{ty:.1}">{v:.3}</text>"#,
                c = COLORS[i],
                tx = left + bw + 4.0,
                ty = y + 10.0
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// The series a per-query chart draws: one per query set, or (for many sets) the mean over
/// them with the range from the fastest to the slowest.
enum QueryBars {
    /// `(legend, seconds of query 1..22)`; `None` where the set did not run the query.
    PerSet(Vec<(String, [Option<f64>; 22])>),
    /// `(sets, [(min, mean, max)] of query 1..22)`.
    Spread(usize, Vec<Option<(f64, f64, f64)>>),
}

/// Query sets beyond this many are drawn as their mean and range, not bar by bar.
const SETS_DRAWN: usize = 6;

fn query_bars(t: &TpchRecord) -> QueryBars {
    let seconds = |s: &super::SetTimes| {
        let mut by_query = [None; 22];
        for q in &s.queries {
            if let Some(slot) = (q.query as usize)
                .checked_sub(1)
                .and_then(|i| by_query.get_mut(i))
            {
                *slot = Some(q.seconds);
            }
        }
        by_query
    };
    if t.sets.len() <= SETS_DRAWN {
        return QueryBars::PerSet(
            t.sets
                .iter()
                .map(|s| (format!("Vuser {} set {}", s.vu, s.set), seconds(s)))
                .collect(),
        );
    }
    let all: Vec<[Option<f64>; 22]> = t.sets.iter().map(seconds).collect();
    let mut spread = vec![None; 22];
    for (q, slot) in spread.iter_mut().enumerate() {
        let times: Vec<f64> = all.iter().filter_map(|s| s[q]).collect();
        if !times.is_empty() {
            let (lo, hi) = times
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(*v), hi.max(*v))
                });
            *slot = Some((lo, times.iter().sum::<f64>() / times.len() as f64, hi));
        }
    }
    QueryBars::Spread(t.sets.len(), spread)
}

/// Seconds per query, 1 to 22, as vertical bars (one per query set, or the mean over many
/// sets with a line from the fastest to the slowest), the geometric mean a dashed line
/// across: inline SVG.
pub fn query_chart(t: &TpchRecord) -> String {
    let (w, plot_h) = (760.0, 224.0);
    let (left, right, bottom) = (60.0, 20.0, 36.0);
    let bars = query_bars(t);
    let spread_name = match &bars {
        QueryBars::Spread(n, _) => format!("mean of {n} query sets; the line: fastest to slowest"),
        QueryBars::PerSet(_) => String::new(),
    };
    let geomean_name = t
        .figures
        .geomean
        .map(|g| format!("geometric mean {g:.5} s"));
    // The legend names each set's color, and the dashed geometric mean: drawn as a label on
    // its line, it sat on the bars of the slower queries.
    let mut keys: Vec<Key<'_>> = match &bars {
        QueryBars::PerSet(sets) => sets
            .iter()
            .enumerate()
            .map(|(i, (name, _))| Key {
                name,
                color: COLORS[i % COLORS.len()],
                dashed: false,
            })
            .collect(),
        QueryBars::Spread(..) => vec![Key {
            name: &spread_name,
            color: COLORS[0],
            dashed: false,
        }],
    };
    if let Some(name) = &geomean_name {
        keys.push(Key {
            name,
            color: COLORS[1],
            dashed: true,
        });
    }
    let mut head = String::new();
    let top = header(&mut head, "Seconds per query", &keys, (left, w - right));
    let h = top + plot_h + bottom;
    let y_max = match &bars {
        QueryBars::PerSet(sets) => sets
            .iter()
            .flat_map(|(_, s)| s.iter().flatten())
            .fold(0.0_f64, |a, b| a.max(*b)),
        QueryBars::Spread(_, s) => s.iter().flatten().fold(0.0_f64, |a, b| a.max(b.2)),
    }
    .max(t.figures.geomean.unwrap_or(0.0));
    let y_step = nice_step(y_max.max(1e-9));
    let y_top = (y_max / y_step).ceil().max(1.0) * y_step;
    let py = |y: f64| top + plot_h * (1.0 - y / y_top);
    let group = (w - left - right) / 22.0;
    let mut svg = format!(
        r#"<svg viewBox="0 0 {w} {h}" width="100%" role="img" aria-label="seconds per query">{head}"#
    );
    y_grid(&mut svg, (left, w - right), (y_top, y_step), &py);
    for q in 0..22 {
        let _ = write!(
            svg,
            r#"<text x="{x:.1}" y="{ty}" text-anchor="middle">{n}</text>"#,
            x = left + group * (q as f64 + 0.5),
            ty = h - bottom + 16.0,
            n = q + 1
        );
    }
    let _ = write!(
        svg,
        r#"<line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{b}"/><line class="axis" x1="{left}" x2="{r}" y1="{b}" y2="{b}"/><text x="{mx}" y="{ly}" text-anchor="middle">query</text><text x="14" y="{my}" text-anchor="middle" transform="rotate(-90 14 {my})">seconds</text>"#,
        b = h - bottom,
        r = w - right,
        mx = (left + w - right) / 2.0,
        ly = h - 4.0,
        my = (top + h - bottom) / 2.0,
    );
    match &bars {
        QueryBars::PerSet(sets) => {
            let bw = group * 0.8 / sets.len().max(1) as f64;
            for (i, (_, secs)) in sets.iter().enumerate() {
                let color = COLORS[i % COLORS.len()];
                for (q, v) in secs.iter().enumerate() {
                    let Some(v) = v else { continue };
                    let x = left + group * q as f64 + group * 0.1 + bw * i as f64;
                    let _ = write!(
                        svg,
                        r#"<rect x="{x:.1}" y="{y:.1}" width="{bw:.1}" height="{bh:.1}" fill="{color}"><title>query {n}: {v:.3} s</title></rect>"#,
                        y = py(*v),
                        bh = (py(0.0) - py(*v)).max(0.0),
                        n = q + 1
                    );
                }
            }
        }
        QueryBars::Spread(_, spread) => {
            let color = COLORS[0];
            let bw = group * 0.6;
            for (q, v) in spread.iter().enumerate() {
                let Some((lo, mean, hi)) = v else { continue };
                let x = left + group * q as f64 + group * 0.2;
                let cx = x + bw / 2.0;
                let _ = write!(
                    svg,
                    r#"<rect x="{x:.1}" y="{y:.1}" width="{bw:.1}" height="{bh:.1}" fill="{color}"><title>query {n}: mean {mean:.3} s, {lo:.3} to {hi:.3} s</title></rect><line class="axis" x1="{cx:.1}" x2="{cx:.1}" y1="{y1:.1}" y2="{y2:.1}"/>"#,
                    y = py(*mean),
                    bh = (py(0.0) - py(*mean)).max(0.0),
                    n = q + 1,
                    y1 = py(*lo),
                    y2 = py(*hi)
                );
            }
        }
    }
    if let Some(g) = t.figures.geomean {
        let _ = write!(
            svg,
            r#"<line x1="{left}" x2="{r}" y1="{y:.1}" y2="{y:.1}" stroke="{c}" stroke-width="2" stroke-dasharray="4 2"><title>geometric mean {g:.5} s</title></line>"#,
            r = w - right,
            y = py(g),
            c = COLORS[1],
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A TPROC-H run's query sets and refresh functions: the chart, then the tables.
fn tpch_html(t: &TpchRecord) -> String {
    let mut page = String::from("<h2>Query times</h2>");
    if t.sets.iter().all(|s| s.queries.is_empty()) {
        page.push_str(&none("No query ran."));
    } else {
        page.push_str(&query_chart(t));
        // A column pair per set: many sets make it wider than the page, so it scrolls alone.
        page.push_str(r#"<div class="scroll"><table><tr><th>query</th>"#);
        for s in &t.sets {
            let _ = write!(
                page,
                r#"<th class="n">Vuser {} set {} s</th><th class="n">rows</th>"#,
                s.vu, s.set
            );
        }
        page.push_str("</tr>");
        for q in 1..=22u32 {
            let _ = write!(page, "<tr><td>{q}</td>");
            for s in &t.sets {
                match s.queries.iter().find(|x| x.query == q) {
                    Some(x) if x.error.is_some() => {
                        let _ = write!(
                            page,
                            r#"<td class="n" title="{}">{:.3} failed</td><td class="n">-</td>"#,
                            escape(x.error.as_deref().unwrap_or_default()),
                            x.seconds
                        );
                    }
                    Some(x) => {
                        let _ = write!(
                            page,
                            r#"<td class="n">{:.3}</td><td class="n">{}</td>"#,
                            x.seconds, x.rows
                        );
                    }
                    None => page.push_str(r#"<td class="n">-</td><td class="n">-</td>"#),
                }
            }
            page.push_str("</tr>");
        }
        page.push_str(r#"<tr><th>set</th>"#);
        for s in &t.sets {
            let _ = write!(
                page,
                r#"<th class="n">{:.3}</th><th class="n">{} of 22</th>"#,
                s.seconds,
                s.queries.len()
            );
        }
        page.push_str("</tr></table></div>");
    }
    page.push_str("<h2>Refresh functions</h2>");
    if t.refreshes.is_empty() {
        page.push_str(&none(
            "No refresh function ran (*_refresh_on was off, or the run ended first).",
        ));
    } else {
        page.push_str(r#"<table><tr><th>virtual user</th><th class="n">pair</th><th>function</th><th class="n">seconds</th><th class="n">rows</th><th>error</th></tr>"#);
        for r in &t.refreshes {
            let _ = write!(
                page,
                r#"<tr><td>{}</td><td class="n">{}</td><td>{} {}</td><td class="n">{:.3}</td><td class="n">{}</td><td>{}</td></tr>"#,
                r.vu,
                r.pair,
                escape(&r.function),
                escape(&r.name),
                r.seconds,
                r.rows,
                escape(r.error.as_deref().unwrap_or_default())
            );
        }
        page.push_str("</table>");
    }
    page
}

/// A driver's part of a shared run: the run, its merged result as this driver computed it,
/// and every driver of it (`jobs run NAME` shows the whole, from every part in the store).
fn run_html(p: &super::runs::RunPart) -> String {
    let m = &p.merged;
    let mut page = String::from("<h2>Shared run</h2>");
    let _ = write!(
        page,
        r#"<p class="result">{}</p><p>The common window: {} to {} (server clock).</p>"#,
        escape(&super::text::part_line(p)),
        text_time(m.window_from_ms),
        text_time(m.window_to_ms),
    );
    page.push_str(
        "<table><tr><th>driver</th><th>host</th><th>pid</th><th>warehouses</th><th>virtual users</th><th>New-Orders a minute (its terminals)</th><th>state</th></tr>",
    );
    for d in &m.drivers {
        let state = match &d.missing {
            Some(why) => format!("missing: {why}"),
            None => d.state.clone(),
        };
        let _ = write!(
            page,
            "<tr><td>{}{}</td><td>{}</td><td>{}</td><td>{}-{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            d.driver,
            if d.driver == p.driver { " (this job)" } else { "" },
            escape(&d.host),
            d.pid,
            d.first_ware,
            d.last_ware,
            d.vus,
            d.client_nopm
                .map_or("-".to_string(), |n| format!("{:.0}", n)),
            escape(&state)
        );
    }
    page.push_str("</table>");
    page
}

fn table(rows: &[(&str, String)]) -> String {
    let mut t = String::from("<table>");
    for (k, v) in rows {
        let _ = write!(t, "<tr><th>{}</th><td>{}</td></tr>", escape(k), escape(v));
    }
    t.push_str("</table>");
    t
}

fn none(text: &str) -> String {
    format!(r#"<p class="none">{}</p>"#, escape(text))
}

/// The settings as one table per dictionary section.
fn settings_html(settings: &serde_json::Value) -> String {
    let mut out = String::new();
    let Some(dicts) = settings.as_object() else {
        return none("No settings were recorded.");
    };
    for (name, sections) in dicts {
        let Some(sections) = sections.as_object() else {
            continue;
        };
        for (section, keys) in sections {
            let _ = write!(
                out,
                "<details><summary>{} / {}</summary>",
                escape(name),
                escape(section)
            );
            let rows: Vec<(&str, String)> = keys
                .as_object()
                .map(|k| {
                    k.iter()
                        .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default().to_string()))
                        .collect()
                })
                .unwrap_or_default();
            out.push_str(&table(&rows));
            out.push_str("</details>");
        }
    }
    out
}

/// The whole page.
pub fn html(d: &Detail, lines: &[Line]) -> String {
    let s = &d.summary;
    let mut page = String::with_capacity(16_384 + lines.len() * 80);
    let _ = write!(
        page,
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>hammer job {id}</title><style>{CSS}</style></head><body>"#,
        id = escape(&s.id)
    );
    let _ = write!(
        page,
        r#"<h1>{} <span class="status {st}">{st}</span></h1><p>Job <code>{}</code>: {}</p>"#,
        escape(s.label),
        escape(&s.id),
        escape(&profile(s)),
        st = s.status.label()
    );
    if let Some(t) = &d.tpch {
        let f = &t.figures;
        let geomean = f
            .geomean_line()
            .unwrap_or_else(|| "No geometric mean: no query returned rows.".into());
        let _ = write!(
            page,
            r#"<p class="result">{}<br>{}</p>"#,
            escape(&geomean),
            escape(&f.completed_line())
        );
    } else if let Some(f) = &d.figures {
        match result_line(&s.profile.db, f) {
            Some(l) => {
                let _ = write!(page, r#"<p class="result">{}</p>"#, escape(&l));
            }
            None => page.push_str(&none(
                "No NOPM or TPM: a test run, or the run ended before it measured.",
            )),
        }
    }
    let mut rows = vec![
        ("started (UTC)", text_time(s.started)),
        (
            "ended (UTC)",
            s.ended.map_or("not ended".to_string(), text_time),
        ),
        (
            "elapsed",
            s.seconds.map_or("-".to_string(), |x| format!("{x:.1} s")),
        ),
        ("host", format!("{} (pid {})", s.hostname, s.pid)),
    ];
    if let Some(note) = &s.note {
        rows.push(("note", note.clone()));
    }
    if let Some(f) = &d.figures {
        rows.push(("active virtual users", f.active_vus.to_string()));
        rows.push(("measured", format!("{:.1} s", f.seconds)));
        rows.push((
            if d.tpch.is_some() {
                "queries"
            } else {
                "transactions"
            },
            f.transactions.to_string(),
        ));
        rows.push(("failed virtual users", f.failed_vus.to_string()));
        rows.push(("reconnects", f.reconnects.to_string()));
        if let Some(cpu) = f.client_cpu_seconds {
            rows.push(("client CPU", format!("{cpu:.2} s")));
        }
        if let Some(why) = &f.stopped_early {
            rows.push(("ended early", why.clone()));
        }
    }
    if let Some(t) = &d.tpch {
        let f = &t.figures;
        rows.push(("scale factor", f.scale_factor.to_string()));
        rows.push(("query streams", f.query_streams.to_string()));
        rows.push(("complete query sets", f.querysets.to_string()));
        rows.push(("failed queries", f.failed_queries.to_string()));
        rows.push(("query time", format!("{:.3} s", f.query_seconds)));
        let ours = "(hammer's figure, not an official TPC-H result)";
        if let Some(p) = f.power_at_size {
            rows.push(("Power@Size", format!("{p:.1} {ours}")));
        }
        if let Some(t) = f.throughput_at_size {
            rows.push(("Throughput@Size", format!("{t:.1} {ours}")));
        }
        if let Some(q) = f.qphh {
            rows.push(("QphH@Size", format!("{q:.1} {ours}")));
        }
        if f.answers_checked > 0 {
            rows.push((
                "answers checked",
                format!("{} of {} match", f.answers_matched, f.answers_checked),
            ));
        }
    }
    page.push_str("<h2>Result</h2>");
    page.push_str(&table(&rows));
    if let Some(t) = &d.tpch {
        page.push_str(&tpch_html(t));
    }
    if d.figures.is_none() {
        if let Some(v) = &d.returned {
            let _ = write!(
                page,
                "<pre>{}</pre>",
                escape(&serde_json::to_string_pretty(v).unwrap_or_default())
            );
        }
    }

    if let Some(p) = &d.run {
        page.push_str(&run_html(p));
    }

    let metric = d.tcount.first().map_or("tpm", |p| p.metric.as_str());
    page.push_str(if metric == "tpm" {
        "<h2>Transactions per minute and NOPM over time</h2>"
    } else {
        "<h2>Queries per hour over time</h2>"
    });
    let live = d.live.as_ref().filter(|l| !l.points.is_empty());
    let rates = live.map(|l| l.rate_names()).unwrap_or_default();
    if let (Some(l), false) = (live, rates.is_empty()) {
        let series: Vec<Series<'_>> = rates
            .iter()
            .map(|name| Series {
                name,
                points: l
                    .points
                    .iter()
                    .filter_map(|p| p.rate(name).map(|v| (p.elapsed_s, v)))
                    .collect(),
            })
            .collect();
        page.push_str(&marked_chart(
            "The database's counters, per interval of the live view",
            "per minute",
            &series,
            l.window,
        ));
    }
    if !d.tcount.is_empty() {
        let t0 = d.tcount[0].at;
        let secs = |at: i64| (at - t0) as f64 / 1000.0;
        let name = metric.to_ascii_uppercase();
        let mut series = vec![Series {
            name: &name,
            points: d.tcount.iter().map(|p| (secs(p.at), p.value)).collect(),
        }];
        let nopm: Vec<(f64, f64)> = d
            .tcount
            .iter()
            .filter_map(|p| p.nopm.map(|n| (secs(p.at), n)))
            .collect();
        if !nopm.is_empty() {
            series.push(Series {
                name: "NOPM",
                points: nopm,
            });
        }
        page.push_str(&line_chart(
            "Transaction counter (tcstart)",
            if metric == "tpm" {
                "per minute"
            } else {
                "per hour"
            },
            &series,
        ));
    } else if rates.is_empty() {
        page.push_str(&none(
            "No series of the database's counters: a timed run's live view (vuset refreshrate) \
             or the transaction counter (tcstart) records one.",
        ));
    } else {
        page.push_str(&none(
            "The transaction counter (tcstart) did not run: the chart above is the live view's.",
        ));
    }

    page.push_str("<h2>Response times over time</h2>");
    match live {
        Some(l) => {
            let series: Vec<Series<'_>> = l
                .names
                .iter()
                .enumerate()
                .map(|(k, name)| Series {
                    name,
                    points: l
                        .points
                        .iter()
                        .filter_map(|p| {
                            let t = p.types.get(k)?;
                            t.p95_ms.map(|v| (p.elapsed_s, v))
                        })
                        .collect(),
                })
                .collect();
            page.push_str(&marked_chart(
                "95th percentile per type, per interval of the live view",
                "ms",
                &series,
                l.window,
            ));
        }
        None => page.push_str(&none(
            "No live series: the run had no live view (vuset refreshrate 0).",
        )),
    }

    page.push_str("<h2>CPU over time</h2>");
    if d.metrics.is_empty() {
        page.push_str(&none(
            "No CPU metrics series: start the metrics (metstart) before the run to record one.",
        ));
    } else {
        let t0 = d.metrics[0].at;
        let secs = |at: i64| (at - t0) as f64 / 1000.0;
        let pick = |f: fn(&super::MetricPoint) -> f64| {
            d.metrics.iter().map(|p| (secs(p.at), f(p))).collect()
        };
        let series = [
            Series {
                name: "usr %",
                points: pick(|p| p.usr),
            },
            Series {
                name: "sys %",
                points: pick(|p| p.sys),
            },
            Series {
                name: "irq %",
                points: pick(|p| p.irq),
            },
        ];
        page.push_str(&line_chart("CPU utilisation", "percent", &series));
    }

    // TPROC-H's query chart above draws its latencies; its table stays.
    let (heading, unit) = if d.tpch.is_some() {
        ("<h2>Latency per query</h2>", "query")
    } else {
        ("<h2>Latency per transaction type</h2>", "transaction")
    };
    page.push_str(heading);
    if d.timings.iter().all(|t| t.committed + t.rolled_back == 0) {
        page.push_str(&none("No transactions were timed."));
    } else {
        if d.tpch.is_none() {
            page.push_str(&latency_chart(&d.timings));
        }
        let _ = write!(
            page,
            r#"<table><tr><th>{unit}</th><th class="n">committed</th><th class="n">rolled back</th><th class="n">retried</th><th class="n">failed</th><th class="n">mean ms</th><th class="n">p50 ms</th><th class="n">p95 ms</th><th class="n">p99 ms</th><th class="n">max ms</th></tr>"#
        );
        for t in &d.timings {
            let _ = write!(
                page,
                r#"<tr><td>{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{}</td><td class="n">{:.3}</td><td class="n">{:.3}</td><td class="n">{:.3}</td><td class="n">{:.3}</td><td class="n">{:.3}</td></tr>"#,
                escape(&t.name),
                t.committed,
                t.rolled_back,
                t.retried,
                t.failed,
                t.mean_ms,
                t.p50_ms,
                t.p95_ms,
                t.p99_ms,
                t.max_ms
            );
        }
        page.push_str("</table>");
    }

    page.push_str("<h2>System</h2>");
    match &d.system {
        None => page.push_str(&none("No system data was recorded.")),
        Some(sys) => {
            let mut rows = vec![
                ("hostname", sys.hostname.clone()),
                ("os", sys.os.clone()),
                ("cpu", format!("{} x {}", sys.cpu_count, sys.cpu_model)),
                (
                    "physical cores",
                    sys.physical_cores.map_or("-".into(), |c| c.to_string()),
                ),
                ("memory", bytes(sys.memory_bytes)),
                (
                    "server",
                    sys.server_version
                        .clone()
                        .unwrap_or_else(|| "not read".into()),
                ),
            ];
            if let Some(t) = &sys.transport {
                rows.push(("transport", t.clone()));
            }
            if let Some(h) = sys.hammer() {
                rows.push(("client", h));
            }
            page.push_str(&table(&rows));
            let (durable, rest) = sys.settings_in_order();
            if !durable.is_empty() {
                page.push_str("<h3>Durability</h3>");
                let rows: Vec<_> = durable
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.clone()))
                    .collect();
                page.push_str(&table(&rows));
            }
            if !rest.is_empty() {
                page.push_str("<h3>Server settings</h3>");
                let rows: Vec<_> = rest.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
                page.push_str(&table(&rows));
            }
        }
    }

    page.push_str("<h2>Settings</h2>");
    page.push_str(&settings_html(&d.settings));

    let _ = write!(page, "<h2>Output ({} lines)</h2><pre>", lines.len());
    for l in lines {
        let _ = writeln!(page, "{}  {}", text_time(l.at), escape(&l.line));
    }
    page.push_str("</pre>");
    let _ = write!(
        page,
        r#"<p class="none">Written by hammer {} from its jobs database.</p></body></html>"#,
        crate::VERSION
    );
    page.push('\n');
    page
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{sample, Line, MetricPoint, TcountPoint};

    fn lines() -> Vec<Line> {
        vec![
            Line {
                at: 1_744_623_005_123,
                vu: 0,
                line: "Vuser 1:<script>alert('x')</script> & more".into(),
            },
            Line {
                at: 1_744_623_006_000,
                vu: 2,
                line: "Vuser 2:RUNNING".into(),
            },
        ]
    }

    /// Every `<tag` opened is closed, in order, for the elements that must be.
    fn balanced(html: &str, tag: &str) -> bool {
        html.matches(&format!("<{tag}")).count() == html.matches(&format!("</{tag}>")).count()
    }

    #[test]
    fn a_report_is_one_self_contained_page() {
        let mut d = sample::detail("67FD24A6FDB403E253438393", 12345.0);
        d.tcount = (0..5)
            .map(|i| TcountPoint {
                at: 1_744_623_005_000 + i * 10_000,
                metric: "tpm".into(),
                value: 30_000.0 + i as f64 * 100.0,
                nopm: Some(12_000.0),
            })
            .collect();
        d.metrics = vec![MetricPoint {
            at: 1_744_623_005_000,
            usr: 40.0,
            sys: 10.0,
            irq: 1.0,
            idle: 49.0,
        }];
        let page = html(&d, &lines());
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.trim_end().ends_with("</html>"));
        for tag in [
            "html", "head", "body", "svg", "table", "pre", "h2", "details",
        ] {
            assert!(balanced(&page, tag), "unbalanced <{tag}>");
        }
        assert_eq!(page.matches("<svg").count(), 3, "tcount, metrics, latency");
        // Nothing is fetched: no scripts, links, images, or addresses.
        for banned in [
            "http:", "https:", "<script", "<link", "<img", "src=", "href=", "@import", "url(",
        ] {
            assert!(!page.contains(banned), "{banned} in the page");
        }
        assert!(page.contains("Vuser 1:&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more"));
        assert!(page.contains("TEST RESULT : System achieved 12345 NOPM from 28393 PostgreSQL TPM"));
        assert!(page.contains(r#"<span class="status SUCCESS">SUCCESS</span>"#));
    }

    #[test]
    fn the_system_shows_durability_transport_and_build() {
        let mut d = sample::detail("67FD24A6FDB403E253438393", 1.0);
        d.system = Some(crate::jobs::SystemInfo {
            server_settings: vec![
                ("work_mem".into(), "4MB".into()),
                ("innodb_flush_log_at_trx_commit".into(), "2".into()),
            ],
            transport: Some("unix socket /tmp/mariadb.sock".into()),
            hammer_version: Some("0.1.0".into()),
            hammer_build: Some("release".into()),
            ..Default::default()
        });
        let page = html(&d, &[]);
        let durable = page.find("<h3>Durability</h3>").expect("durability table");
        let rest = page
            .find("<h3>Server settings</h3>")
            .expect("settings table");
        let flush = page.find("innodb_flush_log_at_trx_commit").unwrap();
        assert!(durable < flush && flush < rest, "durability first");
        assert!(page.contains("<th>transport</th><td>unix socket /tmp/mariadb.sock</td>"));
        assert!(page.contains("<th>client</th><td>hammer 0.1.0 (release build)</td>"));
    }

    #[test]
    fn missing_series_are_said_not_drawn() {
        let mut d = sample::detail("67FD24A6FDB403E253438393", 1.0);
        d.figures = None;
        d.timings.clear();
        d.returned = Some(serde_json::json!({"rows": 5, "note": "<b>"}));
        let page = html(&d, &[]);
        assert!(!page.contains("<svg"));
        assert!(page.contains("No series of the database&#39;s counters"));
        assert!(page.contains("No live series"));
        assert!(page.contains("No CPU metrics series"));
        assert!(page.contains("&lt;b&gt;"));
    }

    #[test]
    fn a_live_series_draws_rates_and_p95_with_the_window_marked() {
        use crate::jobs::live::{Live, Point, TypePoint};
        let mut d = sample::detail("67FD24A6FDB403E253438393", 1.0);
        let point = |i: u32, phase: &str| Point {
            elapsed_s: f64::from(i) * 10.0,
            seconds: 10.0,
            phase: phase.into(),
            rates: vec![("NOPM".into(), 1000.0), ("TPM".into(), 2300.0)],
            types: vec![TypePoint {
                finished: 5,
                p95_ms: Some(2.5),
                ..Default::default()
            }],
            ..Default::default()
        };
        d.live = Some(Live {
            names: vec!["new order".into()],
            window: Some((20.0, Some(60.0))),
            points: vec![
                point(1, "rampup"),
                point(2, "rampup"),
                point(4, "measured"),
                point(6, "measured"),
            ],
        });
        let page = html(&d, &[]);
        // Rates and p95 over the run, then the latency bars; each over-time chart marks the
        // rampup and the window.
        assert_eq!(page.matches("<svg").count(), 3, "{page}");
        assert_eq!(page.matches(r#"class="window""#).count(), 2);
        assert_eq!(page.matches(">rampup</text>").count(), 2);
        assert!(page.contains("95th percentile per type"));
        assert!(!page.contains("No live series"));
    }

    /// A TPROC-H run: its geometric mean and sets as the result, a bar per query and set with
    /// the geometric mean across, the query table, the refresh functions, a qph counter.
    #[test]
    fn a_tpch_report_charts_each_query() {
        let mut d = sample::tpch_detail("67FD24A6FDB403E253438394", 2);
        if let Some(t) = d.tpch.as_mut() {
            t.sets[1].queries[3].error = Some("<boom>".into());
        }
        d.tcount = (0..3)
            .map(|i| TcountPoint {
                at: 1_744_623_005_000 + i * 10_000,
                metric: "qph".into(),
                value: 3_600.0,
                nopm: None,
            })
            .collect();
        let page = html(&d, &lines());
        for tag in ["html", "body", "svg", "table", "h2", "title"] {
            assert!(balanced(&page, tag), "unbalanced <{tag}>");
        }
        assert!(page.contains(
            r#"<p class="result">Geometric mean of query times returning rows (42) is 0.43356<br>Completed 2 query set(s) in 34 seconds</p>"#
        ));
        assert!(!page.contains("NOPM"), "no NOPM for TPROC-H");
        assert!(page.contains("<h2>Query times</h2>"));
        // Two sets: 22 bars each, and the geometric mean as a dashed line.
        assert_eq!(page.matches("<title>query ").count(), 44);
        assert!(page.contains(">Vuser 2 set 1</text>"));
        assert!(page.contains("geometric mean 0.43356 s"));
        assert!(page.contains(r#"title="&lt;boom&gt;""#));
        assert!(page.contains("<td>RF1 New Sales refresh</td><td class=\"n\">1.250</td>"));
        assert!(page.contains("<h2>Queries per hour over time</h2>"));
        assert!(page.contains(">QPH</text>"));
        assert!(page.contains("<h2>Latency per query</h2><table><tr><th>query</th>"));
        // Query chart and the counter's: no latency bars (the query chart holds them).
        assert_eq!(page.matches("<svg").count(), 2, "{page}");
        assert!(page.contains("<th>queries</th><td>44</td>"));
        assert!(page.contains("<th>scale factor</th><td>1</td>"));
    }

    /// Many query sets are drawn as their mean with the range, not bar by bar.
    #[test]
    fn many_sets_are_drawn_as_mean_and_range() {
        let t = sample::tpch_record(8);
        let svg = query_chart(&t);
        assert_eq!(svg.matches("<title>query ").count(), 22);
        assert!(svg.contains("mean of 8 query sets; the line: fastest to slowest"));
        // Query 1 ran in every set, 0.10 s + set / 100: from 0.110 to 0.180.
        assert!(
            svg.contains("query 1: mean 0.145 s, 0.110 to 0.180 s"),
            "{svg}"
        );
    }

    /// A legend flows into rows under the title and never past the chart's right edge, its
    /// names cut short when one alone would not fit.
    #[test]
    fn legends_wrap_below_the_title() {
        let names: Vec<String> = (1..=22).map(|q| format!("query {q}")).collect();
        let keys: Vec<Key<'_>> = names
            .iter()
            .map(|name| Key {
                name,
                color: COLORS[0],
                dashed: false,
            })
            .collect();
        let mut svg = String::new();
        let top = header(&mut svg, "title", &keys, (60.0, 740.0));
        let rows: Vec<f64> = svg
            .split(r#"<text x=""#)
            .skip(2)
            .map(|t| {
                let (x, rest) = t.split_once('"').unwrap();
                let y = rest
                    .split_once(r#"y=""#)
                    .unwrap()
                    .1
                    .split_once('"')
                    .unwrap()
                    .0;
                let name = rest.split_once('>').unwrap().1.split_once('<').unwrap().0;
                assert!(
                    x.parse::<f64>().unwrap() + text_width(name) <= 740.0,
                    "{svg}"
                );
                y.parse().unwrap()
            })
            .collect();
        assert_eq!(rows.len(), 22);
        assert!(rows[0] > 16.0 + 10.0, "below the title: {svg}");
        assert!(rows[21] > rows[0], "in several rows: {svg}");
        assert!(top > rows[21], "the plot starts below the legend");
        let mut svg = String::new();
        let long = "x".repeat(200);
        let keys = [Key {
            name: &long,
            color: COLORS[0],
            dashed: true,
        }];
        header(&mut svg, "title", &keys, (60.0, 740.0));
        assert!(
            svg.contains("…</text>") && svg.contains("stroke-dasharray"),
            "{svg}"
        );
        assert_eq!(
            header(&mut String::new(), "title", &[], (60.0, 740.0)),
            28.0
        );
    }

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn axes_get_round_steps() {
        assert_eq!(nice_step(100.0), 20.0);
        assert_eq!(nice_step(37_000.0), 5000.0);
        assert_eq!(nice_step(0.0), 1.0);
        let svg = line_chart(
            "t",
            "y",
            &[Series {
                name: "a",
                points: vec![(0.0, 5.0)],
            }],
        );
        assert!(svg.contains("<circle"));
    }
}
