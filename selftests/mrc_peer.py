#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""mrc_peer: an mrc peer, or an attacker, made of one plain UDP socket.

    mrc_peer.py handshake --src A --dst B --port P [--save FILE] [--reset]
    mrc_peer.py replay --src A --dst B FILE
    mrc_peer.py forge-confirm --src A --dst B --port P [--count N]
    mrc_peer.py attack --src A --dst B --cid C --peer C2 --avoid PSN...
                       [--count N]
    mrc_peer.py window --src A --dst B --port P
    mrc_peer.py report-dup --src A --dst B --port P
    mrc_peer.py report-again --src A --dst B --port P
    mrc_peer.py syns --src A --dst B --port P --count N --first-id I
    mrc_peer.py status --src A --dst B --port P
    mrc_peer.py read --src A --dst B --port P
    mrc_peer.py fin-rst --src A --dst B --port P
    mrc_peer.py now
    mrc_peer.py serve

Needs no privilege: everything goes through an ordinary UDP socket bound
to A (any local address, the peer's too when both ends of the victim's
connection are on this host), sent to B's encapsulation port (4797).

handshake: the connecting side of the three-way handshake by hand: SYN,
the listener's SYNACK, CONFIRM, and the first ACK of the connection the
CONFIRM made.  Prints "cid=K isn=J" (the listener's connection id and
first PSN).  --save writes the CONFIRM to FILE (hex) for "replay";
--reset then aborts that connection with an RST naming its first PSN,
which is in its send window.

replay: send the datagram saved in FILE again, as a delayed duplicate.

forge-confirm: CONFIRMs with made-up cookies for the listener on P.

attack: what a local user who guessed connection C's ids (C is its local
id, C2 its peer's) but not its sequence numbers can send: RSTs, DATA,
zero-window ACKs and PROBEs, with random PSNs at least 2^20 away from
every --avoid PSN (the caller passes the connection's snd_una, snd_nxt
and rcv_nxt: a blind attacker would hit a window only by luck, once in
about 2^22 tries, which a test cannot afford).  Prints "sent=N".

window: the receiving side of a connection, for the order of the
windows that sprayed ACKs carry.  After the handshake it takes the data
the listener's application sends, acknowledges all of it with a zero
window (ACK sequence 10), then sends an older ACK (sequence 9) of the
same data with a window of 1 MiB, which must be ignored, then a newer
one (sequence 11) with that window, which must open it (within 10 s:
the VM is slow).  Prints
"stale=N fresh=M": the new data packets that came after each.

report-dup: the sending side of a connection to a listener's port (its
application need not accept).  After one message, whose ACK comes back
with sequence S on EV E, the message's packet is sent again, a
duplicate, reporting ACK S lost on E (reverse-path learning): the
listener must read the report from the duplicate (ev_bad_ack).  Prints
"reported=S:E".

report-again: the receiving side of a connection whose application
sends (as for window).  Its ACKs skip sequence 2 and name EV 40000 for
it, so the sender judges ACK 2 lost and reports it in a DATA packet;
that packet is never acknowledged, and when it comes again (after a
timeout) it must carry the report again.  Prints "report=PSN:S:E
again=S:E" (0:0 when the repeat carries none).

syns: N SYNs for the listener on P, as fast as the socket sends them,
source ids I, I + 1, ...  Prints "sent=N seconds=S" (S rounded up).

status: operation status records, both ways, with the connection made
to the listener on P (its application need not accept).  Sends two
records that name no operation of the listener's connection (it sent
none): one in order, one held out of order behind a message; then the
pieces of two WRITEs with a key of no region, the first one piece that
asks for a report (MRC_F_REPORT), the second two pieces, the last asking;
then a message.  The listener must ignore both records (drop_bad_status)
and send one failure record per WRITE.  Prints "acked=N records=OP:STATUS,..."
(N: the records and pieces acknowledged in order).

read: READs by hand, with the connection made to the listener on P
(whose socket has no region): two pieces of READ responses that name no
READ of the listener's (it sent none), one in order, one held out of
order behind a message; then a READ request with a key of no region,
then a message.  The listener must take and ignore both pieces
(drop_bad_resp), place nothing, and answer the READ with a failure
record.  Prints "acked=N records=OP:STATUS,..." as status does.

