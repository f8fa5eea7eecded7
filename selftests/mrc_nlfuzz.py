#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mrc_nlfuzz.py: a raw generic netlink client of the "mrc" family for the
selftests, which must not depend on the mrc tool's own netlink code.

  mrc_nlfuzz.py bad
      Send malformed requests (wrong sizes, values out of range, unknown
      and unsupported attributes, missing attributes, attributes past the
      end of the message) and check each is refused with the expected
      errno and an extended ACK message.  Prints TAP-like lines
      "ok - NAME" / "not ok - NAME" (a "# ..." line after a failure).

  mrc_nlfuzz.py fuzz [-n COUNT] [-s SEED] [-c CID]... [-t SECONDS]
      Send COUNT random messages (default 10000) to every command, with
      random flags, attribute types, lengths and payloads; after each, a
      CONFIG_GET with an ACK makes sure the kernel still answers.  Prints
      the seed first ("# seed N") and a summary; exits 0 when the kernel
      answered every request.  CIDs of live connections make the payloads
      hit real connections now and then.  Run it as root in a throwaway
      namespace: it changes the settings and denies ports.

  mrc_nlfuzz.py listen [-t SECONDS]
      Join the "events" multicast group and print every notification as
      one JSON object per line (keys as "mrc -j monitor": event, what,
      local_cid, peer_cid, error for connections; event, cid, port, state,
      old_state, cause for paths); prints "# listening" once joined; ends
      on SIGTERM/SIGINT or after SECONDS.

  mrc_nlfuzz.py flip [-t SECONDS] [-f STOPFILE] MIN1 MAX1 MIN2 MAX2
      Set the EV port range to MIN1-MAX1, then to MIN2-MAX2, and so on,
      both ends in one CONFIG_SET each, as fast as the kernel answers,
      for SECONDS (default 20) or until STOPFILE exists; then prints
      "flips N refused M" (M: requests the kernel did not ACK, with the
      first error after a "#").  Exits 0 when every request was taken.

  mrc_nlfuzz.py dumppause
      Dump the connections (CONN_GET) and read the first part of the
      answer only (the kernel makes it before any read: about a page);
      print "paused N" (connections in it), wait for a line on stdin,
      then read the rest and print one JSON object:
      {"parts": P, "cids": [local ids in the order listed], "done": true
      when the dump ended with NLMSG_DONE}.  What the kernel must get
      right in between is the test's: connections that end or start while
      the dump is paused must not make it miss or repeat others.

  mrc_nlfuzz.py userns
      Run as an unprivileged user: opens a socket in the current network
      namespace, then becomes root of a new user namespace with a new
      network namespace, and checks that it can change the settings of its
      own namespace but not, through the old socket, those of the one it
      came from.  Prints "ok - NAME" / "not ok - NAME" lines.
"""

import argparse
import ctypes
import errno
import json
import os
import random
import re
import signal
import socket
import struct
import sys
import time

# netlink
NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11
NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_ACK = 0x4
NLM_F_ECHO = 0x8
NLM_F_ROOT = 0x100
NLM_F_MATCH = 0x200
NLM_F_ATOMIC = 0x400
NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_OFFS = 2
NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xffff

# generic netlink controller
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_MCAST_GRP_ID = 2

# include/uapi/linux/mrc.h, read when the script starts so that it keeps
# up with new attributes: enum constants, and the type each attribute's
# comment names ("u8", "u16", "u32", "u64", "binary")
U8, U16, U32, U64, BIN = 1, 2, 4, 8, -1


def load_uapi(path):
    consts, sizes = {}, {}
    sizemap = {"u8": U8, "u16": U16, "u32": U32, "u64": U64, "binary": BIN}
    inside = False
    nxt = 0
    last = None
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*#define\s+(\w+)\s+(\d+)\b", line)
            if m:
                consts[m.group(1)] = int(m.group(2))
                continue
            if re.match(r"\s*enum\s+\w+\s*{", line):
                inside, nxt = True, 0
                continue
            if inside and line.strip().startswith("}"):
                inside = False
                continue
            if not inside:
                continue
            code, _, comment = line.partition("/*")
            m = re.match(r"\s*([A-Za-z_]\w*)\s*(?:=\s*([\w\s+-]+?))?\s*,?\s*$",
                         code)
            if m:
                name, val = m.group(1), m.group(2)
                if val is not None:
                    nxt = 0
                    for sign, term in re.findall(r"([+-]?)\s*(\w+)", val):
                        v = consts[term] if term in consts else int(term, 0)
                        nxt += -v if sign == "-" else v
                consts[name] = nxt
                last = name
                nxt += 1
            c = re.search(r"^\s*(u8|u16|u32|u64|binary)\b", comment)
            if c and last and last not in sizes:
                sizes[last] = sizemap[c.group(1)]
    return consts, sizes


UAPI = os.environ.get("MRC_UAPI", os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..", "include", "uapi", "linux", "mrc.h"))
C, SIZES = load_uapi(UAPI)


def const(name):
    return C[name]


CMD_NAMES = ("CONFIG_GET", "CONFIG_SET", "STATS_GET", "CONN_GET", "PATH_GET",
             "PATH_SET", "CONN_EVENT", "PATH_EVENT")
(MRC_CMD_CONFIG_GET, MRC_CMD_CONFIG_SET, MRC_CMD_STATS_GET, MRC_CMD_CONN_GET,
 MRC_CMD_PATH_GET, MRC_CMD_PATH_SET, MRC_CMD_CONN_EVENT,
 MRC_CMD_PATH_EVENT) = (const("MRC_CMD_" + n) for n in CMD_NAMES)
(A_CONFIG_PORT, A_CONFIG_RTO_MIN_US, A_CONFIG_RTO_MAX_US,
 A_CONFIG_CONN_TIMEOUT_MS, A_CONFIG_MAX_MSG_SIZE, A_CONFIG_EV_COUNT,
 A_CONFIG_EV_PORT_MIN, A_CONFIG_EV_PORT_MAX, A_CONFIG_EV_SPARES,
 A_CONFIG_EV_POLICY, A_CONFIG_PROBE_INTERVAL_MS, A_CONFIG_MAX) = (
    const("MRC_A_CONFIG_" + n) for n in (
        "PORT", "RTO_MIN_US", "RTO_MAX_US", "CONN_TIMEOUT_MS", "MAX_MSG_SIZE",
        "EV_COUNT", "EV_PORT_MIN", "EV_PORT_MAX", "EV_SPARES", "EV_POLICY",
        "PROBE_INTERVAL_MS", "MAX"))
(A_CONN_LOCAL_CID, A_CONN_PEER_CID, A_CONN_EVENT, A_CONN_ERROR,
 A_CONN_MAX) = (const("MRC_A_CONN_" + n) for n in (
     "LOCAL_CID", "PEER_CID", "EVENT", "ERROR", "MAX"))
(A_PATH_CID, A_PATH_PORT, A_PATH_STATE, A_PATH_SENT, A_PATH_PEER,
 A_PATH_PORT_MIN, A_PATH_PORT_MAX, A_PATH_CAUSE, A_PATH_OLD_STATE,
 A_PATH_MAX) = (const("MRC_A_PATH_" + n) for n in (
     "CID", "PORT", "STATE", "SENT", "PEER", "PORT_MIN", "PORT_MAX", "CAUSE",
     "OLD_STATE", "MAX"))
EV_GOOD, EV_SKIP, EV_BAD, EV_DENIED = (
    const("MRC_EV_" + n) for n in ("GOOD", "SKIP", "BAD", "DENIED"))
EV_STATES = {EV_GOOD: "good", EV_SKIP: "skip", EV_BAD: "bad",
             EV_DENIED: "denied"}


def words(prefix):
    """The names of one enum's values, by value, lower case."""
    return {v: k[len(prefix):].lower() for k, v in C.items()
            if k.startswith(prefix)}


