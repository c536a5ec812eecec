# NeuGraph §3.2 and Fig. 6: the swap heuristic reorders a chunk's sub-chunks.
# A hubs-last graph (its highest-degree vertices numbered last, average
# degree 150), one chunk of four sub-chunks, pipelined: the hubs' sub-chunk
# is the column's compute-heavy one, and in the natural order it comes last,
# so its gather ends every pass with nothing to overlap. The swap, from the
# profiled copy and gather times, exchanges it with a copy-heavy sub-chunk.
# The engine pipelines on across chunks and columns, so a chunk's order moves
# only its pass's ends: the swap pays where a pass is few sub-chunks (at
# P = 4 here the hubs fill the last chunk and it finds nothing to swap).
#flags --dataset gen:nodes=20000,degree=150,feats=128,classes=16,seed=2,hubs=last --hidden 128 --devices 1 --topology 1gpu --device-mem 160M --chunks 1 --subchunks 4 --memplan stream --pipeline on --selective on --swap off
say "The swap (NeuGraph 3.2, Fig. 6): watch the epoch time and swapped_cols in the Training panel"
wait epochs 3
mark
say "Before: swap off - the hubs' sub-chunk last, its gather ends each pass alone on COMPUTE"
wait epochs 1
set swap on
wait epochs 3
say "After: swap on - the hubs' gather first, the other sub-chunks' copies hide under it"
effect epoch_ms swapped_cols
