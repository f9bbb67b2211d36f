"""The repository root as a Claude Code plugin (SPEC §10, issues 3 and 14).

The manifests, the icon, the hooks, and `bin/session-skill`: the shim that makes the plugin
the whole install (it builds a venv of the dependencies on first use, then execs Python).
Shim tests run it against a scratch plugin folder — a copy of `bin/session-skill`, a
pyproject.toml and a small `session_skill` package that reports how it was started — with pip
offline (`PIP_NO_INDEX`, a wheelhouse made here), so they need no network. The real package
runs through the shim in `test_real_package_through_the_shim`, and in the real client in
tests/e2e/test_plugin_e2e.py.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pwd
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
import threading
import zipfile
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

import session_skill
from session_skill import agent

REPO = Path(__file__).resolve().parents[1]
SHIM = REPO / "bin" / "session-skill"
CLAUDE_VERSION = os.environ.get("SESSION_SKILL_E2E_CLAUDE_VERSION", "2.1.328")
HOOK_COMMAND = '"${CLAUDE_PLUGIN_ROOT}/bin/session-skill" hook '
BASE_PYTHON = Path(getattr(sys, "_base_executable", sys.executable))


def load(rel: str) -> dict[str, object]:
    data = json.loads((REPO / rel).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def hook_entry() -> dict[str, object]:
    hooks = load("hooks/hooks.json")["hooks"]
    assert isinstance(hooks, dict)
    (entry,) = hooks["SessionStart"]
    assert isinstance(entry, dict)
    return entry


# -- manifests and icon -----------------------------------------------------------------------


def test_plugin_manifest() -> None:
    manifest = load(".claude-plugin/plugin.json")
    assert manifest["name"] == "session-skill"
    pyproject = (REPO / "pyproject.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', pyproject, re.M)
    assert version and manifest["version"] == version.group(1) == session_skill.__version__
    assert isinstance(manifest["description"], str) and "/clear" in manifest["description"]
    assert agent.PLUGIN_SKILL in manifest["description"]
    author = manifest["author"]
    assert isinstance(author, dict) and author["name"]
    assert manifest["license"] == "MIT"
    keywords = manifest["keywords"]
    assert isinstance(keywords, list) and keywords and all(isinstance(k, str) for k in keywords)
    assert (REPO / "skills" / "session" / "SKILL.md").is_file()


def test_marketplace_lists_this_plugin() -> None:
    market = load(".claude-plugin/marketplace.json")
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", str(market["name"]))
    owner = market["owner"]
    assert isinstance(owner, dict) and owner["name"]
    assert isinstance(market["description"], str) and market["description"]  # --strict wants it
    (entry,) = market["plugins"]  # type: ignore[misc]
    assert entry["name"] == load(".claude-plugin/plugin.json")["name"]
    assert entry["source"] == "./"  # a plugin source must start with ./
    assert agent.PLUGIN_SKILL in entry["description"]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    length, tag = struct.unpack(">I4s", data[8:16])
    assert tag == b"IHDR" and length == 13
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_icon_is_a_square_png_the_directory_accepts() -> None:
    data = (REPO / ".claude-plugin" / "icon.png").read_bytes()
    width, height = png_size(data)
    assert width == height and 512 <= width <= 2048
    assert len(data) < 2 * 1024 * 1024


def test_via_plugin_names_the_plugin_command() -> None:
    assert agent.via_plugin({"SESSION_SKILL_VIA": "plugin"})
    for other in ({}, {"SESSION_SKILL_VIA": ""}, {"SESSION_SKILL_VIA": "pip"}):
        assert not agent.via_plugin(other)
        assert agent.skill(other) == agent.PROJECT_SKILL
    assert agent.skill({"SESSION_SKILL_VIA": "plugin"}) == "/session-skill:session"
    assert (
        agent.hint("recall x", {"SESSION_SKILL_VIA": "plugin"}) == "/session-skill:session recall x"
    )
    # inside Codex the same bin/session-skill is the Codex plugin's
    codex = {"SESSION_SKILL_VIA": "plugin", "CODEX_THREAD_ID": "t"}
    assert agent.skill(codex) == "$session-skill:session"


# -- hooks.json -------------------------------------------------------------------------------


def test_hooks_run_the_shim() -> None:
    hooks = load("hooks/hooks.json")["hooks"]
    assert isinstance(hooks, dict) and hooks
    entry = hook_entry()
    assert entry["matcher"] == "startup|clear|compact"
    (hook,) = entry["hooks"]  # type: ignore[misc]
    assert hook == {"type": "command", "command": HOOK_COMMAND + "session-start", "timeout": 10}
    # every hook of the plugin goes through bin/session-skill, which never builds a venv
    for event, entries in hooks.items():
        for e in entries:
            for h in e["hooks"]:
                assert h["command"].startswith(HOOK_COMMAND), (event, h)
                assert isinstance(h.get("timeout"), int), (event, h)


# -- the shim against a scratch plugin folder -----------------------------------------------

PAYLOAD = """\
import json, os, sys


