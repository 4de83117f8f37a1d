"""trace2flame._common: what the session and symbolizer wrappers share: the library (loaded on
first use), the exception, conversions between Python values and the C structs' fields, and
the callbacks."""
import collections
import ctypes
import errno
import os
import threading

from . import _ffi

_lib = None
_lib_lock = threading.Lock()


def lib():
    """The loaded library (_ffi.Library); OSError when it cannot be found."""
    global _lib
    with _lib_lock:
        if _lib is None:
            _lib = _ffi.load()
        return _lib


_ERR_NAMES = {getattr(_ffi, n): n for n in dir(_ffi) if n.startswith("T2F_ERR_")}


class Error(Exception):
    """A library call failed. code: its negative return (-errno or -T2F_ERR_*); message: the
    session's message when it has one ("FILE:LINE: what was expected"), else t2f_strerror's.
    str(error) is the message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def errno(self):
        """The errno value for an -errno code (errno.ENOENT ...), else None."""
        return -self.code if 0 < -self.code < _ffi.T2F_ERR_FORMAT else None

    @property
    def name(self):
        """"T2F_ERR_FORMAT" ..., "ENOENT" ..., or None."""
        if -self.code in _ERR_NAMES:
            return _ERR_NAMES[-self.code]
        return errno.errorcode.get(self.errno) if self.errno else None


def strerror(code):
    """t2f_strerror: the words for an error code (-errno or -T2F_ERR_*)."""
    return text(lib().t2f_strerror(code))


def check(code, message=None):
    """Raises Error for a negative code, its message from message() (when not empty) or
    t2f_strerror."""
    if code < 0:
        msg = message() if message else ""
        raise Error(code, msg or strerror(code))
    return code


def text(b):
    """bytes from the library as str (bytes that are not UTF-8 kept as surrogates, as os.fsdecode
    keeps them); None stays None."""
    return None if b is None else b.decode("utf-8", "surrogateescape")


def cstr(value, what):
    """A str, bytes or path-like value as the bytes of a C string; None stays None."""
    if value is None:
        return None
    try:
        b = os.fsencode(value)
    except TypeError:
        raise TypeError("%s: expected a str, bytes or path, not %s"
                        % (what, type(value).__name__)) from None
    if b"\0" in b:
        raise ValueError("%s: a NUL character in %r" % (what, value))
    return b


def str_array(values, what):
    """A list of paths as a NULL-terminated char * array (None stays None, the NULL pointer)."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or hasattr(values, "__fspath__"):
        raise TypeError("%s: expected a list of paths" % what)
    items = [cstr(v, what) for v in values] + [None]
    return (ctypes.c_char_p * len(items))(*items)


def enum_value(names, value, what):
    """An enum given by name (a key of names) or number."""
    if isinstance(value, str):
        try:
            return names[value]
        except KeyError:
            raise ValueError("%s: unknown value %r (known: %s)"
                             % (what, value, ", ".join(sorted(names)))) from None
    return int(value)


_UNSIGNED = (ctypes.c_uint, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_size_t)


def unsigned(value, ctype, what):
    """An int that fits the unsigned C type (ctypes would wrap a negative or larger one)."""
    value = int(value)
    if not 0 <= value < 1 << 8 * ctypes.sizeof(ctype):
        raise ValueError("%s: %d is out of range" % (what, value))
    return value


def fill(struct, values, enums, what):
    """Sets the fields of a ctypes struct from the dict values, by their ctypes type: strings,
    string arrays, bools, numbers, and the enums of `enums` (field: {name: value}). A key that is
    no field of the struct is a TypeError naming it. (The buffers a pointer field is set to are
    kept alive by the struct itself, in ctypes' _objects.)"""
    types = dict(struct._fields_)
    for key, value in values.items():
        t = types.get(key)
        if t is None or key == "size" or key.endswith("_ctx"):
            raise TypeError("%s: unknown option %r" % (what, key))
        if key in enums:
            value = enum_value(enums[key], value, key)
        elif t is ctypes.c_char_p:
            value = cstr(value, key)
        elif t is _ffi.c_str_array:
            value = str_array(value, key)
        elif t is ctypes.c_bool:
            value = bool(value)
        elif t in _UNSIGNED:
            value = unsigned(value, t, key)
        setattr(struct, key, value)


def record(name, struct, extra=(), skip=("size", "reserved")):
    """A namedtuple type with the struct's fields (but skip) and then extra."""
    fields = [f for f, _ in struct._fields_ if f not in skip] + list(extra)
    return collections.namedtuple(name, fields)


def to_record(cls, struct, enums=None, **extra):
    """cls (made by record()) from a filled struct: strings decoded, enums named when known."""
    enums = enums or {}
    values = {}
    for f in cls._fields:
        if f in extra:
            values[f] = extra[f]
            continue
        v = getattr(struct, f)
        if isinstance(v, bytes):
            v = text(v)
        if f in enums:
            v = enums[f].get(v, v)
        values[f] = v
    return cls(**values)


def names_of(table):
    """{value: name} of a {name: value} table."""
    return {v: k for k, v in table.items()}


class Callbacks:
    """The Python callables behind a struct's message and progress callbacks. The ctypes function
    objects are kept here for as long as the library may call them (the session's or symbolizer's
    life). An exception a callable raises cannot go through the library: the first one is kept
    and raised by raise_pending() once the library call returns. The message callback may run on
    one of the library's threads."""

    def __init__(self, message=None, progress=None):
        self._pending = None
        self._lock = threading.Lock()
        self.message = self.progress = None
        if message is not None:
            if not callable(message):
                raise TypeError("message: expected a callable")
            self.message = _ffi.t2f_message_fn(self._guard(
                lambda ctx, line: message(text(line))))
        if progress is not None:
            if not callable(progress):
                raise TypeError("progress: expected a callable")
            self.progress = _ffi.t2f_progress_fn(self._guard(
                lambda ctx, name, done, total, finished: progress(
                    text(name), done, total, bool(finished))))

    def _guard(self, fn):
        def call(*args):
            try:
                fn(*args)
            except BaseException as e:  # noqa: B902 -- kept, raised after the call
                with self._lock:
                    if self._pending is None:
                        self._pending = e
        return call

    def raise_pending(self):
        with self._lock:
            e, self._pending = self._pending, None
        if e is not None:
            raise e


class Handle:
    """What Session and Symbols share: the C object, made from an options struct and freed by
    close() (or a with block, or the garbage collector), and the calls on it. The options struct
    (and through it the strings and arrays it points to) and the callbacks are kept as long as
    the object, which the C side may use them for; so is the library, which close() needs when
    it runs at interpreter exit."""
    _new, _free, _what = None, None, None  # the library's functions, what the object is

    def _open(self, ctype, options, callbacks):
        self._s = None
        self._lib = lib()
        self._o, self._cb = options, callbacks
        s = ctypes.POINTER(ctype)()
        check(getattr(self._lib, self._new)(ctypes.byref(options), ctypes.byref(s)))
        self._s = s

    def close(self):
        """Frees the C object (t2f_session_free, t2f_symbols_free). Closing twice is fine."""
        if getattr(self, "_s", None):
            getattr(self._lib, self._free)(self._s)
            self._s = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _handle(self):
        if not self._s:
            raise ValueError("trace2flame: the %s is closed" % self._what)
        return self._s

    def _call(self, fn, *args, message=None):
        """fn(handle, *args); then the exception a callback raised meanwhile, else Error for a
        negative return (its message from message(), else t2f_strerror)."""
        rc = fn(self._handle(), *args)
        self._cb.raise_pending()
        return check(rc, message)
