#!/usr/bin/env bats
# The examples as a new user finds them (issue #31, item 1): every one is in
# examples/README.md with its page, every program has a page of section 1
# that make install installs, and the pages call them by their installed
# names.  That they run on a fresh daemon is gid-default.bats's; that they
# install, docs.bats's.

load helper

setup() { load_libs; }

@test "examples/README.md lists every example with its page, and every program has one in section 1" {
	local f name
	for f in "$TOP"/examples/*.c "$TOP"/examples/*.sh; do
		name=${f##*/}
		grep -q "^| \`$name\` | .* | [a-z_-]*(1) |$" "$TOP/examples/README.md" ||
			fail "examples/README.md has no row for $name"
	done
	for f in "$TOP"/examples/*.c; do
		name=$(basename "$f" .c)
		assert_file_exists "$TOP/man/$name.1"
		grep -q "^| \`$name.c\` | .* | $name(1) |$" "$TOP/examples/README.md" ||
			fail "the row of $name.c does not name $name(1)"
	done
}

@test "the pages run the examples by their installed names" {
	local f name
	# Each program's page shows it run as installed (on PATH), whatever it shows for a build tree.
	for f in "$TOP"/examples/*.c; do
		name=$(basename "$f" .c)
		grep -q "^$name\( \|$\)" "$TOP/man/$name.1" || fail "$name.1 never runs $name by its name"
	done
	# librdmad(3) shows them as the commands they are once installed.
	run grep -c '^rdmad_rc_pingpong \|^rdmad_perftest \|^rdmad_sig_pipeline' "$TOP/man/librdmad.3"
	assert_output 5
}
