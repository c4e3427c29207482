#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# The VEMA agent of rdmad A (LID 1) as the Ethernet Manager simulator (LID 100)
# and hand-built datagrams see it over the software fabric: the MAD core's
# filter, the reply frame, every attribute and the status matrix (reference
# opa_vnic.md §1.3, §1.4, §2, §7.1-7.5), the OPA port's counters (`rdmactl
# vnic fabric`) and the fabric's drops (docs/opa-fabric.md).  Expected values
# come from the reference, byte for byte where the raw command shows bytes.
# Ping, traps, port counters, persistence and pcap are vnic.bats'.

load helper
load vnic-helper

setup_file() {
	vnic_require
	vnic_fabric_setup
}
teardown_file() { vnic_fabric_teardown; }
setup() { load_libs; }

# ---- helpers ----

# jqe FILTER: $output (one JSON value) satisfies FILTER; shows it if not.
jqe() {
	jq -e "$1" <<<"$output" >/dev/null || {
		echo "jq -e '$1' failed on: $output" >&2
		return 1
	}
}

# hdr METHOD ATTR MOD [TID] [BASE CLASS CVER OUI]: a 40-byte MAD header as hex
# (§1.2), status, class_specific, resv and the RMPP header zero.
hdr() {
	printf '%02x%02x%02x%02x00000000%016x%04x0000%08x%024d00%s' "${5:-0x80}" "${6:-0x34}" \
		"${7:-0x80}" "$1" "${4:-0x0102030405060708}" "$2" "$3" 0 "${8:-00066a}"
}

# zeros N: N zero bytes as hex.
zeros() { printf '%0*d' $((2 * $1)) 0; }

# pat N MUL ADD: N bytes, byte i = (MUL i + ADD) mod 256, as hex.
pat() {
	python3 -c 'import sys; n, m, a = map(int, sys.argv[1:]); print(bytes((m * i + a) % 256 for i in range(n)).hex())' "$@"
}

# splice HEX OFFSET BYTES: HEX with the bytes at OFFSET replaced by BYTES (hex).
splice() {
	local hex=$1 off=$(($2 * 2)) b=$3
	echo "${hex:0:off}$b${hex:off+${#b}}"
}

# raw HEX...: the MAD to rdmad A, its reply line.  A Set is answered once
# vnic.json is fsynced (decisions.md), which a loaded host can take a while to do.
raw() { em --timeout 3000 raw 1 "$@"; }

# raw_unanswered HEX...: raw, for a MAD that should get no reply (a short wait).
raw_unanswered() { em --timeout 300 raw 1 "$@"; }

# fabric_json: rdmad A's OPA port.
fabric_json() { ctl "$A" -j vnic fabric | jq -c '.[0]'; }

# delta BEFORE AFTER KEY: how much KEY grew.
delta() {
	echo $(($(jq ".$3" <<<"$2") - $(jq ".$3" <<<"$1")))
}

# status_of METHOD ATTR VPORT [DATA...]: the status of a full 2048-byte
# request (DATA, hex, then zeros), "-" without a reply; also checks the reply
# is a 2048-byte GetResp.
status_of() {
	local out data
	data=$(IFS=; echo "${*:4}")
	out=$(raw "$(hdr "$1" "$2" "$3")$data$(zeros $((2008 - ${#data} / 2)))") || return 1
	jq -e '.reply == null or (.mad_len == 2048 and .method == 129)' <<<"$out" >/dev/null || {
		echo "bad reply: $out" >&2
		return 1
	}
	if jq -e '.reply == null' <<<"$out" >/dev/null; then
		echo -
	else
		printf '0x%04x\n' "$(jq .status <<<"$out")"
	fi
}

# ---- the MAD core's filter (§1.3, §7.1) ----

@test "filter: base version 1 gets no reply, and is counted dropped" {
	before=$(fabric_json)
	run raw_unanswered "$(hdr 1 0x11 0 0x1111 0x01)$(zeros 2008)"
	assert_success
	jqe '.reply == null'
	after=$(fabric_json)
	assert_equal "$(delta "$before" "$after" mads_received)" 1
	assert_equal "$(delta "$before" "$after" mads_dropped)" 1
	assert_equal "$(delta "$before" "$after" mads_answered)" 0
}

@test "filter: class version 0x01, a wrong OUI, class 0x81: 24-byte GetResp 0x000C echoing the common header" {
	local args h
	for args in "1 0x11 3 0x2222 0x80 0x34 0x01 00066a" \
		"1 0x11 3 0x2223 0x80 0x34 0x80 00066b" \
		"2 0x11 3 0x2224 0x80 0x34 0x80 001175" \
		"1 0x11 3 0x2225 0x80 0x81 0x80 00066a" \
		"2 0x01 0 0x2226 0x80 0x81 0x80 000000"; do
		h=$(hdr $args)
		run raw "$h$(zeros 2008)"
		assert_success
		jqe '.mad_len == 24 and .method == 129 and .status == 12 and .slid == 1 and .dlid == 100'
		# Bytes 0-23 of the request, method 0x81, status 0x000C.
		assert_equal "$(jq -r .reply <<<"$output")" "${h:0:6}81000c${h:12:36}"
	done
	# None of them created vport 3.
	run ctl "$A" -j vnic list
	assert_success
	jqe 'map(select(.handle == 3)) == []'
}

