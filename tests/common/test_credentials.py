"""What counts as Claude credentials, and that a start request never shows them."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from common.credentials import (
    API_KEY,
    BASE_URL,
    MODEL,
    OAUTH_TOKEN,
    check_credentials,
    credentials_from,
    has_model_access,
    without_credentials,
)
from common.errors import CredentialsError
from common.schemas.protocol import RequestAdapter, StartRequest
from common.schemas.spec import AgentSpec
from common.secrets import HIDDEN_VARIABLES, gitlab_secrets, without_secrets

KEY = "sk-ant-unit-secret"


def spec(model: str | None) -> AgentSpec:
    return AgentSpec(spec_file=Path("s.md"), project_dir=Path(), target_branch="m", model=model)


def test_empty_values_from_an_env_file_count_as_unset() -> None:
    environ = {API_KEY: "", OAUTH_TOKEN: "tok", MODEL: "claude-x", "PATH": "/bin"}
    assert credentials_from(environ) == {OAUTH_TOKEN: "tok", MODEL: "claude-x"}
    assert without_credentials({**environ, BASE_URL: "u"}) == {"PATH": "/bin"}


@pytest.mark.parametrize(
    ("credentials", "ok"),
    [({}, False), ({MODEL: "claude-x"}, False), ({API_KEY: KEY}, True), ({BASE_URL: "u"}, True)],
)
def test_a_claude_model_needs_a_key_a_token_or_a_base_url(
    credentials: dict[str, str], ok: bool
) -> None:
    assert has_model_access(credentials) is ok
    check_credentials(spec("local"), credentials)  # the embedded model needs none
    if ok:
        check_credentials(spec(None), credentials)
    else:
        with pytest.raises(CredentialsError, match=r"^s\.md: no Claude credentials: set "):
            check_credentials(spec("claude-x"), credentials)


def test_claude_secrets_are_hidden_like_gitlab_tokens_but_not_kept_by_a_daemon() -> None:
    environ = {API_KEY: KEY, "GITLAB_TOKEN": "glpat", BASE_URL: "u"}
    assert without_secrets(environ) == {BASE_URL: "u"}
    assert API_KEY in HIDDEN_VARIABLES
    assert gitlab_secrets(environ) == {"GITLAB_TOKEN": "glpat"}


def test_a_start_request_carries_credentials_but_never_shows_them() -> None:
    request = StartRequest(id=1, spec=spec("claude-x"), credentials={API_KEY: KEY})
    assert KEY not in repr(request) and KEY not in str(request)
    parsed = RequestAdapter.validate_json(request.model_dump_json())
    assert isinstance(parsed, StartRequest) and parsed.credentials == {API_KEY: KEY}


def test_an_unknown_credential_name_is_refused_without_quoting_its_value() -> None:
    data = {"type": "start", "id": 1, "spec": spec(None).model_dump(mode="json")}
    with pytest.raises(ValidationError) as raised:
        RequestAdapter.validate_python({**data, "credentials": {"LD_PRELOAD": KEY}})
    assert "unknown credential variable(s) LD_PRELOAD" in raised.value.errors()[0]["msg"]
    assert KEY not in raised.value.errors()[0]["msg"]
