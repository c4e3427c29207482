#!/usr/bin/env bats
# Queue pairs against a real rdmad: CREATE_QP, MODIFY_QP through the kernel's
# state machine (roce_virtio.md §3.1 legal transitions, §3.2 required and
# optional attributes per QP type), QUERY_QP, DESTROY_QP, and the references
# that keep a QP's PD, CQs and source GID alive.

load helper

setup_file() {
	rdmad_start
	# PD 1, CQs 1 and 2, GIDs at index 0 (IPv6) and 1 (IPv4) of port 1: what every QP here uses.
	"$RDMACTL" pd create >/dev/null
	"$RDMACTL" cq create --cqe 16 >/dev/null
	"$RDMACTL" cq create --cqe 16 >/dev/null
	"$RDMACTL" gid add 0 fe80::1 >/dev/null
	"$RDMACTL" gid add 1 192.0.2.1 >/dev/null
}
teardown_file() { rdmad_stop; }
setup() { load_libs; }

# The required attributes of each step up to RTS, per type (§3.2).
RC_INIT=(--state init --access local_write,remote_write,remote_read)
RC_RTR=(--state rtr --dgid fe80::2 --sgid-index 0 --path-mtu 1024 --dest-qp 17 --rq-psn 100
	--max-dest-rd-atomic 4 --min-rnr-timer 12)
RC_RTS=(--state rts --timeout 14 --retry-cnt 7 --rnr-retry 6 --sq-psn 200 --max-rd-atomic 8)
UC_INIT=(--state init --access remote_write)
UC_RTR=(--state rtr --dgid 192.0.2.7 --sgid-index 1 --path-mtu 4096 --dest-qp 18 --rq-psn 0xffffff)
UC_RTS=(--state rts --sq-psn 1)
UD_INIT=(--state init --qkey 0x11111111)
UD_RTR=(--state rtr)
UD_RTS=(--state rts --sq-psn 0)

# qp_create TYPE [OPTIONS...]: a QP on PD 1 sending into CQ 1, receiving into CQ 2; prints its number.
qp_create() {
	local type=$1
	shift
	"$RDMACTL" -j qp create --pd 1 --send-cq 1 --recv-cq 2 --type "$type" "$@" | jq -r '.[0].handle'
}

# qp_json QP: its QUERY_QP record.
qp_json() {
	"$RDMACTL" -j qp show "$1" | jq -c '.[0]'
}

qp_field() {
	qp_json "$1" | jq -r ".$2"
}

# qp_step QP TYPE STEP: MODIFY_QP to STEP (INIT, RTR, RTS) with the type's required attributes.
qp_step() {
	local -n step_args="${2^^}_$3"
	"$RDMACTL" qp modify "$1" "${step_args[@]}"
}

# qp_goto QP TYPE STATE: from RESET along RESET -> INIT -> RTR -> RTS -> SQD, or INIT -> ERR.
qp_goto() {
	local qp=$1 type=$2 target=${3^^} step
	[ "$target" = RESET ] && return 0
	if [ "$target" = ERR ]; then
		qp_step "$qp" "$type" INIT
		"$RDMACTL" qp modify "$qp" --state err
		return 0
	fi
	for step in INIT RTR RTS; do
		qp_step "$qp" "$type" "$step"
		[ "$step" = "$target" ] && return 0
	done
	"$RDMACTL" qp modify "$qp" --state sqd
}

# assert_option_refused ATTR: qp modify refused, naming the option that sets
# the attribute (a usage error), not the API's name for it.
assert_option_refused() {
	local -A opt=([av]="--dgid (with --sgid-index)" [path_mtu]=--path-mtu [rq_psn]=--rq-psn
		[min_rnr_timer]=--min-rnr-timer [max_dest_rd_atomic]=--max-dest-rd-atomic
		[dest_qp_num]=--dest-qp [access]=--access [timeout]=--timeout [retry_cnt]=--retry-cnt
		[rnr_retry]=--rnr-retry [max_rd_atomic]=--max-rd-atomic [sq_psn]=--sq-psn
		[cur_state]=--cur-state [qkey]=--qkey)
	assert_failure 2
	assert_output --partial "rdmactl: qp modify: ${opt[$1]} is "
	refute_output --partial "field '$1'"
}

