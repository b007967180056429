//! Methods of an `impl` block with comments above it (a doc comment, a licence header) are
//! placed as in any inherent impl: an associated fn called as `Type::name(..)` forks, and a
//! `&self` method keeps its fast copy.

/// Directory trees and their sizes.
struct Dir {
    bytes: u64,
    kids: Vec<Dir>,
}

// Sizes, summed in parallel over the children.
/* (a block comment too) */
/// Sizes of directory trees.
impl Dir {
    fn total(&self) -> u64 {
        self.bytes + Dir::sum_of(&self.kids)
    }

    #[blitz::parallel]
    fn sum_of(dirs: &[Dir]) -> u64 {
        match dirs {
            [] => 0,
            [d] => d.total(),
            _ => {
                let (l, r) = dirs.split_at(dirs.len() / 2);
                Dir::sum_of(l) + Dir::sum_of(r)
            }
        }
    }

    #[blitz::parallel]
    fn depth(&self) -> usize {
        match &self.kids[..] {
            [] => 1,
            [only] => 1 + only.depth(),
            [first, rest @ ..] => {
                let rest = Dir { bytes: 0, kids: rest.iter().map(Dir::copy).collect() };
                (1 + first.depth()).max(rest.depth())
            }
        }
    }

    fn copy(&self) -> Dir {
        Dir { bytes: self.bytes, kids: self.kids.iter().map(Dir::copy).collect() }
    }
}

fn tree(depth: u32) -> Dir {
    Dir {
        bytes: u64::from(depth),
        kids: if depth == 0 { Vec::new() } else { (0..3).map(|_| tree(depth - 1)).collect() },
    }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let root = tree(6);
    // Level d holds 3^(6-d) nodes of d bytes each.
    let expected: u64 = (0..=6u32).map(|d| u64::from(d) * 3u64.pow(6 - d)).sum();
    assert_eq!(pool.install(|| root.total()), expected);
    assert_eq!(pool.install(|| root.depth()), 7);
}
