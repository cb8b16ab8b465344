#!/usr/bin/env bash
# Records the repository's golden wire captures (testdata/captures/) with the project's own
# Linux siw VM (interop-tests/vm/). Both ends of every exchange run inside the guest on siw0
# (10.0.2.15), so their TCP connections go over the guest's loopback, where tcpdump records
# them. The guest's files are copied out, the VM is stopped, and testdata/captures/README.md
# is rewritten with the commands, versions, sizes and date.
#
#   scripts/record-captures.sh [OUTPUT_DIR]     (default: testdata/captures)
#
# Environment: IWARP4J_VM_ACCEL=tcg|kvm (default tcg), RECORD_BOOT_TIMEOUT (s, default 240),
# RECORD_CAPTURES="FILE..." (default: all of them) to record only some captures again: the
# others in OUTPUT_DIR are kept as they are and still described in the README.
# Runs unattended; every wait is bounded; any failure stops it with a message and a non-zero
# exit, and the VM is stopped in every case. Needs ssh, tshark/editcap/capinfos on the host.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/testdata/captures}
accel=${IWARP4J_VM_ACCEL:-tcg}
boot_timeout=${RECORD_BOOT_TIMEOUT:-240}

die() { echo "record-captures: $*" >&2; exit 1; }
for tool in ssh tshark editcap capinfos sha256sum; do
  command -v "$tool" >/dev/null || die "$tool is missing on this host"
done
mkdir -p "$out"

vm_dir=$(timeout 3600 "$root/interop-tests/vm/build-vm.sh" | tail -1) || die "build-vm.sh failed"
[ -f "$vm_dir/vmlinux" ] || die "build-vm.sh printed '$vm_dir', which holds no VM"

