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
ORACLE_STATES (letters R, S, D, O; default all): the states whose switch-outs open a wait, as
--off-cpu-state selects them. ORACLE_COMM: compare's stacks on the threads of this command only
(other programs' frames may be named otherwise: argument lists, demangling); the per-thread
totals are every thread's. Prints its numbers; exit status 1 when an agreement is under its bound (99% of the weight, 1%
per thread), 0 otherwise.
"""
import collections
import os
import re
import sys

HEADER = re.compile(r"^\s*(.*?)\s+(?:-?\d+/)?(-?\d+)\s+(?:\[(\d+)\]\s+)?(\d+)\.(\d{9}):\s*(.*)$")
SWITCH = re.compile(r"prev_pid=(-?\d+) .*?prev_state=(\S*) .*next_pid=(-?\d+) ")
STATES = os.environ.get("ORACLE_STATES", "RSDO")  # --off-cpu-state's letters
COMM = os.environ.get("ORACLE_COMM")  # compare stacks on this program's threads only
COMM_TIDS = set()
PERIOD = re.compile(r"^(\d+)\s+(\S+):")


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
            if m and m.group(2) in ("cpu-clock", "task-clock"):
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
        t[(tid, stack)] += inn - out
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
    print("unknown mode " + mode, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
