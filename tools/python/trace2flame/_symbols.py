"""trace2flame._symbols: Symbols (struct t2f_symbols and its calls), symbolize() and
demangle()."""
import ctypes
import errno

from . import _ffi
from ._common import Callbacks, Handle, check, cstr, enum_value, fill, lib, names_of
from ._common import record, text, to_record
from ._session import SYMBOL_RULES

SPACES = {"abs": _ffi.T2F_SPACE_ABS, "file_off": _ffi.T2F_SPACE_FILE_OFF,
          "elf_vaddr": _ffi.T2F_SPACE_ELF_VADDR}
REFUSAL_REASONS = {"build-id": _ffi.T2F_REFUSAL_BUILD_ID, "crc": _ffi.T2F_REFUSAL_CRC,
                   "no-build-id": _ffi.T2F_REFUSAL_NO_BUILD_ID,
                   "no-symbols": _ffi.T2F_REFUSAL_NO_SYMBOLS,
                   "unreadable": _ffi.T2F_REFUSAL_UNREADABLE,
                   "not-file": _ffi.T2F_REFUSAL_NOT_FILE,
                   "over-limit": _ffi.T2F_REFUSAL_OVER_LIMIT,
                   "file-no-build-id": _ffi.T2F_REFUSAL_FILE_NO_BUILD_ID}
INLINES_MAX = 64  # levels asked for per address

Symbol = record("Symbol", _ffi.t2f_symbol, extra=("addr", "inlines"))
Symbol.__doc__ = ("struct t2f_symbol for addr: name (None on a miss), offset, elf_vaddr, miss "
                  "(None on a hit, else why), file; inlines: the SourceFrames, innermost first "
                  "(None when not asked for).")
SourceFrame = record("SourceFrame", _ffi.t2f_source_frame)
SourceFrame.__doc__ = "struct t2f_source_frame: one level of an inline chain (line 0: unknown)."
Refusal = record("Refusal", _ffi.t2f_refused)
Refusal.__doc__ = ("struct t2f_refused: a candidate file not used for a module (reason "
                   "'build-id', 'crc', 'no-build-id', 'no-symbols', 'unreadable', 'not-file', "
                   "'over-limit', 'file-no-build-id').")
ElfSymbol = record("ElfSymbol", _ffi.t2f_elf_symbol, skip=())
ElfSymbol.__doc__ = "struct t2f_elf_symbol: a function symbol as the ELF file lists it."


