// Items that cannot be shared between threads: the error says why `&v` is no source.
use std::rc::Rc;

fn main() {
    let v: Vec<Rc<u32>> = (0..10).map(Rc::new).collect();
    let mut s = 0u32;
    blitz::par_for!(x in &v, reduce(+: s) => s += **x);
    println!("{s}");
}