@test "filter: Send, Trap, GetResp, Report and TrapRepress get no reply" {
	local m
	before=$(fabric_json)
	for m in 0x03 0x05 0x81 0x06 0x07; do
		run raw_unanswered "$(hdr $m 0x11 0 $((0x3300 + m)))$(zeros 2008)"
		assert_success
		jqe '.reply == null'
	done
	after=$(fabric_json)
	assert_equal "$(delta "$before" "$after" mads_received)" 5
	assert_equal "$(delta "$before" "$after" mads_dropped)" 5
	assert_equal "$(delta "$before" "$after" mads_answered)" 0
	assert_equal "$(delta "$before" "$after" tx_mads)" 0
}

@test "filter: a Get shorter than 40 bytes has no OUI: 24-byte GetResp 0x000C (decisions.md)" {
	local h
	h=$(hdr 1 0x11 0 0x4444)
	for len in 24 30 39; do
		run raw "${h:0:len*2}"
		assert_success
		jqe '.mad_len == 24 and .method == 129 and .status == 12'
		assert_equal "$(jq -r .reply <<<"$output")" "${h:0:6}81000c${h:12:36}"
	done
}

# ---- the reply frame (§1.4, §7.2) ----

@test "reply: 2048 bytes, the request's 40 bytes echoed, method 0x81, status 0, zero past the attribute" {
	local req want
	# Request status 0x1234, class_specific 0xbeef, TID, resv 0x5a5a, attr_mod
	# 0xabcdef03 (vport 3, absent), RMPP inactive but its other bytes set,
	# reserved byte 36, and junk in the data area a Get does not read.
	req=80348001 req+=1234beef req+=fedcba9876543210 req+=00115a5a req+=abcdef03
	req+=01010000 req+=0000000700000009 req+=a5 req+=00066a
	req+=$(pat 2008 13 1)
	run raw "$req"
	assert_success
	jqe '.mad_len == 2048 and .method == 129 and .status == 0'
	jqe '.slid == 1 and .dlid == 100'
	# Power-on defaults (§2.3): eth_mtu 1500 at 148, config_state and
	# oper_state 1 at 166/167, max_mac_tbl_ent 2048, max_smac_ent 256; zero
	# elsewhere, and zero to byte 2047.
	want=${req:0:6}810000${req:12:68}
	want+=$(zeros 148)05dc$(zeros 16)0101080001$(zeros 1)$(zeros 108)
	want+=$(zeros $((2008 - 280)))
	assert_equal "$(jq -r .reply <<<"$output")" "$want"
	# The reply keeps the request's SL and P_Key (docs/opa-fabric.md).
	run em --sl 3 --pkey 0x8001 --timeout 300 raw 1 "$req"
	assert_success
	jqe '.status == 0 and .sl == 3 and .pkey == 32769 and .slid == 1 and .dlid == 100'
}

# ---- ClassPortInfo (§2.2) ----

@test "ClassPortInfo: Get forces 80 80 ff 01 00 00 00 12; Set stores the block, trap_lid and SL included" {
	local data h want
	run raw "$(hdr 1 0x01 0x12345678)$(zeros 2008)"
	assert_success
	jqe '.status == 0 and .mad_len == 2048'
	assert_equal "$(jq -r '.reply[80:96]' <<<"$output")" 8080ff0100000012
	# Every byte set, the forced ones to other values; trap_lid 2 (rdmad B
	# drops traps), byte 76 = SL 5 << 3 | 3.
	data=$(pat 80 29 7)
	data=$(splice "$data" 60 00000002)
	data=$(splice "$data" 76 2b)
	h=$(hdr 2 0x01 0x99)
	run raw "$h$data$(zeros 1928)"
	assert_success
	jqe '.status == 0 and .mad_len == 2048 and .method == 129'
	want=8080ff0100000012${data:16}
	assert_equal "$(jq -r '.reply' <<<"$output")" "${h:0:6}810000${h:12}$want$(zeros 1928)"
	# A Get (another attr_mod) returns the stored block.
	run raw "$(hdr 1 0x01 0)$(zeros 2008)"
	assert_success
	assert_equal "$(jq -r '.reply[80:]' <<<"$output")" "$want$(zeros 1928)"
	run em get-cpi 1
	assert_success
	jqe '.trap_lid == 2 and .trap_sl == 5 and .cap_mask == 65281 and .cap_mask2_resp_time == 18'
	run ctl "$A" -j vnic fabric
	assert_success
	jqe '.[0].trap_lid == 2 and .[0].trap_sl == 5'
	# Traps nowhere again for the rest of the file.
	run em set-cpi 1 trap_lid=0 trap_sl=0
	assert_success
	jqe '.trap_lid == 0'
}

# ---- VESWPortInfo (§2.3) ----

@test "VESWPortInfo: Get of an absent vport is the POD block, status 0, and creates nothing" {
	run em get-port 1 42
	assert_success
	jqe '.status == 0 and .vport == 42'
	jqe '.fabric_id == 0 and .vesw_id == 0 and .def_port_mask == 0 and .pkey == 0 and .u_mcast_dlid == 0'
	jqe '.u_ucast_dlid == [range(16) | 0] and .rc == 0 and .eth_mtu == 1500 and .port_num == 0'
	jqe '.eth_link_status == 0 and .base_mac_addr == "00:00:00:00:00:00" and .config_state == 1'
	jqe '.oper_state == 1 and .max_mac_tbl_ent == 2048 and .max_smac_ent == 256'
	jqe '.mac_tbl_digest == 0 and .encap_slid == 0 and .uc_macs_gen_count == 0 and .mc_macs_gen_count == 0'
	run ctl "$A" -j vnic list
	assert_success
	jqe 'map(select(.handle == 42)) == []'
}

