#!/usr/bin/env bats
# MKEYs against a real rdmad: creation rules (reference mlx5_sig_crypto.md §1.2),
# configure rules and persistence (§3.1-3.2), mkey check and stickiness (§3.4-3.5),
# and tx/rx through an MKEY giving exactly what `rdmactl offload` gives offline
# for the same configuration and bytes (known answers from reference §2.8);
# plain MKEYs (no flag), their bytes checked against the layout spelled out by hand.

load helper

setup_file() {
	rdmad_start
	"$RDMACTL" pd create >/dev/null    # PD 1
	"$RDMACTL" pd create >/dev/null    # PD 2
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
	bytes() { python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]) * int(sys.argv[2]))" "$@"; }
	hex() { od -An -v -tx1 | tr -d ' \n'; }
}

# mkey_create PD FLAGS ENTRIES: prints the new MKEY's handle.
mkey_create() {
	"$RDMACTL" -j mkey create "$1" --flags "$2" --max-entries "$3" | jq -r '.[0].handle'
}
# mr_create PD SIZE: prints the new MR's handle.
mr_create() {
	"$RDMACTL" -j mr create "$1" --size "$2" --access local_write | jq -r '.[0].handle'
}
mkey_json() {
	"$RDMACTL" -j mkey show "$1" | jq -c '.[0]'
}
mkey_count() {
	"$RDMACTL" -j mkey list | jq length
}
# assert_refused ERROR FIELD: the last run failed naming the error and the field, with its exit status.
assert_refused() {
	assert_failure "$(refusal_status "$1")"
	assert_output --partial "io.rdmad.Mkey.$1: field '$2'"
}
# configure_refused MKEY ERROR FIELD ARGS...: refused as said, and the MKEY is unchanged.
configure_refused() {
	local h=$1 error=$2 field=$3 before
	shift 3
	before=$(mkey_json "$h")
	run "$RDMACTL" mkey configure "$h" "$@"
	assert_refused "$error" "$field"
	assert_equal "$(mkey_json "$h")" "$before"
}
t10dif_wire() { # APP REF [FLAGS]: T10-DIF (CRC guard, bg 0xFFFF) on the wire, none in memory
	echo "{\"mem\":null,\"wire\":{\"sig_type\":\"t10dif\",\"block_size\":512,\"t10dif\":{\"bg_type\":\"crc\",\"bg\":65535,\"app_tag\":$1,\"ref_tag\":$2,\"flags\":[${3:-}]}}}"
}

@test "mkey create: free, max_entries rounded up to a multiple of 4, key = index << 8 | tag" {
	run "$RDMACTL" -j mkey create 1 --flags block_signature --max-entries 5
	assert_success
	rec=$(jq -c '.[0]' <<<"$output")
	h=$(jq -r .handle <<<"$rec")
	[ "$(jq -r .mkeyn <<<"$rec")" = $((h >> 8)) ]
	[ $((h & 255)) -ne 0 ]
	[ "$(jq -r .lkey <<<"$rec")" = "$h" ]
	[ "$(jq -r .rkey <<<"$rec")" = "$h" ]
	assert_equal "$(jq -c '{ifname, ifindex, pd, flags, max_entries, state, access, layout, length, config, sig_armed, sig_error_pending, transfers, pool, pool_name, borrowed}' <<<"$rec")" \
		'{"ifname":"soft0","ifindex":0,"pd":1,"flags":["block_signature"],"max_entries":8,"state":"free","access":[],"layout":null,"length":0,"config":null,"sig_armed":false,"sig_error_pending":false,"transfers":0,"pool":null,"pool_name":null,"borrowed":false}'
	h=$(mkey_create 1 block_signature,crypto 256)
	assert_equal "$(mkey_json "$h" | jq -c '[.flags, .max_entries]')" '[["block_signature","crypto"],256]'
	run "$RDMACTL" mkey show "$h"
	assert_success
	# Text lines wrap; the record reads as one line.
	[[ "$(tr '\n' ' ' <<<"$output" | tr -s ' ')" =~ ^mkey\ $(printf 0x%x "$h"):\ ifname\ soft0\ ifindex\ 0\ mkeyn\ [0-9]+\ pd\ 1\ .*flags\ block_signature,crypto\ max_entries\ 256 ]]
}

@test "mkey create refusals: entries 0 or over 256 after rounding, no PD, unknown flag; nothing created" {
	n=$(mkey_count)
	run "$RDMACTL" mkey create 1 --flags block_signature --max-entries 0
	assert_refused InvalidArgument max_entries
	run "$RDMACTL" mkey create 1 --flags block_signature --max-entries 257
	assert_refused InvalidArgument max_entries
	run "$RDMACTL" mkey create 99 --flags crypto --max-entries 4
	assert_failure 1
	assert_output --partial "io.rdmad.Mkey.NoSuchObject: kind 'pd', handle '99'"
	run "$RDMACTL" mkey create 1 --flags relaxed_ordering --max-entries 4
	assert_failure 2
	run "$RDMACTL" mkey create 1 --flags none
	assert_failure 2
	run varlink_raw '{"method":"io.rdmad.Mkey.Create","parameters":{"pd":1,"flags":["relaxed_ordering"],"max_entries":4}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"flags[0]"}}'
	assert_equal "$(mkey_count)" "$n"
}

@test "mkey configure: list layout, access, signature; show reports them" {
	mr=$(mr_create 1 8192)
	h=$(mkey_create 1 block_signature 4)
	t10dif_wire 22136 4041129114 '"ref_remap"' >cfg.json
	run "$RDMACTL" -j mkey configure "$h" --layout "$mr:0:512" --layout "$mr:4096:512" \
		--access local_write,remote_read,remote_atomic --config cfg.json
	assert_success
	rec=$(jq -c '.[0]' <<<"$output")
	assert_equal "$(jq -c '{state, access, length, sig_armed, configures}' <<<"$rec")" \
		'{"state":"configured","access":["local_write","remote_read","remote_atomic"],"length":1024,"sig_armed":true,"configures":1}'
	assert_equal "$(jq -c .layout <<<"$rec")" \
		"{\"layout_type\":\"list\",\"repeat_count\":1,\"entries\":[{\"mr\":$mr,\"offset\":0,\"bytes_count\":512,\"bytes_skip\":0},{\"mr\":$mr,\"offset\":4096,\"bytes_count\":512,\"bytes_skip\":0}]}"
	assert_equal "$(jq -c .config.wire.t10dif <<<"$rec")" \
		'{"bg_type":"crc","bg":65535,"app_tag":22136,"ref_tag":4041129114,"flags":["ref_remap"]}'
	assert_equal "$(jq -c .config.mem <<<"$rec")" null
}

