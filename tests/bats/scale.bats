#!/usr/bin/env bats
# make check runs this file alone: it measures time, memory or CPU placement, which other tests beside it would disturb.
# At a storage target's scale (issue 32), against a real rdmad: caps lowered
# by rdmad.conf(5) and the per-uid limits inside them, creating up to a cap
# (lowered, and soft0's real MKEY cap) with one more refused naming the cap,
# rdmad's memory back once everything is destroyed, MRs on one buffer that
# share rdmad's one mapping of it (no descriptor or mapping each), lists
# longer than a page, and a pool of 65,536 MKEYs with hundreds of DEKs across
# kill -9.

load helper

SCALE="$BUILD/tools/rdmad-scale"

setup_file() {
	rdmad_start
	"$RDMACTL" pd create >/dev/null
}
teardown_file() { rdmad_stop; }
setup() { load_libs; }
teardown() {
	# A program left holding objects by a failed test.
	[ -z "${scale_pid:-}" ] || kill "$scale_pid" 2>/dev/null || true
}

# A sanitizer's allocator keeps freed memory (quarantine) and runs slower:
# memory and time are not measured under one (make check SANITIZE=1, =thread).
sanitized() {
	ldd "$RDMAD" | grep -Eq 'lib(asan|tsan)'
}

# rss_kb DIR: the resident memory of the rdmad of DIR, in KiB.
rss_kb() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$(cat "$1/rdmad.pid")/status"
}

# scale_hold DIR KIND N: rdmad-scale makes N objects of KIND against DIR's rdmad and holds
# them (its output in DIR/scale.out) until scale_release.
scale_hold() {
	mkfifo "$1/hold"
	RDMACTL_SOCKET="$1/io.rdmad" "$SCALE" "$2" "$3" hold <"$1/hold" >"$1/scale.out" 2>&1 3>&- &
	scale_pid=$!
	exec 4>"$1/hold"
	for _ in $(seq 1 600); do
		grep -qx ready "$1/scale.out" && break
		sleep 0.05
	done
}

scale_release() {
	exec 4>&-
	wait "$scale_pid"
	scale_pid=
}

# start_refused CONF_LINES...: rdmad with that rdmad.conf does not start; its output in $output.
start_refused() {
	local dir=$BATS_TEST_TMPDIR/refused
	mkdir -p "$dir"
	printf '%s\n' "$@" >"$dir/rdmad.conf"
	run timeout 10 "$RDMAD" --foreground --socket "$dir/io.rdmad" --state-dir "$dir/state" \
		--config "$dir/rdmad.conf"
	assert_failure 1
	[ ! -S "$dir/io.rdmad" ]
}

@test "rdmad.conf: a cap above soft0's own stops rdmad, naming both" {
	start_refused "max_qps = 70000"
	assert_output --partial "max_qps (70000) is above soft0's cap of qps (65536)"
	start_refused "max_mkeys = 65537"
	assert_output --partial "max_mkeys (65537) is above soft0's cap of mkeys (65536)"
	start_refused "max_ahs = 0"
	assert_output --partial "max_ahs: '0' is not a number in 1-16777216"
}

@test "rdmad.conf: a per-uid limit set above a cap is refused naming both; one left at its default comes down" {
	start_refused "max_qps = 100" "max_qps_per_uid = 200"
	assert_output --partial "max_qps_per_uid (200) is above max_qps (100)"
	start_refused "max_mrs_per_uid = 300000"
	assert_output --partial "max_mrs_per_uid (300000) is above soft0's cap of mrs (262144)"
	# max_qps_per_uid's default (256) above max_qps: it follows the cap down, rdmad starts.
	dir=$BATS_TEST_TMPDIR/d
	mkdir -p "$dir"
	echo "max_qps = 100" >"$dir/rdmad.conf"
	rdmad_start "$dir"
	run "$RDMACTL" -s "$dir/io.rdmad" -j dev show soft0
	assert_output --partial '"max_qp":100,'
	# A reload to a per-uid limit above the device's cap is refused, naming both; nothing changes.
	echo "max_ahs_per_uid = 20000" >"$dir/rdmad.conf"
	run "$RDMACTL" -s "$dir/io.rdmad" daemon reload
	assert_failure
	assert_output --partial "io.rdmad.Daemon.ReloadFailed"
	assert_output --partial "max_ahs_per_uid (20000) is above soft0's cap of ahs (16384)"
	# A new cap waits for the next start: the device keeps the one it has.
	echo "max_qps = 50" >"$dir/rdmad.conf"
	"$RDMACTL" -s "$dir/io.rdmad" daemon reload
	run "$RDMACTL" -s "$dir/io.rdmad" -j dev show soft0
	assert_output --partial '"max_qp":100,'
	grep -q "take effect when rdmad restarts" "$dir/rdmad.log"
	rdmad_stop "$dir"
}

