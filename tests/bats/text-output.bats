#!/usr/bin/env bats
# rdmactl's text output reads like rdma(8) and resolvectl(1) (rdmactl(8)
# OUTPUT): list one line per object, show the detail with its sections
# indented and labelled, no JSON null, keys in hex, GUIDs as ibv_devinfo
# prints them, QP words as they are typed back, lines unwrapped into a pipe,
# numbers with a leading zero read as decimal, -q, --no-legend, --no-pager.

load helper

setup_file() {
	# A software fabric of one node, for vnic fabric's record.
	FABRIC_PORT=$((20000 + $$ % 20000))
	echo "$FABRIC_PORT" >"$BATS_FILE_TMPDIR/fabric_port"
	printf 'fabric_lid = 1\nfabric_address = 127.0.0.1:%s\n' "$FABRIC_PORT" >"$BATS_FILE_TMPDIR/rdmad.conf"
	rdmad_start
	"$RDMACTL" pd create >/dev/null
	"$RDMACTL" cq create --cqe 16 >/dev/null
	"$RDMACTL" mr create 1 --size 4096 --access local_write,remote_read >/dev/null
	"$RDMACTL" qp create --pd 1 --send-cq 1 --recv-cq 1 --type RC >/dev/null
	"$RDMACTL" qp create --pd 1 --send-cq 1 --recv-cq 1 --type uc >/dev/null
	"$RDMACTL" mkey create 1 --flags block_signature --max-entries 4 >/dev/null
}
teardown_file() { rdmad_stop; }
setup() { load_libs; }

@test "qp list: one line per QP with its main fields; qp show: the detail" {
	run -0 "$RDMACTL" qp list
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --regexp '^qp [0-9]+: ifname soft0 type rc state reset pd 1 send_cq 1 recv_cq 1$'
	assert_line --index 1 --regexp '^qp [0-9]+: ifname soft0 type uc state reset pd 1 send_cq 1 recv_cq 1$'
	qp=$("$RDMACTL" -j qp list | jq -r '.[0].handle')
	run -0 "$RDMACTL" qp show "$qp"
	assert_line --index 0 --regexp "^qp $qp: ifname soft0 ifindex 0 type rc state reset .* max_send_wr [0-9]+ "
	# -d makes list print every key, as show does.
	run -0 "$RDMACTL" -d qp list
	assert_line --index 0 --regexp '^qp [0-9]+: ifname soft0 ifindex 0 type rc state reset .* max_send_wr '
	# JSON lists keep every key: scripts read them.
	[ "$("$RDMACTL" -j qp list | jq -c '.[0] | has("max_send_wr")')" = true ]
}

@test "every list command prints one line per object" {
	for obj in pd cq mr qp mkey; do
		n=$("$RDMACTL" -j "$obj" list | jq length)
		run -0 "$RDMACTL" "$obj" list
		assert_equal "${#lines[@]}" "$n"
		assert_line --index 0 --regexp "^$obj [0-9a-fx]+: ifname soft0 "
	done
}

@test "nested sections are indented one step per level and labelled" {
	args=$("$RDMACTL" -j qp list | jq -r '.[0] | "--pd \(.pd) --send-cq \(.send_cq) --recv-cq \(.recv_cq)"')
	# shellcheck disable=SC2086
	qp=$("$RDMACTL" -j qp create $args --type rc | jq -r '.[0].handle')
	# A QP has data-path counters once it has left INIT (here INIT, then ERR).
	"$RDMACTL" qp modify "$qp" --state init --access local_write
	"$RDMACTL" qp modify "$qp" --state err
	run -0 "$RDMACTL" qp show "$qp"
	assert_line --regexp '^    datapath: recvs 0 '
	assert_line --regexp '^        wrs: write 0 '
	assert_line --regexp '^        sig_errors: guard 0 apptag 0 reftag 0$'
	run -0 "$RDMACTL" dev show
	assert_line --regexp '^    ports: port 1 state ACTIVE physical_state LINK_UP '
}

