#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The -j walker of rdmad-varlink(7) "Vocabulary", for rdmactl: every command of
rdmactl's command table (read from `rdmactl help` at every level, so that a
new command cannot be missed) is run with -j on a daemon holding objects of
every kind, or named in SKIP with the reason it is not.  Every key of every
output is checked against the vocabulary with varlink-vocab.py's table and
checker, and the values of one concept against one spelling: states one
lower-case word, ifname a device's name, numbers as JSON numbers (no "0x..."
strings), yes/no as JSON booleans.

  rdmactl-vocab.py RDMACTL SOCKET TOP WORKDIR

WORKDIR is the test's directory (key files, configurations).  Prints one line
per problem and exits 1 if there is any; else prints what it walked.
"""
import fcntl
import importlib.util
import json
import os
import re
import subprocess
import sys

# Commands not run, each with its reason.  A command of the table that is in
# neither RUNS nor SKIP is a problem: the audit must say what it did with it.
SKIP = {
    "mr read": "prints the MR's bytes, not JSON (rdmactl(8) JSON)",
    "mkey tx": "prints the wire bytes, not JSON (with --output: nothing)",
    "dek login": "needs a wrapped credential and KEK (dek.bats); prints nothing",
    "dek logout": "needs a login (dek.bats); prints nothing",
    "qp recover": "needs a QP in SQD after a signature stop (qp.bats); prints the QP as qp show",
}

# The command lines, in order: creations first, reads, then destructions.
# {name} is an object made earlier (its handle), or a file in WORKDIR.
RUNS = [
    ("status", []),
    ("dev show", []),
    ("dev list", []),
    ("pd create", []),
    ("pd show", ["{pd}"]),
    ("pd list", []),
    ("gid add", ["0", "fe80::1"]),
    ("mr create", ["{pd}", "--size", "8192", "--access", "local_write,remote_read,remote_write"]),
    ("mr dma", ["{pd}", "--access", "local_write"]),
    ("mr reg", ["{pd}", "--fd", "{memfd}", "--length", "4096"]),
    ("mr write", ["{mr}"]),
    ("mr show", ["{mr}"]),
    ("mr list", []),
    ("cq create", ["--cqe", "16"]),
    ("qp create", ["--pd", "{pd}", "--send-cq", "{cq}", "--recv-cq", "{cq}", "--type", "rc"]),
    ("qp modify", ["{qp}", "--state", "init", "--access", "local_write,remote_write,remote_read"]),
    ("qp modify", ["{qp}", "--state", "rtr", "--dgid", "fe80::1", "--sgid-index", "0", "--path-mtu",
                   "1024", "--dest-qp", "{qp}", "--rq-psn", "0", "--max-dest-rd-atomic", "4",
                   "--min-rnr-timer", "1"]),
    ("qp modify", ["{qp}", "--state", "rts", "--timeout", "14", "--retry-cnt", "7", "--rnr-retry", "7",
                   "--sq-psn", "0", "--max-rd-atomic", "4"]),
    ("qp post-recv", ["{qp}", "--sge", "{mr}:0:16", "--wrid", "5"]),
    ("qp post", ["{qp}", "send", "--sge", "{mr}:16:16", "--wrid", "6", "--signaled"]),
    ("qp post-list", ["{qp}", "--file", "{wrs.json}"]),
    ("qp modify", ["{qp}", "--state", "sqd"]),
    ("qp cancel", ["{qp}", "--wrid", "77"]),
    ("qp modify", ["{qp}", "--state", "rts"]),
    ("qp show", ["{qp}"]),
    ("qp list", []),
    ("cq poll", ["{cq}", "--wait", "200"]),
    ("cq notify", ["{cq}", "--next"]),
    ("cq show", ["{cq}"]),
    ("cq list", []),
    ("ah create", ["{pd}", "--dgid", "fe80::2", "--sgid-index", "0"]),
    ("ah show", ["{ah}"]),
    ("ah list", []),
    ("gid show", ["0"]),
    ("gid list", []),
    ("dek create", ["vocab", "--size", "128", "--key-file", "{dek.key}"]),
    ("dek modify", ["vocab", "--allow", "root"]),
    ("dek show", ["vocab"]),
    ("dek list", []),
    ("dek login-state", []),
    ("mkey create", ["{pd}", "--flags", "block_signature,crypto", "--max-entries", "4"]),
    ("mkey configure", ["{mkey}", "--layout", "{mr}:0:1024", "--access", "remote_read",
                        "--config", "{config.json}", "--dek", "vocab"]),
    ("mkey rx", ["{mkey}"]),
    ("mkey check", ["{mkey}"]),
    ("mkey show", ["{mkey}"]),
    ("mkey list", []),
    ("pool create", ["vocab", "--type", "signature", "--size", "2"]),
    ("pool resize", ["vocab", "--size", "3"]),
    ("pool modify", ["vocab", "--allow", "root"]),
    ("pool borrow", ["vocab", "--owner", "vocab"]),
    ("pool show", ["vocab"]),
    ("pool list", []),
    ("pool return", ["{borrowed}", "--owner", "vocab"]),
    ("vnic show", []),
    ("vnic list", []),
    ("vnic counters", []),
    ("vnic fabric", []),
    ("vdev create", ["vocab", "--socket", "{vocab.vhost}"]),
    ("vdev show", ["vocab"]),
    ("vdev list", []),
    ("offload tx", ["--config", "{offload.json}", "--output", "{wire.bin}", "--report", "{report.json}"]),
    ("offload rx", ["--config", "{offload.json}", "--output", "{mem.bin}"]),
    ("offload levels", []),
    ("daemon log-level", ["info"]),
    ("daemon reload", []),
    ("dump", []),
    ("apply", ["{apply.json}", "--dry-run"]),
    ("monitor", []),
    ("ah destroy", ["{ah}"]),
    ("qp destroy", ["{qp}"]),
    ("mkey destroy", ["{mkey}"]),
    ("pool destroy", ["vocab"]),
    ("vdev destroy", ["vocab"]),
    ("dek destroy", ["vocab"]),
    ("mr destroy", ["{mr}"]),
    ("cq destroy", ["{cq}"]),
    ("gid del", ["0"]),
    ("pd create", []),
    ("pd destroy", ["{pd}"]),
]

# Findings not fixed yet, each with what is wrong: the audit prints them and
# passes, and fails when one no longer happens (then it leaves this list).
KNOWN = {
}

# Commands whose -j output is a file format of its own, not a reply: each
# with how it is checked instead.  dump prints the provisioning file apply
# reads (rdmad-varlink(7) VOCABULARY; decisions.md): applied back, it must
# change nothing.
FILE_FORMATS = {"dump": "apply"}


# What a command's output names, kept for the commands after it.
MAKES = {"pd create": "pd", "mr create": "mr", "cq create": "cq", "qp create": "qp",
         "ah create": "ah", "mkey create": "mkey"}

# Keys whose values are states: one lower-case word.  A port's link state and
# physical state keep rdma link's spelling (ACTIVE, LINK_UP: decisions.md).
STATE_KEYS = {"state", "old_state", "new_state", "armed", "config_state", "oper_state",
              "eth_link_status", "crypto_login", "err_type", "status", "recovery"}
LINK_PARENTS = {"ports"}


def load_checker(top):
    spec = importlib.util.spec_from_file_location("varlink_vocab", f"{top}/tests/tools/varlink-vocab.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def command_table(rdmactl, words=()):
    """The leaf commands under words, from rdmactl's help at each level."""
    out = subprocess.run([rdmactl, *words, "help"], capture_output=True, text=True).stdout
    if "\nCommands:\n" not in out:
        return [" ".join(words)]
    section = out.split("\nCommands:\n", 1)[1].split("\n\n", 1)[0]
    leaves = []
    for line in section.splitlines():
        name = line.split()[0]
        leaves += command_table(rdmactl, (*words, name))
    return leaves