@test "mkey configure persistence: access and layout replaced, signature kept until reset or replaced" {
	mr=$(mr_create 1 4096)
	h=$(mkey_create 1 block_signature 4)
	t10dif_wire 1 2 >cfg.json
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:512" --access local_write --config cfg.json >/dev/null
	# Access only: the layout and the signature stay.
	"$RDMACTL" mkey configure "$h" --access remote_read >/dev/null
	assert_equal "$(mkey_json "$h" | jq -c '[.access, .length, .config.wire.t10dif.app_tag]')" '[["remote_read"],512,1]'
	# A new layout replaces the old one; the signature stays; access stays when not given.
	"$RDMACTL" mkey configure "$h" --layout "$mr:512:1024" >/dev/null
	assert_equal "$(mkey_json "$h" | jq -c '[.access, .layout.entries[0].offset, .length, .config.wire.t10dif.app_tag]')" '[["remote_read"],512,1024,1]'
	# A new signature replaces the old one.
	t10dif_wire 7 2 >cfg2.json
	"$RDMACTL" mkey configure "$h" --config cfg2.json >/dev/null
	assert_equal "$(mkey_json "$h" | jq -c .config.wire.t10dif.app_tag)" 7
	# --access none: remote and local write off (local read stays, as always).
	"$RDMACTL" mkey configure "$h" --access none >/dev/null
	assert_equal "$(mkey_json "$h" | jq -c .access)" '[]'
	# RESET_SIG_ATTR: the signature is gone; the MKEY is a plain indirect MKEY.
	"$RDMACTL" mkey configure "$h" --reset-sig >/dev/null
	assert_equal "$(mkey_json "$h" | jq -c '[.config, .state, .length]')" '[null,"configured",1024]'
	# Reset and a new signature in one configure: the new one.
	"$RDMACTL" mkey configure "$h" --reset-sig --config cfg.json >/dev/null
	assert_equal "$(mkey_json "$h" | jq -c .config.wire.t10dif.app_tag)" 1
	assert_equal "$(mkey_json "$h" | jq -c .configures)" 7
}

@test "mkey configure layout refusals name the field and change nothing" {
	mr=$(mr_create 1 4096)
	other=$(mr_create 2 4096)
	dma=$("$RDMACTL" -j mr dma 1 | jq -r '.[0].handle')
	h=$(mkey_create 1 block_signature 4)
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:512" >/dev/null
	configure_refused "$h" InvalidArgument layout \
		--layout "$mr:0:1" --layout "$mr:1:1" --layout "$mr:2:1" --layout "$mr:3:1" --layout "$mr:4:1"
	# Interleaved takes one entry more than it has (the strided header).
	configure_refused "$h" InvalidArgument interleaved.entries --repeat 2 \
		--interleave "$mr:0:8:8" --interleave "$mr:8:8:8" --interleave "$mr:16:8:8" --interleave "$mr:24:8:8"
	configure_refused "$h" InvalidArgument 'layout[0].mr' --layout "$other:0:512"
	configure_refused "$h" InvalidArgument 'layout[0].mr' --layout "$dma:0:512"
	configure_refused "$h" InvalidArgument 'layout[1].length' --layout "$mr:0:512" --layout "$mr:3800:512"
	configure_refused "$h" InvalidArgument 'layout[0].offset' --layout "$mr:4096:1"
	configure_refused "$h" InvalidArgument 'layout[0].length' --layout "$mr:0:0"
	# The last round of an interleaved entry must fit: 0 + 4 * (512 + 512) + 512 > 4096.
	configure_refused "$h" InvalidArgument 'interleaved.entries[0].bytes_count' --repeat 5 --interleave "$mr:0:512:512"
	configure_refused "$h" InvalidArgument interleaved.repeat_count --repeat 0 --interleave "$mr:0:512:0"
	before=$(mkey_json "$h")
	run "$RDMACTL" mkey configure "$h" --layout 999999:0:512
	assert_failure 1
	assert_output --partial "io.rdmad.Mkey.NoSuchObject: kind 'mr', handle '0xf423f'"
	assert_equal "$(mkey_json "$h")" "$before"
	run "$RDMACTL" mkey configure "$h" --layout "$mr:0:512" --interleave "$mr:0:8:8"
	assert_failure 2
	run "$RDMACTL" mkey configure "$h" --layout "$mr:0"
	assert_failure 2
	run "$RDMACTL" mkey configure "$h" --access remote_write,relaxed_ordering
	assert_failure 2
	assert_equal "$(mkey_json "$h")" "$before"
}

@test "mkey configure signature and crypto refusals name the field and change nothing" {
	mr=$(mr_create 1 4096)
	sig=$(mkey_create 1 block_signature 4)
	crypto=$(mkey_create 1 crypto 4)
	both=$(mkey_create 1 block_signature,crypto 4)
	t10dif_wire 1 2 >wire.json
	echo '{"mem":null,"wire":null}' >none.json
	echo '{"check_mask":15}' >mask.json
	echo '{"mem":null,"wire":{"sig_type":"t10dif","block_size":512,"t10dif":{"bg":5}}}' >bg.json
	echo '{"mem":null,"wire":{"sig_type":"crc","block_size":512,"crc":{"type":"crc32c"}},"copy_mask":255}' >copy.json
	echo '{"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"data_unit_size":512}}' >nodek.json
	echo '{"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"data_unit_size":512,"dek":1,"keytag":"xyz"}}' >keytag.json
	echo '{"mem":null,"wire":null,"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"data_unit_size":513,"dek":1}}' >dus.json
	echo '{"mem":null,"wire":{"sig_type":"crc","block_size":512,"crc":{"type":"crc32c"}},"typo":1}' >typo.json
	"$RDMACTL" mkey configure "$sig" --layout "$mr:0:512" --config wire.json >/dev/null
	configure_refused "$sig" InvalidArgument config --config none.json
	configure_refused "$sig" InvalidArgument config --config mask.json
	configure_refused "$sig" InvalidArgument config.wire.t10dif.bg --config bg.json
	configure_refused "$sig" InvalidArgument config.copy_mask --config copy.json
	configure_refused "$sig" InvalidArgument config.typo --config typo.json
	configure_refused "$sig" InvalidArgument config.crypto --config nodek.json --dek 1
	configure_refused "$crypto" InvalidArgument config.wire --config wire.json
	configure_refused "$both" InvalidArgument config.crypto.dek --config nodek.json
	configure_refused "$both" InvalidArgument config.crypto.keytag --config keytag.json
	configure_refused "$both" InvalidArgument config.crypto.data_unit_size --config dus.json
	# RAW_WIRE (encrypt_on_tx, signature after crypto) with a signature in both domains.
	echo '{"mem":{"sig_type":"crc","block_size":512,"crc":{"type":"crc32c"}},"wire":{"sig_type":"crc","block_size":512,"crc":{"type":"crc32"}}}' >two.json
	echo '{"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"signature_crypto_order":"signature_after_crypto_on_tx","data_unit_size":512,"dek":1}}' >raw.json
	"$RDMACTL" mkey configure "$both" --layout "$mr:0:1028" --config two.json >/dev/null
	configure_refused "$both" InvalidArgument config.crypto.signature_crypto_order --config raw.json
	configure_refused "$both" InvalidArgument config.crypto.dek --config raw.json --dek 0
	echo '[1]' >array.json
	run "$RDMACTL" mkey configure "$sig" --config array.json
	assert_failure 2
	assert_output --partial 'must be a JSON object, not array'
	run "$RDMACTL" mkey configure "$sig" --dek 1
	assert_failure 2
}

