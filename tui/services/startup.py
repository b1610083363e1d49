"""What the TUI does before its UI opens when there is something to do: the specs of
``--specs`` and ``--demo`` checked and started, the daemon started.

Imported only then: a plain start against a running daemon (``./start.sh``, ``python
-m tui.main``) imports none of this, nor the spec's and the protocol's schemas it
needs, and paints its first screen that much sooner (:mod:`tui.main`).
"""

from __future__ import annotations

import os

from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from agent.frontend.specs import parse_specs
from common.credentials import check_credentials, credentials_from
from common.errors import DaemonError
from common.paths import daemon_log_path
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.spec import AgentSpec
from common.telemetry import telemetry_from
from common.workspace.setup import validate_spec
from tui.services.link import NOT_RUNNING


def collect_specs(text: str | None, *, demo: bool, auto_accept: bool) -> list[AgentSpec]:
    """The specs of ``--specs`` (and the demo's), each checked before any agent starts.

    Raises:
        SpecError: the JSON is malformed, or a spec points at something missing.
        CredentialsError: a spec names a Claude model and this environment has no credentials.
    """
    specs = parse_specs(text) if text is not None else []
    if demo:
        # Imported here: the demo's module reaches python-gitlab (its GitLab mode), which
        # would cost every start of the TUI a quarter of a second before its first paint.
        from agent.frontend.demo import prepare_demo

        specs.append(prepare_demo(None, auto_accept))
    if auto_accept:
        specs = [spec.model_copy(update={"auto_accept": AutoAcceptRules.on()}) for spec in specs]
    credentials = credentials_from(os.environ)
    for spec in specs:
        validate_spec(spec)
        check_credentials(spec, credentials)
    return specs


async def prepare(specs: list[AgentSpec], *, start_daemon: bool, fresh: bool = False) -> list[str]:
    """Make sure the daemon runs, then start ``specs`` through it; the started agents' names.

    ``fresh``: each in a new workspace, as ``harness run --fresh`` does, so a spec that
    already ran runs again (``./start.sh --fresh``).

    Raises:
        DaemonError: the daemon is not running (and may not be started), will not
            start, or refused a spec.
    """
    if lifecycle.daemon_running() is None:
        if not start_daemon:
            raise DaemonError(NOT_RUNNING)
        try:
            await lifecycle.start_daemon()
        except DaemonError as e:
            raise DaemonError(f"cannot start the daemon: {e} (log: {daemon_log_path()})") from e
    names: list[str] = []
    async with DaemonClient.connect() as client:
        for spec in specs:
            try:
                info = await client.start(
                    spec,
                    credentials_from(os.environ),
                    fresh=fresh,
                    telemetry=telemetry_from(os.environ),
                )
            except DaemonError as e:
                already = f"; already started: {', '.join(names)}" if names else ""
                raise DaemonError(f"{spec.spec_file.name}: {e}{already}") from e
            names.append(info.name)
    return names
