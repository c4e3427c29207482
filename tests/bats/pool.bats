#!/usr/bin/env bats
# MKEY pools against a real rdmad (SPDK's design, reference mlx5_sig_crypto.md §6.1):
# MKEYs of one kind made in advance, borrowed and returned with counters, returned
# automatically when the borrowing client goes away.

load helper

setup_file() {
	rdmad_start
	"$RDMACTL" pd create >/dev/null    # PD 1
}
teardown_file() { rdmad_stop; }
# The persistence test's own daemon, if it failed half-way.
teardown() { rdmad_stop "$BATS_TEST_TMPDIR/d" || true; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
}

pool_json() {
	"$RDMACTL" -j pool show "$1" | jq -c '.[0]'
}
counters() {
	pool_json "$1" | jq -c '[.size, .available, .in_use, .high_water, .borrow_failures]'
}
assert_refused() {
	assert_failure "$(refusal_status "$1")"
	assert_output --partial "io.rdmad.Pool.$1: field '$2'"
}

# client.py: one varlink connection running the calls given as JSON arguments in
# order, printing each reply on a line; with --hold it then waits for stdin to close.
make_client() {
	cat >client.py <<'EOF'
import json, socket, sys, os
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(os.environ["RDMACTL_SOCKET"])
buf = b""
args = sys.argv[1:]
hold = args and args[0] == "--hold"
for call in args[1:] if hold else args:
    s.sendall(call.encode() + b"\0")
    while b"\0" not in buf:
        buf += s.recv(65536)
    msg, buf = buf.split(b"\0", 1)
    print(msg.decode(), flush=True)
if hold:
    sys.stdin.read()
s.close()
EOF
}

@test "pool create: size MKEYs of the type, on a PD of the pool's own, counters at zero" {
	run "$RDMACTL" -j pool create p1 --type signature+crypto --size 3
	assert_success
	rec=$(jq -c '.[0]' <<<"$output")
	assert_equal "$(jq -c '{ifname, ifindex, name, type, max_entries, pd_owned, size, available, in_use, high_water, borrow_failures, borrows, returns}' <<<"$rec")" \
		'{"ifname":"soft0","ifindex":0,"name":"p1","type":"signature+crypto","max_entries":128,"pd_owned":true,"size":3,"available":3,"in_use":0,"high_water":0,"borrow_failures":0,"borrows":0,"returns":0}'
	pd=$(jq -r .pd <<<"$rec")
	[ "$pd" != 1 ]
	for k in $(jq -r '.members[]' <<<"$rec"); do
		assert_equal "$("$RDMACTL" -j mkey show "$k" | jq -c '.[0] | [.flags, .max_entries, .state, .pool_name, .borrowed, .pd]')" \
			"[[\"block_signature\",\"crypto\"],128,\"free\",\"p1\",false,$pd]"
	done
	# The pool's PD is in use while the pool is there.
	run "$RDMACTL" pd destroy "$pd"
	assert_failure 1
	assert_output --partial "ObjectInUse: kind 'pd', handle '$pd'"
}

@test "pool create on a given PD, with --max-entries; list and show text" {
	run "$RDMACTL" -j pool create p2 --type crypto --size 2 --pd 1 --max-entries 5
	assert_success
	assert_equal "$(jq -c '.[0] | [.type, .pd, .pd_owned, .max_entries]' <<<"$output")" '["crypto",1,false,8]'
	run "$RDMACTL" pool show p2
	assert_success
	assert_line --index 0 --regexp '^pool [0-9]+: ifname soft0 ifindex 0 name p2 type crypto max_entries 8 pd 1 pd_owned false size 2 available 2'
	run "$RDMACTL" -j pool list
	assert_success
	[ "$(jq '[.[] | select(.name == "p2")] | length' <<<"$output")" = 1 ]
	run "$RDMACTL" pool
	assert_success
	assert_output --partial 'name p2'
	"$RDMACTL" pool destroy p2
}

