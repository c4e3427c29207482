# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# Omni-Path VNIC end to end: two rdmad in two network namespaces, the
# Ethernet Manager simulator configuring their ports over the software fabric,
# Ethernet between the VNIC interfaces, traps, counters, drops, captures,
# restarts (tests/bats/vnic-helper.bash).
load helper
load vnic-helper

setup_file() {
	load_libs
	vnic_require
	vnic_fabric_setup
	em_port 1
	em_port 2
	vnic_ip "$NS_A" 192.168.77.1
	vnic_ip "$NS_B" 192.168.77.2
}

teardown_file() {
	vnic_fabric_teardown
}

setup() {
	load_libs
	vnic_require
}

# vnic_ip NS ADDRESS: the host side: IPv4 only (no IPv6 chatter in the counters), up, addressed.
vnic_ip() {
	ip netns exec "$1" sysctl -qw net.ipv6.conf.vnic0.disable_ipv6=1
	ip -n "$1" link set vnic0 up
	ip -n "$1" addr add "$2/24" dev vnic0
}

# counter DIR NAME: one counter of port 0.
counter() {
	ctl "$1" -j vnic counters 0 | jq ".[0].$2"
}

# port_json DIR: port 0 as rdmactl -j vnic show prints it (a list of one).
port_json() {
	ctl "$1" -j vnic show 0 | jq '.[0]'
}

fabric_json() {
	ctl "$1" -j vnic fabric | jq '.[0]'
}

# ping_ok NS ADDRESS [COUNT]
ping_ok() {
	ip netns exec "$1" ping -c "${3:-3}" -i 0.2 -W 2 "$2"
}

@test "the manager's configuration shows in rdmactl vnic show, list and status" {
	run port_json "$A"
	assert_success
	[ "$(jq -r .netdev <<<"$output")" = vnic0 ]
	[ "$(jq .vesw_id <<<"$output")" = 1 ]
	[ "$(jq .pkey <<<"$output")" = $((0x8001)) ]
	[ "$(jq .encap_slid <<<"$output")" = 1 ]
	[ "$(jq -r .base_mac <<<"$output")" = "$(lmac 1)" ]
	[ "$(jq -r .config_state <<<"$output")" = forwarding ]
	# The interface took the manager's MAC.
	[ "$(ip netns exec "$NS_A" cat /sys/class/net/vnic0/address)" = "$(lmac 1)" ]
	run ctl "$A" vnic list
	assert_success
	assert_line --regexp '^port 0: ifname soft0 netdev vnic0 oper_state forwarding passing (true|false)$'
	run ctl "$A" -j status
	[ "$(jq -r '.vnic_ports[0].netdev' <<<"$output")" = vnic0 ]
	run ctl "$A" status
	assert_output --partial "vnic0 forwarding passing"
}

@test "vnic show 0 and vnic list name the VNIC port once, port 0: (its device's port is vnic fabric's, in JSON)" {
	run -0 ctl "$A" vnic show 0
	assert_line -n 0 --regexp '^port 0: ifname soft0 ifindex 0 netdev vnic0 admin_up (true|false) carrier true config_state forwarding oper_state forwarding eth_link_status [a-z_]+ passing (true|false) .*base_mac '"$(lmac 1)"' '
	# "port N" once, as the record's label; never the device's port beside it.
	[ "$(grep -Eo '(^| )port [0-9]+' <<<"$output" | wc -l)" -eq 1 ]
	run -0 ctl "$A" vnic list
	assert_equal "${#lines[@]}" 1
	assert_output --regexp '^port 0: ifname soft0 netdev vnic0 oper_state forwarding passing (true|false)$'
	[ "$(port_json "$A" | jq .port)" = 1 ]
}

@test "ping between the two VNIC interfaces succeeds both ways" {
	run ping_ok "$NS_A" 192.168.77.2
	assert_success
	run ping_ok "$NS_B" 192.168.77.1
	assert_success
	[ "$(port_json "$A" | jq .passing)" = true ]
}

@test "counters equal the frames sent and received, on both nodes" {
	ping_ok "$NS_A" 192.168.77.2 1 >/dev/null   # neighbours resolved
	local tx_a rx_a tx_b rx_b
	tx_a=$(counter "$A" tx_unicast) rx_b=$(counter "$B" rx_unicast)
	rx_a=$(counter "$A" rx_unicast) tx_b=$(counter "$B" tx_unicast)
	run ping_ok "$NS_A" 192.168.77.2 5
	assert_success
	# 5 echo requests A → B and 5 replies B → A, unicast, nothing else.
	[ "$(counter "$A" tx_unicast)" = $((tx_a + 5)) ]
	[ "$(counter "$B" rx_unicast)" = $((rx_b + 5)) ]
	[ "$(counter "$B" tx_unicast)" = $((tx_b + 5)) ]
	[ "$(counter "$A" rx_unicast)" = $((rx_a + 5)) ]
	# A's transmitted bytes are B's received bytes (frame + 4 bytes of FCS each).
	[ "$(counter "$A" tx_bytes)" = "$(counter "$B" rx_bytes)" ]
	[ "$(counter "$A" tx_errors)" = 0 ]
}

