# The bash completion in completions/rdmactl.bash, driven as bash drives it:
# COMP_WORDS/COMP_CWORD set, _rdmactl called, COMPREPLY checked.  Device names
# come from a real rdmad.
load helper

BASH_COMPLETION=/usr/share/bash-completion/bash_completion

setup_file() {
	rdmad_start
	export SOCK=$RDMACTL_SOCKET
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	[ -r "$BASH_COMPLETION" ] || skip "bash-completion is not installed"
	unset RDMACTL_SOCKET
}

# comp WORD...: completes the last word of "rdmactl WORD..." and prints
# COMPREPLY one per line.  The first word is the built rdmactl, as if typed
# with its path, so the completion runs that binary.
comp() {
	(
		set +eu
		# shellcheck disable=SC1090
		source "$BASH_COMPLETION"
		# shellcheck disable=SC1091
		source "$TOP/completions/rdmactl.bash"
		COMP_WORDS=("$RDMACTL" "$@")
		COMP_CWORD=$#
		COMP_LINE="${COMP_WORDS[*]}"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_rdmactl
		printf '%s\n' "${COMPREPLY[@]}"
	)
}

# assert_completes "EXPECTED WORDS" WORD...: COMPREPLY is exactly these words, in any order.
assert_completes() {
	local expected=$1
	shift
	run --separate-stderr comp "$@"
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
	assert_equal "$(sort <<<"$output" | sed '/^$/d' | tr '\n' ' ')" \
		"$(tr ' ' '\n' <<<"$expected" | sed '/^$/d' | sort | tr '\n' ' ')"
}

@test "the completion registers _rdmactl for rdmactl" {
	run bash -c "source '$BASH_COMPLETION'; source '$TOP/completions/rdmactl.bash'; complete -p rdmactl"
	assert_success
	assert_output 'complete -F _rdmactl rdmactl'
}

# commands_of [WORDS...]: the command names "rdmactl WORDS help" lists.
commands_of() {
	"$RDMACTL" "$@" help | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }'
}

# table_words PREFIX [WORDS...]: what the command table offers after WORDS
# for a word starting with PREFIX, "help" included.
table_words() {
	local prefix=$1
	shift
	{ commands_of "$@"; echo help; } | grep "^$prefix" | tr '\n' ' '
}

@test "objects: the top level of the command table, and help" {
	assert_completes "$(table_words '')" ""
	run comp ""
	for obj in status dev daemon help; do
		assert_line "$obj"
	done
}

@test "objects by prefix" {
	assert_completes "$(table_words d)" d
	run comp d
	assert_line dev
	assert_line daemon
	assert_completes "status" st
	assert_completes "daemon" da
	assert_completes "" x
}

@test "commands of an object" {
	assert_completes "$(table_words '' dev)" dev ""
	run comp dev ""
	assert_line show
	assert_line list
	assert_completes "$(table_words s dev)" dev s
	assert_completes "reload log-level help" daemon ""
	assert_completes "log-level" daemon l
}

@test "commands under an abbreviated object" {
	assert_completes "$(table_words '' daemon)" dae ""
	assert_completes "reload log-level help" dae ""
}

@test "device names come from the running daemon" {
	assert_completes "soft0" -s "$SOCK" dev show ""
	assert_completes "soft0" -s "$SOCK" dev show so
	assert_completes "" -s "$SOCK" dev show mlx
}

@test "device names after abbreviated object and command" {
	assert_completes "soft0" -s "$SOCK" dev sh ""
	assert_completes "soft0" -j -s "$SOCK" dev sh ""
}

@test "the socket is taken from --socket, --socket=, -sPATH, -js and RDMACTL_SOCKET" {
	assert_completes "soft0" --socket "$SOCK" dev show ""
	assert_completes "soft0" --socket="$SOCK" dev show ""
	assert_completes "soft0" --sock "$SOCK" dev show ""
	assert_completes "soft0" "-s$SOCK" dev show ""
	assert_completes "soft0" -js "$SOCK" dev show ""
	RDMACTL_SOCKET=$SOCK assert_completes "soft0" dev show ""
}

