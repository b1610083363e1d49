"""Choosing the answer: scenario matching, step index, captures, fallback, validation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.assets import asset_path
from agent.model.playbook import (
    Playbook,
    PlaybookError,
    Reply,
    TextBlock,
    ToolUseBlock,
    choose_reply,
    load_playbook,
    substitute,
)

DEMO_PLAYBOOK = asset_path("demo", "playbook.json")
TOOLS = [{"name": "Read", "input_schema": {"type": "object"}}]


def make_playbook(**overrides: Any) -> Playbook:
    data: dict[str, Any] = {
        "schema_version": 1,
        "scenarios": [
            {
                "name": "alpha",
                "match": "Session: alpha",
                "captures": {"dir": "Project directory: (\\S+)", "iid": "issue #(\\d+)"},
                "steps": [
                    {"text": "Reading {{dir}}."},
                    {
                        "tool_uses": [
                            {"name": "Read", "input": {"file_path": "{{dir}}/a.txt"}},
                            {"name": "Done", "input": {"iid": "{{iid}}", "why": ["#{{iid}}"]}},
                        ]
                    },
                ],
                "final_text": "Finished {{iid}}.",
            },
            {"name": "any-session", "match": "Session: ", "steps": [{"text": "generic"}]},
        ],
        "fallback_text": "fallback",
    }
    data.update(overrides)
    return Playbook.model_validate(data)


def request(prompt: str, *, assistant_turns: int = 0, tools: bool = True) -> dict[str, Any]:
    """A request shaped like the CLI's: system blocks, a reminder, mid-conversation system."""
    messages: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<system-reminder>\nnoise\n</system-reminder>\n"},
                {"type": "text", "text": prompt},
            ],
        },
        {"role": "system", "content": "# Environment\nPrimary working directory: /elsewhere"},
    ]
    for turn in range(assistant_turns):
        messages.append({"role": "assistant", "content": [{"type": "text", "text": f"t{turn}"}]})
        messages.append({"role": "user", "content": "ok"})
    body: dict[str, Any] = {
        "model": "m",
        "system": [{"type": "text", "text": "You are Claude Code."}],
        "messages": messages,
    }
    if tools:
        body["tools"] = TOOLS
    return body


def texts(reply: Reply) -> list[str]:
    return [block.text for block in reply.content if isinstance(block, TextBlock)]


def tool_uses(reply: Reply) -> list[ToolUseBlock]:
    return [block for block in reply.content if isinstance(block, ToolUseBlock)]


PROMPT = "Session: alpha\nProject directory: /work/p\nissue #7"


def test_first_matching_scenario_in_file_order_wins() -> None:
    reply = choose_reply(make_playbook(), request(PROMPT))
    assert reply.scenario == "alpha"
    other = choose_reply(make_playbook(), request("Session: beta"))
    assert other.scenario == "any-session"
    assert texts(other) == ["generic"]


def test_match_searches_string_system_prompt_too() -> None:
    body = request("no marker here")
    body["system"] = "Session: alpha\nProject directory: /from/system"
    assert texts(choose_reply(make_playbook(), body)) == ["Reading /from/system."]


def test_only_the_first_user_message_is_matched() -> None:
    body = request("nothing", assistant_turns=1)
    body["messages"][3]["content"] = "Session: alpha"
    assert choose_reply(make_playbook(), body).scenario is None


def test_step_index_is_the_number_of_assistant_messages() -> None:
    playbook = make_playbook()
    first = choose_reply(playbook, request(PROMPT))
    assert (first.step, first.stop_reason, texts(first)) == (0, "end_turn", ["Reading /work/p."])
    second = choose_reply(playbook, request(PROMPT, assistant_turns=1))
    assert second.step == 1
    assert second.stop_reason == "tool_use"
    assert [use.name for use in tool_uses(second)] == ["Read", "Done"]


def test_final_text_once_steps_are_used_up() -> None:
    for turns in (2, 5):
        reply = choose_reply(make_playbook(), request(PROMPT, assistant_turns=turns))
        assert texts(reply) == ["Finished 7."]
        assert reply.stop_reason == "end_turn"


def test_final_text_defaults_to_done() -> None:
    playbook = make_playbook(scenarios=[{"name": "s", "match": "x", "steps": []}])
    assert texts(choose_reply(playbook, request("x"))) == ["Done."]


