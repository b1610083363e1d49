"""The outbound review: every change is classified before it leaves the sandbox.

:mod:`.protected` (the protected paths), :mod:`.classify` (the findings from a file's
facts, pure), :mod:`.secret_scan` (credentials: detect-secrets and the configured
secrets), :mod:`.facts` (a file's facts, from the work tree or from git), :mod:`.review`
(a session's files, the branch before the push, the diff budget).
"""
