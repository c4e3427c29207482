#!/usr/bin/env bats
# rdmactl for scripts (issue 15 item 4): global options after the object and
# the command, one exit-code rule (2 usage, 1 failure), batch mode, and
# destructive commands only when spelled out.

load helper

setup_file() {
	rdmad_start
	"$RDMACTL" pd create >/dev/null    # PD 1
	"$RDMACTL" cq create --cqe 4 >/dev/null    # CQ 1
	"$RDMACTL" qp create --pd 1 --send-cq 1 --recv-cq 1 --type rc >/dev/null    # QP 2
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
}

@test "global options after the object and the command: -j, --json, -jp, -d, -s PATH, --socket=PATH" {
	want=$("$RDMACTL" -j qp show 2)
	assert_equal "$(jq -r '.[0].handle' <<<"$want")" 2
	assert_equal "$("$RDMACTL" qp show 2 -j)" "$want"
	assert_equal "$("$RDMACTL" qp show -j 2)" "$want"
	assert_equal "$("$RDMACTL" qp --json show 2)" "$want"
	assert_equal "$("$RDMACTL" qp show 2 -jp)" "$("$RDMACTL" -j -p qp show 2)"
	assert_equal "$("$RDMACTL" dev show -d)" "$("$RDMACTL" -d dev show)"
	# The last -s wins, wherever it stands.
	assert_equal "$("$RDMACTL" -s /nonexistent qp show 2 -s "$RDMACTL_SOCKET" -j)" "$want"
	assert_equal "$("$RDMACTL" qp show 2 -j --socket="$RDMACTL_SOCKET")" "$want"
	run -1 --separate-stderr "$RDMACTL" qp show 2 -s "$BATS_TEST_TMPDIR/none"
	assert_equal "$stderr" "rdmactl: cannot connect to $BATS_TEST_TMPDIR/none: No such file or directory (is rdmad running?)"
	run -2 --separate-stderr "$RDMACTL" qp show 2 -s
	assert_equal "$stderr" "rdmactl: -s needs a value (PATH)"
	# An option's value is the option's, even when it looks like a global option.
	run -1 --separate-stderr "$RDMACTL" qp show 2 --dev -j
	assert_output ""
	assert_regex "$stderr" "NoSuchDevice: .*'-j'"
}

@test "exit 2 for usage errors found by rdmactl or by the daemon's parameter check, 1 for failures" {
	# rdmactl's own check.
	run -2 --separate-stderr "$RDMACTL" cq poll x
	assert_equal "$stderr" "rdmactl: cq poll: CQ: 'x' is not a number in 0-4294967295"
	# The daemon's InvalidArgument: a value out of range.
	run -2 --separate-stderr "$RDMACTL" cq create --cqe 0
	assert_equal "$stderr" "rdmactl: cq create: io.rdmad.Cq.InvalidArgument: field 'cqe', reason '0 entries; a CQ holds 1 to 32767 (max_cqe)'"
	# The daemon's varlink parameter check: a field of the wrong type.
	echo '[{"opcode":"send","wr_id":"x"}]' >wrs.json
	run -2 --separate-stderr "$RDMACTL" -j qp post-list 2 --file wrs.json
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"wrs[0].wr_id"}}'
	assert_equal "$stderr" "rdmactl: qp post-list: org.varlink.service.InvalidParameter: parameter 'wrs[0].wr_id'"
	# Failures of the operation.
	run -1 --separate-stderr "$RDMACTL" pd show 77
	assert_equal "$stderr" "rdmactl: pd show: io.rdmad.Pd.NoSuchObject: kind 'pd', handle '77'"
	run -1 --separate-stderr "$RDMACTL" pd destroy 1
	assert_regex "$stderr" "^rdmactl: pd destroy: io\.rdmad\.Pd\.ObjectInUse: "
	run -1 --separate-stderr "$RDMACTL" -s "$BATS_TEST_TMPDIR/none" status
	assert_regex "$stderr" "cannot connect"
}

