#!/usr/bin/env bash
# tui_keys.sh - the workbench's default run shows every knob key's effect:
# in tmux (120x40), each key is pressed from the defaults, and within two
# epochs of the change taking effect the counter it is about must move by
# at least the factor below (measured on the virtual clock, roofline
# kernels, so the moves are the same on every host); then the key cycles
# the knob back to its default before the next one.
#   1 selective off -> on     gather h2d falls >= 3x
#   2 pipeline  on  -> off    hidden falls from >= 5% to < 1%
#   3 swap      on  -> off    swapped columns fall from > 0 to 0: profiled per layer, Cora's
#                             columns hold pairs of a copy-heavy and a compute-heavy sub-chunk
#                             of one chunk (against the column's copy-to-compute balance),
#                             the pairs NeuGraph's heuristic swaps
#                             (tests/unit/test_swap.c holds it to known best orders)
#   4 multidev  naive -> chain  uplink falls >= 1.2x, d2d rises >= 50x
#   5 order     metis -> none   gather h2d rises >= 1.5x
#   6 memplan   roc -> stream   kept falls from >= 1 MB to 0
#   7 dkp       off -> on       aggregation FLOPs fall >= 10x
source "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null || { echo "FAIL tmux is not installed"; exit 1; }
tmp=$(mktemp -d)
sock="gnnscope-keys-$$"
T() { tmux -L "$sock" "$@"; }
cleanup() { T kill-server 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
screen() { T capture-pane -p -t tui; }
epoch() { screen | head -1 | grep -oE "epoch [0-9]+" | awk '{print $2}'; }
# metric LABEL: the training panel's counter (columns 43-85 at 120x40) in base units (bytes, FLOP, fraction)
metric() {
    screen | $PY -c '
import re, sys
label = sys.argv[1]
text = "\n".join(l[43:86] for l in sys.stdin.read().splitlines())
m = re.search(r"(?:^| )" + re.escape(label) + r" ([0-9.]+) ?([KMGT]?)(B|FLOP|%)?(?= |$)", text, re.M)
if not m: sys.exit("no " + label)
v = float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)]
print(v / 100 if m.group(3) == "%" else v)' "$1"
}
knob() { screen | grep -oE "\]$1 +[a-z]+( +->)?" | awk '{print $2 $3}'; }
# settle KNOB VALUE: waits for VALUE in force (not pending), then two more epochs
settle() {
    local e0=""
    for _ in $(seq 300); do
        if [ "$(knob "$1")" = "$2" ]; then e0=$(epoch); break; fi
        sleep 0.1
    done
    [ -n "$e0" ] || { bad "$1 never became $2 (shows '$(knob "$1")')"; return 1; }
    for _ in $(seq 300); do [ "$(epoch)" -ge $((e0 + 2)) ] 2>/dev/null && return 0; sleep 0.1; done
    bad "no two epochs after $1 became $2"
    return 1
}
# check KEY KNOB FROM TO LABEL CMP: presses KEY (FROM -> TO) and compares LABEL's values with CMP (python on a, b)
check() {
    local key=$1 name=$2 from=$3 to=$4 label=$5 cmp=$6
    settle "$name" "$from" || return
    local a b
    a=$(metric "$label") || { bad "no '$label' on screen"; return; }
    T send-keys -t tui "$key"
    settle "$name" "$to" || return
    b=$(metric "$label") || { bad "no '$label' on screen"; return; }
    $PY -c "a, b = $a, $b; import sys; sys.exit(0 if ($cmp) else 1)" &&
        ok "key $key: $name $from -> $to moves $label $a -> $b" ||
        bad "key $key: $name $from -> $to: $label $a -> $b fails ($cmp)"
}
# back KEY KNOB VALUE: presses KEY until KNOB shows VALUE again
back() {
    local cur k
    for _ in 1 2 3; do
        cur=$(knob "$2")
        [ "$cur" = "$3" ] && break
        T send-keys -t tui "$1"
        for _ in $(seq 200); do # the next value in force
            k=$(knob "$2")
            [ "$k" != "$cur" ] && [[ "$k" != *"->" ]] && break
            sleep 0.1
        done
    done
    settle "$2" "$3"
}
T new-session -d -s tui -x 120 -y 40 "$BIN; echo EXIT=\$? > $tmp/exit; sleep 30"
for _ in $(seq 300); do [ "$(epoch)" -ge 3 ] 2>/dev/null && break; sleep 0.1; done
[ "$(epoch)" -ge 3 ] 2>/dev/null && ok "the default run trains" || bad "no epochs on screen"
check 1 selective off on "gather h2d" "a >= 3 * b"
back 1 selective off
check 2 pipeline on off hidden "a >= 0.05 and b < 0.01"
back 2 pipeline on
check 3 swap on off "swapped cols" "a > 0 and b == 0"
back 3 swap on
check 4 multidev naive chain uplink "a >= 1.2 * b"
check 4 multidev chain ring d2d "b > 0" # ring passes blocks too
back 4 multidev naive
check 4 multidev naive chain d2d "b >= 50 * a"
back 4 multidev naive
check 5 order metis none "gather h2d" "b >= 1.5 * a"
back 5 order metis
check 6 memplan roc stream kept "a >= 1e6 and b == 0"
back 6 memplan roc
check 7 dkp off on agg "a >= 10 * b"
back 7 dkp off
T send-keys -t tui q
for _ in $(seq 100); do [ -f "$tmp/exit" ] && break; sleep 0.2; done
[ "$(cat "$tmp/exit" 2>/dev/null)" = EXIT=0 ] && ok "q exits with status 0" || bad "exit: $(cat "$tmp/exit" 2>/dev/null)"
finish
