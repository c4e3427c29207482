#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The reply walker of rdmad-varlink(7) "Vocabulary": creates one object of
each kind on a running rdmad, calls every read method of every io.rdmad
interface (found by introspection, so a new one cannot be missed), and checks
every key of every reply against the vocabulary table of docs/varlink-api.md.

  varlink-vocab.py SOCKET TOP KEYDIR

KEYDIR holds "dek.key" (32 bytes, mode 0600) for the DEK.  Prints one line per
problem and exits 1 if there is any; else prints what it checked.
"""
import json
import os
import re
import socket
import sys



class Varlink:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.buf = b""

    def send(self, method_, params=None, more=False):
        msg = {"method": method_, "parameters": params or {}}
        if more:
            msg["more"] = True
        self.sock.sendall(json.dumps(msg).encode() + b"\0")

    def receive(self):
        while b"\0" not in self.buf:
            data = self.sock.recv(1 << 20)
            if not data:
                raise EOFError("rdmad closed the connection")
            self.buf += data
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method_, **params):
        self.send(method_, params)
        reply = self.receive()
        if "error" in reply:
            raise RuntimeError(f"{method_}({params}): {reply['error']} {reply.get('parameters')}")
        return reply.get("parameters", {})


def vocabulary(top):
    """{key: (shape, nullable)} and the retired names, from docs/varlink-api.md."""
    text = open(f"{top}/docs/varlink-api.md").read()
    section = text.split("\n## Vocabulary\n", 1)[1].split("\n## ", 1)[0]
    vocab, retired = {}, set()
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        names = re.findall(r"`([a-z0-9_.]+)`", cells[0]) if line.startswith("|") else []
        if len(cells) == 3 and names and cells[1] not in ("shape", "---"):
            shape = cells[1]
            for name in names:
                if name in vocab:
                    sys.exit(f"vocabulary: {name} has two rows")
                vocab[name] = (shape.lstrip("?"), shape.startswith("?"))
        elif len(cells) == 1 and names:
            retired.update(names)
    return vocab, retired


def shape_of(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        inner = {shape_of(v) for v in value}
        return "[]" + inner.pop() if len(inner) == 1 else "[]"
    return "null"


class Checker:
    def __init__(self, vocab, retired):
        self.vocab, self.retired = vocab, retired
        self.problems, self.seen = [], set()

    def row(self, path, key):
        parent = path.rsplit(".", 1)[0].split(".")[-1].rstrip("[]") if "." in path else ""
        return self.vocab.get(f"{parent}.{key}") or self.vocab.get(key)

    def key(self, where, path, key, value):
        self.seen.add(key)
        if key in self.retired:
            self.problems.append(f"{where}: {path}: '{key}' is a retired name")
            return
        row = self.row(path, key)
        if not row:
            self.problems.append(f"{where}: {path}: '{key}' is not in the vocabulary")
            return
        shape, nullable = row
        if shape == "any":
            # A fragment of a file format (apply's from and to): any JSON, not looked into.
            return
        got = shape_of(value)
        ok = got == shape or (got == "null" and nullable) or \
            (got == "[]" and shape.startswith("[]"))
        if not ok:
            self.problems.append(f"{where}: {path}: {got}, the vocabulary says {'?' if nullable else ''}{shape}")
        self.walk(where, path, value)

    def walk(self, where, path, value):
        if isinstance(value, dict):
            for k, v in value.items():
                self.key(where, f"{path}.{k}", k, v)
        elif isinstance(value, list):
            for v in value:
                self.walk(where, path + "[]", v)

    def reply(self, where, params):
        """A reply's parameters: records and lists of records are looked into, not up."""
        for k, v in params.items():
            records = isinstance(v, dict) or (isinstance(v, list) and v and isinstance(v[0], dict))
            if records:
                self.walk(where, k, v)
            elif isinstance(v, list) and not v:
                continue
            else:
                self.key(where, k, k, v)


