//! The background monitors: the transaction counter (tcstart, tcstatus, tcstop), CPU metrics
//! (metstart, metstatus, metstop), runtimer that waits while they go on, and their stop at the
//! end of a session.

use rhai::Dynamic;

use super::{values, Session};
use crate::commands::{self, Command};
use crate::error::{Error, Result};

impl Session {
    // ---- tcstart / tcstatus / tcstop ----------------------------------------------------

    /// The transaction counter's series: the running one, or the last after `tcstop`.
    pub fn tc_series(&self) -> Option<crate::txcount::Series> {
        self.tc.series()
    }

    pub fn tcstart(&mut self, _args: &[String]) -> Result<Dynamic> {
        if let Some(id) = self.tc.thread_id() {
            return Err(Error::CounterRunning { thread: id });
        }
        let g = &self.settings.generic;
        let opts = crate::txcount::Options {
            refresh: std::time::Duration::from_secs(
                g.get_i64("tc_refresh_rate").clamp(1, 59) as u64
            ),
            log_to_temp: g.get_bool("tc_log_to_temp"),
            unique_log_name: g.get_bool("tc_unique_log_name"),
            log_timestamps: g.get_bool("tc_log_timestamps"),
        };
        // What is counted, and as whom, is the benchmark's: TPROC-H counts queries per hour
        // as its `tpch_` logins.
        let counting = crate::workloads::of(&self.settings)
            .map_or(crate::db::counter::Counting::TRANSACTIONS, |b| b.counting());
        let mut source = crate::db::counter_source(&self.settings, self.current(), counting);
        let what = source.describe();
        let connected = self.block_on(async {
            let nopm = source.connect().await?;
            let first = source.read().await?;
            Ok::<_, crate::db::DbError>((nopm, first))
        });
        let (nopm, first) = match connected {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => return Err(Error::CounterFailed { why: e }),
            Err(e) => {
                self.rt.block_on(source.close());
                return Err(e);
            }
        };
        let new_orders_from = source.new_orders_from();
        let log = self.tc.start(
            &self.rt,
            source,
            first,
            &opts,
            self.out.clone(),
            self.jobs.series(),
        )?;
        self.out.line("Transaction Counter Started");
        let mut detail = format!(
            "Transaction Counter: counting {what} every {} s",
            opts.refresh.as_secs()
        );
        if counting.counted != crate::db::counter::Counted::Transactions {
            detail.push_str(&format!(
                ", in {} per hour ({})",
                counting.counted.noun(),
                counting.counted.unit()
            ));
        }
        if nopm {
            detail.push_str(&format!(", with NOPM from {new_orders_from}"));
        }
        self.out.line(detail);
        if let Some(path) = log {
            self.out.line(format!(
                "Transaction Counter logging activated to {}",
                path.display()
            ));
        }
        Ok(Dynamic::UNIT)
    }

    pub fn tcstatus(&mut self, _args: &[String]) -> Result<Dynamic> {
        match self.tc.thread_id() {
            Some(id) => {
                self.out.line(format!(
                    "Transaction Counter thread running with threadid:{id}"
                ));
                Ok(true.into())
            }
            None => {
                self.out.line("Transaction Counter is not running");
                Ok(false.into())
            }
        }
    }

    pub fn tcstop(&mut self, _args: &[String]) -> Result<Dynamic> {
        let Some(id) = self.tc.thread_id() else {
            return Err(Error::CounterNotRunning);
        };
        self.out.line(format!(
            "Transaction Counter thread running with threadid:{id}"
        ));
        self.out.line("Stopping Transaction Counter");
        let Some(stopped) = self.tc.stop(&self.rt) else {
            return Err(Error::CounterNotRunning);
        };
        if stopped.aborted {
            self.out
                .line("Transaction Counter did not stop in time and was aborted");
        }
        if stopped.log.is_some() {
            self.out.line("Closed Transaction Counter Log");
        }
        for line in stopped.series.summary_lines() {
            self.out.line(line);
        }
        Ok(values::tc_map(&stopped.series).into())
    }

    // ---- metstart / metstatus / metstop -------------------------------------------------

    /// The metrics series: the running one, or the last after `metstop`.
    pub fn metrics_series(&self) -> Option<crate::metrics::Series> {
        self.metrics.series()
    }

