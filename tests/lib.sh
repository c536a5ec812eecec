# lib.sh - helpers for the integration scripts (sourced, not run).
# GNNSCOPE_BIN names the binary under test (run.sh sets it).
BIN=${GNNSCOPE_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/gnnscope}
PY=${GNNSCOPE_PY:-/usr/bin/python3}
nfail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; nfail=$((nfail + 1)); }
# expect_fail CODE NEEDLE -- CMD...: CMD must exit with CODE and print NEEDLE on stderr in one line
expect_fail() {
    local code=$1 needle=$2
    shift 3
    local err rc
    err=$("$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -ne "$code" ]; then bad "$*: exit $rc, wanted $code ($err)"; return; fi
    if ! grep -qF -- "$needle" <<<"$err"; then bad "$*: stderr lacks '$needle': $err"; return; fi
    if [ "$(wc -l <<<"$err")" -ne 1 ]; then bad "$*: error is not one line: $err"; return; fi
    ok "$* -> $code: $err"
}
# at_least X MIN: the number X (empty: 0) is at least MIN
at_least() { $PY -c "import sys; sys.exit(0 if float('${1:-0}') >= float('$2') else 1)"; }
# json_get FIELD: reads the last stdout line (JSON) from stdin
json_get() { tail -n 1 | $PY -c "import json,sys; print(json.loads(sys.stdin.read())['$1'])"; }
# losses FILE: the loss column of a --metrics CSV, space-separated
losses() { $PY -c "import csv,sys; print(' '.join(r['loss'] for r in csv.DictReader(open(sys.argv[1]))))" "$1"; }
# same_losses A B TOL: the loss columns of two metrics files have the same length and agree within TOL (relative)
same_losses() {
    $PY - "$@" <<'PYEOF'
import csv, sys
a, b = ([float(r["loss"]) for r in csv.DictReader(open(f))] for f in sys.argv[1:3])
tol = float(sys.argv[3])
sys.exit(0 if a and len(a) == len(b) and all(abs(x - y) <= tol * abs(x) for x, y in zip(a, b)) else 1)
PYEOF
}
# screen_shows WHERE PATTERN...: each pattern (ERE) is on the screen within 5 s; the caller defines screen().
# Each gets its own wait: one capture can catch the terminal halfway through its first full redraw.
screen_shows() {
    local where=$1 p missing=0
    shift
    for p; do
        for _ in $(seq 25); do screen | grep -qE -- "$p" && continue 2; sleep 0.2; done
        bad "'$p' missing $where"
        missing=1
    done
    return $missing
}
finish() { [ "$nfail" -eq 0 ] && echo "all checks passed" || echo "$nfail checks failed"; exit $((nfail > 0)); }