run=$(mktemp -d /tmp/record-captures.XXXXXX)
vm_pid=""
cleanup() {
  set +e
  if [ -S "$run/ssh.sock" ]; then timeout 10 "${ssh_cmd[@]}" -O exit root@127.0.0.1 >/dev/null 2>&1; fi
  exec 9>&- 2>/dev/null          # start-vm.sh stops the VM when its stdin closes
  if [ -n "$vm_pid" ]; then
    kill "$vm_pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$vm_pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$vm_pid" 2>/dev/null
  fi
  rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# A free loopback port for ssh (other VMs may run on this host at the same time).
ssh_port=""
for _ in $(seq 50); do
  p=$((20000 + RANDOM % 20000))
  if ! ss -Hltn "sport = :$p" | grep -q .; then ssh_port=$p; break; fi
done
[ -n "$ssh_port" ] || die "no free port for ssh"

mkfifo "$run/stdin"
"$root/interop-tests/vm/start-vm.sh" --accel "$accel" --ssh-port "$ssh_port" --vm-dir "$vm_dir" \
  <"$run/stdin" >"$run/console.log" 2>&1 &
vm_pid=$!
exec 9>"$run/stdin"

echo "record-captures: booting the VM ($accel, ssh on 127.0.0.1:$ssh_port)" >&2
booted=""
for _ in $(seq $((boot_timeout * 2))); do
  if grep -q '^IWARP4J-PEER-READY' "$run/console.log"; then booted=yes; break; fi
  if grep -q '^IWARP4J-PEER-FAILED' "$run/console.log" || ! kill -0 "$vm_pid" 2>/dev/null; then break; fi
  sleep 0.5
done
if [ -z "$booted" ]; then
  tail -30 "$run/console.log" >&2
  die "the VM did not print IWARP4J-PEER-READY within ${boot_timeout}s"
fi
grep '^IWARP4J-PEER-READY' "$run/console.log" >&2

ssh_cmd=(ssh -F /dev/null -i "$vm_dir/id_ed25519" -p "$ssh_port" -o IdentitiesOnly=yes -o BatchMode=yes
  -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR
  -o ConnectTimeout=60 -o ServerAliveInterval=15 -o ServerAliveCountMax=8
  -o ControlPath="$run/ssh.sock")
timeout 120 "${ssh_cmd[@]}" -o ControlMaster=yes -o ControlPersist=yes -f -N root@127.0.0.1 \
  || die "no ssh connection to the VM"
guest() { # TIMEOUT_SECONDS COMMAND... (stdin goes to the command)
  local t=$1; shift
  timeout "$t" "${ssh_cmd[@]}" -o ControlMaster=no root@127.0.0.1 "$@"
}

# Everything below runs in the guest as one script; it writes /tmp/captures/*.pcap and
# /tmp/captures/versions.txt, and exits non-zero at the first failure.
guest_script=$(cat <<'GUEST'
set -eu
PATH=/usr/sbin:/usr/bin:/sbin:/bin
addr=10.0.2.15
dir=/tmp/captures
want=" $* "                     # the captures to record, by file name
wanted() { case $want in *" $1 "*) return 0 ;; esac; return 1; }
rm -rf "$dir"; mkdir -p "$dir"
cap_pid=""; server=""
# Background programs must not outlive this script: they would hold the ssh session open.
stop_jobs() { kill $cap_pid $server $(jobs -p) 2>/dev/null || true; }
trap stop_jobs EXIT
fail() { echo "guest: $*" >&2; dmesg | tail -20 >&2; exit 1; }

await_listening() { # PORT
  for _ in $(seq 300); do ss -Hltn "sport = :$1" | grep -q . && return 0; sleep 0.1; done
  fail "nothing listens on port $1 after 30 s"
}
# Until no socket on PORT is open any more except in TIME-WAIT (siw closes its TCP sockets from
# a kernel worker, a little after the programs exit): the capture then holds the whole close.
await_closed() { # PORT
  for _ in $(seq 300); do
    ss -Htan "( sport = :$1 or dport = :$1 )" | grep -v -e TIME-WAIT -e LISTEN | grep -q . || return 0
    sleep 0.1
  done
  ss -tan >&2; fail "connections on port $1 still open after 30 s"
}
capture_start() { # FILE FILTER
  cap_file=$dir/$1
  tcpdump -i lo -s 0 -B 16384 -U -n -w "$cap_file" "$2" </dev/null >/dev/null 2>"$cap_file.log" &
  cap_pid=$!
  for _ in $(seq 200); do grep -q 'listening on' "$cap_file.log" && return 0; sleep 0.1; done
  cat "$cap_file.log" >&2; fail "tcpdump did not start"
}
capture_stop() {
  sleep 0.5                     # let tcpdump see the last ACKs before it is told to stop
  kill -INT "$cap_pid"
  for _ in $(seq 100); do kill -0 "$cap_pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$cap_pid" 2>/dev/null && fail "tcpdump did not stop"
  wait "$cap_pid" || true
  cap_pid=""
  cat "$cap_file.log" >&2
  grep -q '^0 packets dropped by kernel' "$cap_file.log" || fail "tcpdump lost packets in $cap_file"
  rm -f "$cap_file.log"
}
set_crc_required() { # Y|N
  echo "$1" > /sys/module/siw/parameters/mpa_crc_required
  [ "$(cat /sys/module/siw/parameters/mpa_crc_required)" = "$1" ] || fail "mpa_crc_required not $1"
}

# --- rping, CRC off and CRC required (the knob is read at each connection setup) ---
rping_run() { # FILE
  capture_start "$1" 'tcp port 7174'
  timeout 60 rping -s -a $addr -p 7174 </dev/null >"$dir/$1.server.log" 2>&1 &
  server=$!
  await_listening 7174
  timeout 60 rping -c -a $addr -p 7174 -C 10 -v >"$dir/$1.client.log" 2>&1 || fail "rping client failed: $(cat "$dir/$1.client.log")"
  wait $server || fail "rping server failed: $(cat "$dir/$1.server.log")"
  server=""
  await_closed 7174
  capture_stop
  grep -c '^ping data' "$dir/$1.client.log" | grep -qx 10 || fail "rping client did not print 10 pings"
  rm -f "$dir/$1".*.log
}
set_crc_required N
if wanted rping-siw.pcap; then rping_run rping-siw.pcap; fi
set_crc_required Y
if wanted rping-siw-crc.pcap; then rping_run rping-siw-crc.pcap; fi
set_crc_required N

# --- perftest over rdma_cm (-R), port 18515 ---
# perftest checks its cycle counter against the clock and, when the fit is poor (as under
# TCG, now and then), prints "Can't produce a report" and fails after the traffic: then the
# whole run, capture included, is done again (at most 3 times).
perftest_run() { # write|read|send FILE; returns 1 when the run should be retried
  capture_start $2 'tcp port 18515'
  timeout 90 ib_$1_bw -R -n 5 -s 64 -F -d siw0 -p 18515 </dev/null >"$dir/$2.server.log" 2>&1 &
  server=$!
  await_listening 18515
  ok=yes
  timeout 90 ib_$1_bw -R -n 5 -s 64 -F -d siw0 -p 18515 $addr </dev/null >"$dir/$2.client.log" 2>&1 || ok=client
  wait $server || [ $ok != yes ] || ok=server
  server=""
  await_closed 18515
  capture_stop
  case $ok in
    yes) rm -f "$dir/$2".*.log; return 0 ;;
    *) if grep -q "Can't produce a report" "$dir/$2.$ok.log"; then
         echo "guest: ib_$1_bw $ok: no report (clock fit), running again" >&2; return 1
       fi
       fail "ib_$1_bw $ok failed: $(cat "$dir/$2.$ok.log")" ;;
  esac
}
for t in write read send; do
  wanted ib_${t}_bw-siw.pcap || continue
  n=1
  until perftest_run $t ib_${t}_bw-siw.pcap; do
    n=$((n + 1)); [ $n -le 3 ] || fail "ib_${t}_bw: no report in 3 runs"
  done
