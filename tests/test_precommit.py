"""The pre-commit hook, driven by the real pre-commit tool against a temporary git repo.

pre-commit installs hooks from a git revision, so the test first commits a
snapshot of this working tree (tracked and new files, minus ignored ones) and
points pre-commit at that. The hook's environment is built by pip from the
snapshot, exactly as a user's machine would build it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]

CLEAN = """\
#include <cuda_runtime.h>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

void run(float* d, int n, cudaStream_t stream) {
  scale<<<(n + 255) / 256, 256, 0, stream>>>(d, 2.0f, n);
  cudaStreamSynchronize(stream);
}
"""

# cudaDeviceGetNvSciSyncAttributes is NVIDIA's NvSciSync interop: HIP has nothing like it.
OFFENDING = """\
#include <cuda_runtime.h>

int sync_attributes(void* list, int device) {
  return (int)cudaDeviceGetNvSciSyncAttributes(list, device, 0);
}
"""

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    snapshot = tmp_path_factory.mktemp("hipport-hook-repo")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / os.fsdecode(name)
        if source.is_file():
            target = snapshot / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    _git(snapshot, "init", "-q")
    _git(snapshot, "add", "-A")
    _git(snapshot, "commit", "-q", "-m", "snapshot")
    return snapshot, _git(snapshot, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def pre_commit_env(tmp_path_factory) -> dict:
    # A private PRE_COMMIT_HOME keeps the user's own hook cache out of the test.
    home = tmp_path_factory.mktemp("pre-commit-home")
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    env.pop("HIPPORT_CACHE_DIR", None)
    return env


def _user_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "user"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "scale.cu").write_text(CLEAN)
    (repo / "src" / "interop.cu").write_text(OFFENDING)
    _git(repo, "init", "-q")
    return repo


def test_try_repo_flags_only_the_offending_file(tmp_path, hook_repo, pre_commit_env):
    snapshot, _ = hook_repo
    repo = _user_repo(tmp_path)
    _git(repo, "add", "-A")
    done = subprocess.run([*PRE_COMMIT, "try-repo", str(snapshot), "hipport-check", "--all-files", "--color", "never"],
                          cwd=repo, env=pre_commit_env, capture_output=True, text=True, timeout=900)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "src/interop.cu:4:15: error HP101 'cudaDeviceGetNvSciSyncAttributes'" in output
    assert "src/scale.cu:" not in output


def test_commit_is_blocked_until_the_code_is_fixed(tmp_path, hook_repo, pre_commit_env):
    snapshot, revision = hook_repo
    repo = _user_repo(tmp_path)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {snapshot}\n  rev: {revision}\n  hooks:\n  - id: hipport-check\n")
    subprocess.run([*PRE_COMMIT, "install"], cwd=repo, env=pre_commit_env, check=True, capture_output=True)

    _git(repo, "add", "-A")
    blocked = subprocess.run(["git", "commit", "-m", "add interop"], cwd=repo, env=pre_commit_env,
                             capture_output=True, text=True, timeout=900)
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert "hipport check" in output and "Failed" in output
    assert "src/interop.cu:4:15: error HP101" in output
    assert _git(repo, "rev-list", "--all") == "", "nothing may be committed while the hook fails"

    (repo / "src" / "interop.cu").unlink()
    _git(repo, "add", "-A")
    allowed = subprocess.run(["git", "commit", "-m", "only the portable kernel"], cwd=repo, env=pre_commit_env,
                             capture_output=True, text=True, timeout=900)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert "Passed" in allowed.stdout + allowed.stderr


def _documented_local_hook(page: Path) -> str:
    """The `repo: local` configuration a page shows, as written there."""
    blocks = re.findall(r"```yaml\n(.*?)```", page.read_text(), re.S)
    (local,) = [b for b in blocks if "repo: local" in b]
    return local


def test_the_documented_local_hook_blocks_the_commit(tmp_path, pre_commit_env):
    """README.md and docs/check.md show the same `repo: local` configuration, and it works as written
    with the hipport on PATH."""
    config = _documented_local_hook(ROOT / "README.md")
    assert config == _documented_local_hook(ROOT / "docs" / "check.md")
    repo = _user_repo(tmp_path)
    (repo / ".pre-commit-config.yaml").write_text(config)
    env = {**pre_commit_env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run([*PRE_COMMIT, "install"], cwd=repo, env=env, check=True, capture_output=True)
    _git(repo, "add", "-A")
    blocked = subprocess.run(["git", "commit", "-m", "add interop"], cwd=repo, env=env, capture_output=True,
                             text=True, timeout=300)
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert "src/interop.cu:4:15: error HP101" in output
    (repo / "src" / "interop.cu").unlink()
    _git(repo, "add", "-A")
    allowed = subprocess.run(["git", "commit", "-m", "portable"], cwd=repo, env=env, capture_output=True,
                             text=True, timeout=300)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
