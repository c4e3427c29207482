#!/usr/bin/env bats
# Varlink conformance of lib/varlink, against code nobody here wrote:
#  - varlink-go-certification --client against our varlink-cert-server,
#  - our varlink-cert-client against varlink-go-certification as server,
#  - raw NUL-framed bytes through socat against varlink-cert-server.

bats_require_minimum_version 1.5.0

setup_file() {
	load varlink-helper
	[[ -x $VARLINK_TOOLS/varlink-cert-server ]] || {
		echo "missing $VARLINK_TOOLS/varlink-cert-server: build it first" >&2
		return 1
	}
	export CERT_SOCK=$BATS_FILE_TMPDIR/cert.sock
	varlink_start cert "$VARLINK_TOOLS/varlink-cert-server" "--varlink=unix:$CERT_SOCK"
	varlink_wait_socket "$CERT_SOCK" cert
}

teardown_file() {
	load varlink-helper
	varlink_stop cert >/dev/null
	varlink_stop go-server >/dev/null
	varlink_stop activated >/dev/null
}

setup() {
	bats_load_library bats-support
	bats_load_library bats-assert
	load varlink-helper
}

teardown() {
	varlink_stop go-server >/dev/null
	varlink_stop activated >/dev/null
}

GETINFO='{"method":"org.varlink.service.GetInfo"}'
CERT=org.varlink.certification

# ---- certification, both ways ----

@test "varlink-go-certification --client passes against varlink-cert-server" {
	command -v varlink-go-certification || skip "varlink-go is not installed"
	run -0 timeout 30 varlink-go-certification --client "--varlink=unix:$CERT_SOCK"
	# The Go client exits 0 even when a step fails; its last line tells.
	refute_output --partial "failed"
	assert_line --index 0 --regexp "^Start: '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}'$"
	assert_line "Test01: 'true'"
	assert_line "Test04: 'ping'"
	assert_line "  Receive: 'Reply number 10'"
	assert_line "Test11: ''"
	assert_line --index -1 "End: 'true'"
	run -0 grep -c 'End: client .* all_ok=true' "$BATS_FILE_TMPDIR/cert.log"
}

@test "varlink-cert-client passes against varlink-go-certification as server" {
	command -v varlink-go-certification || skip "varlink-go is not installed"
	local sock=$BATS_FILE_TMPDIR/go.sock
	varlink_start go-server varlink-go-certification "--varlink=unix:$sock"
	varlink_wait_socket "$sock" go-server
	run -0 timeout 30 "$VARLINK_TOOLS/varlink-cert-client" "--varlink=unix:$sock"
	refute_output --partial FAIL
	assert_line --regexp '^Start: \{"client_id":"[0-9a-f-]{36}"\}$'
	assert_line 'Test01: {"bool":true}'
	assert_line '  reply: {"string":"Reply number 10"}'
	assert_line 'End: {"all_ok":true}'
	assert_line --index -1 "PASS: all_ok"
}

@test "varlink-cert-client passes against varlink-cert-server" {
	run -0 timeout 30 "$VARLINK_TOOLS/varlink-cert-client" "--varlink=unix:$CERT_SOCK"
	assert_line 'End: {"all_ok":true}'
	assert_line --index -1 "PASS: all_ok"
}

@test "End says all_ok false when a step was skipped" {
	run -0 varlink_raw "$CERT_SOCK" "{\"method\":\"$CERT.Start\"}"
	local id
	id=$(sed -n 's/.*"client_id":"\([^"]*\)".*/\1/p' <<<"$output")
	[[ -n $id ]]
	run -0 varlink_raw "$CERT_SOCK" \
		"{\"method\":\"$CERT.Test01\",\"parameters\":{\"client_id\":\"$id\"}}" \
		"{\"method\":\"$CERT.End\",\"parameters\":{\"client_id\":\"$id\"}}" \
		"{\"method\":\"$CERT.End\",\"parameters\":{\"client_id\":\"$id\"}}"
	assert_line --index 0 '{"parameters":{"bool":true}}'
	assert_line --index 1 '{"parameters":{"all_ok":false}}'
	# End forgets the client.
	assert_line --index 2 --partial '"error":"org.varlink.certification.ClientIdError"'
}

@test "a wrong value gets CertificationError with wants and got" {
	run -0 varlink_raw "$CERT_SOCK" "{\"method\":\"$CERT.Start\"}"
	local id
	id=$(sed -n 's/.*"client_id":"\([^"]*\)".*/\1/p' <<<"$output")
	run -0 varlink_raw "$CERT_SOCK" \
		"{\"method\":\"$CERT.Test02\",\"parameters\":{\"client_id\":\"$id\",\"bool\":false}}"
	assert_output '{"error":"org.varlink.certification.CertificationError","parameters":{"wants":{"bool":true},"got":{"bool":false}}}'
}

