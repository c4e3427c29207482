#!/usr/bin/env bats
# rdmactl offload tx|rx: the offload engine on local bytes, against known answers
# from reference mlx5_sig_crypto.md §2.8 (HW-confirmed where noted) and IEEE 1619.

load helper

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
	bytes() { python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]) * int(sys.argv[2]))" "$@"; }
	hex() { od -An -v -tx1 | tr -d ' \n'; }
}

# domain SIG_TYPE BLOCK INNER: one domain object of the configuration.
t10dif() { # BG_TYPE BG APP REF [FLAGS]
	echo "{\"sig_type\":\"t10dif\",\"block_size\":512,\"t10dif\":{\"bg_type\":\"$1\",\"bg\":$2,\"app_tag\":$3,\"ref_tag\":$4,\"flags\":[${5:-}]}}"
}
crc() { # TYPE SEED
	echo "{\"sig_type\":\"crc\",\"block_size\":512,\"crc\":{\"type\":\"$1\",\"seed\":$2}}"
}

@test "T10-DIF insert: 512 x 0xA5, bg 0xFFFF gives the hardware's tuple ec7d5678f0debc9a" {
	echo "{\"mem\":null,\"wire\":$(t10dif crc 65535 $((0x5678)) $((0xf0debc9a)))}" >cfg.json
	bytes a5 512 >mem
	run -0 bash -c "'$RDMACTL' offload tx --config cfg.json --report rep.json <mem >wire"
	[ "$(stat -c %s wire)" -eq 520 ]
	assert_equal "$(tail -c 8 wire | hex)" ec7d5678f0debc9a
	cmp <(head -c 512 wire) mem
	assert_equal "$(jq -c 'del(.kernel)' rep.json)" '{"err_type":"none","expected_value":0,"actual_value":0,"offset":0}'
}

@test "CRC fields: CRC32 seed 0 (HW, big-endian), CRC32C and CRC64_XP10 seed ~0 (little-endian)" {
	bytes 01 512 >ones
	bytes 00 512 >zeros
	echo "{\"mem\":null,\"wire\":$(crc crc32 0)}" >c32.json
	echo "{\"mem\":null,\"wire\":$(crc crc32c 4294967295)}" >c32c.json
	echo "{\"mem\":null,\"wire\":$(crc crc64_xp10 18446744073709551615)}" >c64.json
	assert_equal "$("$RDMACTL" offload tx --config c32.json <ones | tail -c 4 | hex)" 15d286f7
	assert_equal "$("$RDMACTL" offload tx --config c32c.json <zeros | tail -c 4 | hex)" c0edfc30
	assert_equal "$("$RDMACTL" offload tx --config c64.json <zeros | tail -c 8 | hex)" e982a768280ee61d
}

@test "IP-checksum guard: 512 x 0xA5 gives 0x5A5A" {
	echo "{\"mem\":null,\"wire\":$(t10dif csum 0 0 0)}" >cfg.json
	bytes a5 512 >mem
	assert_equal "$("$RDMACTL" offload tx --config cfg.json <mem | tail -c 8 | head -c 2 | hex)" 5a5a
}

@test "rx strips and checks; a corrupted guard is reported, the bytes still delivered" {
	echo "{\"mem\":null,\"wire\":$(t10dif crc 65535 $((0x5678)) $((0xf0debc9a)))}" >cfg.json
	{ bytes a5 512; bytes ec7d5678f0debc9a 1; bytes a5 512; bytes 00007678f0debc9a 1; } >wire
	# Exit status 3: the transfer ran and found a signature error, said on stderr.
	run -3 --separate-stderr bash -c "'$RDMACTL' offload rx --config cfg.json --report rep.json <wire >mem"
	assert_equal "$stderr" "rdmactl: offload rx: signature error: guard expected 0x0 actual 0xec7d at offset 520"
	cmp mem <(bytes a5 1024)
	# expected = the field found, actual = computed; offset = block 1 x (512 + 8).
	assert_equal "$(jq -c 'del(.kernel)' rep.json)" "{\"err_type\":\"guard\",\"expected_value\":0,\"actual_value\":$((0xec7d)),\"offset\":520}"
}

