#!/usr/bin/env bash
# remote_hostile.sh - the remote protocol against hostile peers
# (hostile_peer.py):
#   a fake run that answers attach's first snapshot with random bytes, all
#     'A', all 0xff, half a snapshot, a 64 MiB length prefix or 5 bytes of
#     a header: attach exits 2 with one line naming the socket, within 15 s;
#   a fake run that turns hostile after five good snapshots, with the
#     workbench on a real terminal (tmux): exit 2, one line, the terminal's
#     modes as they were;
#   a served run with clients holding half a frame, claiming 64 MiB,
#     idling without a hello (more of them than it keeps waiting), and one
#     attached then stalled mid-frame: attach is refused at once while the
#     stalled one holds the run, attaches once it is dropped (within 10 s),
#     and SIGTERM ends the run within 5 s with exit 143, clients still
#     connected.
# run-under: tsan
source "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null || { echo "FAIL tmux is not installed"; exit 1; }
tmp=$(mktemp -d)
sock="gnnscope-remote-$$"
peer="$(dirname "$0")/hostile_peer.py"
T() { tmux -L "$sock" "$@"; }
cleanup() { T kill-server 2>/dev/null; pkill -f "$tmp/" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
export GNNSCOPE_CACHE_DIR=${GNNSCOPE_CACHE_DIR:-$tmp/cache}
real="$tmp/real.sock"
"$BIN" tui --serve "$real" --epochs 1000000 >"$tmp/serve.out" 2>&1 &
server=$!
for _ in $(seq 300); do [ -S "$real" ] && break; sleep 0.1; done
[ -S "$real" ] || { bad "the served run made no socket: $(cat "$tmp/serve.out")"; finish; }

# hostile first snapshots: refused before the screen is taken
for how in random A ff truncated oversize stall; do
    fake="$tmp/fake-$how.sock"
    $PY "$peer" server "$fake" "$real" "$how" 0 &
    for _ in $(seq 50); do [ -S "$fake" ] && break; sleep 0.1; done
    t0=$SECONDS
    timeout 30 "$BIN" attach "$fake" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    took=$((SECONDS - t0))
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^gnnscope: error: $fake: the run broke the protocol" "$tmp/err" \
        && [ "$took" -le 15 ] && ok "a $how first snapshot: exit 2 in ${took} s: $(cat "$tmp/err")" \
        || bad "a $how first snapshot: exit $rc after ${took} s: $(cat "$tmp/err")"
    pkill -f "$peer server $fake" 2>/dev/null
done

# turning hostile mid-session, on a real terminal
fake="$tmp/fake-late.sock"
$PY "$peer" server "$fake" "$real" A 5 &
for _ in $(seq 50); do [ -S "$fake" ] && break; sleep 0.1; done
T kill-server 2>/dev/null
T new-session -d -s tui -x 100 -y 30 "stty -g >$tmp/modes0; $BIN attach $fake 2>$tmp/late.err; rc=\$?; stty -g >$tmp/modes1; echo \$rc >$tmp/late.rc; sleep 60"
for _ in $(seq 150); do [ -s "$tmp/late.rc" ] && break; sleep 0.2; done
[ "$(cat "$tmp/late.rc" 2>/dev/null)" = 2 ] && [ "$(wc -l <"$tmp/late.err")" -eq 1 ] && grep -q "broke the protocol: a malformed snapshot" "$tmp/late.err" \
    && ok "a run turning hostile mid-session: exit 2, one line: $(cat "$tmp/late.err")" \
    || bad "a run turning hostile mid-session: exit $(cat "$tmp/late.rc" 2>/dev/null), $(cat "$tmp/late.err")"
cmp -s "$tmp/modes0" "$tmp/modes1" && ok "the terminal's modes are restored" || bad "terminal modes: $(cat "$tmp/modes0") -> $(cat "$tmp/modes1")"
T kill-server 2>/dev/null

# hostile clients of a real run
$PY "$peer" client "$real" half 60 &
$PY "$peer" client "$real" huge 60 &
for _ in $(seq 10); do $PY "$peer" client "$real" idle 60 & done
$PY "$peer" client "$real" hello-half 60 &
sleep 1
t0=$SECONDS
timeout 15 "$BIN" attach "$real" 2>"$tmp/err1"
rc=$?
[ "$rc" -eq 2 ] && grep -q "another workbench is attached" "$tmp/err1" && [ $((SECONDS - t0)) -le 2 ] \
    && ok "while a client stalled mid-frame holds the run, attach is refused at once" || bad "attach beside a stalled client: exit $rc, $(cat "$tmp/err1")"
for _ in $(seq 8); do T has-session 2>/dev/null || break; sleep 0.2; done
T new-session -d -s tui -x 100 -y 30 "sleep 5; $BIN attach $real; sleep 60"
attached=0
for _ in $(seq 75); do T capture-pane -p -t tui | grep -q "gnnscope .* epoch" && attached=1 && break; sleep 0.2; done
[ "$attached" -eq 1 ] && ok "the stalled client is dropped: attach shows the run within 10 s" || bad "attach after the stall: $(T capture-pane -p -t tui | head -3)"
T kill-server 2>/dev/null
t0=$SECONDS
kill -TERM "$server"
for _ in $(seq 60); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
wait "$server"
rc=$?
[ "$rc" -eq 143 ] && [ $((SECONDS - t0)) -le 5 ] && [ ! -e "$real" ] \
    && ok "SIGTERM ends the served run within 5 s (exit 143, socket removed), hostile clients still connected" \
    || bad "SIGTERM: exit $rc after $((SECONDS - t0)) s, socket $(ls "$real" 2>&1)"
finish