class Values:
    """One spelling per concept, beside the vocabulary's keys and shapes."""

    def __init__(self, problems, devices):
        self.problems, self.devices = problems, devices

    def walk(self, where, path, value, parent=""):
        if isinstance(value, dict):
            for k, v in value.items():
                self.value(where, f"{path}.{k}" if path else k, parent, k, v)
                self.walk(where, f"{path}.{k}" if path else k, v, k)
        elif isinstance(value, list):
            for v in value:
                self.walk(where, path + "[]", v, parent)

    def value(self, where, path, parent, key, v):
        if key in STATE_KEYS and isinstance(v, str) and parent not in LINK_PARENTS:
            if not re.fullmatch(r"[a-z][a-z0-9_]*", v):
                self.problems.append(f"{where}: {path}: state '{v}' is not one lower-case word")
        if key == "ifname" and v not in self.devices:
            self.problems.append(f"{where}: {path}: '{v}' is not a device's name {sorted(self.devices)}")
        if isinstance(v, str) and re.fullmatch(r"0x[0-9a-fA-F]+|[1-9][0-9]*", v):
            self.problems.append(f"{where}: {path}: the number '{v}' is a string")
        if isinstance(v, str) and v in ("true", "false", "yes", "no"):
            self.problems.append(f"{where}: {path}: yes/no '{v}' is a string, not a boolean")


