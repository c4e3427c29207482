#!/bin/sh
# Runs every benchmark binary in $BUILD/bench (make bench; bench_scale is the scale
# section: memory per object, create/destroy rates, a 65,536-MKEY pool, restart, lists
# of 65,536 QPs), then the network benches
# (vnic-net.sh: ping and TCP over a VNIC beside a veth; it skips itself without root).
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
echo "# bench: vnic-net.sh"
BUILD=$BUILD sh tests/bench/vnic-net.sh || rc=1
exit $rc
