# NeuGraph §3.2: selective scheduling copies only the source rows a chunk uses.
say "Selective scheduling (NeuGraph 3.2): watch h2d MB per epoch in the Training panel"
set memplan stream
set order metis
set selective off
wait epochs 3
say "Before: selective off - every chunk ships its whole source interval over PCIe"
wait epochs 3
set selective on
wait epochs 3
say "After: selective on - only the rows the chunk needs; h2d drops, the H2D lanes thin out"
wait epochs 3
