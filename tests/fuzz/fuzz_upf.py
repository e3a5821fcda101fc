#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Hostile N4 and N3 peers against a running nfvd (the UPF's black-box fuzz
stage of scripts/fuzz.sh). nfvd runs on net_pcap ports as in
tests/pkt/test_upf.py; an SMF sets up two sessions over PFCP; then

  - N4: mutated PFCP datagrams (truncated, bytes and bits changed, length
    fields set to 0, 1, 0xffff or anything, unknown and vendor IEs
    inserted, IEs repeated far beyond what a message may carry, random
    bytes, other versions and types) from another socket, a heartbeat after
    every batch: nfvd must answer it, take in every datagram (rx_messages)
    and count each refusal (malformed, unknown_type, unexpected, rejected,
    version_not_supported);
  - N3: mutated GTP-U frames (flags, lengths, extension header chains,
    TEIDs, message types, inner packets) to the N3 address: every frame is
    accounted for (forwarded, or dropped under a named reason);

and then the two sessions are exactly as they were (PDRs, FARs), a
heartbeat, an uplink and a downlink packet still work byte for byte, and
nfvd exits 0 with every mbuf back in its pool.

A datagram that would legitimately change the held sessions (a session
message with their SEID, an association setup or release from their SMF's
node id) is not sent: what is checked is that nothing else changes them.

    NFVD_BUILD=build FUZZ_UPF_SEED=1 FUZZ_UPF_ROUNDS=4000 /usr/bin/python3 tests/fuzz/fuzz_upf.py
"""
import os
import random
import socket
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pkt"))

from scapy.contrib.gtp import GTP_U_Header, GTPHeader, GTPEchoRequest, GTPPDUSessionContainer  # noqa: E402
from scapy.contrib.pfcp import (PFCP, IE_CreateFAR, IE_CreatePDR, IE_FAR_Id, IE_FSEID,  # noqa: E402
                                IE_NodeId, IE_PDR_Id, IE_RecoveryTimeStamp, IE_RemovePDR,
                                PFCPAssociationReleaseRequest, PFCPAssociationSetupRequest,
                                PFCPHeartbeatRequest, PFCPSessionDeletionRequest,
                                PFCPSessionEstablishmentRequest, PFCPSessionModificationRequest)
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402

import test_upf as t  # noqa: E402
from nfvdlib import drops, pcap_mac, zero_ip_ids  # noqa: E402

SEED = int(os.environ.get("FUZZ_UPF_SEED", "1"))
ROUNDS = int(os.environ.get("FUZZ_UPF_ROUNDS", "4000"))
BATCH = 20  # datagrams between heartbeats: within the socket buffer of nfvd
rng = random.Random(SEED)
UE2, UL_TEID2 = "10.45.0.3", 0x101


def rules(nfvd):
    """The sessions without their counters."""
    out = {}
    for s in nfvd.ctl("upf show sessions")["sessions"]:
        out[s["seid"]] = {k: v for k, v in s.items() if not k.endswith(("_packets", "_bytes"))}
    return out


# ---- N4 -------------------------------------------------------------------------------------

FUZZ_NODE = IE_NodeId(id_type=0, ipv4="10.99.0.1")


def pfcp_templates():
    rts = IE_RecoveryTimeStamp(timestamp=3900000000)

    def node(m):
        return bytes(PFCP(version=1, S=0, seq=rng.randrange(1 << 24)) / m)

    def sess(m, seid=None):
        # Unknown SEIDs, and ones that look like ours: a held session's index
        # with another generation, an index never used.
        seid = rng.choice([0, 1, 0x700000000, 0x300000001, 0x100000009,
                           rng.randrange(1 << 64)]) if seid is None else seid
        return bytes(PFCP(version=1, S=1, seid=seid, seq=rng.randrange(1 << 24)) / m)

    fseid = IE_FSEID(v4=1, seid=rng.randrange(1 << 64), ipv4="10.99.0.1")
    many = [t.ul_pdr(teid=0x5000 + i, pdr_id=i, far_id=i) for i in range(1, 40)]
    return [
        node(PFCPHeartbeatRequest(IE_list=[rts])),
        node(PFCPAssociationSetupRequest(IE_list=[FUZZ_NODE, rts])),
        node(PFCPAssociationReleaseRequest(IE_list=[FUZZ_NODE])),
        sess(PFCPSessionEstablishmentRequest(IE_list=[
            FUZZ_NODE, fseid, t.ul_pdr(teid=0x4000), t.dl_pdr(ue="10.45.9.9"), t.ul_far(),
            t.dl_far_buffer()]), seid=0),
        sess(PFCPSessionEstablishmentRequest(IE_list=[FUZZ_NODE, fseid] + many + [
            t.ul_far(i) for i in range(1, 40)]), seid=0),
        sess(PFCPSessionModificationRequest(IE_list=[
            t.dl_far_update(), IE_RemovePDR(IE_list=[IE_PDR_Id(id=1)]), t.dl_pdr(pdr_id=9)])),
        sess(PFCPSessionDeletionRequest()),
        # Vendor-specific (enterprise) and unknown IEs, nested ones too.
        sess(PFCPSessionEstablishmentRequest(IE_list=[FUZZ_NODE, fseid])) +
        b"\x80\x01\x00\x06\x12\x34abcd" + b"\x7f\xff\x00\x00" +
        bytes(IE_CreatePDR(IE_list=[IE_PDR_Id(id=1)])) + bytes(IE_CreateFAR(IE_list=[
            IE_FAR_Id(id=1)])),
    ]


def fix_length(b):
    """The header's length field made to match again (most of the time)."""
    if len(b) >= 4 and rng.random() < 0.8:
        b[2:4] = (len(b) - 4 & 0xffff).to_bytes(2, "big")
    return b


