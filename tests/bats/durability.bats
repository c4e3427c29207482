#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# Nothing is acknowledged before it is durable (rdmad(8), FILES): every kind of
# change whose reply came back, from the Ethernet Manager (VEMA Sets: the
# GetResp waits for vnic.json) or over varlink (pools, DEKs, lending, the log
# level), is there after rdmad is killed with SIGKILL the moment the reply
# arrived.  A Set whose configuration cannot be saved gets no reply and is
# undone (docs/decisions.md, "The OPA port in rdmad").

load helper
load vnic-helper

setup() {
	load_libs
	NS_A=
}

teardown() {
	if [ -n "$NS_A" ]; then
		vnic_fabric_teardown
		if mountpoint -q "$A/state"; then umount "$A/state"; fi
	fi
	rdmad_stop "$BATS_TEST_TMPDIR/v" || true
}

# vema_setup [small|slow]: rdmad A alone on the software fabric (vnic-helper.bash's
# node 1, namespace $NS_A), the manager beside it, and managers 101-108 for
# bursts.  small: its state directory is a tmpfs of 64 KiB (fill_state_dir);
# slow: every fsync of rdmad takes half a second longer (as commit.bats' slow_disk).
vema_setup() {
	vnic_require
	NS_A=rdmad-dur-a-$$
	NS_B=rdmad-dur-b-$$
	A=$BATS_TEST_TMPDIR/a
	B=$BATS_TEST_TMPDIR/no-b
	VETH_A=da$$
	VETH_B=db$$
	ns_veth_pair 10.231.0 1600
	mkdir -p "$A/state"
	chmod 0700 "$A/state"
	if [ "${1:-}" = small ]; then
		mount -t tmpfs -o size=64k,mode=0700 tmpfs "$A/state"
	fi
	fabric_conf 1 >"$A/rdmad.conf"
	for m in $(seq 101 108); do
		echo "fabric_node.$m = 10.231.0.1:$((4700 + m))" >>"$A/rdmad.conf"
	done
	if [ "${1:-}" = slow ]; then
		command -v strace >/dev/null || skip "strace is needed to slow the disk down"
		printf '#!/bin/sh\nexport ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\nexec ip netns exec %s strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:delay_enter=500000 %s "$@"\n' \
			"$NS_A" "$BUILD/rdmad" >"$A/slow-rdmad"
		chmod +x "$A/slow-rdmad"
		RDMAD=$A/slow-rdmad rdmad_start "$A"
		return
	fi
	ns_rdmad_start "$NS_A" "$A"
}

# ms_since T: milliseconds since T, a copy of $EPOCHREALTIME.
ms_since() {
	local now=$EPOCHREALTIME
	echo $(((${now/./} - ${1/./}) / 1000))
}

fill_state_dir() {
	dd if=/dev/zero of="$A/state/filler" bs=4k 2>/dev/null || true
}

# em_as LID ARGS...: the manager simulator as manager LID (101-108) of vema_setup.
em_as() {
	local lid=$1
	shift
	ip netns exec "$NS_A" "$OPA_EM" --lid "$lid" --address "10.231.0.1:$((4700 + lid))" \
		--node 1=10.231.0.1:4795 "$@"
}

# seq_last N K: 0..N-1 with K moved to the end (the change most at risk goes last).
seq_last() {
	local j
	for j in $(seq 0 $(($1 - 1))); do [ "$j" -eq "$2" ] || echo "$j"; done
	echo "$2"
}

# ---- VEMA

# vema_cmd I K: round I's Set of kind K as opa-em words: 0 ClassPortInfo, 1
# VESWPortInfo of vport 0, 2 a MAC entry of vport 0, 3 vport 1 configured (odd
# I) or configured and deleted (even I: Delete VESW).
vema_cmd() {
	local i=$1
	case $2 in
	0) echo "set-cpi 1 trap_lid=$((200 + i))" ;;
	1) echo "set-port 1 0 vesw_id=$i pkey=0x8001 encap_slid=1 base_mac=$(printf '02:00:00:00:01:%02x' "$i")" ;;
	2) echo "set-macs 1 0 0 $((0x1000 + i)) $(printf '02:00:00:00:02:%02x' "$i")=$((10 + i))" ;;
	3) if ((i % 2)); then echo "set-port 1 1 vesw_id=$((100 + i))"
	   else echo "set-port 1 1 vesw_id=$((100 + i)) -- delete-port 1 1"; fi ;;
	esac
}

