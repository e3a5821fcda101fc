# SPDX-License-Identifier: BSD-3-Clause
"""
UPF: PFCP (N4) from a scapy SMF over a real UDP socket to nfvd's PFCP
listener, then GTP-U uplink and plain downlink frames through net_pcap
ports, checked byte for byte.

    gNB 192.0.2.10 -- n3p [nfvd] n6p -- DN 198.51.100.20
        192.0.2.1 (N3)        198.51.100.1
    UE 10.45.0.2: no route to it; the session attracts its traffic.

PFCP must come before the traffic, so the frames are fed by pcap ports
added after each PFCP step (inj1, inj2...): GTP-U to the N3 address is
delivered locally whatever port it arrives on, and the downlink node sits
on every interface but N3's. "--burst 1" keeps the order.
"""
import socket
import time

import pytest
from scapy.contrib.gtp import (GTP_U_Header, GTPEchoRequest, GTPEchoResponse, GTPHeader,
                               GTPPDUSessionContainer, IE_Recovery)
from scapy.contrib.pfcp import (PFCP, IE_ApplyAction, IE_Cause, IE_CreateFAR, IE_CreatePDR,
                                IE_CreatedPDR, IE_DestinationInterface, IE_FAR_Id, IE_FSEID,
                                IE_FTEID, IE_ForwardingParameters, IE_NodeId, IE_OffendingIE,
                                IE_OuterHeaderCreation, IE_OuterHeaderRemoval, IE_PDI,
                                IE_PDR_Id, IE_Precedence, IE_RecoveryTimeStamp, IE_RemoveFAR,
                                IE_RemovePDR, IE_SourceInterface, IE_UE_IP_Address,
                                IE_UpdateFAR, IE_UpdateForwardingParameters,
                                PFCPAssociationReleaseRequest, PFCPAssociationSetupRequest,
                                PFCPHeartbeatRequest, PFCPSessionDeletionRequest,
                                PFCPSessionEstablishmentRequest,
                                PFCPSessionModificationRequest)
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

import nfvdlib
from nfvdlib import Nfvd, drops, pcap_mac

N3, GNB, DN, UE = "192.0.2.1", "192.0.2.10", "198.51.100.20", "10.45.0.2"
SMF = "127.0.0.1"
GNB_MAC, DN_MAC, PEER = "02:00:00:00:0a:01", "02:00:00:00:0b:01", "02:00:00:00:0c:01"
N3_MAC, N6_MAC = pcap_mac(0), pcap_mac(1)
UL_TEID, DL_TEID, CP_SEID = 0x100, 0x200, 0xC0FFEE