def main():
    if sys.argv[1:] == ["--help"]:
        print("usage: session-skill")
        return 0
    try:
        import ssk_probe_dep
        dep = ssk_probe_dep.VALUE
    except ImportError:
        dep = None
    print(json.dumps({
        "argv": sys.argv, "via": os.environ.get("SESSION_SKILL_VIA"), "dep": dep,
        "executable": sys.executable, "prefix": sys.prefix, "pycache": sys.pycache_prefix,
        "file": __file__, "stdin": sys.stdin.read() if sys.argv[1:2] == ["hook"] else None,
    }))
    return int(os.environ.get("PAYLOAD_EXIT", "0"))
"""


def make_wheel(where: Path, name: str, version: str, value: int) -> Path:
    """A real (tiny) wheel: `import <name>` gives `VALUE = value`."""
    mod = name.replace("-", "_")
    info = f"{mod}-{version}.dist-info"
    files = {
        f"{mod}.py": f"VALUE = {value}\n".encode(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = where / f"{mod}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
    return wheel


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("wheels")
    make_wheel(where, "ssk-probe-dep", "1.0", 1)
    make_wheel(where, "ssk-probe-dep", "2.0", 2)
    return where


def make_root(where: Path, deps: list[str], payload: str = PAYLOAD) -> Path:
    """A scratch plugin folder: the real shim, a pyproject.toml, a reporting package."""
    (where / "bin").mkdir(parents=True)
    shutil.copy2(SHIM, where / "bin" / "session-skill")
    listed = "".join(f'    "{d}",\n' for d in deps)
    (where / "pyproject.toml").write_text(
        f'[project]\nname = "probe"\nversion = "0.1.0"\ndependencies = [\n{listed}]\n'
    )
    pkg = where / "session_skill"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(payload)
    return where


def base_env(tmp: Path, wheelhouse: Path, **extra: str) -> dict[str, str]:
    """A clean environment: a Python >= 3.10 first on PATH, pip offline on the wheelhouse."""
    env = {
        "PATH": f"{BASE_PYTHON.parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(tmp / "home"),
        "LANG": "C.UTF-8",
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheelhouse),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "SESSION_SKILL_PYTHON": str(BASE_PYTHON),
    }
    env.update(extra)
    return env


def shim(
    root: Path,
    *args: str,
    env: dict[str, str],
    stdin: str = "",
    sh: str | None = None,
    cwd: Path | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    exe = str(root / "bin" / "session-skill")
    argv = [sh, exe, *args] if sh else [exe, *args]
    return subprocess.run(
        argv, env=env, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=cwd
    )


def report(r: subprocess.CompletedProcess[str]) -> dict[str, object]:
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    data = json.loads(r.stdout)
    assert isinstance(data, dict)
    return data


@pytest.fixture
def world(tmp_path: Path, wheelhouse: Path) -> tuple[Path, Path, dict[str, str]]:
    """(plugin root, data folder, env) with the data folder named as the hook exports it."""
    (tmp_path / "home").mkdir()
    root = make_root(tmp_path / "plugin", ["ssk-probe-dep==1.0"])
    data = tmp_path / "data"
    return root, data, base_env(tmp_path, wheelhouse, SESSION_SKILL_PLUGIN_DATA=str(data))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path) -> Path:
    """A venv the shim built for ["ssk-probe-dep==1.0"], to copy into tests that need one."""
    tmp = tmp_path_factory.mktemp("built")
    (tmp / "home").mkdir()
    root = make_root(tmp / "plugin", ["ssk-probe-dep==1.0"])
    env = base_env(tmp, wheelhouse, SESSION_SKILL_PLUGIN_DATA=str(tmp / "data"))
    assert report(shim(root, "list", env=env))["dep"] == 1
    return tmp / "data" / "venv"


def give_venv(built: Path, data: Path, root: Path) -> Path:
    """`built`, copied into `data` and stamped ready for `root` (as the shim would), without
    the record of its interpreter (as a venv made before it was kept)."""
    venv = data / "venv"
    shutil.copytree(built, venv, symlinks=True, ignore=shutil.ignore_patterns("interpreter"))
    (venv / "ready").write_text(f"{root}\n")
    return venv


def interpreter(venv: Path) -> str:
    """What the shim records in venv/interpreter: the file its bin/python resolves to."""
    return f"{(venv / 'bin' / 'python').resolve()}\n"


def leftovers(data: Path) -> list[str]:
    return sorted(p.name for p in data.iterdir() if p.name.startswith(("venv.", "setup.lock")))


def test_first_call_builds_then_reuses_then_follows_updates(
    world: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    root, data, env = world
    venv = data / "venv"

    first = shim(root, "park", "an idea", env=env)
    lines = first.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("session-skill: first run: installing"), lines
    assert str(venv) in lines[0]
    got = report(first)
    assert got["argv"] == ["session-skill", "park", "an idea"]
    assert got["via"] == "plugin"
    assert got["dep"] == 1
    assert got["file"] == str(root / "session_skill" / "__main__.py")  # the code runs from root
    assert got["prefix"] == str(venv)
    assert got["pycache"] == str(data / "pycache")  # no __pycache__ in the plugin folder
    assert not (root / "session_skill" / "__pycache__").exists()
    assert (venv / "ready").read_text() == f"{root}\n"
    assert (venv / "interpreter").read_text() == interpreter(venv)
    assert (venv / "requirements.txt").read_text() == "ssk-probe-dep==1.0\n"
    assert leftovers(data) == []
    built = venv.stat().st_ino

    # ready: no output of its own, no rebuild, and it needs no command from PATH at all
    again = shim(root, "list", env={**env, "PATH": str(tmp_path / "nothing")})
    assert again.stderr == "" and report(again)["argv"] == ["session-skill", "list"]
    assert venv.stat().st_ino == built

    # an update that keeps the dependencies: the new folder, the same venv, no install
    moved = tmp_path / "plugin-0.2.0"
    shutil.copytree(root, moved, symlinks=True)
    log = (data / "setup.log").read_text()
    update = shim(moved, "list", env=env)
    assert update.stderr == "", update.stderr
    assert report(update)["file"] == str(moved / "session_skill" / "__main__.py")
    assert venv.stat().st_ino == built and (venv / "ready").read_text() == f"{moved}\n"
    assert (data / "setup.log").read_text() == log  # pip did not run

    # the same folder's dependencies changed under it (a checkout): its venv is rebuilt, swapped
    # in whole, and no second one kept
    (moved / "pyproject.toml").write_text(
        (moved / "pyproject.toml").read_text().replace("==1.0", "==2.0")
    )
    changed = shim(moved, "list", env=env)
    assert changed.stderr.startswith("session-skill: first run: installing"), changed.stderr
    assert report(changed)["dep"] == 2
    assert venv.stat().st_ino != built
    assert leftovers(data) == [] and not (data / "venv2").exists()


@pytest.mark.parametrize("sh", ["dash", "bash"])
def test_hot_path_in_other_shells(
    world: tuple[Path, Path, dict[str, str]], built: Path, sh: str
) -> None:
    root, data, env = world
    found = shutil.which(sh)
    assert found, f"{sh} not installed"  # dash is /bin/sh on Debian; bash is everywhere
    give_venv(built, data, root)
    r = subprocess.run(
        [found, str(root / "bin" / "session-skill"), "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.stderr == "" and report(r)["prefix"] == str(data / "venv")


def test_failed_install_is_one_line_and_leaves_no_venv(
    world: tuple[Path, Path, dict[str, str]],
) -> None:
    root, data, env = world
    (root / "pyproject.toml").write_text(
        '[project]\nname = "probe"\nversion = "0.1.0"\ndependencies = ["ssk-missing==9"]\n'
    )
    r = shim(root, "list", env=env)
    assert r.returncode == 1 and r.stdout == ""
    first, *rest = r.stderr.splitlines()
    assert first.startswith("session-skill: first run"), r.stderr
    assert len(rest) == 1, r.stderr
    (line,) = rest
    assert line.startswith("session-skill: installing the dependencies failed (pip exit 1: ")
    assert "ssk-missing" in line and str(data / "setup.log") in line
    assert "Traceback" not in r.stderr
    assert not (data / "venv").exists() and leftovers(data) == []
    assert "ssk-missing" in (data / "setup.log").read_text()  # the details are kept


def test_failed_update_keeps_the_working_venv(
    world: tuple[Path, Path, dict[str, str]], built: Path
) -> None:
    root, data, env = world
    give_venv(built, data, root)
    assert report(shim(root, "list", env=env))["dep"] == 1
    ready = (data / "venv" / "ready").read_text()
    (root / "pyproject.toml").write_text(
        (root / "pyproject.toml").read_text().replace("ssk-probe-dep==1.0", "ssk-missing==9")
    )
    r = shim(root, "list", env=env)
    assert r.returncode == 1 and "installing the dependencies failed" in r.stderr
    assert (data / "venv" / "ready").read_text() == ready  # the old one is untouched
    assert leftovers(data) == []


def test_a_package_that_does_not_start_is_one_line(
    world: tuple[Path, Path, dict[str, str]], tmp_path: Path, wheelhouse: Path
) -> None:
    _, data, env = world
    root = make_root(tmp_path / "broken", [], payload="def main(:\n")
    r = shim(root, "list", env=env)
    assert r.returncode == 1 and r.stdout == ""
    line = r.stderr.splitlines()[-1]
    assert line.startswith("session-skill: the new environment does not start (SyntaxError")
    assert "Traceback" not in r.stderr and len(r.stderr.splitlines()) == 2
    assert not (data / "venv").exists() and leftovers(data) == []


def test_no_suitable_python(world: tuple[Path, Path, dict[str, str]], tmp_path: Path) -> None:
    root, data, env = world
    tools = tmp_path / "tools"  # what the shim uses from PATH, and no python
    tools.mkdir()
    for tool in ("mkdir", "rm", "mv", "cat", "sed", "tail", "sleep", "readlink", "timeout"):
        found = shutil.which(tool)
        assert found, tool
        (tools / tool).symlink_to(found)
    env = {k: v for k, v in env.items() if k != "SESSION_SKILL_PYTHON"}
    env["PATH"] = str(tools)
    r = shim(root, "list", env=env)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == (
        "session-skill: no Python 3.10 or newer on PATH "
        "(or set SESSION_SKILL_PYTHON=/path/to/python3)\n"
    )

    too_old = tmp_path / "python3.9"  # answers the shim's probe as a Python 3.9 would
    too_old.write_text("#!/bin/sh\nexit 3\n")
    too_old.chmod(0o755)
    r = shim(root, "list", env={**env, "SESSION_SKILL_PYTHON": str(too_old)})
    assert r.returncode == 1
    assert r.stderr == (
        f"session-skill: SESSION_SKILL_PYTHON={too_old} is not a Python 3.10 or newer\n"
    )
    assert not (data / "venv").exists() and leftovers(data) == []


def test_concurrent_first_calls_build_once(world: tuple[Path, Path, dict[str, str]]) -> None:
    root, data, env = world
    exe = str(root / "bin" / "session-skill")
    procs = [
        subprocess.Popen(
            [exe, "drop", str(n)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    outs = [(p.communicate(timeout=300), p.returncode) for p in procs]
    for (out, err), code in outs:
        assert code == 0, err
        assert json.loads(out)["dep"] == 1
        assert len(err.splitlines()) <= 1, err
    builds = sum("first run" in err for (_, err), _ in outs)
    assert builds == 1, [err for (_, err), _ in outs]
    assert leftovers(data) == []


def test_a_killed_setup_is_taken_over(
    world: tuple[Path, Path, dict[str, str]], built: Path
) -> None:
    root, data, env = world
    venv = give_venv(built, data, root)
    (venv / "ready").write_text("/the/folder/of/the/last/version\n")  # a setup is due
    gone = subprocess.Popen(["true"])  # noqa: S607
    gone.wait()
    (data / "setup.lock").mkdir(parents=True)
    (data / "setup.lock" / "pid").write_text(f"{gone.pid}\n")
    (data / f"venv.new.{gone.pid}" / "bin").mkdir(parents=True)  # a half-built venv
    r = shim(root, "list", env=env)
    assert report(r)["dep"] == 1
    assert leftovers(data) == []


def proc_start(pid: int) -> str:
    """Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2 :].split()[19]


