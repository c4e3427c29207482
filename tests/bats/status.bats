#!/usr/bin/env bats
# rdmactl status: the one-screen health summary (rdmactl(8) status).  Text
# and -j print one document: each test checks a fact in both.

load helper
load key-helper
load qp-helper

setup() {
	load_libs
	D=$BATS_TEST_TMPDIR/d
	mkdir -p "$D"
}

teardown() {
	rdmad_stop "$D"
}

# status_json: rdmactl -j status, checked to be one JSON document.
status_json() {
	"$RDMACTL" -j status | jq -c .
}

@test "the configuration file: read, or none and the defaults in force" {
	rdmad_start "$D"
	run "$RDMACTL" status
	assert_success
	assert_line --regexp "^ *config_file: $D/rdmad.conf$"
	[ "$(status_json | jq -c '[.config_file, .config_read]')" = "[\"$D/rdmad.conf\",true]" ]
	rm "$D/rdmad.conf"
	"$RDMACTL" daemon reload
	run "$RDMACTL" status
	assert_line --regexp "^ *config_file: $D/rdmad.conf \(not found: the built-in defaults are in force\)$"
	[ "$(status_json | jq .config_read)" = false ]
}

@test "objects by kind, QPs by state, pools with availability, workers with their QPs" {
	rdmad_start "$D"
	"$RDMACTL" pd create >/dev/null
	"$RDMACTL" gid add 0 fe80::1 >/dev/null
	pair
	"$RDMACTL" qp create --pd 1 --send-cq "$CA" --recv-cq "$CA" --type rc >/dev/null
	"$RDMACTL" pool create p1 --type signature --size 3 >/dev/null
	run "$RDMACTL" status
	assert_success
	assert_line --regexp '^ *ifname: soft0$'
	assert_line --regexp '^ *ports: port 1 state ACTIVE physical_state LINK_UP link_layer Ethernet active_mtu [0-9]+$'
	assert_line --regexp '^ *objects: pds 2 mrs 0 cqs 2 qps 3 ahs 0 mkeys 3$'
	assert_line --regexp '^ *qp_states: reset 1 rts 2$'
	assert_line --regexp '^ *pools: name p1 type signature size 3 available 3 in_use 0 borrow_failures 0$'
	assert_line --regexp '^ *deks: -$'
	assert_line --regexp '^ *crypto_login: no_login$'
	assert_line --regexp '^ *sqd_qps: -$'
	assert_line --regexp '^ *recoveries: 0$'
	assert_line --regexp '^ *sig_stops: 0$'
	assert_line --regexp '^ *problems: none$'
	# A line per worker under the summary, with the QPs it runs: the two connected ones.
	assert_line --regexp '^ *workers: [0-9]+ on CPU '
	qps=$(printf '%s\n' "${lines[@]}" | sed -n 's/^ *index [0-9]* cpu [0-9]* qps \([0-9]*\) .*/\1/p' |
		paste -sd+ | bc)
	[ "$qps" = 2 ]
	# The same facts in JSON.
	json=$(status_json)
	# The vocabulary's keys: counts under the kinds' plurals, as a tenant's objects;
	# states as values of records, not as keys.
	[ "$(jq -c '.device_status[0].objects' <<<"$json")" = \
		'{"pds":2,"mrs":0,"cqs":2,"qps":3,"ahs":0,"mkeys":3}' ]
	[ "$(jq -c '.device_status[0].qp_states' <<<"$json")" = \
		'[{"state":"reset","qps":1},{"state":"rts","qps":2}]' ]
	[ "$(jq -c '.device_status[0].pools' <<<"$json")" = \
		'[{"name":"p1","type":"signature","size":3,"available":3,"in_use":0,"borrow_failures":0}]' ]
	[ "$(jq '[.workers[].qps] | add' <<<"$json")" = 2 ]
	# Recoveries and signature stops are the data-path counters, under their keys.
	[ "$(jq -c '.device_status[0] | [.recoveries, .sig_stops, .sqd_qps]' <<<"$json")" = '[0,0,[]]' ]
	[ "$(jq -c '.problems' <<<"$json")" = '[]' ]
}

@test "Device.CountObjects: objects by kind, QPs by state, those in err and SQD by number; status says the same" {
	rdmad_start "$D"
	"$RDMACTL" pd create >/dev/null
	"$RDMACTL" gid add 0 fe80::1 >/dev/null
	pair
	"$RDMACTL" qp modify "$A" --state err
	"$RDMACTL" qp modify "$B" --state sqd
	run varlink_raw '{"method":"io.rdmad.Device.CountObjects","parameters":{"ifname":"soft0"}}\0'
	assert_success
	assert_equal "$(jq -c '.parameters.devices' <<<"$output")" \
		"[{\"ifname\":\"soft0\",\"objects\":{\"pds\":1,\"mrs\":0,\"cqs\":2,\"qps\":2,\"ahs\":0,\"mkeys\":0},\"qp_states\":[{\"state\":\"sqd\",\"qps\":1},{\"state\":\"err\",\"qps\":1}],\"err_qps\":[$A],\"sqd_qps\":[$B]}]"
	json=$(status_json)
	assert_equal "$(jq -c '.device_status[0] | [.qp_states, .sqd_qps]' <<<"$json")" \
		"[[{\"state\":\"sqd\",\"qps\":1},{\"state\":\"err\",\"qps\":1}],[$B]]"
	assert_equal "$(jq -c '.problems' <<<"$json")" \
		"[{\"ifname\":\"soft0\",\"kind\":\"qp\",\"handle\":$A,\"reason\":\"state err\"}]"
	run "$RDMACTL" status
	assert_line --regexp '^ *qp_states: sqd 1 err 1$'
	assert_line --regexp "^ *problems: soft0 qp $A: state err$"
	# Every device without ifname; an unknown one is refused, naming it.
	run varlink_raw '{"method":"io.rdmad.Device.CountObjects","parameters":{}}\0'
	assert_equal "$(jq -c '[.parameters.devices[].ifname]' <<<"$output")" '["soft0"]'
	run varlink_raw '{"method":"io.rdmad.Device.CountObjects","parameters":{"ifname":"nosuch0"}}\0'
	assert_equal "$(jq -c '[.error, .parameters]' <<<"$output")" '["io.rdmad.Device.NoSuchDevice",{"ifname":"nosuch0"}]'
}

