#!/usr/bin/env bash
# tui_lanes.sh - a timeline with more lanes than the screen holds, and its
# cursor (tmux). At 80x24 with 4 devices (17 lanes) the title says which
# lanes are shown ("lanes 1-9 of 17"), PgDn brings d3's lanes on screen
# and PgUp takes them away again; at 200x60 every lane fits and no such
# note is shown. Down puts a cursor on a lane: the title describes the
# span under it with its whole chunk id (row, column and sub-chunk, which
# a cell's one digit cannot show), a ^ marks its column on the time axis,
# and Esc removes it. A page is judged on one capture (a redraw caught
# halfway shows lanes of both pages).
source "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null || { echo "FAIL tmux is not installed"; exit 1; }
sock="gnnscope-lanes-$$"
T() { tmux -L "$sock" "$@"; }
trap 'T kill-server 2>/dev/null' EXIT
screen() { T capture-pane -p -t "$1"; }
wait_for() { # wait_for SESSION REGEX SECONDS
    for _ in $(seq $(($3 * 5))); do screen "$1" | grep -qE -- "$2" && return 0; sleep 0.2; done
    return 1
}
wait_for_only() { # wait_for_only SESSION REGEX ABSENT-REGEX SECONDS: one capture with the first and without the second
    local shot
    for _ in $(seq $(($4 * 5))); do
        shot=$(screen "$1")
        grep -qE -- "$2" <<<"$shot" && ! grep -qE -- "$3" <<<"$shot" && return 0
        sleep 0.2
    done
    return 1
}
T new-session -d -s w -x 80 -y 24 "$BIN --devices 4; sleep 60"
T new-session -d -s huge -x 200 -y 60 "$BIN --devices 4; sleep 60"
wait_for w "epoch +[2-9][0-9]* +loss" 60 || bad "no epochs on screen: $(screen w | tail -8)"
wait_for w "^d1 COMPUTE.*[=-]" 10 || bad "no device spans on screen: $(screen w | head -12)"
wait_for w "Timeline \[lanes 1-[0-9]+ of 17, PgUp/PgDn\]" 5 && ! screen w | grep -q "^d3 " &&
    ok "80x24, 4 devices: $(screen w | grep -oE "lanes 1-[0-9]+ of 17"), d3 off screen" || bad "no lane note at 80x24: $(screen w | sed -n 2p)"
T send-keys -t w NPage
wait_for_only w "^d3 COMPUTE" "^host cpu  " 10 && screen w | grep -qE "lanes [0-9]+-17 of 17" &&
    ok "PgDn: d3's lanes on screen ($(screen w | grep -oE "lanes [0-9]+-17 of 17"))" || bad "PgDn: $(screen w | head -12)"
T send-keys -t w PPage
wait_for_only w "^host cpu  " "^d3 " 5 && ok "PgUp: back to the first lanes" || bad "PgUp: $(screen w | head -4)"
wait_for huge "^d3 D2D" 10 && ! screen huge | grep -q "lanes [0-9]" && ok "200x60: every lane fits, no lane note" ||
    bad "200x60: $(screen huge | head -3)"
T send-keys -t w Down Down Down
if wait_for w "^ \^ d0 COMPUTE: (FWD|BWD) L[0-9] [a-z_]+, chunk row [0-9]+ col [0-9]+ sub [0-9]+, [0-9.]+ ms" 5; then
    ok "cursor on d0 COMPUTE: $(screen w | sed -n 2p | cut -c4-)"
else
    bad "no span under the cursor: $(screen w | sed -n 2p)"
fi
screen w | grep -E "^ time " | grep -q "\^" && ok "the cursor's column is marked on the time axis" || bad "no ^ on the axis"
T send-keys -t w Escape
wait_for w "^ Timeline" 5 && ok "Esc: the cursor is gone, the title back" || bad "Esc: $(screen w | sed -n 2p)"
T send-keys -t w q
finish
