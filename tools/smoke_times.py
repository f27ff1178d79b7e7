"""Time every reproduction's smoke run from a cold cache, as a user runs it, and commit the times.

Each experiment runs as `headprune reproduce NAME --profile smoke --out <scratch>` in a fresh process with an empty
`HEADPRUNE_CACHE` (so it trains its own smoke baselines, as on a fresh clone), one after another. Written to
`reproduce/smoke_times.csv` (read by `headprune list` and the cost line through `reproduce.runtime_of`): wall and CPU
seconds of the run, how many cores other work kept busy meanwhile and whether that counts as competing (`bench.LoadMonitor`,
the run's own CPU time taken out), with the commit, machine and date, and `reference_s`: the seconds of a fixed
one-thread workload timed just before (this machine's speed wanders: the reference took 0.72 to 1.45 s within one
pass over the experiments; read a wall_s beside its reference_s). A run measured
while other work competed is marked so: measure again on idle cores before committing its number.

    python tools/smoke_times.py                  # every experiment, into reproduce/smoke_times.csv
    python tools/smoke_times.py dsp2021 pass2023 # only these (the other rows are kept)
"""
import argparse, os, shutil, subprocess, sys, tempfile
from pathlib import Path


def measure(name: str, headprune: str, scratch: Path) -> dict:
    "Run one smoke reproduction from a cold cache; its wall and CPU seconds and the other work on the machine meanwhile."
    from headprune_nb.bench import LoadMonitor
    cache, out = scratch / f"cache-{name}", scratch / name
    shutil.rmtree(cache, ignore_errors=True); shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, HEADPRUNE_CACHE=str(cache))
    c0 = os.times()
    with LoadMonitor(f"smoke run of {name}", warn=False) as load:     # its CPU time counts as its own, not as other work
        r = subprocess.run([headprune, "reproduce", name, "--profile", "smoke", "--out", str(out)], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"{name}: the smoke run failed (exit {r.returncode}): {r.stderr.strip().splitlines()[-1:]}")
    c1, rec = os.times(), load.record
    cpu = (c1.children_user + c1.children_system) - (c0.children_user + c0.children_system)
    return dict(experiment=name, wall_s=round(rec["seconds"], 1), cpu_s=round(cpu, 1), other_cores=rec["other_cores"],
                competing=bool(rec["competing"]))

def reference_seconds() -> float:
    "Seconds of a fixed one-thread workload (300 AdamW steps of a small MLP, in a fresh process): the machine's speed now."
    code = ("import time, torch; torch.set_num_threads(1); torch.manual_seed(0)\n"
            "m = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 256))\n"
            "o, x = torch.optim.AdamW(m.parameters()), torch.randn(64, 256); t = time.perf_counter()\n"
            "for _ in range(300): o.zero_grad(); m(x).square().mean().backward(); o.step()\n"
            "print(time.perf_counter() - t)")
    return round(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout), 2)


def main(argv=None) -> None:
    from headprune_nb.reproduce import EXPERIMENTS, SMOKE_TIMES, reproduce_dir
    from headprune_nb.store import read_csv, write_csv, machine_info, utc_now, _git_commit
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="experiments to time (default: every one)")
    args = ap.parse_args(argv)
    if unknown := [n for n in args.names if n not in EXPERIMENTS]:
        sys.exit(f"unknown experiment(s) {', '.join(unknown)}; choose from {', '.join(EXPERIMENTS)}")
    headprune = str(Path(sys.executable).parent / "headprune")
    path = reproduce_dir() / SMOKE_TIMES
    rows = {r["experiment"]: r for r in (read_csv(path) if path.exists() else [])}
    info, commit = machine_info(), _git_commit()
    with tempfile.TemporaryDirectory(prefix="smoke-times-") as d:
        for i, name in enumerate(args.names or list(EXPERIMENTS), 1):
            print(f"[{i}/{len(args.names or EXPERIMENTS)}] {name} ...", end=" ", flush=True)
            ref = reference_seconds()                                     # the machine's speed just before
            row = dict(measure(name, headprune, Path(d)), reference_s=ref)
            rows[name] = dict(row, cores=info["cpu_count"], cpu=info["cpu"], torch=info["torch"], commit=commit, measured_utc=utc_now())
            print(f"{row['wall_s']} s" + (f" (other work competed: {row['other_cores']} cores busy elsewhere)" if row["competing"] else ""))
            write_csv(path, [rows[n] for n in EXPERIMENTS if n in rows])      # after each: an interruption keeps the others
    if any(str(r["competing"]) == "True" for r in rows.values()):
        print("warning: other work competed during some runs: measure those again on idle cores", file=sys.stderr)


if __name__ == "__main__":
    main()
