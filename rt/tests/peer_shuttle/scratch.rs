use rankcheck::sync::{Arc, Barrier};
use rankcheck::thread;
use rankcheck_rt as rankcheck;

fn leaders(batch: usize, n: usize) {
    let barrier = Arc::new(Barrier::new(batch));
    let hs: Vec<_> = (0..n).map(|_| { let b = barrier.clone(); thread::spawn(move || { b.wait(); }) }).collect();
    for h in hs { h.join().unwrap(); }
}

#[test]
fn scratch() {
    for (b, n) in [(1, 1), (1, 2), (2, 2), (1, 3), (3, 3), (4,4)] {
        let e = rankcheck::explore(move || leaders(b, n), 2_000_000, 10_000);
        eprintln!("batch {b} threads {n}: {} schedules complete {}", e.schedules, e.complete);
    }
}
