#!/usr/bin/env bats
# DEKs and pools root lends to users and groups (issue #25, item 4): --allow at
# create, dek/pool modify --allow/--disallow, shown in text and -j, refused
# with the field named for names that do not resolve or are not names, kept
# across a restart and a kill -9, and carried by dump and apply.  The users
# and groups are the system's own (daemon, nobody, group daemon): nothing is
# created.  Calls of users other than root: test_lend (the model) and the
# tenancy tests.

load helper
load key-helper

setup() {
	load_libs
	D="$BATS_TEST_TMPDIR/d"
	mkdir -p "$D"
	: >"$D/rdmad.conf"
	key "$BATS_TEST_TMPDIR/k" 32
	rdmad_start "$D"
}

teardown() {
	rdmad_stop "$D" || true
}

allow_of() {
	"$RDMACTL" -j "$1" show "$2" | jq -c '.[0].allow'
}

@test "dek create --allow and dek modify: the list in -j and text, durable before the reply" {
	run "$RDMACTL" dek create k1 --size 128 --key-file "$BATS_TEST_TMPDIR/k" --allow daemon,@daemon --allow nobody
	assert_success
	assert_output --partial "allow daemon,@daemon,nobody"
	assert_equal "$(allow_of dek k1)" '["daemon","@daemon","nobody"]'
	assert_equal "$(jq -c '.deks.soft0[0].allow' "$D/state/deks.json")" '["daemon","@daemon","nobody"]'
	run "$RDMACTL" -j dek modify k1 --disallow nobody,@daemon --allow root
	assert_success
	assert_equal "$(jq -c '.[0].allow' <<<"$output")" '["daemon","root"]'
	assert_equal "$(jq -c '.[0].allow_unresolved' <<<"$output")" '[]'
	assert_equal "$(jq -c '.deks.soft0[0].allow' "$D/state/deks.json")" '["daemon","root"]'
	run "$RDMACTL" dek modify k1
	assert_failure
	assert_output --partial "give --allow or --disallow"
}

@test "pool create --allow and pool modify" {
	run "$RDMACTL" -j pool create p1 --type crypto --size 2 --allow @daemon
	assert_success
	assert_equal "$(jq -c '.[0].allow' <<<"$output")" '["@daemon"]'
	"$RDMACTL" pool modify p1 --allow nobody
	assert_equal "$(allow_of pool p1)" '["@daemon","nobody"]'
	assert_equal "$(jq -c '.pools.soft0[0].allow' "$D/state/pools.json")" '["@daemon","nobody"]'
	run "$RDMACTL" pool show p1
	assert_output --partial "allow @daemon,nobody"
	"$RDMACTL" pool modify p1 --disallow @daemon,nobody
	assert_equal "$(allow_of pool p1)" '[]'
	# Root borrows whatever the list says.
	run "$RDMACTL" pool borrow p1 --owner t1
	assert_success
}

