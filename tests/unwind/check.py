#!/usr/bin/python3
"""tests/unwind/check.py: the checks of tests/unwind/recorded.sh on one recorded program.

usage: check.py routes NAME DATA.json TEXT.json
         the speedscope outputs of the perf.data route (our unwinder) and of the text route
         (perf's): per thread (keyed by "tid N" in the profile name, the text having no pid),
         sample by sample, the frame names must be equal for at least 99% of the samples;
         prints the count, and the first differing samples (both stacks) when it fails
       check.py stats NAME STATS DATA.json
         the --stats report of the perf.data route accounts for every sample: the
         "--call-graph dwarf samples" line (D; U unwound (F frames), K without user registers)
         has D = U + K = the samples of DATA.json, F = its user frames, the "to the end" and
         "stopped" lines add up to U and the "stopped in MODULE" lines to each "stopped" line
       check.py names NAME DATA.json TEXT.json [FUNCTION...]
         the names perf gives the frames of --call-graph dwarf samples: DATA.json from the
         perf.data route with inline frames (our naming), TEXT.json from perf script's own text
         with its "(inlined)" frames kept (perf's naming): per thread, sample by sample, the
         frame names must be equal for at least 99% of the samples once perf's symbol versions
         are cut ("mark@@STAMP_1": trace2flame never writes one); no name of DATA.json has a
         version; and for each FUNCTION given, the functions it calls directly are the same
         non-empty set in both (printed: malloc, memcpy, printf, free as perf names them)
       check.py calls NAME FOLDED
         the call structure of fixtures/unwind's sources (CALLS below) in the perf.data route's
         folded output: in every sample holding a function of the program, the program's
         functions follow each other only along the calls of the sources, the outermost one is a
         thread's root under its expected caller, the stack starts at the process' or thread's
         first frame and the recursion is as deep as the source makes it (at least 99% of these
         samples); and every call marked as hot is seen
Exits 1 with the reasons on failure.
"""
import collections
import json
import re
import sys

MIN_EQUAL = 0.99

# Per program: ROOTS (a function -> a regular expression its caller's name must match), EDGES
# (caller -> callees; hot ones marked with a "!" in front of the callee, which must be seen),
# DEPTH (a function -> (the recursive function, how many frames of it are above the function)).
START = r"^(_start|clone3?|__clone3?)$"
C_CALLS = {
    "roots": {"main": r"^__libc_start_call_main$", "worker": r"^start_thread$"},
    "edges": {"main": ["!run"], "worker": ["!run", "!churn"], "run": ["!stage_a"],
              "stage_a": ["!stage_b"], "stage_b": ["!descend"],
              "descend": ["!descend", "!work_sum"], "work_sum": ["!work_hash"],
              "work_hash": ["!work_mix"], "churn": ["!work_apply"], "work_apply": ["!square"],
              "square": [], "work_mix": []},
    "depth": {"work_sum": ("descend", 5)},
}
CC_CALLS = {
    "roots": {"main": r"^__libc_start_call_main$",
              "worker": r"^(\[libstdc\+\+[^]]*\]|execute_native_thread_routine)$"},
    "edges": {"main": ["!drive"], "worker": ["!drive"],
              "drive": ["!SortTask::run", "!CountTask::run", "!VisitTask::run",
                        "!ThrowTask::run", "make_words"],
              "SortTask::run": ["!coll::sort_words"], "CountTask::run": ["!coll::count_words"],
              "VisitTask::run": ["!coll::visit_all"], "coll::visit_all": ["!Scrambler::visit"],
              "Scrambler::visit": ["!scramble"], "ThrowTask::run": ["!coll::checked_sum"],
              "coll::checked_sum": ["coll::check"], "coll::check": [], "coll::sort_words": [],
              "coll::count_words": [], "scramble": [], "make_words": []},
    "depth": {},
}
RS_CALLS = {
    "roots": {"app::main": r"__rust_begin_short_backtrace$",
              "app::worker": r"__rust_begin_short_backtrace$"},
    "edges": {"app::main": ["!app::run"], "app::worker": ["!app::run"],
              "app::run": ["!app::split"], "app::split": ["!app::split", "!app::tally",
                                                          "!app::order"],
              "app::tally": [], "app::order": []},
    "depth": {"app::tally": ("app::split", 5), "app::order": ("app::split", 5)},
}
LIBC_CALLS = {
    "roots": {"main": r"^__libc_start_call_main$"},
    "edges": {"main": ["!churn"], "churn": []},
    "depth": {},
}
CALLS = {"c": C_CALLS, "c-lld": C_CALLS, "cc": CC_CALLS, "rs": RS_CALLS, "libc": LIBC_CALLS}
# a symbol version at the end of a name ("cfree@GLIBC_2.2.5", "mark@@STAMP_1"), not "@plt"
VERSION = re.compile(r"@@?(?!plt$)[^@]+$")


