#!/usr/bin/env bats
# Every command that reads a JSON file says the same of a bad one (issue #31,
# item 11): a file that is not JSON, or not the JSON the option wants, is a
# usage error (exit 2) naming the option, the file and where; a file that
# cannot be read is a failure (exit 1).  apply, mkey configure --config, qp
# post --config, qp post-list --file and offload --config.

load helper

setup_file() {
	rdmad_start
	"$RDMACTL" pd create >/dev/null
	MKEY=$("$RDMACTL" -j mkey create 1 --flags block_signature --max-entries 1 | jq -r '.[0].handle')
	export MKEY
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
	printf '{"mem":' >cut.json
}

# readers FILE: each reader of a JSON file run on FILE, one per line as "CMD|status|stderr".
readers() {
	local f=$1 cmd
	for cmd in "apply $f" "mkey configure $MKEY --config $f" "qp post 1 configure --config $f --mkey $MKEY" \
		"qp post-list 1 --file $f" "offload tx --config $f"; do
		run --separate-stderr bash -c '"$0" $1 </dev/null >/dev/null' "$RDMACTL" "$cmd"
		echo "$cmd|$status|$stderr"
	done
}

@test "a file that is not JSON exits 2 in every command, naming the file and where it ends" {
	run readers cut.json
	assert_equal "${#lines[@]}" 5
	for line in "${lines[@]}"; do
		[[ $line == *"|2|"* ]] || fail "not exit 2: $line"
		[[ $line == *"cut.json"* ]] || fail "the file is not named: $line"
	done
	assert_line --partial "mkey configure $MKEY --config cut.json|2|rdmactl: mkey configure: --config cut.json: not JSON: it ends early, near byte 7"
	assert_line --partial "qp post-list 1 --file cut.json|2|rdmactl: qp post-list: --file cut.json: not JSON: it ends early, near byte 7"
	assert_line --partial "apply cut.json|2|rdmactl: apply: cut.json: (file): is not JSON: it ends early"
}

@test "JSON of the wrong kind exits 2 and says what was wanted" {
	echo '[1]' >array.json
	run --separate-stderr "$RDMACTL" mkey configure "$MKEY" --config array.json
	assert_failure 2
	assert_equal "$stderr" "rdmactl: mkey configure: --config array.json: must be a JSON object, not array"
	echo '{"opcode":"send"}' >obj.json
	run --separate-stderr "$RDMACTL" qp post-list 1 --file - <obj.json
	assert_failure 2
	assert_equal "$stderr" "rdmactl: qp post-list: --file -: must be a JSON array, not object"
	printf '{} {}' >two.json
	run --separate-stderr "$RDMACTL" mkey configure "$MKEY" --config two.json
	assert_failure 2
	assert_equal "$stderr" "rdmactl: mkey configure: --config two.json: more after its JSON value, at byte 3"
}

@test "a file that cannot be read exits 1 in every command" {
	run readers missing.json
	assert_equal "${#lines[@]}" 5
	for line in "${lines[@]}"; do
		[[ $line == *"|1|"* ]] || fail "not exit 1: $line"
		[[ $line == *"missing.json: No such file or directory"* ]] || fail "no reason: $line"
	done
}
