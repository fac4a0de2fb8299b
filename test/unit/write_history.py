#!/usr/bin/env python3
"""Writes a fair-share history directory in the format of lib/queue/history.h, for the tests of
`fairway history` and `fairway plot history`, independently of the C++ writer.

Usage: write_history.py DIR < SPEC, one line each:
  name ID ACCOUNT [USER]                 a line of DIR/names
  period TIME ID:USAGE:DELIVERED:ENTITLED:FACTOR ...   one block, appended to TIME's day file
  torn TIME ID:...                       the same block cut after 30 bytes (a killed writer)
"""
import os
import struct
import sys
import time


def fnv1a(data):
    h = 2166136261
    for c in data:
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


def block(t, records):
    b = b"FWH1" + struct.pack("<Iq", len(records), t)
    for r in records:
        b += struct.pack("<Idfff", int(r[0]), *map(float, r[1:]))
    return b + struct.pack("<I", fnv1a(b))


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    names = []
    for line in sys.stdin:
        w = line.split()
        if not w:
            continue
        if w[0] == "name":
            names.append("%s\t%s\t%s\n" % (w[1], w[2], w[3] if len(w) > 3 else ""))
            continue
        t = int(w[1])
        data = block(t, [r.split(":") for r in w[2:]])
        if w[0] == "torn":
            data = data[:30]
        path = os.path.join(d, time.strftime("history-%Y%m%d.fwh", time.gmtime(t)))
        with open(path, "ab") as f:
            f.write(data)
    with open(os.path.join(d, "names"), "w") as f:
        f.writelines(names)


main()
