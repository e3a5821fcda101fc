# SPDX-License-Identifier: BSD-3-Clause
"""
pytest fixtures of the packet tests: `nfvd` makes Nfvd instances (see
nfvdlib.py) in the test's tmp_path and makes sure none outlives the test.
"""
import pytest

import nfvdlib


def pytest_configure(config):
    config.addinivalue_line("markers", "nfvd: runs a real nfvd")


def pytest_sessionstart(session):
    for path in (nfvdlib.NFVD, nfvdlib.NFVCTL):
        if not path.exists():
            raise pytest.UsageError("%s not built: run 'ninja -C %s' (or set NFVD_BUILD)"
                                    % (path, nfvdlib.BUILD))


@pytest.fixture
def nfvd(tmp_path):
    """Factory: nfvd(**kw) -> a configured, not yet started Nfvd."""
    made = []

    def make(name="nfvd", **kw):
        inst = nfvdlib.Nfvd(tmp_path / ("%s%d" % (name, len(made))), **kw)
        made.append(inst)
        return inst

    yield make
    # A test that failed before stopping its instances: stop them now, and still
    # check the exit code and that every mbuf came back.
    errors = []
    for inst in made:
        if inst.running:
            try:
                inst.stop()
            except AssertionError as e:
                errors.append(str(e))
        inst.kill()
    if errors:
        pytest.fail("at teardown: " + "\n".join(errors), pytrace=False)
