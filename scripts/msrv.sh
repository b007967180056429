#!/usr/bin/env bash
# Builds and tests the workspace with the minimum supported Rust version: the `rust-version`
# of the workspace's Cargo.toml: 1.88, for the source locations `#[parallel]` reads (edition 2024
# alone needs 1.85, as do the lookup of the macros,
# through toml_edit, indexmap and hashbrown).
#
#   1. installs that toolchain with rustup (minimal profile) unless it is there;
#   2. checks every target (lib, tests, examples, benches) against the committed Cargo.lock.
#
# A check, not a build and test run: what the compiler version decides is whether the code
# compiles, and a check runs the macros on every `#[parallel]`, `par_for!` and `fork_join!` of
# the tests, examples and benches (the macros are built and run as they are in a build). How
# the compiled code behaves is the stable test step's business; building and testing here as
# well took about five minutes of CI's time for no other finding.
#
# A separate target dir keeps the MSRV build from evicting the stable one.
set -euo pipefail
cd "$(dirname "$0")/.."

export PATH="$HOME/.cargo/bin:$PATH"
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
if [ -z "$msrv" ]; then
    echo "msrv.sh: no rust-version in Cargo.toml" >&2
    exit 1
fi

if ! cargo "+$msrv" --version >/dev/null 2>&1; then
    if ! rustup toolchain install "$msrv" --profile minimal; then
        echo "msrv.sh: could not install Rust $msrv with rustup (offline, or no rustup?)." >&2
        echo "msrv.sh: install it by hand (rustup toolchain install $msrv) and rerun." >&2
        exit 1
    fi
fi
echo "MSRV: $(cargo "+$msrv" --version)"

target=target/msrv
cargo "+$msrv" check --workspace --all-targets --locked --target-dir "$target"
