"""The agent's own control groups: found from ``/proc/self/cgroup``, made below it, probed.

Why below the agent's own group and nowhere else: a group elsewhere would take a share
of someone else's limits (a container's, a systemd unit's, another agent's), and its
creation needs rights the agent may not have. Each session and gate then gets a group
of its own below the agent's (:mod:`agent.sandbox.enter`), so one going over its limit
is ended alone, never the agent, the daemon or another agent.

cgroup v1 (one hierarchy per controller, as on this machine): a group below ours in the
memory, pids and cpu hierarchies. cgroup v2: only where the controllers are enabled for
our group's children, or can be without moving another process (the "no internal
processes" rule: a group that hands controllers to its children holds no process itself,
so the agent moves itself into a leaf, and does so only when it is alone in its group).
Anywhere else (a v2 group shared with other processes and nothing delegated, no cgroup
file system at all) the agent says which limits do not hold; rlimits and sized mounts do.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent.sandbox import groups
from common.schemas.limits import Limits

CONTROLLERS = ("memory", "pids", "cpu")
BASE_PREFIX = "harness-"
"""The agent's own groups are ``harness-PID-NONCE``: a dead agent's are swept by name."""
_MB = 1 << 20


@dataclass(frozen=True)
class Membership:
    """One line of ``/proc/self/cgroup``: a hierarchy, its controllers and our group in it."""

    controllers: tuple[str, ...]
    """A v1 hierarchy's controllers (a named one, ``name=systemd``, has none)."""
    path: str
    v2: bool = False
    """cgroup v2's unified hierarchy (``0::/path``)."""


@dataclass(frozen=True)
class Mount:
    """One mounted cgroup hierarchy (``/proc/self/mountinfo``)."""

    point: str
    root: str
    """The group the mount shows as its top (``/`` unless a namespace or bind moved it)."""
    controllers: tuple[str, ...]
    """A v1 hierarchy's controllers; empty for v2."""
    v2: bool


def memberships(text: str) -> list[Membership]:
    """``/proc/self/cgroup`` read (pure): ``4:memory:/a`` and ``0::/b`` lines."""
    found = []
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            names = tuple(name for name in parts[1].split(",") if name and "=" not in name)
            found.append(Membership(names, parts[2], v2=parts[0] == "0" and not parts[1]))
    return found


def mounts(text: str) -> list[Mount]:
    """The cgroup hierarchies of ``/proc/self/mountinfo`` (pure)."""
    found = []
    for line in text.splitlines():
        head, _, tail = line.partition(" - ")
        fields, after = head.split(), tail.split()
        if len(fields) < 5 or len(after) < 3 or after[0] not in ("cgroup", "cgroup2"):
            continue
        v2 = after[0] == "cgroup2"
        options = () if v2 else tuple(o for o in after[2].split(",") if o in CONTROLLERS)
        found.append(Mount(_unescape(fields[4]), _unescape(fields[3]), options, v2))
    return found


def own_dir(membership: Membership, mount: Mount) -> str | None:
    """Our group's folder in ``mount`` (pure); ``None`` when the mount does not show it."""
    root = mount.root.rstrip("/")
    if membership.path != root and not membership.path.startswith(root + "/"):
        return None
    return mount.point.rstrip("/") + membership.path[len(root) :].rstrip("/")


def v2_decision(
    *, is_root: bool, available: set[str], enabled: set[str], procs: list[int], me: int
) -> str:
    """How the agent gets v2 groups for its commands (pure): ``use`` (its group already
    hands the controllers down, or is the hierarchy's root, which may hold processes),
    ``move_self`` (alone in its group: into a leaf of its own, then enable them), or why
    it cannot (``refuse: …``)."""
    if not available:
        return "refuse: cgroup v2 offers none of memory, pids, cpu to this agent's group"
    if is_root or available <= enabled:
        return "use"
    if set(procs) - {me}:
        return (
            "refuse: cgroup v2 without a delegated group for this agent (its group holds "
            "other processes, and enabling controllers there would move them)"
        )
    return "move_self"


