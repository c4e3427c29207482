#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Sends one RoCE v2 RC SEND ONLY over IPv4 through a raw socket, its ICRC computed with
tests/tools/roce-icrc.py (written from the standard, not from the C code), for testing a
receiver's ICRC check.  Root, in the sender's network namespace.

  roce-craft.py SRC DST DEST_QP PSN PAYLOAD SEAL_ID SEND_ID

The ICRC is computed for an IPv4 header with Identification SEAL_ID; the packet leaves with
SEND_ID (neither 0: the kernel numbers a raw packet of ID 0 itself).  SEAL_ID == SEND_ID is
a good packet; otherwise its ICRC is right only for another ID.  PAYLOAD is padded with
zeros to a multiple of 4 bytes (PadCnt says how many).
"""
import importlib.util
import os
import socket
import struct
import sys

spec = importlib.util.spec_from_file_location(
    "roce_icrc", os.path.join(os.path.dirname(os.path.abspath(__file__)), "roce-icrc.py"))
icrc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(icrc)


def main(argv):
    if len(argv) != 8:
        print(__doc__, file=sys.stderr)
        return 2
    src, dst = socket.inet_aton(argv[1]), socket.inet_aton(argv[2])
    qp, psn = int(argv[3], 0), int(argv[4], 0)
    payload = argv[5].encode()
    seal_id, send_id = int(argv[6], 0), int(argv[7], 0)
    if not seal_id or not send_id:
        print("roce-craft.py: SEAL_ID and SEND_ID must not be 0", file=sys.stderr)
        return 2
    pad = -len(payload) % 4
    t = icrc.bth(0x04, 0, 0, pad, 0xffff, 0, 0, qp, 1, psn) + payload + b"\0" * pad + b"\0" * 4
    ip = icrc.seal(icrc.ipv4(src, dst, 0, seal_id, True, 64, icrc.udp_hdr(49152, 4791, t)))
    # The same datagram under another ID; the kernel writes the header checksum again.
    ip = ip[:4] + struct.pack("!H", send_id) + ip[6:]
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.sendto(ip, (argv[2], 0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
