#!/usr/bin/env bats
# make check runs this file alone: users and groups of the system.
# Tenants: programs of two members of group rdma beside root's on one rdmad.
# Each attaches (io.rdmad.Daemon.Attach, what rdmad_open does), owns what it
# creates, sees and touches nothing of the others', and stays within the
# limits rdmad.conf(5) sets for its uid.  tests/tools/varlink-app.py speaks
# for a program on the wire, so that a test can aim a call at exactly the
# handle it wants.

load helper
load users-helper

A=rdmad-ten-a
B=rdmad-ten-b
OUT=rdmad-ten-out

setup_file() {
	command -v setpriv >/dev/null || skip "setpriv missing"
	users_make "$A" "$OUT"
	userdel "$B" 2>/dev/null || true
	useradd --no-create-home --no-user-group --shell /usr/sbin/nologin --groups rdma "$B"
	D=$(shared_dir tenants)
	cat >"$D/rdmad.conf" <<-EOF
	max_pds_per_uid = 3
	connection_idle_timeout = 1
	EOF
	rdmad_start "$D"
	# Open to every user: what is tested is the daemon's refusal, not the socket's mode.
	chmod 0666 "$D/io.rdmad"
	"$RDMACTL" gid show 0 >/dev/null 2>&1 || "$RDMACTL" gid add 0 fe80::1
}

teardown_file() {
	D=$(cat "$BATS_FILE_TMPDIR/dir" 2>/dev/null) || return 0
	rdmad_stop "$D"
	rm -rf "$D"
	userdel "$B" 2>/dev/null || true
	users_remove "$A" "$OUT"
}

setup() {
	load_libs
	D=$(cat "$BATS_FILE_TMPDIR/dir")
	export RDMACTL_SOCKET="$D/io.rdmad"
	APP="$TOP/tests/tools/varlink-app.py"
	# Debian's, which every user may run (a python3 earlier in root's PATH may be root's alone).
	PY=/usr/bin/python3
}

# app USER STEP...: a program of USER's that attaches, then runs STEPs (varlink-app.py).
app() {
	local user=$1
	shift
	as "$user" "$PY" "$APP" "$RDMACTL_SOCKET" io.rdmad.Daemon.Attach "$@"
}

# held USER NAME STEP...: app USER … in the background, holding what it made
# until release NAME; its lines in $D/NAME.out once it holds.
held() {
	local user=$1 name=$2 i
	shift 2
	rm -f "$D/$name.go" "$D/$name.out"
	app "$user" "$@" "hold=$D/$name.go" </dev/null >"$D/$name.out" 2>&1 3>&- &
	echo $! >"$D/$name.held"
	for i in $(seq 1 100); do
		grep -q '"hold"' "$D/$name.out" && return 0
		sleep 0.05
	done
	cat "$D/$name.out" >&2
	return 1
}

release() {
	touch "$D/$1.go"
	wait "$(cat "$D/$1.held")" 2>/dev/null || true
	rm -f "$D/$1.held"
}

