#!/usr/bin/env bats
# make check runs this file alone: it measures time, memory or CPU placement, which other tests beside it would disturb.
# rdmad_perftest as its page shows it (issue #31, item 2): pinned to one CPU it
# ends as fast as unpinned, rows come as their tests end, the bytes it counts
# are checked, and a DEK that is not there is an error, not a SIGPIPE.

load helper

PERFTEST="$BUILD/examples/rdmad_perftest"

setup_file() { rdmad_start; }
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
}

@test "-c 0: both processes on one CPU take turns; 1000 round trips end in seconds, not minutes" {
	# Before, each round trip waited for a time slice (about 8 ms here): 1000 took 15 s.
	run timeout 10 "$PERFTEST" -t send,lat -z 64 -n 1000 -c 0
	assert_success
	assert_line --index 1 --regexp '^send +64 +1000 '
	assert_line --index 2 --regexp '^lat +64 +1000 '
}

@test "a table row is printed as its test ends, before the next test runs" {
	# The first row is out while the long second size (20 GiB) still runs.
	"$PERFTEST" -t write -z 64,1048576 -n 20000 >rows &
	pid=$!
	for i in $(seq 1 200); do
		[ "$(wc -l <rows)" -ge 2 ] && break
		sleep 0.1
	done
	kill "$pid"
	wait "$pid" || true
	run cat rows
	assert_line --index 0 --regexp '^test +bytes'
	assert_line --index 1 --regexp '^write +64 +20000 '
	refute_line --regexp '^write +1048576'
}

@test "the bytes counted are moved: the device's byte counters grow by iters x size" {
	bytes() { "$RDMACTL" -j dev show soft0 | jq -r ".[0].datapath.$1"; }
	sent=$(bytes bytes_sent)
	read=$(bytes bytes_read)
	run "$PERFTEST" -j -t write,read -z 65536 -n 100
	assert_success
	assert_equal "$(bytes bytes_sent)" $((sent + 100 * 65536))
	assert_equal "$(bytes bytes_read)" $((read + 100 * 65536))
}

@test "a DEK that is not there: one clear error naming -k, exit 1, with -j too" {
	for j in "" -j; do
		run --separate-stderr "$PERFTEST" $j -t write -z 4096 -n 10 -m crypto -k nosuchdek
		assert_failure 1
		assert_output ''
		assert_equal "$stderr" "rdmad_perftest: -k nosuchdek: No such file or directory (io.rdmad.Dek.Show: io.rdmad.Dek.NoSuchDek {\"name\":\"nosuchdek\"})"
	done
}
