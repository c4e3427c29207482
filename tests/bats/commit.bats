#!/usr/bin/env bats
# make check runs this file alone: it measures time, memory or CPU placement, which other tests beside it would disturb.
# Changes to what users configured are saved off the event loop, several at a
# time (daemon/core/commit.h), and answered once durable: every change whose
# reply came back survives kill -9; a change the disk refuses (ENOSPC) fails
# and leaves memory and disk as they were; a change waits for the disk while
# reads do not; changes to one object wait for each other (docs/decisions.md,
# "Persistence").

load helper

setup() {
	load_libs
	T=$BATS_TEST_TMPDIR
	D=$T/d
	K=$T/key
	mkdir -p "$D"
	: >"$D/rdmad.conf"
	head -c 32 /dev/urandom >"$K"
	chmod 0600 "$K"
}

teardown() {
	rm -f "$T/run"
	rdmad_stop "$D" || true
	if mountpoint -q "$D/state"; then umount "$D/state"; fi
}

# The state as the daemon shows it, in the terms the state files keep it.
shown() {
	"$RDMACTL" -j pool list | jq -c '[.[] | {name, type, size, max_entries}] | sort_by(.name)'
	"$RDMACTL" -j dek list | jq -c '[.[] | {handle, name, size, key_file, opaque}] | sort_by(.handle)'
	"$RDMACTL" -j status | jq -r .log_level
}

# state_agrees: what the daemon shows is what its state files hold.
state_agrees() {
	local pools deks level
	pools=$(jq -c '[.pools.soft0 // [] | .[] | {name, type, size, max_entries}] | sort_by(.name)' \
		"$D/state/pools.json" 2>/dev/null || echo '[]')
	deks=$(jq -c '[.deks.soft0 // [] | .[] | {handle, name, size, key_file, opaque}] | sort_by(.handle)' \
		"$D/state/deks.json" 2>/dev/null || echo '[]')
	# No saved level: rdmad.conf's is in force, whatever it is.
	level=$(jq -r '.settings.log_level // empty' "$D/state/settings.json" 2>/dev/null || true)
	[ -n "$level" ] || level=$("$RDMACTL" -j status | jq -r .log_level)
	assert_equal "$(shown)" "$(printf '%s\n%s\n%s' "$pools" "$deks" "$level")"
}

# now: seconds since the epoch, with fractions.
now() { date +%s.%N; }
# elapsed START: seconds since START, as a number awk compares.
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
assert_at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }' || fail "$1 < $2"; }
assert_below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }' || fail "$1 >= $2"; }

@test "a change is answered once on disk: the state files hold it when the reply comes" {
	rdmad_start "$D"
	"$RDMACTL" pool create a --type signature --size 2
	jq -e '.pools.soft0[] | select(.name == "a" and .size == 2)' "$D/state/pools.json"
	"$RDMACTL" pool resize a --size 3
	jq -e '.pools.soft0[] | select(.name == "a" and .size == 3)' "$D/state/pools.json"
	"$RDMACTL" dek create k --size 128 --key-file "$K"
	jq -e '.deks.soft0[] | select(.name == "k")' "$D/state/deks.json"
	"$RDMACTL" daemon log-level info
	jq -e '.settings.log_level == "info"' "$D/state/settings.json"
	"$RDMACTL" pool destroy a
	"$RDMACTL" dek destroy k
	jq -e '.pools.soft0 == []' "$D/state/pools.json"
	jq -e '.deks.soft0 == []' "$D/state/deks.json"
	state_agrees
	run find "$D/state" -name '*.tmp-*'
	assert_output ''
}

# step LOG ARGS...: one rdmactl call, logged as sent, and as acknowledged once its reply came.
step() {
	local log=$1
	shift
	echo "SENT $*" >>"$log"
	"$RDMACTL" "$@" >/dev/null 2>&1 || return 1
	echo "ACK $*" >>"$log"
}

# worker ROUND ID: changes pools and DEKs of its own names until $T/run goes.
worker() {
	local log="$T/log.$1.$2" n=0 name
	while [ -e "$T/run" ]; do
		n=$((n + 1))
		name=r$1w$2n$n
		step "$log" pool create "$name" --type signature --size 1 &&
			step "$log" pool resize "$name" --size 2 &&
			{ [ $((n % 2)) = 0 ] || step "$log" pool destroy "$name"; } &&
			step "$log" dek create "k$name" --size 128 --key-file "$K" &&
			{ [ $((n % 3)) = 0 ] || step "$log" dek destroy "k$name"; } || true
	done
}

# level_worker ROUND: the log level, in turn.
level_worker() {
	local log="$T/log.$1.level" n=0 levels=(info debug notice warning)
	while [ -e "$T/run" ]; do
		step "$log" daemon log-level "${levels[n++ % 4]}" || true
	done
}

