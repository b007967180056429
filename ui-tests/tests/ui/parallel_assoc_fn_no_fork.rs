// An associated fn (no receiver, no `Self`) with no sibling calls: the hint names `Self::`.
struct Tree {
    kids: Vec<Tree>,
}

impl Tree {
    #[blitz::parallel]
    fn depth(t: &Tree) -> u64 {
        1 + t.kids.iter().map(Tree::depth).max().unwrap_or(0)
    }
}

fn main() {
    println!("{}", Tree::depth(&Tree { kids: Vec::new() }));
}