@test "a crypto or signature domain missing several members names them all, with their values, in one error" {
	both=$(mkey_create 1 block_signature,crypto 4)
	echo '{"crypto":{}}' >empty.json
	echo '{"crypto":{"encrypt_on_tx":false}}' >some.json
	echo '{"mem":{},"wire":null}' >domain.json
	before=$(mkey_json "$both")
	run "$RDMACTL" mkey configure "$both" --config empty.json
	assert_failure 2
	assert_output "rdmactl: mkey configure: io.rdmad.Mkey.InvalidArgument: field 'config.crypto', reason 'missing members: standard (allowed: \"aes_xts\"), encrypt_on_tx (allowed: true, false), data_unit_size (allowed: 512, 520, 4048, 4096, 4160), dek (allowed: a DEK's name or handle)'"
	# --dek fills crypto.dek: the others are still all named.
	run "$RDMACTL" mkey configure "$both" --config some.json --dek 1
	assert_failure 2
	assert_output "rdmactl: mkey configure: io.rdmad.Mkey.InvalidArgument: field 'config.crypto', reason 'missing members: standard (allowed: \"aes_xts\"), data_unit_size (allowed: 512, 520, 4048, 4096, 4160)'"
	run "$RDMACTL" mkey configure "$both" --config domain.json
	assert_failure 2
	assert_output --partial "field 'config.mem', reason 'missing members: sig_type (allowed: \"t10dif\", \"crc\"), block_size (allowed: 512, 520, 4048, 4096, 4160)'"
	assert_equal "$(mkey_json "$both")" "$before"
	# The offline transform reads the same file the same way.
	run "$RDMACTL" offload tx --config empty.json </dev/null
	assert_failure
	assert_output --partial "crypto: missing members: standard (allowed: \"aes_xts\"), encrypt_on_tx (allowed: true, false), data_unit_size"
}

@test "MRs and the PD an MKEY uses cannot be destroyed under it; the MKEY can" {
	mr=$(mr_create 1 4096)
	h=$(mkey_create 1 block_signature 4)
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:512" >/dev/null
	run "$RDMACTL" mr destroy "$mr"
	assert_failure 1
	assert_output --partial "ObjectInUse: kind 'mr', handle '$(printf 0x%x "$mr")', user_kind 'mkey', user_handle '$(printf 0x%x "$h")'"
	run "$RDMACTL" pd destroy 1
	assert_failure 1
	assert_output --partial "ObjectInUse: kind 'pd', handle '1'"
	# A new layout lets go of the old MRs.
	mr2=$(mr_create 1 4096)
	"$RDMACTL" mkey configure "$h" --layout "$mr2:0:512" >/dev/null
	run "$RDMACTL" mr destroy "$mr"
	assert_success
	run "$RDMACTL" mkey destroy "$h"
	assert_success
	run "$RDMACTL" mkey show "$h"
	assert_failure 1
	assert_output --partial "NoSuchObject: kind 'mkey', handle '$(printf 0x%x "$h")'"
	run "$RDMACTL" mr destroy "$mr2"
	assert_success
}

@test "mkey tx of a T10-DIF insert gives offload tx's bytes: the hardware tuple ec7d5678f0debc9a" {
	mr=$(mr_create 1 8192)
	h=$(mkey_create 1 block_signature 4)
	t10dif_wire $((0x5678)) $((0xf0debc9a)) >cfg.json
	bytes a5 512 >mem
	"$RDMACTL" mr write "$mr" --offset 1000 <mem
	"$RDMACTL" mkey configure "$h" --layout "$mr:1000:512" --config cfg.json >/dev/null
	"$RDMACTL" mkey tx "$h" >wire
	"$RDMACTL" offload tx --config cfg.json --report rep.json <mem >expected
	cmp wire expected
	assert_equal "$(tail -c 8 wire | hex)" ec7d5678f0debc9a
	assert_equal "$("$RDMACTL" -j mkey check "$h")" "$(jq -c 'del(.kernel)' rep.json)"
	assert_equal "$(mkey_json "$h" | jq -c '[.transfers, (.sig_errors | add)]')" '[1,0]'
}

@test "mkey tx gathers a list layout across MRs, ref tags counting over the whole transfer" {
	a=$(mr_create 1 4096)
	b=$(mr_create 1 4096)
	h=$(mkey_create 1 block_signature 4)
	t10dif_wire 1 100 '"ref_remap"' >cfg.json
	bytes 11 512 >m1; bytes 22 256 >m2; bytes 33 256 >m3
	"$RDMACTL" mr write "$a" <m1
	"$RDMACTL" mr write "$b" --offset 100 <m2
	"$RDMACTL" mr write "$a" --offset 2048 <m3
	"$RDMACTL" mkey configure "$h" --layout "$a:0:512" --layout "$b:100:256" --layout "$a:2048:256" \
		--config cfg.json >/dev/null
	"$RDMACTL" mkey tx "$h" >wire
	cat m1 m2 m3 | "$RDMACTL" offload tx --config cfg.json >expected
	cmp wire expected
	[ "$(stat -c %s wire)" -eq 1040 ]
}

