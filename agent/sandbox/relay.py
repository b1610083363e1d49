"""Inside the sandbox: TCP ports on its own loopback that lead to Unix sockets outside.

Why: the sandbox has a network namespace of its own, so the host's 127.0.0.1
(where the model endpoint listens) cannot be reached from it. The agent serves
the endpoint on a Unix socket bound into the sandbox; this relay listens on
``127.0.0.1:PORT`` inside and copies bytes to that socket, so the CLI keeps
using ``ANTHROPIC_BASE_URL=http://127.0.0.1:PORT``.

It then runs the command after ``--`` (the CLI) and exits with its code. As
the first process under bubblewrap's init in the PID namespace, its end ends the
namespace: every process the session left behind is killed by the kernel.

Standalone on purpose (standard library only, run with ``python -I -S``): it is
the one file of the harness that is visible inside the sandbox.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from types import FrameType

_CHUNK = 65536
_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAPABILITY_VERSION_3 = 0x20080522

KERNEL_OBJECT_LIMITS = {
    "max_inotify_instances": 16,
    "max_inotify_watches": 16384,
    "max_fanotify_groups": 4,
    "max_fanotify_marks": 4096,
    "max_user_namespaces": 8,
    "max_mnt_namespaces": 8,
    "max_pid_namespaces": 8,
    "max_net_namespaces": 8,
    "max_ipc_namespaces": 8,
    "max_uts_namespaces": 8,
    "max_cgroup_namespaces": 8,
    "max_time_namespaces": 8,
}
"""This sandbox's share of the kernel objects counted per user, set in its own user
namespace (``/proc/sys/user``). Why: the kernel counts them for the user across every
namespace the user made, so without a share of its own a session's program could take
the user's whole allowance: 128 inotify instances here, after which the agent could not
watch its workspace for a person's answer (measured: its ``inotify_init`` failed with
"Too many open files" while a sandboxed program held them), nor the daemon, the TUI or
any other agent of the same user; likewise the namespaces bubblewrap needs for the next
session. The Claude CLI uses one inotify instance."""


def _pipe(source: socket.socket, target: socket.socket) -> None:
    """Copy until ``source`` ends, then tell ``target`` no more is coming."""
    try:
        while data := source.recv(_CHUNK):
            target.sendall(data)
    except OSError:
        pass  # the other side went away: the connection is over either way
    finally:
        with contextlib.suppress(OSError):  # already closed
            target.shutdown(socket.SHUT_WR)


def _serve(connection: socket.socket, unix_path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(unix_path)
    except OSError as e:
        print(f"relay: cannot reach {unix_path}: {e}", file=sys.stderr)
        connection.close()
        upstream.close()
        return
    back = threading.Thread(target=_pipe, args=(upstream, connection), daemon=True)
    back.start()
    _pipe(connection, upstream)
    back.join()
    connection.close()
    upstream.close()


def _listen(port: int, unix_path: str) -> None:
    server = socket.create_server(("127.0.0.1", port))

    def accept_forever() -> None:
        while True:
            connection, _ = server.accept()
            threading.Thread(target=_serve, args=(connection, unix_path), daemon=True).start()

    threading.Thread(target=accept_forever, daemon=True).start()


def _undumpable() -> None:
    """Make this process non-dumpable: the model's commands (same uid, no capabilities)
    then cannot open its ``/proc/<pid>/fd`` (it holds the SDK's pipes as stdin and
    stdout), its ``mem``, or ptrace it. Fails closed: a relay that stays reachable
    would let a command write frames for the CLI."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


KEPT_NAMES = frozenset(
    """PATH HOME TMPDIR PWD SHLVL USER LOGNAME SHELL TERM COLORTERM TZ LANG LANGUAGE COLUMNS
    LINES NO_COLOR FORCE_COLOR CI EDITOR DEBIAN_FRONTEND TRACEPARENT TRACESTATE HTTP_PROXY
    HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy SSL_CERT_FILE SSL_CERT_DIR
    REQUESTS_CA_BUNDLE CURL_CA_BUNDLE GIT_SSL_CAINFO PIP_CERT NODE_EXTRA_CA_CERTS
    AWS_CA_BUNDLE VIRTUAL_ENV CONDA_PREFIX CONDA_DEFAULT_ENV PYENV_ROOT PYENV_VERSION
    PYTHONPATH PYTHONDONTWRITEBYTECODE PYTHONUNBUFFERED PYTHONPYCACHEPREFIX
    PYTHONIOENCODING PYTHONUTF8 PIP_DISABLE_PIP_VERSION_CHECK PIP_DEFAULT_TIMEOUT PIP_NO_INPUT
    NODE_PATH NODE_OPTIONS NODE_ENV NVM_DIR PNPM_HOME BUN_INSTALL DENO_DIR JAVA_HOME
    GRADLE_USER_HOME MAVEN_OPTS GOROOT GOPATH GOFLAGS GOCACHE GOMODCACHE GOTOOLCHAIN
    CARGO_HOME RUSTUP_HOME RUSTUP_TOOLCHAIN RUST_BACKTRACE RUSTFLAGS GEM_HOME GEM_PATH
    DOTNET_ROOT ANDROID_HOME LD_LIBRARY_PATH PKG_CONFIG_PATH CC CXX CFLAGS CXXFLAGS
    CPPFLAGS LDFLAGS MAKEFLAGS""".split()  # noqa: SIM905 (a list of names to read)
)
"""The variables a session or gate keeps from the environment it was started in: where
things are, how to print, which toolchain. Everything else is left out."""
KEPT_PREFIXES = ("LC_", "CLAUDE_", "ANTHROPIC_")
"""The locale's, and the Claude CLI's own (the agent has already dropped every Claude
secret: the key reaches the endpoint through the agent's proxy, never the CLI)."""
_CREDENTIALS_IN_URL = re.compile(r"://[^/\s@]+@")


