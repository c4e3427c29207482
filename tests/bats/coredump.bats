#!/usr/bin/env bats
# make check runs this file alone: it measures time, memory or CPU placement, which other tests beside it would disturb.
# Key material out of a core file of a live rdmad (issue 25 item 6): DEKs
# given by value, from a key file and wrapped under a KEK after a crypto
# login, each in use by MKEYs that carried traffic both ways, so that the
# AES-XTS engine holds their expanded keys; then gcore of the running daemon.
# Neither a key, nor its halves, nor any round key of either half (FIPS-197
# §5.2, by tests/tools/aes-schedule, for encryption and decryption), nor the
# KEK or the credential may be in the core; the DEKs' names, which the test
# gave the daemon too, must be.

load helper
load qp-helper
load key-helper
load core-helper

setup_file() {
	K="$BATS_FILE_TMPDIR/keys"
	login_keys "$K"
	cat >"$BATS_FILE_TMPDIR/rdmad.conf" <<-EOF2
	crypto_credential = $K/credential
	import_kek.main = $K/kek
	EOF2
	datapath_start
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	K="$BATS_FILE_TMPDIR/keys"
	cd "$BATS_TEST_TMPDIR"
}

# distinct_key FILE BYTES: key material whose halves differ (XTS refuses equal ones).
distinct_key() {
	key "$1" "$2"
	while [ "$(head -c $(($2 / 2)) "$1" | xxd -p -c 256)" = "$(tail -c $(($2 / 2)) "$1" | xxd -p -c 256)" ]; do
		key "$1" "$2"
	done
}

hex_of() { xxd -p -c 256 "$1"; }

# secrets LABEL HEX: LABEL=HEX for the bytes, and for an AES key of 16 or 32
# bytes every round key of its schedules.
secrets() {
	local label=$1 hex=$2 i=0 rk
	echo "$label=$hex"
	case ${#hex} in 32 | 64) ;; *) return 0 ;; esac
	while read -r rk; do
		echo "$label.round$((i += 1))=$rk"
	done < <("$BUILD/tools/aes-schedule" "$hex")
}

# xts_secrets LABEL HEX: the XTS key, its two halves, and their schedules.
xts_secrets() {
	local half=$((${#2} / 2))
	echo "$1=$2"
	secrets "$1.key1" "${2:0:$half}"
	secrets "$1.key2" "${2:$half}"
}

# crypto_mkey DEK LAYOUT: a crypto MKEY of PD 1 over LAYOUT, AES-XTS with the DEK.
crypto_mkey() {
	local k
	echo '{"mem":null,"wire":null,"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"signature_crypto_order":"signature_after_crypto_on_tx","data_unit_size":512,"initial_tweak":"01000000000000000000000000000000"}}' >cfg.json
	k=$("$RDMACTL" -j mkey create 1 --flags crypto --max-entries 4 | jq -r '.[0].handle')
	"$RDMACTL" mkey configure "$k" --layout "$2" --access local_write,remote_read,remote_write \
		--config cfg.json --dek "$1" >/dev/null
	echo "$k"
}

# traffic DEK: 512 bytes sent through a TX MKEY with the DEK (encrypted on a
# worker) into a peer MR, back into an RX MKEY (decrypted), and through
# mkey tx and rx (the control path's transform): the plaintext comes back.
traffic() {
	local plain tx rx wc
	plain=$(pattern 512)
	put "$MEM" 0 "$plain"
	tx=$(crypto_mkey "$1" "$MEM:0:512")
	rx=$(crypto_mkey "$1" "$MEM:512:512")
	"$RDMACTL" qp post-recv "$B" --sge "$PEER:0:512" --wrid 1
	"$RDMACTL" qp post "$A" send --sge "$tx:0:512" --wrid 2 --signaled
	assert_equal "$(wc_fields "$(poll_n "$CB" 1)")" "1 success recv 512 0 $B 0 "
	[ "$(get "$PEER" 0 512)" != "$plain" ]
	"$RDMACTL" qp post-recv "$A" --sge "$rx:0:512" --wrid 3
	"$RDMACTL" qp post "$B" send --sge "$PEER:0:512" --wrid 4
	wc=$(poll_n "$CA" 2 | jq -c '[.[] | select(.wr_id == 3)]')
	assert_equal "$(wc_fields "$wc")" "3 success recv 512 0 $A 0 "
	assert_equal "$(get "$MEM" 512 512)" "$plain"
	"$RDMACTL" mkey tx "$tx" | "$RDMACTL" mkey rx "$rx"
	assert_equal "$(get "$MEM" 512 512)" "$plain"
}

@test "a core file of a live rdmad holds no key, half key or round key of a DEK in use, nor the KEK or credential" {
	core_skip_unless_possible
	MEM=$(new_mr 1 4096 local_write,remote_write,remote_read)
	PEER=$(new_mr 1 4096 local_write,remote_write,remote_read)
	pair --max-send-wr 16 --max-recv-wr 16
	# By value: the key's base64 text in a Dek.Create message.
	distinct_key value.key 32
	run varlink_raw '{"method":"io.rdmad.Dek.Create","parameters":{"name":"coredump-by-value","size":128,"key":"'"$(base64 -w0 value.key)"'"}}\0'
	assert_output --partial '"state":"ready"'
	# From a key file, AES-256-XTS.
	distinct_key "$PWD/file.key" 64
	"$RDMACTL" dek create coredump-key-file --size 256 --key-file "$PWD/file.key" >/dev/null
	# Wrapped under the KEK, after a crypto login that keeps the KEK.
	"$RDMACTL" dek login --credential-file "$K/login" --kek main
	distinct_key wrapped.plain 32
	wrap "$K/kek" wrapped.plain "$PWD/wrapped.key"
	"$RDMACTL" dek create coredump-wrapped --size 128 --key-file "$PWD/wrapped.key" --import wrapped >/dev/null
	for dek in coredump-by-value coredump-key-file coredump-wrapped; do
		traffic "$dek"
	done
	core_take "$(cat "$BATS_FILE_TMPDIR/rdmad.pid")" core
	mapfile -t needles < <(
		xts_secrets by-value "$(hex_of value.key)"
		echo "by-value.text=$(base64 -w0 value.key | xxd -p -c 256)"
		xts_secrets key-file "$(hex_of file.key)"
		xts_secrets wrapped "$(hex_of wrapped.plain)"
		secrets kek "$(hex_of "$K/kek")"
		secrets credential "$(hex_of "$K/credential")"
	)
	run core_count core "${needles[@]}" \
		"control.by-value=$(echo -n coredump-by-value | xxd -p)" \
		"control.key-file=$(echo -n coredump-key-file | xxd -p)" \
		"control.wrapped=$(echo -n coredump-wrapped | xxd -p)"
	rm -f core
	assert_success
	# The count is as long as the needles: the schedules were computed.
	assert_equal "${#needles[@]}" 169
	for label in by-value key-file wrapped; do
		assert_line --regexp "^control\.$label [1-9]"
	done
	# Every secret: 0.  Those found are printed by the assertion.
	assert_equal "$(grep -v '^control\.' <<<"$output" | grep -v ' 0$' || true)" ""
	assert_daemon_serves
}