@test "no JSON null in text: a missing value is -" {
	k=$("$RDMACTL" -j mkey list | jq -r '.[0].handle')
	[ "$("$RDMACTL" -j mkey show "$k" | jq -c '.[0] | [.pool, .config]')" = '[null,null]' ]
	run -0 "$RDMACTL" mkey show "$k"
	refute_output --partial null
	assert_output --partial ' pool - pool_name - '
	assert_output --partial ' config - '
}

@test "keys in hex as rdma prints them, typed back in hex or decimal" {
	mr=$("$RDMACTL" -j mr list | jq -r '.[0].handle')
	hex=$(printf '0x%x' "$mr")
	run -0 "$RDMACTL" mr list
	assert_line --index 0 --regexp "^mr $hex: .* lkey $hex rkey $hex "
	run -0 "$RDMACTL" mr show "$hex"
	assert_line --index 0 --regexp "^mr $hex: "
	run -0 "$RDMACTL" mr show "$mr"
	assert_line --index 0 --regexp "^mr $hex: "
	k=$("$RDMACTL" -j mkey list | jq -r '.[0].handle')
	run -0 "$RDMACTL" mkey list
	assert_line --index 0 --regexp "^mkey $(printf '0x%x' "$k"): "
}

@test "GUIDs as ibv_devinfo prints them" {
	run -0 "$RDMACTL" dev show
	assert_line --index 0 --regexp ' node_guid [0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}$'
	[[ "$("$RDMACTL" -j dev show | jq -r '.[0].sys_image_guid')" =~ ^[0-9a-f]{4}(:[0-9a-f]{4}){3}$ ]]
}

@test "QP type and state print as they are typed back, and are taken in either case" {
	qp=$("$RDMACTL" -j qp list | jq -r '.[1].handle')
	"$RDMACTL" qp modify "$qp" --state INIT --access remote_read
	run -0 "$RDMACTL" qp list
	assert_line --index 1 --regexp "^qp $qp: ifname soft0 type uc state init "
	"$RDMACTL" qp modify "$qp" --state reset
	run -0 "$RDMACTL" qp show "$qp"
	assert_line --index 0 --regexp "^qp $qp: ifname soft0 ifindex 0 type uc state reset "
	# JSON keeps the API's words.
	[ "$("$RDMACTL" -j qp show "$qp" | jq -r '.[0] | .type + " " + .state')" = "uc reset" ]
}

@test "a number with a leading zero is decimal, 0x is hex" {
	pd=$("$RDMACTL" -j pd create | jq -r '.[0].handle')
	[ "$pd" -ge 2 ]
	run -0 "$RDMACTL" -j pd show "0$pd"
	[ "$(jq -r '.[0].handle' <<<"$output")" = "$pd" ]
	run -0 "$RDMACTL" -j pd show "$(printf '0x%x' "$pd")"
	[ "$(jq -r '.[0].handle' <<<"$output")" = "$pd" ]
	# 017 is seventeen (31 entries), not fifteen (octal: 15 entries).
	run -0 "$RDMACTL" -j cq create --cqe 017
	[ "$(jq -r '.[0].cqe' <<<"$output")" = 31 ]
	"$RDMACTL" cq destroy "$(jq -r '.[0].handle' <<<"$output")"
	"$RDMACTL" pd destroy "$pd"
}

@test "lines are not wrapped when stdout is not a terminal" {
	qp=$("$RDMACTL" -j qp list | jq -r '.[0].handle')
	run -0 "$RDMACTL" qp show "$qp"
	# The QP's own line holds all its scalars, however long.
	[ "${#lines[0]}" -gt 200 ]
	assert_line --index 0 --regexp ' recovery manual recovery_log -$'
}

@test "-q prints no records; the exit status still says the result" {
	run -0 "$RDMACTL" -q pd list
	assert_output ''
	run -0 "$RDMACTL" pd list -q -j
	assert_output ''
	run -1 --separate-stderr "$RDMACTL" -q pd show 999
	assert_output ''
	assert_equal "$stderr" "rdmactl: pd show: io.rdmad.Pd.NoSuchObject: kind 'pd', handle '999'"
}