@test "an unknown client_id gets ClientIdError" {
	run -0 varlink_raw "$CERT_SOCK" "{\"method\":\"$CERT.Test01\",\"parameters\":{\"client_id\":\"nobody\"}}"
	assert_output '{"error":"org.varlink.certification.ClientIdError","parameters":{}}'
}

@test "socket activation: varlink-go-certification --client passes" {
	command -v varlink-go-certification || skip "varlink-go is not installed"
	command -v systemd-socket-activate || skip "systemd-socket-activate is not installed"
	local sock=$BATS_FILE_TMPDIR/activated.sock
	varlink_start activated systemd-socket-activate -l "$sock" --fdname=varlink \
		"$VARLINK_TOOLS/varlink-cert-server"
	varlink_wait_socket "$sock" activated
	run -0 timeout 30 varlink-go-certification --client "--varlink=unix:$sock"
	assert_line --index -1 "End: 'true'"
	run -0 varlink_stop activated
	assert_output 0
}

# ---- raw protocol handling ----

@test "pipelined calls in one write are answered in order" {
	run -0 varlink_raw "$CERT_SOCK" \
		"$GETINFO" \
		"{\"method\":\"$CERT.Start\"}" \
		'{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"org.varlink.service"}}' \
		'{"method":"org.example.Nope.X"}' \
		"{\"method\":\"$CERT.Test01\",\"parameters\":{\"client_id\":\"x\"}}"
	assert_equal "${#lines[@]}" 5
	assert_line --index 0 --partial '"product":"varlink-cert-server"'
	assert_line --index 1 --partial '"client_id":'
	assert_line --index 2 --partial '"description":"# The interface every varlink service'
	assert_line --index 3 '{"error":"org.varlink.service.InterfaceNotFound","parameters":{"interface":"org.example.Nope"}}'
	assert_line --index 4 --partial 'ClientIdError'
}

@test "oneway calls get no reply" {
	run -0 varlink_raw "$CERT_SOCK" \
		'{"method":"org.varlink.service.GetInfo","oneway":true}' \
		"{\"method\":\"$CERT.Start\",\"oneway\":true}" \
		'{"method":"org.example.Nope.X","oneway":true}' \
		"{\"method\":\"$CERT.Test01\",\"oneway\":true,\"parameters\":{\"wrong\":1}}" \
		"$GETINFO"
	assert_equal "${#lines[@]}" 1
	assert_line --index 0 --partial '"interfaces":["org.varlink.service","org.varlink.certification"]'
}

@test "more on a plain method: one reply without continues" {
	run -0 varlink_raw "$CERT_SOCK" '{"method":"org.varlink.service.GetInfo","more":true}'
	assert_equal "${#lines[@]}" 1
	refute_output --partial continues
}

@test "unknown interface: InterfaceNotFound with the interface" {
	run -0 varlink_raw "$CERT_SOCK" '{"method":"org.example.Missing.Call","parameters":{}}'
	assert_output '{"error":"org.varlink.service.InterfaceNotFound","parameters":{"interface":"org.example.Missing"}}'
}

@test "unknown method: MethodNotFound with the method" {
	run -0 varlink_raw "$CERT_SOCK" "{\"method\":\"$CERT.Test99\"}"
	assert_output "{\"error\":\"org.varlink.service.MethodNotFound\",\"parameters\":{\"method\":\"$CERT.Test99\"}}"
}

@test "wrong parameter type: InvalidParameter naming it" {
	run -0 varlink_raw "$CERT_SOCK" \
		"{\"method\":\"$CERT.Test02\",\"parameters\":{\"client_id\":\"x\",\"bool\":\"true\"}}" \
		"{\"method\":\"$CERT.Test03\",\"parameters\":{\"client_id\":\"x\",\"int\":\"1\"}}" \
		"{\"method\":\"$CERT.Test03\",\"parameters\":{\"client_id\":\"x\",\"int\":1.5}}" \
		"{\"method\":\"$CERT.Test01\",\"parameters\":{\"client_id\":7}}" \
		"{\"method\":\"$CERT.Test07\",\"parameters\":{\"client_id\":\"x\",\"struct\":{\"bool\":false,\"int\":2,\"float\":\"pi\",\"string\":\"s\"}}}" \
		"{\"method\":\"$CERT.Test11\",\"parameters\":{\"client_id\":\"x\",\"last_more_replies\":[\"a\",\"b\",3]}}"
	assert_line --index 0 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"bool"}}'
	assert_line --index 1 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"int"}}'
	assert_line --index 2 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"int"}}'
	assert_line --index 3 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"client_id"}}'
	assert_line --index 4 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"struct.float"}}'
	assert_line --index 5 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"last_more_replies[2]"}}'
}

