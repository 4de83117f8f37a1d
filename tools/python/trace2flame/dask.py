"""trace2flame.dask: `trace2flame INPUT... -o OUT` with the inputs converted on a Dask cluster.

usage: python3 -m trace2flame.dask [--scheduler ADDRESS] [--workers N] [--keep-going]
                                   [-f FORMAT] [--event NAME] [--jobs N] [--chunk N]
                                   [--partials collapsed|pprof] -o OUT INPUT...

Each task converts a contiguous run of inputs (--chunk N of them; default about two tasks a
worker thread, of about equal bytes when this process sees the inputs) on a worker (trace2flame.batch.chunk: the library in the worker's process, one
session per task; the library and its format table are loaded once per worker process); the
partial profiles, one a task, come back to this process, which reads them in input order in one
session as each one's turn comes and writes OUT, the bytes `trace2flame INPUT... -o OUT` writes
on one machine (merges are associative). Without --scheduler a local cluster is started (processes, N
workers, default 2, one thread each, on 127.0.0.1). The workers read the inputs by their
absolute paths, so they must see the same files (and the binaries the traces name).

One line per input on stderr, in input order as each task's turn comes: "[3/16] NAME: ok, N
samples" or "[3/16] NAME: failed: MESSAGE". A failed input stops the run (the tasks not started are cancelled, OUT is not written); with
--keep-going the others go on and OUT holds them. Exit status as the command line's: 0, 1 a
bad input, 2 usage, 3 an I/O error (the worst of the failures with --keep-going).
docs/batch.md has the details and the same under Spark and Slurm.
"""
import argparse
import errno
import os
import sys
import uuid

from . import batch
from ._common import Error


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python3 -m trace2flame.dask",
                                 description="trace2flame INPUT... -o OUT, the inputs "
                                 "converted on a Dask cluster's workers")
    ap.add_argument("inputs", nargs="+", metavar="INPUT")
    ap.add_argument("-o", "--output", required=True, metavar="OUT")
    ap.add_argument("-f", "--format", help="OUT's format (default: by OUT's name)")
    ap.add_argument("--event", help="the event written (default: the first with samples)")
    ap.add_argument("--scheduler", metavar="ADDRESS", help="a running scheduler "
                    "(tcp://HOST:PORT); default: a local cluster")
    ap.add_argument("--workers", type=int, default=2, metavar="N",
                    help="the local cluster's worker processes (default 2)")
    ap.add_argument("--jobs", type=int, default=1, metavar="N",
                    help="parser threads of each conversion (default 1)")
    ap.add_argument("--partials", choices=batch.PARTIAL_FORMATS,
                    default=batch.PARTIAL_FORMATS[0],
                    help="the partial profiles' format (default collapsed)")
    ap.add_argument("--chunk", type=int, default=0, metavar="N",
                    help="inputs converted by one task, in one session (default: about two "
                    "tasks a worker, of about equal bytes)")
    ap.add_argument("--keep-going", action="store_true",
                    help="go on past a failed input; OUT holds the others")
    a = ap.parse_args(argv)
    if a.workers < 1 or a.jobs < 0 or a.chunk < 0:
        ap.error("--workers must be 1 or more, --jobs and --chunk 0 or more")
    return a


def say(line):
    print(line, file=sys.stderr, flush=True)


def sizes(paths):
    """The inputs' sizes in bytes (at least 1 each), or None when this process cannot see one
    of them (the workers may see files the driver does not)."""
    try:
        return [max(1, os.stat(p).st_size) for p in paths]
    except OSError:
        return None


