#!/bin/sh
# Installs the Debian packages the build and the tests need, and nothing when all are present.
set -eu

packages="gcc make pkg-config
libsystemd-dev libjson-c-dev libnl-3-dev libnl-route-3-dev libibumad-dev libreadline-dev
libgcrypt20-dev libisal-dev libssl-dev libcmocka-dev
bats bats-support bats-assert bats-file parallel socat varlink-go mandoc man-db bash-completion systemd
python3 util-linux openssl xxd passwd jq openssh-client openssh-server
iproute2 iputils-ping tshark iperf3 nftables ethtool
qemu-system-x86 cpio"

# Installed when the distribution has them: tests that need one skip without it.
# python3-varlink (the reference implementation, for varlink-interop.bats) is
# not in Debian 12.
optional="python3-varlink"

installed() {
	case "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" in
	*"ok installed") return 0 ;;
	*) return 1 ;;
	esac
}

missing=""
for p in $packages; do
	installed "$p" || missing="$missing $p"
done
for p in $optional; do
	installed "$p" && continue
	case "$(apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: *//p')" in
	"" | "(none)") ;;
	*) missing="$missing $p" ;;
	esac
done

[ -z "$missing" ] && exit 0

echo "deps: installing:$missing" >&2
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO=sudo
	else
		echo "deps: missing Debian packages:$missing" >&2
		echo "deps: run as root: apt-get install$missing" >&2
		exit 1
	fi
else
	SUDO=
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists; a failed install is retried once after refreshing them.
if ! $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null; then
	$SUDO apt-get update -q >/dev/null || true
	if ! $SUDO apt-get install -y -q --no-install-recommends $missing >/dev/null; then
		echo "deps: apt-get could not install:$missing" >&2
		exit 1
	fi
fi
