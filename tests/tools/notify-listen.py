#!/usr/bin/env python3
"""Stands in for the service manager's NOTIFY_SOCKET: appends each sd_notify
datagram to a file, one line per datagram (its newlines turned into spaces)."""
import socket
import sys

sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        out.write(sock.recv(65536).decode().replace("\n", " ").strip() + "\n")