@test "no device names, no error and no wait without a daemon" {
	SECONDS=0
	assert_completes "" -s "$BATS_TEST_TMPDIR/nothing" dev show ""
	[ "$SECONDS" -lt 3 ]
}

@test "a device is given once: nothing after it" {
	assert_completes "" -s "$SOCK" dev show soft0 ""
}

@test "log levels" {
	assert_completes "emerg alert crit err warning notice info debug reset" daemon log-level ""
	assert_completes "warning" daemon log-level w
	assert_completes "err emerg" daemon log-level e
	assert_completes "warning" dae log w
}

@test "global options before the object" {
	assert_completes "-j --json -p --pretty -d --details -q --quiet -s --socket --no-legend --no-pager -H --host -i --interactive -V --version -h --help" -
	assert_completes "--json" --j
	assert_completes "--socket" --so
	assert_completes "--details" -j --d
}

@test "after the object only the short global options are offered, the long ones being the command's" {
	assert_completes "-j -p -d -q -s" dev -
	assert_completes "-j" dev show -j
	assert_completes "" dev show --j
	assert_completes "--dev" pd create --
}

@test "live object numbers come from the daemon: QP, CQ, PD, MR, MKEY, and DEK names" {
	RDMACTL_SOCKET=$SOCK "$RDMACTL" pd create >/dev/null
	pd=$(RDMACTL_SOCKET=$SOCK "$RDMACTL" -j pd list | jq -r '.[-1].handle')
	cq=$(RDMACTL_SOCKET=$SOCK "$RDMACTL" -j cq create --cqe 4 | jq -r '.[0].handle')
	qp=$(RDMACTL_SOCKET=$SOCK "$RDMACTL" -j qp create --pd "$pd" --send-cq "$cq" --recv-cq "$cq" --type rc |
		jq -r '.[0].handle')
	mr=$(RDMACTL_SOCKET=$SOCK "$RDMACTL" -j mr create "$pd" --size 4096 | jq -r '.[0].handle')
	mkey=$(RDMACTL_SOCKET=$SOCK "$RDMACTL" -j mkey create "$pd" --max-entries 2 | jq -r '.[0].handle')
	assert_completes "$(RDMACTL_SOCKET=$SOCK "$RDMACTL" -j qp list | jq -r '.[].handle' | tr '\n' ' ')" \
		-s "$SOCK" qp show ""
	run comp -s "$SOCK" qp show ""
	assert_line "$qp"
	run comp -s "$SOCK" qp modify ""
	assert_line "$qp"
	run comp -s "$SOCK" qp create --send-cq ""
	assert_line "$cq"
	run comp -s "$SOCK" qp create --pd ""
	assert_line "$pd"
	# Keys in hex, as lists print them.
	run comp -s "$SOCK" mr show ""
	assert_line "$(printf '0x%x' "$mr")"
	run comp -s "$SOCK" mkey destroy ""
	assert_line "$(printf '0x%x' "$mkey")"
	assert_completes "" -s "$SOCK" qp show 999999
	key=$BATS_TEST_TMPDIR/key
	head -c 32 /dev/urandom >"$key"
	chmod 0600 "$key"
	RDMACTL_SOCKET=$SOCK "$RDMACTL" dek create compl --size 128 --key-file "$key" >/dev/null
	assert_completes "compl" -s "$SOCK" mkey configure "$mkey" --dek co
	# A DEK and a pool by name, through the same table as every live object.
	assert_completes "compl" -s "$SOCK" dek show co
	RDMACTL_SOCKET=$SOCK "$RDMACTL" pool create complpool --type signature --size 1 >/dev/null
	assert_completes "complpool" -s "$SOCK" pool show compl
	RDMACTL_SOCKET=$SOCK "$RDMACTL" pool destroy complpool
	RDMACTL_SOCKET=$SOCK "$RDMACTL" dek destroy compl
}

