"""benchlib.py - helpers shared by the Python benchmarks: build gnnscope,
run `gnnscope train --json` and parse its summary, alternate two
configurations on this noisy VM, and tally PASS/FAIL lines."""
import argparse, json, os, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
exe = os.path.join(root, "gnnscope")
results = []


def setup(epochs, nodes):
    """Parses [WORKDIR] [--epochs E] [--nodes N] with these defaults, points
    the dataset cache into WORKDIR and builds gnnscope; returns the args."""
    ap = argparse.ArgumentParser()
    ap.add_argument("work", nargs="?", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "gnnscope-bench"))
    ap.add_argument("--epochs", type=int, default=epochs)
    ap.add_argument("--nodes", type=int, default=nodes)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    os.environ["GNNSCOPE_CACHE_DIR"] = os.path.join(a.work, "cache")
    build()
    return a


def build():
    subprocess.run(["make", "-s", "-C", root, "gnnscope"], check=True, stdout=subprocess.DEVNULL)


def gen_graph(work, nodes, deg, feats, classes):
    """A generated power-law graph in work, made once and then reused."""
    d = os.path.join(work, f"stream-n{nodes}-d{deg}" + (f"-f{feats}" if feats != 128 else ""))
    if not os.path.exists(os.path.join(d, "node-label.csv.gz")):
        subprocess.run([exe, "gen", "--nodes", str(nodes), "--avg-degree", str(deg), "--feats", str(feats),
                        "--classes", str(classes), "--seed", "3", "--out", d], check=True)
    return d


def train(dataset, *flags):
    """One `gnnscope train --json` run; returns its JSON summary."""
    cmd = [exe, "train", "--dataset", dataset, "--json", "--quiet", *flags]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def paired(dataset, a_flags, b_flags, rounds=3, runner=train):
    """Runs two configurations alternately (through runner, train by default);
    returns the last JSON of each with epoch_ms_median replaced by the median
    over the rounds."""
    ra, rb = [], []
    for _ in range(rounds):
        ra.append(runner(dataset, *a_flags))
        rb.append(runner(dataset, *b_flags))
    med = lambda rs: sorted(r["epoch_ms_median"] for r in rs)[len(rs) // 2]
    a_last, b_last = dict(ra[-1]), dict(rb[-1])
    a_last["epoch_ms_median"], b_last["epoch_ms_median"] = med(ra), med(rb)
    return a_last, b_last


def check(name, ok, detail):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}", flush=True)


def finish(bench):
    print(f"{bench}: {sum(results)} passed, {len(results) - sum(results)} failed")
    sys.exit(0 if all(results) else 1)