def create_objects(vl, keydir):
    """One object of each kind; the arguments of every read method."""
    pd = vl.call("io.rdmad.Pd.Create")["pd"]["handle"]
    mr = vl.call("io.rdmad.Mr.Create", pd=pd, size=8192, access=["local_write", "remote_read"])["mr"]["handle"]
    cq = vl.call("io.rdmad.Cq.Create", cqe=16)["cq"]["handle"]
    qp = vl.call("io.rdmad.Qp.Create", pd=pd, send_cq=cq, recv_cq=cq, type="rc")["qp"]["handle"]
    vl.call("io.rdmad.Qp.Modify", handle=qp, state="init", access=["remote_read"])
    vl.call("io.rdmad.Gid.Add", index=0, gid="fe80::1")
    ah = vl.call("io.rdmad.Ah.Create", pd=pd, dgid="fe80::2", sgid_index=0)["ah"]["handle"]
    dek = vl.call("io.rdmad.Dek.Create", name="vocab", size=128, key_file=f"{keydir}/dek.key")["dek"]["handle"]
    mkey = vl.call("io.rdmad.Mkey.Create", pd=pd, flags=["block_signature", "crypto"], max_entries=4)["mkey"]["handle"]
    config = {"mem": None,
              "wire": {"sig_type": "t10dif", "block_size": 512,
                       "t10dif": {"bg_type": "crc", "bg": 65535, "app_tag": 1, "ref_tag": 7, "flags": ["ref_remap"]}},
              "crypto": {"standard": "aes_xts", "encrypt_on_tx": True, "data_unit_size": 512, "dek": dek}}
    vl.call("io.rdmad.Mkey.Configure", handle=mkey, access=["remote_read"],
            layout=[{"mr": mr, "offset": 0, "length": 1024}], config=config)
    vl.call("io.rdmad.Pool.Create", name="vocab", type="signature", size=2)
    borrowed = vl.call("io.rdmad.Pool.Borrow", name="vocab", owner="vocab")
    # A vdev with a TAP, and a front end connected to it, so that tap and front_end have keys.
    vl.call("io.rdmad.Vdev.Create", name="vocab", socket=f"{keydir}/vocab.vhost", tap=f"vocab{os.getpid() % 10000}")
    front_end = socket.socket(socket.AF_UNIX)
    front_end.connect(f"{keydir}/vocab.vhost")
    return {
        "Daemon.GetAccess": {"method": "io.rdmad.Pd.Create"},
        "Pd.Show": {"handle": pd}, "Mr.Show": {"handle": mr}, "Cq.Show": {"handle": cq},
        "Cq.Poll": {"handle": cq}, "Qp.Show": {"handle": qp}, "Ah.Show": {"handle": ah},
        "Gid.Show": {"index": 0}, "Mkey.Show": {"handle": mkey}, "Mkey.Check": {"handle": mkey},
        "Pool.Show": {"name": "vocab"}, "Dek.Show": {"handle": dek}, "Vnic.Show": {"handle": 0},
        "Vdev.Show": {"name": "vocab"},
        "_borrowed": {"handle": borrowed["mkey"]}, "_front_end": front_end,
    }, borrowed


def main():
    path, top, keydir = sys.argv[1:4]
    vocab, retired = vocabulary(top)
    check = Checker(vocab, retired)
    vl = Varlink(path)

    # A subscriber first, so the creations below come as events to check too.
    monitor = Varlink(path)
    monitor.send("io.rdmad.Monitor.Subscribe", {}, more=True)
    check.reply("Monitor.Subscribe", monitor.receive()["parameters"]["event"])

    args, borrowed = create_objects(vl, keydir)
    check.reply("Pool.Borrow", borrowed)
    calls = 0
    for iface in vl.call("org.varlink.service.GetInfo")["interfaces"]:
        if not iface.startswith("io.rdmad."):
            continue
        desc = vl.call("org.varlink.service.GetInterfaceDescription", interface=iface)["description"]
        short = iface[len("io.rdmad."):]
        for method in re.findall(r"^method (\w+)\(", desc, re.M):
            name = f"{short}.{method}"
            # The read methods are those the daemon lets its read group call
            # (Subscribe streams: its events are read below).
            access = vl.call("io.rdmad.Daemon.GetAccess", method=f"{iface}.{method}")
            # Attach is open to the group but makes this connection a program's,
            # which then sees its own objects only.
            if access["needs"] != "read_group" or name in ("Monitor.Subscribe", "Daemon.Attach"):
                continue
            try:
                reply = vl.call(f"{iface}.{method}", **args.get(name, {}))
            except RuntimeError as e:
                # Without VNIC ports or a fabric these have nothing to show: that is all.
                if "NoSuchObject" in str(e) and short == "Vnic":
                    continue
                check.problems.append(f"{name}: {e}")
                continue
            check.reply(name, reply)
            calls += 1
    # The pool's borrowed MKEY, whose pool and pool_name are set.
    check.reply("Mkey.Show(borrowed)", vl.call("io.rdmad.Mkey.Show", **args["_borrowed"]))
    vl.call("io.rdmad.Pool.Return", handle=args["_borrowed"]["handle"], owner="vocab")

    # The events the creations made.
    events = 0
    monitor.sock.settimeout(2)
    try:
        while events < 10:
            check.reply("Monitor.Subscribe", monitor.receive()["parameters"]["event"])
            events += 1
    except (socket.timeout, TimeoutError):
        pass

    for p in check.problems:
        print(p)
    if check.problems:
        return 1
    print(f"{calls} read methods and {events} events: {len(check.seen)} keys, all in the vocabulary")
    return 0


if __name__ == "__main__":
    sys.exit(main())
