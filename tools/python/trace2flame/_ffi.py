"""trace2flame._ffi: include/trace2flame.h as ctypes declarations, and the loading of
libtrace2flame.so.

Everything that depends on the C interface's layout is in this file and nowhere else: the
structs (field for field, in the header's order), the callback types, the enum values and the
prototype of every T2F_API function. tests/lib/python_abi.py compiles a C program against the
header and holds each struct's size and each field's offset, each constant and the set of
functions to what is declared here.

The library is looked for, in order: the file T2F_LIBRARY names (nothing else is tried when it
is set); libtrace2flame.so.0 in this package's directory; in the library directory the
installation recorded (_install.py, installed with the module); then by its soname through
the dynamic loader's search (LD_LIBRARY_PATH, ld.so.cache) and ctypes.util.find_library.
"""
import ctypes
import ctypes.util
import os

SONAME = "libtrace2flame.so.0"

# ---- enums and macros -------------------------------------------------------------------------

# enum t2f_error
T2F_ERR_FORMAT = 5000
T2F_ERR_TRUNCATED = 5001
T2F_ERR_UNSUPPORTED = 5002
T2F_ERR_ELF = 5003
T2F_ERR_BUILD_ID = 5004
T2F_ERR_LIMIT = 5005
T2F_ERR_DECOMPRESS = 5006
T2F_ERR_NOT_FILE = 5007
T2F_ERR_NO_EVENT = 5008
T2F_ERR_STATE = 5009

# enum t2f_format
T2F_FORMAT_NONE = 0
T2F_FORMAT_COLLAPSED = 1
T2F_FORMAT_SPEEDSCOPE = 2
T2F_FORMAT_PPROF = 3
T2F_FORMAT_SVG = 4
T2F_FORMAT_FIREFOX = 5
T2F_FORMAT_HEATMAP = 6


def T2F_FORMAT_BIT(f):
    return 1 << f


# enum t2f_format_uses
T2F_USES_WEIGHT = 1 << 0
T2F_USES_ROOT_IDS = 1 << 1
T2F_USES_MARKS = 1 << 2
T2F_USES_ADDRS = 1 << 3
T2F_USES_SVG = 1 << 4
T2F_USES_HEATMAP = 1 << 5

# enum t2f_symbol_rules
T2F_RULES_AUTO = 0
T2F_RULES_PERF = 1
T2F_RULES_STRICT = 2

# enum t2f_colors
T2F_COLORS_HOT = 0
T2F_COLORS_MEM = 1
T2F_COLORS_IO = 2
T2F_COLORS_MODULE = 3
T2F_COLORS_KIND = 4

# enum t2f_module_kind
T2F_MODULE_USER = 0
T2F_MODULE_KERNEL = 1
T2F_MODULE_JIT = 2

# enum t2f_report
T2F_REPORT_WARNINGS = 1 << 0
T2F_REPORT_STATS = 1 << 1
T2F_REPORT_SUMMARY = 1 << 2

# enum t2f_space
T2F_SPACE_ABS = 0
T2F_SPACE_FILE_OFF = 1
T2F_SPACE_ELF_VADDR = 2

# enum t2f_refusal_reason
T2F_REFUSAL_BUILD_ID = 1
T2F_REFUSAL_CRC = 2
T2F_REFUSAL_NO_BUILD_ID = 3
T2F_REFUSAL_NO_SYMBOLS = 4
T2F_REFUSAL_UNREADABLE = 5
T2F_REFUSAL_NOT_FILE = 6
T2F_REFUSAL_OVER_LIMIT = 7
T2F_REFUSAL_FILE_NO_BUILD_ID = 8

c_enum = ctypes.c_int  # every enum of the header: int-sized, values 0..5009
c_str_array = ctypes.POINTER(ctypes.c_char_p)  # const char *const *, NULL-terminated

# ---- callbacks --------------------------------------------------------------------------------

# typedef void (*t2f_message_fn)(void *ctx, const char *line);
t2f_message_fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)
# typedef void (*t2f_progress_fn)(void *ctx, const char *input, uint64_t done, uint64_t total,
#                                 bool finished);
t2f_progress_fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64,
                                   ctypes.c_uint64, ctypes.c_bool)

# ---- structs ----------------------------------------------------------------------------------


class Sized(ctypes.Structure):
    """A struct that starts with `size_t size`: new() sets it to the struct's ctypes.sizeof."""

    @classmethod
    def new(cls, **fields):
        s = cls(**fields)
        s.size = ctypes.sizeof(cls)
        return s