@test "nested type errors name the path inside MyType" {
	run -0 varlink_raw "$CERT_SOCK" \
		"{\"method\":\"$CERT.Test10\",\"parameters\":{\"client_id\":\"x\",\"mytype\":{\"object\":{},\"enum\":\"four\",\"struct\":{\"first\":1,\"second\":\"2\"},\"array\":[],\"dictionary\":{},\"stringset\":{},\"interface\":{\"anon\":{\"foo\":true,\"bar\":false}}}}}" \
		"{\"method\":\"$CERT.Test10\",\"parameters\":{\"client_id\":\"x\",\"mytype\":{\"object\":{},\"enum\":\"one\",\"struct\":{\"first\":1,\"second\":\"2\"},\"array\":[],\"dictionary\":{},\"stringset\":{},\"interface\":{\"foo\":[null,{\"a\":\"qux\"}],\"anon\":{\"foo\":true,\"bar\":false}}}}}"
	assert_line --index 0 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"mytype.enum"}}'
	assert_line --index 1 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"mytype.interface.foo[1].a"}}'
}

@test "missing required parameter: InvalidParameter naming it" {
	run -0 varlink_raw "$CERT_SOCK" \
		"{\"method\":\"$CERT.Test01\"}" \
		"{\"method\":\"$CERT.Test01\",\"parameters\":{}}" \
		"{\"method\":\"$CERT.Test01\",\"parameters\":null}" \
		"{\"method\":\"$CERT.Test02\",\"parameters\":{\"client_id\":\"x\"}}" \
		"{\"method\":\"$CERT.Test02\",\"parameters\":{\"client_id\":\"x\",\"bool\":null}}"
	assert_line --index 0 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"client_id"}}'
	assert_line --index 1 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"client_id"}}'
	assert_line --index 2 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"client_id"}}'
	assert_line --index 3 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"bool"}}'
	assert_line --index 4 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"bool"}}'
}

@test "unknown parameter: InvalidParameter naming it" {
	run -0 varlink_raw "$CERT_SOCK" \
		"{\"method\":\"$CERT.Test01\",\"parameters\":{\"client_id\":\"x\",\"extra\":1}}" \
		"{\"method\":\"$CERT.Start\",\"parameters\":{\"client_id\":\"x\"}}"
	assert_line --index 0 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"extra"}}'
	assert_line --index 1 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"client_id"}}'
}

@test "upgrade is refused with InvalidParameter upgrade, the connection goes on" {
	run -0 varlink_raw "$CERT_SOCK" \
		'{"method":"org.varlink.service.GetInfo","upgrade":true}' \
		"$GETINFO"
	assert_line --index 0 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"upgrade"}}'
	assert_line --index 1 --partial '"vendor":"rdmad"'
}

@test "GetInterfaceDescription returns the IDL text" {
	run -0 varlink_raw "$CERT_SOCK" \
		"{\"method\":\"org.varlink.service.GetInterfaceDescription\",\"parameters\":{\"interface\":\"$CERT\"}}"
	assert_output --partial '"description":"# Interface to test varlink implementations against.\n'
	assert_output --partial '\ninterface org.varlink.certification\n'
	assert_output --partial '\nmethod Start() -> (client_id: string)\n'
	assert_output --partial '# returns more than one reply with \"continues\"\n'
	assert_output --partial 'error CertificationError (wants: object, got: object)\n"}}'
}

@test "GetInterfaceDescription of an unknown interface: InterfaceNotFound" {
	run -0 varlink_raw "$CERT_SOCK" \
		'{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"org.example.None"}}' \
		'{"method":"org.varlink.service.GetInterfaceDescription","parameters":{}}'
	assert_line --index 0 '{"error":"org.varlink.service.InterfaceNotFound","parameters":{"interface":"org.example.None"}}'
	assert_line --index 1 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"interface"}}'
}

@test "GetInfo lists the interfaces, org.varlink.service included" {
	run -0 varlink_raw "$CERT_SOCK" "$GETINFO"
	assert_output '{"parameters":{"vendor":"rdmad","product":"varlink-cert-server","version":"1","url":"https://example.invalid/rdmad","interfaces":["org.varlink.service","org.varlink.certification"]}}'
}

@test "whitespace around the object and vendor extension keys are accepted" {
	run -0 varlink_raw_bytes "$CERT_SOCK" \
		' \n\t{ "method" : "org.varlink.service.GetInfo" }\r\n \0{"method":"org.varlink.service.GetInfo","org.example.trace":{"id":1}}\0'
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --partial '"vendor":"rdmad"'
	assert_line --index 1 --partial '"vendor":"rdmad"'
}

