#!/usr/bin/env bash
# Benchmark: what a client pays the kernel to wait for its replies, with no database in the
# way. A child process answers each request after burning some server CPU; the client waits
# the two ways hammer's virtual users can: a thread per connection sleeping in recv (one
# terminal per virtual user) or tasks on tokio's runtime (*_async_scale terminals). Prints
# the client's CPU per round trip for each.
#   scripts/bench/pingpong.sh [work_us=300] [trips=40000]
# Env: PINGPONG_SERVER=sleep (the server sleeps its work, as a durable server waits for its
#      log flush, instead of burning CPU).
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK_US=${1:-300}
TRIPS=${2:-40000}
if ! command -v cargo >/dev/null && [[ -x $HOME/.cargo/bin/cargo ]]; then PATH=$HOME/.cargo/bin:$PATH; fi
cargo build --release --quiet --example pingpong
for conns in 2 4 8; do
	for mode in blocking tokio; do
		target/release/examples/pingpong "$mode" "$conns" "$WORK_US" "$TRIPS"
	done
done