@test "VESWPortInfo: Set creates vnic4; every writable field reads back, read-only ones keep real values" {
	local set="fabric_id=0x301 vesw_id=0x123 def_port_mask=0x8005 pkey=0x8001
		u_mcast_dlid=0xf00001 u_ucast_dlid=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0xfffffe
		rc=0x12345678 eth_mtu=9000 port_num=0x01020304 base_mac=02:11:22:33:44:55
		config_state=forwarding encap_slid=0xabcdef pcp_to_sc_uc=1,2,3,4,5,6,7,8
		pcp_to_vl_uc=0,1,2,3,4,5,6,7 pcp_to_sc_mc=9,10,11,12,13,14,15,16
		pcp_to_vl_mc=7,6,5,4,3,2,1,0 non_vlan_sc_uc=17 non_vlan_vl_uc=2
		non_vlan_sc_mc=18 non_vlan_vl_mc=3
		eth_link_status=7 oper_state=9 max_mac_tbl_ent=5 max_smac_ent=6
		mac_tbl_digest=0xdead uc_macs_gen_count=77 mc_macs_gen_count=88"
	local fields='.fabric_id == 769 and .vesw_id == 291 and .def_port_mask == 32773 and
		.pkey == 32769 and .u_mcast_dlid == 15728641 and
		.u_ucast_dlid == [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16777214] and
		.rc == 305419896 and .eth_mtu == 9000 and .port_num == 16909060 and
		.encap_slid == 11259375 and .pcp_to_sc_uc == [1,2,3,4,5,6,7,8] and
		.pcp_to_vl_uc == [0,1,2,3,4,5,6,7] and .pcp_to_sc_mc == [9,10,11,12,13,14,15,16] and
		.pcp_to_vl_mc == [7,6,5,4,3,2,1,0] and .non_vlan_sc_uc == 17 and
		.non_vlan_vl_uc == 2 and .non_vlan_sc_mc == 18 and .non_vlan_vl_mc == 3 and
		.mac_tbl_digest == 0 and .uc_macs_gen_count == 0 and .mc_macs_gen_count == 0'
	# shellcheck disable=SC2086
	run em set-port 1 4 $set
	assert_success
	jqe "$fields"
	jqe '.base_mac_addr == "02:11:22:33:44:55" and .config_state == 3'
	# Read-only (§2.3): the host has not opened vnic4, so DROP_ALL / link down (§5.1).
	jqe '.eth_link_status == 2 and .oper_state == 1 and .max_mac_tbl_ent == 2048 and .max_smac_ent == 256'
	run em get-port 1 4
	assert_success
	jqe "$fields"
	jqe '.base_mac_addr == "02:11:22:33:44:55" and .config_state == 3 and .eth_link_status == 2 and .oper_state == 1'
	run ctl "$A" -j vnic list
	assert_success
	jqe 'map(select(.handle == 4)) | length == 1'
	jqe '.[] | select(.handle == 4) | .netdev == "vnic4" and .port == 1'
	run ctl "$A" -j vnic show 4
	assert_success
	jqe ".[0] | $fields"
	jqe '.[0] | .base_mac == "02:11:22:33:44:55" and .config_state == "forwarding" and
		.oper_state == "drop_all" and .eth_link_status == "down" and .admin_up == false and
		.mac_entries == 0 and .mac_table == []'
	# The interface exists in rdmad's namespace with the EM's MAC.
	run ip -n "$NS_A" -j link show vnic4
	assert_success
	jqe '.[0].address == "02:11:22:33:44:55"'
}

@test "VESWPortInfo: a vport that cannot be made is 0x001C (name taken by a veth, or by the host's own TAP)" {
	# rdmad names the interface vnic<N>: an interface of that name that is not
	# its own is a creation failure (§2.3 step 1), not one to take over.
	ip -n "$NS_A" link add vnic11 type veth peer name vnic11p
	ip -n "$NS_A" tuntap add dev vnic12 mode tap
	ip -n "$NS_A" link set vnic12 mtu 9000 address 02:00:00:00:12:12
	for v in 11 12; do
		run -1 --separate-stderr em set-port 1 $v vesw_id=$v base_mac=02:00:00:00:00:$v
		jqe '.status == 28 and .mad_len == 2048'
	done
	run ctl "$A" -j vnic list
	assert_success
	jqe 'map(select(.handle == 11 or .handle == 12)) == []'
	# The host's TAP is as the host left it.
	run ip -n "$NS_A" -j -d link show vnic12
	assert_success
	jqe '.[0].address == "02:00:00:00:12:12" and .[0].mtu == 9000 and .[0].linkinfo.info_data.persist == true'
	ip -n "$NS_A" link del vnic11
	ip -n "$NS_A" tuntap del dev vnic12 mode tap
}

