#!/usr/bin/env bash
# The fresh-root check: proves that the README's commands work on a brand-new
# Debian 12 machine that has never run them.
#
#   1. makes a new minimal Debian 12 root with debootstrap (--variant=minbase,
#      plus git and ca-certificates), from the mirror this machine uses;
#   2. gives it what a fresh machine of this kind comes with and nothing of
#      the project's: the trust store (/usr/local/share/ca-certificates and the
#      bundle /etc/ssl/certs/ca-certificates.crt), the package clients'
#      settings (apt sources and apt.conf.d, ~/.npmrc, /etc/pip.conf), DNS, and
#      the certificate variables of the environment (NODE_EXTRA_CA_CERTS, ...);
#   3. clones the repository (its committed HEAD) into /root/tenferro there;
#   4. mounts /proc, /sys and /dev, and runs as root, with a clean environment,
#      every command of the README: the two commands of "Two commands" exactly
#      as the README writes them (read from it; the tests with
#      TFR_REQUIRE_WEBGPU=1, so lavapipe must run them), then the other
#      commands the README gives (another instance, --help, install, the C
#      example built with pkg-config, setup-webgpu.sh --no-lavapipe);
#   5. unmounts on every exit path and removes the root (--keep keeps it).
#
# Prints the time and disk each step took. Needs root, and Debian's
# debootstrap (installed here when missing).
#
# Usage: scripts/fresh-check.sh [--keep] [--dir DIR]
#   --dir DIR   make the root in DIR (must not exist; default: a new folder
#               under ${TMPDIR:-/var/tmp})
#   --keep      leave the root in place (still unmounted) for inspection
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
keep=0
dir=""
while [ "$#" -gt 0 ]; do
  case "$1" in
    --keep) keep=1 ;;
    --dir) [ "$#" -ge 2 ] || { echo "fresh-check: --dir needs a folder" >&2; exit 2; }; dir="$2"; shift ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fresh-check: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

log() { echo "fresh-check: $*"; }
die() { echo "fresh-check: ERROR: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot and mounts need it)"
git -C "$repo" rev-parse --verify -q HEAD >/dev/null || die "$repo is not a git checkout with a commit"

if [ -z "$dir" ]; then
  base="${TMPDIR:-/var/tmp}"
  dir="$(mktemp -d "$base/tenferro-fresh.XXXXXX")"
  rmdir "$dir"
fi
[ ! -e "$dir" ] || die "$dir exists; give a new folder with --dir"
root="$dir/root"

# --------------------------------------------------------------------------
# Clean-up on every exit path: unmount what is mounted under the root (deepest
# first), and only then remove it; a root that still has a mount is never
# removed (rm would reach into the host's /dev or /sys).
# --------------------------------------------------------------------------
mounts_under() { findmnt -rn -o TARGET 2>/dev/null | awk -v r="$root" 'index($0, r "/") == 1' | sort -r; }
cleanup() {
  local rc=$? m left
  set +e
  [ "$rc" -eq 0 ] || echo "fresh-check: FAILED (exit $rc) in step: ${step_name:-setup}" >&2
  for m in $(mounts_under); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
  done
  left="$(mounts_under)"
  if [ -n "$left" ]; then
    echo "fresh-check: ERROR: still mounted, $dir left in place: $left" >&2
    rc=1
  elif [ "$keep" -eq 1 ]; then
    log "kept the root: $root"
  elif [ -d "$dir" ]; then
    rm -rf --one-file-system "$dir"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

t0=$SECONDS
step_start=$SECONDS
step() {
  local now=$SECONDS
  [ -z "${step_name:-}" ] || log "-- $step_name: $((now - step_start)) s${1:+, $1}"
  step_name="${2:-}"
  step_start=$now
}
disk_of() { du -sx --block-size=1M "$root" 2>/dev/null | cut -f1; }

# --------------------------------------------------------------------------
# 1. debootstrap
# --------------------------------------------------------------------------
step "" "debootstrap"
if ! command -v debootstrap >/dev/null 2>&1; then
  log "installing Debian's debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    -o Dpkg::Use-Pty=0 debootstrap
fi
# The mirror this machine's apt uses for the plain bookworm suite.
mirror="$(apt-get indextargets --no-release-info --format '$(URI)' 2>/dev/null |
  sed -n 's|/dists/bookworm/main/binary-.*||p' | head -n1)"
[ -n "$mirror" ] || die "no apt source for Debian 'bookworm' main on this machine: nothing to debootstrap from"
mkdir -p "$dir"
log "debootstrap bookworm (minbase + git, ca-certificates) from $mirror into $root"
debootstrap --variant=minbase --include=git,ca-certificates bookworm "$root" "$mirror" \
  >"$dir/debootstrap.log" 2>&1 || { tail -n 30 "$dir/debootstrap.log" >&2; die "debootstrap failed"; }

# --------------------------------------------------------------------------
# 2. What a fresh machine of this kind comes with
# --------------------------------------------------------------------------
step "$(disk_of) MiB" "machine settings"
copy_if() { [ -e "$1" ] || return 0; mkdir -p "$(dirname "$root$2")"; cp -a "$1" "$root$2"; }
mkdir -p "$root/usr/local/share/ca-certificates"
if [ -d /usr/local/share/ca-certificates ]; then
  cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
copy_if /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
# apt: the image's sources replace debootstrap's one-line sources.list.
rm -f "$root/etc/apt/sources.list"
copy_if /etc/apt/sources.list /etc/apt/sources.list
# Not the project's own: the bookworm-backports source that setup-webgpu.sh
# adds (tenferro-*) must be added inside the root, as on a new machine.
for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  case "$(basename "$f")" in tenferro-*) continue ;; esac
  [ -f "$f" ] && copy_if "$f" "$f"
