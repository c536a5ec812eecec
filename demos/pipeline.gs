# NeuGraph §3.2 and Fig. 6: pipelining with sub-chunks and the swap heuristic.
say "Pipelining (NeuGraph 3.2): watch the H2D and COMPUTE lanes of each device"
set memplan stream
set pipeline off
set subchunks 1
set swap off
wait epochs 3
say "Before: one buffer - copies and compute take turns, the lanes alternate"
wait epochs 3
set pipeline on
set subchunks 4
set swap on
wait epochs 3
say "After: 4 sub-chunks, double-buffered and reordered - copies hide under compute"
wait epochs 3