@test "file names for the options that take a FILE, directories to go on with" {
	mkdir -p "$BATS_TEST_TMPDIR/f/sub"
	touch "$BATS_TEST_TMPDIR/f/key1" "$BATS_TEST_TMPDIR/f/key2" "$BATS_TEST_TMPDIR/f/other"
	assert_completes "$BATS_TEST_TMPDIR/f/key1 $BATS_TEST_TMPDIR/f/key2" \
		dek create x --size 128 --key-file "$BATS_TEST_TMPDIR/f/k"
	assert_completes "$BATS_TEST_TMPDIR/f/sub/" offload tx --config "$BATS_TEST_TMPDIR/f/s"
	assert_completes "$BATS_TEST_TMPDIR/f/other" mr read 1 --output "$BATS_TEST_TMPDIR/f/o"
	assert_completes "$BATS_TEST_TMPDIR/f/key1 $BATS_TEST_TMPDIR/f/key2" \
		qp post-list 1 --file "$BATS_TEST_TMPDIR/f/ke"
}

@test "a path after -s and --socket=" {
	mkdir -p "$BATS_TEST_TMPDIR/sockdir"
	touch "$BATS_TEST_TMPDIR/sockdir/io.rdmad" "$BATS_TEST_TMPDIR/sockdir/other"
	assert_completes "$BATS_TEST_TMPDIR/sockdir/io.rdmad" -s "$BATS_TEST_TMPDIR/sockdir/io"
	# After --socket= only the value is replaced, as bash splits at '='.
	assert_completes "$BATS_TEST_TMPDIR/sockdir/io.rdmad" --socket="$BATS_TEST_TMPDIR/sockdir/io"
}

@test "after -H HOST, live objects come from that host's daemon (through ssh)" {
	pd=$(RDMACTL_SOCKET=$SOCK "$RDMACTL" -j pd create | jq -r '.[0].handle')
	# ssh-here's far host is this one; the bridge to a socket that does not
	# exist gives nothing.
	export RDMACTL_SSH="$TOP/tests/bats/ssh-here" RDMACTL_REMOTE="$RDMACTL"
	run --separate-stderr comp -H far -s "$SOCK" pd destroy ""
	assert_success
	assert_line "$pd"
	run --separate-stderr comp -H far -s "$SOCK.none" pd destroy ""
	assert_output ""
	# And without ssh, none: the handles above came through it, not from here.
	RDMACTL_SSH=/nonexistent/ssh run --separate-stderr comp -H far -s "$SOCK" pd destroy ""
	assert_output ""
}

@test "completion agrees with rdmactl __complete for every command path" {
	for words in "" "dev" "daemon" "daemon log-level"; do
		# shellcheck disable=SC2086
		expected=$("$RDMACTL" __complete -s "$SOCK" $words "" | tr '\n' ' ')
		# shellcheck disable=SC2086
		assert_completes "$expected" -s "$SOCK" $words ""
	done
}

