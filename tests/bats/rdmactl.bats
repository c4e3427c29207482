#!/usr/bin/env bats
# rdmactl against a real rdmad: grammar, help, output, errors and exit codes.

load helper

setup_file() { rdmad_start; }
teardown_file() { rdmad_stop; }
setup() { load_libs; }

@test "status prints version, uptime and devices" {
	run "$RDMACTL" status
	assert_success
	assert_line --regexp '^ *version: [0-9]+\.[0-9]+\.[0-9]+$'
	assert_line --regexp '^ *uptime: '
	assert_line --regexp '^ *ifnames: soft0$'
}

@test "status -j carries machine values" {
	run "$RDMACTL" -j status
	assert_success
	assert_output --regexp '"uptime_usec":[0-9]+'
	assert_output --partial '"ifnames":["soft0"]'
	assert_output --partial "\"socket\":\"$RDMACTL_SOCKET\""
}

@test "dev show -j reports the QUERY_DEVICE and QUERY_PORT values of the soft device" {
	run "$RDMACTL" -j dev show soft0
	assert_success
	# The virtio-net RoCE prototype's limits (reference roce_virtio.md 1.6), with
	# object counts at least rxe's (issue 32).
	for kv in '"max_qp_wr":1024' '"max_send_sge":32' '"max_recv_sge":32' '"max_sge_rd":32' \
		'"max_qp":65536' '"max_cq":16384' '"max_mkey":65536' \
		'"max_cqe":32767' '"max_mr":262144' '"max_pd":32764' '"max_qp_rd_atom":128' \
		'"max_qp_init_rd_atom":128' '"max_ah":16384' '"local_ca_ack_delay":15' \
		'"page_size_cap":4294963200' '"max_mr_size":18446744073709551615' \
		'"gid_tbl_len":512' '"max_msg_sz":8388608' '"active_mtu":1024' \
		'"device_cap_flags":1' '"caps":["RC_RNR_NAK_GEN"]' '"ifname":"soft0"'; do
		assert_output --partial "$kv"
	done
}

@test "dev show -j reports the offload capabilities" {
	run "$RDMACTL" -j dev show soft0
	assert_success
	assert_output --partial '"block_sizes":[512,520,4048,4096,4160]'
	assert_output --partial '"protections":["t10dif","crc"]'
	assert_output --partial '"t10dif_bg":["crc","csum"]'
	assert_output --partial '"crc_types":["crc32","crc32c","crc64_xp10"]'
	# the guard kernels the daemon's engine runs: the level rdmactl's own engine chose too
	assert_output --partial "\"kernel\":\"$("$RDMACTL" offload levels | awk '/ \*$/ { print $1 }')\""
	# and each level's start-up self-test, as rdmactl's own engine found it
	assert_equal "$(jq -c '.[0].signature.kernel_selftests' <<<"$output")" \
		"$("$RDMACTL" -j offload levels | jq -c .selftests)"
	assert_output --partial '"standards":["aes_xts"]'
	assert_output --partial '"key_sizes":[128,256]'
	assert_output --partial '"sqd2rts":true'
}

@test "dev show -j is an array of flat device objects, as rdma -j prints" {
	run "$RDMACTL" -j dev show
	assert_success
	assert_output --regexp '^\[\{"ifindex":0,"ifname":"soft0",'
}

@test "-p indents JSON" {
	run "$RDMACTL" -j -p dev show soft0
	assert_success
	assert_line '  {'
	assert_line --regexp '^    "ifname": "soft0",$'
}

@test "dev show text: one record per device, ports below" {
	run "$RDMACTL" dev show
	assert_success
	assert_line --index 0 --regexp '^soft0: ifindex 0 backend soft node_type ca fw [0-9.]+ node_guid [0-9a-f]{4}(:[0-9a-f]{4}){3}$'
	assert_line --regexp '^    ports: port 1 state ACTIVE physical_state LINK_UP'
	refute_output --partial max_pd
}

@test "dev show -d adds limits and offloads" {
	run "$RDMACTL" -d dev show soft0
	assert_success
	assert_output --partial 'max_pd 32764'
	assert_line --regexp '^    signature: block_sizes 512,520,4048,4096,4160 '
	assert_output --regexp ' kernel (portable|pclmul|avx2|vpclmul256|vpclmul512)'
	assert_line --regexp '^ +kernel_selftests: kernel portable result passed$'
	assert_line --regexp '^ +kernel_selftests: kernel pclmul result (passed|failed: .+|not run: CPU lacks [a-z0-9.]+)$'
}

@test "dev list prints names; dev alone runs show" {
	run "$RDMACTL" dev list
	assert_success
	assert_output soft0
	run "$RDMACTL" dev
	assert_success
	assert_line --index 0 --partial 'soft0: ifindex 0'
}

@test "prefixes abbreviate objects and commands" {
	run "$RDMACTL" dev sh soft0
	assert_success
	assert_line --index 0 --partial 'soft0:'
	run "$RDMACTL" st
	assert_success
	assert_output --partial 'version:'
}

