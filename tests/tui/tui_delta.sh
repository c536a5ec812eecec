#!/usr/bin/env bash
# tui_delta.sh - a knob's key says what it moved (tmux, 80x24): in the
# default workbench, key 1 (selective on) shows within 8 s the gathers' H2D
# bytes before and after and the ratio, replacing the "at the next epoch"
# message, with the effect the default setting is built for (NeuGraph §3.2:
# several times fewer bytes); key 2 (pipeline off) shows the hidden share
# falling, in points; `:set selective off` typed in the console gets its
# line too (the bytes back up), and the keys go back to the panels after
# it, so a q then quits instead of typing a q; Tab completes a knob's
# values after its name. The timeline has a time axis, and a frozen view
# says how far it is behind live. At 200x60 the training panel's spare rows
# plot loss, validation accuracy and epoch time against the epochs, a ^
# under the epoch a knob changed at, and key t plots them against the
# training time instead (time to accuracy). At 120x40 the console's
# reply wraps: `knobs` lists every knob, the last one included, and
# `:set batch-size 256` turns the streamed run into sampled training,
# where a streaming knob is refused with the reason.
# At 80x24 `?` wraps its key lines (every knob key shown); `help` names
# `source`, and a reply after `:source FILE` is not hidden
# behind the script's last `say` line.
source "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null || { echo "FAIL tmux is not installed"; exit 1; }
sock="gnnscope-delta-$$"
T() { tmux -L "$sock" "$@"; }
trap 'T kill-server 2>/dev/null' EXIT
screen() { T capture-pane -p -t w; }
wait_for() { # wait_for REGEX SECONDS
    for _ in $(seq $(($2 * 5))); do screen | grep -qE -- "$1" && return 0; sleep 0.2; done
    return 1
}
T new-session -d -s w -x 80 -y 24 "$BIN; sleep 60"
T new-session -d -s big -x 120 -y 40 "$BIN; sleep 60"
T new-session -d -s huge -x 200 -y 60 "$BIN; sleep 60"
wait_for "epoch +[2-9][0-9]* +loss" 30 || bad "no epochs on screen"
T send-keys -t w 1
if wait_for "^selective on: gather_h2d_bytes [0-9.]+ MB -> [0-9.]+ MB \([0-9.]+x\)" 8; then
    line=$(screen | grep -E "^selective on: gather_h2d_bytes")
    ratio=$(grep -oE "\([0-9.]+x\)" <<<"$line" | tr -d '()x')
    at_least "$ratio" 3 && ok "key 1 within 8 s: $line" || bad "selective moved the gathers' bytes only ${ratio}x: $line"
    screen | grep -q "at the next epoch" && bad "the pending message stayed after the change applied" ||
        ok "the pending message is gone once applied"
else
    bad "no delta line 8 s after key 1: $(screen | tail -2)"
fi
T send-keys -t w 2
wait_for "^pipeline off: hidden_frac [0-9.]+% -> [0-9.]+% \(-[0-9]+ points\)" 8 &&
    ok "key 2: $(screen | grep -E '^pipeline off')" || bad "no pipeline delta: $(screen | tail -2)"
T send-keys -t w ':' 'set selective off' Enter
wait_for "^selective off: gather_h2d_bytes [0-9.]+ MB -> [0-9.]+ MB \(0\.[0-9]+x\)" 8 &&
    ok "console set: $(screen | grep -E '^selective off')" || bad "no delta for a typed set: $(screen | tail -2)"
screen | grep -qE "^ time +\|-[0-9.]+ ms +\|-[0-9.]+ ms .*now\|$" && ok "the timeline has a time axis" || bad "no time axis: $(screen | sed -n 12p)"
T send-keys -t w Left
wait_for "\[frozen [0-9.]+ (ms|s) behind live\]" 5 && ok "a frozen timeline says how far it is from live" ||
    bad "frozen view: $(screen | sed -n 2p)"
T send-keys -t w f
T send-keys -t w '?'
wait_for "memplan +7 dkp +9 partitioner +\(apply at the next epoch\)" 5 && ok "at 80x24 the ? help wraps its key lines: every knob key shown" ||
    bad "? help cut at 80x24: $(screen | sed -n 5,7p)"
T send-keys -t w '?'
# help names source; after :source, later replies are not hidden behind the script's last say line
T send-keys -t w ':' 'help' Enter
wait_for "( |^)source( |$)" 5 && ok "help lists source" || bad "help lacks source: $(screen | tail -3)"
script=$(mktemp)
echo 'say "a line from the script"' >"$script"
T send-keys -t w ':' "source $script" Enter
wait_for "a line from the script" 5 || bad "the script's say line never showed"
T send-keys -t w ':' 'counter h2d_bytes' Enter
wait_for "^h2d_bytes \(B\): host-to-device bytes" 5 && ok "a reply after :source shows" ||
    bad "the reply after :source is hidden: $(screen | tail -3)"
