"""trace2flame: libtrace2flame from Python, through ctypes (no compiler needed).

Converts perf.data, perf script text, .nettrace and folded stacks (plain, gzip or zstd) to
collapsed stacks, speedscope JSON, pprof or an SVG flame graph, byte for byte as the trace2flame
command line does, and names addresses of ELF files with their inline chains:

    import trace2flame
    svg = trace2flame.convert("perf.data", format="svg", title="my run")
    with trace2flame.Session(formats="pprof", progress=lambda *a: print(a)) as s:
        s.add_path("a.perf.txt")
        s.add_path("b.nettrace")
        s.write_path("out.pb.gz")
        print(s.stats().samples)
    for sym in trace2flame.symbolize("./prog", [0x1139]):
        print(hex(sym.addr), sym.name, [f.name for f in sym.inlines])

The calls mirror include/trace2flame.h (`man 3 trace2flame`), which documents every option;
docs/library.md has the Python part. Errors raise trace2flame.Error, whose str() is the
library's message (t2f_session_error, else t2f_strerror) and whose code is the call's negative
return. The library is found as trace2flame._ffi says: T2F_LIBRARY (its path) first.
"""
from ._common import Error, lib, strerror
from ._session import FORMATS, InputReport, ModuleReport, Session, Stats, convert
from ._symbols import ElfSymbol, Refusal, SourceFrame, Symbol, Symbols, demangle, symbolize


def version():
    """t2f_version: the library's version, "MAJOR.MINOR.PATCH"."""
    return lib().t2f_version().decode()


def library_path():
    """The path (or soname) of the libtrace2flame loaded."""
    return lib().path


__all__ = ["convert", "Session", "Stats", "InputReport", "ModuleReport", "Symbols", "Symbol", "SourceFrame",
           "Refusal", "ElfSymbol", "symbolize", "demangle", "Error", "strerror", "version",
           "library_path", "FORMATS"]