def runs(n, chunk, workers, size=None):
    """The tasks' runs of inputs, (first, end) pairs in input order: chunk inputs each when
    chunk > 0; else about two tasks a worker thread, cut where the runs' bytes (size: the n
    inputs' sizes; None: one each) are about equal, a run's bytes being about its cost."""
    if chunk > 0:
        return [(i, min(i + chunk, n)) for i in range(0, n, chunk)]
    k = max(1, min(n, 2 * max(1, workers)))
    size = [max(1, s) for s in size] if size else [1] * n
    total, before, task = sum(size), 0, []
    for s in size:
        # an input goes to the task its bytes' middle falls in: tasks stay contiguous
        task.append(min(k - 1, (2 * before + s) * k // (2 * total)))
        before += s
    out = []
    for i, t in enumerate(task):
        if i == 0 or t != task[i - 1]:
            out.append([i, i + 1])
        else:
            out[-1][1] = i + 1
    return [tuple(r) for r in out]


class Run:
    """The tasks of one batch (each a contiguous run of inputs, trace2flame.batch.chunk) and
    the in-order merge of their results."""

    def __init__(self, client, args, merge, chunks):
        self.client, self.args, self.merge = client, args, merge
        self.n = len(args.inputs)
        self.chunks = chunks  # (first, end) of each task's inputs, in input order
        self.futures = {}     # future -> chunk index
        self.ready = {}       # chunk index -> Chunk, waiting for its turn
        self.next = 0         # the next chunk to merge
        self.done = 0
        self.status = 0
        # keys of this run's own: a scheduler keeps a key's task (and result) while any client
        # holds it, so two runs (one after another, or two at once) must never share one
        self.token = uuid.uuid4().hex

    def submit(self, c, event):
        a, b = self.chunks[c]
        names = self.args.inputs[a:b]
        f = self.client.submit(batch.chunk, [os.path.abspath(p) for p in names], names,
                               event=event, jobs=self.args.jobs, partials=self.merge.partials,
                               keep_going=self.args.keep_going, pure=False,
                               key="trace2flame-%s-%d-%s" % (self.token, c, event or ""))
        self.futures[f] = c
        return f

    def said(self, r):
        """Says how input r (a trace2flame.batch.Read) went."""
        self.done += 1
        if r.error is None:
            say("[%d/%d] %s: ok, %d samples" % (self.done, self.n, r.name, r.samples))
        else:
            say("[%d/%d] %s: failed: %s" % (self.done, self.n, r.name, r.error))
            self.status = max(self.status, batch.exit_code(r.code))

    def result(self, f):
        """The Chunk of finished future f (a task that raised fails each of its inputs)."""
        c = self.futures.pop(f)
        try:
            return c, f.result()
        except Exception as e:  # noqa: B902 -- a worker lost, an exception in the task
            a, b = self.chunks[c]
            msg = "%s: %s" % (type(e).__name__, e)
            return c, batch.Chunk(self.args.inputs[a], None, 0, None, msg, -errno.EIO, None,
                                  [batch.Read(p, 0, msg, -errno.EIO)
                                   for p in self.args.inputs[a:b]])

    def take(self, c, q, ac):
        """Files q (chunk c): its inputs said and it merged in turn; resubmitted (added to the
        as_completed ac) when it must be made again with another event. False: stop."""
        if q.error is not None and not self.args.keep_going:
            self.said(next(r for r in q.inputs if r.error is not None))
            return False
        self.ready[c] = q
        while self.next in self.ready:
            q = self.ready.pop(self.next)
            if q.data is not None:
                event = self.merge.needs(q)
                if event:
                    ac.add(self.submit(self.next, event))
                    return True
            for r in q.inputs:
                self.said(r)
            if q.data is not None:
                self.merge.add(q)
            self.next += 1
        return True

    def run(self):
        from distributed import as_completed
        ac = as_completed([self.submit(c, self.args.event) for c in range(len(self.chunks))])
        for f in ac:
            c, q = self.result(f)
            if not self.take(c, q, ac):
                self.client.cancel(list(self.futures))
                return False
        return True


def workers(client):
    """The worker threads of client's cluster, as its scheduler last said."""
    return sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())


# The local cluster's settings beside Dask's defaults: no dashboard reads the workers' task
# profiles or the system monitor's samples, its messages stay on this machine (compressing the
# partials costs both ends CPU for nothing), and the workers' memory is checked every second,
# not ten times a second. On two CPUs, where the driver shares them with the workers, these
# are about a tenth of a batch's wall time (docs/batch.md).
LOCAL_CONFIG = {"distributed.worker.profile.enabled": False,
                "distributed.comm.compression": None,
                "distributed.worker.memory.monitor-interval": "1s",
                "distributed.admin.system-monitor.interval": "2s"}


def local_cluster(workers):
    """A local cluster of workers processes (one thread each, on 127.0.0.1, no dashboard;
    LOCAL_CONFIG, which the nannies hand to their workers). The caller closes it."""
    import dask
    from distributed import LocalCluster
    with dask.config.set(LOCAL_CONFIG):
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                            host="127.0.0.1", dashboard_address="127.0.0.1:0",
                            scheduler_kwargs={"dashboard": False},
                            worker_dashboard_address="127.0.0.1:0")


def cluster(args):
    """A Client on --scheduler, or on a local cluster (and the cluster, to close)."""
    from distributed import Client
    if args.scheduler:
        return Client(args.scheduler), None
    lc = local_cluster(args.workers)
    return Client(lc), lc


def convert(client, args):
    """The batch of args (parse_args) on client's cluster: the exit status."""
    try:
        merge = batch.Merge(args.output, args.format, event=args.event,
                            partials=args.partials)
    except (KeyError, ValueError) as e:
        say("trace2flame.dask: %s" % (e.args[0] if isinstance(e, ValueError) else
                                      "unknown format %s" % e))
        return 2
    with merge:
        n = len(args.inputs)
        r = Run(client, args, merge, runs(n, args.chunk, workers(client),
                                          None if args.chunk else sizes(args.inputs)))
        try:
            finished = r.run()
        except Error as e:  # a partial the merge could not read
            say("trace2flame.dask: %s" % e)
            return batch.exit_code(e.code)
        if not finished:
            say("trace2flame.dask: stopped at the first failed input; %s not written"
                % args.output)
            return r.status
        if merge.added == 0:
            say("trace2flame.dask: no input converted; %s not written" % args.output)
            return r.status or 1
        try:
            merge.write()
        except Error as e:
            say("trace2flame.dask: %s" % e)
            return batch.exit_code(e.code)
        return r.status


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.format is not None and args.format not in batch.FORMATS:
        say("trace2flame.dask: unknown format %s" % args.format)
        return 2
    client, lc = cluster(args)
    try:
        return convert(client, args)
    finally:
        client.close()
        if lc is not None:
            lc.close()


if __name__ == "__main__":
    sys.exit(main())
