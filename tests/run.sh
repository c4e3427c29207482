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
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# count FILE: adds its "ok"/"not ok" TAP lines to the totals.
count() {
	p=$(grep -c '^ok ' "$1")
	f=$(grep -c '^not ok ' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	echo "# unit: ${t##*/}"
	CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	count "$log"
	# A crash before any "not ok" still is a failure.
	if [ $rc -ne 0 ] && ! grep -q '^not ok ' "$log"; then
		echo "not ok - ${t##*/} exited with status $rc"
		failed=$((failed + 1))
	fi
done

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

echo "# bats: tests/bats"
bats -F tap --timing tests/bats >"$log" 2>&1
rc=$?
cat "$log"
count "$log"
if [ $rc -ne 0 ] && ! grep -q '^not ok ' "$log"; then
	echo "not ok - bats exited with status $rc"
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