@test "pool create refusals name the field; nothing created" {
	n=$("$RDMACTL" -j pool list | jq length)
	m=$("$RDMACTL" -j mkey list | jq length)
	"$RDMACTL" pool create dup --type signature --size 1 >/dev/null
	run "$RDMACTL" pool create dup --type signature --size 1
	assert_refused InvalidArgument name
	run "$RDMACTL" pool create 'bad name' --type signature --size 1
	assert_refused InvalidArgument name
	run "$RDMACTL" pool create p --type signature --size 0
	assert_refused InvalidArgument size
	run "$RDMACTL" pool create p --type signature --size 65537
	assert_refused InvalidArgument size
	run "$RDMACTL" pool create p --type signature --size 1 --max-entries 300
	assert_refused InvalidArgument max_entries
	run "$RDMACTL" pool create p --type signature --size 1 --pd 77
	assert_failure 1
	assert_output --partial "io.rdmad.Pool.NoSuchObject: kind 'pd', handle '77'"
	run "$RDMACTL" pool create p --type plain --size 1
	assert_failure 2
	run "$RDMACTL" pool create p --size 1
	assert_failure 2
	run varlink_raw '{"method":"io.rdmad.Pool.Create","parameters":{"name":"p","type":"plain","size":1}}\0'
	assert_output '{"error":"io.rdmad.Pool.InvalidArgument","parameters":{"field":"type","reason":"signature, crypto or signature+crypto"}}'
	"$RDMACTL" pool destroy dup
	assert_equal "$("$RDMACTL" -j pool list | jq length)" "$n"
	assert_equal "$("$RDMACTL" -j mkey list | jq length)" "$m"
	run "$RDMACTL" pool show nosuch
	assert_failure 1
	assert_output --partial "io.rdmad.Pool.NoSuchPool: name 'nosuch'"
}

@test "borrow and return: counters, high water, failures; a returned MKEY is free again" {
	make_client
	"$RDMACTL" pool create b --type signature --size 2 >/dev/null
	mr=$("$RDMACTL" -j mr create 1 --size 4096 | jq -r '.[0].handle')
	pd=$(pool_json b | jq -r .pd)
	mr=$("$RDMACTL" -j mr create "$pd" --size 4096 | jq -r '.[0].handle')
	run python3 client.py \
		'{"method":"io.rdmad.Pool.Borrow","parameters":{"name":"b"}}' \
		'{"method":"io.rdmad.Pool.Borrow","parameters":{"name":"b"}}' \
		'{"method":"io.rdmad.Pool.Borrow","parameters":{"name":"b"}}'
	assert_success
	k=$(sed -n 1p <<<"$output" | jq -r .parameters.mkey)
	assert_line --index 2 --partial '{"error":"io.rdmad.Pool.InvalidState","parameters":{"field":"name","reason":"all 2 MKEYs of pool b are borrowed"}}'
	# The client went away: both came back.
	assert_equal "$(counters b)" '[2,2,0,2,1]'
	assert_equal "$(pool_json b | jq -c '[.borrows, .returns]')" '[2,2]'
	# Borrow, configure through io.rdmad.Mkey, return on the same connection.
	run python3 client.py \
		'{"method":"io.rdmad.Pool.Borrow","parameters":{"name":"b"}}' \
		"{\"method\":\"io.rdmad.Mkey.Configure\",\"parameters\":{\"handle\":$k,\"layout\":[{\"mr\":$mr,\"offset\":0,\"length\":512}]}}" \
		"{\"method\":\"io.rdmad.Mkey.Show\",\"parameters\":{\"handle\":$k}}" \
		"{\"method\":\"io.rdmad.Mr.Destroy\",\"parameters\":{\"handle\":$mr}}" \
		"{\"method\":\"io.rdmad.Pool.Return\",\"parameters\":{\"handle\":$k}}" \
		"{\"method\":\"io.rdmad.Pool.Return\",\"parameters\":{\"handle\":$k}}"
	assert_success
	assert_equal "$(sed -n 1p <<<"$output")" "{\"parameters\":{\"mkey\":$k}}"
	assert_equal "$(sed -n 3p <<<"$output" | jq -c '.parameters.mkey | [.state, .borrowed, .length]')" '["configured",true,512]'
	assert_line --index 3 --partial "ObjectInUse"
	assert_line --index 4 '{"parameters":{}}'
	assert_line --index 5 --partial '{"error":"io.rdmad.Pool.InvalidState","parameters":{"field":"handle","reason":"the MKEY is in pool b, not borrowed"}}'
	# Returned: free, no layout, its MR no longer held.
	assert_equal "$("$RDMACTL" -j mkey show "$k" | jq -c '.[0] | [.state, .layout, .borrowed]')" '["free",null,false]'
	run "$RDMACTL" mr destroy "$mr"
	assert_success
	# An MKEY of the pool is not configured or destroyed unless borrowed / with the pool.
	run "$RDMACTL" mkey configure "$k" --access local_write
	assert_failure 1
	assert_output --partial "io.rdmad.Mkey.InvalidState: field 'handle', reason 'the MKEY is in pool b: borrow it first'"
	run "$RDMACTL" mkey destroy "$k"
	assert_failure 1
	assert_output --partial "io.rdmad.Mkey.InvalidState: field 'handle'"
	"$RDMACTL" pool destroy b
}

