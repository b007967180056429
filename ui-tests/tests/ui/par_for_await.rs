async fn fetch(i: u32) -> u32 {
    i
}

async fn run() {
    blitz::par_for!(i in 0..10u32 => {
        let x = fetch(i).await;
        println!("{x}");
    });
}

fn main() {
    drop(run());
}
