#!/usr/bin/env bash
# cli_simulate.sh - --simulate (kops_sim.c, the cpu backend's untimed
# tasks): the same schedule as a real run with kernels and copies skipped,
# so a simulated run's emulated epoch and evaluation times and byte counts
# (edge chunks' too) equal the real run's (relative difference <= 1e-6) for
# streamed runs (selective scheduling, pipelining, 2 devices; chain and
# ring with edges kept and streamed; typed, attention and max gathers;
# the plain programs' edge-tensor ops), a sampled run (pipelined
# preprocessing) and a distributed one (3 ranks, hybrid); its JSON says
# "simulated": true with no losses; its features are never drawn, so its
# peak memory is a fraction of the real run's; the workbench on a paper's
# machine and shape starts at train's knobs (its Cora setting stays on
# Cora, and the console's load moves it); and the flags it cannot honour exit 2 with one line.
source "$(dirname "$0")/../lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# same_times A B: the times and byte counts of two metrics files agree within 1e-6 (relative)
same_times() {
    $PY - "$1" "$2" <<'PYEOF'
import csv, sys
a, b = (list(csv.DictReader(open(f))) for f in sys.argv[1:3])
worst = 0.0
for x, y in zip(a, b):
    for k in ("epoch_ms", "eval_ms", "h2d_bytes", "edge_h2d_bytes", "d2d_bytes", "kept_bytes"):
        if x[k] == "" and y[k] == "": continue
        u, v = float(x[k]), float(y[k])
        worst = max(worst, abs(u - v) / max(abs(u), 1e-300))
print("%.2e" % worst)
sys.exit(0 if a and len(a) == len(b) and worst <= 1e-6 else 1)
PYEOF
}
compare() {
    local what=$1
    shift
    "$BIN" train --epochs 3 --quiet --metrics "$dir/real.csv" "$@" >/dev/null 2>&1 || { bad "$what: the real run failed"; return; }
    "$BIN" train --epochs 3 --quiet --metrics "$dir/sim.csv" --simulate "$@" >/dev/null 2>&1 || { bad "$what: the simulated run failed"; return; }
    if d=$(same_times "$dir/real.csv" "$dir/sim.csv"); then ok "$what: simulated times equal the real run's (worst $d)"; else bad "$what: simulated times differ by $d"; fi
}
compare "streamed, selective + pipeline, 2 devices" --devices 2 --selective on --pipeline on --subchunks 2 --device-mem 2M
compare "streamed, chain over 4 devices, GAT" --devices 4 --multidev chain --model gat
compare "streamed, ring + selective over 4 devices, MP-GCN's max gathers" --devices 4 --multidev ring --selective on --model mpgcn --device-mem 2M
compare "streamed, chain over 2 devices, GCN --fuse off's scatters and edge gathers" --devices 2 --multidev chain --selective on --fuse off --device-mem 2M
# a simulated run keeps no sub-chunk arrays: its edge copies are sized without them
compare "streamed, chain + selective over 4 devices, edges kept" --devices 4 --multidev chain --selective on --subchunks 2 \
    --device-mem 4M --edge-chunks resident
compare "streamed, ring + selective over 4 devices, edges streamed" --devices 4 --topology pcie-4gpu-2switch --multidev ring \
    --selective on --device-mem 2M --edge-chunks stream
compare "streamed, R-GCN-style typed gathers (GG-NN), 2 devices" --devices 2 --model ggnn --device-mem 4M
compare "sampled, pipelined preprocessing" --batch-size 256 --prepro pipelined
command -v mpirun >/dev/null && compare "distributed, 3 ranks, hybrid" --ranks 3 --dep hybrid

out=$("$BIN" train --epochs 2 --devices 2 --simulate --json 2>/dev/null | tail -n 1)
$PY -c "import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d['simulated'] is True and d['final_loss'] is None and d['losses'] == [] and d['epoch_ms_median'] > 0 else 1)" "$out" &&
    ok "JSON: simulated, no loss, emulated times" || bad "JSON of a simulated run: $out"

