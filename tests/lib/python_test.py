"""tests/lib/python_test.py: the Python module trace2flame (tools/python/) on the build tree's
libtrace2flame.so, held to the command line built from the same tree:

  - convert() and Session: every format of perf script text (each fixture the CLI converts),
    folded stacks, gzip'd text, .nettrace (the shipped traces, V4/V5 ones written by
    tools/make-nettrace, a V6 one naming a program built here), perf.data (written by
    tests/perf_data_gen.py over that program, so named by the resolve stage with inline frames;
    and recorded with perf record where it may record) are the bytes of `trace2flame INPUT -f
    FORMAT`; options by name are the CLI's flags; several inputs; bytes in memory
  - stats, module reports and report("stats") against what `--stats` prints
  - errors raise trace2flame.Error with the CLI's message and the library's code
  - callbacks: progress per input to its size, warnings through message (also from the parallel
    reader's threads), their exceptions raised by the call, kept alive without references
  - symbolize() against `trace2flame resolve --inlines`; functions() against readelf; demangle()
    against c++filt; refusals of another build-id
  - the library found through T2F_LIBRARY, next to the module, or said missing

usage: python3 tests/lib/python_test.py
env:   T2F_SOURCE_DIR, T2F_CLI (trace2flame), T2F_LIBRARY (libtrace2flame.so), PYTHONPATH with
       tools/python first; CC (default cc)
"""
import ctypes
import errno
import gc
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

import trace2flame

SRC = os.environ["T2F_SOURCE_DIR"]
CLI = os.environ["T2F_CLI"]
FX = os.path.join(SRC, "fixtures", "perf-script")
NT = os.path.join(SRC, "fixtures", "nettrace")
FORMATS = None  # the output formats, as `trace2flame --list-formats` names them (setUpModule)
sys.path.insert(0, os.path.join(SRC, "tests"))
import perf_data_gen  # noqa: E402

TMP = None
INL = None  # fixtures/dwarf/inl.c built -O2 -g (None: no compiler)


def child_env(python=False):
    """The environment of the programs the tests start: in the sanitizer build, the ASan
    runtime tests/lib/python.sh preloaded into this interpreter only for a Python child (which
    loads the library), and the ASan options this interpreter was started with."""
    env = dict(os.environ)
    if os.environ.get("T2F_PY_PRELOAD") and not python:
        env.pop("LD_PRELOAD", None)
        env["ASAN_OPTIONS"] = os.environ.get("T2F_CHILD_ASAN_OPTIONS", "")
    return env


def run(args, **kw):
    """subprocess.run with child_env() (a Python child: python=True)."""
    env = kw.pop("env", None) or child_env(kw.pop("python", False))
    return subprocess.run(args, env=env, **kw)


def setUpModule():
    global TMP, INL, FORMATS
    FORMATS = tuple(line.split()[0] for line in run(
        [CLI, "--list-formats"], stdout=subprocess.PIPE, check=True,
        universal_newlines=True).stdout.splitlines())
    TMP = tempfile.mkdtemp(prefix="t2f-python.")
    cc = os.environ.get("CC") or "cc"
    exe = os.path.join(TMP, "inl")
    r = run([cc, "-O2", "-g", "-fno-omit-frame-pointer", "-Wl,--build-id",
            "-o", exe, os.path.join(SRC, "fixtures", "dwarf", "inl.c")],
            capture_output=True)
    INL = exe if r.returncode == 0 else None


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def cli(*args, check=True):
    """trace2flame ARGS: (stdout bytes, stderr text, exit status)."""
    r = run([CLI] + [str(a) for a in args], capture_output=True)
    if check and r.returncode:
        raise AssertionError("trace2flame %s: exit %d: %s" % (" ".join(map(str, args)),
                                                             r.returncode, r.stderr[-500:]))
    return r.stdout, r.stderr.decode("utf-8", "replace"), r.returncode


def cli_out(inputs, fmt, *flags):
    return cli(*(list(inputs) + ["-f", fmt, "-o", "-"] + list(flags)))[0]


def need_inl(test):
    if INL is None:
        test.skipTest("cc could not build fixtures/dwarf/inl.c: not found or failed")