def load_speedscope(path):
    """{tid: [(frame, ...) root first, one per sample]}, each frame its {"name", "file"}."""
    d = json.load(open(path))
    frames = d["shared"]["frames"]
    out = {}
    for p in d["profiles"]:
        m = re.search(r"\btid (\d+)", p["name"])
        if not m:
            sys.exit("%s: profile %r has no tid" % (path, p["name"]))
        seq = out.setdefault(m.group(1), [])
        for s, w in zip(p["samples"], p["weights"]):
            seq += [tuple(frames[i] for i in s)] * int(w)
    return out


def names(stack):
    return tuple(f["name"] for f in stack)


def show(stack):
    return ";".join(f if len(f) <= 70 else f[:67] + "..." for f in stack)


def routes(name, data, text):
    a = load_speedscope(data)
    b = load_speedscope(text)
    if sorted(a) != sorted(b):
        sys.exit("%s: the routes' threads differ: %s and %s" % (name, sorted(a), sorted(b)))
    equal = total = 0
    diffs = []
    for tid in sorted(a, key=int):
        if len(a[tid]) != len(b[tid]):
            sys.exit("%s: tid %s: %d samples in the perf.data route, %d in the text route"
                     % (name, tid, len(a[tid]), len(b[tid])))
        for i, (x, y) in enumerate(zip(a[tid], b[tid])):
            total += 1
            x, y = names(x), names(y)
            if x == y:
                equal += 1
            else:
                diffs.append((tid, i, x, y))
    line = "%s: %d of %d samples equal frame for frame (%.2f%%)" % (
        name, equal, total, 100.0 * equal / total if total else 0)
    if total < 100 or equal < MIN_EQUAL * total:
        out = [line + ", %d%% wanted" % (MIN_EQUAL * 100)]
        for tid, i, x, y in diffs[:5]:
            out += ["  tid %s sample %d:" % (tid, i), "    perf.data: " + show(x),
                    "    text:      " + show(y)]
        sys.exit("\n".join(out))
    print(line)


def callees(seqs, fn, cut=lambda n: n):
    out = set()
    for stacks in seqs.values():
        for s in stacks:
            ns = [cut(n) for n in names(s)]
            out.update(ns[i + 1] for i in range(len(ns) - 1) if ns[i] == fn)
    return out


def names_check(name, data, text, *functions):
    a = load_speedscope(data)
    b = load_speedscope(text)
    cut = lambda n: VERSION.sub("", n)
    if sorted(a) != sorted(b):
        sys.exit("%s: the routes' threads differ: %s and %s" % (name, sorted(a), sorted(b)))
    equal = total = 0
    diffs = []
    for tid in sorted(a, key=int):
        if len(a[tid]) != len(b[tid]):
            sys.exit("%s: tid %s: %d samples in the perf.data route, %d in perf's text"
                     % (name, tid, len(a[tid]), len(b[tid])))
        for i, (x, y) in enumerate(zip(a[tid], b[tid])):
            total += 1
            x, y = names(x), tuple(cut(n) for n in names(y))
            if x == y:
                equal += 1
            else:
                diffs.append((tid, i, x, y))
    versioned = sorted({n for v in a.values() for s in v for n in names(s) if VERSION.search(n)})
    line = "%s: %d of %d samples named as perf names them, frame for frame (%.2f%%)" % (
        name, equal, total, 100.0 * equal / total if total else 0)
    errors = []
    if total < 100 or equal < MIN_EQUAL * total:
        errors.append(line + ", %d%% wanted" % (MIN_EQUAL * 100))
        for tid, i, x, y in diffs[:5]:
            errors += ["  tid %s sample %d:" % (tid, i), "    perf.data: " + show(x),
                       "    perf:      " + show(y)]
    if versioned:
        errors.append("%s: names with a symbol version: %s" % (name, ", ".join(versioned[:5])))
    out = [line]
    for fn in functions:
        ours, perfs = callees(a, fn), callees(b, fn, cut)
        if not perfs or ours != perfs:
            errors.append("%s: %s calls %s here, %s in perf's text" % (
                name, fn, sorted(ours), sorted(perfs)))
        out.append("%s: %s calls %s" % (name, fn, ", ".join(sorted(ours))))
    if errors:
        sys.exit("\n".join(errors))
    print("\n".join(out))