# Every change acknowledged is there; one sent but not acknowledged may be or not.
check_acknowledged() {
	"$RDMACTL" -j pool list >"$T/pools.now"
	"$RDMACTL" -j dek list >"$T/deks.now"
	"$RDMACTL" -j status >"$T/status.now"
	python3 - "$T" <<'EOF'
import glob, json, sys
t = sys.argv[1]
pools = {p["name"]: p["size"] for p in json.load(open(t + "/pools.now"))}
deks = {d["name"] for d in json.load(open(t + "/deks.now"))}
level = json.load(open(t + "/status.now"))["log_level"]
# Per object, its calls in order: [(state after the call, acknowledged)].
calls = {}
def after(words):
    if words[:2] == ["pool", "create"]: return ("pool", words[2]), 1
    if words[:2] == ["pool", "resize"]: return ("pool", words[2]), int(words[4])
    if words[:2] == ["pool", "destroy"]: return ("pool", words[2]), None
    if words[:2] == ["dek", "create"]: return ("dek", words[2]), True
    if words[:2] == ["dek", "destroy"]: return ("dek", words[2]), None
    if words[:2] == ["daemon", "log-level"]: return ("level", ""), words[2]
    raise ValueError(words)
for path in sorted(glob.glob(t + "/log.*")):
    for line in open(path):
        tag, *words = line.split()
        key, state = after(words)
        if tag == "SENT":
            calls.setdefault(key, []).append([state, False])
        else:
            calls[key][-1][1] = True
bad = []
for key, seq in calls.items():
    acked = [i for i, (_, ack) in enumerate(seq) if ack]
    last = acked[-1] if acked else -1
    allowed = [seq[last][0] if last >= 0 else None]
    # Calls stop at the first that fails: at most one after the last acknowledged.
    if last + 1 < len(seq):
        allowed.append(seq[last + 1][0])
    if key[0] == "pool":
        now = pools.pop(key[1], None)
    elif key[0] == "dek":
        now = True if key[1] in deks else None
        deks.discard(key[1])
    else:
        now = level
        if allowed == [None]:
            continue
    if now not in allowed:
        bad.append(f"{key}: {now!r}, expected one of {allowed!r} after {seq!r}")
bad += [f"pool {n} nobody created" for n in pools] + [f"DEK {n} nobody created" for n in deks]
print("\n".join(bad) or f"{len(calls)} objects as acknowledged")
sys.exit(1 if bad else 0)
EOF
}

@test "kill -9 under load: every acknowledged change is there after the restart" {
	rdmad_start "$D"
	for round in 1 2 3 4 5; do
		touch "$T/run"
		pids=()
		for w in 1 2 3 4; do
			worker "$round" "$w" 3>&- &
			pids+=($!)
		done
		level_worker "$round" 3>&- &
		pids+=($!)
		sleep "0.$((RANDOM % 8 + 4))"
		rdmad_kill9 "$D"
		rm -f "$T/run"
		wait "${pids[@]}"
		rdmad_start "$D"
		run check_acknowledged
		echo "round $round: $output"
		assert_success
	done
	grep -c '^ACK' "$T"/log.* | awk -F: '{ n += $2 } END { print n " acknowledged changes"; exit !(n > 50) }'
	state_agrees
	rdmad_stop "$D"
}

# A tmpfs of 64 KiB for the state directory, filled up once the daemon has saved something.
small_state_dir() {
	mkdir -p "$D/state"
	chmod 0700 "$D/state"
	mount -t tmpfs -o size=64k,mode=0700 tmpfs "$D/state"
}
fill_state_dir() {
	dd if=/dev/zero of="$D/state/filler" bs=4k 2>/dev/null || true
}

