#!/usr/bin/env bash
# Packages the three published crates as `cargo publish` would, without uploading:
# `cargo publish --workspace --dry-run` (Cargo 1.90 or later) skips the `publish = false`
# members, packages blitz-par-macros, blitz-par-runtime and blitz-par in dependency order, and
# verifies each tarball by building it against the others through a temporary local registry
# (the facade's `=0.1.0` requirements are not on crates.io yet).
#
# Extra arguments go to cargo (e.g. --allow-dirty to check uncommitted changes).
set -euo pipefail
cd "$(dirname "$0")/.."

# Cargo takes registry crates to be immutable: it unpacks those of the temporary registry into
# $CARGO_HOME/registry/src/-<hash>/ (registries without a host name are the local ones) and
# builds them into the target dir, and with the version unchanged it would verify the next run
# against both stale copies. So: remove the unpacked copies, and verify in a target dir of its
# own, started afresh.
target=target/publish-check
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/blitz-par-* "$target"

cargo publish --workspace --dry-run --locked --target-dir "$target" "$@"
