"""Faults the local GitLab injects into API requests, by rate or by script.

The four kinds are the failures a client of gitlab.com meets:

- ``429``: rate limited with ``Retry-After``; the request is not carried out.
- ``500``: an internal error; the request is not carried out.
- ``timeout``: no answer until the client gives up; the request is not carried out.
- ``drop``: the request is carried out, then the connection is closed without an
  answer: the client cannot know that it succeeded.
- ``late``: the request is held until the client gave up waiting, and only then carried
  out (the connection is closed without an answer): a write that lands after the
  client's timeout, as a slow GitLab does.

A seeded random generator picks faults at ``rate``, so a run can be repeated; tests
script exact sequences for the next requests that match a method and a path.
"""

from __future__ import annotations

import random
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal, get_args

FaultKind = Literal["429", "500", "timeout", "drop", "late"]
KINDS: tuple[FaultKind, ...] = get_args(FaultKind)


@dataclass
class _Script:
    method: str
    path: re.Pattern[str]
    faults: list[FaultKind | None]


@dataclass
class FaultPlan:
    """Which API requests fail, and how; counts what it did."""

    rate: float = 0.0
    """Share of API requests that get a random fault."""
    seed: int = 0
    kinds: tuple[FaultKind, ...] = KINDS
    retry_after: int = 1
    """Seconds announced in ``Retry-After`` on a 429."""
    hang: float = 3.0
    """How long a ``timeout`` or ``late`` fault keeps the client waiting (longer than its
    timeout)."""
    requests: int = 0
    """API requests seen."""
    injected: Counter[str] = field(default_factory=Counter)
    _scripts: list[_Script] = field(default_factory=list)
    _random: random.Random = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    released: threading.Event = field(default_factory=threading.Event)
    """Set when the server stops, so that hanging requests end at once."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"fault rate {self.rate} is not between 0 and 1")
        self._random = random.Random(self.seed)

    def script(self, method: str, path: str, *faults: FaultKind | None) -> None:
        """The next requests with ``method`` whose API path matches the regex ``path``
        get ``faults`` in order (``None``: answered normally); scripts win over ``rate``."""
        with self._lock:
            self._scripts.append(_Script(method.upper(), re.compile(path), list(faults)))

    def choose(self, method: str, path: str) -> FaultKind | None:
        """The fault for this API request, if any, counted."""
        with self._lock:
            self.requests += 1
            scripted, fault = self._scripted(method, path)
            if not scripted and self.rate and self._random.random() < self.rate:
                fault = self._random.choice(self.kinds)
            if fault is not None:
                self.injected[fault] += 1
            return fault

    def _scripted(self, method: str, path: str) -> tuple[bool, FaultKind | None]:
        for entry in self._scripts:
            if entry.faults and entry.method == method and entry.path.search(path):
                return True, entry.faults.pop(0)
        return False, None

    def summary(self) -> str:
        kinds = ", ".join(f"{kind}: {self.injected.get(kind, 0)}" for kind in KINDS)
        return f"{self.requests} API requests, {sum(self.injected.values())} faulted ({kinds})"
