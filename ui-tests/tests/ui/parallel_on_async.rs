#[blitz::parallel]
async fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    Box::pin(fib(n - 1)).await + Box::pin(fib(n - 2)).await
}

fn main() {}