def stats(name, path, data):
    text = open(path).read().splitlines()
    head = [i for i, l in enumerate(text) if "dwarf samples" in l]
    if len(head) != 1:
        sys.exit("%s: %d lines about --call-graph dwarf samples in --stats" % (name, len(head)))
    nums = [int(x) for x in re.findall(r"\d+", text[head[0]])]
    if len(nums) != 4:
        sys.exit("%s: 4 numbers wanted in %r" % (name, text[head[0]]))
    dwarf, unwound, nframes, noregs = nums
    ends = {}
    mods = collections.Counter()
    ways = None
    for l in text[head[0] + 1:]:
        s = l.strip()
        m = re.match(r"walked through decoded call-frame rules: (\d+), by libdwfl's unwinder: (\d+)$",
                     s)
        if m:
            ways = int(m.group(1)) + int(m.group(2))
            continue
        m = re.match(r"(to the end|stopped):\s*(.*?):\s*(\d+)$", s)
        if m:
            ends[(m.group(1), m.group(2))] = int(m.group(3))
            continue
        m = re.match(r"stopped in (.*?):((?:\s*[^;]*?\s\d+;)+)$", s)
        if not m:
            break
        for why, n in re.findall(r"\s*([^;]*?)\s(\d+);", m.group(2)):
            mods[why] += int(n)
    seqs = load_speedscope(data)
    samples = sum(len(v) for v in seqs.values())
    user = sum(1 for v in seqs.values() for s in v
               for f in s if f.get("file") != "[kernel.kallsyms]")
    stopped = collections.Counter({w: n for (k, w), n in ends.items() if k == "stopped"})
    errors = []
    if dwarf != unwound + noregs:
        errors.append("dwarf samples %d != unwound %d + without registers %d"
                      % (dwarf, unwound, noregs))
    if dwarf != samples:
        errors.append("dwarf samples %d != the %d samples written" % (dwarf, samples))
    if ways != unwound:
        errors.append("decoded rules + libdwfl's unwinder: %s, not the %d unwound" % (ways, unwound))
    if sum(ends.values()) != unwound:
        errors.append("the to the end/stopped lines add up to %d, not the %d unwound"
                      % (sum(ends.values()), unwound))
    if stopped != mods:
        errors.append("the stopped lines %s != the stopped-in-module lines %s"
                      % (dict(stopped), dict(mods)))
    if nframes != user:
        errors.append("%d frames unwound != the %d user frames written" % (nframes, user))
    if errors:
        sys.exit("%s: --stats: %s\n%s" % (name, "; ".join(errors),
                                          "\n".join(text[head[0]:head[0] + 12])))
    print("%s: --stats: %d dwarf samples, %d unwound to the end, %d stopped (%s)" % (
        name, dwarf, sum(n for (k, _), n in ends.items() if k != "stopped"),
        sum(stopped.values()), ", ".join("%s %d" % kv for kv in sorted(stopped.items()))))


def calls(name, folded):
    spec = CALLS[name]
    own = set(spec["edges"])
    callees = {k: {c.lstrip("!") for c in v} for k, v in spec["edges"].items()}
    hot = {(k, c[1:]) for k, v in spec["edges"].items() for c in v if c.startswith("!")}
    seen = set()
    good = bad = 0
    wrong = []
    for line in open(folded):
        stack, n = line.rstrip("\n").rsplit(" ", 1)
        fr = stack.split(";")[1:]  # without the comm
        at = [i for i, f in enumerate(fr) if f in own]
        if not at:
            continue
        why = None
        root = fr[at[0]]
        if not re.search(START, fr[0]):
            why = "does not start at a first frame"
        elif root not in spec["roots"]:
            why = "outermost function %s is no root" % root
        elif at[0] == 0 or not re.search(spec["roots"][root], fr[at[0] - 1]):
            why = "%s called by %s" % (root, fr[at[0] - 1] if at[0] else "nothing")
        for i, j in zip(at, at[1:]):
            if why:
                break
            if j != i + 1:
                why = "%s between %s and %s" % (";".join(fr[i + 1:j]), fr[i], fr[j])
            elif fr[j] not in callees[fr[i]]:
                why = "%s called by %s" % (fr[j], fr[i])
            seen.add((fr[i], fr[j]))
        for f, (rec, depth) in spec["depth"].items():
            if not why and f in fr and fr.count(rec) != depth:
                why = "%d frames of %s above %s, %d wanted" % (fr.count(rec), rec, f, depth)
        if why:
            bad += int(n)
            wrong.append("  %s: %s" % (why, show(fr)))
        else:
            good += int(n)
    line = "%s: %d of %d samples in the program's functions follow its calls" % (
        name, good, good + bad)
    errors = []
    if good + bad < 100 or good < MIN_EQUAL * (good + bad):
        errors.append("%s, %d%% wanted" % (line, MIN_EQUAL * 100))
        errors += wrong[:5]
    if hot - seen:
        errors.append("%s: calls never seen: %s" % (
            name, ", ".join("%s -> %s" % e for e in sorted(hot - seen))))
    if errors:
        sys.exit("\n".join(errors))
    print(line)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("routes", "names", "stats", "calls"):
        sys.exit(__doc__)
    if sys.argv[1] == "routes" and len(sys.argv) == 5:
        routes(*sys.argv[2:])
    elif sys.argv[1] == "names" and len(sys.argv) >= 5:
        names_check(*sys.argv[2:])
    elif sys.argv[1] == "stats" and len(sys.argv) == 5:
        stats(*sys.argv[2:])
    elif sys.argv[1] == "calls" and len(sys.argv) == 4:
        calls(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
