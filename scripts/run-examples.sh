#!/usr/bin/env bash
# Runs every example with a small input (each checks its result against a sequential
# version and exits non-zero on a mismatch). The soak test has its own step in verify.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --examples
run() {
    echo "+ $*"
    "target/release/examples/$@"
}
run fib 25
run fib_probe 25 blitz 2
run fib_probe 25 parallel 2
run mandelbrot 64
run matmul 64
run merge_sort 100000
run nqueens 8
run quicksort 100000
run tree_sum 100000 2
run tree_sum_parallel 14
