//! The monitor of a timed run (virtual user 1): rampup, a first reading of the server's
//! counters, the measured duration, a second reading, and the workload's figures between
//! them; then it stops the workers.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::say::Say;
use super::shared::{lost, nap, Edge, RunOptions, Shared, STOP_GRACE};
use super::stats::process_cpu;
use super::workload::{Monitor, Workload};
use crate::endpoint::Position;
use crate::error::{Error, Result};

/// What the monitor measured.
pub(super) struct Measured<F> {
    /// `None` when the run stopped before the window began.
    pub figures: Option<F>,
    pub measured: Duration,
    /// When the measured window began (after the first reading).
    pub from: Option<Instant>,
    pub stopped_early: Option<String>,
    pub client_cpu: Option<Duration>,
}

/// `2`, `0.5`: minutes as the dictionary gives them.
fn minutes(d: Duration) -> String {
    let m = d.as_secs_f64() / 60.0;
    if m.fract() == 0.0 {
        format!("{m:.0}")
    } else {
        format!("{m}")
    }
}

/// A wait measured to the clock, to a tenth of a second: what a fixed window's rampup and
/// duration print as.
fn round_to_ms(d: Duration) -> Duration {
    Duration::from_millis((d.as_millis() as u64).div_ceil(100) * 100)
}

/// Reads the counters, riding out a server that went away for up to `limit` as the
/// terminals do (a reading that fails for any other reason fails at once).
async fn read_counters<M: Monitor, W: Workload>(
    m: &M,
    w: &W,
    limit: Duration,
    say: &Say,
) -> Result<M::Reading> {
    let started = Instant::now();
    let mut wait = Duration::from_millis(250);
    let mut said = false;
    loop {
        match counters_once(m, w, w.reply_timeout()).await {
            Err(e) if e.is_connection_loss() && started.elapsed() < limit => {
                if !said {
                    say.line(format!("{e}; trying again"));
                    said = true;
                }
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(5));
            }
            other => return other,
        }
    }
}

/// One reading of the counters, given up after `timeout` as a lost connection.
async fn counters_once<M: Monitor, W: Workload>(
    m: &M,
    w: &W,
    timeout: Duration,
) -> Result<M::Reading> {
    tokio::time::timeout(timeout, m.read())
        .await
        .unwrap_or_else(|_| {
            Err(lost(
                &w.peer(Position::Monitor),
                format!(
                    "no reply to the counters' query within {} s",
                    timeout.as_secs_f64()
                ),
            ))
        })
}

/// Virtual user 1 of a timed run: rampup, first counter reading, the measured duration,
/// second reading, result; then it stops the workers.
pub(super) async fn monitor_run<M: Monitor, W: Workload>(
    m: &M,
    w: &W,
    opts: &RunOptions,
    shared: &Shared,
    say: &Say,
) -> Result<Measured<M::Figures>> {
    // A first reading opens the counters' connections now, so that the readings that bound
    // the measured window take one round trip each, not a connection set-up.
    counters_once(m, w, w.reply_timeout()).await?;
    // Several drivers measure one window fixed when they all joined: this one's rampup
    // lasts until it opens, however long that is from here.
    let rampup_end = match opts.window {
        Some(w) => w.start,
        None => Instant::now() + opts.rampup,
    };
    say.line(format!(
        "Beginning rampup time of {} minutes",
        minutes(round_to_ms(
            rampup_end.saturating_duration_since(Instant::now())
        ))
    ));
    let mut minute = 0;
    while Instant::now() < rampup_end {
        let step = (rampup_end - Instant::now()).min(Duration::from_secs(60));
        if !nap(step, &shared.stop).await {
            say.line("Run stopped during rampup: nothing was measured");
            return Ok(Measured {
                figures: None,
                measured: Duration::ZERO,
                from: None,
                stopped_early: Some("stopped during rampup".into()),
                client_cpu: None,
            });
        }
        minute += 1;
        if Instant::now() < rampup_end {
            say.line(format!("Rampup {minute} minutes complete ..."));
        }
    }
    say.line("Rampup complete, Taking start Transaction Count.");
    let start = read_counters(m, w, opts.reconnect_for, say)
        .await
        .map_err(|why| Error::TxCountFailed {
            which: "start",
            why: Box::new(why),
        })?;
    let t1 = Instant::now();
    let cpu1 = process_cpu();
    shared.measuring.store(true, Ordering::Relaxed);
    w.window(true);
    shared.mark_window(Edge::Start, t1);
    say.line(format!(
        "Timing test period of {} in minutes",
        minutes(match opts.window {
            Some(w) => round_to_ms(w.end.saturating_duration_since(t1)),
            None => opts.duration,
        })
    ));
    let end = match opts.window {
        Some(w) => w.end,
        None => t1 + opts.duration,
    };
    let mut minute = 0;
    let mut stopped = None;
    while Instant::now() < end {
        let step = (end - Instant::now()).min(Duration::from_secs(60));
        if !nap(step, &shared.stop).await {
            stopped = Some("stopped before the end of the duration".to_string());
            break;
        }
        minute += 1;
        if Instant::now() < end {
            say.line(format!("{minute}  ...,"));
        }
    }
    shared.measuring.store(false, Ordering::Relaxed);
    w.window(false);
    shared.mark_window(Edge::End, Instant::now());
    let client_cpu = process_cpu().zip(cpu1).map(|(b, a)| b.saturating_sub(a));
    say.line("Test complete, Taking end Transaction Count.");
    // Stopped by hand: one quick reading, since the user waits for the prompt.
    let finish = if stopped.is_some() {
        counters_once(m, w, w.reply_timeout().min(STOP_GRACE)).await
    } else {
        read_counters(m, w, opts.reconnect_for, say).await
    };
    let finish = finish.map_err(|why| Error::TxCountFailed {
        which: "end",
        why: Box::new(why),
    })?;
    let measured = t1.elapsed();
    shared.stop.fire();
    let figures = m.figures(&start, &finish, measured, say);
    if let Some(why) = &stopped {
        say.line(format!(
            "(the run was {why}: the figures cover {:.1} s)",
            measured.as_secs_f64()
        ));
    }
    Ok(Measured {
        figures: Some(figures),
        measured,
        from: Some(t1),
        stopped_early: stopped,
        client_cpu,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_print_like_the_dictionary() {
        assert_eq!(minutes(Duration::from_secs(120)), "2");
        assert_eq!(minutes(Duration::from_secs(30)), "0.5");
    }
}