# assert_refused ERROR FIELD: the last run failed naming the error and the field, with its exit status.
assert_refused() {
	assert_failure "$(refusal_status "$1")"
	assert_output --partial "io.rdmad.Qp.$1: field '$2'"
}

@test "create an RC QP: state RESET, its PD, CQs and default capabilities" {
	run "$RDMACTL" -j qp create --pd 1 --send-cq 1 --recv-cq 2 --type rc
	assert_success
	qp=$(jq -r '.[0].handle' <<<"$output")
	# 0 and 1 are the special QPs: the first QP a device hands out is 2.
	[ "$qp" -ge 2 ]
	run qp_json "$qp"
	assert_output --partial '"type":"rc","state":"reset","pd":1,"send_cq":1,"recv_cq":2'
	assert_output --partial '"sq_sig_all":false,"sig_pipelining":false'
	assert_output --partial '"max_send_wr":64,"max_recv_wr":64,"max_send_sge":1,"max_recv_sge":1,"max_inline_data":0'
	assert_output --partial '"sq_draining":false'
	# Nothing set yet: no attribute is shown.
	refute_output --partial '"qkey"'
	refute_output --partial '"av"'
}

@test "create UC and UD QPs, with capabilities and flags" {
	run "$RDMACTL" -j qp create --pd 1 --send-cq 2 --recv-cq 2 --type uc --max-send-wr 1024 \
		--max-recv-wr 0 --max-send-sge 32 --max-recv-sge 32 --max-inline-data 512 --sq-sig-all
	assert_success
	assert_output --partial '"type":"uc","state":"reset","pd":1,"send_cq":2,"recv_cq":2,"sq_sig_all":true'
	assert_output --partial '"max_send_wr":1024,"max_recv_wr":0,"max_send_sge":32,"max_recv_sge":32,"max_inline_data":512'
	run "$RDMACTL" -j qp create --pd 1 --send-cq 1 --recv-cq 1 --type ud --sig-pipelining
	assert_success
	# soft0 reports sqd2rts, which signature pipelining needs.
	assert_output --partial '"type":"ud","state":"reset"'
	assert_output --partial '"sig_pipelining":true'
}

@test "qp show text: one record per QP, the address vector below" {
	qp=$(qp_create rc)
	qp_goto "$qp" rc rtr
	run "$RDMACTL" qp show "$qp"
	assert_success
	assert_line --index 0 --regexp "^qp $qp: ifname soft0 ifindex 0 type rc state rtr pd 1 send_cq 1 recv_cq 2 "
	assert_line --regexp '^    av: dgid fe80::2 sgid_index 0 flow_label 0 hop_limit 64 traffic_class 0 dmac 00:00:00:00:00:00$'
}

@test "QP numbers 0 and 1 are never QPs of a user" {
	for n in 0 1; do
		run "$RDMACTL" qp show "$n"
		assert_failure 1
		assert_output --partial "io.rdmad.Qp.NoSuchObject: kind 'qp', handle '$n'"
	done
}

@test "capabilities beyond the device's limits are refused naming them" {
	before=$("$RDMACTL" -j qp list)
	run "$RDMACTL" qp create --pd 1 --send-cq 1 --recv-cq 2 --type rc --max-send-wr 1025
	assert_refused InvalidArgument max_send_wr
	assert_output --partial "1025; at most 1024 (the device's max_qp_wr)"
	run "$RDMACTL" qp create --pd 1 --send-cq 1 --recv-cq 2 --type rc --max-recv-wr 1025
	assert_refused InvalidArgument max_recv_wr
	assert_output --partial "max_qp_wr"
	run "$RDMACTL" qp create --pd 1 --send-cq 1 --recv-cq 2 --type ud --max-send-sge 33
	assert_refused InvalidArgument max_send_sge
	run "$RDMACTL" qp create --pd 1 --send-cq 1 --recv-cq 2 --type ud --max-recv-sge 33
	assert_refused InvalidArgument max_recv_sge
	run "$RDMACTL" qp create --pd 1 --send-cq 1 --recv-cq 2 --type uc --max-inline-data 513
	assert_refused InvalidArgument max_inline_data
	assert_output --partial "513; at most 512"
	assert_equal "$("$RDMACTL" -j qp list)" "$before"
}

