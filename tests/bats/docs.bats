# make check runs this file alone: network namespaces, veths or TAPs, with names of their own.
# The documentation and the installed extras follow the code: man pages lint
# clean and cover every command, option, method and setting that exists; the
# systemd units verify; "make install" puts every file in its place.
load helper

MAN=$TOP/man

setup() { load_libs; }

# render PAGE: the page as plain text, one long line per paragraph.
render() {
	mandoc -T ascii -O width=1000 "$1" | sed 's/.\x08//g'
}

# subsections PAGE: the .SS headings as plain words ("dev show [DEV]").
subsections() {
	sed -n 's/^\.SS //p' "$1" | sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/"//g'
}

# commands_of [WORDS...]: the command names listed by "rdmactl WORDS help".
commands_of() {
	"$RDMACTL" "$@" help | awk '/^Commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }'
}

@test "every man page is lint clean under mandoc -W warning" {
	local pages=("$MAN"/*.[0-9])
	[ "${#pages[@]}" -eq 9 ]
	for page in "${pages[@]}"; do
		run mandoc -T lint -W warning "$page"
		assert_success
		assert_output ''
	done
}

@test "the nine pages exist with the right names and sections" {
	for page in rdmactl.8 rdmad.8 rdmad.conf.5 rdmad-varlink.7 librdmad.3 rdmad_rc_pingpong.1 \
		rdmad_perftest.1 rdmad_sig_pipeline.1 opa-em.1; do
		assert_file_exists "$MAN/$page"
		name=${page%.*}
		sect=${page##*.}
		upper=$(tr '[:lower:]' '[:upper:]' <<<"$name")
		run grep -c "^\.TH ${upper//-/\\\\-} $sect " "$MAN/$page"
		assert_output 1
	done
}

@test "rdmactl.8 has a COMMANDS subsection for every object and command of rdmactl help" {
	local heads objects=() paths=()
	heads=$(subsections "$MAN/rdmactl.8")
	mapfile -t objects < <(commands_of)
	[ "${#objects[@]}" -ge 3 ]
	for obj in "${objects[@]}"; do
		mapfile -t subs < <(commands_of "$obj")
		if [ "${#subs[@]}" -eq 0 ]; then
			paths+=("$obj")
		else
			for c in "${subs[@]}"; do
				paths+=("$obj $c")
			done
		fi
	done
	for p in "${paths[@]}" help; do
		grep -q "^$p\( \|$\)" <<<"$heads" || fail "rdmactl.8 has no subsection for '$p'"
		# The arguments of the usage line appear in the heading too.
		usage=$("$RDMACTL" $p help | sed -n 's/^Usage: rdmactl //p' | head -1)
		[ "$p" = help ] && continue
		for arg in ${usage#"$p"}; do
			arg=${arg//[\[\]]/}
			grep -q "^$p .*$arg" <<<"$heads" || fail "rdmactl.8: '$p' does not show argument $arg"
		done
	done
}

@test "rdmactl.8 lists the values of every enumerated argument" {
	# daemon log-level LEVEL: the help names the levels; the page must too.
	levels=$("$RDMACTL" daemon log-level help | sed -n 's/.*(\([a-z|]*\)).*/\1/p')
	[ -n "$levels" ]
	text=$(render "$MAN/rdmactl.8")
	for l in ${levels//|/ }; do
		grep -qw -- "$l" <<<"$text" || fail "log level $l not in rdmactl.8"
	done
}

@test "rdmactl.8 documents every global option of rdmactl help" {
	text=$(render "$MAN/rdmactl.8")
	mapfile -t opts < <("$RDMACTL" help | sed -n 's/^  \(-[A-Za-z]\), \(--[a-z-]*\).*/\1, \2/p')
	[ "${#opts[@]}" -ge 7 ]
	for o in "${opts[@]}"; do
		grep -qF -- "$o" <<<"$text" || fail "rdmactl.8 lacks option '$o'"
	done
	for word in RDMACTL_SOCKET "EXIT STATUS" ENVIRONMENT EXAMPLES "SEE ALSO" OUTPUT \
		"INTERACTIVE SHELL"; do
		grep -qF -- "$word" <<<"$text" || fail "rdmactl.8 lacks $word"
	done
}

@test "rdmad.8 documents every option of rdmad --help" {
	text=$(render "$MAN/rdmad.8")
	mapfile -t opts < <("$RDMAD" --help | sed -n 's/^  \(-[A-Za-z]\), \(--[a-z-]*\).*/\1, \2/p')
	[ "${#opts[@]}" -ge 7 ]
	for o in "${opts[@]}"; do
		grep -qF -- "$o" <<<"$text" || fail "rdmad.8 lacks option '$o'"
	done
	for word in SIGTERM SIGHUP READY=1 STOPPING=1 RELOADING=1 WATCHDOG=1 varlink 0660 \
		soft0 /run/rdmad/io.rdmad /var/lib/rdmad /etc/rdmad/rdmad.conf; do
		grep -qF -- "$word" <<<"$text" || fail "rdmad.8 lacks $word"
	done
}

@test "rdmad-varlink.7 documents every interface, method, type and error of the .varlink files" {
	text=$(render "$MAN/rdmad-varlink.7")
	local n=0
	for idl in "$TOP"/daemon/api/*.varlink; do
		iface=$(sed -n 's/^interface \([A-Za-z0-9.]*\).*/\1/p' "$idl")
		grep -qx "INTERFACE $iface" <<<"$text" || fail "no INTERFACE $iface section"
		while read -r m; do
			grep -qE "^ *$m\(" <<<"$text" || fail "method $iface.$m not documented"
			n=$((n + 1))
		done < <(sed -n 's/^method \([A-Za-z0-9]*\).*/\1/p' "$idl")
		while read -r e; do
			grep -qF "$iface.$e" <<<"$text" || fail "error $iface.$e not documented"
		done < <(sed -n 's/^error \([A-Za-z0-9]*\).*/\1/p' "$idl")
		while read -r t; do
			grep -qw "$t" <<<"$text" || fail "type $t not documented"
		done < <(sed -n 's/^type \([A-Za-z0-9]*\).*/\1/p' "$idl")
	done
	[ "$n" -ge 5 ]
	for m in GetInfo GetInterfaceDescription; do
		grep -qE "^ *$m\(" <<<"$text" || fail "org.varlink.service.$m not documented"
	done
}

@test "rdmad-varlink.7 names every field of the Device, Port and status replies" {
	text=$(render "$MAN/rdmad-varlink.7")
	# Field names are the lines "  name: type," inside the .varlink files.
	for f in $(sed -n 's/^  \([a-z_0-9]*\): .*/\1/p' "$TOP"/daemon/api/*.varlink | sort -u); do
		grep -qw -- "$f" <<<"$text" || fail "field $f not in rdmad-varlink.7"
	done
}

@test "rdmad.conf.5 documents every key config.c accepts, and nothing else" {
	text=$(render "$MAN/rdmad.conf.5")
	# Keys compared one by one, and those of the table of numbers.
	mapfile -t keys < <(sed -n -e 's/.*strcmp(key, "\([a-z_]*\)").*/\1/p' \
		-e 's/^\t{ "\([a-z_]*\)", "a number.*/\1/p' "$TOP/daemon/core/config.c")
	[ "${#keys[@]}" -ge 3 ]
	for k in "${keys[@]}"; do
		grep -qF ".BI \"$k = \"" "$MAN/rdmad.conf.5" || fail "rdmad.conf.5 lacks setting $k"
		grep -qw -- "$k" <<<"$text" || fail "rdmad.conf.5 does not render $k"
		grep -qE "^#?$k = " "$TOP/systemd/rdmad.conf" || fail "example rdmad.conf lacks $k"
	done
	for k in $(sed -n 's/^\.BI "\([a-z_]*\) = .*/\1/p' "$MAN/rdmad.conf.5"); do
		printf '%s\n' "${keys[@]}" | grep -qx "$k" || fail "rdmad.conf.5 documents unknown key $k"
	done
}

@test "the example rdmad.conf, uncommented, is accepted and equals the defaults" {
	local d=$BATS_TEST_TMPDIR
	sed 's/^#\([a-z_]* = \)/\1/' "$TOP/systemd/rdmad.conf" >"$d/rdmad.conf"
	grep -q '^log_level = ' "$d/rdmad.conf"
	"$RDMAD" --foreground --socket "$d/io.rdmad" --state-dir "$d/state" --config "$d/rdmad.conf" \
		>"$d/rdmad.log" 2>&1 3>&- &
	pid=$!
	for i in $(seq 1 200); do
		[ -S "$d/io.rdmad" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	run "$RDMACTL" -s "$d/io.rdmad" -j status
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	assert_success
	assert_output --partial '"log_level":"info"'
	# The commented defaults are the built-in ones.
	grep -q '^#max_connections = 4096$' "$TOP/systemd/rdmad.conf"
	grep -q '^#max_connections_per_uid = 64$' "$TOP/systemd/rdmad.conf"
}

# Known noise of systemd 252 on newer kernels' syscall tables.
verify_filter() {
	grep -v -e 'riscv_hwprobe' -e 'uretprobe' || true
}

@test "systemd-analyze verify accepts the units, their man pages included" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze missing"
	local d=$BATS_TEST_TMPDIR
	mkdir -p "$d/units" "$d/man/man1" "$d/man/man3" "$d/man/man5" "$d/man/man7" "$d/man/man8"
	# The service runs the built daemon, so verify finds an executable.
	sed "s|@SBINDIR@|$BUILD|g; s|@BINDIR@|$BUILD|g" "$TOP/systemd/rdmad.service" >"$d/units/rdmad.service"
	sed "s|@SBINDIR@|$BUILD|g" "$TOP/systemd/rdmad.socket" >"$d/units/rdmad.socket"
	for p in "$MAN"/*.[0-9]; do
		cp "$p" "$d/man/man${p##*.}/"
	done
	cd "$d/units"
	run --separate-stderr env MANPATH="$d/man" systemd-analyze verify rdmad.socket rdmad.service
	filtered=$(printf '%s\n%s\n' "$output" "$stderr" | verify_filter | sed '/^$/d')
	assert_equal "$filtered" ''
	assert_success
}

@test "the service is hardened (systemd-analyze security exposure below 3.0)" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze missing"
	local d=$BATS_TEST_TMPDIR
	sed "s|@SBINDIR@|$BUILD|g; s|@BINDIR@|$BUILD|g" "$TOP/systemd/rdmad.service" >"$d/rdmad.service"
	run systemd-analyze security --offline=yes "$d/rdmad.service"
	level=$(sed -n 's/.*Overall exposure level for rdmad.service: \([0-9.]*\).*/\1/p' <<<"$output")
	[ -n "$level" ] || fail "no exposure level in: $output"
	awk -v l="$level" 'BEGIN { exit !(l < 3.0) }' || fail "exposure $level"
}

@test "the units carry what the daemon relies on" {
	s=$TOP/systemd/rdmad.service
	k=$TOP/systemd/rdmad.socket
	for line in Type=notify NotifyAccess=main 'ExecStart=@SBINDIR@/rdmad' \
		'ExecReload=@BINDIR@/rdmactl daemon reload' WatchdogSec= StateDirectory=rdmad \
		ConfigurationDirectory=rdmad Requires=rdmad.socket LimitNOFILE=524288; do
		grep -qF -- "$line" "$s" || fail "rdmad.service lacks $line"
	done
	# A RuntimeDirectory= would remove the socket's directory on stop.
	run grep -c '^RuntimeDirectory=' "$s"
	assert_output 0
	for line in ListenStream=/run/rdmad/io.rdmad FileDescriptorName=varlink SocketMode=0660 \
		SocketGroup=rdma DirectoryMode=0755; do
		grep -qxF -- "$line" "$k" || fail "rdmad.socket lacks $line"
	done
	grep -qx 'g rdma -' "$TOP/systemd/rdmad.sysusers"
	grep -qx 'd /run/rdmad 0755 root root -' "$TOP/systemd/rdmad.tmpfiles"
	# The paths in the units are the daemon's defaults.
	"$RDMAD" --help | grep -qF /run/rdmad/io.rdmad
	"$RDMAD" --help | grep -qF /var/lib/rdmad
	"$RDMAD" --help | grep -qF /etc/rdmad/rdmad.conf
}

# pkgdir PACKAGE VARIABLE FALLBACK: where install-extras.sh puts such files.
pkgdir() {
	local v
	v=$(pkg-config --variable="$2" "$1" 2>/dev/null) || true
	echo "${v:-$3}"
}

@test "make install DESTDIR= puts every file where expected" {
	local d=$BATS_TEST_TMPDIR/root
	run make -C "$TOP" --no-print-directory install DESTDIR="$d" PREFIX=/usr BUILD="$BUILD"
	assert_success
	unitdir=$(pkgdir systemd systemdsystemunitdir /lib/systemd/system)
	sysusersdir=$(pkgdir systemd sysusersdir /usr/lib/sysusers.d)
	tmpfilesdir=$(pkgdir systemd tmpfilesdir /usr/lib/tmpfiles.d)
	compdir=$(pkgdir bash-completion completionsdir /usr/share/bash-completion/completions)
	# rdmactl where group rdma's members find it on their PATH; rdmad with the system's daemons.
	for f in /usr/sbin/rdmad /usr/bin/rdmactl /usr/lib/librdmad.so.0.1.0 /usr/bin/rdmad_rc_pingpong \
		/usr/bin/rdmad_perftest /usr/bin/rdmad_sig_pipeline /usr/bin/opa-em; do
		assert_file_executable "$d$f"
	done
	# The examples find the library where it was installed, not in the build tree.
	for f in /usr/bin/rdmad_rc_pingpong /usr/bin/rdmad_perftest /usr/bin/rdmad_sig_pipeline; do
		run readelf -d "$d$f"
		refute_output --partial "$BUILD"
		refute_output --regexp 'R(UN)?PATH'
		assert_output --partial '[librdmad.so.0]'
	done
	assert_not_exists "$d/usr/sbin/rdmactl"
	# The VNIC example, a root's script, with the examples' README; the same bytes.
	assert_file_executable "$d/usr/share/doc/rdmad/examples/vnic-netns.sh"
	assert_file_permission 644 "$d/usr/share/doc/rdmad/examples/README.md"
	cmp "$TOP/examples/vnic-netns.sh" "$d/usr/share/doc/rdmad/examples/vnic-netns.sh"
	# The client library: its links, headers and pkg-config file.
	assert_equal "$(readlink "$d/usr/lib/librdmad.so.0")" librdmad.so.0.1.0
	assert_equal "$(readlink "$d/usr/lib/librdmad.so")" librdmad.so.0
	for f in /usr/include/rdmad/rdmad.h /usr/include/rdmad/verbs.h /usr/lib/pkgconfig/rdmad.pc \
		/usr/share/man/man3/librdmad.3; do
		assert_file_permission 644 "$d$f"
	done
	assert_file_contains "$d/usr/lib/pkgconfig/rdmad.pc" '^libdir=/usr/lib$'
	run env PKG_CONFIG_PATH="$d/usr/lib/pkgconfig" pkg-config --libs --cflags rdmad
	# pkg-config leaves out the system's directories, and ends with a space.
	assert_equal "$(echo $output)" -lrdmad

	for f in /usr/share/man/man8/rdmactl.8 /usr/share/man/man8/rdmad.8 \
		/usr/share/man/man5/rdmad.conf.5 /usr/share/man/man7/rdmad-varlink.7 \
		/usr/share/man/man1/rdmad_rc_pingpong.1 /usr/share/man/man1/rdmad_perftest.1 \
		/usr/share/man/man1/rdmad_sig_pipeline.1 /usr/share/man/man1/opa-em.1 \
		"$unitdir/rdmad.service" "$unitdir/rdmad.socket" "$sysusersdir/rdmad.conf" \
		"$tmpfilesdir/rdmad.conf" "$compdir/rdmactl" /etc/rdmad/rdmad.conf; do
		assert_file_exists "$d$f"
		assert_file_permission 644 "$d$f"
	done
	# Placeholders are filled in.
	run grep -rlI '@[A-Z]*@' "$d"
	assert_failure
	assert_file_contains "$d$unitdir/rdmad.service" '^ExecStart=/usr/sbin/rdmad '
	assert_file_contains "$d$unitdir/rdmad.service" '^ExecReload=/usr/bin/rdmactl daemon reload$'
	cmp "$TOP/completions/rdmactl.bash" "$d$compdir/rdmactl"
	cmp "$TOP/systemd/rdmad.conf" "$d/etc/rdmad/rdmad.conf"
	# Nothing lands outside DESTDIR's expected tree.
	run bash -c "cd '$d' && find . -type f | sort"
	assert_equal "${#lines[@]}" 27
}

@test "install-extras.sh keeps an existing /etc/rdmad/rdmad.conf" {
	local d=$BATS_TEST_TMPDIR/root
	mkdir -p "$d/etc/rdmad"
	echo 'log_level = debug # mine' >"$d/etc/rdmad/rdmad.conf"
	run "$TOP/build-aux/install-extras.sh" "$d" /usr/local /usr/local/sbin /usr/local/bin
	assert_success
	assert_output --partial 'left as it is'
	assert_file_contains "$d/etc/rdmad/rdmad.conf" 'mine'
	unitdir=$(pkgdir systemd systemdsystemunitdir /lib/systemd/system)
	assert_file_contains "$d$unitdir/rdmad.service" '^ExecStart=/usr/local/sbin/rdmad '
}

@test "install-extras.sh wants exactly four arguments" {
	run -2 "$TOP/build-aux/install-extras.sh" /tmp/x
	assert_output --partial usage
	run -2 "$TOP/build-aux/install-extras.sh" /tmp/x /usr/local /usr/local/sbin
	assert_output --partial usage
}

@test "rdmactl(8) EXIT STATUS names every error of every interface with its status" {
	section=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$TOP/man/rdmactl.8")
	for e in $(grep -ho '^error [A-Za-z]*' "$TOP"/daemon/api/*.varlink | awk '{print $2}' | sort -u); do
		grep -Eq "^\.BR? io\.rdmad\.[A-Za-z*]+\.$e\$" <<<"$section" || {
			echo "rdmactl(8) EXIT STATUS does not name io.rdmad.*.$e" >&2
			return 1
		}
	done
	for e in $(grep -o 'org\.varlink\.service\.[A-Za-z]*' "$TOP/lib/varlink/varlink.h" | sort -u); do
		grep -q "$e" <<<"$section" || { echo "rdmactl(8) EXIT STATUS does not name $e" >&2; return 1; }
	done
}
