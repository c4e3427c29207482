#!/usr/bin/env bats
# Workflows that finish from rdmactl (issue #15, item 5): pool borrow and
# return, held by the shell's connection or under an owner name; who holds
# what in pool show; DEKs named by name wherever a DEK is taken.

load helper
load key-helper

setup_file() {
	rdmad_start
	"$RDMACTL" pd create >/dev/null    # PD 1
	"$RDMACTL" mr create 1 --size 8192 >/dev/null
	"$RDMACTL" pool create p1 --type crypto --size 3 >/dev/null
}
teardown_file() { rdmad_stop; }
# The restart test's own daemon, if it failed half-way.
teardown() { rdmad_stop "$BATS_TEST_TMPDIR/d" || true; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
}

pool_field() {
	"$RDMACTL" -j pool show "${2:-p1}" | jq -c ".[0] | $1"
}

@test "pool borrow without --owner is refused in one-shot mode, and borrows nothing" {
	run "$RDMACTL" pool borrow p1
	assert_failure 2
	assert_output --partial "pool borrow: without --owner"
	assert_output --partial "rdmactl -i"
	assert_equal "$(pool_field '[.in_use, .borrows]')" '[0,0]'
}

@test "pool borrow --owner: the MKEY stays borrowed after rdmactl exits, and pool show names the owner" {
	run "$RDMACTL" pool borrow p1 --owner job-1@host:7
	assert_success
	key=$output
	# The key in hex, as lists print it; JSON has the number.
	[[ $key =~ ^0x[0-9a-f]+$ ]]
	assert_equal "$(pool_field .in_use)" 1
	assert_equal "$(pool_field .borrowers)" "[{\"mkey\":$((key)),\"owner\":\"job-1@host:7\",\"draining\":false}]"
	assert_equal "$("$RDMACTL" -j mkey show "$key" | jq -c '.[0] | [.pool_name, .borrowed]')" '["p1",true]'
	# The text output says it too, on the pool's record.
	run "$RDMACTL" pool show p1
	assert_line --regexp "^    borrowers: mkey $(printf 0x%x "$key") owner job-1@host:7 "
	# Returning needs the name: none, or another, is refused naming the field.
	run "$RDMACTL" pool return "$key"
	assert_failure 1
	assert_output --partial "io.rdmad.Pool.InvalidState: field 'owner'"
	run "$RDMACTL" pool return "$key" --owner job-2
	assert_failure 1
	assert_output --partial "field 'owner', reason 'the MKEY is held by another owner'"
	assert_equal "$(pool_field .in_use)" 1
	run "$RDMACTL" pool return "$key" --owner job-1@host:7
	assert_success
	assert_output ''
	assert_equal "$(pool_field '[.in_use, .returns, .borrowers]')" '[0,1,[]]'
	assert_equal "$("$RDMACTL" -j mkey show "$key" | jq -c '.[0] | [.borrowed, .state]')" '[false,"free"]'
}

@test "a bad owner name is a usage error naming owner, and borrows nothing" {
	before=$(pool_field .borrows)
	run "$RDMACTL" pool borrow p1 --owner 'two words'
	assert_failure 2
	assert_output --partial "io.rdmad.Pool.InvalidArgument: field 'owner'"
	run "$RDMACTL" pool borrow p1 --owner "$(printf 'a%.0s' {1..64})"
	assert_failure 2
	assert_output --partial "field 'owner'"
	assert_equal "$(pool_field .borrows)" "$before"
}

@test "a batch's borrow is held by its connection: pool show gives its pid and uid, and it comes back at the end" {
	cat >borrow.batch <<-'EOF'
	pool borrow p1
	pool show p1 -j
	EOF
	run "$RDMACTL" -b borrow.batch
	assert_success
	key=$(head -1 <<<"$output")
	shown=$(sed -n 2p <<<"$output")
	assert_equal "$(jq -c '.[0].borrowers | map({mkey, owner, uid, draining})' <<<"$shown")" \
		"[{\"mkey\":$((key)),\"owner\":null,\"uid\":$(id -u),\"draining\":false}]"
	[[ $(jq '.[0].borrowers[0].pid' <<<"$shown") =~ ^[0-9]+$ ]]
	# The batch's connection closed with it.
	assert_equal "$(pool_field '[.in_use, .borrowers]')" '[0,[]]'
}

@test "a connection's MKEY is not returned under an owner name, nor by another connection" {
	# Hold one through a batch reading a pipe that stays open while we try
	# (-j: its output is flushed line by line).
	coproc BATCH { "$RDMACTL" -b - 2>&1; }
	echo "pool borrow p1 -j" >&"${BATCH[1]}"
	read -r -t 10 line <&"${BATCH[0]}"
	key=$(jq -r .mkey <<<"$line")
	[[ $key =~ ^[0-9]+$ ]]
	run "$RDMACTL" pool return "$key" --owner someone
	assert_failure 1
	assert_output --partial "field 'owner', reason 'the MKEY is held by a connection"
	run "$RDMACTL" pool return "$key"
	assert_failure 1
	assert_output --partial "field 'handle', reason 'the MKEY was borrowed by another client'"
	echo "pool return $key" >&"${BATCH[1]}"
	exec {BATCH[1]}>&-
	wait "$BATCH_PID"
	assert_equal "$(pool_field .in_use)" 0
}

