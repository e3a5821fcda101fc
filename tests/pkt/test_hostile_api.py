# SPDX-License-Identifier: BSD-3-Clause
"""
Hostile input on the API socket itself (the grammar's bad commands are in
test_ctl_errors.py): an owner-only socket, 1 MB lines, NUL bytes and binary
junk, malformed JSON requests, clients that vanish mid-command or never read
their replies, and more clients than nfvd serves at once. Each gets a clear
error or a closed connection; nfvd stays up, answers everyone else, and its
state does not change.
"""
import json
import os
import socket
import stat
import time

import nfvdlib


def router(nfvd):
    n = nfvd()
    n.add_port("p0")
    n.add_port("p1")
    n.cmd("addr add 10.0.0.1/24 dev p0", "addr add 10.1.0.1/24 dev p1",
          "neigh add 10.1.0.2 lladdr 02:00:00:00:00:02 dev p1",
          "route add 198.18.0.0/16 via 10.1.0.2")
    return n.start()


def connect(n):
    for _ in range(100):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        try:
            s.connect(str(n.sock))
            return s
        except BlockingIOError:     # the listen backlog is full for a moment
            s.close()
            time.sleep(0.01)
    raise AssertionError("cannot connect to nfvd")


def reply(s):
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(65536)
        assert chunk, "nfvd closed the connection"
        buf += chunk
    return [json.loads(line) for line in buf.decode().splitlines()]


def hang_up(n, count, partial):
    """count clients that each send a partial request and close at once."""
    for _ in range(count):
        s = connect(n)
        s.sendall(partial)
        s.close()


def state(n):
    return {w: n.ctl(w) for w in ("route show", "addr show", "neigh show", "nexthop show",
                                  "port show")}


def test_socket_is_owner_only(nfvd):
    n = router(nfvd)
    mode = stat.S_IMODE(os.stat(n.sock).st_mode)
    assert mode == 0o600, oct(mode)
    n.stop()


def test_junk_lines_get_errors_and_change_nothing(nfvd):
    n = router(nfvd)
    before = state(n)
    s = connect(n)
    cases = [
        (b"x" * (1 << 20) + b"\n", "request line longer than 65536 bytes"),
        (b"route add 10.9.0.0/16\x00 via 10.1.0.2\n", "request contains a NUL byte"),
        (b"\xff\xfe\xfd route show\n", "unknown command"),
        (b"route add \xc3\x28/16 via 10.1.0.2\n", "bad prefix"),
        (b'{"cmd": 42}\n', "bad request"),
        (b'{"nope": "route show"}\n', "bad request"),
        (b"{not json\n", "bad request"),
        (b"route " * 100 + b"\n", "too many tokens"),
        (b"\n", None),    # an empty line is a no-op that succeeds
    ]
    for line, err in cases:
        s.sendall(line)
        replies = reply(s)
        assert len(replies) == 1, (line[:40], replies)
        r = replies[0]
        if err is None:
            assert r["ok"] is True
        else:
            assert r["ok"] is False and err in r["error"], (line[:40], r)
    # The same connection still works.
    s.sendall(b"route show 198.18.0.0/16\n")
    r = reply(s)[0]
    assert r["ok"] and r["data"]["routes"][0]["via"] == "10.1.0.2"
    s.close()
    assert state(n) == before
    n.stop()


def test_vanishing_and_silent_clients(nfvd):
    n = router(nfvd)
    before = state(n)
    hang_up(n, 20, b"route add 10.50.0.0/16 via 10.")     # half a command, then gone
    # A client that asks for a lot and never reads: nfvd must not block on it.
    greedy = connect(n)
    greedy.sendall(b"help\n" * 2000)
    time.sleep(0.2)
    assert n.ctl("route show 198.18.0.0/16")["routes"][0]["via"] == "10.1.0.2"
    greedy.close()
    assert state(n) == before
    n.stop()


def test_more_clients_than_served(nfvd):
    n = router(nfvd)
    clients = []
    for _ in range(64):         # one at a time, each accepted before the next
        clients.append(connect(n))
        clients[-1].sendall(b"\n")
        assert reply(clients[-1]) == [{"ok": True, "data": None, "text": ""}]
    extra = connect(n)
    r = reply(extra)
    assert r == [{"ok": False, "busy": True, "error": "too many clients (64 connected)"}]
    extra.close()
    # nfvctl tells a refusal (exit 2, could not talk to nfvd) from a failed
    # command (exit 1).
    r = n.ctl_result("route", "show", json_out=False)
    assert r.rc == 2 and "refused the connection: too many clients" in r.stderr, (r.rc,
                                                                               r.stderr)
    for s in clients:          # every one of the 64 is served
        s.sendall(b"route show 198.18.0.0/16\n")
    for s in clients:
        assert reply(s)[0]["ok"] is True
    for s in clients:
        s.close()
    time.sleep(0.2)
    assert n.ctl("route show 198.18.0.0/16")["routes"][0]["via"] == "10.1.0.2"
    n.stop()


def test_clients_that_hung_up_free_their_slots(nfvd):
    """Clients that send a last (partial) request and close must not hold a
    slot until nfvd gets round to reading them: a burst of them is no reason
    to refuse the next client."""
    n = router(nfvd)
    before = state(n)
    hang_up(n, 200, b"route add 10.77.0.0/16 black")
    s = connect(n)
    s.sendall(b"route show 198.18.0.0/16\n")
    r = reply(s)[0]
    assert r["ok"] is True, r
    s.close()
    assert state(n) == before
    n.stop()


def test_a_client_that_never_reads_does_not_hold_up_others(nfvd):
    """A client that pipelines many large requests and never reads the
    replies is served only as fast as it reads: the others are not kept
    waiting behind its backlog, and it still gets every reply in order."""
    n = router(nfvd)
    path = n.dir / "routes.txt"
    path.write_text("".join("10.%d.%d.0/24 via 10.1.0.2\n" % (100 + i // 256, i % 256)
                            for i in range(20000)))
    assert n.ctl("route", "load", str(path))["routes_loaded"] == 20000
    t = time.monotonic()
    n.ctl("route show")
    one = time.monotonic() - t
    greedy = connect(n)
    greedy.sendall(b"route show\n" * 60)
    time.sleep(0.2)
    t = time.monotonic()
    assert n.ctl("route show 198.18.0.0/16")["routes"][0]["via"] == "10.1.0.2"
    waited = time.monotonic() - t
    # Without the limit the other client waits for all 30 replies to be built.
    assert waited < max(2.0, 20 * one), (waited, one)
    # Each reply is a table of 20,000 routes: on a loaded machine (or under
    # ASan) building one can take longer than connect()'s 10 s.
    greedy.settimeout(120)
    f = greedy.makefile("rb")
    for _ in range(30):
        r = json.loads(f.readline())
        assert r["ok"] is True and len(r["data"]["routes"]) >= 20000
    f.close()
    greedy.close()
    n.stop()
