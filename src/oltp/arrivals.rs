//! The open-loop schedule of a target rate (`*_oltp_rate`, sysbench's `--rate`): events are
//! due at the instants of a Poisson process (exponential gaps of mean 1/rate, as sysbench's
//! event generator draws them), whether or not the virtual users keep up. A virtual user
//! takes the earliest event due, or waits for the next one. Its latency is then measured from
//! the instant the event was due as well as from when it started. sysbench reports only the
//! second, which hides the waiting of an overloaded server (coordinated omission). The queue
//! (events due and not yet taken) is sysbench's `queue length`.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Events due and not yet taken beyond which the schedule gives up, as sysbench does when
/// its queue is full: the virtual users cannot keep up with the rate.
pub const MAX_QUEUE: usize = 1 << 20;

struct State {
    rng: SmallRng,
    /// Nanoseconds since the run's start at which events are due, not yet taken.
    due: VecDeque<u64>,
    /// The next instant not yet in `due`.
    next: u64,
    mean_gap: f64,
}

impl State {
    fn gap(&mut self) -> u64 {
        // 1 - U is in (0, 1]: its logarithm is finite.
        let u: f64 = 1.0 - self.rng.random::<f64>();
        (-u.ln() * self.mean_gap) as u64
    }

    /// Moves every instant up to `now` into the queue.
    fn advance(&mut self, now: u64) -> Result<(), QueueFull> {
        while self.next <= now {
            if self.due.len() >= MAX_QUEUE {
                return Err(QueueFull);
            }
            self.due.push_back(self.next);
            self.next += self.gap().max(1);
        }
        Ok(())
    }
}

/// The virtual users fell so far behind the rate that a million events waited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueFull;

/// A rate's schedule, shared by a run's virtual users.
pub struct Schedule {
    state: Mutex<State>,
}

impl Schedule {
    /// `rate` events a second (more than 0), the gaps drawn from `seed`.
    pub fn new(rate: f64, seed: u64) -> Schedule {
        let mut state = State {
            rng: SmallRng::seed_from_u64(seed),
            due: VecDeque::new(),
            next: 0,
            mean_gap: 1e9 / rate,
        };
        state.next = state.gap();
        Schedule {
            state: Mutex::new(state),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The event a virtual user takes at `now` (since the run's start): the instant it was
    /// due, which is `now` or earlier when events wait, later when none is due yet (the
    /// virtual user waits until then).
    pub fn take(&self, now: Duration) -> Result<Duration, QueueFull> {
        let mut s = self.lock();
        s.advance(now.as_nanos() as u64)?;
        let at = match s.due.pop_front() {
            Some(at) => at,
            None => {
                let at = s.next;
                s.next += s.gap().max(1);
                at
            }
        };
        Ok(Duration::from_nanos(at))
    }

    /// Events due by `now` and not yet taken: sysbench's queue length.
    pub fn queue_length(&self, now: Duration) -> Result<usize, QueueFull> {
        let mut s = self.lock();
        s.advance(now.as_nanos() as u64)?;
        Ok(s.due.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_at_the_rate_on_average() {
        let s = Schedule::new(1000.0, 7);
        let mut last = Duration::ZERO;
        for _ in 0..20_000 {
            let at = s.take(Duration::ZERO).unwrap();
            assert!(at >= last, "instants go forward");
            last = at;
        }
        // 20,000 events at 1,000 a second: about 20 s (a Poisson process's spread is
        // sqrt(n), under 1 % here).
        let secs = last.as_secs_f64();
        assert!((secs - 20.0).abs() < 0.6, "{secs}");
    }

    #[test]
    fn events_wait_while_the_users_lag_and_are_taken_oldest_first() {
        let s = Schedule::new(100.0, 3);
        // Nobody took an event for 10 s: about 1,000 wait.
        let waiting = s.queue_length(Duration::from_secs(10)).unwrap();
        assert!((900..1100).contains(&waiting), "{waiting}");
        let first = s.take(Duration::from_secs(10)).unwrap();
        assert!(
            first < Duration::from_millis(200),
            "the oldest first: {first:?}"
        );
        assert_eq!(
            s.queue_length(Duration::from_secs(10)).unwrap(),
            waiting - 1
        );
        // Once the queue is drained, the next event lies ahead.
        for _ in 1..waiting {
            s.take(Duration::from_secs(10)).unwrap();
        }
        assert!(s.take(Duration::from_secs(10)).unwrap() >= Duration::from_secs(10));
    }

    #[test]
    fn a_queue_past_the_bound_is_said() {
        let s = Schedule::new(1e6, 1);
        assert_eq!(s.queue_length(Duration::from_secs(2)), Err(QueueFull));
    }
}
