"""Checks a PNG: its size is the one asked for and it is not blank (its pixels vary).

usage: python png_check.py <file.png> <width> <height>   (prints "ok WxH N-distinct-rows")
"""
import struct
import sys
import zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w, h = 8, b"", None, None
while pos < len(data):
    (n,) = struct.unpack(">I", data[pos:pos + 4])
    kind = data[pos + 4:pos + 8]
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h = struct.unpack(">II", body[:8])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
want = (int(sys.argv[2]), int(sys.argv[3]))
assert (w, h) == want, f"size {w}x{h}, wanted {want[0]}x{want[1]}"
raw = zlib.decompress(idat)
stride = len(raw) // h
rows = {raw[i * stride + 1:(i + 1) * stride] for i in range(h)}
assert len(rows) > 10, f"blank: only {len(rows)} distinct rows"
print(f"ok {w}x{h} {len(rows)}-distinct-rows")