done

# --- NFS over RDMA: knfsd exports a tmpfs, the kernel client mounts it over siw ---
# The export, rpcbind and rpc.mountd (knfsd asks mountd about exports for NFSv4 too).
nfs_export() { # MODULE...
modprobe -a nfsd rpcrdma "$@" || fail "modprobe nfsd rpcrdma $*"
mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd
mkdir -p /export /mnt
mountpoint -q /export || mount -t tmpfs -o size=64m,mode=0777 export /export
pgrep -x rpcbind >/dev/null || { rpcbind -f </dev/null >/dev/null 2>&1 & }
await_listening 111
exportfs -i -o rw,insecure,no_root_squash,no_subtree_check,fsid=4049 '*:/export' || fail exportfs
pgrep -x rpc.mountd >/dev/null || { rpc.mountd -F -p 20048 </dev/null >/dev/null 2>&1 & }
await_listening 20048
}
nfs_run() {
nfs_export nfsv3
rm -f /export/test-nfs3.bin
timeout 60 rpc.nfsd -N 4 4 || fail "rpc.nfsd"
grep -q 'rdma 20049' /proc/fs/nfsd/portlist || echo 'rdma 20049' > /proc/fs/nfsd/portlist
await_listening 20049
# 307200 bytes (300 KiB) of numbered lines: any part of the file says where it belongs.
seq -f 'iwarp4j capture line %08g' 1 10240 > /tmp/pattern
[ "$(wc -c < /tmp/pattern)" = 307200 ] || fail "pattern is not 307200 bytes"
nfs_mount() { timeout 120 mount -t nfs -o vers=3,proto=rdma,port=20049,nolock $addr:/export /mnt || fail "mount"; }
capture_start nfs3-rdma-siw.pcap 'tcp port 20049'
nfs_mount
# cp creates a new file with O_EXCL: CREATE EXCLUSIVE, then SETATTR; umount flushes and COMMITs.
timeout 120 cp /tmp/pattern /mnt/test-nfs3.bin || fail "write"
timeout 60 umount /mnt || fail "umount after the write"
nfs_mount                       # a new mount (a new connection): nothing comes from the page cache
timeout 120 cat /mnt/test-nfs3.bin > /tmp/readback || fail "read"
timeout 60 ls -l /mnt >&2 || fail "ls"
timeout 60 umount /mnt || fail "umount after the read"
await_closed 20049
capture_stop
cmp /tmp/pattern /tmp/readback || fail "the file read back differs from the one written"
cmp /tmp/pattern /export/test-nfs3.bin || fail "the exported file differs from the one written"
timeout 60 rpc.nfsd 0 || true
}
if wanted nfs3-rdma-siw.pcap; then nfs_run; fi

