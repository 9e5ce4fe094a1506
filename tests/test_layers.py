"""The house rules of `../docs` (design): layers core <- envs <- agents <- training / evaluation <- CLI, no import
upward (lazy imports inside functions included), training and evaluation never import each other, no import circle,
envs never name agents, agents read only what `bridgerl.envs` exports, and ``import bridgerl`` stays light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"bridgerl": ROOT / "bridgerl", "bridgerl.envs": ROOT / "envs", "bridgerl.agents": ROOT / "agents",
            "bridgerl.training": ROOT / "training", "bridgerl.evaluation": ROOT / "evaluation"}
LAYERS = [("bridgerl.core", 0), ("bridgerl.envs", 1), ("bridgerl.agents", 2), ("bridgerl.arena", 2.5),
          ("bridgerl.training", 3), ("bridgerl.evaluation", 3), ("bridgerl", 4)]
AGENT_ENV_FACTORIES = {"bridgerl.agents.card_play_env"}  # the Gymnasium factory that supplies default defenders


def _modules() -> dict[str, Path]:
    found = {}
    for package, directory in PACKAGES.items():
        for path in directory.rglob("*.py"):
            rel = path.relative_to(directory).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if package == "bridgerl" and parts and parts[0] in ("data",):
                continue
            name = ".".join([package, *parts])
            if any(name.startswith(other + ".") or name == other for other in PACKAGES if other != package
                   and other.startswith(package + ".")):
                continue  # a subpackage mapped elsewhere
            found[name] = path
    return found


MODULES = _modules()


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for _ in range(node.level - 1):
        package = package.rsplit(".", 1)[0]
    return f"{package}.{node.module}" if node.module else package


def imports_of(module: str) -> set[str]:
    """Every bridgerl module ``module`` imports, at the top or inside a function; ``from pkg import sub`` counts as
    importing the submodule."""
    path = MODULES[module]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node)
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:  # `import bridgerl.core.cards as c` or an attribute
                name = name.rsplit(".", 1)[0] if "." in name else ""
            if name.startswith("bridgerl") and name != module:
                targets.add(name)
    return targets


def layer(module: str) -> tuple[str, int]:
    for prefix, level in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return prefix, level
    raise AssertionError(module)


def test_the_walk_sees_every_layer():
    names = set(MODULES)
    for expected in ("bridgerl.core.uncontested", "bridgerl.envs.competitive", "bridgerl.agents.learned.dqn",
                     "bridgerl.training.run", "bridgerl.evaluation.bidding.competitive", "bridgerl.cli",
                     "bridgerl.envs.pettingzoo.competitive_bidding_v0", "bridgerl.envs.jaxenv.tables"):
        assert expected in names
    assert "bridgerl.core.competitive" in imports_of("bridgerl.envs.competitive")
    assert "bridgerl.core.uncontested" in imports_of("bridgerl.core.competitive")  # relative import resolved


def test_no_upward_import():
    upward = []
    for module in MODULES:
        group, level = layer(module)
        for target in imports_of(module):
            target_group, target_level = layer(target)
            if target_level > level or {group, target_group} == {"bridgerl.training", "bridgerl.evaluation"}:
                upward.append(f"{module} -> {target}")
    assert not upward, "imports against the layers: " + "; ".join(sorted(upward))


def test_no_import_circle():
    graph = {module: imports_of(module) for module in MODULES}
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(node):  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for module in graph:
        if module not in index:
            visit(module)
    assert not circles, f"import circles: {circles}"


def test_envs_never_name_agents_and_agents_read_what_envs_export():
    for module, path in MODULES.items():
        if module.startswith("bridgerl.envs"):
            assert "bridgerl.agents" not in path.read_text(), f"{module} names bridgerl.agents"
        if module.startswith("bridgerl.agents") and module not in AGENT_ENV_FACTORIES:
            deep = [t for t in imports_of(module) if t.startswith("bridgerl.envs.")]
            assert not deep, f"{module} imports {deep}; agents import only what bridgerl.envs exports"


AGENT_ROOMS = ("bridgerl.agents.bidding", "bridgerl.agents.play", "bridgerl.agents.learned")
# what a play agent may read of the bidding room: the agreements engine, the systems' tables, and each system's
# reading of its own table; never a bidder's internals (nor the rule bidders' picture of partner, `agreements`)
PLAY_READS_OF_BIDDING = {"bridgerl.agents.bidding.engine": None, "bridgerl.agents.bidding.readings": None,
                         "bridgerl.agents.bidding.rules_table": None,
                         "bridgerl.agents.bidding.sayc_agreements": None,
                         "bridgerl.agents.bidding.rules_agreements": {"RULES", "interpret_auction", "seat_reading"},
                         "bridgerl.agents.bidding.sayc": {"SAYC", "sayc_constraints"}}


def names_imported(module: str) -> dict[str, set[str]]:
    """For each bridgerl module ``module`` imports from (``from X import a, b``), the names it takes; a plain
    ``import X`` counts as taking everything (``{"*"}``)."""
    path = MODULES[module]
    taken: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node)
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:  # `from package import submodule`
                    taken.setdefault(f"{base}.{alias.name}", set()).add("*")
                else:
                    taken.setdefault(base, set()).add(alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                taken.setdefault(alias.name, set()).add("*")
    return taken


def room(module: str) -> str | None:
    return next((r for r in AGENT_ROOMS if module == r or module.startswith(r + ".")), None)


def test_agents_live_in_their_rooms():
    """Every agent module is in a room by what it does (bidding, play, learned); play agents read of the bidding
    room only the agreements engine and the systems' tables; learned agents never import the search players;
    rule bidders import neither."""
    loose = [m for m in MODULES if m.startswith("bridgerl.agents.") and room(m) is None
             and m not in AGENT_ENV_FACTORIES]
    assert not loose, f"agent modules outside the rooms {AGENT_ROOMS}: {loose}"
    wrong = []
    for module in MODULES:
        here = room(module)
        for target, names in names_imported(module).items():
            there = room(target)
            if here == "bridgerl.agents.play" and there == "bridgerl.agents.bidding":
                allowed = PLAY_READS_OF_BIDDING.get(target, set())
                if allowed is not None and not names <= allowed:
                    wrong.append(f"{module} -> {target}: {sorted(names)}")
            if here == "bridgerl.agents.learned" and there == "bridgerl.agents.play":
                wrong.append(f"{module} -> {target}")
            if here == "bridgerl.agents.bidding" and there in ("bridgerl.agents.play", "bridgerl.agents.learned"):
                wrong.append(f"{module} -> {target}")
    assert not wrong, "imports across the agents' rooms: " + "; ".join(wrong)


def test_the_rooms_check_catches_a_violation(tmp_path, monkeypatch):
    fake = tmp_path / "fake_play.py"
    fake.write_text("from bridgerl.agents.bidding.constructive_rules import Picture\n")
    monkeypatch.setitem(MODULES, "bridgerl.agents.play.fake", fake)
    with pytest.raises(AssertionError, match="fake -> bridgerl.agents.bidding.constructive_rules"):
        test_agents_live_in_their_rooms()


FRAMEWORKS = {  # the thin files over the rules modules, by framework
    "gymnasium": ("bridgerl.envs.uncontested", "bridgerl.envs.competitive", "bridgerl.envs.card_play",
                  "bridgerl.envs.bridge", "bridgerl.envs.spaces"),
    "openspiel": ("bridgerl.envs.openspiel",),  # openspiel, openspiel_common, openspiel_<game>
    "pettingzoo": ("bridgerl.envs.pettingzoo",),
    "jax": ("bridgerl.envs.jaxenv",),
}


def framework(module: str) -> str | None:
    for name, prefixes in FRAMEWORKS.items():
        if any(module == p or module.startswith(p + ".") or module.startswith(p + "_") for p in prefixes):
            return name
    return None


def test_no_framework_file_imports_another_frameworks_file():
    assert framework("bridgerl.envs.openspiel_card_play") == "openspiel" and framework("bridgerl.envs.worlds") is None
    assert framework("bridgerl.envs.bridge") == "gymnasium"  # the whole deal's Gymnasium file too (issue #52)
    crossing = [f"{module} -> {target}" for module in MODULES if framework(module)
                for target in imports_of(module) if framework(target) not in (None, framework(module))]
    assert not crossing, crossing


def test_the_circle_and_upward_checks_catch_a_violation(tmp_path, monkeypatch):
    """The walk is not vacuous: a core module importing an agent is upward, and two modules importing each other
    are a circle."""
    fake_core = tmp_path / "fake_core.py"
    fake_core.write_text("from bridgerl.agents.learned import dqn\n")
    fake_other = tmp_path / "fake_other.py"
    fake_other.write_text("import bridgerl.core.fake\n")
    monkeypatch.setitem(MODULES, "bridgerl.core.fake", fake_core)
    monkeypatch.setitem(MODULES, "bridgerl.agents.fake", fake_other)
    assert "bridgerl.agents.learned.dqn" in imports_of("bridgerl.core.fake")
    with pytest.raises(AssertionError, match="bridgerl.core.fake -> bridgerl.agents.learned.dqn"):
        test_no_upward_import()
    fake_core.write_text("import bridgerl.agents.fake\n")
    with pytest.raises(AssertionError, match="import circles"):
        test_no_import_circle()


HEAVY = ("pyspiel", "open_spiel", "jax", "jaxlib", "flax", "optax", "rlax", "pettingzoo", "ray", "fastapi",
         "uvicorn", "bridgerl.envs", "bridgerl.agents", "bridgerl.training", "bridgerl.evaluation")


@pytest.mark.parametrize("statement", ["import bridgerl.core", "import bridgerl",
                                       "import bridgerl.core.uncontested, bridgerl.core.competitive, "
                                       "bridgerl.core.card_play"])
def test_light_import(statement):
    code = (f"import sys\n{statement}\n"
            f"heavy = {HEAVY!r}\n"
            "loaded = sorted(m for m in sys.modules if any(m == h or m.startswith(h + '.') for h in heavy))\n"
            "print(','.join(loaded))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT / "tests")
    assert out.stdout.strip() == "", f"{statement!r} loaded {out.stdout.strip()}"


def test_gymnasium_ids_point_at_modules_that_exist():
    import importlib

    import gymnasium

    import bridgerl
    from bridgerl.registration import ENTRY_POINTS

    for env_id, entry_point in ENTRY_POINTS.items():
        assert gymnasium.registry[env_id].entry_point == entry_point
        module, _, attr = entry_point.partition(":")
        assert callable(getattr(importlib.import_module(module), attr))
    assert bridgerl.__version__


def test_the_core_holds_no_command_line():
    """argparse lives in the CLI (`bridgerl/cli/`), not in the core nor in the layers below the CLI (issue #52)."""
    found = [module for module, path in MODULES.items()
             if not module.startswith("bridgerl.cli") and "argparse" in imports_of_any(path)]
    assert not found, found


def imports_of_any(path: Path) -> set[str]:
    """Every top-level name ``path`` imports (any package)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_the_command_line_check_catches_a_violation(tmp_path, monkeypatch):
    fake = tmp_path / "fake_args.py"
    fake.write_text("import argparse\n")
    monkeypatch.setitem(MODULES, "bridgerl.core.fake_args", fake)
    with pytest.raises(AssertionError, match="bridgerl.core.fake_args"):
        test_the_core_holds_no_command_line()


EVALUATION_SUBJECTS = ("bidding", "cardplay", "datasets", "reports")


def test_the_rooms_above_the_agents():
    """Issue #52: the table engine (`bridgerl.arena`) sits between the agents and evaluation / training / the web
    page; the web page plays through it and imports neither evaluation nor training; every evaluation module lives in
    a subject package (`bidding`, `cardplay`, `datasets`, `reports`), not loose in `evaluation/`."""
    assert layer("bridgerl.arena.game") == ("bridgerl.arena", 2.5)
    assert {"bridgerl.arena.game", "bridgerl.arena.specs", "bridgerl.arena.lockstep", "bridgerl.arena.jsonlines",
            "bridgerl.arena.play", "bridgerl.arena.explain"} <= set(MODULES)
    wrong = [f"{module} -> {target}" for module in MODULES if module.startswith("bridgerl.web")
             for target in imports_of(module)
             if target.startswith(("bridgerl.evaluation", "bridgerl.training"))]
    assert not wrong, "the web page imports evaluation or training: " + "; ".join(wrong)
    loose = [module for module in MODULES if module.startswith("bridgerl.evaluation.")
             and module.split(".")[2] not in EVALUATION_SUBJECTS]
    assert not loose, f"evaluation modules outside the subjects {EVALUATION_SUBJECTS}: {loose}"


def test_the_new_rooms_checks_catch_a_violation(tmp_path, monkeypatch):
    """Each rule of the rooms above the agents bites: the table engine importing evaluation is upward, the web page
    importing evaluation is refused, and a module loose in `evaluation/` is refused."""
    fake_arena = tmp_path / "fake_arena.py"
    fake_arena.write_text("from bridgerl.evaluation.bidding import competitive\n")
    monkeypatch.setitem(MODULES, "bridgerl.arena.fake", fake_arena)
    with pytest.raises(AssertionError, match="bridgerl.arena.fake -> bridgerl.evaluation.bidding.competitive"):
        test_no_upward_import()
    monkeypatch.delitem(MODULES, "bridgerl.arena.fake")
    fake_web = tmp_path / "fake_web.py"
    fake_web.write_text("import bridgerl.evaluation.reports.report\n")
    monkeypatch.setitem(MODULES, "bridgerl.web.fake", fake_web)
    with pytest.raises(AssertionError, match="bridgerl.web.fake -> bridgerl.evaluation.reports.report"):
        test_the_rooms_above_the_agents()
    monkeypatch.delitem(MODULES, "bridgerl.web.fake")
    fake_loose = tmp_path / "fake_loose.py"
    fake_loose.write_text("")
    monkeypatch.setitem(MODULES, "bridgerl.evaluation.fake_loose", fake_loose)
    with pytest.raises(AssertionError, match="bridgerl.evaluation.fake_loose"):
        test_the_rooms_above_the_agents()


def test_the_framework_check_covers_the_whole_deal(tmp_path, monkeypatch):
    """`envs/bridge.py` (the whole deal's Gymnasium env) may not import another framework's file."""
    fake = tmp_path / "bridge.py"
    fake.write_text((ROOT / "envs" / "bridge.py").read_text() + "\nimport bridgerl.envs.openspiel_common\n")
    monkeypatch.setitem(MODULES, "bridgerl.envs.bridge", fake)
    with pytest.raises(AssertionError, match="bridgerl.envs.bridge -> bridgerl.envs.openspiel_common"):
        test_no_framework_file_imports_another_frameworks_file()


def test_moved_evaluation_modules_keep_their_old_names_for_one_release():
    """`import bridgerl.evaluation.game` (and every other module issue #52 moved) gives the new module itself, with a
    DeprecationWarning that names the new place."""
    import importlib
    import warnings

    import bridgerl.evaluation as evaluation

    assert len(evaluation.MOVED) == 22
    for old, new in evaluation.MOVED.items():
        module = importlib.import_module(new)
        sys.modules.pop(f"bridgerl.evaluation.{old}", None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            alias = importlib.import_module(f"bridgerl.evaluation.{old}")
        assert alias is module and module.__spec__.name == new
        assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught), old
    from bridgerl.evaluation import game  # the attribute form

    assert game is importlib.import_module("bridgerl.arena.game")
