#!/usr/bin/env bash
# Sums a `cargo test` log into one line: tests passed, failed and ignored over every test
# binary's `test result:` line, the binaries that ended without one, and the wall time.
#   scripts/ci/sum-tests.sh SECONDS < cargo-test.log
# prints e.g. "1012 passed, 1 failed, 9 ignored, 1 test binary ended without a result in 14 min 3 s".
# Used by scripts/test.sh; tests/docs.rs feeds it a sample log.
set -euo pipefail

secs=${1:-}
if [[ ! $secs =~ ^[0-9]+$ ]]; then
	echo "sum-tests.sh: the wall time must be a whole number of seconds (got '$secs'); usage: $0 SECONDS < log" >&2
	exit 2
fi

# Colours (cargo's, when test.sh runs on a terminal) would hide the line starts matched below.
sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | awk -v secs="$secs" '
	# Each test binary cargo starts is announced by "Running" (or "Doc-tests" for doctests) and,
	# unless it crashed, ends with one "test result:" line.
	/^ +(Running|Doc-tests) / { started++ }
	/^test result: / {
		results++
		for (i = 4; i <= NF; i++) {
			if ($i ~ /^passed;?$/) passed += $(i - 1)
			else if ($i ~ /^failed;?$/) failed += $(i - 1)
			else if ($i ~ /^ignored;?$/) ignored += $(i - 1)
		}
	}
	END {
		line = sprintf("%d passed, %d failed, %d ignored", passed, failed, ignored)
		if (results == 0) line = line " (no test ran)"
		missing = started - results
		if (missing == 1) line = line ", 1 test binary ended without a result"
		else if (missing > 1) line = line ", " missing " test binaries ended without a result"
		h = int(secs / 3600); m = int((secs % 3600) / 60); s = secs % 60
		if (h > 0) t = sprintf("%d h %d min %d s", h, m, s)
		else if (m > 0) t = sprintf("%d min %d s", m, s)
		else t = sprintf("%d s", s)
		print line " in " t
	}
'
