#!/usr/bin/env bash
# The release archive contrib/ci/action.yml installs (`make dist`; .github/workflows/release.yml
# uploads what it writes):
#
#   contrib/dist.sh [<binary>]
#
# writes to $DIST_DIR (default: target/dist, or $CARGO_TARGET_DIR/dist):
#   git-majordomus-<tag>-x86_64-unknown-linux-gnu.tar.gz   holding, at the archive root:
#       git-majordomus                     the binary (the action extracts exactly this name)
#       man/git-majordomus*.1              one page per command (`generate man <dir>`)
#       completions/git-majordomus.bash, completions/_git-majordomus, completions/git-majordomus.fish
#       LICENSE-MIT, LICENSE-APACHE, README.md
#   SHA256SUMS                                              sha256sum's format, over the tarball
#
# <binary>, else $BIN: an already-built release binary; without either, `cargo build --release
# --locked` builds one. TAG (default v<version in Cargo.toml>) names the archive and must be
# v<the binary's --version>. The archive is reproducible: names sorted, owner and group 0,
# modes 755/644, every mtime $SOURCE_DATE_EPOCH (default: the commit time of HEAD, else 0),
# gzip without a name or time (level $DIST_GZIP_LEVEL, default 9; the tests pack a 250 MB debug
# binary with 1). A license file missing fails the run: the licenses require their text to
# travel with the binary.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
triple=x86_64-unknown-linux-gnu

die() {
  echo "dist: $*" >&2
  exit 1
}

for tool in tar gzip sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is required but not on PATH"
done

# The package version: the first `version = "..."` of Cargo.toml's [workspace.package] table
# (every crate of the workspace inherits it), else of its [package] table.
table_version() {
  sed -n "/^\\[$1\\]/,/^\\[/{s/^version *= *\"\\([^\"]*\\)\".*/\\1/p}" "$root/Cargo.toml" | head -n 1
}
version="$(table_version 'workspace\.package')"
[ -n "$version" ] || version="$(table_version package)"
[ -n "$version" ] || die "no version in the [workspace.package] or [package] table of $root/Cargo.toml"
tag="${TAG:-v$version}"

for f in LICENSE-MIT LICENSE-APACHE README.md; do
  [ -f "$root/$f" ] || die "$root/$f is missing; the archive ships it beside the binary"
done

bin="${1:-${BIN:-}}"
if [ -z "$bin" ]; then
  [ "$(uname -sm)" = "Linux x86_64" ] || die "this host builds for $(uname -sm), not $triple; pass a binary built for it"
  cargo build --release --locked --manifest-path "$root/Cargo.toml"
  bin="${CARGO_TARGET_DIR:-$root/target}/release/git-majordomus"
fi
[ -x "$bin" ] || die "$bin is not an executable file"

# The archive's name says which release it is; the binary must agree.
said="$("$bin" --version)" || die "$bin --version failed"
[ "$said" = "git-majordomus ${tag#v}" ] || die "$bin says \"$said\", but the tag is $tag (want \"git-majordomus ${tag#v}\")"

dist="${DIST_DIR:-${CARGO_TARGET_DIR:-$root/target}/dist}"
mkdir -p "$dist"
dist="$(cd "$dist" && pwd)"
asset="git-majordomus-$tag-$triple.tar.gz"

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH="$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)"
fi

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/man" "$stage/completions"
cp "$bin" "$stage/git-majordomus"
"$stage/git-majordomus" generate man "$stage/man" >/dev/null
"$stage/git-majordomus" generate bash >"$stage/completions/git-majordomus.bash"
"$stage/git-majordomus" generate zsh >"$stage/completions/_git-majordomus"
"$stage/git-majordomus" generate fish >"$stage/completions/git-majordomus.fish"
cp "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$root/README.md" "$stage/"
[ -f "$stage/man/git-majordomus.1" ] || die "$bin generate man <dir> wrote no git-majordomus.1"
find "$stage" -type d -exec chmod 755 {} +
find "$stage" -type f -exec chmod 644 {} +
chmod 755 "$stage/git-majordomus"

# Only this run's products: a stale tarball of another tag would be uploaded with them.
rm -f "$dist"/git-majordomus-*-"$triple".tar.gz "$dist/SHA256SUMS"
# The top-level names in byte order (--sort=name orders what is under each of them).
(
  cd "$stage"
  LC_ALL=C tar --format=gnu --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
    -cf - LICENSE-APACHE LICENSE-MIT README.md completions git-majordomus man
) | gzip "-${DIST_GZIP_LEVEL:-9}" -n >"$dist/$asset.tmp"
mv "$dist/$asset.tmp" "$dist/$asset"
(cd "$dist" && sha256sum "$asset" >SHA256SUMS)

echo "$dist/$asset"
echo "$dist/SHA256SUMS"
