#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The gNB and SMF of the UPF smoke suite (tests/smoke/suites/upf.sh), run in
the gNB's namespace: PFCP (scapy contrib.pfcp) over a UDP socket to nfvd's
N4 address, G-PDUs (scapy contrib.gtp) over a UDP socket bound to the gNB's
address, port 2152, to nfvd's N3 address. The UE is what the G-PDUs carry.

    upf_peer.py N4 N3 GNB UE DN DN_NS NFVCTL API_SOCK

Prints one line per check, "PASS text" or "FAIL text" ("INFO text" for
notes); the suite counts them. Exits 0 once every step ran (the verdict
is in the lines), non-zero when it could not go on.
"""
import json
import socket
import subprocess
import sys
import time

from scapy.contrib.gtp import (GTP_U_Header, GTPEchoRequest, GTPEchoResponse, GTPHeader,
                               GTPPDUSessionContainer)
from scapy.contrib.pfcp import (PFCP, IE_ApplyAction, IE_CreateFAR, IE_CreatePDR,
                                IE_DestinationInterface, IE_FAR_Id, IE_FSEID, IE_FTEID,
                                IE_ForwardingParameters, IE_NodeId, IE_OuterHeaderCreation,
                                IE_OuterHeaderRemoval, IE_PDI, IE_PDR_Id, IE_Precedence,
                                IE_RecoveryTimeStamp, IE_SourceInterface, IE_UE_IP_Address,
                                IE_UpdateFAR, IE_UpdateForwardingParameters,
                                PFCPAssociationReleaseRequest, PFCPAssociationSetupRequest,
                                PFCPHeartbeatRequest, PFCPSessionDeletionRequest,
                                PFCPSessionEstablishmentRequest, PFCPSessionModificationRequest)
from scapy.layers.inet import ICMP, IP, UDP

N4, N3, GNB, UE, DN, DN_NS, NFVCTL, SOCK = sys.argv[1:9]
GTPU = 2152
CP_SEID = 0x5eed
DL_TEID1, DL_TEID2 = 0x2001, 0x2002
ACCEPTED = 1
failed = 0


def say(kind, text):
    global failed
    if kind == "FAIL":
        failed += 1
    print("%s %s" % (kind, text), flush=True)


def check(ok, text, why=""):
    say("PASS" if ok else "FAIL", text if ok or not why else "%s: %s" % (text, why))
    return ok


def ctl(*words):
    out = subprocess.run([NFVCTL, "-s", SOCK, "--json"] + list(words), capture_output=True,
                         text=True, timeout=10)
    if out.returncode != 0:
        raise RuntimeError("nfvctl %s: %s" % (" ".join(words), out.stdout + out.stderr))
    return json.loads(out.stdout)


def drop_counts():
    return {"%s/%s" % (d["node"], d["reason"]): d["packets"] for d in ctl("show", "drops")["drops"]}


def drop_delta(before, names):
    after = drop_counts()
    return {n: after.get(n, 0) - before.get(n, 0) for n in names}


def in_dn(*argv, **kw):
    return subprocess.run(["ip", "netns", "exec", DN_NS] + list(argv), capture_output=True,
                          text=True, **kw)


class Smf:
    """PFCP requests over one UDP socket; each answer is matched by sequence number."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.settimeout(3)
        self.sock.connect((N4, 8805))
        self.seq = 0
        self.node = IE_NodeId(id_type=2, id=b"smf.up.test")  # labels on the wire

    def request(self, msg, seid=None):
        self.seq += 1
        hdr = PFCP(version=1, S=0, seq=self.seq) if seid is None else \
            PFCP(version=1, S=1, seid=seid, seq=self.seq)
        self.sock.send(bytes(hdr / msg))
        while True:
            r = PFCP(self.sock.recv(65535))
            if r.seq == self.seq:
                return r


def ies(resp):
    return {type(ie).__name__: ie for ie in resp.payload.IE_list}


def cause(resp):
    ie = ies(resp).get("IE_Cause")
    return ie.cause if ie is not None else None


