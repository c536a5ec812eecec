#!/usr/bin/env bash
# cli_trace.sh - a streamed run on two emulated devices with --trace and
# --metrics: the trace parses as JSON and holds X spans on the H2D, compute
# and D2H lanes of every device plus counter events and process/thread
# names; the metrics CSV has one row per epoch. A run interrupted by SIGINT
# still leaves a complete trace.
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
PYEOF
[ "$(wc -l <"$tmp/m.csv")" -eq 5 ] && ok "metrics CSV: header and 4 rows" || bad "metrics rows: $(wc -l <"$tmp/m.csv")"
"$BIN" train --epochs 100000 --device-mem 4M --trace "$tmp/i.json" --quiet &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid"
$PY -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/i.json" && ok "trace complete after SIGINT" || bad "trace after SIGINT"
finish
