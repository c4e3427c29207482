#!/usr/bin/env bats
# Memory regions against a real rdmad: daemon MRs with their keys and access
# (roce_virtio.md §1.5: key = index << 8 | tag, rkey = lkey only with remote
# access, RFC bits LOCAL_WRITE 1 / REMOTE_WRITE 2 / REMOTE_READ 4), GET_DMA_MR,
# DEREG_MR refused while used, and mr write/read of bytes, bounded and whole.
# On-demand MRs (IBV_ACCESS_ON_DEMAND, ibv_reg_mr(3)): no page until a
# transfer first touches it, through an lkey, an rkey or an MKEY, while an MR
# without it has every page at registration (docs/decisions.md).

load helper
load qp-helper

setup_file() {
	rdmad_start
	"$RDMACTL" pd create >/dev/null
	"$RDMACTL" pd create >/dev/null
	"$RDMACTL" gid add 0 fe80::1 >/dev/null
}
teardown_file() { rdmad_stop; }
setup() { load_libs; }

# mr_create ARGS...: prints the new MR's handle.
mr_create() {
	"$RDMACTL" -j mr create "$@" | jq -r '.[0].handle'
}

mr_field() {
	"$RDMACTL" -j mr show "$1" | jq -r ".[0].$2"
}

# mr_count: how many MRs the daemon has.
mr_count() {
	"$RDMACTL" -j mr list | jq length
}

# assert_refused ERROR FIELD: the last run failed naming the error and the field, with its exit status.
assert_refused() {
	assert_failure "$(refusal_status "$1")"
	assert_output --partial "io.rdmad.Mr.$1: field '$2'"
}

@test "mr create: lkey = index << 8 | tag, rkey = lkey with remote access, JSON keys" {
	run "$RDMACTL" -j mr create 1 --size 4096 --access local_write,remote_read
	assert_success
	rec=$(jq -c '.[0]' <<<"$output")
	h=$(jq -r .handle <<<"$rec")
	[ "$(jq -r .lkey <<<"$rec")" = "$h" ]
	[ "$(jq -r .rkey <<<"$rec")" = "$h" ]
	[ "$(jq -r .mrn <<<"$rec")" = "$((h >> 8))" ]
	[ $((h & 255)) -ne 0 ]
	assert_equal "$(jq -c '{ifname, ifindex, pd, mr_type, access, mrlen}' <<<"$rec")" \
		'{"ifname":"soft0","ifindex":0,"pd":1,"mr_type":"daemon","access":["local_write","remote_read"],"mrlen":4096}'
	[ "$(jq -r .iova <<<"$rec")" -gt 0 ]
}

@test "mr create without remote access has no rkey; no --access is local read only" {
	h=$(mr_create 1 --size 10 --access local_write)
	[ "$(mr_field "$h" rkey)" = 0 ]
	h=$(mr_create 1 --size 10)
	[ "$(mr_field "$h" access)" = '[]' ]
	[ "$(mr_field "$h" rkey)" = 0 ]
}

@test "mr create: remote_write needs local_write; nothing is created" {
	n=$(mr_count)
	run "$RDMACTL" mr create 1 --size 10 --access remote_write
	assert_refused InvalidArgument access
	assert_output --partial "remote_write needs local_write"
	run "$RDMACTL" mr create 1 --size 10 --access remote_write,remote_read
	assert_refused InvalidArgument access
	[ "$(mr_count)" = "$n" ]
}

@test "mr create: size 0 and over max_mr_size refused naming size" {
	n=$(mr_count)
	run "$RDMACTL" mr create 1 --size 0
	assert_refused InvalidArgument size
	# max_mr_size defaults to 1 GiB.
	run "$RDMACTL" mr create 1 --size $((1024 * 1024 * 1024 + 1))
	assert_refused InvalidArgument size
	assert_output --partial "1 to 1073741824 bytes"
	[ "$(mr_count)" = "$n" ]
}

