#!/usr/bin/env bats
# GID tables and address handles against a real rdmad: ADD_GID/DEL_GID with
# gid_tbl_len 512 (roce_virtio.md §1.6), GIDs in IPv6 text (IPv4 as
# IPv4-mapped), CREATE_AH with the RFC's ah_attr fields, and the references
# that keep an AH's PD and source GID.

load helper

setup_file() {
	# A lowered cap (rdmad.conf(5)), so that creating up to it stays quick.
	echo "max_ahs = 100" >"$BATS_FILE_TMPDIR/rdmad.conf"
	rdmad_start
	"$RDMACTL" pd create >/dev/null
	"$RDMACTL" pd create >/dev/null
}
teardown_file() { rdmad_stop; }
setup() { load_libs; }

gids() {
	"$RDMACTL" -j gid show | jq -c .
}

ahs() {
	"$RDMACTL" -j ah list | jq -c .
}

assert_refused() {
	assert_failure "$(refusal_status "$1")"
	assert_output --partial "io.rdmad.$1: field '$2'"
}

@test "gid add: IPv6 and IPv4 text, shown in the usual IPv6 form" {
	run "$RDMACTL" -j gid add 0 FE80:0:0::1
	assert_success
	assert_output '[{"ifname":"soft0","ifindex":0,"port":1,"index":0,"gid":"fe80::1","users":0}]'
	run "$RDMACTL" -j gid add 1 192.0.2.1
	assert_output '[{"ifname":"soft0","ifindex":0,"port":1,"index":1,"gid":"::ffff:192.0.2.1","users":0}]'
	run "$RDMACTL" -j gid add 511 ::ffff:198.51.100.7 --port 1
	assert_output --partial '"index":511,"gid":"::ffff:198.51.100.7"'
	run "$RDMACTL" gid show
	assert_success
	assert_line "gid 0: ifname soft0 ifindex 0 port 1 gid fe80::1 users 0"
	assert_line "gid 1: ifname soft0 ifindex 0 port 1 gid ::ffff:192.0.2.1 users 0"
	run "$RDMACTL" -j gid show 1
	assert_output '[{"ifname":"soft0","ifindex":0,"port":1,"index":1,"gid":"::ffff:192.0.2.1","users":0}]'
}

@test "gid add refusals name the field and change nothing" {
	before=$(gids)
	run "$RDMACTL" gid add 512 fe80::9
	assert_refused Gid.InvalidArgument index
	assert_output --partial "0-511 (gid_tbl_len 512)"
	run "$RDMACTL" gid add 0 fe80::9
	assert_refused Gid.InvalidState index
	assert_output --partial "already holds fe80::1"
	run "$RDMACTL" gid add 7 192.0.2.1
	assert_refused Gid.InvalidArgument gid
	assert_output --partial "already at index 1 of port 1"
	run "$RDMACTL" gid add 7 ::
	assert_refused Gid.InvalidArgument gid
	run "$RDMACTL" gid add 7 fe80::1::2
	assert_refused Gid.InvalidArgument gid
	run "$RDMACTL" gid add 7 fe80::9 --port 2
	assert_refused Gid.InvalidArgument port
	run "$RDMACTL" gid add 7
	assert_failure 2
	run "$RDMACTL" gid add x fe80::9
	assert_failure 2
	[ "$(gids)" = "$before" ]
}

@test "gid show of an empty entry, a bad port; gid del of an empty entry" {
	run "$RDMACTL" gid show 5
	assert_failure 1
	assert_output --partial "io.rdmad.Gid.NoSuchObject: kind 'gid', handle '5'"
	run "$RDMACTL" gid show --port 3
	assert_refused Gid.InvalidArgument port
	run "$RDMACTL" gid show --port 0
	assert_refused Gid.InvalidArgument port
	run varlink_raw '{"method":"io.rdmad.Gid.List","parameters":{"port":-1}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"port"}}'
	run varlink_raw '{"method":"io.rdmad.Gid.Del","parameters":{"port":-1,"index":0}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"port"}}'
	run "$RDMACTL" gid del 5
	assert_failure 1
	assert_output --partial "io.rdmad.Gid.NoSuchObject: kind 'gid', handle '5'"
	run "$RDMACTL" gid del 600
	assert_refused Gid.InvalidArgument index
}