rm -f "$script"
T send-keys -t w ':' 'set memp' Tab
sleep 0.5
T send-keys -t w 'ro' Tab
wait_for "^:set memplan roc" 5 && ok "Tab completes a knob's name and then its values" || bad "completion: $(screen | tail -2)"
T send-keys -t w Escape
T send-keys -t w q
wait_for "gnnscope: epoch [0-9]+, final loss" 20 && ok "q after a console command quits (focus back on the panels)" ||
    bad "q after a command did not quit: $(screen | tail -2)"
T send-keys -t big ':' 'knobs' Enter
for _ in $(seq 50); do T capture-pane -p -t big | grep -q "^knobs:" && break; sleep 0.2; done
T capture-pane -p -t big | tail -5 | tr '\n' ' ' | grep -qE "knobs: lr .* ring +overlap +queue +network" &&
    ok "knobs wraps over the console's rows at 120x40, the last knob shown" || bad "knobs cut: $(T capture-pane -p -t big | tail -5)"
for _ in $(seq 100); do T capture-pane -p -t huge | grep -qE "\* loss [0-9.]+\.\.[0-9.]+ +\+ val acc 0\.\.1 +# epoch time" && break; sleep 0.2; done
plot=$(T capture-pane -p -t huge)
grep -qE "\* loss [0-9.]+\.\.[0-9.]+ +\+ val acc 0\.\.1 +# epoch time" <<<"$plot" && [ "$(grep -o '\*' <<<"$plot" | wc -l)" -ge 5 ] &&
    ok "at 200x60 the training panel plots loss, accuracy and epoch time over the epochs" || bad "no plot at 200x60"
T send-keys -t huge ':' 'mark' Enter
T send-keys -t huge ':' 'set lr 0.05' Enter
for _ in $(seq 75); do T capture-pane -p -t huge | grep -q "\^ a knob changed" && break; sleep 0.2; done
T capture-pane -p -t huge | grep -q "\^ a knob changed" && T capture-pane -p -t huge | grep -qE "^ {20,}\^" &&
    ok "a knob's change is marked under the epoch it took effect at" || bad "no knob-change marker on the plot"
T send-keys -t huge ':' 'compare' Enter
for _ in $(seq 50); do T capture-pane -p -t huge | grep -q "vs mark (epoch" && break; sleep 0.2; done
T capture-pane -p -t huge | grep -qE "vs mark \(epoch [0-9]+\): knobs: lr 0.01 -> 0.05; [a-z_]+ " &&
    ok "mark, set lr, compare: the knob's change and the counters that moved since the mark" ||
    bad "compare: $(T capture-pane -p -t huge | grep -A2 Console)"
# t: the same plot against training time (time to accuracy), its axis in ms; t again: back to epochs
T send-keys -t huge t
for _ in $(seq 25); do T capture-pane -p -t huge | grep -qE "training time \(t: epochs\) [0-9.e+]+ ms +[0-9.e+]+ ms" && break; sleep 0.2; done
T capture-pane -p -t huge | grep -qE "training time \(t: epochs\) [0-9.e+]+ ms +[0-9.e+]+ ms" &&
    ok "t: the plot against training time ($(T capture-pane -p -t huge | grep -oE 'training time \(t: epochs\) [0-9.e+]+ ms +[0-9.e+]+ ms' | tr -s ' '))" ||
    bad "t: no time axis: $(T capture-pane -p -t huge | grep -oE "(training time|epoch) \(t: .*")"
T send-keys -t huge t
for _ in $(seq 25); do T capture-pane -p -t huge | grep -qE " epoch \(t: time\) [0-9]+ {2,}[0-9]+( |$)" && break; sleep 0.2; done
T capture-pane -p -t huge | grep -qE " epoch \(t: time\) [0-9]+ {2,}[0-9]+( |$)" && ok "t again: back to the epoch axis" || bad "t again: $(T capture-pane -p -t huge | tail -2)"
# sampled training is reachable from the default (streamed) workbench: the batch size leaves the devices
T send-keys -t big ':' 'set batch-size 256' Enter
for _ in $(seq 75); do T capture-pane -p -t big | head -1 | grep -q "sampled batches" && break; sleep 0.2; done
T capture-pane -p -t big | head -1 | grep -q "sampled batches" && T capture-pane -p -t big | grep -qE "^S sample" &&
    ok ":set batch-size 256 turns the streamed workbench into sampled training (its S lane on screen)" ||
    bad "set batch-size from the streamed workbench: $(T capture-pane -p -t big | head -1; T capture-pane -p -t big | tail -2)"
# a streaming knob in the sampled run: refused, saying why and what brings streaming back
T send-keys -t big ':' 'set selective on' Enter
for _ in $(seq 25); do T capture-pane -p -t big | grep -q "set selective: a streaming knob" && break; sleep 0.2; done
T capture-pane -p -t big | grep -q "set selective: a streaming knob, and this run trains sampled batches" &&
    ok "a streaming knob in a sampled run is refused with the reason" || bad "set selective when sampled: $(T capture-pane -p -t big | tail -3)"
finish
