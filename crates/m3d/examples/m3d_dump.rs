//! Prints a file's counts and chunk list: `cargo run --example m3d_dump -- file.m3d`.
fn main() {
    for path in std::env::args().skip(1) {
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("{path}: cannot read");
            continue;
        };
        match m3d_format::read(&bytes) {
            Ok(f) => {
                println!("{path}: {:?}", f.counts());
                for c in &f.chunks {
                    let mut s = format!("{:?}", c.body);
                    s.truncate(400);
                    println!("  {} {s}", String::from_utf8_lossy(&c.magic()));
                }
            }
            Err(e) => println!("{path}: error: {e}"),
        }
    }
}
