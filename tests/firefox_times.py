"""tests/firefox_times.py: the times in a Firefox profile (-f firefox) of a perf.data recording,
against `perf script` text of the same recording (an independent oracle), and its off-CPU
markers against the off-cpu folded output.

- --event cpu-clock: per thread (tid), the samples' times are perf script's times of that tid's
  cpu-clock samples, in order, all shifted by one constant (the profile's time 0), and each
  weight is the sample's period (ms in the profile, ns in the text);
- --event off-cpu: the Off-CPU markers are as many as the off-cpu samples (folded --weight
  samples), their durations (endTime - startTime, and data.duration) sum to the folded total
  weight, and per thread they are the thread's off-cpu samples: (start, duration) = (time,
  weight).
- --event cpu-clock: meta.sampleUnits gives threadCPUDelta in ns, and each sample's
  threadCPUDelta is its period as perf script prints it;
- --event wall: per thread, the threadCPUDelta of its on-CPU samples are their perf script
  periods, in order, and the off-CPU ones (as many as its Off-CPU markers) have 0;
- --event off-cpu: no threadCPUDelta column, no sampleUnits.
Numbers are read as decimals: the profile holds ns exactly as ms with six decimals.

usage: python3 tests/firefox_times.py TRACE2FLAME PERF.DATA PERF-SCRIPT.TXT WORKDIR
(PERF-SCRIPT.TXT: perf script --ns -F tid,time,period,event)"""
import collections
import decimal
import json
import os
import subprocess
import sys

T2F, DATA, TEXT, WORK = sys.argv[1:5]
NS = decimal.Decimal(1000000)
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("firefox_times: FAIL: " + what)
    return ok