@test "create refuses a PD or CQ that does not exist, and a bad type" {
	before=$("$RDMACTL" -j qp list)
	run "$RDMACTL" qp create --pd 99 --send-cq 1 --recv-cq 2 --type rc
	assert_failure 1
	assert_output --partial "io.rdmad.Qp.NoSuchObject: kind 'pd', handle '99'"
	run "$RDMACTL" qp create --pd 1 --send-cq 98 --recv-cq 2 --type rc
	assert_failure 1
	assert_output --partial "io.rdmad.Qp.NoSuchObject: kind 'cq', handle '98'"
	run "$RDMACTL" qp create --pd 1 --send-cq 1 --recv-cq 97 --type rc
	assert_failure 1
	assert_output --partial "io.rdmad.Qp.NoSuchObject: kind 'cq', handle '97'"
	run "$RDMACTL" qp create --pd 1 --send-cq 1 --recv-cq 2 --type gsi
	assert_failure 2
	assert_output --partial "'gsi' is not one of: rc, uc, ud"
	run "$RDMACTL" qp create --pd 1 --send-cq 1 --recv-cq 2
	assert_failure 2
	assert_output --partial "missing option --type"
	assert_equal "$("$RDMACTL" -j qp list)" "$before"
}

@test "RC: RESET -> INIT -> RTR -> RTS with the required attributes" {
	qp=$(qp_create rc)
	run "$RDMACTL" qp modify "$qp" "${RC_INIT[@]}"
	assert_success
	assert_output ''
	run qp_json "$qp"
	assert_output --partial '"state":"init"'
	assert_output --partial '"access":["local_write","remote_write","remote_read"]'
	run "$RDMACTL" qp modify "$qp" "${RC_RTR[@]}"
	assert_success
	run "$RDMACTL" qp modify "$qp" "${RC_RTS[@]}"
	assert_success
	run qp_json "$qp"
	assert_output --partial '"state":"rts"'
	assert_output --partial '"av":{"dgid":"fe80::2","sgid_index":0,"flow_label":0,"hop_limit":64,"traffic_class":0,"dmac":"00:00:00:00:00:00"}'
	for kv in '"path_mtu":1024' '"dest_qp_num":17' '"rq_psn":100' '"max_dest_rd_atomic":4' \
		'"min_rnr_timer":12' '"timeout":14' '"retry_cnt":7' '"rnr_retry":6' '"sq_psn":200' \
		'"max_rd_atomic":8'; do
		assert_output --partial "$kv"
	done
	refute_output --partial '"qkey"'
}

@test "UC: RESET -> INIT -> RTR -> RTS with the required attributes" {
	qp=$(qp_create uc)
	for step in INIT RTR RTS; do
		run qp_step "$qp" uc "$step"
		assert_success
	done
	run qp_json "$qp"
	assert_output --partial '"state":"rts"'
	assert_output --partial '"access":["remote_write"]'
	# An IPv4 destination is its IPv4-mapped GID.
	assert_output --partial '"dgid":"::ffff:192.0.2.7"'
	for kv in '"path_mtu":4096' '"dest_qp_num":18' '"rq_psn":16777215' '"sq_psn":1'; do
		assert_output --partial "$kv"
	done
}

@test "UD: RESET -> INIT -> RTR -> RTS with the required attributes" {
	qp=$(qp_create ud)
	for step in INIT RTR RTS; do
		run qp_step "$qp" ud "$step"
		assert_success
	done
	run qp_json "$qp"
	assert_output --partial '"state":"rts"'
	assert_output --partial '"qkey":286331153'
	assert_output --partial '"sq_psn":0'
	refute_output --partial '"av"'
	refute_output --partial '"access"'
}

@test "every illegal transition is refused naming the legal ones, and the state stays" {
	# §3.1: the legal targets of each state.  SQE cannot be entered by MODIFY_QP
	# (no cell of its column is legal), so its row is checked by test_qp_state.
	declare -A legal=(
		[reset]="reset init" [init]="reset init rtr err" [rtr]="reset rts err"
		[rts]="reset rts sqd err" [sqd]="reset rts sqd err" [err]="reset err"
	)
	for from in reset init rtr rts sqd err; do
		qp=$(qp_create ud)
		qp_goto "$qp" ud "$from"
		before=$(qp_json "$qp")
		assert_equal "$(jq -r .state <<<"$before")" "$from"
		names=$(for s in ${legal[$from]}; do printf '%s, ' "$s"; done)
		for to in reset init rtr rts sqd sqe err; do
			[[ " ${legal[$from]} " == *" $to "* ]] && continue
			run "$RDMACTL" qp modify "$qp" --state "$to"
			assert_refused InvalidState state
			assert_output --partial "reason '$from -> $to is not a legal transition; from $from: ${names%, }'"
			assert_equal "$(qp_json "$qp")" "$before"
		done
	done
}