@test "an ambiguous prefix is a usage error listing the candidates" {
	run --separate-stderr "$RDMACTL" d
	assert_failure 2
	assert_regex "$stderr" "^rdmactl: ambiguous command 'd'; valid: d[a-z]+(, d[a-z]+)+$"
	assert_regex "$stderr" "dev"
	assert_regex "$stderr" "daemon"
}

@test "an unknown object or command is a usage error listing what is valid" {
	run --separate-stderr "$RDMACTL" frobnicate
	assert_failure 2
	assert_regex "$stderr" "^rdmactl: unknown command 'frobnicate'; valid: status, dev, (.*, )?daemon(, .*)?$"
	run --separate-stderr "$RDMACTL" dev frob
	assert_failure 2
	assert_equal "$stderr" "rdmactl: dev: unknown command 'frob'; valid: show, list"
}

@test "a superfluous argument is a usage error" {
	run --separate-stderr "$RDMACTL" dev show soft0 extra
	assert_failure 2
	assert_equal "$stderr" "rdmactl: dev show: superfluous argument 'extra'"
}

@test "an unknown option of a command is a usage error" {
	run --separate-stderr "$RDMACTL" dev show --bogus
	assert_failure 2
	assert_equal "$stderr" "rdmactl: dev show: unknown option '--bogus'"
	run --separate-stderr "$RDMACTL" --bogus status
	assert_failure 2
}

@test "a value outside the allowed words names them" {
	run --separate-stderr "$RDMACTL" daemon log-level loud
	assert_failure 2
	assert_equal "$stderr" "rdmactl: daemon log-level: LEVEL: 'loud' is not one of: emerg, alert, crit, err, warning, notice, info, debug, reset"
	run --separate-stderr "$RDMACTL" daemon log-level
	assert_failure 2
	assert_equal "$stderr" "rdmactl: daemon log-level: missing argument LEVEL"
}

@test "help at every level" {
	run "$RDMACTL" help
	assert_success
	assert_line --regexp '^  dev +Show devices'
	assert_line --regexp '^  -j, --json'
	run "$RDMACTL" --help
	assert_success
	assert_line --regexp '^  status +Show the daemon'
	run "$RDMACTL" dev help
	assert_success
	assert_line --regexp '^  show +Show devices.*\(default\)$'
	assert_line --regexp '^  list +List device names'
	run "$RDMACTL" dev show help
	assert_success
	assert_line --index 0 'Usage: rdmactl dev show [DEV]'
	run "$RDMACTL" daemon log-level --help
	assert_success
	assert_line --index 0 'Usage: rdmactl daemon log-level LEVEL'
	assert_output --partial '(emerg|alert|crit|err|warning|notice|info|debug|reset)'
}

@test "-V prints the version" {
	run "$RDMACTL" -V
	assert_success
	assert_output --regexp '^rdmactl [0-9]+\.[0-9]+\.[0-9]+$'
}

@test "a daemon error exits 1 and names the error and the field" {
	run --separate-stderr "$RDMACTL" dev show mlx5_0
	assert_failure 1
	assert_equal "$stderr" "rdmactl: dev show: io.rdmad.Device.NoSuchDevice: ifname 'mlx5_0'"
	assert_output ''
}

@test "with -j a daemon error also prints the error as JSON on stdout" {
	run --separate-stderr "$RDMACTL" -j dev show mlx5_0
	assert_failure 1
	assert_output '{"error":"io.rdmad.Device.NoSuchDevice","parameters":{"ifname":"mlx5_0"}}'
}

@test "no daemon on the socket: exit 1 with the reason" {
	run --separate-stderr "$RDMACTL" -s "$BATS_TEST_TMPDIR/none" status
	assert_failure 1
	assert_equal "$stderr" "rdmactl: cannot connect to $BATS_TEST_TMPDIR/none: No such file or directory (is rdmad running?)"
}

@test "-s wins over RDMACTL_SOCKET" {
	RDMACTL_SOCKET="$BATS_TEST_TMPDIR/none" run "$RDMACTL" -s "$BATS_FILE_TMPDIR/io.rdmad" dev list
	assert_success
	assert_output soft0
}

@test "the completion helper follows the command table" {
	run "$RDMACTL" __complete ""
	assert_success
	assert_line status
	assert_line dev
	assert_line daemon
	assert_line help
	run "$RDMACTL" __complete dev ""
	assert_equal "$(echo "$output" | tr '\n' ' ')" "show list help "
	run "$RDMACTL" __complete dev s ""
	assert_output soft0
	run "$RDMACTL" __complete daemon log-level w
	assert_output warning
}

@test "the interactive shell runs the same commands" {
	run bash -c "printf 'dev list\ndev sh soft0\nbogus\nquit\n' | '$RDMACTL' -i"
	assert_output --partial soft0
	assert_output --partial "unknown command 'bogus'"
}

@test "daemon log-level changes the level status reports" {
	run "$RDMACTL" daemon log-level debug
	assert_success
	run "$RDMACTL" -j status
	assert_output --partial '"log_level":"debug"'
	run "$RDMACTL" daemon log-level info
	assert_success
}