@test "VESWPortInfo: a raw Set stores all 280 bytes, reserved ones too, and ignores the read-only ones" {
	local data want h
	run em set-port 1 5 vesw_id=5 base_mac=02:00:00:00:05:05
	assert_success
	run em set-macs 1 5 0 0xfeedbeef 02:00:00:00:00:01=7
	assert_success
	# byte i = 37 i + 11, then fields whose range matters set to sane values.
	data=$(pat 280 37 11)
	data=$(splice "$data" 0 0301)                 # fabric_id
	data=$(splice "$data" 2 0123)                 # vesw_id
	data=$(splice "$data" 148 2328)               # eth_mtu 9000
	data=$(splice "$data" $((152 + 8)) 02a0b0c0d0e0)   # base_mac_addr
	data=$(splice "$data" $((152 + 14)) 03)       # config_state FORWARDING
	data=$(splice "$data" $((152 + 28)) 00abcdef) # encap_slid
	# Read-only fields with values they cannot have.
	data=$(splice "$data" $((152 + 4)) 77)        # eth_link_status
	data=$(splice "$data" $((152 + 15)) 66)       # oper_state
	data=$(splice "$data" $((152 + 16)) 11112222) # max_mac_tbl_ent, max_smac_ent
	data=$(splice "$data" $((152 + 20)) 33333333) # mac_tbl_digest
	data=$(splice "$data" $((152 + 116)) 44445555) # uc/mc gen counts
	h=$(hdr 2 0x11 5 0x5555)
	run raw "$h$data$(zeros 1728)"
	assert_success
	jqe '.status == 0 and .mad_len == 2048 and .method == 129'
	# The real ones: link down, DROP_ALL (vnic5 is not up), 2048, 256, the
	# digest of the MAC-table Set, gen counts 0.
	want=$(splice "$data" $((152 + 4)) 02)
	want=$(splice "$want" $((152 + 15)) 01)
	want=$(splice "$want" $((152 + 16)) 08000100)
	want=$(splice "$want" $((152 + 20)) feedbeef)
	want=$(splice "$want" $((152 + 116)) 00000000)
	assert_equal "$(jq -r .reply <<<"$output")" "${h:0:6}810000${h:12}$want$(zeros 1728)"
	run raw "$(hdr 1 0x11 5)$(zeros 2008)"
	assert_success
	assert_equal "$(jq -r '.reply[80:]' <<<"$output")" "$want$(zeros 1728)"
	run ctl "$A" -j vnic show 5
	assert_success
	jqe '.[0] | .fabric_id == 769 and .vesw_id == 291 and .eth_mtu == 9000 and
		.base_mac == "02:a0:b0:c0:d0:e0" and .encap_slid == 11259375 and
		.config_state == "forwarding" and .mac_tbl_digest == 4276993775 and .mac_entries == 1'
}

@test "VESWPortInfo: a Set shorter than the attribute writes zeros where it carries nothing (decisions.md)" {
	run em set-port 1 8 vesw_id=8 encap_slid=8 pkey=0x8001 port_num=8 config_state=forwarding
	assert_success
	# 40 + 10 bytes: fabric_id 0x0011, vesw_id 0x0022, the rest absent.
	run raw "$(hdr 2 0x11 8)001100220000000000aa"
	assert_success
	jqe '.status == 0 and .mad_len == 2048'
	run em get-port 1 8
	assert_success
	jqe '.fabric_id == 17 and .vesw_id == 34 and .encap_slid == 0 and .pkey == 0 and
		.port_num == 0 and .config_state == 0 and .eth_mtu == 0 and .max_mac_tbl_ent == 2048'
}

# ---- MAC entries (§2.4) ----

@test "MAC table: Set/Get with block replace, zero MAC deletes, digest stored" {
	run em set-port 1 6 vesw_id=6 base_mac=02:00:00:00:06:06
	assert_success
	run em set-macs 1 6 10 0xfeedbeef 02:00:00:00:00:01=5 02:00:00:00:00:02=6/0x20 \
		02:00:00:00:00:03=0x123456/0x81
	assert_success
	jqe '.status == 0 and .offset == 10 and .num_entries == 3 and .mac_tbl_digest == 4276993775'
	jqe '[.entries[] | [.index, .mac_addr, .mac_addr_mask, .dlid, .sd]] == [
		[10, "02:00:00:00:00:01", "ff:ff:ff:ff:ff:ff", 5, 0],
		[11, "02:00:00:00:00:02", "ff:ff:ff:ff:ff:ff", 6, 32],
		[12, "02:00:00:00:00:03", "ff:ff:ff:ff:ff:ff", 1193046, 129]]'
	run em get-macs 1 6 9 5
	assert_success
	jqe '.offset == 9 and .num_entries == 5 and .mac_tbl_digest == 4276993775'
	jqe '[.entries[] | .mac_addr] == ["00:00:00:00:00:00", "02:00:00:00:00:01",
		"02:00:00:00:00:02", "02:00:00:00:00:03", "00:00:00:00:00:00"]'
	jqe '.entries[0] == {index: 9, mac_addr: "00:00:00:00:00:00", mac_addr_mask: "00:00:00:00:00:00", dlid: 0, sd: 0}'
	# Block [11, 13): 11 emptied by a zero MAC, 12 replaced; 10 is outside.
	run em set-macs 1 6 11 0x1234 00:00:00:00:00:00=0 02:00:00:00:00:09=9
	assert_success
	jqe '.mac_tbl_digest == 4660'
	run em get-macs 1 6 10 3
	assert_success
	jqe '[.entries[] | [.index, .mac_addr, .dlid, .sd]] == [
		[10, "02:00:00:00:00:01", 5, 0], [11, "00:00:00:00:00:00", 0, 0],
		[12, "02:00:00:00:00:09", 9, 0]]'
	jqe '.entries[1].mac_addr_mask == "00:00:00:00:00:00"'
	run ctl "$A" -j vnic show 6
	assert_success
	jqe '.[0].mac_entries == 2 and .[0].mac_tbl_digest == 4660'
	jqe '[.[0].mac_table[] | [.slot, .mac, .dlid, .side_data, .source_mac]] ==
		[[10, "02:00:00:00:00:01", 5, 0, false], [12, "02:00:00:00:00:09", 9, 0, false]]'
	run em get-port 1 6
	assert_success
	jqe '.mac_tbl_digest == 4660'
	# The last entries of the table: offset + num = 2048 is allowed.
	run em get-macs 1 6 1923 125
	assert_success
	jqe '.status == 0 and .num_entries == 125 and (.entries | length) == 125 and .entries[124].index == 2047'
}

