//! Background tasks the session owns (the transaction counter, the CPU metrics): stopped by
//! their owner, waited for with a bound, aborted when they do not end; and [`Pending`], the
//! boxed future a trait's async answers take.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::task::JoinHandle;

/// How long `tcstop` and `metstop` wait for their task before aborting it.
const STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// Waits for a background task that was asked to stop; aborts it after [`STOP_TIMEOUT`].
/// True when it had to be aborted.
pub fn join_or_abort(rt: &tokio::runtime::Handle, mut handle: JoinHandle<()>) -> bool {
    rt.block_on(async {
        match tokio::time::timeout(STOP_TIMEOUT, &mut handle).await {
            Ok(_) => false,
            Err(_) => {
                handle.abort();
                true
            }
        }
    })
}

/// A boxed future: what an engine's async answers are, so that a trait's async answers can be called through `dyn`.
pub type Pending<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
