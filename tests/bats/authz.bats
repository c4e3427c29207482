#!/usr/bin/env bats
# make check runs this file alone: users and groups of the system.
# Who may call what (rdmad-varlink(7) AUTHORIZATION): root everything; group
# rdma the methods that only read; everyone else nothing but introspection.
# DEK methods, even the reading ones, are root's alone, and so is everything
# else about DEKs: which DEK an MKEY uses, DEK events.  The caller's identity
# comes from the socket (SO_PEERCRED, SO_PEERGROUPS).  The matrix below names
# every method and every event: one added without a line here fails.

load helper
load users-helper
load qp-helper

IN_USER=rdmad-authz-in
OUT_USER=rdmad-authz-out

setup_file() {
	command -v setpriv >/dev/null || skip "setpriv missing"
	# The group and the users are made here and removed in teardown_file.
	users_make "$IN_USER" "$OUT_USER"
	D=$(shared_dir authz)
	rdmad_start "$D"
	chmod 0666 "$D/io.rdmad"
}

teardown_file() {
	D=$(cat "$BATS_FILE_TMPDIR/dir" 2>/dev/null) || return 0
	rdmad_stop "$D/events"
	rdmad_stop "$D"
	rm -rf "$D"
	users_remove "$IN_USER" "$OUT_USER"
}

setup() {
	load_libs
	D=$(cat "$BATS_FILE_TMPDIR/dir")
	export RDMACTL_SOCKET="$D/io.rdmad"
}

# denied USER RDMACTL-ARGS...: the call is refused with PermissionDenied, exit 1,
# saying what it needs and the socket.
denied() {
	local user=$1
	shift
	run --separate-stderr as "$user" "$RDMACTL" "$@"
	assert_failure 1
	assert_regex "$stderr" "org\.varlink\.service\.PermissionDenied: needs root( or group rdma|, or a program of group rdma attached to the daemon)? \(socket $RDMACTL_SOCKET\)$"
}

@test "a user outside group rdma may not even read" {
	denied "$OUT_USER" status
	denied "$OUT_USER" dev show
	denied "$OUT_USER" pd list
	denied "$OUT_USER" pd create
	denied "$OUT_USER" daemon log-level debug
}

@test "a refusal says what is needed, as the daemon's GetAccess says, and the socket" {
	run --separate-stderr as "$OUT_USER" "$RDMACTL" pd list
	assert_failure 1
	assert_equal "$stderr" "rdmactl: pd list: org.varlink.service.PermissionDenied: needs root or group rdma (socket $RDMACTL_SOCKET)"
	run --separate-stderr as "$IN_USER" "$RDMACTL" pd create
	assert_failure 1
	assert_equal "$stderr" "rdmactl: pd create: org.varlink.service.PermissionDenied: needs root, or a program of group rdma attached to the daemon (socket $RDMACTL_SOCKET)"
	run --separate-stderr as "$IN_USER" "$RDMACTL" daemon reload
	assert_failure 1
	assert_equal "$stderr" "rdmactl: daemon reload: org.varlink.service.PermissionDenied: needs root (socket $RDMACTL_SOCKET)"
	# DEKs are root's even to read.
	run --separate-stderr as "$IN_USER" "$RDMACTL" dek list
	assert_failure 1
	assert_equal "$stderr" "rdmactl: dek list: org.varlink.service.PermissionDenied: needs root (socket $RDMACTL_SOCKET)"
}

@test "a member of group rdma sees the status, DEKs left out as root's" {
	run --separate-stderr as "$IN_USER" "$RDMACTL" status
	assert_success
	assert_line --regexp '^ *deks: \(only root may see DEKs\)$'
	assert_line --regexp '^ *crypto_login: \(only root may see it\)$'
	assert_line --regexp '^ *objects: pds [0-9]+ mrs [0-9]+ cqs [0-9]+ qps [0-9]+ ahs [0-9]+ mkeys [0-9]+$'
	run as "$IN_USER" "$RDMACTL" -j status
	assert_success
	[ "$(jq -c '.device_status[0] | [.deks, .crypto_login]' <<<"$output")" = '[null,null]' ]
}