class t2f_options(Sized):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("event", ctypes.c_char_p),
        ("message", t2f_message_fn),
        ("message_ctx", ctypes.c_void_p),
        ("progress", t2f_progress_fn),
        ("progress_ctx", ctypes.c_void_p),
        ("symbol_dirs", c_str_array),
        ("debug_dirs", c_str_array),
        ("buildids", ctypes.c_char_p),
        ("kallsyms", ctypes.c_char_p),
        ("perf_map_dir", ctypes.c_char_p),
        ("formats", ctypes.c_uint),
        ("jobs", ctypes.c_uint),
        ("max_frames", ctypes.c_uint),
        ("symbol_rules", c_enum),
        ("weight_samples", ctypes.c_bool),
        ("addrs", ctypes.c_bool),
        ("raw_names", ctypes.c_bool),
        ("time_order", ctypes.c_bool),
        ("signals", ctypes.c_bool),
        ("strict", ctypes.c_bool),
        ("quiet", ctypes.c_bool),
        ("resymbolize", ctypes.c_bool),
        ("unsafe_build_id_match", ctypes.c_bool),
        ("offline", ctypes.c_bool),
        ("no_inline", ctypes.c_bool),
        ("unwind_libdwfl", ctypes.c_bool),
        ("fold_threads", ctypes.c_bool),
        ("reserved", ctypes.c_uint8 * 3),
        ("time", ctypes.c_char_p),
        ("pids", ctypes.c_char_p),
        ("tids", ctypes.c_char_p),
        ("comms", ctypes.c_char_p),
        ("off_cpu_states", ctypes.c_char_p),
        ("cache_max", ctypes.c_uint64),
        ("no_cache", ctypes.c_bool),
        ("reserved2", ctypes.c_uint8 * 7),
    ]


class t2f_session(ctypes.Structure):
    """opaque"""


class t2f_write_options(Sized):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("input_name", ctypes.c_char_p),
        ("title", ctypes.c_char_p),
        ("subtitle", ctypes.c_char_p),
        ("count_name", ctypes.c_char_p),
        ("diff", ctypes.POINTER(t2f_session)),
        ("min_width", ctypes.c_double),
        ("format", c_enum),
        ("colors", c_enum),
        ("width", ctypes.c_uint),
        ("pid", ctypes.c_bool),
        ("tid", ctypes.c_bool),
        ("kernel", ctypes.c_bool),
        ("jit", ctypes.c_bool),
        ("inlined", ctypes.c_bool),
        ("hash", ctypes.c_bool),
        ("reverse", ctypes.c_bool),
        ("icicle", ctypes.c_bool),
        ("flamechart", ctypes.c_bool),
        ("diff_is_after", ctypes.c_bool),
        ("no_thread_root", ctypes.c_bool),
        ("reserved", ctypes.c_uint8 * 1),
        ("heatmap_rows", ctypes.c_uint32),
        ("reserved2", ctypes.c_uint32),
    ]


class t2f_format_info(Sized):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("name", ctypes.c_char_p),
        ("title", ctypes.c_char_p),
        ("said", ctypes.c_char_p),
        ("description", ctypes.c_char_p),
        ("ext", ctypes.c_char_p),
        ("extensions", c_str_array),
        ("uses", ctypes.c_uint),
        ("reserved", ctypes.c_uint32),
    ]


class t2f_input_report(Sized):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("name", ctypes.c_char_p),
        ("message", ctypes.c_char_p),
        ("bytes", ctypes.c_uint64),
        ("samples", ctypes.c_uint64),
        ("error", ctypes.c_int),
        ("reserved", ctypes.c_uint32),
    ]


class t2f_stats(Sized):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("event", ctypes.c_char_p),
        ("inputs", ctypes.c_uint64),
        ("inputs_failed", ctypes.c_uint64),
        ("bytes", ctypes.c_uint64),
        ("samples", ctypes.c_uint64),
        ("events", ctypes.c_uint64),
        ("threads", ctypes.c_uint64),
        ("frames", ctypes.c_uint64),
        ("event_samples", ctypes.c_uint64),
        ("event_weight", ctypes.c_uint64),
        ("warnings", ctypes.c_uint64),
        ("frames_tried", ctypes.c_uint64),
        ("frames_unresolved", ctypes.c_uint64),
        ("frames_skipped", ctypes.c_uint64),
        ("out_bytes", ctypes.c_uint64),
        ("samples_filtered", ctypes.c_uint64),
        ("kallsyms_read", ctypes.c_uint64),
        ("kallsyms_shared", ctypes.c_uint64),
    ]