@test "frames to an unknown DLID are dropped and counted" {
	local no_route zero
	no_route=$(counter "$A" tx_no_route)
	zero=$(counter "$A" tx_dlid_zero)
	# A locally administered MAC carries LID 9, which the fabric map does not know.
	ip -n "$NS_A" neigh replace 192.168.77.9 lladdr "$(lmac 9)" dev vnic0
	# A global MAC with no MAC table entry and no default port has no DLID at all.
	ip -n "$NS_A" neigh replace 192.168.77.10 lladdr 00:11:22:33:44:55 dev vnic0
	run ip netns exec "$NS_A" ping -c 2 -i 0.2 -W 1 192.168.77.9
	assert_failure
	run ip netns exec "$NS_A" ping -c 3 -i 0.2 -W 1 192.168.77.10
	assert_failure
	[ "$(counter "$A" tx_no_route)" = $((no_route + 2)) ]
	[ "$(counter "$A" tx_dlid_zero)" = $((zero + 3)) ]
	[ "$(fabric_json "$A" | jq .tx_no_route)" -ge 2 ]
}

@test "a MAC table entry routes a global MAC, and its write is a monitor event" {
	monitor_start "$BATS_TEST_TMPDIR/mon" -s "$A/io.rdmad" -j monitor --type vnic_mac_table
	# The manager tells A that 00:aa:bb:cc:dd:02 is at LID 2 (B).
	run em set-macs 1 0 0 0x1234 00:aa:bb:cc:dd:02=2
	assert_success
	wait_for_lines "$BATS_TEST_TMPDIR/mon" 2
	monitor_stop "$BATS_TEST_TMPDIR/mon"
	ev=$(tail -1 "$BATS_TEST_TMPDIR/mon")
	[ "$(jq -r .type <<<"$ev")" = vnic_mac_table ]
	[ "$(jq -r .kind <<<"$ev")" = vnic ]
	[ "$(jq .count <<<"$ev")" = 1 ]
	[ "$(jq .mac_tbl_digest <<<"$ev")" = $((0x1234)) ]
	run port_json "$A"
	[ "$(jq .mac_entries <<<"$output")" = 1 ]
	[ "$(jq -r '.mac_table[0].mac' <<<"$output")" = 00:aa:bb:cc:dd:02 ]
	[ "$(jq '.mac_table[0].dlid' <<<"$output")" = 2 ]
	# Frames to that MAC now go to B: it counts them received (B's host then ignores them).
	local rx zero
	rx=$(counter "$B" rx_unicast) zero=$(counter "$A" tx_dlid_zero)
	ip -n "$NS_A" neigh replace 192.168.77.20 lladdr 00:aa:bb:cc:dd:02 dev vnic0
	ip netns exec "$NS_A" ping -c 2 -i 0.2 -W 1 192.168.77.20 || true
	[ "$(counter "$B" rx_unicast)" -ge $((rx + 2)) ]
	[ "$(counter "$A" tx_dlid_zero)" = "$zero" ]
}

@test "the host taking its interface down and up sends link-status traps to the manager" {
	em wait-trap 6000 3 0 >"$BATS_TEST_TMPDIR/trap" &
	local emp=$!
	sleep 0.3
	ip -n "$NS_B" link set vnic0 down
	wait "$emp"
	run jq -r '.type + " " + .opcode_name + " " + (.issuer_lid|tostring) + " " + (.veswid|tostring) + " " + (.veswportnum|tostring)' \
		"$BATS_TEST_TMPDIR/trap"
	assert_output --partial "trap eth_link_status_change 2 1 12"
	# The manager reads the port as down now.
	run em get-port 2 0
	[ "$(jq .eth_link_status <<<"$output")" = 2 ]
	[ "$(jq .oper_state <<<"$output")" = 1 ]
	ip -n "$NS_B" link set vnic0 up
	ip -n "$NS_B" addr replace 192.168.77.2/24 dev vnic0
	run em get-port 2 0
	[ "$(jq .eth_link_status <<<"$output")" = 1 ]
	[ "$(fabric_json "$B" | jq .traps_sent)" -ge 2 ]
}

