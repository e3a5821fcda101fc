#!/usr/bin/python3
"""Minimal client for DPDK's telemetry socket (protocol v2).

Every DPDK application (testpmd, l3fwd, l3fwd-graph, nfvd) opens
/var/run/dpdk/<file-prefix>/dpdk_telemetry.v2 (as root). The socket is
SOCK_SEQPACKET: on connect the server sends one JSON object describing
itself (including max_output_len); after that each command such as
"/ethdev/stats,0" is answered by one JSON object {"/ethdev/stats": {...}}.

Library use:
    with Telemetry.for_prefix("bench-l3fwd") as t:
        t.query("/ethdev/stats,0")

Command line:
    telemetry.py PREFIX COMMAND [COMMAND...]     prints one JSON answer a line
"""

import json
import os
import socket
import sys
import time

RUNTIME_DIR = os.environ.get("RUNTIME_DIRECTORY", "/var/run/dpdk")


def socket_path(prefix):
    return os.path.join(RUNTIME_DIR, prefix, "dpdk_telemetry.v2")


class Telemetry:
    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(5.0)
        self.sock.connect(path)
        hello = json.loads(self.sock.recv(16384).decode())
        self.max_output_len = int(hello.get("max_output_len", 16384))
        self.info = hello

    @classmethod
    def for_prefix(cls, prefix):
        return cls(socket_path(prefix))

    @classmethod
    def wait_for_prefix(cls, prefix, timeout, alive=lambda: True):
        """Connect as soon as the application has opened its socket."""
        deadline = time.monotonic() + timeout
        last_err = None
        while time.monotonic() < deadline:
            if not alive():
                raise RuntimeError("application exited before telemetry was up")
            try:
                return cls.for_prefix(prefix)
            except OSError as e:
                last_err = e
                time.sleep(0.1)
        raise TimeoutError(f"no telemetry socket for {prefix}: {last_err}")

    def query(self, cmd):
        """Send one command, return the value of the reply's single key."""
        self.sock.send(cmd.encode())
        reply = json.loads(self.sock.recv(self.max_output_len).decode())
        key = cmd.split(",", 1)[0]
        return reply.get(key, reply)

    # Convenience wrappers used by the benchmark.
    def ports(self):
        """{device name: port id} for every ethdev of the application."""
        out = {}
        for pid in self.query("/ethdev/list") or []:
            info = self.query(f"/ethdev/info,{pid}") or {}
            out[info.get("name", str(pid))] = pid
        return out

    def port_info(self, pid):
        return self.query(f"/ethdev/info,{pid}")

    def stats(self, pid):
        return self.query(f"/ethdev/stats,{pid}")

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with Telemetry.for_prefix(sys.argv[1]) as t:
        for cmd in sys.argv[2:]:
            print(json.dumps(t.query(cmd)))


if __name__ == "__main__":
    main()
