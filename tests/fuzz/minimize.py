#!/usr/bin/python3
"""tests/fuzz/minimize.py: a fuzz corpus cut down to a byte budget, every edge kept.

usage: minimize.py CONTROL KEEP BUDGET OUTDIR

  CONTROL  the control file of a libFuzzer merge run over the corpus
           (fuzz-TARGET -merge=1 -merge_control_file=CONTROL -max_len=KEEP BASE DIR...): the
           input files, then for each one the features (FT) and the code edges (COV) it
           reached; the first files (BASE, the "initial corpus") count as taken already
  KEEP     the -max_len of that run: each input was cut to its first KEEP bytes, and so is the
           copy written
  BUDGET   bytes the chosen inputs may take once every edge is covered
  OUTDIR   gets the chosen inputs, named by the SHA-1 of their bytes as libFuzzer names them

libFuzzer's own merge (-merge=1) takes inputs smallest first and keeps each that adds a
feature; -set_cover_merge=1 takes the input adding the most features first. Neither looks at
the bytes an input costs: a corpus of real ELF files keeps hundreds of 20 KB inputs for one
feature (a loop count bucket) each. Here each step takes the input with the most edges not yet
covered per byte (the greedy approximation of weighted set cover) until every edge of the
corpus is covered, then, the same way, inputs that add features, while they fit the budget.
"""
import hashlib
import heapq
import os
import sys


def read_control(path):
    """The input paths, how many of them are the initial corpus, and for each one its
    features and its edges (dicts by input index)."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().split("\n")
    n, n_initial = int(lines[0]), int(lines[1])
    files = lines[2:2 + n]
    sets = {"FT": {}, "COV": {}}
    for line in lines[2 + n:]:
        words = line.split()
        if len(words) >= 2 and words[0] in sets:
            sets[words[0]][int(words[1])] = set(int(w) for w in words[2:])
    return files, n_initial, sets["FT"], sets["COV"]


def greedy(sets, cost, covered, taken, budget):
    """Adds to taken the inputs that cover sets' elements, most new elements per byte first,
    while the bytes taken stay within budget (None: no limit). Updates covered; returns the
    bytes taken."""
    spent = sum(cost[i] for i in taken)
    heap = [(-len(sets[i]) / cost[i], i) for i in cost if i in sets and i not in taken]
    heapq.heapify(heap)
    while heap:
        _, i = heapq.heappop(heap)
        gain = len(sets[i] - covered)
        if not gain or (budget is not None and spent + cost[i] > budget):
            continue
        score = gain / cost[i]
        if heap and score < -heap[0][0]:
            heapq.heappush(heap, (-score, i))  # stale: look again later
            continue
        taken.append(i)
        covered |= sets[i]
        spent += cost[i]
    return spent


def choose(files, n_initial, features, edges, keep, budget):
    """Indexes of the inputs to keep (not the initial ones)."""
    cov_ft, cov_edges = set(), set()
    for i in range(n_initial):
        cov_ft |= features.get(i, set())
        cov_edges |= edges.get(i, set())
    cost = {i: max(1, min(os.path.getsize(files[i]), keep))
            for i in range(n_initial, len(files)) if i in features}
    taken = []
    greedy(edges, cost, cov_edges, taken, None)
    for i in taken:
        cov_ft |= features[i]
    greedy(features, cost, cov_ft, taken, budget)
    return taken


def main():
    if len(sys.argv) != 5:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    control, keep, budget, outdir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    files, n_initial, features, edges = read_control(control)
    chosen = choose(files, n_initial, features, edges, keep, budget)
    os.makedirs(outdir, exist_ok=True)
    total = 0
    for i in chosen:
        with open(files[i], "rb") as f:
            data = f.read(keep)
        with open(os.path.join(outdir, hashlib.sha1(data).hexdigest()), "wb") as f:
            f.write(data)
        total += len(data)
    kept = set().union(*(features[i] for i in chosen)) if chosen else set()
    print(f"minimize.py: {len(chosen)} of {len(files) - n_initial} inputs, {total} bytes, "
          f"features {len(kept)} of {len(set().union(*features.values()))} (besides the "
          f"initial inputs')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
