# Core files of a live rdmad, for the suites that look for what must not be in
# one (coredump, limits): gcore's image, and how often given bytes are in it.

# core_skip_unless_possible: skips without gcore, and for a sanitized rdmad,
# whose terabytes of shadow memory gcore would dump.
core_skip_unless_possible() {
	command -v gcore >/dev/null || skip "gcore (gdb) missing"
	! ldd "$RDMAD" | grep -Eq 'lib(asan|tsan)' || skip "rdmad built with a sanitizer's shadow memory"
}

# core_take PID FILE: a core file of the live process PID at FILE; the process goes on.
# Whatever happens, the core may not fill the disk: gcore dies past 4 GiB.
core_take() {
	(ulimit -f $((4 << 20)) && gcore -o "$2.tmp" "$1" >/dev/null 2>&1)
	mv "$2.tmp.$1" "$2"
}

# core_count FILE LABEL=HEX...: "LABEL N" for each, N the times the bytes HEX are in FILE.
core_count() {
	python3 - "$@" <<'PY'
import mmap, sys
with open(sys.argv[1], "rb") as f:
    image = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
for arg in sys.argv[2:]:
    label, needle = arg.rsplit("=", 1)
    needle = bytes.fromhex(needle)
    n, at = 0, image.find(needle)
    while at >= 0:
        n, at = n + 1, image.find(needle, at + 1)
    print(label, n)
PY
}