class Symbols(Handle):
    """The symbolizer alone: struct t2f_symbols. Keyword options are the fields of struct
    t2f_symbols_options: symbol_dirs, debug_dirs (lists of paths), rules ("auto", "perf",
    "strict"), raw_names, no_params, unsafe_build_id_match, offline, signals, and message, a
    callable given each warning line. A failed call raises Error. Used by one thread at a time;
    close() (or a with block) frees it."""

    _new, _free, _what = "t2f_symbols_new", "t2f_symbols_free", "symbolizer"

    def __init__(self, *, message=None, **options):
        cb = Callbacks(message)
        o = _ffi.t2f_symbols_options.new()
        fill(o, options, {"rules": SYMBOL_RULES}, "Symbols")
        if cb.message:
            o.message = cb.message
        self._open(_ffi.t2f_symbols, o, cb)

    def add_module(self, path=None, build_id=None, **fields):
        """t2f_symbols_add_module: registers a module, by its recorded path, its build-id (hex)
        or both; fields: the other fields of struct t2f_module (map_start, map_end, map_pgoff,
        has_segment, p_vaddr, p_offset, page_size, has_exec, exec_pgoff, exec_len). Returns its
        id."""
        m = _ffi.t2f_module.new(path=cstr(path, "path"), build_id=cstr(build_id, "build_id"))
        fill(m, fields, {}, "add_module")
        mid = ctypes.c_uint32()
        self._call(self._lib.t2f_symbols_add_module, ctypes.byref(m), ctypes.byref(mid))
        return mid.value

    def resolve(self, module, addr, space="elf_vaddr"):
        """t2f_symbols_resolve: the function at addr ("abs", "file_off" or "elf_vaddr") of the
        module, as a Symbol (a miss is a result: its miss says why)."""
        out = _ffi.t2f_symbol.new()
        self._call(self._lib.t2f_symbols_resolve, module, enum_value(SPACES, space, "space"), addr,
                   ctypes.byref(out))
        return to_record(Symbol, out, addr=addr, inlines=None)

    def inlines(self, module, addr, space="elf_vaddr"):
        """t2f_symbols_inlines: the functions whose code is at addr, innermost first, as
        SourceFrames (empty: no DWARF covers the address)."""
        frames = (_ffi.t2f_source_frame * INLINES_MAX)()
        frames[0].size = ctypes.sizeof(_ffi.t2f_source_frame)  # the stride of the array
        n = self._call(self._lib.t2f_symbols_inlines, module, enum_value(SPACES, space, "space"),
                       addr, frames, INLINES_MAX)
        return [to_record(SourceFrame, frames[i]) for i in range(n)]

    def refusals(self, module):
        """t2f_symbols_refusal_count and t2f_symbols_refusal: the candidate files refused for
        the module (known after its first lookup), as Refusals."""
        out = []
        for i in range(self._lib.t2f_symbols_refusal_count(self._handle(), module)):
            r = _ffi.t2f_refused.new()
            rc = self._lib.t2f_symbols_refusal(self._handle(), module, i, ctypes.byref(r))
            if rc == -errno.ERANGE:
                break
            check(rc)
            out.append(to_record(Refusal, r, {"reason": names_of(REFUSAL_REASONS)}))
        return out

    def each_function(self, path, fn):
        """t2f_symbols_each_function: fn(ElfSymbol) for every function symbol of the ELF file
        at path, in table order; a true return of fn stops the walk and is returned (as the C
        callback's nonzero int, a true non-int is 1). Returns 0 when every symbol was seen."""
        result = []

        def each(ctx, sym):
            try:
                r = fn(to_record(ElfSymbol, sym.contents))
            except BaseException as e:  # noqa: B902 -- raised after the walk
                result.append(e)
                return -1
            if r:
                result.append(r if isinstance(r, int) else 1)
                return result[-1]
            return 0

        cb = _ffi.t2f_each_function_fn(each)
        rc = self._lib.t2f_symbols_each_function(self._handle(), cstr(path, "path"), cb, None)
        self._cb.raise_pending()
        if result and isinstance(result[0], BaseException):
            raise result[0]
        if result:
            return result[0]
        return check(rc, lambda: self.error)

    def functions(self, path):
        """Every function symbol of the ELF file at path (each_function), as ElfSymbols."""
        out = []
        self.each_function(path, out.append)
        return out

    @property
    def error(self):
        """t2f_symbols_error: the message of each_function's last failure, or ""."""
        return text(self._lib.t2f_symbols_error(self._handle()))


def symbolize(path, addrs, *, space="elf_vaddr", build_id=None, inlines=True, **options):
    """The functions at addrs of the ELF file at path (as `trace2flame resolve [--inlines]
    FILE ADDR...` finds them): a Symbol per address, with its inline chain (innermost first)
    when inlines. space: what the addresses are ("elf_vaddr": the ELF's own virtual addresses,
    as addr2line takes them; "file_off"; "abs" needs the mapping, see Symbols.add_module).
    build_id: the build-id the file was recorded with (default: the file's own); options: those
    of Symbols."""
    with Symbols(**options) as s:
        mod = s.add_module(path, build_id)
        out = []
        for a in addrs:
            sym = s.resolve(mod, a, space)
            if inlines:
                sym = sym._replace(inlines=s.inlines(mod, a, space))
            out.append(sym)
        return out


def demangle(raw, params=True):
    """t2f_demangle_name: a C++ or Rust symbol name demangled (with or without parameter
    lists), or None when raw is not a mangled name."""
    p = lib().t2f_demangle_name(cstr(raw, "raw"), bool(params))
    if not p:
        return None
    try:
        return text(ctypes.string_at(p))
    finally:
        lib().free(p)
