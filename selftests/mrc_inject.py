#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""mrc_inject: craft bad mrc datagrams with scapy and send them.

    mrc_inject.py send CLASS --src A --dst B [--port P] [connection state]
    mrc_inject.py serve     (read "CLASS --src A ..." lines, send each)

"send" sends the datagrams of one class from a raw socket (run it in the
sender's namespace) to UDP port P (default 4797) of B and prints one line:

    sent=N expect=COUNTER=N[,COUNTER=N...]

the counters of B's namespace that must move, and by how much, when B
drops every one of them for the reason the class is about (udp_* are the
Udp counters of /proc/net/snmp).  Every other counter of B must stay where
it was.

The connection state (--cid, --peer, --snd-una, --snd-nxt, --rcv-nxt,
--msg-id, --rwnd) is the victim's (B's) MRC_INFO: packets that carry the
right connection ids are what an attacker who guessed them, or a buggy
peer, would send.

"serve" imports scapy once and then answers one "send" per input line
(without the word "send"); it prints "ready" first.  Python and scapy
start slowly in an emulated VM, so tests keep one server running.
"""

import argparse
import socket
import struct
import sys

VERSION = 8
DATA, ACK, SYN, SYNACK, RST, PROBE, CONFIRM = range(1, 8)
F_FIN, F_CE, F_REFUSED, F_PROBE, F_DROP, F_RDMA = (0x0001, 0x0002, 0x0004,
                                                   0x0008, 0x0010, 0x0020)
F_STATUS, F_REPORT, F_IMM = 0x0040, 0x0080, 0x0100
F_READ, F_RESP = 0x0200, 0x0400
HDR_LEN = {DATA: 40, ACK: 52, SYN: 40, SYNACK: 40, RST: 24, PROBE: 24,
           CONFIRM: 40}
RDMA_HDR_LEN = 40 + 24	# DATA, then struct mrc_rdma_ext
ECN_CE = 3

U32 = 0xffffffff


def common(typ, flags, dst, src, ver=VERSION):
    return struct.pack('!BBHII', ver & 0xff, typ & 0xff, flags & 0xffff,
                       dst & U32, src & U32)


def data(dst, src, psn, msg_id, msg_len, off, payload=b'', plen=None,
         flags=0, ver=VERSION, ev=49152, lost_seq=0, lost_ev=0):
    if plen is None:
        plen = len(payload)
    return (common(DATA, flags, dst, src, ver) +
            struct.pack('!IIIIIHHHH', psn & U32, msg_id & U32, msg_len & U32,
                        off & U32, 12345, ev, plen & 0xffff,
                        lost_seq & 0xffff, lost_ev & 0xffff) + payload)


def rdma(dst, src, psn, key, roff, op_len, off=0, payload=b'', plen=None,
         flags=F_RDMA, msg_id=0, msg_len=0, op_id=0, imm=None,
         imm_reserved=0):
    """A piece of a WRITE: DATA with MRC_F_RDMA, its extension (key,
    roffset, op_id, op_len), with imm its immediate (MRC_F_IMM: imm and
    a reserved word), then the payload."""
    if plen is None:
        plen = len(payload)
    if imm is not None:
        flags |= F_IMM
    hdr = data(dst, src, psn, msg_id, msg_len, off, plen=plen, flags=flags)
    ext = struct.pack('!QQII', key & 0xffffffffffffffff,
                      roff & 0xffffffffffffffff, op_id & U32, op_len & U32)
    if imm is not None:
        ext += struct.pack('!II', imm & U32, imm_reserved & U32)
    return hdr + ext + payload


def status(dst, src, psn, op_id, result=0, flags=F_STATUS, reserved=0,
           msg_id=0, off=0, extra=b''):
    """An operation's status record: DATA with MRC_F_STATUS, then op_id,
    the result byte and 3 reserved bytes."""
    rec = struct.pack('!IBBH', op_id & U32, result & 0xff,
                      (reserved >> 16) & 0xff, reserved & 0xffff) + extra
    return data(dst, src, psn, msg_id, 0, off, payload=rec, flags=flags)


def ack(dst, src, cum, rwnd=1 << 16, flags=0, seq=0, sack=0,
        echo=0, ver=VERSION, prev_ev=0, words=None, echoes=(), wait=0):
    """An ACK; sack is the bitmap of cum + 1 onwards (any width: the
    words beyond the first two follow the header), echoes a list of
    (psn, tsval, ev, flags[, wait_us]) extra echoes; words, if given,
    overrides the count of extra SACK words on the wire; wait is the
    first echo's wait_us."""
    extra = []
    rest = sack >> 64
    while rest:
        extra.append(rest & U32)
        rest >>= 32
    nwords = len(extra) if words is None else words
    return (common(ACK, flags, dst, src, ver) +
            struct.pack('!IIIIIIHHIHBBI', cum & U32, rwnd & U32, sack & U32,
                        (sack >> 32) & U32, echo & U32, 0, 49152,
                        seq & 0xffff, 0, prev_ev & 0xffff, nwords & 0xff,
                        len(echoes) & 0xff, wait & U32) +
            b''.join(struct.pack('!I', w) for w in extra) +
            b''.join(struct.pack('!IIHHI', x[0] & U32, x[1] & U32,
                                 x[2] & 0xffff, x[3] & 0xffff,
                                 (x[4] if len(x) > 4 else 0) & U32)
                     for x in echoes))


