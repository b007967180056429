// Methods in impl blocks that a `macro_rules!` writes: a header passed through as a
// repetition may be a trait impl, so the method runs without a sibling copy; an associated fn
// there calls itself as `Self::f(..)`.

struct Dir {
    bytes: u64,
    kids: Vec<Dir>,
}

trait Size {
    fn size(&self) -> u64;
}

macro_rules! impl_with {
    ($($header:tt)*) => {
        impl $($header)* {
            #[blitz::parallel]
            fn size(&self) -> u64 {
                match self.kids.as_slice() {
                    [a, b] => self.bytes + a.size() + b.size(),
                    _ => self.bytes,
                }
            }
        }
    };
}

impl_with!(Size for Dir);

macro_rules! inherent {
    ($t:ty { $($item:item)* }) => {
        impl $t { $($item)* }
    };
}

inherent!(Dir {
    #[blitz::parallel]
    fn total(d: &[Dir]) -> u64 {
        match d {
            [] => 0,
            [x] => x.bytes + Self::total(&x.kids),
            _ => {
                let (l, r) = d.split_at(d.len() / 2);
                Self::total(l) + Self::total(r)
            }
        }
    }
});

fn full(depth: u32) -> Dir {
    let kids = if depth == 0 {
        Vec::new()
    } else {
        vec![full(depth - 1), full(depth - 1)]
    };
    Dir { bytes: 1, kids }
}

fn main() {
    let pool = blitz::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let tree = full(9);
    pool.install(|| {
        assert_eq!(tree.size(), 1023);
        assert_eq!(Dir::total(std::slice::from_ref(&tree)), 1023);
    });
}
