#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fabric-pcap.py - turn a capture of software-fabric UDP traffic into files tshark decodes.

usage: fabric-pcap.py [--port N] [--mads A.pcap] [--frames B.pcap] CAPTURE

CAPTURE is what `dumpcap -i IFACE -f 'udp port 4795' -w f.pcapng` (or tshark -w, tcpdump -w)
wrote: pcapng or classic pcap (either byte order, micro- or nanosecond stamps), on Ethernet,
Linux cooked (v1 and v2, as `-i any` writes), raw IP, BSD loopback.  IPv4 and IPv6
fragments are put back together (a 2048-byte MAD does not fit a 1500-byte MTU).

Every UDP datagram from or to port N (default 4795, docs/opa-fabric.md) is one fabric packet:
  0x09 + 9B MAD packet -> A: link type 197 (ERF), one ERF type 29 (OPA 9B) record each
                          (reference opa_vnic.md section 6.2 recipe A):
                          tshark -r A.pcap -Y 'opa.mad.mgmtclass == 0x34'
  0x10 + 16B packet    -> B: link type 147 (USER0), the 16B packet as is (recipe B, C):
                          tshark -o 'uat:user_dlts:"User 0 (DLT=147)","eth_withoutfcs","20","","0",""' -r B.pcap
                          tshark -X lua_script:tests/tools/opa16b.lua -r B.pcap
Other datagrams are counted and skipped.  A summary goes to stderr.
"""

import argparse
import struct
import sys

LINKTYPE_NULL = 0
LINKTYPE_ETHERNET = 1
LINKTYPE_RAW = 101
LINKTYPE_LINUX_SLL = 113
LINKTYPE_LOOP = 108
LINKTYPE_IPV4 = 228
LINKTYPE_IPV6 = 229
LINKTYPE_LINUX_SLL2 = 276
LINKTYPE_USER0 = 147
LINKTYPE_ERF = 197

ERF_TYPE_OPA_9B = 29
FABRIC_MAD = 0x09
FABRIC_16B = 0x10


class CaptureError(Exception):
    pass


# ---- reading: (seconds, nanoseconds, linktype, bytes) for each packet ----

def read_pcap(data):
    magic = data[:4]
    table = {
        b"\xd4\xc3\xb2\xa1": ("<", 1000), b"\xa1\xb2\xc3\xd4": (">", 1000),
        b"\x4d\x3c\xb2\xa1": ("<", 1), b"\xa1\xb2\x3c\x4d": (">", 1),
    }
    if magic not in table or len(data) < 24:
        raise CaptureError("not a pcap file")
    end, scale = table[magic]
    linktype = struct.unpack(end + "I", data[20:24])[0] & 0x0FFFFFFF
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        off += 16
        if off + incl > len(data):
            raise CaptureError("pcap record runs past the end of the file")
        yield sec, frac * scale, linktype, data[off:off + incl]
        off += incl


def read_pcapng(data):
    end = "<"
    interfaces = []     # (linktype, ticks per second)
    off = 0
    while off + 12 <= len(data):
        btype = struct.unpack(end + "I", data[off:off + 4])[0]
        if btype == 0x0A0D0D0A:     # section header: its own byte order, new interfaces
            bom = data[off + 8:off + 12]
            end = "<" if bom == b"\x4d\x3c\x2b\x1a" else ">"
            if struct.unpack(end + "I", data[off + 8:off + 12])[0] != 0x1A2B3C4D:
                raise CaptureError("pcapng section header without its byte-order magic")
            interfaces = []
        blen = struct.unpack(end + "I", data[off + 4:off + 8])[0]
        if blen < 12 or blen % 4 or off + blen > len(data):
            raise CaptureError("pcapng block of a bad length at offset %d" % off)
        body = data[off + 8:off + blen - 4]
        if btype == 1:                      # interface description
            linktype = struct.unpack(end + "H", body[:2])[0]
            interfaces.append([linktype, idb_ticks(body[8:], end)])
        elif btype == 6:                    # enhanced packet
            ifid, hi, lo, caplen = struct.unpack(end + "IIII", body[:16])
            if ifid >= len(interfaces) or 20 + caplen > len(body):
                raise CaptureError("pcapng packet of an unknown interface or too long")
            linktype, ticks = interfaces[ifid]
            stamp = hi << 32 | lo
            yield (stamp // ticks, (stamp % ticks) * 1000000000 // ticks, linktype,
                   body[20:20 + caplen])
        elif btype == 3 and interfaces:     # simple packet: interface 0, no time
            yield 0, 0, interfaces[0][0], body[4:]
        off += blen


def idb_ticks(options, end):
    """Ticks per second from an interface's if_tsresol option (default microseconds)."""
    off = 0
    while off + 4 <= len(options):
        code, length = struct.unpack(end + "HH", options[off:off + 4])
        if code == 0:
            break
        if code == 9 and length >= 1:
            v = options[off + 4]
            return 2 ** (v & 0x7F) if v & 0x80 else 10 ** v
        off += 4 + (length + 3) // 4 * 4
    return 1000000


