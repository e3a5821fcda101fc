# SPDX-License-Identifier: BSD-3-Clause
"""
pytest fixtures of the packet tests: `nfvd` makes Nfvd instances (see
nfvdlib.py) in the test's tmp_path and makes sure none outlives the test;
an autouse fixture stops any other instance a test left running.
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


@pytest.fixture(autouse=True)
def no_nfvd_outlives_its_test():
    """Whatever a test made, however it ended: an instance it left running
    (it failed before stopping it) is stopped here, so that it does not
    hold its hugepages, files and CPU through the tests after it. The
    `nfvd` fixture below checks its own instances first."""
    first = len(nfvdlib.INSTANCES)
    yield
    for inst in nfvdlib.INSTANCES[first:]:
        if inst.proc is not None:
            inst.kill()
    del nfvdlib.INSTANCES[first:]


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