def mutate_pfcp(templates):
    b = bytearray(rng.choice(templates))
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(9)
        if op == 0 and len(b) > 1:                  # truncated
            del b[rng.randrange(1, len(b)):]
        elif op == 1 and b:                         # a byte changed
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif op == 2 and b:                         # a bit flipped
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        elif op == 3 and len(b) > 12:               # an IE length (or any 16 bits) set
            i = rng.randrange(8, len(b) - 1)
            b[i:i + 2] = rng.choice([0, 1, 3, 0xffff, rng.randrange(65536)]).to_bytes(2, "big")
        elif op == 4:                               # an unknown or vendor IE inserted
            t_ = rng.choice([0, 7, 255, 32767, 0x8000 | rng.randrange(32768), rng.randrange(300)])
            v = bytes(rng.randrange(256) for _ in range(rng.randrange(12)))
            i = rng.randrange(8, max(9, len(b) + 1))
            b[i:i] = t_.to_bytes(2, "big") + len(v).to_bytes(2, "big") + v
        elif op == 5 and len(b) > 16:               # an IE run repeated
            i = rng.randrange(16, len(b))
            j = min(len(b), i + rng.randrange(4, 80))
            b[i:i] = b[i:j] * rng.randrange(2, 40)
        elif op == 6:                               # random bytes
            b = bytearray(rng.randrange(256) for _ in range(rng.randrange(40)))
        elif op == 7 and b:                         # flags (S, MP, FO), another version
            b[0] = rng.choice([0x20, 0x21, 0x22, 0x23, 0x24, rng.randrange(256)])
        elif op == 8 and len(b) > 1:                # another message type
            b[1] = rng.randrange(256)
        b = fix_length(b)
    return bytes(b)


def harmless(b, held_seids, held_node):
    """False when b could legitimately change the held sessions."""
    if len(b) >= 12 and b[0] & 1 and int.from_bytes(b[4:12], "big") in held_seids:
        return False
    if len(b) >= 2 and b[1] in (5, 9, 50) and held_node in b:
        return False
    return True