# refused ARGS...: rdmactl ARGS fails for want of space; memory and disk are as they were.
refused() {
	local before files
	before=$(shown)
	files=$(cat "$D/state"/*.json | sha256sum)
	run "$RDMACTL" "$@"
	assert_failure 1
	assert_output --partial "io.rdmad.Daemon.System: errno '28', errnoName 'ENOSPC'"
	assert_equal "$(shown)" "$before"
	assert_equal "$(cat "$D/state"/*.json | sha256sum)" "$files"
	state_agrees
	run find "$D/state" -name '*.tmp-*'
	assert_output ''
}

@test "ENOSPC: each change is refused, memory and disk agree, and a restart finds the same state" {
	small_state_dir
	rdmad_start "$D"
	"$RDMACTL" pool create keep --type signature --size 2
	"$RDMACTL" pool create other --type crypto --size 1
	"$RDMACTL" dek create k1 --size 128 --key-file "$K"
	"$RDMACTL" daemon log-level info
	fill_state_dir
	before=$(shown)

	refused pool create new --type signature --size 1
	refused pool resize keep --size 4
	refused pool resize keep --size 1
	refused pool destroy keep
	refused pool destroy other --force
	refused dek create k2 --size 128 --key-file "$K"
	refused dek destroy k1
	refused daemon log-level debug
	refused daemon log-level reset
	assert_file_contains "$D/rdmad.log" "cannot save pools in $D/state: No space left on device"
	# The refused destroy leaves a pool that lends, and a name that is taken.
	run "$RDMACTL" pool create keep --type signature --size 1
	assert_failure
	assert_output --partial "a pool named keep exists"

	rdmad_stop "$D"
	rdmad_start "$D"
	assert_equal "$(shown)" "$before"
	state_agrees

	# With room again, the same changes go through.
	rm "$D/state/filler"
	"$RDMACTL" pool destroy keep
	"$RDMACTL" dek destroy k1
	"$RDMACTL" daemon log-level debug
	state_agrees
	rdmad_stop "$D"
	rdmad_start "$D"
	state_agrees
	run "$RDMACTL" -j pool list
	assert_output --partial '"name":"other"'
	refute_output --partial '"name":"keep"'
}

# rdmad whose every fsync takes half a second longer: a disk that is slow.  (LeakSanitizer
# cannot run under ptrace; the other tests check for leaks.)
slow_disk() {
	command -v strace >/dev/null || skip "strace is needed to slow the disk down"
	cat >"$T/slow-rdmad" <<EOF
#!/bin/sh
export ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0
exec strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:delay_enter=500000 "$RDMAD" "\$@"
EOF
	chmod +x "$T/slow-rdmad"
	RDMAD=$T/slow-rdmad rdmad_start "$D"
}

@test "a slow disk: a change waits for it, reads and other clients do not, and see the change" {
	slow_disk
	start=$(now)
	"$RDMACTL" pool create a --type signature --size 1
	# The temporary file's fsync, then the directory's.
	assert_at_least "$(elapsed "$start")" 0.9

	"$RDMACTL" pool create b --type signature --size 1 3>&- &
	b=$!
	sleep 0.3
	start=$(now)
	run "$RDMACTL" -j pool show b
	assert_success
	assert_output --partial '"size":1'
	run "$RDMACTL" -j status
	assert_success
	assert_below "$(elapsed "$start")" 0.4
	wait "$b"
}

@test "a slow disk: changes of several clients are saved together" {
	slow_disk
	start=$(now)
	pids=()
	for i in 1 2 3 4 5 6 7 8; do
		"$RDMACTL" pool create "p$i" --type signature --size 1 3>&- &
		pids+=($!)
	done
	wait "${pids[@]}"
	# One save (two fsyncs, 1 s) for the first, one for the others: not eight.
	assert_below "$(elapsed "$start")" 3.5
	assert_equal "$("$RDMACTL" -j pool list | jq length)" 8
	state_agrees
}

@test "a slow disk: changes to one pool wait for each other, in order; a Borrow waits for a destroy" {
	slow_disk
	"$RDMACTL" pool create a --type signature --size 1
	start=$(now)
	"$RDMACTL" pool resize a --size 3 3>&- &
	first=$!
	sleep 0.3
	run "$RDMACTL" -j pool resize a --size 5
	assert_success
	assert_output --partial '"size":5'
	# It ran once the first was saved, and was saved in its own turn.
	assert_at_least "$(elapsed "$start")" 1.8
	wait "$first"
	jq -e '.pools.soft0[] | select(.name == "a" and .size == 5)' "$D/state/pools.json"

	"$RDMACTL" pool destroy a 3>&- &
	first=$!
	sleep 0.3
	run varlink_raw '{"method":"io.rdmad.Pool.Borrow","parameters":{"name":"a"}}\0'
	assert_output --partial '"error":"io.rdmad.Pool.NoSuchPool"'
	wait "$first"
	state_agrees
}

@test "SIGTERM while changes wait for the disk: they are answered, and there after the restart" {
	slow_disk
	"$RDMACTL" pool create a --type signature --size 1 >"$T/a.out" 2>&1 3>&- &
	a=$!
	"$RDMACTL" dek create k --size 128 --key-file "$K" >"$T/k.out" 2>&1 3>&- &
	k=$!
	sleep 0.3
	rdmad_stop "$D"
	wait "$a"
	wait "$k"
	rdmad_start "$D"
	run "$RDMACTL" -j pool show a
	assert_success
	run "$RDMACTL" -j dek show k
	assert_success
	state_agrees
}

@test "64 clients changing their own pools at once: all answered, all saved" {
	rdmad_start "$D"
	pids=()
	for i in $(seq 1 63); do
		{ "$RDMACTL" pool create "p$i" --type signature --size 1 &&
			"$RDMACTL" pool resize "p$i" --size 2 &&
			"$RDMACTL" pool resize "p$i" --size $((i % 4 + 1)); } >"$T/c$i.out" 2>&1 3>&- &
		pids+=($!)
	done
	wait "${pids[@]}"
	cat "$T"/c*.out
	assert_equal "$("$RDMACTL" -j pool list | jq length)" 63
	state_agrees
	rdmad_stop "$D"
	rdmad_start "$D"
	state_agrees
}
