# NeutronStar §3 and Fig. 9: DepCache, DepComm and Hybrid on 4 MPI ranks
# One run on NeutronStar's Aliyun cluster model (a T4 per node, 6 Gb/s
# Ethernet). A dense power-law graph with planted communities, GCN with 2
# layers of 128: each rank computes on its node's GPU, so caching every
# dependency is cheap per row but loads and recomputes the whole
# 2-hop neighbourhood; communicating every one waits on the network; and
# Algorithm 4 caches the cheap ones and communicates the rest.
#flags --ranks 4 --dataset gen:nodes=20000,degree=80,feats=256,classes=8,seed=3 --layers 2 --hidden 128 --topology ns-16xt4-6g --dep cache --order none --dkp auto
say "DepCache (NeutronStar 2.2): every rank replicates its 2-hop neighbourhood - watch replica and net"
wait epochs 3
mark
say "Before: DepCache - no embedding crosses the network, replicated rows computed on every rank"
wait epochs 1
set dep comm
say "DepComm: mirrors fetched from their masters at every layer - watch net and wait grow"
wait epochs 3
set dep hybrid
say "Hybrid (Algorithm 4): the cheap subtrees cached, the rest communicated"
wait epochs 3
say "After: Hybrid - faster than either"
effect epoch_ms replica_ms