@test "--no-legend and --no-pager are accepted, before or after the command, and change nothing" {
	expected=$("$RDMACTL" pd list)
	run -0 "$RDMACTL" --no-legend --no-pager pd list
	assert_output "$expected"
	run -0 "$RDMACTL" pd list --no-legend --no-pager
	assert_output "$expected"
	run -0 "$RDMACTL" help
	assert_output --partial '--no-legend'
	assert_output --partial '--no-pager'
	assert_output --partial '-q, --quiet'
}

@test "records say what they are: gid show and gid list, dek login-state, mkey check in text" {
	"$RDMACTL" gid add 7 fe80::7 >/dev/null
	run -0 "$RDMACTL" gid show 7
	assert_output "gid 7: ifname soft0 ifindex 0 port 1 gid fe80::7 users 0"
	run -0 "$RDMACTL" gid list
	assert_line "gid 7: ifname soft0 ifindex 0 port 1 gid fe80::7 users 0"
	assert_equal "$output" "$("$RDMACTL" gid show)"
	run -0 "$RDMACTL" dek login-state
	assert_output --regexp '^login: ifname soft0 ifindex 0 state no_login kek -$'
	pd=$("$RDMACTL" -j pd create | jq -r '.[0].handle')
	mkey=$("$RDMACTL" -j mkey create "$pd" --flags block_signature --max-entries 2 | jq -r '.[0].handle')
	run -0 "$RDMACTL" mkey check "$mkey"
	assert_output "sig_error: err_type none expected_value 0 actual_value 0 offset 0"
	run -0 "$RDMACTL" -j mkey check "$mkey"
	assert_output '{"err_type":"none","expected_value":0,"actual_value":0,"offset":0}'
	"$RDMACTL" mkey destroy "$mkey"
	"$RDMACTL" pd destroy "$pd"
	"$RDMACTL" gid del 7
}

@test "records say what they are: cq poll prints completion: lines, vnic fabric a fabric: line" {
	cq=$("$RDMACTL" -j cq create --cqe 4 | jq -r '.[0].handle')
	qp=$("$RDMACTL" -j qp create --pd 1 --send-cq "$cq" --recv-cq "$cq" --type rc | jq -r '.[0].handle')
	"$RDMACTL" qp modify "$qp" --state init --access local_write >/dev/null
	"$RDMACTL" qp post-recv "$qp" --sge 0x101:0:16 --wrid 5
	"$RDMACTL" qp post-recv "$qp" --sge 0x101:16:16 --wrid 6
	"$RDMACTL" qp modify "$qp" --state err >/dev/null
	# The worker flushes the receive queue after the modify's reply: polled until both came.
	polled=""
	for _ in $(seq 1 50); do
		polled+=$("$RDMACTL" cq poll "$cq" --wait 100)$'\n'
		[ "$(grep -c '^completion:' <<<"$polled")" -ge 2 ] && break
	done
	run -0 sed '/^$/d' <<<"$polled"
	assert_equal "${#lines[@]}" 2
	assert_line -n 0 "completion: wr_id 5 status wr_flush_err opcode recv byte_len 0 imm 0 qp $qp src_qp 0 flags -"
	assert_line -n 1 "completion: wr_id 6 status wr_flush_err opcode recv byte_len 0 imm 0 qp $qp src_qp 0 flags -"
	"$RDMACTL" qp destroy "$qp"
	"$RDMACTL" cq destroy "$cq"
	run -0 "$RDMACTL" vnic fabric
	assert_output "fabric: ifname soft0 ifindex 0 port 1 transport fabric lid 1 address 127.0.0.1:$(cat "$BATS_FILE_TMPDIR/fabric_port") nodes - rx_datagrams 0 rx_mads 0 rx_frames 0 rx_bad_type 0 rx_bad_packet 0 rx_wrong_dlid 0 rx_mad_overflow 0 tx_datagrams 0 tx_mads 0 tx_frames 0 tx_no_route 0 tx_errors 0 trap_lid 0 trap_sl 0 vnics 0 mads_received 0 mads_answered 0 mads_dropped 0 mads_unmatched 0 traps_sent 0 traps_rate_limited 0 traps_no_lid 0"
}
