#!/usr/bin/env bats
# Programs on the device through librdmad (issue #14, part 1): an RC ping-pong
# between two processes, and what rdmad reclaims when a program is killed.

load helper

setup_file() {
	rdmad_start
	"$RDMACTL" gid add 0 fe80::1 >/dev/null
	"$RDMACTL" pool create crashpool --type signature --size 2 >/dev/null
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
}

# A test that failed before its victim program went leaves none behind.
teardown() {
	[ ! -e "$BATS_TEST_TMPDIR/victim.pid" ] || kill -9 "$(cat "$BATS_TEST_TMPDIR/victim.pid")" 2>/dev/null || true
}

# counts: how many objects of each kind, and the pool's counters that must come back.
counts() {
	local k
	for k in pd mr cq qp ah mkey; do
		printf '%s=%s ' "$k" "$("$RDMACTL" -j "$k" list | jq length)"
	done
	"$RDMACTL" -j pool show crashpool | jq -r '.[0] | "available=\(.available) borrowed=\(.in_use)"'
}

# wait_counts WANT: until counts says WANT (rdmad reclaims when its loop sees the hang-up), 5 s at most.
wait_counts() {
	local i
	for i in $(seq 1 100); do
		[ "$(counts)" = "$1" ] && return 0
		sleep 0.05
	done
	echo "counts: $(counts), wanted: $1" >&2
	return 1
}

# holding COUNTS: COUNTS with one more object of every kind and one MKEY borrowed from the pool.
holding() {
	local kv out=()
	for kv in $1; do
		case ${kv%%=*} in
		available) out+=("${kv%%=*}=$((${kv#*=} - 1))") ;;
		*) out+=("${kv%%=*}=$((${kv#*=} + 1))") ;;
		esac
	done
	echo "${out[*]}"
}

@test "RC ping-pong between two processes through librdmad, QP numbers over pipes" {
	before=$(counts)
	mkfifo to_server to_client
	"$BUILD/examples/rdmad_rc_pingpong" -n 200 -z 1024 <to_server >to_client 2>server.err &
	server=$!
	# Opened in the other order than the server's: each open of a FIFO waits for its peer.
	# (In a shell of its own: run would take its standard output.)
	run bash -c '"$0" -c -n 200 -z 1024 >to_server <to_client' "$BUILD/examples/rdmad_rc_pingpong"
	assert_success
	assert_output --partial "client: 200 iters of 1024 bytes"
	wait "$server"
	run cat server.err
	assert_output --partial "server: 200 iters of 1024 bytes"
	wait_counts "$before"
}

@test "ping-pong refuses a peer line that is no QP number" {
	run "$BUILD/examples/rdmad_rc_pingpong" -n 1 <<<"hello"
	assert_failure 1
	assert_output --partial 'no "qpn N"'
}

@test "kill -9 of a program holding objects and a borrowed MKEY: rdmad reclaims them all" {
	before=$(counts)
	"$BUILD/tools/rdmad-hold" crashpool >hold.out 2>hold.err &
	pid=$!
	for i in $(seq 1 100); do
		grep -q ready hold.out && break
		sleep 0.05
	done
	run cat hold.out hold.err
	assert_output ready
	assert_equal "$(counts)" "$(holding "$before")"
	kill -9 "$pid"
	wait "$pid" || true
	wait_counts "$before"
	assert_file_contains "$BATS_FILE_TMPDIR/rdmad.log" "application pid $pid (rdmad-hold) went away: reclaimed 1 QPs, 1 AHs, 1 MKEYs, 1 MRs, 1 CQs, 1 PDs"
}

@test "objects rdmactl creates outlive its connection: only attached programs' are reclaimed" {
	"$RDMACTL" pd create >/dev/null
	n=$("$RDMACTL" -j pd list | jq length)
	sleep 0.1
	assert_equal "$("$RDMACTL" -j pd list | jq length)" "$n"
	"$RDMACTL" pd destroy "$("$RDMACTL" -j pd list | jq -r '.[-1].handle')"
}

@test "rdmad_perftest: SEND, WRITE, READ and latency between two processes through the rings, as JSON" {
	before=$(counts)
	run "$BUILD/examples/rdmad_perftest" -j -e -t send,write,read,lat -z 64,4096 -n 2000
	assert_success
	# Eight runs (four tests, two sizes), each with a rate, latency only for lat.
	assert_equal "$(jq '.results | length' <<<"$output")" 8
	assert_equal "$(jq '[.results[] | select(.msgs_per_sec > 0)] | length' <<<"$output")" 8
	assert_equal "$(jq -r '[.results[].test] | unique | join(",")' <<<"$output")" "lat,read,send,write"
	assert_equal "$(jq '[.results[] | select(.test == "lat" and .lat_p50_us > 0)] | length' <<<"$output")" 2
	assert_equal "$(jq -r .mkey <<<"$output")" none
	wait_counts "$before"
}