@test "mkey rx strips and checks into an interleaved layout, as offload rx does" {
	mr=$(mr_create 1 4096)
	h=$(mkey_create 1 block_signature 4)
	t10dif_wire 1 100 '"ref_remap"' >cfg.json
	bytes 5a 1024 | "$RDMACTL" offload tx --config cfg.json >wire
	"$RDMACTL" offload rx --config cfg.json <wire >expected
	# 4 rounds of 128 bytes from each entry, 128 skipped: 1024 bytes spread over the MR.
	"$RDMACTL" mkey configure "$h" --repeat 4 --interleave "$mr:0:128:128" --interleave "$mr:128:128:128" \
		--config cfg.json >/dev/null
	run "$RDMACTL" -j mkey rx "$h" <wire
	assert_success
	assert_equal "$(jq -c '[.received, .length, .sig_error.err_type]' <<<"$output")" '[1040,1024,"none"]'
	"$RDMACTL" mr read "$mr" --length 1024 | cmp - expected
	# tx gathers the same bytes back in MKEY order.
	"$RDMACTL" mkey tx "$h" | cmp - wire
}

@test "mkey tx with CRC32C and CRC64_XP10 in memory, CRC32 on the wire, equals offload tx" {
	mr=$(mr_create 1 8192)
	h=$(mkey_create 1 block_signature 4)
	echo '{"mem":{"sig_type":"crc","block_size":512,"crc":{"type":"crc32c","seed":4294967295}},"wire":{"sig_type":"crc","block_size":512,"crc":{"type":"crc32","seed":0}}}' >c.json
	echo '{"mem":null,"wire":{"sig_type":"crc","block_size":512,"crc":{"type":"crc32c","seed":4294967295}}}' >gen.json
	# Memory bytes with valid CRC32C fields, made offline.
	bytes 00 1024 | "$RDMACTL" offload tx --config gen.json >mem
	assert_equal "$(head -c 516 mem | tail -c 4 | hex)" c0edfc30
	"$RDMACTL" mr write "$mr" <mem
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:1032" --config c.json >/dev/null
	"$RDMACTL" mkey tx "$h" >wire
	"$RDMACTL" offload tx --config c.json --report rep.json <mem >expected
	cmp wire expected
	assert_equal "$("$RDMACTL" -j mkey check "$h")" "$(jq -c 'del(.kernel)' rep.json)"
	echo '{"mem":null,"wire":{"sig_type":"crc","block_size":512,"crc":{"type":"crc64_xp10","seed":18446744073709551615}}}' >c64.json
	"$RDMACTL" mkey configure "$h" --reset-sig --config c64.json --layout "$mr:0:512" >/dev/null
	bytes 00 512 | "$RDMACTL" mr write "$mr"
	assert_equal "$("$RDMACTL" mkey tx "$h" | tail -c 8 | hex)" e982a768280ee61d
}

@test "a corrupted guard gives the check record offload --report gives; sticky until the next configure" {
	mr=$(mr_create 1 4096)
	h=$(mkey_create 1 block_signature 4)
	t10dif_wire $((0x5678)) $((0xf0debc9a)) >cfg.json
	{ bytes a5 512; bytes ec7d5678f0debc9a 1; bytes a5 512; bytes 00007678f0debc9a 1; } >wire
	sig_error "$RDMACTL" offload rx --config cfg.json --report rep.json <wire >expected
	assert_equal "$(jq -c 'del(.kernel)' rep.json)" "{\"err_type\":\"guard\",\"expected_value\":0,\"actual_value\":$((0xec7d)),\"offset\":520}"
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:1024" --config cfg.json >/dev/null
	run -3 "$RDMACTL" -j mkey rx "$h" <wire
	assert_line --index 1 "rdmactl: mkey rx: signature error: guard expected 0x0 actual 0xec7d at offset 520"
	assert_equal "$(head -1 <<<"$output" | jq -c .sig_error)" "$(jq -c 'del(.kernel)' rep.json)"
	# The bytes are delivered whatever the error.
	"$RDMACTL" mr read "$mr" --length 1024 | cmp - expected
	assert_equal "$(mkey_json "$h" | jq -c '[.sig_armed, .sig_error_pending, (.sig_errors | add)]')" '[false,true,1]'
	# A second error before a configure is ignored (the PSV is in ERROR state).
	{ bytes a5 512; bytes 1111567800000000 1; bytes a5 512; bytes ec7d5678f0debc9a 1; } >wire2
	sig_error "$RDMACTL" mkey rx "$h" <wire2
	assert_equal "$("$RDMACTL" -j mkey check "$h")" "$(jq -c 'del(.kernel)' rep.json)"
	# Read and clear.
	assert_equal "$("$RDMACTL" -j mkey check "$h")" '{"err_type":"none","expected_value":0,"actual_value":0,"offset":0}'
	sig_error "$RDMACTL" mkey rx "$h" <wire
	assert_equal "$("$RDMACTL" -j mkey check "$h" | jq -r .err_type)" none
	# A configure re-arms: the next error is recorded.
	"$RDMACTL" mkey configure "$h" >/dev/null
	sig_error "$RDMACTL" mkey rx "$h" <wire2
	sig_error "$RDMACTL" offload rx --config cfg.json --report rep2.json <wire2 >/dev/null
	assert_equal "$("$RDMACTL" -j mkey check "$h")" "$(jq -c 'del(.kernel)' rep2.json)"
	assert_equal "$(mkey_json "$h" | jq -c '[.transfers, (.sig_errors | add), .sig_error_pending]')" '[4,4,false]'
}

@test "mkey check: refused on an MKEY without block_signature; an error of a domain reset away stays" {
	mr=$(mr_create 1 4096)
	c=$(mkey_create 1 crypto 4)
	run "$RDMACTL" mkey check "$c"
	assert_refused InvalidArgument handle
	h=$(mkey_create 1 block_signature 4)
	t10dif_wire 1 2 >cfg.json
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:512" --config cfg.json >/dev/null
	{ bytes 00 512; bytes 0000000100000002 1; } | sig_error "$RDMACTL" mkey rx "$h"
	"$RDMACTL" mkey configure "$h" --reset-sig >/dev/null
	run "$RDMACTL" mkey check "$h"
	assert_refused InvalidState config
	assert_equal "$(mkey_json "$h" | jq -c .sig_error_pending)" true
}

