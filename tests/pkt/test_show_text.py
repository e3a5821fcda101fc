# SPDX-License-Identifier: BSD-3-Clause
"""
The text view of the show commands (what nfvctl prints without --json): a
table's columns are every key of its rows; a row without a key, with null
or with an empty string there shows "-", so that every row splits on blanks
into as many cells as the header. A row kind that is never first must not
lose its columns.
"""
from nfvdlib import Nfvd


def text_rows(n, *words):
    """(header, {first column: row}) of a command's text table."""
    lines = n.ctl_result(*words, json_out=False).stdout.splitlines()
    return lines[1].split(), {line.split()[0]: line.split() for line in lines[2:]}


def test_nexthop_show_text(tmp_path):
    n = Nfvd(tmp_path)
    n.add_port("p0")
    n.add_port("p1")
    n.cmd("addr add 10.0.0.1/24 dev p0",
          "addr add 10.1.0.1/24 dev p1",
          "neigh add 10.1.0.2 lladdr 02:00:00:00:00:02 dev p1",
          "route add 198.18.0.0/16 via 10.1.0.2",
          "route add 198.19.0.0/16 via 10.1.0.2 via 10.1.0.3",
          "route add 198.20.0.0/16 blackhole")
    n.start()
    nhs = n.ctl("nexthop show")["nexthops"]
    assert nhs[0]["type"] == "local"
    # A type without a gateway or interface has no such key in JSON.
    assert all(set(nh) <= {"id", "type", "via", "dev", "resolved", "refcnt"} for nh in nhs), nhs
    by_via = {str(nh["via"]): nh for nh in nhs if "via" in nh}
    assert (by_via["10.1.0.2"]["type"], by_via["10.1.0.2"]["dev"],
            by_via["10.1.0.2"]["resolved"]) == ("gateway", "p1", True)
    assert (by_via["10.1.0.3"]["resolved"]) is False
    lines = n.ctl_result("nexthop", "show", json_out=False).stdout.splitlines()
    head = lines[1].split()
    assert sorted(head) == sorted(["id", "type", "via", "dev", "resolved", "refcnt"]), head
    col = {k: head.index(k) for k in head}
    rows = {line.split()[col["id"]]: line.split() for line in lines[2:]}
    assert len(rows) == len(lines) - 2
    want = {nh["id"]: nh for nh in nhs}
    for i, nh in want.items():
        row = rows[str(i)]
        cell = [row[col[k]] for k in ("type", "via", "dev", "resolved")]
        if nh["type"] == "gateway":
            assert cell == ["gateway", nh["via"], nh["dev"], "yes" if nh["resolved"] else "no"], row
        elif nh["type"] == "connected":
            assert cell == ["connected", "-", nh["dev"], "-"], row
        elif nh["type"] in ("local", "blackhole"):
            assert cell == [nh["type"], "-", "-", "-"], row
    assert sorted(r[col["type"]] for r in rows.values()) == sorted(nh["type"] for nh in nhs)
    n.stop()
