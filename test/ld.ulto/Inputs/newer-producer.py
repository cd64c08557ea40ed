"""newer-producer.py IN OUT: IN's bitcode as a newer LLVM would label it.

Every identification block's producer string ("LLVM22.1.8") gets major
version 99 ("LLVM99.1.8"). The string is an array of 6-bit characters in the
bitstream; the major version keeps its two digits, so nothing else moves.
"""
import sys

CHAR6 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._"


def char6(text):
    bits = 0
    for i, c in enumerate(text):
        bits |= CHAR6.index(c) << (6 * i)
    return bits


def main():
    data = open(sys.argv[1], "rb").read()
    stream = int.from_bytes(data, "little")  # bits in the reader's order
    old, new = char6("LLVM22"), char6("LLVM99")
    width = 6 * len("LLVM22")
    mask = (1 << width) - 1
    found = 0
    for pos in range(len(data) * 8 - width):
        if (stream >> pos) & mask == old:
            stream = (stream & ~(mask << pos)) | (new << pos)
            found += 1
    if not found:
        sys.exit(sys.argv[1] + ": no producer string LLVM22")
    open(sys.argv[2], "wb").write(stream.to_bytes(len(data), "little"))


main()