@test "bad entries are refused naming the field, and nothing changes" {
	"$RDMACTL" dek create k1 --size 128 --key-file "$BATS_TEST_TMPDIR/k" --allow daemon
	"$RDMACTL" pool create p1 --type signature --size 1 --allow daemon
	for obj in "dek k1" "pool p1"; do
		run "$RDMACTL" ${obj%% *} modify ${obj#* } --allow rdmad-allow-nosuchuser
		assert_failure
		assert_output --partial "field 'allow'"
		assert_output --partial "no user is named 'rdmad-allow-nosuchuser' (a group is written @NAME)"
		run "$RDMACTL" ${obj%% *} modify ${obj#* } --allow @rdmad-allow-nosuchgroup
		assert_output --partial "no group is named 'rdmad-allow-nosuchgroup'"
		for bad in "a b" 1000 @ -x "" "daemon,"; do
			run "$RDMACTL" ${obj%% *} modify ${obj#* } --allow "$bad"
			assert_failure
			assert_output --partial "field 'allow'"
			assert_output --partial "is not USER or @GROUP"
		done
		run "$RDMACTL" ${obj%% *} modify ${obj#* } --disallow nobody
		assert_failure
		assert_output --partial "field 'disallow'"
		assert_output --partial "'nobody' is not in the list now"
		# 33 entries: past the bound of 32.
		run "$RDMACTL" ${obj%% *} modify ${obj#* } --allow "$(seq -f 'u%g' -s, 1 33)"
		assert_failure
		assert_output --partial "at most 32 users and groups"
		assert_equal "$(allow_of ${obj%% *} ${obj#* })" '["daemon"]'
	done
	# At create: nothing made.
	run "$RDMACTL" dek create k2 --size 128 --key-file "$BATS_TEST_TMPDIR/k" --allow rdmad-allow-nosuchuser
	assert_failure
	assert_output --partial "field 'allow'"
	run "$RDMACTL" pool create p2 --type crypto --size 1 --allow @rdmad-allow-nosuchgroup
	assert_failure
	assert_equal "$("$RDMACTL" -j dek list | jq length)" 1
	assert_equal "$("$RDMACTL" -j pool list | jq length)" 1
}

@test "allow lists survive a restart and a kill -9" {
	"$RDMACTL" dek create k1 --size 128 --key-file "$BATS_TEST_TMPDIR/k" --allow daemon,@daemon
	"$RDMACTL" pool create p1 --type crypto --size 1 --allow nobody
	rdmad_stop "$D"
	rdmad_start "$D"
	assert_equal "$(allow_of dek k1)" '["daemon","@daemon"]'
	assert_equal "$(allow_of pool p1)" '["nobody"]'
	"$RDMACTL" dek modify k1 --disallow daemon
	"$RDMACTL" pool modify p1 --allow @daemon
	rdmad_kill9 "$D"
	rdmad_start "$D"
	assert_equal "$(allow_of dek k1)" '["@daemon"]'
	assert_equal "$(allow_of pool p1)" '["nobody","@daemon"]'
}

@test "a saved name that no longer resolves is kept, shown unresolved, and logged" {
	"$RDMACTL" pool create p1 --type crypto --size 1 --allow daemon
	rdmad_stop "$D"
	jq '.pools.soft0[0].allow += ["rdmad-allow-gone"]' "$D/state/pools.json" >"$D/p.json"
	mv "$D/p.json" "$D/state/pools.json"
	rdmad_start "$D"
	assert_equal "$(allow_of pool p1)" '["daemon","rdmad-allow-gone"]'
	assert_equal "$("$RDMACTL" -j pool show p1 | jq -c '.[0].allow_unresolved')" '["rdmad-allow-gone"]'
	grep -q "no user is named 'rdmad-allow-gone' now" "$D/rdmad.log"
	# A reload looks it up again (still gone), and the daemon goes on.
	"$RDMACTL" daemon reload
	assert_equal "$("$RDMACTL" -j pool show p1 | jq -c '.[0].allow_unresolved')" '["rdmad-allow-gone"]'
}

@test "dump writes the lists, apply makes them and changes them, and takes them back on failure" {
	"$RDMACTL" dek create k1 --size 128 --key-file "$BATS_TEST_TMPDIR/k" --allow daemon
	"$RDMACTL" pool create p1 --type crypto --size 1 --allow @daemon
	"$RDMACTL" dump >"$D/dump.json"
	assert_equal "$(jq -c '.devices.soft0.deks[0].allow' "$D/dump.json")" '["daemon"]'
	assert_equal "$(jq -c '.devices.soft0.pools[0].allow' "$D/dump.json")" '["@daemon"]'
	# dump | apply changes nothing.
	run "$RDMACTL" apply "$D/dump.json"
	assert_success
	assert_output --partial "no change"
	# The lists changed in the file: apply changes them in the daemon.
	jq '.devices.soft0.deks[0].allow = ["nobody","@daemon"] | .devices.soft0.pools[0].allow = []' \
		"$D/dump.json" >"$D/want.json"
	run "$RDMACTL" -j apply --dry-run "$D/want.json"
	assert_success
	assert_equal "$(jq -c '[.changes[] | select(.action == "allow") | .to]' <<<"$output")" '[["nobody","@daemon"],[]]'
	run "$RDMACTL" apply "$D/want.json"
	assert_success
	assert_equal "$(allow_of dek k1)" '["nobody","@daemon"]'
	assert_equal "$(allow_of pool p1)" '[]'
	# A file naming no one that exists: refused, and what was changed before is taken back.
	jq '.devices.soft0.deks[0].allow = ["daemon"] | .devices.soft0.pools[0].allow = ["rdmad-allow-nosuchuser"]' \
		"$D/dump.json" >"$D/bad.json"
	run "$RDMACTL" apply "$D/bad.json"
	assert_failure
	assert_output --partial "no user is named 'rdmad-allow-nosuchuser'"
	assert_equal "$(allow_of dek k1)" '["nobody","@daemon"]'
	# Not a list, or an entry too long: the file is refused before anything is asked.
	jq '.devices.soft0.pools[0].allow = "daemon"' "$D/dump.json" >"$D/bad.json"
	run "$RDMACTL" apply "$D/bad.json"
	assert_failure
	assert_output --partial "devices.soft0.pools[0].allow"
	# New objects are made with their lists.
	"$RDMACTL" pool destroy p1
	run "$RDMACTL" apply "$D/dump.json"
	assert_success
	assert_equal "$(allow_of pool p1)" '["@daemon"]'
	assert_equal "$(allow_of dek k1)" '["daemon"]'
}
