use std::rc::Rc;
#[blitz::parallel]
fn f(n: u64) -> Rc<u64> {
    if n < 2 { return Rc::new(n); }
    Rc::new(*f(n - 1) + *f(n - 2))
}
fn main() { println!("{}", f(10)); }
