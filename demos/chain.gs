# NeuGraph §3.3: chain streaming under a PCIe switch against naive loading.
say "Multi-device (NeuGraph 3.3): two devices under one switch share its uplink"
set memplan stream
set multidev naive
wait epochs 3
say "Before: naive - both devices load every block from the host (h2d counts it twice)"
wait epochs 3
set multidev chain
wait epochs 3
say "After: chain - one device loads, the other receives it device-to-device (d2d), the uplink carries it once"
wait epochs 3
