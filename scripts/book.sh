#!/usr/bin/env bash
# Builds the book and the API docs, and tests every Rust snippet in the book.
#
#   1. installs mdbook if `mdbook --version` does not work: a pinned version, without its
#      `serve` and `watch` features (a web server and a file watcher the build and test
#      below do not use, and most of its compile time on a fresh machine);
#   2. builds the `blitz` crate into a dedicated target dir, so that `mdbook test -L` sees
#      exactly one build of each Blitz crate (a shared deps dir that holds several builds of
#      one crate makes rustdoc fail with "multiple candidates for rlib");
#   3. `mdbook build book` and `mdbook test book`;
#   4. `cargo doc --workspace --no-deps` with warnings denied, first with the private items
#      (the internals' docs link to each other too), then as published.
set -euo pipefail
cd "$(dirname "$0")/.."

export PATH="$HOME/.cargo/bin:$PATH"
if ! mdbook --version >/dev/null 2>&1; then
    cargo install mdbook --version 0.5.4 --locked --no-default-features --features search
fi

deps_dir=target/book-deps
cargo build -p blitz-par --target-dir "$deps_dir"
# A toolchain update gives the crates new hashes, leaving the old builds next to the new ones:
# start the dedicated dir afresh if any Blitz crate has more than one build there.
builds_of() {
    find "$deps_dir/debug/deps" -maxdepth 1 -name "lib$1-*.$2" | wc -l
}
if [ "$(builds_of blitz rlib)" -ne 1 ] || [ "$(builds_of blitz_runtime rlib)" -ne 1 ] ||
    [ "$(builds_of blitz_macros "*")" -ne 1 ]; then
    rm -rf "$deps_dir"
    cargo build -p blitz-par --target-dir "$deps_dir"
fi

mdbook build book
mdbook test book -L "$deps_dir/debug/deps"

RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --document-private-items
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