def functions_of(path):
    """{name: value} of the defined FUNC symbols readelf lists in .symtab."""
    out = run(["readelf", "-Ws", path], capture_output=True, text=True,
              check=True).stdout
    res, table = {}, None
    for line in out.splitlines():
        m = re.match(r"Symbol table '(\S+)'", line)
        if m:
            table = m.group(1)
            continue
        f = line.split()
        if table == ".symtab" and len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND":
            res[f[7]] = int(f[1], 16)
    return res


def inl_perf_data(n=40, name="inl.data"):
    """perf.data (tests/perf_data_gen.py) of n samples in INL mapped at 0x400000, its build-id
    recorded: the frames are named from INL by the resolve stage, with its inline chains (the
    leaves run through inner_loop, where inl.c's mix and step are inlined, and other)."""
    funcs = functions_of(INL)
    bid = run(["readelf", "-n", INL], capture_output=True, text=True,
              check=True).stdout
    bid = bytes.fromhex(re.search(r"Build ID: ([0-9a-f]+)", bid).group(1))
    base = 0x400000
    ip = lambda name, off: base + funcs[name] + off  # noqa: E731 (file offset = vaddr: GNU ld)
    samples = []
    for i in range(n):
        if i % 3:
            chain = [ip("inner_loop", 4 + i % 40), ip("outer", 8), ip("main", 0x20)]
        else:
            chain = [ip("other", 2 + i % 8), ip("main", 0x28)]
        samples.append((1000 + i, chain))
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(perf_data_gen.perf_data(b"inl", b"cpu-clock", [(INL.encode(), base, 5)],
                                        samples, build_ids=[(INL.encode(), bid)], config=0))
    return path


