//! The metrics agent: samples the CPUs at the interval a display asks for and sends a hello
//! (system discovery) then one JSON line per sample. In-process for `metset agent_hostname
//! localhost`; `hammer agent --port N` serves one display at a time over TCP.
//!
//! Protocol (one JSON object per line): the display sends `{"type":"start","interval_ms":N}`;
//! the agent answers `{"type":"hello",...}` then `{"type":"sample",...}` every interval, or
//! `{"type":"busy",...}` when another display holds the stream.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use super::cpu::{CpuLoad, Sampler, System};
use crate::error::{Error, Result};
use crate::output::Output;

/// One line of the protocol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Message {
    /// Display → agent, first: how often to sample.
    Start { interval_ms: u64 },
    /// Agent → display, once: what it is and what the machine is.
    Hello { agent: String, system: System },
    /// Agent → display: the shares over the last `seconds`, `all` first.
    Sample {
        time_ms: u64,
        seconds: f64,
        cpus: Vec<CpuLoad>,
    },
    /// Agent → display: another display holds the stream.
    Busy { message: String },
}

/// HammerDB's words for a second display.
pub const BUSY: &str = "AGENT BUSY - STREAM IN USE";
/// The sampling interval when a display does not say (mpstat's in HammerDB's agent).
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(2);
const MIN_INTERVAL: Duration = Duration::from_millis(100);
const MAX_INTERVAL: Duration = Duration::from_secs(3600);

impl Message {
    pub fn to_line(&self) -> String {
        // Serializing these plain structs cannot fail.
        let mut s = serde_json::to_string(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// Sends the hello, then a sample every `interval`, until the receiver goes away.
pub async fn stream(interval: Duration, tx: mpsc::Sender<Message>) {
    let mut sampler = Sampler::new();
    let hello = Message::Hello {
        agent: format!("hammer {}", crate::VERSION),
        system: System::discover(sampler.splits()),
    };
    if tx.send(hello).await.is_err() {
        return;
    }
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticks.tick().await;
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = tx.closed() => return,
        }
        let (seconds, cpus) = sampler.sample();
        let sample = Message::Sample {
            time_ms: crate::clock::unix_ms(SystemTime::now()),
            seconds,
            cpus,
        };
        if tx.send(sample).await.is_err() {
            return;
        }
    }
}

/// Listens on `bind:port`, or says why not (a port in use above all).
pub async fn listen(bind: &str, port: u16) -> Result<TcpListener> {
    TcpListener::bind((bind, port)).await.map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::AddrInUse => format!(
                "port {port} is already in use on {bind} (another agent?); choose another with --port"
            ),
            std::io::ErrorKind::PermissionDenied => {
                format!("not allowed to listen on port {port}; choose one above 1023 with --port")
            }
            _ => format!("{e}"),
        };
        Error::AgentListen {
            bind: bind.to_string(),
            port,
            why,
        }
    })
}

/// `hammer agent`: serves displays on `listener` until Ctrl-C (or SIGTERM).
pub async fn serve(listener: TcpListener, out: Output) {
    let addr = listener
        .local_addr()
        .map_or_else(|_| "?".to_string(), |a| a.to_string());
    out.line(format!(
        "Metrics Agent (hammer {}) listening on {addr}; Ctrl-C stops it",
        crate::VERSION
    ));
    let busy = Arc::new(AtomicBool::new(false));
    let mut displays = tokio::task::JoinSet::new();
    let stop = shutdown_signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((socket, peer)) => {
                    displays.spawn(display_session(socket, peer.to_string(), busy.clone(), out.clone()));
                }
                Err(e) => out.error(format!("Metrics Agent: accept failed: {e}")),
            },
            // Reap finished sessions so the set does not grow.
            Some(_) = displays.join_next(), if !displays.is_empty() => {}
            _ = &mut stop => break,
        }
    }
    displays.shutdown().await;
    out.line("Metrics Agent stopped");
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// One display's connection: its start request, then samples until it goes away.
async fn display_session(socket: TcpStream, peer: String, busy: Arc<AtomicBool>, out: Output) {
    let (read, mut write) = socket.into_split();
    if busy.swap(true, Ordering::SeqCst) {
        let refusal = Message::Busy {
            message: BUSY.to_string(),
        };
        let _ = write.write_all(refusal.to_line().as_bytes()).await;
        out.line(format!("Metrics Agent: refused display {peer}: {BUSY}"));
        return;
    }
    let mut lines = BufReader::new(read).lines();
    let first = tokio::time::timeout(Duration::from_secs(10), lines.next_line()).await;
    let interval = match first {
        Ok(Ok(Some(line))) => match serde_json::from_str::<Message>(&line) {
            Ok(Message::Start { interval_ms }) => {
                Duration::from_millis(interval_ms).clamp(MIN_INTERVAL, MAX_INTERVAL)
            }
            _ => {
                out.line(format!(
                    "Metrics Agent: {peer} does not speak hammer's metrics protocol; closed"
                ));
                busy.store(false, Ordering::SeqCst);
                return;
            }
        },
        _ => {
            busy.store(false, Ordering::SeqCst);
            return;
        }
    };
    out.line(format!(
        "Metrics Agent: display {peer} connected, sampling every {:.1} s",
        interval.as_secs_f64()
    ));
    let (tx, mut rx) = mpsc::channel(16);
    let producer = tokio::spawn(stream(interval, tx));
    loop {
        tokio::select! {
            msg = rx.recv() => {
                let Some(msg) = msg else { break };
                if write.write_all(msg.to_line().as_bytes()).await.is_err() {
                    break;
                }
            }
            // The display sends nothing more: a read returning is its going away.
            _ = lines.next_line() => break,
        }
    }
    drop(rx);
    let _ = producer.await;
    busy.store(false, Ordering::SeqCst);
    out.line(format!("Metrics Agent: display {peer} disconnected"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_tagged_json_lines() {
        let m = Message::Start { interval_ms: 500 };
        assert_eq!(m.to_line(), "{\"type\":\"start\",\"interval_ms\":500}\n");
        let back: Message = serde_json::from_str(m.to_line().trim()).unwrap();
        assert_eq!(back, m);
        let busy: Message = serde_json::from_str(r#"{"type":"busy","message":"x"}"#).unwrap();
        assert_eq!(
            busy,
            Message::Busy {
                message: "x".into()
            }
        );
    }
}
