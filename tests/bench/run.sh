#!/bin/sh
# Runs every benchmark binary in $BUILD/bench (make bench).
set -u
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
rc=0
for b in "$BUILD"/bench/*; do
	[ -x "$b" ] || continue
	echo "# bench: ${b##*/}"
	"$b" || rc=1
done
exit $rc