# --- NFSv4.2 over RDMA: the same export; the client binds its backchannel to the connection ---
nfs4_run() {
nfs_export nfsv4
rm -f /export/test-nfs4.bin
timeout 60 rpc.nfsd 0 || true
# knfsd answers NFS4ERR_GRACE to new OPENs for a grace period after it starts (RFC 8881
# section 8.4.2); 10 s is the shortest it takes, and it can only be set while nfsd is stopped.
echo 10 > /proc/fs/nfsd/nfsv4gracetime || fail "nfsv4gracetime"
timeout 60 rpc.nfsd -N 3 4 || fail "rpc.nfsd"
grep -q '+4.2' /proc/fs/nfsd/versions || fail "knfsd does not serve NFSv4.2: $(cat /proc/fs/nfsd/versions)"
grep -q 'rdma 20049' /proc/fs/nfsd/portlist || echo 'rdma 20049' > /proc/fs/nfsd/portlist
await_listening 20049
seq -f 'iwarp4j capture line %08g' 1 10240 > /tmp/pattern
sleep 12                        # the grace period (10 s) ends when knfsd's laundromat next runs
nfs4_mount() {
  timeout 120 mount -t nfs -o vers=4.2,proto=rdma,port=20049 $addr:/export /mnt || fail "mount"
  grep ' /mnt nfs4 ' /proc/mounts >&2
  grep ' /mnt nfs4 .*vers=4.2,.*proto=rdma,' /proc/mounts >/dev/null || fail "not an NFSv4.2 mount over RDMA"
}
capture_start nfs4-rdma-siw.pcap 'tcp port 20049'
nfs4_mount
timeout 120 cp /tmp/pattern /mnt/test-nfs4.bin || fail "write"
timeout 60 umount /mnt || fail "umount after the write"
nfs4_mount                      # a new mount (a new connection and session): no cached pages
timeout 120 cat /mnt/test-nfs4.bin > /tmp/readback || fail "read"
timeout 60 ls -l /mnt >&2 || fail "ls"
# The client now holds a read delegation for the file (knfsd grants one once its CB_NULL on
# the backchannel was answered). Opening the file for writing on the server breaks it: knfsd
# sends CB_RECALL over the same RDMA connection, and the open waits for the DELEGRETURN.
timeout 60 sh -c ': >> /export/test-nfs4.bin' || fail "opening the file on the server"
timeout 60 umount /mnt || fail "umount after the read"
await_closed 20049
capture_stop
cmp /tmp/pattern /tmp/readback || fail "the file read back differs from the one written"
cmp /tmp/pattern /export/test-nfs4.bin || fail "the exported file differs from the one written"
timeout 60 rpc.nfsd 0 || true
}
if wanted nfs4-rdma-siw.pcap; then nfs4_run; fi
seq -f 'iwarp4j capture line %08g' 1 10240 > /tmp/pattern

{
  echo "uname -r: $(uname -r)"
  echo "siw: out-of-tree siw.ko built from linux-source of the same kernel (srcversion $(cat /sys/module/siw/srcversion 2>/dev/null || echo ?))"
  dpkg-query -W -f '${Package} ${Version}\n' rdma-core rdmacm-utils ibverbs-providers perftest \
    nfs-kernel-server nfs-common tcpdump 2>/dev/null | sed 's/^/package: /'
  echo "ib_write_bw --version: $(ib_write_bw --version 2>&1 | head -1)"
  echo "tcpdump --version: $(tcpdump --version 2>&1 | head -1)"
  echo "pattern sha256: $(sha256sum < /tmp/pattern | cut -d' ' -f1)"
} > "$dir/versions.txt"
echo "guest: done"
GUEST
)

# A capture is kept only if tshark sees no TCP anomaly in it (tcpdump on a two-CPU TCG guest
# sometimes records a loopback segment out of order or twice) and every connection in it is
# whole: SYN, MPA Request and Reply, both FINs. Others are recorded again, in the same VM.
anomalies='tcp.analysis.retransmission || tcp.analysis.out_of_order || tcp.analysis.lost_segment || tcp.analysis.ack_lost_segment || tcp.analysis.spurious_retransmission || tcp.analysis.duplicate_ack'
count() { # FILE FILTER: frames that match (RPC-over-RDMA is dissected only in the NFS captures)
  case $1 in
    *nfs*) tshark -r "$1" -Y "$2" 2>/dev/null | wc -l ;;
    *) tshark -r "$1" --disable-heuristic rpcrdma_iwarp -o tcp.try_heuristic_first:TRUE -Y "$2" 2>/dev/null | wc -l ;;
  esac
}
clean() { # FILE
  local f=$1 bad syn req rep fin
  bad=$(tshark -r "$f" -Y "$anomalies" -T fields -e frame.number 2>/dev/null | tr '\n' ' ')
  if [ -n "$bad" ]; then echo "record-captures: $(basename "$f"): TCP anomalies in frames $bad" >&2; return 1; fi
  syn=$(count "$f" 'tcp.flags.syn==1 && tcp.flags.ack==0')
  req=$(count "$f" 'iwarp_mpa.key.req')
  rep=$(count "$f" 'iwarp_mpa.key.rep')
  fin=$(count "$f" 'tcp.flags.fin==1')
  if [ "$syn" -lt 1 ] || [ "$req" != "$syn" ] || [ "$rep" != "$syn" ] || [ "$fin" != $((2 * syn)) ]; then
    echo "record-captures: $(basename "$f"): $syn SYN, $req MPA Request, $rep MPA Reply, $fin FIN" >&2; return 1
  fi
}
all="rping-siw.pcap rping-siw-crc.pcap ib_write_bw-siw.pcap ib_read_bw-siw.pcap ib_send_bw-siw.pcap nfs3-rdma-siw.pcap nfs4-rdma-siw.pcap"
todo=${RECORD_CAPTURES:-$all}
for f in $todo; do
  case " $all " in *" $f "*) ;; *) die "RECORD_CAPTURES: unknown capture $f (known: $all)" ;; esac