class Convert(unittest.TestCase):
    """convert() is the CLI's bytes, format by format."""

    def same(self, inputs, fmt="collapsed", flags=(), **options):
        out, err, status = cli(*(list(inputs) + ["-f", fmt, "-o", "-"] + list(flags)),
                               check=False)
        if status == 1:  # refused for this input (the heat map of untimed stacks): so is convert
            with self.assertRaises(trace2flame.Error) as e:
                trace2flame.convert(inputs, format=fmt, **options)
            self.assertIn(str(e.exception).split(": ", 1)[-1], err)
            return
        want = cli_out(inputs, fmt, *flags)
        got = trace2flame.convert(inputs, format=fmt, **options)
        self.assertTrue(want, "the CLI wrote nothing for %s" % (inputs,))
        self.assertEqual(got, want, "%s -f %s %s" % (inputs, fmt, " ".join(flags)))

    def test_perf_script_fixtures(self):
        n = 0
        for name in sorted(os.listdir(FX)):
            path = os.path.join(FX, name)
            if not name.endswith(".txt") or cli(path, "-o", "-", check=False)[2]:
                continue  # bad_*.txt
            for fmt in FORMATS:
                with self.subTest(input=name, format=fmt):
                    self.same([path], fmt)
            n += 1
        self.assertGreaterEqual(n, 15)

    def test_compressed_and_several_inputs(self):
        gz = os.path.join(TMP, "multi.perf.txt.gz")
        with open(os.path.join(FX, "multi.perf.txt"), "rb") as f, gzip.open(gz, "wb") as g:
            g.write(f.read())
        two = [os.path.join(FX, "burner.perf.txt"), gz]
        for fmt in FORMATS:
            with self.subTest(format=fmt):
                self.same(two, fmt)

    def test_nettrace(self):
        traces = [os.path.join(NT, n) for n in sorted(os.listdir(NT)) if n.endswith(".nettrace")]
        for desc in ("v4-ptr8", "v4-ptr4", "v5-uncompressed"):
            out = os.path.join(TMP, desc + ".nettrace")
            run([sys.executable, os.path.join(SRC, "tools", "make-nettrace"), "-o",
                 out, os.path.join(NT, desc + ".desc")], check=True)
            traces.append(out)
        if INL:  # V6 universal: the native frames named from INL by the resolve stage
            desc = os.path.join(TMP, "v6.desc")
            with open(desc, "w") as f:
                f.write("format v6\ntrace pid=77 cpus=2 rate=1000000 page-size=4096\n"
                        "elf prog %s\nprocess 77 prog\nthread 77 77 prog\n"
                        "map exe 77 prog 0x555555554000\n"
                        "sample 77 77 count=3 cpu=0 prog:outer+0x8;prog:main+0x20\n"
                        "sample 77 77 count=2 cpu=1 prog:other+0x4;prog:main+0x28\n" % INL)
            run([sys.executable, os.path.join(SRC, "tools", "make-nettrace"), "-o",
                 os.path.join(TMP, "v6.nettrace"), desc], check=True)
            traces.append(os.path.join(TMP, "v6.nettrace"))
        self.assertGreaterEqual(len(traces), 5)
        for t in traces:
            for fmt in FORMATS:
                with self.subTest(input=os.path.basename(t), format=fmt):
                    self.same([t], fmt)

    def test_perf_data_generated(self):
        need_inl(self)
        data = inl_perf_data()
        for fmt in FORMATS:
            with self.subTest(format=fmt):
                self.same([data], fmt)
        folded = trace2flame.convert(data).decode()
        self.assertIn(";outer;inner_loop;step;mix ", folded)  # the inline chain, by DWARF

    def test_perf_data_recorded(self):
        data = recorded_perf_data(self)
        for fmt in FORMATS:
            with self.subTest(format=fmt):
                self.same([data], fmt)
        self.assertIn(b";main;outer;", trace2flame.convert(data))  # spin.c's calls

    def test_options_are_the_flags(self):
        burner = [os.path.join(FX, "burner.perf.txt")]
        cases = [("collapsed", ["--pid"], {"pid": True}),
                 ("collapsed", ["--tid"], {"pid": True, "tid": True}),
                 ("collapsed", ["--all"], {"kernel": True, "jit": True, "inlined": True}),
                 ("collapsed", ["--weight", "samples"], {"weight_samples": True}),
                 ("collapsed", ["--raw-names"], {"raw_names": True}),
                 ("speedscope", ["--weight", "samples"], {"weight_samples": True}),
                 ("svg", ["--title", "T", "--subtitle", "S", "--countname", "ns", "--width",
                          "800", "--minwidth", "0", "--colors", "mem", "--hash", "--reverse",
                          "--icicle"],
                  {"title": "T", "subtitle": "S", "count_name": "ns", "width": 800,
                   "min_width": -1, "colors": "mem", "hash": True, "reverse": True,
                   "icicle": True}),
                 ("svg", ["--flamechart"], {"flamechart": True})]
        for fmt, flags, opts in cases:
            with self.subTest(flags=flags):
                self.same(burner, fmt, flags, **opts)
        addrs = [os.path.join(FX, "burner.addrs.perf.txt")]
        self.same(addrs, "collapsed", ["--addrs"], addrs=True)
        cpu = [os.path.join(FX, "burner.cpu.perf.txt")]
        self.same(cpu, "collapsed", ["--event", "cpu-clock"], event="cpu-clock")

    def test_bytes_inputs(self):
        path = os.path.join(FX, "cxxwork.perf.txt")
        with open(path, "rb") as f:
            data = f.read()
        want = cli_out([path], "collapsed")
        self.assertEqual(trace2flame.convert(data), want)
        self.assertEqual(trace2flame.convert(bytearray(data)), want)
        self.assertEqual(trace2flame.convert(memoryview(data)), want)
        for fmt in FORMATS:  # named as the path is, the output is the path's
            with self.subTest(format=fmt), trace2flame.Session(formats=fmt) as s:
                s.add_bytes(data, path)
                self.assertEqual(s.write_mem(), cli_out([path], fmt))


def recorded_perf_data(test, _cache={}):
    """spin (fixtures/perf-data/spin.c) recorded with perf record -g; skips the test when perf
    or a compiler is missing or perf may not record."""
    if "path" in _cache:
        return _cache["path"]
    if not shutil.which("perf"):
        test.skipTest("perf not found (Debian linux-perf: tools/quickstart installs it)")
    spin, data = os.path.join(TMP, "spin"), os.path.join(TMP, "spin.data")
    cc = os.environ.get("CC") or "cc"
    run([cc, "-O1", "-g", "-fno-omit-frame-pointer", "-o", spin,
         os.path.join(SRC, "fixtures", "perf-data", "spin.c")], check=True)
    r = run(["perf", "record", "-q", "-g", "-e", "cpu-clock", "-o", data, "--",
            spin, "150"], capture_output=True, text=True)
    if r.returncode:
        test.skipTest("perf record -e cpu-clock is not allowed here: %s"
                      % r.stderr.strip()[:200])
    _cache["path"] = data
    return data