@test "AES-XTS-128: IEEE 1619 vector 2 through a crypto-only configuration" {
	echo '{"mem":null,"wire":null,"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"signature_crypto_order":"signature_after_crypto_on_tx","data_unit_size":512,"initial_tweak":"33333333330000000000000000000000"}}' >cfg.json
	{ bytes 11 16; bytes 22 16; } >key
	chmod 600 key
	bytes 44 32 >plain
	assert_equal "$("$RDMACTL" offload tx --config cfg.json --key-file key <plain | hex)" \
		c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0
	"$RDMACTL" offload tx --config cfg.json --key-file key <plain >cipher
	cmp <("$RDMACTL" offload rx --config cfg.json --key-file key <cipher) plain
}

@test "a bad configuration exits 2 (as mkey configure's) naming the field and the allowed values" {
	echo "{\"mem\":null,\"wire\":$(t10dif crc 7 0 0)}" >cfg.json
	bytes a5 512 >mem
	run --separate-stderr "$RDMACTL" offload tx --config cfg.json <mem
	assert_failure 2
	assert_output ''
	assert_regex "$stderr" 'bg'
	assert_regex "$stderr" '65535'
	echo '{"mem":null,"wire":null}' >none.json
	run --separate-stderr "$RDMACTL" offload tx --config none.json <mem
	assert_failure 2
}

@test "input with a signature that ends inside a field is refused" {
	echo "{\"mem\":null,\"wire\":$(t10dif crc 0 0 0)}" >cfg.json
	# 520 + 517: the second block's field cut short (reference §2.1; 1000 = 520 + 480 maps)
	bytes a5 1037 >wire
	run --separate-stderr "$RDMACTL" offload rx --config cfg.json <wire
	assert_failure 1
	assert_output ''
	assert_regex "$stderr" '520'
}

@test "crypto without --key-file, and a key with equal halves, are refused" {
	echo '{"mem":null,"wire":null,"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"signature_crypto_order":"signature_after_crypto_on_tx","data_unit_size":512,"initial_tweak":"00000000000000000000000000000000"}}' >cfg.json
	bytes 44 32 >plain
	run --separate-stderr "$RDMACTL" offload tx --config cfg.json <plain
	assert_failure 1
	assert_regex "$stderr" 'key-file'
	bytes 11 32 >same
	run --separate-stderr "$RDMACTL" offload tx --config cfg.json --key-file same <plain
	assert_failure 1
}

@test "usage errors: no --config, unknown direction" {
	run --separate-stderr "$RDMACTL" offload tx
	assert_failure 2
	assert_equal "$stderr" "rdmactl: offload tx: missing option --config FILE"
	run --separate-stderr "$RDMACTL" offload up --config x
	assert_failure 2
	run "$RDMACTL" offload tx help
	assert_success
	assert_line --index 0 'Usage: rdmactl offload tx --config FILE [--key-file FILE] [--report FILE] [--output FILE]'
}

@test "tx finding a signature error in memory exits 3; a good transfer says nothing on stderr" {
	t10=$(t10dif crc 65535 $((0x5678)) $((0xf0debc9a)))
	echo "{\"mem\":$t10,\"wire\":$t10}" >cfg.json
	{ bytes a5 512; bytes 00007678f0debc9a 1; } >bad
	run -3 --separate-stderr bash -c "'$RDMACTL' offload tx --config cfg.json <bad >wire"
	assert_equal "$stderr" "rdmactl: offload tx: signature error: guard expected 0x0 actual 0xec7d at offset 0"
	{ bytes a5 512; bytes ec7d5678f0debc9a 1; } >good
	run -0 --separate-stderr bash -c "'$RDMACTL' offload tx --config cfg.json <good >wire"
	assert_equal "$stderr" ""
}

