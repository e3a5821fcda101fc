#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
A user-space 802.1Q trunk, the smoke test's VLAN peer on kernels built
without VLAN support (no CONFIG_VLAN_8021Q: 'ip link add ... type vlan'
fails). Frames that come in on an access interface leave the trunk tagged
with its VLAN id (TPID 0x8100, priority 0); tagged frames that come in on
the trunk leave, untagged, by the access interface of their VLAN. Untagged
frames, VLANs without an access interface and stacked tags are dropped.

    vlan_trunk.py TRUNK VID=IFACE [VID=IFACE ...]

On receive the kernel takes the tag out of a veth's frame and hands it
beside the frame (PACKET_AUXDATA); a tag still in the frame data is read
there. Prints "ready" once every socket is bound; on SIGTERM or SIGINT
prints what it forwarded and dropped, and exits 0.
"""
import selectors
import signal
import socket
import struct
import sys

ETH_P_ALL = 0x0003
ETH_P_8021Q = 0x8100
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_IGNORE_OUTGOING = 23
TP_STATUS_VLAN_VALID = 0x10
TP_STATUS_VLAN_TPID_VALID = 0x40
AUXDATA = struct.Struct("=IIIHHHH")  # struct tpacket_auxdata


def packet_socket(ifname, auxdata=False):
    # Protocol 0 until bound: nothing is queued from other interfaces.
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    s.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
    if auxdata:
        s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((ifname, ETH_P_ALL))
    s.setblocking(False)
    return s


def main(argv):
    if len(argv) < 3 or not all("=" in a for a in argv[2:]):
        sys.exit("usage: vlan_trunk.py TRUNK VID=IFACE [VID=IFACE ...]")
    access = {}
    for a in argv[2:]:
        vid, ifname = a.split("=", 1)
        access[int(vid)] = ifname
    trunk = packet_socket(argv[1], auxdata=True)
    by_vid = {vid: packet_socket(ifname) for vid, ifname in access.items()}
    sel = selectors.DefaultSelector()
    sel.register(trunk, selectors.EVENT_READ, None)
    for vid, s in by_vid.items():
        sel.register(s, selectors.EVENT_READ, vid)
    counts = {"tagged": 0, "untagged": 0, "dropped": 0}
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    print("ready", flush=True)
    while not stop:
        try:
            events = sel.select(timeout=0.5)
        except InterruptedError:
            continue
        for key, _ in events:
            s, vid = key.fileobj, key.data
            if vid is not None:  # access -> trunk: tag
                try:
                    f = s.recv(65536)
                except BlockingIOError:
                    continue
                if len(f) < 14:
                    counts["dropped"] += 1
                    continue
                try:
                    trunk.send(f[:12] + struct.pack("!HH", ETH_P_8021Q, vid) + f[12:])
                    counts["tagged"] += 1
                except OSError:
                    counts["dropped"] += 1
                continue
            try:  # trunk -> access: untag
                f, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(AUXDATA.size))
            except BlockingIOError:
                continue
            tag = None
            for level, kind, data in anc:
                if level == SOL_PACKET and kind == PACKET_AUXDATA and len(data) >= AUXDATA.size:
                    status, _, _, _, _, tci, tpid = AUXDATA.unpack_from(data)
                    if status & TP_STATUS_VLAN_VALID and (
                            not status & TP_STATUS_VLAN_TPID_VALID or tpid == ETH_P_8021Q):
                        tag = tci & 0xfff
            if tag is None and len(f) >= 18 and struct.unpack_from("!H", f, 12)[0] == ETH_P_8021Q:
                tag = struct.unpack_from("!H", f, 14)[0] & 0xfff
                f = f[:12] + f[16:]
            if (tag is None or tag not in by_vid or len(f) < 14 or
                    struct.unpack_from("!H", f, 12)[0] == ETH_P_8021Q):
                counts["dropped"] += 1
                continue
            try:
                by_vid[tag].send(f)
                counts["untagged"] += 1
            except OSError:
                counts["dropped"] += 1
    print("vlan_trunk: %d frames tagged to the trunk, %d untagged from it, %d dropped" %
          (counts["tagged"], counts["untagged"], counts["dropped"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
