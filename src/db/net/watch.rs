//! The reply watch: a blocking unix socket waits for its reply in `poll` with no timeout, and
//! one thread of the process ends the waits that pass their deadline by shutting their sockets
//! down, as the kill switch does.
//!
//! A `poll` with a timeout arms a high-resolution timer for every wait and cancels it at the
//! reply: on a virtual machine that is kernel time on every round trip, which a client that
//! sends tens of thousands of statements a second pays in full. A look every [`TICK`] bounds
//! the same waits for the cost of ten wake-ups a second in all. (Blocking TCP sockets wait in
//! `recv` under `SO_RCVTIMEO`, the kernel's coarse timer, and need no watch.)

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// What the watch shuts down when a wait passes its deadline (a socket's duplicate).
pub(crate) trait Cut: Send + Sync {
    fn cut(&self);
}

/// How often the watch looks: a reply's deadline holds to within this.
const TICK: Duration = Duration::from_millis(100);

/// One socket under the watch.
pub(crate) struct Watched {
    /// When the wait under way is overdue, in microseconds after the watch's epoch plus one;
    /// 0 when the socket waits for nothing. Whoever sets it back to 0 first (the waiter, or
    /// the watch at the deadline) decides how the wait ended.
    until: AtomicU64,
    plug: Weak<dyn Cut>,
}

struct Watch {
    epoch: Instant,
    watched: Mutex<Vec<Weak<Watched>>>,
}

/// The process's watch, started on first use; `None` when its thread could not start.
fn watch() -> Option<&'static Watch> {
    static WATCH: OnceLock<Option<&'static Watch>> = OnceLock::new();
    *WATCH.get_or_init(|| {
        let watch: &'static Watch = Box::leak(Box::new(Watch {
            epoch: Instant::now(),
            watched: Mutex::new(Vec::new()),
        }));
        std::thread::Builder::new()
            .name("hammer-reply-watch".into())
            .spawn(move || loop {
                std::thread::sleep(TICK);
                watch.look();
            })
            .ok()
            .map(|_| watch)
    })
}

impl Watch {
    fn micros(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.epoch).as_micros() as u64 + 1
    }

    /// Ends every wait past its deadline, and forgets the sockets that are gone.
    fn look(&self) {
        let now = self.micros(Instant::now());
        let mut watched = self.watched.lock().unwrap_or_else(|e| e.into_inner());
        watched.retain(|w| {
            let Some(w) = w.upgrade() else {
                return false;
            };
            let until = w.until.load(Ordering::Acquire);
            if until != 0
                && now >= until
                && w.until
                    .compare_exchange(until, 0, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
            {
                if let Some(plug) = w.plug.upgrade() {
                    plug.cut();
                }
            }
            true
        });
    }
}

impl Watched {
    /// Puts the socket that `plug` shuts down under the watch; `None` when the watch could not
    /// start (the socket then bounds its waits itself).
    pub(crate) fn new<P: Cut + 'static>(plug: &Arc<P>) -> Option<Arc<Watched>> {
        let watch = watch()?;
        let plug: Arc<dyn Cut> = plug.clone();
        let w = Arc::new(Watched {
            until: AtomicU64::new(0),
            plug: Arc::downgrade(&plug),
        });
        watch
            .watched
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::downgrade(&w));
        Some(w)
    }

    /// A wait begins that is overdue at `deadline`.
    pub(crate) fn begin(&self, deadline: Instant) {
        if let Some(watch) = watch() {
            self.until.store(watch.micros(deadline), Ordering::Release);
        }
    }

    /// The wait ended; whether the watch ended it at its deadline (the socket is shut down).
    pub(crate) fn end(&self) -> bool {
        self.until.swap(0, Ordering::AcqRel) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Plug(std::os::unix::net::UnixStream);

    impl Cut for Plug {
        fn cut(&self) {
            let _ = self.0.shutdown(std::net::Shutdown::Both);
        }
    }

    fn pair() -> (Arc<Plug>, std::os::unix::net::UnixStream) {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        (Arc::new(Plug(a)), b)
    }

    #[test]
    fn a_wait_past_its_deadline_is_ended_and_said_so() {
        let (plug, _peer) = pair();
        let w = Watched::new(&plug).expect("the watch starts");
        w.begin(Instant::now() + Duration::from_millis(50));
        let started = Instant::now();
        // The watch shuts the socket down: a read on it then ends at once.
        let mut buf = [0u8; 1];
        let s = &plug.0;
        let got = std::io::Read::read(&mut &*s, &mut buf).unwrap();
        assert_eq!(got, 0, "the shut-down socket reads as closed");
        assert!(w.end(), "the watch ended the wait");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_wait_that_ends_in_time_is_not_touched() {
        let (plug, mut peer) = pair();
        let w = Watched::new(&plug).unwrap();
        w.begin(Instant::now() + Duration::from_secs(30));
        std::io::Write::write_all(&mut peer, b"x").unwrap();
        assert!(!w.end(), "the waiter ended its own wait");
        // Past a look or two, the socket is still open.
        std::thread::sleep(TICK * 3);
        let s = &plug.0;
        let mut buf = [0u8; 1];
        assert_eq!(std::io::Read::read(&mut &*s, &mut buf).unwrap(), 1);
    }
}