@test "a client that borrows and exits gives its MKEYs back; another client cannot return them" {
	make_client
	"$RDMACTL" pool create auto --type crypto --size 3 >/dev/null
	coproc holder { python3 client.py --hold \
		'{"method":"io.rdmad.Pool.Borrow","parameters":{"name":"auto"}}' \
		'{"method":"io.rdmad.Pool.Borrow","parameters":{"name":"auto"}}'; }
	read -r first <&"${holder[0]}"
	read -r second <&"${holder[0]}"
	k=$(jq -r .parameters.mkey <<<"$first")
	assert_equal "$(counters auto)" '[3,1,2,2,0]'
	assert_equal "$("$RDMACTL" -j mkey show "$k" | jq -c '.[0].borrowed')" true
	run python3 client.py "{\"method\":\"io.rdmad.Pool.Return\",\"parameters\":{\"handle\":$k}}"
	assert_output '{"error":"io.rdmad.Pool.InvalidState","parameters":{"field":"handle","reason":"the MKEY was borrowed by another client"}}'
	# Shrinking below the borrowed count is refused; destroy too, without --force.
	run "$RDMACTL" pool resize auto --size 1
	assert_refused InvalidState size
	run "$RDMACTL" pool destroy auto
	assert_failure 1
	assert_output --partial "io.rdmad.Pool.ObjectInUse: kind 'pool'"
	assert_output --partial "user_kind 'mkey'"
	assert_equal "$(counters auto)" '[3,1,2,2,0]'
	# The holder exits: everything it held comes back.
	exec {holder[1]}>&-
	wait "$holder_PID"
	for i in $(seq 50); do [ "$(pool_json auto | jq .in_use)" = 0 ] && break; sleep 0.05; done
	assert_equal "$(counters auto)" '[3,3,0,2,0]'
	assert_equal "$("$RDMACTL" -j mkey show "$k" | jq -c '.[0].borrowed')" false
	"$RDMACTL" pool destroy auto
}

@test "pool resize grows and shrinks, keeping borrowed MKEYs; destroy --force takes borrowed ones" {
	make_client
	"$RDMACTL" pool create r --type signature --size 2 >/dev/null
	coproc holder { python3 client.py --hold '{"method":"io.rdmad.Pool.Borrow","parameters":{"name":"r"}}'; }
	read -r first <&"${holder[0]}"
	k=$(jq -r .parameters.mkey <<<"$first")
	run "$RDMACTL" -j pool resize r --size 5
	assert_success
	assert_equal "$(jq -c '.[0] | [.size, .available, .in_use, (.members | length)]' <<<"$output")" '[5,4,1,5]'
	run "$RDMACTL" -j pool resize r --size 1
	assert_success
	assert_equal "$(jq -c ".[0] | [.size, .available, .in_use, .members]" <<<"$output")" "[1,0,1,[$k]]"
	run "$RDMACTL" pool resize r --size 0
	assert_refused InvalidArgument size
	run "$RDMACTL" pool destroy r --force
	assert_success
	run "$RDMACTL" mkey show "$k"
	assert_failure 1
	exec {holder[1]}>&-
	wait "$holder_PID"
	assert_daemon_serves
}

@test "pool destroy: its MKEYs go, its own PD too unless something else uses it" {
	"$RDMACTL" pool create d --type signature --size 2 >/dev/null
	rec=$(pool_json d)
	pd=$(jq -r .pd <<<"$rec")
	"$RDMACTL" pool destroy d
	for k in $(jq -r '.members[]' <<<"$rec"); do
		run "$RDMACTL" mkey show "$k"
		assert_failure 1
	done
	run "$RDMACTL" pd show "$pd"
	assert_failure 1
	# A PD the user put an MR on stays, as an ordinary PD.
	"$RDMACTL" pool create d --type signature --size 1 >/dev/null
	pd=$(pool_json d | jq -r .pd)
	mr=$("$RDMACTL" -j mr create "$pd" --size 64 | jq -r '.[0].handle')
	"$RDMACTL" pool destroy d
	run "$RDMACTL" -j pd show "$pd"
	assert_success
	"$RDMACTL" mr destroy "$mr"
	"$RDMACTL" pd destroy "$pd"
}