@test "a user outside group rdma may still introspect the socket" {
	run as "$OUT_USER" sh -c 'printf "{\"method\":\"org.varlink.service.GetInfo\"}\0" | socat -t 2 - "UNIX-CONNECT:$RDMACTL_SOCKET" | tr "\0" "\n"'
	assert_success
	assert_output --partial '"product":"rdmad"'
}

@test "a member of group rdma may read" {
	run as "$IN_USER" "$RDMACTL" -j status
	assert_success
	assert_output --partial '"ifnames":["soft0"]'
	run as "$IN_USER" "$RDMACTL" -j dev show soft0
	assert_success
	assert_output --partial '"ifname":"soft0"'
	run as "$IN_USER" "$RDMACTL" -j pd list
	assert_success
}

@test "a member of group rdma may not change state" {
	run "$RDMACTL" -j pd list
	before=$output
	denied "$IN_USER" pd create
	denied "$IN_USER" daemon log-level debug
	denied "$IN_USER" daemon reload
	run "$RDMACTL" -j pd list
	assert_output "$before"
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"info"'
}

@test "group rdma counts as the primary group and as a supplementary group of the process" {
	gid=$(getent group rdma | cut -d: -f3)
	run setpriv --reuid="$OUT_USER" --regid="$gid" --clear-groups "$RDMACTL" status
	assert_success
	run setpriv --reuid="$OUT_USER" --regid=65534 --groups="$gid" "$RDMACTL" status
	assert_success
	run --separate-stderr setpriv --reuid="$OUT_USER" --regid=65534 --clear-groups "$RDMACTL" status
	assert_failure 1
}