# vema_lost I: which of round I's Sets the agent does not show (none: nothing printed).
vema_lost() {
	em get-cpi 1 -- get-port 1 0 -- get-macs 1 0 0 1 -- get-port 1 1 |
		jq -sr --argjson i "$1" --arg mac "$(printf '02:00:00:00:02:%02x' "$1")" '
		(if .[0].trap_lid != 200 + $i then "ClassPortInfo" else empty end),
		(if .[1].vesw_id != $i then "VESWPortInfo" else empty end),
		(if .[2].mac_tbl_digest != 4096 + $i or .[2].entries[0].mac_addr != $mac
		 then "MAC entries" else empty end),
		(if $i % 2 == 1 and .[3].vesw_id != 100 + $i then "VESWPortInfo of vport 1"
		 elif $i % 2 == 0 and .[3].vesw_id != 0 then "Delete VESW" else empty end)'
}

@test "VEMA: each kind of Set survives kill -9 the moment its GetResp arrived, 20 rounds, 0 lost" {
	local i k args lost=0 missing
	vema_setup
	# The vports the MAC entries and Delete VESW address.
	em set-port 1 0 vesw_id=1 -- set-port 1 1 vesw_id=1
	for i in $(seq 1 20); do
		args=()
		for k in $(seq_last 4 $((i % 4))); do
			args+=($(vema_cmd "$i" "$k") --)
		done
		unset 'args[${#args[@]}-1]'
		run em "${args[@]}"
		rdmad_kill9 "$A"
		# Every Set was answered, with status 0.
		assert_success
		ns_rdmad_start "$NS_A" "$A"
		missing=$(vema_lost "$i")
		if [ -n "$missing" ]; then
			echo "round $i: lost $(echo $missing)"
			lost=$((lost + $(wc -l <<<"$missing")))
		fi
	done
	echo "$lost lost"
	[ "$lost" -eq 0 ]
}

@test "VEMA: a burst from 8 managers at once, every GetResp to its sender, all there after kill -9" {
	local round m out pids
	vema_setup
	for round in 1 2; do
		pids=()
		for m in $(seq 101 108); do
			em_as "$m" set-port 1 $((m - 100)) vesw_id=$((m * 10 + round)) \
				-- set-macs 1 $((m - 100)) $round $((round * 1000 + m)) \
				"$(printf '02:00:00:00:%02x:%02x' "$m" "$round")=$m" >"$A/em.$m" &
			pids+=($!)
		done
		wait "${pids[@]}"
		rdmad_kill9 "$A"
		for m in $(seq 101 108); do
			# Each manager had both its replies, for its own vport.
			jq -se --argjson p $((m - 100)) --argjson v $((m * 10 + round)) \
				'length == 2 and .[0].vesw_id == $v and .[1].mac_tbl_digest != null' "$A/em.$m"
		done
		ns_rdmad_start "$NS_A" "$A"
		for m in $(seq 101 108); do
			out=$(em get-port 1 $((m - 100)) -- get-macs 1 $((m - 100)) "$round" 1)
			jq -se --argjson v $((m * 10 + round)) --argjson d $((round * 1000 + m)) \
				'.[0].vesw_id == $v and .[1].mac_tbl_digest == $d' <<<"$out"
		done
	done
}

@test "VEMA: a Set that cannot be saved gets no GetResp and is undone; one that changes nothing is answered; a retry once saved holds" {
	local out
	vema_setup small
	em set-cpi 1 trap_lid=7 -- set-port 1 0 vesw_id=5 -- set-macs 1 0 0 0x55 02:00:00:00:00:05=5
	fill_state_dir
	# Each kind: no reply within the manager's wait (exit 3), nothing changed.
	run em --timeout 400 set-port 1 0 vesw_id=6
	assert_failure 3
	run em --timeout 400 set-cpi 1 trap_lid=8
	assert_failure 3
	run em --timeout 400 set-macs 1 0 0 0x66 02:00:00:00:00:06=6
	assert_failure 3
	run em --timeout 400 delete-port 1 0
	assert_failure 3
	# A Set that would create vport 2: the port it made goes again.
	run em --timeout 400 set-port 1 2 vesw_id=9
	assert_failure 3
	out=$(em get-cpi 1 -- get-port 1 0 -- get-macs 1 0 0 1)
	jq -se '.[0].trap_lid == 7 and .[1].vesw_id == 5 and .[2].mac_tbl_digest == 85 and
		.[2].entries[0].mac_addr == "02:00:00:00:00:05"' <<<"$out"
	run em get-macs 1 2 0 1
	assert_failure 1
	run ctl "$A" -j vnic list
	assert_success
	jq -e 'map(.handle) == [0]' <<<"$output"
	run ip netns exec "$NS_A" ip link show vnic2
	assert_failure
	grep -q "VEMA Set(s) undone and not answered" "$A/rdmad.log"
	# Nothing to save: answered even now.
	run em --timeout 400 set-port 1 0 vesw_id=5
	assert_success
	# The manager tries again once there is room: answered, and it holds.
	rm "$A/state/filler"
	em set-port 1 0 vesw_id=6 -- set-port 1 2 vesw_id=9
	rdmad_kill9 "$A"
	ns_rdmad_start "$NS_A" "$A"
	out=$(em get-port 1 0 -- get-port 1 2)
	jq -se '.[0].vesw_id == 6 and .[1].vesw_id == 9' <<<"$out"
}