def test_captures_substitute_into_tool_inputs_recursively() -> None:
    reply = choose_reply(make_playbook(), request(PROMPT, assistant_turns=1))
    read, done = tool_uses(reply)
    assert read.input == {"file_path": "/work/p/a.txt"}
    assert done.input == {"iid": 7, "why": ["#7"]}


def test_tool_use_ids_are_deterministic_and_unique_per_conversation() -> None:
    playbook = make_playbook()
    ids = [use.id for use in tool_uses(choose_reply(playbook, request(PROMPT, assistant_turns=1)))]
    again = [
        use.id for use in tool_uses(choose_reply(playbook, request(PROMPT, assistant_turns=1)))
    ]
    assert ids == again
    assert len(set(ids)) == 2
    assert all(i.startswith("toolu_") and i.endswith(f"_1_{n}") for n, i in enumerate(ids))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("{{n}}", 12),
        ("{{neg}}", -3),
        ("{{word}}", "abc"),
        ("#{{n}}", "#12"),
        ("{{n}}{{n}}", "1212"),
        ("{{missing}}", "{{missing}}"),
        ("a {{missing}} {{word}}", "a {{missing}} abc"),
        (
            {"k": ["{{n}}", {"deep": "{{word}}"}], "other": 1.5},
            {"k": [12, {"deep": "abc"}], "other": 1.5},
        ),
    ],
)
def test_substitution_rule(value: Any, expected: Any) -> None:
    assert substitute(value, {"n": "12", "neg": "-3", "word": "abc"}) == expected


def test_capture_that_does_not_match_leaves_the_placeholder() -> None:
    reply = choose_reply(make_playbook(), request("Session: alpha", assistant_turns=1))
    read, done = tool_uses(reply)
    assert read.input == {"file_path": "{{dir}}/a.txt"}
    assert done.input["iid"] == "{{iid}}"


def test_request_without_tools_gets_the_fallback() -> None:
    reply = choose_reply(make_playbook(), request(PROMPT, tools=False))
    assert (texts(reply), reply.scenario, reply.stop_reason) == (["fallback"], None, "end_turn")


def test_request_matching_no_scenario_gets_the_fallback() -> None:
    playbook = make_playbook(scenarios=[])
    assert texts(choose_reply(playbook, request(PROMPT))) == ["fallback"]


def test_malformed_request_shapes_do_not_crash() -> None:
    playbook = make_playbook()
    odd: dict[str, Any] = {"tools": TOOLS, "system": 3, "messages": [1, {"role": "user"}]}
    assert texts(choose_reply(playbook, odd)) == ["fallback"]


def write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "playbook.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def scenario(**fields: Any) -> dict[str, Any]:
    return {"schema_version": 1, "scenarios": [{"name": "s", "match": "m", **fields}]}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not valid JSON"),
        ({"schema_version": 2, "scenarios": []}, "schema_version"),
        ({"schema_version": 1, "scenarios": [], "extra": 1}, "extra"),
        ({"schema_version": 1, "scenarios": [{"name": "s", "match": "("}]}, "invalid regex"),
        (scenario(captures={"x": "no group"}), "exactly one group"),
        (scenario(captures={"x": "(a)(b)"}), "exactly one group"),
        (scenario(captures={"bad name": "(a)"}), "capture name"),
        (scenario(steps=[{}]), "needs text or tool_uses"),
        (scenario(steps=[{"tool_uses": [{"input": {}}]}]), "name"),
    ],
)
def test_bad_playbook_is_one_line_naming_the_file(
    tmp_path: Path, content: Any, problem: str
) -> None:
    path = write(tmp_path, content)
    with pytest.raises(PlaybookError) as caught:
        load_playbook(path)
    message = str(caught.value)
    assert message.startswith(str(path))
    assert problem in message
    assert "\n" not in message


def test_missing_playbook(tmp_path: Path) -> None:
    with pytest.raises(PlaybookError, match="does not exist"):
        load_playbook(tmp_path / "absent.json")


# The demo playbook against prompts shaped like the harness's (prompts/*.md).


def demo_reply(prompt: str, assistant_turns: int) -> Reply:
    return choose_reply(
        load_playbook(DEMO_PLAYBOOK), request(prompt, assistant_turns=assistant_turns)
    )


DEMO_SPEC = asset_path("demo", "spec.md").read_text()


