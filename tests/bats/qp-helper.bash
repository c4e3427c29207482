# Shared by the suites that move data between QPs: the daemon with PDs and a GID, objects,
# connecting RC QPs, polling completions, MR bytes.  Needs helper.bash.

# datapath_start [PDS]: rdmad (rdmad_start), PDS PDs (default 1) and GID 0
# fe80::1, which every suite moving data between QPs begins with.
datapath_start() {
	local i
	rdmad_start
	for i in $(seq 1 "${1:-1}"); do
		"$RDMACTL" pd create >/dev/null
	done
	"$RDMACTL" gid add 0 fe80::1 >/dev/null
}

# new_mr PD SIZE [ACCESS]: an MR of the daemon's memory; prints its lkey.
new_mr() {
	"$RDMACTL" -j mr create "$1" --size "$2" ${3:+--access "$3"} | jq -r '.[0].lkey'
}

new_cq() {
	"$RDMACTL" -j cq create --cqe "${1:-16}" | jq -r '.[0].handle'
}

# new_qp CQ [CREATE OPTIONS...]: an RC QP of PD 1 completing into CQ; prints its number.
new_qp() {
	local cq=$1
	shift
	"$RDMACTL" -j qp create --pd 1 --send-cq "$cq" --recv-cq "$cq" --type rc "$@" |
		jq -r '.[0].handle'
}

# connect QP PEER [ACCESS [RNR_RETRY [MIN_RNR_TIMER]]]: RESET -> INIT -> RTR -> RTS towards PEER.
connect() {
	local qp=$1 peer=$2 access=${3-local_write,remote_write,remote_read}
	"$RDMACTL" qp modify "$qp" --state init --access "$access"
	"$RDMACTL" qp modify "$qp" --state rtr --dgid fe80::1 --sgid-index 0 --path-mtu 1024 \
		--dest-qp "$peer" --rq-psn 0 --max-dest-rd-atomic 4 --min-rnr-timer "${5:-1}"
	"$RDMACTL" qp modify "$qp" --state rts --timeout 14 --retry-cnt 7 --rnr-retry "${4:-7}" \
		--sq-psn 0 --max-rd-atomic 4
}

# pair [CREATE OPTIONS...]: QPs A and B connected to each other, completing into CA and CB.
pair() {
	CA=$(new_cq)
	CB=$(new_cq)
	A=$(new_qp "$CA" "$@")
	B=$(new_qp "$CB" "$@")
	connect "$A" "$B"
	connect "$B" "$A"
}

# poll_n CQ N: the completions of CQ as a JSON array, once N have come (or 5 s passed).
poll_n() {
	local cq=$1 n=$2 all='[]' got i
	for i in $(seq 1 25); do
		got=$("$RDMACTL" -j cq poll "$cq" --max 1024 --wait 200)
		all=$(jq -c --argjson a "$all" '$a + .' <<<"$got")
		[ "$(jq length <<<"$all")" -ge "$n" ] && break
	done
	echo "$all"
}

# wc_fields JSON: each completion as "wr_id status opcode byte_len imm qp src_qp flags".
wc_fields() {
	jq -r '.[] | "\(.wr_id) \(.status) \(.opcode) \(.byte_len) \(.imm) \(.qp) \(.src_qp) \(.flags | join(","))"' <<<"$1"
}

qp_field() {
	"$RDMACTL" -j qp show "$1" | jq -r ".[0].$2"
}

# put KEY OFFSET HEX: writes the bytes into the MR.
put() {
	xxd -r -p <<<"$3" | "$RDMACTL" mr write "$1" --offset "$2"
}

# get KEY OFFSET LENGTH: the bytes of the MR, as hex.
get() {
	"$RDMACTL" mr read "$1" --offset "$2" --length "$3" | xxd -p | tr -d '\n'
}

# assert_refused IFACE ERROR FIELD: the last run failed naming the error and the field, with its exit status.
assert_refused() {
	assert_failure "$(refusal_status "$2")"
	assert_output --partial "io.rdmad.$1.$2: field '$3'"
}

# The T10-DIF configuration of reference mlx5_sig_crypto.md §2.2: in memory, none on the wire.
T10_CONFIG='{"mem":{"sig_type":"t10dif","block_size":512,"t10dif":{"bg_type":"crc","bg":65535,"app_tag":22136,"ref_tag":4041129114}},"wire":null}'

# a5 N: N bytes 0xA5, as hex.
a5() { printf 'a5%.0s' $(seq 1 "$1"); }

# t10_mkey_over MR OFFSET ACCESS: a T10-DIF MKEY over the 520 bytes of MR at OFFSET, as they are.
t10_mkey_over() {
	local k
	echo "$T10_CONFIG" >t10.json
	k=$("$RDMACTL" -j mkey create 1 --flags block_signature --max-entries 4 | jq -r '.[0].handle')
	"$RDMACTL" mkey configure "$k" --layout "$1:$2:520" --access "$3" --config t10.json >/dev/null
	echo "$k"
}

# t10_mkey MR OFFSET PI: one block of MR at OFFSET (512 x 0xA5, then PI) through a T10-DIF MKEY.
t10_mkey() {
	put "$1" "$2" "$(a5 512)$3"
	t10_mkey_over "$1" "$2" local_write,remote_read,remote_write
}