    pub fn metstart(&mut self, _args: &[String]) -> Result<Dynamic> {
        if let Some((opts, _)) = self.metrics.status() {
            return Err(Error::MetricsRunning { host: opts.host });
        }
        let g = &self.settings.generic;
        let opts = crate::metrics::Options {
            host: g.get("agent_hostname").to_string(),
            port: g.get_i64("agent_id").clamp(1, 65535) as u16,
            interval: std::time::Duration::from_secs(g.get_i64("metrics_interval").max(1) as u64),
            per_cpu: g.get_bool("metrics_per_cpu"),
        };
        if opts.is_local() {
            self.out
                .line(format!("Starting Local Metrics Agent on {}", opts.host));
        } else {
            self.out
                .line(format!("Connecting to Metrics Agent @ {}", opts.endpoint()));
        }
        self.metrics
            .start(&self.rt, opts, self.out.clone(), self.jobs.series());
        Ok(Dynamic::UNIT)
    }

    pub fn metstatus(&mut self, _args: &[String]) -> Result<Dynamic> {
        use crate::metrics::Link;
        let Some((opts, link)) = self.metrics.status() else {
            self.out.line(format!(
                "CPU Metrics are not running on {}",
                self.settings.generic.get("agent_hostname")
            ));
            return Ok(false.into());
        };
        self.out
            .line(format!("CPU Metrics are running on {}", opts.host));
        let endpoint = opts.endpoint();
        self.out.line(match link {
            Link::Connected if opts.is_local() => {
                "Metrics Agent running inside hammer on localhost".to_string()
            }
            Link::Connected => format!("Metrics Agent running on {endpoint}"),
            Link::Connecting => format!("Connecting to Metrics Agent @ {endpoint}"),
            Link::Failing(why) => {
                format!("Metrics Agent not connected @ {endpoint} ({why}); retrying")
            }
        });
        Ok(true.into())
    }

    pub fn metstop(&mut self, _args: &[String]) -> Result<Dynamic> {
        let Some((opts, _)) = self.metrics.status() else {
            return Err(Error::MetricsNotRunning {
                host: Some(self.settings.generic.get("agent_hostname").to_string()),
            });
        };
        self.out.line(format!(
            "Stopping Metrics Agent and Display on {}",
            opts.endpoint()
        ));
        let Some(stopped) = self.metrics.stop(&self.rt) else {
            return Err(Error::MetricsNotRunning { host: None });
        };
        if stopped.aborted {
            self.out
                .line("CPU Metrics did not stop in time and were aborted");
        }
        for line in stopped.series.summary_lines() {
            self.out.line(line);
        }
        Ok(values::metrics_map(&stopped.series).into())
    }

    // ---- runtimer ----------------------------------------------------------------------

    pub fn runtimer(&mut self, args: &[String]) -> Result<Dynamic> {
        let seconds = args[0]
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && (0.0..=1e9).contains(s))
            .ok_or_else(|| {
                Error::usage(
                    format!(
                        "Error: runtimer takes a number of seconds >= 0, not {}",
                        args[0]
                    ),
                    commands::find("runtimer")
                        .map(Command::usage)
                        .unwrap_or_default(),
                )
            })?;
        let started = std::time::Instant::now();
        let wait = std::time::Duration::from_secs_f64(seconds);
        match self.block_on(async move { tokio::time::sleep(wait).await }) {
            Ok(()) => {}
            Err(Error::Interrupted) => {
                // Ctrl-C ends the wait, not the script: what follows (tcstop, metstop)
                // still runs and reports.
                self.interrupt.clear();
                self.out.line(format!(
                    "runtimer: Ctrl-C ended the wait after {:.1} of {seconds} s",
                    started.elapsed().as_secs_f64()
                ));
            }
            Err(e) => return Err(e),
        }
        Ok(Dynamic::UNIT)
    }

    /// Stops what runs in the background (counter, metrics), reporting as their stop
    /// commands do, and closes a Primary's session: the end of a script or console session.
    pub fn shutdown(&mut self) {
        // A Primary closes its session: its Replicas return to Local mode at once.
        self.close_primary();
        if self.tc.thread_id().is_some() {
            let _ = self.tcstop(&[]);
        }
        if self.metrics.status().is_some() {
            let _ = self.metstop(&[]);
        }
    }
}