def read_capture(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"\x0a\x0d\x0d\x0a":
        return read_pcapng(data)
    return read_pcap(data)


# ---- link and network layers down to the UDP payload ----

def network_payload(linktype, pkt):
    """(ethertype-ish version, bytes of the IP packet) or None."""
    if linktype == LINKTYPE_ETHERNET:
        off, ethertype = 14, struct.unpack(">H", pkt[12:14])[0] if len(pkt) >= 14 else 0
        while ethertype in (0x8100, 0x88A8) and len(pkt) >= off + 4:
            ethertype = struct.unpack(">H", pkt[off + 2:off + 4])[0]
            off += 4
        return ethertype, pkt[off:]
    if linktype == LINKTYPE_LINUX_SLL and len(pkt) >= 16:
        return struct.unpack(">H", pkt[14:16])[0], pkt[16:]
    if linktype == LINKTYPE_LINUX_SLL2 and len(pkt) >= 20:
        return struct.unpack(">H", pkt[0:2])[0], pkt[20:]
    if linktype in (LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6) and pkt:
        return (0x0800 if pkt[0] >> 4 == 4 else 0x86DD), pkt
    if linktype in (LINKTYPE_NULL, LINKTYPE_LOOP) and len(pkt) >= 4:
        return (0x0800 if pkt[4] >> 4 == 4 else 0x86DD) if len(pkt) > 4 else None, pkt[4:]
    return None, b""


class Reassembler:
    """IP fragments back into whole packets: (src, dst, id, proto) -> pieces."""

    def __init__(self):
        self.pending = {}

    def add(self, key, offset, more, payload):
        pieces = self.pending.setdefault(key, {"parts": {}, "total": None})
        pieces["parts"][offset] = payload
        if not more:
            pieces["total"] = offset + len(payload)
        if pieces["total"] is None:
            return None
        whole, at = b"", 0
        for off in sorted(pieces["parts"]):
            if off > at:
                return None
            whole = whole[:off] + pieces["parts"][off]
            at = max(at, off + len(pieces["parts"][off]))
        if at < pieces["total"]:
            return None
        del self.pending[key]
        return whole[:pieces["total"]]


def transport_payload(ethertype, ip, frags):
    """(proto, payload after the IP header(s)) for whole or reassembled packets, else None."""
    if ethertype == 0x0800 and len(ip) >= 20 and ip[0] >> 4 == 4:
        ihl = (ip[0] & 15) * 4
        total = struct.unpack(">H", ip[2:4])[0]
        ident, flags_off = struct.unpack(">HH", ip[4:8])
        proto, body = ip[9], ip[ihl:total]
        more, offset = flags_off & 0x2000, (flags_off & 0x1FFF) * 8
        if more or offset:
            body = frags.add(("4", ip[12:16], ip[16:20], ident, proto), offset, more, body)
        return (proto, body) if body is not None else None
    if ethertype == 0x86DD and len(ip) >= 40 and ip[0] >> 4 == 6:
        nxt, body = ip[6], ip[40:40 + struct.unpack(">H", ip[4:6])[0]]
        while nxt in (0, 43, 60) and len(body) >= 8:      # hop-by-hop, routing, dest opts
            nxt, body = body[0], body[(body[1] + 1) * 8:]
        if nxt == 44 and len(body) >= 8:                  # fragment header
            offset_flags, ident = struct.unpack(">HI", body[2:8])
            nxt, payload = body[0], body[8:]
            body = frags.add(("6", ip[8:24], ip[24:40], ident, nxt), offset_flags & 0xFFF8,
                             offset_flags & 1, payload)
            if body is None:
                return None
        return nxt, body
    return None


def fabric_datagrams(path, port):
    """(sec, nsec, datagram) for every UDP datagram to or from port."""
    frags = Reassembler()
    for sec, nsec, linktype, pkt in read_capture(path):
        ethertype, ip = network_payload(linktype, pkt)
        t = transport_payload(ethertype, ip, frags) if ethertype else None
        if not t or t[0] != 17 or len(t[1]) < 8:
            continue
        sport, dport, length = struct.unpack(">HHH", t[1][:6])
        if port not in (sport, dport):
            continue
        yield sec, nsec, t[1][8:length] if length >= 8 else t[1][8:]


# ---- writing ----

class PcapWriter:
    def __init__(self, path, linktype):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))

    def write(self, sec, nsec, data):
        self.f.write(struct.pack("<IIII", sec, nsec // 1000, len(data), len(data)) + data)

    def close(self):
        self.f.close()


def erf_record(sec, nsec, packet):
    """Recipe A: a 16-byte ERF header (type 29) in front of a 9B packet."""
    stamp = sec << 32 | (nsec << 32) // 1000000000
    return struct.pack("<Q", stamp) + struct.pack(">BBHHH", ERF_TYPE_OPA_9B, 0,
                                                  16 + len(packet), 0, len(packet)) + packet


def main():
    ap = argparse.ArgumentParser(description="Split software-fabric UDP traffic into a 9B MAD "
                                 "capture (ERF type 29) and a 16B VNIC capture (USER0).")
    ap.add_argument("--port", type=int, default=4795, help="the fabric's UDP port (4795)")
    ap.add_argument("--mads", metavar="A.pcap", help="write the 9B MAD packets here")
    ap.add_argument("--frames", metavar="B.pcap", help="write the 16B packets here")
    ap.add_argument("capture")
    args = ap.parse_args()
    if not args.mads and not args.frames:
        ap.error("give --mads and/or --frames")

    mads = PcapWriter(args.mads, LINKTYPE_ERF) if args.mads else None
    frames = PcapWriter(args.frames, LINKTYPE_USER0) if args.frames else None
    seen = {FABRIC_MAD: 0, FABRIC_16B: 0, None: 0}
    try:
        for sec, nsec, dgram in fabric_datagrams(args.capture, args.port):
            kind = dgram[0] if dgram and dgram[0] in seen else None
            seen[kind] += 1
            if kind == FABRIC_MAD and mads and len(dgram) <= 0xFFFF - 16:
                mads.write(sec, nsec, erf_record(sec, nsec, dgram[1:]))
            elif kind == FABRIC_16B and frames:
                frames.write(sec, nsec, dgram[1:])
    except (CaptureError, OSError, struct.error, IndexError) as e:
        print("fabric-pcap: %s: %s" % (args.capture, e), file=sys.stderr)
        return 1
    for w in (mads, frames):
        if w:
            w.close()
    print("fabric-pcap: %d MAD packets, %d 16B packets, %d other datagrams skipped" %
          (seen[FABRIC_MAD], seen[FABRIC_16B], seen[None]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