def kept_environment(environ: dict[str, str], also: frozenset[str]) -> dict[str, str]:
    """The part of ``environ`` a sandbox keeps: :data:`KEPT_NAMES`, :data:`KEPT_PREFIXES`
    and the names in ``also`` (the spec's ``sandbox_env`` and what the harness sets
    itself), never a value that carries credentials in a URL (``https://user:token@``).

    Why an allowlist: the harness starts from the person's shell, whose environment
    holds what their other tools need (cloud keys, registry and forge tokens, database
    URLs). Inherited whole, a session's ``env`` showed all of it to the model (measured:
    an ``AWS_SECRET_ACCESS_KEY`` of the shell that started the daemon reached the CLI).
    """
    return {
        name: value
        for name, value in environ.items()
        if (name in KEPT_NAMES or name.startswith(KEPT_PREFIXES) or name in also)
        and not _CREDENTIALS_IN_URL.search(value)
    }


def _bound_kernel_objects() -> None:
    """Set :data:`KERNEL_OBJECT_LIMITS` in this sandbox's user namespace, then drop every
    capability for good.

    bubblewrap hands this first process ``CAP_SYS_RESOURCE`` (to write the limits) and
    ``CAP_SETPCAP`` (to empty the bounding set), and nothing else; no other process has
    run yet. Fails closed: a capability left would reach the command (uid 0 inside
    regains the bounding set at exec), so the relay then refuses to run it.
    """
    unbounded: list[str] = []
    for name, value in KERNEL_OBJECT_LIMITS.items():
        try:
            with open(f"/proc/sys/user/{name}", "w") as limit:  # noqa: PTH123 (standalone)
                limit.write(str(value))
        except FileNotFoundError:
            continue  # a kernel without this kind of object
        except OSError as e:
            unbounded.append(f"{name} ({e.strerror})")
    if unbounded:
        print(f"relay: could not bound {', '.join(unbounded)}", file=sys.stderr)
    _drop_capabilities()


def _drop_capabilities() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    with open("/proc/sys/kernel/cap_last_cap") as last:  # noqa: PTH123 (standalone)
        for capability in range(int(last.read()) + 1):
            libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable, twice: all empty
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
    with open("/proc/self/status") as status:  # noqa: PTH123 (standalone)
        left = [
            line.split()[0]
            for line in status
            if line.startswith("Cap") and int(line.split()[1], 16) != 0
        ]
    if left:
        raise OSError(f"capabilities left after dropping them: {', '.join(left)}")


def _wait_reaping(child: subprocess.Popen[bytes]) -> int:
    """Wait for ``child``, reaping every orphan on the way.

    The relay is the PID namespace's first process (bwrap ``--as-pid-1``, so no
    bwrap init, which would hold the SDK's pipes within the model's reach):
    processes whose parent ended are handed to it.
    """
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            return child.wait()
        if pid == child.pid:
            child.returncode = os.waitstatus_to_exitcode(status)
            return child.returncode


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="relay")
    parser.add_argument("--forward", action="append", default=[], help="PORT=UNIX_SOCKET")
    parser.add_argument("--keep", action="append", default=[], help="a variable to keep")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command after --")
    _bound_kernel_objects()
    _undumpable()
    for spec in args.forward:
        port, _, path = spec.partition("=")
        _listen(int(port), path)
    child = subprocess.Popen(command, env=kept_environment(dict(os.environ), frozenset(args.keep)))

    def forward_signal(signum: int, _frame: FrameType | None) -> None:
        child.send_signal(signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward_signal)
    code = _wait_reaping(child)
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
