"""tests/perf_data_gen.py: small perf.data files for the CLI tests (imported by
tests/hostile_names.py and tests/cli/side_files.sh): one software event, pid 100 (tid 100)
with a COMM, MMAP2 records and samples with a call chain (a kernel part too, with kernel MMAP
records, as perf writes them), and the BUILD_ID, HOSTNAME and EVENT_DESC features. Little-endian, perf_event_attr of 128 bytes, sample_type
IP | TID | TIME | PERIOD | CALLCHAIN, sample_id_all (a TID | TIME trailer on COMM and MMAP2);
or, for tests/unwind/rules.sh, samples as perf record --call-graph dwarf writes them on x86_64
(REGS_USER | STACK_USER besides). Layouts as perf 6.1 writes them
(tools/perf/Documentation/perf.data-file-format.txt)."""
import struct

PID = 100
X86_REGS = 0xFF0FFF  # perf's --call-graph dwarf registers on x86_64: AX..SS, R8..R15


def padded(s):
    """NUL-terminated, padded to 8 bytes"""
    return s + b"\0" * (8 - len(s) % 8)


def perf_str(s):
    """a feature string: u32 length (NUL included, padded to 8), the bytes"""
    n = (len(s) + 1 + 7) // 8 * 8
    return struct.pack("<I", n) + s + b"\0" * (n - len(s))


def dwarf_sample(pc, sp, words):
    """the fields after PERIOD of a dwarf sample: no call chain (user space only), the
    registers of X86_REGS (pc and sp, the others 0), the stack copy (words) whole"""
    body = struct.pack("<QQ", 0, 2)  # callchain nr 0; PERF_SAMPLE_REGS_ABI_64
    for bit in range(24):
        if X86_REGS >> bit & 1:
            body += struct.pack("<Q", sp if bit == 7 else pc if bit == 8 else 0)
    stack = b"".join(struct.pack("<Q", w) for w in words)
    return body + struct.pack("<Q", len(stack)) + stack + struct.pack("<Q", len(stack))


def perf_data(comm, event, mmaps, samples, build_ids=(), hostname=b"localhost", config=2,
              dwarf=False, lost=(), lost_samples=(), lost_at=1, kmaps=(), forks=()):
    """comm, event: bytes; mmaps: (file name, start, prot) of 0x10000 bytes at offset 0;
    samples: (time, [ip, caller, ...]) of period 1000, or (time, [user ips], [kernel ips]): a
    kernel part first (PERF_CONTEXT_KERNEL), or with dwarf (time, pc, sp, [stack words])
    (dwarf_sample); kmaps: (name, start, len, pgoff) of kernel MMAP records (pid -1), before
    the process's, as perf synthesizes "[kernel.kallsyms]_text" (pgoff: _text then) and
    modules; build_ids: (path, 20 bytes); config: the software event (2:
    page-faults, a count); lost: the counts of PERF_RECORD_LOST records; lost_samples:
    (count, misc) of PERF_RECORD_LOST_SAMPLES records (misc bit 15: a BPF filter's drops),
    both after the samples, the LOST records' trailers at time lost_at; forks: (pid, time,
    synthesized) of FORK records of a process pid from PID, after the mmaps (synthesized: misc
    PERF_RECORD_MISC_FORK_EXEC, as perf record marks the FORK records it writes for the
    processes running when it starts); a sample (time, [user ips], [kernel ips], pid) is of
    process pid."""
    st = 1 | 2 | 4 | 256 | 32  # IP, TID, TIME, PERIOD, CALLCHAIN
    if dwarf:
        st |= 1 << 12 | 1 << 13  # REGS_USER, STACK_USER
    attr = struct.pack("<IIQQQQQ", 1, 128, config, 1, st, 0, 1 << 18)  # bit 18: sample_id_all
    if dwarf:  # sample_regs_user at 80, sample_stack_user at 88
        attr += struct.pack("<IIQQQQI", 0, 0, 0, 0, 0, X86_REGS, 8192)
    attr += b"\0" * (128 - len(attr))
    trailer = struct.pack("<IIQ", PID, PID, 1)
    name = padded(comm)
    # a bytearray: appended to in place (bytes would be copied whole for every record)
    recs = bytearray(struct.pack("<IHH", 3, 0, 16 + len(name) + 16) + struct.pack("<II", PID, PID))
    recs += name + trailer
    for path, start, length, pgoff in kmaps:
        body = struct.pack("<iiQQQ", -1, 0, start, length, pgoff) + padded(path)
        recs += struct.pack("<IHH", 1, 1, 8 + len(body) + 16) + body + trailer
    for path, start, prot in mmaps:
        body = struct.pack("<IIQQQIIQQII", PID, PID, start, 0x10000, 0, 8, 1, 7, 0, prot, 2)
        body += padded(path)
        recs += struct.pack("<IHH", 10, 2, 8 + len(body) + 16) + body + trailer
    for pid, t, synth in forks:
        body = struct.pack("<IIIIQ", pid, PID, pid, PID, t) + struct.pack("<IIQ", pid, pid, t)
        recs += struct.pack("<IHH", 7, 1 << 13 if synth else 0, 8 + len(body)) + body
    for sample in samples:
        if dwarf:
            t, pc, sp, words = sample
            body = struct.pack("<QIIQQ", pc, PID, PID, t, 1000) + dwarf_sample(pc, sp, words)
        else:
            t, ips, kips, pid = sample + ((), PID)[len(sample) - 2:]
            chain = (0xFFFFFFFFFFFFFE00,) + tuple(ips)  # PERF_CONTEXT_USER
            if kips:  # PERF_CONTEXT_KERNEL
                chain = (0xFFFFFFFFFFFFFF80,) + tuple(kips) + chain
            body = struct.pack("<QIIQQQ", (kips or ips)[0], pid, pid, t, 1000, len(chain))
            body += b"".join(struct.pack("<Q", x) for x in chain)
        recs += struct.pack("<IHH", 9, 1 if not dwarf and kips else 2, 8 + len(body)) + body
    for n in lost:  # id, lost, then the trailer (at time lost_at)
        recs += struct.pack("<IHH", 2, 0, 8 + 16 + 16) + struct.pack("<QQ", 1, n) + \
            struct.pack("<IIQ", PID, PID, lost_at)
    for n, misc in lost_samples:
        recs += struct.pack("<IHH", 13, misc, 8 + 8 + 16) + struct.pack("<Q", n) + trailer
    bid = b""
    for path, id20 in build_ids:
        e = struct.pack("<i", PID) + id20 + b"\0" * 4 + padded(path)
        bid += struct.pack("<IHH", 67, 2, 8 + len(e)) + e
    desc = struct.pack("<II", 1, 128) + attr + struct.pack("<I", 0) + perf_str(event)
    sections = [(2, bid), (3, perf_str(hostname)), (12, desc)]
    data_at = 104 + 128 + 16
    at = data_at + len(recs) + 16 * len(sections)
    table = blobs = b""
    for _, blob in sections:
        table += struct.pack("<QQ", at, len(blob))
        blobs += blob
        at += len(blob)
    hdr = b"PERFILE2" + struct.pack("<QQ", 104, 128 + 16)
    hdr += struct.pack("<QQQQQQ", 104, 128 + 16, data_at, len(recs), 0, 0)
    hdr += struct.pack("<QQQQ", sum(1 << bit for bit, _ in sections), 0, 0, 0)
    return hdr + attr + struct.pack("<QQ", 0, 0) + recs + table + blobs
