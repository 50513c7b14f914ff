#!/usr/bin/env bash
# Installs what the webgpu backend needs at run time on Debian 12 (x86-64):
#   1. Dawn, the webgpu.h implementation: libwebgpu_wrapper.so from the npm
#      package bun-webgpu-linux-x64@0.1.7, checked against pinned sha256 sums;
#   2. the Vulkan loader (Debian's libvulkan1);
#   3. lavapipe (Mesa's CPU Vulkan driver) from bookworm-backports, unpacked into
#      a private folder so the system's Mesa stays untouched (Debian 12's own
#      lavapipe, Mesa 22.3, is rejected by Dawn), plus an ICD json for it;
#   4. an env file that points VK_DRIVER_FILES at that ICD.
#
# Everything lands under one prefix (default /usr/local/lib/tenferro):
#   <prefix>/libwebgpu_wrapper.so        found by the library without settings
#   <prefix>/lavapipe/lvp_icd.json       the ICD of the private lavapipe
#   <prefix>/webgpu.env                  `. <prefix>/webgpu.env` sets VK_DRIVER_FILES
#
# Idempotent: a step whose result is already in place (checked by hash or by
# version) is skipped, so a second run touches neither npm nor apt.
#
# Usage: scripts/setup-webgpu.sh [--no-lavapipe]
#   --no-lavapipe   only Dawn and the Vulkan loader (a machine with a real GPU
#                   driver, e.g. NVIDIA's, needs no lavapipe).
# Environment: TFR_WEBGPU_PREFIX overrides the prefix (the library then needs
# TFR_WEBGPU_LIBRARY=<prefix>/libwebgpu_wrapper.so to find Dawn).
set -euo pipefail

prefix="${TFR_WEBGPU_PREFIX:-/usr/local/lib/tenferro}"
want_lavapipe=1
for arg in "$@"; do
  case "$arg" in
    --no-lavapipe) want_lavapipe=0 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup-webgpu: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

# Pinned facts of the provider (../shared/webgpu/README.md of the project).
npm_spec="bun-webgpu-linux-x64@0.1.7"
tgz_name="bun-webgpu-linux-x64-0.1.7.tgz"
tgz_sha256="8badfecdad4e726ac12be4f29771f4cbd7ce7683b4418316a547c5bda94fb798"
so_sha256="3190c3777f2c07fcf6a0640833cbf5d0cde859dc53aed6d9083946d093198788"
backports_suite="bookworm-backports"
backports_file="/etc/apt/sources.list.d/tenferro-bookworm-backports.sources"

log() { echo "setup-webgpu: $*"; }
die() { echo "setup-webgpu: ERROR: $*" >&2; exit 1; }

if [ "$(uname -m)" != "x86_64" ]; then
  die "the Dawn package $npm_spec is x86-64 only; this machine is $(uname -m)." \
      "Point TFR_WEBGPU_LIBRARY at another webgpu.h implementation instead."
fi

# Root needs no sudo (CI containers have none); a normal user falls back to it.
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || die "not root and no sudo: run as root"
  as_root=(sudo)
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# apt's package lists must describe the sources configured *now*: a refresh
# that ran before a source was added (by this script or anything else) does
# not count. So the lists are refreshed whenever the configured index targets
# differ from those of this run's last refresh, and never twice for the same.
apt_targets() { apt-get indextargets --no-release-info --format '$(URI)' 2>/dev/null | sort; }
apt_lists_for=""
apt_update() {
  local now
  now="$(apt_targets | sha256sum)"
  if [ "$now" != "$apt_lists_for" ]; then
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    apt_lists_for="$now"
  fi
}
apt_install() {
  apt_update
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends -o Dpkg::Use-Pty=0 "$@"
}

"${as_root[@]}" mkdir -p "$prefix"