@test "transfers refused: free MKEY, crypto MKEY without crypto, input ending inside a PI, too long" {
	mr=$(mr_create 1 4096)
	h=$(mkey_create 1 block_signature 4)
	run "$RDMACTL" mkey tx "$h"
	assert_refused InvalidState handle
	c=$(mkey_create 1 crypto 4)
	"$RDMACTL" mkey configure "$c" --layout "$mr:0:512" >/dev/null
	run "$RDMACTL" mkey tx "$c"
	assert_refused InvalidState config.crypto
	t10dif_wire 1 2 >cfg.json
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:512" --config cfg.json >/dev/null
	run bash -c "head -c 519 /dev/zero | '$RDMACTL' mkey rx $h"
	assert_refused InvalidArgument data
	# 1040 wire bytes give 1024 memory bytes: more than the layout's 512.
	run bash -c "{ head -c 512 /dev/zero; printf '\\0\\0\\0\\1\\0\\0\\0\\2'; head -c 512 /dev/zero; printf '\\0\\0\\0\\1\\0\\0\\0\\3'; } | '$RDMACTL' mkey rx $h"
	assert_refused InvalidArgument data
	echo '{"mem":{"sig_type":"t10dif","block_size":512},"wire":null}' >strip.json
	"$RDMACTL" mkey configure "$h" --reset-sig --config strip.json >/dev/null
	run "$RDMACTL" mkey tx "$h"
	assert_refused InvalidArgument layout
	assert_equal "$(mkey_json "$h" | jq -c .transfers)" 0
}

@test "a plain MKEY (block_signature, no signature set) copies bytes both ways" {
	mr=$(mr_create 1 4096)
	h=$(mkey_create 1 block_signature 4)
	"$RDMACTL" mkey configure "$h" --layout "$mr:100:10" --layout "$mr:0:5" >/dev/null
	printf 'abcdefghijKLMNO' | "$RDMACTL" mkey rx "$h"
	assert_equal "$("$RDMACTL" mr read "$mr" --length 5)" KLMNO
	assert_equal "$("$RDMACTL" mr read "$mr" --offset 100 --length 10)" abcdefghij
	assert_equal "$("$RDMACTL" mkey tx "$h")" abcdefghijKLMNO
}

@test "a plain MKEY (no flag): created free with no flag, configured with a layout and access only" {
	mr=$(mr_create 1 4096)
	run "$RDMACTL" -j mkey create 1 --max-entries 3
	assert_success
	h=$(jq -r '.[0].handle' <<<"$output")
	assert_equal "$(jq -c '.[0] | {flags, max_entries, state, config, layout}' <<<"$output")" \
		'{"flags":[],"max_entries":4,"state":"free","config":null,"layout":null}'
	# --flags none says the same.
	h2=$("$RDMACTL" -j mkey create 1 --flags none --max-entries 4 | jq -r '.[0].handle')
	assert_equal "$(mkey_json "$h2" | jq -c .flags)" '[]'
	run "$RDMACTL" mkey show "$h"
	assert_success
	# An empty list reads "-" in text, as access does.
	assert_output --partial "flags -"
	run "$RDMACTL" -j mkey configure "$h" --layout "$mr:100:5" --layout "$mr:0:7" --access local_write,remote_read
	assert_success
	assert_equal "$(jq -c '.[0] | {state, access, length, config, layout_type: .layout.layout_type}' <<<"$output")" \
		'{"state":"configured","access":["local_write","remote_read"],"length":12,"config":null,"layout_type":"list"}'
	# Signature and crypto: the MKEY was created without them; the refusal names the field.
	t10dif_wire 1 2 >wire.json
	echo '{"mem":{"sig_type":"crc","block_size":512,"crc":{"type":"crc32c"}},"wire":null}' >mem.json
	echo '{"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"data_unit_size":512,"dek":1}}' >crypto.json
	configure_refused "$h" InvalidArgument config.wire --config wire.json
	configure_refused "$h" InvalidArgument config.mem --config mem.json
	configure_refused "$h" InvalidArgument config.crypto --config crypto.json
	run "$RDMACTL" mkey configure "$h" --config wire.json
	assert_output --partial "the MKEY was created without block_signature"
	run "$RDMACTL" mkey configure "$h" --config crypto.json
	assert_output --partial "the MKEY was created without crypto"
	# No signature, no check record.
	run "$RDMACTL" mkey check "$h"
	assert_refused InvalidArgument handle
	"$RDMACTL" mkey destroy "$h"
	"$RDMACTL" mkey destroy "$h2"
}

@test "a plain MKEY: tx gathers and rx scatters a list layout, bytes as they are" {
	mr=$(mr_create 1 4096)
	mem=$(pattern 4096)
	xxd -r -p <<<"$mem" | "$RDMACTL" mr write "$mr"
	h=$("$RDMACTL" -j mkey create 1 --max-entries 4 | jq -r '.[0].handle')
	"$RDMACTL" mkey configure "$h" --layout "$mr:100:5" --layout "$mr:4000:3" --layout "$mr:10:7" >/dev/null
	want=$(pieces "$mem" 100:5 4000:3 10:7)
	assert_equal "$("$RDMACTL" mkey tx "$h" | hex)" "$want"
	assert_equal "$(mkey_json "$h" | jq -c '[.length, .transfers, (.sig_errors | add)]')" '[15,1,0]'
	# RX: 15 new bytes land in the same pieces, in order; the bytes between stay.
	new=$(bytes c0c1c2c3c4c5c6c7c8c9cacbcccdce 1 | hex)
	bytes c0c1c2c3c4c5c6c7c8c9cacbcccdce 1 | "$RDMACTL" mkey rx "$h"
	after=$("$RDMACTL" mr read "$mr" | hex)
	assert_equal "$(pieces "$after" 100:5 4000:3 10:7)" "$new"
	assert_equal "$(pieces "$after" 0:10 17:83 105:3895 4003:93)" "$(pieces "$mem" 0:10 17:83 105:3895 4003:93)"
	assert_equal "$("$RDMACTL" mkey tx "$h" | hex)" "$new"
	# More wire bytes than the layout holds.
	run bash -c "head -c 16 /dev/zero | '$RDMACTL' mkey rx $h"
	assert_refused InvalidArgument data
}

