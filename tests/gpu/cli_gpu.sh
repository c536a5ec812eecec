#!/usr/bin/env bash
# cli_gpu.sh - the cuda backend through the CLI, on a GPU machine: Cora
# trains in GPU memory to the CPU run's losses and accuracy, a streamed run on two
# logical devices of one GPU reports real (not emulated) counters, and its
# trace holds kernel and copy spans (CUPTI's, or
# the host-function stamps where CUPTI is absent) with chunk coordinates,
# and the same run under GNNSCOPE_CUDA_CHECK=1 finds nothing wrong. Exits 77
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
cpu=$("$BIN" train --epochs 10 --quiet --json | tail -n 1)
gpu=$("$BIN" train --backend cuda --epochs 10 --quiet --json | tail -n 1)
$PY - "$cpu" "$gpu" <<'PYEOF' && ok "cora gcn, 10 epochs: cuda and cpu agree" || bad "cora: cuda and cpu disagree"
import json, sys
c, g = (json.loads(a) for a in sys.argv[1:3])
assert all(abs(x - y) <= 1e-4 * abs(x) for x, y in zip(c["losses"], g["losses"])), (c["losses"], g["losses"])
assert abs(c["test_acc"] - g["test_acc"]) <= 0.01, (c["test_acc"], g["test_acc"])
print(f"final loss {g['final_loss']} (cpu {c['final_loss']}), test_acc {g['test_acc']} (cpu {c['test_acc']})")
PYEOF

"$BIN" train --backend cuda --devices 2 --chunks 4 --subchunks 4 --selective on --epochs 3 --quiet --json \
    --trace "$tmp/t.json" >"$tmp/s.json" || bad "streamed cuda run failed"
$PY - "$tmp/s.json" "$tmp/t.json" <<'PYEOF' && ok "streamed cuda run: real counters; trace has tagged kernel and copy spans" || bad "streamed cuda run content"
import json, sys
s = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
assert s["backend"] == "cuda" and not s["emulated"] and s["h2d_bytes"] > 0 and s["knobs"]["devices"] == "2", s
g = s["gpu_measured"]  # CUPTI's own records over the last epoch, not the emulation
if "CPU test double" in g["gpu"]:  # no CUPTI there: unknown, never 0
    assert g["source"] is None and g["busy"] is None and g["h2d_Bps"] is None, g
    g.update(busy=0.0, h2d_Bps=0.0, d2h_Bps=0.0)
else:
    assert g["source"] == "CUPTI" and 0 < g["busy"] <= 1 and g["h2d_Bps"] > 0, g
ev = json.load(open(sys.argv[2]))["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
kern = [e for e in x if e["name"] == "chunk_gather" and e["args"]["row"] >= 0 and e["args"]["col"] >= 0]
copies = [e for e in x if e["name"] in ("h2d", "h2d_rows", "d2h") and e["args"]["bytes"] > 0]
assert kern and copies, (len(kern), len(copies))
print(f"{len(kern)} tagged kernel spans, {len(copies)} copy spans; last epoch on {g['gpu']}: busy {100 * g['busy']:.1f}%, "
      f"H2D {g['h2d_Bps'] / 1e6:.1f} MB/s, D2H {g['d2h_Bps'] / 1e6:.1f} MB/s")
PYEOF
# GNNSCOPE_CUDA_CHECK=1 reads every H2D back and checks every chunk gather's indices: none fires, and the result is the run's
GNNSCOPE_CUDA_CHECK=1 "$BIN" train --backend cuda --devices 2 --chunks 4 --subchunks 4 --selective on --epochs 1 --quiet --json \
    >"$tmp/c.json" 2>"$tmp/c.err" || bad "checked streamed run failed: $(tail -n 2 "$tmp/c.err")"
$PY - "$tmp/s.json" "$tmp/c.json" <<'PYEOF' && ok "checked streamed run: every copy and gather index verified, the same first loss" || bad "checked run"
import json, sys
s, c = (json.loads(open(a).read().strip().splitlines()[-1]) for a in sys.argv[1:3])
assert c["losses"][0] == s["losses"][0], (c["losses"], s["losses"])
PYEOF
finish