@test "root may change state" {
	run "$RDMACTL" -j pd create
	assert_success
	handle=$(echo "$output" | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	run "$RDMACTL" pd destroy "$handle"
	assert_success
}

@test "DEK methods are root's alone, even the reading ones" {
	denied "$IN_USER" dek list
	denied "$IN_USER" dek show 1
	denied "$IN_USER" dek login-state
	denied "$IN_USER" dek create x --size 128 --key-file /nonexistent
	denied "$IN_USER" dek login --credential-file /nonexistent
	denied "$IN_USER" dek logout
	denied "$IN_USER" dek destroy x
	denied "$OUT_USER" dek list
	run "$RDMACTL" -j dek list
	assert_success
	assert_output '[]'
}

# Who may call each method: all (whoever can connect), rdma (root and group
# rdma), program (root, and a member's connection that attached: what a
# program does with its own objects) or root.  Every method of every
# interface the daemon serves, no more.
METHODS='
org.varlink.service.GetInfo all
org.varlink.service.GetInterfaceDescription all
io.rdmad.Daemon.Attach rdma
io.rdmad.Daemon.GetStatus rdma
io.rdmad.Daemon.GetAccess all
io.rdmad.Daemon.ListApplications rdma
io.rdmad.Daemon.OpenAsyncEvents program
io.rdmad.Daemon.Reload root
io.rdmad.Daemon.SetLogLevel root
io.rdmad.Device.List rdma
io.rdmad.Device.Show rdma
io.rdmad.Device.CountObjects rdma
io.rdmad.Pd.Create program
io.rdmad.Pd.List rdma
io.rdmad.Pd.Show rdma
io.rdmad.Pd.Destroy program
io.rdmad.Mr.Create program
io.rdmad.Mr.GetDma program
io.rdmad.Mr.RegUser program
io.rdmad.Mr.List rdma
io.rdmad.Mr.Show rdma
io.rdmad.Mr.Destroy program
io.rdmad.Mr.Write program
io.rdmad.Mr.Read program
io.rdmad.Cq.Create program
io.rdmad.Cq.List rdma
io.rdmad.Cq.Show rdma
io.rdmad.Cq.Destroy program
io.rdmad.Cq.Notify program
io.rdmad.Cq.Poll program
io.rdmad.Qp.Create program
io.rdmad.Qp.Modify program
io.rdmad.Qp.List rdma
io.rdmad.Qp.Show rdma
io.rdmad.Qp.Destroy program
io.rdmad.Qp.PostSend program
io.rdmad.Qp.PostSendList program
io.rdmad.Qp.PostRecv program
io.rdmad.Qp.Cancel program
io.rdmad.Qp.Recover program
io.rdmad.Ah.Create program
io.rdmad.Ah.List rdma
io.rdmad.Ah.Show rdma
io.rdmad.Ah.Destroy program
io.rdmad.Gid.List rdma
io.rdmad.Gid.Show rdma
io.rdmad.Gid.Add root
io.rdmad.Gid.Del root
io.rdmad.Mkey.Create program
io.rdmad.Mkey.List rdma
io.rdmad.Mkey.Show rdma
io.rdmad.Mkey.Destroy program
io.rdmad.Mkey.Configure program
io.rdmad.Mkey.Check program
io.rdmad.Mkey.Tx program
io.rdmad.Mkey.Rx program
io.rdmad.Pool.Create root
io.rdmad.Pool.List rdma
io.rdmad.Pool.Show rdma
io.rdmad.Pool.Resize root
io.rdmad.Pool.Destroy root
io.rdmad.Pool.Borrow program
io.rdmad.Pool.Return program
io.rdmad.Pool.Modify root
io.rdmad.Dek.Create root
io.rdmad.Dek.List root
io.rdmad.Dek.Show program
io.rdmad.Dek.Destroy root
io.rdmad.Dek.Modify root
io.rdmad.Dek.Login root
io.rdmad.Dek.Logout root
io.rdmad.Dek.GetLogin root
io.rdmad.Vnic.List rdma
io.rdmad.Vnic.Show rdma
io.rdmad.Vnic.Counters rdma
io.rdmad.Vnic.Fabric rdma
io.rdmad.Vdev.Create root
io.rdmad.Vdev.Destroy root
io.rdmad.Vdev.List rdma
io.rdmad.Vdev.Show rdma
io.rdmad.Monitor.Subscribe rdma
'

# Who sees each event of io.rdmad.Monitor in the scenario below (TYPE, or
# TYPE:KIND for the events about one kind of object): rdma (root's and group
# rdma's subscriptions) or root.  A member's subscription carries the events
# of the device and of its own uid's objects and programs: the QP events
# marked root are of root's QPs here, cq_error of root's CQ (a member's own CQ
# would reach it, as its QPs' events do: the scenario's member programs do
# not overflow theirs).  Every type of the Event type, no more.
EVENTS='
subscribed rdma
object_created rdma
object_destroyed rdma
object_created:dek root
object_destroyed:dek root
qp_state rdma
sq_drained root
sig_error root
wr_canceled root
recovery root
cq_error root
pool_borrow root
pool_return root
pool_resize rdma
vnic_state rdma
vnic_mac_table rdma
vnic_trap rdma
application_attached rdma
application_detached rdma
vdev_created rdma
vdev_destroyed rdma
vdev_connected rdma
vdev_disconnected rdma
'

# probe_all [attach]: every method of every interface the daemon lists, each called
# with a parameter no method has, as "METHOD allowed" (InvalidParameter: the
# authorization passed, the parameters are checked after it) or "METHOD
# denied" (PermissionDenied).  Streaming methods need "more" before anything.
probe_all() {
	python3 - "$RDMACTL_SOCKET" "$@" <<-'EOF'
	import json, re, socket, sys
	s = socket.socket(socket.AF_UNIX)
	s.settimeout(5)
	s.connect(sys.argv[1])
	def call(method, params, more=False):
	    msg = {"method": method, "parameters": params}
	    if more:
	        msg["more"] = True
	    s.sendall(json.dumps(msg).encode() + b"\0")
	    buf = b""
	    while not buf.endswith(b"\0"):
	        chunk = s.recv(65536)
	        if not chunk:
	            sys.exit("the daemon closed the connection on " + method)
	        buf += chunk
	    return json.loads(buf[:-1])
	if len(sys.argv) > 2:
	    call("io.rdmad.Daemon.Attach", {})
	for iface in call("org.varlink.service.GetInfo", {})["parameters"]["interfaces"]:
	    text = call("org.varlink.service.GetInterfaceDescription", {"interface": iface})
	    for name in re.findall(r"^method\s+(\w+)", text["parameters"]["description"], re.M):
	        r = call(iface + "." + name, {"authz_probe": True}, more=True)
	        if r.get("error") == "org.varlink.service.PermissionDenied":
	            verdict = "denied"
	        elif r == {"error": "org.varlink.service.InvalidParameter",
	                   "parameters": {"parameter": "authz_probe"}}:
	            verdict = "allowed"
	        else:
	            verdict = "unexpected " + json.dumps(r)
	        print(iface + "." + name, verdict)
	EOF
}

# expected_for ROLE: "METHOD allowed|denied" for root, member, program (a member's
# connection that attached) or outsider, from $METHODS.
expected_for() {
	awk -v role="$1" 'NF == 2 {
		ok = role == "root" || $2 == "all" || ($2 == "rdma" && (role == "member" || role == "program")) ||
		     ($2 == "program" && role == "program")
		print $1, ok ? "allowed" : "denied"
	}' <<<"$METHODS" | sort
}