@test "mr create: unknown PD, unknown access word, missing --size" {
	n=$(mr_count)
	run "$RDMACTL" mr create 99 --size 10
	assert_failure 1
	assert_output --partial "io.rdmad.Mr.NoSuchObject: kind 'pd', handle '99'"
	run "$RDMACTL" mr create 1 --size 10 --access local_write,remote_atomic
	assert_failure 2
	assert_output --partial "--access: 'remote_atomic' is not one of"
	run "$RDMACTL" mr create 1
	assert_failure 2
	run "$RDMACTL" mr create 1 --size ten
	assert_failure 2
	[ "$(mr_count)" = "$n" ]
}

@test "a PD with an MR is not destroyed; the error names the MR" {
	h=$(mr_create 2 --size 100)
	run "$RDMACTL" pd destroy 2
	assert_failure 1
	assert_output --partial "io.rdmad.Pd.ObjectInUse: kind 'pd', handle '2', user_kind 'mr', user_handle '$(printf 0x%x "$h")'"
	[ "$("$RDMACTL" -j pd show 2 | jq '.[0].mrs')" -ge 1 ]
	run "$RDMACTL" mr destroy "$h"
	assert_success
	assert_output ''
}

@test "mr destroy: the key is gone, and a stale key never finds the next MR of the slot" {
	h=$(mr_create 1 --size 10)
	"$RDMACTL" mr destroy "$h"
	run "$RDMACTL" mr show "$h"
	assert_failure 1
	assert_output --partial "io.rdmad.Mr.NoSuchObject: kind 'mr', handle '$(printf 0x%x "$h")'"
	run "$RDMACTL" mr destroy "$h"
	assert_failure 1
	run "$RDMACTL" mr destroy abc
	assert_failure 2
}

@test "mr write then read: the bytes round-trip, at an offset, across several calls" {
	h=$(mr_create 1 --size 10000000)
	head -c 9000000 /dev/urandom >"$BATS_TEST_TMPDIR/in"
	run "$RDMACTL" mr write "$h" --offset 1000 <"$BATS_TEST_TMPDIR/in"
	assert_success
	assert_output ''
	"$RDMACTL" mr read "$h" --offset 1000 --length 9000000 >"$BATS_TEST_TMPDIR/out"
	cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	# The memory starts zeroed; read without --length goes to the end.
	"$RDMACTL" mr read "$h" --length 1000 | cmp - <(head -c 1000 /dev/zero)
	[ "$("$RDMACTL" mr read "$h" --offset 9000000 | wc -c)" = 1000000 ]
}

@test "mr write -j says how many bytes; an empty input writes nothing" {
	h=$(mr_create 1 --size 16)
	run "$RDMACTL" -j mr write "$h" --offset 3 < <(printf 'hello')
	assert_success
	assert_output '{"written":5}'
	run "$RDMACTL" mr write "$h" </dev/null
	assert_success
	run "$RDMACTL" mr read "$h" --offset 2 --length 7
	assert_success
	[ "$("$RDMACTL" mr read "$h" --offset 2 --length 7 | od -An -c | tr -s ' ')" = ' \0 h e l l o \0' ]
}

@test "mr write past the end is refused whole: nothing is written" {
	h=$(mr_create 1 --size 100)
	run "$RDMACTL" mr write "$h" --offset 96 < <(printf 'abcdef')
	assert_failure 1
	assert_output --partial "length: 6 bytes from offset 96 pass the end of the MR (100 bytes)"
	"$RDMACTL" mr read "$h" --offset 90 | cmp - <(head -c 10 /dev/zero)
	run "$RDMACTL" mr write "$h" --offset 101 </dev/null
	assert_refused InvalidArgument offset
	# Exactly to the end is fine.
	printf 'abcd' | "$RDMACTL" mr write "$h" --offset 96
	[ "$("$RDMACTL" mr read "$h" --offset 96)" = abcd ]
}

