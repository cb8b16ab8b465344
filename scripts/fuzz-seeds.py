#!/usr/bin/env python3
"""Cut the capture-derived seeds of the Jazzer fuzz targets from testdata/captures/.

Run from the checkout root:

    python3 scripts/fuzz-seeds.py

It reads the classic pcap files in testdata/captures/ (Ethernet, IPv4, TCP; the connections are
whole, see testdata/captures/README.md), puts each TCP direction back together by sequence
number, follows MPA (startup frame, then FPDUs; siw sends no markers), DDP, RDMAP, RPC-over-RDMA
and ONC RPC (Reply chunks and Write chunks put together from the RDMA Writes that fill them), and
writes, for every fuzz target, inputs in that target's layout (each target's javadoc describes it)
into <module>/src/test/resources/<package>/fuzz/<Target>Inputs/fuzz/. The NFSv4.2 capture feeds
only the targets of NFSv4 replies (the client's COMPOUND replies, the back channel's).

It writes and deletes only files whose name starts with "capture-": the hand-made inputs, the RFC
vectors and any crash-*/timeout-* regression input next to them are left alone. Every run first
removes the capture-* files of each directory it writes, so a seed that is no longer cut goes
away. The output depends only on the captures: run it again after re-recording them
(scripts/record-captures.sh) and commit the result. Python 3 standard library only.
"""

import os
import struct
import sys

CAPTURES = "testdata/captures"
MAX_STREAM = 4096     # octets of one stream seed (cut at an FPDU/ULPDU boundary)
MAX_ULPDU = 2048      # larger single ULPDUs are not used as seeds of their own

# Files whose connections are used, and the name each seed starts with.
FILES = ["rping-siw", "rping-siw-crc", "ib_write_bw-siw", "ib_read_bw-siw", "ib_send_bw-siw",
         "nfs3-rdma-siw"]

TARGETS = {
    "MpaStartupResponderFuzzTarget": "mpa/src/test/resources/org/iwarp4j/mpa/fuzz",
    "MpaStartupInitiatorFuzzTarget": "mpa/src/test/resources/org/iwarp4j/mpa/fuzz",
    "MpaFrameDecoderFuzzTarget": "mpa/src/test/resources/org/iwarp4j/mpa/fuzz",
    "MpaFrameRoundTripFuzzTarget": "mpa/src/test/resources/org/iwarp4j/mpa/fuzz",
    "DdpSegmentFuzzTarget": "ddp/src/test/resources/org/iwarp4j/ddp/fuzz",
    "DdpReceiverFuzzTarget": "ddp/src/test/resources/org/iwarp4j/ddp/fuzz",
    "RdmapWireFuzzTarget": "rdmap/src/test/resources/org/iwarp4j/rdmap/fuzz",
    "QueuePairReceiveFuzzTarget": "rdmap/src/test/resources/org/iwarp4j/rdmap/fuzz",
    "RecordMarkingFuzzTarget": "oncrpc/src/test/resources/org/iwarp4j/oncrpc/fuzz",
    "RpcCallHeaderFuzzTarget": "oncrpc/src/test/resources/org/iwarp4j/oncrpc/fuzz",
    "RpcDispatcherFuzzTarget": "oncrpc/src/test/resources/org/iwarp4j/oncrpc/fuzz",
    "RpcRdmaHeaderFuzzTarget": "rpcrdma/src/test/resources/org/iwarp4j/rpcrdma/fuzz",
    "Nfs3ArgumentsFuzzTarget": "nfs-ulb/src/test/resources/org/iwarp4j/nfs/fuzz",
    "RpcClientReplyFuzzTarget": "oncrpc/src/test/resources/org/iwarp4j/oncrpc/fuzz",
    "Nfs3ResultsFuzzTarget": "nfs-ulb/src/test/resources/org/iwarp4j/nfs/fuzz",
    "Nfs4CompoundReplyFuzzTarget": "nfs-ulb/src/test/resources/org/iwarp4j/nfs/fuzz",
    "Nfs4CallbackReplyFuzzTarget": "nfs-ulb/src/test/resources/org/iwarp4j/nfs/fuzz",
}

