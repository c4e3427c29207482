#!/usr/bin/env bats
# What users configured survives a restart and a kill -9 (rdmad(8) FILES,
# daemon/core/state.h): settings and DEKs come back with their handles and names,
# a DEK whose key file is gone or changed comes back in state error, device
# objects do not come back, and state files are replaced atomically.

load helper
load key-helper

setup() {
	load_libs
	D="$BATS_TEST_TMPDIR/d"
	K="$BATS_TEST_TMPDIR/keys"
	mkdir -p "$D" "$K"
	: >"$D/rdmad.conf"
}

teardown() {
	rdmad_stop "$D" || true
}

restart() {
	if [ "${1:-}" = kill ]; then rdmad_kill9 "$D"; else rdmad_stop "$D"; fi
	rdmad_start "$D"
}

# The DEK list without what changes by design (nothing, today): the records as they are.
deks() {
	"$RDMACTL" -j dek list
}

populate() {
	key "$K/a" 32
	key "$K/b" 64
	"$RDMACTL" dek create alpha --size 128 --key-file "$K/a" --opaque 0102030405060708
	"$RDMACTL" dek create beta --size 256 --key-file "$K/b" --keytag 1122334455667788
	"$RDMACTL" dek destroy alpha
	"$RDMACTL" dek create gamma --size 128 --key-file "$K/a"
	"$RDMACTL" daemon log-level debug
}

