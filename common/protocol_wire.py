"""What the daemon and every client agree on before any schema: the version and the frame size.

Apart from :mod:`common.schemas.protocol` so that a client that speaks without pydantic
(:mod:`agent.daemon.answer_client`) checks the same version and limit.
"""

from __future__ import annotations

#: Version of the daemon protocol; a client refuses a daemon of another version
#: (2: the ``answer`` request; 3: ``stop`` says which client asks).
PROTOCOL_VERSION = 3

#: Longest accepted frame, in bytes; longer lines are answered with an error.
MAX_FRAME_BYTES = 1024 * 1024