@test "RESET -> ERR is not in the table" {
	qp=$(qp_create rc)
	run "$RDMACTL" qp modify "$qp" --state err
	assert_refused InvalidState state
	assert_equal "$(qp_field "$qp" state)" reset
}

@test "a missing required attribute is refused naming it and the required set" {
	# RC INIT -> RTR: leave out each required attribute in turn.
	qp=$(qp_create rc)
	qp_goto "$qp" rc init
	before=$(qp_json "$qp")
	declare -A drop=(
		[av]="--dgid fe80::2 --sgid-index 0" [path_mtu]="--path-mtu 1024" [dest_qp_num]="--dest-qp 17"
		[rq_psn]="--rq-psn 100" [max_dest_rd_atomic]="--max-dest-rd-atomic 4"
		[min_rnr_timer]="--min-rnr-timer 12"
	)
	for attr in "${!drop[@]}"; do
		args=" ${RC_RTR[*]} "
		args=${args/ ${drop[$attr]} / }
		run "$RDMACTL" qp modify "$qp" $args
		assert_option_refused "$attr"
		assert_output --partial "required for rc init -> rtr; required: --dgid (with --sgid-index), --path-mtu, --rq-psn, --min-rnr-timer, --max-dest-rd-atomic, --dest-qp; optional: --access"
		assert_equal "$(qp_json "$qp")" "$before"
	done
	# RC RTR -> RTS.
	"$RDMACTL" qp modify "$qp" "${RC_RTR[@]}"
	before=$(qp_json "$qp")
	declare -A drop_rts=(
		[timeout]="--timeout 14" [retry_cnt]="--retry-cnt 7" [rnr_retry]="--rnr-retry 6"
		[sq_psn]="--sq-psn 200" [max_rd_atomic]="--max-rd-atomic 8"
	)
	for attr in "${!drop_rts[@]}"; do
		args=" ${RC_RTS[*]} "
		args=${args/ ${drop_rts[$attr]} / }
		run "$RDMACTL" qp modify "$qp" $args
		assert_option_refused "$attr"
		assert_output --partial "required for rc rtr -> rts; required: --timeout, --retry-cnt, --rnr-retry, --max-rd-atomic, --sq-psn; optional: --cur-state, --access, --min-rnr-timer"
		assert_equal "$(qp_json "$qp")" "$before"
	done
}

@test "RESET -> INIT needs access on RC and UC, qkey on UD; UC RTR needs its four" {
	for type in rc uc; do
		qp=$(qp_create "$type")
		run "$RDMACTL" qp modify "$qp" --state init
		assert_option_refused access
		assert_output --partial "required for ${type} reset -> init; required: --access; optional: none"
		assert_equal "$(qp_field "$qp" state)" reset
	done
	qp=$(qp_create ud)
	run "$RDMACTL" qp modify "$qp" --state init
	assert_option_refused qkey
	assert_output --partial "required for ud reset -> init; required: --qkey; optional: none"
	qp=$(qp_create uc)
	qp_goto "$qp" uc init
	run "$RDMACTL" qp modify "$qp" --state rtr --dgid fe80::2 --sgid-index 0 --path-mtu 1024 --dest-qp 3
	assert_option_refused rq_psn
	assert_output --partial "required for uc init -> rtr; required: --dgid (with --sgid-index), --path-mtu, --rq-psn, --dest-qp; optional: --access"
	run "$RDMACTL" qp modify "$qp" --state rtr
	assert_option_refused av
	assert_equal "$(qp_field "$qp" state)" init
	# UD RTR -> RTS needs sq_psn.
	qp=$(qp_create ud)
	qp_goto "$qp" ud rtr
	run "$RDMACTL" qp modify "$qp" --state rts
	assert_option_refused sq_psn
	assert_output --partial "required for ud rtr -> rts; required: --sq-psn; optional: --cur-state, --qkey"
}