def prepare(workdir):
    """The files the command lines name."""
    config = {"mem": None,
              "wire": {"sig_type": "t10dif", "block_size": 512,
                       "t10dif": {"bg_type": "crc", "bg": 65535, "app_tag": 1, "ref_tag": 7}},
              "crypto": {"standard": "aes_xts", "encrypt_on_tx": True, "data_unit_size": 512}}
    with open(f"{workdir}/config.json", "w") as f:
        json.dump(config, f)
    with open(f"{workdir}/offload.json", "w") as f:
        json.dump({"mem": None, "wire": config["wire"]}, f)
    # A change to list (apply --dry-run), so that a change's keys are checked too.
    with open(f"{workdir}/apply.json", "w") as f:
        json.dump({"version": 1, "settings": {"log_level": "info"}, "devices": {"soft0": {
            "pools": [{"name": "vocab-apply", "type": "crypto", "size": 1}]}}}, f)
    memfd = os.memfd_create("vocab", os.MFD_ALLOW_SEALING)
    os.ftruncate(memfd, 4096)
    fcntl.fcntl(memfd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
    return memfd


def main():
    rdmactl, socket_path, top, workdir = sys.argv[1:5]
    vocab_module = load_checker(top)
    vocab, retired = vocab_module.vocabulary(top)
    check = vocab_module.Checker(vocab, retired)
    env = dict(os.environ, RDMACTL_SOCKET=socket_path)
    devices = set(json.loads(subprocess.run([rdmactl, "-j", "dev", "list"], env=env,
                                            capture_output=True, text=True, check=True).stdout))
    values = Values(check.problems, devices)
    memfd = prepare(workdir)
    objects = {"memfd": str(memfd)}

    table = command_table(rdmactl)
    ran = {path for path, _ in RUNS}
    for path in table:
        if path not in ran and path not in SKIP:
            check.problems.append(f"{path}: neither walked nor skipped with a reason")
    for path in sorted((ran | set(SKIP)) - set(table)):
        check.problems.append(f"{path}: walked or skipped, but not in rdmactl's command table")

    # The monitor hears everything below; its lines are checked at the end.
    monitor = subprocess.Popen([rdmactl, "-j", "monitor"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    if not monitor.stdout.readline().startswith('{"type":"subscribed"'):
        check.problems.append("monitor: no subscribed line")

    walked = 0
    for path, words in RUNS:
        if path == "monitor":
            continue
        def fill(word):
            return re.sub(r"\{([a-z.]+)\}", lambda m: objects[m.group(1)] if m.group(1) in objects
                          else f"{workdir}/{m.group(1)}", word)
        args = [fill(w) for w in words]
        stdin = b"vocabulary" if path == "mr write" else b""
        if path == "mkey rx" or path == "offload rx":
            stdin = open(f"{workdir}/wire.bin" if path == "offload rx" else "/dev/null", "rb").read()
        r = subprocess.run([rdmactl, "-j", *path.split(), *args], env=env, input=stdin,
                           capture_output=True, pass_fds=(memfd,))
        where = f"rdmactl -j {path}"
        if r.returncode != 0:
            check.problems.append(f"{where}: exit {r.returncode}: {r.stderr.decode().strip()}")
            continue
        walked += 1
        out = r.stdout.decode()
        if not out.strip():
            continue
        try:
            doc = json.loads(out)
        except ValueError:
            check.problems.append(f"{where}: -j printed no JSON: {out[:80]!r}")
            continue
        if path in FILE_FORMATS:
            back = subprocess.run([rdmactl, "-j", FILE_FORMATS[path], "-", "--dry-run"], env=env,
                                  input=r.stdout, capture_output=True)
            changes = json.loads(back.stdout or b"{}").get("changes") if back.returncode == 0 else None
            if changes != []:
                check.problems.append(f"{where}: {FILE_FORMATS[path]} of it would change "
                                      f"{changes!r}: {back.stderr.decode().strip()}")
            continue
        if path in MAKES:
            objects[MAKES[path]] = str(doc[0]["handle"])
        if path == "pool borrow":
            objects["borrowed"] = str(doc["mkey"] if isinstance(doc, dict) else doc)
        if path == "mr create":
            objects["mr"] = str(doc[0]["lkey"])
            with open(f"{workdir}/wrs.json", "w") as f:
                json.dump([{"opcode": "send", "wr_id": 8, "signaled": True,
                            "sges": [{"key": doc[0]["lkey"], "offset": 32, "length": 16}]}], f)
        audit(check, values, where, doc)

    monitor.terminate()
    events = 0
    for line in monitor.stdout:
        audit(check, values, "rdmactl -j monitor", json.loads(line))
        events += 1
    if events < 10:
        check.problems.append(f"rdmactl -j monitor: {events} events, expected the creations' and more")

    unknown = [p for p in check.problems if not any(re.match(k, p) for k in KNOWN)]
    for k, why in KNOWN.items():
        if not any(re.match(k, p) for p in check.problems):
            unknown.append(f"known finding no longer found, take it out of KNOWN: {why}")
        else:
            print(f"known: {why}")
    for p in unknown:
        print(p)
    if unknown:
        return 1
    print(f"{walked} command lines of {len(table)} commands ({len(SKIP)} skipped) and {events} events: "
          f"{len(check.seen)} keys, all in the vocabulary")
    return 0


def audit(check, values, where, doc):
    """A document: a record, a list of records, or a list of words (device names)."""
    if isinstance(doc, dict):
        check.reply(where, doc)
    elif isinstance(doc, list):
        for item in doc:
            if isinstance(item, dict):
                for k, v in item.items():
                    check.key(where, k, k, v)
            elif not (isinstance(item, str) and item in values.devices):
                check.problems.append(f"{where}: a list of {item!r}, neither records nor device names")
    else:
        check.problems.append(f"{where}: a bare {type(doc).__name__} {doc!r}, not a record: no key says what it is")
    values.walk(where, "", doc if isinstance(doc, (dict, list)) else {})


if __name__ == "__main__":
    sys.exit(main())
