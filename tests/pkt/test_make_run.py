# SPDX-License-Identifier: BSD-3-Clause
"""
make run (scripts/run.sh), the main job, where no hugepages can be had (no
hugetlbfs mounted, as for a user who is not root or in a container): it
must still forward and end with its summary, on ordinary memory, as nfvd
does by itself when given no EAL options (README: "falls back to
--no-huge"). hugetlbfs is unmounted in a mount namespace of the test's own.
"""
import os
import shutil
import subprocess

import pytest

import nfvdlib

ROOT = nfvdlib.REPO


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="needs root and unshare for a private mount namespace")
def test_make_run_without_hugepages(tmp_path):
    script = ("umount -l /dev/hugepages 2>/dev/null; umount -l /mnt/huge 2>/dev/null; "
              "! grep -q ' hugetlbfs ' /proc/mounts || exit 77; "
              "exec bash scripts/run.sh")
    env = dict(os.environ, SECONDS_TO_RUN="2", BUILD=str(nfvdlib.BUILD), RUN_DIR=str(tmp_path))
    proc = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                          cwd=str(ROOT), env=env, capture_output=True, text=True, timeout=120)
    if proc.returncode == 77:
        pytest.skip("hugetlbfs still mounted in the namespace")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "running with --no-huge" in out, out[-3000:]
    lines = out.splitlines()
    summary = [l for l in lines if l.startswith("summary: received ")]
    assert len(summary) == 1, out[-3000:]
    words = summary[0].split()
    assert int(words[2]) > 0 and int(words[4]) > 0, summary
    assert "nfvd: exit: all mbufs returned to their pools" in lines, out[-3000:]
