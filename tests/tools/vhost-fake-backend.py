#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""vhost-fake-backend.py SOCKET MODE LOG: a vhost-user back end that answers
the session's messages and never touches a ring, for tests/bats/vhost_guest.bats,
so the front end (tests/tools/vhost-guest) can be checked without rdmad.

MODE close: accept one connection and close it at once.
MODE serve: answer GET_FEATURES, GET_PROTOCOL_FEATURES, GET_QUEUE_NUM,
GET_CONFIG, GET_VRING_BASE and every REPLY_ACK; SET_MEM_TABLE is refused (ack 1)
when it has no region, regions that overlap in guest-physical memory, or not one
fd per region.  Each message is logged to LOG, one line: its name, then what it
carried."""
import array
import os
import socket
import struct
import sys

NAMES = {1: "GET_FEATURES", 2: "SET_FEATURES", 3: "SET_OWNER", 5: "SET_MEM_TABLE",
         8: "SET_VRING_NUM", 9: "SET_VRING_ADDR", 10: "SET_VRING_BASE", 11: "GET_VRING_BASE",
         12: "SET_VRING_KICK", 13: "SET_VRING_CALL", 15: "GET_PROTOCOL_FEATURES",
         16: "SET_PROTOCOL_FEATURES", 17: "GET_QUEUE_NUM", 18: "SET_VRING_ENABLE",
         24: "GET_CONFIG"}
# VERSION_1, ROCE, CTRL_VQ, MAC, INDIRECT_DESC, EVENT_IDX, PROTOCOL_FEATURES, and
# two the front end does not want: MQ (22) and GUEST_CSUM (1).
FEATURES = (1 << 32) | (1 << 55) | (1 << 17) | (1 << 5) | (1 << 28) | (1 << 29) | (1 << 30) \
    | (1 << 22) | (1 << 1)
PROTOCOL = (1 << 0) | (1 << 3) | (1 << 9) | (1 << 5)
CONFIG = bytes([0x52, 0x54, 0x00, 0x12, 0x34, 0x56]) + struct.pack(
    "<HHHIBBHIII", 1, 1, 1500, 10000, 1, 0, 0, 0, 4, 8)


def recv_exact(conn, n, fds):
    data = b""
    while len(data) < n:
        msg, anc, _, _ = conn.recvmsg(n - len(data), socket.CMSG_SPACE(8 * 4))
        if not msg:
            return None
        for level, kind, cdata in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                a = array.array("i")
                a.frombytes(cdata[:len(cdata) - len(cdata) % 4])
                fds.extend(a)
        data += msg
    return data


def mem_table_ok(payload, nfds):
    (n,) = struct.unpack_from("<I", payload)
    regions = [struct.unpack_from("<QQQQ", payload, 8 + 32 * i) for i in range(n)]
    if n == 0 or nfds != n:
        return False, regions
    spans = sorted((r[0], r[0] + r[1]) for r in regions)
    return all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), regions


def serve(conn, log):
    while True:
        fds = []
        hdr = recv_exact(conn, 12, fds)
        if hdr is None:
            return
        req, flags, size = struct.unpack("<III", hdr)
        payload = recv_exact(conn, size, fds) if size else b""
        name = NAMES.get(req, str(req))
        reply = None
        ack = 0
        line = name
        if req in (1, 15, 17):
            reply = struct.pack("<Q", {1: FEATURES, 15: PROTOCOL, 17: 3 + 8 + 8}[req])
        elif req in (2, 16):
            line += " 0x%x" % struct.unpack("<Q", payload)[0]
        elif req == 5:
            ok, regions = mem_table_ok(payload, len(fds))
            ack = 0 if ok else 1
            line += " fds=%d" % len(fds) + "".join(
                " gpa=0x%x,size=0x%x,uaddr=0x%x,off=0x%x" % r for r in regions)
        elif req in (8, 10, 18):
            line += " %d %d" % struct.unpack("<II", payload)
        elif req == 9:
            line += " %d desc=0x%x used=0x%x avail=0x%x" % struct.unpack_from("<IxxxxQQQ", payload)
        elif req in (12, 13):
            line += " %d fds=%d" % (struct.unpack("<Q", payload)[0] & 0xff, len(fds))
        elif req == 11:
            reply = struct.pack("<II", struct.unpack("<II", payload)[0], 0)
        elif req == 24:
            offset, csize, _ = struct.unpack_from("<III", payload)
            reply = struct.pack("<III", offset, csize, 0) + CONFIG[offset:offset + csize]
        for fd in fds:
            os.close(fd)
        log.write(line + "\n")
        log.flush()
        if reply is None and flags & 8:
            reply = struct.pack("<Q", ack)
        if reply is not None:
            conn.sendall(struct.pack("<III", req, 1 | 4, len(reply)) + reply)


def main():
    path, mode, log_path = sys.argv[1:4]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    conn, _ = listener.accept()
    if mode == "close":
        conn.close()
        return
    with open(log_path, "w") as log:
        serve(conn, log)


main()
