#[blitz::parallel]
trait Size {
    fn size(&self) -> usize;
}

fn main() {}