@test "a plain MKEY: an interleaved layout goes round by round, skipping bytes_skip after each entry" {
	mr=$(mr_create 1 4096)
	mem=$(pattern 4096)
	xxd -r -p <<<"$mem" | "$RDMACTL" mr write "$mr"
	h=$("$RDMACTL" -j mkey create 1 --max-entries 3 | jq -r '.[0].handle')
	# 3 rounds: 4 bytes at 0 then 2 skipped; 3 bytes at 1000 then 5 skipped.
	run "$RDMACTL" -j mkey configure "$h" --interleave "$mr:0:4:2" --interleave "$mr:1000:3:5" --repeat 3
	assert_success
	assert_equal "$(jq -c '.[0] | [.layout.layout_type, .layout.repeat_count, .length]' <<<"$output")" '["interleaved",3,21]'
	want=$(pieces "$mem" 0:4 1000:3 6:4 1008:3 12:4 1016:3)
	assert_equal "$("$RDMACTL" mkey tx "$h" | hex)" "$want"
	bytes 5a 21 | "$RDMACTL" mkey rx "$h"
	after=$("$RDMACTL" mr read "$mr" | hex)
	assert_equal "$(pieces "$after" 0:4 1000:3 6:4 1008:3 12:4 1016:3)" "$(bytes 5a 21 | hex)"
	# The skipped bytes stay.
	assert_equal "$(pieces "$after" 4:2 10:2 16:2 1003:5 1011:5 1019:5)" "$(pieces "$mem" 4:2 10:2 16:2 1003:5 1011:5 1019:5)"
}

@test "raw varlink: a plain MKEY with flags [] or absent, configure, tx, refusals" {
	mr=$(mr_create 1 4096)
	mem=$(pattern 64)
	xxd -r -p <<<"$mem" | "$RDMACTL" mr write "$mr"
	run varlink_raw '{"method":"io.rdmad.Mkey.Create","parameters":{"pd":1,"max_entries":4}}\0'
	assert_success
	assert_equal "$(jq -c '.parameters.mkey | [.flags, .state]' <<<"$output")" '[[],"free"]'
	"$RDMACTL" mkey destroy "$(jq -r .parameters.mkey.handle <<<"$output")"
	run varlink_raw '{"method":"io.rdmad.Mkey.Create","parameters":{"pd":1,"flags":[],"max_entries":4}}\0'
	assert_success
	h=$(jq -r .parameters.mkey.handle <<<"$output")
	assert_equal "$(jq -c .parameters.mkey.flags <<<"$output")" '[]'
	run varlink_raw '{"method":"io.rdmad.Mkey.Configure","parameters":{"handle":'"$h"',"access":["remote_write"],"interleaved":{"repeat_count":2,"entries":[{"mr":'"$mr"',"offset":8,"bytes_count":2,"bytes_skip":6},{"mr":'"$mr"',"offset":40,"bytes_count":1,"bytes_skip":0}]}}}\0'
	assert_success
	assert_equal "$(jq -c '.parameters.mkey | [.state, .access, .length, .config]' <<<"$output")" '["configured",["remote_write"],6,null]'
	run varlink_raw '{"method":"io.rdmad.Mkey.Tx","parameters":{"handle":'"$h"'}}\0'
	assert_success
	assert_equal "$(jq -r .parameters.data <<<"$output" | base64 -d | hex)" "$(pieces "$mem" 8:2 40:1 16:2 41:1)"
	assert_equal "$(jq -c '[.parameters.length, .parameters.sig_error.err_type]' <<<"$output")" '[6,"none"]'
	run varlink_raw '{"method":"io.rdmad.Mkey.Configure","parameters":{"handle":'"$h"',"config":{"mem":null,"wire":{"sig_type":"t10dif","block_size":512,"t10dif":{"bg":65535}}}}}\0'
	assert_output '{"error":"io.rdmad.Mkey.InvalidArgument","parameters":{"field":"config.wire","reason":"the MKEY was created without block_signature"}}'
	run varlink_raw '{"method":"io.rdmad.Mkey.Configure","parameters":{"handle":'"$h"',"config":{"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"data_unit_size":512,"dek":1}}}}\0'
	assert_output '{"error":"io.rdmad.Mkey.InvalidArgument","parameters":{"field":"config.crypto","reason":"the MKEY was created without crypto"}}'
	run varlink_raw '{"method":"io.rdmad.Mkey.Check","parameters":{"handle":'"$h"'}}\0'
	assert_output --partial '"field":"handle"'
	run varlink_raw '{"method":"io.rdmad.Mkey.Destroy","parameters":{"handle":'"$h"'}}\0'
	assert_output '{"parameters":{}}'
}

@test "large transfers travel in chunks: 12 MiB through tx and rx equal offload" {
	mr=$(mr_create 1 $((13 << 20)))
	h=$(mkey_create 1 block_signature 4)
	echo '{"mem":null,"wire":{"sig_type":"crc","block_size":4096,"crc":{"type":"crc32c","seed":4294967295}}}' >cfg.json
	head -c $((12 << 20)) /dev/urandom >mem
	"$RDMACTL" mr write "$mr" <mem
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:$((12 << 20))" --config cfg.json >/dev/null
	"$RDMACTL" mkey tx "$h" >wire
	"$RDMACTL" offload tx --config cfg.json <mem >expected
	cmp wire expected
	bytes 00 $((12 << 20)) | "$RDMACTL" mr write "$mr"
	"$RDMACTL" mkey rx "$h" <wire
	"$RDMACTL" mr read "$mr" --length $((12 << 20)) | cmp - mem
	assert_equal "$("$RDMACTL" -j mkey check "$h" | jq -r .err_type)" none
}

# dek_create NAME KEYFILE [ARGS...]: prints the new DEK's handle.
dek_create() {
	local name=$1 file=$2 bits
	shift 2
	bits=$(( $(stat -c %s "$file") == 32 ? 128 : 256 ))
	"$RDMACTL" -j dek create "$name" --size "$bits" --key-file "$file" "$@" | jq -r '.[0].handle'
}

@test "crypto only: IEEE 1619 vector 2 through an MKEY with a DEK, as offload with the key file" {
	{ bytes 11 16; bytes 22 16; } >key
	chmod 600 key
	dek=$(dek_create v2 "$PWD/key")
	mr=$(mr_create 1 4096)
	h=$(mkey_create 1 crypto 4)
	echo '{"mem":null,"wire":null,"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"signature_crypto_order":"signature_after_crypto_on_tx","data_unit_size":512,"initial_tweak":"33333333330000000000000000000000"}}' >cfg.json
	bytes 44 32 | "$RDMACTL" mr write "$mr" --offset 64
	run "$RDMACTL" -j mkey configure "$h" --layout "$mr:64:32" --config cfg.json --dek "$dek"
	assert_success
	assert_equal "$(jq -c '.[0].config.crypto | [.dek, .keytag, .data_unit_size]' <<<"$output")" "[$dek,false,512]"
	assert_equal "$("$RDMACTL" mkey tx "$h" | hex)" c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0
	bytes 44 32 | "$RDMACTL" offload tx --config cfg.json --key-file key | cmp - <("$RDMACTL" mkey tx "$h")
	# rx decrypts into the layout.
	"$RDMACTL" mkey tx "$h" >cipher
	bytes 00 32 | "$RDMACTL" mr write "$mr" --offset 64
	"$RDMACTL" mkey rx "$h" <cipher
	"$RDMACTL" mr read "$mr" --offset 64 --length 32 | cmp - <(bytes 44 32)
	# The DEK is held by the MKEY.
	run "$RDMACTL" dek destroy v2
	assert_failure 1
	assert_output --partial "user_kind 'mkey', user_handle '$(printf 0x%x "$h")'"
	"$RDMACTL" mkey destroy "$h"
	"$RDMACTL" dek destroy v2
}

