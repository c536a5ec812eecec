# NeuGraph §3.2 and Fig. 6: pipelining with sub-chunks and the swap heuristic.
# A graph of Reddit-like density (average degree 300), where a chunk's
# gather computes about as long as its rows' copy takes; P = 4, k = 4
# throughout. The cap (256 MB) keeps the edge chunks on the GPU after the
# first epoch (--edge-chunks auto): streamed every pass, at this density
# and these 16-wide gathers each block's edges would take ~10x its gather
# to copy, and no order could hide them.
#flags --dataset gen:nodes=20000,degree=300,feats=32,classes=8,seed=2 --devices 1 --topology 1gpu --device-mem 256M --chunks 4 --subchunks 4 --memplan stream --pipeline off --swap off
say "Pipelining (NeuGraph 3.2): watch the H2D and COMPUTE lanes, the epoch time and hidden_frac"
wait epochs 3
mark
say "Before: one buffer - a block's copy and its gather take turns, the lanes alternate"
wait epochs 1
set pipeline on
set swap on
wait epochs 3
say "After: a buffer per sub-chunk (4, swap on) - copies hide under compute"
effect epoch_ms hidden_frac