@test "QPs up to max_qps (2000) through librdmad, the next refused naming the cap; destroyed, rdmad's memory comes back" {
	dir=$BATS_TEST_TMPDIR/d
	mkdir -p "$dir"
	echo "max_qps = 2000" >"$dir/rdmad.conf"
	# A service's soft limit on open files (1024), which 2000 QPs' rings and
	# doorbells pass: rdmad raises it to the hard one.
	hard=$(ulimit -Hn)
	[ "$hard" = unlimited ] || [ "$hard" -ge 4200 ] || skip "the hard limit on open files ($hard) is below 2000 QPs' 4000"
	( ulimit -Sn 1024 && rdmad_start "$dir" )
	export RDMACTL_SOCKET="$dir/io.rdmad"
	assert_equal "$(awk '/^Max open files/ { print $4 }' "/proc/$(cat "$dir/rdmad.pid")/limits")" "$hard"
	before=$(rss_kb "$dir")
	scale_hold "$dir" qp 2001
	run cat "$dir/scale.out"
	assert_line --index 0 --regexp '^created 2000 in '
	assert_line --index 1 --partial 'refused after 2000: io.rdmad.Qp.Create: io.rdmad.Qp.LimitReached {"kind":"qp","limit":2000}'
	assert_line --index 2 ready
	held=$(rss_kb "$dir")
	run "$RDMACTL" -s "$dir/io.rdmad" -j qp list
	assert_equal "$(jq length <<<"$output")" 2000
	# Root through varlink meets the same cap.
	"$RDMACTL" -s "$dir/io.rdmad" pd create >/dev/null
	"$RDMACTL" -s "$dir/io.rdmad" cq create --cqe 1 >/dev/null
	run "$RDMACTL" -s "$dir/io.rdmad" qp create --pd 1 --send-cq 1 --recv-cq 1 --type rc
	assert_failure 1
	assert_output --partial "io.rdmad.Qp.LimitReached: kind 'qp', limit '2000'"
	scale_release
	run cat "$dir/scale.out"
	assert_line --index 3 --regexp '^destroyed 2000 in '
	assert_equal "$("$RDMACTL" -s "$dir/io.rdmad" -j qp list | jq length)" 0
	# A second after the destroys, the memory they freed is the system's again.
	sanitized && { rdmad_stop "$dir"; return 0; }
	for _ in $(seq 1 30); do
		after=$(rss_kb "$dir")
		[ $((after - before)) -le $(((held - before) / 3)) ] && break
		sleep 0.1
	done
	echo "rdmad RSS: $before KiB, $held KiB with 2000 QPs, $after KiB after" >&3
	[ $((held - before)) -gt 4000 ]
	[ $((after - before)) -le $(((held - before) / 3)) ]
	rdmad_stop "$dir"
}

@test "MRs on one buffer through librdmad share rdmad's mapping of it: 3000 under 512 descriptors, the next refused naming the cap" {
	dir=$BATS_TEST_TMPDIR/d
	mkdir -p "$dir"
	echo "max_mrs = 3000" >"$dir/rdmad.conf"
	# An MR kept a descriptor and a mapping of its own: 262,144 met RLIMIT_NOFILE and vm.max_map_count.
	(ulimit -n 512 && rdmad_start "$dir")
	pid=$(cat "$dir/rdmad.pid")
	maps=$(wc -l <"/proc/$pid/maps")
	fds=$(ls "/proc/$pid/fd" | wc -l)
	scale_hold "$dir" mr 3001
	run cat "$dir/scale.out"
	assert_line --index 0 --regexp '^created 3000 in '
	assert_line --index 1 --partial 'refused after 3000: io.rdmad.Mr.RegUser: io.rdmad.Mr.LimitReached {"kind":"mr","limit":3000}'
	assert_line --index 2 ready
	echo "rdmad with 3000 MRs: $(wc -l <"/proc/$pid/maps") mappings (from $maps), $(ls "/proc/$pid/fd" | wc -l) descriptors (from $fds)" >&3
	[ "$(wc -l <"/proc/$pid/maps")" -le $((maps + 10)) ]
	[ "$(ls "/proc/$pid/fd" | wc -l)" -le $((fds + 10)) ]
	run "$RDMACTL" -s "$dir/io.rdmad" -j mr list
	assert_equal "$(jq length <<<"$output")" 3000
	scale_release
	run cat "$dir/scale.out"
	assert_line --index 3 --regexp '^destroyed 3000 in '
	assert_equal "$("$RDMACTL" -s "$dir/io.rdmad" -j mr list | jq length)" 0
	rdmad_stop "$dir"
}

