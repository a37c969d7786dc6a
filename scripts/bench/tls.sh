#!/usr/bin/env bash
# Benchmark: the client's instructions per transaction over TLS, counted by callgrind (the
# same count however busy the machine is), for two builds of hammer: the working tree and
# an older revision (by default main). For each database (PostgreSQL with pg_sslmode
# require, MariaDB with maria_ssl true) it builds a 1-warehouse schema once, then runs the
# `test` driver (one virtual user, stored procedures, no delay, output suppressed) for N1
# and for N2 transactions under `valgrind --tool=callgrind`, alternating old and new, and
# prints (I(N2) - I(N1)) / (N2 - N1): what one more transaction costs, without the start-up
# and the handshake. Both builds share target/ (hammer alone is compiled twice).
#   scripts/bench/tls.sh [old_revision=main] [n1=500] [n2=2500] [rounds=2]
# Env: ONLY (a regex on the database labels: PostgreSQL, MariaDB).
set -euo pipefail
cd "$(dirname "$0")/../.."
OLD=${1:-main}
N1=${2:-500}
N2=${3:-2500}
ROUNDS=${4:-2}
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
command -v valgrind >/dev/null || { echo "tls.sh needs valgrind (apt-get install valgrind)" >&2; exit 1; }
(( N2 > N1 )) || { echo "n2 ($N2) must be larger than n1 ($N1)" >&2; exit 1; }
scripts/ci/servers.sh status >/dev/null 2>&1 || scripts/ci/servers.sh start
WORK=$(mktemp -d /tmp/hammer-tls-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# The old revision is unpacked in target/tls-bench-old (file times are the commit's, so the
# same revision builds only once) and built with this checkout's target directory: only
# hammer itself is compiled twice. Each binary is copied out as it is built.
echo "building $OLD (release) ..."
OLD_SRC=$PWD/target/tls-bench-old
rm -rf "$OLD_SRC"
mkdir -p "$OLD_SRC"
git archive "$OLD" | tar -x -C "$OLD_SRC"
(cd "$OLD_SRC" && CARGO_TARGET_DIR="$OLDPWD/target" cargo build --release --quiet)
cp target/release/hammer "$WORK/hammer-old"
echo "building the working tree (release) ..."
cargo build --release --quiet
cp target/release/hammer "$WORK/hammer-new"
export HAMMER_HOME=$WORK/home
mkdir -p "$HAMMER_HOME"

setup() { # db
	local db=$1
	cat <<-RHAI
		dbset("db", "$db");
		diset("connection", "${db}_host", "127.0.0.1");
		diset("tpcc", "${db}_dbase", "hammer_bench_tls");
		if "$db" == "pg" {
			diset("connection", "pg_sslmode", "require");
			diset("tpcc", "pg_user", "hammer_bench_tls");
			diset("tpcc", "pg_superuserpass", "postgres");
		} else {
			// Encrypted, the server's certificate not checked (as pg_sslmode require).
			diset("connection", "${db}_ssl", "true");
			diset("connection", "${db}_ssl_ca", "");
			diset("connection", "${db}_ssl_linux_capath", "");
			diset("tpcc", "${db}_pass", "maria");
		}
		diset("tpcc", "${db}_count_ware", 1);
		diset("tpcc", "${db}_num_vu", 1);
	RHAI
}

# Runs `n` transactions under callgrind with binary `bin`; prints the instructions counted.
instructions() { # db bin n
	local db=$1 bin=$2 n=$3
	{
		setup "$db"
		cat <<-RHAI
			diset("tpcc", "${db}_driver", "test");
			diset("tpcc", "${db}_total_iterations", $n);
			vuset("vu", 1);
			vuset("delay", 0);
			vuset("showoutput", false);
			vurun();
			let r = lastrun();
			let done = 0;
			for k in ["new_order", "payment", "delivery", "stock_level", "order_status"] { done += r[k].committed + r[k].rolled_back; }
			print(\`DONE \${done}\`);
			vudestroy();
		RHAI
	} >"$WORK/run.rhai"
	valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" \
		"$bin" auto "$WORK/run.rhai" >"$WORK/run.log" 2>"$WORK/valgrind.log" \
		|| { tail -20 "$WORK/run.log" "$WORK/valgrind.log" >&2; return 1; }
	local done
	done=$(sed -n 's/^DONE //p' "$WORK/run.log")
	[[ $done == "$n" ]] || { echo "asked for $n transactions, $done done" >&2; tail -20 "$WORK/run.log" >&2; return 1; }
	sed -n 's/^summary: //p' "$WORK/callgrind.out"
}

# One database: the schema, then the alternated runs.
bench() { # db label
	local db=$1 label=$2
	[[ $label =~ ${ONLY:-.} ]] || return 0
	echo "$label: building a 1-warehouse schema over TLS ..."
	{ setup "$db"; echo 'try { deleteschema(); } catch {}'; echo 'buildschema();'; } >"$WORK/build.rhai"
	"$WORK/hammer-new" auto "$WORK/build.rhai" >"$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log"; return 1; }
	local round build a b
	for round in $(seq "$ROUNDS"); do
		for build in old new; do
			a=$(instructions "$db" "$WORK/hammer-$build" "$N1")
			b=$(instructions "$db" "$WORK/hammer-$build" "$N2")
			printf '%-10s round %d, %-3s build: %8d instructions per transaction (%d transactions: %d, %d: %d)\n' \
				"$label" "$round" "$build" $(( (b - a) / (N2 - N1) )) "$N1" "$a" "$N2" "$b"
		done
	done
	{ setup "$db"; echo 'deleteschema();'; } >"$WORK/delete.rhai"
	"$WORK/hammer-new" auto "$WORK/delete.rhai" >/dev/null 2>&1 || true
}

echo "hammer TLS benchmark: client instructions per transaction (callgrind), old = $OLD ($(git rev-parse --short "$OLD")), new = working tree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src Cargo.toml || echo ', modified')), $N1 and $N2 transactions, $ROUNDS rounds"
bench pg PostgreSQL
bench maria MariaDB
