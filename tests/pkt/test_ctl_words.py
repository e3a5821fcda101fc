# SPDX-License-Identifier: BSD-3-Clause
"""
Bad variants of the feature modules' commands (DESIGN 3: "Errors name the
bad token and change nothing"): a wrong word is named (not answered with a
bare usage line), a word without its value says which, an unknown
interface is an error (not an empty list); each is one line, exit 1, and
nothing changes.
"""
import pytest

from nfvdlib import Nfvd

ERRORS = [
    ("lcp show dev nope", "unknown interface 'nope'"),
    ("lcp show dev", "missing interface name after 'dev'"),
    ("acl set cache maybe", "bad cache 'maybe' (on or off)"),
    ("acl set cash on", "unexpected 'cash' (expected 'cache')"),
    ("acl set cache", "missing value after 'cache'"),
    ("acl set cache on off", "unexpected 'off'"),
    ("acl set", "missing arguments"),
    ("conntrack set frob 1", "unexpected 'frob' (expected max, timeout or tcp-liberal)"),
    ("conntrack set", "missing arguments"),
    ("flow export frob", "unexpected 'frob' (expected 'ipfix' or 'del')"),
    ("punt set arp rate 10 burst x", "bad burst 'x'"),
    ("punt set arp rate 10 burst", "missing value after 'burst'"),
    ("mirror add m9 dev p0 in p1", "unexpected 'p1' (expected 'to')"),
    ("upf pfcp listen 127.0.0.1 node-id", "missing value after 'node-id'"),
    ("upf pfcp listen 127.0.0.1 node-id a b", "unexpected 'b'"),
    ("upf pfcp listen 127.0.0.1 frob a", "unexpected 'frob'"),
    ("upf show sessions seid", "missing value after 'seid'"),
    ("upf show sessions seid 1 2", "unexpected '2'"),
    ("fdb show dev", "missing bridge name after 'dev'"),
    ("neigh set reachable", "missing value after 'reachable'"),
    ("neigh set reachable 1000 resolve", "missing value after 'resolve'"),
    ("neigh set frob", "unknown parameter 'frob'"),
    ("neigh set", "missing arguments"),
    ("port del nope", "unknown port 'nope'"),
    ("port del br0", "'br0' is a bridge interface, not a port"),
    ("port set nope down", "unknown port 'nope'"),
]

STATE = ("port show", "lcp show", "acl show", "conntrack show", "flow show", "punt show", "mirror show",
         "upf show sessions", "fdb show", "neigh params", "bridge show")


def state(n):
    out = {w: n.ctl(w) for w in STATE}
    for q in out["punt show"]["queues"]:
        q.pop("handled", None)
    out["conntrack show"].pop("expired", None)
    return out


@pytest.fixture(scope="module")
def router(tmp_path_factory):
    n = Nfvd(tmp_path_factory.mktemp("ctl_words"))
    n.add_port("p0")
    n.add_port("p1")
    n.cmd("addr add 10.0.0.1/24 dev p0", "addr add 10.1.0.1/24 dev p1", "bridge add br0")
    n.start()
    yield n
    n.stop()


@pytest.mark.parametrize("line,msg", ERRORS)
def test_bad_variant_named(router, line, msg):
    before = state(router)
    r = router.ctl_result(*line.split(), json_out=False)
    assert r.rc == 1, (line, r.rc, r.stdout, r.stderr)
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: "), (line, err)
    assert msg in err, (line, err)
    assert state(router) == before, line


def test_macs_shown_as_typed_in_lower_case(router):
    """A MAC is shown in lower case, as Linux and VPP show it: what a user
    typed in lower case comes back the same, in JSON and in the text view;
    one typed in upper case is the same address."""
    router.ctl("neigh add 10.0.0.9 lladdr 02:ab:cd:ef:00:1f dev p0")
    router.ctl("neigh add 10.0.0.10 lladdr 02:AB:CD:EF:00:2F dev p0")
    try:
        macs = {e["address"]: e["lladdr"] for e in router.ctl("neigh show")["neighbors"]
                if e["address"] in ("10.0.0.9", "10.0.0.10")}
        assert macs == {"10.0.0.9": "02:ab:cd:ef:00:1f", "10.0.0.10": "02:ab:cd:ef:00:2f"}
        text = router.ctl_result("neigh", "show", json_out=False).stdout
        assert "02:ab:cd:ef:00:1f" in text and "02:ab:cd:ef:00:2f" in text
        assert "AB:CD" not in text
        br = router.ctl("port show br0")["ports"][0]["mac"]
        assert br == br.lower()
    finally:
        router.ctl("neigh del 10.0.0.9 dev p0")
        router.ctl("neigh del 10.0.0.10 dev p0")


def test_help_lines():
    """nfvd --help: exit 0; every option line of a module names its option
    and its value's word apart from its text (a long one on a line of its
    own), as the core options do."""
    import re
    import subprocess
    from nfvdlib import NFVD
    r = subprocess.run([str(NFVD), "--help"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    i = [n for n, line in enumerate(lines) if "--lcp-netlink-rcvbuf" in line][0]
    assert lines[i].split() == ["--lcp-netlink-rcvbuf", "BYTES"]
    assert lines[i + 1].split()[:3] == ["receive", "buffer", "of"]
    for line in lines:
        m = re.match(r"      (--[a-z0-9-]+)( [A-Z]+)?(.*)$", line)
        if m and m.group(3):
            assert m.group(3).startswith(" "), line
