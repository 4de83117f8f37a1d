"""trace2flame.batch: many inputs converted apart (on other processes or machines) and merged into
the one profile `trace2flame INPUT... -o OUT` writes, byte for byte.

Each input is converted alone into a partial profile, the bytes of an output format the library
also reads ("collapsed", or "pprof"); the partials are then read back in input order by one session,
which writes OUT. Nothing here needs a cluster: trace2flame.dask runs partial() on Dask workers,
and docs/batch.md shows the same two calls under Spark and Slurm.

    parts = [trace2flame.batch.partial(p) for p in inputs]      # anywhere, in any order
    with trace2flame.batch.Merge("out.folded") as m:
        for p in parts:                                         # in input order
            m.add(p)
        m.write()

The partials are folded stacks by default: each keeps one event, the one its input's own
conversion writes; one conversion of all the inputs writes the first with samples in input
order, so a partial holding another is made again with that event asked for (Merge.needs).
Folded OUT is exact. pprof partials (partials="pprof", when the library reads pprof back:
reads_pprof()) keep every event, the threads, mappings and durations, and make pprof OUT
exactly; folded OUT from them names C++ functions as pprof does, return types kept
(docs/batch.md, Exactness). Neither is exact where one conversion of all the inputs decides
something for all of them (docs/batch.md, Exactness: perf.data recorded on this machine mixed
with inputs that are not, or at other times).
"""
import collections
import errno

from . import _ffi
from ._common import Error, cstr, lib
from ._session import FORMATS, Session

PARTIAL_FORMATS = ("collapsed", "pprof")  # the first is the default
# what OUT may be, by the partials' format: the formats whose bytes the merge makes (folded
# partials keep one event: not pprof); not the formats that place samples in time (speedscope,
# the Firefox profile, the heat map), which no partial keeps.
OUT_FORMATS = {"collapsed": (_ffi.T2F_FORMAT_COLLAPSED,),
               "pprof": (_ffi.T2F_FORMAT_COLLAPSED, _ffi.T2F_FORMAT_PPROF)}

Partial = collections.namedtuple("Partial", "name data samples event error code event_asked")
Partial.__doc__ = """One input converted by partial(). name: the input as given; data: the
partial profile's bytes (None when it failed); samples: the samples read from it; event: the
event its partial holds (None: no samples); error, code: the library's message and negative code
when it failed (else None, 0); event_asked: the event partial() was asked for, or None."""


_reads_pprof = None


def reads_pprof():
    """Whether the library reads pprof back (a profile of one folded line written and read).
    Found once a process."""
    global _reads_pprof
    if _reads_pprof is None:
        try:
            with Session(formats="pprof", quiet=True, message=lambda line: None) as s:
                s.add_bytes(b"a;b 1\n")
                s.resolve()
                data = s.write_mem("pprof")
            with Session(formats="collapsed", quiet=True, message=lambda line: None) as s:
                s.add_bytes(data)
                s.resolve()
                ok = s.write_mem("collapsed") == b"a;b 1\n"
        except Error:
            ok = False
        _reads_pprof = ok
    return _reads_pprof


