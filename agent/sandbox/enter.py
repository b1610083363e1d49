"""In front of every session, gate and replay: limits, a watch, and nothing left behind.

Run as ``python -I -S enter.py [options] -- COMMAND...`` (the base interpreter, like the
relay), outside the sandbox, in front of bubblewrap (or of the command itself where the
spec turns the sandbox off). It

- makes one control group per hierarchy below the agent's (``--group``), limits it
  (``--memory-mb``, ``--processes``, ``--cpus``) and runs the command inside it, itself
  staying out (so that emptying the group never kills the launcher);
- sets ``RLIMIT_FSIZE`` (``--file-size-mb``) and ``RLIMIT_CORE`` 0 for everything below;
- becomes a child subreaper (``--subreaper``, without the sandbox), so every orphan of
  the command is its child;
- forwards SIGTERM, SIGINT and SIGHUP to the command, and treats its own parent's death
  as the end (the agent is gone: nobody will read the result);
- watches while the command runs: OOM kills and refused forks in the group, the sandbox's
  tmpfs mounts filling (``--tmpfs``, through ``/proc/PID/root``), the work tree (its
  working folder) growing past ``--disk-max-kb`` and files cut at the file-size limit;
- when the command ends or a limit is hit, kills every process left (the group; else
  every descendant, stopped first so none forks meanwhile), reaps them and removes the
  group.

After a limit it writes one line naming it to stderr (a gate's output then ends with it)
and, with the kind first, to the file ``HARNESS_LIMIT_REPORT`` names (taken out of the
command's environment), and exits non-zero; otherwise it exits with the command's code.
"""

from __future__ import annotations

import os
import select
import sys
import time

if __package__:  # imported (the agent, the tests)
    from agent.sandbox import groups, tree_size
else:  # a script under python -I -S: the harness's code is not on sys.path
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from agent.sandbox import groups, tree_size

signal = __import__("_signal")
"""The signal module's C core: the module itself builds enums at import, 6 ms of every start
(measured); the numbers and ``signal()`` are all this needs."""
REPORT_VARIABLE = "HARNESS_LIMIT_REPORT"
WATCH_S = 0.25
"""How often the group's events and the tmpfs mounts are looked at."""
DISK_EVERY_S = 10.0
DISK_SCAN_S = 3.0
"""The time box of one walk of the work tree (a partial count can only prove it too big)."""
_MB = 1 << 20
_PR_SET_CHILD_SUBREAPER = 36
_OPTIONS = {
    "--what": "what",
    "--group": "groups",
    "--memory-mb": "memory_mb",
    "--processes": "processes",
    "--cpus": "cpus",
    "--file-size-mb": "file_size_mb",
    "--tmpfs": "tmpfs",
    "--tmpfs-mb": "tmpfs_mb",
    "--disk-max-kb": "disk_max_kb",
    "--disk-mb": "disk_mb",
    "--subreaper": "subreaper",
}


class Options:
    """What the agent asked for (:func:`parse`)."""

    def __init__(self) -> None:
        self.what = "command"
        self.groups: list[str] = []
        self.memory_mb: int | None = None
        self.processes: int | None = None
        self.cpus: float | None = None
        self.file_size_mb: int | None = None
        self.tmpfs: list[str] = []
        self.tmpfs_mb: int | None = None
        self.disk_max_kb: int | None = None
        """The most the work tree may take (its size at the run's start and the budget)."""
        self.disk_mb: int | None = None
        """The budget itself, as the spec gives it (for the line)."""
        self.subreaper = False
        """Adopt the command's orphans (without a sandbox: bwrap's PID namespace already
        keeps them in, so the sandboxed need not pay ctypes' 4 ms of start)."""
        self.command: list[str] = []


def parse(argv: list[str]) -> Options:
    """The options and the command after ``--`` (pure; no argparse: it costs 9 ms).

    Raises:
        ValueError: an unknown option, a bad number or no command (one line).
    """
    options, at = Options(), 0
    while at < len(argv) and argv[at] != "--":
        name = argv[at]
        if name == "--subreaper":
            options.subreaper, at = True, at + 1
            continue
        if name not in _OPTIONS or at + 1 >= len(argv):
            raise ValueError(f"unknown option or missing value: {name}")
        field, value = _OPTIONS[name], argv[at + 1]
        if field in ("groups", "tmpfs"):
            getattr(options, field).append(value)
        elif field == "what":
            if not value.isidentifier():  # it names the command's group folder
                raise ValueError(f"--what must be a word, not {value!r}")
            options.what = value
        else:
            number = float(value) if field == "cpus" else int(value)
            if number <= 0:
                raise ValueError(f"{name} must be positive, not {value}")
            setattr(options, field, number)
        at += 2
    options.command = argv[at + 1 :]
    if not options.command:
        raise ValueError("no command after --")
    return options


