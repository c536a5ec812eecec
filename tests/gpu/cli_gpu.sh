#!/usr/bin/env bash
# cli_gpu.sh - the cuda backend through the CLI, on a GPU machine: Cora
# trains in GPU memory to the CPU run's accuracy, a streamed run on two
# logical devices of one GPU reports real (not emulated) counters, and its
# trace holds CUPTI kernel and memcpy spans with chunk coordinates. Exits 77
# (skipped) when no GPU answers, after checking that --backend cuda then
# fails cleanly and --backend auto falls back.
source "$(dirname "$0")/../lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$BIN" train --backend cuda --epochs 1 --quiet >/dev/null 2>"$tmp/err"; then
    expect_fail 2 "GPU" -- "$BIN" train --backend cuda --epochs 1
    "$BIN" train --backend auto --epochs 1 --quiet 2>"$tmp/auto" && grep -q "running on the cpu" "$tmp/auto" &&
        ok "--backend auto falls back: $(cat "$tmp/auto")" || bad "--backend auto fallback"
    [ "$nfail" -eq 0 ] || finish
    echo "skipped: $(cat "$tmp/err")"
    exit 77
fi
cpu=$("$BIN" train --epochs 200 --quiet --json | json_get test_acc)
gpu=$("$BIN" train --backend cuda --epochs 200 --quiet --json | json_get test_acc)
$PY -c "import sys; sys.exit(abs($cpu - $gpu) > 0.01)" && ok "cora gcn: cuda test_acc $gpu, cpu $cpu" ||
    bad "cora accuracy: cuda $gpu vs cpu $cpu"
"$BIN" train --backend cuda --devices 2 --chunks 4 --subchunks 4 --selective on --epochs 3 --quiet --json \
    --trace "$tmp/t.json" >"$tmp/s.json" || bad "streamed cuda run failed"
$PY - "$tmp/s.json" "$tmp/t.json" <<'PYEOF' && ok "streamed cuda run: real counters; trace has tagged CUPTI kernel and memcpy spans" || bad "streamed cuda run content"
import json, sys
s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
assert s["backend"] == "cuda" and s["emulated"] is False and s["h2d_bytes"] > 0 and s["devices"] == 2, s
ev = json.load(open(sys.argv[2]))["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
kern = [e for e in x if e["name"] == "chunk_gather" and e["args"]["row"] >= 0 and e["args"]["col"] >= 0]
copies = [e for e in x if e["name"] in ("h2d", "h2d_rows", "d2h") and e["args"]["bytes"] > 0]
assert kern and copies, (len(kern), len(copies))
print(f"{len(kern)} tagged kernel spans, {len(copies)} copy spans")
PYEOF
finish
