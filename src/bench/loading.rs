//! What every workload's build shares: loading generated chunks of rows over a connection
//! that may be lost (the chunk is sent again on a new one, with doubling waits), and running
//! the loaders side by side until all have ended or the first has failed.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::{JoinHandle, JoinSet};

use crate::endpoint::Position;
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::output::Output;
use crate::progress::Tracker;
use crate::vu::Say;

/// Reconnection attempts after a lost connection, with doubling waits from one second.
const RETRIES: u32 = 6;

/// A workload's loading sessions on one database: open one, load a chunk (one atomic
/// statement: COPY, LOAD DATA), close it.
pub trait Sessions: Send + Sync + 'static {
    type Table: Copy + Send + 'static;
    type Session: Send + 'static;

    /// The table's name, for messages.
    fn table_name(table: Self::Table) -> &'static str;

    /// Opens the session of the loader at `at`.
    fn open(&self, at: Position) -> impl Future<Output = Result<Self::Session>> + Send;

    /// Appends `rows` to `table`; committed when it returns.
    fn load<'a>(
        session: &'a mut Self::Session,
        table: Self::Table,
        rows: &'a [u8],
    ) -> impl Future<Output = Result<()>> + Send + 'a;

    fn close(session: Self::Session) -> impl Future<Output = ()> + Send;
}

/// One piece of a generator's output: a message to say when loading reaches it, or rows.
pub enum Piece<T> {
    Say(String),
    Rows(T, Vec<u8>, u64),
}

/// Loads what one generator produces over one session (the loader at `at`'s), retrying a
/// chunk after a lost connection. The generator runs on a blocking thread, two chunks
/// ahead, and stops when its `emit` returns false (loading ended or failed).
pub async fn load_stream<S: Sessions>(
    (db, at): (Arc<S>, Position),
    say: Say,
    (progress, part): (Arc<Tracker>, usize),
    stop: Interrupt,
    generate: impl FnOnce(&mut dyn FnMut(Piece<S::Table>) -> bool) -> bool + Send + 'static,
) -> Result<()> {
    let (tx, mut rx) = mpsc::channel::<Piece<S::Table>>(2);
    let producer = tokio::task::spawn_blocking(move || {
        let mut emit = |p: Piece<S::Table>| tx.blocking_send(p).is_ok();
        generate(&mut emit)
    });
    let mut session: Option<S::Session> = None;
    let mut result = Ok(());
    while let Some(piece) = rx.recv().await {
        if stop.is_set() {
            result = Err(Error::Interrupted);
            break;
        }
        match piece {
            Piece::Say(text) => say.line(text),
            Piece::Rows(table, rows, n) => {
                if let Err(e) =
                    load_with_retry((&*db, at), &mut session, table, &rows, &say, &stop).await
                {
                    result = Err(e);
                    break;
                }
                progress.add(part, n);
            }
        }
    }
    // Dropping the receiver makes the generator's next send fail, so it stops.
    drop(rx);
    if matches!(producer.await, Ok(true)) && result.is_ok() {
        progress.finish(part);
    }
    if let Some(s) = session {
        S::close(s).await;
    }
    result
}

