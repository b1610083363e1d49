"""Playwright's MCP server, installed once into the harness's cache, and the system's Chromium.

Why a cache of our own and not ``npx``: ``npx`` would fetch at every session start,
from inside a sandbox that has no network. The package is installed once, outside the
sandbox, with ``PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1`` (the browser is Debian's
``chromium``, never one downloaded by a postinstall) and ``--ignore-scripts``; the
folder is then shown read-only inside each coding session's sandbox.

Every package is pinned with its checksum: ``npm ci`` installs exactly the lockfile the
harness ships (``agent/assets/browser/``: the server and the Playwright it names, each
with its sha512), so a new release of any of them changes nothing until the lockfile
does. To move to a newer server: change the version in ``package.json`` and
:data:`VERSION`, then ``npm install --package-lock-only`` in that folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from agent.assets import asset_path
from common.errors import HarnessError

PACKAGE = "@playwright/mcp"
VERSION = "0.0.83"
"""Pinned exactly (``npm view @playwright/mcp version`` on 2026-11-27), with everything it
needs, by the lockfile in :data:`LOCK_FOLDER`."""
LOCK_FOLDER = asset_path("browser")
"""``package.json`` and ``package-lock.json``: what ``npm ci`` installs, checksums included."""
CACHE_VARIABLE = "HARNESS_TOOLS_CACHE"
"""Where the harness installs tools for sessions (default ``~/.cache/coding-harness``)."""
CHROMIUM_VARIABLE = "HARNESS_CHROMIUM"
"""Another Chromium binary than Debian's ``/usr/bin/chromium``."""
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
INSTALL_TIMEOUT_S = 300.0
_ENTRY = Path("node_modules") / "@playwright" / "mcp" / "cli.js"


class BrowserUnavailable(HarnessError):
    """The browser cannot be offered here: no Chromium, no node, or the install failed."""


@dataclass(frozen=True)
class BrowserInstall:
    """What a session's sandbox must show to run the browser server."""

    folder: Path
    """The installed package's folder (read-only inside the sandbox)."""
    node: Path
    """The ``node`` that runs the server (a system binary)."""
    chromium: Path
    """The Chromium the server drives (a system binary)."""

    @property
    def entry(self) -> Path:
        """The server's ``cli.js``."""
        return self.folder / _ENTRY


def tools_cache(environ: dict[str, str] | None = None) -> Path:
    """The harness's cache for session tools: ``HARNESS_TOOLS_CACHE`` or
    ``$XDG_CACHE_HOME``/``~/.cache`` + ``coding-harness``."""
    env = os.environ if environ is None else environ
    configured = env.get(CACHE_VARIABLE)
    if configured:
        return Path(configured)
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "coding-harness"


def install_folder(cache: Path) -> Path:
    """Where this pinned version lives in ``cache``."""
    return cache / f"playwright-mcp-{VERSION}"


def find_chromium(environ: dict[str, str] | None = None) -> Path | None:
    """``HARNESS_CHROMIUM`` or Debian's Chromium, when it is an executable file."""
    env = os.environ if environ is None else environ
    candidates = [env[CHROMIUM_VARIABLE]] if env.get(CHROMIUM_VARIABLE) else CHROMIUM_CANDIDATES
    for candidate in candidates:
        path = Path(candidate)
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def installed(cache: Path) -> BrowserInstall | None:
    """The install in ``cache`` when it is complete and node and Chromium are here."""
    folder = install_folder(cache)
    node, chromium = shutil.which("node"), find_chromium()
    if node is None or chromium is None or not (folder / _ENTRY).is_file():
        return None
    return BrowserInstall(folder, Path(node).resolve(), chromium)


def ensure_installed(cache: Path | None = None) -> BrowserInstall:
    """The browser server, installed into the cache first when it is not there.

    Raises:
        BrowserUnavailable: one line: no Chromium, no node or npm, or npm failed.
    """
    cache = cache or tools_cache()
    if find_chromium() is None:
        raise BrowserUnavailable(
            "no Chromium (install Debian's chromium package, or set HARNESS_CHROMIUM)"
        )
    found = installed(cache)
    if found is not None:
        return found
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise BrowserUnavailable("no node/npm to install Playwright's MCP server")
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".playwright-mcp-", dir=cache))
    try:
        _npm_install(npm, staging)
        target = install_folder(cache)
        try:
            staging.rename(target)  # whole or not at all; a concurrent install may have won
        except OSError:
            if installed(cache) is None:
                raise BrowserUnavailable(f"cannot place the install at {target}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    done = installed(cache)
    if done is None:
        raise BrowserUnavailable(f"{PACKAGE}@{VERSION} installed but {_ENTRY} is missing")
    return done


def locked_version(folder: Path = LOCK_FOLDER) -> str:
    """The server's version the lockfile pins (a test keeps it equal to :data:`VERSION`)."""
    lock = json.loads((folder / "package-lock.json").read_text())
    return str(lock["packages"][f"node_modules/{PACKAGE}"]["version"])


def _npm_install(npm: str, folder: Path) -> None:
    """``npm ci`` of the shipped lockfile into ``folder``: exactly its packages, each
    checked against its sha512, no install script run."""
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(LOCK_FOLDER / name, folder / name)
    argv = [npm, "ci", "--prefix", str(folder), "--no-audit", "--no-fund"]
    argv += ["--ignore-scripts", "--loglevel=error"]
    env = {**os.environ, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"}
    try:
        done = subprocess.run(
            argv, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BrowserUnavailable(f"npm ci {PACKAGE}@{VERSION}: {e}") from e
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise BrowserUnavailable(f"npm ci {PACKAGE}@{VERSION} failed: {last}")


def main(argv: list[str] | None = None) -> int:
    """``python -m agent.core.browser.install [CACHE]``: install ahead of time (CI, the
    test command); prints the install's folder, or one line saying why there is none."""
    args = sys.argv[1:] if argv is None else argv
    try:
        found = ensure_installed(Path(args[0]) if args else None)
    except BrowserUnavailable as e:
        print(f"browser: {e}", file=sys.stderr)
        return 1
    print(f"browser: {PACKAGE}@{VERSION} in {found.folder}, Chromium {found.chromium}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