@test "a borrow under an owner name does not survive a restart; the pool does, all available" {
	dir=$BATS_TEST_TMPDIR/d
	rdmad_start "$dir"
	"$RDMACTL" pool create keep --type signature --size 2 >/dev/null
	"$RDMACTL" pool borrow keep --owner backup >/dev/null
	assert_equal "$(pool_field '[.in_use, .available]' keep)" '[1,1]'
	rdmad_stop "$dir"
	rdmad_start "$dir"
	assert_equal "$(pool_field '[.size, .in_use, .available, .borrowers]' keep)" '[2,0,2,[]]'
	rdmad_stop "$dir"
}

# ---- DEKs by name ----

crypto_config() {
	echo '{"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"data_unit_size":512}}' >crypto.json
}

@test "mkey configure --dek NAME: the daemon finds the DEK; mkey show gives its handle and name" {
	key vol1.key 64
	dek=$("$RDMACTL" -j dek create vol1 --size 256 --key-file "$PWD/vol1.key" | jq '.[0].handle')
	mkey=$("$RDMACTL" -j mkey create 1 --flags crypto --max-entries 4 | jq '.[0].handle')
	crypto_config
	run "$RDMACTL" mkey configure "$mkey" --layout 257:0:512 --config crypto.json --dek vol1
	assert_success
	assert_equal "$("$RDMACTL" -j mkey show "$mkey" | jq -c '.[0].config.crypto | [.dek, .dek_name]')" \
		"[$dek,\"vol1\"]"
	run "$RDMACTL" mkey show "$mkey"
	assert_output --partial "dek $dek dek_name vol1"
	# By handle, the name is shown as well.
	run "$RDMACTL" mkey configure "$mkey" --config crypto.json --dek "$dek"
	assert_success
	assert_equal "$("$RDMACTL" -j mkey show "$mkey" | jq -r '.[0].config.crypto.dek_name')" vol1
	# The crypto mkey show prints names the same DEK twice, and is taken back.
	"$RDMACTL" -j mkey show "$mkey" | jq '{crypto: (.[0].config.crypto | del(.keytag))}' >shown.json
	run "$RDMACTL" mkey configure "$mkey" --config shown.json
	assert_success
}

@test "mkey configure --dek with an unknown name is refused naming config.crypto.dek, and changes nothing" {
	mkey=$("$RDMACTL" -j mkey create 1 --flags crypto --max-entries 4 | jq '.[0].handle')
	crypto_config
	run "$RDMACTL" mkey configure "$mkey" --layout 257:0:512 --config crypto.json --dek nosuch
	assert_failure 2
	assert_output --partial "io.rdmad.Mkey.InvalidArgument: field 'config.crypto.dek', reason 'no DEK is named 'nosuch''"
	assert_equal "$("$RDMACTL" -j mkey show "$mkey" | jq -c '.[0] | [.state, .configures, .config]')" \
		'["free",0,null]'
	# A name and a handle that are not the same DEK.
	key vol9.key 32
	"$RDMACTL" dek create vol9 --size 128 --key-file "$PWD/vol9.key" >/dev/null
	echo '{"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"data_unit_size":512,"dek":1,"dek_name":"vol9"}}' >both.json
	run "$RDMACTL" mkey configure "$mkey" --layout 257:0:512 --config both.json
	assert_failure 2
	assert_output --partial "field 'config.crypto.dek', reason 'DEK 1 is not the one named 'vol9'"
	assert_equal "$("$RDMACTL" -j mkey show "$mkey" | jq '.[0].configures')" 0
}

# ---- the examples of rdmactl(8) under the shipped unit ----

@test "rdmactl(8) examples keep key material where rdmad.service lets the daemon read it" {
	unit=$TOP/systemd/rdmad.service
	grep -qx 'ProtectHome=yes' "$unit"
	grep -qx 'PrivateTmp=yes' "$unit"
	# Every file an example hands to the daemon (key files, credentials) is under /etc/rdmad.
	paths=$(sed -n '/^\.SH EXAMPLES/,/^\.SH SEE ALSO/p' "$TOP/man/rdmactl.8" |
		grep -oE '\\-\\-(key\\-file|credential\\-file) [^ ]+' | awk '{print $2}')
	[ -n "$paths" ]
	while read -r p; do
		[[ $p == /etc/rdmad/* ]] || fail "example path $p is out of the daemon's reach under rdmad.service"
	done <<<"$paths"
	# The directory the examples put keys in is made before a key is written into it.
	sed -n '/^\.SH EXAMPLES/,/^\.SH SEE ALSO/p' "$TOP/man/rdmactl.8" | grep -q 'install \\-d \\-m 0700 /etc/rdmad/keys'
}