@test "the matrix: every method, for root, a member of group rdma, its program and an outsider" {
	run probe_all
	assert_success
	assert_equal "$(sort <<<"$output")" "$(expected_for root)"
	run as "$IN_USER" bash -c "$(declare -f probe_all); probe_all"
	assert_success
	assert_equal "$(sort <<<"$output")" "$(expected_for member)"
	run as "$IN_USER" bash -c "$(declare -f probe_all); probe_all attach"
	assert_success
	assert_equal "$(sort <<<"$output")" "$(expected_for program)"
	run as "$OUT_USER" bash -c "$(declare -f probe_all); probe_all"
	assert_success
	assert_equal "$(sort <<<"$output")" "$(expected_for outsider)"
}

# monitor_as USER FILE: rdmactl -j monitor as USER in the background, once
# subscribed; its events in FILE, its complaints in FILE.err.
monitor_as() {
	as "$1" "$RDMACTL" -j monitor >"$2" 2>"$2.err" 3>&- &
	echo $! >"$2.pid"
	for i in $(seq 1 100); do
		grep -q subscribed "$2" && return 0
		sleep 0.05
	done
	cat "$2" >&2
	return 1
}

# The interface of VNIC port 0 of the daemon at RDMACTL_SOCKET.
ctl_vnic_ifname() {
	"$RDMACTL" -j vnic show 0 | jq -r '.[0].netdev'
}

# seen FILE: the events of a monitor's output as TYPE, or TYPE:dek for DEK events, once each.
seen() {
	jq -r 'if .kind == "dek" then "\(.type):dek" else .type end' "$1" | sort -u
}