class Gnb:
    """N3: G-PDUs to nfvd from GNB:2152, what comes back on that socket."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((GNB, GTPU))
        self.sock.settimeout(3)
        self.sent = 0

    def send(self, teid, inner, ext=False):
        if ext:
            g = GTP_U_Header(teid=teid, E=1, next_ex=0x85) / GTPPDUSessionContainer(type=1, QFI=9)
        else:
            g = GTP_U_Header(teid=teid)
        self.sock.sendto(bytes(g / inner), (N3, GTPU))
        self.sent += 1

    def recv(self, timeout=3.0):
        """(source address, GTP-U bytes), or None after timeout seconds."""
        self.sock.settimeout(timeout)
        try:
            data, src = self.sock.recvfrom(65535)
        except socket.timeout:
            return None
        return src, data

    def recv_gpdu(self, teid, what, timeout=3.0):
        """The inner packet of the next G-PDU, after checking its outer headers:
        from N3:2152, version 1, PT 1, no optional fields, G-PDU, length, TEID."""
        got = self.recv(timeout)
        if got is None:
            check(False, what, "no G-PDU within %.0f s" % timeout)
            return None
        src, data = got
        hdr = data[:8]
        want = bytes([0x30, 0xff]) + (len(data) - 8).to_bytes(2, "big") + teid.to_bytes(4, "big")
        if src != (N3, GTPU) or hdr != want:
            check(False, what, "outer: from %s, GTP-U header %s (want from %s:%d, %s)" % (
                src, hdr.hex(), N3, GTPU, want.hex()))
            return None
        return data[8:]


def same_inner(got, want_l4, what):
    """got (the inner packet's bytes) equals, byte for byte, DN -> UE one
    router hop on (TTL 63) carrying want_l4; the IP id, DF and TOS are the
    DN kernel's choice, taken from the packet; the checksums scapy computes."""
    g = IP(got)
    want = bytes(IP(src=DN, dst=UE, ttl=63, id=g.id, flags=g.flags, tos=g.tos) / want_l4)
    return check(got == want, what, "inner packet\n  got  %s\n  want %s" % (got.hex(), want.hex()))


def ping(gnb, teid, dl_teid, seq, ext=False, what=None):
    payload = b"upf smoke ping %04d" % seq
    gnb.send(teid, IP(src=UE, dst=DN, ttl=64, id=seq) / ICMP(type=8, id=0x77, seq=seq) / payload,
             ext=ext)
    inner = gnb.recv_gpdu(dl_teid, what or "ping %d" % seq)
    if inner is None:
        return False
    return same_inner(inner, ICMP(type=0, id=0x77, seq=seq) / payload,
                      what or "UE -> %s echo %d answered in a G-PDU with TEID 0x%x" % (
                          DN, seq, dl_teid))


def session_row():
    s = ctl("upf", "show", "sessions")
    return s["sessions"][0] if s["sessions"] else None


def main():
    smf, gnb = Smf(), Gnb()

    r = smf.request(PFCPHeartbeatRequest(IE_list=[IE_RecoveryTimeStamp(timestamp=3900000000)]))
    check(r.message_type == 2, "PFCP heartbeat answered from %s:8805" % N4)
    r = smf.request(PFCPAssociationSetupRequest(IE_list=[
        smf.node, IE_RecoveryTimeStamp(timestamp=3900000000)]))
    check(r.message_type == 6 and cause(r) == ACCEPTED, "PFCP association setup accepted",
          "type %d cause %s" % (r.message_type, cause(r)))

    # Establishment as an SMF does it before the gNB's tunnel is known: the
    # uplink F-TEID chosen by the UPF (CHOOSE), the downlink FAR buffering.
    r = smf.request(PFCPSessionEstablishmentRequest(IE_list=[
        smf.node, IE_FSEID(v4=1, seid=CP_SEID, ipv4=GNB),
        IE_CreatePDR(IE_list=[
            IE_PDR_Id(id=1), IE_Precedence(precedence=200),
            IE_PDI(IE_list=[IE_SourceInterface(interface=0), IE_FTEID(CH=1, V4=1),
                            IE_UE_IP_Address(V4=1, ipv4=UE)]),
            IE_OuterHeaderRemoval(header=0), IE_FAR_Id(id=1)]),
        IE_CreatePDR(IE_list=[
            IE_PDR_Id(id=2), IE_Precedence(precedence=200),
            IE_PDI(IE_list=[IE_SourceInterface(interface=1),
                            IE_UE_IP_Address(V4=1, SD=1, ipv4=UE)]),
            IE_FAR_Id(id=2)]),
        IE_CreateFAR(IE_list=[IE_FAR_Id(id=1), IE_ApplyAction(FORW=1),
                              IE_ForwardingParameters(IE_list=[
                                  IE_DestinationInterface(interface=1)])]),
        IE_CreateFAR(IE_list=[IE_FAR_Id(id=2), IE_ApplyAction(BUFF=1)])]), seid=0)
    if not check(r.message_type == 51 and cause(r) == ACCEPTED and r.seid == CP_SEID,
                 "PFCP session establishment accepted",
                 "type %d cause %s seid %#x" % (r.message_type, cause(r), r.seid)):
        return 1
    got = ies(r)
    up_seid = got["IE_FSEID"].seid
    created = {type(ie).__name__: ie for ie in got["IE_CreatedPDR"].IE_list}
    ul_teid = created["IE_FTEID"].TEID
    check(created["IE_PDR_Id"].id == 1 and created["IE_FTEID"].ipv4 == N3 and ul_teid != 0,
          "Created PDR 1: uplink F-TEID 0x%x at %s chosen by the UPF" % (
              ul_teid, created["IE_FTEID"].ipv4))
    s = session_row()
    check(s is not None and s["seid"] == up_seid and s["cp_seid"] == CP_SEID and
          s["node_id"] == "smf.up.test", "upf show sessions: SEID %#x of smf.up.test" % up_seid,
          str(s))

    # The downlink FAR buffers (buffering is not built): the DN's packet
    # for the UE is dropped under its name.
    before = drop_counts()
    in_dn("ping", "-n", "-c", "1", "-W", "1", UE, timeout=10)
    d = drop_delta(before, ["upf_downlink/far_buffer"])
    check(d["upf_downlink/far_buffer"] == 1,
          "DN -> UE before the gNB's F-TEID is known: upf_downlink/far_buffer +1", str(d))

    r = smf.request(PFCPSessionModificationRequest(IE_list=[IE_UpdateFAR(IE_list=[
        IE_FAR_Id(id=2), IE_ApplyAction(FORW=1),
        IE_UpdateForwardingParameters(IE_list=[
            IE_DestinationInterface(interface=0),
            IE_OuterHeaderCreation(GTPUUDPIPV4=1, TEID=DL_TEID1, ipv4=GNB)])])]), seid=up_seid)
    check(r.message_type == 53 and cause(r) == ACCEPTED and r.seid == CP_SEID,
          "PFCP session modification (downlink FAR: forward to %s TEID 0x%x) accepted" % (
              GNB, DL_TEID1), "type %d cause %s" % (r.message_type, cause(r)))

    # GTP-U echo on N3.
    gnb.sock.sendto(bytes(GTPHeader(seq=4242, S=1, teid=0) / GTPEchoRequest()), (N3, GTPU))
    got = gnb.recv()
    if got is None:
        check(False, "GTP-U echo request answered", "no answer")
    else:
        resp = GTPHeader(got[1])
        check(got[0] == (N3, GTPU) and GTPEchoResponse in resp and resp.seq == 4242,
              "GTP-U echo request answered (sequence number kept)", got[1].hex())

    # Five pings from the UE, one with a PDU session container; the DN's
    # kernel answers; each answer comes back in a G-PDU to the gNB.
    ok = 0
    for seq in range(1, 6):
        ok += ping(gnb, ul_teid, DL_TEID1, seq, ext=(seq == 3),
                   what="UE -> DN echo %d%s answered in a G-PDU with TEID 0x%x" % (
                       seq, " (PDU session container)" if seq == 3 else "", DL_TEID1))
    n_dl = ok

    # UDP, UE -> DN: socat on the DN answers with what it got and from whom.
    gnb.send(ul_teid, IP(src=UE, dst=DN, ttl=64, id=100) / UDP(sport=40000, dport=7777) /
             b"hello from the UE\n")
    inner = gnb.recv_gpdu(DL_TEID1, "UDP UE -> DN:7777 answered")
    if inner is not None:
        n_dl += same_inner(inner, UDP(sport=7777, dport=40000) /
                           ("dn got hello from the UE from %s port 40000\n" % UE)
                           .encode(), "UDP UE:40000 -> DN:7777 (socat) and its answer, "
                           "byte for byte")

    # UDP, DN -> UE: socat on the DN sends first and waits for the answer.
    dn = subprocess.Popen(["ip", "netns", "exec", DN_NS, "socat", "-t", "2", "-",
                           "UDP4:%s:5000,sourceport=6000" % UE], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dn.stdin.write(b"hello from the DN\n")
    dn.stdin.close()
    inner = gnb.recv_gpdu(DL_TEID1, "UDP DN:6000 -> UE:5000 (socat)")
    if inner is not None:
        n_dl += same_inner(inner, UDP(sport=6000, dport=5000) / b"hello from the DN\n",
                           "UDP DN:6000 (socat) -> UE:5000 in a G-PDU, byte for byte")
        gnb.send(ul_teid, IP(src=UE, dst=DN, ttl=64, id=101) / UDP(sport=5000, dport=6000) /
                 b"the UE answers\n")
    dn.wait(timeout=15)
    out, err = dn.stdout.read(), dn.stderr.read()
    check(out == b"the UE answers\n", "UDP UE:5000 -> DN:6000: socat on the DN got the UE's answer",
          repr(out) + " " + err.decode(errors="replace").strip())

    # A second modification: the gNB's TEID changes (a handover); the next
    # downlink G-PDU carries the new one.
    r = smf.request(PFCPSessionModificationRequest(IE_list=[IE_UpdateFAR(IE_list=[
        IE_FAR_Id(id=2),
        IE_UpdateForwardingParameters(IE_list=[
            IE_OuterHeaderCreation(GTPUUDPIPV4=1, TEID=DL_TEID2, ipv4=GNB)])])]), seid=up_seid)
    check(cause(r) == ACCEPTED, "PFCP session modification (downlink TEID 0x%x) accepted" %
          DL_TEID2, "cause %s" % cause(r))
    n_dl += ping(gnb, ul_teid, DL_TEID2, 6,
                 what="after the modification the answer comes with TEID 0x%x" % DL_TEID2)

    s = session_row()
    check(s is not None and s["uplink_packets"] == gnb.sent and s["downlink_packets"] == n_dl,
          "per-session counters: %d uplink, %d downlink packets" % (gnb.sent, n_dl),
          "%s (want %d up, %d down)" % (
              {k: s[k] for k in s if k.endswith("packets")} if s else None, gnb.sent, n_dl))

    r = smf.request(PFCPSessionDeletionRequest(), seid=up_seid)
    check(r.message_type == 55 and cause(r) == ACCEPTED and r.seid == CP_SEID,
          "PFCP session deletion accepted", "cause %s" % cause(r))
    check(ctl("upf", "show", "sessions")["count"] == 0, "no session left")

    # After the deletion: the uplink G-PDU has no PDR; the DN's packet for
    # the UE has no session and no route.
    before = drop_counts()
    gnb.send(ul_teid, IP(src=UE, dst=DN, ttl=64) / ICMP(type=8, id=0x77, seq=9) / b"late")
    late = gnb.recv(timeout=1.0)
    in_dn("ping", "-n", "-c", "1", "-W", "1", UE, timeout=10)
    stray = gnb.recv(timeout=0.5)
    names = ["upf_gtpu/no_pdr", "ip4_lookup/no_route"]
    for _ in range(20):  # the uplink drop is counted when a worker polls it
        d = drop_delta(before, names)
        if d["upf_gtpu/no_pdr"] >= 1 and d["ip4_lookup/no_route"] >= 1:
            break
        time.sleep(0.1)
    check(late is None and stray is None, "nothing reaches the gNB after the deletion",
          "%s %s" % (late, stray))
    check(d == {"upf_gtpu/no_pdr": 1, "ip4_lookup/no_route": 1},
          "after the deletion: uplink upf_gtpu/no_pdr +1, downlink ip4_lookup/no_route +1",
          str(d))

    r = smf.request(PFCPAssociationReleaseRequest(IE_list=[smf.node]))
    check(r.message_type == 10 and cause(r) == ACCEPTED, "PFCP association release accepted")
    pf = ctl("upf", "show", "sessions")["pfcp"]
    check(pf["associations"] == 0 and pf["malformed"] == 0 and pf["rejected"] == 0,
          "PFCP counters: %d messages in, %d out, none malformed or rejected" % (
              pf["rx_messages"], pf["tx_messages"]), str(pf))
    return 0


if __name__ == "__main__":
    sys.exit(main())
