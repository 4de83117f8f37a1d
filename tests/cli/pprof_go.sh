#!/bin/sh
# Go's pprof files as inputs: a Go program built here (standard library only, GOPATH mode,
# GOPROXY=off: nothing is downloaded) writes a CPU profile with runtime/pprof, and
# `go tool pprof -proto` writes it again; trace2flame reads both, and its folded stacks (the
# sample counts and the weights) equal the stacks `go tool pprof -raw` prints, read by
# tests/pprof_lib.sh's parser (an inlined function is a line of its caller's location: the
# program has one). The roots are left out of the comparison: Go's samples have no thread label
# (trace2flame names them by the main binary, the parser "[unknown]"). Skipped without go.
# usage: sh tests/cli/pprof_go.sh TRACE2FLAME
. "$(dirname "$0")/common.sh"
# shellcheck source=../pprof_lib.sh
. "$SRC/tests/pprof_lib.sh"

if ! command -v go >/dev/null 2>&1; then
	echo "$TEST_NAME: go not found (Debian golang-go): skipped"
	exit 0
fi
G=$TMP/go
mkdir -p "$G/src"
export HOME="$G" GOCACHE="$G/cache" GOPATH="$G/gopath" GO111MODULE=off GOPROXY=off GOFLAGS=
cat >"$G/src/main.go" <<'GOEOF'
package main

import (
	"os"
	"runtime/pprof"
	"time"
)

func square(i int) int { return i * i % 7 } // inlined into leaf

//go:noinline
func leaf(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += square(i)
	}
	return s
}

//go:noinline
func spin(d time.Duration) int {
	s := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		s += leaf(10000)
	}
	return s
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	spin(400 * time.Millisecond)
	pprof.StopCPUProfile()
	f.Close()
}
GOEOF
if ! (cd "$G/src" && go build -o "$G/prog" main.go) >"$TMP/go.err" 2>&1; then
	bad "go build failed: $(head -n 3 "$TMP/go.err")"
	finish
fi
"$G/prog" "$G/cpu.pprof" || bad "the Go program failed"
go tool pprof -proto "$G/prog" "$G/cpu.pprof" >"$G/proto.pb.gz" 2>"$TMP/go.err" ||
	bad "go tool pprof -proto failed: $(head -n 3 "$TMP/go.err")"
cat >"$G/pprof" <<'SHEOF'
#!/bin/sh
exec go tool pprof "$@"
SHEOF
chmod +x "$G/pprof"
# shellcheck disable=SC2034 # read by pprof_lib.sh (pprof_stacks)
PPROF=$G/pprof

unroot() { sed 's/^[^;	]*;//' "$1" | LC_ALL=C sort; }
for f in cpu.pprof proto.pb.gz; do
	expect 0 "$f: folded (samples)" --raw-names --weight samples -o "$G/$f.s.folded" "$G/$f" &&
		expect 0 "$f: folded (weights)" --raw-names -o "$G/$f.w.folded" "$G/$f" || continue
	folded_stacks "$G/$f.s.folded" "$G/$f.w.folded" "$G/$f.want"
	n=$(pprof_stacks "$G/$f" "$G/$f.pp") || n=0
	if [ "$n" -ne 1 ]; then
		bad "$f: go tool pprof -raw gave $n events, want 1"
		continue
	fi
	if [ "$(sed -n 1p "$G/$f.pp.events")" = cpu ]; then ok; else bad "$f: event not cpu"; fi
	unroot "$G/$f.want" >"$G/$f.want.u"
	unroot "$G/$f.pp.1.stacks" >"$G/$f.pp.u"
	same_nonempty "$TEST_NAME" "$f: stacks, counts and weights" "$G/$f.want.u" "$G/$f.pp.u" \
		"< trace2flame, > go tool pprof -raw"
	if grep -q 'main.leaf;main.square' "$G/$f.w.folded"; then ok; else
		bad "$f: no sample in the inlined main.square (a flaky profile?)"
		sed 's/^/    /' "$G/$f.w.folded" | head -n 5
	fi
	if grep -qv '^prog;' "$G/$f.w.folded"; then bad "$f: a root other than prog"; else ok; fi
done
finish
