# SPDX-License-Identifier: BSD-3-Clause
"""
Files and signals nfvd must not trust: a startup file, a "route load" file or
an "nfvctl -f" file that is a directory, a FIFO, a device that never ends, a
line over 64 KiB or a NUL byte gets a clear error naming the file and the
problem, at once (nothing blocks on a FIFO or grows on /dev/zero), and
changes nothing. SIGHUP, SIGUSR1 and SIGUSR2 do not end the daemon.
"""
import os
import signal
import subprocess
import time

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