@test "VEMA on a slow disk: a GetResp waits for the fsync; Sets meanwhile wait, and SIGTERM answers them and keeps them" {
	local t m pids=()
	vema_setup slow
	t=$EPOCHREALTIME
	em set-port 1 0 vesw_id=3
	# The temporary file's fsync, then the directory's.
	[ "$(ms_since "$t")" -ge 900 ]
	# A Get does not wait.
	t=$EPOCHREALTIME
	em get-port 1 0
	[ "$(ms_since "$t")" -lt 900 ]
	for m in $(seq 101 108); do
		em_as "$m" --timeout 15000 set-port 1 $((m - 100)) vesw_id=$m >"$A/em.$m" &
		pids+=($!)
	done
	sleep 0.3
	rdmad_stop "$A"
	for m in $(seq 101 108); do
		wait "${pids[$((m - 101))]}"
		jq -e --argjson m "$m" '.vesw_id == $m' "$A/em.$m"
	done
	ns_rdmad_start "$NS_A" "$A"
	for m in $(seq 101 108); do
		em get-port 1 $((m - 100)) | jq -e --argjson m "$m" '.vesw_id == $m'
	done
}

# ---- varlink

# varlink_change I K: round I's change of kind K: 0 a pool created, 1 the
# previous round's pool destroyed, 2 pool q resized, 3 a DEK created, 4 q
# lent to nobody (odd I) or not (even I), 5 the log level.
varlink_change() {
	local i=$1
	case $2 in
	0) "$RDMACTL" pool create "p$i" --type signature --size 1 ;;
	1) "$RDMACTL" pool destroy "p$((i - 1))" ;;
	2) "$RDMACTL" pool resize q --size $((i % 3 + 1)) ;;
	3) "$RDMACTL" dek create "k$i" --size 128 --key-file "$K" ;;
	4) if ((i % 2)); then "$RDMACTL" pool modify q --allow nobody
	   else "$RDMACTL" pool modify q --disallow nobody; fi ;;
	5) "$RDMACTL" daemon log-level "$( ((i % 2)) && echo debug || echo info)" ;;
	esac >/dev/null
}

# varlink_lost I: which of round I's changes the daemon does not show.
varlink_lost() {
	local i=$1 pools
	pools=$("$RDMACTL" -j pool list)
	jq -e --arg p "p$i" 'any(.[]; .name == $p)' <<<"$pools" >/dev/null || echo "pool create"
	jq -e --arg p "p$((i - 1))" 'all(.[]; .name != $p)' <<<"$pools" >/dev/null || echo "pool destroy"
	jq -e --argjson s $((i % 3 + 1)) 'any(.[]; .name == "q" and .size == $s)' <<<"$pools" \
		>/dev/null || echo "pool resize"
	"$RDMACTL" -j dek list | jq -e --arg k "k$i" 'any(.[]; .name == $k)' >/dev/null ||
		echo "DEK create"
	"$RDMACTL" -j pool show q | jq -e --argjson lent $((i % 2)) \
		'(.[0].allow // [] | index("nobody") != null) == ($lent == 1)' >/dev/null || echo "lend"
	[ "$("$RDMACTL" -j status | jq -r .log_level)" = "$( ((i % 2)) && echo debug || echo info)" ] ||
		echo "log level"
}

@test "varlink: pool create, destroy, resize, lend, DEK create and log level survive kill -9 the moment they are answered" {
	local i k lost=0 missing D=$BATS_TEST_TMPDIR/v
	K=$BATS_TEST_TMPDIR/key
	head -c 32 /dev/urandom >"$K"
	chmod 0600 "$K"
	rdmad_start "$D"
	"$RDMACTL" pool create q --type signature --size 1
	"$RDMACTL" pool create p0 --type signature --size 1
	for i in $(seq 1 12); do
		for k in $(seq_last 6 $((i % 6))); do
			varlink_change "$i" "$k"
		done
		rdmad_kill9 "$D"
		rdmad_start "$D"
		missing=$(varlink_lost "$i")
		if [ -n "$missing" ]; then
			echo "round $i: lost $(echo $missing)"
			lost=$((lost + $(wc -l <<<"$missing")))
		fi
	done
	echo "$lost lost"
	[ "$lost" -eq 0 ]
}
