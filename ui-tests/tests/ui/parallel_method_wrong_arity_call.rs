// A method that calls itself on `self` with the wrong number of arguments: rustc's arity
// error, not a "no fork point" from the attribute.
struct Walker {
    depth: u32,
}

impl Walker {
    #[blitz::parallel]
    fn count(&self, n: u32) -> u32 {
        if n == 0 {
            return self.depth;
        }
        self.count(n - 1) + self.count(n - 1, 1)
    }
}

fn main() {
    println!("{}", Walker { depth: 1 }.count(4));
}
