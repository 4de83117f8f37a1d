"""tests/offcpu/oracle.py: off-CPU time computed from `perf script --ns --show-switch-events`
text (default fields: -F +pid would leave the tracepoints' call chains out) on its own, to hold trace2flame's --event off-cpu and --event wall
to (tests/offcpu/offcpu.sh).

The rules (docs/usage.md, Off-CPU time): a thread goes off CPU at a sched:sched_switch whose
prev_pid it is, in the call chain printed under it, and comes back at the first switch-in after:
a sched_switch whose next_pid it is, or a PERF_RECORD_SWITCH / _CPU_WIDE "IN" line of the thread.
A second switch-out before any switch-in drops the open wait; waits open at the end are left out.

usage:
  oracle.py folded TEXT ORACLE_FOLDED       per (tid, stack): off-CPU ns, "TID;f1;f2 NS" lines
  oracle.py compare TEXT T2F_FOLDED         trace2flame's `--event off-cpu --tid` collapsed
                                            output against the oracle: the weight on equal
                                            (tid, stack) keys, and each thread's total
  oracle.py timehist TEXT TIMEHIST          per thread, against `perf sched timehist` output:
                                            the waits that ended at a recorded sched_switch
  oracle.py wall TEXT T2F_WALL              per thread, trace2flame's --event wall output against
                                            on-CPU (cpu-clock periods) + off-CPU ns
  oracle.py exact TEXT T2F_FOLDED [wall]    as compare (or wall), but equal to the ns: every
                                            (tid, stack) of ORACLE_COMM's threads, every thread's
                                            total (for --time ranges, ORACLE_TIME)
  oracle.py markers TEXT PROFILE_JSON       per thread, the Firefox profile's off-CPU markers'
                                            durations summed, equal to the ns
  oracle.py speedscope TEXT SPEEDSCOPE [wall]
                                            per thread, the evented profiles' time covered by a
                                            stack: off-cpu: the waits' parts, span for span (the
                                            union of their times, to the ns); wall: every wait
                                            part covered, on-CPU time at most the cpu-clock ns
ORACLE_TIME: perf's --time ranges (docs/usage.md): absolute "START,STOP ..." in seconds, or
percentages of the recording's span ("P%", "P%/N,...", "A%-B%,..."), that span taken from
ORACLE_SPAN, a perf.data file (its SAMPLE_TIME header feature, read here) or a text with
"# time of first sample" lines (perf script --header). A wait counts only its overlap with the
ranges (a range START,STOP holds the ns START to STOP, both included), an on-CPU sample only
when its time is in one.
ORACLE_STATES (letters R, S, D, O; default all): the states whose switch-outs open a wait, as
--off-cpu-state selects them. ORACLE_COMM: compare's stacks on the threads of this command only
(other programs' frames may be named otherwise: argument lists, demangling); the per-thread
totals are every thread's. Prints its numbers; exit status 1 when an agreement is under its bound (99% of the weight, 1%
per thread), 0 otherwise.
"""
import collections
import decimal
import json
import math
import os
import re
import struct
import sys

HEADER = re.compile(r"^\s*(.*?)\s+(?:-?\d+/)?(-?\d+)\s+(?:\[(\d+)\]\s+)?(\d+)\.(\d{9}):\s*(.*)$")
SWITCH = re.compile(r"prev_pid=(-?\d+) .*?prev_state=(\S*) .*next_pid=(-?\d+) ")
STATES = os.environ.get("ORACLE_STATES", "RSDO")  # --off-cpu-state's letters
COMM = os.environ.get("ORACLE_COMM")  # compare stacks on this program's threads only
COMM_TIDS = set()
PERIOD = re.compile(r"^(\d+)\s+(\S+):")
INF = 1 << 64


def seconds_ns(text):
    """ "12.5" -> 12500000000 (up to 9 decimals), from the digits."""
    whole, _, frac = text.partition(".")
    if len(frac) > 9 or not (whole + frac).isdigit():
        raise ValueError("bad time " + text)
    return int(whole or "0") * 10**9 + int((frac + "000000000")[:9])


