# Other users for the suites that call as someone else than root (authz,
# limits): a member of group rdma and an outsider, made in setup_file and
# removed in teardown_file, and a daemon directory they can reach.

# users_make MEMBER OUTSIDER: group rdma (made unless it exists) and the two users.
users_make() {
	if ! getent group rdma >/dev/null; then
		groupadd --system rdma
		touch "$BATS_FILE_TMPDIR/made-group"
	fi
	userdel "$1" 2>/dev/null || true
	userdel "$2" 2>/dev/null || true
	useradd --no-create-home --no-user-group --shell /usr/sbin/nologin --groups rdma "$1"
	useradd --no-create-home --no-user-group --shell /usr/sbin/nologin "$2"
}

# users_remove MEMBER OUTSIDER: the users, and group rdma if users_make made it.
users_remove() {
	userdel "$1" 2>/dev/null || true
	userdel "$2" 2>/dev/null || true
	[ ! -e "$BATS_FILE_TMPDIR/made-group" ] || groupdel rdma
}

# shared_dir NAME: prints a new /tmp/rdmad-NAME.XXXXXX that other users may
# enter (bats's own directories are private), kept for setup() in the file's
# "dir".
shared_dir() {
	local d
	d=$(mktemp -d "/tmp/rdmad-$1.XXXXXX")
	chmod 0755 "$d"
	echo "$d" >"$BATS_FILE_TMPDIR/dir"
	echo "$d"
}

# as USER COMMAND...: runs COMMAND with USER's ids and the groups the user database gives it.
as() {
	local user=$1
	shift
	setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups "$@"
}