# --------------------------------------------------------------------------
# 0. The bookworm-backports source (lavapipe only), before any apt step, so
#    that the one refresh of the lists this run makes already covers it.
# --------------------------------------------------------------------------
# A suite counts as configured when apt itself lists an index target for it
# (commented-out or disabled entries do not); the mirror for a new source is
# the one that serves the plain `bookworm` suite here.
target_re() { printf '/dists/%s/main/binary-' "$1"; }
if [ "$want_lavapipe" -eq 1 ]; then
  if apt_targets | grep -q "$(target_re "$backports_suite")"; then
    log "apt source for $backports_suite present"
  else
    mirror="$(apt_targets | sed -n "s|$(target_re bookworm).*||p" | head -n1)"
    [ -n "$mirror" ] || die "no apt source serving Debian 'bookworm' main is configured" \
      "(apt-get indextargets lists none); lavapipe comes from $backports_suite of the same mirror"
    log "adding apt source $backports_suite from $mirror ($backports_file)"
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$mirror" "$backports_suite" | "${as_root[@]}" tee "$backports_file" >/dev/null
  fi
fi

# --------------------------------------------------------------------------
# 1. Dawn
# --------------------------------------------------------------------------
so_dest="$prefix/libwebgpu_wrapper.so"
if [ -f "$so_dest" ] && [ "$(sha_of "$so_dest")" = "$so_sha256" ]; then
  log "Dawn already installed: $so_dest"
else
  if ! command -v npm >/dev/null 2>&1; then
    # npm is the registry's own client; Debian 12 packages it (with nodejs).
    log "npm not found: installing Debian's npm"
    apt_install npm
  fi
  log "fetching $npm_spec with npm pack"
  # A private cache: nothing of an earlier run or of the user's npm cache is read.
  (cd "$tmp" && npm pack --silent --cache "$tmp/npm-cache" "$npm_spec" >/dev/null)
  [ -f "$tmp/$tgz_name" ] || die "npm pack did not produce $tgz_name"
  got="$(sha_of "$tmp/$tgz_name")"
  [ "$got" = "$tgz_sha256" ] || die "$tgz_name has sha256 $got, expected $tgz_sha256"
  tar -xzf "$tmp/$tgz_name" -C "$tmp" --strip-components=1 package/libwebgpu_wrapper.so
  got="$(sha_of "$tmp/libwebgpu_wrapper.so")"
  [ "$got" = "$so_sha256" ] || die "libwebgpu_wrapper.so has sha256 $got, expected $so_sha256"
  "${as_root[@]}" install -m 0644 "$tmp/libwebgpu_wrapper.so" "$so_dest"
  log "installed Dawn: $so_dest"
fi

# --------------------------------------------------------------------------
# 2. The Vulkan loader (Dawn dlopens libvulkan.so.1 itself)
# --------------------------------------------------------------------------
if [ "$(dpkg-query -W -f='${db:Status-Status}' libvulkan1 2>/dev/null || true)" = "installed" ]; then
  log "libvulkan1 already installed"
else
  apt_install libvulkan1
fi

if [ "$want_lavapipe" -eq 0 ]; then
  log "lavapipe skipped (--no-lavapipe)"
  exit 0
fi

# --------------------------------------------------------------------------
# 3. lavapipe from bookworm-backports, into a private folder
# --------------------------------------------------------------------------
# The candidate version from backports; an empty answer means lists that
# predate the source (apt_update then refreshes them).
bp_version() {
  apt-cache madison mesa-vulkan-drivers 2>/dev/null |
    awk -F'|' -v s="$backports_suite" '$3 ~ s { gsub(/ /, "", $2); print $2; exit }'
}
version="$(bp_version)"
if [ -z "$version" ]; then
  apt_update
  version="$(bp_version)"
fi
[ -n "$version" ] || die "mesa-vulkan-drivers is not offered by $backports_suite after apt-get update" \
  "(apt-cache madison mesa-vulkan-drivers lists: $(apt-cache madison mesa-vulkan-drivers 2>&1 | tr '\n' ';'))"

lvp_dir="$prefix/lavapipe"
lvp_lib="$lvp_dir/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"
if [ -f "$lvp_lib" ] && [ "$(cat "$lvp_dir/VERSION" 2>/dev/null || true)" = "$version" ]; then
  log "lavapipe $version already unpacked in $lvp_dir"
