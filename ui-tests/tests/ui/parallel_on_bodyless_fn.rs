trait Sum {
    #[blitz::parallel]
    fn sum(&self, depth: u32) -> u64;
}

fn main() {}
