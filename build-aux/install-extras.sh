#!/bin/sh
# Installs what is not a binary or a man page: the systemd units, sysusers.d and
# tmpfiles.d entries, the bash completion and the example configuration.
#
#   build-aux/install-extras.sh DESTDIR PREFIX SBINDIR BINDIR
#
# Called by "make install".  Directories come from pkg-config where the
# packages say where they want their files, with Debian's paths as fallback.
# Everything lands under DESTDIR; an existing rdmad.conf is never overwritten.
set -eu

if [ $# -ne 4 ]; then
	echo "usage: $0 DESTDIR PREFIX SBINDIR BINDIR" >&2
	exit 2
fi
destdir=$1
prefix=$2
sbindir=$3
bindir=$4
top=$(cd "$(dirname "$0")/.." && pwd)

# pkgvar PACKAGE VARIABLE FALLBACK
pkgvar() {
	v=$(pkg-config --variable="$2" "$1" 2>/dev/null || true)
	if [ -n "$v" ]; then
		echo "$v"
	else
		echo "$3"
	fi
}

unitdir=$(pkgvar systemd systemdsystemunitdir /lib/systemd/system)
sysusersdir=$(pkgvar systemd sysusersdir /usr/lib/sysusers.d)
tmpfilesdir=$(pkgvar systemd tmpfilesdir /usr/lib/tmpfiles.d)
completionsdir=$(pkgvar bash-completion completionsdir /usr/share/bash-completion/completions)
confdir=/etc/rdmad

# subst SRC DST MODE: installs SRC with @PREFIX@, @SBINDIR@ and @BINDIR@ filled in.
subst() {
	mkdir -p "$(dirname "$2")"
	sed -e "s|@PREFIX@|$prefix|g" -e "s|@SBINDIR@|$sbindir|g" -e "s|@BINDIR@|$bindir|g" "$1" >"$2.tmp"
	chmod "$3" "$2.tmp"
	mv "$2.tmp" "$2"
	echo "  $2"
}

echo "install-extras: installing into ${destdir:-/}"
subst "$top/systemd/rdmad.service" "$destdir$unitdir/rdmad.service" 0644
subst "$top/systemd/rdmad.socket" "$destdir$unitdir/rdmad.socket" 0644
subst "$top/systemd/rdmad.sysusers" "$destdir$sysusersdir/rdmad.conf" 0644
subst "$top/systemd/rdmad.tmpfiles" "$destdir$tmpfilesdir/rdmad.conf" 0644
subst "$top/completions/rdmactl.bash" "$destdir$completionsdir/rdmactl" 0644

if [ -e "$destdir$confdir/rdmad.conf" ]; then
	echo "  $destdir$confdir/rdmad.conf exists, left as it is"
else
	subst "$top/systemd/rdmad.conf" "$destdir$confdir/rdmad.conf" 0644
fi

# On a live system (no DESTDIR) the group and the directory are wanted now.
if [ -z "$destdir" ] && [ "$(id -u)" -eq 0 ]; then
	command -v systemd-sysusers >/dev/null 2>&1 &&
		systemd-sysusers "$sysusersdir/rdmad.conf" || true
	command -v systemd-tmpfiles >/dev/null 2>&1 &&
		systemd-tmpfiles --create "$tmpfilesdir/rdmad.conf" || true
fi