fin-rst: the side of a connection that completes first and frees it
at once (there is no TIME_WAIT), when its ACK of the other side's FIN is
lost.  The listener's application sends nothing and shuts its side down:
its FIN comes, and is not acknowledged; then our FIN, which the listener
must acknowledge; then, as for a packet of no connection, the FIN's
retransmission is answered with an RST naming its PSN.  Prints "fin=PSN
acked=1 rst=1" (PSN relative to the listener's first; acked=0 if our
FIN was never acknowledged, rst=0 if the FIN did not come again).

now: prints the monotonic clock (the kernel's ktime) in microseconds.

serve: reads commands from stdin, one a line, with the words they would
have on the command line ("handshake --src A ..."), and runs each; after
each it prints "rc=N" (its exit status) and "end".  Python starts slowly
in an emulated VM: a test keeps one server per namespace and user.

Exits 1 with a message on stderr when an expected answer does not come
(serve: prints the message on stdout, then "rc=1").
"""

import argparse
import os
import random
import shlex
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the packet layouts, shared with the raw-socket injector
from mrc_inject import (ACK, CONFIRM, DATA, F_RDMA, F_REPORT,  # noqa: E402
                        F_STATUS, HDR_LEN, PROBE, RST, SYNACK, U32, ack,
                        F_FIN, F_READ, F_RESP, data, probe, rdma, status,
                        syn)

ENCAP_PORT = 4797


def open_sock(src, port=0):
    fam = socket.AF_INET6 if ':' in src else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((src, port))
    s.settimeout(0.5)
    return s


def wait_for(s, dst, types, timeout=10.0):
    """The next mrc datagram from dst of one of the types, or None."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            pkt, addr = s.recvfrom(2048)
        except socket.timeout:
            continue
        if addr[0] != dst or len(pkt) < 12:
            continue
        if pkt[1] in types:
            return pkt
    return None


def connect(args):
    """SYN, SYNACK, CONFIRM and the first answer; the socket and ids."""
    s = open_sock(args.src)
    udp_port = s.getsockname()[1]
    my_cid = random.randrange(1, 1 << 32)
    isn = random.randrange(0, 1 << 32)
    sport = random.randrange(20000, 30000)
    tsval = int(time.monotonic() * 1e6) & U32
    pkt = syn(0, my_cid, sport, args.port, udp_port, isn=isn, tsval=tsval)
    synack = None
    for _ in range(5):
        s.sendto(pkt, (args.dst, ENCAP_PORT))
        synack = wait_for(s, args.dst, (SYNACK,), 2.0)
        if synack:
            break
    if not synack:
        sys.exit('mrc_peer: no SYNACK')
    cid = struct.unpack_from('!I', synack, 8)[0]
    peer_isn, t = struct.unpack_from('!I', synack, 12)[0], \
        struct.unpack_from('!I', synack, 28)[0]
    confirm = syn(cid, my_cid, sport, args.port, udp_port, typ=CONFIRM,
                  isn=isn, echo=t, tsval=tsval + 1)
    first = None
    for _ in range(5):
        s.sendto(confirm, (args.dst, ENCAP_PORT))
        first = wait_for(s, args.dst, (ACK, DATA, PROBE), 2.0)
        if first:
            break
    if not first:
        sys.exit('mrc_peer: no answer to the CONFIRM')
    if struct.unpack_from('!I', first, 8)[0] != cid:
        sys.exit('mrc_peer: the answer is not from the cookie\'s id')
    return s, cid, my_cid, peer_isn, confirm


def handshake(args):
    s, cid, my_cid, peer_isn, confirm = connect(args)
    if args.save:
        with open(args.save, 'w') as f:
            f.write(confirm.hex() + '\n')
    if args.reset:
        s.sendto(probe(cid, my_cid, typ=RST, psn=peer_isn),
                 (args.dst, ENCAP_PORT))
    print('cid=%d isn=%d' % (cid, peer_isn), flush=True)
    return 0


def replay(args):
    with open(args.file) as f:
        pkt = bytes.fromhex(f.read().strip())
    s = open_sock(args.src)
    s.sendto(pkt, (args.dst, ENCAP_PORT))
    print('sent=1', flush=True)
    return 0


def forge_confirm(args):
    s = open_sock(args.src)
    udp_port = s.getsockname()[1]
    for _ in range(args.count):
        s.sendto(syn(random.randrange(1, 1 << 32),
                     random.randrange(1, 1 << 32), 20000, args.port,
                     udp_port, typ=CONFIRM,
                     isn=random.randrange(0, 1 << 32),
                     echo=int(time.monotonic() * 1e6) & U32),
                 (args.dst, ENCAP_PORT))
    print('sent=%d' % args.count, flush=True)
    return 0


def window(args):
    s, cid, my_cid, peer_isn, _ = connect(args)
    got = set()

    def take(secs, first=False):
        """New DATA PSNs (relative to the first) in the next secs, or
        until the first one with first."""
        new = 0
        end = time.monotonic() + secs
        while time.monotonic() < end and not (first and new):
            try:
                pkt, addr = s.recvfrom(4096)
            except socket.timeout:
                continue
            if addr[0] != args.dst or len(pkt) < HDR_LEN[DATA] or pkt[1] != DATA:
                continue
            rel = (struct.unpack_from('!I', pkt, 12)[0] - peer_isn) & U32
            if rel not in got:
                got.add(rel)
                new += 1
        return new

    if not take(3.0):
        sys.exit('mrc_peer: no data from the listener\'s application')
    cum = 0
    while cum in got:
        cum += 1
    dst = (args.dst, ENCAP_PORT)
    s.sendto(ack(cid, my_cid, peer_isn + cum, rwnd=0, seq=10), dst)
    take(1.0)
    s.sendto(ack(cid, my_cid, peer_isn + cum, rwnd=1 << 20, seq=9), dst)
    stale = take(1.5)
    s.sendto(ack(cid, my_cid, peer_isn + cum, rwnd=1 << 20, seq=11), dst)
    fresh = take(10.0, first=True)
    print('stale=%d fresh=%d' % (stale, fresh), flush=True)
    return 0


def report_dup(args):
    s, cid, my_cid, _, confirm = connect(args)
    isn = struct.unpack_from('!I', confirm, 12)[0]
    dst = (args.dst, ENCAP_PORT)
    body = b'\x5a' * 10
    s.sendto(data(cid, my_cid, isn, 0, len(body), 0, body), dst)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        try:
            pkt, addr = s.recvfrom(2048)
        except socket.timeout:
            continue
        if (addr[0] == args.dst and len(pkt) >= HDR_LEN[ACK] and
                pkt[1] == ACK and
                struct.unpack_from('!I', pkt, 12)[0] == (isn + 1) & U32):
            break
    else:
        sys.exit('mrc_peer: the message was not acknowledged')
    seq, ev = struct.unpack_from('!H', pkt, 38)[0], addr[1]
    s.sendto(data(cid, my_cid, isn, 0, len(body), 0, body, lost_seq=seq,
                  lost_ev=ev), dst)
    print('reported=%d:%d' % (seq, ev), flush=True)
    return 0


def report_again(args):
    s, cid, my_cid, peer_isn, _ = connect(args)
    dst = (args.dst, ENCAP_PORT)
    got = set()
    seq = 0
    carrier = None
    end = time.monotonic() + 30
    while time.monotonic() < end:
        try:
            pkt, addr = s.recvfrom(4096)
        except socket.timeout:
            continue
        if addr[0] != args.dst or len(pkt) < HDR_LEN[DATA] or pkt[1] != DATA:
            continue
        psn = struct.unpack_from('!I', pkt, 12)[0]
        lost = struct.unpack_from('!HH', pkt, 36)
        if carrier is not None and psn == carrier[0]:
            print('report=%d:%d:%d again=%d:%d' % (carrier + lost),
                  flush=True)
            return 0
        if carrier is None and lost[1]:
            # the report: this packet is never acknowledged
            carrier = (psn,) + lost
            continue
        # everything else is, cumulatively or by SACK
        got.add((psn - peer_isn) & U32)
        cum = 0
        while cum in got:
            cum += 1
        sack = 0
        for r in got:
            if cum < r <= cum + 64:
                sack |= 1 << (r - cum - 1)
        seq += 2 if seq == 1 else 1
        s.sendto(ack(cid, my_cid, peer_isn + cum, sack=sack, seq=seq,
                     prev_ev=40000 if seq == 3 else 0), dst)
    if carrier is None:
        sys.exit('mrc_peer: no report of the ACK never sent (%d ACKs)' % seq)
    sys.exit('mrc_peer: the packet with the report never came again')


def far_psn(avoid):
    while True:
        psn = random.randrange(0, 1 << 32)
        if all(min((psn - a) & U32, (a - psn) & U32) >= 1 << 20
               for a in avoid):
            return psn


def attack(args):
    s = open_sock(args.src)
    n = 0
    for i in range(args.count):
        psn = far_psn(args.avoid)
        for pkt in (probe(args.cid, args.peer, typ=RST, psn=psn),
                    data(args.cid, args.peer, psn, 0, 10, 0, b'\xee' * 10),
                    ack(args.cid, args.peer, psn, rwnd=0, seq=i + 1),
                    probe(args.cid, args.peer, psn=psn)):
            s.sendto(pkt, (args.dst, ENCAP_PORT))
            n += 1
        time.sleep(0.01)
    print('sent=%d' % n, flush=True)
    return 0


def syns(args):
    s = open_sock(args.src)
    pkts = [syn(0, args.first_id + i, 7, args.port, s.getsockname()[1],
                isn=i) for i in range(args.count)]
    t = time.monotonic()
    for p in pkts:
        s.sendto(p, (args.dst, ENCAP_PORT))
    print('sent=%d seconds=%d' % (args.count, time.monotonic() - t + 1),
          flush=True)
    return 0


def send_and_collect(args, pkts, want_records):
    """Send @pkts, made for the connection (s, cid, my_cid, isn) args
    carries, 50 ms apart; collect the peer's status records until
    @want_records came and it acknowledged all @pkts in order."""
    s, isn, dst = args.sock, args.isn, (args.dst, ENCAP_PORT)
    for pkt in pkts:
        s.sendto(pkt, dst)
        time.sleep(0.05)
    records, cum = [], 0
    end = time.monotonic() + 5
    while time.monotonic() < end and (len(records) < want_records or
                                      cum < len(pkts)):
        try:
            pkt, addr = s.recvfrom(2048)
        except socket.timeout:
            continue
        if addr[0] != args.dst or len(pkt) < HDR_LEN[DATA]:
            continue
        flags = struct.unpack_from('!H', pkt, 2)[0]
        if pkt[1] == ACK:
            cum = max(cum, (struct.unpack_from('!I', pkt, 12)[0] - isn) & U32)
        elif pkt[1] == DATA and flags & F_STATUS and len(pkt) == 48:
            rec = '%d:%d' % (struct.unpack_from('!I', pkt, 40)[0], pkt[44])
            if rec not in records:
                records.append(rec)
    print('acked=%d records=%s' % (cum, ','.join(records)), flush=True)
    return 0


def read_ops(args):
    s, cid, my_cid, _, confirm = connect(args)
    isn = struct.unpack_from('!I', confirm, 12)[0]
    body = b'\x5a' * 10
    bad_key = 0x1234567800000001
    pkts = [rdma(cid, my_cid, isn, 0, 0, 10, payload=body,
                 flags=F_RDMA | F_RESP, op_id=0),
            rdma(cid, my_cid, isn + 2, 0, 0, 10, payload=body,
                 flags=F_RDMA | F_RESP, op_id=5),
            data(cid, my_cid, isn + 1, 0, len(body), 0, body),
            rdma(cid, my_cid, isn + 3, bad_key, 0, 100,
                 flags=F_RDMA | F_READ, op_id=0),
            data(cid, my_cid, isn + 4, 1, len(body), 0, body)]
    args.sock, args.isn = s, isn
    return send_and_collect(args, pkts, 1)


def status_records(args):
    s, cid, my_cid, _, confirm = connect(args)
    isn = struct.unpack_from('!I', confirm, 12)[0]
    body = b'\x5a' * 10
    bad_key = 0x1234567800000001
    pkts = [status(cid, my_cid, isn, 0),
            status(cid, my_cid, isn + 2, 5, result=1),
            data(cid, my_cid, isn + 1, 0, len(body), 0, body),
            rdma(cid, my_cid, isn + 3, bad_key, 0, 10, payload=body,
                 flags=F_RDMA | F_REPORT, op_id=0),
            rdma(cid, my_cid, isn + 4, bad_key, 0, 20, payload=body,
                 op_id=1),
            rdma(cid, my_cid, isn + 5, bad_key, 10, 20, off=10,
                 payload=body, flags=F_RDMA | F_REPORT, op_id=1),
            data(cid, my_cid, isn + 6, 1, len(body), 0, body)]
    args.sock, args.isn = s, isn
    return send_and_collect(args, pkts, 2)


def fin_rst(args):
    s, cid, my_cid, peer_isn, confirm = connect(args)
    isn = struct.unpack_from('!I', confirm, 12)[0]
    dst = (args.dst, ENCAP_PORT)

    def next_fin(timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            pkt = wait_for(s, args.dst, (DATA,), end - time.monotonic())
            if pkt and struct.unpack_from('!H', pkt, 2)[0] & F_FIN:
                return struct.unpack_from('!I', pkt, 12)[0]
        return None

    fin = next_fin(10.0)
    if fin is None:
        sys.exit('mrc_peer: no FIN from the listener\'s application')
    acked = 0
    for _ in range(5):
        s.sendto(data(cid, my_cid, isn, 0, 0, 0, flags=F_FIN), dst)
        pkt = wait_for(s, args.dst, (ACK,), 2.0)
        if pkt and (struct.unpack_from('!I', pkt, 12)[0] - isn) & U32 == 1:
            acked = 1
            break
    rst = 0
    if acked and next_fin(15.0) == fin:
        s.sendto(probe(cid, my_cid, typ=RST, psn=fin), dst)
        rst = 1
    print('fin=%d acked=%d rst=%d' % ((fin - peer_isn) & U32, acked, rst),
          flush=True)
    return 0


def now(_args):
    print(int(time.monotonic() * 1e6), flush=True)
    return 0


def serve(_args):
    for line in sys.stdin:
        words = shlex.split(line)
        if not words:
            continue
        try:
            rc = run(words)
        except SystemExit as e:
            if isinstance(e.code, str):
                print(e.code, flush=True)
                rc = 1
            else:
                rc = e.code or 0
        print('rc=%d' % rc)
        print('end', flush=True)
    return 0


def run(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    h = sub.add_parser('handshake')
    h.add_argument('--save')
    h.add_argument('--reset', action='store_true')
    h.add_argument('--port', type=int, required=True)
    r = sub.add_parser('replay')
    r.add_argument('file')
    f = sub.add_parser('forge-confirm')
    f.add_argument('--port', type=int, required=True)
    f.add_argument('--count', type=int, default=10)
    a = sub.add_parser('attack')
    a.add_argument('--cid', type=int, required=True)
    a.add_argument('--peer', type=int, required=True)
    a.add_argument('--avoid', type=int, nargs='+', required=True)
    a.add_argument('--count', type=int, default=50)
    w = sub.add_parser('window')
    w.add_argument('--port', type=int, required=True)
    rd = sub.add_parser('report-dup')
    rd.add_argument('--port', type=int, required=True)
    ra = sub.add_parser('report-again')
    ra.add_argument('--port', type=int, required=True)
    sy = sub.add_parser('syns')
    sy.add_argument('--port', type=int, required=True)
    sy.add_argument('--count', type=int, required=True)
    sy.add_argument('--first-id', type=int, required=True)
    st = sub.add_parser('status')
    st.add_argument('--port', type=int, required=True)
    rr = sub.add_parser('read')
    rr.add_argument('--port', type=int, required=True)
    fr = sub.add_parser('fin-rst')
    fr.add_argument('--port', type=int, required=True)
    for p in (h, r, f, a, w, rd, ra, sy, st, rr, fr):
        p.add_argument('--src', required=True)
        p.add_argument('--dst', required=True)
    sub.add_parser('now')
    sub.add_parser('serve')
    args = ap.parse_args(argv)
    return {'handshake': handshake, 'replay': replay,
            'forge-confirm': forge_confirm, 'attack': attack,
            'window': window, 'report-dup': report_dup,
            'report-again': report_again, 'syns': syns, 'now': now,
            'status': status_records, 'read': read_ops,
            'fin-rst': fin_rst,
            'serve': serve}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(run(sys.argv[1:]))
