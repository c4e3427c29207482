#!/bin/sh
# Runs every test: the C unit tests (cmocka) and the BATS suites, each as TAP,
# and ends with one line "N passed, N failed".  Exit 0 only if nothing failed.
set -u
BUILD=${BUILD:-build}
export BUILD
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

passed=0
failed=0
skipped=0
log=$(mktemp)
raw=$(mktemp)
trap 'rm -f "$log" "$raw"' EXIT

# cmocka (1.1) marks a skipped test "not ok N # SKIP name", after the reason the test printed
# ("# skip ..."): made "ok N # skip name: reason", as TAP means it.
tap_skips() {
	awk '/^# skip / { reason = substr($0, 8); print; next }
	     /^not ok [0-9]+ # SKIP/ { sub(/^not ok/, "ok"); sub(/# SKIP/, "# skip");
				      if (reason != "") $0 = $0 ": " reason; reason = ""; print; next }
	     { print }'
}

# run_tap NAME COMMAND...: runs a TAP producer and adds its "ok"/"not ok" lines to the totals
# ("ok ... # skip ..." to the skipped); one that fails before any "not ok" counts as one failure.
run_tap() {
	name=$1
	shift
	"$@" >"$raw" 2>&1
	rc=$?
	tap_skips <"$raw" >"$log"
	cat "$log"
	s=$(grep -ciE '^ok [0-9]+.*# skip' "$log")
	skipped=$((skipped + s))
	passed=$((passed + $(grep -c '^ok ' "$log") - s))
	failed=$((failed + $(grep -c '^not ok ' "$log")))
	if [ $rc -ne 0 ] && ! grep -q '^not ok ' "$log"; then
		echo "not ok - $name exited with status $rc"
		failed=$((failed + 1))
	fi
}

export CMOCKA_MESSAGE_OUTPUT=TAP
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	echo "# unit: ${t##*/}"
	run_tap "${t##*/}" "$t"
done

# The offload engine's known answers again at every other guard kernel level this CPU runs
# (the one in effect ran above): each level must give the same bytes (docs/offload.md).  A
# level it cannot run, or whose start-up self-test failed, is a skip with its reason
# ("not run: CPU lacks avx512f"), never a silent one.
levels=$("$BUILD"/rdmactl offload levels)
while read -r level result; do
	case $result in
	*" *") continue ;;
	passed) ;;
	*)
		echo "ok 1 # skip test_dp_sig, test_dp_kern, offload.bats at $level: $result"
		skipped=$((skipped + 1))
		continue
		;;
	esac
	echo "# kernel level $level: test_dp_sig, test_dp_kern, offload.bats"
	run_tap "test_dp_sig at $level" env RDMAD_OFFLOAD_LEVEL="$level" "$BUILD"/tests/test_dp_sig
	run_tap "test_dp_kern at $level" env RDMAD_OFFLOAD_LEVEL="$level" "$BUILD"/tests/test_dp_kern
	run_tap "offload.bats at $level" env RDMAD_OFFLOAD_LEVEL="$level" bats -F tap tests/bats/offload.bats
done <<EOF
$levels
EOF

# Every input the fuzzers kept must still go through cleanly (under ASan too).
n=0
for f in "$BUILD"/fuzz/fuzz_*; do
	[ -x "$f" ] || continue
	n=$((n + 1))
	name=${f##*/}
	if out=$("$f" "tests/fuzz/corpus/$name" 2>&1); then
		echo "ok $n - fuzz corpus $name: $out"
		passed=$((passed + 1))
	else
		echo "$out"
		echo "not ok $n - fuzz corpus $name"
		failed=$((failed + 1))
	fi
done

# The BATS files side by side (one job more than CPUs: most of a test's time is
# waiting on rdmad), each file's tests in order; then, one at a time, the files
# that say they must run alone (they make network namespaces or users, or
# measure time).  Without GNU parallel, every file runs in turn.
alone=$(grep -l '^# make check runs this file alone' tests/bats/*.bats)
beside=$(grep -L '^# make check runs this file alone' tests/bats/*.bats)
if command -v parallel >/dev/null 2>&1; then
	jobs=$(($(nproc) + 1))
	echo "# bats: tests/bats, $jobs files at a time"
	run_tap "bats side by side" bats -F tap --timing --jobs "$jobs" --no-parallelize-within-files $beside
else
	echo "# bats: tests/bats (no GNU parallel: one file at a time)"
	run_tap "bats" bats -F tap --timing $beside
fi
echo "# bats: tests/bats, the files that run alone"
run_tap "bats alone" bats -F tap --timing $alone

echo "# $skipped skipped, each with its reason above"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
