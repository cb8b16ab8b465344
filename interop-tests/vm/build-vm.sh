#!/usr/bin/env bash
# Builds (or reuses) the Linux iWARP peer VM used by interop-tests: a pinned Debian kernel,
# an out-of-tree siw.ko for it, and a Debian rootfs packed as the initramfs. See README.md.
#
#   interop-tests/vm/build-vm.sh          # prints the VM directory, building it if needed
#   interop-tests/vm/build-vm.sh --check  # prints it if it is built; exit 1 otherwise
#
# Everything lives outside the repository in ${IWARP4J_CACHE:-~/.cache/iwarp4j}/vm:
#   <hash>/   the VM (vmlinux, initrd.cpio, siw.ko, id_ed25519); <hash> covers this script
#             and guest/, so a change to either makes a new VM; "current" links to it
#   parts/    the slow stages (kernel + siw.ko, Debian rootfs), each keyed by its own inputs,
#             so editing guest/init repacks in seconds instead of re-running mmdebstrap
# A built VM is reused without touching the network.
set -euo pipefail

# The one kernel pin: <ABI name>=<Debian package version>. linux-image, linux-headers and
# linux-source are all taken at exactly this version, so siw.ko always matches the kernel.
KERNEL_PIN="6.1.0-50-amd64=6.1.176-1"
SUITE=bookworm
GUEST_PACKAGES=(
  rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest
  iproute2 tcpdump kmod procps netcat-openbsd
  nfs-kernel-server nfs-common rpcbind
  openssh-server
)
# Kernel modules kept in the guest (with their dependencies); everything else is dropped:
# the initramfs is unpacked on every boot, and every MiB costs boot time under TCG.
GUEST_MODULES=(
  virtio_pci virtio_net virtio-rng virtio_blk virtio_console 9pnet_virtio 9p overlay
  siw ib_uverbs ib_umad rdma_ucm rdma_cm iw_cm
  rpcrdma nfsd nfs nfsv3 nfsv4 rpcsec_gss_krb5 crc32c_generic crc32c-intel
  veth dummy tun
)
HOST_PACKAGES=(qemu-system-x86 mmdebstrap cpio kmod openssh-client xz-utils make binutils)

KVER=${KERNEL_PIN%%=*}
KPKG_VERSION=${KERNEL_PIN#*=}
here=$(cd "$(dirname "$0")" && pwd)
cache=${IWARP4J_CACHE:-$HOME/.cache/iwarp4j}/vm

log() { echo "build-vm: $*" >&2; }
die() { echo "build-vm: ERROR: $*" >&2; exit 1; }
hash_of() { sha256sum | cut -c1-16; }

hash=$( (cd "$here" && cat build-vm.sh && find guest -type f | LC_ALL=C sort | xargs cat) | hash_of)
out=$cache/$hash

if [ "${1:-}" = "--check" ]; then
  [ -f "$out/COMPLETE" ] && { echo "$out"; exit 0; }
  exit 1
fi

# ---------------------------------------------------------------------------------------
# Host packages; qemu and ssh are needed even when the VM is cached.
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; [ -t 0 ] || sudo="sudo -n"; fi
apt_updated=false
apt_update() {
  $apt_updated && return
  log "apt-get update"
  $sudo apt-get update -qq
  apt_updated=true
}
apt_install() {
  command -v apt-get >/dev/null 2>&1 || die "no apt-get; please install: $*"
  log "installing $*"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 \
    || { apt_update; $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }
}
missing=()
for p in "${HOST_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"

done_at() { ln -sfn "$hash" "$cache/current"; echo "$out"; exit 0; }
[ -f "$out/COMPLETE" ] && done_at

mkdir -p "$cache/parts"
exec 9>"$cache/.lock"
flock 9
[ -f "$out/COMPLETE" ] && done_at  # built by someone else while we waited
started=$(date +%s)
log "building $out (kernel $KERNEL_PIN)"
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

has_version() {
  apt-cache madison "$1" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | grep -qxF "$KPKG_VERSION"
}
fetch_kernel_debs() {
  if ! has_version "linux-image-$KVER"; then
    apt_update
    has_version "linux-image-$KVER" && has_version linux-source-6.1 && has_version "linux-headers-$KVER" \
      || die "apt no longer offers linux-image-$KVER=$KPKG_VERSION (with linux-headers and
  linux-source-6.1 at the same version). Set KERNEL_PIN in $here/build-vm.sh to a version that
  'apt-cache madison linux-source-6.1' and 'apt-cache search linux-image-6.1.0' both list."
  fi
  [ -d "/usr/src/linux-headers-$KVER" ] || apt_install "linux-headers-$KVER=$KPKG_VERSION"
  mkdir -p debs
  (cd debs && apt-get download -q -o APT::Sandbox::User=root \
     "linux-image-$KVER=$KPKG_VERSION" "linux-source-6.1=$KPKG_VERSION" >/dev/null) \
    || die "cannot download linux-image-$KVER and linux-source-6.1 $KPKG_VERSION (KERNEL_PIN)"
}