CAUSE_ACCEPTED, CAUSE_NOT_FOUND, CAUSE_MISSING, CAUSE_LENGTH = 1, 65, 66, 68
CAUSE_NO_ASSOC, CAUSE_RULE = 72, 73


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((SMF, 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Smf:
    """A PFCP peer over a real UDP socket."""

    def __init__(self, port):
        self.to = (SMF, port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((SMF, 0))
        self.sock.settimeout(5)
        self.seq = 0

    def raw(self, data, expect=True):
        self.sock.sendto(bytes(data), self.to)
        if not expect:
            self.sock.settimeout(0.3)
            try:
                got = self.sock.recv(65535)
            except socket.timeout:
                got = None
            finally:
                self.sock.settimeout(5)
            assert got is None, "unexpected answer %r" % got
            return None
        return PFCP(self.sock.recv(65535))

    def node(self, msg):
        self.seq += 1
        return self.raw(PFCP(version=1, S=0, seq=self.seq) / msg)

    def session(self, seid, msg):
        self.seq += 1
        return self.raw(PFCP(version=1, S=1, seid=seid, seq=self.seq) / msg)

    def close(self):
        self.sock.close()


def ies(resp):
    return {type(ie).__name__: ie for ie in resp.payload.IE_list}


def cause(resp):
    return ies(resp)["IE_Cause"].cause


def node_id():
    return IE_NodeId(id_type=0, ipv4=SMF)


def associate(smf):
    r = smf.node(PFCPAssociationSetupRequest(IE_list=[node_id(), IE_RecoveryTimeStamp(
        timestamp=3900000000)]))
    assert r.message_type == 6 and cause(r) == CAUSE_ACCEPTED, r.show(dump=True)
    return r


def ul_pdr(teid=UL_TEID, pdr_id=1, far_id=1, choose=False):
    fteid = IE_FTEID(CH=1, V4=1) if choose else IE_FTEID(V4=1, TEID=teid, ipv4=N3)
    return IE_CreatePDR(IE_list=[
        IE_PDR_Id(id=pdr_id), IE_Precedence(precedence=100),
        IE_PDI(IE_list=[IE_SourceInterface(interface=0), fteid,
                        IE_UE_IP_Address(V4=1, ipv4=UE)]),
        IE_OuterHeaderRemoval(header=0), IE_FAR_Id(id=far_id)])


def dl_pdr(ue=UE, pdr_id=2, far_id=2):
    return IE_CreatePDR(IE_list=[
        IE_PDR_Id(id=pdr_id), IE_Precedence(precedence=100),
        IE_PDI(IE_list=[IE_SourceInterface(interface=1), IE_UE_IP_Address(V4=1, SD=1, ipv4=ue)]),
        IE_FAR_Id(id=far_id)])


def ul_far(far_id=1):
    return IE_CreateFAR(IE_list=[IE_FAR_Id(id=far_id), IE_ApplyAction(FORW=1),
                                 IE_ForwardingParameters(IE_list=[
                                     IE_DestinationInterface(interface=1)])])


def dl_far_buffer(far_id=2):
    """What an SMF sends before it knows the gNB's F-TEID."""
    return IE_CreateFAR(IE_list=[IE_FAR_Id(id=far_id), IE_ApplyAction(BUFF=1)])


def establish(smf, pdrs, fars, seid=CP_SEID):
    return smf.session(0, PFCPSessionEstablishmentRequest(IE_list=[
        node_id(), IE_FSEID(v4=1, seid=seid, ipv4=SMF), *pdrs, *fars]))


def up_seid(resp):
    return ies(resp)["IE_FSEID"].seid


def dl_far_update(teid=DL_TEID, far_id=2):
    return IE_UpdateFAR(IE_list=[
        IE_FAR_Id(id=far_id), IE_ApplyAction(FORW=1),
        IE_UpdateForwardingParameters(IE_list=[
            IE_DestinationInterface(interface=0),
            IE_OuterHeaderCreation(GTPUUDPIPV4=1, TEID=teid, ipv4=GNB)])])


CONFIG = [
    "addr add %s/24 dev n3p" % N3,
    "addr add 198.51.100.1/24 dev n6p",
    "neigh add %s lladdr %s dev n3p" % (GNB, GNB_MAC),
    "neigh add %s lladdr %s dev n6p" % (DN, DN_MAC),
    "upf set n3 %s dev n3p" % N3,
]


def start(tmp_path):
    port = free_udp_port()
    nfvd = Nfvd(tmp_path)
    nfvd.extra_args = ["--burst", "1"]
    nfvd.add_port("n3p")
    nfvd.add_port("n6p")
    nfvd.cmd(*CONFIG, "upf pfcp listen %s:%d node-id upf.nfvd.test" % (SMF, port))
    nfvd.start()
    return nfvd, Smf(port)


def feed(nfvd, name, frames):
    p = nfvd.add_port_now(name, rx=frames)
    return nfvd.wait_processed({name: len(frames)}), p


def inner_ul(payload=b"uplink"):
    return IP(src=UE, dst=DN, ttl=64, id=7) / UDP(sport=1000, dport=53) / payload


def inner_dl(payload=b"downlink!"):
    return IP(src=DN, dst=UE, ttl=50, id=9) / UDP(sport=53, dport=1000) / payload


def gtpu_frame(mac, inner, teid=UL_TEID, ext=False):
    if ext:
        g = GTP_U_Header(teid=teid, E=1, next_ex=0x85) / GTPPDUSessionContainer(type=1, QFI=9)
    else:
        g = GTP_U_Header(teid=teid)
    return Ether(dst=mac, src=PEER) / IP(src=GNB, dst=N3, ttl=60) / UDP(
        sport=2152, dport=2152) / g / inner


def routed(inner, dst_mac, src_mac):
    """inner after one router hop (TTL - 1, checksum recomputed)."""
    l3 = IP(bytes(inner))
    l3.ttl -= 1
    del l3.chksum
    return bytes(Ether(dst=dst_mac, src=src_mac) / l3)


def encapsulated(inner, teid=DL_TEID):
    """What leaves N3 toward the gNB: outer IPv4 (TTL 64, no DF, its
    identification 0 here: nfvd numbers them, test_downlink checks how),
    UDP 2152 -> 2152 with checksum 0, GTP-U G-PDU, inner after one hop."""
    l3 = IP(bytes(inner))
    l3.ttl -= 1
    del l3.chksum
    outer = IP(src=N3, dst=GNB, ttl=64, id=0, flags=0) / UDP(
        sport=2152, dport=2152, chksum=0) / GTP_U_Header(teid=teid) / l3
    return bytes(Ether(dst=GNB_MAC, src=N3_MAC) / IP(bytes(outer)))


def test_session_life_uplink_downlink(tmp_path):
    """A session established with the downlink FAR buffering, then
    modified with the gNB's F-TEID (as an SMF does in two steps), then
    deleted: uplink decapsulated and routed to N6 (TTL - 1), downlink
    encapsulated toward the gNB, echo answered, named drops, per-session
    counters, nothing after deletion."""
    nfvd, smf = start(tmp_path)
    try:
        associate(smf)
        r = establish(smf, [ul_pdr(), dl_pdr()], [ul_far(), dl_far_buffer()])
        assert r.message_type == 51 and r.seid == CP_SEID and cause(r) == CAUSE_ACCEPTED
        seid = up_seid(r)
        assert ies(r)["IE_FSEID"].ipv4 == SMF
        assert ies(r)["IE_NodeId"].id == b"upf.nfvd.test"  # labels on the wire

        inj = pcap_mac(2)
        echo = Ether(dst=inj, src=PEER) / IP(src=GNB, dst=N3) / UDP(
            sport=40000, dport=2152) / GTPHeader(seq=77, S=1) / GTPEchoRequest()
        bad = Ether(dst=inj, src=PEER) / IP(src=GNB, dst=N3) / UDP(
            sport=2152, dport=2152) / (b"\x50\xff\x00\x04\x00\x00\x01\x00" + b"\x00" * 4)
        phase1 = [
            gtpu_frame(inj, inner_ul()),
            gtpu_frame(inj, inner_ul(b"with a PDU session container"), ext=True),
            gtpu_frame(inj, inner_ul(), teid=0x999),
            Ether(dst=inj, src=PEER) / inner_dl(),
            echo,
            bad,
            gtpu_frame(inj, IPv6(src="2001:db8::1", dst="2001:db8::2") / UDP()),
            gtpu_frame(inj, inner_ul()),  # its inner checksum broken below
        ]
        bad_sum = bytearray(bytes(phase1[-1]))
        bad_sum[14 + 20 + 8 + 8 + 10] ^= 0xff  # the inner header checksum
        bad_sum[14 + 20 + 6:14 + 20 + 8] = b"\0\0"  # no outer UDP checksum to break
        phase1[-1] = Ether(bytes(bad_sum))
        st, _ = feed(nfvd, "inj1", phase1)
        assert drops(st) == {"upf_gtpu/no_pdr": 1, "upf_downlink/far_buffer": 1,
                             "upf_gtpu/bad_gtpu": 1, "upf_gtpu/inner_not_ipv4": 1,
                             "upf_gtpu/bad_inner_ip": 1}, drops(st)
        sh = nfvd.ctl("upf show sessions seid %d" % seid)
        s = sh["sessions"][0]
        assert (s["uplink_packets"], s["downlink_packets"]) == (2, 0), s
        assert s["uplink_bytes"] == len(inner_ul()) + len(
            inner_ul(b"with a PDU session container")), s
        assert sh["echo_replies"] == 1

        r = smf.session(seid, PFCPSessionModificationRequest(IE_list=[dl_far_update()]))
        assert r.message_type == 53 and r.seid == CP_SEID and cause(r) == CAUSE_ACCEPTED
        sh = nfvd.ctl("upf show sessions")
        far2 = [f for f in sh["sessions"][0]["fars"] if f["id"] == 2][0]
        assert (far2["action"], far2["teid"], far2["peer"]) == (["forward"], DL_TEID, GNB)

        ttl1 = IP(bytes(inner_dl()))
        ttl1.ttl = 1
        del ttl1.chksum
        st, _ = feed(nfvd, "inj2", [Ether(dst=pcap_mac(3), src=PEER) / inner_dl(),
                                    Ether(dst=pcap_mac(3), src=PEER) / inner_dl(b"x" * 300),
                                    Ether(dst=pcap_mac(3), src=PEER) / ttl1])
        assert drops(st)["upf_downlink/ttl_expired"] == 1, drops(st)
        s = nfvd.ctl("upf show sessions")["sessions"][0]
        assert (s["uplink_packets"], s["downlink_packets"]) == (2, 2), s
        assert s["downlink_bytes"] == len(inner_dl()) + len(inner_dl(b"x" * 300))

        r = smf.session(seid, PFCPSessionDeletionRequest())
        assert r.message_type == 55 and r.seid == CP_SEID and cause(r) == CAUSE_ACCEPTED
        assert nfvd.ctl("upf show sessions")["count"] == 0
        inj3 = pcap_mac(4)
        st, _ = feed(nfvd, "inj3", [gtpu_frame(inj3, inner_ul()),
                                    Ether(dst=inj3, src=PEER) / inner_dl()])
        d = drops(st)
        assert d["upf_gtpu/no_pdr"] == 2 and d["ip4_lookup/no_route"] == 1, d
        r = smf.session(seid, PFCPSessionDeletionRequest())
        assert cause(r) == CAUSE_NOT_FOUND and r.seid == 0
        out = nfvd.stop()
    finally:
        smf.close()
        nfvd.kill()

    want_n6 = [routed(inner_ul(), DN_MAC, N6_MAC),
               routed(inner_ul(b"with a PDU session container"), DN_MAC, N6_MAC)]
    assert out["n6p"] == want_n6
    echo_resp = bytes(Ether(dst=GNB_MAC, src=N3_MAC) / IP(bytes(
        IP(src=N3, dst=GNB, ttl=64, id=0, flags=0) / UDP(sport=2152, dport=40000, chksum=0) /
        GTPHeader(seq=77, S=1, teid=0) / GTPEchoResponse(IE_list=[IE_Recovery(
            restart_counter=0)]))))
    # The G-PDUs (to 2152; DF clear) numbered one after the other (RFC
    # 6864); the echo response (to the sender's port) with identification 0.
    n3p, ids = nfvdlib.zero_ip_ids(out["n3p"], lambda f: nfvdlib.udp_dport(f) == 2152)
    assert len(ids) == 2 and ids[1] == (ids[0] + 1) % 65536, ids
    assert n3p == [echo_resp, encapsulated(inner_dl()),
                   encapsulated(inner_dl(b"x" * 300))]


def test_uplink_checks(tmp_path):
    """What a router would refuse of the inner packet is refused after
    decapsulation too, and the outer datagram is checked as a host checks
    it: a wrong UDP checksum (not 0), an inner packet longer than its
    G-PDU, a special inner source or destination (RFC 1812 5.3.7), an inner
    source other than the UE address of the uplink PDR (which a PDR
    without one does not check): each dropped under its name; UDP
    checksum 0 and a right one pass."""
    nfvd, smf = start(tmp_path)
    try:
        associate(smf)
        any_src = IE_CreatePDR(IE_list=[
            IE_PDR_Id(id=3), IE_Precedence(precedence=100),
            IE_PDI(IE_list=[IE_SourceInterface(interface=0),
                            IE_FTEID(V4=1, TEID=0x101, ipv4=N3)]),
            IE_OuterHeaderRemoval(header=0), IE_FAR_Id(id=1)])
        r = establish(smf, [ul_pdr(), any_src], [ul_far()])
        assert cause(r) == CAUSE_ACCEPTED, r.show(dump=True)
        seid = up_seid(r)
        inj = pcap_mac(2)

        def inner(src=UE, dst=DN, payload=b"uplink"):
            return IP(src=src, dst=dst, ttl=64, id=7) / UDP(sport=1000, dport=53) / payload

        def frame(inner_pkt, teid=UL_TEID, udp_sum=None, gtp_len=None):
            g = GTP_U_Header(teid=teid) if gtp_len is None else GTP_U_Header(
                teid=teid, length=gtp_len)
            f = Ether(dst=inj, src=PEER) / IP(src=GNB, dst=N3, ttl=60) / UDP(
                sport=2152, dport=2152, chksum=udp_sum) / g / inner_pkt
            return Ether(bytes(f))

        bad_sum = bytearray(bytes(frame(inner())))
        bad_sum[14 + 20 + 6] ^= 0x55  # the outer UDP checksum
        echo = Ether(dst=inj, src=PEER) / IP(src=GNB, dst=N3) / UDP(
            sport=40000, dport=2152) / GTPHeader(seq=5, S=1) / GTPEchoRequest()
        bad_echo = bytearray(bytes(echo))
        bad_echo[14 + 20 + 6] ^= 0x55
        frames = [
            frame(inner()),                                   # forwarded
            frame(inner(payload=b"no UDP checksum"), udp_sum=0),  # forwarded
            Ether(bytes(bad_sum)),                            # bad_udp_checksum
            Ether(bytes(bad_echo)),                           # bad_udp_checksum
            frame(inner(), gtp_len=20),                       # bad_inner_ip
            frame(inner(src="127.0.0.1")),                    # inner_martian
            frame(inner(src="0.0.0.0")),                      # inner_martian
            frame(inner(src="169.254.1.1")),                  # inner_martian
            frame(inner(dst="224.0.0.5")),                    # inner_martian
            frame(inner(dst="255.255.255.255")),              # inner_martian
            frame(inner(src="10.45.0.99")),                   # not_ue_address
            frame(inner(src="10.45.0.99", payload=b"any"), teid=0x101),  # forwarded
        ]
        st, _ = feed(nfvd, "inj1", frames)
        assert drops(st) == {"upf_gtpu/bad_udp_checksum": 2, "upf_gtpu/bad_inner_ip": 1,
                             "upf_gtpu/inner_martian": 5,
                             "upf_gtpu/not_ue_address": 1}, drops(st)
        sh = nfvd.ctl("upf show sessions seid %d" % seid)
        s = sh["sessions"][0]
        assert (s["uplink_packets"], s["uplink_bytes"]) == (3, len(inner()) + len(
            inner(payload=b"no UDP checksum")) + len(inner(src="10.45.0.99", payload=b"any"))), s
        assert sh["echo_replies"] == 0
        out = nfvd.stop()
    finally:
        smf.close()
        nfvd.kill()
    assert out["n6p"] == [routed(inner(), DN_MAC, N6_MAC),
                          routed(inner(payload=b"no UDP checksum"), DN_MAC, N6_MAC),
                          routed(inner(src="10.45.0.99", payload=b"any"), DN_MAC, N6_MAC)]
    assert out["n3p"] == []


def test_choose_teid_and_conflicts(tmp_path):
    """The UPF chooses the uplink TEID (CHOOSE) and returns it in a Created
    PDR; a second session may not take a TEID or UE address in use; a PDR
    whose FAR does not exist is refused and leaves the session as it was;
    Remove PDR / Remove FAR; association release deletes the sessions."""
    nfvd, smf = start(tmp_path)
    try:
        r = establish(smf, [ul_pdr()], [ul_far()])
        assert cause(r) == CAUSE_NO_ASSOC and r.seid == CP_SEID
        associate(smf)
        r = establish(smf, [ul_pdr(choose=True), dl_pdr()], [ul_far(), dl_far_buffer()])
        assert cause(r) == CAUSE_ACCEPTED, r.show(dump=True)
        created = ies(r)["IE_CreatedPDR"]
        got = {type(ie).__name__: ie for ie in created.IE_list}
        assert got["IE_PDR_Id"].id == 1 and got["IE_FTEID"].ipv4 == N3
        teid = got["IE_FTEID"].TEID
        seid = up_seid(r)
        s = nfvd.ctl("upf show sessions")["sessions"][0]
        assert [p["teid"] for p in s["pdrs"] if p["id"] == 1] == [teid]

        # Another session with the same TEID, or the same UE address.
        r = establish(smf, [ul_pdr(teid=teid)], [ul_far()], seid=2)
        assert cause(r) == CAUSE_RULE and ies(r)["IE_OffendingIE"].type == 21
        r = establish(smf, [dl_pdr()], [dl_far_buffer()], seid=3)
        assert cause(r) == CAUSE_RULE and ies(r)["IE_OffendingIE"].type == 93
        assert nfvd.ctl("upf show sessions")["count"] == 1

        # An Update FAR without its FAR ID: the session's SEID, the cause.
        r = smf.session(seid, PFCPSessionModificationRequest(IE_list=[
            IE_UpdateFAR(IE_list=[IE_ApplyAction(FORW=1)])]))
        assert r.seid == CP_SEID and cause(r) == CAUSE_MISSING
        assert ies(r)["IE_OffendingIE"].type == 108
        # A PDR naming a FAR that does not exist: refused, nothing changes.
        r = smf.session(seid, PFCPSessionModificationRequest(IE_list=[
            dl_pdr(ue="10.45.0.3", pdr_id=3, far_id=9)]))
        assert cause(r) == CAUSE_RULE and ies(r)["IE_OffendingIE"].type == 108
        assert len(nfvd.ctl("upf show sessions")["sessions"][0]["pdrs"]) == 2
        # Remove the downlink PDR and FAR.
        r = smf.session(seid, PFCPSessionModificationRequest(IE_list=[
            IE_RemovePDR(IE_list=[IE_PDR_Id(id=2)]), IE_RemoveFAR(IE_list=[IE_FAR_Id(id=2)])]))
        assert cause(r) == CAUSE_ACCEPTED
        s = nfvd.ctl("upf show sessions")["sessions"][0]
        assert [p["id"] for p in s["pdrs"]] == [1] and [f["id"] for f in s["fars"]] == [1]
        # The UE address is free again for another session.
        r = establish(smf, [dl_pdr()], [dl_far_buffer()], seid=4)
        assert cause(r) == CAUSE_ACCEPTED
        r = smf.node(PFCPAssociationReleaseRequest(IE_list=[node_id()]))
        assert r.message_type == 10 and cause(r) == CAUSE_ACCEPTED
        assert nfvd.ctl("upf show sessions")["count"] == 0
        nfvd.stop()
    finally:
        smf.close()
        nfvd.kill()


def test_malformed_pfcp(tmp_path):
    """Heartbeat; mandatory IEs missing; truncated IEs; bad lengths,
    unknown types and another version; unknown SEIDs: the right cause, or
    a counted discard, and nfvd carries on."""
    nfvd, smf = start(tmp_path)
    try:
        r = smf.node(PFCPHeartbeatRequest(IE_list=[IE_RecoveryTimeStamp(timestamp=3900000001)]))
        assert r.message_type == 2 and r.seq == smf.seq
        assert ies(r)["IE_RecoveryTimeStamp"].timestamp > 3900000000
        r = smf.node(PFCPAssociationSetupRequest(IE_list=[node_id()]))
        assert cause(r) == CAUSE_MISSING and ies(r)["IE_OffendingIE"].type == 96
        associate(smf)

        # Establishment without F-SEID; without Create FAR.
        r = smf.session(0, PFCPSessionEstablishmentRequest(IE_list=[node_id(), ul_pdr(),
                                                                    ul_far()]))
        assert cause(r) == CAUSE_MISSING and ies(r)["IE_OffendingIE"].type == 57
        r = establish(smf, [ul_pdr()], [])
        assert cause(r) == CAUSE_MISSING and ies(r)["IE_OffendingIE"].type == 3
        # A Create PDR without its PDI's source interface.
        pdr = IE_CreatePDR(IE_list=[IE_PDR_Id(id=1), IE_Precedence(precedence=1),
                                    IE_PDI(IE_list=[IE_UE_IP_Address(V4=1, ipv4=UE)]),
                                    IE_FAR_Id(id=1)])
        r = establish(smf, [pdr], [ul_far()])
        assert cause(r) == CAUSE_MISSING and ies(r)["IE_OffendingIE"].type == 20
        # The last IE claims more bytes than the message has (the header's
        # length still matches the datagram): Invalid Length.
        smf.seq += 1
        msg = bytearray(bytes(PFCP(version=1, S=1, seid=0, seq=smf.seq) /
                              PFCPSessionEstablishmentRequest(IE_list=[
                                  node_id(), IE_FSEID(v4=1, seid=1, ipv4=SMF), ul_pdr(),
                                  ul_far()])))
        msg[-3:-1] = (200).to_bytes(2, "big")  # the last IE: Destination Interface
        r = smf.raw(msg)
        assert r.message_type == 51 and cause(r) == CAUSE_LENGTH
        # A short F-SEID: Mandatory IE incorrect.
        smf.seq += 1
        r = smf.raw(PFCP(version=1, S=1, seid=0, seq=smf.seq) / PFCPSessionEstablishmentRequest(
            IE_list=[node_id(), IE_FSEID(v4=1, seid=1, ipv4=SMF, length=5), ul_pdr(),
                     ul_far()]))
        assert cause(r) == 69 and ies(r)["IE_OffendingIE"].type == 57

        # Discarded: shorter than a header, a length field that does not
        # match the datagram, an unknown type, a response we never asked for.
        smf.raw(b"\x21\x01\x00", expect=False)
        good = bytes(PFCP(version=1, S=0, seq=1) / PFCPHeartbeatRequest(IE_list=[
            IE_RecoveryTimeStamp(timestamp=1)]))
        smf.raw(good[:-2], expect=False)
        smf.raw(good + b"\x00", expect=False)
        smf.raw(bytes([0x20, 99]) + good[2:], expect=False)
        smf.raw(bytes([0x20, 2]) + good[2:], expect=False)
        # Another version: Version Not Supported Response.
        r = smf.raw(bytes([0x40]) + good[1:])
        assert r.message_type == 11 and r.seq == 1

        # Unknown SEIDs.
        r = smf.session(12345, PFCPSessionModificationRequest(IE_list=[dl_far_update()]))
        assert r.message_type == 53 and cause(r) == CAUSE_NOT_FOUND and r.seid == 0
        r = smf.session(12345, PFCPSessionDeletionRequest())
        assert r.message_type == 55 and cause(r) == CAUSE_NOT_FOUND and r.seid == 0

        pf = nfvd.ctl("upf show sessions")["pfcp"]
        assert (pf["malformed"], pf["unknown_type"], pf["unexpected"],
                pf["version_not_supported"]) == (3, 1, 1, 1), pf
        assert nfvd.ctl("upf show sessions")["count"] == 0
        # Still answering.
        r = smf.node(PFCPHeartbeatRequest(IE_list=[IE_RecoveryTimeStamp(timestamp=1)]))
        assert r.message_type == 2
        nfvd.stop()
    finally:
        smf.close()
        nfvd.kill()


def test_commands(tmp_path):
    """Command errors: an N3 address that is not the interface's, an
    unknown interface, a bad listen address, an unknown SEID."""
    nfvd, smf = start(tmp_path)
    smf.close()
    try:
        for line, words in [
            ("upf set n3 192.0.2.99 dev n3p", "not an address of n3p"),
            ("upf set n3 192.0.2.1 dev nope", "unknown interface 'nope'"),
            ("upf pfcp listen 300.1.1.1", "bad address"),
            ("upf pfcp listen 127.0.0.1:0", "bad port"),
            ("upf show sessions seid 42", "no session"),
        ]:
            r = nfvd.ctl_result(*line.split())
            assert r.rc != 0 and words in r.stdout + r.stderr, (line, r.stdout, r.stderr)
        assert nfvd.ctl("upf show sessions")["n3"] == {"address": N3, "dev": "n3p"}
        nfvd.stop()
    finally:
        nfvd.kill()