def syn(dst, src, src_port, dst_port, udp_port, typ=SYN, flags=0,
        reserved=0, isn=1000, echo=None, max_msg=1 << 20, tsval=12345):
    if echo is None:
        echo = 0 if typ == SYN else 12345
    return (common(typ, flags, dst, src) +
            struct.pack('!IHHHHIIII', isn & U32, src_port, dst_port,
                        udp_port, reserved, 1 << 16, tsval & U32,
                        echo & U32, max_msg & U32))


def probe(dst, src, typ=PROBE, flags=0, reserved=0, ver=VERSION, psn=0):
    return (common(typ, flags, dst, src, ver) +
            struct.pack('!IHHI', 12345, 49152, reserved, psn & U32))


def udp_packets(args, payloads, tos=0, bad_csum=False, udp_len_delta=0,
                src=None):
    """IP/UDP packets from A to B's encapsulation port, one per payload,
    as bytes (scapy is slow in an emulated VM: one build per packet)."""
    # scapy is imported here so that building the payloads stays cheap
    from scapy.layers.inet import IP, UDP
    from scapy.packet import Raw

    csum_off = 20 + 6	# IPv4 header without options, then UDP checksum
    pkts = []
    for i, pl in enumerate(payloads):
        sport = 49152 + i % 16384
        ip = IP(src=src or args.src, dst=args.dst, tos=tos)
        if udp_len_delta < 0:
            # the UDP length claims less than the IP payload: the checksum
            # covers what the UDP length says, the rest is IP padding
            cut = bytes(ip / UDP(sport=sport, dport=args.port) /
                        Raw(pl[:len(pl) + udp_len_delta]))
            csum = struct.unpack_from('!H', cut, csum_off)[0]
            pkt = bytes(ip / UDP(sport=sport, dport=args.port,
                                 len=len(cut) - 20, chksum=csum) / Raw(pl))
        elif udp_len_delta > 0:
            pkt = bytes(ip / UDP(sport=sport, dport=args.port,
                                 len=8 + len(pl) + udp_len_delta) / Raw(pl))
        else:
            pkt = bytes(ip / UDP(sport=sport, dport=args.port) / Raw(pl))
        if bad_csum:
            good = struct.unpack_from('!H', pkt, csum_off)[0]
            pkt = bytearray(pkt)
            struct.pack_into('!H', pkt, csum_off, (good + 1) & 0xffff or 1)
            pkt = bytes(pkt)
        pkts.append(pkt)
    return pkts


def send_raw(dst, pkts):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    for p in pkts:
        s.sendto(p, (dst, 0))
    s.close()