def span_of(path):
    """The recording's first and last sample times in ns: from a perf.data file's SAMPLE_TIME
    feature (header: magic, size, attr_size, attrs, data, event_types sections, 256 feature
    bits; the feature sections follow the data, one per bit set, in bit order; bit 21 holds two
    u64), else from a text's "# time of first sample : S.US" lines."""
    with open(path, "rb") as f:
        head = f.read(104)
        if head[:8] == b"PERFILE2":
            data_off, data_size = struct.unpack_from("<QQ", head, 40)
            bits = int.from_bytes(head[72:104], "little")
            if not bits >> 21 & 1:
                raise ValueError("no SAMPLE_TIME feature in " + path)
            idx = bin(bits & ((1 << 21) - 1)).count("1")
            f.seek(data_off + data_size + 16 * idx)
            off, _size = struct.unpack("<QQ", f.read(16))
            f.seek(off)
            return struct.unpack("<QQ", f.read(16))
    times = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^# time of (first|last) sample : (\d+\.\d+)", line)
            if m:
                times[m.group(1)] = seconds_ns(m.group(2))
            if not line.startswith("#"):
                break
    return times["first"], times["last"]


def c_round(x):
    """x >= 0 rounded half away from zero, as C's round()."""
    r = math.floor(x)
    return r + 1 if x - r >= 0.5 else r


def time_ranges():
    """ORACLE_TIME as half-open ns ranges [start, end), or None."""
    spec = os.environ.get("ORACLE_TIME")
    if not spec:
        return None
    out = []
    if "%" not in spec:
        for piece in spec.split():
            a, b = piece.split(",")
            out.append((seconds_ns(a) if a else 0, seconds_ns(b) + 1 if b else INF))
        return out
    first, last = span_of(os.environ["ORACLE_SPAN"])
    for piece in spec.split(","):
        if "/" in piece:
            p, n = piece.split("/")
            p = float(p.rstrip("%")) / 100
            fa, fb = p * (int(n) - 1), p * int(n)
        elif "-" in piece:
            a, b = piece.split("-")
            fa, fb = float(a.rstrip("%")) / 100, float(b.rstrip("%")) / 100
        else:
            fa, fb = 0.0, float(piece.rstrip("%")) / 100
        start = first + c_round(fa * (last - first))
        end = first + c_round(fb * (last - first))
        if end > start and end != last:
            end -= 1
        out.append((start, end + 1))
    return out


RANGES = time_ranges()


def overlap(out, inn):
    """The ns of [out, inn) inside the ranges (their union)."""
    if RANGES is None:
        return inn - out
    ns, at = 0, out
    for a, b in sorted(RANGES):
        a, b = max(a, at), min(b, inn)
        if b > a:
            ns += b - a
            at = b
    return ns


def pieces(out, inn):
    """The parts of [out, inn) inside the ranges, as (start, end)."""
    if RANGES is None:
        return [(out, inn)]
    got = []
    for a, b in sorted(RANGES):
        a, b = max(a, out), min(b, inn)
        if b > a:
            if got and a <= got[-1][1]:
                got[-1] = (got[-1][0], max(b, got[-1][1]))
            else:
                got.append((a, b))
    return got


def union(spans):
    """Sorted (start, end) spans with those that overlap or touch made one."""
    got = []
    for a, b in sorted(spans):
        if got and a <= got[-1][1]:
            got[-1] = (got[-1][0], max(b, got[-1][1]))
        else:
            got.append((a, b))
    return got