@test "mr write and read stream 32 MiB through pipes: same bytes, rdmactl's memory a few MiB" {
	h=$(mr_create 1 --size $((32 << 20)))
	head -c $((32 << 20)) /dev/urandom >"$BATS_TEST_TMPDIR/in"
	cat "$BATS_TEST_TMPDIR/in" | /usr/bin/time -f %M -o "$BATS_TEST_TMPDIR/wrss" "$RDMACTL" mr write "$h"
	/usr/bin/time -f %M -o "$BATS_TEST_TMPDIR/rrss" "$RDMACTL" mr read "$h" | sha256sum >"$BATS_TEST_TMPDIR/out.sum"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/out.sum")" "$(sha256sum <"$BATS_TEST_TMPDIR/in")"
	# Peak RSS in KiB: a chunk at a time, far below the 32 MiB moved (a sanitizer's
	# quarantine keeps freed chunks: not measured there).
	! ldd "$RDMACTL" | grep -Eq 'lib(asan|tsan)' || skip "rdmactl built with a sanitizer"
	[ "$(cat "$BATS_TEST_TMPDIR/wrss")" -lt 20000 ]
	[ "$(cat "$BATS_TEST_TMPDIR/rrss")" -lt 20000 ]
}

@test "mr write: a file too long is refused whole; a pipe found too long after a chunk says what went in" {
	h=$(mr_create 1 --size $((3 << 20)))
	head -c $((4 << 20)) /dev/urandom >"$BATS_TEST_TMPDIR/in"
	# A file's length is known before any byte goes: nothing is written.
	run "$RDMACTL" mr write "$h" <"$BATS_TEST_TMPDIR/in"
	assert_failure 1
	assert_output --partial "length: 4194304 bytes from offset 0 pass the end of the MR (3145728 bytes)"
	"$RDMACTL" mr read "$h" | cmp - <(head -c $((3 << 20)) /dev/zero)
	# A pipe's is known at its end: the chunks before are in, and the error says how many bytes.
	run bash -c "cat '$BATS_TEST_TMPDIR/in' | '$RDMACTL' mr write $h"
	assert_failure 1
	assert_output --partial "the first 3145728 bytes were written before the input turned out longer than the MR"
	"$RDMACTL" mr read "$h" | cmp - <(head -c $((3 << 20)) "$BATS_TEST_TMPDIR/in")
}

@test "mr read past the end is refused before any byte is printed" {
	h=$(mr_create 1 --size 100)
	run --separate-stderr "$RDMACTL" mr read "$h" --offset 50 --length 51
	assert_failure 1
	assert_output ''
	assert_regex "$stderr" "length: 51 bytes from offset 50 pass the end"
	run "$RDMACTL" mr read "$h" --offset 101
	assert_refused InvalidArgument offset
	run "$RDMACTL" mr read "$h" --offset -1
	assert_failure 2
}

@test "mr dma: GET_DMA_MR on a PD, no memory of its own" {
	run "$RDMACTL" -j mr dma 1 --access local_write,remote_write
	assert_success
	rec=$(jq -c '.[0]' <<<"$output")
	assert_equal "$(jq -c '{pd, mr_type, access, iova, mrlen}' <<<"$rec")" \
		'{"pd":1,"mr_type":"dma","access":["local_write","remote_write"],"iova":0,"mrlen":0}'
	h=$(jq -r .handle <<<"$rec")
	[ "$(jq -r .rkey <<<"$rec")" = "$h" ]
	run "$RDMACTL" mr read "$h" --length 1
	assert_refused NotSupported handle
	run "$RDMACTL" mr write "$h" < <(printf x)
	assert_refused NotSupported handle
	run "$RDMACTL" mr dma 1 --access remote_write
	assert_refused InvalidArgument access
	run "$RDMACTL" mr dma 7
	assert_failure 1
	assert_output --partial "NoSuchObject: kind 'pd', handle '7'"
}