async fn load_with_retry<S: Sessions>(
    (db, at): (&S, Position),
    session: &mut Option<S::Session>,
    table: S::Table,
    rows: &[u8],
    say: &Say,
    stop: &Interrupt,
) -> Result<()> {
    let mut attempt = 0;
    loop {
        let outcome = match session {
            Some(s) => S::load(s, table, rows).await,
            None => match db.open(at).await {
                Ok(s) => {
                    *session = Some(s);
                    continue;
                }
                Err(e) => Err(e),
            },
        };
        match outcome {
            Ok(()) => return Ok(()),
            // A chunk is one transaction: a lost connection, or a deadlock the server rolled
            // back (InnoDB's between loaders of one table), leaves none of it; it is loaded
            // again, on a new connection.
            Err(e) if (e.is_connection_loss() || is_retry(&e)) && attempt < RETRIES => {
                attempt += 1;
                let wait = Duration::from_secs(1 << (attempt - 1));
                say.line(format!(
                    "{e}; loading {} again on a new connection in {} s (attempt {attempt} of {RETRIES})",
                    S::table_name(table),
                    wait.as_secs()
                ));
                if let Some(s) = session.take() {
                    S::close(s).await;
                }
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = stop.wait() => return Err(Error::Interrupted),
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// A deadlock or serialization failure: the server rolled the transaction back.
fn is_retry(e: &Error) -> bool {
    matches!(e, Error::Db(d) if d.kind == crate::fault::Failure::Retry)
}

/// A stop flag of the build's own, fired by Ctrl-C: loaders stop on it when one of them
/// fails too, which must not look like a Ctrl-C to the rest of the session. Abort the
/// returned task once the loaders have ended.
pub fn build_stop(interrupt: Interrupt) -> (Interrupt, JoinHandle<()>) {
    let stop = Interrupt::default();
    let forward = {
        let stop = stop.clone();
        tokio::spawn(async move {
            interrupt.wait().await;
            stop.fire();
        })
    };
    (stop, forward)
}

/// Awaits every loader; the first failure fires `stop` (the others end between chunks) and
/// is returned.
pub async fn join_loaders(mut tasks: JoinSet<Result<()>>, stop: &Interrupt) -> Option<Error> {
    let mut failure: Option<Error> = None;
    while let Some(joined) = tasks.join_next().await {
        let outcome = joined.unwrap_or_else(|why| {
            Err(Error::TaskFailed {
                task: "a loader",
                why,
            })
        });
        if let Err(e) = outcome {
            if failure.is_none() {
                stop.fire();
                failure = Some(e);
            }
        }
    }
    failure
}

/// Runs a build's last phase (keys, indexes, procedures, statistics) to its end even when
/// Ctrl-C comes during it, or came as the last rows loaded: stopped there, the database would
/// hold all the data and no usable schema. Says at the Ctrl-C that it goes on, and at the end
/// that the schema is whole, so that the job and the script can say the build completed.
pub async fn finish_whole<T>(
    finish: impl Future<Output = Result<T>>,
    interrupt: &Interrupt,
    say: &Say,
) -> Result<T> {
    tokio::pin!(finish);
    tokio::select! {
        biased;
        r = &mut finish => r,
        _ = interrupt.wait() => {
            say.line(
                "Ctrl-C: the data is loaded; the keys, indexes and procedures are made before \
                 the build stops, so that the schema is whole (Ctrl-C again exits at once and \
                 leaves it incomplete)",
            );
            let r = finish.await;
            if r.is_ok() {
                say.line("The schema is complete: Ctrl-C came after its data was loaded");
            }
            r
        }
    }
}

/// HammerDB's last lines of a build with `loaders` workers (a monitor besides them when
/// more than one): each virtual user's end, then `ALL VIRTUAL USERS COMPLETE`; or, when the
/// build failed, virtual user 1's failure, or its stop when Ctrl-C stopped it. Passes the
/// outcome through.
pub fn say_build_end<T>(out: &Output, loaders: u32, outcome: Result<T>) -> Result<T> {
    if let Err(e) = &outcome {
        let stopped = match e {
            Error::BuildStopped { why, .. } | Error::SplitStopped { why, .. } => {
                matches!(**why, Error::Interrupted)
            }
            e => matches!(e, Error::Interrupted),
        };
        out.line(if stopped {
            "Vuser 1:FINISHED STOPPED"
        } else {
            "Vuser 1:FINISHED FAILED"
        });
        return outcome;
    }
    let vusers = if loaders <= 1 { 1 } else { loaders + 1 };
    for n in 1..=vusers {
        out.line(format!("Vuser {n}:FINISHED SUCCESS"));
    }
    out.line("ALL VIRTUAL USERS COMPLETE");
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_ends_in_hammerdbs_words() {
        let out = Output::capture();
        assert_eq!(say_build_end(&out, 2, Ok(7)).ok(), Some(7));
        assert_eq!(
            out.take_captured(),
            [
                "Vuser 1:FINISHED SUCCESS",
                "Vuser 2:FINISHED SUCCESS",
                "Vuser 3:FINISHED SUCCESS",
                "ALL VIRTUAL USERS COMPLETE"
            ]
        );
        assert!(say_build_end::<()>(&out, 1, Err(Error::Interrupted)).is_err());
        assert_eq!(out.take_captured(), ["Vuser 1:FINISHED STOPPED"]);
        let stopped = Error::BuildStopped {
            loaded: 1,
            expected: 2,
            why: Box::new(Error::Interrupted),
            db: "PostgreSQL",
        };
        assert!(say_build_end::<()>(&out, 2, Err(stopped)).is_err());
        assert_eq!(out.take_captured(), ["Vuser 1:FINISHED STOPPED"]);
        assert!(say_build_end::<()>(&out, 1, Err(Error::NoMonitor)).is_err());
        assert_eq!(out.take_captured(), ["Vuser 1:FINISHED FAILED"]);
    }

    /// Sessions whose loads fail with the kinds given, in turn, then succeed; counts the
    /// sessions opened and the chunks loaded.
    #[derive(Default)]
    struct Flaky {
        failures: std::sync::Mutex<Vec<crate::fault::Failure>>,
        opened: std::sync::atomic::AtomicU32,
        loaded: std::sync::atomic::AtomicU32,
    }

    impl Flaky {
        async fn load(s: &mut Arc<Flaky>) -> Result<()> {
            let next = s.failures.lock().unwrap().pop();
            match next {
                Some(kind) => {
                    let peer = crate::fault::Peer {
                        db: crate::config::Database::Maria,
                        addr: "h:1".into(),
                        user: "u".into(),
                    };
                    Err(Error::Db(peer.failed("cannot load rows into", kind, "x")))
                }
                None => {
                    s.loaded.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    Ok(())
                }
            }
        }
    }

    /// Opens the one flaky session again, as a new connection would be.
    struct Reopen(Arc<Flaky>);

    impl Sessions for Reopen {
        type Table = ();
        type Session = Arc<Flaky>;
        fn table_name(_: ()) -> &'static str {
            "supplier"
        }
        async fn open(&self, _: Position) -> Result<Arc<Flaky>> {
            self.0
                .opened
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(self.0.clone())
        }
        async fn load(s: &mut Arc<Flaky>, _: (), _: &[u8]) -> Result<()> {
            Flaky::load(s).await
        }
        async fn close(_: Arc<Flaky>) {}
    }

    #[test]
    fn a_deadlocked_chunk_is_loaded_again_and_other_errors_are_not() {
        use crate::fault::Failure;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let out = Output::capture();
        let say = Say::new(out.clone(), 2);
        let stop = Interrupt::default();
        // A deadlock the server rolled back: the chunk goes again on a new session.
        let flaky = Arc::new(Flaky {
            failures: std::sync::Mutex::new(vec![Failure::Retry]),
            ..Default::default()
        });
        let mut session = Some(flaky.clone());
        let reopen = Reopen(flaky.clone());
        let mut load = || {
            rt.block_on(load_with_retry(
                (&reopen, Position::Loader { n: 1, of: 1 }),
                &mut session,
                (),
                b"1\n",
                &say,
                &stop,
            ))
        };
        let r = load();
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(flaky.loaded.load(std::sync::atomic::Ordering::Relaxed), 1);
        assert_eq!(flaky.opened.load(std::sync::atomic::Ordering::Relaxed), 1);
        let said = out.take_captured().join("\n");
        assert!(
            said.contains("deadlock or serialization failure")
                && said
                    .contains("loading supplier again on a new connection in 1 s (attempt 1 of 6)"),
            "{said}"
        );
        // Any other failure is the build's end.
        flaky.failures.lock().unwrap().push(Failure::Other);
        let r = load();
        assert!(r.is_err());
        assert_eq!(flaky.loaded.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}
