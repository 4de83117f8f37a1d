#!/bin/sh
# tests/docs/readme.sh: what the README tells a newcomer to run or read exists and works.
#   - links: every relative link of README.md, docs/*.md, tests/README.md, tools/README.md and
#     fixtures/*/README.md names a file of the repository, and a #fragment a heading of it (as
#     GitHub makes anchors); every repository path the README quotes (`tools/...`, `fixtures/...`)
#     exists;
#   - commands: every line of the README's ```sh blocks: `trace2flame ...` is run (the binary
#     under test first on the PATH) in an empty directory where fixtures/ is the repository's:
#     a line whose inputs the repository ships must succeed and write its -o file; any other
#     must fail only for its missing input (exit 3, "No such file or directory"), so its options
#     are ones trace2flame takes; `./tools/X` must be an executable script that parses
#     (bash -n); lines needing a recording (perf ...) or a build (cmake ...) are counted, not run.
#
# usage: sh tests/docs/readme.sh TRACE2FLAME
# env: T2F_SOURCE_DIR
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
t2f_init ../.. 1 "$@"
make_tmp
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
mkdir "$TMP/run" "$TMP/bin"
ln -s "$SRC/fixtures" "$TMP/run/fixtures"
ln -s "$T2F_BIN" "$TMP/bin/trace2flame"

if "$PY" - "$SRC" "$TMP/run" "$TMP/bin" <<'EOF'; then ok; else bad "README and docs: see above"; fi
import glob, os, re, subprocess, sys

src, run_dir, bin_dir = sys.argv[1:4]
errors, counts = [], {"links": 0, "paths": 0, "ran": 0, "options": 0, "scripts": 0, "not run": 0}


def slug(heading):
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return s.replace(" ", "-")


def anchors(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)}


# --- links -------------------------------------------------------------------------------------
docs = [os.path.join(src, "README.md"), os.path.join(src, "tests/README.md"),
        os.path.join(src, "tools/README.md")]
docs += sorted(glob.glob(os.path.join(src, "docs/*.md")))
docs += sorted(glob.glob(os.path.join(src, "fixtures/*/README.md")))
for doc in docs:
    text = open(doc, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    rel = os.path.relpath(doc, src)
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        target = m.group(1)
        if re.match(r"^[a-z]+:", target) or target.startswith("<"):
            continue
        counts["links"] += 1
        path, _, frag = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        if not os.path.exists(full):
            errors.append("%s: link to %s: no such file" % (rel, target))
        elif frag and full.endswith(".md") and frag not in anchors(full):
            errors.append("%s: link to %s: no heading #%s there" % (rel, target, frag))

readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
prose = re.sub(r"```.*?```", "", readme, flags=re.S)
roots = "docs|tools|tests|fixtures|include|formats|readers|symbolizer|writers|pipeline"
for m in re.finditer(r"`((?:%s)/[^`\s*]*)`" % roots, prose):
    counts["paths"] += 1
    if not os.path.exists(os.path.join(src, m.group(1))):
        errors.append("README.md: `%s`: no such file or directory" % m.group(1))

# --- commands ----------------------------------------------------------------------------------
lines = []
for block in re.findall(r"^```sh\n(.*?)^```", readme, flags=re.S | re.M):
    joined = block.replace("\\\n", " ")
    for line in joined.splitlines():
        line = re.sub(r"\s{2,}#.*$", "", line).strip()
        if line and not line.startswith("#"):
            lines.append(line)
env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
for line in lines:
    words = line.split()
    if words[0].startswith("./tools/"):
        counts["scripts"] += 1
        script = os.path.join(src, words[0][2:])
        if not os.access(script, os.X_OK):
            errors.append("README: %s: not an executable script" % words[0])
        elif subprocess.run(["bash", "-n", script]).returncode != 0:
            errors.append("README: %s: does not parse" % words[0])
        continue
    if words[0] in ("perf", "cmake") or "perf script |" in line:
        counts["not run"] += 1
        continue
    if words[0] != "trace2flame":
        errors.append("README: a command this test does not know: %s" % line)
        continue
    r = subprocess.run(["sh", "-c", line], cwd=run_dir, env=env, capture_output=True,
                       text=True, timeout=120)
    out = words[words.index("-o") + 1] if "-o" in words else None
    if "fixtures/" in line:
        counts["ran"] += 1
        if r.returncode != 0:
            errors.append("README: `%s`: exit %d: %s" % (line, r.returncode, r.stderr.strip()))
        elif out and not os.path.getsize(os.path.join(run_dir, out)):
            errors.append("README: `%s`: %s is empty" % (line, out))
    elif r.returncode == 3 and "No such file or directory" in r.stderr:
        counts["options"] += 1
    else:
        errors.append("README: `%s`: exit %d, not the missing input's 3: %s"
                      % (line, r.returncode, r.stderr.strip()))

for e in errors:
    print("FAIL " + e)
print("readme: %(links)d links and %(paths)d quoted paths checked; commands: %(ran)d run on the "
      "shipped inputs, %(options)d with their options checked (input missing), %(scripts)d "
      "scripts checked, %(not run)d not run (a recording or a build)" % counts)
if not counts["ran"]:
    errors.append("no README command ran")
    print("FAIL no README command ran")
sys.exit(1 if errors else 0)
EOF
finish