@test "a message split over several writes is put together" {
	run -0 bash -c "{ printf '{\"method\":\"org.varlink'; sleep 0.2; printf '.service.GetInfo\"}'; sleep 0.2; printf '\\0'; } |
		timeout 10 socat -t2 - UNIX-CONNECT:'$CERT_SOCK' | tr '\\0' '\\n'"
	assert_output --partial '"vendor":"rdmad"'
}

@test "more and oneway together: closed without a reply" {
	varlink_closes "$CERT_SOCK" \
		"{\"method\":\"$CERT.Start\",\"more\":true,\"oneway\":true}\\0$GETINFO\\0"
}

@test "garbage: closed without a reply" {
	varlink_closes "$CERT_SOCK" "garbage\\0$GETINFO\\0"
}

@test "invalid JSON: closed without a reply" {
	varlink_closes "$CERT_SOCK" '{"method":\0'
	varlink_closes "$CERT_SOCK" '{"method":"org.varlink.service.GetInfo",}\0'
	varlink_closes "$CERT_SOCK" "{\"method\":\"org.varlink.service.GetInfo\"}{}\\0$GETINFO\\0"
	varlink_closes "$CERT_SOCK" '{"method":"org.varlink.service.GetInfo","x":"\xff\xfe"}\0'
}

@test "a non-object message: closed without a reply" {
	varlink_closes "$CERT_SOCK" "[$GETINFO]\\0$GETINFO\\0"
	varlink_closes "$CERT_SOCK" '"org.varlink.service.GetInfo"\0'
	varlink_closes "$CERT_SOCK" '\0'
}

@test "a bad call object: closed without a reply" {
	# method missing or not a string, parameters not an object, flags not
	# booleans, an unknown unprefixed key
	varlink_closes "$CERT_SOCK" '{"parameters":{}}\0'
	varlink_closes "$CERT_SOCK" '{"method":42}\0'
	varlink_closes "$CERT_SOCK" '{"method":"org.varlink.service.GetInfo","parameters":[]}\0'
	varlink_closes "$CERT_SOCK" '{"method":"org.varlink.service.GetInfo","more":"yes"}\0'
	varlink_closes "$CERT_SOCK" '{"method":"org.varlink.service.GetInfo","oneway":1}\0'
	varlink_closes "$CERT_SOCK" '{"method":"org.varlink.service.GetInfo","bogus":true}\0'
}

@test "a message over 16 MiB without NUL: closed, and the server serves the next client" {
	run bash -c "head -c \$((16 * 1024 * 1024 + 4096)) /dev/zero | tr '\\0' ' ' |
		timeout 20 socat -t2 - UNIX-CONNECT:'$CERT_SOCK' | wc -c"
	assert_output 0
	run -0 grep -c 'exceeds 16777216 bytes, closing' "$BATS_FILE_TMPDIR/cert.log"
	run -0 varlink_raw "$CERT_SOCK" "$GETINFO"
	assert_output --partial '"vendor":"rdmad"'
}

@test "a message of 16 MiB minus a bit is still read" {
	# a valid call padded with whitespace to just under the limit
	run -0 bash -c "{ printf '%s' '$GETINFO'; head -c \$((16 * 1024 * 1024 - 100)) /dev/zero | tr '\\0' ' '; printf '\\0'; } |
		timeout 20 socat -t5 - UNIX-CONNECT:'$CERT_SOCK' | tr '\\0' '\\n'"
	assert_output --partial '"vendor":"rdmad"'
}

@test "a client that vanishes mid-stream does not disturb the others" {
	local i
	for ((i = 0; i < 5; i++)); do
		# asks for a stream and hangs up before reading it
		printf '{"method":"%s.Test10","more":true,"parameters":{"client_id":"x"}}\0' "$CERT" |
			timeout 5 socat -t0 - "UNIX-CONNECT:$CERT_SOCK" >/dev/null || true
	done
	run -0 varlink_raw "$CERT_SOCK" "$GETINFO"
	assert_output --partial '"vendor":"rdmad"'
}

@test "after all that, the server is alive and exits cleanly on SIGTERM" {
	varlink_running cert
	run -0 varlink_raw "$CERT_SOCK" "$GETINFO"
	assert_output --partial '"vendor":"rdmad"'
	run -0 varlink_stop cert
	assert_output 0
	run -1 grep -E 'AddressSanitizer|LeakSanitizer|runtime error' "$BATS_FILE_TMPDIR/cert.log"
	[[ ! -e $CERT_SOCK ]]
}
