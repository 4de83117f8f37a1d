"""trace2flame._session: Session (struct t2f_session and its calls) and convert()."""
import collections.abc
import ctypes
import errno

from . import _ffi
from ._common import Callbacks, Handle, check, cstr, enum_value, fill, lib, names_of, record
from ._common import text, to_record


class Formats(collections.abc.Mapping):
    """The output formats: each name, as the command line's -f takes it ("collapsed", "svg"
    ...), to its enum t2f_format value, read from the library when first used
    (t2f_format_count, t2f_format_info), so a format the library gains is here without a change
    to this module. Another name the library takes for one of them ("folded") is found too
    (t2f_format_by_name), though not listed."""

    def __init__(self):
        self._names = None

    def _table(self):
        if self._names is None:
            lb, names = lib(), {}
            for f in range(1, lb.t2f_format_count() + 1):
                info = _ffi.t2f_format_info.new()
                check(lb.t2f_format_info(f, ctypes.pointer(info)))
                names[text(info.name)] = f
            self._names = names
        return self._names

    def __getitem__(self, name):
        table = self._table()
        if name in table:
            return table[name]
        f = lib().t2f_format_by_name(cstr(name, "format")) if isinstance(name, str) else 0
        if not f:
            raise KeyError(name)
        return f

    def __iter__(self):
        return iter(self._table())

    def __len__(self):
        return len(self._table())

    def __repr__(self):
        return "FORMATS(%r)" % self._table()


FORMATS = Formats()
SYMBOL_RULES = {"auto": _ffi.T2F_RULES_AUTO, "perf": _ffi.T2F_RULES_PERF,
                "strict": _ffi.T2F_RULES_STRICT}
COLORS = {"hot": _ffi.T2F_COLORS_HOT, "mem": _ffi.T2F_COLORS_MEM, "io": _ffi.T2F_COLORS_IO,
          "module": _ffi.T2F_COLORS_MODULE, "kind": _ffi.T2F_COLORS_KIND}
REPORTS = {"warnings": _ffi.T2F_REPORT_WARNINGS, "stats": _ffi.T2F_REPORT_STATS,
           "summary": _ffi.T2F_REPORT_SUMMARY}
MODULE_KINDS = {"user": _ffi.T2F_MODULE_USER, "kernel": _ffi.T2F_MODULE_KERNEL,
                "jit": _ffi.T2F_MODULE_JIT}

SESSION_OPTIONS = frozenset(f for f, _ in _ffi.t2f_options._fields_
                            if f not in ("size", "reserved") and not f.endswith("_ctx"))
WRITE_OPTIONS = frozenset(f for f, _ in _ffi.t2f_write_options._fields_
                          if f not in ("size", "reserved", "reserved2"))

Stats = record("Stats", _ffi.t2f_stats)
Stats.__doc__ = "struct t2f_stats: what a session read and wrote (the header says each field)."
InputReport = record("InputReport", _ffi.t2f_input_report)
InputReport.__doc__ = ("struct t2f_input_report: one input added, read (error 0) or left out "
                       "(error the negative code its add raised, message why).")
ModuleReport = record("ModuleReport", _ffi.t2f_module_report)
ModuleReport.__doc__ = ("struct t2f_module_report: what the resolve stage did for one module "
                        "(kind 'user', 'kernel' or 'jit').")


def format_mask(formats):
    """t2f_options.formats from a format name, a list of names, or the bit mask itself."""
    if formats is None:
        return 0
    if isinstance(formats, int):
        return formats
    if isinstance(formats, str):
        formats = [formats]
    mask = 0
    for f in formats:
        mask |= _ffi.T2F_FORMAT_BIT(enum_value(FORMATS, f, "formats"))
    return mask


def _buffer(data):
    """A pointer to the bytes of data (bytes, bytearray, memoryview ...) and its length, and
    the object that keeps it valid."""
    if isinstance(data, bytes):
        return ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p), len(data), data
    view = memoryview(data).cast("B")
    buf = (ctypes.c_char * view.nbytes).from_buffer_copy(view) if view.readonly \
        else (ctypes.c_char * view.nbytes).from_buffer(view)
    return ctypes.cast(buf, ctypes.c_void_p), view.nbytes, buf