# ---------------------------------------------------------------------------------------
# Part 1, the kernel: vmlinux (booted as an uncompressed ELF through its PVH entry, since
# decompressing Debian's xz bzImage takes seconds under TCG), its modules, and siw.ko built
# out of tree from the matching source.
#
# siw patch: in 6.1 siw's knobs are compile-time constants; the sed below turns them into
# module parameters (also writable in /sys/module/siw/parameters), so one siw.ko serves the
# CRC-off default and `modprobe siw mpa_crc_required=1` (also mpa_crc_strict, peer_to_peer,
# try_gso, siw_tcp_nagle, mpa_version).
build_kernel() {  # -> $1/{vmlinux,siw.ko,modules/}
  local dest=$1 src=linux-source-6.1/drivers/infiniband/sw/siw
  fetch_kernel_debs
  dpkg-deb --fsys-tarfile debs/linux-source-6.1_*.deb | tar -xO ./usr/src/linux-source-6.1.tar.xz \
    | xz -dc | tar -x "$src"
  local knobs='try_gso\|mpa_crc_required\|mpa_crc_strict\|siw_tcp_nagle\|peer_to_peer'
  sed -i "s/^const bool \($knobs\);/bool \1;\nmodule_param(\1, bool, 0644);/" "$src/siw_main.c"
  sed -i 's/^u_char mpa_version = MPA_REVISION_2;/&\nmodule_param(mpa_version, byte, 0644);/' "$src/siw_main.c"
  sed -i "s/^extern const bool \($knobs\);/extern bool \1;/" "$src/siw.h"
  [ "$(grep -c '^module_param(' "$src/siw_main.c")" -eq 6 ] \
    || die "the siw parameter patch no longer applies to linux-source-6.1 $KPKG_VERSION"
  make -s -C "/usr/src/linux-headers-$KVER" M="$PWD/$src" CONFIG_RDMA_SIW=m modules >/dev/null 2>&1 \
    || make -C "/usr/src/linux-headers-$KVER" M="$PWD/$src" CONFIG_RDMA_SIW=m modules
  mkdir -p "$dest"
  strip --strip-debug -o "$dest/siw.ko" "$src/siw.ko"
  modinfo -F vermagic "$dest/siw.ko" | grep -q "^$KVER " || die "siw.ko vermagic does not match $KVER"
  # Unpacked aside: tar would replace a rootfs's /lib -> usr/lib symlink with a directory.
  dpkg-deb -x debs/linux-image-"$KVER"_*.deb image
  local vmlinuz=image/boot/vmlinuz-$KVER off
  off=$(LC_ALL=C grep -obUaP '\xFD7zXZ\x00' "$vmlinuz" | awk -F: 'NR == 1 { print $1 }')
  tail -c +$((off + 1)) "$vmlinuz" | xz -dc --single-stream > "$dest/vmlinux"
  readelf -n "$dest/vmlinux" | grep -q 'Xen.*0x00000012' || die "vmlinux has no PVH entry note"
  mv "image/lib/modules/$KVER" "$dest/modules"
  rm -rf image debs linux-source-6.1
}

# Part 2, the Debian rootfs, from the host's apt sources (no mirror names in this repository).
debian_sources() {
  local main="${IWARP4J_DEBIAN_MIRROR:-}" sec=""
  if [ -z "$main" ]; then
    main=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' \
           | awk -v s="$SUITE" '$2 == s { print $1; exit }')
    sec=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' \
           | awk -v s="$SUITE-security" '$2 == s { print $1; exit }')
  fi
  [ -n "$main" ] || die "no '$SUITE' repository in the host's apt sources; set IWARP4J_DEBIAN_MIRROR"
  echo "deb $main $SUITE main"
  echo "deb $main $SUITE-updates main"
  [ -z "$sec" ] || echo "deb $sec $SUITE-security main"
}
build_rootfs() {  # -> $1 (a tar of the rootfs)
  local sources
  mapfile -t sources < <(debian_sources)
  mmdebstrap --quiet --format=tar --variant=minbase --include="$(IFS=,; echo "${GUEST_PACKAGES[*]}")" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    "$SUITE" "$1" "${sources[@]}" >/dev/null
}