@test "a DEK in state error is a problem, in text and in JSON; status still succeeds" {
	rdmad_start "$D"
	key "$BATS_TEST_TMPDIR/k" 32
	"$RDMACTL" dek create alpha --size 128 --key-file "$BATS_TEST_TMPDIR/k" >/dev/null
	run "$RDMACTL" status
	assert_line --regexp '^ *deks: name alpha handle 1 state ready$'
	rm "$BATS_TEST_TMPDIR/k"
	rdmad_stop "$D"
	rdmad_start "$D"
	run "$RDMACTL" status
	assert_success
	assert_line --regexp "^ *problems: soft0 dek alpha: state error: key_file: $BATS_TEST_TMPDIR/k does not exist$"
	assert_line --regexp "^ *deks: name alpha handle 1 state error error key_file: $BATS_TEST_TMPDIR/k does not exist$"
	[ "$(status_json | jq -c '.problems')" = \
		"[{\"ifname\":\"soft0\",\"kind\":\"dek\",\"name\":\"alpha\",\"reason\":\"state error: key_file: $BATS_TEST_TMPDIR/k does not exist\"}]" ]
	[ "$(status_json | jq -c '.device_status[0].deks[0] | [.state, .error]')" = \
		"[\"error\",\"key_file: $BATS_TEST_TMPDIR/k does not exist\"]" ]
}

# borrow_held POOL: borrows an MKEY of POOL on a connection kept open (the
# MKEY goes back when it closes) until the file "$D/release" appears.
borrow_held() {
	python3 - "$RDMACTL_SOCKET" "$1" "$D/release" >"$D/borrowed" <<'PY' &
import json, os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(json.dumps({"method": "io.rdmad.Pool.Borrow", "parameters": {"name": sys.argv[2]}}).encode() + b"\0")
reply = b""
while not reply.endswith(b"\0"):
    reply += s.recv(4096)
print(reply[:-1].decode(), flush=True)
while not os.path.exists(sys.argv[3]):
    time.sleep(0.05)
PY
	echo $! >"$D/borrower.pid"
	for _ in $(seq 1 100); do
		[ -s "$D/borrowed" ] && return 0
		sleep 0.05
	done
	return 1
}

@test "a pool with no MKEY left is a problem, until one is returned" {
	rdmad_start "$D"
	"$RDMACTL" pool create tiny --type crypto --size 1 >/dev/null
	borrow_held tiny
	assert_file_contains "$D/borrowed" '"mkey"'
	run "$RDMACTL" status
	assert_success
	assert_line --regexp '^ *pools: name tiny type crypto size 1 available 0 in_use 1 borrow_failures 0$'
	assert_line --regexp '^ *problems: soft0 pool tiny: no MKEY available \(0 borrows refused\)$'
	# A pool is named by name, as its own records do.
	[ "$(status_json | jq -c '.problems[0] | [.kind, .name]')" = '["pool","tiny"]' ]
	touch "$D/release"
	wait "$(cat "$D/borrower.pid")"
	for _ in $(seq 1 50); do
		[ "$(status_json | jq '.problems | length')" = 0 ] && break
		sleep 0.05
	done
	[ "$(status_json | jq -c '.device_status[0].pools[0].available')" = 1 ]
}

@test "who may read: group rdma as the daemon found it" {
	rdmad_start "$D"
	json=$(status_json)
	if getent group rdma >/dev/null; then
		gid=$(getent group rdma | cut -d: -f3)
		[ "$(jq -c .read_group <<<"$json")" = "{\"name\":\"rdma\",\"exists\":true,\"gid\":$gid}" ]
		run "$RDMACTL" status
		assert_line --regexp "^ *read_group: rdma \(gid $gid\): its members may read and run programs \\(their own objects\\); other changes need root$"
	else
		[ "$(jq -c .read_group <<<"$json")" = '{"name":"rdma","exists":false,"gid":null}' ]
		run "$RDMACTL" status
		assert_line --regexp '^ *read_group: rdma does not exist: only root may call$'
	fi
}

@test "nothing in the text is JSON null, and every label is a key of -j" {
	rdmad_start "$D"
	"$RDMACTL" pd create >/dev/null
	run "$RDMACTL" status
	assert_success
	refute_output --partial null
	json=$(status_json)
	keys=$(jq -r '[paths | last | strings] | unique | .[]' <<<"$json")
	for label in $(printf '%s\n' "${lines[@]}" | sed -n 's/^ *\([a-z_]*\): .*/\1/p'); do
		[ "$label" = uptime ] && continue   # uptime_usec, for people
		grep -qx "$label" <<<"$keys" || fail "label $label is no key of status -j"
	done
}