def evented(path):
    """tid -> the times a speedscope file's evented profile of the thread has frames open,
    (start, end) spans, checking that the events nest and go forward in time."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    got = {}
    for prof in doc["profiles"]:
        if prof["type"] != "evented":
            raise ValueError("not an evented profile: " + prof["name"])
        m = re.search(r"tid (-?\d+)\)$", prof["name"])
        tid = int(m.group(1)) if m else None  # a thread whose tid is unknown: checked, not compared
        stack, spans, at = [], [], None
        for ev in prof["events"]:
            if at is not None and ev["at"] < at:
                raise ValueError("%s: events go back in time" % prof["name"])
            if stack and at is not None and ev["at"] > at:
                spans.append((at, ev["at"]))
            at = ev["at"]
            if ev["type"] == "O":
                stack.append(ev["frame"])
            elif not stack or stack.pop() != ev["frame"]:
                raise ValueError("%s: a close that is not the top's" % prof["name"])
        if stack:
            raise ValueError("%s: frames left open" % prof["name"])
        if tid is not None:
            got[tid] = union(got.get(tid, []) + spans)  # a tid may be several threads (comm)
    return got


def in_ranges(ns):
    return RANGES is None or ns == 0 or any(a <= ns < b for a, b in RANGES)


def records(path):
    """(tid, cpu, ns, rest, frames leaf first) per record of the text."""
    cur = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("\t") and cur is not None:
                parts = line.strip().split(None, 1)
                sym = parts[1] if len(parts) > 1 else "[unknown]"
                dso = re.search(r" \((.*)\)$", sym)
                sym = re.sub(r" \(.*\)$", "", sym)
                if sym == "[unknown]" and dso and dso.group(1) != "[unknown]":
                    sym = "[%s]" % dso.group(1).rsplit("/", 1)[-1]  # as collapsed output names it
                sym = re.sub(r"\+0x[0-9a-f]+$", "", sym)
                if not sym.endswith("@plt"):  # names keep no symbol version
                    sym = re.sub(r"@@?[A-Za-z_][A-Za-z0-9_.]*$", "", sym)
                cur[4].append(sym)
                continue
            if not line.strip() or line.startswith("#"):
                continue
            m = HEADER.match(line)
            if not m:
                continue
            if cur is not None:
                yield cur
            cur = (int(m.group(2)), m.group(3), int(m.group(4)) * 10**9 + int(m.group(5)),
                   m.group(6), [])
            if m.group(1) == COMM:
                COMM_TIDS.add(cur[0])
    if cur is not None:
        yield cur


def compute(path):
    """waits: (tid, out_ns, in_ns, kind ('ss' or 'rec'), stack root first, next_out_ns or
    None); on-CPU ns per tid (cpu-clock periods)."""
    open_w = {}
    waits = []
    last = {}  # tid -> index of its last closed wait, awaiting its next switch-out
    oncpu = collections.Counter()
    for tid, _cpu, ns, rest, frames in records(path):
        if rest.startswith("sched:sched_switch:"):
            m = SWITCH.search(rest + " ")
            if not m:
                continue
            prev, nxt = int(m.group(1)), int(m.group(3))
            close(open_w, waits, last, nxt, ns, "ss")
            state = m.group(2)[:1] if m.group(2)[:1] in "RSD" else "O"
            if prev > 0 and state not in STATES:  # not selected: opens nothing
                open_w.pop(prev, None)
                last.pop(prev, None)
            elif prev > 0:
                if prev in last:
                    waits[last.pop(prev)][5] = ns
                open_w[prev] = (ns, ";".join(reversed(frames)))
        elif rest.startswith("PERF_RECORD_SWITCH"):
            if rest.split()[1] == "IN":
                close(open_w, waits, last, tid, ns, "rec")
        else:
            m = PERIOD.match(rest)
            if m and m.group(2) in ("cpu-clock", "task-clock") and in_ranges(ns):
                oncpu[tid] += int(m.group(1))
    print("open at the end: %d" % len(open_w))
    return waits, oncpu


def close(open_w, waits, last, tid, ns, kind):
    if tid <= 0 or tid not in open_w:
        return
    out, stack = open_w.pop(tid)
    last[tid] = len(waits)
    waits.append([tid, out, ns, kind, stack, None])


def per_key(waits):
    t = collections.Counter()
    for tid, out, inn, _k, stack, _n in waits:
        if overlap(out, inn):
            t[(tid, stack)] += overlap(out, inn)
    return t


def per_tid(counter):
    t = collections.Counter()
    for (tid, _s), v in counter.items():
        t[tid] += v
    return t


def read_folded(path):
    """trace2flame --tid collapsed output: root "comm-PID/TID" → (tid, rest of the stack)."""
    t = collections.Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            stack, w = line.rstrip("\n").rsplit(" ", 1)
            root, _, rest = stack.partition(";")
            t[(int(root.rsplit("/", 1)[1]), rest)] += int(w)
    return t


def within(a, b, rel, slack=0):
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), slack)


def thread_table(name_a, a, name_b, b, rel, slack=None):
    good = True
    for tid in sorted(set(a) | set(b)):
        ok = within(a[tid], b[tid], rel, slack(tid) if slack else 0)
        good &= ok
        print("  tid %d: %s %d ns, %s %d ns%s" % (tid, name_a, a[tid], name_b, b[tid],
                                                 "" if ok else "  <- differ by more than 1%"))
    return good


def main():
    mode, text = sys.argv[1], sys.argv[2]
    waits, oncpu = compute(text)
    oracle = per_key(waits)
    if mode == "folded":
        with open(sys.argv[3], "w", encoding="utf-8") as f:
            for (tid, stack), v in sorted(oracle.items()):
                f.write("%d;%s %d\n" % (tid, stack, v))
        return 0
    if mode == "compare":
        t2f = read_folded(sys.argv[3])

        def mine(k):
            return COMM is None or k[0] in COMM_TIDS
        total = max(sum(v for k, v in oracle.items() if mine(k)),
                    sum(v for k, v in t2f.items() if mine(k)))
        same = sum(min(v, t2f[k]) for k, v in oracle.items() if mine(k))
        share = same / total if total else 0.0
        print("off-cpu: %d ns (oracle), %d ns (trace2flame); %s on equal (thread, stack): "
              "%d ns, %.4f%% of the weight (%d waits)" %
              (sum(oracle.values()), sum(t2f.values()),
               "all threads" if COMM is None else "threads of " + COMM, same, 100 * share,
               len(waits)))
        good = thread_table("oracle", per_tid(oracle), "trace2flame", per_tid(t2f), 0.01)
        if share < 0.99:
            for name, a, b in (("oracle", oracle, t2f), ("trace2flame", t2f, oracle)):
                only = sorted((k for k in a if a[k] != b[k] and mine(k)), key=lambda k: -a[k])
                for tid, stack in only[:4]:
                    print("  %s alone: tid %d %d ns: %s" % (name, tid, a[(tid, stack)],
                                                          stack[-400:]))
        return 0 if share >= 0.99 and good and total > 0 else 1
    if mode == "timehist":
        # timehist prints, at each switch-out of a thread, the time since its previous
        # switch-out's end of run: the wait before this run, from the last sched_switch on the
        # CPU (the thread's switch-in when that was recorded). Waits are matched by the
        # switch-out that ends the run after them (times in microseconds, as printed).
        th = {}
        line_re = re.compile(r"^\s*(\d+)\.(\d{6})\s+\[\d+\]\s+\S*\[(\d+)(?:/\d+)?\]\s+"
                             r"([\d.]+)\s+([\d.]+)\s+([\d.]+)")
        with open(sys.argv[3], encoding="utf-8", errors="replace") as f:
            for line in f:
                m = line_re.match(line)
                if m:
                    us = int(m.group(1)) * 10**6 + int(m.group(2))
                    th[(int(m.group(3)), us)] = round(float(m.group(4)) * 1e6)
        ours, theirs, lines, all_ns = (collections.Counter() for _ in range(4))
        for tid, out, inn, kind, _s, nxt in waits:
            all_ns[tid] += inn - out
            if kind != "ss" or nxt is None or (tid, nxt // 1000) not in th:
                continue
            ours[tid] += inn - out
            theirs[tid] += th[(tid, nxt // 1000)]
            lines[tid] += 1
        print("timehist: waits ended at a recorded sched_switch and matched: %d ns of %d ns "
              "(%.2f%%)" % (sum(ours.values()), sum(all_ns.values()),
                            100 * sum(ours.values()) / max(1, sum(all_ns.values()))))
        good = thread_table("oracle", ours, "timehist", theirs, 0.01,
                            lambda tid: 1000 * lines[tid])
        return 0 if good and sum(ours.values()) > 0 else 1
    if mode == "wall":
        wall = per_tid(read_folded(sys.argv[3]))
        off = per_tid(oracle)
        want = collections.Counter()
        for tid in set(off) | set(oncpu):
            want[tid] = off[tid] + oncpu[tid]
        print("wall: %d ns (trace2flame), on-CPU %d + off-CPU %d ns" %
              (sum(wall.values()), sum(oncpu.values()), sum(off.values())))
        return 0 if thread_table("on+off", want, "wall", wall, 0.01) else 1
    if mode == "exact":
        wall = sys.argv[4:] == ["wall"]
        t2f = read_folded(sys.argv[3])
        want = oracle
        if wall:  # per thread: on-CPU + off-CPU
            t2f, off = per_tid(t2f), per_tid(oracle)
            want = collections.Counter({t: off[t] + oncpu[t] for t in set(off) | set(oncpu)})
        keys = [k for k in set(want) | set(t2f)
                if wall or COMM is None or k[0] in COMM_TIDS]
        differ = sorted((k for k in keys if want[k] != t2f[k]), key=str)
        totals = (want, t2f) if wall else (per_tid(want), per_tid(t2f))
        tids = sorted(t for t in set(totals[0]) | set(totals[1]) if totals[0][t] != totals[1][t])
        print("exact: %d ns (oracle), %d ns (trace2flame), %d keys, %d differ, %d threads "
              "differ" % (sum(want.values()), sum(t2f.values()), len(keys), len(differ),
                          len(tids)))
        for k in differ[:6]:
            print("  %s: oracle %d, trace2flame %d" % (str(k)[-300:], want[k], t2f[k]))
        for t in tids[:6]:
            print("  tid %d: oracle %d, trace2flame %d" % (t, totals[0][t], totals[1][t]))
        return 0 if not differ and not tids and sum(want.values()) > 0 else 1
    if mode == "speedscope":
        wall = sys.argv[4:] == ["wall"]
        got = evented(sys.argv[3])
        want = collections.defaultdict(list)
        for tid, out, inn, _k, stack, _n in waits:
            if stack:  # a wait recorded without a call chain has no frame to open: a gap
                want[tid].extend(pieces(out, inn))
        bad = []
        for tid in sorted(set(want) | set(got)):
            mine, theirs = union(want.get(tid, [])), got.get(tid, [])
            ns = sum(b - a for a, b in theirs)
            off = sum(b - a for a, b in mine)
            if not wall and mine != theirs:
                bad.append("tid %d: %d spans, %d ns (oracle); %d spans, %d ns (speedscope)" %
                           (tid, len(mine), off, len(theirs), ns))
            if wall and (any(not any(c <= a and b <= d for c, d in theirs) for a, b in mine)
                         or not off <= ns <= off + oncpu[tid]):
                bad.append("tid %d: off-CPU %d ns, on-CPU %d ns (oracle); %d ns covered "
                           "(speedscope)" % (tid, off, oncpu[tid], ns))
        print("speedscope: %d threads, %d ns covered, %d threads differ" %
              (len(got), sum(b - a for v in got.values() for a, b in v), len(bad)))
        for line in bad[:6]:
            print("  " + line)
        return 0 if not bad and got else 1
    if mode == "markers":
        with open(sys.argv[3], encoding="utf-8") as f:
            prof = json.load(f, parse_float=decimal.Decimal)
        got = collections.Counter()
        for th in prof["threads"]:
            for d in th["markers"]["data"]:
                if isinstance(d, dict) and d.get("type") == "trace2flame-off-cpu":
                    ns = d["duration"] * 10**6
                    if ns != int(ns):
                        print("  tid %s: a duration not in whole ns: %s" % (th["tid"], ns))
                        return 1
                    got[int(th["tid"])] += int(ns)
        want = per_tid(oracle)
        tids = sorted(t for t in set(want) | set(got) if want[t] != got[t])
        print("markers: %d ns (oracle), %d ns (trace2flame), %d threads differ" %
              (sum(want.values()), sum(got.values()), len(tids)))
        for t in tids[:6]:
            print("  tid %d: oracle %d, trace2flame %d" % (t, want[t], got[t]))
        return 0 if not tids and sum(want.values()) > 0 else 1
    print("unknown mode " + mode, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