@test "ah create: the RFC's fields, defaults, and the references it holds" {
	run "$RDMACTL" -j ah create 1 --dgid 2001:db8::2 --sgid-index 0
	assert_success
	h=$(jq -r '.[0].handle' <<<"$output")
	assert_output "[{\"ifname\":\"soft0\",\"ifindex\":0,\"handle\":$h,\"pd\":1,\"port\":1,\"dgid\":\"2001:db8::2\",\"sgid_index\":0,\"flow_label\":0,\"hop_limit\":64,\"traffic_class\":0,\"dmac\":\"00:00:00:00:00:00\"}]"
	run "$RDMACTL" -j ah create 1 --dgid 203.0.113.5 --sgid-index 1 --port 1 --flow-label 0xfffff \
		--hop-limit 255 --traffic-class 255 --dmac 02:AB:cd:00:00:01
	assert_success
	assert_output --partial '"dgid":"::ffff:203.0.113.5","sgid_index":1,"flow_label":1048575,"hop_limit":255,"traffic_class":255,"dmac":"02:ab:cd:00:00:01"'
	[ "$("$RDMACTL" -j gid show 0 | jq '.[0].users')" = 1 ]
	[ "$("$RDMACTL" -j pd show 1 | jq '.[0].ahs')" = 2 ]
}

@test "gid del of an entry an AH sends from is refused naming the AH; pd destroy too" {
	"$RDMACTL" gid add 200 fe80::200
	h=$("$RDMACTL" -j ah create 2 --dgid fe80::77 --sgid-index 200 | jq -r '.[0].handle')
	before=$(gids)
	run "$RDMACTL" gid del 200
	assert_failure 1
	assert_output --partial "io.rdmad.Gid.ObjectInUse: kind 'gid', handle '200', user_kind 'ah', user_handle '$h'"
	run "$RDMACTL" pd destroy 2
	assert_failure 1
	assert_output --partial "user_kind 'ah', user_handle '$h'"
	[ "$(gids)" = "$before" ]
	"$RDMACTL" ah destroy "$h"
	run "$RDMACTL" gid del 200
	assert_success
	assert_output ''
	run "$RDMACTL" gid show 200
	assert_failure 1
	"$RDMACTL" pd destroy 2
}

@test "ah create refusals name the field and create nothing" {
	before=$(ahs)
	run "$RDMACTL" ah create 1 --dgid fe80::2 --sgid-index 5
	assert_refused Ah.InvalidArgument sgid_index
	assert_output --partial "GID index 5 of port 1 is empty"
	run "$RDMACTL" ah create 1 --dgid fe80::2 --sgid-index 256
	assert_refused Ah.InvalidArgument sgid_index
	run "$RDMACTL" ah create 1 --dgid fe80::2 --sgid-index 0 --flow-label 0x100000
	assert_refused Ah.InvalidArgument flow_label
	run "$RDMACTL" ah create 1 --dgid fe80::2 --sgid-index 0 --hop-limit 256
	assert_refused Ah.InvalidArgument hop_limit
	run "$RDMACTL" ah create 1 --dgid fe80::2 --sgid-index 0 --traffic-class 300
	assert_refused Ah.InvalidArgument traffic_class
	run "$RDMACTL" ah create 1 --dgid fe80::2 --sgid-index 0 --port 2
	assert_refused Ah.InvalidArgument port
	run "$RDMACTL" ah create 1 --dgid nowhere --sgid-index 0
	assert_refused Ah.InvalidArgument dgid
	run "$RDMACTL" ah create 1 --dgid :: --sgid-index 0
	assert_refused Ah.InvalidArgument dgid
	run "$RDMACTL" ah create 1 --dgid fe80::2 --sgid-index 0 --dmac 02:00:00:00:00
	assert_refused Ah.InvalidArgument dmac
	run "$RDMACTL" ah create 9 --dgid fe80::2 --sgid-index 0
	assert_failure 1
	assert_output --partial "io.rdmad.Ah.NoSuchObject: kind 'pd', handle '9'"
	run "$RDMACTL" ah create 1 --sgid-index 0
	assert_failure 2
	[ "$(ahs)" = "$before" ]
}