class t2f_module_report(Sized):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("path", ctypes.c_char_p),
        ("file", ctypes.c_char_p),
        ("build_id", ctypes.c_char_p),
        ("kind", c_enum),
        ("reserved", ctypes.c_uint32),
        ("resolved", ctypes.c_uint64),
        ("unresolved", ctypes.c_uint64),
        ("skipped", ctypes.c_uint64),
        ("refused", ctypes.c_uint64),
    ]


class t2f_symbols(ctypes.Structure):
    """opaque"""


class t2f_symbols_options(Sized):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("symbol_dirs", c_str_array),
        ("debug_dirs", c_str_array),
        ("message", t2f_message_fn),
        ("message_ctx", ctypes.c_void_p),
        ("rules", c_enum),
        ("raw_names", ctypes.c_bool),
        ("no_params", ctypes.c_bool),
        ("unsafe_build_id_match", ctypes.c_bool),
        ("offline", ctypes.c_bool),
        ("signals", ctypes.c_bool),
        ("cache", ctypes.c_bool),
        ("reserved", ctypes.c_uint8 * 6),
    ]


class t2f_module(Sized):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("path", ctypes.c_char_p),
        ("build_id", ctypes.c_char_p),
        ("map_start", ctypes.c_uint64),
        ("map_end", ctypes.c_uint64),
        ("map_pgoff", ctypes.c_uint64),
        ("p_vaddr", ctypes.c_uint64),
        ("p_offset", ctypes.c_uint64),
        ("page_size", ctypes.c_uint64),
        ("exec_pgoff", ctypes.c_uint64),
        ("exec_len", ctypes.c_uint64),
        ("has_segment", ctypes.c_bool),
        ("has_exec", ctypes.c_bool),
        ("reserved", ctypes.c_uint8 * 6),
    ]


class t2f_symbol(Sized):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("name", ctypes.c_char_p),
        ("miss", ctypes.c_char_p),
        ("file", ctypes.c_char_p),
        ("offset", ctypes.c_uint64),
        ("elf_vaddr", ctypes.c_uint64),
    ]


class t2f_source_frame(Sized):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("name", ctypes.c_char_p),
        ("file", ctypes.c_char_p),
        ("line", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


class t2f_refused(Sized):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("path", ctypes.c_char_p),
        ("why", ctypes.c_char_p),
        ("found_id", ctypes.c_char_p),
        ("expected_id", ctypes.c_char_p),
        ("reason", c_enum),
        ("reserved", ctypes.c_uint32),
    ]


class t2f_elf_symbol(ctypes.Structure):  # no size field
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("table", ctypes.c_char_p),
        ("value", ctypes.c_uint64),
        ("size", ctypes.c_uint64),
    ]


# int (*fn)(void *ctx, const struct t2f_elf_symbol *sym) of t2f_symbols_each_function
t2f_each_function_fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                                        ctypes.POINTER(t2f_elf_symbol))

# int (*fn)(void *ctx, const char *build_id, const char *module, uint64_t bytes,
#           int64_t last_use, const char *problem) of t2f_cache_each
t2f_cache_fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                ctypes.c_uint64, ctypes.c_int64, ctypes.c_char_p)

STRUCTS = (t2f_options, t2f_write_options, t2f_format_info, t2f_input_report, t2f_stats,
           t2f_module_report, t2f_symbols_options, t2f_module, t2f_symbol, t2f_source_frame, t2f_refused, t2f_elf_symbol)

# ---- functions --------------------------------------------------------------------------------

_P = ctypes.POINTER
_session_p = _P(t2f_session)
_symbols_p = _P(t2f_symbols)
_int, _size, _u32, _u64 = ctypes.c_int, ctypes.c_size_t, ctypes.c_uint32, ctypes.c_uint64
_str, _void_p, _bool = ctypes.c_char_p, ctypes.c_void_p, ctypes.c_bool

