struct Tree;

#[blitz::parallel]
impl Tree {
    fn sum(&self) -> u64 {
        0
    }
}

fn main() {}