@test "MKEYs at soft0's real cap: a pool of 65536 fills it, one more is refused naming the cap, the pool's destroy gives them back" {
	run "$RDMACTL" -j dev show soft0
	assert_output --partial '"max_mkey":65536,'
	"$RDMACTL" pool create big --type signature --size 65536 --max-entries 4 >/dev/null
	run "$RDMACTL" -j pool show big
	assert_output --partial '"size":65536,'
	assert_output --partial '"available":65536,'
	run "$RDMACTL" mkey create 1 --max-entries 4
	assert_failure 1
	assert_output --partial "io.rdmad.Mkey.LimitReached: kind 'mkey', limit '65536'"
	run "$RDMACTL" pool create more --type signature --size 1
	assert_failure 1
	assert_output --partial "LimitReached: kind 'mkey', limit '65536'"
	run "$RDMACTL" pool create huge --type signature --size 65537
	assert_failure
	assert_output --partial "io.rdmad.Pool.InvalidArgument: field 'size', reason '1 to 65536 MKEYs'"
	"$RDMACTL" pool destroy big
	h=$("$RDMACTL" -j mkey create 1 --max-entries 4 | jq '.[0].handle')
	"$RDMACTL" mkey destroy "$h"
}

@test "lists longer than a page: rdmactl reads every page; List pages by after and max, and refuses a bad max naming it" {
	n=$("$RDMACTL" -j pd list | jq length)
	for _ in $(seq 1 4100); do
		printf '{"method":"io.rdmad.Pd.Create","parameters":{}}\0'
	done | socat -t 20 - "UNIX-CONNECT:$RDMACTL_SOCKET" >/dev/null
	total=$((n + 4100))
	assert_equal "$("$RDMACTL" -j pd list | jq 'map(.handle) | unique | length')" "$total"
	# status counts them all too (it lists every kind).
	run -0 "$RDMACTL" -j status
	assert_equal "$(jq '.device_status[0].objects.pds' <<<"$output")" "$total"
	# One call: the first 4096, in the order of handles, and where to go on.
	run varlink_raw '{"method":"io.rdmad.Pd.List","parameters":{}}\0'
	first=$(jq -c '.parameters.pds as $p | [($p | length), ($p | map(.handle)) == ($p | map(.handle) | sort), .parameters.next == $p[-1].handle]' <<<"$output")
	assert_equal "$first" "[4096,true,true]"
	next=$(jq '.parameters.next' <<<"$output")
	run varlink_raw '{"method":"io.rdmad.Pd.List","parameters":{"after":'"$next"'}}\0'
	assert_equal "$(jq -c '[(.parameters.pds | length), .parameters.next]' <<<"$output")" "[$((total - 4096)),null]"
	run varlink_raw '{"method":"io.rdmad.Pd.List","parameters":{"after":'"$next"',"max":2}}\0'
	assert_equal "$(jq -c '[.parameters.pds[].handle] == [.parameters.next - 1, .parameters.next]' <<<"$output")" true
	run varlink_raw '{"method":"io.rdmad.Pd.List","parameters":{"max":0}}\0'
	assert_output --partial '"error":"io.rdmad.Pd.InvalidArgument","parameters":{"field":"max"'
	run varlink_raw '{"method":"io.rdmad.Qp.List","parameters":{"max":65537}}\0'
	assert_output --partial '"error":"io.rdmad.Qp.InvalidArgument","parameters":{"field":"max","reason":"65537; a number from 1 to 65536"}'
	for h in $("$RDMACTL" -j pd list | jq ".[$n:][].handle"); do
		printf '{"method":"io.rdmad.Pd.Destroy","parameters":{"handle":%s}}\0' "$h"
	done | socat -t 20 - "UNIX-CONNECT:$RDMACTL_SOCKET" >/dev/null
	assert_equal "$("$RDMACTL" -j pd list | jq length)" "$n"
}

@test "kill -9 with a pool of 65536 MKEYs and 300 DEKs: all back when rdmad starts again" {
	dir=$BATS_TEST_TMPDIR/d
	rdmad_start "$dir"
	(umask 077 && head -c 64 /dev/urandom >"$dir/dek.key")
	"$RDMACTL" -s "$dir/io.rdmad" pool create big --type signature --size 65536 --max-entries 4 >/dev/null
	for i in $(seq 1 300); do
		printf '{"method":"io.rdmad.Dek.Create","parameters":{"name":"d%s","size":256,"key_file":"%s"}}\0' "$i" "$dir/dek.key"
	done | socat -t 30 - "UNIX-CONNECT:$dir/io.rdmad" >/dev/null
	assert_equal "$("$RDMACTL" -s "$dir/io.rdmad" -j dek list | jq length)" 300
	kill -KILL "$(cat "$dir/rdmad.pid")"
	for _ in $(seq 1 100); do
		[ -e "$dir/rdmad.status" ] && break
		sleep 0.05
	done
	rm -f "$dir/rdmad.status" "$dir/rdmad.pid"
	start=$(date +%s%N)
	rdmad_start "$dir"
	took=$((($(date +%s%N) - start) / 1000000))
	echo "rdmad answered $took ms after its start, the pool and DEKs loaded" >&3
	run "$RDMACTL" -s "$dir/io.rdmad" -j pool show big
	assert_output --partial '"size":65536,'
	assert_output --partial '"available":65536,'
	assert_equal "$("$RDMACTL" -s "$dir/io.rdmad" -j dek list | jq 'map(.name) | unique | length')" 300
	sanitized || [ "$took" -lt 5000 ]
	rdmad_stop "$dir"
}
