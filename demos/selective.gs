# NeuGraph §3.2: selective scheduling copies only the source rows a chunk uses.
# A generated graph with 32 planted communities, METIS-ordered, so a chunk's
# edges come mostly from a few communities' rows.
#flags --dataset gen:nodes=20000,degree=10,feats=32,classes=32,seed=2 --device-mem 1M --memplan stream --order metis --selective off
say "Selective scheduling (NeuGraph 3.2): watch gather_h2d_bytes (the gathers' H2D) in the Training panel"
wait epochs 3
mark
say "Before: selective off - every chunk ships its whole source interval over PCIe"
wait epochs 1
set selective on
wait epochs 3
say "After: selective on - only the rows the chunk needs; the gathers' H2D drops, the H2D lanes thin out"
effect gather_h2d_bytes
