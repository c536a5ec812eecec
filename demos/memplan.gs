# ROC §5: the memory plan keeps tensors on the devices between ops when they fit.
# At 32M a device holds the 15.5 MB dropped-out features from the forward
# matmul to the backward one, which reads them again for the weight gradient.
#flags --device-mem 32M --memplan stream
say "Memory plans (ROC 5): watch h2d_bytes and kept_bytes per epoch in the Training panel"
wait epochs 3
mark
say "Before: stream - every op brings its inputs in again (a gather once per column)"
wait epochs 1
set memplan roc
wait epochs 4
say "After: roc - one recorded epoch, then ROC's plan keeps what fits; h2d drops by the kept bytes"
effect h2d_bytes epoch_ms
