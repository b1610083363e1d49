"""The judge: walks a command's syntax tree and judges every command in it.

Every ``command`` node anywhere in the tree is judged: in pipelines, lists, subshells,
``{ … }`` groups, ``if``/``for``/``while``/``case`` bodies, function bodies, command and
process substitutions, and here-documents. Every redirection anywhere is judged, and
every ``&``. Text run by ``bash -c``/``sh -c``/``eval`` is parsed and judged the same
way when it is written out literally, and denied when it is not. A command's standard
input is known when one here-string or here-document written out literally gives it
(:mod:`.inputs`): a shell reading its commands from there is judged on that text.

The judge follows the folders the shell may be in, as a set: a ``cd`` moves every folder
of the set (and keeps the old ones when the target does not exist yet, since the ``cd``
may fail); ``a && b`` runs ``b`` in the folders ``a`` succeeded in; ``a || b`` and
``a; b`` in any of them; subshells, pipelines and substitutions give their folders back
when they end; loop bodies are judged twice. A relative path is checked from every
folder of the set, so no order of ``cd`` carries a path out of the project. ``cd``
inside a function body is denied (the judge does not follow calls).
"""

from __future__ import annotations

import itertools
import math
import unicodedata
from pathlib import Path

from agent.core.policy import programs
from agent.core.policy.arguments import background
from agent.core.policy.context import Denied, PolicyContext
from agent.core.policy.expansion import MAX_WORDS, brace_words, loop_values, substitute
from agent.core.policy.inputs import descriptor_word, standard_input_text
from agent.core.policy.judging import Judge
from agent.core.policy.paths import WalkBudget, check_path, resolve_in
from agent.core.policy.syntax import (
    Node,
    ParseFailure,
    Word,
    join_continued_lines,
    parse,
    text_of,
    word_of,
)
from agent.core.policy.variables import check_variable_name

#: How deep ``bash -c "eval '…'"`` may nest before the judge gives up.
MAX_DEPTH = 4
_SIMPLER = "write it more simply"
PARSE_REASON = f"the harness could not parse this command; {_SIMPLER}"
#: Nodes whose changes of folder end with them (each runs in a subshell).
_OWN_FOLDER_SCOPES = frozenset(
    {"subshell", "pipeline", "command_substitution", "process_substitution"}
)
_LOOPS = frozenset({"while_statement", "for_statement", "c_style_for_statement"})
_DUP_OPERATORS = frozenset({">&", "<&"})
_READ_OPERATORS = frozenset({"<"})


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
        ShellJudge(context, {start}, set()).run(command)
    except Denied as denial:
        return str(denial).replace("\n", "\\n")  # one line, whatever the command held
    except RecursionError:
        return PARSE_REASON
    except (OSError, ValueError) as e:  # a path the system refuses (a NUL byte, too long)
        return (
            f"the harness could not check a path of this command ({type(e).__name__}); {_SIMPLER}"
        )
    return None


