# GraphTensor §V-A: dynamic kernel placement. Cora's first layer is 1433 -> 16.
say "DKP (GraphTensor V-A): aggregation-first gathers 1433 columns, combination-first 16"
set memplan stream
set device-mem 4M
set dkp off
wait epochs 3
say "Before: aggregation-first - (A X) W: the host and device lanes are busy with wide gathers"
wait epochs 3
set dkp auto
wait epochs 3
say "After: combination-first - A (X W): about 90x fewer aggregation FLOPs in layer 1"
wait epochs 3
