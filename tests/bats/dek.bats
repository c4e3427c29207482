#!/usr/bin/env bats
# rdmactl dek and io.rdmad.Dek: DEKs from key files or stdin, plaintext and
# wrapped (AES-KW, RFC 3394) imports after a crypto login, the key-file rules,
# refusals that name the field and change nothing, and key bytes that never
# show up in a reply or in the daemon's log.

load helper
load key-helper

setup_file() {
	K="$BATS_FILE_TMPDIR/keys"
	mkdir -p "$K"
	key "$K/kek-main" 32
	key "$K/kek-other" 16
	key "$K/credential" 40
	wrap "$K/kek-main" "$K/credential" "$K/login-main"
	wrap "$K/kek-other" "$K/credential" "$K/login-other"
	key "$K/wrong-credential" 40
	wrap "$K/kek-main" "$K/wrong-credential" "$K/login-wrong"
	cat >"$BATS_FILE_TMPDIR/rdmad.conf" <<-EOF
	crypto_credential = $K/credential
	import_kek.main = $K/kek-main
	import_kek.other = $K/kek-other
	EOF
	rdmad_start "$BATS_FILE_TMPDIR" --log-level debug
}
teardown_file() { rdmad_stop; }
setup() {
	load_libs
	K="$BATS_FILE_TMPDIR/keys"
	T="$BATS_TEST_TMPDIR"
}

# field JSON KEY: a scalar member of a one-line JSON object.
field() {
	python3 -c 'import json,sys; v=json.loads(sys.argv[1]); k=sys.argv[2]; v=v.get("dek", v).get(k) if isinstance(v, dict) else v; print(json.dumps(v) if not isinstance(v, str) else v)' "$1" "$2"
}

# refused FIELD RDMACTL-ARGS...: an error naming FIELD, exit 2 for InvalidArgument
# and 1 for the others, no DEK changed.
refused() {
	local want=$1
	shift
	local before
	before=$("$RDMACTL" -j dek list)
	run --separate-stderr "$RDMACTL" -j "$@"
	assert_failure "$(refusal_status "$(jq -r .error <<<"$output")")"
	assert_output --regexp "^\{\"error\":\"io\.rdmad\.Dek\.(InvalidArgument|InvalidState|NotSupported)\",\"parameters\":\{\"field\":\"$want\","
	assert_equal "$("$RDMACTL" -j dek list)" "$before"
}

@test "create from a key file: a 128-bit plaintext DEK, ready, persistent" {
	key "$T/k" 32
	run "$RDMACTL" -j dek create plain128 --size 128 --key-file "$T/k"
	assert_success
	assert_output --regexp '^\[\{"ifname":"soft0","ifindex":0,"handle":[0-9]+,"name":"plain128","size":128,"keytag":false,"opaque":"0000000000000000","import":"plaintext","kek":null,"key_file":"'"$T"'/k","persistent":true,"pd":null,"state":"ready","error":null,"mkeys":0,"allow":\[\],"allow_unresolved":\[\]\}\]$'
	"$RDMACTL" dek destroy plain128
}