def partial(path, name=None, event=None, jobs=1, partials=PARTIAL_FORMATS[0], **options):
    """Converts the input at path alone (one session, read, resolved, written to memory in the
    partials' format): a Partial, never an exception for what the input or the library says (a
    failure is in its error and code). name: how reports name it (default path). event: the
    event to keep (None: the one the conversion writes). jobs: the session's parser threads (1:
    the caller's thread alone; a worker runs one task per core). partials: "collapsed" or
    "pprof" (give the Merge's). options: other Session options. The input is read from a
    descriptor of the file and called name, as the command line calls it (pprof partials say
    their inputs' names, which pprof OUT writes)."""
    name = path if name is None else name
    fmt = partials
    try:
        with Session(formats=fmt, event=event, jobs=jobs, quiet=True,
                     message=lambda line: None, **options) as s:
            try:
                with open(path, "rb") as f:
                    s.add_fd(f.fileno(), name=name)
                s.resolve()
            except Error as e:
                if event is not None and e.code == -_ffi.T2F_ERR_NO_EVENT and s.stats().inputs:
                    # the input was read but has no sample of the event asked for: it adds
                    # nothing to that event, as in one conversion of every input
                    return Partial(name, b"", s.stats().samples, event, None, 0, event)
                raise
            st = s.stats()
            keep = st.event_samples if fmt == "collapsed" else st.samples
            data = s.write_mem(fmt) if keep else b""
            return Partial(name, data, st.samples, st.event if st.event_samples else None,
                           None, 0, event)
    except Error as e:
        return Partial(name, None, 0, None, e.message, e.code, event)
    except OSError as e:  # the input cannot be opened
        code = -(e.errno or errno.EIO)
        return Partial(name, None, 0, None, "%s: %s" % (name, e.strerror or e), code, event)


Chunk = collections.namedtuple("Chunk", "name data samples event error code event_asked inputs")
Chunk.__doc__ = """A contiguous run of inputs converted by chunk(), in one session: the partial
profile of the inputs read, which merges as their partials would (merges are associative).
name: the inputs' first name and how many follow, for messages; data: the partial's bytes (None
when no input was read, or the chunk stopped at a failed input); samples: the samples read from
them all; event, event_asked: as a Partial's; error, code: the first failure's (None, 0 when
none); inputs: one Read per input, in order, up to the failed one when the chunk stopped at it."""

Read = collections.namedtuple("Read", "name samples error code")
Read.__doc__ = """One input of a Chunk: its name, the samples read from it, and the library's
message and negative code when it failed (else None, 0)."""


def _add(s, path, name):
    """Adds the input at path to session s: its Read (samples read, or the failure)."""
    before = s.stats().samples
    try:
        with open(path, "rb") as f:
            s.add_fd(f.fileno(), name=name)
    except Error as e:
        if e.code == -errno.ENOMEM:
            raise  # the profile is left incomplete: the chunk fails whole
        return Read(name, 0, e.message, e.code)
    except OSError as e:  # the input cannot be opened
        return Read(name, 0, "%s: %s" % (name, e.strerror or e), -(e.errno or errno.EIO))
    return Read(name, s.stats().samples - before, None, 0)


def chunk(paths, names=None, event=None, jobs=1, partials=PARTIAL_FORMATS[0], keep_going=True,
          **options):
    """Converts the inputs at paths in one session into one partial profile: a Chunk, never an
    exception for what the inputs or the library say. The partial is the bytes the partials of
    its inputs merge into (partial() of each, read by a Merge, written in the partials' format),
    made at the cost of one conversion. A failed input is left out (the session as before it,
    its Read saying why) and the others go on; keep_going False: the chunk stops at it (data
    None). names, event, jobs, partials, options: as partial() takes them (names: one a path,
    default the paths)."""
    names = list(paths) if names is None else list(names)
    label = names[0] if len(names) == 1 else "%s and %d more" % (names[0], len(names) - 1)
    reads = []
    try:
        with Session(formats=partials, event=event, jobs=jobs, quiet=True,
                     message=lambda line: None, **options) as s:
            for path, name in zip(paths, names):
                reads.append(_add(s, path, name))
                if reads[-1].error is not None and not keep_going:
                    r = reads[-1]
                    return Chunk(label, None, 0, None, r.error, r.code, event, reads)
            bad = [r for r in reads if r.error is not None]
            first = (bad[0].error, bad[0].code) if bad else (None, 0)
            if len(bad) == len(reads):
                return Chunk(label, None, 0, None, first[0], first[1], event, reads)
            try:
                s.resolve()
            except Error as e:
                if event is not None and e.code == -_ffi.T2F_ERR_NO_EVENT:
                    # read, but no sample of the event asked for: they add nothing to it
                    return Chunk(label, b"", s.stats().samples, event, first[0], first[1],
                                 event, reads)
                raise
            st = s.stats()
            keep = st.event_samples if partials == "collapsed" else st.samples
            data = s.write_mem(partials) if keep else b""
            return Chunk(label, data, st.samples, st.event if st.event_samples else None,
                         first[0], first[1], event, reads)
    except Error as e:  # the session failed as a whole: every input of the chunk with it
        return Chunk(label, None, 0, None, e.message, e.code, event,
                     [Read(n, 0, e.message, e.code) for n in names])