# The library names options by their fields, the CLI by its flags (tools/cli_msg.c).
CLI_FLAGS = [("t2f_options.unsafe_build_id_match", "--unsafe-build-id-match"),
             ("unsafe_build_id_match", "--unsafe-build-id-match"),
             ("t2f_options.max_frames", "--max-frames N"),
             ("t2f_options.buildids", "--buildids FILE"),
             ("t2f_options.kallsyms", "--kallsyms FILE"),
             ("t2f_options.event", "--event NAME"),
             ("t2f_options.time", "--time"),
             ("t2f_options.pids", "--pids"),
             ("t2f_options.tids", "--tids"),
             ("t2f_options.comms", "--comms"),
             ("t2f_write_options.no_thread_root", "--ignore-comm"),
             ("T2F_REPORT_STATS", "--stats")]


def as_cli(line):
    """A library message as the CLI prints it."""
    for field, flag in CLI_FLAGS:
        line = re.sub(r"(?<![a-z_.])" + re.escape(field), flag, line)
    return line


def stats_lines(text):
    """The --stats lines that do not measure time or memory, nor say the CLI's allocator."""
    return [ln for ln in text.splitlines()
            if not re.match(r"  (elapsed|time|model memory|allocator):", ln)]


class _MoreFormats:
    """The library with one more format than it has, "later" (what a newer library would
    give): t2f_format_count, t2f_format_info and t2f_format_by_name say so, the rest is the
    library's."""

    def __init__(self, real):
        self._real = real
        self._later = real.t2f_format_count() + 1

    def __getattr__(self, name):
        return getattr(self._real, name)

    def t2f_format_count(self):
        return self._later

    def t2f_format_info(self, f, out):
        if f != self._later:
            return self._real.t2f_format_info(f, out)
        out.contents.name = b"later"
        return 0

    def t2f_format_by_name(self, name):
        return self._later if name == b"later" else self._real.t2f_format_by_name(name)


class Formats(unittest.TestCase):

    def test_formats_are_the_librarys(self):
        """FORMATS: the CLI's formats in its order, numbered from 1; other names it takes."""
        self.assertEqual(tuple(trace2flame.FORMATS), FORMATS)
        self.assertEqual([trace2flame.FORMATS[f] for f in FORMATS],
                         list(range(1, len(FORMATS) + 1)))
        self.assertEqual(trace2flame.FORMATS["folded"], trace2flame.FORMATS["collapsed"])
        self.assertNotIn("folded", list(trace2flame.FORMATS))
        with self.assertRaises(KeyError):
            trace2flame.FORMATS["nothing"]
        with trace2flame.Session(formats="collapsed") as s, self.assertRaisesRegex(
                ValueError, r"format: unknown value 'nothing' \(known: %s\)"
                % ", ".join(sorted(FORMATS))):
            s.write_mem("nothing")

    def test_a_format_the_library_gains(self):
        """A format the library adds is in FORMATS with no change to the module."""
        from trace2flame import _common, _session
        real = _common.lib()
        try:
            _common._lib = _MoreFormats(real)
            later = _session.Formats()
            self.assertEqual(list(later), list(FORMATS) + ["later"])
            self.assertEqual(later["later"], len(FORMATS) + 1)
        finally:
            _common._lib = real


