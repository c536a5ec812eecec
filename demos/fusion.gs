# NeuGraph §3.4: hoisting and fusion, as a pass over the op program. G-GCN
# is written in plain SAGA-NN form: Scatter copies every vertex row onto
# its edges and ApplyEdge multiplies the edge rows by W_H, W_C and W_V, so
# each layer writes and reads several (E, H) edge tensors. With fuse on,
# the pass moves those products into ApplyVertex (N rows instead of E) and
# evaluates the elementwise gate inside one fused gather: no edge tensor.
# Departure (README, "Hoisting and fusion"): the plain side's scatters and
# edge gathers and the fused gather stream through the emulated GPU, but
# the plain side's elementwise gate runs on the host, so the effect (about
# 6x) is not NeuGraph's device-against-device 2.8x.
#flags --dataset gen:nodes=10000,degree=10,feats=64,classes=8,seed=1 --model ggcn --feat-norm row --hidden 64 --devices 1 --device-mem none --fuse off
say "Plain SAGA-NN G-GCN: products on the edges; watch edge tensors in Training and the host lane"
wait epochs 3
mark
say "Before: fuse off - three (E, H) products and the gate written to edge tensors every layer"
wait epochs 1
set fuse on
say "fuse on: products hoisted to the vertices, the gate fused into the gather"
wait epochs 3
say "After: fuse on - no edge tensor, one fused gather per layer on the device (plain's edge gate ran on the host: see README)"
effect epoch_ms edge_bytes