@test "rdmad_perftest: WRITE into a T10-DIF + AES-XTS MKEY, table output" {
	head -c 64 /dev/urandom | "$RDMACTL" dek create perf --size 256 --key-file - >/dev/null
	run "$BUILD/examples/rdmad_perftest" -t write -z 4096 -n 500 -m sig+crypto -k perf
	assert_success
	assert_line --index 0 --regexp '^test +bytes +iters +GB/s +msgs/s'
	assert_line --index 1 --regexp '^write +4096 +500 '
	run "$BUILD/examples/rdmad_perftest" -m crypto
	assert_failure 2
	assert_output --partial "usage:"
	"$RDMACTL" dek destroy perf
}

@test "kill -9 of both processes mid-transfer: rdmad reclaims their QPs, CQs, MRs and rings" {
	before=$(counts)
	"$BUILD/examples/rdmad_perftest" -t write -z 65536 -n 100000000 >/dev/null 2>&1 &
	pid=$!
	# Both processes attached, and the transfer running: the requester's QP has sent.
	for i in $(seq 1 100); do
		[ "$("$RDMACTL" -j qp list | jq '[.[] | select(.datapath.wrs.write > 0)] | length')" -ge 1 ] && break
		sleep 0.05
	done
	[ "$("$RDMACTL" -j qp list | jq '[.[] | select(.datapath.wrs.write > 0)] | length')" -ge 1 ]
	assert_equal "$("$RDMACTL" -j qp list | jq '[.[] | select(.rings)] | length')" 2
	# Both at once: either, left alone, would notice its peer gone and exit on its own.
	kill -9 "$pid" $(pgrep -P "$pid")
	wait "$pid" || true
	wait_counts "$before"
	run "$RDMACTL" status
	assert_success
}

@test "rdmactl sees applications: status, list and show name the owning process; monitor tells of attach and reclaim" {
	"$RDMACTL" -j monitor --type application_attached --type application_detached >events.json 2>&1 &
	monitor=$!
	"$RDMACTL" monitor --type application_detached >events.txt 2>&1 &
	monitor_text=$!
	sleep 0.3
	"$BUILD/examples/rdmad_perftest" -t write -z 4096 -n 100000000 >/dev/null 2>&1 &
	pid=$!
	for i in $(seq 1 100); do
		[ "$("$RDMACTL" -j qp list | jq '[.[] | select(.comm == "rdmad_perftest")] | length')" = 2 ] && break
		sleep 0.05
	done
	children=$(pgrep -P "$pid")
	# Each object names its process (pid, comm), as rdma resource show does; rdmactl's own none.
	run "$RDMACTL" -j qp list
	assert_equal "$(jq -r '[.[] | select(.comm == "rdmad_perftest") | .pid] | sort | join(" ")' <<<"$output")" \
		"$(echo "$pid" "$children" | tr ' ' '\n' | sort -n | tr '\n' ' ' | sed 's/ $//')"
	run "$RDMACTL" cq list
	assert_line --regexp "^cq [0-9]+: .* pid $pid comm rdmad_perftest$"
	own=$("$RDMACTL" -j pd create | jq '.[0].handle')
	run "$RDMACTL" -j pd list
	assert_equal "$(jq --argjson h "$own" '[.[] | select(.handle == $h and (has("pid") | not))] | length' <<<"$output")" 1
	"$RDMACTL" pd destroy "$own"
	run "$RDMACTL" status
	# One line per program, the label on the first only.
	assert_line --regexp "^ *(applications:)? +pid $pid comm rdmad_perftest name rdmad_perftest owns qps 1 mrs 1 cqs 1 pds 1$"
	# And the same facts for scripts: the attached programs, with what each owns.
	run "$RDMACTL" -j status
	assert_equal "$(jq --argjson p "$pid" '.applications[] | select(.pid == $p) | [.comm, .objects.qps, .objects.cqs] | join(" ")' -r <<<"$output")" \
		"rdmad_perftest 1 1"
	kill -9 "$pid" $children
	wait "$pid" || true
	sleep 0.5
	kill "$monitor" "$monitor_text"
	run jq -r 'select(.type == "application_detached") | .application | "\(.pid) \(.objects.qps) \(.objects.cqs)"' events.json
	assert_line "$pid 1 1"
	assert_equal "$(jq -r 'select(.type == "application_attached") | .application.comm' events.json | sort -u)" rdmad_perftest
	run cat events.txt
	assert_line --regexp "application_detached: pid $pid uid [0-9]+ comm rdmad_perftest name rdmad_perftest reclaimed qps 1 mrs 1 cqs 1 pds 1$"
	run "$RDMACTL" status
	assert_line --regexp "^ *applications: none attached$"
}