def limit_line(kind: str, options: Options, detail: str = "") -> str:
    """The one line that names the limit ``kind`` the command went over (pure)."""
    what = options.what
    ended = "the harness ended it"
    if kind == "memory":
        return f"the {what} went over its memory limit ({options.memory_mb} MB): {ended}"
    if kind == "processes":
        return (
            f"the {what} went over its process limit ({options.processes} processes "
            f"and threads): {ended}"
        )
    if kind == "tmpfs":
        return f"the {what} filled its {detail} ({options.tmpfs_mb} MB, its tmpfs limit): {ended}"
    if kind == "file_size":
        return (
            f"the {what} wrote a file up to its file-size limit ({options.file_size_mb} MB"
            f"{': ' + detail if detail else ''}): {ended}"
        )
    return (
        f"the {what} grew the work tree past its disk budget ({options.disk_mb} MB beyond "
        f"the project's size at the run's start): {ended}"
    )


class Launch:
    """One command under watch: what it is, and what ended it."""

    def __init__(self, options: Options, made: list[str]) -> None:
        self.options = options
        self.made = made
        self.started_ns = time.time_ns()
        try:
            self.tree = os.getcwd()
        except OSError:
            self.tree = ""  # its working folder is gone: no tree to watch
        self.parent = os.getppid()
        self.child = 0
        self.status: int | None = None
        self.hit: tuple[str, str] | None = None
        """(kind, detail) of the first limit hit."""
        self.orphaned = False
        self.early = 0
        """A signal that came before the command started: it is passed on once it has."""
        self.inside = 0
        """A process in the sandbox, whose ``/proc/PID/root`` shows its tmpfs mounts."""

    def over(self) -> bool:
        """The command ended, a limit was hit, or the agent is gone."""
        return self.status is not None or self.hit is not None or self.orphaned

    def reap(self) -> None:
        """Collect every ended child; the command's own status is kept."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.child:
                self.status = status

    def forward(self, signum: int, _frame: object) -> None:
        if not self.child:  # not started yet (0 would signal this whole process group)
            self.early = signum
            return
        try:
            os.kill(self.child, signum)
        except OSError:
            pass  # already gone

    def watch(self) -> None:
        """Look at the agent, the group's events and the tmpfs mounts (``hit`` says what
        ended it). The agent gone (this process reparented) is the end too: nobody will
        read the result (polled: ``PR_SET_PDEATHSIG`` would cost ctypes at every start)."""
        if os.getppid() != self.parent:
            self.orphaned = True
        oom, refused = groups.limit_events(self.made)
        if oom:
            self.hit = self.hit or ("memory", "")
        elif refused:
            self.hit = self.hit or ("processes", "")
        elif self.options.tmpfs and self.hit is None:
            self.hit = self._full_tmpfs()

    def _full_tmpfs(self) -> tuple[str, str] | None:
        if not self.inside:
            self.inside = _first_child(self.child)
        for path in self.options.tmpfs:
            try:
                found = os.statvfs(f"/proc/{self.inside}/root{path}")
            except OSError:
                return None  # the sandbox is not up yet, or already gone
            if found.f_blocks and found.f_bavail == 0:
                return ("tmpfs", path)
        return None

    def scan_tree(self) -> None:
        """Walk the work tree once: over the disk budget, or a file cut at its size limit."""
        options = self.options
        size = options.file_size_mb
        if not self.tree:
            return
        found = tree_size.scan(
            self.tree,
            deadline_s=DISK_SCAN_S,
            since_ns=self.started_ns,
            big_bytes=size * _MB if size else None,
            stop_above_kb=options.disk_max_kb,
        )
        big = [os.path.relpath(os.fsdecode(path), self.tree) for _, path in found.big]
        if not big and size and self.inside:  # the sandbox's tmpfs, while it is up
            big = self._big_in_tmpfs(size * _MB)
        if big:  # the more precise of the two: a write was cut at the file size
            self.hit = self.hit or ("file_size", big[0].encode("unicode_escape").decode()[:200])
        elif options.disk_max_kb is not None and found.kb > options.disk_max_kb:
            self.hit = self.hit or ("disk", "")

    def _big_in_tmpfs(self, size: int) -> list[str]:
        """Files of the sandbox's tmpfs mounts cut at the file size (seen from outside)."""
        for path in self.options.tmpfs:
            root = f"/proc/{self.inside}/root{path}"
            found = tree_size.scan(root, deadline_s=1.0, since_ns=self.started_ns, big_bytes=size)
            if found.big:
                return [path + "/" + os.path.relpath(os.fsdecode(found.big[0][1]), root)]
        return []


