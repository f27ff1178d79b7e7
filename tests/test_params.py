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