done
for f in /etc/apt/apt.conf.d/*; do
  [ -f "$f" ] && copy_if "$f" "$f"
done
if grep -rqs "bookworm-backports" "$root/etc/apt/sources.list" "$root/etc/apt/sources.list.d/"; then
  log "note: this image's own apt sources include bookworm-backports (so the root's do too)"
fi
copy_if "${HOME:-/root}/.npmrc" /root/.npmrc
copy_if /etc/pip.conf /etc/pip.conf
copy_if /etc/resolv.conf /etc/resolv.conf
copy_if /etc/hosts /etc/hosts

# The environment of a login on this image: a clean one, plus the variables
# that point clients at the trust store or a proxy.
fresh_env=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
           LANG=C.UTF-8 TERM="${TERM:-dumb}")
while IFS='=' read -r name _; do
  case "$name" in
    *CA_CERT*|*CA_BUNDLE*|*SSL_CERT*|*SSL_CAINFO*|*_CA_CERTS*|*CAINFO*|PIP_CERT|\
    http_proxy|https_proxy|no_proxy|HTTP_PROXY|HTTPS_PROXY|NO_PROXY)
      fresh_env+=("$name=${!name}") ;;
  esac
done < <(env)
[ -n "${CI:-}" ] && fresh_env+=(CI="$CI")

# --------------------------------------------------------------------------
# 3. The clone
# --------------------------------------------------------------------------
step "" "clone"
git clone -q "$repo" "$root/root/tenferro"
log "cloned $(git -C "$root/root/tenferro" rev-parse --short HEAD) into /root/tenferro"

# --------------------------------------------------------------------------
# 4. Mounts and the README's commands
# --------------------------------------------------------------------------
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"

in_root() {
  chroot "$root" /usr/bin/env -i "${fresh_env[@]}" /bin/bash -c "cd /root/tenferro && $1"
}

# The fenced sh block under "## Two commands": its command lines, as written.
readme_commands="$(awk '/^## Two commands/ { sect = 1; next }
  /^## / { sect = 0 }
  sect && /^```sh/ { inblk = 1; next }
  inblk && /^```/ { exit }
  inblk && $0 !~ /^[ \t]*(#|$)/ { print }' "$repo/README.md")"
[ "$(printf '%s\n' "$readme_commands" | grep -c .)" -eq 2 ] ||
  die "expected two commands in README's 'Two commands' block, found: $readme_commands"
run_cmd="$(printf '%s\n' "$readme_commands" | sed -n 1p)"
test_cmd="$(printf '%s\n' "$readme_commands" | sed -n 2p)"

step "" "README: $run_cmd"
in_root "$run_cmd"
step "$(disk_of) MiB" "README: $test_cmd (TFR_REQUIRE_WEBGPU=1)"
in_root "TFR_REQUIRE_WEBGPU=1 $test_cmd"

# The README's other commands, in the order it gives them.
step "$(disk_of) MiB" "README: the other commands"
in_root "./scripts/run.sh examples/instances/str_nw_mera_closed_120.json --threads 2"
in_root "build/tenferro --help >/dev/null"
in_root "cmake --install build --prefix /usr/local >/dev/null && ldconfig"
# The README's C example, built as the README says and run.
awk '/^## A short example/ { sect = 1; next } /^## / { sect = 0 }
  sect && /^```c/ { inblk = 1; next } inblk && /^```/ { exit } inblk { print }' \
  "$repo/README.md" >"$root/root/example.c"
[ -s "$root/root/example.c" ] || die "no C example found under '## A short example' in README.md"
in_root 'cd /root && cc example.c $(pkg-config --cflags --libs tenferro) -o example &&
  out="$(./example)" && echo "example: $out" && [ "$out" = "6 15" ]'
in_root "./scripts/setup-webgpu.sh --no-lavapipe"
step "$(disk_of) MiB"

log "passed in $((SECONDS - t0)) s; the root took $(disk_of) MiB"
