#!/usr/bin/env bash
# cli_trace.sh - a streamed run on two emulated devices with --trace and
# --metrics: the trace parses as JSON and holds X spans on the H2D, compute
# and D2H lanes of every device plus counter events and process/thread
# names, and an "epoch N" marker after each epoch; the metrics CSV has one
# row per epoch. A run interrupted by SIGINT
# still leaves a complete trace. Long runs: the metrics CSV is appended, not
# rewritten (its inode stays, every row once); --trace-max caps a trace by
# rotating it (t.json the newest events, t.json.1 those before, both
# complete, together under the cap, a notice naming what was dropped).
# Temporary files a killed save left beside an output are removed by the
# next save of it (a live writer's are kept).
# run-under: asan tsan
source "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BIN" train --epochs 4 --devices 2 --topology pcie-4gpu-2switch --multidev naive --device-mem 4M --trace "$tmp/t.json" \
    --metrics "$tmp/m.csv" --quiet || bad "traced run failed"
$PY - "$tmp/t.json" <<'PYEOF' && ok "trace has X spans on H2D, COMPUTE and D2H of both devices, counters and names" || bad "trace content"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
for pid in (1, 2):
    lanes = {names[(e["pid"], e["tid"])] for e in ev if e["ph"] == "X" and e["pid"] == pid}
    assert {"H2D", "COMPUTE", "D2H"} <= lanes, (pid, lanes)
assert any(e["ph"] == "C" for e in ev)
x = [e for e in ev if e["ph"] == "X" and e["pid"] == 1 and e["name"] == "chunk_gather"]
assert all({"layer", "phase", "row", "col", "sub", "bytes", "flops"} <= set(e["args"]) for e in x)
assert all(e["args"]["row"] >= 0 and e["args"]["col"] >= 0 for e in x)
marks = [e for e in ev if e["ph"] == "i"]  # an "epoch N" marker after each epoch's last span
assert [m["name"] for m in marks] == [f"epoch {i}" for i in range(1, 5)], marks
ends = [e["ts"] + e["dur"] for e in ev if e["ph"] == "X"]
assert all(a["ts"] < b["ts"] for a, b in zip(marks, marks[1:])) and abs(marks[-1]["ts"] - max(ends)) < 1e-3, marks
PYEOF
[ "$(wc -l <"$tmp/m.csv")" -eq 5 ] && ok "metrics CSV: header and 4 rows" || bad "metrics rows: $(wc -l <"$tmp/m.csv")"
# SIGINT once training runs: a background job of a script starts with SIGINT ignored until the run installs its
# handler (after loading, which takes seconds under a sanitizer on a loaded machine), so wait for the first epoch's row
"$BIN" train --epochs 100000 --device-mem 4M --trace "$tmp/i.json" --metrics "$tmp/i.csv" --quiet &
pid=$!
for _ in $(seq 600); do [ "$({ wc -l <"$tmp/i.csv"; } 2>/dev/null || echo 0)" -ge 2 ] && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
$PY -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/i.json" && ok "trace complete after SIGINT" || bad "trace after SIGINT"
# the metrics CSV of a long run is appended: the same file (inode) from the first epoch to the last
"$BIN" train --epochs 60 --device-mem 4M --metrics "$tmp/long.csv" --quiet &
pid=$!
for _ in $(seq 100); do [ -s "$tmp/long.csv" ] && break; sleep 0.1; done
inode=$(stat -c %i "$tmp/long.csv")
wait "$pid"
[ "$(stat -c %i "$tmp/long.csv")" = "$inode" ] && [ "$(wc -l <"$tmp/long.csv")" -eq 61 ] && [ "$(grep -c '^epoch,' "$tmp/long.csv")" -eq 1 ] \
    && ok "metrics CSV appended: one file from the first epoch to the 60th, header once, 60 rows" \
    || bad "metrics CSV: inode $inode -> $(stat -c %i "$tmp/long.csv"), $(wc -l <"$tmp/long.csv") lines"
# --trace-max: rotated at half the cap
"$BIN" train --epochs 40 --devices 2 --device-mem 4M --trace "$tmp/cap.json" --trace-max 1M --quiet 2>"$tmp/cap.err"
$PY - "$tmp/cap.json" <<'PYEOF' && grep -q "^gnnscope: trace: $tmp/cap.json (its newest [0-9]* events; the [0-9]* before them in $tmp/cap.json.1; [0-9]* older ones dropped" "$tmp/cap.err" \
    && ok "--trace-max 1M: $(cat "$tmp/cap.err")" || bad "--trace-max: $(cat "$tmp/cap.err")"
import json, os, sys
a, b = sys.argv[1], sys.argv[1] + ".1"
for f in (a, b):
    ev = json.load(open(f))["traceEvents"]
    assert any(e["ph"] == "X" for e in ev) and any(e["ph"] == "M" and e["name"] == "thread_name" for e in ev), f
assert os.path.getsize(a) + os.path.getsize(b) <= (1 << 20) + 4096, (os.path.getsize(a), os.path.getsize(b))
PYEOF
expect_fail 2 "--trace-max: '1K' is out of range" -- "$BIN" train --trace "$tmp/x.json" --trace-max 1K --epochs 1
# a killed save's temporary file is removed by the next save; a live writer's is kept
dead=4194303
while kill -0 "$dead" 2>/dev/null; do dead=$((dead - 1)); done
: >"$tmp/c.ckpt.tmp.$dead"
: >"$tmp/c.ckpt.tmp.$$"
"$BIN" train --epochs 1 --checkpoint "$tmp/c.ckpt" --quiet
[ ! -e "$tmp/c.ckpt.tmp.$dead" ] && [ -e "$tmp/c.ckpt.tmp.$$" ] && [ -s "$tmp/c.ckpt" ] \
    && ok "a killed save's temporary file is removed, a live writer's kept" || bad "temporary files: $(ls "$tmp" | grep tmp)"
finish
