# SPDX-License-Identifier: BSD-3-Clause
"""
Files and signals nfvd must not trust: a startup file, a "route load" file or
an "nfvctl -f" file that is a directory, a FIFO, a device that never ends, a
line over 64 KiB or a NUL byte gets a clear error naming the file and the
problem, at once (nothing blocks on a FIFO or grows on /dev/zero), and
changes nothing. SIGHUP, SIGUSR1 and SIGUSR2 do not end the daemon. A
SIGTERM ends a start-up blocked in a device's handshake: at once when it comes
twice, else after --stop-grace.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import nfvdlib


def bad_files(d):
    """(path, what the error must say) for each kind of bad file."""
    folder = d / "a-directory"
    folder.mkdir()
    fifo = d / "a-fifo"
    os.mkfifo(fifo)
    long_line = d / "long-line.txt"
    long_line.write_text("# ok\n" + "#" * 70000 + "\n")
    nul = d / "nul.txt"
    nul.write_bytes(b"# ok\nroute add 10.9.0.0/16\x00 blackhole\n")
    return [(folder, "is a directory"), (fifo, "not a regular file"),
            ("/dev/zero", "not a regular file"), (long_line, "line 2 is longer than 65536"),
            (nul, "line 2 contains a NUL byte")]


def test_startup_file_must_be_plain_text(tmp_path):
    for path, problem in bad_files(tmp_path):
        argv = [str(nfvdlib.NFVD), "-l", "0,1", "--no-huge", "-m", str(nfvdlib.EAL_MEM_MB),
                "--no-pci", "--no-shconf", "--file-prefix", "nfvbadfile%d" % os.getpid(), "--",
                "-c", str(path), "-s", str(tmp_path / "api.sock"),
                "--max-routes4", "1024", "--max-routes6", "1024"]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        out = r.stdout + r.stderr
        assert r.returncode == 1, (path, r.returncode, out[-2000:])
        assert str(path) in out and problem in out, (path, out[-2000:])
        assert not (tmp_path / "api.sock").exists()


def small_router(nfvd):
    d = nfvd()
    d.add_port("p1", null=True)
    d.cmd("addr add 10.1.0.254/24 dev p1", "route add 10.8.0.0/16 blackhole")
    return d.start()


def test_route_load_and_ctl_files_must_be_plain_text(nfvd):
    d = small_router(nfvd)
    before = d.api("route show")
    for path, problem in bad_files(d.dir):
        t = time.monotonic()
        r = d.ctl_result("route", "load", str(path))
        assert time.monotonic() - t < 10, path
        assert r.rc == 1 and problem in r.json()["error"], (path, r.rc, r.stdout, r.stderr)
        assert str(path) in r.json()["error"]
        r = d.ctl_result("-f", str(path), json_out=False)
        assert r.rc == 1 and problem in r.stderr, (path, r.rc, r.stderr)
    assert d.api("route show") == before
    # A good file still loads.
    good = d.dir / "good.txt"
    good.write_text("10.9.0.0/16 blackhole\n10.10.0.0/16 via 10.1.0.1\n")
    assert d.ctl("route", "load", str(good))["routes_loaded"] == 2
    d.stop()


def test_hup_and_usr_signals_do_not_stop_nfvd(nfvd):
    d = small_router(nfvd)
    before = d.api("route show")
    for sig in (signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2):
        d.proc.send_signal(sig)
    time.sleep(0.5)
    assert d.running
    assert d.api("route show") == before
    d.stop()     # exit 0, every mbuf back
    for name in ("Hangup", "User defined signal 1", "User defined signal 2"):
        assert "signal %s ignored" % name in d.log, d.log[-2000:]


def silent_vhost(path):
    """A vhost-user socket that accepts connections and never answers: a
    virtio-user port's handshake with it blocks. Returns (listener, the
    accepted connections, an event set at the first)."""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(4)
    conns, first = [], threading.Event()

    def serve():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            conns.append(c)
            first.set()
    threading.Thread(target=serve, daemon=True).start()
    return srv, conns, first


def blocked_start(tmp_path, sockdir, grace):
    """nfvd whose startup file's first port blocks in its handshake; the
    second line (a route) is never applied. Returns the process, once the
    handshake has begun."""
    sock = sockdir / "vhost.sock"
    srv, conns, first = silent_vhost(sock)
    conf = tmp_path / "blocked.conf"
    conf.write_text("port add v0 dev net_virtio_user0,path=%s,queue_size=64\n"
                    "route add 10.8.0.0/16 blackhole\n" % sock)
    argv = [str(nfvdlib.NFVD), "-l", "0,1", "--no-huge", "-m", str(nfvdlib.EAL_MEM_MB),
            "--no-pci", "--no-shconf", "--file-prefix", "nfvblocked%d" % os.getpid(), "--",
            "-c", str(conf), "-s", str(sockdir / "api.sock"), "--max-routes4", "1024",
            "--max-routes6", "1024", "--stop-grace", str(grace)]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert first.wait(60), "nfvd never connected to the vhost-user socket"
    return p, srv, conns


def test_sigterm_ends_a_start_up_blocked_in_a_device_handshake(tmp_path):
    sockdir = Path(tempfile.mkdtemp(prefix="nfvblk"))
    try:
        # Twice: the second signal ends it at once, by that signal.
        p, srv, conns = blocked_start(tmp_path, sockdir, 60)
        time.sleep(0.5)
        assert p.poll() is None, "the handshake should still be waiting"
        p.send_signal(signal.SIGTERM)
        time.sleep(1.0)
        assert p.poll() is None, "a blocked start-up cannot stop in order"
        t = time.monotonic()
        p.send_signal(signal.SIGTERM)
        _out, err = p.communicate(timeout=10)
        assert time.monotonic() - t < 5
        assert p.returncode == -signal.SIGTERM, (p.returncode, err[-2000:])
        assert "second signal: stopping now, without clean-up" in err, err[-2000:]
        srv.close()
        for c in conns:
            c.close()
        (sockdir / "vhost.sock").unlink()

        # Once, with a grace of 2 s: it ends itself after the grace.
        p, srv, conns = blocked_start(tmp_path, sockdir, 2)
        t = time.monotonic()
        p.send_signal(signal.SIGTERM)
        _out, err = p.communicate(timeout=30)
        took = time.monotonic() - t
        assert 1.5 < took < 10, took
        assert p.returncode == -signal.SIGTERM, (p.returncode, err[-2000:])
        assert "not stopped within --stop-grace after the signal" in err, err[-2000:]
        assert not (sockdir / "api.sock").exists()
        srv.close()
        for c in conns:
            c.close()
    finally:
        shutil.rmtree(sockdir, ignore_errors=True)
        shutil.rmtree("/var/run/dpdk/nfvblocked%d" % os.getpid(), ignore_errors=True)


def test_sigterm_during_start_up_skips_the_rest_of_the_file(tmp_path):
    """A signal while the startup file runs: the lines after the one running
    are not applied, and nfvd stops in order (exit 0, every mbuf back)."""
    n = 60000
    conf = tmp_path / "long.conf"
    conf.write_text("".join("route add 10.%d.%d.0/24 blackhole\n" % (i >> 8, i & 255)
                            for i in range(n)))
    sockdir = Path(tempfile.mkdtemp(prefix="nfvlong"))
    argv = [str(nfvdlib.NFVD), "-l", "0,1", "--no-huge", "-m", str(nfvdlib.EAL_MEM_MB),
            "--no-pci", "--no-shconf", "--file-prefix", "nfvlong%d" % os.getpid(), "--",
            "-c", str(conf), "-s", str(sockdir / "api.sock"), "--max-routes4", "65536",
            "--max-routes6", "1024"]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    try:
        # The line nfvd prints just before it runs the startup file.
        for line in p.stdout:
            lines.append(line)
            if "worker(s), burst" in line:
                break
        time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        shutil.rmtree(sockdir, ignore_errors=True)
        shutil.rmtree("/var/run/dpdk/nfvlong%d" % os.getpid(), ignore_errors=True)
    out = "".join(lines) + out
    assert p.returncode == 0, (p.returncode, out[-3000:])
    m = re.search(r"long\.conf: stopped by signal Terminated before line (\d+)", out)
    assert m and 1 < int(m.group(1)) <= n, out[-3000:]
    assert nfvdlib.MBUFS_OK_LINE in out, out[-3000:]
    assert "ready; API socket" not in out, out[-3000:]