def test_demo_initializer_proposes_the_three_issues() -> None:
    prompt = (
        "Session: initializer\nProject directory: /tmp/demo proj\nTarget branch: main\n" + DEMO_SPEC
    )
    (read,) = tool_uses(demo_reply(prompt, 0))
    assert read.input == {"file_path": "/tmp/demo proj/README.md"}
    (propose,) = tool_uses(demo_reply(prompt, 1))
    assert propose.name == "mcp__harness__propose_issues"
    titles = [issue["title"] for issue in propose.input["issues"]]
    assert titles == ["Add slugify", "Add word_count", "Add truncate"]
    assert propose.input["recommended_enrichment"] == [2]
    assert demo_reply(prompt, 2).stop_reason == "end_turn"


def test_demo_initializer_after_feedback_makes_a_revised_proposal() -> None:
    prompt = (
        "Session: initializer\nProject directory: /p\nTarget branch: main\n"
        "---- FEEDBACK ON THE PREVIOUS ATTEMPT (from a human reviewer) ----\n"
        "> every example must be a test\n" + DEMO_SPEC
    )
    reply = demo_reply(prompt, 1)
    (propose,) = tool_uses(reply)
    assert propose.input["recommended_enrichment"] == [1, 2, 3]
    assert any(
        isinstance(block, TextBlock) and "every example must be a test" in block.text
        for block in reply.content
    )


def test_the_demo_playbook_plays_the_demo_spec_only() -> None:
    playbook = load_playbook(DEMO_PLAYBOOK)
    foreign = "# inventory service\n\nAdd a REST endpoint for stock levels."
    assert playbook.plays(DEMO_SPEC)
    assert not playbook.plays(foreign)
    reply = demo_reply(f"Session: initializer\nProject directory: /p\n{foreign}", 0)
    assert reply.scenario is None
    assert reply.content == [TextBlock(text=playbook.fallback_text)]
    assert "only plays the demo" in playbook.fallback_text


@pytest.mark.parametrize("title", ["Add slugify", "Add word_count", "Add truncate"])
def test_every_demo_issue_can_be_enriched(title: str) -> None:
    prompt = f"Session: enrichment of issue #7: {title}\nProject directory: /p\n"
    (enrich,) = tool_uses(demo_reply(prompt, 1))
    assert enrich.name == "mcp__harness__enrich_issue"
    assert enrich.input["issue_iid"] == 7
    assert title.removeprefix("Add ") in enrich.input["title"]


def test_demo_enrichment_uses_the_captured_iid_as_int() -> None:
    prompt = "Session: enrichment of issue #12: Add word_count\nProject directory: /p\n"
    (enrich,) = tool_uses(demo_reply(prompt, 1))
    assert enrich.name == "mcp__harness__enrich_issue"
    assert enrich.input["issue_iid"] == 12
    assert "word_count" in enrich.input["title"]
    assert enrich.input["complexity"] in ("low", "medium", "high")


@pytest.mark.parametrize(
    ("title", "module"),
    [
        ("Add slugify", "slug"),
        ("Add word_count (case-insensitive word frequencies)", "counting"),
        ("Add truncate", "truncate"),
    ],
)
def test_demo_coding_scenario_per_issue(title: str, module: str) -> None:
    prompt = f"Session: coding issue #3: {title}\nProject directory: /p\nFeature branch: f"
    writes = [tool_uses(demo_reply(prompt, turn))[0] for turn in (0, 1)]
    assert [w.input["file_path"] for w in writes] == [
        f"/p/textkit/{module}.py",
        f"/p/tests/test_{module}.py",
    ]
    (bash,) = tool_uses(demo_reply(prompt, 2))
    assert bash.input["command"] == "python -m pytest -q"
    (done,) = tool_uses(demo_reply(prompt, 3))
    assert done.name == "mcp__harness__report_issue_done"
    assert done.input["issue_iid"] == 3


def test_demo_merge_request() -> None:
    prompt = "Session: merge request\nProject directory: /p\nSource branch: feature/x"
    (log,) = tool_uses(demo_reply(prompt, 0))
    assert log.input["command"] == "git log --oneline -5"
    (propose,) = tool_uses(demo_reply(prompt, 1))
    assert propose.name == "mcp__harness__propose_merge_request"
    assert propose.input["title"] and propose.input["description"]