CONN_EVENTS = words("MRC_CONN_EVENT_")
PATH_CAUSES = words("MRC_PATH_CAUSE_")


def attrs_of(prefix, names=None):
    """{attribute: size} of one attribute set (all but UNSPEC/PAD/MAX)."""
    out = {}
    for k, v in C.items():
        if not k.startswith(prefix) or k.startswith("__"):
            continue
        short = k[len(prefix):]
        if short in ("UNSPEC", "PAD", "MAX") or (names and short not in names):
            continue
        out[v] = SIZES.get(k, U32)
    return out


POLICY = {
    MRC_CMD_CONFIG_GET: {},
    MRC_CMD_CONFIG_SET: attrs_of("MRC_A_CONFIG_"),
    MRC_CMD_STATS_GET: {},
    MRC_CMD_CONN_GET: attrs_of("MRC_A_CONN_", ["LOCAL_CID"]),
    MRC_CMD_PATH_GET: attrs_of("MRC_A_PATH_", ["CID"]),
    MRC_CMD_PATH_SET: attrs_of("MRC_A_PATH_", ["CID", "PORT", "STATE", "PEER",
                                               "PORT_MIN", "PORT_MAX"]),
}
DUMP_CMDS = (MRC_CMD_CONN_GET, MRC_CMD_PATH_GET)
MAXATTR = {MRC_CMD_CONFIG_SET: A_CONFIG_MAX, MRC_CMD_CONN_GET: A_CONN_MAX,
           MRC_CMD_PATH_GET: A_PATH_MAX, MRC_CMD_PATH_SET: A_PATH_MAX}
MRC_CMD_LAST = max(v for k, v in C.items() if k.startswith("MRC_CMD_") and
                   not k.startswith("MRC_CMD_MAX"))


def nla(atype, payload):
    """One attribute, padded to 4 bytes."""
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    return hdr + payload + b"\0" * (-len(payload) % 4)


def nla_u8(atype, v):
    return nla(atype, struct.pack("=B", v))


def nla_u16(atype, v):
    return nla(atype, struct.pack("=H", v))


def nla_u32(atype, v):
    return nla(atype, struct.pack("=I", v))


def parse_attrs(data):
    """{type: payload} of a run of attributes (flags stripped)."""
    out = {}
    off = 0
    while off + 4 <= len(data):
        alen, atype = struct.unpack_from("=HH", data, off)
        if alen < 4 or off + alen > len(data):
            break
        out[atype & NLA_TYPE_MASK] = data[off + 4:off + alen]
        off += (alen + 3) & ~3
    return out


def u(payload):
    """An unsigned integer attribute of any size."""
    fmt = {1: "=B", 2: "=H", 4: "=I", 8: "=Q"}.get(len(payload))
    return struct.unpack(fmt, payload)[0] if fmt else None


class Reply:
    """What the kernel answered one request with."""

    def __init__(self):
        self.error = None       # 0 for an ACK, a positive errno, None: none
        self.extack = None      # the NLMSGERR_ATTR_MSG text
        self.offset = None      # NLMSGERR_ATTR_OFFS
        self.msgs = []          # (cmd, {attr: payload}) of data messages
        self.done = False


