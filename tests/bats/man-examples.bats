#!/usr/bin/env bats
# rdmactl(8) EXAMPLES run as written, one after the other, on a freshly
# started daemon.  The liberties: /etc/rdmad/keys (where the shipped unit
# reads keys) becomes a directory of the test's, not to write into /etc; and
# the hosts of -H are this one (RDMACTL_SSH is ssh-here, remote.bats runs sshd).

load helper

setup() {
	load_libs
	rdmad_start
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	ln -s "$RDMACTL" "$BATS_TEST_TMPDIR/bin/rdmactl"
	# What the examples write (dump > db1.json) goes here, not into the tree.
	cd "$BATS_TEST_TMPDIR"
}
teardown() { rdmad_stop; }

# examples: the command lines of the EXAMPLES section, groff escapes undone.
examples() {
	sed -n '/^\.SH EXAMPLES$/,/^\.SH /p' "$TOP/man/rdmactl.8" | sed -n 's/^\.B //p' |
		sed -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\(dq/"/g' -e 's/\\\\/\\/g'
}

@test "rdmactl(8) EXAMPLES: every line runs and succeeds, in order" {
	keys=$BATS_TEST_TMPDIR/etc-rdmad-keys
	n=0
	while IFS= read -r line; do
		line=${line//\/etc\/rdmad\/keys/$keys}
		run --separate-stderr env PATH="$BATS_TEST_TMPDIR/bin:$PATH" \
			RDMACTL_SSH="$TOP/tests/bats/ssh-here" bash -o pipefail -c "$line"
		[ "$status" -eq 0 ] || fail "'$line' exited $status: $stderr"
		n=$((n + 1))
	done < <(examples)
	# Every object has its lines.
	[ "$n" -ge 25 ]
	for obj in status dev pd mr cq gid qp ah mkey pool dek vnic vdev offload daemon; do
		examples | grep -q "^rdmactl \(-j \)\?$obj\b" || fail "no example of $obj"
	done
	# What they made is there.
	run "$RDMACTL" -j status
	[ "$(jq -c '.device_status[0] | [.objects | .pds, .mrs, .cqs, .qps, .ahs, .mkeys] +
		[.pools, .deks | length]' <<<"$output")" = '[2,1,1,1,1,10,1,1]' ]
	# The T10-DIF and AES-XTS MKEY, with vol1, after one transfer.
	run "$RDMACTL" -j mkey show 0x80000a01
	[ "$(jq -c '.[0] | [.config.wire.sig_type, .config.crypto.standard, .config.crypto.dek_name, .transfers]' <<<"$output")" = \
		'["t10dif","aes_xts","vol1",1]' ] || fail "mkey 0x80000a01: $output"
}

@test "rdmactl(8) names no internal document, only public ones" {
	run grep -nE '(docs|reference)/|\.md\b|reference \\\(sc|\bseed [0-9]' "$TOP"/man/*.[0-9]
	assert_failure
}
