#!/usr/bin/env bats
# Bytes are not read from a terminal (issue #31, item 12): mr write, mkey rx
# and offload with standard input on a terminal refuse at once, saying how to
# give the bytes, as gzip does; nothing is written.  From a file or a pipe
# they read as before.

load helper
load pty-helper

setup_file() {
	rdmad_start
	"$RDMACTL" pd create >/dev/null
	MR=$("$RDMACTL" -j mr create 1 --size 4096 --access local_write | jq -r '.[0].handle')
	export MR
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
}

@test "mr write with standard input on a terminal: refused at once, exit 2, the MR untouched" {
	printf 'before' | "$RDMACTL" mr write "$MR"
	run pty_session "$RDMACTL" mr write "$MR" --
	assert_failure 2
	assert_output "rdmactl: mr write: the input is binary: refusing to read it from a terminal; give it on standard input from a file or a pipe (mr write ... <FILE)"
	assert_equal "$("$RDMACTL" mr read "$MR" --length 6)" before
	# From a pipe, as ever.
	run bash -c 'printf after | "$0" -j mr write "$1"' "$RDMACTL" "$MR"
	assert_success
	assert_output '{"written":5}'
}

@test "offload tx and mkey rx with standard input on a terminal: refused the same way" {
	echo '{"mem":null,"wire":{"sig_type":"crc","block_size":512,"crc":{"type":"crc32","seed":0}}}' >cfg.json
	run pty_session "$RDMACTL" offload tx --config cfg.json --output out --
	assert_failure 2
	assert_output --partial "rdmactl: offload tx: the input is binary: refusing to read it from a terminal"
	assert_not_exists out
	run pty_session "$RDMACTL" mkey rx 2147483905 --
	assert_failure 2
	assert_output --partial "rdmactl: mkey rx: the input is binary: refusing to read it from a terminal"
}