# comp_line LINE: completes at the end of LINE with COMP_WORDS split as bash
# splits them, '=' being a word of its own (COMP_WORDBREAKS).
comp_line() {
	(
		set +eu
		source "$BASH_COMPLETION"
		source "$TOP/completions/rdmactl.bash"
		COMP_LINE=$1
		COMP_POINT=${#COMP_LINE}
		local rest=$1 w
		COMP_WORDS=()
		rest=${rest//=/ = }
		read -ra COMP_WORDS <<<"$rest"
		[[ $1 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMPREPLY=()
		_rdmactl
		printf '%s\n' "${COMPREPLY[@]}"
	)
}

@test "--socket=PATH split at '=' as bash does: path, then device names" {
	mkdir -p "$BATS_TEST_TMPDIR/d"
	touch "$BATS_TEST_TMPDIR/d/io.rdmad"
	run --separate-stderr comp_line "$RDMACTL --socket=$BATS_TEST_TMPDIR/d/io"
	assert_success
	assert_output "$BATS_TEST_TMPDIR/d/io.rdmad"
	run --separate-stderr comp_line "$RDMACTL --socket=$SOCK dev show "
	assert_success
	assert_output soft0
}

@test "command options and their device values" {
	run "$RDMACTL" pd help
	[ "$status" -eq 0 ] || skip "no pd object"
	assert_completes "--dev" pd create --
	assert_completes "soft0" -s "$SOCK" pd create --dev ""
	assert_completes "soft0" -s "$SOCK" pd sh --dev s
}

@test "MR access flags complete after the last comma; on_demand for mr create and reg, not mr dma" {
	assert_completes "local_write,on_demand" mr create 1 --access local_write,o
	assert_completes "on_demand" mr reg 1 --access on
	assert_completes "" mr dma 1 --access local_write,o
	assert_completes "remote_write remote_read" mr dma 1 --access rem
}

@test "MR and MKEY keys complete in hex, the base their lists print, from a hex prefix" {
	pd=$(RDMACTL_SOCKET=$SOCK "$RDMACTL" -j pd create | jq -r '.[0].handle')
	mkey=$(RDMACTL_SOCKET=$SOCK "$RDMACTL" -j mkey create "$pd" --max-entries 2 | jq -r '.[0].handle')
	mr=$(RDMACTL_SOCKET=$SOCK "$RDMACTL" -j mr create "$pd" --size 4096 | jq -r '.[0].handle')
	hex=$(printf '0x%x' "$mkey")
	assert_equal "$(RDMACTL_SOCKET=$SOCK "$RDMACTL" mkey list | grep -c "^mkey $hex:")" 1
	assert_completes "$hex" -s "$SOCK" mkey show "${hex%??}"
	assert_completes "$(printf '0x%x' "$mr")" -s "$SOCK" mr show "$(printf '0x%x' "$mr" | head -c 4)"
	# Typed in either base, the key names the same MKEY.
	assert_equal "$(RDMACTL_SOCKET=$SOCK "$RDMACTL" -j mkey show "$hex" | jq -r '.[0].handle')" "$mkey"
	assert_equal "$(RDMACTL_SOCKET=$SOCK "$RDMACTL" -j mkey show "$mkey" | jq -r '.[0].handle')" "$mkey"
	RDMACTL_SOCKET=$SOCK "$RDMACTL" mr destroy "$mr"
	RDMACTL_SOCKET=$SOCK "$RDMACTL" mkey destroy "$hex"
}

@test "a comma list does not offer a word it holds already" {
	assert_completes "local_write,remote_write local_write,remote_read local_write,on_demand" \
		mr create 1 --access local_write,
	assert_completes "" mr create 1 --access local_write,loc
	assert_completes "remote_read,local_write,remote_write" mr create 1 --access remote_read,local_write,remote_w
	assert_completes "remote_read,remote_write remote_read,remote_atomic" mkey configure 1 --access remote_read,remote_
}

# comp_norc WORD...: comp in "bash --norc" without the bash-completion package, as
# bash calls it: COMP_WORDS split at '=' and ':' as readline does.
comp_norc() {
	local script
	# shellcheck disable=SC2016
	script='source "$1"; shift; COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		COMP_WORDS=($(sed -E "s/([=:])/ \1 /g" <<<"$COMP_LINE")); [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _rdmactl; printf "%s\n" "${COMPREPLY[@]}"'
	bash --norc --noprofile -c "$script" comp "$TOP/completions/rdmactl.bash" "$RDMACTL" "$@"
}

@test "completion works in bash --norc, without the bash-completion package" {
	run --separate-stderr comp_norc p
	assert_success
	[ -z "$stderr" ] || fail "stderr: $stderr"
	assert_line pd
	assert_line pool
	run --separate-stderr comp_norc -s "$SOCK" dev show ""
	[ -z "$stderr" ] || fail "stderr: $stderr"
	assert_output soft0
	run --separate-stderr comp_norc mr create 1 --access local_write,remote_r
	[ -z "$stderr" ] || fail "stderr: $stderr"
	assert_output local_write,remote_read
	# A word bash split at '=': the reply is the part after it.
	run --separate-stderr comp_norc --socket="$SOCK" dev show ""
	[ -z "$stderr" ] || fail "stderr: $stderr"
	assert_output soft0
	run --separate-stderr comp_norc --socket="$BATS_TEST_TMPDIR/"
	[ -z "$stderr" ] || fail "stderr: $stderr"
}
