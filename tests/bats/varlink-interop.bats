#!/usr/bin/env bats
# Interoperability of rdmad's interfaces with varlink implementations nobody
# here wrote (issue 15 item 10): the reference Python one (python3-varlink,
# where the distribution has it) reads every interface description the
# daemon serves and calls a read method of each; and no description uses
# what that parser is known to refuse.

load helper

setup_file() {
	rdmad_start
}
teardown_file() { rdmad_stop; }

setup() {
	load_libs
	cd "$BATS_TEST_TMPDIR"
}

@test "no interface has an enum of one member (the reference Python parser refuses one)" {
	run -0 python3 - "$TOP"/daemon/api/*.varlink <<-'EOF2'
	import re, sys
	bad = []
	for path in sys.argv[1:]:
	    text = re.sub(r"#.*", "", open(path).read())
	    bad += ["%s: %s" % (path, m.group(0)) for m in re.finditer(r"\(\s*[A-Za-z_0-9]+\s*\)", text)]
	print("\n".join(bad))
	sys.exit(1 if bad else 0)
	EOF2
	assert_output ""
}

@test "python3-varlink introspects every interface and calls a read method of each" {
	python3 -c 'import varlink' 2>/dev/null || skip "python3-varlink is not installed (not in Debian 12)"
	run -0 python3 - "$RDMACTL_SOCKET" <<-'EOF2'
	import sys, varlink
	read_method = {
	    "io.rdmad.Daemon": "GetStatus", "io.rdmad.Monitor": "Subscribe",
	}
	with varlink.Client("unix:" + sys.argv[1]) as client:
	    with client.open("org.varlink.service") as service:
	        names = service.GetInfo()["interfaces"]
	    for name in names:
	        if name == "org.varlink.service":
	            continue
	        # open() fetches the description and parses it.
	        with client.open(name) as conn:
	            method = read_method.get(name, "List")
	            if method == "Subscribe":
	                reply = next(conn.Subscribe(_more=True))
	            else:
	                reply = getattr(conn, method)()
	            print(name, method, ",".join(sorted(reply)))
	EOF2
	assert_line "io.rdmad.Device List devices"
	assert_line "io.rdmad.Daemon GetStatus $(jq -r 'keys_unsorted | sort | join(",")' <"$BATS_FILE_TMPDIR/status.json")"
	assert_line "io.rdmad.Pd List pds"
	assert_line "io.rdmad.Monitor Subscribe event"
	assert_equal "${#lines[@]}" "$(varlink_raw '{"method":"org.varlink.service.GetInfo"}\0' | jq '.parameters.interfaces | length - 1')"
}