@test "binary output is refused on a terminal unless --output FILE; nothing written there" {
	echo "{\"mem\":null,\"wire\":$(t10dif crc 65535 0 0)}" >cfg.json
	bytes a5 512 >mem
	run -2 on_tty "$RDMACTL" offload tx --config cfg.json <mem
	assert_output "rdmactl: offload tx: the output is binary: refusing to write it to a terminal; give --output FILE or redirect standard output"
	run -0 on_tty "$RDMACTL" offload tx --config cfg.json --output wire <mem
	assert_output ""
	[ "$(stat -c %s wire)" -eq 520 ]
	cmp <("$RDMACTL" offload tx --config cfg.json <mem) wire
	run -1 --separate-stderr "$RDMACTL" offload tx --config cfg.json --output nodir/wire <mem
	assert_equal "$stderr" "rdmactl: offload tx: --output nodir/wire: No such file or directory"
}

@test "input that is not whole blocks is warned about, and still transformed" {
	echo "{\"mem\":null,\"wire\":$(t10dif crc 65535 0 0)}" >cfg.json
	# tx: 700 memory bytes are one block and 188 bytes of the next.
	bytes a5 700 >mem
	run -0 --separate-stderr bash -c "'$RDMACTL' offload tx --config cfg.json <mem >wire"
	assert_equal "$stderr" "rdmactl: offload tx: warning: the input (700 bytes) is not whole blocks: it ends 188 bytes into a block of 512 bytes"
	[ "$(stat -c %s wire)" -eq 708 ]
	# rx: the wire has the partial block; whole blocks are no warning.
	run -0 --separate-stderr bash -c "'$RDMACTL' offload rx --config cfg.json <wire >back"
	assert_equal "$stderr" "rdmactl: offload rx: warning: the input (708 bytes) is not whole blocks: it ends 188 bytes into a block of 520 bytes (512 data + 8 signature)"
	cmp back mem
	bytes a5 1024 >mem2
	run -0 --separate-stderr bash -c "'$RDMACTL' offload tx --config cfg.json <mem2 >/dev/null"
	assert_equal "$stderr" ""
}

# The level in effect (the line marked *) and those whose self-test passed, from the text.
level_in_effect() { "$RDMACTL" offload levels | awk '/ \*$/ { print $1 }'; }
levels_passed() { "$RDMACTL" offload levels | awk '$2 == "passed" { print $1 }'; }

@test "offload levels -j: the kernel in effect, those that can run and each self-test, as the text lists them" {
	run -0 "$RDMACTL" -j offload levels
	assert_equal "$(jq -r .kernel <<<"$output")" "$(level_in_effect)"
	assert_equal "$(jq -r '.kernels | join(" ")' <<<"$output")" "$(levels_passed | paste -sd' ')"
	assert_equal "$(jq -r '.selftests[] | "\(.kernel) \(.result)"' <<<"$output")" \
		"$("$RDMACTL" offload levels | sed 's/ \*$//; s/^\([a-z0-9]*\)  */\1 /')"
	# What RDMAD_OFFLOAD_LEVEL forces is the one in effect.
	run -0 env RDMAD_OFFLOAD_LEVEL=portable "$RDMACTL" -j offload levels
	assert_equal "$(jq -r .kernel <<<"$output")" portable
}