linux_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


@linux_proc
@pytest.mark.parametrize("owner", ["pid-reused", "zombie"])
def test_a_lock_whose_owner_is_gone_though_its_pid_lives_is_taken_over(
    world: tuple[Path, Path, dict[str, str]], built: Path, owner: str
) -> None:
    """A setup killed long ago, its PID now another live process's (a restarted container counts
    PIDs afresh), or its process a zombie nobody reaps: every run waited the whole 100 s, then
    failed."""
    root, data, env = world
    venv = give_venv(built, data, root)
    (venv / "ready").write_text("/the/folder/of/the/last/version\n")  # a setup is due
    if owner == "pid-reused":
        other = subprocess.Popen(["sleep", "120"])  # noqa: S607
        line = f"{other.pid}\n{int(proc_start(other.pid)) - 1000}\n"  # started after the lock
    else:
        other = subprocess.Popen(["true"])  # noqa: S607 -- never waited for: a zombie
        line = f"{other.pid}\n"  # as a setup before this fix wrote it
    try:
        (data / "setup.lock").mkdir()
        (data / "setup.lock" / "pid").write_text(line)
        r = shim(root, "list", env=env, timeout=60)
        assert report(r)["dep"] == 1
        assert r.stderr == "", r.stderr  # taken over at once, not waited on
        assert leftovers(data) == []
    finally:
        other.kill()
        other.wait()