# start_victim: rdmad-tenant victim in the background, its facts in VICTIM_A, VICTIM_B, RKEY, ADDR, VICTIM_PD.
start_victim() {
	"$BUILD/tools/rdmad-tenant" victim >victim.out 2>victim.err 3>&- &
	victim=$!
	echo "$victim" >"$BATS_TEST_TMPDIR/victim.pid"
	for i in $(seq 1 200); do
		grep -q '^qpn' victim.out && break
		sleep 0.05
	done
	read -r _ VICTIM_A VICTIM_B _ RKEY _ ADDR _ VICTIM_PD <victim.out
	[ -n "$VICTIM_PD" ]
}

@test "the hijack: another program connects to a victim's QP number, WRITE and READ with its rkey fail, counted, bytes unchanged" {
	start_victim
	refused_before=$("$RDMACTL" -j dev show soft0 | jq '.[0].datapath.refused_not_peer')
	run "$BUILD/tools/rdmad-tenant" hijack "$VICTIM_B" "$RKEY" "$ADDR"
	assert_success
	assert_output "write rem_inv_req_err
read rem_inv_req_err
read_landed no"
	# The victim's QP counts both, the device too; the victim's QP stays in RTS.
	run "$RDMACTL" -j qp show "$VICTIM_B"
	assert_equal "$(jq '.[0].datapath.refused_not_peer' <<<"$output")" 2
	assert_equal "$(jq -r '.[0].state' <<<"$output")" rts
	assert_equal "$("$RDMACTL" -j dev show soft0 | jq '.[0].datapath.refused_not_peer')" "$((refused_before + 2))"
	run "$RDMACTL" qp show "$VICTIM_B"
	assert_output --partial "refused_not_peer 2"
	assert_equal "$("$RDMACTL" -j status | jq '.device_status[0].refused_not_peer')" "$((refused_before + 2))"
	run "$RDMACTL" status
	assert_line --regexp "^ *refused_not_peer: $((refused_before + 2))$"
	# Guessing the other number changes nothing either.
	run "$BUILD/tools/rdmad-tenant" hijack "$VICTIM_A" "$RKEY" "$ADDR"
	assert_line --index 0 "write rem_inv_req_err"
	kill -USR1 "$victim"
	# Its exit status: 0 when its bytes are as it left them.
	wait "$victim"
	assert_equal "$(tail -1 victim.out)" unchanged
}

@test "kill -9 of a program whose PD rdmactl built on: its PD and MRs go, rdmactl's MR on its PD too" {
	start_victim
	mr=$("$RDMACTL" -j mr create "$VICTIM_PD" --size 4096 | jq '.[0].handle')
	assert_equal "$("$RDMACTL" -j mr list | jq --argjson p "$VICTIM_PD" '[.[] | select(.pd == $p)] | length')" 2
	kill -9 "$victim"
	wait "$victim" || true
	for i in $(seq 1 100); do
		[ "$("$RDMACTL" -j pd list | jq --argjson p "$VICTIM_PD" '[.[] | select(.handle == $p)] | length')" = 0 ] && break
		sleep 0.05
	done
	assert_equal "$("$RDMACTL" -j pd list | jq --argjson p "$VICTIM_PD" '[.[] | select(.handle == $p)] | length')" 0
	assert_equal "$("$RDMACTL" -j mr list | jq --argjson p "$VICTIM_PD" '[.[] | select(.pd == $p)] | length')" 0
	assert_equal "$("$RDMACTL" -j qp list | jq --argjson p "$VICTIM_PD" '[.[] | select(.pd == $p)] | length')" 0
	run "$RDMACTL" mr show "$mr"
	assert_failure
	assert_output --partial NoSuchObject
	assert_file_contains "$BATS_FILE_TMPDIR/rdmad.log" "application pid $victim went away: mr $mr, built on its objects, goes with them"
}
