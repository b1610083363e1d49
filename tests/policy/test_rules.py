"""The policy's rules one by one: each decision, and the sentence the model gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.policy import PolicyContext, judge_command
from agent.core.policy.interpreters import sed_script_danger
from agent.core.policy.syntax import decode_ansi_c, join_continued_lines, parse, word_of
from common.schemas.policy import PolicySettings


def verdict(context: PolicyContext, command: str, cwd: Path | None = None) -> str:
    return judge_command(command, context, cwd) or "allow"


# --- the parser adapter -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("plain", "plain"),
        ("'single quoted'", "single quoted"),
        ('"double \\"quoted\\""', 'double "quoted"'),
        ("c''url", "curl"),
        ('c"u"rl', "curl"),
        ("\\curl", "curl"),
        ("$'\\x63url'", "curl"),
        ("$'\\143url'", "curl"),
        ("$'\\u0063url'", "curl"),
        ("$'a\\nb'", "a\nb"),
    ],
)
def test_words_have_the_value_bash_would_pass(source: str, value: str) -> None:
    command = parse(f"echo {source}").named_children[0]

    assert word_of(command.named_children[1]).text == value


@pytest.mark.parametrize("source", ["$x", '"$x"', "${x}", "$(id)", "`id`", "a$x", "$((1+2))"])
def test_words_with_expansions_have_no_static_value(source: str) -> None:
    command = parse(f"echo {source}").named_children[0]

    assert word_of(command.named_children[1]).text is None


def test_a_leading_tilde_is_the_home_folder() -> None:
    command = parse("cat ~/x '~/y'").named_children[0]

    assert word_of(command.named_children[1]).text == f"{Path.home()}/x"
    assert word_of(command.named_children[2]).text == "~/y"


def test_decode_ansi_c_handles_control_and_unknown_escapes() -> None:
    assert decode_ansi_c("\\cA\\q\\x") == "\x01\\q\\x"


def test_backslash_newline_is_joined_before_parsing() -> None:
    assert join_continued_lines("cu\\\nrl x \\\\\ny") == "curl x \\\\\ny"


# --- programs by name and path ----------------------------------------------------------


def test_an_unknown_program_is_denied_with_a_way_forward(context: PolicyContext) -> None:
    assert verdict(context, "frobnicate --all") == (
        "frobnicate is not on the harness's list of programs the model may run; use the "
        "project's own tools, or ask for it in your handoff"
    )


@pytest.mark.parametrize(
    "command", ["/usr/bin/ls src", "/bin/cat README.md", ".venv/bin/python -m pytest -x"]
)
def test_programs_from_system_folders_and_the_project_run(
    context: PolicyContext, command: str
) -> None:
    assert verdict(context, command) == "allow"


def test_a_project_script_runs_but_its_paths_are_checked(context: PolicyContext) -> None:
    assert verdict(context, "./scripts/check.sh src") == "allow"
    assert "outside the project" in verdict(context, "./scripts/check.sh /etc")


def test_the_project_venv_python_keeps_pythons_rules(context: PolicyContext) -> None:
    assert "-c runs a program" in verdict(context, ".venv/bin/python -c 'x'")


# --- settings of the project ------------------------------------------------------------


def settings_context(project: Path, **settings: object) -> PolicyContext:
    return PolicyContext.for_project(project, PolicySettings.model_validate(settings))


def test_one_liners_are_allowed_when_the_project_allows_them(project: Path) -> None:
    opened = settings_context(project, allow_one_liners=True)

    assert verdict(opened, "python -c 'print(1)'") == "allow"
    assert verdict(opened, "node -e 'x' | perl -ne 'print'") == "allow"
    assert verdict(opened, "python -c 'x' > /etc/x").startswith("the redirection target")


def test_background_is_allowed_when_the_project_allows_it(project: Path) -> None:
    opened = settings_context(project, allow_background=True)

    assert verdict(opened, "python src/app.py &") == "allow"
    assert verdict(opened, "nohup python src/app.py") == "allow"
    assert "network client" in verdict(opened, "nohup curl x &")


def test_network_setting_opens_installs_but_not_network_clients(project: Path) -> None:
    opened = settings_context(project, allow_network=True)

    assert verdict(opened, "pip install -e .") == "allow"
    assert verdict(opened, "npm install") == "allow"
    assert "network client" in verdict(opened, "curl https://example.com")


def test_pip_install_is_denied_with_the_handoff_advice(context: PolicyContext) -> None:
    assert verdict(context, "pip install -e .") == (
        "pip install fetches packages from the network, which the model's commands cannot "
        "reach; name the dependency the project needs in your handoff"
    )


def test_extra_programs_run_with_checked_paths(project: Path) -> None:
    opened = settings_context(project, extra_programs=["mvn"])

    assert verdict(opened, "mvn -q test") == "allow"
    assert "outside the project" in verdict(opened, "mvn -f /etc/pom.xml test")


def test_quality_commands_and_the_test_command_are_allowed(project: Path) -> None:
    settings = PolicySettings(quality_commands=["tool-lint --strict", "builder all"])
    context = PolicyContext.for_project(project, settings, "runner-x -q")

    assert verdict(context, "tool-lint --strict src") == "allow"
    assert verdict(context, "builder all") == "allow"
    assert verdict(context, "runner-x -q tests/test_app.py") == "allow"
    assert "not on the harness's list" in verdict(context, "runner-x --other")
    assert "outside the project" in verdict(context, "runner-x -q /etc")


# --- paths, folders and globs -----------------------------------------------------------


def test_relative_paths_are_read_from_the_shells_folder(
    context: PolicyContext, project: Path
) -> None:
    inside = project / "src"

    assert verdict(context, "cat ../README.md", cwd=inside) == "allow"
    assert "outside the project" in verdict(context, "cat ../../x", cwd=inside)
    assert "outside the project" in verdict(context, "cat ../x", cwd=Path("/"))


@pytest.mark.parametrize(
    "command",
    [
        "cd src && cat ../README.md",
        "cd src && cd .. && ls",
        "cd src; cd ..; cat README.md",
        "pushd src && cat ../README.md && popd",
        "eval 'cd src' && cat ../README.md",
        "for f in a b; do cd src; cat ../README.md; cd ..; done",
    ],
)
def test_the_judge_follows_cd(context: PolicyContext, command: str) -> None:
    assert verdict(context, command) == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "(cd src); cat ../x",
        "cd src | cat ../x",
        "cd src && cd .. && cd .. && cat x",
        "cd new_folder; cd ..; cd ..; ls",
        "cd src || cat ../x",
        "bash -c 'cd src' && cd ../..",
        "f() { cd ..; }; f; f; cat x",
        "pushd src && popd && cat ../x",
        "cd src && (cd .. && cd .. && ls)",
    ],
)
def test_no_order_of_cd_carries_a_path_out(context: PolicyContext, command: str) -> None:
    assert verdict(context, command) != "allow"


def test_a_glob_is_expanded_and_each_match_checked(context: PolicyContext) -> None:
    assert verdict(context, "cat tests/*.py") == "allow"
    assert "src/* is outside the project" in verdict(context, "cat src/*")


def test_writes_into_harness_folders_are_denied(context: PolicyContext) -> None:
    assert verdict(context, "cat .git/HEAD") == "allow"
    assert "belongs to the harness" in verdict(context, "touch .git/x")
    assert "belongs to the harness" in verdict(context, "echo x >> .claude-agent/ws/a.json")


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("rm -rf .", "would delete the whole project"),
        ("rm -rf *", "would delete the whole project"),
        ("rm -r src/../", "would delete the whole project"),
        ("chmod -R 755 src", "chmod -R changes modes"),
        ("chmod g+s src/app.py", "set-user-ID"),
    ],
)
def test_destructive_forms_inside_the_project_are_denied(
    context: PolicyContext, command: str, reason: str
) -> None:
    assert reason in verdict(context, command)


def test_rm_of_project_files_and_folders_is_allowed(context: PolicyContext) -> None:
    assert verdict(context, "rm src/app.py && rm -rf tests build/*") == "allow"


def test_a_symbolic_link_target_is_read_from_the_links_folder(
    context: PolicyContext, project: Path
) -> None:
    inside = project / "src"

    assert verdict(context, "ln -s app.py src/alias.py") == "allow"
    assert verdict(context, "ln -s ../README.md alias", cwd=inside) == "allow"
    assert "points outside the project" in verdict(
        context, f"ln -s ../README.md {project}/alias", cwd=inside
    )


# --- shells, eval, here-documents -------------------------------------------------------


def test_shell_c_text_is_judged_like_a_command(context: PolicyContext) -> None:
    assert verdict(context, "bash -c 'cd src && ls'") == "allow"
    assert "network client" in verdict(context, "sh -c 'ls; curl x'")
    assert "must be written out" in verdict(context, 'bash -c "$X"')


def test_a_quoted_here_document_is_text_an_unquoted_one_runs(context: PolicyContext) -> None:
    quoted = "cat > src/x.sh <<'EOF'\necho `id` $(curl x)\nEOF"
    unquoted = "cat > src/x.sh <<EOF\necho `id`\nEOF"

    assert verdict(context, quoted) == "allow"
    assert "quote its delimiter" in verdict(context, unquoted)
    assert "network client" in verdict(context, "cat <<EOF\n$(curl x)\nEOF")


def test_a_command_tree_sitter_cannot_parse_is_denied(context: PolicyContext) -> None:
    assert verdict(context, "echo 'open") == (
        "the harness could not parse this command; write it more simply"
    )


def test_reasons_are_one_line(context: PolicyContext) -> None:
    assert "\n" not in verdict(context, "make --eval='a:\n\tid'")


# --- git --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("git branch topic", "git branch is done by the harness, not the model"),
        ("git stash", "git stash is done by the harness, not the model"),
        ("git remote add x y", "git remote talks to a remote"),
        ("git config user.name x", "git config is not allowed"),
        ("git lg", "aliases are not allowed"),
        ("git -c a=b status", "git -c and --config-env"),
        ("git --exec-path=/tmp log", "--exec-path=DIR"),
        ("git diff --output=/tmp/x", "outside the project"),
    ],
)
def test_git_is_read_only(context: PolicyContext, command: str, reason: str) -> None:
    assert reason in verdict(context, command)


def test_git_listing_forms_are_allowed(context: PolicyContext) -> None:
    for command in ("git branch -a", "git tag -l 'v*'", "git remote -v", "git stash list"):
        assert verdict(context, command) == "allow", command


# --- sed and awk ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "denied"),
    [
        ("s/a/b/g", False),
        ("1,5p", False),
        ("/x/d", False),
        ("s|a|b|", False),
        ("y/abc/xyz/", False),
        ("1e id", True),
        ("s/a/b/e", True),
        ("s/a/b/w out", True),
        ("$r /etc/passwd", True),
        ("/x/w out", True),
        ("2{p;e id\n}", True),
    ],
)
def test_sed_scripts_that_run_or_touch_files_are_found(script: str, denied: bool) -> None:
    assert (sed_script_danger(script) is not None) is denied


def test_sed_in_place_edits_stay_in_the_project(context: PolicyContext) -> None:
    assert verdict(context, "sed -i.bak 's/a/b/' src/app.py") == "allow"
    assert "outside the project" in verdict(context, "sed -i 's/a/b/' /etc/hosts")


@pytest.mark.parametrize(
    "program",
    ["'{ system(\"id\") }'", "'{ print | \"sh\" }'", "'{ \"id\" | getline }'", "'{print > \"f\"}'"],
)
def test_awk_programs_that_run_or_write_are_denied(context: PolicyContext, program: str) -> None:
    assert "this awk program runs commands" in verdict(context, f"awk {program} src/app.py")


# --- python ---------------------------------------------------------------------------


def test_python_modules_of_the_project_and_tools_run(context: PolicyContext) -> None:
    assert verdict(context, "python -m mypkg") == "allow"
    assert verdict(context, "python -m pytest -q") == "allow"
    assert verdict(context, "python -W error -m pytest") == "allow"
    assert "not a module of the project" in verdict(context, "python -m http.server")


def test_npx_runs_the_projects_own_tools_only(context: PolicyContext, project: Path) -> None:
    (project / "node_modules" / ".bin").mkdir(parents=True)
    (project / "node_modules" / ".bin" / "jest").write_text("#!/bin/sh\n")

    assert verdict(context, "npx jest --ci src") == "allow"
    assert "fetches packages from the network" in verdict(context, "npx cowsay hi")
    assert "fetches packages" in verdict(context, "npx -p evil jest")
    assert "outside the project" in verdict(context, "npx jest /etc")


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("cat $'a\\x00b'", "could not check a path of this command (ValueError)"),
        ("(" * 3000 + "ls" + ")" * 3000, "could not parse this command"),
        ("echo " + "$(" * 500 + "ls" + ")" * 500, "could not parse this command"),
    ],
    ids=["nul-byte", "deep-subshells", "deep-substitutions"],
)
def test_hostile_input_is_denied_not_raised(
    context: PolicyContext, command: str, reason: str
) -> None:
    assert reason in verdict(context, command)