# The NFSv4.2 capture: used only for the NFSv4 COMPOUND and back channel replies.
NFS4_FILE = "nfs4-rdma-siw"
MAX_DATA_ITEM = 1024  # READ data (a Write chunk) is cut to this in reply seeds

OPCODES = {0: "write", 1: "read-request", 2: "read-response", 3: "send", 4: "send-inv",
           5: "send-se", 6: "send-se-inv", 7: "terminate"}
NFS3_PROCS = ["null", "getattr", "setattr", "lookup", "access", "readlink", "read", "write",
              "create", "mkdir", "symlink", "mknod", "remove", "rmdir", "rename", "link",
              "readdir", "readdirplus", "fsstat", "fsinfo", "pathconf", "commit"]
NFS4_OPS = {3: "access", 4: "close", 5: "commit", 8: "delegreturn", 9: "getattr", 10: "getfh", 15: "lookup",
            18: "open", 22: "putfh", 24: "putrootfh", 25: "read", 26: "readdir", 27: "readlink", 28: "remove",
            34: "setattr", 38: "write", 42: "exchange-id", 43: "create-session", 44: "destroy-session",
            52: "secinfo-no-name", 53: "sequence", 57: "destroy-clientid", 58: "reclaim-complete"}


# ---------------------------------------------------------------- pcap, TCP

