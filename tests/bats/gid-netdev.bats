#!/usr/bin/env bats
# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# RoCE v2 GIDs from the host's addresses (rdmad.conf roce_netdev): rdmad in
# its own network namespace with a veth interface, whose IPv4 and IPv6
# addresses become port 1's GIDs and follow `ip addr add/del`.  Needs root.

load helper
load vnic-helper

setup_file() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
	command -v ip >/dev/null || skip "needs ip (iproute2)"
	NS=rdmad-gid-$$
	D=$BATS_FILE_TMPDIR/d
	export NS D
	ip netns add "$NS"
	# A veth pair inside the namespace (this kernel may have no dummy module).
	ip -n "$NS" link add rg0 type veth peer name rg0p
	ip -n "$NS" link set rg0p up
	# No DAD on this interface: its IPv6 addresses are usable at once.
	ip netns exec "$NS" sysctl -qw net.ipv6.conf.rg0.accept_dad=0
	ip -n "$NS" addr add 10.77.0.1/24 dev rg0
	ip -n "$NS" addr add 2001:db8:77::1/64 dev rg0 nodad
	ip -n "$NS" link set rg0 up
	mkdir -p "$D"
	echo 'roce_netdev = rg0' >"$D/rdmad.conf"
	ns_rdmad_start "$NS" "$D"
}

teardown_file() {
	[ -n "${NS:-}" ] || return 0
	rdmad_stop "$D" || true
	ip netns del "$NS" 2>/dev/null || true
}

setup() {
	load_libs
	[ -n "${NS:-}" ] || skip "needs root for network namespaces"
}

gids() { ctl "$D" -j gid show | jq -c "$@"; }

# has_gid GID NETDEV: the port has GID, from NETDEV ("null": added by a user).
has_gid() {
	[ "$(gids --arg g "$1" '[.[] | select(.gid == $g) | .netdev] | .[0]')" = "$2" ]
}

# wait_gid GID NETDEV|none: polls for up to a second.
wait_gid() {
	local i
	for i in $(seq 1 20); do
		if [ "$2" = none ]; then
			[ "$(gids --arg g "$1" '[.[] | select(.gid == $g)] | length')" = 0 ] && return 0
		else
			has_gid "$1" "\"$2\"" && return 0
		fi
		sleep 0.05
	done
	gids . >&2
	return 1
}

@test "at start the interface's addresses are GIDs with their netdev" {
	has_gid ::ffff:10.77.0.1 '"rg0"'
	has_gid 2001:db8:77::1 '"rg0"'
	# The link-local address too, once the interface is up.
	local ll
	ll=$(ip -n "$NS" -6 -j addr show dev rg0 |
		jq -r '[.[].addr_info[] | select(.scope == "link") | .local][0]')
	[ "$ll" != null ]
	wait_gid "$ll" rg0
	run ctl "$D" gid show
	assert_success
	assert_output --partial "gid ::ffff:10.77.0.1 users 0 netdev rg0"
}

@test "ip addr add shows up within a second, ip addr del removes it" {
	ip -n "$NS" addr add 10.77.0.9/24 dev rg0
	ip -n "$NS" addr add 2001:db8:77::9/64 dev rg0 nodad
	wait_gid ::ffff:10.77.0.9 rg0
	wait_gid 2001:db8:77::9 rg0
	ip -n "$NS" addr del 10.77.0.9/24 dev rg0
	ip -n "$NS" addr del 2001:db8:77::9/64 dev rg0
	wait_gid ::ffff:10.77.0.9 none
	wait_gid 2001:db8:77::9 none
	has_gid ::ffff:10.77.0.1 '"rg0"'
}

@test "a new address takes the lowest free index" {
	local free
	free=$(gids '[.[].index] as $u | [range(0; 512)] - $u | .[0]')
	ip -n "$NS" addr add 10.77.0.10/24 dev rg0
	wait_gid ::ffff:10.77.0.10 rg0
	[ "$(gids '.[] | select(.gid == "::ffff:10.77.0.10") | .index')" = "$free" ]
	ip -n "$NS" addr del 10.77.0.10/24 dev rg0
	wait_gid ::ffff:10.77.0.10 none
}

@test "DEL_GID of an address's GID is refused naming the interface" {
	local i
	i=$(gids '.[] | select(.gid == "::ffff:10.77.0.1") | .index')
	run ctl "$D" gid del "$i"
	assert_failure
	assert_output --partial "io.rdmad.Gid.InvalidState: field 'index'"
	assert_output --partial rg0
	has_gid ::ffff:10.77.0.1 '"rg0"'
}

@test "a user's ADD_GID works beside them, and stays the user's" {
	run ctl "$D" -j gid add 300 fe80::1234
	assert_success
	refute_output --partial netdev
	has_gid fe80::1234 null
	# The same address on the interface: the entry stays the user's, no second one.
	ip -n "$NS" addr add fe80::1234/64 dev rg0 nodad
	sleep 0.3
	[ "$(gids '[.[] | select(.gid == "fe80::1234")] | length')" = 1 ]
	has_gid fe80::1234 null
	ip -n "$NS" addr del fe80::1234/64 dev rg0
	sleep 0.3
	has_gid fe80::1234 null
	run ctl "$D" gid del 300
	assert_success
}

@test "the interface deleted: its GIDs go; created again: they come back" {
	ip -n "$NS" link del rg0
	wait_gid ::ffff:10.77.0.1 none
	[ "$(gids '[.[] | select(.netdev != null)] | length')" = 0 ]
	ip -n "$NS" link add rg0 type veth peer name rg0p
	ip -n "$NS" addr add 10.77.0.1/24 dev rg0
	wait_gid ::ffff:10.77.0.1 rg0
}

@test "without roce_netdev no GID comes from the addresses" {
	local d=$BATS_TEST_TMPDIR/plain
	mkdir -p "$d"
	ns_rdmad_start "$NS" "$d"
	run ctl "$d" -j gid show
	rdmad_stop "$d"
	assert_success
	# Only the default GID, at index 0: link-local, from no interface.
	assert_equal "$(jq -c '[.[] | [.index, .default, .netdev]]' <<<"$output")" '[[0,true,null]]'
	assert_equal "$(jq -r '.[0].gid' <<<"$output" | cut -c1-6)" 'fe80::'
}

@test "a bad roce_netdev is refused naming the key" {
	local d=$BATS_TEST_TMPDIR/bad
	mkdir -p "$d"
	echo 'roce_netdev = a/b' >"$d/rdmad.conf"
	run "$RDMAD" --foreground --socket "$d/io.rdmad" --state-dir "$d/state" --config "$d/rdmad.conf"
	assert_failure
	assert_output --partial "roce_netdev: 'a/b' is not an interface name"
}