@test "the host changing its MAC sends a unicast-MAC trap; the monitor tells traps and states" {
	monitor_start "$BATS_TEST_TMPDIR/mon" -s "$B/io.rdmad" -j monitor --type vnic_trap --type vnic_state
	em wait-trap 6000 1 0 >"$BATS_TEST_TMPDIR/trap" &
	local emp=$!
	sleep 0.3
	ip -n "$NS_B" link set vnic0 address 02:10:00:02:00:99
	wait "$emp"
	[ "$(jq -r .opcode_name "$BATS_TEST_TMPDIR/trap")" = iface_ucast_mac_change ]
	run em get-port 2 0
	[ "$(jq .uc_macs_gen_count <<<"$output")" -ge 1 ]
	ip -n "$NS_B" link set vnic0 address "$(lmac 2)"
	ip -n "$NS_B" link set vnic0 down
	ip -n "$NS_B" link set vnic0 up
	ip -n "$NS_B" addr replace 192.168.77.2/24 dev vnic0
	wait_for_lines "$BATS_TEST_TMPDIR/mon" 4
	monitor_stop "$BATS_TEST_TMPDIR/mon"
	run cat "$BATS_TEST_TMPDIR/mon"
	assert_output --partial '"trap":"ucast_mac_change","result":"sent"'
	assert_output --partial '"type":"vnic_state"'
	assert_output --partial '"new_state":"drop_all","passing":false'
}

@test "the host joining a multicast group sends a multicast-MAC trap and moves the gen count" {
	local gen
	gen=$(em get-port 2 0 | jq .mc_macs_gen_count)
	em wait-trap 6000 2 0 >"$BATS_TEST_TMPDIR/trap" &
	local emp=$!
	sleep 0.3
	ip -n "$NS_B" maddr add 01:00:5e:01:02:03 dev vnic0
	wait "$emp"
	[ "$(jq -r .opcode_name "$BATS_TEST_TMPDIR/trap")" = iface_mcast_mac_change ]
	[ "$(jq .veswportindex "$BATS_TEST_TMPDIR/trap")" = 0 ]
	[ "$(em get-port 2 0 | jq .mc_macs_gen_count)" -gt "$gen" ]
	# The manager reads the interface's multicast list, the new group in it.
	run em get-mcast 2 0
	assert_success
	assert_output --partial "01:00:5e:01:02:03"
	ip -n "$NS_B" maddr del 01:00:5e:01:02:03 dev vnic0
}

@test "a capture of the fabric decodes: the MADs (recipe A) and the inner Ethernet (recipe B)" {
	command -v dumpcap >/dev/null || skip "needs dumpcap (tshark)"
	local cap=$BATS_TEST_TMPDIR/fabric.pcapng
	# No capture filter: a 2048-byte MAD arrives in IP fragments, and only the first has a UDP header.
	ip netns exec "$NS_B" dumpcap -q -i "$VETH_B" -w "$cap" 2>/dev/null &
	local dp=$!
	for i in $(seq 1 50); do [ -s "$cap" ] && break; sleep 0.1; done
	sleep 0.3
	em get-port 2 0 >/dev/null
	ping_ok "$NS_A" 192.168.77.2 2 >/dev/null
	sleep 0.3
	kill -INT "$dp"
	wait "$dp" || true
	run python3 "$TOP/tests/tools/fabric-pcap.py" --mads "$BATS_TEST_TMPDIR/a.pcap" \
		--frames "$BATS_TEST_TMPDIR/b.pcap" "$cap"
	assert_success
	# Recipe A: the Get and its GetResp, class 0x34, as Wireshark's OPA MAD dissector reads them.
	run --separate-stderr tshark -r "$BATS_TEST_TMPDIR/a.pcap" -Y 'opa.mad.mgmtclass == 0x34' -T fields \
		-e opa.mad.method -e opa.9b.dlid -e opa.deth.q_key
	assert_success
	assert_line --regexp '^0x0*1	0x0*2	0x80010000$'
	assert_line --regexp '^0x0*81	0x0*64	0x80010000$'
	# Recipe B: the Ethernet frames inside the 16B packets, ICMP between the two interfaces.
	run --separate-stderr tshark -o 'uat:user_dlts:"User 0 (DLT=147)","eth_withoutfcs","20","","0",""' \
		-r "$BATS_TEST_TMPDIR/b.pcap" -Y icmp -T fields -e eth.src -e eth.dst -e ip.dst
	assert_success
	assert_line "$(lmac 1)	$(lmac 2)	192.168.77.2"
	assert_line "$(lmac 2)	$(lmac 1)	192.168.77.1"
	# The 16B header as our dissector reads it: L4 0x78, vesw 1, the P_Key, SLID/DLID.
	run --separate-stderr tshark -X "lua_script:$TOP/tests/tools/opa16b.lua" -r "$BATS_TEST_TMPDIR/b.pcap" \
		-Y 'icmp && ip.dst == 192.168.77.2' -T fields -e opa16b.slid -e opa16b.dlid \
		-e opa16b.veswid -e opa16b.pkey -e opa16b.l4
	assert_success
	assert_line --regexp '^0x0*1	0x0*2	(0x0*1|1)	0x8001	0x78$'
}