@test "offload levels: every level, self-tested where the CPU runs it, else the feature it lacks" {
	run -0 "$RDMACTL" offload levels
	assert_equal "$(cut -d' ' -f1 <<<"$output" | paste -sd' ')" "portable pclmul avx2 vpclmul256 vpclmul512"
	for line in "${lines[@]}"; do
		[[ $line =~ ^[a-z0-9]+\ +(passed|failed:\ .+|not\ run:\ CPU\ lacks\ [a-z0-9.]+)( \*)?$ ]] ||
			fail "not a level and its self-test: '$line'"
	done
	# A level the CPU lacks names the feature /proc/cpuinfo lacks; one it has passed here.
	if grep -qw vpclmulqdq /proc/cpuinfo && grep -qw avx2 /proc/cpuinfo; then
		assert_line --regexp '^vpclmul256 +passed'
	else
		assert_line --regexp '^vpclmul256 +not run: CPU lacks (vpclmulqdq|avx2|pclmul|ssse3|sse4\.1|sse4\.2)$'
	fi
	assert_line --regexp '^portable +passed'
	# vpclmul512 needs AVX-512F, BW and VL besides VPCLMULQDQ, and names the first it lacks
	if ! grep -qw avx512f /proc/cpuinfo && grep -qw vpclmulqdq /proc/cpuinfo && grep -qw avx2 /proc/cpuinfo; then
		assert_line 'vpclmul512 not run: CPU lacks avx512f'
	elif grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo &&
		grep -qw vpclmulqdq /proc/cpuinfo; then
		assert_line --regexp '^vpclmul512 +(passed|failed: .+)( \*)?$'
	fi
}

@test "RDMAD_OFFLOAD_LEVEL=vpclmul512 on a CPU without AVX-512: refused by rdmactl offload and rdmad, naming what runs" {
	grep -qw avx512f /proc/cpuinfo && skip "this CPU has AVX-512F: vpclmul512 is not refused here"
	echo "{\"mem\":null,\"wire\":$(t10dif crc 65535 0 0)}" >cfg.json
	bytes a5 512 >mem
	RDMAD_OFFLOAD_LEVEL=vpclmul512 run --separate-stderr "$RDMACTL" offload tx --config cfg.json <mem
	assert_failure 1
	assert_output ""
	assert_regex "$stderr" '^rdmactl: offload tx: RDMAD_OFFLOAD_LEVEL=vpclmul512: this CPU cannot run it \(levels this CPU runs: portable[a-z0-9 ]*\)$'
	[[ $stderr != *"vpclmul512)"* ]] || fail "vpclmul512 listed as a level this CPU runs: $stderr"
	# the daemon refuses to start with it, before it touches its socket
	RDMAD_OFFLOAD_LEVEL=vpclmul512 run --separate-stderr "$RDMAD" --foreground --socket "$BATS_TEST_TMPDIR/refused.sock"
	assert_failure 1
	assert_regex "$stderr" '^rdmad: RDMAD_OFFLOAD_LEVEL=vpclmul512: this CPU cannot run it \(levels this CPU runs: portable'
	[ ! -e "$BATS_TEST_TMPDIR/refused.sock" ]
	# and the levels listing still shows the level in effect, not the forced one
	RDMAD_OFFLOAD_LEVEL=vpclmul512 run -0 "$RDMACTL" offload levels
	assert_line 'vpclmul512 not run: CPU lacks avx512f'
}

@test "--report names the guard kernels that ran; RDMAD_OFFLOAD_LEVEL forces a level, refuses others" {
	echo "{\"mem\":null,\"wire\":$(t10dif crc 65535 0 0)}" >cfg.json
	bytes a5 512 >mem
	best=$(level_in_effect)
	[ -n "$best" ]
	if [ -z "${RDMAD_OFFLOAD_LEVEL:-}" ]; then
		assert_equal "$(levels_passed | tail -1)" "$best"
	fi
	"$RDMACTL" offload tx --config cfg.json --report rep.json <mem >/dev/null
	assert_equal "$(jq -r .kernel rep.json)" "$best"
	for level in $(levels_passed); do
		RDMAD_OFFLOAD_LEVEL=$level "$RDMACTL" offload tx --config cfg.json --report rep.json <mem >wire
		assert_equal "$(jq -r .kernel rep.json)" "$level"
		assert_equal "$(tail -c 8 wire | hex)" ec7d000000000000
	done
	RDMAD_OFFLOAD_LEVEL=avx1024 run --separate-stderr "$RDMACTL" offload tx --config cfg.json <mem
	assert_failure 1
	assert_regex "$stderr" 'RDMAD_OFFLOAD_LEVEL=avx1024: not a kernel level \(levels this CPU runs: portable'
}

