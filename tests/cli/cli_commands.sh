#!/usr/bin/env bash
# cli_commands.sh - the subcommands and what they print: `gnnscope
# compare`, each command's own help, a quiet run's one result line, and the
# metrics CSV's blank cells for counters that do not apply to the run:
# two runs' JSON summaries side by side (each number with its ratio to the
# first run's, the knobs that differ listed), its refusals (a file that is
# not a summary names the file and the byte; too few files), and
# --version, demo --help, topologies --help, compare --help exit 0; the
# console's help lists every command, source included; get of a knob the
# run does not have gives set's reason; a failed load keeps the changes set
# around it.
source "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GNNSCOPE_CACHE_DIR=${GNNSCOPE_CACHE_DIR:-$tmp/cache}
"$BIN" train --epochs 2 --json --quiet --device-mem 4M --order metis --chunks 8 >"$tmp/a.json" 2>"$tmp/err" || bad "run a: $(cat "$tmp/err")"
"$BIN" train --epochs 2 --json --quiet --device-mem 4M --order metis --chunks 8 --stream-order row >"$tmp/b.json" 2>"$tmp/err" \
    || bad "run b: $(cat "$tmp/err")"
"$BIN" compare "$tmp/a.json" "$tmp/b.json" >"$tmp/out" 2>&1 || bad "compare: exit $?: $(cat "$tmp/out")"
$PY - "$tmp/out" "$tmp/a.json" "$tmp/b.json" <<'PYEOF' && ok "compare: every number with its ratio, the differing knob named" || bad "compare output: $(head -20 "$tmp/out")"
import json, sys
out = open(sys.argv[1]).read().splitlines()
a, b = (json.loads(open(f).read().strip().splitlines()[-1]) for f in sys.argv[2:4])
rows = {l.split()[0]: l.split()[1:] for l in out if l and not l.startswith(("run ", "counter", "differing", " "))}
for key in ("epoch_ms_median", "d2h_bytes", "h2d_bytes", "final_loss"):
    va, vb, ratio = rows[key]
    assert abs(float(va) - a[key]) <= 1e-5 * abs(a[key]) and abs(float(vb) - b[key]) <= 1e-5 * abs(b[key]), (key, va, vb)
    want = "=" if a[key] == b[key] else f"{b[key] / a[key]:.3g}x"
    assert ratio == want, (key, ratio, want)
assert rows["d2h_bytes"][2] != "=" and rows["final_loss"][2] == "=", rows
assert any(l.split()[:2] == ["knobs.stream-order", "column"] and l.split()[-1] == "row" for l in out), out
PYEOF
echo '{"epochs": [1, 2' >"$tmp/cut.json"
expect_fail 2 "$tmp/cut.json: not a gnnscope JSON summary (its last line, byte 17: expected ',' or ']')" -- "$BIN" compare "$tmp/cut.json" "$tmp/a.json"
expect_fail 2 "$tmp/none.json: cannot open it" -- "$BIN" compare "$tmp/a.json" "$tmp/none.json"
expect_fail 2 "gnnscope compare takes 2 to 8 JSON files" -- "$BIN" compare "$tmp/a.json"
out=$("$BIN" train --epochs 3 --quiet 2>/dev/null)
[ "$(wc -l <<<"$out")" -eq 1 ] && grep -qE "^best val [0-9.]+ at epoch [0-9]+ \(test [0-9.]+\); final test [0-9.]+$" <<<"$out" \
    && ok "train --quiet prints the result line alone: $out" || bad "train --quiet printed: $out"
# the CSV: counters of another kind of run are blank, not 0
"$BIN" train --epochs 1 --quiet --metrics "$tmp/mem.csv" >/dev/null 2>&1
"$BIN" train --epochs 1 --quiet --device-mem 4M --metrics "$tmp/st.csv" >/dev/null 2>&1
$PY - "$tmp/mem.csv" "$tmp/st.csv" <<'PYEOF' && ok "metrics CSV: a stream counter is blank in memory, a number when streamed; dist and sampled ones blank in both" \
    || bad "CSV blanks: $(head -2 "$tmp/mem.csv")"
import csv, sys
mem, st = (list(csv.DictReader(open(f)))[-1] for f in sys.argv[1:3])
assert mem["h2d_bytes"] == "" and float(st["h2d_bytes"]) > 0, (mem["h2d_bytes"], st["h2d_bytes"])
assert mem["net_bytes"] == st["net_bytes"] == "" and mem["batches"] == st["batches"] == "", mem
assert float(mem["loss"]) > 0 and float(mem["agg_flops"]) > 0, mem
PYEOF
for cmd in "--version" "demo --help" "topologies --help" "compare --help"; do
    # shellcheck disable=SC2086
    out=$("$BIN" $cmd 2>&1) && [ -n "$out" ] && ok "gnnscope $cmd: exit 0, $(head -1 <<<"$out")" || bad "gnnscope $cmd: exit $?: $out"
done
printf 'help\n' >"$tmp/help.gs"
"$BIN" --script "$tmp/help.gs" --max-epochs 1 | grep -qE "commands:.* q( .*)? source" && ok "help lists source (the console's own command)" ||
    bad "help omits source: $("$BIN" --script "$tmp/help.gs" --max-epochs 1 | head -2)"
# a knob the run does not have: get refuses it as set does, with the reason (it printed "dep = ")
printf 'get dep\nset dep comm\nget selective\n' >"$tmp/get.gs"
out=$("$BIN" --script "$tmp/get.gs" --max-epochs 1 2>&1)
[ "$(sed -n 1p <<<"$out" | xargs)" = "get dep: applies to distributed runs (restart with --ranks N)" ] &&
    [ "$(sed -n 2p <<<"$out" | xargs)" = "set dep: applies to distributed runs (restart with --ranks N)" ] &&
    [ "$(sed -n 3p <<<"$out" | xargs)" = "selective = off" ] && ok "get of a knob the run lacks says why, as set does" ||
    bad "get of a knob the run lacks: $out"
# set around a load: the changes typed before and while the load waits reach the loaded run (cli_simulate), and
# the running one should the load fail
printf 'set lr 0.1\nload /nonexistent/x\nset swap off\nwait epochs 1\nget lr\nget swap\n' >"$tmp/failed-load.gs"
out=$("$BIN" --script "$tmp/failed-load.gs" --max-epochs 3 2>&1)
[ "$(grep -E '^ +(lr|swap) = [^ ]+$' <<<"$out" | xargs)" = "lr = 0.1 swap = off" ] && grep -q "not opened, the run goes on" <<<"$out" &&
    ok "a failed load keeps the run, with the changes set around it" || bad "set around a failed load: $out"
finish