# name: (restype, argtypes). Strings the library returns and that the caller frees (they are
# malloc'd) are declared c_void_p, so that ctypes leaves the pointer to free().
FUNCTIONS = {
    "t2f_session_new": (_int, [_P(t2f_options), _P(_session_p)]),
    "t2f_session_free": (None, [_session_p]),
    "t2f_session_add_path": (_int, [_session_p, _str]),
    "t2f_session_add_fd": (_int, [_session_p, _int, _str]),
    "t2f_session_add_bytes": (_int, [_session_p, _void_p, _size, _str]),
    "t2f_session_cancel": (None, [_session_p]),
    "t2f_session_resolve": (_int, [_session_p]),
    "t2f_session_write_path": (_int, [_session_p, _P(t2f_write_options), _str]),
    "t2f_session_write_fd": (_int, [_session_p, _P(t2f_write_options), _int]),
    "t2f_session_write_mem": (_int, [_session_p, _P(t2f_write_options), _P(_void_p),
                                     _P(_size)]),
    "t2f_session_error": (_str, [_session_p]),
    "t2f_session_stats": (_int, [_session_p, _P(t2f_stats)]),
    "t2f_session_input_count": (_size, [_session_p]),
    "t2f_session_input": (_int, [_session_p, _size, _P(t2f_input_report)]),
    "t2f_session_module_count": (_size, [_session_p]),
    "t2f_session_module": (_int, [_session_p, _size, _P(t2f_module_report)]),
    "t2f_session_report": (None, [_session_p, ctypes.c_uint]),
    "t2f_format_count": (_size, []),
    "t2f_format_info": (_int, [c_enum, _P(t2f_format_info)]),
    "t2f_format_by_name": (c_enum, [_str]),
    "t2f_format_by_path": (c_enum, [_str]),
    "t2f_symbols_new": (_int, [_P(t2f_symbols_options), _P(_symbols_p)]),
    "t2f_symbols_free": (None, [_symbols_p]),
    "t2f_symbols_add_module": (_int, [_symbols_p, _P(t2f_module), _P(_u32)]),
    "t2f_symbols_resolve": (_int, [_symbols_p, _u32, c_enum, _u64, _P(t2f_symbol)]),
    "t2f_symbols_inlines": (_int, [_symbols_p, _u32, c_enum, _u64, _P(t2f_source_frame),
                                   _size]),
    "t2f_symbols_refusal_count": (_size, [_symbols_p, _u32]),
    "t2f_symbols_refusal": (_int, [_symbols_p, _u32, _size, _P(t2f_refused)]),
    "t2f_symbols_each_function": (_int, [_symbols_p, _str, t2f_each_function_fn, _void_p]),
    "t2f_symbols_error": (_str, [_symbols_p]),
    "t2f_demangle_name": (_void_p, [_str, _bool]),
    "t2f_strerror": (_str, [_int]),
    "t2f_free": (None, [_void_p]),
    "t2f_version": (_str, []),
    "t2f_version_number": (ctypes.c_uint, []),
    "t2f_symbol_name": (_void_p, [_str, _bool]),
    "t2f_visible": (_str, [_str, _P(ctypes.c_char), _size]),
    "t2f_message_stderr": (None, [_void_p, _str]),
    "t2f_cache_dir": (_void_p, []),
    "t2f_cache_each": (_int, [_str, t2f_cache_fn, _void_p]),
    "t2f_cache_clear": (_int, [_str, _P(ctypes.c_uint64)]),
    "t2f_share_limit": (None, [ctypes.c_uint]),
}


class Library:
    """The loaded libtrace2flame: each FUNCTIONS entry as an attribute with its prototype, and
    `free` (t2f_free) for what the library returns allocated (t2f_session_write_mem's buffer,
    t2f_demangle_name's string), `path` the file loaded."""

    def __init__(self, cdll, path):
        self.path = path
        for name, (restype, argtypes) in FUNCTIONS.items():
            try:
                fn = getattr(cdll, name)
            except AttributeError:
                raise OSError("trace2flame: %s has no %s: not the libtrace2flame this module "
                              "was written for" % (path, name)) from None
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name, fn)
        self.free = self.t2f_free


def _candidates():
    """(path or soname, how it was found) to try in order; see the docstring."""
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, SONAME), "next to the module"
    try:
        from . import _install
        libdir = os.path.normpath(os.path.join(here, _install.LIBDIR))
        yield os.path.join(libdir, SONAME), "the installed library directory"
    except ImportError:
        pass
    yield SONAME, "the dynamic loader's search"
    found = ctypes.util.find_library("trace2flame")
    if found and found != SONAME:
        yield found, "ctypes.util.find_library"


def load():
    """The Library, or OSError saying where it was looked for."""
    env = os.environ.get("T2F_LIBRARY")
    if env:
        try:
            return Library(ctypes.CDLL(env), env)
        except OSError as e:
            raise OSError("trace2flame: cannot load T2F_LIBRARY=%s: %s" % (env, e)) from None
    tried = []
    for cand, how in _candidates():
        if os.sep in cand and not os.path.exists(cand):
            tried.append("%s (%s): not there" % (cand, how))
            continue
        try:
            return Library(ctypes.CDLL(cand), cand)
        except OSError as e:
            tried.append("%s (%s): %s" % (cand, how, e))
    raise OSError("trace2flame: libtrace2flame not found (set T2F_LIBRARY to its path); "
                  "tried " + "; ".join(tried))