class SessionAPI(unittest.TestCase):

    def test_write_path_fd_mem(self):
        burner = os.path.join(FX, "burner.perf.txt")
        with trace2flame.Session(formats=["svg", "pprof"]) as s:
            s.add_path(burner)
            s.resolve()
            mem = s.write_mem("pprof")
            out = os.path.join(TMP, "out.pb.gz")
            s.write_path(out, "pprof")
            with open(out, "rb") as f:
                self.assertEqual(f.read(), mem)
            with open(os.path.join(TMP, "out.svg"), "wb") as f:
                s.write_fd(f.fileno(), "svg", title="fd")
            with open(os.path.join(TMP, "out.svg"), "rb") as f:
                self.assertEqual(f.read(), cli_out([burner], "svg", "--title", "fd"))
            self.assertEqual(mem, cli_out([burner], "pprof"))
            with self.assertRaises(TypeError):
                s.write_mem()  # opened for two formats: which one?
            gone = os.path.join(TMP, "no-such-dir", "out.svg")
            with self.assertRaises(trace2flame.Error) as e:
                s.write_path(gone, "svg")
            self.assertEqual(e.exception.errno, 2)
            self.assertIn("no-such-dir", str(e.exception))

    def test_stats_and_modules_are_the_cli_report(self):
        need_inl(self)
        data = inl_perf_data()
        _, err, _ = cli(data, "--stats", "-o", os.path.join(TMP, "cli.folded"))
        lines = []
        with trace2flame.Session(formats="collapsed", message=lines.append) as s:
            s.add_path(data)
            s.write_path(os.path.join(TMP, "py.folded"))
            st, mods = s.stats(), s.modules()
            s.report(["warnings", "stats"])
        self.assertEqual(stats_lines("\n".join(as_cli(ln) for ln in lines)), stats_lines(err))
        self.assertEqual((st.inputs, st.samples, st.event, st.event_samples), (1, 40, "cpu-clock",
                                                                              40))
        self.assertEqual(st.event_weight, 40 * 1000)
        self.assertRegex(err, r"\n  threads: %d\n" % st.threads)
        self.assertRegex(err, r"\n  frames: %d\n" % st.frames)
        self.assertRegex(err, r"\n  output: %d bytes\n" % st.out_bytes)
        self.assertEqual(len(mods), 1)
        self.assertEqual((mods[0].path, mods[0].kind, mods[0].file), (INL, "user", INL))
        self.assertEqual(mods[0].resolved + mods[0].unresolved, st.frames_tried)
        self.assertIn("  %s: %d resolved, %d unresolved" % (INL, mods[0].resolved,
                                                            mods[0].unresolved), err)
        with self.assertRaises(IndexError):
            trace2flame.Session().module(0)

    def test_kallsyms_read_once_per_process(self):
        # the sessions of a process (a batch worker's) take the kallsyms table the first read
        kj = os.path.join(FX, "kjit")
        outs, st = [], []
        for _ in range(2):
            with trace2flame.Session(formats="collapsed", kallsyms=os.path.join(kj, "kallsyms"),
                                     perf_map_dir=kj, offline=True, no_cache=True,
                                     message=lambda line: None) as s:
                s.add_path(os.path.join(kj, "jitloop.unnamed.perf.txt"))
                outs.append(s.write_mem(kernel=True))
                st.append(s.stats())
        self.assertEqual(outs[0], outs[1])
        self.assertIn(b"_[k]", outs[0])
        self.assertEqual(st[1].kallsyms_read, 0)
        self.assertEqual(st[1].kallsyms_shared, 1)
        self.assertEqual(st[0].kallsyms_read + st[0].kallsyms_shared, 1)

    def test_recorded_modules(self):
        data = recorded_perf_data(self)
        _, err, _ = cli(data, "--stats", "-o", os.path.join(TMP, "rec.folded"))
        with trace2flame.Session(formats="collapsed") as s:
            s.add_path(data)
            s.resolve()
            mods = s.modules()
        self.assertTrue(any(m.path.endswith("/spin") and m.resolved for m in mods), mods)
        for m in mods:
            self.assertIn("  %s: %d resolved, %d unresolved" % (m.path, m.resolved,
                                                                m.unresolved), err)

    def test_errors_carry_the_message(self):
        cases = [([os.path.join(FX, "bad_binary.txt")], {}, -5000, "T2F_ERR_FORMAT"),
                 ([os.path.join(TMP, "missing.data")], {}, -2, "ENOENT"),
                 ([os.path.join(FX, "burner.perf.txt")], {"event": "cycles"}, -5008,
                  "T2F_ERR_NO_EVENT"),
                 ([os.path.join(FX, "burner.perf.txt")], {"max_frames": 3}, -5005,
                  "T2F_ERR_LIMIT")]
        for inputs, opts, code, name in cases:
            with self.subTest(name=name):
                flags = ["--event", opts["event"]] if "event" in opts else \
                    ["--max-frames", str(opts["max_frames"])] if opts else []
                _, err, rc = cli(*(inputs + flags + ["-f", "collapsed", "-o",
                                                     os.path.join(TMP, "x")]), check=False)
                self.assertNotEqual(rc, 0)
                with self.assertRaises(trace2flame.Error) as e:
                    trace2flame.convert(inputs, **opts)
                self.assertEqual((e.exception.code, e.exception.name), (code, name))
                self.assertIn("trace2flame: %s\n" % as_cli(str(e.exception)), err)
                self.assertFalse(os.path.exists(os.path.join(TMP, "x")))
        self.assertEqual(trace2flame.strerror(-2), os.strerror(2))
        with trace2flame.Session(formats="collapsed") as s:
            s.add_path(os.path.join(FX, "burner.perf.txt"))
            s.resolve()
            with self.assertRaises(trace2flame.Error) as e:
                s.write_mem("svg")
            self.assertEqual(e.exception.name, "T2F_ERR_STATE")
            self.assertEqual(str(e.exception), s.error)
            with self.assertRaises(trace2flame.Error) as e:
                s.add_path(os.path.join(FX, "burner.perf.txt"))
            self.assertEqual(e.exception.name, "T2F_ERR_STATE")
        with self.assertRaises(ValueError):
            s.stats()  # closed
        with self.assertRaises(TypeError):
            trace2flame.Session(no_such_option=1)
        with self.assertRaises(TypeError):
            trace2flame.convert([], message_ctx=1)
        with self.assertRaises(ValueError):
            trace2flame.Session(symbol_rules="lax")
        with self.assertRaises(ValueError):
            trace2flame.Session(jobs=-1)  # not 2^32 - 1 threads
        with self.assertRaises(ValueError):
            trace2flame.convert([], format="png")

    def test_progress(self):
        inputs = [os.path.join(FX, "burner.perf.txt"), os.path.join(NT, "universal.nettrace")]
        if INL:
            inputs.append(inl_perf_data())
            big = inl_perf_data(40000, "big.data")  # 3.5 MB: progress between the ends
            inputs.append(big)
        calls = []
        with trace2flame.Session(progress=lambda *a: calls.append(a)) as s:
            for i in inputs:
                s.add_path(i)
        finished = [c for c in calls if c[3]]
        self.assertEqual([(c[0], c[1]) for c in finished],
                         [(i, os.path.getsize(i)) for i in inputs])
        for i in inputs:
            done = [c[1] for c in calls if c[0] == i]
            self.assertEqual(done, sorted(done), i)
            self.assertTrue(all(c[2] == os.path.getsize(i) for c in calls if c[0] == i))
        if INL:
            between = [c for c in calls if c[0] == big and 0 < c[1] < os.path.getsize(big)]
            self.assertGreaterEqual(len(between), 2, "perf.data: no progress while read")

    def test_cancel_and_input_reports(self):
        """a cancel from another thread stops a read; the session goes on; reports per input"""
        import threading
        src = os.path.join(FX, "burner.perf.txt")
        with open(src, "rb") as f:
            big = f.read() * 300  # ~12 MB: many chunks
        folded = b"main;work 3\n"
        started = threading.Event()

        def progress(name, done, total, finished):
            if name == "big" and done > 0:
                started.set()

        for jobs in (1, 2):
            with self.subTest(jobs=jobs), trace2flame.Session(jobs=jobs, progress=progress) as s:
                started.clear()
                t = threading.Thread(target=lambda: (started.wait(60), s.cancel()))
                t.start()
                with self.assertRaises(trace2flame.Error) as cm:
                    s.add_bytes(big, "big")
                t.join()
                self.assertEqual(cm.exception.name, "ECANCELED")
                self.assertIn("cancel", str(cm.exception))
                s.add_bytes(folded, "small")
                self.assertEqual(s.write_mem("collapsed"), folded)
                reports = s.inputs()
                self.assertEqual([(r.name, r.error, r.samples) for r in reports],
                                 [("big", -errno.ECANCELED, 0), ("small", 0, 1)])
                self.assertEqual(reports[1].bytes, len(folded))
                self.assertEqual(s.stats().inputs_failed, 1)

    def test_messages(self):
        """the lines the CLI prints, with and without -q"""
        bad = os.path.join(FX, "bad_header.txt")
        multi = os.path.join(FX, "multi.perf.txt")  # notes: events left out, a frame unnamed
        for inputs, quiet in (([bad], False), ([bad, multi], False), ([bad, multi], True)):
            with self.subTest(quiet=quiet, inputs=len(inputs)):
                _, err, _ = cli(*(inputs + ["-q"] * quiet + ["-o", os.path.join(TMP, "b.svg")]))
                lines = []
                with trace2flame.Session(formats="svg", quiet=quiet, message=lines.append) as s:
                    for i in inputs:
                        s.add_path(i)
                    s.write_mem()
                    s.report()
                self.assertEqual([as_cli(ln) for ln in lines], err.splitlines())
                self.assertTrue(lines[0].startswith("trace2flame: warning: " + bad))
                self.assertEqual(len(lines), 1 if quiet or len(inputs) == 1 else 3)
        with self.assertRaises(trace2flame.Error) as e:
            trace2flame.convert(bad, strict=True, message=lines.append)
        self.assertEqual(e.exception.name, "T2F_ERR_FORMAT")

    def test_messages_from_reader_threads(self):
        """perf script text read in segments by worker threads (-j 2, T2F_SEGMENT_SIZE small):
        the warnings of each segment reach the callback, as the CLI prints them."""
        with open(os.path.join(FX, "burner.perf.txt")) as f:
            text = f.read()
        blocks = text.split("\n\n")
        big = "\n\n".join(b if i % 40 else "bad header line\n" + b
                          for i, b in enumerate(blocks * 6))
        path = os.path.join(TMP, "warned.perf.txt")
        with open(path, "w") as f:
            f.write(big)
        os.environ["T2F_SEGMENT_SIZE"] = "16384"
        try:
            _, err, _ = cli(path, "-j", "2", "-o", os.path.join(TMP, "w.folded"))
            lines, threads = [], set()

            def on_message(line):
                threads.add(threading.get_ident())
                lines.append(line)
            with trace2flame.Session(formats="collapsed", jobs=2, message=on_message) as s:
                s.add_path(path)
                got = s.write_mem()
                s.report()
        finally:
            del os.environ["T2F_SEGMENT_SIZE"]
        with open(os.path.join(TMP, "w.folded"), "rb") as f:
            self.assertEqual(got, f.read())
        self.assertEqual(lines, err.splitlines())
        self.assertGreaterEqual(len(lines), 5)
        self.assertIn("warning: %s:" % path, lines[0])
        self.assertNotEqual(threads, {threading.get_ident()},
                            "every message came on the calling thread: no thread tried")

    def test_callback_exceptions(self):
        def boom(*a):
            raise KeyError("from the callback")
        with trace2flame.Session(progress=boom) as s:
            with self.assertRaises(KeyError):
                s.add_path(os.path.join(FX, "burner.perf.txt"))
        with trace2flame.Session(message=boom) as s:
            with self.assertRaises(KeyError):
                s.add_path(os.path.join(FX, "bad_header.txt"))
            s.write_mem("collapsed")  # the session goes on

    def test_callbacks_kept_alive(self):
        seen = []
        s = trace2flame.Session(message=lambda line: seen.append(line),
                                progress=lambda *a: seen.append(a))
        for _ in range(3):
            gc.collect()
        s.add_path(os.path.join(FX, "bad_header.txt"))
        s.close()
        s.close()
        self.assertTrue(any(isinstance(x, str) for x in seen))
        self.assertTrue(any(isinstance(x, tuple) for x in seen))


