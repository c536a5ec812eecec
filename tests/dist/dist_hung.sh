#!/usr/bin/env bash
# dist_hung.sh - a rank that stops answering (kill -STOP) never leaves a
# job running:
#   SIGINT, then SIGINT again, to the launcher: the whole job ends within
#     30 s, exit 130, no process left behind;
#   one SIGTERM: within 10 s, exit 143, nothing left;
#   no signal at all, --rank-timeout 5: the job ends by itself within 20 s
#     with one line naming the stopped rank, exit 1, nothing left.
source "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; pkill -KILL -f "seed 710[123]" 2>/dev/null' EXIT
if ! command -v mpirun >/dev/null; then
    echo "skip: mpirun is not installed"
    finish
fi
export GNNSCOPE_CACHE_DIR=${GNNSCOPE_CACHE_DIR:-$tmp/cache}

# start TAG [FLAGS...]: a 3-rank job in the background (its launcher's pid in $launcher), once every rank runs
start() {
    local tag=$1
    shift
    ("$BIN" train --ranks 3 --epochs 1000000 --quiet "$@" --seed "$tag" \
        >"$tmp/$tag.out" 2>"$tmp/$tag.err" &
     echo $! >"$tmp/$tag.pid"; wait $!; echo $? >"$tmp/$tag.rc") &
    for _ in $(seq 100); do [ "$(pgrep -f "train --dist.*--seed $tag" | wc -l)" -ge 3 ] && break; sleep 0.1; done
    sleep 2
    launcher=$(cat "$tmp/$tag.pid")
}
# stop_rank TAG R: kill -STOP the rank R of job TAG
stop_rank() {
    for p in $(pgrep -f "train --dist.*--seed $1"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" && kill -STOP "$p" && return 0
    done
    return 1
}
# ended TAG SECONDS: waits that long for job TAG's exit code; prints how long it took
ended() {
    local t0=$SECONDS
    for _ in $(seq $(($2 * 10))); do [ -s "$tmp/$1.rc" ] && break; sleep 0.1; done
    echo $((SECONDS - t0))
}
left() { pgrep -f "seed $1" | wc -l; }

start 7101
stop_rank 7101 2 || bad "no rank 2 to stop"
kill -INT "$launcher"
sleep 1
kill -INT "$launcher"
took=$(ended 7101 30)
[ "$(cat "$tmp/7101.rc" 2>/dev/null)" = 130 ] && [ "$(left 7101)" -eq 0 ] \
    && ok "a stopped rank, then SIGINT twice: the job ends in ${took} s, exit 130, nothing left" \
    || bad "stopped rank + SIGINT twice: exit $(cat "$tmp/7101.rc" 2>/dev/null) after ${took} s, $(left 7101) left: $(cat "$tmp/7101.err")"

start 7102
stop_rank 7102 1 || bad "no rank 1 to stop"
kill -TERM "$launcher"
took=$(ended 7102 10)
[ "$(cat "$tmp/7102.rc" 2>/dev/null)" = 143 ] && [ "$(left 7102)" -eq 0 ] \
    && ok "a stopped rank, then one SIGTERM: the job ends in ${took} s, exit 143, nothing left" \
    || bad "stopped rank + SIGTERM: exit $(cat "$tmp/7102.rc" 2>/dev/null) after ${took} s, $(left 7102) left: $(cat "$tmp/7102.err")"

start 7103 --rank-timeout 5
stop_rank 7103 2 || bad "no rank 2 to stop"
took=$(ended 7103 20)
[ "$(cat "$tmp/7103.rc" 2>/dev/null)" = 1 ] && [ "$(left 7103)" -eq 0 ] && [ "$(wc -l <"$tmp/7103.err")" -eq 1 ] \
    && grep -qE "^gnnscope: error: rank [01]: .*rank 2[^0-9].* in 5 s \(--rank-timeout\)" "$tmp/7103.err" \
    && ok "a stopped rank alone: the job ends in ${took} s naming it: $(cat "$tmp/7103.err")" \
    || bad "stopped rank, --rank-timeout 5: exit $(cat "$tmp/7103.rc" 2>/dev/null) after ${took} s, $(left 7103) left: $(cat "$tmp/7103.err")"
expect_fail 2 "--rank-timeout: '0' is out of range" -- "$BIN" train --ranks 2 --rank-timeout 0 --epochs 1
finish
