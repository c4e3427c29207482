#!/bin/sh
# guest-image.sh DIR: a Linux guest for vdev-qemu.bats, made in DIR once and
# reused: DIR/vmlinuz (Debian's cloud kernel) and DIR/initrd.img (busybox, the
# virtio-net driver's modules and tests/tools/guest-init as /init).  The two
# Debian packages are fetched with apt-get download and unpacked with dpkg-deb:
# nothing is installed on this system.  On failure it says why on stderr and
# exits 1 (the caller skips with that reason).
set -eu

dir=$1
here=$(cd "$(dirname "$0")" && pwd)
[ -s "$dir/vmlinuz" ] && [ -s "$dir/initrd.img" ] && [ "$dir/initrd.img" -nt "$here/guest-init" ] && exit 0

fail() {
	echo "guest-image: $*" >&2
	exit 1
}

for tool in apt-get apt-cache dpkg-deb cpio gzip; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done
kernel=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-.*\)/\1/p' | head -n 1)
[ -n "$kernel" ] || fail "apt knows no linux-image-cloud-amd64 (apt-get update?)"

mkdir -p "$dir"
work=$(mktemp -d "$dir/work.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -q "$kernel" busybox-static >download.log 2>&1) ||
	fail "apt-get download $kernel busybox-static failed: $(tail -n 1 "$work/download.log")"
dpkg-deb -x "$work"/linux-image-*.deb "$work/kernel"
dpkg-deb -x "$work"/busybox-static_*.deb "$work/busybox"

modules=$(echo "$work"/kernel/lib/modules/*)
[ -d "$modules" ] || fail "$kernel has no modules"
root="$work/root"
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/lib/modules"
cp "$work/busybox/bin/busybox" "$root/bin/busybox"
cp "$here/guest-init" "$root/init"
chmod 0755 "$root/init"

# Each module after the ones it depends on, as its .modinfo section names them
# (the package has no modules.dep until depmod runs at installation).
: >"$root/lib/modules/order"
add_module() {
	grep -qx "$1.ko" "$root/lib/modules/order" && return 0
	# No local variables in sh: the recursion may change $path, so it is found again after.
	path=$(find "$modules" -name "$1.ko" | head -n 1)
	[ -n "$path" ] || fail "no module $1 in $kernel"
	for dep in $(tr '\0' '\n' <"$path" | sed -n 's/^depends=//p' | head -n 1 | tr ',' ' '); do
		add_module "$dep"
	done
	cp "$(find "$modules" -name "$1.ko" | head -n 1)" "$root/lib/modules/"
	echo "$1.ko" >>"$root/lib/modules/order"
}
add_module virtio_pci
add_module virtio_net

cp "$work"/kernel/boot/vmlinuz-* "$work/vmlinuz"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.img"
mv "$work/vmlinuz" "$dir/vmlinuz"
mv "$work/initrd.img" "$dir/initrd.img"