@test "mr show, list and the default command" {
	h=$(mr_create 1 --size 64 --access local_write)
	run "$RDMACTL" mr show "$h"
	assert_success
	assert_line --index 0 --regexp "^mr $(printf 0x%x "$h"): ifname soft0 ifindex 0 mrn $((h >> 8)) pd 1 mr_type daemon access local_write lkey $(printf 0x%x "$h") rkey 0x0 "
	run "$RDMACTL" -j mr list
	assert_success
	jq -e --argjson h "$h" 'map(.handle) | index($h) != null' <<<"$output"
	run "$RDMACTL" mr
	assert_success
	assert_output --partial "mr $(printf 0x%x "$h"):"
	run "$RDMACTL" mr show 1234567
	assert_failure 1
	run "$RDMACTL" mr show --dev nodev
	assert_failure 1
	assert_output --partial "io.rdmad.Mr.NoSuchDevice: device 'nodev'"
}

@test "max_mr_size from rdmad.conf bounds mr create after a reload" {
	echo "max_mr_size = 4096" >"$BATS_FILE_TMPDIR/rdmad.conf"
	"$RDMACTL" daemon reload
	run "$RDMACTL" mr create 1 --size 4097
	assert_refused InvalidArgument size
	run "$RDMACTL" mr create 1 --size 4096
	assert_success
	: >"$BATS_FILE_TMPDIR/rdmad.conf"
	"$RDMACTL" daemon reload
	run "$RDMACTL" mr create 1 --size 4097
	assert_success
}

@test "raw varlink: every io.rdmad.Mr method" {
	run varlink_raw '{"method":"io.rdmad.Mr.Create","parameters":{"pd":1,"size":8,"access":["local_write"]}}\0'
	assert_success
	h=$(jq -r .parameters.mr.handle <<<"$output")
	assert_output --partial '"mr_type":"daemon"'
	run varlink_raw '{"method":"io.rdmad.Mr.Write","parameters":{"handle":'"$h"',"offset":2,"data":"AQID"}}\0'
	assert_output '{"parameters":{"written":3}}'
	run varlink_raw '{"method":"io.rdmad.Mr.Read","parameters":{"handle":'"$h"',"length":8}}\0'
	assert_output '{"parameters":{"data":"AAABAgMAAAA="}}'
	run varlink_raw '{"method":"io.rdmad.Mr.Write","parameters":{"handle":'"$h"',"data":"AQI"}}\0'
	assert_output --partial '"error":"io.rdmad.Mr.InvalidArgument","parameters":{"field":"data"'
	run varlink_raw '{"method":"io.rdmad.Mr.Read","parameters":{"handle":'"$h"',"length":9}}\0'
	assert_output --partial '"field":"length"'
	run varlink_raw '{"method":"io.rdmad.Mr.Show","parameters":{"handle":'"$h"'}}\0'
	assert_output --partial "\"handle\":$h"
	run varlink_raw '{"method":"io.rdmad.Mr.List","parameters":{}}\0'
	assert_output --partial '"mrs":['
	run varlink_raw '{"method":"io.rdmad.Mr.GetDma","parameters":{"pd":1,"access":[]}}\0'
	assert_output --partial '"mr_type":"dma"'
	run varlink_raw '{"method":"io.rdmad.Mr.Create","parameters":{"pd":1,"size":8,"access":["remote_atomic"]}}\0'
	assert_output --partial '"error":"org.varlink.service.InvalidParameter"'
	run varlink_raw '{"method":"io.rdmad.Mr.Destroy","parameters":{"handle":'"$h"'}}\0'
	assert_output '{"parameters":{}}'
}