class Session(Handle):
    """A conversion: struct t2f_session. Keyword options are the fields of struct t2f_options
    (the header documents each): formats ("collapsed", "speedscope", "pprof", "svg", a list of
    them, or None: any), event, weight_samples, addrs, raw_names, time_order, signals, strict,
    quiet, jobs, max_frames, resymbolize, unsafe_build_id_match, symbol_rules ("auto", "perf",
    "strict"), symbol_dirs and debug_dirs (lists of paths), buildids, kallsyms, perf_map_dir,
    offline, no_inline, unwind_libdwfl, time, pids, tids, comms (which samples are read, as
    perf script's --time, --pid, --tid, --comms: "10%/2", "100.5,200", "1234,1240"); and two
    callables:

      message(line)                          a warning or note, one line (default: stderr); it
                                             may be called on one of the library's threads
      progress(input, done, total, finished) an input being read (total 0: unknown)

    An exception such a callable raises is raised by the call during which it was called. A
    failed call raises Error with the session's message. Used by one thread at a time; close()
    (or a with block) frees it."""

    _new, _free, _what = "t2f_session_new", "t2f_session_free", "session"

    def __init__(self, *, formats=None, message=None, progress=None, **options):
        self._formats = format_mask(formats)
        cb = Callbacks(message, progress)
        o = _ffi.t2f_options.new(formats=self._formats)
        fill(o, options, {"symbol_rules": SYMBOL_RULES}, "Session")
        if cb.message:
            o.message = cb.message
        if cb.progress:
            o.progress = cb.progress
        self._open(_ffi.t2f_session, o, cb)

    def _call(self, fn, *args):
        """Handle._call, the error's message the session's."""
        return super()._call(fn, *args, message=lambda: self.error)

    # ---- inputs ------------------------------------------------------------------------------
    def add_path(self, path):
        """t2f_session_add_path: reads the input at path ("-": standard input)."""
        self._call(self._lib.t2f_session_add_path, cstr(path, "path"))

    def add_fd(self, fd, name=None):
        """t2f_session_add_fd: reads the input from descriptor fd (not closed)."""
        self._call(self._lib.t2f_session_add_fd, fd, cstr(name, "name"))

    def add_bytes(self, data, name=None):
        """t2f_session_add_bytes: reads the input from memory (bytes or any buffer)."""
        ptr, n, keep = _buffer(data)
        self._call(self._lib.t2f_session_add_bytes, ptr, n, cstr(name, "name"))
        del keep

    def add(self, source, name=None):
        """add_path for a str or path-like, add_fd for an int, add_bytes for bytes or a buffer."""
        if isinstance(source, str) or hasattr(source, "__fspath__"):
            if name is not None:
                raise TypeError("add: a path input is named by its path")
            self.add_path(source)
        elif isinstance(source, int):
            self.add_fd(source, name)
        else:
            self.add_bytes(source, name)

    def cancel(self):
        """t2f_session_cancel: the add running on this session in another thread (or, when none
        is, the next add) stops at its next check and raises Error (name "ECANCELED"); the
        input is left out, the session goes on. Safe from any thread and a signal handler."""
        self._lib.t2f_session_cancel(self._handle())

    def resolve(self):
        """t2f_session_resolve: names the frames left unnamed, settles the event written."""
        self._call(self._lib.t2f_session_resolve)

    # ---- outputs -----------------------------------------------------------------------------
    def _write_options(self, format, options):
        if format is None:
            bits = [f for f in FORMATS.values() if self._formats == _ffi.T2F_FORMAT_BIT(f)]
            if not bits:
                raise TypeError("write: format needed (the session was not opened for one "
                                "format alone)")
            format = bits[0]
        w = _ffi.t2f_write_options.new(format=enum_value(FORMATS, format, "format"))
        diff = options.pop("diff", None)
        fill(w, options, {"colors": COLORS}, "write")
        if diff is not None:
            if not isinstance(diff, Session):
                raise TypeError("diff: expected a Session")
            w.diff = diff._handle()
        return w

    def write_path(self, path, format=None, **options):
        """t2f_session_write_path: writes the profile to path atomically ("-": stdout). format:
        "collapsed", "speedscope", "pprof" or "svg" (None: the session's only one); options:
        the fields of struct t2f_write_options (pid, tid, kernel, jit, inlined, input_name,
        title, subtitle, count_name, width, min_width, colors, hash, reverse, icicle, flamechart,
        diff: another Session, diff_is_after, no_thread_root; heatmap_rows)."""
        w = self._write_options(format, options)
        self._call(self._lib.t2f_session_write_path, ctypes.byref(w), cstr(path, "path"))

    def write_fd(self, fd, format=None, **options):
        """t2f_session_write_fd: writes the profile to descriptor fd (not closed); as
        write_path."""
        w = self._write_options(format, options)
        self._call(self._lib.t2f_session_write_fd, ctypes.byref(w), fd)

    def write_mem(self, format=None, **options):
        """t2f_session_write_mem: the profile as bytes; as write_path."""
        w = self._write_options(format, options)
        buf, n = ctypes.c_void_p(), ctypes.c_size_t()
        self._call(self._lib.t2f_session_write_mem, ctypes.byref(w), ctypes.byref(buf),
                   ctypes.byref(n))
        try:
            return ctypes.string_at(buf, n.value) if n.value else b""
        finally:
            self._lib.free(buf)

    # ---- what happened -----------------------------------------------------------------------
    @property
    def error(self):
        """t2f_session_error: the message of the last failure, or ""."""
        return self._lib.t2f_session_error(self._handle()).decode("utf-8", "surrogateescape")

    def stats(self):
        """t2f_session_stats, as a Stats."""
        st = _ffi.t2f_stats.new()
        check(self._lib.t2f_session_stats(self._handle(), ctypes.byref(st)))
        return to_record(Stats, st)

    def inputs(self):
        """t2f_session_input_count and t2f_session_input: every input added, as InputReports."""
        out = []
        for i in range(self._lib.t2f_session_input_count(self._handle())):
            r = _ffi.t2f_input_report.new()
            check(self._lib.t2f_session_input(self._handle(), i, ctypes.byref(r)))
            out.append(to_record(InputReport, r))
        return out

    def module_count(self):
        """t2f_session_module_count: the modules the resolve stage looked at."""
        return self._lib.t2f_session_module_count(self._handle())

    def module(self, i):
        """t2f_session_module: report i, as a ModuleReport (IndexError past the last)."""
        m = _ffi.t2f_module_report.new()
        rc = self._lib.t2f_session_module(self._handle(), i, ctypes.byref(m))
        if rc == -errno.ERANGE:
            raise IndexError("module report %d: there are %d" % (i, self.module_count()))
        check(rc)
        return to_record(ModuleReport, m, {"kind": names_of(MODULE_KINDS)})

    def modules(self):
        """Every module report, in the library's order."""
        return [self.module(i) for i in range(self.module_count())]

    def report(self, what=("warnings",)):
        """t2f_session_report: what the command line prints after a conversion, through the
        message callback: "warnings", "stats", "summary" (names, a list of them, or the
        T2F_REPORT_* bits)."""
        if isinstance(what, str):
            what = [what]
        bits = what if isinstance(what, int) else 0
        if not isinstance(what, int):
            for w in what:
                bits |= enum_value(REPORTS, w, "report")
        self._lib.t2f_session_report(self._handle(), bits)
        self._cb.raise_pending()


