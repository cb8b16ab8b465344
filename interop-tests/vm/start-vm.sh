#!/usr/bin/env bash
# Boots the Linux iWARP peer VM built by build-vm.sh; the serial console goes to stdout and
# the guest prints "IWARP4J-PEER-READY" once siw0 and sshd are up (~15-30 s under TCG).
#
#   start-vm.sh [--accel tcg|kvm] [--ssh-port N] [--fwd HOSTPORT:GUESTPORT]... [--qmp PATH]
#               [--vm-dir DIR]
#
# Then: ssh -i DIR/id_ed25519 -p N root@127.0.0.1 (DIR as printed by build-vm.sh).
# The guest is 10.0.2.15 (siw0 on eth0); it reaches the host's 127.0.0.1 as 10.0.2.2.
# The VM stops when this script is terminated or when its standard input closes (so a
# test JVM that dies cannot leave a VM behind). Nothing the guest writes survives.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
accel=tcg
ssh_port=10022
qmp=""
vm_dir=""
fwds=()
while [ $# -gt 0 ]; do
  case $1 in
    --accel) accel=$2; shift 2 ;;
    --ssh-port) ssh_port=$2; shift 2 ;;
    --fwd) fwds+=("$2"); shift 2 ;;
    --qmp) qmp=$2; shift 2 ;;
    --vm-dir) vm_dir=$2; shift 2 ;;
    *) echo "start-vm: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$vm_dir" ]; then
  vm_dir=$("$here/build-vm.sh" --check) || { echo "start-vm: no VM built; run $here/build-vm.sh" >&2; exit 1; }
fi

netdev="user,id=n0,net=10.0.2.0/24,host=10.0.2.2,hostfwd=tcp:127.0.0.1:$ssh_port-:22"
for f in "${fwds[@]}"; do netdev+=",hostfwd=tcp:127.0.0.1:${f%%:*}-:${f#*:}"; done

# lpj/no_timer_check skip delay-loop calibration, slow and pointless under TCG.
# sysrq_always_enabled: when the guest stops answering ssh, the harness sends SysRq-9/-l/-w over
# the PS/2 keyboard (QMP send-key) for CPU backtraces and blocked tasks on the console; it costs
# nothing until then. Under TCG "quiet" keeps the boot's hundreds of info lines off the emulated
# serial port, and loglevel=5 lets warnings and worse through (about 15 lines per boot): RCU stall,
# soft lockup, hung task and panic reports with their stack traces, and WARN splats.
append="console=ttyS0 panic=-1 sysrq_always_enabled lpj=10000000 no_timer_check mitigations=off audit=0"
case $accel in
  tcg) accel_args=(-accel tcg,thread=multi,tb-size=256 -cpu max); append+=" quiet loglevel=5" ;;
  # Not quiet: the caller can tell a KVM that boots (kernel messages within a second) from
  # one that hangs silently, as a stock kernel does when this host is itself a nested guest.
  # (-cpu host/max abort at once there: "failed to set MSR 0x10a".)
  kvm) accel_args=(-accel kvm) ;;
  *) echo "start-vm: --accel tcg or kvm" >&2; exit 2 ;;
esac
qemu-system-x86_64 "${accel_args[@]}" -smp 2 -m 2G \
  -nodefaults -no-user-config -display none -no-reboot \
  -kernel "$vm_dir/vmlinux" -initrd "$vm_dir/initrd.cpio" -append "$append" \
  -netdev "$netdev" -device virtio-net-pci,netdev=n0,romfile= \
  -device virtio-rng-pci \
  -chardev file,id=con,path=/dev/stdout -serial chardev:con \
  ${qmp:+-qmp "unix:$qmp,server=on,wait=off"} \
  </dev/null &
qemu=$!
trap 'kill $qemu 2>/dev/null; wait $qemu 2>/dev/null' EXIT
trap 'exit 143' TERM INT
echo "start-vm: ssh -i $vm_dir/id_ed25519 -p $ssh_port -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null root@127.0.0.1" >&2
# Whoever started us goes away -> stdin reaches EOF -> stop the VM.
( cat >/dev/null; kill $qemu 2>/dev/null ) <&0 &
wait $qemu
