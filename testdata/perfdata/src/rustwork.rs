use std::sync::mpsc;
use std::collections::BTreeMap;
#[inline(never)] fn crunch(id: u64) -> u64 { let mut m = BTreeMap::new(); for i in 0..400000u64 { *m.entry((i * 7919 + id) % 5003).or_insert(0u64) += i; } m.values().sum() }
fn main() {
    let (tx, rx) = mpsc::channel();
    let hs: Vec<_> = (0..4).map(|id| { let tx = tx.clone(); std::thread::Builder::new().name(format!("worker-{id}")).spawn(move || { let v: u64 = (0..6).map(|k| crunch(id * 10 + k)).sum(); tx.send(v).unwrap(); }).unwrap() }).collect();
    drop(tx);
    let s: u64 = rx.iter().sum(); for h in hs { h.join().unwrap(); }
    let v: Vec<u64> = (0..3_000_000u64).map(|x| x.rotate_left(7) ^ x).collect(); let mut w = v.clone(); w.sort_unstable();
    println!("{} {}", s, w[17]);
}
