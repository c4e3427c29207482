#!/usr/bin/env bats
# Declarative provisioning (issue #15, item 8): rdmactl apply FILE makes the
# daemon's settings, DEKs and pools what the file says, idempotent and all or
# nothing; --dry-run prints the difference; rdmactl dump prints the same
# format, so that dump | apply - changes nothing.

load helper
load key-helper

setup_file() {
	rdmad_start
}
teardown_file() { rdmad_stop; }
teardown() { rdmad_stop "$BATS_TEST_TMPDIR/d" || true; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
}

# What the daemon has, for comparing before and after.
snapshot() {
	{
		"$RDMACTL" -j status | jq -c .log_level
		"$RDMACTL" -j dek show | jq -c 'map({name, size, key_file, keytag, opaque})'
		"$RDMACTL" -j pool show | jq -c 'map({name, type, size, max_entries})'
	}
}

# provision FILE LEVEL POOLSIZE: a file with a DEK (vol1) and two pools.
provision() {
	cat >"$1" <<-EOF
	{
	  "version": 1,
	  "settings": { "log_level": "$2" },
	  "devices": {
	    "soft0": {
	      "deks": [
	        { "name": "vol1", "size": 256, "key_file": "$BATS_FILE_TMPDIR/vol1.key",
	          "keytag": "0011223344556677", "opaque": "00000000000000AB" }
	      ],
	      "pools": [
	        { "name": "sig", "type": "signature", "size": $3 },
	        { "name": "enc", "type": "crypto", "size": 2, "max_entries": 16 }
	      ],
	      "vnic": {}
	    }
	  }
	}
	EOF
}

@test "apply --dry-run prints the difference and changes nothing" {
	key "$BATS_FILE_TMPDIR/vol1.key" 64
	provision want.json debug 4
	before=$(snapshot)
	run "$RDMACTL" apply --dry-run want.json
	assert_success
	assert_line "would change: settings: log_level info -> debug"
	assert_line "would change: soft0: dek vol1: create (256 bits, plaintext, key file $BATS_FILE_TMPDIR/vol1.key, keytag)"
	assert_line "would change: soft0: pool sig: create (signature, 4 MKEYs of 128 entries)"
	assert_line "would change: soft0: pool enc: create (crypto, 2 MKEYs of 16 entries)"
	assert_line "4 changes to make (dry run: nothing changed)"
	assert_equal "$(snapshot)" "$before"
	# The same for scripts.
	run "$RDMACTL" -j apply --dry-run want.json
	assert_success
	assert_equal "$(jq -c '[.dry_run, .made, .failed, (.changes | map([.kind, .action, .ifname, .name]))]' <<<"$output")" \
		'[true,0,[],[["settings","set",null,"log_level"],["dek","create","soft0","vol1"],["pool","create","soft0","sig"],["pool","create","soft0","enc"]]]'
	assert_equal "$(snapshot)" "$before"
}

@test "apply makes what the file says; applying again changes nothing and says so" {
	provision want.json debug 4
	run "$RDMACTL" apply want.json
	assert_success
	assert_line "4 changes made"
	assert_equal "$("$RDMACTL" -j status | jq -r .log_level)" debug
	assert_equal "$("$RDMACTL" -j dek show vol1 | jq -c '.[0] | [.size, .key_file, .keytag, .opaque, .state]')" \
		"[256,\"$BATS_FILE_TMPDIR/vol1.key\",true,\"00000000000000ab\",\"ready\"]"
	assert_equal "$("$RDMACTL" -j pool show | jq -c 'map([.name, .type, .size, .max_entries])')" \
		'[["sig","signature",4,128],["enc","crypto",2,16]]'
	before=$(snapshot)
	run "$RDMACTL" apply want.json
	assert_success
	assert_output "no change: the daemon already has what want.json says"
	run "$RDMACTL" -j apply want.json
	assert_equal "$(jq -c '[.changes, .made, .failed]' <<<"$output")" '[[],0,[]]'
	assert_equal "$(snapshot)" "$before"
}

@test "apply resizes a pool the file gives another size, and leaves what it does not name alone" {
	"$RDMACTL" pool create other --type crypto --size 1 >/dev/null
	provision want.json debug 6
	run "$RDMACTL" apply want.json
	assert_success
	assert_output "changed: soft0: pool sig: size 4 -> 6
1 change made"
	assert_equal "$("$RDMACTL" -j pool show sig | jq '.[0].size')" 6
	assert_equal "$("$RDMACTL" -j pool show other | jq '.[0].size')" 1
	"$RDMACTL" pool destroy other
}

