#!/usr/bin/env bash
# tui_hostile.sh - the workbench under hostile console input and a hang-up,
# in a real terminal (tmux, 120x40): loading a missing dataset, a link
# scale that could never finish, a model too big for memory and a script
# that is a device are each refused with the reason on screen while the
# run goes on unchanged; SIGHUP (the terminal closing) then ends it with
# exit 129, the terminal restored and the trace complete. Ctrl-S does not
# freeze the screen, a 10 KB paste does not delay q, and a terminal that
# vanishes without a SIGHUP ends the workbench (129) instead of spinning.
source "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null || { echo "FAIL tmux is not installed"; exit 1; }
tmp=$(mktemp -d)
sock="gnnscope-hostile-$$"
T() { tmux -L "$sock" "$@"; }
cleanup() { T kill-server 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
screen() { T capture-pane -p -t tui; }
epoch() { screen | head -1 | grep -oE "epoch [0-9]+" | awk '{print $2}'; }
wait_for() { # wait_for REGEX: up to 30 s for the screen to match
    for _ in $(seq 150); do screen | grep -qE -- "$1" && return 0; sleep 0.2; done
    return 1
}
# goes_on: the epoch count grows and the title still names gcn on cora
goes_on() {
    local e0 e1
    e0=$(epoch)
    for _ in $(seq 100); do
        e1=$(epoch)
        [ -n "$e1" ] && [ "$e1" -gt "$((e0 + 1))" ] && break
        sleep 0.1
    done
    [ -n "$e1" ] && [ "$e1" -gt "$((e0 + 1))" ] && screen | head -1 | grep -q "cora / gcn" && ! screen | head -1 | grep -q ERROR
}
T new-session -d -s tui -x 120 -y 40 "$BIN --trace $tmp/t.json; echo EXIT=\$? > $tmp/exit; sleep 60"
wait_for "epoch [3-9]" || bad "no epochs on screen"
cmd() { T send-keys -t tui ':' && T send-keys -t tui "$1" Enter && T send-keys -t tui Escape; }
cmd "load /nonexistent/graph"
wait_for "/nonexistent/graph not opened, the run goes on" && goes_on &&
    ok ":load of a missing dataset: refused at the boundary, the run goes on" || bad ":load /nonexistent"
cmd "set link-scale 1e-320"
wait_for "link-scale: '1e-320' is out of range" && goes_on && ! screen | grep -q "link-scale.*->" &&
    ok ":set link-scale 1e-320: refused when typed, nothing pending, the run goes on" || bad ":set link-scale 1e-320"
cmd "source /dev/zero"
wait_for "/dev/zero: not a regular file" && goes_on && ok ":source /dev/zero: refused" || bad ":source /dev/zero"
cmd "model gcn hidden 65536 layers 64"
wait_for "would need [0-9.]+ GiB" && goes_on && ok ":model too big for memory: refused with the estimate, the run goes on" ||
    bad ":model gcn hidden 65536 layers 64"
pid=$(pgrep -P "$(T list-panes -t tui -F '#{pane_pid}')" -f gnnscope | head -1)
[ -n "$pid" ] && kill -HUP "$pid"
for _ in $(seq 100); do [ -f "$tmp/exit" ] && break; sleep 0.2; done
[ "$(cat "$tmp/exit" 2>/dev/null)" = EXIT=129 ] && ok "SIGHUP ends the workbench with exit 129" ||
    bad "SIGHUP: $(cat "$tmp/exit" 2>/dev/null)"
screen | grep -q "gnnscope: epoch [0-9]*, final loss" && ok "terminal restored after SIGHUP" || bad "terminal not restored"
$PY -c "import json, sys; json.load(open(sys.argv[1]))" "$tmp/t.json" && ! ls "$tmp"/t.json.tmp.* >/dev/null 2>&1 &&
    ok "the trace is complete, no temporary file left" || bad "trace after SIGHUP: $(ls "$tmp")"

# q_within SECONDS: after q, the workbench exits within SECONDS
q_within() {
    local t0 t1
    t0=$(date +%s.%N)
    T send-keys -t tui q
    for _ in $(seq 100); do [ -f "$tmp/exit" ] && break; sleep 0.05; done
    t1=$(date +%s.%N)
    [ -f "$tmp/exit" ] && $PY -c "import sys; sys.exit(0 if $t1 - $t0 <= $1 else 1)"
}
for case in ctrl-s paste; do
    T kill-session -t tui 2>/dev/null
    rm -f "$tmp/exit"
    T new-session -d -s tui -x 120 -y 40 "$BIN; echo EXIT=\$? > $tmp/exit; sleep 30"
    wait_for "epoch [1-9]" || bad "$case: no epochs on screen"
    if [ "$case" = ctrl-s ]; then T send-keys -t tui C-s; else T send-keys -t tui -l "$(head -c 10240 /dev/zero | tr '\0' x)"; fi
    q_within 2 && ok "$case, then q: the workbench exits within 2 s" || bad "$case, then q: no exit within 2 s"
done
# a terminal that vanishes without a SIGHUP (not the controlling terminal): reads return nothing; the workbench ends
$PY - "$BIN" <<'PYEOF' && ok "a terminal gone without SIGHUP ends the workbench with 129 within 5 s" || bad "vanished terminal"
import os, select, subprocess, sys, time
master, slave = os.openpty()
env = dict(os.environ, TERM="xterm")
p = subprocess.Popen([sys.argv[1]], stdin=slave, stdout=slave, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
os.close(slave)
seen, t0 = b"", time.time()
while b"epoch" not in seen and time.time() - t0 < 30:
    if select.select([master], [], [], 0.5)[0]:
        try:
            seen += os.read(master, 65536)
        except OSError:
            break
os.close(master)
try:
    rc = p.wait(timeout=5)
except subprocess.TimeoutExpired:
    p.kill()
    sys.exit("still running 5 s after its terminal vanished")
sys.exit(0 if rc == 129 else "exit %d" % rc)
PYEOF
finish
