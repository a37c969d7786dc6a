//! The `hammer` binary: parses the command line, builds the runtime, and hands over to the shell.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clap::{Parser, Subcommand};
use hammer::output::Output;
use hammer::script::ScriptEngine;
use hammer::session::Session;

/// A database benchmarking shell: HammerDB's commands and numbers, in Rust, scripted in Rhai.
#[derive(Parser)]
#[command(name = "hammer", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Mode>,
}

#[derive(Subcommand)]
enum Mode {
    /// Run a Rhai script non-interactively; its arguments reach it as the array ARGS. A .tcl
    /// or .py script (HammerDB's CLI languages) is translated to Rhai first.
    Auto {
        /// The script, e.g. scripts/pg/tprocc/pg_tprocc_build.rhai or pg_tprocc_run.tcl
        file: PathBuf,
        /// Arguments for the script.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Print a HammerDB Tcl (.tcl) or Python (.py) script as Rhai, to keep; `hammer auto`
    /// runs such scripts as they are.
    Convert {
        /// The script, e.g. pg_tprocc_run.tcl
        file: PathBuf,
    },
    /// Run the CPU metrics agent for `metstart` on other machines (metset agent_hostname and
    /// agent_id name this host and port); Ctrl-C stops it.
    Agent {
        /// The TCP port (HammerDB's agent_id).
        #[arg(long, default_value_t = 10000)]
        port: u16,
        /// The address to listen on: every interface by default, 127.0.0.1 for this host only.
        #[arg(long, default_value = "0.0.0.0")]
        bind: String,
    },
    /// Read the job history without the console: `hammer jobs`, `hammer jobs --json ID result`,
    /// `hammer jobs diff ID1 ID2` (the console's jobs command; `help jobs` there says more).
    Jobs {
        /// Print JSON, whatever `jobs format` says.
        #[arg(long, conflicts_with = "text")]
        json: bool,
        /// Print text, whatever `jobs format` says.
        #[arg(long)]
        text: bool,
        /// list | format [text|json] | diff ID1 ID2 | run [NAME] | ID [status|result|timing|...]
        args: Vec<String>,
    },
}

/// Where settings and history live: `$HAMMER_HOME`, else the user's data directory.
fn data_dir(out: &Output) -> Option<PathBuf> {
    let dir = match std::env::var_os("HAMMER_HOME") {
        Some(h) if !h.is_empty() => PathBuf::from(h),
        _ => dirs::data_dir()?.join("hammer"),
    };
    match std::fs::create_dir_all(&dir) {
        Ok(()) => Some(dir),
        Err(e) => {
            out.error(format!(
                "Warning: cannot create data directory {} ({e}); settings will not be kept",
                dir.display()
            ));
            None
        }
    }
}

fn main() -> anyhow::Result<()> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help and --version print to stdout and succeed; a usage error exits 2, the
        // status README lists for it.
        Err(e) => {
            let _ = e.print();
            std::process::exit(if e.use_stderr() {
                hammer::shell::EXIT_USAGE
            } else {
                hammer::shell::EXIT_SUCCESS
            });
        }
    };
    // Each virtual user with a thread of its own holds a few descriptors (its runtime's and
    // its connection's), and async terminals one connection each: the soft limit (often
    // 1,024) is raised to the hard one, as a server would. If that fails, the old limit stays.
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let out = Output::stdout();
    if let Some(Mode::Convert { file }) = &cli.command {
        std::process::exit(hammer::shell::convert(file, &out));
    }
    if let Some(Mode::Agent { port, bind }) = &cli.command {
        let code = runtime.block_on(async {
            match hammer::metrics::agent::listen(bind, *port).await {
                Ok(listener) => {
                    hammer::metrics::agent::serve(listener, out.clone()).await;
                    0
                }
                Err(e) => {
                    out.error(e.to_string());
                    1
                }
            }
        });
        drop(runtime);
        std::process::exit(code);
    }
    let home = data_dir(&out);
    let session = Session::new(runtime.handle().clone(), out, home);
    let listener = session.interrupt.clone().listen(runtime.handle())?;
    let session = Arc::new(Mutex::new(session));
    let mut engine = ScriptEngine::new(session);
    let code = match cli.command {
        Some(Mode::Auto { file, args }) => hammer::shell::auto(&mut engine, &file, &args),
        Some(Mode::Jobs { json, text, args }) => {
            let mut session = engine.session();
            session.jobs.format_override = match (json, text) {
                (true, _) => Some(hammer::jobs::Format::Json),
                (_, true) => Some(hammer::jobs::Format::Text),
                _ => None,
            };
            match session.run("jobs", &args) {
                Ok(_) => 0,
                Err(e) => {
                    session.out.error(e.to_string());
                    1
                }
            }
        }
        _ => hammer::shell::console(&mut engine),
    };
    // The counter and metrics stop with the session, reporting as tcstop and metstop do.
    engine.session().shutdown();
    listener.abort();
    drop(runtime);
    std::process::exit(code);
}