@test "the matrix: every event type, for root, a member of group rdma and an outsider; a member hears of its own objects only" {
	# The table names every type the interface has.
	types=$(varlink_raw '{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"io.rdmad.Monitor"}}\0' |
		jq -r '.parameters.description' | tr -d '\n' | sed -n 's/.* type: (\([^)]*\)).*/\1/p' | tr -d ' ' | tr ',' '\n' | sort)
	assert_equal "$types" "$(awk 'NF == 2 && $1 !~ /:/ { print $1 }' <<<"$EVENTS" | sort)"
	# A daemon of its own: PD 1, and nothing else the other tests left.
	E=$D/events
	# With an OPA port (a software fabric on loopback) for the VNIC events.
	mkdir -p "$E"
	printf 'fabric_lid = 1\nfabric_address = 127.0.0.1:47951\nfabric_node.100 = 127.0.0.1:47952\n' \
		>"$E/rdmad.conf"
	rdmad_start "$E"
	chmod 0666 "$E/io.rdmad"
	denied "$OUT_USER" monitor
	monitor_as root "$E/root"
	monitor_as "$IN_USER" "$E/member"
	cd "$BATS_TEST_TMPDIR"
	# Objects come and go, a DEK among them; QPs change state.
	"$RDMACTL" pd create >/dev/null
	"$RDMACTL" gid add 0 fe80::1 >/dev/null
	head -c 32 /dev/urandom | "$RDMACTL" dek create secret --size 128 --key-file - >/dev/null
	"$RDMACTL" dek destroy secret
	# A pool's MKEY borrowed and given back (who borrows is root's to know), the pool resized.
	"$RDMACTL" pool create events --type signature --size 1 >/dev/null
	key=$("$RDMACTL" pool borrow events --owner job)
	"$RDMACTL" pool return "$key" --owner job
	"$RDMACTL" pool resize events --size 2 >/dev/null
	# A VM's front end connects to a vdev and goes; the vdev goes.
	"$RDMACTL" vdev create events --socket "$E/vm.sock" >/dev/null
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$E/vm.sock"
	for i in $(seq 1 100); do
		grep -q '"vdev_disconnected"' "$E/root" && break
		sleep 0.05
	done
	"$RDMACTL" vdev destroy events
	MEM=$(new_mr 1 8192 local_write,remote_write,remote_read)
	PEER=$(new_mr 1 8192 local_write,remote_write,remote_read)
	pair
	# A signature error: a WRITE through a T10-DIF MKEY whose PI is wrong.
	k=$(t10_mkey "$MEM" 0 00005678f0debc9a)
	"$RDMACTL" qp post "$A" write --sge "$k:0:512" --remote "$PEER:0" --wrid 1 --signaled
	poll_n "$CA" 1 >/dev/null
	# SQD (drained), a cancel and a recovery by hand back to RTS.
	"$RDMACTL" qp modify "$A" --state sqd >/dev/null
	"$RDMACTL" qp cancel "$A" --wrid 7 >/dev/null
	"$RDMACTL" qp recover "$A" >/dev/null
	"$RDMACTL" qp destroy "$B"
	# A CQ of one entry overflowed by two signaled WRITEs: in error.
	CO=$(new_cq 1)
	X=$(new_qp "$CO")
	Y=$(new_qp "$CA")
	connect "$X" "$Y"
	connect "$Y" "$X"
	for id in 1 2; do
		"$RDMACTL" qp post "$X" write --sge "$MEM:0:4" --remote "$PEER:0" --wrid "$id" --signaled
	done
	for i in $(seq 1 100); do
		grep -q '"cq_error"' "$E/root" && break
		sleep 0.05
	done
	# Two programs of the member attach through librdmad, transfer and go away.
	as "$IN_USER" "$BUILD/examples/rdmad_perftest" -s "$RDMACTL_SOCKET" -t write -z 64 -n 10 >/dev/null
	# The Ethernet Manager makes VNIC port 0, writes its MAC table; the host sets it up (a trap).
	"$BUILD/tools/opa-em" --lid 100 --address 127.0.0.1:47952 --node 1=127.0.0.1:47951 \
		set-cpi 1 trap_lid=100 -- set-port 1 0 vesw_id=1 config_state=forwarding \
		-- set-macs 1 0 0 7 02:00:00:00:00:01=2 >/dev/null
	ip link set "$(ctl_vnic_ifname)" up
	for i in $(seq 1 100); do
		[ "$(grep -l '"vnic_trap"' "$E/root" "$E/member" | wc -l)" -eq 2 ] && break
		sleep 0.05
	done
	for i in $(seq 1 100); do
		[ "$(grep -l '"object_destroyed".*"kind":"qp"' "$E/root" "$E/member" | wc -l)" -eq 2 ] && break
		sleep 0.05
	done
	monitor_stop "$E/root"
	monitor_stop "$E/member"
	rdmad_stop "$E"
	export RDMACTL_SOCKET="$D/io.rdmad"
	# Each event where the table says: root sees all, the member what rdma may.
	assert_equal "$(seen "$E/root")" "$(awk 'NF == 2 { print $1 }' <<<"$EVENTS" | sort)"
	assert_equal "$(seen "$E/member")" "$(awk 'NF == 2 && $2 == "rdma" { print $1 }' <<<"$EVENTS" | sort)"
	# And the member's stream is root's restricted: the same events in the same
	# order, none of root's objects (its PD, its QPs) among them.
	jq -c 'del(.time_usec)' "$E/member" >"$E/member.lines"
	assert_equal "$(cat "$E/member.lines")" "$(jq -c 'del(.time_usec)' "$E/root" | grep -Fx -f "$E/member.lines")"
	run grep -E "\"kind\":\"pd\",\"handle\":1[,}]|\"kind\":\"qp\",\"handle\":($A|$B)[,}]" "$E/member.lines"
	assert_failure
}

