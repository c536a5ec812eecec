#!/usr/bin/env bash
# cli_limits.sh - the memory rule (base/membudget.h) under an address-space
# limit, as CI runs it: with `ulimit -v 4000000` every oversized request
# exits 2 with its estimate and the limit that binds, and none is killed
# by a signal; a normal run still trains under the same limit.
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
(ulimit -v 4000000 && exec "$BIN" train --epochs 2 --quiet --device-mem 1M) && ok "a normal streamed run trains under the limit" ||
    bad "a normal run failed under ulimit -v 4000000"
finish
