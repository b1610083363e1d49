"""The judge: walks a command's syntax tree and judges every command in it.

Every ``command`` node anywhere in the tree is judged: in pipelines, lists, subshells,
``{ … }`` groups, ``if``/``for``/``while``/``case`` bodies, function bodies, command and
process substitutions, and here-documents. Every redirection anywhere is judged, and
every ``&``. Text run by ``bash -c``/``sh -c``/``eval`` is parsed and judged the same
way when it is written out literally, and denied when it is not.

The judge runs twice over the tree: the first pass collects every folder a ``cd`` may
move to (and the functions the command defines), the second judges each relative path
against all of those folders, so the order of ``cd`` in subshells or loops cannot
smuggle a path out of the project.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from agent.core.policy import programs
from agent.core.policy.context import Denied, PolicyContext
from agent.core.policy.paths import check_path, resolve_in
from agent.core.policy.syntax import (
    Node,
    ParseFailure,
    Word,
    join_continued_lines,
    parse,
    text_of,
    word_of,
)

#: How deep ``bash -c "eval '…'"`` may nest before the judge gives up.
MAX_DEPTH = 4
PARSE_REASON = "the harness could not parse this command; write it more simply"
_DUP_OPERATORS = frozenset({">&", "<&"})
_READ_OPERATORS = frozenset({"<"})
#: Variables that change how programs are found or what they run, or reach the harness.
_GUARDED_VARIABLES = frozenset(
    {
        "PATH",
        "IFS",
        "ENV",
        "BASH_ENV",
        "PROMPT_COMMAND",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "SHELLOPTS",
        "BASHOPTS",
        "HOME",
        "CDPATH",
        "GLOBIGNORE",
        "PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "BROWSER",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PYTHONBREAKPOINT",
        "PYTHONINSPECT",
        "NODE_OPTIONS",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "LESSOPEN",
        "LESSCLOSE",
        "HISTFILE",
        "FPATH",
        "SHELL",
        "TMOUT",
    }
)
_GUARDED_PREFIXES: tuple[str, ...] = (
    "LD_",
    "DYLD_",
    "GIT_",
    "BASH_FUNC_",
    "SSH_",
    "HARNESS_",
    "ANTHROPIC_",
)
_GUARDED_PREFIXES += ("CLAUDE_", "GITLAB_", "SUDO_")


def judge_command(command: str, context: PolicyContext, cwd: Path | None = None) -> str | None:
    """The reason to refuse ``command``, or ``None`` to allow it.

    ``cwd`` is the folder the model's shell is in (the project root when unknown or
    outside the project).
    """
    root = context.project_dir
    start = cwd.resolve() if cwd is not None else root
    if not start.is_relative_to(root):
        start = root
    try:
        Judge(context, {start}, set()).run(command)
    except Denied as denial:
        return str(denial).replace("\n", "\\n")  # one line, whatever the command held
    return None


class Judge:
    """Judges one command text; ``bash -c`` and ``eval`` texts get a child judge."""

    def __init__(
        self, context: PolicyContext, cwds: set[Path], functions: set[str], depth: int = 0
    ) -> None:
        self.context = context
        self.root = context.project_dir
        self.cwds = cwds
        """Every folder the shell may be in while the command runs."""
        self.functions = functions
        """Functions the command defines (their bodies are judged where they are defined)."""
        self.depth = depth

    # --- entry points used by the program rules --------------------------------------

    def run(self, command: str) -> None:
        """Judge a whole command text; raises :class:`Denied`."""
        if self.depth > MAX_DEPTH:
            raise Denied("the command nests shells or eval too deeply; write it more simply")
        _check_characters(command)
        try:
            root = parse(join_continued_lines(command))
        except ParseFailure as e:
            raise Denied(PARSE_REASON) from e
        except RecursionError as e:
            raise Denied(PARSE_REASON) from e
        self._collect(root)
        self._visit(root)

    def run_nested(self, command: str) -> None:
        """Judge text that another shell (``bash -c``, ``eval``) will run."""
        Judge(self.context, self.cwds, self.functions, self.depth + 1).run(command)

    def check_path(self, word: Word, *, write: bool, what: str = "path") -> None:
        """Deny unless ``word`` stays inside the project (and out of harness folders)."""
        check_path(word, self.root, sorted(self.cwds), write=write, what=what)

    def judge_words(self, words: list[Word]) -> None:
        """Judge one simple command given as words (also used by wrappers like ``env``)."""
        programs.judge_program(self, words)

    # --- first pass: folders and functions -------------------------------------------

    def _collect(self, node: Node) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type == "function_definition":
                name = current.child_by_field_name("name")
                if name is not None:
                    self.functions.add((name.text or b"").decode())
            elif current.type == "command":
                self._collect_cd(current)
            stack.extend(reversed(current.children))

    def _collect_cd(self, node: Node) -> None:
        words = _command_words(node)
        if len(words) < 2 or words[0].text not in ("cd", "pushd"):
            return
        target = next((w for w in words[1:] if not (w.text or "").startswith("-")), None)
        if target is None or target.text is None or target.glob or target.braces:
            return
        reached = {resolve_in(target.text, cwd) for cwd in self.cwds}
        self.cwds.update(path for path in reached if path.is_relative_to(self.root))

    # --- second pass: judging --------------------------------------------------------

    def _visit(self, node: Node) -> None:
        kind = node.type
        if not node.is_named:
            if kind == "&":
                programs.background(self, "&")
            return
        if kind == "command":
            self._command(node, [])
        elif kind == "redirected_statement":
            self._redirected(node)
        elif kind == "file_redirect":
            self._redirect(node, extras_allowed=False)
        elif kind == "variable_assignment":
            self._assignment(node)
        elif kind == "declaration_command":
            self._declaration(node)
        elif kind in ("ERROR", "coproc"):
            raise Denied(PARSE_REASON)
        elif kind == "heredoc_redirect":
            _check_heredoc(node)
            for child in node.children:
                self._visit(child)
        else:
            for child in node.children:
                self._visit(child)

    def _command(self, node: Node, extra: list[Word]) -> None:
        name: Word | None = None
        args: list[Word] = []
        nested: list[Node] = []
        for child in node.named_children:
            if child.type == "command_name":
                inner = child.named_children
                if len(inner) != 1:
                    raise Denied(PARSE_REASON)
                name = word_of(inner[0])
                nested.append(inner[0])
            elif child.type == "variable_assignment":
                self._assignment(child)
            elif child.type.endswith("_redirect"):
                self._redirect(child, extras_allowed=False)
            else:
                args.append(word_of(child))
                nested.append(child)
        if name is None:
            if extra:
                raise Denied(PARSE_REASON)
            return
        self.judge_words([name, *args, *extra])
        for child in nested:  # substitutions inside the words run too
            self._visit(child)

    def _redirected(self, node: Node) -> None:
        body: Node | None = node.child_by_field_name("body")
        extra: list[Word] = []
        for child in node.named_children:
            if child == body:
                continue
            if child.type == "file_redirect":
                extra.extend(self._redirect(child, extras_allowed=True))
            else:
                self._visit(child)
        if body is None:
            if extra:
                raise Denied(PARSE_REASON)
            return
        if body.type == "command":
            self._command(body, extra)
            return
        if extra:
            raise Denied(PARSE_REASON)
        self._visit(body)

    def _redirect(self, node: Node, *, extras_allowed: bool) -> list[Word]:
        """Judge a file redirection; returns the words tree-sitter put after its target
        (``cat 2>/dev/null file``: ``file`` is an argument of ``cat``)."""
        operator = next((c.type for c in node.children if not c.is_named), "")
        targets = [c for c in node.named_children if c.type != "file_descriptor"]
        for child in node.named_children:
            self._visit(child)
        if not targets:
            return []
        target = word_of(targets[0])
        duplicated = operator in _DUP_OPERATORS and (
            target.text is not None and (target.text.isdigit() or target.text == "-")
        )
        if not duplicated:
            self.check_path(
                target, write=operator not in _READ_OPERATORS, what="redirection target"
            )
        extra = [word_of(t) for t in targets[1:]]
        if extra and not extras_allowed:
            raise Denied(PARSE_REASON)
        return extra

    def _assignment(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        name = (name_node.text or b"").decode() if name_node is not None else ""
        check_variable_name(name)
        for child in node.named_children:
            if child != name_node:
                self._visit(child)

    def _declaration(self, node: Node) -> None:
        keyword = next((c.type for c in node.children if not c.is_named), "")
        for child in node.named_children:
            if child.type == "variable_assignment":
                self._assignment(child)
                continue
            word = word_of(child)
            if word.text is not None and word.text.startswith("-") and "f" in word.text:
                raise Denied(f"{keyword} -f shares functions with other shells; not allowed")
            if keyword == "export" and word.text is not None and not word.text.startswith("-"):
                check_variable_name(word.text)
            self._visit(child)


def check_variable_name(name: str) -> None:
    """Deny setting a variable that changes what programs run or reaches the harness."""
    upper = name.upper()
    if (
        name in _GUARDED_VARIABLES
        or upper.startswith(_GUARDED_PREFIXES)
        or upper.endswith("_PROXY")
    ):
        raise Denied(
            f"setting {name} changes which programs run or how; it is not allowed "
            "(set only the project's own variables)"
        )


def _check_heredoc(node: Node) -> None:
    """An unquoted here-document runs the backquoted text in its body, which tree-sitter
    leaves unparsed: such a body is denied."""
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    quoted = start is not None and any(q in text_of(start) for q in "'\"\\")
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    if not quoted and body is not None and "`" in text_of(body):
        raise Denied(
            "this here-document runs the backquoted text in it; quote its delimiter "
            "(<<'EOF') so the text is written as it is"
        )


def _command_words(node: Node) -> list[Word]:
    words: list[Word] = []
    for child in node.named_children:
        if child.type == "command_name" and child.named_children:
            words.append(word_of(child.named_children[0]))
        elif child.type not in ("variable_assignment",) and not child.type.endswith("_redirect"):
            words.append(word_of(child))
    return words


def _check_characters(command: str) -> None:
    """Invisible and control characters make a command read differently than it runs."""
    for char in command:
        if char in "\n\t":
            continue
        category = unicodedata.category(char)
        if category in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp"):
            raise Denied(
                f"the command contains the invisible or control character U+{ord(char):04X}; "
                "retype it in plain text"
            )
