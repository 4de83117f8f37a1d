#!/usr/bin/env python3
"""tests/fuzz/seeds-unwind.py: seed inputs of the unwind fuzz target (tests/fuzz/fuzz_unwind.c,
whose comment gives the input's layout) from the call-frame information of real ELF files.

usage: python3 tests/fuzz/seeds-unwind.py OUTDIR ELF...

For each 64-bit little-endian ELF file (x86_64 or AArch64) with an .eh_frame: its CIEs and FDEs
are read, and for the CIEs with the most FDEs, a seed holds the CIE's instructions and those of
up to 16 of its FDEs (the longest programs first, each under 256 bytes), under one of a few
flag sets (tables with or without .eh_frame_hdr or section headers, the rules in a debug file's
.debug_frame too or alone, an entry point); the sample's pc at an FDE's start or 17 bytes in, the
registers perf records (x86_64: its default --call-graph dwarf mask, or only rbp; AArch64:
X0..X30, SP, PC), a stack copy of 48 words that return into the other FDEs' code, every eighth
0. One seed
per file is "raw": the file's first .eh_frame entries as they are (up to 2 KiB), no table.
Seeds are named after the file and their number: seed-NAME-N.
"""
import os
import struct
import sys

BASE, TEXT, SPAN, SP0 = 0x10000, 0x1000, 0x40, 0x7FFC0000F000
F_AARCH64, F_RAW, F_NO_HDR, F_NO_SHDRS, F_DEBUG, F_NO_EH, F_ENTRY = 1, 2, 4, 8, 16, 32, 64
FLAG_SETS = [0, F_NO_HDR, F_NO_SHDRS, F_DEBUG, F_DEBUG | F_NO_EH, F_ENTRY]


def uleb(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def sleb(b, i):
    v, j = uleb(b, i)
    if b[j - 1] & 0x40:
        v -= 1 << (7 * (j - i))
    return v, j


def ptr_size(enc):
    """bytes of a pointer of DW_EH_PE encoding enc (its low nibble)"""
    return {0x0: 8, 0x2: 2, 0x3: 4, 0x4: 8, 0xA: 2, 0xB: 4, 0xC: 8}.get(enc & 0x0F, 0)


def eh_frame(path):
    """(machine, .eh_frame bytes) of a 64-bit little-endian ELF file, or None"""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    machine = struct.unpack_from("<H", data, 18)[0]
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    shdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = shdrs[shstrndx][4]
    for sh in shdrs:
        name = data[names + sh[0]:data.index(b"\0", names + sh[0])]
        if name == b".eh_frame" and sh[1] == 1:
            return machine, data[sh[4]:sh[4] + sh[5]]
    return None


def entries(eh):
    """CIEs {offset: (code, data, ra, fde pointer encoding, instructions)}, FDEs [(CIE offset,
    instructions)], and the offset where the first 2 KiB of whole entries end"""
    cies, fdes, i, cut = {}, [], 0, 0
    while i + 4 <= len(eh):
        length, = struct.unpack_from("<I", eh, i)
        if length == 0 or length == 0xFFFFFFFF:
            break
        start, end = i + 4, i + 4 + length
        cid, = struct.unpack_from("<I", eh, start)
        if cid == 0:
            j = start + 5
            aug = eh[j:eh.index(b"\0", j)]
            j += len(aug) + 1
            code, j = uleb(eh, j)
            data, j = sleb(eh, j)
            ra, j = uleb(eh, j)
            enc = 0
            if aug.startswith(b"z"):
                alen, j = uleb(eh, j)
                k = j
                for c in aug[1:]:
                    if c == ord("R"):
                        enc = eh[k]
                        k += 1
                    elif c == ord("L"):
                        k += 1
                    elif c == ord("P"):
                        k += 1 + ptr_size(eh[k])
                j += alen
            cies[i] = (code, data, ra, enc, eh[j:end])
        else:
            cie = start - cid
            if cie in cies:
                size = ptr_size(cies[cie][3])
                j = start + 4 + 2 * size
                alen, j = uleb(eh, j)
                fdes.append((cie, eh[j + alen:end]))
        i = end
        if i <= 2048:
            cut = i
    return cies, fdes, cut


def registers(aarch64, wide, pc, sp):
    """the mask and its registers' values (perf's order)"""
    if aarch64:
        vals = [0] * 33
        vals[29], vals[31], vals[32] = sp + 64, sp, pc
        return 0x1FFFFFFFF, vals
    if wide:
        mask = 0xFF0FFF
        vals = [0] * 20
        vals[6], vals[7], vals[8] = sp + 64, sp, pc  # BP SP IP
        return mask, vals
    return 0x1C0, [sp + 64, sp, pc]


def seed(flags, cie, fdes, aarch64, wide, at):
    code, data, ra, _, insns = cie
    progs = sorted((p for _, p in fdes if len(p) < 256), key=len, reverse=True)[:16]
    if not progs or len(insns) > 0xFFFF or not -64 <= data < 64 or ra > 255:
        return None
    body = b"".join(bytes([len(p)]) + p for p in progs)
    pc = BASE + TEXT + at
    words = [BASE + TEXT + ((k * 7) % len(progs)) * SPAN + 1 + (k % 5) * 3 if k % 8 != 7 else 0
             for k in range(48)]
    mask, vals = registers(aarch64, wide, pc, SP0)
    out = bytes([flags | (F_AARCH64 if aarch64 else 0), code & 0x7F, data & 0xFF, ra])
    out += struct.pack("<HH", len(insns), len(body)) + insns + body
    out += struct.pack("<Q", mask) + b"".join(struct.pack("<Q", v) for v in vals)
    return out + b"".join(struct.pack("<Q", w) for w in words)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[2:]:
        found = eh_frame(path)
        if not found or found[0] not in (62, 183):
            print("seeds-unwind: %s: no 64-bit x86_64 or AArch64 .eh_frame" % path)
            continue
        aarch64 = found[0] == 183
        cies, fdes, cut = entries(found[1])
        name = os.path.basename(path).replace(".", "_")
        by_cie = sorted(cies, key=lambda c: -sum(1 for f in fdes if f[0] == c))
        n = 0
        for k, off in enumerate(by_cie[:3]):
            mine = [f for f in fdes if f[0] == off]
            for v, flags in enumerate(FLAG_SETS):
                s = seed(flags, cies[off], mine[v::len(FLAG_SETS)] or mine, aarch64,
                         (v + k) % 2 == 0, (v % 2) * 17)
                if s:
                    open(os.path.join(out, "seed-%s-%d" % (name, n)), "wb").write(s)
                    n += 1
        raw = found[1][:cut] + b"\0\0\0\0"
        mask, vals = registers(aarch64, False, BASE + TEXT, SP0)
        s = bytes([F_RAW | F_NO_HDR | (F_AARCH64 if aarch64 else 0), 1, 0x78, 16])
        s += struct.pack("<HH", len(raw), 0) + raw + struct.pack("<Q", mask)
        s += b"".join(struct.pack("<Q", v) for v in vals) + bytes(64)
        open(os.path.join(out, "seed-%s-%d" % (name, n)), "wb").write(s)
        print("seeds-unwind: %s: %d CIEs, %d FDEs: %d seeds" % (path, len(cies), len(fdes), n + 1))


main()
