#!/usr/bin/env bash
# tui_attach.sh - the workbench on a distributed run and on a served one,
# in a real terminal (tmux):
#   gnnscope --ranks 3 on a terminal: the title names the ranks and the
#     network, the timeline has a compute, send and receive lane per rank,
#     the utilisation panel each rank's busy share and network rates, the
#     training panel the exchange counters; `:set dep comm` is applied at
#     the next epoch on every rank and the network bytes grow; key 8
#     cycles dep; under hybrid, `:set dep-ratio 0` then `1` moves the
#     network bytes (everything communicated, then everything cached); a streaming knob is refused with the reason; q ends the
#     job: exit 0, the summary, no rank and no socket left behind;
#   Ctrl-C in that workbench: exit 130, no rank left;
#   gnnscope tui --serve PATH (no terminal) and gnnscope attach PATH: q
#     detaches and the run goes on, a second attach while one is there is
#     refused, :quit ends the run (exit 0, the socket removed);
#   bad input: attach to nothing, to a file, without PATH; --serve on a
#     file or with --script: one line each, exit 2.
# run-under: tsan
source "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null || { echo "FAIL tmux is not installed"; exit 1; }
tmp=$(mktemp -d)
sock="gnnscope-attach-$$"
T() { tmux -L "$sock" "$@"; }
cleanup() { T kill-server 2>/dev/null; pkill -f "$tmp/" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
export GNNSCOPE_CACHE_DIR=${GNNSCOPE_CACHE_DIR:-$tmp/cache}
export TMPDIR=$tmp # the launcher's socket goes here
screen() { T capture-pane -p -t tui; }
# fresh W H CMD: a new W x H pane running CMD, once the previous tmux server is gone
# (kill-server returns before it has exited; a new session can race it)
fresh() {
    T kill-server 2>/dev/null
    for _ in $(seq 50); do T has-session 2>/dev/null || break; sleep 0.1; done
    for _ in $(seq 5); do T new-session -d -s tui -x "$1" -y "$2" "$3" 2>/dev/null && return 0; sleep 0.5; done
    bad "tmux would not start a session"
}
wait_for() { # wait_for REGEX [TRIES]: up to TRIES/5 s (default 30 s) for the screen to match
    for _ in $(seq "${2:-150}"); do screen | grep -qE -- "$1" && return 0; sleep 0.2; done
    return 1
}
wait_exit() { for _ in $(seq 150); do [ -s "$tmp/exit" ] && return 0; sleep 0.2; done; return 1; }
counter() { screen | grep -oE "(^| )$1 [0-9.]+ [kMG]?B( |$)" | head -1 | awk '{print $2}'; }
# epoch_now: the epoch in the title
epoch_now() { screen | grep -oE " epoch [0-9]+" | head -1 | awk '{print $2}'; }
# net_after KNOB VALUE: sets KNOB from the console, waits until it is in force and two more epochs
# have run (a loaded machine can take seconds an epoch), prints the net counter
net_after() {
    T send-keys -t tui ':' "set $1 $2" Enter
    wait_for "$1 +$2( |$)" || bad "$1 $2 never applied"
    local e
    e=$(epoch_now)
    for _ in $(seq 150); do [ "$(epoch_now)" -ge $((${e:-0} + 2)) ] 2>/dev/null && break; sleep 0.2; done
    counter net
}
# more_net HIGH LOW: HIGH is over ten times LOW (the network bytes of an epoch moved)
more_net() { $PY -c "import sys; sys.exit(0 if float('${1:-0}') > 10 * float('${2:-1}') + 0.1 else 1)"; }
ranks_left() { pgrep -f "gnnscope tui --dist" | wc -l; }

if ! command -v mpirun >/dev/null; then
    echo "skip: mpirun is not installed (the distributed workbench needs Open MPI)"
else
    # the launcher's workbench
    rm -f "$tmp/exit"
    fresh 140 50 "$BIN --ranks 3; echo EXIT=\$? > $tmp/exit; sleep 60"
    wait_for "epoch [1-9]" && ok "a 3-rank job trains in the workbench" || bad "no epochs on screen: $(screen | head -5)"
    if screen_shows "from the distributed workbench" "3 ranks: eth-10g network" "r0 COMPUTE" "r1 NETSEND" "r2 NETRECV" \
        "r2 busy" "net out" "comm hidden" "replica" "\[8\]dep"; then
        ok "title, per-rank lanes, rank utilisation, exchange counters and the distributed knobs"
    else
        screen | sed -n '12,22p'
    fi
    screen | grep -qE "d0 H2D|host cpu|\[1\]selective" && bad "device lanes or streaming knobs shown for a distributed run"
    # every rank busy and on the network, over the epoch's window (never 0% or 0 B/s while it trains)
    ranks_busy() {
        local s r
        s=$(screen)
        for r in 0 1 2; do grep -qE "r$r busy +[1-9][0-9]*%" <<<"$s" || return 1; done
        [ "$(grep -cE "net out [1-9][0-9.]* [KMG]?B/s  in [1-9][0-9.]* [KMG]?B/s" <<<"$s")" -eq 3 ]
    }
    for _ in $(seq 50); do ranks_busy && break; sleep 0.2; done
    ranks_busy && ok "every rank's utilisation is live: busy and network in and out above zero" ||
        bad "a rank shows 0% busy or no network: $(screen | grep -E "busy|net out")"
    T send-keys -t tui ':'
    T send-keys -t tui 'set dep cache' Enter
    # taken: pending, or (on a fast epoch) already applied and reported, or in force in the knobs panel
    wait_for "dep += cache at the next epoch|dep cache: |dep +cache( |$)" || bad "set dep cache not taken"
    cache_net=$(net_after dep cache)
    comm_net=$(net_after dep comm)
    more_net "$comm_net" "$cache_net" \
        && ok "set dep comm reaches every rank: net $cache_net MB an epoch cached, $comm_net MB communicated" \
        || bad "net bytes did not follow dep: cache $cache_net, comm $comm_net"
    T send-keys -t tui ':' 'set pipeline off' Enter
    wait_for "set pipeline: a streaming knob; the ranks of a distributed run train in host memory" \
        && ok "a streaming knob is refused on a distributed run, with the reason" || bad "streaming knob not refused"
    T send-keys -t tui Escape
    T send-keys -t tui 8
    wait_for "dep +comm -> hybrid" 50 || wait_for "dep +hybrid( |$)" && ok "key 8 cycles dep (comm -> hybrid)" || bad "key 8"
    wait_for "dep +hybrid( |$)" || bad "dep hybrid never applied"
    r0_net=$(net_after dep-ratio 0)
    r1_net=$(net_after dep-ratio 1)
    more_net "$r0_net" "$r1_net" \
        && ok "set dep-ratio from the console: net $r0_net MB an epoch at ratio 0, $r1_net MB at ratio 1" \
        || bad "net bytes did not follow dep-ratio: 0 -> $r0_net, 1 -> $r1_net"
    T send-keys -t tui Escape
    T send-keys -t tui q
    wait_exit && [ "$(cat "$tmp/exit")" = EXIT=0 ] && ok "q ends the job with status 0" || bad "exit: $(cat "$tmp/exit" 2>/dev/null)"
    screen | grep -qE "gnnscope: epoch [0-9]+, final loss" && ok "the summary prints on the restored terminal" || bad "no summary"
    sleep 1
    [ "$(ranks_left)" -eq 0 ] && ! ls "$tmp"/gnnscope-*.sock >/dev/null 2>&1 && ok "no rank and no socket left behind" \
        || bad "left behind: $(pgrep -af 'gnnscope tui --dist') $(ls "$tmp")"

    # Ctrl-C in the launcher's workbench
    rm -f "$tmp/exit"
    fresh 140 50 "$BIN --ranks 2; echo EXIT=\$? > $tmp/exit; sleep 60"
    wait_for "epoch [1-9]" || bad "second job did not start"
    T send-keys -t tui C-c
    wait_exit && [ "$(cat "$tmp/exit")" = EXIT=130 ] && ok "Ctrl-C stops the job: exit 130" || bad "Ctrl-C exit: $(cat "$tmp/exit" 2>/dev/null)"
    sleep 1
    [ "$(ranks_left)" -eq 0 ] && ok "no rank left after Ctrl-C" || bad "ranks left: $(pgrep -af 'gnnscope tui --dist')"
    T kill-server
fi

# serve and attach
srv="$tmp/run.sock"
"$BIN" tui --serve "$srv" >"$tmp/serve.out" 2>&1 &
server=$!
for _ in $(seq 100); do [ -S "$srv" ] && break; sleep 0.1; done
[ -S "$srv" ] && [ "$(stat -c %a "$srv")" = 600 ] && ok "--serve makes a socket only its user may open (0600)" || bad "no socket, or wrong mode"
rm -f "$tmp/exit"
fresh 120 40 "$BIN attach $srv; echo EXIT=\$? > $tmp/exit; sleep 60"
wait_for "epoch [1-9]" && wait_for "d0 H2D" && ok "attach shows the served run's workbench" || bad "attach: $(screen | head -3)"
expect_fail 2 "another workbench is attached to that run" -- "$BIN" attach "$srv"
T send-keys -t tui q
wait_exit && [ "$(cat "$tmp/exit")" = EXIT=0 ] && kill -0 "$server" 2>/dev/null && ok "q detaches; the run goes on" \
    || bad "detach: $(cat "$tmp/exit" 2>/dev/null)"
rm -f "$tmp/exit"
fresh 120 40 "$BIN attach $srv; echo EXIT=\$? > $tmp/exit; sleep 60"
wait_for "epoch [1-9]" || bad "re-attach"
T send-keys -t tui ':'
T send-keys -t tui 'quit' Enter
wait_exit || bad "the attached workbench did not end on :quit"
for _ in $(seq 100); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
wait "$server"
rc=$?
[ "$rc" -eq 0 ] && [ ! -e "$srv" ] && ok ":quit from the attached workbench ends the run (exit 0, socket removed)" \
    || bad "served run: exit $rc, socket $(ls "$srv" 2>&1), $(cat "$tmp/serve.out")"

# bad input
touch "$tmp/file"
expect_fail 2 "no run serves there" -- "$BIN" attach "$tmp/none.sock"
expect_fail 2 "not a socket" -- "$BIN" attach "$tmp/file"
expect_fail 2 "usage: gnnscope attach PATH" -- "$BIN" attach
expect_fail 2 "exists and is not a socket" -- "$BIN" tui --serve "$tmp/file"
expect_fail 2 "give --script to that one" -- "$BIN" tui --serve "$tmp/x.sock" --script "$tmp/file"
finish