@test "row C (T10-DIF then AES-256-XTS on the wire): mkey tx/rx and check equal offload's" {
	python3 -c "import sys; sys.stdout.buffer.write(bytes(range(64)))" >key
	chmod 600 key
	dek=$(dek_create rowc "$PWD/key")
	mr=$(mr_create 1 8192)
	h=$(mkey_create 1 block_signature,crypto 4)
	cat >cfg.json <<-EOF
	{"mem":null,"wire":{"sig_type":"t10dif","block_size":512,"t10dif":{"bg_type":"crc","bg":65535,"app_tag":4660,"ref_tag":7,"flags":["ref_remap"]}},
	 "crypto":{"standard":"aes_xts","encrypt_on_tx":true,"signature_crypto_order":"signature_before_crypto_on_tx","data_unit_size":520,"initial_tweak":"01000000000000000000000000000000"}}
	EOF
	head -c 2048 /dev/urandom >mem
	"$RDMACTL" mr write "$mr" <mem
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:2048" --config cfg.json --dek "$dek" >/dev/null
	"$RDMACTL" mkey tx "$h" >wire
	"$RDMACTL" offload tx --config cfg.json --key-file key <mem >expected
	cmp wire expected
	[ "$(stat -c %s wire)" -eq 2080 ]
	bytes 00 2048 | "$RDMACTL" mr write "$mr"
	"$RDMACTL" mkey rx "$h" <wire
	"$RDMACTL" mr read "$mr" --length 2048 | cmp - mem
	assert_equal "$("$RDMACTL" -j mkey check "$h" | jq -r .err_type)" none
	# One flipped ciphertext bit garbles its data unit: the guard check fails there.
	python3 -c "
d = bytearray(open('wire', 'rb').read()); d[600] ^= 1; open('bad', 'wb').write(d)"
	sig_error "$RDMACTL" offload rx --config cfg.json --key-file key --report rep.json <bad >/dev/null
	assert_equal "$(jq -r .err_type rep.json)" guard
	"$RDMACTL" mkey configure "$h" >/dev/null
	sig_error "$RDMACTL" mkey rx "$h" <bad
	assert_equal "$("$RDMACTL" -j mkey check "$h")" "$(jq -c 'del(.kernel)' rep.json)"
	# Crypto stays when only the signature changes.
	t10dif_wire 1 2 >sig.json
	"$RDMACTL" mkey configure "$h" --config sig.json >/dev/null
	assert_equal "$(mkey_json "$h" | jq -c '[.config.crypto.dek, .config.wire.t10dif.app_tag]')" "[$dek,1]"
	"$RDMACTL" mkey destroy "$h"
	"$RDMACTL" dek destroy rowc
}

@test "keytag: a DEK with one needs the same on the MKEY, else traffic fails; refusals change nothing" {
	python3 -c "import sys; sys.stdout.buffer.write(bytes(range(32, 64)))" >key
	chmod 600 key
	dek=$(dek_create tagged "$PWD/key" --keytag 0102030405060708)
	mr=$(mr_create 1 4096)
	h=$(mkey_create 1 crypto 4)
	echo '{"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"data_unit_size":512}}' >cfg.json
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:512" --config cfg.json --dek "$dek" --keytag 0102030405060709 >/dev/null
	run "$RDMACTL" mkey tx "$h"
	assert_refused InvalidState config.crypto.keytag
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:512" --config cfg.json --dek "$dek" >/dev/null
	run "$RDMACTL" mkey tx "$h"
	assert_refused InvalidState config.crypto.keytag
	"$RDMACTL" mkey configure "$h" --config cfg.json --dek "$dek" --keytag 0102030405060708 >/dev/null
	run "$RDMACTL" mkey tx "$h"
	assert_success
	assert_equal "$(mkey_json "$h" | jq -c '[.config.crypto.keytag, .transfers]')" '[true,1]'
	# A DEK that does not exist: refused, nothing changed.
	before=$(mkey_json "$h")
	run "$RDMACTL" mkey configure "$h" --config cfg.json --dek 4000
	assert_failure 1
	assert_output --partial "io.rdmad.Mkey.NoSuchObject: kind 'dek', handle '4000'"
	assert_equal "$(mkey_json "$h")" "$before"
	"$RDMACTL" mkey destroy "$h"
	"$RDMACTL" dek destroy tagged
}