# A test that failed while programs held: they go too.
teardown() {
	local held
	for held in "$D"/*.held; do
		[ -e "$held" ] || continue
		release "$(basename "$held" .held)"
	done
}

# reply FILE METHOD: the parameters of the first reply to METHOD in FILE.
reply() {
	jq -c "select(.method == \"$2\") | .parameters" "$1" | head -n 1
}

# error_of METHOD: the error the last run's reply to METHOD was.
error_of() {
	jq -r "select(.method == \"$1\") | .error // \"none\"" <<<"$output" | tail -n 1
}

pingpong_pair() { # USER DIR: a ping-pong of two processes of USER through FIFOs in DIR
	local user=$1 dir=$2
	mkdir -p "$dir" && chmod 0777 "$dir"
	mkfifo "$dir/a" "$dir/b" && chmod 0666 "$dir/a" "$dir/b"
	as "$user" sh -c '"$0" -s "$1" -n 100 -z 512 <"$2/a" >"$2/b" 2>"$2/server.err"' \
		"$BUILD/examples/rdmad_rc_pingpong" "$RDMACTL_SOCKET" "$dir" &
	as "$user" sh -c '"$0" -c -s "$1" -n 100 -z 512 >"$2/a" <"$2/b" 2>"$2/client.err"' \
		"$BUILD/examples/rdmad_rc_pingpong" "$RDMACTL_SOCKET" "$dir"
	wait $!
}

@test "a member of group rdma runs an RDMA program: two processes ping-pong through rdmad" {
	run pingpong_pair "$A" "$D/pp-a"
	assert_success
	run cat "$D/pp-a/client.err"
	assert_output --partial "100 iters"
}

@test "two users' programs and root's ping-pong side by side" {
	pingpong_pair "$A" "$D/side-a" &
	pa=$!
	pingpong_pair "$B" "$D/side-b" &
	pb=$!
	pingpong_pair root "$D/side-root"
	wait "$pa"
	wait "$pb"
	for who in a b root; do
		run cat "$D/side-$who/client.err"
		assert_output --partial "100 iters"
	done
}

@test "a member's rdmactl creates nothing: its objects belong to programs, and it is told so" {
	run --separate-stderr as "$A" "$RDMACTL" pd create
	assert_failure 1
	assert_regex "$stderr" "PermissionDenied: needs root, or a program of group rdma attached to the daemon"
	run as "$A" "$PY" "$APP" "$RDMACTL_SOCKET" 'io.rdmad.Daemon.GetAccess={"method":"io.rdmad.Pd.Create"}'
	assert_equal "$(jq -r .parameters.needs <<<"$output")" attached
	# Device-wide changes stay root's even for an attached program.
	run app "$A" 'io.rdmad.Gid.Add={"index":5,"gid":"fe80::5"}' 'io.rdmad.Pool.Create={"name":"p","size":1}'
	assert_equal "$(jq -r 'select(.method != "io.rdmad.Daemon.Attach") | .error' <<<"$output" | sort -u)" \
		org.varlink.service.PermissionDenied
}

@test "a user outside group rdma may not attach" {
	run as "$OUT" "$PY" "$APP" "$RDMACTL_SOCKET" io.rdmad.Daemon.Attach
	assert_success
	assert_equal "$(error_of io.rdmad.Daemon.Attach)" org.varlink.service.PermissionDenied
	assert_equal "$("$RDMACTL" -j status | jq '.tenants | length')" 0
}

@test "another tenant's objects are not there: every method refuses the handles, nothing changes" {
	held "$A" victim 'io.rdmad.Pd.Create' 'io.rdmad.Mr.Create={"pd":"$1.pd.handle","size":4096,"access":["local_write","remote_write","remote_read"]}' \
		'io.rdmad.Cq.Create={"cqe":16}' \
		'io.rdmad.Qp.Create={"pd":"$1.pd.handle","send_cq":"$3.cq.handle","recv_cq":"$3.cq.handle","type":"rc","max_send_wr":4,"max_recv_wr":4}' \
		'io.rdmad.Mkey.Create={"pd":"$1.pd.handle","max_entries":4}' \
		'io.rdmad.Mr.Write={"handle":"$2.mr.lkey","data":"c2VjcmV0"}'
	pd=$(reply "$D/victim.out" io.rdmad.Pd.Create | jq .pd.handle)
	mr=$(reply "$D/victim.out" io.rdmad.Mr.Create | jq .mr.lkey)
	cq=$(reply "$D/victim.out" io.rdmad.Cq.Create | jq .cq.handle)
	qp=$(reply "$D/victim.out" io.rdmad.Qp.Create | jq .qp.handle)
	mkey=$(reply "$D/victim.out" io.rdmad.Mkey.Create | jq .mkey.handle)
	[ -n "$pd" ] && [ -n "$mr" ] && [ -n "$cq" ] && [ -n "$qp" ] && [ -n "$mkey" ]

	refused=$("$RDMACTL" -j status | jq .refused_not_owner)
	# B's program, aiming at A's handles through every method a program uses.
	run app "$B" \
		"io.rdmad.Pd.Show={\"handle\":$pd}" "io.rdmad.Pd.Destroy={\"handle\":$pd}" \
		"io.rdmad.Mr.Show={\"handle\":$mr}" "io.rdmad.Mr.Read={\"handle\":$mr,\"length\":6}" \
		"io.rdmad.Mr.Write={\"handle\":$mr,\"data\":\"AAAA\"}" "io.rdmad.Mr.Destroy={\"handle\":$mr}" \
		"io.rdmad.Mr.Create={\"pd\":$pd,\"size\":4096,\"access\":[]}" \
		"io.rdmad.Cq.Show={\"handle\":$cq}" "io.rdmad.Cq.Poll={\"handle\":$cq}" \
		"io.rdmad.Cq.Notify={\"handle\":$cq,\"notify\":\"next\"}" "io.rdmad.Cq.Destroy={\"handle\":$cq}" \
		"io.rdmad.Qp.Show={\"handle\":$qp}" "io.rdmad.Qp.Modify={\"handle\":$qp,\"state\":\"err\"}" \
		"io.rdmad.Qp.PostRecv={\"handle\":$qp,\"wr_id\":1,\"sges\":[]}" \
		"io.rdmad.Qp.Cancel={\"handle\":$qp,\"wr_id\":1}" "io.rdmad.Qp.Destroy={\"handle\":$qp}" \
		"io.rdmad.Qp.Create={\"pd\":$pd,\"send_cq\":$cq,\"recv_cq\":$cq,\"type\":\"rc\"}" \
		"io.rdmad.Mkey.Show={\"handle\":$mkey}" "io.rdmad.Mkey.Check={\"handle\":$mkey}" \
		"io.rdmad.Mkey.Destroy={\"handle\":$mkey}" "io.rdmad.Mkey.Create={\"pd\":$pd,\"max_entries\":4}" \
		"io.rdmad.Ah.Create={\"pd\":$pd,\"dgid\":\"fe80::9\",\"sgid_index\":0}"
	assert_success
	# Every call but Attach answered NoSuchObject of its own interface, none went through.
	run jq -r 'select(.method != "io.rdmad.Daemon.Attach") | "\(.method) \(.error // "none")"' <<<"$output"
	while read -r method error; do
		assert_equal "$error" "${method%.*}.NoSuchObject"
	done <<<"$output"
	[ "$(wc -l <<<"$output")" -eq 22 ]
	# Every one of them counted as a refusal.
	assert_equal "$(( $("$RDMACTL" -j status | jq .refused_not_owner) - refused ))" 22

	# B's rdmactl (no program) lists none of A's objects; A's own rdmactl sees them; root all.
	for kind in pd mr cq qp mkey; do
		run as "$B" "$RDMACTL" -j "$kind" list
		assert_success
		assert_equal "$(jq 'length' <<<"$output")" 0
	done
	run as "$A" "$RDMACTL" -j qp list
	assert_equal "$(jq -c '[.[].handle]' <<<"$output")" "[$qp]"
	run as "$A" "$RDMACTL" -j pd show "$pd"
	assert_success
	run as "$B" "$RDMACTL" -j pd show "$pd"
	assert_failure 1
	run "$RDMACTL" -j pd show "$pd"
	assert_success
	# The victim's bytes and objects are as they were.
	run "$RDMACTL" mr read "$mr" --length 6
	assert_output secret
	assert_equal "$("$RDMACTL" -j qp show "$qp" | jq -r '.[0].state')" reset
	release victim
	run "$RDMACTL" -j pd show "$pd"
	assert_failure 1
}

@test "status and ListApplications: root sees every tenant, a tenant its own uid alone" {
	held "$A" sa 'io.rdmad.Pd.Create' 'io.rdmad.Mr.Create={"pd":"$1.pd.handle","size":8192,"access":[]}'
	held "$B" sb 'io.rdmad.Pd.Create'
	uid_a=$(id -u "$A")
	uid_b=$(id -u "$B")
	run "$RDMACTL" -j status
	assert_equal "$(jq -c "[.tenants[] | .uid] | sort" <<<"$output")" "$(jq -cn "[$uid_a, $uid_b] | sort")"
	assert_equal "$(jq -c ".tenants[] | select(.uid == $uid_a) | [.programs, .objects.pds, .objects.mrs, .objects.registered_bytes, .limits.pds, .limits.registered_bytes]" <<<"$output")" \
		"[1,1,1,8192,3,null]"
	run as "$B" "$RDMACTL" -j status
	assert_success
	assert_equal "$(jq -c '[.tenants[] | .uid]' <<<"$output")" "[$uid_b]"
	# Counted as listed: a tenant counts its own uid's objects, root every one.
	assert_equal "$(jq -c '.device_status[0].objects' <<<"$output")" \
		'{"pds":1,"mrs":0,"cqs":0,"qps":0,"ahs":0,"mkeys":0}'
	assert_equal "$("$RDMACTL" -j status | jq -c '.device_status[0].objects | [.pds, .mrs]')" '[2,1]'
	run as "$B" "$PY" "$APP" "$RDMACTL_SOCKET" io.rdmad.Daemon.ListApplications
	assert_equal "$(jq -c '[.parameters.applications[].uid]' <<<"$output")" "[$uid_b]"
	run as "$B" "$RDMACTL" status
	assert_success
	assert_output --partial "$B (uid $uid_b): 1 program, pds 1/3 mrs 0/1024"
	refute_output --partial "$A"
	release sa
	release sb
}

@test "a tenant's List pages over its own objects: next only while one of its own follows" {
	held "$A" pa 'io.rdmad.Pd.Create' 'io.rdmad.Pd.Create'
	held "$B" pb 'io.rdmad.Pd.Create'
	held "$A" pa2 'io.rdmad.Pd.Create'
	a1=$(jq -s -c '[.[] | .parameters.pd.handle // empty]' "$D/pa.out")
	b=$(jq -s -c '[.[] | .parameters.pd.handle // empty]' "$D/pb.out")
	a2=$(jq -s -c '[.[] | .parameters.pd.handle // empty]' "$D/pa2.out")
	a=$(jq -n -c --argjson x "$a1" --argjson y "$a2" '$x + $y')
	# Interleaved: A's two, B's, A's third.
	[ "$(jq -n --argjson a "$a" --argjson b "$b" '$a[1] < $b[0] and $b[0] < $a[2]')" = true ]
	run as "$A" "$PY" "$APP" "$RDMACTL_SOCKET" 'io.rdmad.Pd.List={"max":2}' \
		'io.rdmad.Pd.List={"after":"$0.next","max":2}'
	assert_success
	assert_equal "$(jq -s -c '[.[0].parameters | [.pds[].handle], .next]' <<<"$output")" \
		"$(jq -n -c --argjson a "$a" '[$a[0:2], $a[1]]')"
	# The last page of A's: B's PD after it is not A's to see, so no next.
	assert_equal "$(jq -s -c '[.[1].parameters | [.pds[].handle], has("next")]' <<<"$output")" \
		"$(jq -n -c --argjson a "$a" '[[$a[2]], false]')"
	run as "$B" "$PY" "$APP" "$RDMACTL_SOCKET" 'io.rdmad.Pd.List={"max":1}'
	assert_equal "$(jq -c '[[.parameters.pds[].handle], (.parameters | has("next"))]' <<<"$output")" \
		"[$b,false]"
	release pa
	release pb
	release pa2
}

@test "a uid's fourth PD is refused naming max_pds_per_uid, across its programs; root is not limited" {
	uid=$(id -u "$A")
	held "$A" first 'io.rdmad.Pd.Create' 'io.rdmad.Pd.Create'
	run app "$A" io.rdmad.Pd.Create io.rdmad.Pd.Create
	assert_equal "$(jq -c 'select(.method == "io.rdmad.Pd.Create") | .error // "ok"' <<<"$output" | tr '\n' ' ')" \
		'"ok" "io.rdmad.Pd.LimitReached" '
	assert_equal "$(jq -c 'select(.error) | .parameters' <<<"$output")" \
		"{\"kind\":\"pd\",\"limit\":3,\"setting\":\"max_pds_per_uid\",\"uid\":$uid,\"in_use\":3}"
	# Another user has its own three.
	run app "$B" io.rdmad.Pd.Create io.rdmad.Pd.Create io.rdmad.Pd.Create
	refute_output --partial LimitReached
	for i in 1 2 3 4; do "$RDMACTL" pd create >/dev/null; done
	release first
}

@test "registered bytes: a program within its RLIMIT_MEMLOCK, the uid within max_registered_bytes_per_uid" {
	uid=$(id -u "$A")
	run prlimit --memlock=65536:65536 setpriv --reuid="$A" --regid="$(id -g "$A")" --init-groups \
		"$PY" "$APP" "$RDMACTL_SOCKET" io.rdmad.Daemon.Attach io.rdmad.Pd.Create \
		'io.rdmad.Mr.Create={"pd":"$1.pd.handle","size":65536,"access":[]}' \
		'io.rdmad.Mr.Create={"pd":"$1.pd.handle","size":4096,"access":[]}'
	assert_success
	assert_equal "$(jq -c 'select(.method == "io.rdmad.Mr.Create") | .error // "ok"' <<<"$output" | tr '\n' ' ')" \
		'"ok" "io.rdmad.Mr.LimitReached" '
	assert_equal "$(jq -c 'select(.error) | .parameters' <<<"$output")" \
		"{\"kind\":\"mr\",\"limit\":65536,\"setting\":\"RLIMIT_MEMLOCK\",\"uid\":$uid,\"in_use\":65536}"

	cp "$D/rdmad.conf" "$D/rdmad.conf.saved"
	echo "max_registered_bytes_per_uid = 98304" >>"$D/rdmad.conf"
	"$RDMACTL" daemon reload
	held "$A" bytes io.rdmad.Pd.Create 'io.rdmad.Mr.Create={"pd":"$1.pd.handle","size":65536,"access":[]}'
	run app "$A" io.rdmad.Pd.Create 'io.rdmad.Mr.Create={"pd":"$1.pd.handle","size":32768,"access":[]}' \
		'io.rdmad.Mr.Create={"pd":"$1.pd.handle","size":4096,"access":[]}'
	assert_equal "$(jq -c 'select(.error) | .parameters' <<<"$output")" \
		"{\"kind\":\"mr\",\"limit\":98304,\"setting\":\"max_registered_bytes_per_uid\",\"uid\":$uid,\"in_use\":98304}"
	release bytes
	mv "$D/rdmad.conf.saved" "$D/rdmad.conf"
	"$RDMACTL" daemon reload
}

@test "an attached program's idle connection stays open; an idle connection of the same user is closed" {
	run app "$A" sleep=2.5 io.rdmad.Device.List
	assert_success
	assert_equal "$(error_of io.rdmad.Device.List)" none
	run as "$A" "$PY" "$APP" "$RDMACTL_SOCKET" io.rdmad.Device.List sleep=2.5 io.rdmad.Device.List
	assert_failure 1
	assert_output --partial '"closed": true'
}

@test "monitor: a tenant hears of its own objects and programs, not of another's or root's" {
	uid_b=$(id -u "$B")
	out="$BATS_TEST_TMPDIR/mon-b"
	as "$B" "$RDMACTL" -j monitor --type object_created --type object_destroyed --type application_attached >"$out" 2>&1 3>&- &
	echo $! >"$out.pid"
	for i in $(seq 1 100); do grep -q subscribed "$out" && break; sleep 0.05; done
	app "$A" io.rdmad.Pd.Create >/dev/null
	pd_root=$("$RDMACTL" -j pd create | jq '.[0].handle')
	"$RDMACTL" pd destroy "$pd_root"
	run app "$B" io.rdmad.Pd.Create
	pd_b=$(jq 'select(.method == "io.rdmad.Pd.Create") | .parameters.pd.handle' <<<"$output")
	sleep 0.3
	monitor_stop "$out"
	# B's own: its application, its PD created and destroyed (with the program); nothing else.
	run jq -c 'select(.type != "subscribed") | [.type, .kind // .application.uid, .handle]' "$out"
	assert_output "[\"application_attached\",$uid_b,null]
[\"object_created\",\"pd\",$pd_b]
[\"object_destroyed\",\"pd\",$pd_b]"
}

@test "a DEK and a pool lent to one user: its program uses them; another user's is told they are not there" {
	cd "$BATS_TEST_TMPDIR"
	head -c 32 /dev/urandom | "$RDMACTL" dek create lent --size 128 --key-file - --allow "$A" >/dev/null
	"$RDMACTL" pool create lentpool --size 2 --type crypto --max-entries 4 --allow "$A" >/dev/null
	cfg='{"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"data_unit_size":512,"dek":"lent"}}'
	steps=(io.rdmad.Pd.Create
		'io.rdmad.Mr.Create={"pd":"$1.pd.handle","size":4096,"access":["local_write"]}'
		'io.rdmad.Mkey.Create={"pd":"$1.pd.handle","flags":["crypto"],"max_entries":4}'
		"io.rdmad.Mkey.Configure={\"handle\":\"\$3.mkey.handle\",\"layout\":[{\"mr\":\"\$2.mr.lkey\",\"offset\":0,\"length\":512}],\"config\":$cfg}"
		'io.rdmad.Dek.Show={"name":"lent"}'
		'io.rdmad.Pool.Borrow={"name":"lentpool"}')
	run app "$A" "${steps[@]}"
	assert_success
	assert_equal "$(jq -r 'select(.method != "io.rdmad.Daemon.Attach") | .error // "ok"' <<<"$output" | sort -u)" ok
	# What A's program learns of the DEK: what configuring needs, not where the key came from.
	assert_equal "$(jq -c 'select(.method == "io.rdmad.Dek.Show") | .parameters.dek | [.name, .size, .key_file, has("allow"), has("opaque")]' <<<"$output")" \
		'["lent",128,null,false,false]'
	run app "$B" "${steps[@]}"
	# As of a DEK that is not there: what root has is not for B to learn.
	assert_equal "$(error_of io.rdmad.Mkey.Configure)" io.rdmad.Mkey.InvalidArgument
	assert_regex "$(jq -r 'select(.method == "io.rdmad.Mkey.Configure") | .parameters.reason' <<<"$output")" "no DEK 'lent' that user $(id -u "$B") may use"
	assert_equal "$(error_of io.rdmad.Dek.Show)" io.rdmad.Dek.NoSuchDek
	assert_equal "$(error_of io.rdmad.Pool.Borrow)" io.rdmad.Pool.InvalidState
	# A's borrow came back when its program went.
	assert_equal "$("$RDMACTL" -j pool show lentpool | jq '.[0].in_use')" 0
}
