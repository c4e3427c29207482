#!/usr/bin/env bats
# Strings are strings: a "\u0000" inside a string parameter, wherever it is
# (a name, a path, an enum value, a list element, a string inside an object
# parameter), is org.varlink.service.InvalidParameter naming the field by its
# path, and nothing changes.  Every consumer is C and would stop at the NUL:
# Pool.Create name:"nul\u0000tail" used to create "nul".  An object key with
# "\u0000" breaks the protocol (json-c would cut the key at the NUL and the
# call would name another field): the connection closes without a reply.
#
# The messages go raw through socat (varlink_raw, printf-style): "\\u0000"
# below reaches the daemon as the six characters \u0000.

load helper

setup_file() { rdmad_start; }
teardown_file() { rdmad_stop; }
setup() { load_libs; }

# refused_param MESSAGE PATH: the one reply to MESSAGE is InvalidParameter PATH.
refused_param() {
	run varlink_raw "$1\\0"
	assert_success
	assert_output "{\"error\":\"org.varlink.service.InvalidParameter\",\"parameters\":{\"parameter\":\"$2\"}}"
}

@test "Pool.Create name:\"nul\\u0000tail\" is InvalidParameter name; no pool is made" {
	refused_param '{"method":"io.rdmad.Pool.Create","parameters":{"name":"nul\\u0000tail","type":"signature","size":1}}' name
	refused_param '{"method":"io.rdmad.Pool.Create","parameters":{"name":"\\u0000","type":"signature","size":1}}' name
	run "$RDMACTL" -j pool list
	assert_output '[]'
	# The same name without the NUL is made (and shows the check is on the NUL alone).
	run varlink_raw '{"method":"io.rdmad.Pool.Create","parameters":{"name":"nul","type":"signature","size":1}}\0'
	assert_output --partial '"name":"nul"'
	"$RDMACTL" pool destroy nul
}

@test "a path: Dek.Create key_file with a NUL is InvalidParameter key_file, the file never opened" {
	head -c 32 /dev/urandom >"$BATS_TEST_TMPDIR/k"
	chmod 0600 "$BATS_TEST_TMPDIR/k"
	refused_param '{"method":"io.rdmad.Dek.Create","parameters":{"name":"k","size":128,"key_file":"'"$BATS_TEST_TMPDIR"'/k\\u0000.txt"}}' key_file
	refused_param '{"method":"io.rdmad.Dek.Login","parameters":{"credential_file":"'"$BATS_TEST_TMPDIR"'/k\\u0000"}}' credential_file
	run "$RDMACTL" -j dek list
	assert_output '[]'
}

@test "a device name, an enum value and a list element with a NUL are named too" {
	refused_param '{"method":"io.rdmad.Pd.Create","parameters":{"device":"soft0\\u0000x"}}' device
	refused_param '{"method":"io.rdmad.Daemon.SetLogLevel","parameters":{"level":"debug\\u0000"}}' level
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"info"'
	run varlink_raw '{"method":"io.rdmad.Monitor.Subscribe","more":true,"parameters":{"types":["qp_state","sig_error\\u0000"]}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"types[1]"}}'
	run "$RDMACTL" -j pd list
	assert_output '[]'
}

@test "nested fields: in a structure, a list of structures, and inside an object parameter" {
	refused_param '{"method":"io.rdmad.Qp.PostSendList","parameters":{"handle":1,"wrs":[{"opcode":"send"},{"opcode":"write\\u0000"}]}}' 'wrs[1].opcode'
	refused_param '{"method":"io.rdmad.Qp.PostSend","parameters":{"handle":1,"opcode":"send","inline":"ab\\u0000"}}' inline
	refused_param '{"method":"io.rdmad.Mkey.Configure","parameters":{"handle":1,"config":{"crypto":{"standard":"aes_xts\\u0000","encrypt_on_tx":true}}}}' config.crypto.standard
	refused_param '{"method":"io.rdmad.Mkey.Configure","parameters":{"handle":1,"config":{"mem":{"x":["ok","\\u0000"]}}}}' 'config.mem.x[1]'
}

@test "other escapes are still strings: a NUL is refused, not every \\u escape" {
	run varlink_raw '{"method":"io.rdmad.Device.Show","parameters":{"ifname":"soft\\u0030"}}\0'
	assert_output --partial '"ifname":"soft0"'
	run varlink_raw '{"method":"io.rdmad.Device.Show","parameters":{"ifname":"\\u00e9\\u0001"}}\0'
	assert_output --partial '"error":"io.rdmad.Device.NoSuchDevice"'
}

@test "an object key with a NUL breaks the protocol: the connection closes, nothing is made" {
	for msg in '{"method":"io.rdmad.Pool.Create","parameters":{"name\\u0000x":"p","type":"signature","size":1}}' \
		'{"method":"io.rdmad.Pd.Create","parameters":{"device\\u0000":"soft0"}}' \
		'{"method\\u0000":"io.rdmad.Pd.Create"}' \
		'{"method":"io.rdmad.Mkey.Configure","parameters":{"handle":1,"config":{"crypto\\u0000":{}}}}'; do
		run varlink_raw "{\"method\":\"io.rdmad.Device.List\"}\\0$msg\\0{\"method\":\"io.rdmad.Device.List\"}\\0"
		assert_success
		assert_output '{"parameters":{"ifnames":["soft0"]}}'
	done
	run "$RDMACTL" -j pool list
	assert_output '[]'
	run "$RDMACTL" -j pd list
	assert_output '[]'
	assert_daemon_serves
}