D=gen:nodes=30000,degree=10,feats=512,seed=9
real=$("$BIN" train --dataset $D --no-cache --epochs 1 --devices 2 --hidden 256 --json 2>/dev/null | json_get peak_rss_bytes)
sim=$("$BIN" train --dataset $D --no-cache --epochs 1 --devices 2 --hidden 256 --json --simulate 2>/dev/null | json_get peak_rss_bytes)
$PY -c "import sys; sys.exit(0 if 0 < float('$sim') * 4 < float('$real') else 1)" &&
    ok "a simulated run's peak memory is under a quarter of the real run's ($sim vs $real bytes)" || bad "peak memory: simulated $sim, real $real"

# the workbench on a paper's machine and shape (headless, a script): its Cora setting (a 4 MB cap in 24
# chunks) is Cora's, so the knobs the command line leaves start at train's, and the run is train's
printf 'get device-mem\nget chunks\nget dkp\nget order\nget selective\n' >"$dir/knobs.gs"
paper=(--dataset gen:like=amazon,scale=0.002 --topology neugraph-8xp100 --devices 8 --simulate)
got=$("$BIN" "${paper[@]}" --script "$dir/knobs.gs" --max-epochs 1 2>&1 | tr -s ' ' | tr '\n' ';')
want=$("$BIN" train "${paper[@]}" --epochs 1 --json 2>/dev/null | tail -n 1 | $PY -c "import json,sys; d=json.load(sys.stdin)
k=dict(d['knobs'], chunks='%d (auto)' % d['chunks'] if d['knobs']['chunks'] == 'auto' else d['knobs']['chunks'])
print(''.join(' %s = %s;' % (n, k[n]) for n in ('device-mem', 'chunks', 'dkp', 'order', 'selective')))")
[ "$got" = "$want" ] && ok "the workbench on neugraph-8xp100 and amazon's shape starts at train's knobs ($got)" ||
    bad "the workbench on a paper's machine: $got, train: $want"
got=$("$BIN" --script "$dir/knobs.gs" --max-epochs 1 2>&1 | tr -s ' ' | tr '\n' ';')
[ "$got" = " device-mem = 4M; chunks = 24; dkp = off; order = metis; selective = off;" ] &&
    ok "the workbench on Cora keeps its classroom setting" || bad "the workbench on Cora: $got"
got=$("$BIN" "${paper[@]}" --device-mem 64M --chunks 4 --script "$dir/knobs.gs" --max-epochs 1 2>&1 | tr -s ' ' | tr '\n' ';')
[[ "$got" == " device-mem = 64M; chunks = 4;"* ]] && ok "the knobs given on the command line stay as given" ||
    bad "the workbench with --device-mem 64M --chunks 4: $got"
# the console's load moves the knobs the Cora setting still owns: on another dataset they stand where the
# workbench starts there, a knob the user set (even while the load waits) stays, and Cora brings the setting back
small=gen:like=pubmed,scale=0.2
{ printf 'set chunks 12\nload %s\nset dkp on\nwait epochs 1\n' "$small"; cat "$dir/knobs.gs"; printf 'load cora\nwait epochs 1\n'
  cat "$dir/knobs.gs"; } >"$dir/load.gs"
got=$("$BIN" --script "$dir/load.gs" --max-epochs 3 2>&1 | grep -E '^ +[a-z-]+ = [^ ]+( \(auto\))?$' | tr -s ' ' | tr '\n' ';')
there=$("$BIN" --dataset "$small" --chunks 12 --dkp on --script "$dir/knobs.gs" --max-epochs 1 2>&1 | tr -s ' ' | tr '\n' ';')
[ "$got" = "$there device-mem = 4M; chunks = 12; dkp = on; order = metis; selective = off;" ] &&
    ok "load moves the knobs the Cora setting owns, keeps those set ($got)" || bad "load: $got, started there: $there"
printf 'get devices\n' >"$dir/devices.gs"
got=$("$BIN" --topology h100-pcie5 --dataset gen:like=products,scale=0.002 --simulate --script "$dir/devices.gs" --max-epochs 1 2>&1 | xargs)
[ "$got" = "devices = 1" ] && ok "the workbench on a one-GPU machine runs on its one device (it asked for 2)" ||
    bad "the workbench on h100-pcie5: $got"

expect_fail 2 "--simulate needs --clock virtual and --kernel-time roofline" -- "$BIN" train --simulate --clock wall
expect_fail 2 "--simulate needs --clock virtual and --kernel-time roofline" -- "$BIN" train --simulate --kernel-time measured
expect_fail 2 "--simulate runs on the cpu backend's emulated devices" -- "$BIN" train --simulate --backend cuda
finish