def t2f(args):
    r = subprocess.run([T2F, "-q"] + args, capture_output=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("trace2flame %s: exit %d: %s" % (" ".join(args), r.returncode,
                                                          r.stderr.decode()[:400]))
    return r.stdout


def profile(event):
    out = os.path.join(WORK, "times-%s.profile.json" % event)
    t2f(["--event", event, "-f", "firefox", "-o", out, DATA])
    with open(out) as f:
        return json.load(f, parse_float=decimal.Decimal, parse_int=decimal.Decimal)


def ns(ms):
    v = ms * NS
    if v != v.to_integral_value():
        raise ValueError("%s ms is no whole number of ns" % ms)
    return int(v)


def perf_samples():
    """per tid: [(time ns, period)] of its cpu-clock samples, in order"""
    by_tid = collections.defaultdict(list)
    with open(TEXT) as f:
        for line in f:
            fields = line.split()
            if len(fields) < 4 or fields[3].rstrip(":") != "cpu-clock":
                continue
            secs, frac = fields[1].rstrip(":").split(".")
            by_tid[int(fields[0])].append((int(secs) * 10**9 + int(frac.ljust(9, "0")),
                                           int(fields[2])))
    return by_tid


def check_times():
    prof = profile("cpu-clock")
    want = perf_samples()
    check(sum(len(v) for v in want.values()) > 20, "the recording has cpu-clock samples")
    shifts = set()
    got_tids = set()
    for th in prof["threads"]:
        tid = int(th["tid"])
        got_tids.add(tid)
        s = th["samples"]
        times = [ns(t) for t in s["time"]]
        weights = [ns(w) for w in s["weight"]]
        exp = want.get(tid, [])
        if not check(len(times) == len(exp) == s["length"],
                     "tid %d: %d samples (length %s), perf script %d" % (
                         tid, len(times), s["length"], len(exp))):
            continue
        shifts.update(e[0] - t for t, e in zip(times, exp))
        check(weights == [e[1] for e in exp], "tid %d: weights are the periods" % tid)
        check([int(d) for d in s.get("threadCPUDelta", [])] == [e[1] for e in exp],
              "tid %d: threadCPUDelta are the periods" % tid)
        check(all(a <= b for a, b in zip(times, times[1:])), "tid %d: times in order" % tid)
    check(prof["meta"].get("sampleUnits", {}).get("threadCPUDelta") == "ns",
          "cpu-clock: meta.sampleUnits.threadCPUDelta is ns")
    check(got_tids == set(want), "threads %s, perf script's %s" % (sorted(got_tids),
                                                                    sorted(want)))
    check(len(shifts) == 1, "every sample at its perf script time less one constant: %d "
          "different shifts %s" % (len(shifts), sorted(shifts)[:5]))


def folded_total(args):
    total = 0
    for line in t2f(args + ["--event", "off-cpu", "--tid", "-o", "-", DATA]).decode().splitlines():
        total += int(line.rsplit(" ", 1)[1])
    return total


def check_markers():
    prof = profile("off-cpu")
    strs = prof["shared"]["stringArray"]
    count = dur_sum = 0
    for th in prof["threads"]:
        m, s = th["markers"], th["samples"]
        spans = []
        for i in range(int(m["length"])):
            d = m["data"][i]
            if d is None or d.get("type") != "trace2flame-off-cpu":
                continue
            check(strs[int(m["name"][i])] == "Off-CPU" and m["phase"][i] == 1,
                  "tid %s: marker %d is an Off-CPU interval" % (th["tid"], i))
            start, end = ns(m["startTime"][i]), ns(m["endTime"][i])
            check(end - start == ns(d["duration"]) and d["state"] in ("R", "S", "D", "O"),
                  "tid %s: marker %d: duration %s, state %s" % (th["tid"], i, d["duration"],
                                                               d["state"]))
            spans.append((start, end - start))
        samples = sorted(zip((ns(t) for t in s["time"]), (ns(w) for w in s["weight"])))
        check(sorted(spans) == samples, "tid %s: markers (start, duration) are the off-cpu "
              "samples (time, weight): %d and %d" % (th["tid"], len(spans), len(samples)))
        count += len(spans)
        dur_sum += sum(d for _, d in spans)
    check("sampleUnits" not in prof["meta"] and
          not any("threadCPUDelta" in th["samples"] for th in prof["threads"]),
          "off-cpu: no CPU time column")
    n = folded_total(["--weight", "samples"])
    total = folded_total([])
    check(n > 0 and count == n, "%d Off-CPU markers, %d off-cpu samples" % (count, n))
    check(dur_sum == total, "Off-CPU markers last %d ns, off-cpu folded total %d" % (
        dur_sum, total))
    print("firefox_times: %d Off-CPU markers, %d ns" % (count, dur_sum))


def check_wall_cpu():
    prof = profile("wall")
    want = perf_samples()
    check(prof["meta"].get("sampleUnits", {}).get("threadCPUDelta") == "ns",
          "wall: meta.sampleUnits.threadCPUDelta is ns")
    waits = 0
    for th in prof["threads"]:
        tid, s, m = int(th["tid"]), th["samples"], th["markers"]
        deltas = [int(d) for d in s.get("threadCPUDelta", [])]
        markers = sum(1 for d in m["data"] if d and d.get("type") == "trace2flame-off-cpu")
        check(len(deltas) == s["length"], "wall: tid %d: a threadCPUDelta a sample" % tid)
        check([d for d in deltas if d] == [e[1] for e in want.get(tid, [])],
              "wall: tid %d: the on-CPU samples' threadCPUDelta are the periods" % tid)
        check(deltas.count(0) == markers, "wall: tid %d: %d samples without CPU time, %d "
              "Off-CPU markers" % (tid, deltas.count(0), markers))
        waits += markers
    check(waits > 0, "wall: the recording has off-CPU waits")


def main():
    for f in (check_times, check_markers, check_wall_cpu):
        try:
            f()
        except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
            check(False, "%s: %s" % (f.__name__, e))
    print("firefox_times: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
