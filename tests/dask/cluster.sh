# tests/dask/cluster.sh: a Dask scheduler and two workers on 127.0.0.1 for the tests of
# python3 -m trace2flame.dask, sourced after tests/lib.sh's t2f_init.
#
# cluster_start DIR: starts a dask-scheduler (port chosen by the system, its address read from
# its --scheduler-file) and two dask-worker processes (no nanny, one thread each) with Debian's
# /usr/bin/python3, each in a session of its own (setsid); sets ADDR, or says why and exits 1.
# cluster_stop: every session started ends (TERM, then KILL after 10 s), its leader reaped;
# then each is checked to have no process left (ok/bad). The caller sets PYTHONPATH and
# T2F_LIBRARY, and PYENV (VAR=VALUE words for the interpreters: the sanitizer's runtime).
SIDS=
# alive SID: a process of session SID is running (a zombie not reaped yet does not count)
alive() { ps -e -o sid=,stat= | awk -v s="$1" '$1 == s && $2 !~ /^Z/ { f = 1 } END { exit !f }'; }
cluster_kill() {
	for s in $SIDS; do
		kill -TERM "-$s" 2>/dev/null
	done
	for s in $SIDS; do
		i=0
		while [ $i -lt 50 ] && alive "$s"; do
			sleep 0.2
			i=$((i + 1))
		done
		kill -KILL "-$s" 2>/dev/null
		wait "$s" 2>/dev/null
	done
}
cluster_stop() {
	cluster_kill
	for s in $SIDS; do
		if ps -e -o sid= | grep -qx " *$s"; then
			bad "session $s still has processes:"
			ps -e -o pid=,sid=,stat=,args= | awk -v s="$s" '$2 == s'
		else
			ok
		fi
	done
	SIDS=
}
cluster_start() {
	_dir=$1
	# shellcheck disable=SC2086 # PYENV: VAR=VALUE words
	setsid env $PYENV /usr/bin/python3 -m distributed.cli.dask_scheduler --host 127.0.0.1 \
		--port 0 --no-dashboard --dashboard-address 127.0.0.1:0 \
		--scheduler-file "$_dir/sched.json" >"$_dir/sched.log" 2>&1 &
	SIDS="$SIDS $!"
	i=0
	while [ ! -s "$_dir/sched.json" ] && [ $i -lt 300 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	if [ ! -s "$_dir/sched.json" ]; then
		echo "FAIL the scheduler did not start:"
		tail -5 "$_dir/sched.log"
		exit 1
	fi
	ADDR=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["address"])' \
		"$_dir/sched.json")
	for w in 1 2; do
		# shellcheck disable=SC2086 # PYENV
		setsid env $PYENV /usr/bin/python3 -m distributed.cli.dask_worker --host 127.0.0.1 \
			--no-nanny --nthreads 1 --no-dashboard --dashboard-address 127.0.0.1:0 \
			--name "w$w" --local-directory "$_dir/w$w" \
			--scheduler-file "$_dir/sched.json" >"$_dir/worker$w.log" 2>&1 &
		SIDS="$SIDS $!"
	done
	if ! timeout 120 /usr/bin/python3 -c 'import sys
from distributed import Client
with Client(sys.argv[1], timeout=60) as c:
    c.wait_for_workers(2, timeout=90)' "$ADDR" >"$_dir/wait.log" 2>&1; then
		echo "FAIL the workers did not join:"
		tail -5 "$_dir/wait.log" "$_dir/worker1.log" "$_dir/worker2.log"
		exit 1
	fi
}