@test "destroy and del run only when spelled out; the object is untouched" {
	"$RDMACTL" pd create >/dev/null
	pd=$("$RDMACTL" -j pd list | jq '.[-1].handle')
	for word in d de des destro; do
		run -2 --separate-stderr "$RDMACTL" pd "$word" "$pd"
		assert_equal "$stderr" "rdmactl: pd: '$word' is short for 'destroy', which must be spelled out"
	done
	run -0 "$RDMACTL" -j pd show "$pd"
	run -2 --separate-stderr "$RDMACTL" gid de 0
	assert_equal "$stderr" "rdmactl: gid: 'de' is short for 'del', which must be spelled out"
	# Other commands still abbreviate, and so do the objects.
	run -0 "$RDMACTL" pd sh "$pd"
	run -0 "$RDMACTL" pd destroy "$pd"
	run -1 "$RDMACTL" pd show "$pd"
}

@test "batch: -b FILE runs each line, blank and # lines skipped, stdout only what the commands print" {
	cat >ok.batch <<-EOF2
	# one PD, shown twice
	pd show 1 -j

	pd show 1
	EOF2
	run -0 --separate-stderr "$RDMACTL" -b ok.batch
	assert_line --index 0 "$("$RDMACTL" -j pd show 1)"
	assert_line --index 1 "$("$RDMACTL" pd show 1)"
	assert_equal "${#lines[@]}" 2
	assert_equal "$stderr" ""
	# A line's options are its own: the next line prints text.
	printf 'pd show 1 -j\npd show 1\n' >opts.batch
	run -0 "$RDMACTL" -b opts.batch
	assert_line --index 1 "$("$RDMACTL" pd show 1)"
	# Global options before -b apply to every line.
	run -0 "$RDMACTL" -j -b opts.batch
	assert_line --index 1 "$("$RDMACTL" -j pd show 1)"
}

@test "batch: stops at the first failure with its status; --force goes on and exits with the last failure's" {
	cat >fail.batch <<-EOF2
	pd create
	pd show 77
	cq create --cqe 0
	pd create
	EOF2
	before=$("$RDMACTL" -j pd list | jq length)
	run -1 --separate-stderr "$RDMACTL" -b fail.batch
	assert_regex "$stderr" "rdmactl: fail.batch:2: the command failed \(exit status 1\); stopping$"
	assert_equal "$("$RDMACTL" -j pd list | jq length)" $((before + 1))
	run -2 --separate-stderr "$RDMACTL" --force -b fail.batch
	assert_line --partial "pd "
	assert_regex "$stderr" "rdmactl: fail.batch:2: the command failed \(exit status 1\)"
	assert_regex "$stderr" "rdmactl: fail.batch:3: the command failed \(exit status 2\)"
	assert_equal "$("$RDMACTL" -j pd list | jq length)" $((before + 3))
	# A usage error stops it too.
	printf 'pd bogus\npd create\n' >usage.batch
	run -2 --separate-stderr "$RDMACTL" -b usage.batch
	assert_equal "$("$RDMACTL" -j pd list | jq length)" $((before + 3))
}

@test "batch from standard input with -b -; -b, -i and --force refuse what does not go with them" {
	run -0 --separate-stderr bash -c "printf 'pd show 1 -j\n' | '$RDMACTL' -b -"
	assert_output "$("$RDMACTL" -j pd show 1)"
	run -1 --separate-stderr bash -c "printf 'pd show 99\n' | '$RDMACTL' -b -"
	assert_regex "$stderr" "rdmactl: standard input:1: the command failed \(exit status 1\); stopping$"
	run -1 --separate-stderr "$RDMACTL" -b nonexistent.batch
	assert_equal "$stderr" "rdmactl: -b nonexistent.batch: No such file or directory"
	run -2 --separate-stderr "$RDMACTL" -b ok.batch pd show
	assert_equal "$stderr" "rdmactl: -b runs the commands of a file: no command with it"
	run -2 --separate-stderr "$RDMACTL" -i pd show
	assert_equal "$stderr" "rdmactl: -i runs the shell: no command with it ('pd')"
	run -2 --separate-stderr "$RDMACTL" --force pd show
	assert_equal "$stderr" "rdmactl: --force goes with -b"
}

@test "the shell prints its prompt and echo on stderr: stdout holds only the output" {
	run -0 --separate-stderr bash -c "printf 'pd show 1 -j\nquit\n' | '$RDMACTL' -i"
	assert_output "$("$RDMACTL" -j pd show 1)"
	assert_regex "$stderr" "rdmactl> "
}