def _first_child(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            return int((children.read().split() or ["0"])[0])
    except (OSError, ValueError):
        return 0


def _become_subreaper() -> None:
    import ctypes  # only here: 4 ms of the start

    if ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def _make_groups(options: Options, made: list[str]) -> None:
    """One group per hierarchy below each ``--group``, limited, added to ``made`` as it is
    made (so a failure halfway still removes the first); stale ones swept first."""
    name = f"{options.what}-{os.getpid()}"
    memory = options.memory_mb * _MB if options.memory_mb else None
    for parent in options.groups:
        groups.sweep(parent)
        made.append(groups.make(parent, name))
        for failed in groups.limit(made[-1], memory, options.processes, options.cpus):
            print(f"launcher: limit not set: {failed}", file=sys.stderr)


def _set_rlimits(options: Options) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if options.file_size_mb:
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        size = options.file_size_mb * _MB
        size = size if hard == resource.RLIM_INFINITY else min(size, hard)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def _spawn(launch: Launch) -> None:
    """The command, as this process's child, in the groups (it joins them itself)."""
    command = launch.options.command
    pid = os.fork()
    if pid == 0:
        # Python ignores SIGPIPE and SIGXFSZ, and the forwarding handlers are this
        # process's: the command gets every default (as subprocess gives it).
        for default in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGTERM, signal.SIGINT):
            signal.signal(default, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        try:
            groups.join(launch.made)
        except OSError as e:
            os.write(2, f"launcher: cannot join the control group: {e.strerror}\n".encode())
            os._exit(126)
        try:
            os.execvp(command[0], command)
        except OSError as e:
            os.write(2, f"launcher: cannot run {command[0]}: {e.strerror}\n".encode())
        os._exit(127)
    launch.child = pid


def _run(launch: Launch) -> None:
    """Wait for the command, watching; return when it ended or must end."""
    waiter = select.poll()
    try:
        waiter.register(os.pidfd_open(launch.child), select.POLLIN)
    except OSError:
        pass  # no pidfd (an old kernel): the watch's tick wakes it
    if launch.options.disk_max_kb is not None or launch.options.file_size_mb:
        import _thread  # not threading (10 ms): a walk must never hold up reaping or the end

        _thread.start_new_thread(_scan_every, (launch,))
    launch.watch()  # the agent may have gone before the command started
    while not launch.over():
        waiter.poll(WATCH_S * 1000)
        launch.reap()
        launch.watch()


def _scan_every(launch: Launch) -> None:
    while True:
        time.sleep(DISK_EVERY_S)
        if launch.over():
            return
        launch.scan_tree()


def _end(launch: Launch, report: str | None) -> int:
    """Kill what is left, look once more, tell a limit, remove the groups; the exit code."""
    for group in launch.made:
        groups.kill_all(group, launch.reap)
    groups.kill_descendants(launch.reap)
    if launch.hit is None and not launch.orphaned:
        launch.watch()
        if launch.options.disk_max_kb is not None or launch.options.file_size_mb:
            launch.scan_tree()
    for group in launch.made:
        groups.remove(group)
    status = launch.status
    code = 137 if status is None else os.waitstatus_to_exitcode(status)
    code = 128 - code if code < 0 else code
    if launch.hit is None:
        return code
    kind, detail = launch.hit
    line = limit_line(kind, launch.options, detail)
    _tell(line, kind, report)
    return code or 1


def _tell(line: str, kind: str, report: str | None) -> None:
    try:  # on a line of its own, whatever a killed process left half-written before it
        print(f"\n{line}", file=sys.stderr, flush=True)
    except OSError:
        pass  # nobody reads the output any more
    if report:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
        try:
            descriptor = os.open(report, flags, 0o600)
        except OSError as e:
            print(f"launcher: cannot write {report}: {e.strerror}", file=sys.stderr)
            return
        with os.fdopen(descriptor, "w") as out:
            out.write(f"{kind} {line}\n")


def main(argv: list[str]) -> int:
    try:
        options = parse(argv)
    except ValueError as e:
        print(f"launcher: {e}", file=sys.stderr)
        return 2
    report = os.environ.pop(REPORT_VARIABLE, None)
    launch = Launch(options, [])
    if options.subreaper:
        _become_subreaper()
    _set_rlimits(options)
    try:
        _make_groups(options, launch.made)
    except OSError as e:
        print(f"launcher: no control group: {e.strerror or e}", file=sys.stderr)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, launch.forward)
    _spawn(launch)
    if launch.early:
        launch.forward(launch.early, None)
    _run(launch)
    return _end(launch, report)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
