#!/usr/bin/env bats
# rdmad-varlink(7) "Vocabulary", for rdmactl -j: every command of rdmactl's
# command table (read from its help, so a new one cannot be missed) is run
# with -j on a daemon holding a PD, MRs, a CQ, a connected QP, an AH, a GID,
# a DEK, an MKEY with signature and crypto, a pool and a borrowed MKEY (or is
# skipped with a reason), and every key and value of every output is checked
# against the vocabulary: tests/tools/rdmactl-vocab.py, which reuses
# varlink-vocab.py's table and checker.

load helper

setup_file() {
	# A software fabric of one node, so vnic fabric has something to show.
	cat >"$BATS_FILE_TMPDIR/rdmad.conf" <<-EOF2
	fabric_lid = 1
	fabric_address = 127.0.0.1:$((20000 + ($$ + 7) % 20000))
	EOF2
	rdmad_start "$BATS_FILE_TMPDIR"
}
teardown_file() { rdmad_stop; }
setup() { load_libs; }

@test "every -j output of every rdmactl command: one key and one spelling per concept" {
	head -c 32 /dev/urandom >"$BATS_TEST_TMPDIR/dek.key"
	chmod 600 "$BATS_TEST_TMPDIR/dek.key"
	run python3 "$TOP/tests/tools/rdmactl-vocab.py" "$RDMACTL" "$RDMACTL_SOCKET" "$TOP" "$BATS_TEST_TMPDIR"
	assert_success
	assert_line --regexp '^[0-9]+ command lines of [0-9]+ commands \([0-9]+ skipped\) and [0-9]+ events: [0-9]+ keys, all in the vocabulary$'
}

@test "a command neither walked nor skipped fails the audit" {
	# rdmactl with one more command in its table, as a new one would be.
	cat >"$BATS_TEST_TMPDIR/rdmactl" <<-EOF2
	#!/bin/sh
	if [ "\$1" = pd ] && [ "\$2" = help ]; then
		"$RDMACTL" pd help | sed 's/^  list /  fresh        A command the audit does not know\n  list /'
		exit 0
	fi
	exec "$RDMACTL" "\$@"
	EOF2
	chmod +x "$BATS_TEST_TMPDIR/rdmactl"
	head -c 32 /dev/urandom >"$BATS_TEST_TMPDIR/dek.key"
	chmod 600 "$BATS_TEST_TMPDIR/dek.key"
	run python3 "$TOP/tests/tools/rdmactl-vocab.py" "$BATS_TEST_TMPDIR/rdmactl" "$RDMACTL_SOCKET" "$TOP" "$BATS_TEST_TMPDIR"
	assert_failure
	assert_line "pd fresh: neither walked nor skipped with a reason"
}
