#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Frames for selftests/daemon/datapath.sh, sent from a server namespace.

frames.py malformed SWMAC COUNT   send COUNT frames of each malformed kind
frames.py join-data               JOIN job 1 (size 1) and one AVG8 DATA;
                                  print the RESULT's values
frames.py nack                    JOIN job 999; print the NACK's reason
"""
import random
import socket
import struct
import sys

HDR = '!HBBHHIIHBBHBBHHHH'
MAGIC, VERSION, PORT = 0x4f49, 1, 47000
T_DATA, T_RESULT, T_JOIN, T_ACK, T_NACK = 1, 2, 3, 4, 5
OP_AVG = 1
SW = '10.77.0.254'


def hdr(t=T_DATA, ver=VERSION, job=1, rank=0, token=0, seq=0, op=OP_AVG,
        count=4, bits=8, nscale=1, block=4):
    return struct.pack(HDR, MAGIC, ver, t, job, rank, token, seq, seq % 64,
                       0, op, count, bits, nscale, block, 0, 0, 0)


def csum(b):
    if len(b) % 2:
        b += b'\0'
    x = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while x >> 16:
        x = (x & 0xffff) + (x >> 16)
    return ~x & 0xffff


def malformed(swmac, count):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind(('eth0', 0))
    me = s.getsockname()[4]
    src, dst = socket.inet_aton('10.77.0.1'), socket.inet_aton(SW)

    def ipudp(payload, tot=None):
        tot = tot if tot is not None else 28 + len(payload)
        ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, tot, 0, 0x4000, 64, 17,
                         0, src, dst)
        ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
        udp = struct.pack('!HHHH', 40000, PORT, 8 + len(payload), 0)
        return swmac + me + b'\x08\x00' + ip + udp + payload

    elems = bytes(8)        # 4 scale bytes (1 scale, padded) + 4 elements
    rnd = random.Random(7)
    kinds = {
        'short': lambda: ipudp(hdr() + elems, tot=2000),
        'bad_version': lambda: ipudp(hdr(ver=9) + elems),
        'bad_type': lambda: ipudp(hdr(t=77) + elems),
        'unknown_job': lambda: ipudp(hdr(job=999) + elems),
        'bad_shape': lambda: ipudp(hdr(bits=13) + elems),
        'bad_token': lambda: ipudp(hdr(token=5) + elems),
        'not_member': lambda: ipudp(hdr() + elems),
        'to_switch_other': lambda: swmac + me + b'\x08\x00',
        'random': lambda: bytes(rnd.getrandbits(8)
                                for _ in range(rnd.randrange(14, 9000))),
    }
    for _ in range(count):
        for make in kinds.values():
            s.send(make())


def udp_sock():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('0.0.0.0', 40001))
    s.settimeout(0.2)
    return s


def ask(s, frame, want, tries=25):
    """Send frame until a reply of type want comes; return it."""
    for _ in range(tries):
        s.sendto(frame, (SW, PORT))
        try:
            while True:
                d = s.recv(65536)
                h = struct.unpack(HDR, d[:32])
                if h[2] == want:
                    return h, d[32:]
        except socket.timeout:
            continue
    sys.exit('no answer of type %d' % want)


def join_data():
    s = udp_sock()
    ask(s, hdr(t=T_JOIN, seq=12345, count=0, bits=0, nscale=0, block=0,
               op=0), T_ACK)
    vals = [10, -20, 30, -40]
    data = hdr(seq=0) + bytes(4) + bytes((v + 128) & 0xff for v in vals)
    h, p = ask(s, data, T_RESULT)
    print(' '.join(str(b - 128) for b in p[4:4 + h[10]]))


def nack():
    s = udp_sock()
    h, _ = ask(s, hdr(t=T_JOIN, job=999, seq=1, count=0, bits=0, nscale=0,
                      block=0, op=0), T_NACK)
    print(h[14])


if __name__ == '__main__':
    if sys.argv[1] == 'malformed':
        malformed(bytes.fromhex(sys.argv[2].replace(':', '')),
                  int(sys.argv[3]))
    elif sys.argv[1] == 'join-data':
        join_data()
    else:
        nack()