class Genl:
    """A generic netlink socket talking to one family."""

    def __init__(self, name="mrc", timeout=5.0):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.settimeout(timeout)
        self.sock.bind((0, 0))
        self.seq = int(time.time()) & 0xffff
        self.family, self.groups = self.resolve(name)

    def resolve(self, name):
        r = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                         nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"),
                         version=1)
        if r.error:
            raise OSError(r.error, "family %s: %s" % (name,
                                                      os.strerror(r.error)))
        attrs = r.msgs[0][1]
        groups = {}
        grps = attrs.get(CTRL_ATTR_MCAST_GROUPS, b"")
        off = 0
        while off + 4 <= len(grps):
            alen, _ = struct.unpack_from("=HH", grps, off)
            if alen < 4:
                break
            g = parse_attrs(grps[off + 4:off + alen])
            gname = g.get(CTRL_ATTR_MCAST_GRP_NAME, b"").rstrip(b"\0")
            if CTRL_ATTR_MCAST_GRP_ID in g:
                groups[gname.decode()] = u(g[CTRL_ATTR_MCAST_GRP_ID])
            off += (alen + 3) & ~3
        return u(attrs[CTRL_ATTR_FAMILY_ID]), groups

    def next_seq(self):
        self.seq = (self.seq + 1) & 0xffffffff
        return self.seq

    @staticmethod
    def build(ntype, flags, seq, cmd, attrs, version=1):
        body = struct.pack("=BBH", cmd, version, 0) + attrs
        return struct.pack("=IHHII", 16 + len(body), ntype, flags, seq,
                           0) + body

    def request(self, ntype, cmd, attrs=b"", flags=NLM_F_REQUEST | NLM_F_ACK,
                version=1):
        """Send one request; collect its answer up to its ACK, error or
        DONE."""
        seq = self.next_seq()
        self.sock.send(self.build(ntype, flags, seq, cmd, attrs, version))
        return self.collect(seq, wait_ack=bool(flags & NLM_F_ACK) or
                            (flags & NLM_F_DUMP) == NLM_F_DUMP)

    def collect(self, seq, wait_ack=True):
        r = Reply()
        while True:
            try:
                data = self.sock.recv(1 << 16)
            except socket.timeout:
                return r
            off = 0
            finished = False
            while off + 16 <= len(data):
                nlen, ntype, nflags, nseq, _ = struct.unpack_from("=IHHII",
                                                                  data, off)
                if nlen < 16:
                    break
                body = data[off + 16:off + nlen]
                off += (nlen + 3) & ~3
                if nseq != seq:
                    continue            # an answer to an older request
                if ntype == NLMSG_ERROR:
                    self.parse_error(r, body, nflags)
                    finished = True
                elif ntype == NLMSG_DONE:
                    err = struct.unpack_from("=i", body)[0] \
                        if len(body) >= 4 else 0
                    r.error = -err
                    r.done = True
                    if nflags & NLM_F_ACK_TLVS:
                        self.parse_tlvs(r, body[4:])
                    finished = True
                else:
                    r.msgs.append((body[0], parse_attrs(body[4:])))
                    if not wait_ack and not nflags & NLM_F_MULTI:
                        finished = True
            if finished:
                return r

    def parse_error(self, r, body, nflags):
        r.error = -struct.unpack_from("=i", body)[0]
        if nflags & NLM_F_CAPPED:
            rest = body[4 + 16:]
        else:
            olen = struct.unpack_from("=I", body, 4)[0] \
                if len(body) >= 8 else 0
            rest = body[4 + ((olen + 3) & ~3):]
        if nflags & NLM_F_ACK_TLVS:
            self.parse_tlvs(r, rest)

    @staticmethod
    def parse_tlvs(r, data):
        tlv = parse_attrs(data)
        if NLMSGERR_ATTR_MSG in tlv:
            r.extack = tlv[NLMSGERR_ATTR_MSG].rstrip(b"\0").decode(
                errors="replace")
        if NLMSGERR_ATTR_OFFS in tlv:
            r.offset = u(tlv[NLMSGERR_ATTR_OFFS])

    def mrc(self, cmd, attrs=b"", dump=False, **kw):
        flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
        return self.request(self.family, cmd, attrs, flags=flags, **kw)


class Tap:
    def __init__(self):
        self.failed = 0

    def ok(self, name):
        print("ok - %s" % name, flush=True)

    def fail(self, name, why):
        self.failed += 1
        print("not ok - %s" % name)
        print("# %s" % why, flush=True)

    def expect(self, name, r, errnos, msg=True, text=None):
        """@r must carry one of @errnos and (if @msg) an extack message
        (containing @text if given)."""
        got = "%s (%s), extack %r" % (
            errno.errorcode.get(r.error, r.error) if r.error is not None
            else "no answer", os.strerror(r.error) if r.error else "-",
            r.extack)
        if r.error not in errnos:
            self.fail(name, "expected %s, got %s" % (
                "/".join(errno.errorcode[e] for e in errnos), got))
        elif msg and not r.extack:
            self.fail(name, "no extack message: " + got)
        elif text and text not in (r.extack or ""):
            self.fail(name, "expected extack %r: %s" % (text, got))
        else:
            print("# %s: %s" % (name, got))
            self.ok(name)


def config(g):
    r = g.mrc(MRC_CMD_CONFIG_GET)
    if r.error or not r.msgs:
        return None
    return {k: u(v) for k, v in r.msgs[0][1].items()}