@test "create a 256-bit DEK with keytag and opaque; show by name and handle; list; destroy" {
	key "$T/k" 64
	run "$RDMACTL" -j dek create big --size 256 --key-file "$T/k" --keytag 0011223344556677 --opaque A1B2C3D4E5F60718
	assert_success
	handle=$(echo "$output" | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	assert_output --partial '"size":256,"keytag":true,"opaque":"a1b2c3d4e5f60718"'
	run "$RDMACTL" -j dek show big
	assert_output --partial "\"handle\":$handle,\"name\":\"big\""
	run "$RDMACTL" -j dek show "$handle"
	assert_output --partial '"name":"big"'
	run "$RDMACTL" dek show big
	assert_success
	assert_line --regexp "^dek $handle: ifname soft0 ifindex 0 name big size 256 keytag true opaque a1b2c3d4e5f60718 import plaintext"
	assert_output --partial 'state ready'
	run "$RDMACTL" -j dek list
	assert_output --partial '"name":"big"'
	run "$RDMACTL" dek
	assert_output --partial 'name big'
	run "$RDMACTL" dek destroy big
	assert_success
	assert_output ''
	run --separate-stderr "$RDMACTL" dek show big
	assert_failure 1
	assert_equal "$stderr" "rdmactl: dek show: io.rdmad.Dek.NoSuchDek: name 'big'"
	run --separate-stderr "$RDMACTL" dek destroy "$handle"
	assert_failure 1
	assert_equal "$stderr" "rdmactl: dek destroy: io.rdmad.Dek.NoSuchObject: kind 'dek', handle '$handle'"
}

@test "--key-file - reads the key from stdin; such a DEK is not persistent" {
	head -c 32 /dev/urandom >"$T/k"
	run "$RDMACTL" -j dek create fromstdin --size 128 --key-file - <"$T/k"
	assert_success
	assert_output --partial '"key_file":null,"persistent":false,"pd":null,"state":"ready"'
	run "$RDMACTL" dek show fromstdin
	assert_output --partial 'persistent false'
	"$RDMACTL" dek destroy fromstdin
	head -c 31 /dev/urandom >"$T/short"
	refused key dek create short --size 128 --key-file - <"$T/short"
}

# raw_create: runs the python3 script on stdin after call(params, fds): a
# Dek.Create on a raw connection of its own, fds passed (SCM_RIGHTS) with the
# message's bytes, key_fd naming one by its index among them; the reply.
raw_create() {
	{
		cat <<-'EOF'
		import json, os, socket, sys
		def call(params, fds):
		    s = socket.socket(socket.AF_UNIX)
		    s.connect(sys.argv[1])
		    msg = json.dumps({"method": "io.rdmad.Dek.Create", "parameters": params}).encode() + b"\0"
		    socket.send_fds(s, [msg], fds)
		    reply = b""
		    while not reply.endswith(b"\0"):
		        reply += s.recv(65536)
		    s.close()
		    return json.loads(reply[:-1])
		EOF
		cat
	} >"$T/raw_create.py"
	python3 "$T/raw_create.py" "$RDMACTL_SOCKET"
}

@test "key_fd: a memfd passed with the call holds the key, never in the message; pipes and both forms refused" {
	run raw_create <<-'EOF'
	key = bytes(range(1, 33))
	fd = os.memfd_create("key")
	os.write(fd, key)
	# Index 1: the second descriptor passed, whatever the caller's number for it.
	r = call({"name": "viafd", "size": 128, "key_fd": 1}, [0, fd])
	print(r["parameters"]["dek"]["state"], r["parameters"]["dek"]["persistent"])
	rd, wr = os.pipe()
	os.write(wr, key)
	print(call({"name": "viapipe", "size": 128, "key_fd": 0}, [rd]))
	print(call({"name": "both", "size": 128, "key_fd": 0, "key": "AAAA"}, [fd]))
	EOF
	assert_success
	assert_line --index 0 "ready False"
	assert_line --index 1 --partial "'error': 'io.rdmad.Dek.InvalidArgument', 'parameters': {'field': 'key_fd', 'reason': 'not a regular file or memfd"
	assert_line --index 2 --partial "'field': 'key_fd', 'reason': 'give key or key_fd, not both'"
	run "$RDMACTL" -j dek list
	refute_output --partial viapipe
	"$RDMACTL" dek destroy viafd
}

@test "key_fd naming no descriptor passed with the call is InvalidArgument key_fd" {
	# The caller's own descriptor number means nothing to the daemon.
	run raw_create <<-'EOF'
	fd = os.memfd_create("key")
	os.write(fd, bytes(range(1, 33)))
	for key_fd, fds in ((fd, []), (1, [fd]), (-1, [fd])):
	    print(call({"name": "nofd", "size": 128, "key_fd": key_fd}, fds))
	EOF
	assert_success
	for i in 0 1 2; do
		assert_line --index $i --partial "{'error': 'io.rdmad.Dek.InvalidArgument', 'parameters': {'field': 'key_fd',"
	done
	run "$RDMACTL" -j dek list
	refute_output --partial nofd
}

@test "a relative key file is the daemon's absolute path" {
	key "$T/rel" 32
	cd "$T"
	run "$RDMACTL" -j dek create relative --size 128 --key-file rel
	assert_success
	assert_output --partial "\"key_file\":\"$T/rel\""
	"$RDMACTL" dek destroy relative
}

@test "key files: owner, mode, link, kind, length and halves are checked" {
	key "$T/k" 32
	cp -p "$T/k" "$T/theirs"
	chown 65534 "$T/theirs"
	refused key_file dek create bad --size 128 --key-file "$T/theirs"
	assert_output --partial "is owned by uid 65534; key files must be owned by root"
	cp -p "$T/k" "$T/open"
	chmod 0640 "$T/open"
	refused key_file dek create bad --size 128 --key-file "$T/open"
	assert_output --partial "has mode 0640; key files must be mode 0600 or stricter"
	ln -s "$T/k" "$T/link"
	refused key_file dek create bad --size 128 --key-file "$T/link"
	assert_output --partial "is a symbolic link"
	refused key_file dek create bad --size 128 --key-file "$T/none"
	assert_output --partial "does not exist"
	mkdir -m 0700 "$T/dir"
	refused key_file dek create bad --size 128 --key-file "$T/dir"
	assert_output --partial "is not a regular file"
	key "$T/short" 31
	refused key_file dek create bad --size 128 --key-file "$T/short"
	assert_output --partial "holds 31 bytes; a 128-bit plaintext DEK is 32 bytes (key1 || key2)"
	refused key_file dek create bad --size 256 --key-file "$T/k"
	assert_output --partial "holds 32 bytes; a 256-bit plaintext DEK is 64 bytes"
	head -c 16 /dev/urandom >"$T/half"
	cat "$T/half" "$T/half" >"$T/equal"
	chmod 0600 "$T/equal"
	refused key_file dek create bad --size 128 --key-file "$T/equal"
	assert_output --partial "key1 and key2 (the two halves) are equal"
}

@test "bad names, sizes, keytags, opaque values and PDs are refused naming the field" {
	key "$T/k" 32
	"$RDMACTL" dek create taken --size 128 --key-file "$T/k"
	refused name dek create taken --size 128 --key-file "$T/k"
	refused name dek create 1st --size 128 --key-file "$T/k"
	refused keytag dek create bad --size 128 --key-file "$T/k" --keytag 00112233445566
	refused keytag dek create bad --size 128 --key-file "$T/k" --keytag 001122334455667g
	refused opaque dek create bad --size 128 --key-file "$T/k" --opaque xyz
	refused keytag dek create bad --size 128 --key-file "$T/k" --import wrapped --keytag 0011223344556677
	run --separate-stderr "$RDMACTL" -j dek create bad --size 128 --key-file "$T/k" --pd 4000
	assert_failure 1
	assert_output '{"error":"io.rdmad.Dek.NoSuchObject","parameters":{"kind":"pd","handle":4000}}'
	run --separate-stderr "$RDMACTL" dek create bad --size 192 --key-file "$T/k"
	assert_failure 2
	assert_equal "$stderr" "rdmactl: dek create: --size: '192' is not one of: 128, 256"
	run --separate-stderr "$RDMACTL" dek create bad --size 128
	assert_failure 2
	"$RDMACTL" dek destroy taken
	run "$RDMACTL" -j dek show bad
	assert_failure 1
}

@test "a DEK on a PD; the PD cannot go while the DEK holds it" {
	key "$T/k" 32
	pd=$("$RDMACTL" -j pd create | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	run "$RDMACTL" -j dek create onpd --size 128 --key-file "$T/k" --pd "$pd"
	assert_success
	assert_output --partial "\"pd\":$pd,"
	dek=$(echo "$output" | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	run --separate-stderr "$RDMACTL" -j pd destroy "$pd"
	assert_failure 1
	assert_output "{\"error\":\"io.rdmad.Pd.ObjectInUse\",\"parameters\":{\"kind\":\"pd\",\"handle\":$pd,\"user_kind\":\"dek\",\"user_handle\":$dek}}"
	"$RDMACTL" dek destroy onpd
	"$RDMACTL" pd destroy "$pd"
}

@test "crypto login: no login, a wrong credential, two KEKs, login, one session, logout" {
	run "$RDMACTL" -j dek login-state
	assert_output '[{"ifname":"soft0","ifindex":0,"state":"no_login","kek":null}]'
	refused credential_file dek login --credential-file "$K/login-wrong" --kek main
	assert_output --partial "is not the device's credential wrapped under import KEK 'main'"
	refused credential_file dek login --credential-file "$K/login-other" --kek main
	refused kek dek login --credential-file "$K/login-main"
	assert_output --partial '2 import KEKs are configured (main, other); name one'
	refused kek dek login --credential-file "$K/login-main" --kek nosuch
	run "$RDMACTL" -j dek login --credential-file "$K/login-main" --kek main
	assert_success
	assert_output '[{"ifname":"soft0","ifindex":0,"state":"valid","kek":"main"}]'
	refused login dek login --credential-file "$K/login-main" --kek main
	assert_output --partial "a crypto login is open already (import KEK 'main'); log out first"
	run "$RDMACTL" dek login-state
	assert_output 'login: ifname soft0 ifindex 0 state valid kek main'
	run "$RDMACTL" dek logout
	assert_success
	refused login dek logout
	run "$RDMACTL" dek login --credential-file "$K/login-other" --kek other
	assert_success
	"$RDMACTL" dek logout
}

@test "wrapped import: needs a login; 40/72 bytes, 48/80 with a keytag; a damaged key is refused" {
	key "$T/k128" 32
	wrap "$K/kek-main" "$T/k128" "$T/w128"
	refused login dek create w128 --size 128 --key-file "$T/w128" --import wrapped
	assert_output --partial "a wrapped import needs a crypto login"
	"$RDMACTL" dek login --credential-file "$K/login-main" --kek main
	run "$RDMACTL" -j dek create w128 --size 128 --key-file "$T/w128" --import wrapped
	assert_success
	assert_output --partial '"size":128,"keytag":false,"opaque":"0000000000000000","import":"wrapped","kek":"main"'
	key "$T/k256t" 72
	wrap "$K/kek-main" "$T/k256t" "$T/w256t"
	[ "$(stat -c %s "$T/w256t")" = 80 ]
	run "$RDMACTL" -j dek create w256t --size 256 --key-file "$T/w256t" --import wrapped
	assert_success
	assert_output --partial '"size":256,"keytag":true,'
	cp -p "$T/w128" "$T/damaged"
	# Byte 20 flipped (not overwritten: a random key may hold the new value already).
	printf "\\x$(printf %02x $(( $(od -An -tu1 -j20 -N1 "$T/w128") ^ 0xff )))" |
		dd of="$T/damaged" bs=1 seek=20 conv=notrunc 2>/dev/null
	run -1 cmp -s "$T/w128" "$T/damaged"
	refused key_file dek create bad --size 128 --key-file "$T/damaged" --import wrapped
	assert_output --partial "does not unwrap under import KEK 'main'"
	refused key_file dek create bad --size 128 --key-file "$T/k128" --import wrapped
	assert_output --partial "holds 32 bytes; a wrapped 128-bit DEK is 40 bytes, or 48 with a keytag"
	head -c 16 /dev/urandom >"$T/half"
	cat "$T/half" "$T/half" >"$T/equal"
	wrap "$K/kek-main" "$T/equal" "$T/wequal"
	refused key_file dek create bad --size 128 --key-file "$T/wequal" --import wrapped
	assert_output --partial "are equal"
	"$RDMACTL" dek logout
	# DEKs made under the login stay after it ends.
	run "$RDMACTL" -j dek show w128
	assert_output --partial '"state":"ready"'
	"$RDMACTL" dek destroy w128
	"$RDMACTL" dek destroy w256t
}

@test "raw varlink: every method, and its errors" {
	key "$T/k" 32
	run varlink_raw '{"method":"io.rdmad.Dek.Create","parameters":{"name":"raw","size":128,"key_file":"'"$T"'/k"}}\0'
	assert_output --regexp '^\{"parameters":\{"dek":\{"ifname":"soft0","ifindex":0,"handle":[0-9]+,"name":"raw",'
	run varlink_raw '{"method":"io.rdmad.Dek.Create","parameters":{"name":"raw2","size":192,"key_file":"'"$T"'/k"}}\0'
	assert_output '{"error":"io.rdmad.Dek.InvalidArgument","parameters":{"field":"size","reason":"192 is not a DEK size: 128 (AES-128-XTS) or 256 (AES-256-XTS)"}}'
	run varlink_raw '{"method":"io.rdmad.Dek.Create","parameters":{"name":"raw2","size":128,"key_file":"k"}}\0'
	assert_output '{"error":"io.rdmad.Dek.InvalidArgument","parameters":{"field":"key_file","reason":"'"'k'"' is not an absolute path"}}'
	run varlink_raw '{"method":"io.rdmad.Dek.Create","parameters":{"name":"raw2","size":128,"key":"not base64!"}}\0'
	assert_output --partial '"field":"key","reason":"is not base64'
	run varlink_raw '{"method":"io.rdmad.Dek.Create","parameters":{"name":"raw2","size":128}}\0'
	assert_output --partial '"field":"key_file","reason":"give either a key file or the key itself"'
	run varlink_raw '{"method":"io.rdmad.Dek.List"}\0'
	assert_output --partial '"name":"raw"'
	run varlink_raw '{"method":"io.rdmad.Dek.Show","parameters":{"name":"raw"}}\0'
	assert_output --partial '"name":"raw"'
	run varlink_raw '{"method":"io.rdmad.Dek.Show","parameters":{}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"handle"}}'
	run varlink_raw '{"method":"io.rdmad.Dek.Show","parameters":{"device":"mlx5_0","name":"raw"}}\0'
	assert_output '{"error":"io.rdmad.Dek.NoSuchDevice","parameters":{"device":"mlx5_0"}}'
	run varlink_raw '{"method":"io.rdmad.Dek.GetLogin"}\0'
	assert_output '{"parameters":{"login":{"ifname":"soft0","ifindex":0,"state":"no_login","kek":null}}}'
	run varlink_raw '{"method":"io.rdmad.Dek.Login","parameters":{"credential_file":"'"$K"'/login-main","kek":"main"}}\0'
	assert_output '{"parameters":{"login":{"ifname":"soft0","ifindex":0,"state":"valid","kek":"main"}}}'
	run varlink_raw '{"method":"io.rdmad.Dek.Logout"}\0'
	assert_output '{"parameters":{}}'
	run varlink_raw '{"method":"io.rdmad.Dek.Logout"}\0'
	assert_output '{"error":"io.rdmad.Dek.InvalidState","parameters":{"field":"login","reason":"there is no crypto login to end"}}'
	run varlink_raw '{"method":"io.rdmad.Dek.Destroy","parameters":{"name":"raw"}}\0'
	assert_output '{"parameters":{}}'
	run varlink_raw '{"method":"io.rdmad.Dek.Destroy","parameters":{"name":"raw"}}\0'
	assert_output '{"error":"io.rdmad.Dek.NoSuchDek","parameters":{"name":"raw"}}'
}

@test "key bytes appear in no reply and in no log line" {
	key "$T/file" 64
	head -c 32 /dev/urandom >"$T/stdin"
	key "$T/wk" 40
	wrap "$K/kek-main" "$T/wk" "$T/wrapped"
	{
		"$RDMACTL" -j dek create leak1 --size 256 --key-file "$T/file" --keytag 0102030405060708
		"$RDMACTL" -j dek create leak2 --size 128 --key-file - <"$T/stdin"
		"$RDMACTL" -j dek login --credential-file "$K/login-main" --kek main
		"$RDMACTL" -j dek create leak3 --size 128 --key-file "$T/wrapped" --import wrapped
		# Refusals too: a wrapped key taken as plaintext, a key of the wrong size.
		"$RDMACTL" -j dek create leak4 --size 128 --key-file "$T/wrapped" || true
		"$RDMACTL" -j dek create leak5 --size 128 --key-file "$T/file" || true
		"$RDMACTL" -j dek list
		"$RDMACTL" dek show
		"$RDMACTL" -j dek logout
		for d in leak1 leak2 leak3; do "$RDMACTL" dek destroy $d; done
	} >"$T/replies" 2>&1
	# Every secret: DEK keys, the KEKs, the device's credential, as bytes, hex and base64.
	python3 - "$T/replies" "$BATS_FILE_TMPDIR/rdmad.log" "$BATS_FILE_TMPDIR/state/deks.json" \
		"$T/file" "$T/stdin" "$T/wk" "$K/kek-main" "$K/credential" <<-'EOF'
	import base64, sys
	haystacks = [open(p, "rb").read() for p in sys.argv[1:4]]
	for path in sys.argv[4:]:
	    secret = open(path, "rb").read()
	    for half in (secret[: len(secret) // 2], secret[len(secret) // 2 :]):
	        for form in (half, half.hex().encode(), half.hex().upper().encode(), base64.b64encode(half)[:16]):
	            for h in haystacks:
	                assert form not in h, f"{path}: {form!r} found"
	EOF
}

@test "help and completion follow the command table" {
	run "$RDMACTL" __complete dek ""
	assert_equal "$(echo "$output" | tr '\n' ' ')" "show list create destroy modify login logout login-state help "
	run "$RDMACTL" __complete dek create x --size ""
	assert_equal "$(echo "$output" | tr '\n' ' ')" "128 256 "
	run "$RDMACTL" dek login help
	assert_line --index 0 'Usage: rdmactl dek login --credential-file FILE [--kek NAME] [--dev DEV]'
}

@test "a reload that takes the login's KEK away makes the login invalid" {
	cp "$BATS_FILE_TMPDIR/rdmad.conf" "$T/conf"
	"$RDMACTL" dek login --credential-file "$K/login-main" --kek main
	grep -v '^import_kek.main' "$T/conf" >"$BATS_FILE_TMPDIR/rdmad.conf"
	"$RDMACTL" daemon reload
	run "$RDMACTL" -j dek login-state
	assert_output '[{"ifname":"soft0","ifindex":0,"state":"invalid","kek":"main"}]'
	key "$T/k" 32
	wrap "$K/kek-main" "$T/k" "$T/w"
	refused login dek create w --size 128 --key-file "$T/w" --import wrapped
	assert_output --partial "the crypto login is invalid: import KEK 'main' or the credential is no longer configured"
	"$RDMACTL" dek logout
	cp "$T/conf" "$BATS_FILE_TMPDIR/rdmad.conf"
	"$RDMACTL" daemon reload
}

@test "a wrapped DEK encrypts as its plaintext key does (IEEE 1619 vector 2); an MKEY holds it" {
	# key1 = 16 x 0x11, key2 = 16 x 0x22: reference mlx5_sig_crypto.md 4.4.
	python3 -c 'import sys; sys.stdout.buffer.write(b"\x11" * 16 + b"\x22" * 16)' >"$T/k"
	chmod 0600 "$T/k"
	wrap "$K/kek-main" "$T/k" "$T/w"
	"$RDMACTL" dek login --credential-file "$K/login-main" --kek main
	dek=$("$RDMACTL" -j dek create vec2 --size 128 --key-file "$T/w" --import wrapped | jq -r '.[0].handle')
	"$RDMACTL" dek logout
	pd=$("$RDMACTL" -j pd create | jq -r '.[0].handle')
	mr=$("$RDMACTL" -j mr create "$pd" --size 4096 --access local_write | jq -r '.[0].handle')
	mkey=$("$RDMACTL" -j mkey create "$pd" --flags crypto --max-entries 4 | jq -r '.[0].handle')
	echo '{"mem":null,"wire":null,"crypto":{"standard":"aes_xts","encrypt_on_tx":true,"signature_crypto_order":"signature_after_crypto_on_tx","data_unit_size":512,"initial_tweak":"33333333330000000000000000000000"}}' >"$T/cfg.json"
	python3 -c 'import sys; sys.stdout.buffer.write(b"\x44" * 32)' | "$RDMACTL" mr write "$mr"
	"$RDMACTL" mkey configure "$mkey" --layout "$mr:0:32" --config "$T/cfg.json" --dek "$dek" >/dev/null
	assert_equal "$("$RDMACTL" mkey tx "$mkey" | xxd -p -c 64)" c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0
	run "$RDMACTL" -j dek show vec2
	assert_output --partial '"mkeys":1,'
	run --separate-stderr "$RDMACTL" -j dek destroy vec2
	assert_failure 1
	assert_output "{\"error\":\"io.rdmad.Dek.ObjectInUse\",\"parameters\":{\"kind\":\"dek\",\"handle\":$dek,\"user_kind\":\"mkey\",\"user_handle\":$mkey}}"
	"$RDMACTL" mkey destroy "$mkey"
	"$RDMACTL" dek destroy vec2
	"$RDMACTL" mr destroy "$mr"
	"$RDMACTL" pd destroy "$pd"
}