@test "ah show text, list, destroy" {
	h=$("$RDMACTL" -j ah create 1 --dgid fe80::3 --sgid-index 0 | jq -r '.[0].handle')
	run "$RDMACTL" ah show "$h"
	assert_success
	assert_line --index 0 --regexp "^ah $h: ifname soft0 ifindex 0 pd 1 port 1 dgid fe80::3 sgid_index 0 flow_label 0 hop_limit 64 "
	run "$RDMACTL" ah
	assert_output --partial "ah $h:"
	run "$RDMACTL" ah destroy "$h"
	assert_success
	run "$RDMACTL" ah show "$h"
	assert_failure 1
	assert_output --partial "io.rdmad.Ah.NoSuchObject: kind 'ah', handle '$h'"
	run "$RDMACTL" ah destroy "$h"
	assert_failure 1
}

@test "ah create: max_ah, lowered to 100 by rdmad.conf's max_ahs, at most, then LimitReached" {
	run "$RDMACTL" -j dev show soft0
	assert_output --partial '"max_ah":100'
	n=$(ahs | jq length)
	for _ in $(seq $((n + 1)) 100); do
		printf '{"method":"io.rdmad.Ah.Create","parameters":{"pd":1,"dgid":"fe80::5","sgid_index":0}}\0'
	done | socat -t 5 - "UNIX-CONNECT:$RDMACTL_SOCKET" >/dev/null
	[ "$(ahs | jq length)" = 100 ]
	run "$RDMACTL" ah create 1 --dgid fe80::5 --sgid-index 0
	assert_failure 1
	assert_output --partial "io.rdmad.Ah.LimitReached: kind 'ah', limit '100'"
	for h in $(ahs | jq '.[].handle'); do
		"$RDMACTL" ah destroy "$h"
	done
}

@test "raw varlink: every io.rdmad.Gid and io.rdmad.Ah method" {
	run varlink_raw '{"method":"io.rdmad.Gid.Add","parameters":{"port":1,"index":9,"gid":"fe80::99"}}\0'
	assert_output '{"parameters":{"gid":{"ifname":"soft0","ifindex":0,"port":1,"index":9,"gid":"fe80::99","users":0}}}'
	run varlink_raw '{"method":"io.rdmad.Gid.Show","parameters":{"index":9}}\0'
	assert_output --partial '"gid":"fe80::99"'
	run varlink_raw '{"method":"io.rdmad.Gid.List","parameters":{"port":1}}\0'
	assert_output --partial '"index":9'
	run varlink_raw '{"method":"io.rdmad.Ah.Create","parameters":{"pd":1,"dgid":"fe80::1:2","sgid_index":9,"hop_limit":1}}\0'
	assert_output --partial '"sgid_index":9,"flow_label":0,"hop_limit":1'
	h=$(jq -r .parameters.ah.handle <<<"$output")
	run varlink_raw '{"method":"io.rdmad.Ah.Show","parameters":{"handle":'"$h"'}}\0'
	assert_output --partial '"dgid":"fe80::1:2"'
	run varlink_raw '{"method":"io.rdmad.Ah.List","parameters":{}}\0'
	assert_output --partial '"ahs":['
	run varlink_raw '{"method":"io.rdmad.Gid.Del","parameters":{"index":9}}\0'
	assert_output --partial '"error":"io.rdmad.Gid.ObjectInUse"'
	run varlink_raw '{"method":"io.rdmad.Ah.Destroy","parameters":{"handle":'"$h"'}}\0'
	assert_output '{"parameters":{}}'
	run varlink_raw '{"method":"io.rdmad.Gid.Del","parameters":{"index":9}}\0'
	assert_output '{"parameters":{}}'
	run varlink_raw '{"method":"io.rdmad.Ah.Create","parameters":{"pd":1,"dgid":"fe80::1:2"}}\0'
	assert_output '{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"sgid_index"}}'
}