@dataclass
class AgentGroups:
    """The agent's own groups, one per hierarchy, each the parent of its commands' groups."""

    parents: list[str] = field(default_factory=list)
    held: dict[str, str] = field(default_factory=dict)
    """Controller → how it is enforced (``cgroup v1``, ``cgroup v2``)."""
    not_set: dict[str, str] = field(default_factory=dict)
    """Controller → why it could not be set here."""
    _undo: list[Callable[[], None]] = field(default_factory=list)

    def release(self) -> None:
        """Empty and remove every group made (the agent is ending), newest first."""
        for parent in self.parents:
            groups.sweep(parent, every=True)
            groups.remove(parent)
        for undo in reversed(self._undo):
            undo()
        self.parents.clear()


def wanted(limits: Limits) -> list[str]:
    """The controllers ``limits`` needs (pure)."""
    asked = {"memory": limits.memory_mb, "pids": limits.processes, "cpu": limits.cpus}
    return [name for name in CONTROLLERS if asked[name] is not None]


def prepare(limits: Limits, proc: str = "/proc/self") -> AgentGroups:
    """Make the agent's groups and probe them with ``limits`` (one cheap probe at start).

    Never raises: a controller that cannot be had is named in ``not_set`` with the reason.
    """
    made = AgentGroups()
    needed = wanted(limits)
    if not needed:
        return made
    try:
        own = memberships(_read(f"{proc}/cgroup"))
        mounted = mounts(_read(f"{proc}/mountinfo"))
    except OSError as e:
        made.not_set = dict.fromkeys(needed, f"no cgroup information ({e.strerror or e})")
        return made
    v2_needed = []
    for controller in needed:
        v1 = _v1_dir(controller, own, mounted)
        if v1 is None:
            v2_needed.append(controller)
        else:
            _v1(made, controller, v1, limits)
    if v2_needed:
        _v2(made, v2_needed, own, mounted, limits)
    return made


def _v1_dir(controller: str, own: list[Membership], mounted: list[Mount]) -> str | None:
    for mount in mounted:
        if controller in mount.controllers:
            for membership in own:
                if controller in membership.controllers:
                    return own_dir(membership, mount)
    return None


def _v1(made: AgentGroups, controller: str, folder: str, limits: Limits) -> None:
    base = next((p for p in made.parents if str(Path(p).parent) == folder), None)
    try:
        if base is None:
            sweep_dead_agents(folder)
            base = groups.make(folder, _base_name())
            made.parents.append(base)
        failed = _probe(base, controller, limits)
    except OSError as e:
        made.not_set[controller] = f"cannot make a cgroup in {folder} ({e.strerror or e})"
        return
    if failed:
        made.not_set[controller] = f"cgroup v1 refused it ({'; '.join(failed)})"
    else:
        made.held[controller] = "cgroup v1"


def _v2(
    made: AgentGroups,
    needed: list[str],
    own: list[Membership],
    mounted: list[Mount],
    limits: Limits,
) -> None:
    unified = next((m for m in own if m.v2), None)
    mount = next((m for m in mounted if m.v2), None)
    folder = own_dir(unified, mount) if unified and mount else None
    if folder is None:
        made.not_set.update(dict.fromkeys(needed, "no cgroup hierarchy has it here"))
        return
    try:
        _v2_base(made, folder, needed, limits)
    except OSError as e:
        made.not_set.update(
            {c: f"cgroup v2 refused it ({e.strerror or e})" for c in needed if c not in made.held}
        )


