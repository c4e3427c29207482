#!/usr/bin/env bats
# rdmad-varlink(7) "Vocabulary": every key of every reply of every interface,
# on a daemon holding one object of each kind, is in the vocabulary table of
# docs/varlink-api.md with its shape (tests/tools/varlink-vocab.py), and the
# man page's table names the same keys.

load helper
load key-helper

setup_file() {
	# A software fabric of one node, so io.rdmad.Vnic.Fabric has something to show.
	cat >"$BATS_FILE_TMPDIR/rdmad.conf" <<-EOF
	fabric_lid = 1
	fabric_address = 127.0.0.1:$((20000 + $$ % 20000))
	EOF
	rdmad_start "$BATS_FILE_TMPDIR"
}
teardown_file() { rdmad_stop; }
setup() { load_libs; }

@test "every key of every reply is in the vocabulary, with its shape" {
	key "$BATS_TEST_TMPDIR/dek.key" 32
	run python3 "$TOP/tests/tools/varlink-vocab.py" "$RDMACTL_SOCKET" "$TOP" "$BATS_TEST_TMPDIR"
	assert_success
	assert_output --regexp '^[0-9]+ read methods and [0-9]+ events: [0-9]+ keys, all in the vocabulary$'
}

# The keys of a table: backquoted in docs/varlink-api.md, \fB...\fR in the man page.
doc_keys() {
	sed -n '/^## Vocabulary$/,/^## /p' "$TOP/docs/varlink-api.md" | awk -F'|' 'NF == 5 && $2 ~ /`/ { print $2 }' |
		grep -o '`[a-z0-9_.]*`' | tr -d '`' | sort -u
}
man_keys() {
	sed -n '/^\.SH VOCABULARY$/,/^\.SH /p' "$TOP/man/rdmad-varlink.7" | sed -n '/^\.TS$/,/^\.TE$/p' |
		grep -o '\\fB[a-z0-9_.]*\\fR' | sed 's/\\fB//; s/\\fR//' | sort -u
}

@test "rdmad-varlink(7) VOCABULARY has the same keys as docs/varlink-api.md" {
	[ "$(doc_keys | wc -l)" -gt 100 ]
	run diff <(doc_keys) <(man_keys)
	assert_success
}