@test "the ports and their configuration survive a restart and a kill -9" {
	local before after
	before=$(port_json "$A" | jq -c 'del(.admin_up, .carrier, .oper_state, .eth_link_status, .passing, .mtu, .worker, .uc_macs_gen_count, .mc_macs_gen_count)')
	rdmad_stop "$A"
	ns_rdmad_start "$NS_A" "$A"
	after=$(port_json "$A" | jq -c 'del(.admin_up, .carrier, .oper_state, .eth_link_status, .passing, .mtu, .worker, .uc_macs_gen_count, .mc_macs_gen_count)')
	[ "$before" = "$after" ]
	rdmad_kill9 "$A"
	ns_rdmad_start "$NS_A" "$A"
	after=$(port_json "$A" | jq -c 'del(.admin_up, .carrier, .oper_state, .eth_link_status, .passing, .mtu, .worker, .uc_macs_gen_count, .mc_macs_gen_count)')
	[ "$before" = "$after" ]
	# The interface came back with the manager's MAC; the host sets it up again, as after a reboot.
	[ "$(ip netns exec "$NS_A" cat /sys/class/net/vnic0/address)" = "$(lmac 1)" ]
	vnic_ip "$NS_A" 192.168.77.1
	run ping_ok "$NS_A" 192.168.77.2
	assert_success
}

@test "reload reads the fabric map again" {
	echo "fabric_node.7 = 10.231.0.7:4795" >>"$A/rdmad.conf"
	run ctl "$A" daemon reload
	assert_success
	run fabric_json "$A"
	[ "$(jq -c '.nodes[] | select(.lid == 7) | .addresses' <<<"$output")" = '["10.231.0.7:4795"]' ]
	run ctl "$A" vnic fabric
	assert_output --partial "lid 7 addresses 10.231.0.7:4795"
}

@test "bad fabric settings are refused naming the key" {
	local dir=$BATS_TEST_TMPDIR/bad
	mkdir -p "$dir"
	printf 'fabric_lid = 1\nfabric_node.2 = 10.0.0.1:99999\n' >"$dir/rdmad.conf"
	run "$RDMAD" --foreground --socket "$dir/s" --state-dir "$dir/st" --config "$dir/rdmad.conf"
	assert_failure
	assert_output --partial "rdmad.conf:2: fabric_node.2: '10.0.0.1:99999' is not an address"
	printf 'fabric_lid = 0xc000\n' >"$dir/rdmad.conf"
	run "$RDMAD" --foreground --socket "$dir/s" --state-dir "$dir/st" --config "$dir/rdmad.conf"
	assert_failure
	assert_output --partial "fabric_lid: '0xc000' is not a unicast LID (1 to 0xbfff)"
	printf 'fabric_node.2 = 10.0.0.1:4795\n' >"$dir/rdmad.conf"
	run "$RDMAD" --foreground --socket "$dir/s" --state-dir "$dir/st" --config "$dir/rdmad.conf"
	assert_failure
	assert_output --partial "need fabric_lid"
}

@test "a port handle out of range is refused naming it, and changes nothing" {
	run ctl "$A" vnic show 300
	assert_failure
	assert_output --partial "handle"
	run ctl "$A" -j vnic counters abc
	assert_failure 2
	assert_output --partial "PORT: 'abc' is not a number in 0-255"
	run ctl "$A" -j vnic show 0
	assert_success
}

@test "without a fabric the device has no OPA port, and rdmactl says so" {
	run ctl "$A" -j vnic show 7
	assert_failure
	assert_output --partial '"kind":"vnic"'
	local dir=$BATS_TEST_TMPDIR/none
	rdmad_start "$dir"
	run "$RDMACTL" vnic fabric
	assert_failure
	assert_output --partial "fabric"
	run "$RDMACTL" -j vnic list
	assert_success
	assert_output '[]'
	rdmad_stop "$dir"
}