else
  log "downloading mesa-vulkan-drivers $version from $backports_suite"
  # apt-get download runs as the _apt user where it can: give it a folder it may write.
  chmod 0777 "$tmp"
  # Lists left by an earlier refresh may name a version the mirror has since
  # dropped: refresh once (if this run has not) and take the version then offered.
  if ! (cd "$tmp" && apt-get download -q "mesa-vulkan-drivers=$version" >/dev/null); then
    apt_update
    version="$(bp_version)"
    [ -n "$version" ] || die "mesa-vulkan-drivers is not offered by $backports_suite after apt-get update"
    (cd "$tmp" && apt-get download -q "mesa-vulkan-drivers=$version" >/dev/null) ||
      die "apt-get download mesa-vulkan-drivers=$version failed after apt-get update"
  fi
  deb="$(ls "$tmp"/mesa-vulkan-drivers_*.deb 2>/dev/null | head -n1)"
  [ -n "$deb" ] || die "apt-get download produced no mesa-vulkan-drivers .deb"
  "${as_root[@]}" rm -rf "$lvp_dir"
  "${as_root[@]}" mkdir -p "$lvp_dir"
  "${as_root[@]}" dpkg-deb -x "$deb" "$lvp_dir"
  [ -f "$lvp_lib" ] || die "$deb holds no usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"
  echo "$version" | "${as_root[@]}" tee "$lvp_dir/VERSION" >/dev/null
  log "unpacked lavapipe $version into $lvp_dir"
fi

# The unpacked driver links system libraries (libLLVM-15, libxcb, ...). Install
# those of its dependencies that are missing, from Debian 12 itself: version
# constraints are dropped because a few name backports versions (libdrm2 >=
# 2.4.121) while lavapipe uses no symbol newer than bookworm's; `ldd -r` below
# checks that claim on this machine.
deps="$(apt-cache show "mesa-vulkan-drivers=$version" |
  sed -n 's/^Depends: //p' | head -n1 | tr ',' '\n' |
  sed -e 's/([^)]*)//g' -e 's/|.*//' -e 's/[[:space:]]//g' -e 's/:any$//' | grep -v '^$' || true)"
need=()
for pkg in $deps; do
  state="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
  [ "$state" = "installed" ] || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
  log "installing lavapipe's runtime dependencies from bookworm: ${need[*]}"
  apt_install "${need[@]}"
fi
# Every library and symbol lavapipe needs must resolve; name any that do not.
unresolved="$(ldd -r "$lvp_lib" 2>&1 | grep -E 'not found|undefined symbol' || true)"
[ -z "$unresolved" ] || die "lavapipe does not load on this machine:
$unresolved"

icd="$lvp_dir/lvp_icd.json"
icd_text="$(printf '{\n  "file_format_version": "1.0.0",\n  "ICD": {\n    "library_path": "%s",\n    "api_version": "1.4.305"\n  }\n}\n' "$lvp_lib")"
if [ "$(cat "$icd" 2>/dev/null || true)" != "$icd_text" ]; then
  printf '%s\n' "$icd_text" | "${as_root[@]}" tee "$icd" >/dev/null
fi

# --------------------------------------------------------------------------
# 4. The env file
# --------------------------------------------------------------------------
env_file="$prefix/webgpu.env"
env_text="# Written by tenferro's scripts/setup-webgpu.sh: source it before running
# the webgpu backend on lavapipe.
export VK_DRIVER_FILES=$icd
# Silences a warning of Debian's Mesa 22 device-select layer (harmless).
export NODEVICE_SELECT=1"
if [ "$(cat "$env_file" 2>/dev/null || true)" != "$env_text" ]; then
  printf '%s\n' "$env_text" | "${as_root[@]}" tee "$env_file" >/dev/null
fi

log "done. For lavapipe, run:"
echo "  export VK_DRIVER_FILES=$icd"
log "(or: . $env_file)"
