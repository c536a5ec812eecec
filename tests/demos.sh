#!/usr/bin/env bash
# demos.sh - the five classroom demos run to completion headless (stdout
# is not a terminal) under --max-epochs, each showing its before and
# after; a script with a mistake is refused with its file and line.
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
list=$("$BIN" demo)
for d in selective pipeline chain dkp memplan; do
    grep -q "  $d" <<<"$list" || bad "demo list lacks $d"
    out=$("$BIN" demo "$d" --max-epochs 14 2>&1)
    rc=$?
    [ "$rc" -eq 0 ] && grep -q ">> Before" <<<"$out" && grep -q ">> After" <<<"$out" \
        && ok "demo $d ran to completion (before and after)" || bad "demo $d: exit $rc: $(tail -3 <<<"$out")"
    echo "$out" >"$tmp/$d.out"
done
h2d() { grep -E "^epoch" "$1" | awk '{print $(NF-4)}' | sed -n "$2p"; }
before=$(h2d "$tmp/selective.out" 4) after=$(h2d "$tmp/selective.out" 12)
$PY -c "import sys; sys.exit(0 if float('$after') < float('$before') else 1)" \
    && ok "selective demo: h2d $before MB -> $after MB" || bad "selective demo bytes: $before -> $after"
before=$(h2d "$tmp/memplan.out" 4) after=$(h2d "$tmp/memplan.out" 12)
$PY -c "import sys; sys.exit(0 if float('$after') < 0.8 * float('$before') else 1)" \
    && ok "memplan demo: h2d $before MB -> $after MB" || bad "memplan demo bytes: $before -> $after"
grep -E "^epoch +1[0-2] " "$tmp/chain.out" | grep -vq "d2d 0.00 MB" && ok "chain demo: device-to-device traffic after" \
    || bad "chain demo shows no d2d traffic"
printf 'say "hello"\nset selective maybe-later\nwaitt epochs 3\n' >"$tmp/bad.gs"
expect_fail 2 "bad.gs:3: unknown command 'waitt'" -- "$BIN" --script "$tmp/bad.gs" --max-epochs 1
expect_fail 2 "demo 'nope' not found" -- "$BIN" demo nope
finish