def cmd_bad(_args):
    g = Genl()
    t = Tap()
    before = config(g)
    EINVAL, ERANGE = errno.EINVAL, errno.ERANGE
    bad_len = (EINVAL, ERANGE)
    cs = MRC_CMD_CONFIG_SET

    # wrong attribute sizes
    t.expect("ev_count as u32 (u16 expected) refused",
             g.mrc(cs, nla_u32(A_CONFIG_EV_COUNT, 4)), bad_len)
    t.expect("rto_min_us as u16 (u32 expected) refused",
             g.mrc(cs, nla_u16(A_CONFIG_RTO_MIN_US, 1000)), bad_len)
    t.expect("ev_policy as u32 (u8 expected) refused",
             g.mrc(cs, nla_u32(A_CONFIG_EV_POLICY, 1)), bad_len)
    t.expect("port with an empty payload refused",
             g.mrc(cs, nla(A_CONFIG_PORT, b"")), bad_len)
    t.expect("path state as u16 refused",
             g.mrc(MRC_CMD_PATH_SET, nla_u16(A_PATH_STATE, EV_DENIED) +
                   nla_u16(A_PATH_PORT_MIN, 100) +
                   nla_u16(A_PATH_PORT_MAX, 200)), bad_len)
    t.expect("peer of 20 bytes refused",
             g.mrc(MRC_CMD_PATH_SET, nla_u8(A_PATH_STATE, EV_DENIED) +
                   nla(A_PATH_PEER, b"\1" * 20) +
                   nla_u16(A_PATH_PORT_MIN, 100) +
                   nla_u16(A_PATH_PORT_MAX, 200)), bad_len)
    t.expect("peer of 8 bytes (neither IPv4 nor IPv6) refused",
             g.mrc(MRC_CMD_PATH_SET, nla_u8(A_PATH_STATE, EV_DENIED) +
                   nla(A_PATH_PEER, b"\1" * 8) +
                   nla_u16(A_PATH_PORT_MIN, 100) +
                   nla_u16(A_PATH_PORT_MAX, 200)), bad_len)
    t.expect("conn dump filter cid as u16 refused",
             g.mrc(MRC_CMD_CONN_GET, nla_u16(A_CONN_LOCAL_CID, 1),
                   dump=True), bad_len)

    # values out of range
    for name, attr, val in (("ev_count 0", A_CONFIG_EV_COUNT, nla_u16(
                                A_CONFIG_EV_COUNT, 0)),
                            ("ev_count 5000", A_CONFIG_EV_COUNT, nla_u16(
                                A_CONFIG_EV_COUNT, 5000)),
                            ("ev_spares 1025", A_CONFIG_EV_SPARES, nla_u16(
                                A_CONFIG_EV_SPARES, 1025)),
                            ("ev_policy 7", A_CONFIG_EV_POLICY, nla_u8(
                                A_CONFIG_EV_POLICY, 7)),
                            ("probe_interval_ms 0", 0, nla_u32(
                                A_CONFIG_PROBE_INTERVAL_MS, 0)),
                            ("probe_interval_ms 60001", 0, nla_u32(
                                A_CONFIG_PROBE_INTERVAL_MS, 60001)),
                            ("rto_min_us 99", 0, nla_u32(
                                A_CONFIG_RTO_MIN_US, 99)),
                            ("rto_max_us 60000001", 0, nla_u32(
                                A_CONFIG_RTO_MAX_US, 60000001)),
                            ("conn_timeout_ms 9", 0, nla_u32(
                                A_CONFIG_CONN_TIMEOUT_MS, 9)),
                            ("max_msg_size 0", 0, nla_u32(
                                A_CONFIG_MAX_MSG_SIZE, 0)),
                            ("max_msg_size 2^30+1", 0, nla_u32(
                                A_CONFIG_MAX_MSG_SIZE, (1 << 30) + 1)),
                            ("port 0", 0, nla_u16(A_CONFIG_PORT, 0)),
                            ("ev_port_min 0", 0, nla_u16(
                                A_CONFIG_EV_PORT_MIN, 0))):
        t.expect("%s refused" % name, g.mrc(cs, val), (ERANGE, EINVAL))
    if "MRC_A_CONFIG_CC" in C:
        t.expect("cc 9 refused", g.mrc(cs, nla_u8(C["MRC_A_CONFIG_CC"], 9)),
                 (ERANGE, EINVAL))
    if "MRC_A_CONFIG_ACK_COALESCE" in C:
        for v in (0, C["MRC_ACK_COALESCE_LIMIT"] + 1):
            t.expect("ack_coalesce %d refused" % v,
                     g.mrc(cs, nla_u8(C["MRC_A_CONFIG_ACK_COALESCE"], v)),
                     (ERANGE, EINVAL))
        for v in (0, C["MRC_ACK_DELAY_US_LIMIT"] + 1):
            t.expect("ack_delay_us %d refused" % v,
                     g.mrc(cs, nla_u32(C["MRC_A_CONFIG_ACK_DELAY_US"], v)),
                     (ERANGE, EINVAL))
    if "MRC_A_CONFIG_FLOWLET" in C:
        for v in (0, C["MRC_FLOWLET_LIMIT"] + 1):
            t.expect("flowlet %d refused" % v,
                     g.mrc(cs, nla_u8(C["MRC_A_CONFIG_FLOWLET"], v)),
                     (ERANGE, EINVAL))
    t.expect("path state 9 refused",
             g.mrc(MRC_CMD_PATH_SET, nla_u8(A_PATH_STATE, 9) +
                   nla_u16(A_PATH_PORT_MIN, 100) +
                   nla_u16(A_PATH_PORT_MAX, 200)), (ERANGE, EINVAL))
    t.expect("path state bad (not settable) refused",
             g.mrc(MRC_CMD_PATH_SET, nla_u8(A_PATH_STATE, EV_BAD) +
                   nla_u16(A_PATH_PORT_MIN, 100) +
                   nla_u16(A_PATH_PORT_MAX, 200)), (EINVAL,))
    t.expect("path port_min above port_max refused",
             g.mrc(MRC_CMD_PATH_SET, nla_u8(A_PATH_STATE, EV_DENIED) +
                   nla_u16(A_PATH_PORT_MIN, 300) +
                   nla_u16(A_PATH_PORT_MAX, 200)), (EINVAL,))
    t.expect("rto_min_us above rto_max_us refused",
             g.mrc(cs, nla_u32(A_CONFIG_RTO_MIN_US, 5000000) +
                   nla_u32(A_CONFIG_RTO_MAX_US, 1000)), (EINVAL,),
             text="rto_min_us is above rto_max_us")
    t.expect("ev_port_min above ev_port_max refused",
             g.mrc(cs, nla_u16(A_CONFIG_EV_PORT_MIN, 60000) +
                   nla_u16(A_CONFIG_EV_PORT_MAX, 50000)), (EINVAL,),
             text="ev_port_min is above ev_port_max")

    # unknown and unsupported attribute types
    t.expect("config attribute type 99 refused",
             g.mrc(cs, nla_u16(A_CONFIG_EV_COUNT, 4) + nla_u32(99, 1)),
             (EINVAL,))
    t.expect("config attribute type 0 refused",
             g.mrc(cs, nla_u32(0, 1)), (EINVAL,))
    t.expect("config attribute type %d (max + 1) refused" % (A_CONFIG_MAX + 1),
             g.mrc(cs, nla_u32(A_CONFIG_MAX + 1, 1)), (EINVAL,))
    t.expect("path set with a read-only attribute (sent) refused",
             g.mrc(MRC_CMD_PATH_SET, nla_u8(A_PATH_STATE, EV_DENIED) +
                   nla(A_PATH_SENT, b"\0" * 8) +
                   nla_u16(A_PATH_PORT_MIN, 100) +
                   nla_u16(A_PATH_PORT_MAX, 200)), (EINVAL,))
    t.expect("conn dump with attribute type 99 refused",
             g.mrc(MRC_CMD_CONN_GET, nla_u32(99, 1), dump=True), (EINVAL,))
    t.expect("conn dump filtering on peer_cid (unsupported) refused",
             g.mrc(MRC_CMD_CONN_GET, nla_u32(A_CONN_PEER_CID, 1),
                   dump=True), (EINVAL,))

    # missing attributes
    t.expect("path dump without cid refused",
             g.mrc(MRC_CMD_PATH_GET, dump=True), (EINVAL,))
    t.expect("path dump of an unknown cid refused",
             g.mrc(MRC_CMD_PATH_GET, nla_u32(A_PATH_CID, 0xfffffff1),
                   dump=True), (errno.ENOENT,))
    t.expect("path set without state refused",
             g.mrc(MRC_CMD_PATH_SET, nla_u16(A_PATH_PORT_MIN, 100) +
                   nla_u16(A_PATH_PORT_MAX, 200)), (EINVAL,))
    t.expect("path set with state only refused",
             g.mrc(MRC_CMD_PATH_SET, nla_u8(A_PATH_STATE, EV_DENIED)),
             (EINVAL,))
    t.expect("path set with a cid and no port refused",
             g.mrc(MRC_CMD_PATH_SET, nla_u8(A_PATH_STATE, EV_DENIED) +
                   nla_u32(A_PATH_CID, 1)), (EINVAL,))
    t.expect("path set with a cid and a range refused",
             g.mrc(MRC_CMD_PATH_SET, nla_u8(A_PATH_STATE, EV_DENIED) +
                   nla_u32(A_PATH_CID, 1) + nla_u16(A_PATH_PORT, 5) +
                   nla_u16(A_PATH_PORT_MIN, 100)), (EINVAL,))
    t.expect("config set without any setting refused",
             g.mrc(cs), (EINVAL,))

    # attributes past the end of the message, nested where not expected
    good = nla_u16(A_CONFIG_EV_COUNT, 4)
    trunc = struct.pack("=HH", 8, A_CONFIG_RTO_MIN_US) + b"\1\0"
    t.expect("attribute running past the end of the message refused",
             g.mrc(cs, good + trunc), (EINVAL,))
    t.expect("attribute header cut short refused",
             g.mrc(cs, good + b"\x08\x00"), (EINVAL,))
    t.expect("attribute length below its header refused",
             g.mrc(cs, struct.pack("=HH", 2, A_CONFIG_EV_COUNT) + b"\0\0" +
                   good), (EINVAL,))
    inner = struct.pack("=HH", 40, 1) + b"\0" * 4   # claims 40 bytes, has 8
    t.expect("nested attribute whose content runs past its end refused",
             g.mrc(MRC_CMD_PATH_SET, nla_u8(A_PATH_STATE, EV_DENIED) +
                   nla(A_PATH_PEER | NLA_F_NESTED, inner) +
                   nla_u16(A_PATH_PORT_MIN, 100) +
                   nla_u16(A_PATH_PORT_MAX, 200)), (EINVAL,))
    t.expect("nested flag on a u32 attribute refused",
             g.mrc(cs, nla(A_CONFIG_RTO_MIN_US | NLA_F_NESTED,
                           struct.pack("=I", 20000))), (EINVAL,))
    t.expect("path dump with an attribute past the end refused",
             g.mrc(MRC_CMD_PATH_GET, struct.pack("=HH", 12, A_PATH_CID) +
                   b"\0\0\0\0", dump=True), (EINVAL,))

    # nothing above may have changed a setting
    after = config(g)
    if before is not None and before == after:
        t.ok("settings unchanged by the refused requests")
    else:
        t.fail("settings unchanged by the refused requests",
               "before %s, after %s" % (before, after))
    # and good requests still work
    r = g.mrc(cs, nla_u16(A_CONFIG_EV_COUNT, before[A_CONFIG_EV_COUNT]))
    if r.error == 0:
        t.ok("a valid config set is acknowledged")
    else:
        t.fail("a valid config set is acknowledged", "error %s" % r.error)
    r = g.mrc(MRC_CMD_CONN_GET, dump=True)
    if r.error == 0 and r.done:
        t.ok("a valid conn dump ends with DONE")
    else:
        t.fail("a valid conn dump ends with DONE",
               "error %s done %s" % (r.error, r.done))
    return 1 if t.failed else 0


