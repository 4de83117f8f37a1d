"""tests/firefox_check.py: Firefox profiles written by trace2flame, loaded by the Firefox
Profiler's own loading code (profiler-cli, tools/setup-firefox-check), against trace2flame's
folded output of the same input (-f collapsed --tid --raw-names: a root frame comm-PID/TID per
thread).

Per input: the threads (name, pid, tid) are the folded roots; per thread, the profiler's total
(the self weights of its functions) is the folded total of the stacks below the root, and each
of the profiler's ten hottest functions by self weight has, summed over functions of its name,
the folded self weight of that leaf name, and each of its ten heaviest functions by total weight
(one of its name) the weight of the folded stacks that hold its name; nanosecond periods are compared as the milliseconds
the profile holds them in. Checked on the JSON itself: the lost-samples marker where perf lost
some, every marker written loaded (off-CPU waits too), the libs' build-ids (codeId, and breakpadId worked out here), .gz output equal to the
plain one inflated, the same bytes for -j 1 and -j 2.

usage: python3 tests/firefox_check.py TRACE2FLAME NODE PROFILER-CLI WORKDIR INPUT[::ARGS]...
(ARGS: extra trace2flame options, comma-separated)"""
import collections
import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time

T2F, NODE, CLI, WORK = sys.argv[1:5]
CASES = sys.argv[5:]
ENV = dict(os.environ, PATH=os.path.dirname(NODE) + ":" + os.environ.get("PATH", ""),
           PROFILER_CLI_SESSION_DIR=os.path.join(WORK, "sessions"))
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("firefox_check: FAIL: " + what)
    return ok