@test "an attribute the transition does not allow is refused naming it" {
	qp=$(qp_create rc)
	run "$RDMACTL" qp modify "$qp" "${RC_INIT[@]}" --qkey 5
	assert_option_refused qkey
	assert_output --partial "not allowed for rc reset -> init; required: --access; optional: none"
	assert_equal "$(qp_field "$qp" state)" reset
	# UD has no path: no MTU, no destination QP at RTR.
	qp=$(qp_create ud)
	qp_goto "$qp" ud init
	before=$(qp_json "$qp")
	run "$RDMACTL" qp modify "$qp" --state rtr --path-mtu 1024
	assert_option_refused path_mtu
	assert_output --partial "not allowed for ud init -> rtr; required: none; optional: --qkey"
	run "$RDMACTL" qp modify "$qp" --state rtr --access remote_read
	assert_option_refused access
	assert_equal "$(qp_json "$qp")" "$before"
	# UC has no ACK timer.
	qp=$(qp_create uc)
	qp_goto "$qp" uc rtr
	run "$RDMACTL" qp modify "$qp" "${UC_RTS[@]}" --timeout 3
	assert_option_refused timeout
	assert_output --partial "not allowed for uc rtr -> rts; required: --sq-psn; optional: --cur-state, --access"
	# To SQD, ERR and RESET nothing is allowed.
	qp=$(qp_create rc)
	qp_goto "$qp" rc rts
	before=$(qp_json "$qp")
	run "$RDMACTL" qp modify "$qp" --state sqd --access local_write
	assert_option_refused access
	run "$RDMACTL" qp modify "$qp" --state err --sq-psn 3
	assert_option_refused sq_psn
	run "$RDMACTL" qp modify "$qp" --state reset --timeout 3
	assert_option_refused timeout
	# cur_state only where the table has it (out of RTR, RTS, SQD, SQE to RTS).
	run "$RDMACTL" qp modify "$qp" --state err --cur-state rts
	assert_option_refused cur_state
	assert_equal "$(qp_json "$qp")" "$before"
}

