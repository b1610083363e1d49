# The coding-harness image. Two stages so that what the build needs to reach the package
# index (a CA bundle, an index URL) stays in the first one and never reaches the image.
#
#   docker build -t coding-harness .                     on python:3.11-slim (Docker Hub)
#   docker build --build-arg BASE_IMAGE=coding-harness-base:bookworm ...
#                                                        on the local base image that
#                                                        scripts/docker-base-image.sh builds
# Use ./start.sh (scripts/docker-build.sh) rather than docker build: it passes the host's
# pip settings (PIP_INDEX_URL, PIP_CERT) into the first stage. Works with the legacy
# builder as well as BuildKit.
ARG BASE_IMAGE=python:3.11-slim

FROM ${BASE_IMAGE} AS deps
ARG PIP_INDEX_URL
ARG PIP_EXTRA_INDEX_URL
WORKDIR /app
# .build-ca.pem is there only when scripts/docker-build.sh put the host's CA bundle in the
# context (the glob lets the copy succeed without it); the last stage takes the sources
# from /src, where it was removed.
# The harness's venv holds requirements.txt and nothing else: projects have their own.
COPY requirements.txt pyproject.toml .build-ca.pe[m] ./
RUN python3 -m venv /opt/venv \
    && if [ -f .build-ca.pem ]; then export PIP_CERT=/app/.build-ca.pem; fi \
    && export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 \
    && /opt/venv/bin/pip install --quiet -r requirements.txt
# The editable install maps the top-level packages to /app, where the last stage puts the
# sources: only their __init__ files are needed here, so a code change keeps this layer.
COPY agent/__init__.py agent/
COPY common/__init__.py common/
COPY tui/__init__.py tui/
RUN if [ -f .build-ca.pem ]; then export PIP_CERT=/app/.build-ca.pem; fi \
    && export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 \
    && /opt/venv/bin/pip install --quiet --no-deps -e .
COPY . /src
# The demo project's own environment (a venv with pytest), built where the harness looks
# for it (agent/demo_env.py), so the demo needs no download in the container.
RUN if [ -f .build-ca.pem ]; then export PIP_CERT=/app/.build-ca.pem; fi \
    && export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 \
    && cd /src && HARNESS_ENV_CACHE=/opt/harness-envs /opt/venv/bin/python -c \
       "from agent.demo_env import ensure_demo_env; ensure_demo_env()" \
    && rm -f /src/.build-ca.pem

FROM ${BASE_IMAGE}
RUN if ! command -v git >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends git ca-certificates \
      && rm -rf /var/lib/apt/lists/*; \
    fi \
    && mkdir -m 1777 /var/lib/coding-harness
COPY --from=deps /opt/venv /opt/venv
COPY --from=deps /opt/harness-envs /opt/harness-envs
COPY --from=deps /src /app
WORKDIR /app
# Any user id may run the container (start.sh passes the host user's): each gets a private
# folder in the data volume (sticky, world-writable root, like /tmp).
ENV PATH=/opt/venv/bin:$PATH \
    HARNESS_DATA=/var/lib/coding-harness \
    HARNESS_ENV_CACHE=/opt/harness-envs \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
VOLUME /var/lib/coding-harness
ENTRYPOINT ["/app/docker-entrypoint.sh"]
