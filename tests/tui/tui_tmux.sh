#!/usr/bin/env bash
# tui_tmux.sh - the workbench in a real terminal (tmux, 120x40): the
# timeline, utilisation, knobs and training panels appear with lanes for
# each device; selective scheduling toggles by its key and by the console;
# the change shows in the epoch counters; at 80x24 every panel is still
# there; q exits 0 and the shell gets its terminal back; a trace written
# during the run holds spans on the H2D, compute and D2H lanes of every
# device plus counters; a sampled run gets a lane per preprocessing stage;
# a damaged dataset cache's warning shows on the message line; --epochs
# pauses the workbench there (and ends a headless script's run there).
# Without a terminal, gnnscope points to train.
# run-under: tsan
source "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null || { echo "FAIL tmux is not installed"; exit 1; }
tmp=$(mktemp -d)
sock="gnnscope-test-$$"
T() { tmux -L "$sock" "$@"; }
cleanup() { T kill-server 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
screen() { T capture-pane -p -t tui; }
reopen() { # reopen CMD: session tui runs CMD; the new one opens first, so the server never runs out of sessions and exits
    T new-session -d -s next -x 120 -y 40 "$1"
    T kill-session -t tui
    T rename-session -t next tui
}
wait_for() { # wait_for REGEX: up to 20 s for the screen to match
    for _ in $(seq 100); do screen | grep -qE -- "$1" && return 0; sleep 0.2; done
    return 1
}
T new-session -d -s tui -x 120 -y 40 "$BIN --trace $tmp/tui.json; echo EXIT=\$? > $tmp/exit; sleep 30"
wait_for "epoch [1-9]" && ok "training runs in the workbench" || bad "no epochs on screen"
screen_shows "at 120x40" Timeline Utilisation Knobs Training Console "d0 H2D" "d0 COMPUTE" "d1 D2H" "host cpu" \
    && ok "panels and per-device lanes at 120x40"
before=$(screen | grep -oE "selective +[a-z]+" | awk '{print $2}')
T send-keys -t tui 1
wait_for "selective +on( |$)" && [ "$before" = off ] && ok "key 1 toggles selective (was $before)" \
    || bad "key 1 did not toggle selective (was $before)"
T send-keys -t tui ':'
T send-keys -t tui 'set selective on' Enter
wait_for "selective +on" && ok "console 'set selective on' shows in the knobs panel" || bad "console set"
# epochs_pass N: up to 60 s for N more epochs to finish (a sanitizer build is slow; a fixed sleep raced it)
epochs_pass() {
    local e0 e
    e0=$(screen | grep -oE "epoch [0-9]+" | head -1 | awk '{print $2}')
    for _ in $(seq 300); do
        e=$(screen | grep -oE "epoch [0-9]+" | head -1 | awk '{print $2}')
        [ "${e:-0}" -ge $((${e0:-0} + $1)) ] && return 0
        sleep 0.2
    done
    return 1
}
epochs_pass 2
on_bytes=$(screen | grep -oE "(^| )h2d [0-9.]+ MB( |$)" | head -1 | awk '{print $2}')
T send-keys -t tui ':' 'set selective off' Enter
wait_for "selective +off" || bad "console set off"
epochs_pass 2
off_bytes=$(screen | grep -oE "(^| )h2d [0-9.]+ MB( |$)" | head -1 | awk '{print $2}')
$PY -c "import sys; sys.exit(0 if float('$off_bytes') > float('$on_bytes') else 1)" \
    && ok "epoch counters follow: h2d $on_bytes MB filtered, $off_bytes MB unfiltered" \
    || bad "h2d bytes did not change: on $on_bytes, off $off_bytes"
T send-keys -t tui ':' 'set chunks zero' Enter
wait_for "set chunks: 'zero' is not an integer" && ok "a bad value is refused in the console" || bad "bad value message"
T send-keys -t tui Escape
T resize-window -t tui -x 80 -y 24
screen_shows "at 80x24" Timeline Utilisation Knobs Training Console "d0 H2D" && ok "every panel readable at 80x24"
T send-keys -t tui q
for _ in $(seq 100); do [ -f "$tmp/exit" ] && break; sleep 0.2; done
[ "$(cat "$tmp/exit" 2>/dev/null)" = EXIT=0 ] && ok "q exits with status 0" || bad "exit: $(cat "$tmp/exit" 2>/dev/null)"
screen | grep -q "gnnscope: epoch [0-9]*, final loss" && ok "terminal restored (the summary prints on the normal screen)" \
    || bad "terminal not restored"
$PY - "$tmp/tui.json" <<'PYEOF' && ok "trace from the TUI run: X spans on H2D, COMPUTE, D2H of both devices, counters" || bad "TUI trace"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
for pid in (1, 2):
    lanes = {names[(e["pid"], e["tid"])] for e in ev if e["ph"] == "X" and e["pid"] == pid}
    assert {"H2D", "COMPUTE", "D2H"} <= lanes, (pid, lanes)
assert any(e["ph"] == "C" for e in ev)
PYEOF
# a sampled run: a lane per preprocessing stage on the host, then the batch copies and the steps on device 0
reopen "$BIN tui --batch-size 64 --fanout 10,5; sleep 30"
wait_for "epoch [1-9]" || bad "sampled run: no epochs on screen"
screen_shows "in a sampled run" "sampled batches" "S sample +.*[0-9s]" "R reindex +.*[0-9s]" "K lookup +.*[0-9s]" \
    "T copy +.*[0-9s]" "d0 step +.*[0-9=o-]" "host prep S +[0-9]+% R" "s preprocessing" \
    "chunks +24 \(idle\)" "fanout +10,5 *$" "topology +pcie-4gpu-2switch *$" \
    && ok "sampled run: S, R, K, T and step lanes with spans, the host's preprocessing busy; streaming knobs marked idle"
T send-keys -t tui q
# a damaged dataset cache: the workbench rebuilds it and says so on its message line
mkdir -p "$tmp/cache"
GNNSCOPE_CACHE_DIR="$tmp/cache" "$BIN" train --epochs 1 --quiet 2>/dev/null
cache=$(find "$tmp/cache" -type f | head -1)
[ -n "$cache" ] && printf 'damage' | dd of="$cache" bs=1 seek=$(($(stat -c %s "$cache") / 2)) conv=notrunc status=none
reopen "GNNSCOPE_CACHE_DIR=$tmp/cache $BIN; sleep 30"
screen_shows "after a damaged cache" "warning: damaged dataset cache" && ok "the damaged cache's warning is on the message line"
T send-keys -t tui q
# --epochs: the workbench pauses there in a terminal, and a headless script's run ends there
reopen "$BIN --epochs 2; sleep 30"
wait_for "epoch 2 +PAUSED" && sleep 2 && screen | grep -qE "epoch 2 +PAUSED" && ok "--epochs 2: the workbench pauses at epoch 2" \
    || bad "--epochs 2 in the workbench: $(screen | head -1)"
T send-keys -t tui q
printf 'wait epochs 10\n' >"$tmp/long.gs"
got=$("$BIN" --epochs 3 --script "$tmp/long.gs" 2>&1 | grep -cE "^epoch +[0-9]+ ")
[ "$got" = 3 ] && ok "--epochs 3 --script: the headless run ends at epoch 3" || bad "--epochs 3 --script ran $got epochs"
expect_fail 2 "gnnscope train" -- "$BIN" --max-epochs 1
finish
