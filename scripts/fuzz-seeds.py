#!/usr/bin/env python3
"""Cut the capture-derived seeds of the Jazzer fuzz targets from testdata/captures/.

Run from the checkout root:

    python3 scripts/fuzz-seeds.py

It reads the classic pcap files in testdata/captures/ (Ethernet, IPv4, TCP; the connections are
whole, see testdata/captures/README.md), puts each TCP direction back together by sequence
number, follows MPA (startup frame, then FPDUs; siw sends no markers), DDP, RDMAP, RPC-over-RDMA
and ONC RPC, and writes, for every fuzz target, inputs in that target's layout (each target's
javadoc describes it) into <module>/src/test/resources/<package>/fuzz/<Target>Inputs/fuzz/.

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
}

OPCODES = {0: "write", 1: "read-request", 2: "read-response", 3: "send", 4: "send-inv",
           5: "send-se", 6: "send-se-inv", 7: "terminate"}
NFS3_PROCS = ["null", "getattr", "setattr", "lookup", "access", "readlink", "read", "write",
              "create", "mkdir", "symlink", "mknod", "remove", "rmdir", "rename", "link",
              "readdir", "readdirplus", "fsstat", "fsinfo", "pathconf", "commit"]


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
    seeds.write()


if __name__ == "__main__":
    main()