def exit_code(code):
    """The command line's exit status for a failed input's code: 1 bad input (-T2F_ERR_*, out of
    memory), 3 an I/O error (another -errno)."""
    if code <= -_ffi.T2F_ERR_FORMAT or code == -errno.ENOMEM:
        return 1
    return 3


def out_format(out, fmt=None):
    """The format of OUT: fmt (a name) when given, else by OUT's file name as the command line
    takes it (t2f_format_by_path); ValueError when the name says none."""
    if fmt:
        return FORMATS[fmt]
    f = lib().t2f_format_by_path(cstr(out, "out"))
    if not f:
        raise ValueError("cannot tell the output format of '%s': use -f FORMAT" % out)
    return f


class Merge:
    """The partials read in input order by one session, which writes OUT. add() takes the
    partials in input order; needs() says when one must be made again with an event asked for
    (its event is not the one the whole conversion writes). event: the --event of the whole
    conversion (None: settled by the partials). partials: their format, which partial() must
    be given. Raises Error as the session does."""

    def __init__(self, out, fmt=None, event=None, partials=PARTIAL_FORMATS[0], **options):
        self.out = out
        self.format = out_format(out, fmt)
        self.partials = partials or PARTIAL_FORMATS[0]
        if self.partials not in PARTIAL_FORMATS:
            raise ValueError("partials: %r is none of %s" % (self.partials,
                                                             ", ".join(PARTIAL_FORMATS)))
        if self.partials == "pprof" and not reads_pprof():
            raise ValueError("pprof partials: this libtrace2flame does not read pprof")
        if self.format not in OUT_FORMATS[self.partials]:
            raise ValueError("%s: %s partials make %s output alone" % (
                out, self.partials, " or ".join(n for n, f in FORMATS.items()
                                                 if f in OUT_FORMATS[self.partials])))
        self.event = event
        self.samples = 0
        self.added = 0
        if event is not None and self.partials == "pprof":
            # a pprof partial keeps every event, in the order its inputs gave them: the one
            # asked for is chosen here too, not the first with samples
            options = dict(options, event=event)
        self._s = Session(formats=_ffi.T2F_FORMAT_BIT(self.format), quiet=True,
                          message=lambda line: None, **options)

    def needs(self, p):
        """The event p must be made again with (partial(..., event=E)), or None when p may be
        added as it is."""
        if self.partials != "collapsed":
            return None  # a pprof partial keeps every event
        if p.data is None or p.event is None or self.event is None or p.event == self.event:
            return None
        return self.event if p.event_asked != self.event else None

    def add(self, p):
        """Reads the partial p (a Partial that did not fail, or a Chunk with data; needs()
        None) into the session."""
        if p.data is None:
            raise ValueError("%s: a failed input has no partial" % p.name)
        if self.needs(p):
            raise ValueError("%s: the partial holds event %s, not %s" % (p.name, p.event,
                                                                          self.event))
        if self.event is None and p.event is not None:
            self.event = p.event
        self.added += sum(r.error is None for r in p.inputs) if isinstance(p, Chunk) else 1
        self.samples += p.samples
        if p.data:
            self._s.add_bytes(p.data, name=p.name)

    def write(self):
        """Resolves and writes OUT (atomically: the session writes a temp file and renames it);
        the session's Stats."""
        self._s.resolve()
        self._s.write_path(self.out, self.format)
        return self._s.stats()

    def close(self):
        self._s.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
