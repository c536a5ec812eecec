#!/usr/bin/env bash
# cli_limits.sh - the memory rule (base/membudget.h) under an address-space
# limit, as CI runs it: with `ulimit -v 4000000` every oversized request
# exits 2 with its estimate and the limit that binds, and none is killed
# by a signal (a generated shape's real or simulated run before it is
# generated, a graph before it is built); --chunks auto takes the chunks
# host memory needs; a normal run still trains under the same limit.
source "$(dirname "$0")/../lib.sh"
oversized=(
    "--model gat --hidden 4096 --heads 64"
    "--hidden 65536 --layers 64"
    "--model resgcn --layers 64 --hidden 4096"
    "--hidden 65536 --device-mem 8M"
    "--hidden 65536 --fuse off"
    "--chunks 2708 --subchunks 4"
    "--chunks 2000 --subchunks 8"
    "--dataset gen:nodes=100000000,degree=50"
    "--dataset gen:like=amazon,scale=0.3"
)
for flags in "${oversized[@]}"; do
    # shellcheck disable=SC2086
    err=$( (ulimit -v 4000000 && exec timeout 120 "$BIN" train --epochs 1 --quiet --no-cache $flags) 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -eq 2 ] && grep -qE "would need [0-9.]+ [KMGT]?i?B|too small for this model" <<<"$err" &&
        [ "$(wc -l <<<"$err")" -eq 1 ]; then
        ok "ulimit -v 4000000, $flags -> 2: $err"
    else
        bad "ulimit -v 4000000, $flags: exit $rc (a signal if > 128): $err"
    fi
done
# a generated shape whose real run cannot fit is refused before it is generated (it was generated, then the
# graph's allocation failed with exit 1), pointing at --simulate; a graph that does not fit is refused before
# it is built (a simulated run's, whose structure the generator's own rule let through)
err=$( (ulimit -v 4000000 && exec "$BIN" train --epochs 1 --quiet --no-cache --dataset gen:like=amazon,scale=0.3) 2>&1 >/dev/null)
grep -q "a real run (features, graph and two activations, at least) would need .*; --simulate runs this shape" <<<"$err" &&
    ok "amazon's shape at 0.3 under 4 GB: refused from its shape, --simulate named" || bad "amazon at 0.3: $err"
# a generated shape's simulated run is refused from its shape too: its structure and the leanest chunk grid
# it may have (amazon at scale 2 was simulated for 9 minutes, 17 GB, before the grid's own check refused it)
err=$(GNNSCOPE_MEM_LIMIT=170M "$BIN" train --epochs 1 --quiet --no-cache --simulate --dataset gen:like=reddit,scale=0.05 2>&1 >/dev/null)
rc=$?
[ "$rc" -eq 2 ] && grep -q "^gnnscope: error: --dataset gen:like=reddit,scale=0.05: a simulated run (the graph's structure and its chunk grid, at least) would need [0-9.]* MiB, more than" <<<"$err" &&
    ok "a generated shape's simulated run past the rule is refused before it is generated: $err" || bad "the simulated shape's check: exit $rc: $err"
"$BIN" gen --nodes 20000 --avg-degree 50 --out "$tmp/wide" >/dev/null
err=$(GNNSCOPE_MEM_LIMIT=40M "$BIN" train --epochs 1 --quiet --no-cache --simulate --dataset "$tmp/wide" 2>&1 >/dev/null)
rc=$?
[ "$rc" -eq 2 ] && grep -q "^gnnscope: error: the graph of wide (20000 vertices, up to 1020000 edges) would need" <<<"$err" &&
    ok "a graph past the rule is refused before it is built: $err" || bad "the graph's own check: exit $rc: $err"
# --chunks auto takes more chunks where one chunk's grid would not fit host memory (a column holds m / P edges
# while it builds): this graph's one-chunk grid needs 19.7 MiB, more than 62M leaves once the graph is built
chunks_under() {
    GNNSCOPE_MEM_LIMIT=$1 "$BIN" train --epochs 1 --quiet --json --no-cache --simulate --dataset "$tmp/wide" | tail -n 1 |
        $PY -c "import json,sys; print(json.load(sys.stdin)['chunks'])"
}
few=$(chunks_under 62M) && free=$(chunks_under 16G) && [ "$free" -eq 1 ] && [ "$few" -ge 2 ] &&
    ok "auto chunks under GNNSCOPE_MEM_LIMIT=62M: $few (1 without the limit)" || bad "auto chunks under a limit: '$few', without: '$free'"
(ulimit -v 4000000 && exec "$BIN" train --epochs 2 --quiet --device-mem 1M) && ok "a normal streamed run trains under the limit" ||
    bad "a normal run failed under ulimit -v 4000000"
finish