# reg_user ARGS...: a python3 application that makes a sealed 4 KiB memfd
# holding "hello", registers it with rdmactl mr reg ARGS (the memfd is rdmactl's
# descriptor 3), writes "world" after it, reads back what an mr write put at 10,
# and prints rdmactl's output and what it sees.
reg_user() {
	python3 - "$RDMACTL" "$@" <<'PY'
import fcntl, os, subprocess, sys
fd = os.memfd_create("app", os.MFD_ALLOW_SEALING)
os.write(fd, b"hello" + bytes(4091))
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
os.dup2(fd, 3)
r = subprocess.run([sys.argv[1], "-j", "mr", "reg"] + sys.argv[2:], pass_fds=[3],
                   capture_output=True, text=True)
sys.stdout.write(r.stdout)
sys.stderr.write(r.stderr)
if r.returncode == 0:
    import json
    handle = str(json.loads(r.stdout)[0]["handle"])
    os.pwrite(fd, b"world", 5)
    subprocess.run([sys.argv[1], "mr", "write", handle, "--offset", "10"], input=b"!!", check=True)
    print(os.pread(fd, 12, 0).decode())
    print(handle)
sys.exit(r.returncode)
PY
}

@test "mr reg registers an application's memfd; both sides see the same bytes (REG_USER_MR)" {
	pd=$("$RDMACTL" -j pd create | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	run reg_user "$pd" --fd 3 --length 4096 --iova 65536 --access local_write,remote_read
	assert_success
	assert_line --index 0 --regexp "^\[\{\"ifname\":\"soft0\",\"ifindex\":0,\"handle\":[0-9]+,\"mrn\":[0-9]+,\"pd\":$pd,\"mr_type\":\"user\",\"access\":\[\"local_write\",\"remote_read\"\],\"lkey\":[0-9]+,\"rkey\":[0-9]+,\"iova\":65536,\"mrlen\":4096,\"state\":\"valid\",\"on_demand\":false,\"pinned\":true,\"pages\":1,\"resident_pages\":1\}\]$"
	assert_line --index 1 'helloworld!!'
	handle=${lines[2]}
	# What the application wrote is what the MR holds.
	run "$RDMACTL" mr read "$handle" --length 12
	assert_output 'helloworld!!'
	run "$RDMACTL" mr destroy "$handle"
	assert_success
}

@test "mr reg refuses what is not a sealed memfd of the caller, naming fd" {
	pd=$("$RDMACTL" -j pd create | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	# rdmactl cannot pass what it does not hold.
	run -1 --separate-stderr "$RDMACTL" mr reg "$pd" --fd 77 --length 4096
	assert_equal "$stderr" "rdmactl: mr reg: 77 is not a file descriptor rdmactl holds open"
	head -c 4096 /dev/zero >"$BATS_TEST_TMPDIR/plain"
	run -2 --separate-stderr bash -c "exec 3<>'$BATS_TEST_TMPDIR/plain'; '$RDMACTL' mr reg $pd --fd 3 --length 4096"
	assert_regex "$stderr" "field 'fd', reason 'must be a memfd sealed with F_SEAL_SHRINK'"
	# Passed read-only: the daemon maps the pages writable.
	run -2 --separate-stderr python3 -c '
import fcntl, os, sys
fd = os.memfd_create("ro", os.MFD_ALLOW_SEALING)
os.ftruncate(fd, 4096)
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
os.dup2(os.open("/proc/self/fd/%d" % fd, os.O_RDONLY), 3)
os.execv(sys.argv[1], [sys.argv[1], "mr", "reg", sys.argv[2], "--fd", "3", "--length", "4096"])
' "$RDMACTL" "$pd"
	assert_regex "$stderr" "field 'fd', reason 'not open for reading and writing'"
	run -2 --separate-stderr reg_user "$pd" --fd 3 --length 8192
	assert_regex "$stderr" "field 'length'"
	run -2 --separate-stderr "$RDMACTL" mr reg "$pd" --length 10
	assert_equal "$stderr" "rdmactl: mr reg: missing option --fd N"
	run "$RDMACTL" -j mr list
	refute_output --partial '"mr_type":"user"'
}

# ---- on-demand MRs ----

# resident MR: how many of its pages are in RAM now.
resident() {
	mr_field "$1" resident_pages
}

@test "mr create --access local_write,on_demand: no page until touched; without it, all pinned" {
	run "$RDMACTL" -j mr create 1 --size 65536 --access local_write,on_demand
	assert_success
	assert_equal "$(jq -c '.[0] | {access, on_demand, pinned, pages, resident_pages}' <<<"$output")" \
		'{"access":["local_write","on_demand"],"on_demand":true,"pinned":false,"pages":16,"resident_pages":0}'
	h=$(jq -r '.[0].handle' <<<"$output")
	# The owner's view touches pages too: one written, one read, the others never.
	printf 'abc' | "$RDMACTL" mr write "$h" --offset 4096
	[ "$(resident "$h")" = 1 ]
	[ "$("$RDMACTL" mr read "$h" --offset 4096 --length 3)" = abc ]
	run "$RDMACTL" mr show "$h"
	assert_output --regexp "on_demand true pinned false pages 16 resident_pages 1$"
	# The verbs default: pinned at registration, every page there (root may lock).
	run "$RDMACTL" -j mr create 1 --size 65536 --access local_write
	assert_equal "$(jq -c '.[0] | {on_demand, pinned, pages, resident_pages}' <<<"$output")" \
		'{"on_demand":false,"pinned":true,"pages":16,"resident_pages":16}'
}

@test "on_demand: remote_write still needs local_write; a DMA MR refuses it, naming access and the words" {
	n=$(mr_count)
	run "$RDMACTL" mr create 1 --size 10 --access remote_write,on_demand
	assert_refused InvalidArgument access
	assert_output --partial "remote_write needs local_write"
	run --separate-stderr "$RDMACTL" mr dma 1 --access local_write,on_demand
	assert_failure 2
	assert_equal "$stderr" "rdmactl: mr dma: --access: 'on_demand' is not one of: local_write, remote_write, remote_read"
	run --separate-stderr "$RDMACTL" mr create 1 --size 10 --access on_demnd
	assert_failure 2
	assert_equal "$stderr" "rdmactl: mr create: --access: 'on_demnd' is not one of: local_write, remote_write, remote_read, on_demand"
	[ "$(mr_count)" = "$n" ]
}

@test "raw varlink: Create takes on_demand, GetDma does not; the interface says so" {
	run varlink_raw '{"method":"io.rdmad.Mr.Create","parameters":{"pd":1,"size":8192,"access":["on_demand"]}}\0'
	assert_success
	assert_equal "$(jq -c '.parameters.mr | {access, on_demand, pinned, pages, resident_pages}' <<<"$output")" \
		'{"access":["on_demand"],"on_demand":true,"pinned":false,"pages":2,"resident_pages":0}'
	run varlink_raw '{"method":"io.rdmad.Mr.GetDma","parameters":{"pd":1,"access":["on_demand"]}}\0'
	assert_output --partial '"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"access[0]"}'
	run varlink_raw '{"method":"io.rdmad.Mr.Create","parameters":{"pd":1,"size":8,"access":["remote_write","on_demand"]}}\0'
	assert_output '{"error":"io.rdmad.Mr.InvalidArgument","parameters":{"field":"access","reason":"remote_write needs local_write too"}}'
	run varlink_raw '{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"io.rdmad.Mr"}}\0'
	assert_output --partial 'on_demand: bool'
}

@test "mr reg --access ...,on_demand: the application's memfd, not pinned, same bytes" {
	pd=$("$RDMACTL" -j pd create | sed -n 's/.*"handle":\([0-9]*\).*/\1/p')
	run reg_user "$pd" --fd 3 --length 4096 --access local_write,on_demand
	assert_success
	assert_equal "$(head -n 1 <<<"$output" | jq -c '.[0] | {mr_type, access, on_demand, pinned, pages}')" \
		'{"mr_type":"user","access":["local_write","on_demand"],"on_demand":true,"pinned":false,"pages":1}'
	assert_line --index 1 'helloworld!!'
	handle=${lines[2]}
	run "$RDMACTL" mr read "$handle" --length 12
	assert_output 'helloworld!!'
	"$RDMACTL" mr destroy "$handle"
}

@test "on-demand MRs on the data path: WRITE, SEND and READ into and from them; only the touched pages come" {
	P=$(new_mr 1 4096 local_write,remote_write,remote_read)
	D=$(new_mr 1 65536 local_write,remote_write,remote_read,on_demand)
	E=$(new_mr 1 65536 local_write,remote_write,remote_read,on_demand)
	pair
	put "$P" 0 0102030405060708
	# WRITE from pinned memory into page 3 of D (its rkey).
	"$RDMACTL" qp post "$A" write --sge "$P:0:8" --remote "$D:12288" --wrid 1 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "1 success rdma_write 8 0 $A 0 "
	[ "$(resident "$D")" = 1 ]
	# SEND from that page of D into page 5 of E (lkeys on both sides).
	"$RDMACTL" qp post-recv "$B" --sge "$E:20480:64" --wrid 2
	"$RDMACTL" qp post "$A" send --sge "$D:12288:8" --wrid 3 --signaled
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "2 success recv 8 0 $B 0 "
	[ "$(resident "$E")" = 1 ]
	# READ from E (rkey) into page 7 of D (lkey).
	"$RDMACTL" qp post "$A" read --sge "$D:28672:8" --remote "$E:20480" --wrid 4 --signaled
	run wc_fields "$(poll_n "$CA" 2)"
	assert_line "3 success send 8 0 $A 0 "
	assert_line "4 success rdma_read 8 0 $A 0 "
	[ "$(resident "$D")" = 2 ]
	[ "$(resident "$E")" = 1 ]
	run get "$D" 12288 8
	assert_output 0102030405060708
	run get "$E" 20480 8
	assert_output 0102030405060708
	run get "$D" 28672 8
	assert_output 0102030405060708
}

@test "an MKEY over an on-demand MR works as over any other, both ways" {
	cd "$BATS_TEST_TMPDIR"
	M=$(new_mr 1 16384 local_write,remote_write,remote_read,on_demand)
	PEER=$(new_mr 1 8192 local_write,remote_write,remote_read)
	pair
	# TX: the block and its PI in page 0 of M, read through the MKEY as lkey.
	k=$(t10_mkey "$M" 0 ec7d5678f0debc9a)
	"$RDMACTL" qp post "$A" write --sge "$k:0:512" --remote "$PEER:0" --wrid 1 --signaled
	run wc_fields "$(poll_n "$CA" 1)"
	assert_output "1 success rdma_write 512 0 $A 0 "
	assert_equal "$(get "$PEER" 0 520)" "$(a5 512)0000000000000000"
	# RX: an MKEY (rkey) over page 2 of M, which nothing touched before the WRITE.
	[ "$(resident "$M")" = 1 ]
	put "$PEER" 4096 "$(a5 512)"
	k2=$(t10_mkey_over "$M" 8192 local_write,remote_write)
	"$RDMACTL" qp post "$B" write --sge "$PEER:4096:512" --remote "$k2:0" --wrid 2 --signaled
	run wc_fields "$(poll_n "$CB" 1)"
	assert_output "2 success rdma_write 512 0 $B 0 "
	[ "$(resident "$M")" = 2 ]
	assert_equal "$(get "$M" 8192 520)" "$(a5 512)ec7d5678f0debc9a"
	assert_equal "$("$RDMACTL" -j mkey check "$k" | jq -r .err_type)" none
}

# large_create_beside WHAT: sends Mr.Create of 512 MiB on PD 1 and, once
# rdmad's anonymous memory has grown by 32 MiB (its pages are being made
# ready), WHAT on another connection: "status" (Daemon.GetStatus), "close"
# (the creating client goes away) or "pd" (Pd.Destroy of a PD made for it,
# which the create names instead).  Prints in the order they came: "other"
# for the other call's reply, "create" and the create's reply.
large_create_beside() {
	python3 - "$RDMACTL_SOCKET" "$(cat "$BATS_FILE_TMPDIR/rdmad.pid")" "$1" "${2:-1}" <<'PY'
import json, select, socket, sys, time
path, pid, what, pd = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def anon_kb():
    for line in open("/proc/%s/status" % pid):
        if line.startswith("RssAnon:"):
            return int(line.split()[1])
def connect():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    return s
def send(s, method, params):
    s.sendall(json.dumps({"method": method, "parameters": params}).encode() + b"\0")
def reply(s):
    data = b""
    while not data.endswith(b"\0"):
        chunk = s.recv(65536)
        if not chunk:
            return "closed"
        data += chunk
    return data[:-1].decode()
before = anon_kb()
a = connect()
send(a, "io.rdmad.Mr.Create", {"pd": pd, "size": 512 << 20, "access": ["local_write"]})
end = time.time() + 20
while anon_kb() < before + 32 * 1024 and time.time() < end:
    time.sleep(0.005)
b = connect()
if what == "close":
    a.close()
    send(b, "io.rdmad.Daemon.GetStatus", {})
    print("other", reply(b)[:40])
    sys.exit(0)
send(b, "io.rdmad.Daemon.GetStatus" if what == "status" else "io.rdmad.Pd.Destroy",
     {} if what == "status" else {"handle": pd})
pending = {a: "create", b: "other"}
while pending:
    ready, _, _ = select.select(list(pending), [], [], 20)
    if not ready:
        print("timeout")
        break
    for s in ready:
        text = reply(s)
        print(pending.pop(s), text if s is a else text[:40])
PY
}

@test "a large Mr.Create does not hold up other calls: they are answered while its memory is made ready" {
	before=$(mr_count)
	run large_create_beside status
	assert_success
	assert_line --index 0 --partial 'other {"parameters":'
	assert_line --index 1 --partial 'create {"parameters":{"mr":{'
	assert_line --index 1 --partial '"mrlen":536870912,'
	assert_line --index 1 --partial '"pinned":true,"pages":131072,"resident_pages":131072}'
	h=$(sed -n 's/.*"handle":\([0-9]*\).*/\1/p' <<<"${lines[1]}")
	assert_equal "$(mr_count)" $((before + 1))
	"$RDMACTL" mr destroy "$h"
}

# anon_back KB: rdmad's anonymous memory comes back below KB + 64 MiB within 5 s.
anon_back() {
	local anon i
	for i in $(seq 1 100); do
		anon=$(awk '/^RssAnon:/ { print $2 }' "/proc/$(cat "$BATS_FILE_TMPDIR/rdmad.pid")/status")
		[ "$anon" -lt $(($1 + 65536)) ] && return 0
		sleep 0.05
	done
	echo "rdmad's RssAnon: $anon KiB, from $1" >&2
	return 1
}

@test "a large Mr.Create whose client goes away, or whose PD goes, while its memory is made ready leaves nothing" {
	before=$(mr_count)
	anon0=$(awk '/^RssAnon:/ { print $2 }' "/proc/$(cat "$BATS_FILE_TMPDIR/rdmad.pid")/status")
	run large_create_beside close
	assert_success
	assert_line --index 0 --partial 'other {"parameters":'
	# The abandoned create's memory goes once it is made: the next create's growth is measured from there.
	anon_back "$anon0"
	pd=$("$RDMACTL" -j pd create | jq -r '.[0].handle')
	run large_create_beside pd "$pd"
	assert_success
	assert_line --index 0 'other {"parameters":{}}'
	assert_line --index 1 "create {\"error\":\"io.rdmad.Mr.NoSuchObject\",\"parameters\":{\"kind\":\"pd\",\"handle\":$pd}}"
	# The abandoned create's memory may still be in the making (ASan is slow): its MR goes when it is done.
	for i in $(seq 1 200); do
		[ "$(mr_count)" = "$before" ] && break
		sleep 0.05
	done
	assert_equal "$(mr_count)" "$before"
	# The memory made ready for neither is given back.
	anon_back "$anon0"
	assert_daemon_serves
}