done
recorded=$todo
for f in $all; do
  case " $recorded " in *" $f "*) ;; *) [ -s "$out/$f" ] || die "$f is not in $out: record it too" ;; esac
done
for round in 1 2 3; do
  echo "record-captures: recording in the guest (round $round): $todo" >&2
  printf '%s\n' "$guest_script" | guest 900 sh -s -- $todo || die "recording in the guest failed (see above)"
  rm -rf "$run/captures"; mkdir "$run/captures"
  guest 120 "tar -C /tmp/captures -cf - ." </dev/null | tar -C "$run/captures" -xf - \
    || die "copying the captures out of the VM failed"
  cp "$run/captures/versions.txt" "$run/versions.txt"
  left=""
  for f in $todo; do
    [ -s "$run/captures/$f" ] || die "$f is missing or empty"
    if clean "$run/captures/$f"; then cp "$run/captures/$f" "$out/$f"; else left="$left $f"; fi
  done
  todo=${left# }
  [ -n "$todo" ] || break
done
[ -z "$todo" ] || die "no clean capture after 3 rounds: $todo"
timeout 10 "${ssh_cmd[@]}" -O exit root@127.0.0.1 >/dev/null 2>&1 || true
exec 9>&-
for _ in $(seq 100); do kill -0 "$vm_pid" 2>/dev/null || break; sleep 0.2; done
kill "$vm_pid" 2>/dev/null || true
vm_pid=""
echo "record-captures: VM stopped" >&2

# --- what each capture must show (tshark 4.0) ---
expect() { # FILE FILTER MIN-FRAMES WHAT
  local n
  n=$(count "$out/$1" "$2")
  [ "$n" -ge "$3" ] || die "$1: expected at least $3 frames of $4 ($2), found $n"
}
for f in rping-siw.pcap rping-siw-crc.pcap; do
  for op in 0 1 2 3; do expect $f "iwarp_rdma.opcode == $op" 10 "RDMAP opcode $op"; done
done
good=$(tshark -r "$out/rping-siw-crc.pcap" --disable-heuristic rpcrdma_iwarp -o tcp.try_heuristic_first:TRUE -V 2>/dev/null | grep -c 'Good CRC32' || true)
bad=$(tshark -r "$out/rping-siw-crc.pcap" --disable-heuristic rpcrdma_iwarp -o tcp.try_heuristic_first:TRUE -V 2>/dev/null | grep -c 'Bad CRC32' || true)
[ "$bad" = 0 ] && [ "$good" -ge 70 ] || die "rping-siw-crc.pcap: $good good and $bad bad CRCs"
[ "$(count "$out/rping-siw-crc.pcap" 'iwarp_mpa.crc_flag == 1')" = 2 ] || die "rping-siw-crc.pcap: C not set in both MPA frames"
[ "$(count "$out/rping-siw.pcap" 'iwarp_mpa.crc_flag == 1')" = 0 ] || die "rping-siw.pcap: C is set"
expect ib_write_bw-siw.pcap 'iwarp_rdma.opcode == 0' 5 "RDMA Write"
expect ib_read_bw-siw.pcap 'iwarp_rdma.opcode == 1' 5 "RDMA Read Request"
expect ib_read_bw-siw.pcap 'iwarp_rdma.opcode == 2' 5 "RDMA Read Response"
expect ib_send_bw-siw.pcap 'iwarp_rdma.opcode == 3' 5 "Send"
nfs=nfs3-rdma-siw.pcap
expect $nfs 'nfs.procedure_v3 == 7 && rpc.msgtyp == 0' 1 "NFS WRITE calls"
expect $nfs 'nfs.procedure_v3 == 6 && rpc.msgtyp == 0' 1 "NFS READ calls"
expect $nfs 'rpcordma.reads_count > 0' 1 "RPC-over-RDMA messages with a Read chunk"
expect $nfs 'rpcordma.writes_count > 0' 1 "RPC-over-RDMA messages with a Write chunk"
expect $nfs 'iwarp_rdma.opcode == 2' 3 "RDMA Read Responses (WRITE data)"
expect $nfs 'iwarp_rdma.opcode == 0' 3 "RDMA Writes (READ data)"
nfs4=nfs4-rdma-siw.pcap
expect $nfs4 'nfs.opcode == 38 && rpc.msgtyp == 0' 1 "NFSv4 WRITE calls"
expect $nfs4 'nfs.opcode == 25 && rpc.msgtyp == 0' 1 "NFSv4 READ calls"
expect $nfs4 'nfs.opcode == 26 && rpc.msgtyp == 0' 1 "NFSv4 READDIR calls"
expect $nfs4 'rpcordma.reads_count > 0' 1 "RPC-over-RDMA messages with a Read chunk"
expect $nfs4 'rpcordma.writes_count > 0' 1 "RPC-over-RDMA messages with a Write chunk"
expect $nfs4 'iwarp_rdma.opcode == 2' 3 "RDMA Read Responses (WRITE data)"
expect $nfs4 'iwarp_rdma.opcode == 0' 3 "RDMA Writes (READ data)"
expect $nfs4 'rpc.program == 0x40000000 && rpc.msgtyp == 0' 1 "backchannel calls (CB program)"

# --- nfs3-rdma-siw-lost.pcap: the same with a few data segments removed ---
# Replay tests also need TCP gaps. Removed: in connection 0 (the WRITE), the 3rd and 4th
# client-to-server segments of 1000 bytes or more (RDMA Read Response data); in connection 1
# (the READ), the 2nd and 5th server-to-client ones of 1000 bytes or more (RDMA Write data).
big() { # STREAM FROM-SERVER(0|1) N...
  local stream=$1 server=$2; shift 2
  local dir; if [ "$server" = 1 ]; then dir='tcp.srcport == 20049'; else dir='tcp.dstport == 20049'; fi
  tshark -r "$out/$nfs" -Y "tcp.stream == $stream && $dir && tcp.len >= 1000" -T fields -e frame.number 2>/dev/null \
    | awk -v want=" $* " 'index(want, " " NR " ") { print }'
}
dropped=$(echo $(big 0 0 3 4) $(big 1 1 2 5))
[ "$(echo $dropped | wc -w)" = 4 ] || die "could not pick the 4 frames to remove ($dropped)"
# -F pcap: editcap writes pcapng by default, and the tests' PcapReader reads classic pcap only.
editcap -F pcap "$out/$nfs" "$out/nfs3-rdma-siw-lost.pcap" $dropped || die editcap
[ "$(count "$out/nfs3-rdma-siw-lost.pcap" tcp.analysis.lost_segment)" -ge 2 ] \
  || die "nfs3-rdma-siw-lost.pcap shows no lost segments"

# --- README ---
# The day each capture was recorded is the day of its first frame (RECORD_CAPTURES can
# record some again later than the others).
dates() {
  local f d list=""
  for f in $all; do
    d=$(tshark -r "$out/$f" -c 1 -T fields -e frame.time_epoch 2>/dev/null | cut -d. -f1)
    d=$(date -u -d "@$d" +%F)
    case " $list " in *" $d "*) ;; *) list="$list $d" ;; esac
  done
  list=${list# }
  case $list in
    *" "*) echo "${list% *} and ${list##* } (each file on the day of its first frame)" | sed 's/ \([0-9-]*\) and/, \1 and/g' ;;
    *) echo "$list" ;;
  esac
}
version() { sed -n "s/^$1: //p" "$run/versions.txt"; }
pkg() { version package | awk -v p="$1" '$1 == p { print $2 }'; }
describe() { # FILE COMMAND
  local f=$out/$1 frames streams size
  frames=$(capinfos -c -M "$f" | awk -F: '/Number of packets/ { gsub(/ /, "", $2); print $2 }')
  streams=$(tshark -r "$f" -T fields -e tcp.stream 2>/dev/null | sort -un | tr '\n' ' ' | sed 's/ $//')
  size=$(stat -c %s "$f")
  echo "| \`$1\` | $2 | $frames | $streams | $size |"
}
{
cat <<EOF
# Wire captures

Origin and licence: recorded by this project with its own script and VM (below), the traffic of
Linux's own tools (rping, perftest, the NFS client and server) between two ends in one guest;
under the Apache License 2.0, as the rest of the repository (\`LICENSE\`, \`NOTICE\`).

Recorded by \`scripts/record-captures.sh\` on $(dates) with the project's Linux peer VM
(\`interop-tests/vm/\`): kernel \`$(version 'uname -r')\` with the soft-iWARP driver \`siw\` built
out of tree from the same kernel's source (its protocol constants made module parameters),
rdma-core $(pkg rdma-core), rdmacm-utils $(pkg rdmacm-utils), perftest $(pkg perftest)
(\`ib_write_bw --version\`: $(version 'ib_write_bw --version')), nfs-kernel-server $(pkg nfs-kernel-server),
nfs-common $(pkg nfs-common), $(version 'tcpdump --version').

Both ends of every exchange ran in the same guest on \`siw0\` (the guest's \`eth0\`,
10.0.2.15), so the TCP connections ran over the guest's loopback: MSS 65495. tcpdump
recorded them on \`lo\` (\`tcpdump -i lo -s 0 -B 16384 -U -w FILE 'tcp port PORT'\`), started
before and stopped after each exchange, so every connection is whole, from SYN to the last
ACK after the FINs. The script keeps a capture only when tshark reports no TCP anomaly in it
(no retransmission, out-of-order, duplicate or missing segment) and every connection has its
SYN, MPA Request and Reply, and both FINs; otherwise it records that one again.

| file | command (in the guest) | frames | TCP streams | bytes |
|---|---|---|---|---|
$(describe rping-siw.pcap '`rping -s -a 10.0.2.15 -p 7174` and `rping -c -a 10.0.2.15 -p 7174 -C 10 -v`, siw `mpa_crc_required=N`')
$(describe rping-siw-crc.pcap 'the same after `echo Y > /sys/module/siw/parameters/mpa_crc_required` (the Initiator asks for CRC; the Responder mirrors it)')
$(describe ib_write_bw-siw.pcap '`ib_write_bw -R -n 5 -s 64 -F -d siw0 -p 18515` (server), the same followed by `10.0.2.15` (client)')
$(describe ib_read_bw-siw.pcap '`ib_read_bw`, the same options')
$(describe ib_send_bw-siw.pcap '`ib_send_bw`, the same options')
$(describe nfs3-rdma-siw.pcap 'knfsd exporting a tmpfs (`exportfs -o rw,insecure,no_root_squash,no_subtree_check,fsid=4049 *:/export`, `rpc.nfsd -N 4 4`, `echo rdma 20049 > /proc/fs/nfsd/portlist`); `mount -t nfs -o vers=3,proto=rdma,port=20049,nolock 10.0.2.15:/export /mnt`, `cp pattern /mnt/test-nfs3.bin`, `umount /mnt`; mount again, `cat /mnt/test-nfs3.bin`, `ls -l /mnt`, `umount /mnt`; filter `tcp port 20049`')
$(describe nfs4-rdma-siw.pcap 'the same export, `rpc.nfsd -N 3 4` after `echo 10 > /proc/fs/nfsd/nfsv4gracetime`, recorded after the grace period; `mount -t nfs -o vers=4.2,proto=rdma,port=20049 10.0.2.15:/export /mnt`, `cp pattern /mnt/test-nfs4.bin`, `umount /mnt`; mount again, `cat /mnt/test-nfs4.bin`, `ls -l /mnt`, on the server `sh -c ": >> /export/test-nfs4.bin"` (breaks the client'"'"'s read delegation), `umount /mnt`; filter `tcp port 20049`')
$(describe nfs3-rdma-siw-lost.pcap "\`editcap -F pcap nfs3-rdma-siw.pcap nfs3-rdma-siw-lost.pcap $dropped\`")

What is in them:

- **rping**: one connection. MPA revision 2 with the RFC 6581 enhanced bit (flags 0x10, or 0x50
  with CRC), private data the 4-byte RFC 6581 word (IRD and ORD); then ten rounds of Send, RDMA
  Read Request / Response and RDMA Write. Without CRC the 4-byte CRC field of every FPDU is
  present and zero; with CRC every FPDU carries a valid CRC32c.
- **perftest** (\`-R\`: connection set-up through rdma_cm): two connections to port 18515, both
  starting with MPA Request and Reply. Stream 0 carries perftest's exchange of parameters and
  results as Sends; stream 1 is the measured one: 5 RDMA Writes (\`ib_write_bw\`), 5 RDMA Read
  Requests and Responses (\`ib_read_bw\`), or Sends (\`ib_send_bw\`).
- **NFS**: two connections, one per mount. Stream 0 writes the file (LOOKUP, CREATE EXCLUSIVE,
  SETATTR, two WRITE calls whose data the server pulls with RDMA Read: Read chunks; COMMIT),
  stream 1 reads it back (two READ calls whose data the server pushes with RDMA Write: Write
  chunks; then READDIRPLUS for \`ls -l\`). The MPA private data is the RFC 6581 word followed by
  the RFC 8797 block of RPC-over-RDMA. The file is \`seq -f 'iwarp4j capture line %08g' 1 10240\`:
  307200 bytes, 30 per numbered line, sha256 $(version 'pattern sha256').
- **NFSv4.2** (\`nfs4-rdma-siw.pcap\`, COMPOUND minor version 2): two connections, one per mount,
  each from NULL, EXCHANGE_ID and CREATE_SESSION (flags PERSIST and CONN_BACK_CHAN, callback
  program 0x40000000: the backchannel shares the connection, RFC 8167) to DESTROY_SESSION and
  DESTROY_CLIENTID. Stream 0 writes the file (OPEN with create, SETATTR, two WRITEs of 262144
  and 45056 octets whose data the server pulls with RDMA Read: Read chunks at Position 188;
  COMMIT, CLOSE). Stream 1 reads it back (OPEN, which grants a read delegation, two READs whose
  data the server pushes with RDMA Write: Write chunks; CLOSE; READDIR for \`ls -l\`), then the
  server opens the file for writing itself: knfsd sends CB_COMPOUND (CB_SEQUENCE, CB_RECALL)
  from server to client on the same RDMA connection, the client answers and returns the
  delegation (DELEGRETURN). EXCHANGE_ID, OPEN and READDIR replies come back in Reply chunks.
  knfsd sends no CB_NULL for minor versions 1 and 2: it marks the backchannel up without one.
  The file is the same pattern.
- **nfs3-rdma-siw-lost.pcap** is \`nfs3-rdma-siw.pcap\` without frames $dropped, picked by a
  rule: the 3rd and 4th client-to-server segments of at least 1000 bytes in stream 0 (WRITE data
  in RDMA Read Responses) and the 2nd and 5th server-to-client ones in stream 1 (READ data in
  RDMA Writes). It is for tests of how a reader reports, and stops at, bytes a capture lacks.

Notes for readers:

- Read a capture with \`tshark -r FILE\`: Wireshark's MPA dissector finds iWARP connections by
  itself. Outside the NFS captures add \`--disable-heuristic rpcrdma_iwarp\`, or small Sends are
  shown as malformed RPC-over-RDMA. \`-V\` prints "Good CRC32" or "Bad CRC32" for every FPDU of
  a connection that negotiated CRC. Wireshark 4.0 warns on every MPA rev 2 frame that its
  revision is not 1, and calls NFS READ replies malformed: dissector limitations.
- The bytes of one direction: \`tshark -r FILE -q -z follow,tcp,raw,N\` (stream N; hex, one line
  per segment). The connections: \`tshark -r FILE -q -z conv,tcp\`.
- siw cuts FPDUs to fit the TCP MSS but hands the 4-byte CRC field to TCP apart from the rest,
  so large FPDUs (NFS data) can end with a segment that holds only their CRC field, and a
  segment can hold parts of two FPDUs: decode the byte stream, never single segments.
- The clients' ports are ephemeral and change with every recording; the servers' are fixed
  (rping 7174, perftest 18515, NFS/RDMA 20049). Frame numbers and timing change too.
- \`RECORD_CAPTURES="nfs4-rdma-siw.pcap" scripts/record-captures.sh\` records only the captures
  named and keeps the others; the README is written again from all of them.
EOF
} > "$out/README.md"
ls -l "$out" >&2
echo "record-captures: done" >&2
