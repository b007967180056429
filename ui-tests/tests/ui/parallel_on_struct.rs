#[blitz::parallel]
struct Tree {
    children: Vec<Tree>,
}

fn main() {}
