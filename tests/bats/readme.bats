#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# README.md's first steps, as a new user runs them: the daemon as `make run`
# starts it (in the foreground, socket and state under build/run), then the
# README's shell blocks as written, from a tree laid out as the source tree
# (build/ holding rdmactl and the examples).

load helper
load pty-helper

setup() {
	load_libs
	T=$BATS_TEST_TMPDIR/tree
	mkdir -p "$T/build/run/state"
	ln -s "$RDMACTL" "$T/build/rdmactl"
	ln -s "$BUILD/examples" "$T/build/examples"
	rdmad_start "$T/build/run"
	cd "$T"
}
teardown() { rdmad_stop "$T/build/run"; }

# readme_block N: the Nth ```sh block of README.md.
readme_block() {
	awk -v n="$1" '/^```sh$/ { on = ++i == n; next } /^```$/ { on = 0; next } on { print }' "$TOP/README.md"
}

@test "make run starts rdmad where the README's lines look for it" {
	# The README's socket is the one make run gives rdmad, as this file starts it.
	run grep -E '^\s+\$\(RDMAD\) --foreground --socket \$\(BUILD\)/run/io.rdmad --state-dir \$\(BUILD\)/run/state$' \
		"$TOP/Makefile"
	assert_success
	run readme_block 2
	assert_output --partial 'build/rdmactl -s build/run/io.rdmad status'
}

@test "README: the second shell's rdmactl lines, as written" {
	block=$(readme_block 2)
	[ "$(grep -c '^build/rdmactl ' <<<"$block")" = 3 ]
	# Those that print, then the interactive shell's, on a terminal as it is meant.
	run --separate-stderr bash -e -c "$(grep -v 'interactive shell' <<<"$block")"
	assert_success
	assert_line --regexp '^ *socket: /.*/build/run/io.rdmad$'
	assert_line --regexp '^ *"ifname": "soft0",$'
	assert_equal "$stderr" ""
	run pty_session /bin/bash -c "$(grep 'interactive shell' <<<"$block")" -- \
		sleep:0.3 send:'pd create\r' expect:'pd 1: ifname soft0' expect:'rdmactl> ' send:'\x04'
	assert_success
}

@test "README: an RC ping-pong and a perftest run, as written" {
	block=$(readme_block 3)
	grep -q rdmad_rc_pingpong <<<"$block"
	run --separate-stderr timeout 120 bash -e -c "$block
wait"
	assert_success
	assert_regex "$stderr" 'client: 1000 iters of 4096 bytes in [0-9.]+ s'
	assert_regex "$stderr" 'server: 1000 iters of 4096 bytes in [0-9.]+ s'
	assert_line --regexp '^send +4096 +1000 '
	assert_line --regexp '^lat +4096 +1000 '
}

@test "README: the pages and the example it names are there" {
	for f in $(grep -o 'man -l [^ `]*' "$TOP/README.md" | cut -d' ' -f3) examples/vnic-netns.sh examples/README.md; do
		assert_file_exists "$TOP/$f"
	done
	# The MKEY the README points to, under the name it gives.
	assert_file_contains "$TOP/man/rdmactl.8" '^\.SS "mkey with T10\\-DIF and AES\\-XTS"$'
}
