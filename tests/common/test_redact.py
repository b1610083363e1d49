"""Redaction: known secret shapes, and configured values in every form they are printed in."""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest

from common.redact import MASK, Redactor, redact

TOKEN = "s3cr3t/t0k+en=with$chars"


@pytest.mark.parametrize(
    "text",
    [
        "token glpat-abcdefghijklmnopqrstu1234 here",
        "ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123",
        "oauth sk-ant-oat01-abcdefghijklmnopqrstuvwxyz0123",
        "id AKIAIOSFODNN7EXAMPLE in config",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----",
    ],
)
def test_known_secret_shapes_are_masked(text: str) -> None:
    cleaned, count = redact(text)
    assert count == 1
    assert MASK in cleaned
    for word in ("glpat-abc", "sk-ant-", "AKIAIOSF", "wJalrXUt", "b3BlbnNz"):
        assert word not in cleaned


def test_the_name_of_an_aws_secret_is_kept() -> None:
    cleaned, _ = redact("aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    assert cleaned == f"aws_secret_access_key={MASK}"


@pytest.mark.parametrize(
    "form",
    [
        TOKEN,
        quote(TOKEN, safe=""),
        json.dumps({"password": TOKEN}),
        json.dumps(f'say "{TOKEN}"'),
    ],
)
def test_a_configured_value_is_masked_as_is_url_encoded_and_json_escaped(form: str) -> None:
    cleaned, count = redact(f"before {form} after", [TOKEN])
    assert count == 1
    assert "s3cr3t" not in cleaned and b"s3cr3t".hex() not in cleaned


@pytest.mark.parametrize("prefix", ["", "x", "xy", "xyz", "oauth2:"])
def test_a_configured_value_inside_base64_is_masked_at_every_alignment(prefix: str) -> None:
    encoded = base64.b64encode(f"{prefix}{TOKEN}trailing".encode()).decode()
    cleaned, count = redact(f"Authorization: Basic {encoded}", [TOKEN])
    assert count == 1
    assert cleaned.startswith("Authorization: Basic ") and MASK in cleaned


def test_short_configured_values_are_not_searched_for() -> None:
    cleaned, count = redact("the word main is everywhere", ["main"])
    assert (cleaned, count) == ("the word main is everywhere", 0)


def test_the_redactor_counts_across_calls_and_hands_the_count_over_once() -> None:
    redactor = Redactor([TOKEN])
    redactor(f"{TOKEN} and {TOKEN}")
    redactor("glpat-abcdefghijklmnopqrstu1234")
    assert redactor.take_count() == 3
    assert redactor.take_count() == 0
