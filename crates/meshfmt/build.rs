//! Links the tool's hot functions first, in one block (`link/hot.ld`, written by
//! `cargo xtask link-order` from profiles of short conversions).
//!
//! Why: the tool runs as one short process per file. On a small file most of its time
//! is the kernel mapping code pages on first touch, and the functions one conversion
//! needs lie scattered over 3.8 MB of code. Packed together they take a few pages.
//!
//! The script only adds an output section (`INSERT BEFORE .text`), which GNU ld and
//! LLVM's lld both take. It is left out where that is not known to hold: off Linux,
//! with a linker the user chose (mold or gold may not take `INSERT`), or when
//! `MESHFMT_NO_LINK_ORDER` is set. Its patterns name functions, so a build whose
//! functions differ links as before, never wrongly.

use std::env;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=link/hot.ld");
    println!("cargo:rerun-if-env-changed=MESHFMT_NO_LINK_ORDER");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    if env::var_os("MESHFMT_NO_LINK_ORDER").is_some()
        || env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux")
        || env::var_os("RUSTC_LINKER").is_some()
    {
        return;
    }
    // `-C linker=`, `-C linker-flavor=`, `-C link-arg=-fuse-ld=mold` and the like.
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    if flags
        .split('\x1f')
        .any(|f| f.contains("linker") || f.contains("fuse-ld"))
    {
        return;
    }
    let Some(dir) = env::var_os("CARGO_MANIFEST_DIR") else {
        return;
    };
    let script = Path::new(&dir).join("link").join("hot.ld");
    // `-Wl,` splits its argument at commas.
    match script.to_str() {
        Some(path) if script.is_file() && !path.contains(',') => {
            println!("cargo:rustc-link-arg-bins=-Wl,-T,{path}");
        }
        _ => {}
    }
}
