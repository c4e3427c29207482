#!/usr/bin/env bats
# rdmactl pd and io.rdmad.Pd: protection domains.

load helper

setup_file() { rdmad_start; }
teardown_file() { rdmad_stop; }
setup() { load_libs; }

handle_of() { sed -n 's/.*"handle":\([0-9]*\).*/\1/p' | head -1; }

@test "create prints the new PD; show and list find it" {
	run "$RDMACTL" -j pd create
	assert_success
	assert_output --regexp '^\[\{"ifname":"soft0","ifindex":0,"handle":[0-9]+,"mrs":0,"qps":0,"ahs":0,"mkeys":0\}\]$'
	pd=$(echo "$output" | handle_of)
	run "$RDMACTL" pd show "$pd"
	assert_output "pd $pd: ifname soft0 ifindex 0 mrs 0 qps 0 ahs 0 mkeys 0"
	run "$RDMACTL" -j pd list
	assert_output --partial "{\"ifname\":\"soft0\",\"ifindex\":0,\"handle\":$pd,"
	run "$RDMACTL" pd
	assert_line "pd $pd: ifname soft0 ifindex 0 mrs 0 qps 0 ahs 0 mkeys 0"
}

@test "handles are not reused right after a destroy" {
	a=$("$RDMACTL" -j pd create | handle_of)
	"$RDMACTL" pd destroy "$a"
	b=$("$RDMACTL" -j pd create | handle_of)
	[ "$b" -ne "$a" ]
}

@test "a PD that holds an MR is not destroyed; the error names the MR" {
	pd=$("$RDMACTL" -j pd create | handle_of)
	mr=$("$RDMACTL" -j mr create "$pd" --size 4096 --access local_write | handle_of)
	run -1 --separate-stderr "$RDMACTL" pd destroy "$pd"
	assert_equal "$stderr" "rdmactl: pd destroy: io.rdmad.Pd.ObjectInUse: kind 'pd', handle '$pd', user_kind 'mr', user_handle '$(printf 0x%x "$mr")'"
	run "$RDMACTL" -j pd show "$pd"
	assert_output --partial '"mrs":1'
	"$RDMACTL" mr destroy "$mr"
	run "$RDMACTL" pd destroy "$pd"
	assert_success
	run -1 "$RDMACTL" pd show "$pd"
}

@test "bad input: unknown handle, not a number, unknown device" {
	run -1 --separate-stderr "$RDMACTL" pd show 999999
	assert_equal "$stderr" "rdmactl: pd show: io.rdmad.Pd.NoSuchObject: kind 'pd', handle '999999'"
	run -1 --separate-stderr "$RDMACTL" pd destroy 999999
	assert_equal "$stderr" "rdmactl: pd destroy: io.rdmad.Pd.NoSuchObject: kind 'pd', handle '999999'"
	run -2 --separate-stderr "$RDMACTL" pd show x
	assert_equal "$stderr" "rdmactl: pd show: PD: 'x' is not a number in 0-4294967295"
	run -2 --separate-stderr "$RDMACTL" pd destroy
	assert_equal "$stderr" "rdmactl: pd destroy: missing argument PD"
	run -1 --separate-stderr "$RDMACTL" pd create --dev mlx5_0
	assert_equal "$stderr" "rdmactl: pd create: io.rdmad.Pd.NoSuchDevice: device 'mlx5_0'"
}

@test "raw varlink: every method, and wrong parameter types" {
	run varlink_raw '{"method":"io.rdmad.Pd.Create","parameters":{"device":"soft0"}}\0'
	assert_output --regexp '^\{"parameters":\{"pd":\{"ifname":"soft0","ifindex":0,"handle":[0-9]+,'
	pd=$(echo "$output" | handle_of)
	run varlink_raw "{\"method\":\"io.rdmad.Pd.Show\",\"parameters\":{\"handle\":$pd}}\\0{\"method\":\"io.rdmad.Pd.Show\",\"parameters\":{\"handle\":\"$pd\"}}\\0{\"method\":\"io.rdmad.Pd.Destroy\",\"parameters\":{\"handle\":$pd}}\\0{\"method\":\"io.rdmad.Pd.Destroy\",\"parameters\":{\"handle\":$pd}}\\0{\"method\":\"io.rdmad.Pd.Show\",\"parameters\":{\"handle\":-1}}\\0"
	assert_line --index 0 --regexp "^\{\"parameters\":\{\"pd\":\{\"ifname\":\"soft0\",\"ifindex\":0,\"handle\":$pd,"
	assert_line --index 1 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"handle"}}'
	assert_line --index 2 '{"parameters":{}}'
	assert_line --index 3 "{\"error\":\"io.rdmad.Pd.NoSuchObject\",\"parameters\":{\"kind\":\"pd\",\"handle\":$pd}}"
	assert_line --index 4 '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"handle"}}'
	run varlink_raw '{"method":"io.rdmad.Pd.List"}\0'
	assert_output --regexp '^\{"parameters":\{"pds":\['
}