# in_chunks DIR CFG INPUT [ARGS...]: offload DIR of INPUT through a pipe in the
# default chunks, in the smallest (RDMACTL_OFFLOAD_CHUNK=1: one cut unit each) and
# in one go (a chunk larger than the input), and from the file itself; each must
# give the bytes, the stderr and the exit status of the one go.  Prints the latter.
in_chunks() {
	local dir=$1 cfg=$2 input=$3 rc
	shift 3
	rc=0
	RDMACTL_OFFLOAD_CHUNK=$((64 << 20)) "$RDMACTL" offload "$dir" --config "$cfg" "$@" \
		<"$input" >one.out 2>one.err || rc=$?
	for chunk in "" 1; do
		rc2=0
		cat "$input" | RDMACTL_OFFLOAD_CHUNK=$chunk "$RDMACTL" offload "$dir" --config "$cfg" "$@" \
			>chunks.out 2>chunks.err || rc2=$?
		assert_equal "$rc2" "$rc"
		assert_equal "$(cat chunks.err)" "$(cat one.err)"
		cmp chunks.out one.out
	done
	"$RDMACTL" offload "$dir" --config "$cfg" "$@" <"$input" 2>file.err | cmp - one.out
	assert_equal "$(cat file.err)" "$(cat one.err)"
	echo "status $rc: $(cat one.err)"
}

@test "a large input streams in whole-block chunks: the same bytes, errors and offsets as in one go" {
	# Both domains T10-DIF, other block sizes (re-blocked), ref tags remapped across 2^32.
	echo '{"mem":{"sig_type":"t10dif","block_size":512,"t10dif":{"bg_type":"crc","bg":0,"app_tag":7,"ref_tag":4294967000,"flags":["ref_remap"]}},
	       "wire":{"sig_type":"t10dif","block_size":4096,"t10dif":{"bg_type":"csum","bg":0,"app_tag":7,"ref_tag":4294967000,"flags":["ref_remap"]}}}' >both.json
	echo "{\"mem\":null,\"wire\":$(t10dif crc 65535 0 0 '"ref_remap"')}" >insert.json
	head -c $((3 << 20)) /dev/urandom >data
	"$RDMACTL" offload tx --config insert.json <data >mem        # whole 520-byte blocks
	run -0 in_chunks rx insert.json mem
	cmp one.out data
	# The memory domain's tags are what both.json wants: generate them, then re-block.
	echo '{"mem":null,"wire":{"sig_type":"t10dif","block_size":512,"t10dif":{"bg_type":"crc","bg":0,"app_tag":7,"ref_tag":4294967000,"flags":["ref_remap"]}}}' >memgen.json
	"$RDMACTL" offload tx --config memgen.json <data >mem
	run -0 in_chunks tx both.json mem
	assert_output "status 0: "
	# A guard broken in a block past the first MiB: reported at the same offset, once.
	{ head -c $((2100 * 520 + 3)) mem; printf '\377'; tail -c +$((2100 * 520 + 5)) mem; } >bad
	run -0 in_chunks tx both.json bad --report rep.json
	assert_output --regexp "^status 3: rdmactl: offload tx: signature error: guard .* at offset $((2100 * 520))$"
	# A last block cut short: warned about the same way.
	head -c $(( (3 << 20) / 520 * 520 + 100 )) mem >short
	run -0 in_chunks tx both.json short
	assert_output --partial "warning: the input"
}

