#!/usr/bin/python3
"""tools/python/example_convert.py: tools/example_convert.c in Python, on the trace2flame module
alone. Reads every INPUT (perf.data, perf script text, .nettrace, folded stacks; plain, gzip or
zstd) into one profile and writes it in FORMAT, as `trace2flame INPUT... -f FORMAT -o OUTPUT`
does; says on stderr how much of each input was read, and the library's warnings.

usage: example_convert.py FORMAT OUTPUT INPUT...   (FORMAT collapsed, speedscope, pprof or svg;
                                                    OUTPUT "-": standard output)
stderr: "example_convert: read INPUT: N bytes" once per input, when it is read; the library's
        lines as they come; "example_convert: MESSAGE" when the conversion fails.
Exit status: 0, 1 when the conversion failed, 2 usage.
"""
import sys

import trace2flame


def on_progress(name, done, total, finished):
    if finished:
        print("example_convert: read %s: %d bytes" % (name, done), file=sys.stderr)


def main(argv):
    if len(argv) < 4 or argv[1] not in trace2flame.FORMATS:
        print("usage: example_convert.py collapsed|speedscope|pprof|svg OUTPUT INPUT...",
              file=sys.stderr)
        return 2
    fmt, output, inputs = argv[1], argv[2], argv[3:]
    try:
        with trace2flame.Session(formats=fmt, progress=on_progress,
                                 message=lambda line: print(line, file=sys.stderr)) as s:
            for i in inputs:
                s.add_path(i)
            s.resolve()
            s.write_path(output, fmt)
    except trace2flame.Error as e:
        print("example_convert: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
