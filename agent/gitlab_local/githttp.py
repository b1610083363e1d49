"""git's smart HTTP protocol for ``/<group>/<name>.git/...``: ``git http-backend`` as CGI.

Pushes and fetches are real git: the bare repository of the project is what a
clone would get. Authentication is HTTP Basic with a personal access token as the
password, as on GitLab; the CGI gets a minimal environment (never the token).
"""

from __future__ import annotations

import base64
import binascii
import os
import subprocess
from dataclasses import dataclass

from agent.gitlab_local.store import DEVELOPER, REPORTER, Project, Store, Token

CGI_TIMEOUT_S = 120.0


@dataclass
class GitAnswer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


def split_repo_path(path: str) -> tuple[str, str] | None:
    """``/group/name.git/info/refs`` → (``group/name``, ``info/refs``); ``None`` otherwise."""
    head, marker, rest = path.partition(".git/")
    if not marker or not head.startswith("/"):
        return None
    return head.strip("/"), rest


def basic_token(store: Store, authorization: str | None) -> Token | None:
    """The token given as the password of an ``Authorization: Basic`` header."""
    if not authorization or not authorization.startswith("Basic "):
        return None
    try:
        decoded = base64.b64decode(authorization[6:], validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    _, _, password = decoded.partition(":")
    return store.token(password)


def denied(status: int, text: str) -> GitAnswer:
    headers = [("Content-Type", "text/plain")]
    if status == 401:
        headers.append(("WWW-Authenticate", 'Basic realm="GitLab"'))
    return GitAnswer(status, headers, text.encode())


def serve(
    store: Store,
    token: Token | None,
    method: str,
    path: str,
    query: str,
    body: bytes,
    content_type: str | None,
    headers: dict[str, str],
) -> GitAnswer:
    """Answer one smart-HTTP request for a project's repository."""
    parts = split_repo_path(path)
    project = store.project_by_path(parts[0]) if parts else None
    if parts is None or project is None:
        return denied(404, "The project you were looking for could not be found.")
    if token is None:
        return denied(401, "HTTP Basic: Access denied")
    pushing = "git-receive-pack" in parts[1] or "service=git-receive-pack" in query
    problem = _refused(token, project, pushing)
    if problem:
        return denied(403, problem)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "GIT_PROJECT_ROOT": str(store.repos_root),
        "GIT_HTTP_EXPORT_ALL": "1",
        "PATH_INFO": f"/{project.path}.git/{parts[1]}",
        "REQUEST_METHOD": method,
        "QUERY_STRING": query,
        "CONTENT_TYPE": content_type or "",
        "CONTENT_LENGTH": str(len(body)),
        "REMOTE_USER": token.user.username,
        "REMOTE_ADDR": "127.0.0.1",
    }
    if "content-encoding" in headers:
        env["HTTP_CONTENT_ENCODING"] = headers["content-encoding"]
    if "git-protocol" in headers:
        env["GIT_PROTOCOL"] = headers["git-protocol"]
    done = subprocess.run(
        ["git", "http-backend"],
        input=body,
        env=env,
        capture_output=True,
        timeout=CGI_TIMEOUT_S,
        check=False,
    )
    return _parse_cgi(done.stdout)


def _refused(token: Token, project: Project, pushing: bool) -> str | None:
    level = project.members.get(token.user.id, 0)
    if pushing:
        if not token.allows("api", "write_repository") or level < DEVELOPER:
            return "You are not allowed to push code to this project."
    elif not token.allows("api", "read_repository", "write_repository") or level < REPORTER:
        return "You are not allowed to download code from this project."
    return None


def _parse_cgi(output: bytes) -> GitAnswer:
    """CGI output: header lines (``Status:`` among them), a blank line, the body."""
    for separator in (b"\r\n\r\n", b"\n\n"):
        head, found, body = output.partition(separator)
        if found:
            break
    else:
        return GitAnswer(500, [("Content-Type", "text/plain")], b"git http-backend failed")
    status = 200
    headers: list[tuple[str, str]] = []
    for line in head.decode("latin-1").splitlines():
        name, _, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.strip().split()[0])
        elif name:
            headers.append((name.strip(), value.strip()))
    return GitAnswer(status, headers, body)
