"""peer_io.py - reads the OGB raw CSVs (plain or gzip) for the peer
benchmarks (peer_gcn.py, peer_pyg.py)."""
import gzip, os, sys

import numpy as np


def read_csv(path, dtype):
    for p in (path + ".csv.gz", path + ".csv"):
        if os.path.exists(p):
            raw = gzip.open(p, "rt").read() if p.endswith(".gz") else open(p).read()
            return np.array(raw.replace(",", " ").split(), dtype=dtype)
    sys.exit(f"peer: missing {path}.csv.gz")