@test "dump prints the configuration in the format apply takes: dump | apply - changes nothing" {
	run "$RDMACTL" dump
	assert_success
	dump=$output
	assert_equal "$(jq -c '.version, .settings, .devices.soft0.deks, .devices.soft0.pools' <<<"$dump")" \
		"1
{\"log_level\":\"debug\"}
[{\"name\":\"vol1\",\"size\":256,\"import\":\"plaintext\",\"key_file\":\"$BATS_FILE_TMPDIR/vol1.key\",\"keytag\":true,\"opaque\":\"00000000000000ab\",\"allow\":[]}]
[{\"name\":\"sig\",\"type\":\"signature\",\"size\":6,\"max_entries\":128,\"allow\":[]},{\"name\":\"enc\",\"type\":\"crypto\",\"size\":2,\"max_entries\":16,\"allow\":[]}]"
	# Never a byte of the key: the key file holds 64 random bytes, and nothing of them is in the dump.
	! grep -qF "$(xxd -p -c 256 "$BATS_FILE_TMPDIR/vol1.key")" <<<"$dump"
	before=$(snapshot)
	run "$RDMACTL" apply - <<<"$dump"
	assert_success
	assert_output "no change: the daemon already has what standard input says"
	assert_equal "$(snapshot)" "$before"
}

@test "dump says so when a DEK's key file is not known, and apply of it changes nothing" {
	key stdin.key 32
	"$RDMACTL" dek create byvalue --size 128 --key-file - <stdin.key >/dev/null
	run "$RDMACTL" dump
	assert_success
	assert_equal "$(jq -c '.devices.soft0.deks[] | select(.name == "byvalue") | [.key_file, (.note | test("no key file is known"))]' <<<"$output")" \
		'[null,true]'
	dump=$output
	run "$RDMACTL" apply - <<<"$dump"
	assert_success
	assert_output --partial "no change"
	# Without the DEK, the same file cannot make it: the error says why, and nothing changes.
	"$RDMACTL" dek destroy byvalue
	before=$(snapshot)
	run "$RDMACTL" apply - <<<"$dump"
	assert_failure 1
	assert_output --partial "devices.soft0.deks[1].key_file: DEK byvalue does not exist: its key file is needed to make it; nothing changed"
	assert_equal "$(snapshot)" "$before"
}

@test "an invalid file is refused naming the field and the allowed values, and changes nothing" {
	before=$(snapshot)
	check() {
		run "$RDMACTL" apply - <<<"$1"
		assert_failure 2
		assert_output "rdmactl: apply: standard input: $2"
	}
	check '{"devices":{"soft0":{"pools":[{"name":"x","type":"sig","size":4}]}}}' \
		"devices.soft0.pools[0].type: 'sig' is not one of: signature, crypto, signature+crypto"
	check '{"devices":{"soft0":{"pools":[{"name":"x","type":"crypto","size":0}]}}}' \
		"devices.soft0.pools[0].size: must be a number in 1-4294967295, not 0"
	check '{"devices":{"soft0":{"pools":[{"name":"x","type":"crypto"}]}}}' \
		"devices.soft0.pools[0].size: is required: a number in 1-4294967295"
	check '{"devices":{"soft0":{"deks":[{"name":"k","size":192,"key_file":"/etc/rdmad/k"}]}}}' \
		"devices.soft0.deks[0].size: must be 128 or 256 (AES-128-XTS or AES-256-XTS)"
	check '{"devices":{"soft0":{"deks":[{"name":"k","size":256,"key_file":"keys/k"}]}}}' \
		"devices.soft0.deks[0].key_file: must be an absolute path (the daemon reads it, from its own working directory), not 'keys/k'"
	check '{"devices":{"soft0":{"deks":[{"name":"k","size":256,"key_file":"/k","keytag":"12"}]}}}' \
		"devices.soft0.deks[0].keytag: must be 16 hex digits (the keytag), or true or false (whether the DEK has one, as dump says it)"
	check '{"settings":{"log_level":"loud"}}' \
		"settings.log_level: 'loud' is not one of: emerg, alert, crit, err, warning, notice, info, debug"
	check '{"devices":{"soft0":{"pools":[{"name":"a","type":"crypto","size":1},{"name":"a","type":"crypto","size":2}]}}}' \
		"devices.soft0.pools[1].name: 'a' is named twice (also [0])"
	check '{"devices":{"soft0":{"vnic":{"mtu":1500}}}}' \
		"devices.soft0.vnic: VNIC defaults are not supported yet: leave it out, or {}"
	check '{"devices":{"soft0":{"qps":[]}}}' \
		"devices.soft0.qps: unknown member; allowed: deks, pools, vdevs, vnic"
	check '{"version":2}' ".version: must be a number in 1-1, not 2"
	check '[]' "(file): must be a JSON object, not array"
	check '{"devices":' "(file): is not JSON: it ends early, near byte 12"
	check '{} {}' "(file): has more after its JSON object, at byte 3"
	# An invalid part late in the file leaves the valid parts before it unmade.
	check '{"settings":{"log_level":"debug"},"devices":{"soft0":{"pools":[{"name":"ok","type":"crypto","size":1},{"name":"bad name","type":"crypto","size":1}]}}}' \
		"devices.soft0.pools[1].name: must be a pool's name: letters, digits, '_', '.', '-'"
	assert_equal "$(snapshot)" "$before"
	# Bounded: a file over 1 MiB is refused before it is parsed.
	head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' ' ' >big.json
	run "$RDMACTL" apply big.json
	assert_failure 2
	assert_output "rdmactl: apply: big.json: larger than 1048576 bytes, more than any provisioning file"
}

@test "a file that no change can make true is refused before the first change" {
	before=$(snapshot)
	run "$RDMACTL" apply - <<-EOF
	{"settings":{"log_level":"err"},"devices":{"soft0":{"pools":[{"name":"enc","type":"signature","size":2,"max_entries":16}]}}}
	EOF
	assert_failure 1
	assert_output "rdmactl: apply: standard input: devices.soft0.pools[0].type: pool enc has type crypto; a pool's type cannot be changed: destroy it first, or give what it has; nothing changed"
	run "$RDMACTL" apply - <<-EOF
	{"devices":{"soft0":{"deks":[{"name":"vol1","size":128,"key_file":"$BATS_FILE_TMPDIR/vol1.key"}]}}}
	EOF
	assert_failure 1
	assert_output --partial "devices.soft0.deks[0].size: DEK vol1 has size 256; a DEK cannot be changed"
	run "$RDMACTL" apply - <<<'{"devices":{"soft9":{}}}'
	assert_failure 1
	assert_output "rdmactl: apply: standard input: devices.soft9: the daemon has no such device (it has: soft0); nothing changed"
	run "$RDMACTL" apply - <<<'{"devices":{"soft0":{"deks":[{"name":"w","size":128,"import":"wrapped","key_file":"/etc/rdmad/w"}]}}}'
	assert_failure 1
	assert_output --partial "devices.soft0.deks[0].import: DEK w does not exist, and a wrapped import needs a valid crypto login on soft0"
	assert_equal "$(snapshot)" "$before"
}

@test "a change that fails midway: those made before it are undone, and the daemon is as it was" {
	key "$BATS_FILE_TMPDIR/vol2.key" 32
	before=$(snapshot)
	# The DEK, the resize and the level are made; the 100000000-MKEY pool is refused by the daemon.
	run "$RDMACTL" apply - <<-EOF
	{"settings":{"log_level":"notice"},"devices":{"soft0":{
	  "deks":[{"name":"vol2","size":128,"key_file":"$BATS_FILE_TMPDIR/vol2.key"}],
	  "pools":[{"name":"sig","type":"signature","size":8},{"name":"huge","type":"signature","size":100000000}]}}}
	EOF
	assert_failure 2
	assert_line "changed: soft0: pool sig: size 6 -> 8"
	assert_line "rdmactl: apply: io.rdmad.Pool.InvalidArgument: field 'size', reason '1 to 65536 MKEYs'"
	assert_line "rdmactl: apply: devices.soft0.pools[1]: failed: soft0: pool huge: create (signature, 100000000 MKEYs of 128 entries); undoing the 3 changes made before it"
	assert_line "rdmactl: apply: undone: soft0: pool sig: size 6 -> 8"
	assert_line "rdmactl: apply: undone: soft0: dek vol2: create (128 bits, plaintext, key file $BATS_FILE_TMPDIR/vol2.key)"
	assert_line "rdmactl: apply: undone: settings: log_level debug -> notice"
	assert_line "rdmactl: apply: nothing changed: the daemon is as it was"
	assert_equal "$(snapshot)" "$before"
	# A key file the daemon cannot read fails the first change: nothing to undo.
	run "$RDMACTL" apply - <<<'{"devices":{"soft0":{"deks":[{"name":"gone","size":256,"key_file":"/nonexistent/key"}]}}}'
	assert_failure 2
	assert_line --partial "io.rdmad.Dek.InvalidArgument: field 'key_file'"
	assert_line "rdmactl: apply: devices.soft0.deks[0]: failed: soft0: dek gone: create (256 bits, plaintext, key file /nonexistent/key)"
	assert_equal "$(snapshot)" "$before"
	# For scripts: what failed is a list of changes, as qp recover's failed is a list;
	# made counts the changes in force, undone those taken back.
	run --separate-stderr "$RDMACTL" -j apply - <<-EOF
	{"devices":{"soft0":{"pools":[{"name":"sig","type":"signature","size":8},{"name":"huge","type":"signature","size":100000000}]}}}
	EOF
	assert_failure 2
	assert_equal "$(jq -c '[.made, .undone, (.failed | map([.kind, .action, .ifname, .name, .to.size]))]' <<<"$output")" \
		'[0,1,[["pool","create","soft0","huge",100000000]]]'
	assert_equal "$(snapshot)" "$before"
}

@test "what apply made survives a restart, and the file still matches after it" {
	dir=$BATS_TEST_TMPDIR/d
	rdmad_start "$dir"
	provision want.json debug 3
	"$RDMACTL" apply want.json >/dev/null
	rdmad_stop "$dir"
	rdmad_start "$dir"
	run "$RDMACTL" apply want.json
	assert_success
	assert_output "no change: the daemon already has what want.json says"
	rdmad_stop "$dir"
}
