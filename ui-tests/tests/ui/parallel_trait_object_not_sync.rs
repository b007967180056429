// A trait object the forks cannot share (`&dyn Fn` without `+ Sync`), after another
// parameter: the first error points at that parameter, not at the first one.
#[blitz::parallel]
fn map_sum(v: &[i64], f: &dyn Fn(i64) -> i64) -> i64 {
    if v.len() == 1 {
        return f(v[0]);
    }
    let (l, r) = v.split_at(v.len() / 2);
    map_sum(l, f) + map_sum(r, f)
}

fn main() {
    println!("{}", map_sum(&[1, 2, 3], &|x| x * 2));
}
