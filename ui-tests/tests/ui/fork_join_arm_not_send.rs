use std::cell::Cell;
use std::rc::Rc;

fn borrows_a_cell() {
    let counter = Cell::new(0);
    let (a, b) = blitz::fork_join!(1 + 1, {
        counter.set(1);
        2
    });
    println!("{a} {b}");
}

fn returns_an_rc() {
    blitz::fork_join!(shared = Rc::new(3), n = 4);
    println!("{shared} {n}");
}

fn main() {
    borrows_a_cell();
    returns_an_rc();
}
