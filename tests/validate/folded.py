#!/usr/bin/python3
"""tests/validate/folded.py: folded (collapsed) stacks checked line by line, strictly: what the
tools that read the format (flame graph scripts, speedscope, profilers' importers) all read the
same way.

usage: folded.py FILE        exit 0 accepted, 1 rejected (the first problems on stderr)

Every line is "FRAME;FRAME;...;FRAME COUNT" ended by "\\n": COUNT a decimal integer (no sign, no
leading zero unless it is 0) after exactly one space; no frame empty; no TAB, CR or other
control character; the last frame not ending in " DIGITS" (a reader would take the line for a
two-count differential line); valid UTF-8. An empty file (no samples) is accepted.
"""
import re
import sys

LINE = re.compile(r"(?P<stack>.+) (?P<count>0|[1-9][0-9]*)")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def problems(lines):
    for n, raw in enumerate(lines, 1):
        if not raw.endswith(b"\n"):
            yield n, "no newline at the end of the file"
        line = raw.rstrip(b"\n")
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as e:
            yield n, "not valid UTF-8 (%s)" % e.reason
            continue
        c = CONTROL.search(text)
        if c:
            yield n, "control character %r" % c.group()
            continue
        m = LINE.fullmatch(text)
        if not m:
            yield n, "not \"STACK COUNT\" (one space, then a decimal count)"
            continue
        frames = m.group("stack").split(";")
        if "" in frames:
            yield n, "empty frame"
        if re.search(r" [0-9]+$", frames[-1]):
            yield n, "last frame ends in \" DIGITS\": reads as a differential line"


def main():
    if len(sys.argv) != 2:
        print("usage: folded.py FILE", file=sys.stderr)
        return 2
    with open(sys.argv[1], "rb") as f:
        lines = f.readlines()
    found = 0
    for n, what in problems(lines):
        found += 1
        if found <= 10:
            print("%s:%d: %s" % (sys.argv[1], n, what), file=sys.stderr)
    if found:
        print("%s: %d problems" % (sys.argv[1], found), file=sys.stderr)
        return 1
    print("folded OK: %s (%d lines)" % (sys.argv[1], len(lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