def packets(path):
    """(src, sport, dst, dport, seq, tcp flags, payload) of every IPv4/TCP frame."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic == 0xA1B2C3D4:
        endian = "<"
    elif magic == 0xD4C3B2A1:
        endian = ">"
    else:
        sys.exit(f"{path}: not a classic microsecond pcap file")
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    if linktype != 1:
        sys.exit(f"{path}: link type {linktype}, expected Ethernet (1)")
    at = 24
    while at + 16 <= len(data):
        incl, orig = struct.unpack(endian + "II", data[at + 8:at + 16])
        frame = data[at + 16:at + 16 + incl]
        at += 16 + incl
        if incl != orig:
            sys.exit(f"{path}: a frame was cut by the snap length")
        if len(frame) < 14 or frame[12:14] != b"\x08\x00":
            continue
        ip = frame[14:]
        ihl = (ip[0] & 0x0F) * 4
        total = struct.unpack(">H", ip[2:4])[0]
        if ip[9] != 6:
            continue
        tcp = ip[ihl:total]
        sport, dport, seq = struct.unpack(">HHI", tcp[:8])
        offset = (tcp[12] >> 4) * 4
        yield ip[12:16], sport, ip[16:20], dport, seq, tcp[13], bytes(tcp[offset:])


def connections(path):
    """[(client port, client-to-server octets, server-to-client octets)] in SYN order."""
    conns = {}
    order = []
    for src, sport, dst, dport, seq, flags, payload in packets(path):
        a, b = (src, sport), (dst, dport)
        key = (min(a, b), max(a, b))
        if flags & 0x02:  # SYN: its sequence number is the direction's ISN
            conn = conns.setdefault(key, {})
            if not flags & 0x10:
                conn["client"] = a
                order.append(key)
            conn.setdefault("isn", {})[a] = seq
            continue
        if not payload:
            continue
        conn = conns[key]
        rel = (seq - conn["isn"][a] - 1) & 0xFFFFFFFF
        conn.setdefault("seg", {}).setdefault(a, {})[rel] = payload
    result = []
    for key in order:
        conn = conns[key]
        client = conn["client"]
        server = key[0] if key[1] == client else key[1]
        dirs = []
        for side in (client, server):
            out = bytearray()
            for rel, payload in sorted(conn.get("seg", {}).get(side, {}).items()):
                if rel > len(out):
                    sys.exit(f"{path}: {len(out)} octets then a gap in a TCP direction")
                out[rel:rel + len(payload)] = payload
            dirs.append(bytes(out))
        result.append((client[1], dirs[0], dirs[1]))
    return result


# ---------------------------------------------------------------- MPA, DDP, RDMAP

def startup_frame(stream):
    """Length of the MPA Request/Reply frame at the start of a direction (RFC 5044 §7.1)."""
    return 20 + struct.unpack(">H", stream[18:20])[0]


def fpdus(stream, at):
    """[(fpdu octets, ulpdu octets)] from offset at (no markers: siw never sends them)."""
    out = []
    while at + 2 <= len(stream):
        n = struct.unpack(">H", stream[at:at + 2])[0]
        end = at + 2 + n + (-(2 + n) % 4) + 4
        if end > len(stream):
            break
        out.append((stream[at:end], stream[at + 2:at + 2 + n]))
        at = end
    return out


def crc32c(octets, table=[]):
    if not table:
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
            table.append(c)
    c = 0xFFFFFFFF
    for x in octets:
        c = table[(c ^ x) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def check_crc(path, frames):
    """Every FPDU of a CRC connection carries the CRC32c of its other octets (RFC 5044 §6.5):
    a check that the streams were put together and cut into FPDUs right."""
    for fpdu, _ in frames:
        if struct.pack("<I", crc32c(fpdu[:-4])) != fpdu[-4:]:
            sys.exit(f"{path}: an FPDU whose CRC does not match: reassembly or framing is wrong")


def opcode(ulpdu):
    return ulpdu[1] & 0x0F


def tagged(ulpdu):
    return ulpdu[0] & 0x80 != 0


def messages(ulpdus, queue=0):
    """Untagged messages of one queue, put together by MSN and MO (RFC 5041 §5.3)."""
    parts = {}
    done = []
    for u in ulpdus:
        if tagged(u) or len(u) < 18:
            continue
        qn, msn, mo = struct.unpack(">III", u[6:18])  # after the RsvdULP field (RFC 5041 §4.4)
        if qn != queue:
            continue
        parts.setdefault(msn, {})[mo] = u[18:]
        if u[0] & 0x40:
            msg = bytearray()
            for off, payload in sorted(parts.pop(msn).items()):
                msg[off:off + len(payload)] = payload
            done.append((msn, bytes(msg)))
    return [m for _, m in sorted(done)]


# ---------------------------------------------------------------- RPC-over-RDMA, ONC RPC

def u32(b, at):
    return struct.unpack(">I", b[at:at + 4])[0]


def rpcrdma_header_length(msg):
    """Octets of an RDMA_MSG/RDMA_NOMSG header with its three chunk lists (RFC 8166 §4)."""
    at = 16
    while u32(msg, at):            # read list: position, handle, length, offset
        at += 4 + 4 + 16
    at += 4
    while u32(msg, at):            # write list: arrays of segments
        at += 8 + 16 * u32(msg, at + 4)
    at += 4
    if u32(msg, at):               # reply chunk
        return at + 8 + 16 * u32(msg, at + 4)
    return at + 4


def opaque_end(b, at):
    return at + 4 + ((u32(b, at) + 3) & ~3)


def call_arguments(rpc):
    """Offset of the arguments of an RPC call (RFC 5531 §9): after the credential and verifier."""
    return opaque_end(rpc, opaque_end(rpc, 24 + 4) + 4)


def write_chunks(msg):
    """The Write list (a list of segment lists) and the Reply chunk (a segment list or None) of an
    RPC-over-RDMA header (RFC 8166 §4.3): segments (handle, length, offset)."""
    at = 16
    while u32(msg, at):
        at += 4 + 4 + 16
    at += 4
    writes = []
    while u32(msg, at):
        n = u32(msg, at + 4)
        writes.append([struct.unpack(">IIQ", msg[at + 8 + 16 * i:at + 24 + 16 * i]) for i in range(n)])
        at += 8 + 16 * n
    at += 4
    reply = None
    if u32(msg, at):
        n = u32(msg, at + 4)
        reply = [struct.unpack(">IIQ", msg[at + 8 + 16 * i:at + 24 + 16 * i]) for i in range(n)]
    return writes, reply


def rdma_writes(ulpdus):
    """What the RDMA Writes of a direction put into each STag: {stag: {tagged offset: octets}}
    (RFC 5041 §4.3: the tagged buffer header is 14 octets)."""
    memory = {}
    for u in ulpdus:
        if tagged(u) and opcode(u) == 0:
            stag, to = struct.unpack(">IQ", u[2:14])
            memory.setdefault(stag, {})[to] = u[14:]
    return memory


def gather(memory, segments):
    """The octets the Responder wrote into these segments (their lengths are what it wrote)."""
    out = b""
    for handle, length, offset in segments:
        buf = bytearray()
        for to, payload in sorted(memory.get(handle, {}).items()):
            if to >= offset:
                buf[to - offset:to - offset + len(payload)] = payload
        if len(buf) < length:
            sys.exit(f"a segment of {length} octets with {len(buf)} written")
        out += bytes(buf[:length])
    return out


def replies(frames, from_server=True):
    """[(RPC reply, [reduced data items])] of the Sends of a direction: an RDMA_MSG reply inline (its
    Write chunks' data as items); from the server also an RDMA_NOMSG reply, from its Reply chunk."""
    ulpdus = [u for _, u in frames]
    memory = rdma_writes(ulpdus)
    out = []
    for msg in messages(ulpdus):
        if len(msg) < 28:
            continue
        writes, reply = write_chunks(msg)
        if u32(msg, 12) == 0:
            rpc = msg[rpcrdma_header_length(msg):]
            if len(rpc) >= 8 and u32(rpc, 4) == 1:
                out.append((rpc, [gather(memory, w) for w in writes]))
        elif u32(msg, 12) == 1 and reply and from_server:
            out.append((gather(memory, reply), [gather(memory, w) for w in writes]))
    return out


def reply_results(rpc):
    """Offset of the results of an accepted SUCCESS reply (RFC 5531 §9), or None for another reply."""
    if len(rpc) < 24 or u32(rpc, 4) != 1 or u32(rpc, 8) != 0:
        return None
    at = opaque_end(rpc, 16)
    return at + 4 if len(rpc) >= at + 4 and u32(rpc, at) == 0 else None


def cut_data_item(stream, length_at, item, count_at=None):
    """A reduced reply whose data item is cut to MAX_DATA_ITEM: its length word (and count) made to match."""
    if u32(stream, length_at) != len(item):
        sys.exit("a reduced data item whose length word does not match it")
    cut = item[:MAX_DATA_ITEM]
    stream = bytearray(stream)
    for at in (length_at,) if count_at is None else (length_at, count_at):
        stream[at:at + 4] = struct.pack(">I", len(cut))
    return bytes(stream), cut


def compound_results(res, reduced):
    """[(opcode, offset of its result body)] of a COMPOUND4res (RFC 8881 §16.2.2) whose every
    operation is one the NFSv4 client sends or Linux's client sent in the capture, or None if one is
    not or the octets do not end with the last result. A reduced READ has only its length word."""
    def opaque(at):
        return opaque_end(res, at)

    def bitmap(at):
        return at + 4 + 4 * u32(res, at)

    def fattr(at):
        return opaque(bitmap(at))

    at = opaque(4)
    ops = []
    count = u32(res, at)
    at += 4
    for _ in range(count):
        op, status = u32(res, at), u32(res, at + 4)
        at += 8
        ops.append((op, at))
        if status != 0:
            at = bitmap(at) if op == 34 else at   # SETATTR4res has attrsset in both arms
            break
        if op in (8, 15, 22, 24, 44, 57, 58):
            pass
        elif op in (3, 5):                        # ACCESS: supported, access; COMMIT: verifier
            at += 8
        elif op in (4, 38):                       # CLOSE: stateid; WRITE: count, committed, verifier
            at += 16
        elif op == 9:
            at = fattr(at)
        elif op == 10:
            at = opaque(at)
        elif op == 25:                            # READ: eof, data
            at = at + 8 if reduced else opaque(at + 4)
        elif op == 26:                            # READDIR: verifier, entries, eof
            at += 8
            while u32(res, at):
                at = fattr(opaque(at + 12))
            at += 8
        elif op == 34:
            at = bitmap(at)
        elif op == 18:                            # OPEN: stateid, change_info4, rflags, attrset, delegation
            at = bitmap(at + 16 + 20 + 4)
            kind = u32(res, at)
            at += 4
            if kind in (1, 2):
                at += 16 + 4 + (12 if kind == 2 else 0)
                at = opaque(at + 12)
            elif kind == 3:
                at += 4 + (4 if u32(res, at) in (1, 2) else 0)
        elif op == 42:                            # EXCHANGE_ID
            at = opaque(opaque(at + 8 + 4 + 4 + 4 + 8))
            impl = u32(res, at)
            at += 4
            for _ in range(impl):
                at = opaque(opaque(at)) + 12
        elif op == 43:                            # CREATE_SESSION: id, sequence, flags, two channel_attrs4
            at += 24
            for _ in range(2):
                at += 24
                at += 4 + 4 * u32(res, at)
        elif op == 52:                            # SECINFO_NO_NAME
            flavors = u32(res, at)
            at += 4
            for _ in range(flavors):
                at += 4
                if u32(res, at - 4) == 6:         # RPCSEC_GSS: oid, qop, service
                    at = opaque(at) + 8
        elif op == 53:
            at += 16 + 20
        else:
            return None
    return ops if at == len(res) else None


# ---------------------------------------------------------------- output

class Seeds:
    def __init__(self):
        self.files = {t: {} for t in TARGETS}

    def add(self, target, name, octets):
        name = "capture-" + name
        if name in self.files[target]:
            sys.exit(f"{target}: two seeds named {name}")
        self.files[target][name] = bytes(octets)

    def write(self):
        for target, seeds in self.files.items():
            folder = os.path.join(TARGETS[target], target + "Inputs", "fuzz")
            os.makedirs(folder, exist_ok=True)
            for old in os.listdir(folder):
                if old.startswith("capture-"):
                    os.remove(os.path.join(folder, old))
            for name, octets in sorted(seeds.items()):
                with open(os.path.join(folder, name), "wb") as f:
                    f.write(octets)
            print(f"{target}: {len(seeds)} capture seeds, {sum(map(len, seeds.values()))} octets")


def bounded(items, limit=MAX_STREAM):
    """The longest prefix of items whose octets stay within limit (at least one item)."""
    out, size = [], 0
    for it in items:
        if out and size + len(it) > limit:
            break
        out.append(it)
        size += len(it)
    return out


def length_prefixed(ulpdus):
    """ULPDUs in the two-octet-length layout of the DDP receiver and queue pair targets."""
    return b"".join(struct.pack(">H", len(u)) + u for u in bounded(ulpdus, MAX_STREAM))


def main():
    if not os.path.isdir(CAPTURES):
        sys.exit("run from the checkout root: " + CAPTURES + " not found")
    seeds = Seeds()
    for file in FILES:
        conns = connections(os.path.join(CAPTURES, file + ".pcap"))
        crc = file.endswith("-crc")
        for index, (_, c2s, s2c) in enumerate(conns):
            base = file if len(conns) == 1 else f"{file}-s{index}"
            per_dir = {}
            for dname, stream in (("c2s", c2s), ("s2c", s2c)):
                frame_len = startup_frame(stream)
                frames = fpdus(stream, frame_len)
                per_dir[dname] = (stream, frame_len, frames)
                if crc:
                    check_crc(file, frames)
                if sum(len(f) for f, _ in frames) + frame_len != len(stream):
                    sys.exit(f"{file}: {dname} of connection {index} is not a startup frame and whole FPDUs")
                ulpdus = [u for _, u in frames]
                fpdu_bytes = b"".join(bounded([f for f, _ in frames]))
                startup = stream[:frame_len] + b"".join(bounded([f for f, _ in frames], MAX_STREAM - frame_len))

                # MPA startup: octet 0 our settings (bits 2-3 CRC mode: 1 ACCEPT, 2 REQUIRE),
                # octet 1 the chunking seed, then the peer's stream.
                target = "MpaStartupResponderFuzzTarget" if dname == "c2s" else "MpaStartupInitiatorFuzzTarget"
                seeds.add(target, f"{base}-startup-{dname}", b"\x00\x00" + startup)
                seeds.add(target, f"{base}-startup-{dname}-crc-accept-chunked", b"\x04\x05" + startup)
                if file.startswith("rping"):
                    seeds.add(target, f"{base}-startup-{dname}-crc-require", b"\x08\x00" + startup)
                    if dname == "c2s":
                        seeds.add(target, f"{base}-startup-{dname}-reject", b"\x40\x00" + startup)

                if not frames:
                    continue   # a direction that carried nothing after its startup frame

                # FPDU decoder: octet 0 bit 1 CRC, bit 2 a 1000-octet receive maximum; octet 1 chunking.
                if file.startswith("rping") or file == "nfs3-rdma-siw":
                    flag = 0x02 if crc else 0x00
                    seeds.add("MpaFrameDecoderFuzzTarget", f"{base}-fpdus-{dname}", bytes([flag, 0]) + fpdu_bytes)
                    seeds.add("MpaFrameDecoderFuzzTarget", f"{base}-fpdus-{dname}-chunked", bytes([flag, 3]) + fpdu_bytes)
                    if not crc:
                        # siw's zero CRC fields checked as if CRC had been negotiated: a CRC error.
                        seeds.add("MpaFrameDecoderFuzzTarget", f"{base}-fpdus-{dname}-crc-expected",
                                  b"\x02\x00" + fpdu_bytes)
                    if file == "nfs3-rdma-siw":
                        seeds.add("MpaFrameDecoderFuzzTarget", f"{base}-fpdus-{dname}-max-1000",
                                  bytes([flag | 0x04, 0]) + fpdu_bytes)

                # Round trip: ULPDUs as (length - 1) in 11 bits, then the octets.
                if file.startswith("rping"):
                    small = [u for u in ulpdus if 0 < len(u) <= 2048]
                    body = b"".join(struct.pack(">H", len(u) - 1) + u for u in bounded(small, 2048))
                    seeds.add("MpaFrameRoundTripFuzzTarget", f"{base}-ulpdus-{dname}",
                              bytes([0x02 if crc else 0x00, 0]) + body)

                # DDP segments: the first two ULPDUs of every RDMAP opcode in this direction.
                seen = {}
                for u in ulpdus:
                    if len(u) > MAX_ULPDU:
                        continue
                    op = OPCODES.get(opcode(u), f"opcode-{opcode(u)}")
                    n = seen.get(op, 0)
                    if n < 2 and (file.startswith("rping") or file == "nfs3-rdma-siw" or n == 0):
                        seeds.add("DdpSegmentFuzzTarget", f"{base}-{dname}-{op}-{n}", u)
                    seen[op] = n + 1

                # ULPDU sequences for the DDP receiver and the queue pair's receive path.
                seeds.add("DdpReceiverFuzzTarget", f"{base}-ulpdus-{dname}", length_prefixed(ulpdus))
                seeds.add("QueuePairReceiveFuzzTarget", f"{base}-ulpdus-{dname}", length_prefixed(ulpdus))
                untagged = [u for u in ulpdus if not tagged(u)]
                if file.startswith("rping") and untagged:
                    seeds.add("DdpReceiverFuzzTarget", f"{base}-ulpdus-{dname}-untagged", length_prefixed(untagged))

                # RDMAP wire: selector 2 = the control octets and QN of real ULPDUs, one per opcode.
                controls = {}
                for u in ulpdus:
                    controls.setdefault(opcode(u), u[:2] + (u[6:10] if not tagged(u) else b"\0\0\0\0"))
                if file.startswith("rping") or file == "ib_read_bw-siw":
                    for op, octets in sorted(controls.items()):
                        seeds.add("RdmapWireFuzzTarget", f"{base}-{dname}-control-{OPCODES.get(op, op)}",
                                  b"\x02" + octets)
                    # selector 1 = a Read Request header (RFC 5040 §4.4), after its DDP header;
                    # selector 0 = a Terminate carrying that Read Request's DDP and RDMAP headers.
                    reads = [u for u in ulpdus if not tagged(u) and opcode(u) == 1]
                    if reads:
                        seeds.add("RdmapWireFuzzTarget", f"{base}-{dname}-read-request", b"\x01" + reads[0][18:46])
                        seeds.add("RdmapWireFuzzTarget", f"{base}-{dname}-terminate-read-request",
                                  b"\x00" + bytes([0x10, 0x00, 0xE0, 0x00]) + struct.pack(">H", 46)
                                  + reads[0][:46])

            if file != "nfs3-rdma-siw":
                continue
            # NFS over RDMA: Sends on queue 0 carry RPC-over-RDMA messages (RFC 8166, RFC 8267).
            calls = []
            for dname in ("c2s", "s2c"):
                stream, frame_len, frames = per_dir[dname]
                kind = "call" if dname == "c2s" else "reply"
                sends = [m for m in messages([u for _, u in frames]) if len(m) >= 28]  # not the empty RTR Send
                for n, msg in enumerate(sends):
                    hlen = rpcrdma_header_length(msg)
                    seed = msg if len(msg) <= MAX_STREAM else msg[:hlen + 256]
                    seeds.add("RpcRdmaHeaderFuzzTarget", f"{base}-{kind}-{n}", seed)
                    if dname == "c2s" and u32(msg, 12) == 0:   # RDMA_MSG: the RPC call follows inline
                        calls.append(msg[hlen:])
            procs_seen = set()
            for rpc in calls:
                if u32(rpc, 4) != 0 or u32(rpc, 8) != 2:
                    sys.exit(f"{file}: an RDMA_MSG Send from the client that is not an RPC call")
                if (u32(rpc, 12), u32(rpc, 16)) == (100227, 3):      # NFS_ACL v3 (Linux): NULL, GETACL
                    name = ["null", "getacl"][u32(rpc, 20)] if u32(rpc, 20) < 2 else f"proc-{u32(rpc, 20)}"
                    if ("acl", name) not in procs_seen:
                        procs_seen.add(("acl", name))
                        seeds.add("RpcCallHeaderFuzzTarget", f"{base}-call-nfsacl-{name}", rpc)
                    continue
                if (u32(rpc, 12), u32(rpc, 16)) != (100003, 3):
                    continue
                proc = u32(rpc, 20)
                name = NFS3_PROCS[proc] if proc < len(NFS3_PROCS) else f"proc-{proc}"
                if proc in procs_seen:
                    continue
                procs_seen.add(proc)
                seeds.add("RpcCallHeaderFuzzTarget", f"{base}-call-{name}", rpc)
                seeds.add("Nfs3ArgumentsFuzzTarget", f"{base}-{name}", bytes([proc]) + rpc[call_arguments(rpc):])
                if proc in (0, 1):
                    # The Echo-only dispatcher answers these NFS calls PROG_UNAVAIL.
                    seeds.add("RpcDispatcherFuzzTarget", f"{base}-call-{name}", rpc)
            # Record marking (RFC 5531 §11): the calls of this connection as a TCP stream would carry them.
            records = bounded([struct.pack(">I", 0x80000000 | len(r)) + r for r in calls])
            marked = b"".join(records)
            seeds.add("RecordMarkingFuzzTarget", f"{base}-calls-record-marked", b"\x00" + marked)
            seeds.add("RecordMarkingFuzzTarget", f"{base}-calls-record-marked-chunked", b"\x07" + marked)
            seeds.add("RecordMarkingFuzzTarget", f"{base}-calls-record-marked-limit-64", b"\x40" + marked)
            split = b""
            for r in bounded(calls, MAX_STREAM - 8 * len(calls)):
                half = len(r) // 2
                split += struct.pack(">I", half) + r[:half] + struct.pack(">I", 0x80000000 | len(r) - half) + r[half:]
            seeds.add("RecordMarkingFuzzTarget", f"{base}-calls-two-fragments-limit-4096", b"\xC3" + split)
            nfs3_reply_seeds(seeds, base, calls, replies(per_dir["s2c"][2]))
    nfs4_reply_seeds(seeds)
    seeds.write()


def procedure_name(program, procedure):
    if program == 100227:                          # NFS_ACL v3 (Linux): NULL, GETACL
        return "nfsacl-" + (["null", "getacl"][procedure] if procedure < 2 else f"proc-{procedure}")
    return NFS3_PROCS[procedure] if procedure < len(NFS3_PROCS) else f"proc-{procedure}"


def nfs3_reply_seeds(seeds, base, calls, answers):
    """The first reply to each procedure of an NFSv3 connection: whole for the RPC client's target,
    its results for the NFSv3 client's (READ with its Write chunk data as the reduced item)."""
    asked = {u32(c, 0): (u32(c, 12), u32(c, 20)) for c in calls}
    seen = set()
    for rpc, items in answers:
        if u32(rpc, 0) not in asked:
            sys.exit(f"{base}: a reply whose xid no call has")
        program, proc = asked[u32(rpc, 0)]
        if (program, proc) in seen:
            continue
        seen.add((program, proc))
        name = procedure_name(program, proc)
        if len(rpc) <= MAX_STREAM:
            seeds.add("RpcClientReplyFuzzTarget", f"{base}-reply-{name}", b"\x00" + rpc)
        at = reply_results(rpc)
        if program != 100003 or at is None:
            continue
        results = rpc[at:]
        if not items:
            seeds.add("Nfs3ResultsFuzzTarget", f"{base}-{name}", bytes([proc]) + results)
        elif proc == 6 and len(items) == 1:
            # READ3resok: status, post_op_attr, count, eof, then the data's length word (RFC 1813 §3.3.6).
            attrs = 4 + (84 if u32(results, 4) else 0)
            stream, item = cut_data_item(results, 4 + attrs + 8, items[0], count_at=4 + attrs)
            seeds.add("Nfs3ResultsFuzzTarget", f"{base}-{name}",
                      bytes([0x40 | proc]) + struct.pack(">H", len(item)) + stream + item)
        else:
            sys.exit(f"{base}: Write chunks in a reply to {name}")


def nfs4_reply_seeds(seeds):
    """The NFSv4 client's reply target: the first COMPOUND reply of each sequence of operations on
    each connection of the NFSv4.2 capture, after the operations' opcodes (READ with its Write chunk
    data as the reduced item); the back channel's: the client's replies to the server's CB_COMPOUNDs."""
    conns = connections(os.path.join(CAPTURES, NFS4_FILE + ".pcap"))
    for index, (_, c2s, s2c) in enumerate(conns):
        base = NFS4_FILE if len(conns) == 1 else f"{NFS4_FILE}-s{index}"
        answers = [rpc for rpc, _ in replies(fpdus(c2s, startup_frame(c2s)), from_server=False)]
        for n, rpc in enumerate(answers):
            seeds.add("Nfs4CallbackReplyFuzzTarget", f"{base}-cb-reply-{n}", rpc)
        seen = set()
        for rpc, items in replies(fpdus(s2c, startup_frame(s2c))):
            at = reply_results(rpc)
            if at is None or at == len(rpc):
                continue                           # not a successful COMPOUND (NULL has no results)
            res = rpc[at:]
            ops = compound_results(res, bool(items))
            if ops is None:
                print(f"{base}: a reply with an operation this script cannot walk: left out", file=sys.stderr)
                continue
            opcodes = bytes(op for op, _ in ops)
            if opcodes in seen or not 1 <= len(opcodes) <= 16 or len(res) > MAX_STREAM:
                continue
            seen.add(opcodes)
            name = f"{base}-" + "-".join(NFS4_OPS[op] for op in opcodes)
            if not items:
                seeds.add("Nfs4CompoundReplyFuzzTarget", name, bytes([len(opcodes) - 1]) + opcodes + res)
                continue
            reads = [body for op, body in ops if op == 25]
            if len(items) != 1 or len(reads) != 1:
                sys.exit(f"{base}: Write chunks in a reply that is not one READ")
            stream, item = cut_data_item(res, reads[0] + 4, items[0])   # READ4resok: eof, then data
            seeds.add("Nfs4CompoundReplyFuzzTarget", name, bytes([0x40 | len(opcodes) - 1]) + opcodes
                      + struct.pack(">H", len(item)) + stream + item)


if __name__ == "__main__":
    main()
