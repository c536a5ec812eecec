# NeuGraph §3.3: chain streaming under a PCIe switch against naive loading.
#flags --dataset gen:nodes=20000,degree=10,feats=32,classes=32,seed=2 --device-mem 1M --selective off --memplan stream --multidev naive
say "Multi-device (NeuGraph 3.3): two devices under one switch share its uplink; watch gather_h2d_bytes and d2d"
wait epochs 3
mark
say "Before: naive - both devices load every block from the host: the uplink carries it twice"
wait epochs 1
set multidev chain
wait epochs 3
say "After: chain - one device loads, the other receives it device-to-device: the uplink carries it once"
effect gather_h2d_bytes epoch_ms