class ShellJudge(Judge):
    """Judges one command text; ``bash -c`` and ``eval`` texts get a child judge."""

    def __init__(
        self,
        context: PolicyContext,
        cwds: set[Path],
        functions: set[str],
        depth: int = 0,
        budget: WalkBudget | None = None,
    ) -> None:
        self.context = context
        self.budget = budget or WalkBudget()
        """What the whole command (child judges included) may spend on patterns."""
        self.root = context.project_dir
        self.cwds = set(cwds)
        """Every folder the shell may be in at this point of the command."""
        self.seen = set(cwds)
        """Every folder the shell may have been in so far (``popd`` returns to one)."""
        self.functions = functions
        """Functions the command defines (their bodies are judged where they are defined)."""
        self.depth = depth
        self.in_function = 0
        self.input_text: str | None = None
        """The literal text the command being judged reads on its standard input (one
        here-string or here-document written out); ``None`` when it is not known."""
        self._moved: set[Path] | None = None
        self._source = b""
        self._tree: Node | None = None
        self.bindings: dict[str, tuple[Word, ...]] = {}
        """The values of the ``for`` variables whose loop body is being judged (a
        sandboxed session, :mod:`.expansion`)."""

    # --- entry points used by the program rules --------------------------------------

    def run(self, command: str) -> None:
        """Judge a whole command text; raises :class:`Denied`."""
        if self.depth > MAX_DEPTH:
            raise Denied("the command nests shells or eval too deeply; write it more simply")
        _check_characters(command)
        joined = join_continued_lines(command)
        self._source = joined.encode()
        try:
            root = parse(joined)
        except ParseFailure as e:
            raise Denied(PARSE_REASON) from e
        except RecursionError as e:
            raise Denied(PARSE_REASON) from e
        self._tree = root
        self._collect_functions(root)
        self._visit(root)

    def run_nested(self, command: str, *, same_shell: bool = False) -> None:
        """Judge text that another shell (``bash -c``) or this one (``eval``) will run."""
        child = ShellJudge(self.context, self.cwds, self.functions, self.depth + 1, self.budget)
        child.in_function = self.in_function
        child.run(command)
        if same_shell:
            self.cwds = child.cwds
            self.seen |= child.seen

    def check_path(
        self, word: Word, *, write: bool, what: str = "path", removing: bool = False
    ) -> None:
        """Deny unless ``word`` stays inside the project (and out of harness folders)."""
        check_path(
            word,
            self.root,
            sorted(self.cwds),
            write=write,
            what=what,
            removing=removing,
            system_reads=self.context.sandboxed and what != "folder",
            budget=self.budget,
        )

    def judge_words(self, words: list[Word]) -> None:
        """Judge one simple command given as words (also used by wrappers like ``env``)."""
        programs.judge_program(self, words)

    def change_folder(self, target: Word | None) -> None:
        """``cd TARGET`` (``None``: ``popd``): follow the shell into its new folders."""
        if self.in_function:
            raise Denied("cd inside a function is not allowed; cd before calling the function")
        if target is None:
            self._moved = set(self.seen)
            self.cwds = set(self.seen)
            return
        self.check_path(target, write=False, what="folder")
        reached = {resolve_in(target.text or "", cwd) for cwd in self.cwds}
        self._moved = reached
        certain = all(path.is_dir() for path in reached)
        self.cwds = reached if certain else self.cwds | reached
        self.seen |= reached

    # --- the walk ----------------------------------------------------------------------

    def _collect_functions(self, node: Node) -> None:
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type == "function_definition":
                name = current.child_by_field_name("name")
                if name is not None:
                    self.functions.add(text_of(name))
            stack.extend(current.children)

    def _visit(self, node: Node) -> set[Path]:
        """Judge ``node``; returns the folders the shell is in if it succeeded, and leaves
        in ``self.cwds`` the folders it may be in whatever happened."""
        kind = node.type
        if not node.is_named:
            if kind == "&":
                if self.in_function:
                    raise Denied(
                        "a background job inside a function can multiply without end (a "
                        "fork bomb); start background jobs outside functions"
                    )
                background(self, "&")
            return set(self.cwds)
        if kind == "command":
            return self._command(node, [])
        if kind == "list":
            return self._list(node)
        if kind in _OWN_FOLDER_SCOPES:
            return self._scoped(node)
        if kind in _LOOPS:
            variable = node.child_by_field_name("variable")
            if variable is not None:
                check_variable_name(text_of(variable))
            return self._loop(node)
        if kind == "function_definition":
            saved = set(self.cwds)
            self.in_function += 1
            try:
                self._children(node)
            finally:
                self.in_function -= 1
            self.cwds = saved
            return set(saved)
        if kind == "redirected_statement":
            return self._redirected(node)
        if kind == "file_redirect":
            self._redirect(node, extras_allowed=False)
        elif kind == "variable_assignment":
            self._assignment(node)
        elif kind == "declaration_command":
            self._declaration(node)
        elif kind in ("ERROR", "coproc"):
            raise Denied(PARSE_REASON)
        else:
            if kind == "expansion":
                _check_expansion(node)
            if kind == "heredoc_redirect":
                _check_heredoc(node)
            return self._children(node)
        return set(self.cwds)

    def _loop(self, node: Node) -> set[Path]:
        """A loop's body is judged twice (a ``cd`` in it moves the second round); in a
        sandboxed session a ``for`` variable over written-out words has those values."""
        bound = None
        if node.type == "for_statement" and self.context.sandboxed and self._tree is not None:
            bound = loop_values(node, self._tree)
        saved = dict(self.bindings)
        if bound is not None:
            self.bindings[bound[0]] = bound[1]
        try:
            for _ in range(2):
                self._children(node)
        finally:
            self.bindings = saved
        return set(self.cwds)

    def _words_of(self, node: Node) -> list[list[Word]]:
        """What an argument node may be: one list of words per possibility (brace
        expansion gives several words, a loop variable several possibilities)."""
        word = word_of(node)
        if not self.context.sandboxed:
            return [[word]]
        if word.braces or node.type == "brace_expression":
            expanded = brace_words(node)
            if expanded is not None:
                return [expanded]
        if word.text is None and self.bindings:
            alternatives = substitute(node, self.bindings)
            if alternatives is not None:
                return [[alternative] for alternative in alternatives]
        return [[word]]

    def _children(self, node: Node) -> set[Path]:
        """Judge children one after the other (``a; b``); the last one's success counts."""
        ok = set(self.cwds)
        for child in node.children:
            if child.is_named or child.type == "&":
                ok = self._visit(child)
        return ok

    def _list(self, node: Node) -> set[Path]:
        """``a && b`` runs ``b`` where ``a`` succeeded; ``a || b`` wherever ``a`` ended."""
        named = node.named_children
        operator = next((c.type for c in node.children if c.type in ("&&", "||")), "&&")
        if len(named) != 2:
            return self._children(node)
        left, right = named
        before = set(self.cwds)
        ok_left = self._visit(left)
        all_left = set(self.cwds)
        if operator == "&&":
            self.cwds = set(ok_left)
            ok_right = self._visit(right)
            self.cwds |= all_left
            return ok_right
        self.cwds |= before  # `b` runs where `a` failed: a failed cd did not move
        ok_right = self._visit(right)
        return ok_left | ok_right

    def _scoped(self, node: Node) -> set[Path]:
        """Subshells, pipelines and substitutions: folders they change are given back."""
        saved = set(self.cwds)
        for child in node.children:
            if node.type == "pipeline":
                self.cwds = set(saved)  # every part of a pipeline is its own subshell
            if child.is_named or child.type == "&":
                self._visit(child)
        self.cwds = saved
        return set(saved)

    def _command(
        self, node: Node, extra: list[Word], outer_redirects: list[Node] | None = None
    ) -> set[Path]:
        name: Word | None = None
        slots: list[list[list[Word]]] = []
        nested: list[Node] = []
        redirects = list(outer_redirects or [])
        for child in node.named_children:
            if child.type == "command_name":
                inner = child.named_children
                if len(inner) != 1:
                    raise Denied(PARSE_REASON)
                name = word_of(inner[0])
                nested.append(inner[0])
            elif child.type == "variable_assignment":
                self._assignment(child)
            elif child.type == "heredoc_redirect":
                self._visit(child)
                redirects.append(child)
            elif child.type.endswith("_redirect"):
                self._redirect(child, extras_allowed=False)
                redirects.append(child)
            elif descriptor_word(child, self._source):
                continue  # `0` of `bash 0<<< id`: the redirection's descriptor
            else:
                slots.append(self._words_of(child))
                nested.append(child)
        if name is None:
            if extra:
                raise Denied(PARSE_REASON)
            return set(self.cwds)
        for child in nested:  # substitutions inside the words run first
            self._visit(child)
        if math.prod(len(slot) for slot in slots) > MAX_WORDS:
            raise Denied(f"this command may be too many different commands; {_SIMPLER}")
        before = set(self.cwds)
        after: set[Path] = set()
        moved: set[Path] | None = None
        for variant in itertools.product(*slots):
            self.cwds = set(before)
            self._moved = None
            self.input_text = standard_input_text(redirects, self._source)
            try:
                self.judge_words([name, *itertools.chain.from_iterable(variant), *extra])
            finally:
                self.input_text = None
            after |= self.cwds
            if self._moved is not None:
                moved = (moved or set()) | self._moved
        self.cwds = after
        return set(moved) if moved is not None else set(self.cwds)

    def _redirected(self, node: Node) -> set[Path]:
        body: Node | None = node.child_by_field_name("body")
        extra: list[Word] = []
        redirects: list[Node] = []
        for child in node.named_children:
            if child == body:
                continue
            if child.type == "file_redirect":
                extra.extend(self._redirect(child, extras_allowed=True))
            else:
                self._visit(child)
            if child.type.endswith("_redirect"):
                redirects.append(child)
                redirects.extend(c for c in child.named_children if c.type == "file_redirect")
        if body is None:
            if extra:
                raise Denied(PARSE_REASON)
            return set(self.cwds)
        if body.type == "command":
            return self._command(body, extra, redirects)
        if extra:
            raise Denied(PARSE_REASON)
        succeeded = self._visit(body)
        # tree-sitter reads `cd a && echo x > f` as the list `cd a && echo x` redirected;
        # bash opens `f` for `echo`, in the folders the `cd` reached: check it there too.
        for redirect in redirects:
            if redirect.type == "file_redirect":
                self._redirect(redirect, extras_allowed=True)
        return succeeded

    def _redirect(self, node: Node, *, extras_allowed: bool) -> list[Word]:
        """Judge a file redirection; returns the words tree-sitter put after its target
        (``cat 2>/dev/null file``: ``file`` is an argument of ``cat``).

        A here-string's text is not a path: only the substitutions in it are judged."""
        if node.type == "herestring_redirect":
            self._children(node)
            return []
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
            for place in self._targets(targets[0], target):
                self.check_path(
                    place, write=operator not in _READ_OPERATORS, what="redirection target"
                )
        extra = [word_of(t) for t in targets[1:]]
        if extra and not extras_allowed:
            raise Denied(PARSE_REASON)
        return extra

    def _targets(self, node: Node, word: Word) -> list[Word]:
        """A redirection's target, once per value of the loop variables it uses."""
        if word.text is None and self.bindings and self.context.sandboxed:
            return substitute(node, self.bindings) or [word]
        return [word]

    def _assignment(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        name = text_of(name_node) if name_node is not None else ""
        check_variable_name(name.partition("[")[0], sandboxed=self.context.sandboxed)
        for child in node.named_children:
            if child != name_node:
                value = word_of(child)
                if value.text is not None and ("$(" in value.text or "`" in value.text):
                    raise Denied(
                        f"the value of {name} holds a command substitution that bash would "
                        "run where the variable is used in arithmetic; not allowed"
                    )
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
            if word.text is not None and word.text.startswith("-") and "n" in word.text:
                raise Denied(f"{keyword} -n makes a name refer to another variable; not allowed")
            if keyword == "export" and word.text is not None and not word.text.startswith("-"):
                check_variable_name(word.text, sandboxed=self.context.sandboxed)
            self._visit(child)


def _check_expansion(node: Node) -> None:
    """``${X:=v}`` and ``${X=v}`` assign; ``${x@P}`` runs the substitutions in a value."""
    operators = {c.type for c in node.children if not c.is_named}
    name = next((text_of(c) for c in node.named_children if c.type == "variable_name"), "")
    if operators & {"=", ":="} and name:
        check_variable_name(name)
    if text_of(node).endswith("@P}"):
        raise Denied("${…@P} runs the command substitutions held in a variable; not allowed")


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
