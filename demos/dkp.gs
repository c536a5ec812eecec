# GraphTensor §V-A: dynamic kernel placement. Cora's first layer is 1433 -> 16.
#flags --device-mem 4M --memplan stream --dkp off
say "DKP (GraphTensor V-A): aggregation-first gathers 1433 columns, combination-first 16; watch agg_flops"
wait epochs 3
mark
say "Before: aggregation-first - (A X) W: the device lanes are busy with wide gathers"
wait epochs 1
set dkp auto
wait epochs 3
say "After: combination-first - A (X W): far fewer aggregation FLOPs in layer 1"
effect agg_flops epoch_ms
