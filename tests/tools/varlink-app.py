#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""varlink-app.py SOCKET STEP...: one varlink connection that runs its steps in
order and prints each reply as a line of JSON, for tests that act as a
program (or as someone trying to pass for one) on the wire itself.

A STEP is one of
  METHOD[=JSON]  a call ("io.rdmad.Pd.Create={}"): prints {"method", "parameters"}
                 or {"method", "error", "parameters"}
  sleep=SECONDS  waits
  hold=PATH      prints {"hold": true} and waits until PATH exists
A call whose parameters hold "$N.path.to.value" takes that value from the
reply of step N (0-based), so a step can name what an earlier one made.
Exits 0 when every call was answered (errors included), 1 when the
connection closed first.
"""
import json
import os
import socket
import sys
import time


def resolve(value, replies):
    if isinstance(value, str) and value.startswith("$"):
        index, _, path = value[1:].partition(".")
        node = replies[int(index)]
        for key in path.split(".") if path else []:
            node = node[int(key)] if isinstance(node, list) else node[key]
        return node
    if isinstance(value, dict):
        return {k: resolve(v, replies) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, replies) for v in value]
    return value


def call(sock, buf, method, params):
    try:
        sock.sendall(json.dumps({"method": method, "parameters": params}).encode() + b"\0")
    except OSError:
        return None
    while b"\0" not in buf[0]:
        try:
            chunk = sock.recv(65536)
        except OSError:
            return None
        if not chunk:
            return None
        buf[0] += chunk
    msg, _, buf[0] = buf[0].partition(b"\0")
    return json.loads(msg)


def main():
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(sys.argv[1])
    buf = [b""]
    replies = []
    for step in sys.argv[2:]:
        name, _, arg = step.partition("=")
        if name == "sleep":
            time.sleep(float(arg))
            replies.append(None)
            continue
        if name == "hold":
            print(json.dumps({"hold": True}), flush=True)
            while not os.path.exists(arg):
                time.sleep(0.02)
            replies.append(None)
            continue
        params = resolve(json.loads(arg) if arg else {}, replies)
        reply = call(sock, buf, name, params)
        if reply is None:
            print(json.dumps({"method": name, "closed": True}), flush=True)
            return 1
        line = {"method": name, "parameters": reply.get("parameters", {})}
        if "error" in reply:
            line["error"] = reply["error"]
        print(json.dumps(line), flush=True)
        replies.append(line["parameters"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