def build(args):
    """Payloads, IP options and expected counter moves of one class."""
    cid, peer = args.cid, args.peer
    una, nxt, rnxt, mid = args.snd_una, args.snd_nxt, args.rcv_nxt, \
        args.msg_id
    body = b'\xa5' * 10
    cls = args.cls
    opts = {}
    extra = {}

    # a piece that would be delivered next if it were accepted
    def next_piece(**kw):
        kw.setdefault('psn', rnxt)
        kw.setdefault('msg_id', mid)
        kw.setdefault('msg_len', len(body))
        kw.setdefault('off', 0)
        kw.setdefault('payload', body)
        return data(cid, peer, **kw)

    if cls == 'short':
        # every type cut at every length below its header
        full = {DATA: next_piece(payload=b'', msg_len=0),
                ACK: ack(cid, peer, una),
                SYN: syn(0, 0x1234567, 7, args.listen_port, 4797),
                SYNACK: syn(cid, peer, 7, 8, 4797, typ=SYNACK),
                RST: probe(cid, peer, typ=RST),
                PROBE: probe(cid, peer),
                CONFIRM: syn(cid, peer, 7, 8, 4797, typ=CONFIRM)}
        pls = [full[t][:n] for t in sorted(full) for n in range(HDR_LEN[t])]
        # a WRITE's piece cut inside its extension, or its immediate
        wr = rdma(cid, peer, rnxt, 1, 0, 0)
        pls += [wr[:n] for n in range(HDR_LEN[DATA], RDMA_HDR_LEN)]
        wr = rdma(cid, peer, rnxt, 1, 0, 0, imm=5)
        pls += [wr[:n] for n in range(RDMA_HDR_LEN, RDMA_HDR_LEN + 8)]
        counter = 'drop_short'
    elif cls == 'version':
        pls = []
        for v in (0, 1, 2, 3, VERSION + 1, 0x10, 0x80, 0xff):
            pls += [next_piece(ver=v), ack(cid, peer, una, ver=v),
                    probe(cid, peer, ver=v)]
        counter = 'drop_version'
    elif cls == 'type':
        pls = [common(t, 0, cid, peer) + b'\0' * 32
               for t in (0, 8, 9, 0x10, 0x7f, 0x80, 0xff)]
        counter = 'drop_type'
    elif cls == 'flags':
        pls = [next_piece(flags=0x0008), next_piece(flags=0x8000),
               next_piece(flags=F_CE), next_piece(flags=F_REFUSED),
               next_piece(flags=0xffff),
               ack(cid, peer, una, flags=F_FIN),
               ack(cid, peer, una, flags=F_REFUSED),
               ack(cid, peer, una, flags=0x0100),
               ack(cid, peer, una, flags=F_PROBE | F_DROP),
               ack(cid, peer, una, echoes=[(una, 1, 49152, 0x0004)]),
               ack(cid, peer, una, echoes=[(una, 1, 49152, 0x8001)]),
               next_piece(flags=F_DROP), probe(cid, peer, flags=F_DROP),
               syn(0, 0x1234567, 7, args.listen_port, 4797, flags=F_FIN),
               syn(0, 0x1234567, 7, args.listen_port, 4797, flags=F_CE),
               syn(cid, peer, 7, 8, 4797, typ=SYNACK, flags=F_CE),
               syn(cid, peer, 7, 8, 4797, typ=CONFIRM, flags=F_FIN),
               probe(cid, peer, flags=F_FIN), probe(cid, peer, flags=F_CE),
               probe(cid, peer, flags=F_REFUSED),
               probe(cid, peer, flags=0x0040),
               # RDMA only on DATA, never with FIN
               rdma(cid, peer, rnxt, 1, 0, 0, flags=F_RDMA | F_FIN),
               # a status record is neither a FIN nor a WRITE's piece;
               # only a WRITE's piece asks for a report
               status(cid, peer, rnxt, 0, flags=F_STATUS | F_FIN),
               status(cid, peer, rnxt, 0, flags=F_STATUS | F_RDMA),
               status(cid, peer, rnxt, 0, flags=F_STATUS | F_REPORT),
               next_piece(flags=F_REPORT),
               # an immediate: a WRITE's last piece only
               next_piece(flags=F_IMM),
               status(cid, peer, rnxt, 0, flags=F_STATUS | F_IMM),
               rdma(cid, peer, rnxt, 1, 0, 20, payload=body[:10], imm=1),
               # READ and RESP: a one-sided packet's, alone
               next_piece(flags=F_READ), next_piece(flags=F_RESP),
               status(cid, peer, rnxt, 0, flags=F_STATUS | F_READ),
               rdma(cid, peer, rnxt, 1, 0, 0,
                    flags=F_RDMA | F_READ | F_RESP),
               rdma(cid, peer, rnxt, 1, 0, 0,
                    flags=F_RDMA | F_READ | F_REPORT),
               rdma(cid, peer, rnxt, 0, 0, 10, payload=body[:10],
                    flags=F_RDMA | F_RESP, imm=1),
               ack(cid, peer, una, flags=F_READ),
               ack(cid, peer, una, flags=F_STATUS),
               ack(cid, peer, una, flags=F_RDMA),
               probe(cid, peer, flags=F_RDMA),
               probe(cid, peer, typ=RST, flags=F_RDMA),
               probe(cid, peer, typ=RST, flags=F_FIN),
               probe(cid, peer, typ=RST, flags=F_CE),
               probe(cid, peer, typ=RST, flags=F_REFUSED | 0x0800)]
        counter = 'drop_bad_flags'
    elif cls == 'length':
        # the length field, or the datagram, lies
        pls = [next_piece(plen=len(body) + 1), next_piece(plen=len(body) - 1),
               next_piece(plen=0), next_piece(plen=0xffff),
               next_piece(payload=b'', msg_len=1, plen=1),
               next_piece(payload=body + b'\0', msg_len=len(body) + 1,
                          plen=len(body)),
               # a FIN carries nothing
               next_piece(flags=F_FIN, payload=b'\0' * 4, msg_len=0),
               next_piece(flags=F_FIN, payload=b'', msg_len=5),
               next_piece(flags=F_FIN, payload=b'', msg_len=0, off=1),
               ack(cid, peer, una) + b'\0',
               ack(cid, peer, una) + b'\0' * 100,
               # SACK words and echoes the counts do not match
               ack(cid, peer, una, words=1),
               ack(cid, peer, una, sack=1 << 70, words=0),
               ack(cid, peer, una, echoes=[(una, 1, 49152, 0)]) + b'\0' * 4,
               ack(cid, peer, una, echoes=[(una, 1, 49152, 0)])[:-1],
               syn(0, 0x1234567, 7, args.listen_port, 4797) + b'\0',
               syn(cid, peer, 7, 8, 4797, typ=SYNACK) + b'\0' * 3,
               syn(cid, peer, 7, 8, 4797, typ=CONFIRM) + b'\0' * 4,
               probe(cid, peer) + b'\0' * 4,
               probe(cid, peer, typ=RST) + b'\0',
               # a status record is 8 bytes
               status(cid, peer, rnxt, 0, extra=b'\0'),
               status(cid, peer, rnxt, 0)[:-1],
               # a READ request carries nothing, from offset 0, and its
               # bytes do not wrap; a response's piece lies inside its READ
               rdma(cid, peer, rnxt, 1, 0, 10, payload=body[:10],
                    flags=F_RDMA | F_READ),
               rdma(cid, peer, rnxt, 1, 0, 10, off=4, flags=F_RDMA | F_READ),
               rdma(cid, peer, rnxt, 1, (1 << 64) - 4, 10,
                    flags=F_RDMA | F_READ),
               rdma(cid, peer, rnxt, 0, 0, 10, off=5, payload=body[:10],
                    flags=F_RDMA | F_RESP),
               rdma(cid, peer, rnxt, 0, 0, 10, flags=F_RDMA | F_RESP)]
        counter = 'drop_bad_len'
    elif cls == 'udp_len_short':
        # UDP length shorter than the IP payload: UDP trims the datagram,
        # so the mrc length field now lies
        pls = [next_piece(payload=body * 2, msg_len=20)] * 4
        opts['udp_len_delta'] = -5
        counter = 'drop_bad_len'
    elif cls == 'beyond_end':
        pls = [next_piece(msg_len=100, off=95),
               next_piece(msg_len=len(body), off=1),
               next_piece(msg_len=len(body) - 1),
               next_piece(msg_len=0),
               next_piece(msg_len=1000, off=0xfffffff0, payload=b'\1' * 32),
               next_piece(msg_len=1000, off=U32),
               next_piece(msg_len=len(body), payload=b''),
               next_piece(msg_len=len(body), off=5, payload=b''),
               # a WRITE's piece past its operation, empty in a longer
               # one, or whose last byte's offset wraps
               rdma(cid, peer, rnxt, 1, 0, 100, off=95, payload=body),
               rdma(cid, peer, rnxt, 1, 0, 0, payload=body),
               rdma(cid, peer, rnxt, 1, 0, 10, off=U32, payload=body),
               rdma(cid, peer, rnxt, 1, 0, 10),
               rdma(cid, peer, rnxt, 1, (1 << 64) - 5, 10, payload=body),
               rdma(cid, peer, rnxt, 1, (1 << 64) - 1, 10, payload=body),
               # its length field lies
               rdma(cid, peer, rnxt, 1, 0, 100, payload=body, plen=11),
               rdma(cid, peer, rnxt, 1, 0, 100, payload=body, plen=9)]
        counter = 'drop_bad_len'
    elif cls == 'too_big':
        pls = [next_piece(msg_len=U32), next_piece(msg_len=0x80000000),
               next_piece(msg_len=args.max_msg + 1),
               next_piece(msg_len=U32, off=U32 - len(body) + 1)]
        counter = 'drop_too_big'
    elif cls == 'zero_cid':
        pls = [data(0, peer, rnxt, mid, len(body), 0, body),
               ack(0, peer, una), probe(0, peer),
               probe(0, peer, typ=RST),
               syn(0, peer, 7, 8, 4797, typ=SYNACK),
               data(cid, 0, rnxt, mid, len(body), 0, body),
               ack(cid, 0, una), probe(cid, 0), probe(cid, 0, typ=RST),
               syn(cid, 0, 7, 8, 4797, typ=SYNACK),
               syn(0, peer, 7, 8, 4797, typ=CONFIRM),
               syn(cid, 0, 7, 8, 4797, typ=CONFIRM),
               data(0, 0, rnxt, mid, len(body), 0, body),
               # a SYN has no destination id yet, and always a source id
               syn(cid, peer, 7, args.listen_port, 4797),
               syn(0, 0, 7, args.listen_port, 4797)]
        counter = 'drop_bad_cid'
    elif cls == 'no_conn':
        other = cid ^ 0x5a5a5a5a or 1
        fake = peer ^ 0x0f0f0f0f or 1
        pls = [data(other, fake, rnxt, mid, len(body), 0, body),
               ack(other, fake, una), probe(other, fake),
               syn(other, fake, 7, 8, 4797, typ=SYNACK),
               probe(other, fake, typ=RST),
               probe(other, 0, typ=RST, flags=F_REFUSED)]
        counter = 'drop_no_conn'
        # DATA and PROBE are answered with a RST; ACK, SYNACK and RST
        # are not (nothing to reset)
        extra['out_rst'] = 2
    elif cls == 'wrong_src_cid':
        pls = []
        for bad in (peer ^ 1, peer ^ 0x80000000, peer + 0x10000):
            pls += [data(cid, bad, rnxt, mid, len(body), 0, body),
                    ack(cid, bad, una), probe(cid, bad),
                    probe(cid, bad, typ=RST),
                    syn(cid, bad, 7, 8, 4797, typ=SYNACK)]
        pls.append(probe(cid, 0, typ=RST, flags=F_REFUSED))
        counter = 'drop_bad_cid'
    elif cls == 'spoofed':
        # right ids, but from another host of the subnet: a local user
        # can read the ids, so they alone must not be enough
        pls = [next_piece(), ack(cid, peer, una, rwnd=args.rwnd),
               probe(cid, peer), probe(cid, peer, typ=RST),
               syn(cid, peer, 7, 8, 4797, typ=SYNACK)]
        parts = args.src.split('.')
        parts[3] = str((int(parts[3]) + 100) % 250 + 1)
        opts['src'] = '.'.join(parts)
        counter = 'drop_bad_addr'
    elif cls == 'out_of_window':
        pls = [next_piece(psn=rnxt + d)
               for d in (5000, 1024, 1025, 0x10000, 0x7fffffff)]
        counter = 'drop_out_of_window'
    elif cls == 'dup_data':
        pls = [next_piece(psn=rnxt - d, payload=b'\xee' * 10)
               for d in (1, 2, 100, 1023, 1024, 0x7fffffff)]
        counter = 'dup_data'
        # each is acknowledged again, as if our ACK had been lost
        extra['out_ack'] = len(pls)
    elif cls == 'ack_unsent':
        pls = [ack(cid, peer, nxt + d, rwnd=args.rwnd)
               for d in (100, 1, 2, 1024, 0x7fffffff)]
        counter = 'drop_ack_unsent'
    elif cls == 'ack_old':
        pls = [ack(cid, peer, una - d, rwnd=args.rwnd)
               for d in (1, 2, 1000, 0x7fffffff)]
        counter = 'ack_old'
    elif cls == 'ack_old_seq':
        # older than snd_una, with sequence numbers far ahead of the
        # peer's and every other one skipped, each naming an EV for the
        # one before it and a zero window: were they trusted, the gaps
        # would be reported as the peer's lost ACKs (ack_lost) and its
        # window would close
        pls = [ack(cid, peer, una - d, rwnd=0, seq=1000 + 2 * k,
                   prev_ev=49152 + k, echo=una - d)
               for k in range(40) for d in (1, 5)]
        counter = 'ack_old'
    elif cls == 'ce_control':
        # CE on probes (answered) and on a current ACK that changes
        # nothing: counted as data CE never, dropped never
        pls = [probe(cid, peer)] * 4 + \
              [ack(cid, peer, una, rwnd=args.rwnd)] * 4
        opts['tos'] = ECN_CE
        counter = None
        extra['out_ack'] = 4
    elif cls == 'bad_csum':
        # would be delivered as the next message, if UDP let it through
        pls = [next_piece(), next_piece(psn=rnxt + 1),
               probe(cid, peer, typ=RST), ack(cid, peer, nxt + 100)]
        opts['bad_csum'] = True
        counter = None
        extra['udp_InCsumErrors'] = len(pls)
        extra['udp_InErrors'] = len(pls)
    elif cls == 'udp_len_long':
        pls = [next_piece(), probe(cid, peer, typ=RST)]
        opts['udp_len_delta'] = 8
        counter = None
        extra['udp_InErrors'] = len(pls)
    elif cls == 'no_listener':
        pls = [syn(0, 0x10000 + i, 7, args.free_port, 4797)
               for i in range(5)]
        # a CONFIRM for no connection goes to the listener of its port
        pls += [syn(0x7770 + i, 0x20000 + i, 7, args.free_port, 4797,
                    typ=CONFIRM) for i in range(3)]
        counter = 'drop_no_listener'
        extra['out_rst'] = len(pls)
    elif cls == 'bad_field':
        lp = args.listen_port
        pls = [syn(0, 0x2000, 7, 0, 4797),
               syn(0, 0x2001, 0, lp, 4797),
               syn(0, 0x2002, 7, lp, 0),
               syn(0, 0x2003, 7, lp, 4797, reserved=1),
               syn(cid, peer, 7, 0, 4797, typ=SYNACK),
               syn(cid, peer, 7, 8, 4797, typ=SYNACK, reserved=0x8000),
               syn(0, 0x2004, 7, lp, 4797, echo=1),
               syn(0, 0x2005, 7, lp, 4797, max_msg=0),
               syn(cid, peer, 7, 8, 4797, typ=CONFIRM, max_msg=0),
               syn(cid, peer, 7, 0, 4797, typ=CONFIRM),
               probe(cid, peer, reserved=1),
               probe(cid, peer, typ=RST, reserved=0xffff),
               # a lost ACK's sequence without its EV
               next_piece(lost_seq=5),
               # a WRITE's piece with a message's fields
               rdma(cid, peer, rnxt, 1, 0, 10, payload=body, msg_id=1),
               rdma(cid, peer, rnxt, 1, 0, 10, payload=body, msg_len=10),
               # a status record: unknown result, reserved bytes, a
               # message's fields
               status(cid, peer, rnxt, 0, result=4),
               status(cid, peer, rnxt, 0, reserved=1),
               status(cid, peer, rnxt, 0, msg_id=1),
               status(cid, peer, rnxt, 0, off=8),
               # an immediate's reserved word
               rdma(cid, peer, rnxt, 1, 0, 10, payload=body[:10], imm=1,
                    imm_reserved=1),
               # a READ's response names no key or offset
               rdma(cid, peer, rnxt, 1, 0, 10, payload=body[:10],
                    flags=F_RDMA | F_RESP),
               rdma(cid, peer, rnxt, 0, 8, 10, payload=body[:10],
                    flags=F_RDMA | F_RESP),
               # more SACK words or echoes than an ACK may carry
               ack(cid, peer, una, sack=1 << 255, words=7) + b'\0' * 4,
               ack(cid, peer, una, echoes=[(una, 1, 49152, 0)] * 17)]
        counter = 'drop_bad_field'
    else:
        sys.exit('mrc_inject: unknown class %s' % cls)

    expect = dict(extra)
    if counter:
        expect[counter] = len(pls)
    if not opts.get('bad_csum') and opts.get('udp_len_delta', 0) <= 0:
        expect['in_pkts'] = len(pls)
    return pls, opts, expect


