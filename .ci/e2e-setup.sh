#!/usr/bin/env bash
# Install what the end-to-end tests (tests/e2e) need:
#   - tmux (apt-get) when it is missing;
#   - npm (apt-get) when it is missing;
#   - the pinned Claude Code CLI and the pinned Codex CLI from npm, into a cache folder.
# Idempotent: with everything in place it only checks and prints versions.
# Env: SESSION_SKILL_E2E_CACHE           cache folder (default ~/.cache/session-skill-e2e)
#      SESSION_SKILL_E2E_CLAUDE_VERSION  pinned version (default 2.1.328; keep in sync with
#                                        tests/e2e/e2e_harness.py)
#      SESSION_SKILL_E2E_CODEX_VERSION   pinned version (default 0.171.0; keep in sync with
#                                        tests/e2e/codex_harness.py)
# The tests find the binaries in the same cache folder (or install them there themselves).
set -euo pipefail

version="${SESSION_SKILL_E2E_CLAUDE_VERSION:-2.1.328}"
codex_version="${SESSION_SKILL_E2E_CODEX_VERSION:-0.171.0}"
cache="${SESSION_SKILL_E2E_CACHE:-${HOME}/.cache/session-skill-e2e}"
prefix="${cache}/claude-code-${version}"
codex_prefix="${cache}/codex-${codex_version}"

log() { printf 'e2e-setup: %s\n' "$*" >&2; }

apt_updated=""
apt_install() {
    local sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo_cmd=(sudo -n)
        else
            log "error: need to apt-get install $*, but not root and no sudo"
            exit 1
        fi
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        log "error: need $*, and apt-get is not available: install by hand"
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    if [ -z "$apt_updated" ]; then
        ${sudo_cmd[@]+"${sudo_cmd[@]}"} apt-get update -qq
        apt_updated=1
    fi
    ${sudo_cmd[@]+"${sudo_cmd[@]}"} apt-get install -y -qq --no-install-recommends "$@"
}

# --- tmux (drives the interactive UI for /clear) -----------------------------------------
if ! command -v tmux >/dev/null 2>&1; then
    log "tmux missing: installing it with apt-get"
    apt_install tmux
fi
log "tmux: $(tmux -V)"

# --- npm ---------------------------------------------------------------------------------
if ! command -v npm >/dev/null 2>&1; then
    log "npm missing: installing it with apt-get"
    apt_install nodejs npm
fi

# --- Claude Code -------------------------------------------------------------------------
find_bin() {
    local cand
    for cand in "${prefix}"/node_modules/@anthropic-ai/claude-code-*/claude; do
        if [ -x "$cand" ] && "$cand" --version 2>/dev/null | grep -q "^${version} "; then
            printf '%s\n' "$cand"
            return 0
        fi
    done
    return 1
}

if ! bin="$(find_bin)"; then
    log "installing @anthropic-ai/claude-code@${version} into ${prefix}"
    mkdir -p "$prefix"
    [ -f "${prefix}/package.json" ] ||
        printf '{"name": "session-skill-e2e-cache", "private": true}\n' >"${prefix}/package.json"
    # --ignore-scripts: the native binary ships in the per-platform optional dependency;
    # the postinstall only links it into bin/ (and would need a recent Node.js).
    npm install --prefix "$prefix" --no-audit --no-fund --ignore-scripts --loglevel=error \
        "@anthropic-ai/claude-code@${version}"
    if ! bin="$(find_bin)"; then
        log "error: no working claude ${version} binary under ${prefix}/node_modules/@anthropic-ai"
        exit 1
    fi
fi
log "claude: ${bin} ($("$bin" --version))"

# --- Codex -------------------------------------------------------------------------------
# The npm package is a launcher; the native binary ships in the per-platform optional
# dependency (@openai/codex-linux-x64 → vendor/<target triple>/bin/codex).
find_codex() {
    local cand
    for cand in "${codex_prefix}"/node_modules/@openai/codex-*/vendor/*/bin/codex; do
        if [ -x "$cand" ] && [ "$("$cand" --version 2>/dev/null)" = "codex-cli ${codex_version}" ]; then
            printf '%s\n' "$cand"
            return 0
        fi
    done
    return 1
}

if ! codex_bin="$(find_codex)"; then
    log "installing @openai/codex@${codex_version} into ${codex_prefix}"
    mkdir -p "$codex_prefix"
    [ -f "${codex_prefix}/package.json" ] ||
        printf '{"name": "session-skill-e2e-cache", "private": true}\n' >"${codex_prefix}/package.json"
    npm install --prefix "$codex_prefix" --no-audit --no-fund --ignore-scripts --loglevel=error \
        "@openai/codex@${codex_version}"
    if ! codex_bin="$(find_codex)"; then
        log "error: no working codex ${codex_version} binary under ${codex_prefix}/node_modules/@openai"
        exit 1
    fi
fi
log "codex: ${codex_bin} ($("$codex_bin" --version))"