def fuzz_n4(nfvd, port, held_seids):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((t.SMF, 0))
    sock.settimeout(5)
    templates = pfcp_templates()
    held_node = bytes(t.node_id())[4:]
    before = nfvd.ctl("upf show sessions")["pfcp"]
    sent = skipped = 0
    for batch in range(0, ROUNDS, BATCH):
        for _ in range(BATCH):
            b = mutate_pfcp(templates)
            if not harmless(b, held_seids, held_node):
                skipped += 1
                continue
            sock.sendto(b, (t.SMF, port))
            sent += 1
        # A heartbeat after each batch: answered, so nfvd took in the batch.
        seq = 0xfff000 + batch // BATCH
        sock.sendto(bytes(PFCP(version=1, S=0, seq=seq) / PFCPHeartbeatRequest(IE_list=[
            IE_RecoveryTimeStamp(timestamp=1)])), (t.SMF, port))
        sent += 1
        while True:
            r = PFCP(sock.recv(65535))
            if r.message_type == 2 and r.seq == seq:
                break
    sock.close()
    after = nfvd.ctl("upf show sessions")["pfcp"]
    d = {k: after[k] - before[k] for k in before if isinstance(before[k], int)}
    assert d["rx_messages"] == sent, (d, sent)
    refused = d["malformed"] + d["unknown_type"] + d["unexpected"] + d["rejected"] + \
        d["version_not_supported"]
    assert d["malformed"] > 0 and d["rejected"] > 0 and d["unknown_type"] > 0, d
    print("fuzz_upf: N4: %d datagrams (%d not sent: they name the held sessions), %d answers; "
          "malformed %d, unknown type %d, unexpected %d, rejected %d, version %d (%d refused)" % (
              sent, skipped, d["tx_messages"], d["malformed"], d["unknown_type"],
              d["unexpected"], d["rejected"], d["version_not_supported"], refused))


# ---- N3 -------------------------------------------------------------------------------------

def gtpu_templates(mac):
    inner = t.inner_ul()
    return [
        t.gtpu_frame(mac, inner),
        t.gtpu_frame(mac, inner, ext=True),
        t.gtpu_frame(mac, inner, teid=UL_TEID2),
        t.gtpu_frame(mac, inner, teid=0x999),
        t.gtpu_frame(mac, IPv6(src="2001:db8::1", dst="2001:db8::2") / UDP()),
        Ether(dst=mac, src=t.PEER) / IP(src=t.GNB, dst=t.N3) / UDP(sport=2152, dport=2152) /
        GTPHeader(seq=5, S=1) / GTPEchoRequest(),
        Ether(dst=mac, src=t.PEER) / IP(src=t.GNB, dst=t.N3) / UDP(sport=2152, dport=2152) /
        GTP_U_Header(teid=t.UL_TEID, E=1, next_ex=0x85) /
        GTPPDUSessionContainer(type=1, QFI=1, NextExtHdr=0x85) /
        GTPPDUSessionContainer(type=0, QFI=2) / inner,
    ]


def mutate_gtpu(frame):
    """The GTP-U part (and the inner packet) changed; the outer IPv4 and UDP
    lengths and checksums made right again most of the time, so that the
    frame reaches the GTP-U node."""
    p = Ether(bytes(frame))
    g = bytearray(bytes(p[UDP].payload))
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(7)
        if op == 0 and g:                      # flags: version, PT, E, S, PN
            g[0] = rng.randrange(256)
        elif op == 1 and len(g) > 3:           # the length
            g[2:4] = rng.choice([0, 1, 4, 0xffff, len(g), max(0, len(g) - 7),
                                 rng.randrange(65536)]).to_bytes(2, "big")
        elif op == 2 and len(g) > 1:           # the message type
            g[1] = rng.choice([1, 2, 26, 31, 254, 255, rng.randrange(256)])
        elif op == 3 and len(g) > 7:           # the TEID
            g[4:8] = rng.choice([t.UL_TEID, UL_TEID2, 0, 0xffffffff,
                                 rng.randrange(1 << 32)]).to_bytes(4, "big")
        elif op == 4 and len(g) > 12:          # extension headers: lengths and types
            i = rng.randrange(8, min(len(g), 24))
            g[i] = rng.choice([0, 1, 2, 0x85, 0xff, rng.randrange(256)])
        elif op == 5 and len(g) > 1:           # truncated
            del g[rng.randrange(1, len(g)):]
        elif op == 6 and g:                    # anything, inner packet included
            g[rng.randrange(len(g))] = rng.randrange(256)
    outer = IP(bytes(p[IP]))
    outer[UDP].remove_payload()
    if rng.random() < 0.85:
        del outer.len, outer.chksum
        del outer[UDP].len, outer[UDP].chksum
        return bytes(Ether(dst=p.dst, src=p.src) / outer / Raw(bytes(g)))
    # The outer lengths of the frame before (now wrong, most of the time).
    return bytes(p)[:14] + bytes(p[IP])[:28] + bytes(g)


