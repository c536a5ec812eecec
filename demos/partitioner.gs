# ROC §4 and §7.6: where to cut the vertices across 4 emulated GPUs. A
# power-law graph numbered hubs first: equal vertex ranges give the first
# GPU most of the edges, so the others wait for it at every gather. ROC's
# cost model learns each part's time from the measured ones (five features
# per vertex, least squares per layer) and cuts where the predicted times
# are equal.
#flags --dataset gen:nodes=20000,degree=800,feats=128,classes=8,seed=1,hubs=1 --devices 4 --topology nvlink-4 --multidev naive --pipeline on --device-mem none --hidden 128 --partitioner equal-vertex
say "Equal-vertex (NeuGraph's split): watch imbalance in Training, the parts in Utilisation"
wait epochs 3
mark
say "Before: equal-vertex - the first part holds the hubs and most of the edges"
wait epochs 1
set partitioner roc
say "roc: the cost model is fitted on the measured parts and cuts again each epoch"
wait epochs 4
say "After: roc - predicted and measured part times agree, the devices finish together"
effect epoch_ms part_imbalance
