#!/usr/bin/env bats
# The progress line of long operations (issue 15 item 7): on standard error
# when it is a terminal, one line redrawn in place ("\r...\e[K") and erased at
# the end; never on standard output, never with -j or -q, never when standard
# error is not a terminal.

load helper
load pty-helper

setup_file() {
	rdmad_start
	"$RDMACTL" pd create >/dev/null    # PD 1
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
	head -c $((4 << 20)) /dev/urandom >in
	echo '{"mem":null,"wire":{"sig_type":"crc","block_size":512,"crc":{"type":"crc32c","seed":0}}}' >cfg.json
	cat >apply.json <<-EOF
	{ "version": 1, "devices": { "soft0": { "pools": [
	    { "name": "p1", "type": "signature", "size": 2 },
	    { "name": "p2", "type": "signature", "size": 2 },
	    { "name": "p3", "type": "crypto", "size": 2 } ] } } }
	EOF
}

# on_pty COMMAND-LINE: runs it through sh on a pseudo-terminal (standard input,
# output and error there but for the redirections it makes); the terminal's
# text with "\r" and ESC shown as \r and \e.
on_pty() {
	pty_session /bin/sh -c "$1" -- | sed 's/\r/\\r/g; s/\x1b/\\e/g'
	return "${PIPESTATUS[0]}"
}

# The last progress line drawn is erased: nothing but a record may follow it.
assert_erased() {
	assert_output --regexp '\\r\\e\[K'
	[[ ! "$output" =~ \\r[^\\]+$ ]]
}

@test "mr write and read on a terminal: bytes done of the total and the percent, erased at the end" {
	h=$("$RDMACTL" -j mr create 1 --size $((4 << 20)) --access local_write | jq -r '.[0].handle')
	run -0 on_pty "exec '$RDMACTL' mr write $h <in"
	assert_output --regexp '^\\rmr write: 0 B of 4\.0 MiB \(0%\)\\e\[K'
	assert_erased
	run -0 on_pty "exec '$RDMACTL' mr read $h --output out"
	assert_output --regexp '^\\rmr read: 0 B of 4\.0 MiB \(0%\)\\e\[K'
	assert_erased
	cmp in out
}

@test "a pipe's length is unknown: bytes done only" {
	h=$("$RDMACTL" -j mr create 1 --size $((4 << 20)) --access local_write | jq -r '.[0].handle')
	run -0 on_pty "cat in | '$RDMACTL' mr write $h"
	assert_output --regexp '^\\rmr write: 0 B\\e\[K'
	refute_output --partial '%'
	assert_erased
}

@test "offload on a terminal: the input's bytes, erased at the end; the bytes the same" {
	run -0 on_pty "exec '$RDMACTL' offload tx --config cfg.json --output wire <in"
	assert_output --regexp '^\\roffload tx: 0 B of 4\.0 MiB \(0%\)\\e\[K'
	assert_erased
	cmp wire <("$RDMACTL" offload tx --config cfg.json <in)
}

@test "pool create says what it creates while the daemon works, then the record alone" {
	run -0 on_pty "exec '$RDMACTL' pool create big --type signature --size 1000"
	assert_output --regexp '^\\rpool create: creating 1000 MKEYs of pool big\\e\[K\\r\\e\[Kpool [0-9]+: .*name big'
	"$RDMACTL" pool destroy big
}

@test "apply counts the changes; each 'changed:' line prints with the progress line taken away" {
	run -0 on_pty "exec '$RDMACTL' apply apply.json"
	assert_output --regexp '^\\rapply: 0 of 3 changes \(0%\)\\e\[K\\r\\e\[Kchanged: soft0: pool p1: create'
	assert_output --regexp '\\r\\e\[Kchanged: soft0: pool p3: create'
	assert_line --regexp '3 changes made'
	for p in p1 p2 p3; do "$RDMACTL" pool destroy $p; done
}

@test "-q and -j: no progress line on a terminal either" {
	h=$("$RDMACTL" -j mr create 1 --size $((4 << 20)) --access local_write | jq -r '.[0].handle')
	run -0 on_pty "exec '$RDMACTL' -q mr write $h <in"
	assert_output ''
	run -0 on_pty "exec '$RDMACTL' mr write $h --quiet <in"
	assert_output ''
	run -0 on_pty "exec '$RDMACTL' -j mr write $h <in"
	assert_output '{"written":4194304}'
	run -0 on_pty "exec '$RDMACTL' offload tx -q --config cfg.json --output wire <in"
	assert_output ''
}

@test "standard error not a terminal: nothing on it, whatever standard output is" {
	h=$("$RDMACTL" -j mr create 1 --size $((4 << 20)) --access local_write | jq -r '.[0].handle')
	run -0 --separate-stderr "$RDMACTL" mr write $h <in
	assert_equal "$stderr" ''
	run -0 --separate-stderr "$RDMACTL" mr read $h --output out
	assert_equal "$stderr" ''
	run -0 --separate-stderr "$RDMACTL" offload tx --config cfg.json --output wire <in
	assert_equal "$stderr" ''
	run -0 --separate-stderr "$RDMACTL" pool create q --type signature --size 100
	assert_equal "$stderr" ''
	run -0 --separate-stderr "$RDMACTL" apply apply.json
	assert_equal "$stderr" ''
	# Standard output on a terminal, standard error not: still nothing.
	run -0 on_pty "exec '$RDMACTL' mr read $h --output out 2>err"
	assert_output ''
	[ ! -s err ]
	"$RDMACTL" pool destroy q
	for p in p1 p2 p3; do "$RDMACTL" pool destroy $p; done
}

@test "an error during a transfer takes the progress line away before it is said" {
	h=$("$RDMACTL" -j mr create 1 --size $((3 << 20)) --access local_write | jq -r '.[0].handle')
	run -1 on_pty "cat in | '$RDMACTL' mr write $h"
	assert_output --regexp '\\r\\e\[Krdmactl: mr write: length: '
	assert_erased
}
