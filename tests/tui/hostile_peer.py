#!/usr/bin/env python3
"""hostile_peer.py - a misbehaving end of gnnscope's remote protocol
(app/remote_wire.h: a 16-byte header of magic, kind and payload length,
then the payload), for tests/tui/remote_hostile.sh.

  server FAKE REAL HOW GOOD   serves FAKE, passing each request on to the run
                              at REAL; after GOOD snapshot replies, answers a
                              snapshot request as HOW says: random (random
                              bytes of the right size), A (all 'A'), ff (all
                              0xff), truncated (half of one, then closes),
                              oversize (a header claiming 64 MiB, 1 KiB of
                              it, then silence), stall (5 header bytes, then
                              silence)
  client REAL HOW SECONDS     connects to REAL and, for SECONDS: idle (sends
                              nothing), half (5 bytes of a header), huge (a
                              header claiming 64 MiB and 1 KiB of it), hello-half
                              (a good hello, then 5 bytes of a header)
"""
import os
import random
import socket
import struct
import sys
import time

MAGIC = 0x47535250
K_HELLO, K_SNAPSHOT = 0, 1


def header(kind, length):
    return struct.pack("<IIQ", MAGIC, kind, length)


def read_exact(s, n):
    buf = b""
    while len(buf) < n:
        got = s.recv(n - len(buf))
        if not got:
            raise EOFError
        buf += got
    return buf


def read_frame(s):
    magic, kind, length = struct.unpack("<IIQ", read_exact(s, 16))
    return kind, read_exact(s, length)


def hostile_reply(c, how, size):
    if how == "random":
        c.sendall(header(K_SNAPSHOT, size) + os.urandom(size))
    elif how in ("A", "ff"):
        c.sendall(header(K_SNAPSHOT, size) + (b"A" if how == "A" else b"\xff") * size)
    elif how == "truncated":
        c.sendall(header(K_SNAPSHOT, size) + os.urandom(size // 2))
        return False
    elif how == "oversize":
        c.sendall(header(K_SNAPSHOT, 64 << 20) + b"B" * 1024)
        time.sleep(60)
    elif how == "stall":
        c.sendall(header(K_SNAPSHOT, size)[:5])
        time.sleep(60)
    return True


def serve(fake, real, how, good):
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lsock.bind(fake)
    lsock.listen(1)
    c, _ = lsock.accept()
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    up.connect(real)
    served = 0
    try:
        while True:
            kind, payload = read_frame(c)
            up.sendall(header(kind, len(payload)) + payload)
            rkind, reply = read_frame(up)
            if rkind == K_SNAPSHOT and served >= good:
                if not hostile_reply(c, how, len(reply)):
                    break
                continue
            served += rkind == K_SNAPSHOT
            c.sendall(header(rkind, len(reply)) + reply)
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass
    c.close()


def client(real, how, seconds):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(real)
    if how == "half":
        s.sendall(header(K_SNAPSHOT, 0)[:5])
    elif how == "huge":
        s.sendall(header(K_HELLO, 64 << 20) + b"C" * 1024)
    elif how == "hello-half":  # learns the run's build hash from a first hello, then attaches with it
        s.sendall(header(K_HELLO, 8) + struct.pack("<Q", random.getrandbits(64)))
        _, abi = read_frame(s)
        s.close()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(real)
        s.sendall(header(K_HELLO, 8) + abi)
        read_frame(s)
        s.sendall(header(K_SNAPSHOT, 0)[:5])
    time.sleep(seconds)


if __name__ == "__main__":
    if sys.argv[1] == "server":
        serve(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        client(sys.argv[2], sys.argv[3], float(sys.argv[4]))
