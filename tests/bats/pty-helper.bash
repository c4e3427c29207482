# pty_session CMD... -- STEP...: runs CMD on a pseudo-terminal (its standard
# input, output and error) and plays the steps: "send:TEXT" types TEXT
# (Python escapes: \r Enter, \x03 Ctrl-C, \x04 Ctrl-D, \x1b[A up), "expect:TEXT"
# waits (5 s at most) until TEXT appears after what the last expect matched,
# "sleep:SECONDS" waits.
# Prints what the terminal showed and exits with CMD's status (124: no exit
# within 5 s of the last step, 125: an expect timed out).
pty_session() {
	python3 -c '
import os, pty, select, sys, time
sep = sys.argv.index("--")
argv, steps = sys.argv[1:sep], sys.argv[sep + 1:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
seen, mark = b"", 0

def read_some(deadline):
    global seen
    ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.time()))
    if not ready:
        return False
    try:
        data = os.read(fd, 4096)
    except OSError:
        data = b""
    seen += data
    return bool(data)

def finish(status):
    sys.stdout.write(seen.decode("utf-8", "replace").replace("\r\n", "\n"))
    sys.exit(status)

for step in steps:
    kind, text = step.split(":", 1)
    data = text.encode().decode("unicode_escape").encode("latin-1")
    if kind == "send":
        os.write(fd, data)
    elif kind == "sleep":
        time.sleep(float(text))
    elif kind == "expect":
        deadline = time.time() + 5
        while data not in seen[mark:]:
            if not read_some(deadline):
                sys.stderr.write("pty_session: no %r within 5 s\n" % text)
                os.kill(pid, 9)
                finish(125)
        mark = seen.index(data, mark) + len(data)
deadline = time.time() + 5
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        read_some(time.time() + 0.1)
        finish(os.waitstatus_to_exitcode(status))
    read_some(min(deadline, time.time() + 0.1))
os.kill(pid, 9)
finish(124)
' "$@"
}
