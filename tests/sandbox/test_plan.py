"""The bubblewrap command line a session gets: built without starting anything."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent.sandbox import layout
from agent.sandbox.bridge import inside_url
from agent.sandbox.plan import HIDDEN_VARIABLES, INSIDE_DIR, Forward, SandboxPlan, bwrap_argv
from agent.sandbox.protected import ProtectedPlaces
from agent.sandbox.session_plan import extra_read_only, git_paths, write_wrapper

BWRAP = Path("/opt/bwrap")


def plan(tmp_path: Path, **changes: object) -> SandboxPlan:
    project = tmp_path / "proj"
    fields: dict[str, object] = {
        "project_dir": project,
        "scratch_home": tmp_path / "home",
        "cli": tmp_path / "claude",
        "relay": tmp_path / "relay.py",
        "python": Path("/usr/bin/python3"),
        "read_only_in_project": (project / ".git",),
        "hidden_in_project": (project / ".claude-agent",),
    }
    fields.update(changes)
    return SandboxPlan(**fields)  # type: ignore[arg-type]


def pairs(argv: list[str], option: str) -> list[str]:
    """The first argument after every ``option``."""
    return [argv[i + 1] for i, arg in enumerate(argv) if arg == option]


def test_everything_is_unshared_and_the_sandbox_dies_with_the_agent(tmp_path: Path) -> None:
    argv = bwrap_argv(plan(tmp_path), BWRAP, ["claude", "-p"])
    assert argv[:2] == [str(BWRAP), "--unshare-all"]
    assert "--share-net" not in argv
    assert "--die-with-parent" in argv and "--new-session" in argv
    assert pairs(argv, "--cap-drop") == ["ALL"]
    assert argv[-3:] == ["--", "claude", "-p"]


def test_network_is_shared_only_when_the_spec_asks(tmp_path: Path) -> None:
    assert "--share-net" in bwrap_argv(plan(tmp_path, network=True), BWRAP, ["x"])


def test_git_and_the_workspace_are_covered_after_the_project_is_bound(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    argv = bwrap_argv(plan(tmp_path), BWRAP, ["x"])
    bind = argv.index("--bind", argv.index(str(tmp_path / "home")) + 1)
    assert argv[bind : bind + 3] == ["--bind", str(project), str(project)]
    git = argv.index(str(project / ".git"))
    assert argv[git - 1] == "--ro-bind" and git > bind
    hidden = str(project / ".claude-agent")
    assert pairs(argv, "--tmpfs").count(hidden) == 1
    assert hidden in pairs(argv, "--remount-ro")
    assert argv.index(hidden) > bind


def test_only_allowlisted_folders_exist_inside(tmp_path: Path) -> None:
    argv = bwrap_argv(plan(tmp_path, read_only=(Path("/srv/py"),)), BWRAP, ["x"])
    bound = pairs(argv, "--ro-bind") + pairs(argv, "--bind")
    assert "/" not in bound
    assert "/srv/py" in bound and "/usr" in bound
    assert not any(path.startswith(("/home", "/root", "/work")) for path in bound)
    assert "/tmp" in pairs(argv, "--tmpfs") and "/run" in pairs(argv, "--tmpfs")


def test_harness_variables_are_unset_and_home_is_the_scratch_one(tmp_path: Path) -> None:
    argv = bwrap_argv(plan(tmp_path, env={"ANTHROPIC_BASE_URL": "http://x"}), BWRAP, ["x"])
    assert set(HIDDEN_VARIABLES) <= set(pairs(argv, "--unsetenv"))
    assert "HARNESS_HOME" in pairs(argv, "--unsetenv")
    setenv = {argv[i + 1]: argv[i + 2] for i, arg in enumerate(argv) if arg == "--setenv"}
    assert setenv["HOME"] == str(tmp_path / "home")
    assert setenv["ANTHROPIC_BASE_URL"] == "http://x"


def test_forwards_reach_the_relay_and_their_sockets_are_bound(tmp_path: Path) -> None:
    socket = tmp_path / "model.sock"
    argv = bwrap_argv(plan(tmp_path, forwards=(Forward(4321, socket),)), BWRAP, ["claude"])
    assert [str(socket), str(INSIDE_DIR / "model.sock")] == argv[
        argv.index(str(socket)) : argv.index(str(socket)) + 2
    ]
    assert f"4321={INSIDE_DIR / 'model.sock'}" in pairs(argv, "--forward")
    relay = argv.index(str(INSIDE_DIR / "relay.py"), argv.index("--chdir"))
    assert argv[relay - 3 : relay] == ["/usr/bin/python3", "-I", "-S"]


def test_symlinked_system_folders_stay_symlinks(tmp_path: Path) -> None:
    argv = bwrap_argv(plan(tmp_path), BWRAP, ["x"])
    for name in ("/bin", "/lib"):
        if Path(name).is_symlink():
            assert name in [argv[i + 2] for i, a in enumerate(argv) if a == "--symlink"]


def test_inside_url_keeps_the_path_and_points_at_the_relay() -> None:
    assert inside_url("http://localhost:8080/api", 8080) == "http://127.0.0.1:8080/api"


def test_a_worktree_shows_its_gitdir_and_common_dir(tmp_path: Path) -> None:
    common = tmp_path / "main" / ".git"
    gitdir = common / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "commondir").write_text("../..\n")
    project = tmp_path / "wt"
    project.mkdir()
    (project / ".git").write_text(f"gitdir: {gitdir}\n")
    assert git_paths(project) == (project / ".git", gitdir, common)
    plain = tmp_path / "plain"
    (plain / ".git").mkdir(parents=True)
    assert git_paths(plain) == (plain / ".git",)


def test_a_symlinked_venv_and_its_interpreter_are_visible(tmp_path: Path) -> None:
    base = tmp_path / "pythons" / "3.11"
    (base / "bin").mkdir(parents=True)
    cache = tmp_path / "envs" / "demo"
    (cache / "bin").mkdir(parents=True)
    (cache / "bin" / "python").symlink_to(base / "bin")
    (cache / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\n")
    shared = tmp_path / "shared-site"
    shared.mkdir()
    site = cache / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (site / "shared.pth").write_text(f"{shared}\nimport os\n/does/not/exist\n")
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".venv").symlink_to(cache)
    places = ProtectedPlaces.of_this_process()
    recorded = layout.resolve(project, places, network=False)
    paths = extra_read_only(project, recorded, places, lambda _line: None)
    assert cache in paths and base in paths and shared in paths
    assert Path("/does/not/exist") not in paths


def test_the_wrapper_passes_the_sdk_arguments_through(tmp_path: Path) -> None:
    wrapper = tmp_path / "claude"
    write_wrapper(wrapper, ["printf", "%s|", "it's"])
    done = subprocess.run([str(wrapper), "--a b", "$HOME"], capture_output=True, text=True)
    assert done.stdout == "it's|--a b|$HOME|"
    assert wrapper.stat().st_mode & 0o777 == 0o700