@test "MAC table: a raw Set keeps the mask and side data; bit 0x20 marks a source MAC" {
	local d
	run em set-port 1 6 vesw_id=6
	assert_success
	# offset 100, 1 entry, digest 0x0a0b0c0d; MAC, mask, DLID 0x000011, SD 0x20.
	d=0064 d+=0001 d+=0a0b0c0d d+=020000000064 d+=123456789abc d+=00001120
	run raw "$(hdr 2 0x12 6 0x6666)$d$(zeros $((2008 - 24)))"
	assert_success
	jqe '.status == 0 and .mad_len == 2048'
	assert_equal "$(jq -r '.reply[80:]' <<<"$output")" "$d$(zeros $((2008 - 24)))"
	run ctl "$A" -j vnic show 6
	assert_success
	jqe '.[0].mac_table[] | select(.slot == 100) | .mac == "02:00:00:00:00:64" and
		.mask == "12:34:56:78:9a:bc" and .dlid == 17 and .side_data == 32 and .source_mac == true'
	jqe '.[0].mac_tbl_digest == 168496141'
}

@test "MAC table: offset + num > 2048 and num > 125 are 0x001C, and change nothing" {
	run em set-port 1 6 vesw_id=6
	assert_success
	run em set-macs 1 6 0 0x77 02:00:00:00:00:0a=10
	assert_success
	run -1 --separate-stderr em get-macs 1 6 2000 49
	jqe '.status == 28 and .mad_len == 2048'
	run -1 --separate-stderr em get-macs 1 6 0 126
	jqe '.status == 28'
	run -1 --separate-stderr em set-macs 1 6 2047 0x88 02:00:00:00:00:0b=11 02:00:00:00:00:0c=12
	jqe '.status == 28'
	# Set of 126 entries (opa-em stops at 125): header offset 0, num 126.
	run raw "$(hdr 2 0x12 6)0000007e00000099$(printf '0200000000%02x0000000000000000%02x00' $(seq 1 125 | sed 's/.*/& &/'))"
	assert_success
	jqe '.status == 28 and .mad_len == 2048 and .method == 129'
	run em get-macs 1 6 0 2
	assert_success
	jqe '.mac_tbl_digest == 119 and .entries[0].mac_addr == "02:00:00:00:00:0a" and .entries[1].dlid == 0'
}

@test "MAC table: all 2048 entries fit (16 Sets of 125 and one of 48)" {
	local args=() e b off n i k
	run em set-port 1 13 vesw_id=13
	assert_success
	for b in $(seq 0 16); do
		off=$((b * 125)) n=125 e=()
		[ $((off + n)) -le 2048 ] || n=$((2048 - off))
		for i in $(seq 0 $((n - 1))); do
			k=$((off + i + 1))
			e+=("02:00:00:00:$(printf '%02x:%02x' $((k >> 8)) $((k & 255)))=$k")
		done
		args+=(set-macs 1 13 "$off" "$b" "${e[@]}" --)
	done
	run em "${args[@]:0:${#args[@]}-1}"
	assert_success
	assert_equal "$(grep -c '"status":0' <<<"$output")" 17
	run ctl "$A" -j vnic show 13
	assert_success
	jqe '.[0].mac_entries == 2048 and .[0].mac_tbl_digest == 16 and
		.[0].mac_table[2047] == {slot: 2047, mac: "02:00:00:00:08:00", mask: "ff:ff:ff:ff:ff:ff",
			dlid: 2048, side_data: 0, source_mac: false}'
	run em get-macs 1 13 1995 10
	assert_success
	jqe '[.entries[] | .dlid] == [1996, 1997, 1998, 1999, 2000, 2001, 2002, 2003, 2004, 2005]'
}

# ---- Interface MAC lists (§2.5) ----