@test "who borrows from a pool is root's: a member's pool show counts the MKEY in use but names no borrower" {
	"$RDMACTL" pool create seen --type signature --size 2 >/dev/null
	key=$("$RDMACTL" pool borrow seen --owner job-7)
	run "$RDMACTL" -j pool show seen
	assert_equal "$(jq -c '.[0] | [.in_use, [.borrowers[].owner]]' <<<"$output")" '[1,["job-7"]]'
	run as "$IN_USER" "$RDMACTL" -j pool show seen
	assert_success
	assert_equal "$(jq -c '.[0] | [.in_use, .borrowers]' <<<"$output")" '[1,[]]'
	run as "$IN_USER" "$RDMACTL" pool list
	assert_success
	refute_output --partial job-7
	"$RDMACTL" pool return "$key" --owner job-7
	"$RDMACTL" pool destroy seen
}

@test "which DEK an MKEY uses is root's: a member's program sees crypto.dek null on its own MKEY; root's MKEYs are not there for it" {
	cd "$BATS_TEST_TMPDIR"
	pd=$("$RDMACTL" -j pd create | jq -r '.[0].handle')
	mr=$("$RDMACTL" -j mr create "$pd" --size 4096 | jq -r '.[0].lkey')
	dek=$(head -c 32 /dev/urandom | "$RDMACTL" -j dek create shown --size 128 --key-file - --allow "$IN_USER" | jq -r '.[0].handle')
	k=$("$RDMACTL" -j mkey create "$pd" --flags crypto --max-entries 4 | jq -r '.[0].handle')
	echo '{"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"data_unit_size":512}}' >c.json
	"$RDMACTL" mkey configure "$k" --layout "$mr:0:512" --config c.json --dek "$dek" >/dev/null
	run "$RDMACTL" -j mkey show "$k"
	assert_equal "$(jq -c '.[0].config.crypto | [.dek, .dek_name, .keytag]' <<<"$output")" "[$dek,\"shown\",false]"
	# Root's MKEY is not the member's to see.
	run as "$IN_USER" "$RDMACTL" -j mkey show "$k"
	assert_failure 1
	assert_output --partial '"error":"io.rdmad.Mkey.NoSuchObject"'
	run as "$IN_USER" "$RDMACTL" -j mkey list
	assert_success
	assert_equal "$(jq -c "[.[] | select(.handle == $k)]" <<<"$output")" '[]'
	# The member's program, its MKEY configured with the DEK root lent it, by name.
	cfg='{"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"data_unit_size":512,"dek":"shown"}}'
	run as "$IN_USER" /usr/bin/python3 "$TOP/tests/tools/varlink-app.py" "$RDMACTL_SOCKET" io.rdmad.Daemon.Attach \
		io.rdmad.Pd.Create 'io.rdmad.Mr.Create={"pd":"$1.pd.handle","size":4096,"access":[]}' \
		'io.rdmad.Mkey.Create={"pd":"$1.pd.handle","flags":["crypto"],"max_entries":4}' \
		"io.rdmad.Mkey.Configure={\"handle\":\"\$3.mkey.handle\",\"layout\":[{\"mr\":\"\$2.mr.lkey\",\"offset\":0,\"length\":512}],\"config\":$cfg}" \
		'io.rdmad.Mkey.Show={"handle":"$3.mkey.handle"}'
	assert_success
	assert_equal "$(jq -c 'select(.method == "io.rdmad.Mkey.Show") | .parameters.mkey.config.crypto | [.dek, .dek_name, .keytag, .data_unit_size]' <<<"$output")" "[null,null,false,512]"
	"$RDMACTL" mkey destroy "$k"
	"$RDMACTL" dek destroy shown
	"$RDMACTL" mr destroy "$mr"
	"$RDMACTL" pd destroy "$pd"
}
