#!/usr/bin/env bash
# tui_demo_pace.sh - a demo in a terminal goes at the class's pace (tmux,
# 80x24): `gnnscope demo selective` holds at its first say with training
# paused and "step 1 of 3" on screen, is still before its switch 6 s
# later, moves one step per space, and shows its effect line after the
# last, with the timeline marked as the before beside the live one and the
# demo's metric then, now and its change in their titles; with --pace
# auto=1 it runs through unattended; a bad --pace or
# `wait seconds` is one line and exit 2. `gnnscope demo` lists each demo with what it shows.
source "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null || { echo "FAIL tmux is not installed"; exit 1; }
sock="gnnscope-pace-$$"
T() { tmux -L "$sock" "$@"; }
trap 'T kill-server 2>/dev/null' EXIT
screen() { T capture-pane -p -t "$1"; }
wait_for() { # wait_for SESSION REGEX: up to 60 s for the screen to match
    for _ in $(seq 300); do screen "$1" | grep -qE -- "$2" && return 0; sleep 0.2; done
    return 1
}
T new-session -d -s key -x 80 -y 24 "$BIN demo selective; sleep 60"
T new-session -d -s auto -x 80 -y 24 "$BIN demo selective --pace auto=1; sleep 60"
wait_for key "step 1 of 3, space: go on" && ok "the demo holds at its first say, its step on screen" ||
    bad "no step 1 of 3: $(screen key | tail -2)"
epoch() { screen key | grep -oE "epoch +[0-9]+ +loss" | grep -oE "[0-9]+"; } # the Training panel's epoch
sleep 1.5 # the epoch in flight when the say came finishes; the pause holds at its boundary
e0=$(epoch)
sleep 5
s=$(screen key)
grep -q "step 1 of 3" <<<"$s" && grep -qE "selective +off" <<<"$s" && [ -n "$e0" ] && [ "$(epoch)" = "$e0" ] &&
    ok "6 s later it is still before its switch, training paused at epoch $e0" || bad "not held 6 s later (epoch $e0): $s"
T send-keys -t key ' '
wait_for key "step 2 of 3" && ok "space: step 2 (the before, held)" || bad "space did not reach step 2"
sleep 1.5 # the epoch in flight when the say came finishes; the pause holds at its boundary
e2=$(epoch)
sleep 2
[ "$(epoch)" = "$e2" ] && ok "the before stays on screen: training paused at epoch $e2" || bad "step 2 not paused ($e2 -> $(epoch))"
T send-keys -t key ' '
wait_for key "step 3 of 3" && grep -qE "selective +on" <<<"$(screen key)" && ok "space: step 3, selective on" ||
    bad "no step 3 with selective on: $(screen key | tail -3)"
T send-keys -t key ' '
wait_for key ">> effect: gather_h2d_bytes before .* after .* \([0-9.]+x\)" && ok "the last space shows the effect line" ||
    bad "no effect line: $(screen key | tail -2)"
wait_for auto ">> effect: gather_h2d_bytes" && ok "--pace auto=1 runs through unattended" || bad "auto pace: $(screen auto | tail -2)"
# the before and the after side by side: the timeline marked on the left with the metric then, the live one
# on the right with the metric now and the change, both on screen at 80x24 with their lanes
title=$(screen auto | sed -n 2p)
grep -qE "^ Before \(epoch [0-9]+\): gather h2d [0-9.]+ MB +Now: gather h2d [0-9.]+ MB \([0-9.]+x\)" <<<"$title" &&
    [ "$(screen auto | grep -cE '^d0 H2D .*d0 H2D ')" = 1 ] && ok "before and after side by side:$title" || bad "no before/after: $(screen auto | head -4)"
expect_fail 2 "--pace" -- "$BIN" demo selective --pace sometimes
bad_gs=$(mktemp --suffix=.gs)
printf 'say "hi"\nwait seconds 0\n' >"$bad_gs"
expect_fail 2 "$(basename "$bad_gs"):2: wait seconds S: S in (0, 3600]" -- "$BIN" --script "$bad_gs" --max-epochs 1
rm -f "$bad_gs"
"$BIN" demo | grep -qE "^  selective +NeuGraph §3.2: selective scheduling" && ok "gnnscope demo describes each demo" ||
    bad "demo list: $("$BIN" demo)"
finish