@linux_proc
def test_a_live_setup_is_waited_for(
    world: tuple[Path, Path, dict[str, str]], built: Path, tmp_path: Path
) -> None:
    """The owner's start time matches: it is that setup, still running, and is waited for."""
    root, data, env = world
    venv = give_venv(built, data, root)
    (venv / "ready").write_text("/the/folder/of/the/last/version\n")
    owner = subprocess.Popen(["sleep", "120"])  # noqa: S607
    try:
        (data / "setup.lock").mkdir()
        (data / "setup.lock" / "pid").write_text(f"{owner.pid}\n{proc_start(owner.pid)}\n")
        waiting = subprocess.Popen(
            [str(root / "bin" / "session-skill"), "list"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            waiting.wait(timeout=3)
        except subprocess.TimeoutExpired:
            pass
        assert waiting.returncode is None, "it took over the lock of a running setup"
        shutil.rmtree(data / "setup.lock")  # the setup ends
        out, err = waiting.communicate(timeout=60)
    finally:
        owner.kill()
        owner.wait()
    assert waiting.returncode == 0, err
    assert err.startswith("session-skill: waiting for another session-skill"), err
    assert json.loads(out)["dep"] == 1


def test_a_killed_setups_pip_writes_nothing_into_the_next_log(
    world: tuple[Path, Path, dict[str, str]],
) -> None:
    """GNU timeout runs pip in a process group of its own: a kill of the command's group leaves it
    running, writing to setup.log, and its last error stood for the next setup's."""
    root, data, env = world
    (root / "pyproject.toml").write_text(
        '[project]\nname = "probe"\nversion = "0.1.0"\ndependencies = ["ssk-missing==9"]\n'
    )
    data.mkdir()
    log = data / "setup.log"
    log.write_text("")
    done = threading.Event()

    def orphan() -> None:  # the killed setup's pip, writing through its fd to the old log
        with open(log, "a", buffering=1) as f:
            while not done.wait(0.005):
                f.write("ERROR: the killed setup's pip\n")

    writer = threading.Thread(target=orphan)
    writer.start()
    try:
        r = shim(root, "list", env=env)
    finally:
        done.set()
        writer.join()
    assert r.returncode == 1
    last = r.stderr.splitlines()[-1]
    assert last.startswith("session-skill: installing the dependencies failed"), r.stderr
    assert "ssk-missing" in last
    assert "killed setup" not in log.read_text()
    assert "ssk-missing" in log.read_text()


# -- the venv's interpreter, and two plugin versions at once -----------------------------------


def test_a_python_upgraded_under_the_venv_is_noticed(
    world: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    """The venv's python links to the python3 it was made from; a distribution upgrade makes that
    3.12, the venv's lib/python3.11 is off its path, every command failed on an import and the
    venv was never rebuilt. Here the upgraded python3 is a different file that runs this Python
    outside the venv: the same symptom (the dependencies not on the path), one interpreter."""
    root, data, env = world
    bindir = tmp_path / "usr-bin"
    bindir.mkdir()
    python3 = bindir / "python3"
    python3.symlink_to(BASE_PYTHON)
    env = {**env, "SESSION_SKILL_PYTHON": str(python3)}
    assert report(shim(root, "list", env=env))["dep"] == 1
    venv = data / "venv"
    assert (venv / "bin" / "python").resolve() == BASE_PYTHON.resolve()

    python3.unlink()  # the upgrade
    python3.write_text(f'#!/bin/sh\nexec "{BASE_PYTHON}" "$@"\n')
    python3.chmod(0o755)

    # a hook before the next command: any venv's python serves it (standard library only)
    hook = shim(root, "hook", "session-start", env=env, stdin="{}")
    assert report(hook)["argv"] == ["session-skill", "hook", "session-start"]
    assert not leftovers(data)  # and it built nothing

    again = shim(root, "list", env=env)
    assert report(again)["dep"] == 1
    assert again.stderr.startswith("session-skill: first run: installing"), again.stderr
    assert (venv / "bin" / "python").resolve() == BASE_PYTHON.resolve()  # made anew
    after = shim(root, "list", env=env)
    assert after.stderr == "" and report(after)["dep"] == 1  # and ready again
    assert leftovers(data) == []


def test_a_venv_whose_python_resolves_elsewhere_but_works_is_kept(
    world: tuple[Path, Path, dict[str, str]], built: Path
) -> None:
    """Homebrew's python3 resolves into a folder named by the patch version: after an upgrade of
    that the venv still works, and is only stamped again, never rebuilt."""
    root, data, env = world
    venv = give_venv(built, data, root)
    (venv / "interpreter").write_text("/opt/homebrew/Cellar/python@3.11/3.11.7/python3.11\n")
    inode = venv.stat().st_ino
    r = shim(root, "list", env=env)
    assert r.stderr == "" and report(r)["dep"] == 1
    assert venv.stat().st_ino == inode and not (data / "setup.log").exists()  # pip never ran
    assert (venv / "interpreter").read_text() == interpreter(venv)
    assert (venv / "ready").read_text() == f"{root}\n"


def test_two_plugin_versions_with_other_dependencies_keep_a_venv_each(
    world: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    """Every version of the plugin shares one data folder, and a session started before an update
    runs the old version's folder until it ends: the two rebuilt the one venv in turn, each next
    command of the other version paying 20-60 s."""
    old, data, env = world
    new = make_root(tmp_path / "plugin-0.2.0", ["ssk-probe-dep==2.0"])
    assert report(shim(old, "list", env=env))["dep"] == 1
    first = shim(new, "list", env=env)
    assert first.stderr.startswith("session-skill: first run"), first.stderr
    assert str(data / "venv2") in first.stderr and report(first)["dep"] == 2
    inodes = {(data / v).stat().st_ino for v in ("venv", "venv2")}
    for _ in range(2):
        for root, dep in ((old, 1), (new, 2)):
            r = shim(root, "list", env=env)
            assert r.stderr == "", r.stderr
            assert report(r)["dep"] == dep
    assert {(data / v).stat().st_ino for v in ("venv", "venv2")} == inodes

    # a third set of dependencies replaces the venv set up longer ago: two at most
    third = make_root(tmp_path / "plugin-0.3.0", [])
    r = shim(third, "list", env=env)
    assert r.stderr.startswith("session-skill: first run") and str(data / "venv ") in r.stderr
    assert report(r)["dep"] is None
    assert (data / "venv" / "requirements.txt").read_text() == ""
    assert (data / "venv2" / "requirements.txt").read_text() == "ssk-probe-dep==2.0\n"
    assert sorted(p.name for p in data.glob("venv*")) == ["venv", "venv2"]
    assert shim(new, "list", env=env).stderr == ""


# -- where the venv lives, and which root ------------------------------------------------------


def pycache_of(r: subprocess.CompletedProcess[str]) -> Path:
    return Path(str(report(r)["pycache"])).parent


def test_data_folder_choice(tmp_path: Path, wheelhouse: Path) -> None:
    """Hook mode (it builds nothing) shows the data folder through pycache_prefix."""
    (tmp_path / "home").mkdir()
    root = make_root(tmp_path / "plugin", [])
    env = base_env(tmp_path, wheelhouse)
    home = tmp_path / "home"
    xdg = home / ".local" / "share" / "session-skill" / "plugin"
    assert pycache_of(shim(root, "hook", "x", env=env)) == xdg
    assert pycache_of(shim(root, "hook", "x", env={**env, "XDG_DATA_HOME": "/x"})) == Path(
        "/x/session-skill/plugin"
    )
    client = home / ".claude" / "plugins" / "data" / "session-skill-some-market"
    client.mkdir(parents=True)
    assert pycache_of(shim(root, "hook", "x", env=env)) == client
    other = tmp_path / "cfg"
    (other / "plugins" / "data" / "session-skill-m").mkdir(parents=True)
    assert pycache_of(shim(root, "hook", "x", env={**env, "CLAUDE_CONFIG_DIR": str(other)})) == (
        other / "plugins" / "data" / "session-skill-m"
    )
    hook = {**env, "CLAUDE_PLUGIN_DATA": str(tmp_path / "given")}
    assert pycache_of(shim(root, "hook", "x", env=hook)) == tmp_path / "given"
    exported = {**hook, "SESSION_SKILL_PLUGIN_DATA": str(tmp_path / "exported")}
    assert pycache_of(shim(root, "hook", "x", env=exported)) == tmp_path / "exported"


def test_the_root_is_found_through_links_and_relative_paths(
    world: tuple[Path, Path, dict[str, str]], built: Path, tmp_path: Path
) -> None:
    root, data, env = world
    give_venv(built, data, root)
    expected = str(root / "session_skill" / "__main__.py")
    assert report(shim(root, "list", env=env))["file"] == expected
    links = tmp_path / "links"
    links.mkdir()
    (links / "session-skill").symlink_to(root / "bin" / "session-skill")
    (links / "chained").symlink_to("session-skill")  # a relative link to a link
    for name in ("session-skill", "chained"):
        r = subprocess.run(
            [str(links / name), "list"], env=env, capture_output=True, text=True, timeout=60
        )
        assert report(r)["file"] == expected
    r = shim(Path("."), "list", env=env, sh="sh", cwd=root)  # `sh ./bin/session-skill`
    assert report(r)["file"] == expected


# -- hook mode -------------------------------------------------------------------------------


def test_hook_mode_builds_nothing_and_exports_the_data_folder(
    tmp_path: Path, wheelhouse: Path, built: Path
) -> None:
    (tmp_path / "home").mkdir()
    root = make_root(tmp_path / "plugin", ["ssk-probe-dep==1.0"])
    data = tmp_path / "plugin data's"  # a quote, to check the export's quoting
    data.mkdir()
    env_file = tmp_path / "session-env.sh"
    env_file.write_text("")
    env = base_env(
        tmp_path, wheelhouse, CLAUDE_PLUGIN_DATA=str(data), CLAUDE_ENV_FILE=str(env_file)
    )
    r = shim(root, "hook", "session-start", env=env, stdin='{"source": "clear"}')
    got = report(r)
    assert r.stderr == ""
    assert got["argv"] == ["session-skill", "hook", "session-start"]
    assert got["stdin"] == '{"source": "clear"}'
    assert got["via"] == "plugin"
    assert got["prefix"] != str(data / "venv")  # python3 from PATH: no venv yet
    assert not (data / "venv").exists()
    sourced = subprocess.run(
        ["sh", "-c", '. "$1"; printf "%s|%s" "$SESSION_SKILL_PLUGIN_DATA" "$SESSION_SKILL_VIA"',
         "sh", str(env_file)],
        capture_output=True,
        text=True,
        check=True,
    )  # fmt: skip
    # SESSION_SKILL_VIA too: a pip-installed session-skill earlier on PATH names the plugin's form
    assert sourced.stdout == f"{data}|plugin"

    # once a command built the venv there, the hooks use its python
    give_venv(built, data, root)
    again = shim(root, "hook", "session-start", env={**env, "PATH": str(tmp_path / "none")})
    assert report(again)["prefix"] == str(data / "venv")


def test_hook_mode_without_python_is_quiet(tmp_path: Path, wheelhouse: Path) -> None:
    (tmp_path / "home").mkdir()
    root = make_root(tmp_path / "plugin", [])
    env = base_env(tmp_path, wheelhouse, PATH=str(tmp_path / "none"))
    del env["SESSION_SKILL_PYTHON"]  # (the hooks take it too, before the venv is built)
    r = shim(root, "hook", "session-start", env=env)
    assert r.returncode == 0 and r.stdout == ""  # a hook never breaks the session
    assert r.stderr == (
        "session-skill: no Python 3.10 or newer on PATH: the session-start hook did nothing\n"
    )


def test_hook_mode_before_the_venv_skips_a_python_too_old(tmp_path: Path, wheelhouse: Path) -> None:
    """macOS's /usr/bin/python3 is 3.9: before the first command built the venv, the hooks
    ran it, failed on an import, and a /clear was lost; setup itself skips it."""
    (tmp_path / "home").mkdir()
    root = make_root(tmp_path / "plugin", [])
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    old = bin_dir / "python3"
    old.write_text("#!/bin/sh\nexit 1\n")  # says it is older than 3.10, and runs nothing
    old.chmod(0o755)
    (bin_dir / "python3.11").symlink_to(BASE_PYTHON)
    env = base_env(tmp_path, wheelhouse, PATH=str(bin_dir))
    del env["SESSION_SKILL_PYTHON"]
    r = shim(root, "hook", "session-start", env=env, stdin="{}")
    assert report(r)["argv"] == ["session-skill", "hook", "session-start"]


# -- the real package ------------------------------------------------------------------------


def ready_venv(data: Path, root: Path) -> Path:
    """A venv in `data` that the shim takes as ready for `root`: this test run's
    dependencies (a .pth onto its site-packages), without an install."""
    venv = data / "venv"
    subprocess.run(
        [str(BASE_PYTHON), "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    probe = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = subprocess.run(
        [str(venv / "bin" / "python"), "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    (Path(site) / "session_skill_test_deps.pth").write_text(sysconfig.get_paths()["purelib"])
    (venv / "requirements.txt").write_text("")
    (venv / "ready").write_text(f"{root}\n")
    return venv


def test_real_package_through_the_shim(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    data = tmp_path / "data"
    ready_venv(data, REPO)
    env = {
        "PATH": str(tmp_path / "empty"),  # the hot path needs nothing from PATH
        "HOME": str(tmp_path),
        "LANG": "C.UTF-8",
        "SESSION_SKILL_PLUGIN_DATA": str(data),
    }
    run = lambda *a: subprocess.run(  # noqa: E731
        [str(SHIM), *a], env=env, cwd=project, capture_output=True, text=True, timeout=60
    )
    parked = run("park", "try the plugin alone")
    assert parked.returncode == 0 and parked.stderr == "", parked.stderr
    assert parked.stdout.startswith("Parked: try-the-plugin-alone")
    listed = run("list")
    assert listed.returncode == 0, listed.stderr
    assert "try-the-plugin-alone" in listed.stdout
    assert f"{agent.PLUGIN_SKILL} drop" in listed.stdout  # hints name the plugin's command
    assert f"→ {agent.PROJECT_SKILL} " not in listed.stdout
    usage = run("nonsense-mode")
    assert usage.returncode == 2 and usage.stderr.startswith("error:"), usage.stderr
    assert "Traceback" not in usage.stderr
    dropped = run("drop", "try-the-plugin-alone")
    assert dropped.returncode == 0 and "Dropped: try-the-plugin-alone" in dropped.stdout


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `python3` that does not have session_skill installed: a fresh venv."""
    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([str(BASE_PYTHON), "-m", "venv", "--without-pip", str(venv)], check=True)
    bindir = venv / "bin"
    assert (bindir / "python3").exists()
    return bindir


def test_plugin_hook_runs_without_the_package_installed(tmp_path: Path, bare_python: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    store = project / ".claude" / "state" / "session"
    store.mkdir(parents=True)
    created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    (store / "plan-x.md").write_text(
        f"---\nslug: plan-x\ncreated: {created}\nconsumed: false\nbranch: main\n---\n"
        "## Goal\nShip the plugin.\n\n## Next step\nValidate it.\n"
    )
    (store / "LATEST").write_text("plan-x\n")

    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "PYTHON"))}
    env["PATH"] = f"{bare_python}{os.pathsep}/usr/bin{os.pathsep}/bin"
    probe = subprocess.run(
        ["python3", "-c", "import session_skill"], env=env, cwd=tmp_path, capture_output=True
    )
    assert probe.returncode != 0, "the bare python must not have session_skill"

    data = tmp_path / "plugin-data"  # the client creates it; no venv in it yet
    data.mkdir()
    env["CLAUDE_PLUGIN_ROOT"] = str(REPO)
    env["CLAUDE_PLUGIN_DATA"] = str(data)
    env["CLAUDE_PROJECT_DIR"] = str(project)
    command = hook_entry()["hooks"][0]["command"]  # type: ignore[index]
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart"}
    r = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps({**payload, "source": "clear"}).encode(),
        env=env,
        cwd=tmp_path,  # outside the repository
        capture_output=True,
        timeout=60,
    )
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "plan-x" in context and "## Goal\nShip the plugin." in context
    assert f"{agent.PLUGIN_SKILL} recall plan-x" in context  # SESSION_SKILL_VIA=plugin
    assert "consumed: true" in (store / "plan-x.md").read_text()
    assert not (data / "venv").exists()


# -- claude plugin validate -----------------------------------------------------------------


def claude_binary() -> Path | None:
    # The real home: conftest points HOME at a scratch folder for every test.
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    default = home / ".cache" / "session-skill-e2e"
    cache = Path(os.environ.get("SESSION_SKILL_E2E_CACHE") or default).expanduser()
    prefixes = [cache / f"claude-code-{CLAUDE_VERSION}", cache]
    for prefix in prefixes:
        modules = prefix / "node_modules"
        for candidate in [
            *sorted(modules.glob("@anthropic-ai/claude-code-*/claude")),
            modules / ".bin" / "claude",
        ]:
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return candidate
    return None


@pytest.fixture
def claude() -> Iterator[Path]:
    binary = claude_binary()
    if binary is None:
        message = "claude binary not installed (run .ci/e2e-setup.sh)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    yield binary


def validate(claude: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "HOME": str(home),  # it writes ~/.claude.json: keep it out of the real home
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    return subprocess.run(
        [str(claude), "plugin", "validate", *args, str(REPO)],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_claude_plugin_validate(claude: Path, tmp_path: Path) -> None:
    r = validate(claude, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = validate(claude, tmp_path, "--json", "--profile", "directory", "--strict")
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert report["success"] is True and report["strict"] is True
    assert report["manifest"]["errors"] == [] and report["manifest"]["warnings"] == []
    assert report["directory"]["findings"] == [] and report["directory"]["failure"] is None
    provides = report["provides"]
    assert provides["skills"] == ["session-skill:session"]
    assert provides["bin"] == ["session-skill"]
    events = [(h["event"], h["matcher"]) for h in provides["hooks"]]
    assert ("SessionStart", "startup|clear|compact") in events
    assert ("SessionEnd", "clear") in events and ("PreCompact", "manual|auto") in events