@test "values out of their range or beyond the device's limits are refused naming them" {
	qp=$(qp_create rc)
	qp_goto "$qp" rc init
	before=$(qp_json "$qp")
	declare -A bad=(
		[min_rnr_timer]="--min-rnr-timer 32" [rq_psn]="--rq-psn 0x1000000"
		[dest_qp_num]="--dest-qp 16777216" [max_dest_rd_atomic]="--max-dest-rd-atomic 129"
	)
	for attr in "${!bad[@]}"; do
		# A later value of the same option is a usage error, so replace it.
		opt=${bad[$attr]%% *}
		args=" ${RC_RTR[*]} "
		args=$(sed -E "s/ $opt [^ ]+ / ${bad[$attr]} /" <<<"$args")
		run "$RDMACTL" qp modify "$qp" $args
		assert_refused InvalidArgument "$attr"
		assert_equal "$(qp_json "$qp")" "$before"
	done
	run "$RDMACTL" qp modify "$qp" $(sed -E 's/ --max-dest-rd-atomic [^ ]+ / --max-dest-rd-atomic 129 /' <<<" ${RC_RTR[*]} ")
	assert_output --partial "129; at most 128 (the device's max_qp_rd_atom)"
	# The address vector's fields, named with their path.
	for case in "av.flow_label:--flow-label 0x100000" "av.hop_limit:--hop-limit 256" \
		"av.traffic_class:--traffic-class 256" "av.sgid_index:--sgid-index 5" \
		"av.dgid:--dgid fe80::zz" "av.dgid:--dgid ::" "av.dmac:--dmac 00:11:22"; do
		field=${case%%:*}
		opt=${case#*:}
		args=$(sed -E "s/ ${opt%% *} [^ ]+ / /" <<<" ${RC_RTR[*]} ")
		run "$RDMACTL" qp modify "$qp" $args $opt
		assert_refused InvalidArgument "$field"
		assert_equal "$(qp_json "$qp")" "$before"
	done
	# An empty GID entry is named as such.
	run "$RDMACTL" qp modify "$qp" $(sed -E 's/ --sgid-index [^ ]+ / --sgid-index 5 /' <<<" ${RC_RTR[*]} ")
	assert_output --partial "GID index 5 of port 1 is empty"
	# The path MTU is one of the five: a usage error on the command line, the daemon's on the socket.
	run "$RDMACTL" qp modify "$qp" $(sed -E 's/ --path-mtu [^ ]+ / --path-mtu 1500 /' <<<" ${RC_RTR[*]} ")
	assert_failure 2
	run varlink_raw '{"method":"io.rdmad.Qp.Modify","parameters":{"handle":'"$qp"',"state":"rtr","path_mtu":1500,"av":{"dgid":"fe80::2","sgid_index":0},"dest_qp_num":1,"rq_psn":1,"max_dest_rd_atomic":1,"min_rnr_timer":1}}\0'
	assert_output --partial '"error":"io.rdmad.Qp.InvalidArgument","parameters":{"field":"path_mtu","reason":"1500; one of 256, 512, 1024, 2048, 4096"}'
	# RTS's own limits.
	qp2=$(qp_create rc)
	qp_goto "$qp2" rc rtr
	before=$(qp_json "$qp2")
	for case in "timeout:--timeout 32" "retry_cnt:--retry-cnt 8" "rnr_retry:--rnr-retry 8" \
		"sq_psn:--sq-psn 16777216" "max_rd_atomic:--max-rd-atomic 129"; do
		field=${case%%:*}
		opt=${case#*:}
		args=$(sed -E "s/ ${opt%% *} [^ ]+ / /" <<<" ${RC_RTS[*]} ")
		run "$RDMACTL" qp modify "$qp2" $args $opt
		assert_refused InvalidArgument "$field"
		assert_equal "$(qp_json "$qp2")" "$before"
	done
}

@test "max_rd_atomic and max_dest_rd_atomic are kept rounded up to a power of two" {
	# rxe (roundup_pow_of_two) and mlx5 (a log2 in the QP context) both report them so.
	qp=$(qp_create rc)
	qp_goto "$qp" rc init
	"$RDMACTL" qp modify "$qp" $(sed -E 's/ --max-dest-rd-atomic [^ ]+ / --max-dest-rd-atomic 5 /' <<<" ${RC_RTR[*]} ")
	"$RDMACTL" qp modify "$qp" $(sed -E 's/ --max-rd-atomic [^ ]+ / --max-rd-atomic 0 /' <<<" ${RC_RTS[*]} ")
	run qp_json "$qp"
	assert_output --partial '"max_dest_rd_atomic":8'
	assert_output --partial '"max_rd_atomic":0'
	run "$RDMACTL" qp modify "$qp" --state sqd
	run "$RDMACTL" qp modify "$qp" --state sqd --max-rd-atomic 100 --max-dest-rd-atomic 128
	assert_success
	run qp_json "$qp"
	assert_output --partial '"max_rd_atomic":128'
	assert_output --partial '"max_dest_rd_atomic":128'
}

@test "cur_state must be the QP's state" {
	qp=$(qp_create rc)
	qp_goto "$qp" rc rts
	run "$RDMACTL" qp modify "$qp" --state rts --cur-state rts --min-rnr-timer 3
	assert_success
	assert_equal "$(qp_field "$qp" min_rnr_timer)" 3
	# An empty flag list takes every remote access away.
	run "$RDMACTL" qp modify "$qp" --state rts --access ''
	assert_success
	assert_equal "$(qp_json "$qp" | jq -c .access)" '[]'
	before=$(qp_json "$qp")
	run "$RDMACTL" qp modify "$qp" --state rts --cur-state sqd
	assert_refused InvalidState cur_state
	assert_output --partial "the QP is in rts, not sqd"
	assert_equal "$(qp_json "$qp")" "$before"
}

@test "RTS -> SQD -> SQD -> RTS, as signature pipelining recovers" {
	qp=$(qp_create rc --sig-pipelining)
	qp_goto "$qp" rc sqd
	run qp_json "$qp"
	assert_output --partial '"state":"sqd"'
	# Nothing is in flight without a data path: the drain is over at once.
	assert_output --partial '"sq_draining":false'
	run "$RDMACTL" qp modify "$qp" --state sqd --timeout 20 --retry-cnt 3
	assert_success
	# mlx5dv's recovery: RTS with cur_state SQD.
	run "$RDMACTL" qp modify "$qp" --state rts --cur-state sqd
	assert_success
	run qp_json "$qp"
	assert_output --partial '"state":"rts"'
	assert_output --partial '"timeout":20,"retry_cnt":3'
}

@test "ERR and RESET: to RESET the QP forgets its attributes and its source GID" {
	"$RDMACTL" gid add 9 fe80::9
	qp=$(qp_create rc)
	qp_goto "$qp" rc init
	"$RDMACTL" qp modify "$qp" $(sed -E 's/ --sgid-index [^ ]+ / --sgid-index 9 /' <<<" ${RC_RTR[*]} ")
	run "$RDMACTL" gid del 9
	assert_failure 1
	assert_output --partial "io.rdmad.Gid.ObjectInUse: kind 'gid', handle '9', user_kind 'qp', user_handle '$qp'"
	run "$RDMACTL" qp modify "$qp" --state err
	assert_success
	run qp_json "$qp"
	assert_output --partial '"state":"err"'
	assert_output --partial '"path_mtu":1024'
	run "$RDMACTL" qp modify "$qp" --state reset
	assert_success
	run qp_json "$qp"
	assert_output --partial '"state":"reset"'
	refute_output --partial '"av"'
	refute_output --partial '"path_mtu"'
	refute_output --partial '"access"'
	run "$RDMACTL" gid del 9
	assert_success
	# And it starts again from the beginning.
	run "$RDMACTL" qp modify "$qp" "${RC_INIT[@]}"
	assert_success
}

@test "a CQ, PD or GID entry a QP uses cannot be destroyed; the error names the QP" {
	"$RDMACTL" pd create >/dev/null
	pd=$("$RDMACTL" -j pd list | jq -r '.[-1].handle')
	cq=$("$RDMACTL" -j cq create --cqe 4 | jq -r '.[0].handle')
	qp=$("$RDMACTL" -j qp create --pd "$pd" --send-cq "$cq" --recv-cq "$cq" --type rc | jq -r '.[0].handle')
	run "$RDMACTL" cq destroy "$cq"
	assert_failure 1
	assert_output --partial "io.rdmad.Cq.ObjectInUse: kind 'cq', handle '$cq', user_kind 'qp', user_handle '$qp'"
	run "$RDMACTL" pd destroy "$pd"
	assert_failure 1
	assert_output --partial "io.rdmad.Pd.ObjectInUse: kind 'pd', handle '$pd', user_kind 'qp', user_handle '$qp'"
	# Both queues into one CQ: the QP counts once.
	run "$RDMACTL" -j cq show "$cq"
	assert_output --partial '"qps":1'
	run "$RDMACTL" -j pd show "$pd"
	assert_output --partial '"qps":1'
	run "$RDMACTL" qp destroy "$qp"
	assert_success
	run "$RDMACTL" cq destroy "$cq"
	assert_success
	run "$RDMACTL" pd destroy "$pd"
	assert_success
}

@test "destroy: the QP is gone, a second destroy names it" {
	qp=$(qp_create ud)
	qp_goto "$qp" ud rts
	run "$RDMACTL" qp destroy "$qp"
	assert_success
	assert_output ''
	run "$RDMACTL" qp show "$qp"
	assert_failure 1
	assert_output --partial "io.rdmad.Qp.NoSuchObject: kind 'qp', handle '$qp'"
	run "$RDMACTL" qp destroy "$qp"
	assert_failure 1
	assert_output --partial "io.rdmad.Qp.NoSuchObject: kind 'qp', handle '$qp'"
	run "$RDMACTL" qp modify "$qp" --state reset
	assert_failure 1
	assert_output --partial "io.rdmad.Qp.NoSuchObject"
	# A fresh QP does not get the number back.
	next=$(qp_create ud)
	[ "$next" -ne "$qp" ]
}

@test "qp list and qp show without a number list every QP; qp alone is show" {
	n=$("$RDMACTL" -j qp list | jq length)
	[ "$n" -ge 5 ]
	assert_equal "$("$RDMACTL" -j qp show | jq length)" "$n"
	assert_equal "$("$RDMACTL" -j qp | jq length)" "$n"
	run "$RDMACTL" qp list
	assert_success
	# One line each, the main fields, words as they are typed back.
	assert_equal "${#lines[@]}" "$n"
	assert_line --regexp '^qp [0-9]+: ifname soft0 type (rc|uc|ud) state [a-z]+ pd [0-9]+ send_cq [0-9]+ recv_cq [0-9]+$'
}

@test "usage errors: exit 2, nothing sent" {
	run "$RDMACTL" qp modify 2 --state ready
	assert_failure 2
	assert_output --partial "'ready' is not one of: reset, init, rtr, rts, sqd, sqe, err"
	run "$RDMACTL" qp modify 2
	assert_failure 2
	assert_output --partial "missing option --state"
	run "$RDMACTL" qp modify 2 --state rts --sq-psn lots
	assert_failure 2
	run "$RDMACTL" qp destroy
	assert_failure 2
	run "$RDMACTL" qp modify help
	assert_success
	assert_output --partial "--state STATE"
	assert_output --partial "(reset|init|rtr|rts|sqd|sqe|err)"
}

@test "raw varlink: Create, Modify, Show, List, Destroy" {
	run varlink_raw '{"method":"io.rdmad.Qp.Create","parameters":{"pd":1,"send_cq":1,"recv_cq":2,"type":"ud","max_send_wr":8}}\0'
	assert_output --partial '"type":"ud","state":"reset","pd":1,"send_cq":1,"recv_cq":2'
	assert_output --partial '"max_send_wr":8'
	qp=$(jq -r .parameters.qp.handle <<<"$output")
	run varlink_raw '{"method":"io.rdmad.Qp.Modify","parameters":{"handle":'"$qp"',"state":"init","qkey":7}}\0'
	assert_output --partial '"state":"init"'
	assert_output --partial '"qkey":7'
	run varlink_raw '{"method":"io.rdmad.Qp.Modify","parameters":{"handle":'"$qp"',"state":"rts"}}\0'
	assert_output --partial '"error":"io.rdmad.Qp.InvalidState","parameters":{"field":"state","reason":"init -> rts is not a legal transition; from init: reset, init, rtr, err"}'
	run varlink_raw '{"method":"io.rdmad.Qp.Show","parameters":{"handle":'"$qp"'}}\0'
	assert_output --partial "\"handle\":$qp"
	run varlink_raw '{"method":"io.rdmad.Qp.List","parameters":{}}\0'
	assert_output --partial "\"handle\":$qp"
	run varlink_raw '{"method":"io.rdmad.Qp.Destroy","parameters":{"handle":'"$qp"'}}\0'
	assert_output '{"parameters":{}}'
}

@test "raw varlink: wrong types and unknown fields are InvalidParameter, negative numbers InvalidArgument" {
	run varlink_raw '{"method":"io.rdmad.Qp.Create","parameters":{"pd":1,"send_cq":1,"recv_cq":2,"type":"GSI"}}\0'
	assert_output --partial '"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"type"}'
	run varlink_raw '{"method":"io.rdmad.Qp.Create","parameters":{"pd":1,"send_cq":1,"recv_cq":2,"type":"rc","max_send_wr":-1}}\0'
	assert_output --partial '"error":"io.rdmad.Qp.InvalidArgument","parameters":{"field":"max_send_wr"'
	run varlink_raw '{"method":"io.rdmad.Qp.Modify","parameters":{"handle":2,"state":"init","rate_limit":5}}\0'
	assert_output --partial '"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"rate_limit"}'
	run varlink_raw '{"method":"io.rdmad.Qp.Modify","parameters":{"handle":2,"state":"init","av":{"sgid_index":0}}}\0'
	assert_output --partial '"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"av.dgid"}'
	run varlink_raw '{"method":"io.rdmad.Qp.Modify","parameters":{"handle":2,"state":"init","qkey":-4}}\0'
	assert_output --partial '"error":"io.rdmad.Qp.InvalidArgument","parameters":{"field":"qkey"'
}

@test "the device holds at most max_qp QPs: LimitReached names the limit" {
	d=$BATS_TEST_TMPDIR/limit
	# The cap lowered in rdmad.conf: 65,536 QPs (soft0's own) take a minute to create here.
	mkdir -p "$d"
	echo "max_qps = 300" >"$d/rdmad.conf"
	rdmad_start "$d"
	"$RDMACTL" pd create >/dev/null
	"$RDMACTL" cq create --cqe 1 >/dev/null
	max=$("$RDMACTL" -j dev show | jq '.[0].max_qp')
	assert_equal "$max" 300
	call='{"method":"io.rdmad.Qp.Create","parameters":{"pd":1,"send_cq":1,"recv_cq":1,"type":"ud"}}\0'
	calls=""
	for _ in $(seq 0 "$max"); do
		calls+=$call
	done
	run varlink_raw "$calls"
	rdmad_stop "$d"
	assert_equal "$(grep -c '"qp":' <<<"$output")" "$max"
	assert_line '{"error":"io.rdmad.Qp.LimitReached","parameters":{"kind":"qp","limit":'"$max"'}}'
}
