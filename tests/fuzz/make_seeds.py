#!/usr/bin/python3
"""Seed corpora: for the graph fuzzer, one well-formed frame per path (in
OUT); for the PFCP codec's fuzzer, one message of each kind the UPF takes
(in PFCP_OUT, when given).

    make_seeds.py OUT [PFCP_OUT]
"""
import os
import sys

from scapy.all import (Ether, IP, IPv6, UDP, TCP, ICMP, ICMPv6EchoRequest, ARP, Dot1Q,
                       IPv6ExtHdrHopByHop, IPv6ExtHdrFragment, raw)
from scapy.layers.vxlan import VXLAN
from scapy.contrib.gtp import (GTP_U_Header, GTPHeader, GTPEchoRequest, GTPPDUSessionContainer)

MAC = "02:00:00:00:00:02"
DST = "02:00:00:00:00:99"  # replaced by the port MAC in the harness
seeds = {
    "v4_fwd": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1") / UDP() / (b"x" * 18),
    "v4_ecmp": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.51.100.9") / TCP(),
    "v4_ttl1": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1", ttl=1) / UDP(),
    "v4_noroute": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="100.64.0.1") / UDP(),
    "v4_blackhole": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="203.0.113.1") / UDP(),
    "v4_connected": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="192.0.2.1") / UDP(),
    "v4_echo": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="10.0.0.1") / ICMP() / b"ping",
    "v4_big_df": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1", flags="DF") / UDP() / (b"y" * 900),
    "v4_big": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1") / UDP() / (b"y" * 900),
    "v4_opts": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1", options=b"\x01\x01\x01\x00") / UDP(),
    "v4_frag": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1", frag=10) / UDP(),
    # Fragments for our addresses (reassembly): a first one (held), an IPv6
    # atomic fragment (a whole datagram).
    "v4_local_frag": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="10.0.0.1", id=7, flags="MF") / ICMP() / (b"f" * 16),
    "v6_local_atomic": Ether(src=MAC, dst=DST) / IPv6(src="2001:db8:a::2", dst="2001:db8:a::1") / IPv6ExtHdrFragment(id=7) / ICMPv6EchoRequest(),
    "v6_local_frag": Ether(src=MAC, dst=DST) / IPv6(src="2001:db8:a::2", dst="2001:db8:a::1") / IPv6ExtHdrFragment(id=8, m=1) / ICMPv6EchoRequest(data=b"g" * 16),
    "v6_fwd": Ether(src=MAC, dst=DST) / IPv6(src="2001:db8:a::2", dst="2001:db8:100::1") / UDP(),
    "v6_hop1": Ether(src=MAC, dst=DST) / IPv6(src="2001:db8:a::2", dst="2001:db8:100::1", hlim=1) / UDP(),
    "v6_echo": Ether(src=MAC, dst=DST) / IPv6(src="2001:db8:a::2", dst="2001:db8:a::1") / ICMPv6EchoRequest(),
    "v6_ext": Ether(src=MAC, dst=DST) / IPv6(src="2001:db8:a::2", dst="2001:db8:100::1") / IPv6ExtHdrHopByHop() / IPv6ExtHdrFragment() / UDP(),
    "v6_big": Ether(src=MAC, dst=DST) / IPv6(src="2001:db8:a::2", dst="2001:db8:100::1") / UDP() / (b"z" * 900),
    "v4_dnat": Ether(src=MAC, dst=DST) / IP(src="198.18.9.9", dst="10.0.0.1") / TCP(sport=5555, dport=8080, flags="S"),
    "v4_snat_echo": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1") / ICMP(id=7) / b"ping",
    "v4_lb_syn": Ether(src=MAC, dst=DST) / IP(src="10.0.0.7", dst="198.18.0.100") / TCP(sport=4000, dport=80, flags="S"),
    "v4_lb_udp": Ether(src=MAC, dst=DST) / IP(src="10.0.0.7", dst="198.18.0.100") / UDP(sport=4000, dport=80) / b"q",
    "v4_lb_dsr": Ether(src=MAC, dst=DST) / IP(src="10.0.0.7", dst="198.18.0.100") / TCP(sport=4001, dport=443, flags="S"),
    "v4_lb_reply": Ether(src=MAC, dst=DST) / IP(src="10.1.0.2", dst="10.0.0.7") / TCP(sport=8080, dport=4000, flags="SA"),
    "v4_snat_gre": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="198.18.1.1", proto=47) / b"\0\0\x08\0",
    "arp": Ether(src=MAC, dst="ff:ff:ff:ff:ff:ff") / ARP(),
    "vlan": Ether(src=MAC, dst=DST) / Dot1Q(vlan=5) / IP(src="10.0.0.2", dst="198.18.1.1") / UDP(),
    "vlan_bridge_bcast": Ether(src=MAC, dst="ff:ff:ff:ff:ff:ff") / Dot1Q(vlan=5) / ARP(pdst="10.9.0.1"),
    "vxlan": Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="10.0.0.1") / UDP(sport=50000, dport=4789) / VXLAN(vni=42) / Ether(src="02:00:00:00:05:01", dst="ff:ff:ff:ff:ff:ff") / IP(src="10.9.0.2", dst="10.9.0.255") / UDP(),
}


def gtpu(teid, inner, ext=False, gtp=None):
    """GTP-U to the harness's N3 address (10.1.0.1), arriving on "in"."""
    if gtp is None:
        gtp = GTP_U_Header(teid=teid, E=1, next_ex=0x85) / GTPPDUSessionContainer(type=1, QFI=5) \
            if ext else GTP_U_Header(teid=teid)
    return Ether(src=MAC, dst=DST) / IP(src="10.0.0.2", dst="10.1.0.1") / UDP(
        sport=2152, dport=2152) / gtp / inner