def t2f(args):
    r = subprocess.run([T2F, "-q"] + args, capture_output=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError("trace2flame %s: exit %d: %s" % (" ".join(args), r.returncode,
                                                          r.stderr.decode()[:400]))
    return r.stdout


def pq_run(args):
    return subprocess.run([NODE, CLI] + list(args), capture_output=True, env=ENV, timeout=120)


def pq(*args):
    r = pq_run(args)
    if r.returncode != 0:
        raise RuntimeError("profiler-cli %s: exit %d: %s%s" % (
            " ".join(args), r.returncode, r.stdout.decode()[-400:], r.stderr.decode()[-400:]))
    return json.loads(r.stdout) if "--json" in args else r.stdout.decode()


DAEMONS = []  # the pids of the daemons started here


def load(path):
    """loads path in a new session; its id. profiler-cli waits 500 ms for its daemon to start:
    on a busy machine it says so and leaves the daemon starting, which is then waited for."""
    r = pq_run(["load", path])
    text = r.stdout.decode() + r.stderr.decode()
    for pid in re.findall(r"running as pid (\d+)", text):
        DAEMONS.append(int(pid))
    m = re.search(r"Session started: (\S+)", text) or re.search(r"sessions/(\w+)\.log", text)
    if not m:
        raise RuntimeError("profiler-cli load %s: exit %d: %s" % (path, r.returncode, text[-400:]))
    session = m.group(1)
    deadline = time.monotonic() + 60
    while r.returncode != 0:
        r = pq_run(["status", "--session", session])
        if r.returncode != 0 and time.monotonic() > deadline:
            raise RuntimeError("profiler-cli load %s: the daemon did not start: %s" % (
                path, text[-400:]))
        if r.returncode != 0:
            time.sleep(0.5)
    return session


def stop_daemons():
    for pid in DAEMONS:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass


def folded(args):
    """root -> (total, Counter of leaf name -> self, Counter of name -> weight of the stacks
    holding it)"""
    out = collections.defaultdict(lambda: [0, collections.Counter(), collections.Counter()])
    for line in t2f(args + ["-f", "collapsed", "--tid", "--raw-names", "-o", "-"]).decode(
            "utf-8", "replace").splitlines():
        stack, _, w = line.rpartition(" ")
        frames = stack.split(";")
        if len(frames) < 2:
            continue  # a sample without a call chain: no function in the profile either
        out[frames[0]][0] += int(w)
        out[frames[0]][1][frames[-1]] += int(w)
        for name in set(short(f) for f in frames[1:]):
            out[frames[0]][2][name] += int(w)
    return out


def root_of(th, want):
    """the folded root of a thread; one without a tid is numbered in the profile (-1 folded)"""
    comm = th["name"].replace(" ", "_")
    pid = "?" if th["pid"].startswith("unknown") else th["pid"].split(".")[0]
    root = "%s-%s/%s" % (comm, pid, th["tid"])
    if root not in want and "%s-%s/-1" % (comm, pid) in want:
        return "%s-%s/-1" % (comm, pid)
    return root


def short(name):
    """a function's name as profiler-cli lists it: without a leading "module!" (.nettrace
    frames are named "module!function")"""
    head, bang, rest = name.partition("!")
    return rest if bang and rest and "(" not in head and "<" not in head else name


def breakpad(build_id):
    b = (build_id + "0" * 32)[:32]
    swap = "".join(b[i:i + 2] for i in (6, 4, 2, 0, 10, 8, 14, 12)) + b[16:]
    return swap.upper() + "0"


def check_json(name, path, args):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
        plain = t2f(args + ["-f", "firefox", "-o", "-"])
        check(data == plain, name + ": the .gz output inflates to the plain output")
    else:
        other = t2f(args + ["-f", "firefox", "-j", "2", "-o", "-"])
        check(data == other, name + ": -j 1 and -j 2 write the same bytes")
    prof = json.loads(data)
    check(prof["meta"]["preprocessedProfileVersion"] == 70, name + ": version 70")
    for lib in prof["libs"]:
        if lib["codeId"]:
            check(lib["breakpadId"] == breakpad(lib["codeId"]),
                  "%s: lib %s: breakpadId %s from codeId %s" % (name, lib["name"],
                                                                lib["breakpadId"], lib["codeId"]))
    return prof


def check_inlines(name, prof):
    """frames of inlined functions one level deeper than their holder, source files and lines"""
    shared = prof["shared"]
    frames, funcs, strs = shared["frameTable"], shared["funcTable"], shared["stringArray"]
    stacks = shared["stackTable"]
    deeper = 0
    for i in range(stacks["length"]):
        f = stacks["frame"][i]
        if frames["inlineDepth"][f] and stacks["prefixOffset"][i]:
            parent = stacks["frame"][i - stacks["prefixOffset"][i]]
            deeper += frames["inlineDepth"][f] == frames["inlineDepth"][parent] + 1
            check(frames["category"][f] is None, name + ": an inlined frame takes its holder's "
                  "category")
    check(deeper > 0, name + ": inlined frames one deeper than their caller")
    named = {strs[funcs["name"][i]] for i in range(funcs["length"]) if funcs["lineNumber"][i]}
    check({"mix", "step", "inner_loop"} <= named, name + ": functions with their lines: %s" %
          sorted(named))
    files = {strs[s] for s in shared["sources"]["filename"]}
    check(any(f.endswith("inl.c") for f in files), name + ": inl.c among the sources %s" %
          sorted(files))
    check(any(frames["line"]), name + ": frames with the line of their code")


IDLE = []  # the cases with the idle task's samples


def check_cpu(name, prof, threads):
    """With a threadCPUDelta column (ns), each loaded thread's CPU time is its column's sum, but
    for what the profiler leaves out: the first sample's (the time before it is unknown to it)
    and whatever exceeds the time since the sample before"""
    if prof["meta"].get("sampleUnits", {}).get("threadCPUDelta") != "ns":
        check(all(t.get("cpuMs", 0) == 0 for t in threads), name + ": no CPU time without "
              "a threadCPUDelta column")
        return
    for t in threads:
        th = prof["threads"][t["threadIndex"]]
        s = th["samples"]
        if not check(int(th["tid"]) == int(t["tid"]) and
                     len(s.get("threadCPUDelta", ())) == s["length"],
                     "%s: tid %s: a threadCPUDelta a sample" % (name, t["tid"])):
            continue
        d, tm = s["threadCPUDelta"], s["time"]
        if int(th["tid"]) == 0:
            check(s["length"] > 0 and not any(d) and t["cpuMs"] == 0,
                  "%s: the idle task's %d samples use no CPU: %s ms loaded" % (
                      name, s["length"], t["cpuMs"]))
            IDLE.append(name)
        capped = sum(min(d[i], (tm[i] - tm[i - 1]) * 1e6) for i in range(1, len(d)))
        check(capped / 1e6 - 1e-6 <= t["cpuMs"] <= sum(d) / 1e6 + 1e-6,
              "%s: tid %s: CPU %s ms loaded, its threadCPUDelta %s ms (%s capped)" % (
                  name, t["tid"], t["cpuMs"], sum(d) / 1e6, capped / 1e6))


EXEC = []  # the cases of a process that exec'd


def check_exec(name, prof):
    """exec.perf.txt: pid 6279's main thread ran as bash, then exec'd burner; burner 6282 and
    faulter 6283 are other threads of it. Every thread of the process names it burner, as ps
    would after the exec."""
    threads = [t for t in prof["threads"] if t["pid"] == "6279"]
    check(sorted(t["name"] for t in threads) == ["bash", "burner", "burner", "faulter"],
          name + ": the threads of pid 6279: %s" % sorted(t["name"] for t in threads))
    for t in threads:
        check(t["processName"] == "burner", "%s: thread %s names its process %s, not burner" % (
            name, t["name"], t["processName"]))
    EXEC.append(name)


def run_case(i, case):
    inp, _, extra = case.partition("::")
    inlines = "--inline-check" in extra
    extra = extra.replace("--inline-check", "")
    args = [a for a in extra.split(",") if a] + [inp]
    name = os.path.basename(inp) + (" " + " ".join(args[:-1]) if len(args) > 1 else "")
    out = os.path.join(WORK, "case%d.profile.json%s" % (i, ".gz" if i % 2 else ""))
    t2f(args + ["-f", "firefox", "-o", out])
    prof = check_json(name, out, args)
    if os.path.basename(inp) == "exec.perf.txt":
        check_exec(name, prof)
    if inlines:
        check_inlines(name, prof)
    want = folded(args)
    ns = any(t["samples"]["weightType"] == "tracing-ms" for t in prof["threads"])
    session = load(out)
    try:
        threads = pq("thread", "list", "--json", "--session", session)["threads"]
        if not want:  # no samples: one thread saying so (the profiler loads none without)
            check([t["name"] for t in threads] == ["no samples"], name + ": threads %s" %
                  [t["name"] for t in threads])
            return 0
        check_cpu(name, prof, threads)
        got = {root_of(t, want): t for t in threads}
        check(sorted(got) == sorted(want), "%s: threads %s, folded roots %s" % (
            name, sorted(got), sorted(want)))
        for root, th in sorted(got.items()):
            if root not in want:
                continue
            total, leaves, inclusive = want[root]
            selfs = collections.Counter()
            for leaf, w in leaves.items():
                selfs[short(leaf)] += w
            fn = pq("thread", "functions", "--json", "--thread", th["threadHandle"],
                    "--limit", "1000000", "--session", session)
            funcs = fn["functions"]
            check(len(funcs) == fn["totalFunctionCount"], name + ": every function listed")
            by_name = collections.Counter()
            for f in funcs:
                by_name[short(f["name"])] += f["selfSamples"]
            scale = 1e6 if ns else 1

            def same(a, b):
                return abs(a * scale - b) <= 1e-9 * abs(b) + (1 if ns else 0)
            got_total = sum(f["selfSamples"] for f in funcs)
            check(same(got_total, total), "%s: %s: total %s, folded %d" % (
                name, root, got_total, total))
            hot = sorted(funcs, key=lambda f: -f["selfSamples"])[:10]
            for f in hot:
                if f["selfSamples"] > 0:
                    n = short(f["name"])
                    check(same(by_name[n], selfs[n]), "%s: %s: self of %s %s, folded %d" % (
                        name, root, n, by_name[n], selfs[n]))
            for f in sorted(funcs, key=lambda f: -f["totalSamples"])[:10]:
                n = short(f["name"])
                if sum(1 for g in funcs if short(g["name"]) == n) == 1:
                    check(same(f["totalSamples"], inclusive[n]),
                          "%s: %s: total of %s %s, folded %d" % (
                              name, root, n, f["totalSamples"], inclusive[n]))
            top = max(selfs.values()) if selfs else 0
            if top > 0:
                check(hot and same(hot[0]["selfSamples"], top) or
                      any(same(v, top) for v in by_name.values()),
                      "%s: %s: the hottest function's self %s, folded %d" % (
                          name, root, hot[0]["selfSamples"] if hot else None, top))
        if os.path.basename(inp) == "gen.data":  # LOST at 30 ns, LOST_SAMPLES at 1: the first
            m = prof["threads"][0]["markers"]  # sample's time, the profile's 0
            check((m["startTime"][0], m["endTime"][0], m["phase"][0]) == (0, 0.000029, 1),
                  "%s: the lost marker spans the lost records' times: %s %s %s" % (
                      name, m["startTime"][0], m["endTime"][0], m["phase"][0]))
        written = sum(t["markers"]["length"] for t in prof["threads"])
        lost = sum(1 for t in prof["threads"] for d in t["markers"]["data"]
                   if d and d.get("type") == "trace2flame-lost")
        markers = sum(t["markerCount"] for t in threads)
        check(markers == written, "%s: %d markers loaded, %d written" % (name, markers, written))
        return lost
    finally:
        pq("stop", session)


def main():
    lost = 0
    try:
        for i, case in enumerate(CASES):
            try:
                lost += run_case(i, case)
            except (RuntimeError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
                check(False, "%s: %s" % (case, e))
    finally:
        stop_daemons()
    check(lost > 0, "some input's lost samples became a marker")
    check(any(n.startswith("idle.perf.txt") for n in IDLE), "the idle task's case was checked")
    check(EXEC != [], "the exec'd process's case was checked")
    print("firefox_check: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
