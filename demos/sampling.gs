# GraphTensor's service-wide tensor scheduler. Each step trains on a
# batch of 512 vertices and their sampled 2-hop neighbourhood (10, then 5
# neighbours a vertex). Before the step, the host samples it (S), puts its
# blocks in local rows (R), looks up its feature rows (K) and sends them to
# the GPU (T). Serial (GraphTensor's Dynamic-GT baseline) runs these one
# after another, preparing the next batch while this one trains; pipelined
# also overlaps them: rows are looked up and sent while sampling goes on.
#flags --dataset gen:nodes=20000,degree=10,feats=256,classes=8,seed=1 --batch-size 512 --fanout 10,5 --prepro serial
say "Serial preprocessing (Dynamic-GT): S, R, K and T in order; watch step waits in Training"
wait epochs 3
mark
say "Before: prepro serial - the GPU waits for most of every batch's preprocessing"
wait epochs 1
set prepro pipelined
say "prepro pipelined: K and T overlap sampling, as soon as each hop's rows are known"
wait epochs 3
say "After: prepro pipelined - the link is busy all the time; the epoch is the transfers' time"
effect epoch_ms prepro_wait_ms