# ------------------------------------------------------------------ fuzz

def fuzz_payload(rnd, cids):
    """A payload: mostly of a size some policy uses, with edge values."""
    size = rnd.choice([0, 1, 2, 3, 4, 4, 4, 2, 2, 1, 5, 6, 8, 8, 16, 16,
                       17, rnd.randrange(0, 300)])
    kind = rnd.randrange(6)
    if size in (1, 2, 4, 8) and kind < 4:
        top = (1 << (8 * size)) - 1
        v = rnd.choice([0, 1, 2, 3, 4, 7, 100, 1024, 1025, 4797, 49152,
                        65535, 65536, top, top - 1, top >> 1,
                        rnd.randrange(top + 1)] +
                       ([rnd.choice(cids)] if cids else []))
        return (v & top).to_bytes(size, sys.byteorder)
    if size == 4 and kind == 4:
        return bytes([127, 0, 0, 1])
    return bytes(rnd.randrange(256) for _ in range(size))


def fuzz_attrs(rnd, cmd, cids):
    out = b""
    known = list(POLICY.get(cmd, {}).items())
    for _ in range(rnd.choice([0, 1, 1, 2, 2, 3, 4, 6, 12])):
        pick = rnd.randrange(10)
        if known and pick < 6:
            atype, size = rnd.choice(known)
            if size == BIN:
                payload = rnd.choice([b"\x0a\x00\x01\x02", b"\x7f\0\0\1",
                                      bytes(16), b"\xfd" + bytes(15)]) \
                    if rnd.randrange(3) else fuzz_payload(rnd, cids)
            elif rnd.randrange(4):
                top = (1 << (8 * size)) - 1
                v = rnd.choice([0, 1, 2, 3, 4, top, top - 1,
                                rnd.randrange(top + 1)] +
                               ([rnd.choice(cids)] if cids else []))
                payload = (v & top).to_bytes(size, sys.byteorder)
            else:
                payload = fuzz_payload(rnd, cids)
        else:
            atype = rnd.choice([0, rnd.randrange(40), rnd.randrange(1 << 14),
                                MAXATTR.get(cmd, 0) + 1])
            payload = fuzz_payload(rnd, cids)
        if not rnd.randrange(12):
            atype |= rnd.choice([NLA_F_NESTED, NLA_F_NET_BYTEORDER])
        if not rnd.randrange(15) and len(payload) >= 4:
            payload = nla(rnd.randrange(20), payload[:-4])   # nested inside
        a = nla(atype & 0xffff, payload)
        if not rnd.randrange(25):    # lie about the length
            a = struct.pack("=H", rnd.choice([0, 1, 3, 5, len(a) + 4,
                                              rnd.randrange(65536)])) + a[2:]
        out += a
    if not rnd.randrange(20):        # cut the last attribute short
        out = out[:max(0, len(out) - rnd.randrange(1, 8))]
    return out


