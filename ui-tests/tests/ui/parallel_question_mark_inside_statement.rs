// A `?` inside a statement (not at its end) keeps it out of the statement fork; with no other
// fork point, the fn has none.
struct Node {
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

impl Node {
    #[blitz::parallel]
    fn depth(&self) -> Result<u32, String> {
        let l = match &self.left {
            Some(l) => l.depth()?,
            None => 0,
        };
        let r = match &self.right {
            Some(r) => r.depth()?,
            None => 0,
        };
        Ok(1 + l.max(r))
    }
}

fn main() {}