class Symbolize(unittest.TestCase):

    def test_symbolize_is_resolve_inlines(self):
        need_inl(self)
        funcs = functions_of(INL)
        addrs = sorted({v + d for n, v in funcs.items() for d in (0, 3, 9, 21)})
        out, _, _ = cli("resolve", "--inlines", INL, *map(hex, addrs), check=False)
        lines = []
        for s in trace2flame.symbolize(INL, addrs):
            if s.miss:
                lines.append("%#x\t?? (%s)\t%s" % (s.addr, s.miss, s.file or INL))
            else:
                lines.append("%#x\t%s+%#x\t%s" % (s.addr, s.name, s.offset, s.file))
            for f in s.inlines:
                lines.append("%#x\t  %s\t%s:%s" % (s.addr, f.name or "??", f.file or "??",
                                                   f.line or "?"))
        self.assertEqual(lines, out.decode().splitlines())
        chains = [tuple(f.name for f in s.inlines) for s in trace2flame.symbolize(INL, addrs)]
        self.assertIn(("mix", "step", "inner_loop"), chains)  # inl.c's three levels
        bare = trace2flame.symbolize(INL, addrs[:3], inlines=False)
        self.assertTrue(all(s.inlines is None for s in bare))

    def test_functions_are_readelf(self):
        need_inl(self)
        with trace2flame.Symbols() as s:
            got = {f.name: f.value for f in s.functions(INL) if f.table == ".symtab"}
            with self.assertRaises(trace2flame.Error) as e:
                s.functions(os.path.join(TMP, "missing"))
            self.assertIn("missing", str(e.exception))
            self.assertEqual(s.error, str(e.exception))
            first = []
            self.assertEqual(s.each_function(INL, lambda f: first.append(f) or 7), 7)
            self.assertEqual(len(first), 1)
        self.assertEqual(got, functions_of(INL))

    def test_refused_build_id(self):
        need_inl(self)
        other = "00112233445566778899aabbccddeeff00112233"
        with trace2flame.Symbols() as s:
            m = s.add_module(INL, other)
            sym = s.resolve(m, functions_of(INL)["outer"])
            self.assertIsNone(sym.name)
            self.assertTrue(sym.miss)
            refused = s.refusals(m)
            self.assertEqual([(r.path, r.reason, r.expected_id) for r in refused],
                             [(INL, "build-id", other)])
            with self.assertRaises(trace2flame.Error) as e:
                s.add_module(INL, "not hex")
            self.assertEqual(e.exception.name, "EINVAL")

    def test_demangle_is_cxxfilt(self):
        names = ["_ZN3foo3barEv", "_ZNSt6vectorIiSaIiEE9push_backERKi", "_Z3addii"]
        if shutil.which("c++filt"):
            want = run(["c++filt"] + names, capture_output=True, text=True,
                       check=True).stdout.splitlines()
            self.assertEqual([trace2flame.demangle(n) for n in names], want)
        self.assertEqual(trace2flame.demangle("_ZN3foo3barEv", params=False), "foo::bar")
        self.assertIsNone(trace2flame.demangle("main"))