def send(args):
    pls, opts, expect = build(args)
    send_raw(args.dst, udp_packets(args, pls, **opts))
    print('sent=%d expect=%s' % (len(pls), ','.join(
        '%s=%d' % kv for kv in sorted(expect.items()))), flush=True)


def serve(parser):
    """One "send" command line per input line, one answer line each."""
    import shlex

    import scapy.layers.inet  # noqa: F401 (import once, up front)
    print('ready', flush=True)
    for line in sys.stdin:
        try:
            send(parser.parse_args(['send'] + shlex.split(line)))
        except SystemExit as e:
            print('error=bad command (%s)' % e, flush=True)
        except Exception as e:  # report, keep serving
            print('error=%s: %s' % (type(e).__name__, e), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('send')
    s.add_argument('cls')
    s.add_argument('--src', required=True)
    s.add_argument('--dst', required=True)
    s.add_argument('--port', type=int, default=4797)
    s.add_argument('--cid', type=int, default=1)
    s.add_argument('--peer', type=int, default=1)
    s.add_argument('--snd-una', type=int, default=0)
    s.add_argument('--snd-nxt', type=int, default=0)
    s.add_argument('--rcv-nxt', type=int, default=0)
    s.add_argument('--msg-id', type=int, default=0)
    s.add_argument('--rwnd', type=int, default=1 << 16)
    s.add_argument('--max-msg', type=int, default=64 << 20)
    s.add_argument('--listen-port', type=int, default=7000)
    s.add_argument('--free-port', type=int, default=7001)
    sub.add_parser('serve')
    args = ap.parse_args()

    if args.cmd == 'serve':
        serve(ap)
    else:
        send(args)
    return 0


if __name__ == '__main__':
    sys.exit(main())