@test "interface lists: unicast leaves out the EM's base MAC; multicast is the kernel's list" {
	local ifindex want
	run em set-port 1 4 base_mac=02:11:22:33:44:55
	assert_success
	run em get-ucast 1 4
	assert_success
	jqe '.status == 0 and .start_idx == 0 and .num_macs_in_msg == 0 and .tot_macs_in_lst == 0 and .macs == []'
	# Multicast: the link-layer list the kernel keeps (/proc/net/dev_mcast).
	ip -n "$NS_A" maddr add 01:00:5e:01:02:03 dev vnic4
	ifindex=$(ip netns exec "$NS_A" cat /sys/class/net/vnic4/ifindex)
	want=$(ip netns exec "$NS_A" awk -v i="$ifindex" '$1 == i { print $5 }' /proc/net/dev_mcast |
		sed 's/../&:/g; s/:$//' | jq -R . | jq -sc .)
	run em get-mcast 1 4
	assert_success
	jqe ".status == 0 and .macs == $want and .tot_macs_in_lst == ($want | length) and .num_macs_in_msg == ($want | length)"
	jqe '.macs | index("01:00:5e:01:02:03") != null'
	# START 1, COUNT 1: the second address only; START past the end: none.
	run em get-mcast 1 4 1 1
	assert_success
	jqe ".start_idx == 1 and .num_macs_in_msg == 1 and .tot_macs_in_lst == ($want | length) and .macs == [$want[1]]"
	run em get-mcast 1 4 50
	assert_success
	jqe ".start_idx == 50 and .num_macs_in_msg == 0 and .tot_macs_in_lst == ($want | length) and .macs == []"
	# A MAC the host set itself is not the EM's: it is listed.
	ip -n "$NS_A" link set vnic4 address 02:99:88:77:66:55
	run em get-ucast 1 4
	assert_success
	jqe '.tot_macs_in_lst == 1 and .num_macs_in_msg == 1 and .macs == ["02:99:88:77:66:55"]'
	ip -n "$NS_A" link set vnic4 address 02:11:22:33:44:55
}

# wait_gen VPORT KEY VALUE: up to 3 s for VESWPortInfo KEY to be VALUE.
wait_gen() {
	for _ in $(seq 1 60); do
		[ "$(em get-port 1 "$1" | jq ".$2")" = "$3" ] && return 0
		sleep 0.05
	done
	return 1
}

@test "interface lists: one host MAC change is one uc_macs_gen_count step, also after a multicast change" {
	local uc0 mc0
	run em set-port 1 14 vesw_id=14 base_mac=02:00:00:00:00:14
	assert_success
	uc0=$(jq .uc_macs_gen_count <<<"$output")
	mc0=$(jq .mc_macs_gen_count <<<"$output")
	# §3.1 (a): the host's MAC change bumps the unicast count once.
	ip -n "$NS_A" link set vnic14 address 02:99:88:77:66:14
	wait_gen 14 uc_macs_gen_count $((uc0 + 1))
	# A multicast join: the multicast count may move (decisions.md: only on a
	# real change), the unicast list did not change: its count stays.
	ip -n "$NS_A" maddr add 01:00:5e:01:02:14 dev vnic14
	wait_gen 14 mc_macs_gen_count $((mc0 + 1)) || true
	run em get-port 1 14
	assert_success
	jqe ".uc_macs_gen_count == $((uc0 + 1))"
	mc=$(jq .mc_macs_gen_count <<<"$output")
	run em get-ucast 1 14
	assert_success
	jqe ".gen_count == $((uc0 + 1)) and .macs == [\"02:99:88:77:66:14\"]"
	run em get-mcast 1 14
	assert_success
	jqe ".gen_count == $mc"
}

# ---- Delete VESW (§2.6) ----

@test "Delete VESW: POD values, vport kept, MAC table released (digest 0)" {
	run em set-port 1 9 vesw_id=9 base_mac=02:00:00:00:09:09 encap_slid=9 pkey=0x8001 \
		config_state=forwarding u_mcast_dlid=0xf00001 u_ucast_dlid.3=77 port_num=9 eth_mtu=9000
	assert_success
	run em set-macs 1 9 0 0xabcdef01 02:00:00:00:00:01=1 02:00:00:00:00:02=2
	assert_success
	run em delete-port 1 9
	assert_success
	jqe '.status == 0 and .mad_len == 2048'
	jqe '.vesw_id == 0 and .base_mac_addr == "00:00:00:00:00:00" and .config_state == 1 and
		.oper_state == 1 and .eth_link_status == 2 and .encap_slid == 0 and .pkey == 0 and
		.u_mcast_dlid == 0 and .u_ucast_dlid == [range(16) | 0] and .port_num == 0 and
		.eth_mtu == 1500 and .mac_tbl_digest == 0 and .max_mac_tbl_ent == 2048 and .max_smac_ent == 256'
	run ctl "$A" -j vnic list
	assert_success
	jqe '.[] | select(.handle == 9) | .netdev == "vnic9" and .vesw_id == 0 and .mac_entries == 0 and .mac_tbl_digest == 0'
	run em get-macs 1 9 0 2
	assert_success
	jqe '.mac_tbl_digest == 0 and [.entries[].mac_addr] == ["00:00:00:00:00:00", "00:00:00:00:00:00"]'
	# The reply keeps attr_id 0x0015 and is laid out as VESWPortInfo.
	run raw "$(hdr 2 0x15 9 0x1515)$(zeros 2008)"
	assert_success
	jqe '.status == 0 and .mad_len == 2048'
	assert_equal "$(jq -r '.reply[32:36]' <<<"$output")" 0015
	assert_equal "$(jq -r '.reply[80:640]' <<<"$output")" \
		"$(zeros 148)05dc$(zeros 6)02$(zeros 9)0101080001$(zeros 1)$(zeros 108)"
}