def fuzz_message(rnd, family, seq, cids):
    cmd = rnd.choice([MRC_CMD_CONFIG_GET, MRC_CMD_CONFIG_SET,
                      MRC_CMD_STATS_GET, MRC_CMD_CONN_GET, MRC_CMD_PATH_GET,
                      MRC_CMD_PATH_SET] * 4 +
                     [0, MRC_CMD_CONN_EVENT, MRC_CMD_PATH_EVENT,
                      MRC_CMD_LAST + 1, rnd.randrange(256)])
    flags = NLM_F_REQUEST
    if rnd.randrange(2):
        flags |= NLM_F_DUMP if rnd.randrange(3) else rnd.choice(
            [NLM_F_ROOT, NLM_F_MATCH])
    elif cmd in DUMP_CMDS and rnd.randrange(3):
        flags |= NLM_F_DUMP
    if rnd.randrange(2):
        flags |= NLM_F_ACK
    if not rnd.randrange(8):
        flags |= rnd.choice([NLM_F_ECHO, NLM_F_ATOMIC, NLM_F_MULTI, 0x800,
                             0x1000, rnd.randrange(1 << 16)])
    if not rnd.randrange(30):
        flags &= ~NLM_F_REQUEST
    version = rnd.choice([1] * 8 + [0, 2, 255])
    attrs = fuzz_attrs(rnd, cmd, cids)
    msg = Genl.build(family, flags & 0xffff, seq, cmd, attrs, version)
    shape = rnd.randrange(40)
    if shape == 0:                  # genl header cut short
        msg = msg[:16 + rnd.randrange(4)]
        msg = struct.pack("=I", len(msg)) + msg[4:]
    elif shape == 1:                # nlmsg_len beyond the datagram
        msg = struct.pack("=I", len(msg) + rnd.randrange(1, 64)) + msg[4:]
    elif shape == 2:                # nlmsg_len short of the attributes
        msg = struct.pack("=I", max(16, len(msg) - rnd.randrange(1, 9))) + \
            msg[4:]
    elif shape == 3:                # trailing garbage after the message
        msg += bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 24)))
    return cmd, flags, msg