@test "a large input with crypto streams in whole data units: the same bytes as in one go" {
	{ bytes 11 32; bytes 22 32; } >key
	chmod 600 key
	head -c $(( (3 << 20) + 48 )) /dev/urandom >data
	echo '{"mem":null,"wire":null,"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"signature_crypto_order":"signature_after_crypto_on_tx","data_unit_size":512,"initial_tweak":"ffffffffffffffff0000000000000000"}}' >xts.json
	run -0 in_chunks tx xts.json data --key-file key
	assert_output "status 0: "
	cp one.out cipher
	run -0 in_chunks rx xts.json cipher --key-file key
	cmp one.out data
	# The wire stream (data and CRC32C fields) encrypted in 4096-byte units.
	echo '{"mem":null,"wire":{"sig_type":"crc","block_size":512,"crc":{"type":"crc32c","seed":4294967295}},"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"signature_crypto_order":"signature_before_crypto_on_tx","data_unit_size":4096,"initial_tweak":"01000000000000000000000000000000"}}' >wire.json
	# 5932 blocks of 516 wire bytes: a multiple of 16, the last data unit short.
	head -c $((5932 * 512)) data >blocks
	run -0 in_chunks tx wire.json blocks --key-file key
	assert_output "status 0: "
	cp one.out wire
	run -0 in_chunks rx wire.json wire --key-file key
	assert_output "status 0: "
	cmp one.out blocks
}

@test "offload streams: rdmactl's memory stays a few MiB for 32 MiB through a pipe" {
	! ldd "$RDMACTL" | grep -Eq 'lib(asan|tsan)' || skip "rdmactl built with a sanitizer"
	echo "{\"mem\":null,\"wire\":$(t10dif crc 65535 0 0)}" >cfg.json
	head -c $((32 << 20)) /dev/zero | /usr/bin/time -f %M -o rss "$RDMACTL" offload tx --config cfg.json | wc -c >len
	assert_equal "$(cat len)" $(( (32 << 20) / 512 * 520 ))
	[ "$(cat rss)" -lt 20000 ]
}

@test "RDMACTL_OFFLOAD_CHUNK that is not a number of bytes is refused, naming it" {
	echo "{\"mem\":null,\"wire\":$(t10dif crc 65535 0 0)}" >cfg.json
	run --separate-stderr env RDMACTL_OFFLOAD_CHUNK=1x "$RDMACTL" offload tx --config cfg.json </dev/null
	assert_failure 1
	assert_equal "$stderr" "rdmactl: offload tx: RDMACTL_OFFLOAD_CHUNK: '1x' is not a number of bytes from 1 to 2^40"
}

@test "tx of a memory block cut between its data and its field: one error, prefixed 'offload tx:', exit 1, no output file" {
	echo "{\"mem\":$(t10dif crc 65535 0 0),\"wire\":null}" >cfg.json
	bytes a5 515 >mem
	# From a file: refused before any output; from a pipe: refused at its end, its file removed.
	for how in file pipe; do
		if [ $how = file ]; then
			run --separate-stderr "$RDMACTL" offload tx --config cfg.json --output out <mem
		else
			run --separate-stderr bash -c 'cat mem | "$0" offload tx --config cfg.json --output out' "$RDMACTL"
		fi
		assert_failure 1
		assert_equal "$stderr" "rdmactl: offload tx: input: 515 bytes end between the data and the field of a 520-byte block (512 data + 8 field): a memory block whose data is complete comes with its field"
		assert_not_exists out
	done
	# rx names itself too, and a file given to --output before is left as it was on a refusal.
	echo "{\"mem\":null,\"wire\":$(t10dif crc 0 0 0)}" >wire.json
	bytes a5 1037 >wire
	echo keep >out
	run --separate-stderr "$RDMACTL" offload rx --config wire.json --output out <wire
	assert_failure 1
	assert_regex "$stderr" '^rdmactl: offload rx: '
	assert_equal "$(cat out)" keep
}