@test "raw varlink: every io.rdmad.Mkey method" {
	mr=$(mr_create 1 4096)
	bytes a5 512 | "$RDMACTL" mr write "$mr"
	run varlink_raw '{"method":"io.rdmad.Mkey.Create","parameters":{"pd":1,"flags":["block_signature"],"max_entries":1}}\0'
	assert_success
	h=$(jq -r .parameters.mkey.handle <<<"$output")
	assert_equal "$(jq -c '.parameters.mkey | [.max_entries, .state]' <<<"$output")" '[4,"free"]'
	run varlink_raw '{"method":"io.rdmad.Mkey.Configure","parameters":{"handle":'"$h"',"access":["local_write"],"layout":[{"mr":'"$mr"',"offset":0,"length":512}],"config":{"mem":null,"wire":{"sig_type":"t10dif","block_size":512,"t10dif":{"bg":65535,"app_tag":22136,"ref_tag":4041129114}}}}}\0'
	assert_success
	assert_equal "$(jq -c '.parameters.mkey | [.state, .length]' <<<"$output")" '["configured",512]'
	run varlink_raw '{"method":"io.rdmad.Mkey.Configure","parameters":{"handle":'"$h"',"access":["relaxed_ordering"]}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"access[0]"}}'
	run varlink_raw '{"method":"io.rdmad.Mkey.Configure","parameters":{"handle":'"$h"',"layout":[],"interleaved":{"repeat_count":1,"entries":[]}}}\0'
	assert_output '{"error":"io.rdmad.Mkey.InvalidArgument","parameters":{"field":"interleaved","reason":"one layout per configure: layout or interleaved"}}'
	run varlink_raw '{"method":"io.rdmad.Mkey.Show","parameters":{"handle":'"$h"'}}\0'
	assert_equal "$(jq -c .parameters.mkey.handle <<<"$output")" "$h"
	run varlink_raw '{"method":"io.rdmad.Mkey.List","parameters":{}}\0'
	[ "$(jq "[.parameters.mkeys[] | select(.handle == $h)] | length" <<<"$output")" = 1 ]
	run varlink_raw '{"method":"io.rdmad.Mkey.Tx","parameters":{"handle":'"$h"'},"more":true}\0'
	assert_success
	assert_equal "$(jq -r .parameters.data <<<"$output" | base64 -d | tail -c 8 | hex)" ec7d5678f0debc9a
	assert_equal "$(jq -c '[.parameters.offset, .parameters.length, .parameters.sig_error.err_type, .continues]' <<<"$output")" '[0,520,"none",null]'
	# RX in two chunks: the 520 wire bytes as 260 + 260.
	data=$(jq -r .parameters.data <<<"$output" | base64 -d | head -c 260 | base64 -w0)
	rest=$(jq -r .parameters.data <<<"$output" | base64 -d | tail -c 260 | base64 -w0)
	run varlink_raw '{"method":"io.rdmad.Mkey.Rx","parameters":{"handle":'"$h"',"offset":0,"data":"'"$data"'","last":false}}\0{"method":"io.rdmad.Mkey.Rx","parameters":{"handle":'"$h"',"offset":260,"data":"'"$rest"'","last":true}}\0'
	assert_line --index 0 '{"parameters":{"received":260,"length":0}}'
	assert_line --index 1 '{"parameters":{"received":520,"length":512,"sig_error":{"err_type":"none","expected_value":0,"actual_value":0,"offset":0}}}'
	# A chunk out of order, and a continuation with no start, are refused.
	run varlink_raw '{"method":"io.rdmad.Mkey.Rx","parameters":{"handle":'"$h"',"offset":0,"data":"'"$data"'","last":false}}\0{"method":"io.rdmad.Mkey.Rx","parameters":{"handle":'"$h"',"offset":100,"data":"'"$rest"'","last":true}}\0'
	assert_line --index 1 --partial '"field":"offset"'
	run varlink_raw '{"method":"io.rdmad.Mkey.Rx","parameters":{"handle":'"$h"',"offset":260,"data":"","last":true}}\0'
	assert_output --partial '{"error":"io.rdmad.Mkey.InvalidState","parameters":{"field":"offset"'
	run varlink_raw '{"method":"io.rdmad.Mkey.Rx","parameters":{"handle":'"$h"',"offset":0,"data":"!!!!","last":true}}\0'
	assert_output --partial '"field":"data","reason":"not base64'
	run varlink_raw '{"method":"io.rdmad.Mkey.Check","parameters":{"handle":'"$h"'}}\0'
	assert_output '{"parameters":{"record":{"err_type":"none","expected_value":0,"actual_value":0,"offset":0}}}'
	run varlink_raw '{"method":"io.rdmad.Mkey.Destroy","parameters":{"handle":'"$h"'}}\0'
	assert_output '{"parameters":{}}'
	run varlink_raw '{"method":"io.rdmad.Mkey.Destroy","parameters":{"handle":'"$h"'}}\0'
	assert_output "{\"error\":\"io.rdmad.Mkey.NoSuchObject\",\"parameters\":{\"kind\":\"mkey\",\"handle\":$h}}"
}

@test "mkey help and completion come from the command table" {
	run "$RDMACTL" mkey help
	assert_success
	for c in show list create configure check tx rx destroy; do
		assert_output --regexp "(^|[[:space:]])$c[[:space:]]"
	done
	run "$RDMACTL" __complete mkey create 1 --flags block_signature,
	assert_success
	assert_line block_signature,crypto
	run "$RDMACTL" __complete mkey configure 1 --access local_write,remote_
	assert_line local_write,remote_write
	assert_line local_write,remote_atomic
}

@test "mkey tx and mr read refuse a terminal: --output FILE or a redirect; mkey rx warns of a partial block" {
	mr=$(mr_create 1 8192)
	h=$(mkey_create 1 block_signature 4)
	t10dif_wire $((0x5678)) $((0xf0debc9a)) >cfg.json
	bytes a5 1024 | "$RDMACTL" mr write "$mr"
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:1024" --config cfg.json >/dev/null
	run -2 on_tty "$RDMACTL" mkey tx "$h"
	assert_output "rdmactl: mkey tx: the output is binary: refusing to write it to a terminal; give --output FILE or redirect standard output"
	run -2 on_tty "$RDMACTL" mr read "$mr" --length 16
	assert_output "rdmactl: mr read: the output is binary: refusing to write it to a terminal; give --output FILE or redirect standard output"
	# Refused before anything ran: no transfer counted.
	assert_equal "$(mkey_json "$h" | jq -c .transfers)" 0
	run -0 on_tty "$RDMACTL" mkey tx "$h" --output wire
	assert_output ""
	bytes a5 1024 | "$RDMACTL" offload tx --config cfg.json | cmp - wire
	run -0 on_tty "$RDMACTL" mr read "$mr" --length 1024 --output mem
	cmp mem <(bytes a5 1024)
	# 700 wire bytes: one block and 180 bytes of the next one's data.
	run -0 --separate-stderr bash -c "head -c 700 wire | '$RDMACTL' mkey rx $h"
	assert_equal "$stderr" "rdmactl: mkey rx: warning: the input (700 bytes) is not whole blocks: it ends 180 bytes into a block of 520 bytes (512 data + 8 signature)"
	run -0 --separate-stderr bash -c "'$RDMACTL' mkey rx $h <wire"
	assert_equal "$stderr" ""
}

@test "mkey tx finding a signature error in memory exits 3, the wire bytes still written" {
	mr=$(mr_create 1 4096)
	h=$(mkey_create 1 block_signature 4)
	t10=$(t10dif_wire 1 2 | jq -c .wire)
	echo "{\"mem\":$t10,\"wire\":$t10}" >cfg.json
	bytes 00 520 | "$RDMACTL" mr write "$mr"
	"$RDMACTL" mkey configure "$h" --layout "$mr:0:520" --config cfg.json >/dev/null
	run -3 --separate-stderr "$RDMACTL" mkey tx "$h" --output wire
	assert_regex "$stderr" '^rdmactl: mkey tx: signature error: guard expected 0x0 actual 0x[0-9a-f]+ at offset 0$'
	[ "$(stat -c %s wire)" -eq 520 ]
}