def cmd_fuzz(args):
    seed = args.seed if args.seed is not None else \
        int.from_bytes(os.urandom(4), "little")
    print("# seed %d (rerun: mrc_nlfuzz.py fuzz -n %d -s %d)" %
          (seed, args.count, seed), flush=True)
    rnd = random.Random(seed)
    g = Genl(timeout=5.0)
    fuzz = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    fuzz.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    fuzz.bind((0, 0))
    fuzz.setblocking(False)
    per_cmd = {}
    errors = {}
    start = time.monotonic()
    sent = 0
    for i in range(args.count):
        if args.time and time.monotonic() - start > args.time:
            break
        cmd, flags, msg = fuzz_message(rnd, g.family, i + 1, args.cid)
        per_cmd[cmd] = per_cmd.get(cmd, 0) + 1
        try:
            fuzz.send(msg)
            sent += 1
        except OSError as e:
            errors[e.errno] = errors.get(e.errno, 0) + 1
        # read what came back (a dump continues as it is read)
        while True:
            try:
                data = fuzz.recv(1 << 16)
            except BlockingIOError:
                break
            except OSError as e:
                errors[e.errno] = errors.get(e.errno, 0) + 1
                break
            if len(data) >= 20 and struct.unpack_from("=H", data, 4)[0] \
                    == NLMSG_ERROR:
                e = -struct.unpack_from("=i", data, 16)[0]
                errors[e] = errors.get(e, 0) + 1
        # the kernel still answers
        if i % 50 == 0 or flags & NLM_F_DUMP:
            r = g.mrc(MRC_CMD_CONFIG_GET)
            if r.error != 0 or not r.msgs:
                print("# message %d (cmd %d flags %#x, %s): CONFIG_GET then"
                      " answered %s" % (i, cmd, flags, msg.hex(), r.error))
                return 1
    dt = time.monotonic() - start
    r = g.mrc(MRC_CMD_CONFIG_GET)
    print("# %d messages sent in %.1f s; per command %s; answers by errno %s"
          % (sent, dt, dict(sorted(per_cmd.items())),
             {errno.errorcode.get(k, k): v for k, v in
              sorted(errors.items())}))
    if r.error != 0 or not r.msgs:
        print("# CONFIG_GET after the run answered %s" % r.error)
        return 1
    print("fuzzed %d" % sent)
    return 0


# ---------------------------------------------------------------- listen

def event_json(cmd, attrs):
    if cmd == MRC_CMD_CONN_EVENT:
        ev = u(attrs.get(A_CONN_EVENT, b"\xff"))
        err = attrs.get(A_CONN_ERROR)
        return {"event": "conn",
                "what": CONN_EVENTS.get(ev, ev),
                "local_cid": u(attrs.get(A_CONN_LOCAL_CID, b"\0\0\0\0")),
                "peer_cid": u(attrs.get(A_CONN_PEER_CID, b"\0\0\0\0")),
                "error": u(err) if err else None}
    if cmd == MRC_CMD_PATH_EVENT:
        def word(names, key):
            v = u(attrs.get(key, b"\xff"))
            return names.get(v, v)
        return {"event": "path",
                "cid": u(attrs.get(A_PATH_CID, b"\0\0\0\0")),
                "port": u(attrs.get(A_PATH_PORT, b"\0\0")),
                "state": word(EV_STATES, A_PATH_STATE),
                "old_state": word(EV_STATES, A_PATH_OLD_STATE),
                "cause": word(PATH_CAUSES, A_PATH_CAUSE)}
    return {"event": "unknown", "cmd": cmd}


def cmd_listen(args):
    g = Genl()
    if "events" not in g.groups:
        print("# no multicast group 'events' in %s" % g.groups, flush=True)
        return 1
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    s.bind((0, 0))
    s.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, g.groups["events"])
    s.settimeout(0.5)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    print("# listening (family %d, group events = %d)" %
          (g.family, g.groups["events"]), flush=True)
    start = time.monotonic()
    while not stop and not (args.time and
                            time.monotonic() - start > args.time):
        try:
            data = s.recv(1 << 16)
        except socket.timeout:
            continue
        except InterruptedError:
            continue
        except OSError as e:
            if e.errno == errno.ENOBUFS:
                print(json.dumps({"event": "lost"}), flush=True)
                continue
            raise
        off = 0
        while off + 20 <= len(data):
            nlen, ntype = struct.unpack_from("=IH", data, off)
            if nlen < 20:
                break
            if ntype == g.family:
                body = data[off + 16:off + nlen]
                print(json.dumps(event_json(body[0], parse_attrs(body[4:]))),
                      flush=True)
            off += (nlen + 3) & ~3
    return 0


# ------------------------------------------------------------- dumppause