@test "after a restart DEKs and the log level are back, with their handles and names" {
	rdmad_start "$D"
	populate
	before=$(deks)
	restart
	assert_equal "$(deks)" "$before"
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"debug"'
	# Handles go on after the restored ones: gamma's is not handed out again.
	run "$RDMACTL" -j dek create delta --size 128 --key-file "$K/a"
	gamma=$("$RDMACTL" -j dek show gamma | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	delta=$(echo "$output" | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	[ "$delta" -gt "$gamma" ]
}

@test "after kill -9 DEKs and the log level are back as they were" {
	rdmad_start "$D"
	populate
	before=$(deks)
	restart kill
	assert_equal "$(deks)" "$before"
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"debug"'
	assert_file_contains "$D/rdmad.log" "DEK [0-9]* 'beta' restored"
}

@test "rdmad --log-level wins over the saved level for its run" {
	rdmad_start "$D"
	"$RDMACTL" daemon log-level debug
	rdmad_stop "$D"
	rdmad_start "$D" --log-level notice
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"notice"'
}

@test "log-level reset forgets the saved level: rdmad.conf's applies, now and after a restart" {
	echo 'log_level = warning' >"$D/rdmad.conf"
	rdmad_start "$D"
	"$RDMACTL" daemon log-level debug
	"$RDMACTL" daemon log-level reset
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"warning"'
	restart
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"warning"'
	# With --log-level, reset goes back to that level for the run.
	rdmad_stop "$D"
	rdmad_start "$D" --log-level notice
	"$RDMACTL" daemon log-level debug
	"$RDMACTL" daemon log-level reset
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"notice"'
}

@test "a DEK whose key file vanished comes back in state error, and ready once the file is back" {
	rdmad_start "$D"
	key "$K/a" 32
	"$RDMACTL" dek create alpha --size 128 --key-file "$K/a"
	mv "$K/a" "$K/a.away"
	restart
	run "$RDMACTL" -j dek show alpha
	assert_output --partial "\"state\":\"error\",\"error\":\"key_file: $K/a does not exist\""
	assert_file_contains "$D/rdmad.log" "<3>soft0: DEK [0-9]* 'alpha' is in state error: key_file: $K/a does not exist"
	run "$RDMACTL" dek show alpha
	assert_output --partial 'state error'
	mv "$K/a.away" "$K/a"
	restart
	run "$RDMACTL" -j dek show alpha
	assert_output --partial '"state":"ready","error":null'
}

@test "a key file that changed mode, owner or content gives state error" {
	rdmad_start "$D"
	key "$K/m" 32
	key "$K/o" 32
	key "$K/c" 32
	"$RDMACTL" dek create mode --size 128 --key-file "$K/m"
	"$RDMACTL" dek create owner --size 128 --key-file "$K/o"
	"$RDMACTL" dek create content --size 128 --key-file "$K/c"
	chmod 0644 "$K/m"
	chown 65534 "$K/o"
	key "$K/c" 32
	restart kill
	run "$RDMACTL" -j dek show mode
	assert_output --partial "\"error\":\"key_file: $K/m has mode 0644; key files must be mode 0600 or stricter"
	run "$RDMACTL" -j dek show owner
	assert_output --partial "\"error\":\"key_file: $K/o is owned by uid 65534"
	run "$RDMACTL" -j dek show content
	assert_output --partial "\"error\":\"key_file: $K/c no longer holds the key the DEK was created with\""
	# An unusable DEK can still be destroyed.
	"$RDMACTL" dek destroy content
}

@test "a DEK given on stdin or made on a PD comes back in state error; PDs do not come back" {
	rdmad_start "$D"
	key "$K/a" 32
	"$RDMACTL" dek create bystdin --size 128 --key-file - <"$K/a"
	pd=$("$RDMACTL" -j pd create | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	"$RDMACTL" dek create onpd --size 128 --key-file "$K/a" --pd "$pd"
	restart
	run "$RDMACTL" -j dek show bystdin
	assert_output --partial '"persistent":false,"pd":null,"state":"error","error":"key: the key was given by value, which is not kept across restarts'
	run "$RDMACTL" -j dek show onpd
	assert_output --partial "\"pd\":$pd,\"state\":\"error\",\"error\":\"pd: the DEK was created on PD $pd, and PDs do not survive a restart"
	run "$RDMACTL" -j pd list
	assert_output '[]'
}

@test "a wrapped DEK comes back through its import KEK, and in state error once the KEK is gone" {
	key "$K/kek" 16
	key "$K/cred" 40
	openssl enc -id-aes128-wrap -iv A6A6A6A6A6A6A6A6 -K "$(xxd -p -c 64 "$K/kek")" -in "$K/cred" -out "$K/login"
	key "$K/k" 32
	openssl enc -id-aes128-wrap -iv A6A6A6A6A6A6A6A6 -K "$(xxd -p -c 64 "$K/kek")" -in "$K/k" -out "$K/w"
	chmod 0600 "$K/login" "$K/w"
	printf 'crypto_credential = %s\nimport_kek.main = %s\n' "$K/cred" "$K/kek" >"$D/rdmad.conf"
	rdmad_start "$D"
	"$RDMACTL" dek login --credential-file "$K/login"
	"$RDMACTL" dek create wrapped --size 128 --key-file "$K/w" --import wrapped
	restart kill
	run "$RDMACTL" -j dek show wrapped
	assert_output --partial '"import":"wrapped","kek":"main","key_file":"'"$K"'/w","persistent":true,"pd":null,"state":"ready"'
	# The login itself is device state: it does not survive.
	run "$RDMACTL" -j dek login-state
	assert_output --partial '"state":"no_login"'
	: >"$D/rdmad.conf"
	restart
	run "$RDMACTL" -j dek show wrapped
	assert_output --partial "\"state\":\"error\",\"error\":\"kek: no import KEK 'main' is configured"
}

@test "state files are replaced atomically: no temporary file stays, modes are 0600" {
	rdmad_start "$D"
	populate
	run find "$D/state" -name '*.tmp-*'
	assert_output ''
	run stat -c '%a %n' "$D/state/deks.json" "$D/state/settings.json"
	assert_line "600 $D/state/deks.json"
	assert_line "600 $D/state/settings.json"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"] == 1 and "soft0" in d["deks"]' "$D/state/deks.json"
	# A temporary file a crash left behind is removed at the next start.
	rdmad_kill9 "$D"
	echo '{"half": ' >"$D/state/deks.json.tmp-AbC123"
	rdmad_start "$D"
	assert_file_not_exists "$D/state/deks.json.tmp-AbC123"
	assert_file_contains "$D/rdmad.log" "removed $D/state/deks.json.tmp-AbC123, left by an interrupted save"
}

@test "a state file that does not parse is moved aside, and the daemon starts" {
	mkdir -m 0700 -p "$D/state"
	echo 'not json' >"$D/state/deks.json"
	rdmad_start "$D"
	assert_file_exists "$D/state/deks.json.bad"
	assert_file_contains "$D/rdmad.log" "deks.json is not JSON; moved to $D/state/deks.json.bad"
	run "$RDMACTL" -j dek list
	assert_output '[]'
}