def _v2_base(made: AgentGroups, folder: str, needed: list[str], limits: Limits) -> None:
    available = set(_read(f"{folder}/cgroup.controllers").split()) & set(needed)
    enabled = set(_read(f"{folder}/cgroup.subtree_control").split())
    procs = [int(p) for p in _read(f"{folder}/cgroup.procs").split()]
    decision = v2_decision(
        is_root=unified_root(folder),
        available=available,
        enabled=enabled,
        procs=procs,
        me=os.getpid(),
    )
    if decision.startswith("refuse"):
        made.not_set.update(dict.fromkeys(needed, decision.removeprefix("refuse: ")))
        return
    sweep_dead_agents(folder)
    if decision == "move_self":
        made._undo.append(_move_self(folder, available - enabled))
    elif available - enabled:  # the hierarchy's root: it may hold processes and hand down
        _write(f"{folder}/cgroup.subtree_control", _change("+", available - enabled))
    base = groups.make(folder, _base_name())
    made.parents.append(base)
    _write(f"{base}/cgroup.subtree_control", _change("+", available))
    for controller in needed:
        failed = _probe(base, controller, limits) if controller in available else ["not offered"]
        if failed:
            made.not_set[controller] = f"cgroup v2 refused it ({'; '.join(failed)})"
        else:
            made.held[controller] = "cgroup v2"


def unified_root(folder: str) -> bool:
    """Whether ``folder`` is the top of the v2 hierarchy (it has no ``cgroup.type``)."""
    return not Path(folder, "cgroup.type").exists()


def _move_self(folder: str, to_enable: set[str]) -> Callable[[], None]:
    """Move this process into a leaf of its group and hand ``to_enable`` to the children;
    the undo hands them back and returns the process, so the leaf can go."""
    leaf = groups.make(folder, f"{_base_name()}-self")
    _write(f"{leaf}/cgroup.procs", "0")
    _write(f"{folder}/cgroup.subtree_control", _change("+", to_enable))

    def undo() -> None:
        try:
            _write(f"{folder}/cgroup.subtree_control", _change("-", to_enable))
            _write(f"{folder}/cgroup.procs", "0")
        except OSError:
            return  # another child still uses them: the leaf stays, with this process
        groups.remove(leaf)

    return undo


def _probe(base: str, controller: str, limits: Limits) -> list[str]:
    """Make a group below ``base`` with ``controller``'s limit; what failed (empty: held)."""
    probe = groups.make(base, f"probe-{os.getpid()}")
    try:
        memory = limits.memory_mb * _MB if controller == "memory" and limits.memory_mb else None
        processes = limits.processes if controller == "pids" else None
        cpus = limits.cpus if controller == "cpu" else None
        files = {entry.name for entry in Path(probe).iterdir()}
        if not groups.limit_writes(files, memory, processes, cpus):
            return [f"no {controller} limit file"]
        return groups.limit(probe, memory, processes, cpus)
    finally:
        groups.remove(probe)


def sweep_dead_agents(folder: str) -> None:
    """Remove the groups of agents that ended without removing theirs (killed outright)."""
    try:
        names = [entry.name for entry in Path(folder).iterdir()]
    except OSError:
        return
    for name in names:
        pid = name.removeprefix(BASE_PREFIX).split("-")[0]
        if name.startswith(BASE_PREFIX) and pid.isdigit() and not Path(f"/proc/{pid}").exists():
            path = f"{folder}/{name}"
            groups.sweep(path, every=True)
            groups.kill_all(path)
            groups.remove(path)


def _change(sign: str, controllers: set[str]) -> str:
    """A ``cgroup.subtree_control`` write: ``+memory +pids`` (pure)."""
    return " ".join(f"{sign}{name}" for name in sorted(controllers))


def _base_name() -> str:
    return f"{BASE_PREFIX}{os.getpid()}-{secrets.token_hex(3)}"


def _read(path: str) -> str:
    return Path(path).read_text()


def _write(path: str, text: str) -> None:
    Path(path).write_text(text)


def _unescape(field: str) -> str:
    """A mountinfo path field (spaces and the like are octal escapes there)."""
    return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n")