# ---- counters (§2.7, §2.8) ----

@test "counters: 0x0020 and 0x0022 on an existing vport, vp_instance = index" {
	run em get-counters 1 4
	assert_success
	jqe '.status == 0 and .vp_instance == 4 and .vesw_id == 291 and .veswport_num == 1'
	jqe '.tx_errors == 0 and .rx_errors == 0 and .tx_packets == 0 and .rx_packets == 0'
	run em get-errors 1 4
	assert_success
	jqe '.status == 0 and .vp_instance == 4 and .vesw_id == 291 and .veswport_num == 1'
	jqe '.tx_smac_filt == 0 and .rx_eth_down == 0 and .tx_dlid_zero == 0'
	# attr_mod 0x7700_0104 addresses vport 4; vp_instance is the index, 4.
	for attr in 0x20:360 0x22:304; do
		run raw "$(hdr 1 ${attr%:*} 0x77000104)$(zeros 2008)"
		assert_success
		jqe '.status == 0 and .mad_len == 2048'
		assert_equal "$(jq -r '.reply[80:96]' <<<"$output")" 0004012300000001
		# Zero past the attribute.
		assert_equal "$(jq -r ".reply[$((80 + 2 * ${attr#*:})):]" <<<"$output")" \
			"$(zeros $((2008 - ${attr#*:})))"
	done
}

# ---- the status matrix (§2.9) ----

@test "status matrix: absent vports, read-only attributes, unknown attributes" {
	local cells cell m a v want args=() i=0
	# METHOD ATTR VPORT STATUS; vport 200 never exists, vport 4 does (made above).
	cells=("1 0x12 200 28" "2 0x12 200 28" "1 0x13 200 28" "1 0x14 200 28"
		"2 0x13 200 12" "2 0x14 200 12" "2 0x13 4 12" "2 0x14 4 12"
		"1 0x15 200 12" "1 0x15 4 12" "2 0x15 200 28"
		"1 0x20 200 28" "1 0x22 200 28" "2 0x20 200 12" "2 0x22 200 12"
		"2 0x20 4 12" "2 0x22 4 12" "1 0x02 0 12" "2 0x02 0 12"
		"1 0x0099 4 12" "2 0x0099 4 12" "1 0x0099 200 12" "1 0x01 200 0" "1 0x11 200 0")
	# One opa-em run, one raw request per cell, one reply line each, in order.
	for cell in "${cells[@]}"; do
		read -r m a v want <<<"$cell"
		args+=(raw 1 "$(hdr "$m" "$a" "$v" $((0x9900 + i++)))$(zeros 2008)" --)
	done
	run em --timeout 300 "${args[@]:0:${#args[@]}-1}"
	assert_success
	assert_equal "${#lines[@]}" "${#cells[@]}"
	for i in "${!cells[@]}"; do
		read -r m a v want <<<"${cells[$i]}"
		output=${lines[$i]} jqe ".mad_len == 2048 and .method == 129 and .status == $want" || {
			echo "method $m attr $a vport $v: want status $want" >&2
			return 1
		}
	done
	# A MAC-table Set (with entries) on the absent vport made nothing.
	run status_of 2 0x12 201 "0000" "0001" "00000001" "020000000001" "ffffffffffff" "00000100"
	assert_output 0x001c
	run ctl "$A" -j vnic list
	assert_success
	jqe 'map(select(.handle >= 200)) == []'
}

# ---- the OPA port's counters (`rdmactl vnic fabric`) ----

@test "vnic fabric -j: LID, address, the map, and the MADs sent here counted" {
	run ctl "$A" -j vnic fabric
	assert_success
	jqe '.[0] | .lid == 1 and .port == 1 and .transport == "fabric" and .address == "10.231.0.1:4795"'
	# The node's own address is left out of every route (decisions.md "Map").
	jqe '.[0].nodes == [{lid: 1, addresses: []}, {lid: 2, addresses: ["10.231.0.2:4795"]},
		{lid: 100, addresses: ["10.231.0.1:4796"]}, {lid: 15728641, addresses: ["10.231.0.2:4795"]}]'
	run ctl "$A" -j vnic list
	jqe "length == $(fabric_json | jq .vnics)"
	before=$(fabric_json)
	run em get-cpi 1 -- get-port 1 0
	assert_success
	run raw "$(hdr 1 0x11 0 0x77 0x80 0x34 0x80 00066b)$(zeros 2008)"   # no agent
	assert_success
	run raw "$(hdr 1 0x11 0 0x78 0x01)$(zeros 2008)"                    # base 1
	assert_success
	run raw "$(hdr 5 0x02 0 0x79)$(zeros 2008)"                         # a Trap
	assert_success
	after=$(fabric_json)
	assert_equal "$(delta "$before" "$after" rx_datagrams)" 5
	assert_equal "$(delta "$before" "$after" rx_mads)" 5
	assert_equal "$(delta "$before" "$after" mads_received)" 5
	assert_equal "$(delta "$before" "$after" mads_answered)" 3
	assert_equal "$(delta "$before" "$after" mads_unmatched)" 1
	assert_equal "$(delta "$before" "$after" mads_dropped)" 2
	assert_equal "$(delta "$before" "$after" tx_mads)" \
		$((3 + $(delta "$before" "$after" traps_sent)))
	assert_equal "$(delta "$before" "$after" rx_bad_packet)" 0
	assert_equal "$(delta "$before" "$after" tx_no_route)" 0
}

# ---- the fabric's own drops (docs/opa-fabric.md) ----

# fabric_send KIND...: python3 in namespace A, as LID 100 (bound to its
# address, 10.231.0.1:4796), sends one datagram per KIND to rdmad A and prints
# one line per datagram received within 0.5 s after each: its length, its
# type byte, and the 9B fields "dlid slid method status icrc_ok".
fabric_send() {
	ip netns exec "$NS_A" python3 - "$@" <<'PY'
import socket, struct, sys, zlib

def mad(method=1, attr=0x11, mod=0, tid=0x0102030405060708):
    hdr = struct.pack('>BBBBHHQHHI', 0x80, 0x34, 0x80, method, 0, 0, tid, attr, 0, mod)
    return hdr + bytes(13) + b'\x00\x06\x6a' + bytes(2008)

def icrc(body):
    m = bytearray(body)
    m[0] |= 0xf0      # LRH byte 0's SC nibble taken as all ones
    m[8 + 4] = 0xff   # BTH byte 4 taken as all ones
    return struct.pack('<I', zlib.crc32(bytes(m)))

def pkt(m, dlid=1, slid=100, lrh_len=None, dqp=1, qkey=0x80010000, bad_icrc=False):
    pad = (-len(m)) % 4
    n = 8 + 12 + 8 + len(m) + pad + 4
    lrh = bytes([0x00, 0x02]) + struct.pack('>HHH', dlid, lrh_len or n // 4, slid)
    bth = bytes([0x64, pad << 4]) + struct.pack('>HI', 0xffff, dqp) + bytes(4)
    deth = struct.pack('>II', qkey, 1)
    body = lrh + bth + deth + m + bytes(pad)
    c = icrc(body)
    if bad_icrc:
        c = bytes([c[0] ^ 1]) + c[1:]
    return body + c

kinds = {
    'good': lambda: b'\x09' + pkt(mad()),
    'bad-type': lambda: b'\x42' + pkt(mad()),
    'bad-icrc': lambda: b'\x09' + pkt(mad(), bad_icrc=True),
    'bad-qkey': lambda: b'\x09' + pkt(mad(), qkey=0x80010001),
    'bad-length': lambda: b'\x09' + pkt(mad(), lrh_len=100),
    'bad-qp': lambda: b'\x09' + pkt(mad(), dqp=0),
}
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('10.231.0.1', 4796))
s.settimeout(0.5)
for k in sys.argv[1:]:
    s.sendto(kinds[k](), ('10.231.0.1', 4795))
    try:
        r = s.recv(65536)
    except socket.timeout:
        print(k, 'none')
        continue
    p = r[1:]
    dlid, plen, slid = struct.unpack('>HHH', p[2:8])
    m = p[28:-4]
    ok = icrc(p[:-4]) == p[-4:] and plen * 4 == len(p)
    print(k, len(r), r[0], dlid, slid, m[3], struct.unpack('>H', m[4:6])[0], int(ok), m[8:16].hex())
PY
}

@test "fabric: a bad type byte and bad 9B packets are dropped and counted; a good one is answered" {
	before=$(fabric_json)
	run fabric_send good bad-type bad-icrc bad-qkey bad-length bad-qp
	assert_success
	# good: 1 + 28 + 2048 + 4 bytes, type 9, DLID 100, SLID 1, GetResp, status 0,
	# an ICRC by the page's rule, the TID echoed.
	assert_line --index 0 "good 2081 9 100 1 129 0 1 0102030405060708"
	assert_line --index 1 "bad-type none"
	assert_line --index 2 "bad-icrc none"
	assert_line --index 3 "bad-qkey none"
	assert_line --index 4 "bad-length none"
	assert_line --index 5 "bad-qp none"
	after=$(fabric_json)
	assert_equal "$(delta "$before" "$after" rx_datagrams)" 6
	assert_equal "$(delta "$before" "$after" rx_bad_type)" 1
	assert_equal "$(delta "$before" "$after" rx_bad_packet)" 4
	assert_equal "$(delta "$before" "$after" rx_mads)" 1
	assert_equal "$(delta "$before" "$after" mads_received)" 1
	assert_equal "$(delta "$before" "$after" mads_answered)" 1
}

@test "fabric: a MAD from a LID not in the map gets no reply; tx_no_route counts it" {
	before=$(fabric_json)
	run -3 --separate-stderr ip netns exec "$NS_A" "$OPA_EM" --lid 55 --address 10.231.0.1:4797 \
		--node 1=10.231.0.1:4795 --timeout 300 get-cpi 1
	assert_output ""
	after=$(fabric_json)
	assert_equal "$(delta "$before" "$after" rx_mads)" 1
	assert_equal "$(delta "$before" "$after" tx_no_route)" 1
	assert_equal "$(delta "$before" "$after" tx_mads)" 0
	assert_equal "$(delta "$before" "$after" tx_datagrams)" 0
}
