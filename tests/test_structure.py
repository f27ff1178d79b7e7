"""The library's import graph: floors (DESIGN.md, "Target structure"), no cycle, no import that runs upward.

Every import counts, also those inside functions. A new module must be given its floor here."""
import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "headprune_nb"
FLOORS = {
    "store": 1,                                                      # writes, locks, provenance, tables, dry-run switches
    "heads": 2, "gates": 2, "prune": 2, "gqa": 2, "bench": 2,                  # the model side: knows no method
    "data": 3, "models": 3, "beam": 3, "train": 3, "recipes": 3, "fairseq_adapter": 3, "convergence": 3,   # data, baselines
    "fidelity": 4, "michel": 4, "hard_concrete": 4, "voita": 4, "dsp": 4, "almost_sure": 4, "lag": 4, "lottery": 4,
    "methods": 4,                                                    # the methods and their registry
    "runs": 5,                                                       # run keys, records, the grid runner
    "executors": 5,                                                  # the grid runner's workers: several GPUs, Slurm
    "verdicts": 6, "power": 6,                                       # rules, intervals, the seeds a claim needs
    "reproduce": 7, "report": 7, "api": 7, "cli": 7,                 # the runner, the report, the user's API and CLI
    "voita_exp": 7, "baselines_exp": 7, "llm_exp": 7, "lottery_exp": 7, "michel_exp": 7, "compare": 7,   # the reproductions as grids of runs
}


def imports() -> dict[str, set[str]]:
    "module -> the package's modules it imports (anywhere in its code)."
    mods = {p.stem: p for p in PKG.glob("*.py") if not p.stem.startswith("_")}
    edges = {}
    for m, p in mods.items():
        out = set()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level: names = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
                elif node.module and node.module.split(".")[0] == PKG.name:
                    parts = node.module.split(".")
                    names = [parts[1]] if len(parts) > 1 else [a.name for a in node.names]
                else: names = []
            elif isinstance(node, ast.Import):
                names = [a.name.split(".")[1] for a in node.names if a.name.startswith(PKG.name + ".")]
            else: names = []
            out |= {n for n in names if n in mods and n != m}
        edges[m] = out
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    "Strongly connected components of more than one module (Tarjan)."
    idx, low, on, stack, found, n = {}, {}, set(), [], [], [0]
    def visit(v):
        idx[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in edges[v]:
            if w not in idx: visit(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            c = []
            while True:
                w = stack.pop(); on.discard(w); c.append(w)
                if w == v: break
            if len(c) > 1: found.append(sorted(c))
    for v in edges:
        if v not in idx: visit(v)
    return found


def test_cycles_are_found():
    "The check can fail: a made-up loop is reported."
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    assert cycles(imports()) == []


def test_every_module_has_a_floor():
    missing = sorted(set(imports()) - set(FLOORS))
    assert not missing, f"give these modules a floor in tests/test_structure.py: {missing}"


def test_no_upward_import():
    up = [f"{m} (floor {FLOORS[m]}) imports {t} (floor {FLOORS[t]})"
          for m, ts in imports().items() for t in sorted(ts) if m in FLOORS and t in FLOORS and FLOORS[t] > FLOORS[m]]
    assert not up, "imports that run upward:\n" + "\n".join(up)


def test_store_imports_nothing_of_ours():
    assert imports()["store"] == set()

def test_reproduce_checks_its_parameters_without_torch(tmp_path):
    "The parent process of `headprune reproduce` stays light: transformers (3-4 CPU seconds) loads in the notebook's kernel only."
    import subprocess, sys
    code = ("import sys\nfrom headprune_nb.reproduce import run_experiment\n"
            "try: run_experiment('baselines', 'smoke', params={'precision': 'bf16'}, out_dir=sys.argv[1])\n"
            "except ValueError as e: print(e)\nprint('transformers' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "out")], capture_output=True, text=True)
    assert "the smoke profile runs fp32" in r.stdout, r.stdout + r.stderr
    assert r.stdout.strip().endswith("False"), f"the parent imported transformers: {r.stdout}"