def convert(inputs, format="collapsed", **options):
    """One conversion, as `trace2flame INPUT... -f FORMAT` makes it: the bytes of the output.

    inputs: one input or a list of them, each a path (str or path-like: perf.data, perf script
    text, .nettrace, folded stacks; plain, gzip or zstd) or the bytes of one. format:
    "collapsed", "speedscope", "pprof" or "svg". options: those of Session and of
    Session.write_path, by name (the session is opened for format alone, and keeps samples in
    time order when flamechart is set, as the command line does). Raises Error."""
    if isinstance(inputs, (str, bytes, bytearray, memoryview)) or hasattr(inputs, "__fspath__"):
        inputs = [inputs]
    sopts = {k: v for k, v in options.items() if k in SESSION_OPTIONS}
    wopts = {k: v for k, v in options.items() if k not in SESSION_OPTIONS}
    unknown = [k for k in wopts if k not in WRITE_OPTIONS]
    if unknown:
        raise TypeError("convert: unknown option %r" % unknown[0])
    if "formats" in sopts:
        raise TypeError("convert: the format is said by format=")
    sopts.setdefault("time_order", bool(wopts.get("flamechart")))
    with Session(formats=format_mask(format), **sopts) as s:
        for i in inputs:
            if isinstance(i, str) or hasattr(i, "__fspath__"):
                s.add_path(i)
            elif isinstance(i, int):
                raise TypeError("convert: an input is a path or bytes, not %r" % (i,))
            else:
                s.add_bytes(i)
        s.resolve()
        return s.write_mem(format, **wopts)