class Loading(unittest.TestCase):

    def run_py(self, code, env):
        return run([sys.executable, "-c", code], capture_output=True, text=True, env=env)

    def test_found_next_to_the_module_and_said_missing(self):
        lib = trace2flame.library_path()
        pkg = os.path.join(TMP, "pkg")
        shutil.copytree(os.path.dirname(trace2flame.__file__), os.path.join(pkg, "trace2flame"),
                        ignore=shutil.ignore_patterns("__pycache__", "_install.py"))
        env = dict(child_env(python=True), PYTHONPATH=pkg)
        env.pop("T2F_LIBRARY")
        env.pop("LD_LIBRARY_PATH", None)
        code = "import trace2flame as t; print(t.library_path()); print(t.version())"
        r = self.run_py(code, env)
        if r.returncode == 0:  # an installed copy the dynamic loader finds: not this test's
            self.assertNotIn(pkg, r.stdout)
        else:
            self.assertIn("libtrace2flame not found", r.stderr)
            self.assertIn(os.path.join(pkg, "trace2flame", "libtrace2flame.so.0"), r.stderr)
        shutil.copy(lib, os.path.join(pkg, "trace2flame", "libtrace2flame.so.0"))
        r = self.run_py(code, env)
        self.assertEqual(r.stdout.splitlines(),
                         [os.path.join(pkg, "trace2flame", "libtrace2flame.so.0"),
                          cli("--version")[0].decode().split()[-1]], r.stderr)
        r = self.run_py(code, dict(env, T2F_LIBRARY=os.path.join(TMP, "none.so")))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cannot load T2F_LIBRARY=%s" % os.path.join(TMP, "none.so"), r.stderr)

    def test_sizes_from_ctypes(self):
        from trace2flame import _ffi
        for cls in _ffi.STRUCTS:
            if issubclass(cls, _ffi.Sized):
                self.assertEqual(cls.new().size, ctypes.sizeof(cls))


if __name__ == "__main__":
    unittest.main(verbosity=2)
