#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Independent RoCE v2 ICRC checker, written from the recipe of
/work/shared/reference/roce_virtio.md §5.4 (and §2.7), not from the C code.

  roce-icrc.py check HEX...      each HEX an Ethernet frame (one 802.1Q tag allowed);
                                 prints OK/BAD and the CRC; exit 1 if any is BAD
  roce-icrc.py check-ip HEX...   the same for bare IPv4/IPv6 datagrams
  roce-icrc.py check-pcap FILE   every UDP 4791 frame of a classic pcap file (Ethernet
                                 link type); prints a summary, exit 1 if any is BAD or none
  roce-icrc.py vectors           prints the recorded vectors of tests/unit/test_roce_packet.c
                                 (frames built here with struct, ICRC computed here)
"""
import struct
import sys
import zlib

assert ~zlib.crc32(b"\xff" * 8) & 0xffffffff == 0xdebb20e3


def ip_icrc(ip):
    """(computed, carried) ICRC of an IPv4/IPv6 datagram."""
    ver = ip[0] >> 4
    if ver == 4:
        ihl = (ip[0] & 0xf) * 4
        end = struct.unpack("!H", ip[2:4])[0]
        h = bytearray(ip[:ihl])
        h[1] = 0xff
        h[8] = 0xff
        h[10:12] = b"\xff\xff"
    elif ver == 6:
        ihl = 40
        end = 40 + struct.unpack("!H", ip[4:6])[0]
        h = bytearray(ip[:40])
        h[0] |= 0x0f
        h[1:4] = b"\xff\xff\xff"
        h[7] = 0xff
    else:
        raise ValueError("not IP")
    udp = bytearray(ip[ihl:ihl + 8])
    udp[6:8] = b"\xff\xff"
    bth = bytearray(ip[ihl + 8:ihl + 20])
    bth[4] = 0xff
    rest = ip[ihl + 20:end - 4]
    crc = zlib.crc32(b"\xff" * 8 + bytes(h) + bytes(udp) + bytes(bth) + rest) & 0xffffffff
    return crc, struct.unpack("<I", ip[end - 4:end])[0]


def eth_to_ip(frame):
    off = 12
    if frame[off:off + 2] == b"\x81\x00":
        off += 4
    return frame[off + 2:]


def csum16(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4(src, dst, tos, ident, df, ttl, udp):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(udp), ident, 0x4000 if df else 0,
                    ttl, 17, 0, bytes(src), bytes(dst))
    return h[:10] + struct.pack("!H", csum16(h)) + h[12:] + udp


def ipv6(src, dst, tclass, flow, hop, udp):
    h = struct.pack("!IHBB16s16s", 6 << 28 | tclass << 20 | flow, len(udp), 17, hop,
                    bytes(src), bytes(dst))
    return h + udp


def udp_hdr(sport, dport, payload):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def udp6_fix_csum(ip):
    udp = ip[40:]
    pseudo = ip[8:40] + struct.pack("!IxxxB", len(udp), 17)
    c = csum16(pseudo + udp) or 0xffff
    return ip[:46] + struct.pack("!H", c) + ip[48:]


def bth(opcode, se, m, pad, pkey, fecn, becn, dqp, ack, psn):
    return struct.pack("!BBHBBHBBH", opcode, se << 7 | m << 6 | pad << 4, pkey,
                       fecn << 7 | becn << 6, dqp >> 16, dqp & 0xffff,
                       ack << 7, psn >> 16, psn & 0xffff)


def seal(ip, v6=False):
    """Appends nothing: fills the last 4 bytes (the ICRC slot) of ip."""
    crc, _ = ip_icrc(ip)
    ip = ip[:-4] + struct.pack("<I", crc)
    return udp6_fix_csum(ip) if v6 else ip


def c_array(name, data):
    lines = ["static const uint8_t %s[%d] = {" % (name, len(data))]
    for i in range(0, len(data), 12):
        lines.append("\t" + " ".join("0x%02x," % b for b in data[i:i + 12]))
    lines.append("};")
    return "\n".join(lines)


def vectors():
    # 1. RC RDMA WRITE ONLY with immediate over IPv4: RETH + ImmDt, 7-byte payload (pad 1),
    #    SE and AckReq, FECN set (masked), TOS 0x8a / TTL 17 (masked), ID 0 + DF (covered).
    payload = b"RoCE v2"
    t = (bth(0x0b, 1, 0, 1, 0xffff, 1, 0, 0x000123, 1, 0xfffffe) +
         struct.pack("!QII", 0x00007f0000001000, 0x00abcdef, 7) + struct.pack("!I", 0xdeadbeef) +
         payload + b"\0" + b"\0" * 4)
    ip = seal(ipv4([10, 99, 0, 1], [10, 99, 0, 2], 0x8a, 0, True, 17,
                   udp_hdr(0xc1a5, 4791, t)))
    print(c_array("vec_rc_write_imm_v4", ip))
    # 2. UD SEND ONLY with immediate over IPv6: DETH + ImmDt, 13-byte payload (pad 3),
    #    traffic class 0x2e, flow label 0xabcde, hop limit 64 (all masked).
    src = bytes.fromhex("fd000000000000000000000000000001")
    dst = bytes.fromhex("fd000000000000000000000000000002")
    payload = b"hello, ud v6!"
    t = (bth(0x65, 0, 0, 3, 0xffff, 0, 1, 0x000042, 0, 0x000007) +
         struct.pack("!IBBH", 0x11111111, 0, 0x00, 0x0044) + struct.pack("!I", 0x01020304) +
         payload + b"\0" * 3 + b"\0" * 4)
    ip = seal(ipv6(src, dst, 0x2e, 0xabcde, 64, udp_hdr(0xd00d, 4791, t)), v6=True)
    print(c_array("vec_ud_send_imm_v6", ip))
    # 3. RC ACKNOWLEDGE over IPv4 with a NAK (PSN sequence error), no payload.
    t = bth(0x11, 0, 0, 0, 0xffff, 0, 0, 0x000abc, 0, 0x000010) + struct.pack("!I", 0x60 << 24 | 5) + b"\0" * 4
    ip = seal(ipv4([192, 168, 1, 1], [192, 168, 1, 2], 0, 0, True, 64,
                   udp_hdr(0xc000, 4791, t)))
    print(c_array("vec_rc_nak_v4", ip))


def pcap_frames(path):
    """The frames of a classic pcap file (libpcap format, either byte order)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    order = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">",
             b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">"}[magic]
    if struct.unpack(order + "I", data[20:24])[0] != 1:
        raise ValueError("not an Ethernet capture")
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(order + "I", data[off + 8:off + 12])[0]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def is_roce(ip):
    ver = ip[0] >> 4
    ihl = (ip[0] & 0xf) * 4 if ver == 4 else 40
    proto = ip[9] if ver == 4 else ip[6]
    return proto == 17 and struct.unpack("!H", ip[ihl + 2:ihl + 4])[0] == 4791


def check_pcap(path):
    good = bad = 0
    for frame in pcap_frames(path):
        ip = eth_to_ip(frame)
        if not is_roce(ip):
            continue
        crc, carried = ip_icrc(ip)
        if crc == carried:
            good += 1
        else:
            bad += 1
            print("BAD computed 0x%08x carried 0x%08x: %s" % (crc, carried, frame.hex()))
    print("%d OK, %d BAD" % (good, bad))
    return 0 if good and not bad else 1


def main(argv):
    if len(argv) >= 2 and argv[1] == "vectors":
        vectors()
        return 0
    if len(argv) == 3 and argv[1] == "check-pcap":
        return check_pcap(argv[2])
    if len(argv) < 3 or argv[1] not in ("check", "check-ip"):
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for hx in argv[2:]:
        data = bytes.fromhex(hx)
        ip = data if argv[1] == "check-ip" else eth_to_ip(data)
        crc, carried = ip_icrc(ip)
        ok = crc == carried
        bad += not ok
        print("%s computed 0x%08x carried 0x%08x" % ("OK " if ok else "BAD", crc, carried))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