def dump_part(g, seq, size):
    """One recv of a dump: (cids, finished)."""
    data = g.sock.recv(size)
    cids, finished, off = [], False, 0
    while off + 16 <= len(data):
        nlen, ntype, _, nseq, _ = struct.unpack_from("=IHHII", data, off)
        if nlen < 16:
            break
        body = data[off + 16:off + nlen]
        off += (nlen + 3) & ~3
        if nseq != seq:
            continue
        if ntype in (NLMSG_DONE, NLMSG_ERROR):
            finished = True
        elif ntype == g.family:
            cids.append(u(parse_attrs(body[4:]).get(A_CONN_LOCAL_CID,
                                                   b"\0\0\0\0")))
    return cids, finished


def cmd_dumppause(args):
    g = Genl(timeout=10.0)
    seq = g.next_seq()
    g.sock.send(g.build(g.family, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP,
                        seq, MRC_CMD_CONN_GET, b""))
    # the kernel's parts are at most 32 KiB; a smaller buffer would
    # truncate them (their size follows the reader's buffer)
    cids, done = dump_part(g, seq, 1 << 16)
    parts = 1
    print("paused %d" % len(cids), flush=True)
    sys.stdin.readline()
    while not done:
        more, done = dump_part(g, seq, 1 << 16)
        cids += more
        parts += 1
    print(json.dumps({"parts": parts, "cids": cids, "done": done}),
          flush=True)
    return 0


# ---------------------------------------------------------------- userns

def cmd_flip(args):
    g = Genl()
    ranges = [(args.min1, args.max1), (args.min2, args.max2)]
    end = time.monotonic() + args.time
    flips = refused = 0
    first = None
    while time.monotonic() < end and not (args.stop and
                                          os.path.exists(args.stop)):
        lo, hi = ranges[flips % 2]
        r = g.mrc(MRC_CMD_CONFIG_SET, nla_u16(A_CONFIG_EV_PORT_MIN, lo) +
                  nla_u16(A_CONFIG_EV_PORT_MAX, hi))
        flips += 1
        if r.error != 0:
            refused += 1
            if first is None:
                first = "error %s (%s) setting %d-%d" % (r.error, r.extack,
                                                         lo, hi)
    print("flips %d refused %d" % (flips, refused))
    if first:
        print("# " + first)
    return 1 if refused else 0


def cmd_userns(_args):
    t = Tap()
    uid, gid = os.getuid(), os.getgid()
    old = Genl()
    before = config(old)
    libc = ctypes.CDLL(None, use_errno=True)
    CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET):
        e = ctypes.get_errno()
        t.fail("unshare(CLONE_NEWUSER | CLONE_NEWNET) as uid %d" % uid,
               os.strerror(e))
        return 1
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write("0 %d 1" % uid)
    with open("/proc/self/gid_map", "w") as f:
        f.write("0 %d 1" % gid)
    t.ok("unprivileged uid %d became root of a new user and network "
         "namespace" % uid)

    new = Genl()
    ev = 7 if before and before.get(A_CONFIG_EV_COUNT) != 7 else 9
    r = new.mrc(MRC_CMD_CONFIG_SET, nla_u16(A_CONFIG_EV_COUNT, ev))
    if r.error == 0:
        t.ok("root of the user namespace changes its own netns' ev_count")
    else:
        t.fail("root of the user namespace changes its own netns' ev_count",
               "error %s (%s)" % (r.error, r.extack))
    mine = config(new)
    got = mine.get(A_CONFIG_EV_COUNT) if mine else None
    if got == ev:
        t.ok("its netns shows ev_count %d" % ev)
    else:
        t.fail("its netns shows ev_count %d" % ev, "saw %s" % got)

    r = old.mrc(MRC_CMD_CONFIG_SET, nla_u16(A_CONFIG_EV_COUNT, ev))
    if r.error == errno.EPERM:
        t.ok("through a socket of the netns it came from: EPERM")
    else:
        t.fail("through a socket of the netns it came from: EPERM",
               "error %s (%s)" % (r.error, r.extack))
    r = old.mrc(MRC_CMD_PATH_SET, nla_u8(A_PATH_STATE, EV_DENIED) +
                nla_u16(A_PATH_PORT_MIN, 100) + nla_u16(A_PATH_PORT_MAX, 200))
    if r.error == errno.EPERM:
        t.ok("path deny in the netns it came from: EPERM")
    else:
        t.fail("path deny in the netns it came from: EPERM",
               "error %s (%s)" % (r.error, r.extack))
    after = config(old)
    if after is not None and after == before:
        t.ok("the netns it came from can still be read and is unchanged")
    else:
        t.fail("the netns it came from can still be read and is unchanged",
               "before %s, after %s" % (before, after))
    return 1 if t.failed else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    sub.add_parser("bad")
    f = sub.add_parser("fuzz")
    f.add_argument("-n", "--count", type=int, default=10000)
    f.add_argument("-s", "--seed", type=int)
    f.add_argument("-c", "--cid", type=int, action="append", default=[])
    f.add_argument("-t", "--time", type=float, default=0)
    ls = sub.add_parser("listen")
    ls.add_argument("-t", "--time", type=float, default=0)
    fl = sub.add_parser("flip")
    fl.add_argument("-t", "--time", type=float, default=20)
    fl.add_argument("-f", "--stop")
    for a in ("min1", "max1", "min2", "max2"):
        fl.add_argument(a, type=int)
    sub.add_parser("userns")
    sub.add_parser("dumppause")
    args = p.parse_args()
    return {"bad": cmd_bad, "fuzz": cmd_fuzz, "listen": cmd_listen,
            "flip": cmd_flip, "userns": cmd_userns,
            "dumppause": cmd_dumppause}[args.what](args)


if __name__ == "__main__":
    sys.exit(main())