@test "raw varlink: every io.rdmad.Pool method" {
	run varlink_raw '{"method":"io.rdmad.Pool.Create","parameters":{"name":"raw","type":"signature","size":2}}\0'
	assert_success
	assert_equal "$(jq -c '.parameters.pool | [.name, .size]' <<<"$output")" '["raw",2]'
	run varlink_raw '{"method":"io.rdmad.Pool.Show","parameters":{"name":"raw"}}\0'
	assert_equal "$(jq -c '.parameters.pool.available' <<<"$output")" 2
	run varlink_raw '{"method":"io.rdmad.Pool.List","parameters":{}}\0'
	[ "$(jq '[.parameters.pools[] | select(.name == "raw")] | length' <<<"$output")" = 1 ]
	run varlink_raw '{"method":"io.rdmad.Pool.Resize","parameters":{"name":"raw","size":3}}\0'
	assert_equal "$(jq -c '.parameters.pool.size' <<<"$output")" 3
	run varlink_raw '{"method":"io.rdmad.Pool.Borrow","parameters":{"name":"raw"}}\0'
	k=$(jq -r .parameters.mkey <<<"$output")
	[ "$k" -gt 0 ]
	# The connection that borrowed k is gone: k came back, a Return from elsewhere is refused.
	run varlink_raw '{"method":"io.rdmad.Pool.Return","parameters":{"handle":'"$k"'}}\0'
	assert_output --partial '{"error":"io.rdmad.Pool.InvalidState","parameters":{"field":"handle"'
	run varlink_raw '{"method":"io.rdmad.Pool.Return","parameters":{"handle":12345}}\0'
	assert_output '{"error":"io.rdmad.Pool.NoSuchObject","parameters":{"kind":"mkey","handle":12345}}'
	run varlink_raw '{"method":"io.rdmad.Pool.Destroy","parameters":{"name":"raw","force":false}}\0'
	assert_output '{"parameters":{}}'
	run varlink_raw '{"method":"io.rdmad.Pool.Destroy","parameters":{"name":"raw"}}\0'
	assert_output '{"error":"io.rdmad.Pool.NoSuchPool","parameters":{"name":"raw"}}'
}

# restart_in DIR [kill]: stops (or kills -9) the daemon of DIR and starts it again.
restart_in() {
	local d=$1 pid
	if [ "${2:-}" = kill ]; then
		pid=$(cat "$d/rdmad.pid")
		kill -KILL "$pid"
		for i in $(seq 1 100); do [ -e "$d/rdmad.status" ] && break; sleep 0.05; done
		rm -f "$d/rdmad.status" "$d/rdmad.pid"
	else
		rdmad_stop "$d"
	fi
	rdmad_start "$d"
}

@test "pools survive a restart and a kill -9: name, type, size, entries; a PD of their own, counters from zero" {
	local d=$BATS_TEST_TMPDIR/d main=$RDMACTL_SOCKET
	rdmad_start "$d"
	"$RDMACTL" pd create >/dev/null
	"$RDMACTL" pool create keep --type signature+crypto --size 3 --max-entries 9 >/dev/null
	"$RDMACTL" pool create onpd --type crypto --size 2 --pd 1 >/dev/null
	"$RDMACTL" pool create gone --type signature --size 1 >/dev/null
	"$RDMACTL" pool resize keep --size 4 >/dev/null
	"$RDMACTL" pool destroy gone
	make_client
	python3 client.py '{"method":"io.rdmad.Pool.Borrow","parameters":{"name":"keep"}}' >/dev/null
	assert_file_exists "$d/state/pools.json"
	[ "$(stat -c %a "$d/state/pools.json")" = 600 ]
	restart_in "$d"
	run "$RDMACTL" -j pool list
	assert_success
	assert_equal "$(jq -c '[.[] | {name, type, size, max_entries, pd_owned, available, borrows, high_water}]' <<<"$output")" \
		'[{"name":"keep","type":"signature+crypto","size":4,"max_entries":12,"pd_owned":true,"available":4,"borrows":0,"high_water":0},{"name":"onpd","type":"crypto","size":2,"max_entries":128,"pd_owned":true,"available":2,"borrows":0,"high_water":0}]'
	# Its MKEYs exist, free, on the pool's PD.
	rec=$(pool_json keep)
	k=$(jq -r '.members[0]' <<<"$rec")
	assert_equal "$("$RDMACTL" -j mkey show "$k" | jq -c ".[0] | [.state, .pool_name, .pd == $(jq .pd <<<"$rec")]")" '["free","keep",true]'
	"$RDMACTL" pool resize onpd --size 5 >/dev/null
	restart_in "$d" kill
	assert_equal "$(counters onpd)" '[5,5,0,0,0]'
	assert_equal "$("$RDMACTL" -j pool list | jq -c '[.[].name]')" '["keep","onpd"]'
	rdmad_stop "$d"
	export RDMACTL_SOCKET=$main
}

@test "pool show text prints every key of a 1000-MKEY pool, none cut" {
	"$RDMACTL" pool create big --type signature --size 1000 --max-entries 4 >/dev/null
	keys=$("$RDMACTL" -j pool show big | jq -r '.[0].members[]' | xargs printf '0x%x\n' | paste -sd,)
	[ "$(tr ',' '\n' <<<"$keys" | wc -l)" -eq 1000 ]
	run -0 "$RDMACTL" pool show big
	# The list is one word of its line, however long (keys in hex, as rdma prints them).
	assert_line --index 0 --regexp " members $keys borrowers - allow - allow_unresolved -\$"
	"$RDMACTL" pool destroy big
}