UL = IP(src="10.45.0.2", dst="198.18.1.1") / UDP(sport=1000, dport=53) / b"ue"
seeds.update({
    "upf_ul": gtpu(0x100, UL),
    "upf_ul_ext": gtpu(0x100, UL, ext=True),
    "upf_ul_drop": gtpu(0x101, UL),
    "upf_ul_n9": gtpu(0x102, UL),
    "upf_ul_unknown": gtpu(0x999, UL),
    "upf_ul_v6": gtpu(0x100, IPv6(src="2001:db8::1", dst="2001:db8::2") / UDP()),
    "upf_ul_big": gtpu(0x100, IP(src="10.45.0.2", dst="198.18.1.1") / UDP() / (b"u" * 800)),
    "upf_echo": gtpu(0, b"", gtp=GTPHeader(seq=7, S=1) / GTPEchoRequest()),
    "upf_end_marker": gtpu(0x100, b"", gtp=GTP_U_Header(teid=0x100, gtp_type=254)),
    "upf_dl": Ether(src=MAC, dst=DST) / IP(src="198.18.1.1", dst="10.45.0.2") / UDP() / b"dl",
    "upf_dl_buffer": Ether(src=MAC, dst=DST) / IP(src="198.18.1.1", dst="10.45.0.3") / UDP(),
    "upf_dl_no_tunnel": Ether(src=MAC, dst=DST) / IP(src="198.18.1.1", dst="10.45.0.4") / UDP(),
    "upf_dl_ttl1": Ether(src=MAC, dst=DST) / IP(src="198.18.1.1", dst="10.45.0.2", ttl=1) / UDP(),
})


def pfcp_seeds():
    from scapy.contrib import pfcp as p
    node = p.IE_NodeId(id_type=0, ipv4="10.0.0.9")
    fqdn = p.IE_NodeId(id_type=2, id=b"smf.example.net")
    rts = p.IE_RecoveryTimeStamp(timestamp=3900000000)

    def pdr(i, ul):
        pdi = [p.IE_SourceInterface(interface=0 if ul else 1),
               p.IE_UE_IP_Address(V4=1, SD=0 if ul else 1, ipv4="10.45.0.2")]
        if ul:
            pdi.insert(1, p.IE_FTEID(V4=1, TEID=0x100 + i, ipv4="192.0.2.1") if i % 2 else
                       p.IE_FTEID(CH=1, V4=1))
        return p.IE_CreatePDR(IE_list=[p.IE_PDR_Id(id=i), p.IE_Precedence(precedence=100),
                                       p.IE_PDI(IE_list=pdi), p.IE_OuterHeaderRemoval(header=0),
                                       p.IE_FAR_Id(id=i)])

    def far(i, ohc):
        fp = [p.IE_DestinationInterface(interface=0 if ohc else 1)]
        if ohc:
            fp.append(p.IE_OuterHeaderCreation(GTPUUDPIPV4=1, TEID=0x200, ipv4="192.0.2.10"))
        return p.IE_CreateFAR(IE_list=[p.IE_FAR_Id(id=i), p.IE_ApplyAction(FORW=1),
                                       p.IE_ForwardingParameters(IE_list=fp)])

    def node_msg(m):
        return p.PFCP(version=1, S=0, seq=1) / m

    def sess(seid, m):
        return p.PFCP(version=1, S=1, seid=seid, seq=2) / m

    fseid = p.IE_FSEID(v4=1, seid=0x1122, ipv4="10.0.0.9")
    return {
        "heartbeat": node_msg(p.PFCPHeartbeatRequest(IE_list=[rts])),
        "assoc_setup": node_msg(p.PFCPAssociationSetupRequest(IE_list=[node, rts])),
        "assoc_setup_fqdn": node_msg(p.PFCPAssociationSetupRequest(IE_list=[fqdn, rts])),
        "assoc_release": node_msg(p.PFCPAssociationReleaseRequest(IE_list=[node])),
        "est": sess(0, p.PFCPSessionEstablishmentRequest(IE_list=[
            node, fseid, pdr(1, True), pdr(2, False), far(1, False), far(2, True)])),
        "est_many": sess(0, p.PFCPSessionEstablishmentRequest(IE_list=[node, fseid] + [
            pdr(i, i % 2 == 1) for i in range(1, 18)] + [far(i, i % 2 == 0) for i in range(1, 18)])),
        "mod": sess(0x100000001, p.PFCPSessionModificationRequest(IE_list=[
            p.IE_UpdateFAR(IE_list=[p.IE_FAR_Id(id=2), p.IE_ApplyAction(FORW=1),
                                    p.IE_UpdateForwardingParameters(IE_list=[
                                        p.IE_OuterHeaderCreation(GTPUUDPIPV4=1, TEID=0x201,
                                                                 ipv4="192.0.2.11")])]),
            p.IE_UpdatePDR(IE_list=[p.IE_PDR_Id(id=1), p.IE_Precedence(precedence=5),
                                    p.IE_PDI(IE_list=[p.IE_SourceInterface(interface=0),
                                                      p.IE_FTEID(CH=1, V4=1)])]),
            p.IE_RemovePDR(IE_list=[p.IE_PDR_Id(id=3)]),
            p.IE_RemoveFAR(IE_list=[p.IE_FAR_Id(id=3)]), pdr(4, False), far(4, True)])),
        "del": sess(0x100000001, p.PFCPSessionDeletionRequest()),
    }


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, pkt in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(raw(pkt))
if len(sys.argv) > 2:
    os.makedirs(sys.argv[2], exist_ok=True)
    for name, msg in pfcp_seeds().items():
        with open(os.path.join(sys.argv[2], "pfcp_" + name), "wb") as f:
            f.write(raw(msg))
