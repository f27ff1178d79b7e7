"""What two runs of one smoke grid on different executors must share (tests/test_slurm.py, tests/test_executors.py):
their tables and claims with the timing columns, and the claims decided by timings, left out."""
import os, re, subprocess
from pathlib import Path
from headprune_nb.store import read_csv

TIMING = {"seconds", "wall_seconds", "speedup_pct", "speedup_pct_of_medians", "speedup_pct_low", "speedup_pct_high",
          "size_shrinkage_pct", "ms", "ms_per_sentence", "time_s", "seconds_per_sentence", "speedup", "tokens_per_s"}

TIMED_CLAIM = re.compile(r"faster|speed", re.I)      # a claim decided by timings (behnke2020's Table 7): timing, not a result


def tables(out: Path, names) -> dict:
    "The CSVs `names` of a run, timing columns and claims decided by timings dropped."
    drop = lambda r: {k: v for k, v in r.items() if k not in TIMING and "time" not in k and "speed" not in k}
    return {n: [drop(r) for r in read_csv(out / n) if not TIMED_CLAIM.search(str(r.get("claim", "")))] for n in names}


def smoke(headprune, name, out, cache, *args):
    "`headprune reproduce name --out out *args` with the cache `cache`; its completed process (asserted to succeed)."
    env = dict(os.environ, HEADPRUNE_CACHE=str(cache))
    r = subprocess.run([headprune, "reproduce", name, "--out", str(out), *args], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    return r