def fuzz_n3(nfvd, n):
    mac = pcap_mac(2)
    templates = gtpu_templates(mac)
    frames = [mutate_gtpu(rng.choice(templates)) for _ in range(n)]
    before = drops(nfvd.stats())
    st, _ = t.feed(nfvd, "fz", frames)
    d = drops(st) - before
    named = {k: v for k, v in d.items() if v}
    assert named.get("upf_gtpu/bad_gtpu", 0) > 0 and named.get("upf_gtpu/no_pdr", 0) > 0, named
    print("fuzz_upf: N3: %d frames, drops %s" % (n, ", ".join(
        "%s %d" % kv for kv in sorted(named.items()))))


def main():
    work = Path(tempfile.mkdtemp(prefix="fuzz-upf."))
    nfvd, smf = t.start(work)
    try:
        t.associate(smf)
        r = t.establish(smf, [t.ul_pdr(), t.dl_pdr()], [t.ul_far(), t.dl_far_buffer()])
        assert t.cause(r) == t.CAUSE_ACCEPTED
        seid1 = t.up_seid(r)
        r = smf.session(seid1, PFCPSessionModificationRequest(IE_list=[t.dl_far_update()]))
        assert t.cause(r) == t.CAUSE_ACCEPTED
        r = t.establish(smf, [t.ul_pdr(teid=UL_TEID2), t.dl_pdr(ue=UE2)],
                        [t.ul_far(), t.dl_far_buffer()], seid=0xbeef)
        assert t.cause(r) == t.CAUSE_ACCEPTED
        seid2 = t.up_seid(r)
        held = rules(nfvd)
        assert set(held) == {seid1, seid2}, held

        fuzz_n4(nfvd, smf.to[1], {seid1, seid2})
        fuzz_n3(nfvd, ROUNDS)

        now = rules(nfvd)
        assert {s: now.get(s) for s in held} == held, (held, now)
        print("fuzz_upf: the two sessions are as they were (%d sessions in all: any other "
              "came from a fuzzed establishment of another node)" % len(now))
        r = smf.node(PFCPHeartbeatRequest(IE_list=[IE_RecoveryTimeStamp(timestamp=1)]))
        assert r.message_type == 2
        inj = pcap_mac(3)
        t.feed(nfvd, "ok", [t.gtpu_frame(inj, t.inner_ul()),
                            Ether(dst=inj, src=t.PEER) / t.inner_dl()])
        out = nfvd.stop()
    finally:
        smf.close()
        nfvd.kill()
    assert out["n6p"][-1] == t.routed(t.inner_ul(), t.DN_MAC, t.N6_MAC)
    # (Its outer identification set aside: nfvd numbers them, test_upf.py.)
    assert zero_ip_ids(out["n3p"][-1:])[0] == [t.encapsulated(t.inner_dl())]
    print("fuzz_upf: nfvd answered throughout, forwarded both ways after it, exited 0 with "
          "every mbuf back (seed %d, %d rounds)" % (SEED, ROUNDS))


if __name__ == "__main__":
    main()