# Each part is reused while its own inputs (the function's text and what it reads) are unchanged.
part() {  # part NAME FUNCTION INPUTS... -> prints the part's path
  local name=$1 fn=$2; shift 2
  local h p
  h=$( { declare -f "$fn" fetch_kernel_debs debian_sources; printf '%s\n' "$@"; } | hash_of)
  p=$cache/parts/$name-$h
  if [ ! -e "$p" ]; then
    local t0; t0=$(date +%s)
    "$fn" "$p.tmp" >&2
    mv "$p.tmp" "$p"
    log "$name built in $(( $(date +%s) - t0 )) s"
  fi
  echo "$p"
}
kernel=$(part kernel build_kernel "$KERNEL_PIN")
rootfs_tar=$(part rootfs.tar build_rootfs "$SUITE" "${GUEST_PACKAGES[@]}")

# ---------------------------------------------------------------------------------------
# Assembly: rootfs + trimmed modules + siw.ko + our init, sshd config and key -> initrd.cpio.
t0=$(date +%s)
mkdir rootfs
tar -C rootfs -xf "$rootfs_tar"
mods=rootfs/usr/lib/modules/$KVER
mkdir -p rootfs/usr/lib/modules && cp -a "$kernel/modules" "$mods"
mkdir -p "$mods/updates"
cp "$kernel/siw.ko" "$mods/updates/siw.ko"
depmod -b rootfs "$KVER"
keep=$(for m in "${GUEST_MODULES[@]}"; do
         modprobe -d rootfs -S "$KVER" --show-depends "$m" || die "no module $m"
       done | awk '$1 == "insmod" { print $2 }' | xargs realpath --relative-to=. | sort -u)
find "$mods" -name '*.ko' | sort | comm -23 - <(echo "$keep") | xargs rm -f
find "$mods" -type d -empty -delete
depmod -b rootfs "$KVER"
# Unused at run time: full perl and python3 (needed only by tools we do not run), udev's
# hardware database, iconv modules, apt's lists.
rm -rf rootfs/usr/share/perl rootfs/usr/lib/x86_64-linux-gnu/perl rootfs/usr/bin/perl \
  rootfs/usr/lib/python3* rootfs/usr/bin/python3* rootfs/usr/lib/udev/hwdb.bin \
  rootfs/usr/lib/x86_64-linux-gnu/gconv rootfs/var/cache/apt/* rootfs/var/lib/apt/lists/*
install -m 0755 "$here/guest/init" rootfs/init
install -m 0644 "$here/guest/sshd_config" rootfs/etc/ssh/sshd_config.d/iwarp4j.conf
ssh-keygen -q -t ed25519 -N '' -C iwarp4j-harness -f id_ed25519
install -d -m 0700 rootfs/root/.ssh
install -m 0600 id_ed25519.pub rootfs/root/.ssh/authorized_keys
echo iwarp4j-peer > rootfs/etc/hostname
(cd rootfs && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) > initrd.cpio
log "image assembled in $(( $(date +%s) - t0 )) s ($(du -m initrd.cpio | cut -f1) MiB initramfs)"

rm -rf "$out.new" && mkdir -p "$out.new"
cp "$kernel/vmlinux" "$kernel/siw.ko" "$out.new/"
mv initrd.cpio id_ed25519 id_ed25519.pub "$out.new/"
cat > "$out.new/BUILD-INFO" <<INFO
kernel=$KVER
kernel_package_version=$KPKG_VERSION
suite=$SUITE
guest_packages=${GUEST_PACKAGES[*]}
parts=${kernel##*/} ${rootfs_tar##*/}
built=$(date -u +%Y-%m-%dT%H:%M:%SZ)
build_seconds=$(( $(date +%s) - started ))
INFO
touch "$out.new/COMPLETE"
rm -rf "$out"
mv "$out.new" "$out"
ln -sfn "$hash" "$cache/current"
# Nothing else is ever used again: older VMs and parts go (files such as the harness's
# kvm-unusable verdict stay).
for d in "$cache"/*/ "$cache"/parts/*; do
  d=${d%/}
  case $d in "$out"|"$cache/current"|"$cache/parts"|"$kernel"|"$rootfs_tar") ;; *) rm -rf "$d" ;; esac
done
log "built in $(( $(date +%s) - started )) s"
echo "$out"
