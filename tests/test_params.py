"Every reproduction's parameters cell is read whole by `notebook_params` (a parameter it cannot read is hidden from --param checks)."
import ast, json
from headprune_nb.reproduce import EXPERIMENTS, reproduce_dir, notebook_params


def test_papermill_sees_every_parameter():
    for name, exp in EXPERIMENTS.items():
        nb = json.loads((reproduce_dir() / exp.notebook).read_text())
        cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
        assigned = {t.id for n in ast.parse("".join(cell["source"])).body if isinstance(n, (ast.Assign, ast.AnnAssign))
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target])}
        seen = set(notebook_params(name))
        assert assigned == seen, f"{exp.notebook}: notebook_params does not see {sorted(assigned - seen)} (quotes or '=' in a comment?)"


def test_papermill_reads_every_parameter(caplog, tmp_path):
    """papermill's own parameter reader (2.7: an annotation of names, brackets and commas only) finds every parameter, so
    `papermill NB out.ipynb -p out_dir D` warns of no "unknown parameter" (it did for every `X | None` annotation)."""
    import logging
    import papermill as pm
    for name, exp in EXPERIMENTS.items():
        nb = reproduce_dir() / exp.notebook
        assert set(pm.inspect_notebook(str(nb))) == set(notebook_params(name)), exp.notebook
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="papermill"):     # prepare_only: parameters injected, no kernel started
            pm.execute_notebook(str(nb), str(tmp_path / exp.notebook), prepare_only=True, kernel_name="python3",
                                parameters={k: None for k in notebook_params(name)})
        assert not [r.getMessage() for r in caplog.records if "unknown parameter" in r.getMessage()], exp.notebook
